#!/usr/bin/env bash
# make bench-gpu: the CUDA issue's benchmark on the GPU machine. feint bench
# on ~6.4M P1 tetrahedra (Poisson, variable coefficient; then elasticity)
# for each assembly strategy, the kernel benchmark (paper kernel, thread
# transposition sweep), the symbolic-phase benchmark, the high-order
# element matrices (t621, issue 4) and the BP operators (t69: GDOF/s, GF/s
# and % of copy for N = 1..15 on the 4096-cell and the large hex mesh,
# stored and recomputed geometry; issue 4) and user forms against the
# built-in kinds (forms-bench.sh, issue 19), the built-in kinds on
# hexahedra on the GPU against the cpu (cells-bench.sh), the user-form
# matrix kernels against each other (matrix-kernels-bench.sh), curved
# against straight cells (curved-bench.sh, issue 21). Not a test.
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${BUILD:-build}
out=${OUT:-$B/bench-gpu}
mkdir -p "$out"
for s in colored atomic gather; do
  "$B/feint" bench cases/bench/bench-6m.yaml --backend cuda --repeat 11 -o /tmp/feint-bench.h5 \
    --set assembly.strategy=$s --set output.rhs=false --quiet 2>&1 | tee "$out/poisson-$s.txt"
done
"$B/feint" bench cases/bench/bench-6m.yaml --backend cuda --repeat 11 -o /tmp/feint-bench.h5 \
  --set physics.kind=elasticity --set 'state.u=["x*y", "y*z", "z*x"]' --set physics.source=null \
  --set output.rhs=false --set output.matrix=false --quiet 2>&1 | tee "$out/elasticity.txt"
FEINT_BENCH_N=100 "$B/tests/t501-cuda-bench" 2>&1 | tee "$out/kernels.txt"
"$B/tests/t312-plan-bench" 2>&1 | tee "$out/symbolic.txt"
FEINT_BENCH=1 "$B/tests/t621-elmat-bench" 2>&1 | tee "$out/elmat.txt"
"$B/tests/t69-bp-bench" 2>&1 | tee "$out/bp.txt"
rm -f /tmp/feint-bench.h5
# sweep of 20 coefficient values on ~1M cells: one run alone, backend reused, re-created
OUT=$out bash tests/gpu/sweep-bench.sh
# user forms against the built-in kinds they re-express (issue 19)
OUT=$out bash tests/gpu/forms-bench.sh
# the built-in kinds on hexahedra: the GPU (as forms) against the cpu
OUT=$out bash tests/gpu/cells-bench.sh
# the user-form matrix kernels: a warp against a block a cell; Q3 elasticity against the cpu
OUT=$out bash tests/gpu/matrix-kernels-bench.sh
# the built-in kinds on P2 as forms: whole runs, cold and warm cache, against tt
bash tests/gpu/builtin-forms-e2e.sh | tee "$out/builtin-forms-e2e.txt"
# curved against straight (and affine) second-order cells (issue 21): tetrahedra, then hexahedra
OUT=$out bash tests/gpu/curved-bench.sh | tee "$out/curved-bench.txt"
SHAPE=hex OUT=$out bash tests/gpu/curved-bench.sh | tee "$out/curved-bench-hex.txt"
