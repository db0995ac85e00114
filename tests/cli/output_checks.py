"""Checks of the output file layout and of the relations between its
results, computed independently with h5py/NumPy/SciPy."""
import sys

import h5py
import numpy as np
import scipy.sparse as sp


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def main(path, state_expr):
    f = h5py.File(path, "r")
    g = f["matrix"]
    n = int(f.attrs["n_dofs"])
    if list(g.attrs["shape"]) != [n, n] or int(g.attrs["MATLAB_sparse"]) != n:
        fail("matrix attributes")
    for name, dtype in [("indptr", np.int64), ("indices", np.int64), ("data", np.float64)]:
        if g[name].dtype != dtype:
            fail(f"{name} dtype {g[name].dtype}")
    if not (np.array_equal(g["jc"][:], g["indptr"][:]) and np.array_equal(g["ir"][:], g["indices"][:])):
        fail("jc/ir are not the same data as indptr/indices")
    if g["jc"].id != g["indptr"].id:
        fail("jc is not a hard link to indptr")
    A = sp.csr_matrix((g["data"][:], g["indices"][:], g["indptr"][:]), shape=(n, n))
    for k in range(n):
        row = A.indices[A.indptr[k]:A.indptr[k + 1]]
        if np.any(np.diff(row) <= 0):
            fail(f"row {k} not sorted/unique")
    X = f["dofs/coordinates"][:]
    comp = f["dofs/component"][:]
    cd = f["dofs/cell_dofs"][:]
    if X.shape != (n, 3) or comp.shape != (n,) or cd.shape[0] != int(f.attrs["n_cells"]):
        fail("dof dataset shapes")
    # the matrix is the sum of the element matrices scattered by the dof map
    Ke = f["element_matrices"][:]
    nb = cd.shape[1]
    rows = np.repeat(cd, nb, axis=1).ravel()
    cols = np.tile(cd, (1, nb)).ravel()
    B = sp.csr_matrix((Ke.ravel(), (rows, cols)), shape=(n, n))
    d = abs(A - B).max() / abs(A).max()
    if d > 1e-13:
        fail(f"assembled matrix differs from scattered element matrices by {d}")
    # residual = A u - b for the linear physics
    x, y, z = X[:, 0], X[:, 1], X[:, 2]
    u = eval(state_expr, {"np": np, "x": x, "y": y, "z": z, "pi": np.pi, "sin": np.sin})
    r = f["residual"][:]
    want = A @ u - f["rhs"][:]
    e = abs(r - want).max() / max(abs(want).max(), 1e-300)
    if e > 1e-12:
        fail(f"residual differs from A u - b by {e}")
    for key in ["feint_version", "case", "case_sha256", "mesh_sha256", "backend", "device", "precision",
                "time_assembly", "time_mesh_read"]:
        if key not in f.attrs:
            fail(f"missing root attribute {key}")
    if len(f.attrs["case_sha256"]) != 64 or len(f.attrs["mesh_sha256"]) != 64:
        fail("hash lengths")
    print(f"layout ok; |A - sum Ke| {d:.2e}; |F - (A u - b)| {e:.2e}")


if __name__ == "__main__":
    main(*sys.argv[1:])
