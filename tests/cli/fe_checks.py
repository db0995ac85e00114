"""Independent checks of feint's HDF5 output (SciPy/h5py only).

Usage: fe_checks.py CHECK FILE [args] (sum FILE WANT [TOL]) [+ CHECK FILE [args] ...]; exits non-zero
with a message when a check fails. The checks read the file exactly as a user would; several checks
joined by "+" run in one process and read each matrix once."""
import functools
import os
import sys

import h5py
import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla


@functools.lru_cache(maxsize=None)
def load(path):
    f = h5py.File(path, "r")
    g = f["matrix"]
    n = int(g.attrs["shape"][0])
    A = sp.csr_matrix((g["data"][:], g["indices"][:], g["indptr"][:]), shape=(n, n))
    return f, A


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def rates(hs, errs):
    """Convergence rates between successive mesh sizes hs."""
    return [np.log(errs[k] / errs[k + 1]) / np.log(hs[k] / hs[k + 1]) for k in range(len(hs) - 1)]


def rate_in_band(label, hs, errs, lo, hi):
    """Prints label with the errors and rates, ok or BAD; True when the mean rate lies in [lo, hi]."""
    r = rates(hs, errs)
    good = bool(lo <= sum(r) / len(r) <= hi)
    print(f"{'ok' if good else 'BAD'} {label}: errors " + ", ".join(f"{e:.2e}" for e in errs) + " rates " +
          ", ".join(f"{x:.2f}" for x in r))
    return good


def disc_l2_error(solution, mass):
    """The L2 error (through mass's matrix) of u = 1 - r^4 against the solution of solution's exported
    matrix and load vector (the curved tests' manufactured problem on the unit disc)."""
    f, A = load(solution)
    u = spla.spsolve(A.tocsc(), f["rhs"][:])
    X = f["dofs/coordinates"][:]
    e = u - (1 - (X[:, 0] ** 2 + X[:, 1] ** 2) ** 2)
    return float(np.sqrt(abs(e @ (load(mass)[1] @ e))))


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
    # round-off of the sums: a few ulps of |x|^T |A| |x| (high orders cancel
    # large entries), never looser than 1e-12 of the volume
    absA = abs(A)
    mag = max(abs(x[:, d]) @ (absA @ abs(x[:, d])) for d in range(dim))
    if gerr > max(1e-12 * max(1, float(volume)), 4e-16 * mag):
        fail(f"x_d^T A x_e = {G.tolist()}, expected {volume} I (|x|^T |A| |x| {mag:.3g})")
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


def boundary_dofs(f):
    """Dofs on the boundary of a quadrilateral or hexahedral mesh, from the
    topology alone (any domain shape): a cell side (its corner dofs, the
    local nodes lexicographic) that no other cell shares is on the
    boundary, and so are all its dofs."""
    cells = f["dofs/cell_dofs"][:]
    dim = 3 if np.ptp(f["dofs/coordinates"][:, 2]) > 0 else 2
    n = int(round(cells.shape[1] ** (1 / dim)))
    idx = np.arange(cells.shape[1])
    ijk = [idx % n, (idx // n) % n, idx // (n * n)][:dim]
    sides = [ijk[d] == e for d in range(dim) for e in (0, n - 1)]
    corner = np.all([(c == 0) | (c == n - 1) for c in ijk], axis=0)
    count, members = {}, {}
    for cd in cells:
        for side in sides:
            key = tuple(sorted(cd[side & corner]))
            count[key] = count.get(key, 0) + 1
            members[key] = cd[side]
    on = np.zeros(len(f["dofs/coordinates"]), bool)
    for key, c in count.items():
        if c == 1:
            on[members[key]] = True
    return on


def solve_dense_or_sparse(A, b):
    """A u = b, A symmetric positive definite: dense Cholesky up to 6000
    unknowns (high-order systems are ill-conditioned for Jacobi CG),
    SuperLU beyond."""
    if A.shape[0] <= 6000:
        import scipy.linalg
        return scipy.linalg.solve(A.toarray(), b, assume_a="pos")
    return spla.spsolve(A.tocsc(), b)


def gll_points(n):
    """The n Gauss-Lobatto-Legendre points on [-1, 1]: -1, the roots of
    P'_{n-1}, 1."""
    inner = np.polynomial.legendre.Legendre.basis(n - 1).deriv().roots()
    return np.concatenate([[-1.0], np.sort(inner.real), [1.0]])


def lagrange_1d(nodes, t):
    """Values of the Lagrange basis of `nodes` at the points t: len(t) x n."""
    L = np.ones((len(t), len(nodes)))
    for i, xi in enumerate(nodes):
        for j, xj in enumerate(nodes):
            if i != j:
                L[:, i] *= (t - xj) / (xi - xj)
    return L


def off_node_values(f, u, npts=40, seed=1):
    """The discrete field u (dof values) and the physical points at npts
    random reference points per cell of a quadrilateral or hexahedral
    mesh: the GLL tensor basis (local nodes lexicographic) and the
    multilinear map of the cell's corner dofs. Returns (uh, X)."""
    cells = f["dofs/cell_dofs"][:]
    x = f["dofs/coordinates"][:]
    dim = 3 if np.ptp(x[:, 2]) > 0 else 2
    n = int(round(cells.shape[1] ** (1 / dim)))
    nodes = gll_points(n)
    xi = np.random.default_rng(seed).uniform(-1, 1, (npts, dim))
    L = [lagrange_1d(nodes, xi[:, d]) for d in range(dim)]
    # basis i = i0 + n i1 (+ n^2 i2): product of the 1D values
    B = L[0]
    for d in range(1, dim):
        B = (L[d][:, :, None] * B[:, None, :]).reshape(npts, -1)
    corners = [sum(((v >> d) & 1) * (n - 1) * n ** d for d in range(dim)) for v in range(2 ** dim)]
    N = np.ones((npts, 2 ** dim))
    for v in range(2 ** dim):
        for d in range(dim):
            N[:, v] *= (1 + (2 * ((v >> d) & 1) - 1) * xi[:, d]) / 2
    uh = np.concatenate([B @ u[cd] for cd in cells])
    X = np.concatenate([N @ x[cd[corners]] for cd in cells])
    return uh, X


def check_reproduce(path, expr, want):
    """Solve A u = b on the dofs off the (topological) boundary with u =
    expr (numpy, in x, y, z) on it, then compare the discrete field with
    expr at random points inside every cell (not only at the nodes: with
    GLL nodes a polynomial of degree p + 1 is reproduced at the nodes, the
    Lobatto superconvergence, as it differs from its interpolant by
    multiples of (1 - t^2) P_p'(t) along each direction). want = "exact":
    expr in the space, the field must equal it to round-off; "inexact": it
    must not (the control)."""
    f, A = load(path)
    x = f["dofs/coordinates"][:]
    ev = lambda X: eval(expr, {"np": np, "x": X[:, 0], "y": X[:, 1], "z": X[:, 2]}) + 0 * X[:, 0]
    ue = ev(x)
    bnd = boundary_dofs(f)
    inner = ~bnd
    A = A.tocsr()
    rhs = f["rhs"][:][inner] - A[inner][:, bnd] @ ue[bnd]
    u = ue.copy()
    u[inner] = solve_dense_or_sparse(A[inner][:, inner], rhs)
    scale = abs(ue).max()
    nodal = abs(u - ue).max() / scale
    uh, X = off_node_values(f, u)
    err = abs(uh - ev(X)).max() / scale
    ok = err < 1e-12 and nodal < 1e-12 if want == "exact" else err > 1e-11
    print(f"{want}: relative error {err:.3g} at {len(X)} points inside the cells, {nodal:.3g} at the nodes"
          f" ({inner.sum()} unknowns of {len(u)})")
    if not ok:
        fail(f"relative error {err:.3g} (nodes {nodal:.3g}), expected {'round-off' if want == 'exact' else 'more'}")


def check_dirichlet_solve(path, expr):
    """The system feint wrote with Dirichlet rows (boundary section) holds
    expr at every dof (expr in the space, integrals exact): A u = b to
    round-off (A is nonsingular, so u is its solution)."""
    f, A = load(path)
    x = f["dofs/coordinates"][:]
    ue = eval(expr, {"np": np, "x": x[:, 0], "y": x[:, 1], "z": x[:, 2]}) + 0 * x[:, 0]
    b = f["rhs"][:]
    err = abs(A @ ue - b).max() / (abs(A).max() * abs(ue).max())
    n_dir = len(f["boundary/dirichlet_dofs"])
    print(f"feint's Dirichlet system holds the solution: |A u - b| / (|A| |u|) = {err:.3g} ({len(ue)} dofs,"
          f" {n_dir} constrained)")
    if not err < 1e-13 or n_dir == 0:
        fail(f"|A u - b| / (|A| |u|) = {err:.3g}, {n_dir} constrained dofs")


def check_residual_matvec(path, expr):
    """The residual of a run without load (state u = expr at the dofs)
    equals the assembled matrix times u (same quadrature)."""
    f, A = load(path)
    x = f["dofs/coordinates"][:]
    u = eval(expr, {"np": np, "x": x[:, 0], "y": x[:, 1], "z": x[:, 2]}) + 0 * x[:, 0]
    F = f["residual"][:]
    err = abs(F - A @ u).max() / (abs(A).max() * abs(u).max())
    print(f"residual = A u: relative difference {err:.3g} ({len(u)} dofs)")
    if not err < 1e-13:
        fail(f"|F - A u| / (|A| |u|) = {err:.3g}")


def check_residual_bp(operator, run):
    """The residual of a run (state = the operator run's x, no load)
    equals the BP operator's y = A x."""
    o, f = h5py.File(operator, "r"), h5py.File(run, "r")
    if abs(o["dofs/coordinates"][:] - f["dofs/coordinates"][:]).max() > 1e-13:
        fail("the two runs number their dofs differently")
    y, F = o["operator/y"][:], f["residual"][:]
    err = abs(F - y).max() / abs(y).max()
    print(f"{o.attrs['operator']} apply = residual: relative difference {err:.3g} ({len(y)} dofs)")
    if not err < 1e-12:
        fail(f"|F - y| / |y| = {err:.3g}")


def check_element_matrix(elements, assembled):
    """One-cell mesh: the element matrix scattered by the cell's dofs is
    the CSR matrix."""
    f, A = load(assembled)
    e = h5py.File(elements, "r")
    K, cd = e["element_matrices"][0], e["dofs/cell_dofs"][0]
    B = np.zeros(A.shape)
    B[np.ix_(cd, cd)] = K
    err = abs(B - A.toarray()).max() / abs(K).max()
    print(f"element matrix = CSR matrix on one cell: relative difference {err:.3g} ({K.shape[0]} local dofs)")
    if not err < 1e-15:
        fail(f"difference {err:.3g}")


def check_attrs(path, *pairs):
    """Root attributes KEY=VALUE as written (e.g. which sweep member a file
    holds: order=3 physics=mass)."""
    f = h5py.File(path, "r")
    for kv in pairs:
        k, v = kv.split("=", 1)
        got = f.attrs[k]
        got = got.decode() if isinstance(got, bytes) else str(got)
        if got != v:
            fail(f"attribute {k} is {got}, expected {v}")
    print("attributes", " ".join(pairs))


if __name__ == "__main__":
    checks = {"sum": lambda p, w, tol=1e-12: check_sum(p, float(w), float(tol)), "laplacian": check_laplacian,
              "rigid": check_rigid, "convergence": check_convergence, "patch": check_patch,
              "bp": check_bp, "exact": check_exact, "reproduce": check_reproduce, "dirichlet": check_dirichlet_solve,
              "residual-matvec": check_residual_matvec, "residual-bp": check_residual_bp,
              "element-matrix": check_element_matrix, "attrs": check_attrs}
    groups = [[]]
    for a in sys.argv[1:]:
        if a == "+":
            groups.append([])
        else:
            groups[-1].append(a)
    for check, *args in groups:
        if len(groups) > 1:  # which check of the batch says what follows
            print(f"{check} {os.path.basename(args[0])}: ", end="", flush=True)
        checks[check](*args)
