# Shared helpers for the command-line tests (sourced).
set -euo pipefail
: "${FEINT:=$PWD/build/feint}"
: "${PY:=/usr/bin/python3}"
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# write_case NAME <<EOF ... : a case file in $WORK, meshes from cases/
write_case() { cat > "$WORK/$1"; }
geo() { echo "$ROOT/cases/$1"; }
