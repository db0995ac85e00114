# The expression language in a case: a piecewise coefficient written as a
# conditional ("x < 0.5 ? 1 : 10 + sinh(y)") gives the matrix of the
# same coefficient given as a node dataset that NumPy computed at the dofs
# (within 1e-14: NumPy's sinh, cosh and log may differ from C's in the last bit);
# a source with floor, ceil, sign and cosh the same load vector as its
# dataset; a branch not taken never makes a value non-finite.
source "$(dirname "$0")/lib.sh"
write_case e.yaml <<EOF
mesh: {file: $(geo square.geo), size: 0.1}
space: {order: 2}
physics: {kind: poisson, kappa: "x < 0.5 ? 1 : 10 + sinh(y)", source: "floor(3*x) + ceil(2*y) * sign(x - 0.3) + cosh(x*y)"}
state: {u: "x > 0 ? log(x) : 0"}
output: {matrix: true, rhs: true, residual: true}
EOF
"$FEINT" run --quiet "$WORK/e.yaml" -o "$WORK/expr.h5"
$PY - "$WORK/expr.h5" "$WORK/data.h5" <<'PYEOF'
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1])
x, y = f["dofs/coordinates"][:, 0], f["dofs/coordinates"][:, 1]
with h5py.File(sys.argv[2], "w") as g:
    g["kappa"] = np.where(x < 0.5, 1.0, 10 + np.sinh(y))
    g["f"] = np.floor(3 * x) + np.ceil(2 * y) * np.sign(x - 0.3) + np.cosh(x * y)
    with np.errstate(divide="ignore"):
        g["u"] = np.where(x > 0, np.log(np.where(x > 0, x, 1)), 0.0)
PYEOF
write_case d.yaml <<EOF
mesh: {file: $(geo square.geo), size: 0.1}
space: {order: 2}
physics: {kind: poisson, kappa: {file: $WORK/data.h5, dataset: /kappa, on: node}, source: {file: $WORK/data.h5, dataset: /f, on: node}}
state: {u: {file: $WORK/data.h5, dataset: /u, on: node}}
output: {matrix: true, rhs: true, residual: true}
EOF
"$FEINT" run --quiet "$WORK/d.yaml" -o "$WORK/data-run.h5"
$PY - "$WORK/expr.h5" "$WORK/data-run.h5" <<'PYEOF'
import sys, h5py, numpy as np
a, b = h5py.File(sys.argv[1]), h5py.File(sys.argv[2])
# NumPy's sinh, cosh and log may differ from the C library's in the last
# bit; a wrong branch or function would differ by O(1)
for n in ("matrix/data", "rhs", "residual"):
    x, y = a[n][:], b[n][:]
    err = np.abs(x - y).max() / np.abs(y).max()
    assert err < 1e-14, f"{n}: expression and dataset runs differ by {err:.3g}"
    print(f"{n}: relative difference {err:.2g}")
k = a["matrix/data"][:]
assert np.isfinite(k).all() and np.isfinite(a["residual"][:]).all()
print("ok: conditional, sinh, floor, ceil, sign, cosh in a case equal their NumPy datasets")
PYEOF
