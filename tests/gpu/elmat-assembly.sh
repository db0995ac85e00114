#!/usr/bin/env bash
# The element-matrix backend of `feint run --backend cuda` on the GPU
# machine (docs/perf/element-matrices.md, "feint run on the GPU"): feint bench
# of cases/bench/elmat-p4-tet.yaml (P4 tetrahedra, nodal kappa) and of its
# order-7 variant and a larger P4 mesh, with and without the element matrices, with this
# build's feint and, when BEFORE names an older feint, with that one too;
# the cpu backend once for reference. Not a test.
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${BUILD:-build}
out=${OUT:-$B/elmat-assembly}
mkdir -p "$out"
case=cases/bench/elmat-p4-tet.yaml
p7="--set mesh.size=0.2 --set space.order=7"
large="--set mesh.size=0.06" # 22,875 cells, 260,223 dofs, 18.8M nonzeros
bench() { # LABEL FEINT ARGS...
  local label=$1 exe=$2
  shift 2
  echo "== $label" | tee -a "$out/bench.txt"
  "$exe" bench "$case" --quiet -o /tmp/elmat-bench.h5 --set output.residual=false --set output.rhs=false "$@" 2>&1 |
    tee -a "$out/bench.txt"
}
for v in ${BEFORE:+before:$BEFORE} after:$B/feint; do
  name=${v%%:*} exe=${v#*:}
  bench "$name: P4 cuda, element matrices and matrix" "$exe" --backend cuda --repeat 11
  bench "$name: P4 cuda, matrix only" "$exe" --backend cuda --repeat 11 --set output.element_matrices=false
  bench "$name: P7 cuda, element matrices and matrix" "$exe" --backend cuda --repeat 5 $p7
  bench "$name: P7 cuda, matrix only" "$exe" --backend cuda --repeat 5 $p7 --set output.element_matrices=false
  bench "$name: P4 large cuda, element matrices and matrix" "$exe" --backend cuda --repeat 5 $large
  bench "$name: P4 large cuda, matrix only" "$exe" --backend cuda --repeat 5 $large --set output.element_matrices=false
done
bench "cpu: P4" "$B/feint" --backend cpu --repeat 1
bench "cpu: P7, matrix only" "$B/feint" --backend cpu --repeat 1 $p7 --set output.element_matrices=false
rm -f /tmp/elmat-bench.h5
# the phases of each run, one line per run
# (wall time, and the kernels' device time where measured)
awk '/^== /{l=substr($0, 4)} /^(setup|element_matrices|assembly) /{t[$1]=$2; k[$1]=$5}
  /^write /{printf "%-56s setup %8s  element_matrices %8s (%6s)  assembly %8s (%6s) ms\n", l, t["setup"],
    t["element_matrices"], k["element_matrices"], t["assembly"], k["assembly"]; delete t; delete k}' \
  "$out/bench.txt" | tee "$out/summary.txt"
