#!/usr/bin/env bash
# GPU benchmark smoke run (a small cube; `FEINT_BENCH_N=100
# ${BUILD:-build}/tests/t501-cuda-bench` is the 6-million-cell measurement).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=$(FEINT_BENCH_N=${FEINT_BENCH_N:-20} ${BUILD:-build}/tests/t501-cuda-bench 2>&1) || { echo "$out"; exit 1; }
echo "$out"
if grep -q "skipped: no GPU" <<<"$out"; then echo "no GPU visible" >&2; exit 1; fi
