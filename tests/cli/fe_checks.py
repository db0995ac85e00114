"""Independent checks of feint's HDF5 output (SciPy/h5py only).

Usage: fe_checks.py CHECK FILE [args] (sum FILE WANT [TOL]); exits non-zero with a message when a
check fails. The checks read the file exactly as a user would."""
import sys

import h5py
import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla


def load(path):
    f = h5py.File(path, "r")
    g = f["matrix"]
    n = int(g.attrs["shape"][0])
    A = sp.csr_matrix((g["data"][:], g["indices"][:], g["indptr"][:]), shape=(n, n))
    return f, A


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def check_sum(path, want, tol=1e-12):
    """Sum of all matrix entries (mass matrix: the domain volume)."""
    f, A = load(path)
    s = A.sum()
    if not abs(s - want) <= tol * max(1, abs(want)):
        fail(f"sum of entries {s!r}, expected {want!r}")
    print(f"sum of entries {s:.15g} (expected {want})")


def check_laplacian(path):
    """Rows sum to zero, symmetric, positive diagonal."""
    f, A = load(path)
    scale = abs(A).max()
    rows = np.abs(np.asarray(A.sum(axis=1)).ravel()).max()
    asym = abs(A - A.T).max()
    if rows > 1e-12 * scale:
        fail(f"row sums up to {rows}")
    if asym > 1e-13 * scale:
        fail(f"asymmetry {asym}")
    if (A.diagonal() <= 0).any():
        fail("non-positive diagonal")
    print(f"max |row sum| {rows:.3g}, asymmetry {asym:.3g}")


def rigid_modes(x, dim):
    n = x.shape[0]
    modes = []
    for c in range(dim):
        m = np.zeros((n, dim)); m[:, c] = 1; modes.append(m)
    pairs = [(0, 1)] if dim == 2 else [(0, 1), (1, 2), (0, 2)]
    for a, b in pairs:
        m = np.zeros((n, dim)); m[:, a] = -x[:, b]; m[:, b] = x[:, a]; modes.append(m)
    return [m.ravel() for m in modes]


def check_rigid(path):
    """Elasticity: the matrix annihilates the rigid body modes and no other."""
    f, A = load(path)
    comp = f["dofs/component"][:]
    dim = int(comp.max()) + 1
    x = f["dofs/coordinates"][::dim, :dim]
    scale = abs(A).max()
    modes = rigid_modes(x, dim)
    for k, m in enumerate(modes):
        r = abs(A @ m).max() / (scale * abs(m).max())
        if r > 1e-12:
            fail(f"rigid mode {k}: |A m| / |A| |m| = {r}")
    want = 3 if dim == 2 else 6
    if len(modes) != want:
        fail("mode count")
    # the kernel has exactly that dimension: smallest eigenvalues
    if A.shape[0] <= 400:
        ev = np.linalg.eigvalsh(A.toarray())
        small = (np.abs(ev) < 1e-10 * ev.max()).sum()
        if small != want:
            fail(f"{small} near-zero eigenvalues, expected {want}")
    print(f"{len(modes)} rigid body modes annihilated")


def spd_solve(A, b):
    """Solve the symmetric positive definite system A u = b: Jacobi-
    preconditioned CG towards a relative residual of 1e-14 (the high-order
    3D systems take SuperLU tens of seconds), accepted at 1e-12 where round-
    off stops it earlier (large systems); a direct solve if CG stalls."""
    A = A.tocsr()
    if A.shape[0] == 0:
        return np.zeros(0)
    u, info = spla.cg(A, b, tol=1e-14, atol=0, maxiter=3000, M=sp.diags(1 / A.diagonal()))
    if info == 0 or np.linalg.norm(A @ u - b) <= 1e-12 * np.linalg.norm(b):
        return u
    return spla.spsolve(A.tocsc(), b)


def solve_error(path, exact):
    """Solve A u = b with u = exact on the boundary (dofs on the box faces),
    return the L2 norm (through the mass matrix) of u_h - I_h u."""
    f, A = load(path)
    b = f["rhs"][:]
    x = f["dofs/coordinates"][:]
    dim = 3 if np.ptp(x[:, 2]) > 0 else 2
    on_bnd = np.zeros(len(b), bool)
    for d in range(dim):
        on_bnd |= (np.abs(x[:, d]) < 1e-12) | (np.abs(x[:, d] - 1) < 1e-12)
    ue = exact(x[:, 0], x[:, 1], x[:, 2])
    inner = ~on_bnd
    Aii = A[inner][:, inner]
    rhs = b[inner] - A[inner][:, on_bnd] @ ue[on_bnd]
    u = ue.copy()
    u[inner] = spd_solve(Aii, rhs)
    return u - ue, f


def residual_energy(path):
    """sqrt(F_I^T A_II^{-1} F_I) for the residual F at the interpolated
    exact solution, interior dofs: the energy norm of I_h u - u_h."""
    f, A = load(path)
    F = f["residual"][:]
    x = f["dofs/coordinates"][:]
    dim = 3 if np.ptp(x[:, 2]) > 0 else 2
    inner = np.ones(len(F), bool)
    for d in range(dim):
        inner &= (np.abs(x[:, d]) > 1e-12) & (np.abs(x[:, d] - 1) > 1e-12)
    FI = F[inner]
    return np.sqrt(FI @ spd_solve(A[inner][:, inner], FI))


def check_convergence(order, *paths):
    """Manufactured Poisson: -lap u = f, u = sin(k pi x) sin(k pi y)
    [sin(k pi z)], k = 1 unless the first argument is "k=K" (a smoother
    solution reaches the asymptotic rate on coarser meshes). Each path is a
    pair poisson.h5,mass.h5 on the same mesh."""
    order = int(order)
    k = 1.0
    if paths and paths[0].startswith("k="):
        k, paths = float(paths[0][2:]), paths[1:]
    errs, hs = [], []
    for pair in paths:
        p, m = pair.split(",")
        s = lambda V: np.sin(k * np.pi * V)
        ex = lambda X, Y, Z: s(X) * s(Y) * (s(Z) if np.ptp(Z) > 0 else 1)
        e, f = solve_error(p, ex)
        _, M = load(m)
        errs.append(np.sqrt(e @ (M @ e)))
        hs.append(f.attrs["n_cells"] ** (-1.0 / (3 if np.ptp(f["dofs/coordinates"][:, 2]) > 0 else 2)))
    rate = lambda v: [np.log(v[k] / v[k + 1]) / np.log(hs[k] / hs[k + 1]) for k in range(len(v) - 1)]
    rates = rate(errs)
    print("L2 errors", " ".join(f"{e:.3e}" for e in errs), "rates", " ".join(f"{r:.2f}" for r in rates))
    if rates[-1] < order + 1 - 0.3:
        fail(f"L2 rate {rates[-1]:.2f}, expected {order + 1}")
    # the residual at the exact solution: energy norm of A^-1 F(I_h u)
    res = [residual_energy(pair.split(",")[0]) for pair in paths]
    rr = rate(res)
    print("residual (energy) norms", " ".join(f"{e:.3e}" for e in res), "rates", " ".join(f"{r:.2f}" for r in rr))
    if rr[-1] < order - 0.3:
        fail(f"residual rate {rr[-1]:.2f}, expected at least {order}")


def check_patch(path, volume, box):
    """Poisson matrix on a mesh of non-affine cells. The space holds the
    linear functions x, y (z) (the geometry's own basis), so with exact
    quadrature of |J| x_d^T A x_e = volume if d == e else 0; and on a box
    (box = 1) A x_d vanishes on the dofs off the boundary (the Laplacian of
    x is zero). Fails when non-affine cells are treated as affine."""
    f, A = load(path)
    x = f["dofs/coordinates"][:]
    dim = 3 if np.ptp(x[:, 2]) > 0 else 2
    scale = abs(A).max()
    G = np.array([[x[:, d] @ (A @ x[:, e]) for e in range(dim)] for d in range(dim)])
    gerr = abs(G - float(volume) * np.eye(dim)).max()
    if gerr > 1e-12 * max(1, float(volume)):
        fail(f"x_d^T A x_e = {G.tolist()}, expected {volume} I")
    msg = f"patch test: |x^T A x - volume I| {gerr:.3g}"
    if box == "1":
        inner = np.ones(len(x), bool)
        for d in range(dim):
            inner &= (x[:, d] > x[:, d].min() + 1e-12) & (x[:, d] < x[:, d].max() - 1e-12)
        worst = max(abs(A @ x[:, d])[inner].max() for d in range(dim))
        if worst > 1e-12 * scale:
            fail(f"|A x| on interior dofs {worst:.3g} (|A| {scale:.3g})")
        msg += f", |A x|_interior {worst:.3g} over {inner.sum()} dofs"
    print(msg)


def check_exact(path, expr):
    """A manufactured solution the space holds (a polynomial of degree <= p,
    numpy expression in x, y, z): the Poisson system solved with the exact
    values on the box faces reproduces it at every dof (round-off only).
    On a mixed mesh this fails when cells of different shapes do not share
    their interface dofs (the space is then not conforming)."""
    ex = lambda x, y, z: eval(expr, {"np": np, "x": x, "y": y, "z": z}) + 0 * x
    e, f = solve_error(path, ex)
    err = abs(e).max()
    if not err < 1e-10:
        fail(f"max nodal error {err:.3g} for u = {expr}, expected round-off")
    print(f"u = {expr} reproduced: max nodal error {err:.3g} ({len(e)} dofs)")


def trilinear_volume(path):
    """Volume of an order-1 hexahedral (or quadrilateral) run's mesh from its
    dofs: cell_dofs list each cell's vertices lexicographically; det J of
    the multilinear map integrated by the 2-point Gauss rule (exact)."""
    f = h5py.File(path, "r")
    x = f["dofs/coordinates"][:]
    cells = f["dofs/cell_dofs"][:]
    dim = 3 if cells.shape[1] == 8 else 2
    g = [-1 / np.sqrt(3), 1 / np.sqrt(3)]
    vol = 0.0
    corners = [[(v >> d) & 1 for d in range(dim)] for v in range(2 ** dim)]
    for pt in np.array(np.meshgrid(*[g] * dim)).reshape(dim, -1).T:
        dN = np.zeros((2 ** dim, dim))
        for v, c in enumerate(corners):
            f1 = [(1 + (2 * c[d] - 1) * pt[d]) / 2 for d in range(dim)]
            for d in range(dim):
                dN[v, d] = (2 * c[d] - 1) / 2 * np.prod([f1[e] for e in range(dim) if e != d])
        J = np.einsum("cva,vd->cad", x[cells][:, :, :dim], dN)
        vol += np.abs(np.linalg.det(J)).sum()
    return vol


def check_bp(operator, assembled):
    """The assembled matrix times the operator run's x equals its y (same
    mesh, same dof numbering, same quadrature): round-off only."""
    f, A = load(assembled)
    o = h5py.File(operator, "r")
    xo, xa = o["dofs/coordinates"][:], f["dofs/coordinates"][:]
    if xo.shape != xa.shape or abs(xo - xa).max() > 1e-13:
        fail("the two runs number their dofs differently")
    x, y = o["operator/x"][:], o["operator/y"][:]
    err = abs(A @ x - y).max() / abs(y).max()
    if not err < 1e-12:
        fail(f"|A x - y| / |y| = {err:.3g}")
    print(f"{o.attrs['operator']} apply = assembled A x: relative difference {err:.3g} ({len(x)} dofs)")


if __name__ == "__main__":
    check, *args = sys.argv[1:]
    {"sum": lambda p, w, tol=1e-12: check_sum(p, float(w), float(tol)), "laplacian": check_laplacian,
     "rigid": check_rigid, "convergence": check_convergence, "patch": check_patch,
     "bp": check_bp, "exact": check_exact}[check](*args)
