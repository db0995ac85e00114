"""Independent checks of feint's Robin terms (SciPy/h5py only).

Usage: robin_checks.py CHECK args...; exits non-zero with a message when a
check fails. Reads the output files as a user would (helpers shared with
bc_checks.py)."""
import sys

import h5py
import numpy as np

from bc_checks import fail, load, rate, solve


def robin_exact(X, Y):
    return np.sin(np.pi * X) * np.sin(np.pi * Y) + X


def check_sum(with_robin, without, want_matrix, want_rhs):
    """The Robin part of the matrix (difference of two runs) sums to
    int alpha over the group, the Robin load to int alpha G; it is
    symmetric and lives on the group's dofs only (same pattern)."""
    f1, A1 = load(with_robin)
    f0, A0 = load(without)
    if not (np.array_equal(A1.indptr, A0.indptr) and np.array_equal(A1.indices, A0.indices)):
        fail("Robin changed the matrix pattern")
    R = A1 - A0
    s = R.sum()
    if abs(s - float(want_matrix)) > 1e-12 * max(1, abs(float(want_matrix))):
        fail(f"Robin matrix sums to {s!r}, expected {want_matrix}")
    if abs(R - R.T).max() > 1e-15:
        fail("Robin matrix not symmetric")
    x = f1["dofs/coordinates"][:]
    rows = np.unique(R.tocoo().row[R.tocoo().data != 0])
    if not (np.abs(x[rows, 0]) < 1e-12).all():
        fail("Robin matrix entries off the group 'left' (x = 0)")
    b = f1["rhs"][:] - f0["rhs"][:]
    if abs(b.sum() - float(want_rhs)) > 1e-12 * max(1, abs(float(want_rhs))):
        fail(f"Robin load sums to {b.sum()!r}, expected {want_rhs}")
    print(f"Robin matrix sum {s:.15g} (expected {want_matrix}), load sum {b.sum():.15g} (expected {want_rhs})")


def check_converge(order, *pairs):
    """Each pair robin.h5,mass.h5: Poisson with Robin data on every side
    (from the exact solution), solved directly, converges at order p+1;
    the residual at the interpolated exact state is small and consistent
    with F = A u - b."""
    order = int(order)
    errs, hs = [], []
    for pair in pairs:
        p, m = pair.split(",")
        f, A, u = solve(p)
        _, M = load(m)
        if len(f["boundary/dirichlet_dofs"]) != 0:
            fail("Robin only: constrained dofs present")
        if abs(A - A.T).max() > 1e-13 * abs(A).max():
            fail("Robin matrix not symmetric")
        x = f["dofs/coordinates"][:]
        ue = robin_exact(x[:, 0], x[:, 1])
        F = f["residual"][:]  # at state u = exact
        Fr = A @ ue - f["rhs"][:]
        if abs(F - Fr).max() > 1e-10 * max(1, abs(Fr).max()):
            fail(f"residual differs from A u - b by {abs(F - Fr).max()}")
        e = u - ue
        errs.append(np.sqrt(e @ (M @ e)))
        hs.append(f.attrs["n_cells"] ** (-1.0 / 2))
    rates = rate(errs, hs)
    print("Robin: L2 errors", " ".join(f"{e:.3e}" for e in errs), "rates", " ".join(f"{r:.2f}" for r in rates))
    if rates[-1] < order + 1 - 0.3:
        fail(f"L2 rate {rates[-1]:.2f}, expected {order + 1}")


def check_modes(rows, symmetric):
    """Dirichlet + Robin: rows and symmetric elimination give the same
    solution; the symmetric matrix is symmetric."""
    f, A, u = solve(rows)
    fs, As, us = solve(symmetric)
    if abs(As - As.T).max() > 1e-13 * abs(As).max():
        fail("symmetric variant with Robin not symmetric")
    du = abs(u - us).max() / abs(u).max()
    if du > 1e-10:
        fail(f"rows and symmetric solutions differ by {du}")
    x = f["dofs/coordinates"][:]
    e = abs(u - robin_exact(x[:, 0], x[:, 1])).max()
    if e > 0.05:
        fail(f"Dirichlet + Robin solution off the exact one by {e}")
    print(f"rows/symmetric agree ({du:.1e}), max error {e:.2e}")


def check_blocks(with_robin, without, length, alpha, value):
    """Vector Robin (alpha a matrix K per component pair, G per component):
    the (c, d) component block of the Robin matrix sums to K_cd |group|, the
    load of component c to sum_d K_cd G_d |group| (constants), and the
    blocks of the pairs K_cd = 0 are empty. alpha and value: numbers
    separated by commas, K row-major."""
    f1, A1 = load(with_robin)
    f0, A0 = load(without)
    comp = f1["dofs/component"][:]
    nc = int(comp.max()) + 1
    K = np.array([float(a) for a in alpha.split(",")]).reshape(nc, nc)
    G = np.array([float(g) for g in value.split(",")])
    L = float(length)
    R = (A1 - A0).tocoo()
    b = f1["rhs"][:] - f0["rhs"][:]
    for c in range(nc):
        for d in range(nc):
            m = (comp[R.row] == c) & (comp[R.col] == d)
            s = R.data[m].sum()
            if abs(s - K[c, d] * L) > 1e-12 * max(1, abs(K).max()):
                fail(f"Robin block ({c}, {d}) sums to {s!r}, expected {K[c, d] * L}")
            if K[c, d] == 0 and np.abs(R.data[m]).max(initial=0) != 0:
                fail(f"Robin block ({c}, {d}) has entries although alpha_{c}{d} = 0")
        want = (K[c] @ G) * L
        if abs(b[comp == c].sum() - want) > 1e-12 * max(1, abs(want)):
            fail(f"Robin load of component {c} sums to {b[comp == c].sum()!r}, expected {want}")
    print(f"Robin blocks sum to K |group| and loads to K G |group| (K = {K.tolist()}, G = {G.tolist()})")


def check_patch(path, coefficients, tol=1e-10):
    """Elasticity with a tensor Robin condition on every side and data from
    a linear (or quadratic, for P2) exact displacement: the discrete
    solution reproduces it at every dof (the exact solution is in the
    space). coefficients: the exact u_c as Python expressions in x, y
    separated by ';'."""
    f, A, u = solve(path)
    x = f["dofs/coordinates"][:]
    comp = f["dofs/component"][:]
    exact = np.empty_like(u)
    for c, e in enumerate(coefficients.split(";")):
        X, Y = x[comp == c, 0], x[comp == c, 1]
        exact[comp == c] = eval(e, {"x": X, "y": Y, "np": np}) + 0 * X
    err = abs(u - exact).max()
    if err > tol:
        fail(f"tensor Robin patch test: max error {err:.3e} (tolerance {tol})")
    print(f"tensor Robin patch test: max error {err:.2e} over {len(u)} dofs")


if __name__ == "__main__":
    check, *args = sys.argv[1:]
    {"sum": check_sum, "converge": check_converge, "modes": check_modes, "blocks": check_blocks,
     "patch": check_patch}[check](*args)
