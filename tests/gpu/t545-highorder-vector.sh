# feint run --backend cuda on vector forms (space.components 2, 3) of high
# order: P3, P4 tetrahedra and twisted (non-affine) prisms go through the
# element-matrix kernels as one scalar block per component pair,
# interleaved on the GPU (feint/elmat.h), and agree with --backend cpu to
# 1e-12 (relative 2-norm and max-norm) on the CSR values, the element
# matrices (the same dof layout: local dof i nc + c), the load vector and
# the residual, on fresh random inputs each run: elasticity with nodal
# random lame_lambda, lame_mu (coefficients per point), P0 random ones on
# tetrahedra (per cell: the reference-matrix path), a random nodal source
# per component and a random state u per component; helmholtz with 3
# components (g0 and g3 block-diagonal) and advection with 2 (g1, the
# element-vector kernel of 2 components), without a source (form.c
# accepts none for them). Then reproducibility: colored
# and gather give the same bits run to run, as batches of 7 cells and the
# host scatter of a 64-bit plan / dof map (FEINT_WIDE_INDEX_LIMIT=0) do;
# atomic agrees to 1e-12. And a closed form: P3 elasticity at a rigid
# motion u = a + b x (b skew) has residual -rhs (sigma(u) = 0), with rhs
# component c summing to the volume times the source's component c.
source "$(dirname "$0")/../cli/lib.sh"
require_gpu
data() { echo "$ROOT/tests/data/$1"; }
counts() { "$FEINT" check "$1" | sed -E 's/.*\(([0-9]+) cells, ([0-9]+) dofs\).*/\1 \2/'; }
agree() { # CPU.h5 GPU.h5 LABEL DATASET...: 2-norm and max-norm within 1e-12
  $PY "$ROOT/tests/gpu/agree.py" "$1" "$2" "$3" 2 "${@:4}"
  $PY "$ROOT/tests/gpu/agree.py" "$1" "$2" "$3 (max-norm)" max "${@:4}"
}
mesh_space() { # GEO SIZE ORDER COMPONENTS (SIZE 0: the file's own)
  local size=""
  [ "$2" != 0 ] && size=", size: $2"
  printf 'mesh: {file: %s%s}\nspace: {order: %s, components: %s}\n' "$1" "$size" "$3" "$4"
}
random_fields_on() { # GEO SIZE ORDER: fresh random fields for that mesh in $WORK/rand.h5 (scalar dofs, cells)
  { mesh_space "$1" "$2" "$3" 1; echo "physics: {kind: mass}"; } > "$WORK/rf.yaml"
  $PY -c "
import h5py, numpy as np, sys
r = np.random.default_rng()
nc, nd = int(sys.argv[1]), int(sys.argv[2])
with h5py.File('$WORK/rand.h5', 'w') as f:
    f['lam_node'] = 0.5 + r.random(nd); f['mu_node'] = 0.5 + r.random(nd)
    f['lam_cell'] = 0.5 + r.random(nc); f['mu_cell'] = 0.5 + r.random(nc)
    f['kappa_node'] = 0.5 + r.random(nd); f['lambda_cell'] = 0.5 + r.random(nc)
    for c in range(3):
        f[f'u{c}'] = r.random(nd) - 0.5; f[f'f{c}'] = r.random(nd) - 0.5; f[f'b{c}'] = r.random(nd) - 0.5" \
    $(counts "$WORK/rf.yaml")
}
field() { echo "{file: $WORK/rand.h5, dataset: /$1, on: $2}"; }
vec() { echo "[$(field ${1}0 node), $(field ${1}1 node), $(field ${1}2 node)]"; }
all="matrix/data element_matrices rhs residual"
for spec in "$(geo cube.geo) 0.5 3 node" "$(geo cube.geo) 0.7 4 node" "$(geo cube.geo) 0.5 3 cell" \
  "$(data twisted_prism.geo) 0 3 node" "$(data twisted_prism.geo) 0 4 node"; do
  set -- $spec
  random_fields_on "$1" "$2" "$3"
  { mesh_space "$1" "$2" "$3" 3; cat <<EOF; } > "$WORK/e.yaml"
physics: {kind: elasticity, lame_lambda: $(field lam_$4 $4), lame_mu: $(field mu_$4 $4), source: $(vec f)}
state: {u: $(vec u)}
output: {element_matrices: true}
EOF
  label="$(basename "$1") P$3 elasticity, random lambda, mu ($4), f, u"
  "$FEINT" run --quiet "$WORK/e.yaml" -o "$WORK/cpu.h5" --backend cpu
  "$FEINT" run --quiet "$WORK/e.yaml" -o "$WORK/gpu.h5" --backend cuda
  per=point; [ "$4" = cell ] && per=cell
  attr "$WORK/gpu.h5" device |
    grep -q "per $per on the GPU, CSR summed on the GPU; residual and load vector on the GPU, summed per dof" ||
    fail "$label: $(attr "$WORK/gpu.h5" device)"
  agree "$WORK/cpu.h5" "$WORK/gpu.h5" "$label" $all
  "$FEINT" run --quiet "$WORK/e.yaml" -o "$WORK/gpu2.h5" --backend cuda --set assembly.strategy=gather
  same_bits "$WORK/gpu.h5" "$WORK/gpu2.h5" "$label, gather vs colored, run to run" $all
  FEINT_ELMAT_BATCH=7 "$FEINT" run --quiet "$WORK/e.yaml" -o "$WORK/gpu7.h5" --backend cuda
  same_bits "$WORK/gpu.h5" "$WORK/gpu7.h5" "$label, batches of 7 cells vs one" $all
  FEINT_WIDE_INDEX_LIMIT=0 "$FEINT" run --quiet "$WORK/e.yaml" -o "$WORK/gpuw.h5" --backend cuda
  attr "$WORK/gpuw.h5" device |
    grep -q "CSR scattered on the host; residual and load vector on the GPU, scattered on the host" ||
    fail "$label: $(attr "$WORK/gpuw.h5" device)"
  same_bits "$WORK/gpu.h5" "$WORK/gpuw.h5" "$label, host scatter vs GPU sums" $all
  "$FEINT" run --quiet "$WORK/e.yaml" -o "$WORK/gpua.h5" --backend cuda --set assembly.strategy=atomic
  attr "$WORK/gpua.h5" device | grep -q "added by atomics" || fail "$label: $(attr "$WORK/gpua.h5" device)"
  $PY "$ROOT/tests/gpu/agree.py" "$WORK/cpu.h5" "$WORK/gpua.h5" "$label, atomic" 2 rhs residual
done
# other physics with components: helmholtz (3 components, g0 and g3 per
# component), advection (2 components, g1: ncoef 16), on P3 tetrahedra and
# P4 twisted prisms
for spec in "$(geo cube.geo) 0.5 3" "$(data twisted_prism.geo) 0 4"; do
  set -- $spec
  random_fields_on "$1" "$2" "$3"
  # (no source: form.c takes none for these physics with components > 1)
  for phys in "3 helmholtz, kappa: $(field kappa_node node), lambda: $(field lambda_cell cell)" \
    "2 advection, velocity: $(vec b)"; do
    nc=${phys%% *}
    u="$(field u0 node), $(field u1 node)"; [ "$nc" = 3 ] && u="$u, $(field u2 node)"
    { mesh_space "$1" "$2" "$3" "$nc"
      printf 'physics: {kind: %s}\nstate: {u: [%s]}\noutput: {element_matrices: true}\n' "${phys#* }" "$u"; } \
      > "$WORK/k.yaml"
    label="$(basename "$1") P$3 $(echo "${phys#* }" | cut -d, -f1), $nc components, random"
    "$FEINT" run --quiet "$WORK/k.yaml" -o "$WORK/cpu.h5" --backend cpu
    "$FEINT" run --quiet "$WORK/k.yaml" -o "$WORK/gpu.h5" --backend cuda
    agree "$WORK/cpu.h5" "$WORK/gpu.h5" "$label" $all
  done
done
# closed form: a rigid motion u = a + b x with b skew has sigma(u) = 0, so
# residual = -rhs exactly up to round-off, and with a constant source s
# the rhs entries of component c sum to s_c times the volume
for spec in "$(geo cube.geo) 0.7 3 1" "$(data twisted_prism.geo) 0 3 info"; do
  set -- $spec
  { mesh_space "$1" "$2" "$3" 3; cat <<EOF; } > "$WORK/r.yaml"
physics: {kind: elasticity, E: "1 + x*y", nu: 0.3, source: [1, -2, 0.5]}
state: {u: ["0.1 + 0.3*y - 0.2*z", "-0.2 - 0.3*x + 0.4*z", "0.05 + 0.2*x - 0.4*y"]}
EOF
  "$FEINT" run --quiet "$WORK/r.yaml" -o "$WORK/gpu.h5" --backend cuda --set output.matrix=false
  vol=$4; [ "$vol" = info ] && vol=$("$FEINT" info "$1" | sed -n 's/^total volume //p')
  $PY -c "
import h5py, numpy as np, sys
f, vol = h5py.File(sys.argv[1]), float(sys.argv[2])
assert f.attrs['backend'] == 'cuda', f.attrs['backend']
b, r = f['rhs'][:], f['residual'][:]
assert np.abs(r + b).max() <= 1e-12 * np.abs(b).max(), np.abs(r + b).max()
for c, s in enumerate((1, -2, 0.5)):
    assert abs(b[c::3].sum() - s * vol) <= 1e-12 * vol, (c, b[c::3].sum(), s * vol)
print('  ' + sys.argv[3] + ': residual = -rhs at a rigid motion, rhs sums to volume x source')" \
    "$WORK/gpu.h5" "$vol" "$(basename "$1") P$3 elasticity"
done
