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
expect_bad() { # name, expected message fragment (grep -E), feint args...
  # exit status 2, the message on stderr, and no output (nor temporary) file at $WORK/out.h5
  local name=$1 want=$2; shift 2
  rm -f "$WORK/out.h5" "$WORK"/out.h5.tmp-*
  set +e
  "$FEINT" "$@" > "$WORK/stdout" 2> "$WORK/stderr"
  local rc=$?
  set -e
  [ $rc -eq 2 ] || fail "$name: exit status $rc, expected 2 ($(cat "$WORK/stderr"))"
  grep -Eq -- "$want" "$WORK/stderr" || fail "$name: message '$(cat "$WORK/stderr")' lacks /$want/"
  [ ! -e "$WORK/out.h5" ] || fail "$name: output file left behind"
  ! ls "$WORK"/out.h5.tmp-* >/dev/null 2>&1 || fail "$name: temporary file left behind"
  echo "ok $name: $(head -1 "$WORK/stderr")"
}
