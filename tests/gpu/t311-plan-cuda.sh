#!/usr/bin/env bash
# GPU symbolic phase (issue 3): the plan built on the GPU is identical to
# the CPU plan. Run by `make test-gpu` (FEINT_GPU_TESTS=1): fails when no
# GPU is visible.
set -euo pipefail
cd "$(dirname "$0")/../.."
export FEINT_GPU_TESTS=1
out=$(${BUILD:-build}/tests/t311-plan-cuda 2>&1) || { echo "$out"; exit 1; }
echo "$out"
if grep -q "skipped: no GPU" <<<"$out"; then echo "no GPU visible" >&2; exit 1; fi
grep -q "identical" <<<"$out"
