#!/usr/bin/env bash
# Build-check-measure on the GPU machine for the BP kernels (issue 4; not a
# test; docs/perf/bp-operators.md records what it printed). Steps:
#   agree   t602: every kernel variant against the CPU reference, N = 1..15
#   target  t69 on the large mesh, N = 3..8 (the issue's targets), every
#           variant ("1 2 ... 9" or $BP_VARIANTS), in the numberings
#           of $BP_NUMBERING ("1 0": split and the dof map's own; empty:
#           the default only)
#   small   t69 on the 4096-cell mesh, N = 1..15, default + variants
#   large   t69 on the large mesh, N = 1..15, default + variants
#   ncu     Nsight Compute on each N of $BP_NCU_N (default 7), large mesh,
#           the stored-factor kernels of the variants $BP_VARIANTS (or
#           $BP_NCU_VARIANTS, may be empty: the defaults only) matching
#           $BP_NCU_KERNELS
#   suite   the GPU test scripts (tests/gpu/t*.sh)
# Writes under ${OUT:-/tmp/bp-variants}; each step has its own time limit so
# that a slow one leaves the others' results.
# The variants that are not their order's default are in a make
# EXPERIMENTS=1 build only (build-exp); a default build measures the
# defaults and skips the rest.
# Usage: BUILD=<dir> bash tests/gpu/bp-variants.sh [steps...]
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${BUILD:-build-exp}
O=${OUT:-/tmp/bp-variants}
V=${BP_VARIANTS-1 2 3 4 5 6 7 8 9}
NB=${BP_NUMBERING-1 0}
mkdir -p "$O"
steps=${*:-agree target}
nvidia-smi > "$O/device.txt" 2>&1
bench() { # file, time limit, env assignments...
  local f=$1 t=$2
  shift 2
  env FEINT_BENCH_REPS=${BP_REPS:-15} "$@" timeout "$t" "$B/tests/t69-bp-bench" > "$O/$f" 2>&1
}
for s in $steps; do
  t0=$(date +%s)
  case $s in
    agree) FEINT_GPU_TESTS=1 timeout 400 "$B/tests/t602-bp-gpu" > "$O/agree.txt" 2>&1 ;;
    target) bench target.txt 300 FEINT_BENCH_SMALL=0 FEINT_BENCH_RECOMPUTE=0 FEINT_BENCH_NMIN=3 FEINT_BENCH_NMAX=8 FEINT_BENCH_VARIANTS="$V" FEINT_BENCH_NUMBERING="$NB" ;;
    small) bench small.txt 90 FEINT_BENCH_LARGE=0 FEINT_BENCH_VARIANTS="$V" ;;
    large) bench large.txt 150 FEINT_BENCH_SMALL=0 FEINT_BENCH_VARIANTS="$V" FEINT_BENCH_NUMBERING="$NB" ;;
    ncu)
      ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
      [ -n "$ncu" ] || { echo "no ncu" > "$O/ncu.txt"; continue; }
      # FEINT_BENCH_REPS=1: a warm-up and one timed launch per stored-factor
      # row, both profiled. The stall and local-memory metrics go first; if
      # this ncu does not know one of them, again with the basic set.
      base=dram__bytes_read.sum,dram__bytes_write.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__sass_inst_executed_op_shared_ld.sum,sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active
      more=smsp__sass_inst_executed_op_local_ld.sum,smsp__sass_inst_executed_op_local_st.sum,lts__t_sector_hit_rate.pct,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio
      for n in ${BP_NCU_N:-7}; do
        for metrics in "$base,$more" "$base"; do
          FEINT_BENCH_REPS=1 FEINT_BENCH_SMALL=0 FEINT_BENCH_RECOMPUTE=0 FEINT_BENCH_NMIN=$n FEINT_BENCH_NMAX=$n \
            FEINT_BENCH_VARIANTS="${BP_NCU_VARIANTS-$V}" timeout "${BP_NCU_TIMEOUT:-90}" "$ncu" \
            -k regex:"${BP_NCU_KERNELS:-staged|interp|bp35|tiled|line}" \
            --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats \
            --metrics "$metrics" "$B/tests/t69-bp-bench" > "$O/ncu-$n.txt" 2>&1 && break
        done
      done ;;
    suite) FEINT_GPU_TESTS=1 timeout 200 bash tests/run.sh tests/gpu > "$O/test-gpu.txt" 2>&1 ;;
  esac
  echo "$s: rc $? in $(($(date +%s) - t0)) s" >> "$O/steps.txt"
done
cat "$O/steps.txt"
