#!/usr/bin/env bash
# The BP operators through `feint run --backend cuda` against their
# assembled CSR matrices directly (issue 4: "the same operators assembled
# into CSR give the same y within round-off", on the GPU): t611 with a GPU
# visible runs both backends. Run by `make test-gpu` (FEINT_GPU_TESTS=1).
set -euo pipefail
cd "$(dirname "$0")/../.."
export FEINT_GPU_TESTS=1
out=$(${BUILD:-build}/tests/t611-operator-run 2>&1) || { echo "$out"; exit 1; }
echo "$out"
grep -q "on the cuda backend" <<<"$out"
