#!/usr/bin/env bash
# The sweep benchmark (cases/bench/sweep-1m.yaml: 20 coefficient values on
# about a million P1 tetrahedra, rhs and CSR matrix per member, one
# process): wall time of `feint run` for one member alone, and for the
# whole sweep with the backend reused (the default) and re-created for
# every member (FEINT_BACKEND_REUSE=0), REPS times each, alternating (the
# spread of the repeats is the noise). First feint bench of one member:
# the device's copy bandwidth and each phase. Run by bench.sh; not a test.
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${BUILD:-build}
out=${OUT:-$B/bench-gpu}
reps=${REPS:-1}
mkdir -p "$out"
case=${CASE:-cases/bench/sweep-1m.yaml}
"$B/feint" bench $case --backend cuda --set sweep=null --repeat 5 -o /tmp/feint-single.h5 --quiet 2>&1 |
  tee "$out/sweep-member-bench.txt"
# timed NAME REUSE FEINT_ARGS...: the case run with FEINT_BACKEND_REUSE=REUSE, --json into NAME.json,
# start and end (s) into NAME.wall
timed() {
  local name=$1 reuse=$2 t0 t1
  shift 2
  t0=$(date +%s.%N)
  FEINT_BACKEND_REUSE=$reuse "$B/feint" run $case --backend cuda --quiet --json "$@" > "$out/$name.json" \
    2> "$out/$name.err"
  t1=$(date +%s.%N)
  echo "$t0 $t1" > "$out/$name.wall"
}
timed sweep-single 1 -o /tmp/feint-single.h5 --set sweep=null
for ((r = 0; r < reps; r++)); do
  timed "sweep-reused-$r" 1
  timed "sweep-recreated-$r" 0
done
python3 - "$out" "$reps" <<'EOF' | tee "$out/sweep.txt"
import json, sys
out, reps = sys.argv[1], int(sys.argv[2])
def load(name):
    t0, t1 = map(float, open(f"{out}/{name}.wall").read().split())
    return t1 - t0, json.load(open(f"{out}/{name}.json"))
single, s1 = load("sweep-single")
print(f"{s1['device']}: {s1['cells']} cells, {s1['dofs']} dofs, {s1['nonzeros']} nonzeros")
print(f"one member alone: {single:.2f} s wall (setup {s1['seconds']['setup']:.3f} s)")
for kind in ["reused", "recreated"]:
    for r in range(reps):
        wall, s = load(f"sweep-{kind}-{r}")
        sec = s["seconds"]
        print(f"sweep of {s['members']} members, backend {kind:9s} (reused by {s['backend_reused']:2d}): "
              f"{wall:6.2f} s wall, ratio to one alone {wall / single:.2f}; setup {sec['setup']:.3f} s, "
              f"mesh {sec['mesh_read']:.2f} s, rhs {sec['rhs']:.3f} s, assembly {sec['assembly']:.3f} s, "
              f"write {sec['write']:.2f} s")
EOF
rm -f /tmp/feint-sweep-*.h5 /tmp/feint-single.h5
