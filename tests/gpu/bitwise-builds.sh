#!/usr/bin/env bash
# Two feint builds give bitwise the same files on the GPU (a refactoring of
# the CUDA backend must not change a bit): every deterministic strategy
# (colored, gather), P1 (block kernels: curve order, chunk colourings,
# block plans; elasticity's matrix plans by the host builder) and P2
# (thread transposition: cell colouring, the generic gather's inverse
# maps), the curve order forced on and off and chosen (FEINT_CUDA_ORDER=1,
# 0, unset), double and single precision (single: the host's curve order
# and chunk colourings). Every dataset of both files compared with
# np.array_equal; attributes (timings) not. Not a test: run on the GPU
# machine by hand, e.g.
#   bash tests/gpu/bitwise-builds.sh /path/to/old/feint build/feint
set -euo pipefail
OLD=$1 NEW=$2
export FEINT=$NEW
source "$(dirname "$0")/../cli/lib.sh"
# a python3 with h5py (as tests/run.sh picks it on the GPU machine)
if ! "$PY" -c "import h5py" 2>/dev/null && command -v python3 >/dev/null; then PY=$(command -v python3); fi
require_gpu
cases=(
  "square.geo 0.01 1 poisson"
  "square.geo 0.02 2 helmholtz"
  "cube.geo 0.05 1 poisson"
  "cube.geo 0.06 1 elasticity"
  "cube.geo 0.1 2 poisson"
)
differ=0 runs=0
for spec in "${cases[@]}"; do
  set -- $spec
  agreement_case "$@" > "$WORK/g.yaml"
  for prec in double single; do
    # single precision: P1 scalar only (the backend refuses the rest)
    [ $prec = single ] && { [ $3 = 1 ] && [ $4 = poisson ] || continue; }
    for s in colored gather; do
      for ord in unset 0 1; do
        for b in old new; do
          bin=$OLD; [ $b = new ] && bin=$NEW
          ( [ $ord = unset ] && unset FEINT_CUDA_ORDER || export FEINT_CUDA_ORDER=$ord
            "$bin" run --quiet "$WORK/g.yaml" -o "$WORK/$b.h5" --backend cuda --set assembly.strategy=$s \
              --set backend.precision=$prec 2> >(grep -v "is not used by physics" >&2) )
        done
        runs=$((runs + 1))
        if ! $PY - "$WORK/old.h5" "$WORK/new.h5" <<'PYEOF'
import sys, h5py, numpy as np
a, b = h5py.File(sys.argv[1]), h5py.File(sys.argv[2])
names = []
a.visititems(lambda n, o: names.append(n) if isinstance(o, h5py.Dataset) else None)
bad = [n for n in names if n not in b or not np.array_equal(a[n][()], b[n][()])]
extra = []
b.visititems(lambda n, o: extra.append(n) if isinstance(o, h5py.Dataset) and n not in a else None)
if bad or extra: print("    differ:", bad + extra)
sys.exit(1 if bad or extra else 0)
PYEOF
        then
          echo "DIFFERENT: $spec P$3 $prec $s FEINT_CUDA_ORDER=$ord"; differ=$((differ + 1))
        else
          echo "identical: $spec $prec $s FEINT_CUDA_ORDER=$ord"
        fi
      done
    done
  done
done
echo "$runs comparisons, $differ different"
[ $differ -eq 0 ]
