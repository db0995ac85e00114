# Physics against each other and against properties that must hold:
# diffusion with K = k I equals Poisson with kappa k; Helmholtz equals
# Poisson plus lambda times mass; elasticity from (E, nu) equals the Lame
# form; advection annihilates constants and is skew on interior dofs for a
# divergence-free velocity; coefficients read from HDF5 datasets (per node,
# per cell) equal the same coefficients given as expressions / constants.
source "$(dirname "$0")/lib.sh"
base() { printf 'mesh: {file: %s, size: %s}\nspace: {order: %s}\n' "$(geo $1)" "$2" "$3"; }
run() { "$FEINT" run --quiet "$WORK/$1.yaml" -o "$WORK/$1.h5"; }
cmp() { $PY - "$@" <<'EOF'
import sys, h5py, numpy as np, scipy.sparse as sp
def M(p):
    g = h5py.File(p)["matrix"]; n = int(g.attrs["shape"][0])
    return sp.csr_matrix((g["data"][:], g["indices"][:], g["indptr"][:]), shape=(n, n))
op, paths = sys.argv[1], sys.argv[2:]
if op == "equal":
    A, B = M(paths[0]), M(paths[1])
elif op == "sum":  # A == B + s*C
    A, B, C = M(paths[0]), M(paths[1]), M(paths[2]); B = B + float(paths[3]) * C
d = abs(A - B).max() / abs(A).max()
print(op, "relative difference", d)
sys.exit(0 if d < 1e-13 else 1)
EOF
}
for spec in "square.geo 0.2 2" "cube.geo 0.4 1"; do
  set -- $spec; g=$1; h=$2; p=$3
  dim=2; [ $g = cube.geo ] && dim=3
  K=$([ $dim = 2 ] && echo '[[2, 0], [0, 2]]' || echo '[[2, 0, 0], [0, 2, 0], [0, 0, 2]]')
  { base $g $h $p; echo "physics: {kind: diffusion, tensor: $K}"; } > "$WORK/d.yaml"; run d
  { base $g $h $p; echo "physics: {kind: poisson, kappa: 2}"; } > "$WORK/p.yaml"; run p
  cmp equal "$WORK/d.h5" "$WORK/p.h5"
  { base $g $h $p; echo "physics: {kind: helmholtz, kappa: 2, lambda: 3}"; } > "$WORK/hh.yaml"; run hh
  { base $g $h $p; echo "physics: {kind: mass}"; } > "$WORK/m.yaml"; run m
  cmp sum "$WORK/hh.h5" "$WORK/p.h5" "$WORK/m.h5" 3
  # E = 2.5, nu = 0.25 -> lambda = 1, mu = 1
  { base $g $h $p; echo "physics: {kind: elasticity, E: 2.5, nu: 0.25}"; } > "$WORK/e1.yaml"; run e1
  { base $g $h $p; echo "physics: {kind: elasticity, lame_lambda: 1, lame_mu: 1}"; } > "$WORK/e2.yaml"; run e2
  cmp equal "$WORK/e1.h5" "$WORK/e2.h5"
  # advection with b = (y, -x[, 0]): divergence free
  B=$([ $dim = 2 ] && echo '["y", "-x"]' || echo '["y", "-x", 0]')
  { base $g $h $p; echo "physics: {kind: advection, velocity: $B}"; } > "$WORK/a.yaml"; run a
  $PY - "$WORK/a.h5" <<'EOF'
import sys, h5py, numpy as np, scipy.sparse as sp
f = h5py.File(sys.argv[1]); g = f["matrix"]; n = int(g.attrs["shape"][0])
A = sp.csr_matrix((g["data"][:], g["indices"][:], g["indptr"][:]), shape=(n, n))
x = f["dofs/coordinates"][:]
inner = np.all((x > 1e-12) & (x < 1 - 1e-12) | (np.ptp(x, axis=0) == 0), axis=1)
r1 = abs(A @ np.ones(n)).max() / abs(A).max()
S = (A + A.T)[inner][:, inner]
r2 = abs(S).max() / abs(A).max() if S.nnz else 0.0
print("advection: |A 1| %.2e, |(A + A^T)_II| %.2e" % (r1, r2))
sys.exit(0 if r1 < 1e-13 and r2 < 1e-13 else 1)
EOF
done
# coefficients from HDF5 datasets: per node (feint's dof order) and per cell
{ base square.geo 0.2 1; echo 'physics: {kind: poisson, kappa: "1 + x*y"}'; } > "$WORK/ke.yaml"; run ke
$PY - "$WORK/ke.h5" "$WORK/kappa.h5" <<'EOF'
import sys, h5py, numpy as np
x = h5py.File(sys.argv[1])["dofs/coordinates"][:]
n_cells = int(h5py.File(sys.argv[1]).attrs["n_cells"])
with h5py.File(sys.argv[2], "w") as f:
    f["kappa_node"] = 1 + x[:, 0] * x[:, 1]
    f["kappa_cell"] = np.full(n_cells, 4.0)
EOF
{ base square.geo 0.2 1; echo "physics: {kind: poisson, kappa: {file: $WORK/kappa.h5, dataset: /kappa_node, on: node}}"; } > "$WORK/kn.yaml"; run kn
cmp equal "$WORK/ke.h5" "$WORK/kn.h5"
{ base square.geo 0.2 1; echo "physics: {kind: poisson, kappa: {file: $WORK/kappa.h5, dataset: /kappa_cell, on: cell}}"; } > "$WORK/kc.yaml"; run kc
{ base square.geo 0.2 1; echo "physics: {kind: poisson, kappa: 4}"; } > "$WORK/k4.yaml"; run k4
cmp equal "$WORK/kc.h5" "$WORK/k4.h5"
# a dataset of the wrong length is a clear input error
{ base square.geo 0.2 1; echo "physics: {kind: poisson, kappa: {file: $WORK/kappa.h5, dataset: /kappa_cell, on: node}}"; } > "$WORK/bad.yaml"
set +e; "$FEINT" run --quiet "$WORK/bad.yaml" -o "$WORK/bad.h5" 2> "$WORK/err"; rc=$?; set -e
[ $rc = 2 ] && grep -q "kappa_cell.*values, expected" "$WORK/err" || fail "wrong-length dataset: rc $rc, $(cat "$WORK/err")"
cat "$WORK/err"
# a scalar physics on several components takes one source for all of them:
# each component's load vector is the scalar one; a list is refused
{ base square.geo 0.2 2; echo "physics: {kind: helmholtz, lambda: 3, source: \"1 + x*y\"}"; echo "output: {rhs: true}"; } > "$WORK/h1.yaml"
{ cat "$WORK/h1.yaml"; echo "space: {order: 2, components: 3}"; } | awk '!/^space: \{order: 2\}$/' > "$WORK/h3.yaml"
run h1; run h3
$PY - "$WORK/h1.h5" "$WORK/h3.h5" <<'EOF'
import sys, h5py, numpy as np
b1, b3 = h5py.File(sys.argv[1])["rhs"][:], h5py.File(sys.argv[2])["rhs"][:]
assert len(b3) == 3 * len(b1) and np.abs(b1).max() > 0
for c in range(3): assert np.array_equal(b3[c::3], b1), c
print("helmholtz x3: one source for all components, each rhs the scalar one")
EOF
expect_bad "source list for a scalar physics" "physics.source of helmholtz is one value for all components" \
  run "$WORK/h3.yaml" -o "$WORK/out.h5" --set 'physics.source=[1, 2, 3]'
