#!/usr/bin/env bash
# Build-check-measure on the GPU machine for the CUDA backend's kernel
# variants (not a test; docs/perf/p1-kernels.md records what it printed):
# the agreement test, the 6M-cell Kuhn-cube benchmark (default kernels and
# the same-run variants), the Gmsh-refined 6.36M-cell cube (bench-6m.yaml's
# mesh) and, where Nsight Compute is installed, a profile of the residual
# kernels. Writes under ${OUT:-/tmp/variants}; each step has its own time
# limit so that a slow one leaves the others' results.
# Usage: BUILD=<dir> bash tests/gpu/variants.sh [steps...]
#   steps: agree cube gmsh ncu ncusrc sass suite feintbench (default: the first four;
#   suite: the GPU test scripts; feintbench: feint bench bench-6m.yaml per strategy,
#   FEINT_BENCH_STRATEGIES="colored atomic gather" by default)
#   T_<step>=seconds overrides a step's time limit; FEINT_BENCH_ENV="NAME=value ..."
#   adds t501's runs with those tuning settings; NCU_LAUNCHES="kernel:skip ..." picks
#   the profiled launches (NCU_PHYSICS=elasticity: of the elasticity run); sass: the SASS opcode histograms of the P1 Poisson block and lean kernels
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${BUILD:-build}
O=${OUT:-/tmp/variants}
mkdir -p "$O"
steps=${*:-agree cube gmsh ncu}
nvidia-smi -L > "$O/device.txt" 2>&1
for s in $steps; do
  t0=$(date +%s)
  case $s in
    agree) FEINT_GPU_TESTS=1 timeout ${T_agree:-120} "$B/tests/t500-cuda-agreement" > "$O/agree.txt" 2>&1 ;;
    cube) FEINT_BENCH_N=100 FEINT_BENCH_QUICK=1 timeout ${T_cube:-180} "$B/tests/t501-cuda-bench" > "$O/cube.txt" 2>&1 ;;
    gmsh) FEINT_BENCH_MESH=cases/cube.geo FEINT_BENCH_SIZE=0.036 FEINT_BENCH_REFINE=2 FEINT_BENCH_QUICK=1 \
            FEINT_BENCH_PHYSICS=poisson timeout ${T_gmsh:-120} "$B/tests/t501-cuda-bench" > "$O/gmsh.txt" 2>&1 ;;
    ncu)
      ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
      [ -n "$ncu" ] || { echo "no ncu" > "$O/ncu.txt"; continue; }
      # launches of t501 (Poisson, atomic, default order): p1_block_kernel 2 = the residual,
      # 10 = the matrix assembly
      for k in ${NCU_LAUNCHES:-p1_block_kernel:2 p1_block_kernel:10}; do
        FEINT_BENCH_N=100 FEINT_BENCH_QUICK=1 FEINT_BENCH_PHYSICS=${NCU_PHYSICS:-poisson} FEINT_BENCH_STRATEGY=atomic \
          timeout 90 "$ncu" -k regex:${k%:*} --launch-skip ${k#*:} --launch-count 1 --section SpeedOfLight \
          --section WarpStateStats --section Occupancy --section MemoryWorkloadAnalysis --section LaunchStats \
          --section SchedulerStats --section InstructionStats --section ComputeWorkloadAnalysis \
          --section SourceCounters "$B/tests/t501-cuda-bench" > "$O/ncu-${NCU_PHYSICS:-poisson}-${k%:*}-${k#*:}.txt" 2>&1
      done ;;
    ncusrc)
      # the lean residual kernels (atomic; launch 2 of t501's run of each physics) with the full
      # section set, then the per-SASS-instruction source counters (stall reasons, L1 wavefronts)
      ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
      [ -n "$ncu" ] || { echo "no ncu" > "$O/ncu.txt"; continue; }
      for ph in ${NCU_PHYSICS:-poisson elasticity}; do
        FEINT_BENCH_N=100 FEINT_BENCH_QUICK=1 FEINT_BENCH_VARIANTS=0 FEINT_BENCH_PHYSICS=$ph FEINT_BENCH_STRATEGY=atomic \
          timeout 150 "$ncu" -k regex:${NCU_KERNEL:-p1_lean_kernel} --launch-skip 2 --launch-count 1 --set full \
          -f -o /tmp/ncu-$ph "$B/tests/t501-cuda-bench" > "$O/ncu-run-$ph.txt" 2>&1
        "$ncu" -i /tmp/ncu-$ph.ncu-rep --page details --print-details all > "$O/ncu-$ph.txt" 2>&1
        "$ncu" -i /tmp/ncu-$ph.ncu-rep --page source --print-source sass --csv > "$O/ncu-src-$ph.csv" 2>&1
      done ;;
    sass)
      # registers / stack per kernel, and the opcode histograms of the 3D double
      # Poisson residual block kernel (<3, 1, 0, 0, double>) and lean kernels
      # (nodal kappa, global gather: <1, 2, 0, 1, 4, double, double>, and
      # <..., float, float> of single precision)
      cuobjdump --dump-resource-usage "$B/tests/t501-cuda-bench" | grep -A1 p1_ | c++filt > "$O/regs.txt" 2>&1
      cuobjdump -sass "$B/tests/t501-cuda-bench" > "$O/sass-all.txt" 2>&1
      for k in block:_Z15p1_block_kernelILi3ELi1ELi0ELi0Ed lean:_Z14p1_lean_kernelILi1ELi2ELi0ELi1ELi4EddLb0EEv \
               leanf:_Z14p1_lean_kernelILi1ELi2ELi0ELi1ELi4EffLb0EEv leane:_Z14p1_lean_kernelILi3ELi2ELi1ELi0ELi4EddLb1EEv; do
        awk -v f="Function : ${k#*:}" 'index($0, f){on=1; next} /Function :/{on=0} on' "$O/sass-all.txt" \
          > "$O/sass-${k%%:*}.txt"
        grep -E '^ +/\*[0-9a-f]+\*/' "$O/sass-${k%%:*}.txt" |
          awk '{op = $2; if (op ~ /^@/) op = $3; sub(/[.;].*/, "", op); print op}' | sort | uniq -c | sort -rn \
          > "$O/sass-hist-${k%%:*}.txt"
      done
      rm -f "$O/sass-all.txt" ;;
    suite) FEINT_GPU_TESTS=1 timeout ${T_suite:-150} bash tests/run.sh tests/gpu > "$O/test-gpu.txt" 2>&1 ;;
    feintbench)
      for st in ${FEINT_BENCH_STRATEGIES:-colored atomic gather}; do
        timeout 60 "$B/feint" bench cases/bench/bench-6m.yaml --backend cuda --repeat 11 -o /tmp/feint-bench.h5 \
          --set assembly.strategy=$st --set output.rhs=false --quiet > "$O/feintbench-$st.txt" 2>&1
      done ;;
  esac
  echo "$s: rc $? in $(( $(date +%s) - t0 )) s" >> "$O/steps.txt"
done
cat "$O/steps.txt"
