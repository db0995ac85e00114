# Neumann and Robin facet integrals on the GPU (issue 5): the kernel
# against the host reference on random facet data (unit test t530-facets,
# with its timing), then `feint run --backend cuda` against --backend cpu on
# cases with Robin (scalar, tensor alpha) and Neumann terms at 1e-12, and
# the GPU run's Robin values exact (alpha = 1: the Robin part of the matrix
# sums to the boundary's measure).
source "$(dirname "$0")/../cli/lib.sh"
require_gpu
FEINT_GPU_TESTS=1 "$BUILD/tests/t530-facets" || fail "t530-facets"
compare() { $PY "$ROOT/tests/gpu/agree.py" "$1" "$2" "$3" max matrix/data rhs residual; }
cases=(
  "square.geo 0.03 2 poisson 1 [0.5]"
  "cube.geo 0.1 1 poisson \"2 + x*y\" \"1 + z\""
  "cube.geo 0.12 2 elasticity [[3,1,0],[1,2,0],[0,0,1]] [1,\"y\",~]"
)
for spec in "${cases[@]}"; do
  eval set -- $spec
  cat > "$WORK/f.yaml" <<EOF
mesh: {file: $(geo $1), size: $2}
space: {order: $3}
physics: {kind: $4, E: 1, nu: 0.3}
state: {u: $( [ $4 = elasticity ] && echo '["x", "y*z", "z"]' || echo '"x*y + z"' )}
boundary:
  - {group: boundary, robin: {alpha: $5, value: $( [ $4 = elasticity ] && echo '["x", 0, "y"]' || echo '"x - y"' )}}
  - {group: left, neumann: $6}
EOF
  "$FEINT" run --quiet "$WORK/f.yaml" -o "$WORK/cpu.h5" --backend cpu
  "$FEINT" run --quiet "$WORK/f.yaml" -o "$WORK/gpu.h5" --backend cuda
  compare "$WORK/cpu.h5" "$WORK/gpu.h5" "$1 P$3 $4"
done
# exact: alpha = 1 on the whole cube boundary, the GPU-computed Robin part sums to 6
printf 'mesh: {file: %s, size: 0.15}\nspace: {order: 2}\nphysics: {kind: poisson}\nboundary: [{group: boundary, robin: {alpha: 1}}]\n' \
  "$(geo cube.geo)" > "$WORK/x.yaml"
"$FEINT" run --quiet "$WORK/x.yaml" -o "$WORK/x1.h5" --backend cuda
"$FEINT" run --quiet "$WORK/x.yaml" -o "$WORK/x0.h5" --backend cuda --set boundary=null
$PY - "$WORK/x1.h5" "$WORK/x0.h5" <<'EOF' || fail "GPU Robin sum"
import sys, h5py, numpy as np
a, b = h5py.File(sys.argv[1]), h5py.File(sys.argv[2])
s = a["matrix/data"][:].sum() - b["matrix/data"][:].sum()
print(f"  GPU Robin part of the matrix sums to {s:.15g} (exact 6)")
sys.exit(0 if abs(s - 6) < 1e-11 else 1)
EOF
