# Coefficients per physical group (materials, issue 19): kappa and the
# source given as {groups: {inner: .., outer: ..}} on cases/two-materials.geo
# give bitwise the residual, load vector, element matrices and CSR matrix
# of the same numbers given as per-cell datasets, which this script writes
# from the cells' centroids (inner: x < 1/2), not from feint's groups: P1
# and P2, every assembly strategy, --set and a sweep over one group's
# value, and a user form's coefficient. Expressions per group: the same
# expression in every group gives bitwise what the plain expression gives;
# different ones give each cell bitwise the element matrix of its group's
# expression given alone (P1 and P2; the kind and a user form, whose
# coefficient gradient follows the cell's own expression). Independent truth: the layered
# problem (kappa 1 | 10 in slabs normal to x, u = 0 on x = 0, u = 1 on
# x = 1, insulated elsewhere) solved from the exported system with SciPy
# is the exact piecewise linear solution at every dof, to round-off, on
# P1 and P2. Bad input exits 2 with the case line and column.
source "$(dirname "$0")/lib.sh"
compare() { # a.h5 b.h5: bitwise equal (the bytes, so -0 and 0 differ too)
  $PY - "$@" <<'EOF'
import sys, h5py, numpy as np
a, b = h5py.File(sys.argv[1]), h5py.File(sys.argv[2])
n_cmp = 0
for n in ("residual", "rhs", "element_matrices", "matrix/data", "matrix/indices", "matrix/indptr"):
    assert n in a and n in b, n
    x, y = a[n][:], b[n][:]
    assert x.shape == y.shape, f"{n}: shapes {x.shape} and {y.shape}"
    assert x.shape == y.shape and x.tobytes() == y.tobytes(), \
        f"{n}: {sys.argv[2]} differs from {sys.argv[1]} by {np.abs(x - y).max():.3g}"
    n_cmp += x.size
print(f"ok: {sys.argv[1].rsplit('/', 1)[1]} == {sys.argv[2].rsplit('/', 1)[1]} bitwise "
      f"({a['rhs'].shape[0]} dofs, {a['element_matrices'].shape[0]} cells, {n_cmp} numbers)")
EOF
}
common="mesh: {file: $(geo two-materials.geo), size: 0.2}
state: {u: \"x*y + sin(z + x)\"}
output: {residual: true, rhs: true, matrix: true, element_matrices: true, cell_dofs: true}"
write_case g.yaml <<EOF
$common
physics:
  kind: poisson
  kappa: {groups: {inner: 1.5, outer: 10}}
  source: {groups: {inner: 2, outer: -0.25}}
EOF
write_case d.yaml <<EOF
$common
physics:
  kind: poisson
  kappa: {file: cells.h5, dataset: /kappa, on: cell}
  source: {file: cells.h5, dataset: /source, on: cell}
EOF
# the per-cell datasets, from the geometry: a cell's centroid is in the slab
# x < 1/2 (inner) or x > 1/2 (outer); outer_kappa is a second kappa for --set
"$FEINT" run --quiet "$WORK/g.yaml" -o "$WORK/geom.h5"
$PY - "$WORK/geom.h5" "$WORK/cells.h5" <<'EOF'
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1])
xc = f["dofs/coordinates"][:, 0][f["dofs/cell_dofs"][:]].mean(axis=1)
assert np.all(np.abs(xc - 0.5) > 1e-3), "a cell straddles x = 1/2"
inner = xc < 0.5
with h5py.File(sys.argv[2], "w") as g:
    g["kappa"] = np.where(inner, 1.5, 10.0)
    g["source"] = np.where(inner, 2.0, -0.25)
    g["kappa20"] = np.where(inner, 1.5, 20.0)
print(f"cells.h5: {inner.sum()} inner cells, {(~inner).sum()} outer")
EOF
for order in 1 2; do
  for strategy in colored atomic gather; do
    set_args=(--set space.order=$order --set assembly.strategy=$strategy)
    "$FEINT" run --quiet "$WORK/g.yaml" -o "$WORK/g.h5" "${set_args[@]}"
    "$FEINT" run --quiet "$WORK/d.yaml" -o "$WORK/d.h5" "${set_args[@]}"
    echo -n "P$order $strategy: "; compare "$WORK/d.h5" "$WORK/g.h5"
  done
done
# --set one group's value, and a sweep over it (a member per value); P1
"$FEINT" run --quiet "$WORK/d.yaml" -o "$WORK/d1.h5"
"$FEINT" run --quiet "$WORK/d.yaml" -o "$WORK/d20.h5" --set physics.kappa.dataset=/kappa20
"$FEINT" run --quiet "$WORK/g.yaml" -o "$WORK/g20.h5" --set physics.kappa.groups.outer=20
echo -n "--set physics.kappa.groups.outer=20: "; compare "$WORK/d20.h5" "$WORK/g20.h5"
"$FEINT" run --quiet "$WORK/g.yaml" -o "$WORK/s.h5" --set 'sweep.product={physics.kappa.groups.outer: [10, 20]}'
echo -n "sweep member 0: "; compare "$WORK/d1.h5" "$WORK/s-0.h5"
echo -n "sweep member 1: "; compare "$WORK/d20.h5" "$WORK/s-1.h5"
# default: cells of groups not listed take it
"$FEINT" run --quiet "$WORK/g.yaml" -o "$WORK/gd.h5" --set 'physics.kappa={groups: {inner: 1.5}, default: 10}'
echo -n "default: "; compare "$WORK/d1.h5" "$WORK/gd.h5"

# a user form's coefficient per group: the form of Poisson equals kind poisson
write_case f.yaml <<EOF
$common
space: {order: 2}
physics:
  kind: form
  coefficients: {kappa: {groups: {inner: 1.5, outer: 10}}, f: {groups: {inner: 2, outer: -0.25}}}
  f0: "-f"
  f1: ["kappa*u_x", "kappa*u_y", "kappa*u_z"]
EOF
"$FEINT" run --quiet "$WORK/f.yaml" -o "$WORK/f.h5"
"$FEINT" run --quiet "$WORK/d.yaml" -o "$WORK/d2.h5" --set space.order=2
echo -n "user form: "; compare "$WORK/d2.h5" "$WORK/f.h5"

# expressions per group (a field that jumps between the groups)
ex_in="1 + x*y" ex_out="10 + z*z"
for order in 1 2; do
  o=(--set space.order=$order)
  "$FEINT" run --quiet "$WORK/g.yaml" -o "$WORK/e-same.h5" "${o[@]}" \
    --set "physics.kappa={groups: {inner: \"$ex_in\", outer: \"$ex_in\"}}"
  "$FEINT" run --quiet "$WORK/g.yaml" -o "$WORK/e-plain.h5" "${o[@]}" --set "physics.kappa=$ex_in"
  echo -n "P$order the same expression in both groups: "; compare "$WORK/e-plain.h5" "$WORK/e-same.h5"
  "$FEINT" run --quiet "$WORK/g.yaml" -o "$WORK/e-both.h5" "${o[@]}" \
    --set "physics.kappa={groups: {inner: \"$ex_in\"}, default: \"$ex_out\"}"
  "$FEINT" run --quiet "$WORK/g.yaml" -o "$WORK/e-out.h5" "${o[@]}" --set "physics.kappa=$ex_out"
  $PY - "$WORK/e-both.h5" "$WORK/e-plain.h5" "$WORK/e-out.h5" "$WORK/cells.h5" $order <<'EOF'
import sys, h5py, numpy as np
both, inner_run, outer_run = (h5py.File(p)["element_matrices"][:] for p in sys.argv[1:4])
inner = h5py.File(sys.argv[4])["kappa"][:] == 1.5  # the cells of group inner, from their centroids
want = np.where(inner[:, None, None], inner_run, outer_run)
assert both.tobytes() == want.tobytes(), np.abs(both - want).max()
assert not np.allclose(inner_run[~inner], outer_run[~inner]), "the two expressions give the same matrices"
print(f"P{sys.argv[5]} an expression per group: each of {both.shape[0]} cells has its group's element matrix, bitwise")
EOF
done
# datasets per group: a cell dataset for one group and a number for the
# other give the per-cell datasets' numbers bitwise (P1, P2); a node
# dataset holding 1 + x y at the dofs gives the expression's matrices
P1_nodes="$WORK/nodes.h5"
$PY - "$WORK/geom.h5" "$P1_nodes" <<'EOF'
import sys, h5py
x = h5py.File(sys.argv[1])["dofs/coordinates"][:]
with h5py.File(sys.argv[2], "w") as g:
    g["k"] = 1 + x[:, 0] * x[:, 1]
EOF
for order in 1 2; do
  o=(--set space.order=$order)
  "$FEINT" run --quiet "$WORK/g.yaml" -o "$WORK/gd-cell.h5" "${o[@]}" \
    --set "physics.kappa={groups: {inner: {file: $WORK/cells.h5, dataset: /kappa, on: cell}, outer: 10}}"
  "$FEINT" run --quiet "$WORK/d.yaml" -o "$WORK/d-cell.h5" "${o[@]}"
  echo -n "P$order a cell dataset for one group, a number for the other: "; compare "$WORK/d-cell.h5" "$WORK/gd-cell.h5"
done
"$FEINT" run --quiet "$WORK/g.yaml" -o "$WORK/gd-node.h5" \
  --set "physics.kappa={groups: {inner: {file: $P1_nodes, dataset: /k, on: node}}, default: \"$ex_out\"}"
"$FEINT" run --quiet "$WORK/g.yaml" -o "$WORK/ge-node.h5" \
  --set "physics.kappa={groups: {inner: \"$ex_in\"}, default: \"$ex_out\"}"
$PY - "$WORK/ge-node.h5" "$WORK/gd-node.h5" <<'EOF'
import sys, h5py, numpy as np
a, b = h5py.File(sys.argv[1]), h5py.File(sys.argv[2])
for n in ("residual", "element_matrices", "matrix/data"):
    x, y = a[n][:], b[n][:]
    d = np.abs(x - y).max() / np.abs(x).max()
    assert d < 1e-14, (n, d)
print("P1 a node dataset for one group, an expression for the default: the expressions' results (within 1e-14)")
EOF

# a user form's coefficient given by expressions per group, and its gradient
# (the cell's own expression's: k = x^2 | 3x, so k_x = 2x | 3, exact in P2)
write_case fe.yaml <<EOF
$common
space: {order: 2}
physics:
  kind: form
  coefficients: {k: {groups: {inner: "x^2", outer: "3*x"}}}
  f0: "-k_x"
  f1: ["k*u_x", "k*u_y", "k*u_z"]
EOF
"$FEINT" run --quiet "$WORK/fe.yaml" -o "$WORK/fe.h5"
"$FEINT" run --quiet "$WORK/fe.yaml" -o "$WORK/fe-direct.h5" \
  --set 'physics.coefficients={k: {groups: {inner: "x^2", outer: "3*x"}}, kx: {groups: {inner: "2*x", outer: 3}}}' \
  --set 'physics.f0=-kx'
$PY - "$WORK/fe.h5" "$WORK/fe-direct.h5" <<'EOF'
import sys, h5py, numpy as np
a, b = h5py.File(sys.argv[1]), h5py.File(sys.argv[2])
for n in ("residual", "rhs", "element_matrices", "matrix/data"):
    x, y = a[n][:], b[n][:]
    assert np.linalg.norm(x) > 0, n
    d = np.abs(x - y).max() / np.abs(x).max()
    assert d < 1e-12, (n, d)
print("a form's coefficient per group and its gradient: within 1e-12 of the gradient written out")
EOF

# the layered problem: exact solution piecewise linear in x, kappa1 u1' = kappa2 u2'
write_case l.yaml <<EOF
mesh: {file: $(geo two-materials.geo), size: 0.25}
physics: {kind: poisson, kappa: {groups: {inner: 1, outer: 10}}}
boundary: [{group: left, dirichlet: 0}, {group: right, dirichlet: 1}]
assembly: {dirichlet: symmetric}
output: {residual: false}
EOF
for order in 1 2; do
  "$FEINT" run --quiet "$WORK/l.yaml" -o "$WORK/l$order.h5" --set space.order=$order
  $PY - "$WORK/l$order.h5" $order <<'EOF'
import sys, h5py, numpy as np, scipy.sparse as sp, scipy.sparse.linalg as spla
f = h5py.File(sys.argv[1]); g = f["matrix"]
A = sp.csr_matrix((g["data"][:], g["indices"][:], g["indptr"][:]), shape=tuple(g.attrs["shape"]))
u = spla.spsolve(A.tocsc(), f["rhs"][:])
x = f["dofs/coordinates"][:, 0]
k1, k2 = 1.0, 10.0
b = 2 * k1 / (k1 + k2)          # slope in the outer slab
a = k2 * b / k1                 # slope in the inner slab: k1 a = k2 b
exact = np.where(x <= 0.5, a * x, 1 - b * (1 - x))
err = np.abs(u - exact).max()
print(f"layered P{sys.argv[2]}: {u.size} dofs, max nodal error {err:.3g} (slopes {a:.6g} | {b:.6g})")
assert err < 1e-12, err
EOF
done

# bad input
write_case b.yaml <<EOF
mesh: {file: $(geo two-materials.geo), size: 0.4}
physics:
  kind: poisson
  kappa: {groups: {inner: 1, middle: 10}}
EOF
# bad NAME MESSAGE [OVERRIDE...]: b.yaml with the overrides exits 2 saying MESSAGE
bad() {
  local name=$1 want=$2 sets=()
  shift 2
  for o in "$@"; do sets+=(--set "$o"); done
  expect_bad "$name" "$want" run --quiet "$WORK/b.yaml" -o "$WORK/out.h5" "${sets[@]}"
}
bad "unknown group" "b.yaml:4:30: physics.kappa.groups: unknown physical group 'middle' \(groups of dimension 3: inner, outer\)"
bad "group of the facets" "physics.kappa.groups: physical group 'left' has dimension 2; .* dimension 3" \
  'physics.kappa.groups={inner: 1, left: 2}'
bad "cells without a value" "b.yaml:4:10: physics.kappa.groups: [0-9]+ cells have no value: they are in group outer, not listed; .*physics.kappa.default" \
  'physics.kappa.groups={inner: 1}'
sed -i 's/middle: 10/outer: "1 + x*"/' "$WORK/b.yaml"
bad "bad expression in groups" "b.yaml:4:37: in expression \"1 \\+ x\\*\": .* at character 7"
bad "groups inside groups" "physics.kappa.groups.outer: groups inside groups" \
  'physics.kappa.groups.outer={groups: {inner: 1}}'
bad "missing dataset in a group" "physics.kappa.groups.outer.file: cannot read HDF5 file" \
  'physics.kappa.groups.outer={file: none.h5, dataset: /kappa, on: cell}'
bad "groups not a mapping" "physics.kappa.groups: expected a mapping \{group name: value, ...\}, got a sequence" \
  'physics.kappa.groups=[inner, outer]'
bad "groups empty" "physics.kappa.groups: expected a mapping \{group name: value, ...\}, got an empty mapping" \
  'physics.kappa.groups={}'
bad "default not a value" "physics.kappa.default: expected a number, an expression string" \
  'physics.kappa={groups: {inner: 1}, default: [1]}'
bad "unknown name in a group" "in expression \"q \\+ 1\": unknown name 'q' \\(expected x, y, z, pi or e\\) at character 1" \
  'physics.kappa={groups: {inner: "q + 1"}, default: 0}'
bad "groups beside file" "unknown key 'file' in physics.kappa" \
  'physics.kappa={groups: {inner: 1}, file: a.h5}'
bad "groups for a boundary value" "boundary\[0\].dirichlet: a boundary value cannot be given per physical group" \
  'physics.kappa=1' \
  'boundary=[{group: left, dirichlet: {groups: {inner: 1}}}]'
bad "state.u per group" "state.u must be given per node" \
  'physics.kappa=1' \
  'state.u={groups: {inner: 1}, default: 0}'
bad "state.u by expressions per group" "state.u must be given per node" \
  'physics.kappa=1' \
  'state.u={groups: {inner: "x"}, default: 0}'
# expressions per group on the cuda backend: a built-in kind runs there
# as the user form it is (tests/gpu/t526); without a GPU it says so
expect_bad "expressions per group on cuda" "no CUDA device is visible|built without CUDA" \
  run --quiet "$WORK/b.yaml" -o "$WORK/out.h5" --backend cuda --set 'physics.kappa={groups: {inner: "x"}, default: 1}'
# hexahedra (the tensor-product cells' path) and a mixed tetrahedron +
# prism mesh: one group's expression equals the plain expression, bitwise
for g in hexcube.geo:2 mixedcube.geo:2; do
  write_case h.yaml <<EOF2
mesh: {file: $(geo ${g%:*}), size: 0.4}
space: {order: ${g#*:}}
physics: {kind: poisson, kappa: {groups: {domain: "1 + x*y"}}, source: "z"}
state: {u: "x*y + sin(z + x)"}
output: {residual: true, rhs: true, matrix: true, element_matrices: true}
EOF2
  "$FEINT" run --quiet "$WORK/h.yaml" -o "$WORK/h-groups.h5"
  "$FEINT" run --quiet "$WORK/h.yaml" -o "$WORK/h-plain.h5" --set 'physics.kappa=1 + x*y'
  echo -n "${g%:*} P${g#*:}, an expression per group: "; compare "$WORK/h-plain.h5" "$WORK/h-groups.h5"
done
