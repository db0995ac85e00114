# mesh.reorder: morton renumbers the nodes along a Morton curve: the same
# problem in another numbering. Residual, load vector (Dirichlet and
# Neumann terms included: the facets follow the nodes), element matrices
# and CSR matrix equal the file-order run's after mapping dofs by their
# coordinates; the matrix bandwidth shrinks (the point of reordering);
# the run is deterministic; per-cell data keeps the cells' order.
source "$(dirname "$0")/lib.sh"
for spec in "cube.geo 0.3 2 1" "square.geo 0.1 1 2"; do
  set -- $spec
  write_case r.yaml <<EOF
mesh: {file: $(geo $1), size: $2, refine: $4}
space: {order: $3}
physics: {kind: poisson, kappa: "1 + x*y", source: "sin(x) + z"}
state: {u: "x*y - z"}
boundary: [{group: left, dirichlet: "1 + y"}, {group: boundary, neumann: "x + 2*y"}]
output: {element_matrices: true}
EOF
  "$FEINT" run --quiet "$WORK/r.yaml" -o "$WORK/file.h5"
  "$FEINT" run --quiet "$WORK/r.yaml" -o "$WORK/morton.h5" --set mesh.reorder=morton
  "$FEINT" run --quiet "$WORK/r.yaml" -o "$WORK/morton2.h5" --set mesh.reorder=morton
  $PY - "$WORK/file.h5" "$WORK/morton.h5" "$WORK/morton2.h5" "$1 P$3" <<'PYEOF'
import sys, h5py, numpy as np, scipy.sparse as sp
a, b, b2 = (h5py.File(f) for f in sys.argv[1:4])
xa, xb = a["dofs/coordinates"][:], b["dofs/coordinates"][:]
index = {tuple(np.round(p, 10)): i for i, p in enumerate(xa)}
perm = np.array([index[tuple(np.round(p, 10))] for p in xb])  # morton dof j is file dof perm[j]
assert sorted(perm) == list(range(len(xa))) and (perm != np.arange(len(perm))).any(), "not a renumbering"
def csr(f):
    n = len(f["residual"])
    return sp.csr_matrix((f["matrix/data"][:], f["matrix/indices"][:], f["matrix/indptr"][:]), shape=(n, n))
A, B = csr(a), csr(b)
scale = abs(A).max()
for name in ("residual", "rhs"):
    d = np.abs(b[name][:] - a[name][:][perm]).max() / np.abs(a[name][:]).max()
    assert d < 1e-12, (name, d)
assert abs(B - A[perm][:, perm]).max() / scale < 1e-12, "matrix"
# element matrices: same cells in the same order, local dofs at the same points
ca, cb = a["dofs/cell_dofs"][:], b["dofs/cell_dofs"][:]
assert (perm[cb] == ca).all(), "cell dofs"
assert np.abs(b["element_matrices"][:] - a["element_matrices"][:]).max() / scale < 1e-12, "element matrices"
band = lambda M: np.abs(M.tocoo().row - M.tocoo().col).mean()
print(f"{sys.argv[4]}: {len(perm)} dofs, results equal up to the renumbering; mean |i - j| {band(A):.1f} -> {band(B):.1f}")
assert band(B) < band(A), "no locality gain"
for name in ("residual", "rhs", "matrix/data", "dofs/coordinates"):
    assert np.array_equal(b[name][:], b2[name][:]), name + " not deterministic"
PYEOF
done
expect_bad "unknown reorder" "mesh.reorder: expected one of none, morton" run "$WORK/r.yaml" -o "$WORK/out.h5" \
  --set mesh.reorder=hilbert
