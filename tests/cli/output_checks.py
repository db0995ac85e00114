"""Checks of the output file layout and of the relations between its
results, computed independently with h5py/NumPy/SciPy."""
import sys

import h5py
import numpy as np
import scipy.sparse as sp


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def fixed_ascii(obj, name):
    """The value of a fixed-length ASCII string attribute (as MATLAB writes
    them: no variable-length strings), with its declared size."""
    a = h5py.h5a.open(obj.id, name.encode())
    t = a.get_type()
    if t.get_class() != h5py.h5t.STRING or t.is_variable_str():
        fail(f"attribute {name} is not a fixed-length string")
    return obj.attrs[name].decode("ascii"), t.get_size()


def check_matlab(path, f, A):
    """What MATLAB's load of a v7.3 MAT-file needs, as MATLAB and libmatio
    write it (no MATLAB here): a 512-byte user block starting with the
    128-byte MAT header (116 bytes of text "MATLAB 7.3 MAT-file...", 8 bytes
    of subsystem offset, version 0x0200, endian indicator "IM"); the sparse
    variable a group with MATLAB_class "double" (fixed 6-byte string),
    MATLAB_sparse = number of rows (uint64), data (float64) and 0-based
    ir / jc of the CSC arrays: hard links to indices / indptr (each array
    stored once, int64, which libmatio converts; t40 loads the file with
    libmatio); other variables datasets with their MATLAB_class, groups
    MATLAB structs. MATLAB's reading (CSC) is rebuilt here with SciPy: it
    gives the transpose of the CSR matrix."""
    n = A.shape[0]
    if f.userblock_size != 512:
        fail(f"user block of {f.userblock_size} bytes, MATLAB needs 512")
    head = open(path, "rb").read(128)
    if not head.startswith(b"MATLAB 7.3 MAT-file") or head[124:126] != b"\x00\x02" or head[126:128] != b"IM":
        fail(f"MAT header {head!r}")
    g = f["matrix"]
    cls, size = fixed_ascii(g, "MATLAB_class")
    if cls != "double" or size != 6:
        fail(f"matrix MATLAB_class {cls!r} ({size} bytes)")
    a = h5py.h5a.open(g.id, b"MATLAB_sparse")
    if a.dtype != np.uint64 or a.shape != () or int(g.attrs["MATLAB_sparse"]) != n:
        fail(f"MATLAB_sparse {g.attrs['MATLAB_sparse']!r} of type {a.dtype}, expected uint64 {n}")
    ir, jc, data = g["ir"][:], g["jc"][:], g["data"][:]
    if ir.dtype != np.int64 or jc.dtype != np.int64 or data.dtype != np.float64:
        fail(f"ir {ir.dtype}, jc {jc.dtype}, data {data.dtype}: expected int64, int64, float64")
    for alias, name in (("ir", "indices"), ("jc", "indptr")):
        if h5py.h5o.get_info(g[alias].id).addr != h5py.h5o.get_info(g[name].id).addr:
            fail(f"matrix/{alias} is a copy, not a hard link to matrix/{name}")
    for name, obj in f.items():
        if isinstance(obj, h5py.Group) and name != "matrix" and fixed_ascii(obj, "MATLAB_class")[0] != "struct":
            fail(f"group {name} is not a MATLAB struct")
    if jc[0] != 0 or jc[-1] != len(data) or len(ir) != len(data) or np.any(np.diff(jc.astype(np.int64)) < 0):
        fail("jc is not 0-based column pointers over data")
    if ir.max() >= n:
        fail("ir is not 0-based")
    M = sp.csc_matrix((data, ir.astype(np.int64), jc.astype(np.int64)), shape=(int(g.attrs["MATLAB_sparse"]),
                                                                           len(jc) - 1))
    if (M != A.T).nnz:
        fail("MATLAB's CSC reading of ir/jc/data is not the transpose of the CSR matrix")
    for name in ("rhs", "residual", "dofs/coordinates"):
        if name in f and fixed_ascii(f[name], "MATLAB_class")[0] != "double":
            fail(f"{name} MATLAB_class")
    if "dofs/cell_dofs" in f and fixed_ascii(f["dofs/cell_dofs"], "MATLAB_class")[0] != "int64":
        fail("dofs/cell_dofs MATLAB_class")
    print("MATLAB v7.3 layout ok (header, user block, sparse group, ir/jc linked, MATLAB_class, structs)")


def main(path, state_expr):
    f = h5py.File(path, "r")
    g = f["matrix"]
    n = int(f.attrs["n_dofs"])
    if list(g.attrs["shape"]) != [n, n]:
        fail("matrix attributes")
    for name, dtype in [("indptr", np.int64), ("indices", np.int64), ("data", np.float64)]:
        if g[name].dtype != dtype:
            fail(f"{name} dtype {g[name].dtype}")
    A = sp.csr_matrix((g["data"][:], g["indices"][:], g["indptr"][:]), shape=(n, n))
    check_matlab(path, f, A)
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
