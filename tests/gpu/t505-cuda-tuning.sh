#!/usr/bin/env bash
# The thread-transposition kernels under backend.cuda tuning keys (issue 3):
# CPU agreement with remainder cells. Run by `make test-gpu`.
set -euo pipefail
cd "$(dirname "$0")/../.."
export FEINT_GPU_TESTS=1
out=$(${BUILD:-build}/tests/t505-cuda-tuning 2>&1) || { echo "$out"; exit 1; }
echo "$out" | tail -12
grep -q "worst relative error" <<<"$out"
