#!/usr/bin/env bash
# The P1 block kernels' plans built on the GPU equal the host builder's,
# array by array, and give bitwise the same residual and matrix (colored,
# gather). Run by `make test-gpu` (FEINT_GPU_TESTS=1): fails without a GPU.
set -euo pipefail
cd "$(dirname "$0")/../.."
export FEINT_GPU_TESTS=1
"${BUILD:-build}"/tests/t503-bplan-gpu
