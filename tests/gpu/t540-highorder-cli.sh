# feint run --backend cuda on high-order tetrahedra (P3..P7) and prisms
# (P1..P7) goes through the element-matrix kernels (feint/elmat.h) and
# agrees with --backend cpu on the matrix, the element matrices, the load
# and the residual: coefficients per point (a nodal kappa on twisted,
# non-affine prisms and on tetrahedra) and per cell (constant kappa on
# tetrahedra: the reference-matrix path), with Neumann and Robin terms
# (facet integrals on the GPU); then the device-resident path without
# element matrices, random coefficients, batches and the host-scatter
# fallback (below). A vector form falls back to the cpu under auto,
# saying why.
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
# The device path without element matrices asked for (only the CSR values
# come back), random coefficient fields (fresh each run: a nodal or P0
# kappa, a P0 lambda; a nodal velocity for advection's g1), the CSR sum over several
# batches (FEINT_ELMAT_BATCH) and the host scatter of a 64-bit plan
# (FEINT_WIDE_INDEX_LIMIT=0): batches and host scatter give the same bits
# as one batch summed on the GPU (the same additions in cell order).
counts() { "$FEINT" check "$1" | sed -E 's/.*\(([0-9]+) cells, ([0-9]+) dofs\).*/\1 \2/'; }
random_fields() { # CASE: random kappa_node, kappa_cell, lambda_cell, b0..b2 for its mesh in $WORK/rand.h5
  $PY -c "
import h5py, numpy as np, sys
r = np.random.default_rng()
nc, nd = int(sys.argv[1]), int(sys.argv[2])
with h5py.File('$WORK/rand.h5', 'w') as f:
    f['kappa_node'] = 0.5 + r.random(nd); f['lambda_cell'] = 0.5 + r.random(nc)
    f['kappa_cell'] = 0.5 + r.random(nc)
    for d in range(3): f[f'b{d}'] = r.random(nd) - 0.5" $(counts "$1")
}
attr() { $PY -c "import h5py, sys; print(h5py.File(sys.argv[1]).attrs[sys.argv[2]])" "$1" "$2"; }
same_bits() { # A.h5 B.h5 LABEL DATASET...: bitwise equal
  $PY -c "
import h5py, numpy as np, sys
a, b = h5py.File(sys.argv[1]), h5py.File(sys.argv[2])
for n in sys.argv[4:]:
    assert np.array_equal(a[n][:], b[n][:]), sys.argv[3] + ': ' + n + ' differs'
print('  ' + sys.argv[3] + ': bitwise equal (' + ', '.join(sys.argv[4:]) + ')')" "$@"
}
field() { echo "{file: $WORK/rand.h5, dataset: /$1, on: $2}"; }
# (kappa nodal: coefficients per point; kappa P0 on tetrahedra: per cell)
for spec in "$(geo cube.geo) 0.5 4 node" "$(geo cube.geo) 0.7 7 node" "$(geo cube.geo) 0.5 3 cell" \
  "$(data twisted_prism.geo) 0 3 node"; do
  set -- $spec
  size=""; [ "$2" != 0 ] && size=", size: $2"
  printf 'mesh: {file: %s%s}\nspace: {order: %s}\nphysics: {kind: helmholtz}\n' "$1" "$size" "$3" > "$WORK/r.yaml"
  random_fields "$WORK/r.yaml"
  cat > "$WORK/r.yaml" <<EOF
mesh: {file: $1$size}
space: {order: $3}
physics: {kind: helmholtz, kappa: $(field kappa_$4 $4), lambda: $(field lambda_cell cell), source: "x"}
state: {u: "x*y - z"}
EOF
  label="$(basename "$1") P$3 random kappa ($4), P0 lambda"
  "$FEINT" run --quiet "$WORK/r.yaml" -o "$WORK/cpu.h5" --backend cpu
  "$FEINT" run --quiet "$WORK/r.yaml" -o "$WORK/gpu.h5" --backend cuda
  $PY -c "import h5py, sys; assert 'element_matrices' not in h5py.File(sys.argv[1]), 'element matrices not asked for'" \
    "$WORK/gpu.h5"
  per=point; [ "$4" = cell ] && per=cell
  attr "$WORK/gpu.h5" device | grep -q "per $per on the GPU, CSR summed on the GPU" ||
    fail "$label: $(attr "$WORK/gpu.h5" device)"
  $PY "$ROOT/tests/gpu/agree.py" "$WORK/cpu.h5" "$WORK/gpu.h5" "$label, matrix only" 2 matrix/data rhs residual
  FEINT_ELMAT_BATCH=7 "$FEINT" run --quiet "$WORK/r.yaml" -o "$WORK/gpu7.h5" --backend cuda \
    --set output.element_matrices=true
  same_bits "$WORK/gpu.h5" "$WORK/gpu7.h5" "$label, batches of 7 cells vs one" matrix/data
  FEINT_WIDE_INDEX_LIMIT=0 "$FEINT" run --quiet "$WORK/r.yaml" -o "$WORK/gpuw.h5" --backend cuda \
    --set output.element_matrices=true
  attr "$WORK/gpuw.h5" device | grep -q "scattered on the host" || fail "$label: $(attr "$WORK/gpuw.h5" device)"
  same_bits "$WORK/gpu7.h5" "$WORK/gpuw.h5" "$label, host scatter (64-bit plan) vs GPU sum" matrix/data element_matrices
  "$FEINT" run --quiet "$WORK/r.yaml" -o "$WORK/cpu.h5" --backend cpu --set output.element_matrices=true
  compare "$WORK/cpu.h5" "$WORK/gpu7.h5" "$label, batches of 7, element matrices"
done
# advection (g1: ncoef 16) with a random nodal velocity on P3 tetrahedra
printf 'mesh: {file: %s, size: 0.5}\nspace: {order: 3}\nphysics: {kind: advection, velocity: [1, 1, 1]}\n' \
  "$(geo cube.geo)" > "$WORK/a.yaml"
random_fields "$WORK/a.yaml"
cat > "$WORK/a.yaml" <<EOF
mesh: {file: $(geo cube.geo), size: 0.5}
space: {order: 3}
physics: {kind: advection, velocity: [$(field b0 node), $(field b1 node), $(field b2 node)], source: "1"}
state: {u: "x*y - z"}
output: {element_matrices: true}
EOF
"$FEINT" run --quiet "$WORK/a.yaml" -o "$WORK/cpu.h5" --backend cpu
"$FEINT" run --quiet "$WORK/a.yaml" -o "$WORK/gpu.h5" --backend cuda
compare "$WORK/cpu.h5" "$WORK/gpu.h5" "cube.geo P3 advection, random nodal velocity"
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
