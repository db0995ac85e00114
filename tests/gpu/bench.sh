#!/usr/bin/env bash
# make bench-gpu: the CUDA issue's benchmark on the GPU machine. feint bench
# on ~6.4M P1 tetrahedra (Poisson, variable coefficient; then elasticity)
# for each assembly strategy, the kernel benchmark (paper kernel, thread
# transposition sweep) and the symbolic-phase benchmark. Not a test.
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${BUILD:-build}
out=${OUT:-$B/bench-gpu}
mkdir -p "$out"
for s in colored atomic gather; do
  "$B/feint" bench cases/bench/bench-6m.yaml --backend cuda --repeat 11 -o /tmp/feint-bench.h5 \
    --set assembly.strategy=$s --set output.rhs=false 2>&1 | tee "$out/poisson-$s.txt"
done
"$B/feint" bench cases/bench/bench-6m.yaml --backend cuda --repeat 11 -o /tmp/feint-bench.h5 \
  --set physics.kind=elasticity --set 'state.u=["x*y", "y*z", "z*x"]' --set physics.source=null \
  --set output.rhs=false --set output.matrix=false 2>&1 | tee "$out/elasticity.txt"
FEINT_BENCH_N=100 "$B/tests/t501-cuda-bench" 2>&1 | tee "$out/kernels.txt"
"$B/tests/t312-plan-bench" 2>&1 | tee "$out/symbolic.txt"
rm -f /tmp/feint-bench.h5
