"""Independent checks of feint's boundary conditions (SciPy/h5py only).

Usage: bc_checks.py CHECK args...; exits non-zero with a message when a
check fails. The checks read the output files as a user would and solve
the exported system (solve: the Dirichlet rows, then CG on the rest)."""
import sys

import fe_checks

import h5py
import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def load(path):
    f = h5py.File(path, "r")
    g = f["matrix"]
    n = int(g.attrs["shape"][0])
    A = sp.csr_matrix((g["data"][:], g["indices"][:], g["indptr"][:]), shape=(n, n))
    return f, A


def dim_of(f):
    return 3 if np.ptp(f["dofs/coordinates"][:, 2]) > 0 else 2


def manufactured(X, Y, Z, dim):
    u = np.sin(np.pi * X) * np.sin(np.pi * Y)
    return u * np.sin(np.pi * Z) if dim == 3 else u


def mixed_exact(X, Y, Z):
    return np.sin(2 * X + 0.5) * np.cos(Y + 0.3) + X**2


def mixed_cube_exact(X, Y, Z):
    """cos(pi x / 2) sin(pi y) sin(pi z): on every face of the unit cube but
    x = 0 the outward flux is (2x-1) u_x + (2y-1) u_y + (2z-1) u_z (the
    tangential terms vanish there), one Neumann expression for all."""
    return np.cos(np.pi * X / 2) * np.sin(np.pi * Y) * np.sin(np.pi * Z)


def rate(v, hs):
    return [np.log(v[k] / v[k + 1]) / np.log(hs[k] / hs[k + 1]) for k in range(len(v) - 1)]


def solve(path):
    """The exported system A u = rhs solved. Constrained rows that are
    diagonal (feint's Dirichlet rows) give their dofs' values; the rest is
    the symmetric positive definite block of the free dofs, solved by
    fe_checks.spd_solve (Jacobi CG, a direct solve if it stalls: SuperLU
    took 48 s on the 3D P4 systems here, CG 8 s). Other systems: SuperLU,
    ordered on A + A^T (the structure is symmetric: far less fill than
    COLAMD)."""
    f, A = load(path)
    b = f["rhs"][:]
    D = f["boundary/dirichlet_dofs"][:] if "boundary/dirichlet_dofs" in f else np.zeros(0, np.int64)
    free = np.setdiff1d(np.arange(A.shape[0]), D)
    AD = A[D]
    d = AD[:, D].diagonal()
    if (AD[:, free].count_nonzero() == 0 and (AD[:, D] - sp.diags(d)).count_nonzero() == 0
            and np.all(d != 0)):
        u = np.empty(A.shape[0])
        u[D] = b[D] / d
        AF = A[free]
        u[free] = fe_checks.spd_solve(AF[:, free], b[free] - AF[:, D] @ u[D])
        return f, A, u
    return f, A, spla.spsolve(A.tocsc(), b, permc_spec="MMD_AT_PLUS_A")


def check_dirichlet(order, *triples):
    """Each triple rows.h5,symmetric.h5,mass.h5 on one mesh: the Poisson
    problem with Dirichlet data from feint solved directly converges at
    order p+1; rows and symmetric agree; the symmetric matrix is symmetric;
    the constrained dofs are exactly the dofs on the box faces, with the
    exact values; the residual at the interpolated exact state vanishes on
    the constrained rows."""
    order = int(order)
    errs, hs = [], []
    for t in triples:
        pr, ps, pm = t.split(",")
        f, A, u = solve(pr)
        fs, As, us = solve(ps)
        _, M = load(pm)
        x = f["dofs/coordinates"][:]
        dim = dim_of(f)
        ue = manufactured(x[:, 0], x[:, 1], x[:, 2], dim)
        # constrained dofs = dofs on the boundary of the unit box
        on = np.zeros(len(ue), bool)
        for d in range(dim):
            on |= (np.abs(x[:, d]) < 1e-12) | (np.abs(x[:, d] - 1) < 1e-12)
        dofs = f["boundary/dirichlet_dofs"][:]
        vals = f["boundary/dirichlet_values"][:]
        if f["boundary/dirichlet_dofs"].dtype != np.int64 or f["boundary/dirichlet_values"].dtype != np.float64:
            fail("dataset types")
        if not np.array_equal(dofs, np.flatnonzero(on)):
            fail(f"{pr}: {len(dofs)} constrained dofs, {on.sum()} dofs on the boundary (or not the same)")
        if abs(vals - ue[dofs]).max() > 1e-14:
            fail(f"{pr}: Dirichlet values differ from the expression at the dofs")
        if not np.array_equal(fs["boundary/dirichlet_dofs"][:], dofs):
            fail("rows/symmetric constrained dofs differ")
        # rows: unit rows; symmetric: symmetric, same pattern as rows
        Ad = A[dofs]
        if abs(Ad - sp.csr_matrix((np.ones(len(dofs)), (np.arange(len(dofs)), dofs)), shape=Ad.shape)).max() != 0:
            fail("constrained rows are not unit rows")
        if not (np.array_equal(A.indptr, As.indptr) and np.array_equal(A.indices, As.indices)):
            fail("rows and symmetric patterns differ")
        asym = abs(As - As.T).max() / abs(As).max()
        if asym > 1e-14:
            fail(f"symmetric variant: asymmetry {asym}")
        if abs(A - A.T).max() == 0:
            fail("rows variant unexpectedly symmetric")
        du = abs(u - us).max() / abs(u).max()
        if du > 1e-10:
            fail(f"rows and symmetric solutions differ by {du}")
        F = f["residual"][:]
        if abs(F[dofs]).max() > 1e-14:
            fail("residual at the exact state nonzero on constrained rows")
        e = u - ue
        errs.append(np.sqrt(e @ (M @ e)))
        hs.append(f.attrs["n_cells"] ** (-1.0 / dim))
    rates = rate(errs, hs)
    print("Dirichlet: L2 errors", " ".join(f"{e:.3e}" for e in errs), "rates", " ".join(f"{r:.2f}" for r in rates))
    if rates[-1] < order + 1 - 0.3:
        fail(f"L2 rate {rates[-1]:.2f}, expected {order + 1}")


def check_mixed(exact, order, *pairs):
    """Each pair mixed.h5,mass.h5: Dirichlet on 'left', exact Neumann flux
    on the other sides; converges at order p+1 to exact(X, Y, Z)."""
    order = int(order)
    errs, hs = [], []
    for pair in pairs:
        p, m = pair.split(",")
        f, A, u = solve(p)
        _, M = load(m)
        x = f["dofs/coordinates"][:]
        ue = exact(x[:, 0], x[:, 1], x[:, 2])
        e = u - ue
        errs.append(np.sqrt(e @ (M @ e)))
        hs.append(f.attrs["n_cells"] ** (-1.0 / dim_of(f)))
        left = np.flatnonzero(np.abs(x[:, 0]) < 1e-12)
        if not np.array_equal(f["boundary/dirichlet_dofs"][:], left):
            fail("mixed: constrained dofs are not the dofs on x = 0")
    rates = rate(errs, hs)
    print("mixed: L2 errors", " ".join(f"{e:.3e}" for e in errs), "rates", " ".join(f"{r:.2f}" for r in rates))
    if rates[-1] < order + 1 - 0.3:
        fail(f"L2 rate {rates[-1]:.2f}, expected {order + 1}")


def check_flux(path, *wants):
    """Sum of the rhs (per component) equals the exact boundary integral."""
    f = h5py.File(path, "r")
    b = f["rhs"][:]
    comp = f["dofs/component"][:]
    if len(f["boundary/dirichlet_dofs"]) != 0:
        fail("Neumann only: constrained dofs present")
    for c, w in enumerate(wants):
        s = b[comp == c].sum()
        if abs(s - float(w)) > 1e-12 * max(1, abs(float(w))):
            fail(f"{path}: component {c}: rhs sums to {s!r}, expected {w}")
        print(f"flux component {c}: {s:.15g} (expected {w})")


def check_cube_moment(path, group, g, u):
    """The Neumann load b of the constant g on group 'boundary' (the six
    faces of the unit cube) or 'left' (x = 0) against the interpolant of
    the polynomial u (exact in the facet space) equals g int u over the
    group (tensor Gauss rule per face): fails when a facet's dofs are read
    in the wrong orientation or from the wrong cell."""
    f = h5py.File(path, "r")
    b, x = f["rhs"][:], f["dofs/coordinates"][:]
    fu = lambda X, Y, Z: eval(u, {"x": X, "y": Y, "z": Z, "np": np}) + 0 * X
    t, w = np.polynomial.legendre.leggauss(8)
    S, T = np.meshgrid(0.5 * (t + 1), 0.5 * (t + 1), indexing="ij")
    W = np.outer(0.5 * w, 0.5 * w)
    faces = [(0, 0.0)] if group == "left" else [(d, c) for d in range(3) for c in (0.0, 1.0)]
    want = 0.0
    for d, c in faces:
        P = [S, T]
        P.insert(d, np.full_like(S, c))
        want += float(g) * (W * fu(*P)).sum()
    got = b @ fu(x[:, 0], x[:, 1], x[:, 2])
    if abs(got - want) > 1e-11 * max(1, abs(want)):
        fail(f"{path}: load . ({u}) on {group} is {got!r}, expected {want!r}")
    print(f"load . ({u}) on {group}: {got:.15g} (expected {want:.15g})")


def check_components(path, free_component):
    """A list with a null item: that component stays free."""
    f = h5py.File(path, "r")
    comp = f["dofs/component"][:]
    dofs = f["boundary/dirichlet_dofs"][:]
    fc = int(free_component)
    if len(dofs) == 0 or (comp[dofs] == fc).any():
        fail(f"component {fc} constrained (or nothing constrained)")
    x = f["dofs/coordinates"][:]
    nc = int(comp.max()) + 1
    left = np.flatnonzero((np.abs(x[:, 0]) < 1e-12) & (comp != fc))
    if not np.array_equal(dofs, left):
        fail("constrained dofs are not the other components on x = 0")
    print(f"{len(dofs)} constrained dofs, component {fc} of {nc} free")


if __name__ == "__main__":
    check, *args = sys.argv[1:]
    {"dirichlet": check_dirichlet, "mixed": lambda *a: check_mixed(mixed_exact, *a),
     "mixed-cube": lambda *a: check_mixed(mixed_cube_exact, *a), "flux": check_flux,
     "components": check_components, "cube-moment": check_cube_moment}[check](*args)
