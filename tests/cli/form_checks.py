"""User forms (physics kind form) driven from Python: the Jacobian against
finite differences of the residual, derived blocks against hand-written
ones, and a Newton solve calling `feint run` per iteration.

  form_checks.py fd FEINT WORK GEO SIZE ORDER
  form_checks.py newton FEINT WORK GEO SIZE ORDER LEVELS (the mesh refined 0 .. LEVELS-1 times)
  form_checks.py bitwise BUILTIN.h5 FORM.h5 LABEL (a form against the built-in kind: the bytes)
  form_checks.py rhs BUILTIN.h5 FORM.h5 LABEL (the load vectors to 1e-13, relative)
"""
import subprocess
import sys

import h5py
import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla


def run(feint, case, out, *sets):
    args = [feint, "run", "--quiet", case, "-o", out]
    for s in sets:
        args += ["--set", s]
    subprocess.run(args, check=True)


def matrix(f):
    g = f["matrix"]
    n = int(g.attrs["shape"][0])
    return sp.csr_matrix((g["data"][:], g["indices"][:], g["indptr"][:]), shape=(n, n))


def write_case(path, mesh, order, physics, state, extra="", nc=1):
    with open(path, "w") as f:
        f.write(f"mesh: {mesh}\nspace: {{order: {order}, components: {nc}}}\nphysics:\n{physics}\n"
                f"state: {{u: {state}}}\n"
                f"output: {{residual: true, matrix: true, rhs: false}}\n{extra}")


# (name, components, physics keys with derived Jacobians, the hand-written blocks or None)
def forms(dim):
    g = "u_x u_y u_z".split()[:dim]
    grad2 = " + ".join(f"{d}^2" for d in g)
    diag = lambda v: "[" + ", ".join("[" + ", ".join(v if i == j else "0" for j in range(dim)) + "]"
                                     for i in range(dim)) + "]"
    k = "(k0 + beta*u^2)"
    plap = [[f"sqrt({grad2})" + (f" + {a}^2/sqrt({grad2})" if a == b else f" + {a}*{b}/sqrt({grad2})")
             if a == b else f"{a}*{b}/sqrt({grad2})" for b in g] for a in g]
    # two components coupled through k(|u|^2) and a reaction u1 e^u0 (a
    # vector field's blocks are derived only)
    k2 = "(1 + u0^2 + 0.5*u1^2)"
    vec = ("  kind: form\n  f0: [\"u1*exp(u0) - 1\", \"-u0*u1\"]\n  f1: [" +
           ", ".join("[" + ", ".join(f"\"{k2}*u{c}_{d[-1]}\"" for d in g) + "]" for c in range(2)) + "]\n")
    return [
        ("two components, k(|u|^2) and u1 e^u0", 2, vec, None),
        ("k(u) = k0 + beta u^2", 1,
         "  kind: form\n  parameters: {k0: 1.0, beta: 2.0}\n  coefficients: {f: \"sin(pi*x)*y\"}\n"
         f"  f0: \"-f\"\n  f1: [{', '.join(f'{k}*{d}' for d in g)}]\n",
         f"  g2: [{', '.join(f'2*beta*u*{d}' for d in g)}]\n  g3: {diag(k)}\n"),
        ("Bratu, lambda e^u", 1,
         "  kind: form\n  parameters: {lam: 2.0}\n"
         f"  f0: \"-lam*exp(u)\"\n  f1: [{', '.join(g)}]\n",
         f"  g0: \"-lam*exp(u)\"\n  g3: {diag('1')}\n"),
        ("p-Laplacian, p = 3", 1,
         f"  kind: form\n  f0: \"-1\"\n  f1: [{', '.join(f'sqrt({grad2})*{d}' for d in g)}]\n",
         "  g3: [" + ", ".join("[" + ", ".join(f'"{e}"' for e in row) + "]" for row in plap) + "]\n"),
    ]


def fd(feint, work, geo, size, order):
    dim = 3 if "cube" in geo else 2
    mesh = f"{{file: {geo}, size: {size}}}"
    hs = [0.1, 0.05, 0.025, 0.0125]
    rng = np.random.default_rng(1)
    for name, nc, physics, hand in forms(dim):
        # a first run for the dofs' coordinates
        write_case(f"{work}/fd.yaml", mesh, order, physics, "[" + ", ".join(["0"] * nc) + "]", nc=nc)
        run(feint, f"{work}/fd.yaml", f"{work}/fd0.h5")
        with h5py.File(f"{work}/fd0.h5") as f:
            X, n = f["dofs/coordinates"][:], f["residual"].shape[0]
        X = X[::nc]  # one point per scalar dof (the dofs' components are interleaved)
        u0 = np.concatenate([[0.5 + X[:, 0] + 2 * X[:, 1] + 0.3 * np.sin(3 * X[:, 0] * X[:, 1])],
                             [0.2 - X[:, 0] * X[:, 1] + np.cos(X[:, 0])]][:nc]).T.ravel()
        v = rng.uniform(-1, 1, n)

        def state(name):  # state.u of the interleaved vector `name` in states.h5
            items = [f"{{file: {work}/states.h5, dataset: /{name}_{c}, on: node}}" for c in range(nc)]
            return items[0] if nc == 1 else "[" + ", ".join(items) + "]"
        with h5py.File(f"{work}/states.h5", "w") as f:
            vectors = {"u0": u0}
            for i, h in enumerate(hs):
                vectors[f"p{i}"], vectors[f"m{i}"] = u0 + h * v, u0 - h * v
            for key, w in vectors.items():
                for c in range(nc):
                    f[f"{key}_{c}"] = w[c::nc]
        members = ", ".join(f"{{state.u: {state(f'{s}{i}')}}}" for i in range(len(hs)) for s in "pm")
        write_case(f"{work}/fd.yaml", mesh, order, physics, state("u0"), f"sweep: {{list: [{{}}, {members}]}}\n", nc)
        run(feint, f"{work}/fd.yaml", f"{work}/fd.h5")
        with h5py.File(f"{work}/fd-0.h5") as f:
            r0, J = f["residual"][:], matrix(f)
        Jv = J @ v
        central, forward = [], []
        for i, h in enumerate(hs):
            with h5py.File(f"{work}/fd-{2 * i + 1}.h5") as f:
                rp = f["residual"][:]
            with h5py.File(f"{work}/fd-{2 * i + 2}.h5") as f:
                rm = f["residual"][:]
            central.append(np.linalg.norm((rp - rm) / (2 * h) - Jv) / np.linalg.norm(Jv))
            forward.append(np.linalg.norm((rp - r0) / h - Jv) / np.linalg.norm(Jv))
        sc = [np.log2(central[i] / central[i + 1]) for i in range(len(hs) - 1)]
        sf = [np.log2(forward[i] / forward[i + 1]) for i in range(len(hs) - 1)]
        print(f"{name} (P{order}, {n} dofs): h = {hs}")
        print("  central FD error " + " ".join(f"{e:.3e}" for e in central) + "  slopes " +
              " ".join(f"{s:.2f}" for s in sc))
        print("  forward FD error " + " ".join(f"{e:.3e}" for e in forward) + "  slopes " +
              " ".join(f"{s:.2f}" for s in sf))
        assert all(1.8 < s < 2.3 for s in sc), f"{name}: central differences converge at {sc}, not O(h^2)"
        assert all(0.85 < s < 1.2 for s in sf), f"{name}: forward differences converge at {sf}, not O(h)"
        if hand is None:
            continue
        # the hand-written blocks: the same matrix (the programs differ in their order of operations)
        write_case(f"{work}/hand.yaml", mesh, order, physics + hand, state("u0"))
        run(feint, f"{work}/hand.yaml", f"{work}/hand.h5")
        with h5py.File(f"{work}/hand.h5") as f:
            H = matrix(f)
        d = abs(H - J).max() / abs(J).max()
        print(f"  derived against hand-written g0..g3: relative difference {d:.2g}")
        assert d < 1e-14, f"{name}: derived and hand-written Jacobians differ by {d:.3g}"


def newton(feint, work, geo, size, order, levels):
    """-div((k0 + beta u^2) grad u) = f on the unit square, u = sin(pi x)
    sin(pi y) (0 on the boundary), f written in f0 over x, y; Newton from
    u = 0, one `feint run --set state.u=...` per iteration."""
    s = "(sin(pi*x)*sin(pi*y))"
    grad2 = "((cos(pi*x)*sin(pi*y))^2 + (sin(pi*x)*cos(pi*y))^2)"
    f = f"(k0 + beta*{s}^2)*2*pi^2*{s} - 2*beta*{s}*pi^2*{grad2}"
    physics = ("  kind: form\n  parameters: {k0: 1.0, beta: 4.0}\n"
               f"  f0: \"-({f})\"\n  f1: [\"(k0 + beta*u^2)*u_x\", \"(k0 + beta*u^2)*u_y\"]\n")
    errors = []
    for level in range(levels):
        write_case(f"{work}/newton.yaml", f"{{file: {geo}, size: {size}, refine: {level}}}", order, physics, 0,
                   "boundary:\n  - {group: boundary, dirichlet: 0}\n")
        u, history = None, []
        for it in range(12):
            sets = []
            if u is not None:
                with h5py.File(f"{work}/u.h5", "w") as g:
                    g["u"] = u
                sets = [f"state.u={{file: {work}/u.h5, dataset: /u, on: node}}"]
            run(feint, f"{work}/newton.yaml", f"{work}/newton.h5", *sets)
            with h5py.File(f"{work}/newton.h5") as g:
                F, J, X = g["residual"][:], matrix(g), g["dofs/coordinates"][:]
            history.append(np.linalg.norm(F))
            if history[-1] < 1e-11 * max(history[0], 1):
                break
            du = spla.spsolve(J.tocsc(), -F)
            u = du if u is None else u + du
        exact = np.sin(np.pi * X[:, 0]) * np.sin(np.pi * X[:, 1])
        err = np.abs(u - exact).max()
        errors.append(err)
        print(f"P{order}, size {size} refined {level} times, {len(F)} dofs: Newton |F| = " +
              " ".join(f"{r:.2e}" for r in history) + f"; max nodal error {err:.3e}")
        assert history[-1] < 1e-11 * max(history[0], 1), "Newton did not converge in 12 iterations"
        # quadratic: in the basin |F_k+1| <= C |F_k|^2 with C of order one (a
        # linear rate would make C grow as |F_k| falls); the last steps
        q = [history[k + 1] / history[k] ** 2 for k in range(len(history) - 1) if history[k] < 0.2]
        print("  |F_k+1| / |F_k|^2 = " + " ".join(f"{r:.3f}" for r in q))
        assert len(q) >= 2 and max(q) < 1, f"not quadratic: {q}"
    if len(errors) > 1:
        slopes = [np.log2(errors[i] / errors[i + 1]) for i in range(len(errors) - 1)]
        print(f"discretisation: max nodal error slopes " + " ".join(f"{s:.2f}" for s in slopes) +
              f" (P{order}: {order + 1} expected)")
        assert slopes[-1] > order + 1 - 0.3, f"the discrete solution converges at {slopes}"


def bitwise(a, b, label):
    """Residual, load, element matrices and CSR matrix bitwise equal (the
    bytes, so -0 and 0 differ too), none zero: nothing compared."""
    a, b = h5py.File(a), h5py.File(b)
    for n in ("residual", "rhs", "element_matrices", "matrix/data", "matrix/indices", "matrix/indptr"):
        x, y = a[n][:], b[n][:]
        assert x.shape == y.shape and x.tobytes() == y.tobytes(), \
            f"{label}: {n}: kind form differs from the built-in kind by {np.abs(x - y).max():.3g}"
        assert n.startswith("matrix/ind") or np.linalg.norm(x) > 0, f"{label}: {n} is zero: nothing compared"
    print(f"ok: {label}: the form equals the built-in kind bitwise ({a['residual'].shape[0]} dofs)")


def rhs(a, b, label):
    x, y = h5py.File(a)["rhs"][:], h5py.File(b)["rhs"][:]
    d = np.abs(x - y).max() / np.abs(x).max()
    assert d < 1e-13, f"{label}: the loads differ by {d:.3g}"
    print(f"ok: {label}: the loads agree, relative difference {d:.2g}")


def main():
    if sys.argv[1] in ("bitwise", "rhs"):
        (bitwise if sys.argv[1] == "bitwise" else rhs)(*sys.argv[2:5])
        return
    what, feint, work, geo, size, order = sys.argv[1:7]
    if what == "fd":
        fd(feint, work, geo, float(size), int(order))
    else:
        newton(feint, work, geo, float(size), int(order), int(sys.argv[7]))


if __name__ == "__main__":
    main()
