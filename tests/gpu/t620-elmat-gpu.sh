#!/usr/bin/env bash
# Element matrices of order 1..7 on tetrahedra and prisms (issue 4): the CUDA kernels
# against the host reference for every variant, plus the host's closed-form
# checks, and a smoke run of the benchmark. Run by `make test-gpu`
# (FEINT_GPU_TESTS=1): fails when no GPU is visible.
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${BUILD:-build}
export FEINT_GPU_TESTS=1
out=$("$B/tests/t620-elmat" 2>&1) || { echo "$out"; exit 1; }
echo "$out"
if grep -q "skipped: no GPU" <<<"$out"; then echo "no GPU visible" >&2; exit 1; fi
grep -q "worst relative error GPU vs host" <<<"$out"
bench=$("$B/tests/t621-elmat-bench" 2>&1) || { echo "$bench"; exit 1; }
echo "$bench"
# 2 cells x 7 orders x the variants built: 8 with make EXPERIMENTS=1 (set
# FEINT_EXPERIMENTS=1 then), else 3 (the order's default per-point kernel,
# the per-cell kernel with either geometry)
per=3; [ "${FEINT_EXPERIMENTS:-0}" = 1 ] && per=8
[ "$(grep -cE '^(tetrahedron|prism) +[1-7] ' <<<"$bench")" -eq $((14 * per)) ] ||
  { echo "benchmark smoke: expected $((14 * per)) rows (2 cells x 7 orders x $per variants)" >&2; exit 1; }
