#!/usr/bin/env bash
# The test runner: runs every unit test binary (build/tests/t*, benchmarks
# apart) and every command-line test script (tests/cli/t*.sh), or those
# under the directories given as arguments, and ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$PWD/$BUILD ;; esac
export BUILD
export FEINT="${FEINT:-$BUILD/feint}"
# Debian's python3 has the apt-installed h5py/scipy; elsewhere (the GPU
# machine) take the first python3 that has them.
export PY=/usr/bin/python3
if ! "$PY" -c "import h5py, scipy" 2>/dev/null && command -v python3 >/dev/null; then PY=$(command -v python3); fi
passed=0; failed=0; failed_names=()
run_one() {
  local name=$1; shift
  local log; log=$(mktemp)
  local t0=$SECONDS
  if "$@" >"$log" 2>&1; then
    passed=$((passed + 1)); echo "PASS $name ($((SECONDS - t0)) s)"
  else
    failed=$((failed + 1)); failed_names+=("$name"); echo "FAIL $name ($((SECONDS - t0)) s)"; sed 's/^/    /' "$log" | tail -40
  fi
  rm -f "$log"
}
if [ $# -eq 0 ]; then
  # *-bench binaries (t312, t501, t621, t69) are benchmarks, not tests: they
  # run in make bench-gpu; their checks are in make test-gpu (t311's plan
  # equality, tests/gpu/t501-cuda-bench.sh and t620-elmat-gpu.sh's smoke runs)
  for t in "$BUILD"/tests/t*; do
    case $t in *-bench) continue ;; esac
    [ -x "$t" ] && run_one "$(basename "$t")" "$t"
  done
  set -- tests/cli
fi
for dir in "$@"; do
  for s in "$dir"/t*.sh; do [ -f "$s" ] && run_one "$s" bash "$s"; done
done
[ ${#failed_names[@]} -gt 0 ] && echo "failed: ${failed_names[*]}"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
