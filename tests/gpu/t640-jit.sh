#!/usr/bin/env bash
# Run-time compilation (issue 19): NVRTC behind the disk cache, a compiled
# kernel run on the GPU and checked, a cache hit that compiles nothing, a
# changed source that misses, a corrupted entry rebuilt, the compile log
# under the caller's label; prints the first compile's and the cached
# load's milliseconds. Run by `make test-gpu` (FEINT_GPU_TESTS=1): fails
# when no GPU is visible or NVRTC is not found.
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${BUILD:-build}
export FEINT_GPU_TESTS=1
out=$("$B/tests/t640-jit" 2>&1) || { echo "$out"; exit 1; }
echo "$out"
if grep -q "skipped" <<<"$out"; then echo "no GPU or no NVRTC visible" >&2; exit 1; fi
grep -q "run-time compilation checked" <<<"$out"
