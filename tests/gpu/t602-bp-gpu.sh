#!/usr/bin/env bash
# BP operators (issue 4): the CUDA kernels against the CPU reference,
# N = 1..15, BP1.0 / BP3.5 / BP3.0, stored and recomputed geometry.
# Run by `make test-gpu` (FEINT_GPU_TESTS=1): fails when no GPU is visible.
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${BUILD:-build}
export FEINT_GPU_TESTS=1
out=$("$B/tests/t602-bp-gpu" 2>&1) || { echo "$out"; exit 1; }
echo "$out"
if grep -q "skipped: no GPU" <<<"$out"; then echo "no GPU visible" >&2; exit 1; fi
grep -q "worst relative error" <<<"$out"
