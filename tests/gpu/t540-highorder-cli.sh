# feint run --backend cuda on high-order tetrahedra (P3..P7) and prisms
# (P1..P7) goes through the element-matrix kernels (feint/elmat.h) and
# agrees with --backend cpu on the matrix, the element matrices, the load
# and the residual (computed on the GPU too; their own checks at the end): coefficients per point (a nodal kappa on twisted,
# non-affine prisms and on tetrahedra) and per cell (constant kappa on
# tetrahedra: the reference-matrix path), with Neumann and Robin terms
# (facet integrals on the GPU); then the device-resident path without
# element matrices, random coefficients, batches and the host-scatter
# fallback (below). Vector forms: t545.
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
random_fields() { # CASE: random kappa_node, kappa_cell, lambda_cell, b0..b2, u_node, f_node for its mesh in $WORK/rand.h5
  $PY -c "
import h5py, numpy as np, sys
r = np.random.default_rng()
nc, nd = int(sys.argv[1]), int(sys.argv[2])
with h5py.File('$WORK/rand.h5', 'w') as f:
    f['kappa_node'] = 0.5 + r.random(nd); f['lambda_cell'] = 0.5 + r.random(nc)
    f['u_node'] = r.random(nd) - 0.5; f['f_node'] = r.random(nd) - 0.5
    f['kappa_cell'] = 0.5 + r.random(nc)
    for d in range(3): f[f'b{d}'] = r.random(nd) - 0.5" $(counts "$1")
}
field() { echo "{file: $WORK/rand.h5, dataset: /$1, on: $2}"; }
mesh_space() { # GEO SIZE ORDER: a case's mesh and space lines (SIZE 0: the file's own)
  local size=""
  [ "$2" != 0 ] && size=", size: $2"
  printf 'mesh: {file: %s%s}\nspace: {order: %s}\n' "$1" "$size" "$3"
}
random_fields_on() { # GEO SIZE ORDER: random_fields for that mesh and order
  { mesh_space "$@"; echo "physics: {kind: mass}"; } > "$WORK/rf.yaml"
  random_fields "$WORK/rf.yaml"
}
# (kappa nodal: coefficients per point; kappa P0 on tetrahedra: per cell)
for spec in "$(geo cube.geo) 0.5 4 node" "$(geo cube.geo) 0.7 7 node" "$(geo cube.geo) 0.5 3 cell" \
  "$(data twisted_prism.geo) 0 3 node"; do
  set -- $spec
  random_fields_on "$1" "$2" "$3"
  { mesh_space "$1" "$2" "$3"; cat <<EOF; } > "$WORK/r.yaml"
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
# auto picks the GPU for a scalar form and for elasticity (a vector form:
# tests/gpu/t545-highorder-vector.sh checks its values)
"$FEINT" run "$WORK/h.yaml" -o "$WORK/auto.h5" 2> "$WORK/note" > /dev/null
grep -q "using cuda" "$WORK/note" || fail "auto did not pick cuda: $(cat "$WORK/note")"
cat > "$WORK/e.yaml" <<EOF
mesh: {file: $(geo cube.geo), size: 0.7}
space: {order: 3}
physics: {kind: elasticity, E: 1, nu: 0.3}
EOF
"$FEINT" run "$WORK/e.yaml" -o "$WORK/e.h5" 2> "$WORK/note" > /dev/null
grep -q "using cuda" "$WORK/note" || fail "elasticity P3 under auto: $(cat "$WORK/note")"
$PY -c "
import h5py; f = h5py.File('$WORK/e.h5'); print('auto, P3 elasticity:', f.attrs['backend'])
assert f.attrs['backend'] == 'cuda'"
# Residual and load vector on the GPU (thread transposition on the form's
# vector rule, src/backend/cuda/elmat.cu): a random state u, a random
# nodal source and random nodal or P0 kappa, P0 lambda (fresh each run)
# on P3, P4, P7 tetrahedra and twisted prisms agree with the cpu to 1e-12
# (2-norm and max-norm); the default strategy (colored) sums them per dof
# on the GPU, the same bits run to run, as gather's and as the host
# scatter of a dof map past the 32-bit limit (FEINT_WIDE_INDEX_LIMIT=0:
# the same additions in cell order), as with 1, 2, 4 or 8 cells per block
# (FEINT_ELMAT_VECTOR_CELLS); atomic agrees to 1e-12.
for spec in "$(geo cube.geo) 0.5 3 node" "$(geo cube.geo) 0.5 4 cell" "$(geo cube.geo) 0.7 7 node" \
  "$(data twisted_prism.geo) 0 3 node" "$(data twisted_prism.geo) 0 7 cell"; do
  set -- $spec
  random_fields_on "$1" "$2" "$3"
  { mesh_space "$1" "$2" "$3"; cat <<EOF; } > "$WORK/v.yaml"
physics: {kind: helmholtz, kappa: $(field kappa_$4 $4), lambda: $(field lambda_cell cell), source: $(field f_node node)}
state: {u: $(field u_node node)}
EOF
  label="$(basename "$1") P$3 random u, f, kappa ($4)"
  "$FEINT" run --quiet "$WORK/v.yaml" -o "$WORK/cpu.h5" --backend cpu
  "$FEINT" run --quiet "$WORK/v.yaml" -o "$WORK/gpu.h5" --backend cuda
  attr "$WORK/gpu.h5" device | grep -q "residual and load vector on the GPU, summed per dof" ||
    fail "$label: $(attr "$WORK/gpu.h5" device)"
  $PY "$ROOT/tests/gpu/agree.py" "$WORK/cpu.h5" "$WORK/gpu.h5" "$label, residual and rhs" 2 rhs residual
  $PY "$ROOT/tests/gpu/agree.py" "$WORK/cpu.h5" "$WORK/gpu.h5" "$label, residual and rhs (max-norm)" max rhs residual
  "$FEINT" run --quiet "$WORK/v.yaml" -o "$WORK/gpu2.h5" --backend cuda
  same_bits "$WORK/gpu.h5" "$WORK/gpu2.h5" "$label, run to run" rhs residual
  for cb in 1 2 4 8; do # cells per block (as many as fit): each entry summed in the same order
    FEINT_ELMAT_VECTOR_CELLS=$cb "$FEINT" run --quiet "$WORK/v.yaml" -o "$WORK/gpu2.h5" --backend cuda \
      --set output.matrix=false
    same_bits "$WORK/gpu.h5" "$WORK/gpu2.h5" "$label, $cb cells per block vs the default" rhs residual
  done
  "$FEINT" run --quiet "$WORK/v.yaml" -o "$WORK/gpug.h5" --backend cuda --set assembly.strategy=gather
  same_bits "$WORK/gpu.h5" "$WORK/gpug.h5" "$label, gather vs colored" rhs residual
  FEINT_WIDE_INDEX_LIMIT=0 "$FEINT" run --quiet "$WORK/v.yaml" -o "$WORK/gpuw.h5" --backend cuda
  attr "$WORK/gpuw.h5" device | grep -q "residual and load vector on the GPU, scattered on the host" ||
    fail "$label: $(attr "$WORK/gpuw.h5" device)"
  same_bits "$WORK/gpu.h5" "$WORK/gpuw.h5" "$label, host scatter vs GPU sum per dof" rhs residual
  "$FEINT" run --quiet "$WORK/v.yaml" -o "$WORK/gpua.h5" --backend cuda --set assembly.strategy=atomic
  attr "$WORK/gpua.h5" device | grep -q "residual and load vector on the GPU, added by atomics" ||
    fail "$label: $(attr "$WORK/gpua.h5" device)"
  $PY "$ROOT/tests/gpu/agree.py" "$WORK/cpu.h5" "$WORK/gpua.h5" "$label, atomic" 2 rhs residual
done
# every scalar physics of the backend (f0 and f1 of physics.h on the GPU:
# poisson, mass, diffusion with a full tensor, advection's b . grad u) at
# a random u on P4 tetrahedra and P3 twisted prisms
for spec in "$(geo cube.geo) 0.5 4" "$(data twisted_prism.geo) 0 3"; do
  set -- $spec
  random_fields_on "$1" "$2" "$3"
  for phys in "poisson, kappa: $(field kappa_node node), source: \"x*y\"" "mass, source: $(field f_node node)" \
    "diffusion, tensor: [[2, \"x\", 0.5], [\"y\", 3, 0], [0.25, 0, \"1 + z\"]], source: 1" \
    "advection, velocity: [$(field b0 node), $(field b1 node), 1], source: \"z\""; do
    { mesh_space "$1" "$2" "$3"; printf 'physics: {kind: %s}\nstate: {u: %s}\n' "$phys" "$(field u_node node)"; } \
      > "$WORK/k.yaml"
    "$FEINT" run --quiet "$WORK/k.yaml" -o "$WORK/cpu.h5" --backend cpu
    "$FEINT" run --quiet "$WORK/k.yaml" -o "$WORK/gpu.h5" --backend cuda
    $PY "$ROOT/tests/gpu/agree.py" "$WORK/cpu.h5" "$WORK/gpu.h5" "$(basename "$1") P$3 ${phys%%,*}, random u" 2 \
      rhs residual
  done
done
# closed form: mass with source 1 at u = 2 gives rhs_i = (1, phi_i) and
# residual_i = (2 - 1, phi_i): each sums to the volume (1 for the cubes;
# the twisted prisms' as feint info reports it, their faces bilinear)
for spec in "$(geo cube.geo) 0.7 7 1" "$(geo prismcube.geo) 0.5 5 1" "$(data twisted_prism.geo) 0 6 info"; do
  set -- $spec
  { mesh_space "$1" "$2" "$3"; printf 'physics: {kind: mass, source: 1}\nstate: {u: 2}\n'; } > "$WORK/m.yaml"
  "$FEINT" run --quiet "$WORK/m.yaml" -o "$WORK/gpu.h5" --backend cuda --set output.matrix=false
  vol=$4; [ "$vol" = info ] && vol=$("$FEINT" info "$1" | sed -n 's/^total volume //p')
  $PY -c "
import h5py, sys
f, vol = h5py.File(sys.argv[1]), float(sys.argv[2])
assert 'residual and load vector on the GPU' in f.attrs['device'], f.attrs['device']
for n in ('rhs', 'residual'):
    s = f[n][:].sum()
    assert abs(s - vol) <= 1e-12 * vol, (n, s, vol)
print('  ' + sys.argv[3] + ': rhs and residual sum to the volume', vol)" "$WORK/gpu.h5" "$vol" "$(basename "$1") P$3 mass"
done
