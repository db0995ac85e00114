#!/usr/bin/env bash
# The whole run (cold process, feint run --json) of the built-in kinds on
# P2 tetrahedra as their forms on the GPU (FEINT_CUDA_BUILTIN_FORMS=1):
# with an empty cache of compiled code (the first compile inside the
# run), with a warm one, and on thread transposition (the default).
# Poisson and elasticity on ~1.3M P2 tetrahedra (cases/bench/sweep-1m.yaml),
# residual, load vector and CSR matrix written. Prints each run's total,
# setup, kernel phases and compile. Not a test.
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${BUILD:-build}
cache=$(mktemp -d)
trap 'rm -rf "$cache" /tmp/feint-e2e-p2.h5' EXIT
export FEINT_CACHE_DIR=$cache
common=(cases/bench/sweep-1m.yaml --backend cuda -o /tmp/feint-e2e-p2.h5 --set sweep=null --set space.order=2
  --set output.residual=true --set output.rhs=true --set output.matrix=true --set 'state.u=x*y*z')
show() { # LABEL JSON
  ${PY:-/usr/bin/python3} - "$@" <<'PYEOF'
import json, sys
label, j = sys.argv[1], json.load(open(sys.argv[2]))
t, jit = j["seconds"], j["jit"] or {}
print("%-34s total %6.2f s  mesh %5.2f  setup %5.3f  residual %5.3f  rhs %5.3f  assembly %5.3f  write %5.3f  "
      "compile %s ms  (%s)" % (label, j["driver_seconds"], t["mesh_read"], t["setup"], t["residual"], t["rhs"],
      t["assembly"], t["write"], "%.0f" % jit["compile_ms"] if jit.get("compiled") else "-", j["kernel_family"]))
PYEOF
}
for kind in poisson elasticity; do
  phys=(--set 'physics={kind: poisson, kappa: "1 + x*y*z", source: "x + y"}')
  [ $kind = poisson ] || phys=(--set 'physics={kind: elasticity, lame_lambda: 0.6, lame_mu: 0.7}'
    --set space.components=3 --set 'state.u=["x*y", "y*z", "z*x"]')
  rm -rf "$cache"/*
  FEINT_CUDA_BUILTIN_FORMS=1 "$B/feint" run --quiet --json "${common[@]}" "${phys[@]}" > /tmp/e2e.json &&
    show "P2 $kind, form-jit, empty cache" /tmp/e2e.json
  FEINT_CUDA_BUILTIN_FORMS=1 "$B/feint" run --quiet --json "${common[@]}" "${phys[@]}" > /tmp/e2e.json &&
    show "P2 $kind, form-jit, warm cache" /tmp/e2e.json
  "$B/feint" run --quiet --json "${common[@]}" "${phys[@]}" > /tmp/e2e.json &&
    show "P2 $kind, tt" /tmp/e2e.json
done
