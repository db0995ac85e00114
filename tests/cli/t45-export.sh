# Solver-ready export: the near null space (orthonormal rigid body modes
# for elasticity, constants for Poisson) is annihilated by the matrix;
# Matrix Market equals the HDF5 matrix; misuse is a clear error.
source "$(dirname "$0")/lib.sh"
for spec in "cube.geo 0.4 elasticity 6" "square.geo 0.2 elasticity 3" "cube.geo 0.4 poisson 1"; do
  set -- $spec
  write_case n.yaml <<EOF
mesh: {file: $(geo $1), size: $2}
space: {order: 2}
physics: {kind: $3, E: "1 + x", nu: 0.3}
output: {near_null_space: true, matrix_market: $WORK/a.mtx}
EOF
  "$FEINT" run --quiet "$WORK/n.yaml" -o "$WORK/n.h5"
  $PY - "$WORK/n.h5" "$WORK/a.mtx" "$4" <<'EOF'
import sys, h5py, numpy as np, scipy.io, scipy.sparse as sp
f = h5py.File(sys.argv[1]); g = f["matrix"]; n = int(g.attrs["shape"][0])
A = sp.csr_matrix((g["data"][:], g["indices"][:], g["indptr"][:]), shape=(n, n))
Z = f["near_null_space"][:]
k = int(sys.argv[3])
assert Z.shape == (k, n), Z.shape
o = abs(Z @ Z.T - np.eye(k)).max()
r = abs(A @ Z.T).max() / abs(A).max()
M = scipy.io.mmread(sys.argv[2]).tocsr()
d = abs(M - A).max() / abs(A).max()
print(f"{k} modes: |Z Z^T - I| {o:.1e}, |A Z| {r:.1e}; Matrix Market vs HDF5 {d:.1e}")
sys.exit(0 if o < 1e-12 and r < 1e-12 and d == 0 else 1)
EOF
done
set +e; "$FEINT" run "$WORK/n.yaml" -o "$WORK/x.h5" --set output.matrix=false 2> "$WORK/err"; rc=$?; set -e
[ $rc = 2 ] && grep -q "matrix_market needs output.matrix" "$WORK/err" || fail "matrix_market without matrix: $(cat "$WORK/err")"
[ ! -e "$WORK/x.h5" ] || fail "output left behind"
echo ok
