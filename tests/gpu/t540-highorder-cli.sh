# feint run --backend cuda on high-order tetrahedra (P3..P7) and prisms
# (P1..P7) goes through the element-matrix kernels (feint/elmat.h) and
# agrees with --backend cpu on the matrix, the element matrices, the load
# and the residual: coefficients per point (a nodal kappa on twisted,
# non-affine prisms and on tetrahedra) and per cell (constant kappa on
# tetrahedra: the reference-matrix path), with Neumann and Robin terms
# (facet integrals on the GPU). A vector form falls back to the
# cpu under auto, saying why.
source "$(dirname "$0")/../cli/lib.sh"
require_gpu
compare() { $PY "$ROOT/tests/gpu/agree.py" "$1" "$2" "$3" 2 matrix/data element_matrices rhs residual; }
data() { echo "$ROOT/tests/data/$1"; }
cases=(
  "$(geo cube.geo) 0.5 3 1+x*x"
  "$(geo cube.geo) 0.7 5 1+x*x"
  "$(geo cube.geo) 0.7 7 1+x*x"
  "$(geo cube.geo) 0.5 4 2.5"
  "$(geo cube.geo) 1 7 2.5"
  "$(data twisted_prism.geo) 0 1 1+x*y"
  "$(data twisted_prism.geo) 0 3 1+x*y"
  "$(data twisted_prism.geo) 0 6 1+x*y"
  "$(geo prismcube.geo) 0.5 2 1+z"
  "$(geo cube.geo) 0.5 3 1+x*x bc"
  "$(geo prismcube.geo) 0.5 3 1+z bc"
)
for spec in "${cases[@]}"; do
  set -- $spec
  size=""; [ "$2" != 0 ] && size=", size: $2"
  bc=""; [ "${5:-}" = bc ] && bc='boundary: [{group: left, neumann: "y + z"}, {group: boundary, robin: {alpha: "1 + x", value: 2}}]'
  cat > "$WORK/h.yaml" <<EOF
mesh: {file: $1$size}
space: {order: $3}
physics: {kind: helmholtz, kappa: "$4", lambda: 2, source: "sin(x) + y"}
state: {u: "x*y - z"}
output: {element_matrices: true}
$bc
EOF
  "$FEINT" run --quiet "$WORK/h.yaml" -o "$WORK/cpu.h5" --backend cpu
  "$FEINT" run --quiet "$WORK/h.yaml" -o "$WORK/gpu.h5" --backend cuda
  compare "$WORK/cpu.h5" "$WORK/gpu.h5" "$(basename "$1") P$3 kappa=$4 ${5:-}"
done
# auto picks the GPU for a scalar form and the cpu, saying why, for elasticity
"$FEINT" run "$WORK/h.yaml" -o "$WORK/auto.h5" 2> "$WORK/note" > /dev/null
grep -q "using cuda" "$WORK/note" || fail "auto did not pick cuda: $(cat "$WORK/note")"
cat > "$WORK/e.yaml" <<EOF
mesh: {file: $(geo cube.geo), size: 0.7}
space: {order: 3}
physics: {kind: elasticity, E: 1, nu: 0.3}
EOF
"$FEINT" run "$WORK/e.yaml" -o "$WORK/e.h5" 2> "$WORK/note" > /dev/null
grep -q "scalar forms only.*using cpu" "$WORK/note" || fail "elasticity P3 under auto: $(cat "$WORK/note")"
$PY -c "
import h5py; f = h5py.File('$WORK/e.h5'); print('auto, P3 elasticity:', f.attrs['backend'])
assert f.attrs['backend'] == 'cpu'"
