#!/usr/bin/env bash
# GPU agreement (issue 3): the CUDA backend against the CPU reference.
# Run by `make test-gpu` (FEINT_GPU_TESTS=1): fails when no GPU is visible.
set -euo pipefail
cd "$(dirname "$0")/../.."
export FEINT_GPU_TESTS=1
out=$(${BUILD:-build}/tests/t500-cuda-agreement 2>&1) || { echo "$out"; exit 1; }
echo "$out"
if grep -q "skipped: no GPU" <<<"$out"; then echo "no GPU visible" >&2; exit 1; fi
grep -q "worst relative error" <<<"$out"
# Higher quadrature degree: larger shared-memory batches (the opt-in path
# beyond 48 KiB for P2 tetrahedral elasticity matrices).
out=$(FEINT_TEST_EXTRA_DEGREE=2 ${BUILD:-build}/tests/t500-cuda-agreement 2>&1) || { echo "$out"; exit 1; }
echo "$out" | tail -3
