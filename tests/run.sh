#!/usr/bin/env bash
# The test runner: runs every unit test binary (build/tests/t*, benchmarks
# apart) and every command-line test script (tests/cli/t*.sh), or those
# under the directories given as arguments, several at a time, and ends
# with "N passed, N failed".
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
# Tests run FEINT_TEST_JOBS at a time (default: the cores), the slowest of
# the last run first ($BUILD/test-seconds, else the times recorded in
# tests/test-seconds), so that the long ones do not end the suite alone;
# each prints its result when it ends.
JOBS=${FEINT_TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
TIMES="$BUILD/test-seconds"
KNOWN=$TIMES; [ -f "$KNOWN" ] || KNOWN=tests/test-seconds
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
# feint's cache (compiled kernels, the meshes' hashes) in the run's own folder, not the user's (a test that
# names its own keeps it)
export FEINT_CACHE_DIR="${FEINT_CACHE_DIR:-$OUT/cache}"
passed=0; failed=0; failed_names=(); names=(); paths=()
add() { names+=("$1"); paths+=("$2"); } # name, the binary or the script
if [ $# -eq 0 ]; then
  # *-bench binaries (t312, t501, t621, t69) are benchmarks, not tests: they
  # run in make bench-gpu; their checks are in make test-gpu (t311's plan
  # equality, tests/gpu/t501-cuda-bench.sh and t620-elmat-gpu.sh's smoke runs)
  for t in "$BUILD"/tests/t*; do
    case $t in *-bench) continue ;; esac
    [ -x "$t" ] && add "$(basename "$t")" "$t"
  done
  set -- tests/cli
fi
for dir in "$@"; do
  for s in "$dir"/t*.sh; do [ -f "$s" ] && add "$s" "$s"; done
done
# the order: last run's seconds, most first (unknown tests first)
order=$(for i in "${!names[@]}"; do
  echo "$(awk -v n="${names[$i]}" '$1 == n { s = $2 } END { print s == "" ? 1e9 : s }' "$KNOWN" 2>/dev/null || echo 1e9) $i"
done | sort -s -k1,1gr | cut -d' ' -f2)
start() { # index: runs the test in the background; its log, status and seconds land in $OUT
  local i=$1
  local run=("${paths[$i]}"); case ${paths[$i]} in *.sh) run=(bash "${paths[$i]}") ;; esac
  ( t0=$SECONDS; "${run[@]}" > "$OUT/$i.log" 2>&1; echo "$? $((SECONDS - t0))" > "$OUT/$i.rc.tmp"
    mv "$OUT/$i.rc.tmp" "$OUT/$i.rc" ) &
}
report() { # index
  local i=$1 rc secs
  read -r rc secs < "$OUT/$i.rc"
  echo "${names[$i]} $secs" >> "$OUT/seconds"
  if [ "$rc" -eq 0 ]; then
    passed=$((passed + 1)); echo "PASS ${names[$i]} ($secs s)"
  else
    failed=$((failed + 1)); failed_names+=("${names[$i]}"); echo "FAIL ${names[$i]} ($secs s)"
    sed 's/^/    /' "$OUT/$i.log" | tail -40
  fi
}
running=()
for i in $order; do
  while [ ${#running[@]} -ge "$JOBS" ]; do
    wait -n 2>/dev/null || true
    left=()
    for r in "${running[@]}"; do if [ -f "$OUT/$r.rc" ]; then report "$r"; else left+=("$r"); fi; done
    running=("${left[@]}")
  done
  start "$i"; running+=("$i")
done
wait
for r in "${running[@]}"; do report "$r"; done
[ -f "$OUT/seconds" ] && { mkdir -p "$BUILD" && cp "$OUT/seconds" "$TIMES"; }
[ ${#failed_names[@]} -gt 0 ] && echo "failed: ${failed_names[*]}"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
