#!/usr/bin/env bash
# make bench-e2e: the whole `feint run` against its I/O floors (tests/bench/e2e.py).
# BENCH_N=N sets the mesh (6 N^3 tetrahedra; default 100: 6M cells), BENCH_DIR where it and the
# outputs go (default build/bench-e2e: the file system the user's output would be on).
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${BUILD:-build}
PY=${PY:-/usr/bin/python3}
"$PY" -c "import numpy" 2>/dev/null || PY=python3
exec "$PY" tests/bench/e2e.py "$B/feint" "$B/bench/gmsh-open" "$B/bench/gen-cube-msh" "${BENCH_DIR:-$B/bench-e2e}" \
  "${BENCH_N:-100}"
