# PETSc loads what feint writes: MatLoad (object "matrix") gives the CSR
# matrix itself (checked on a nonsymmetric advection matrix), VecLoad
# ("rhs") the load vector; CG with GAMG and the near null space solves the
# manufactured Poisson problem (symmetric Dirichlet lifting) to the same
# solution as a direct solve, with the expected discretisation error; the
# same for elasticity with its rigid body modes.
source "$(dirname "$0")/lib.sh"
export PETSC_DIR=${PETSC_DIR:-$(ls -d /usr/lib/petscdir/petsc*/x86_64-linux-gnu-real 2>/dev/null | head -1)}
write_case p.yaml <<EOF
mesh: {file: $(geo cube.geo), size: 0.1}
space: {order: 1}
physics: {kind: poisson, source: "3*pi^2*sin(pi*x)*sin(pi*y)*sin(pi*z)"}
boundary: [{group: boundary, dirichlet: 0}]
assembly: {dirichlet: symmetric}
output: {near_null_space: true}
EOF
"$FEINT" run --quiet "$WORK/p.yaml" -o "$WORK/p.h5"
write_case a.yaml <<EOF
mesh: {file: $(geo square.geo), size: 0.2}
physics: {kind: advection, velocity: [1, "x"]}
EOF
"$FEINT" run --quiet "$WORK/a.yaml" -o "$WORK/a.h5"
write_case e.yaml <<EOF
mesh: {file: $(geo cube.geo), size: 0.15}
physics: {kind: elasticity, E: 1, nu: 0.3, source: [0, 0, -1]}
boundary: [{group: left, dirichlet: [0, 0, 0]}]
assembly: {dirichlet: symmetric}
output: {near_null_space: true}
EOF
"$FEINT" run --quiet "$WORK/e.yaml" -o "$WORK/e.h5"
$PY - "$WORK" <<'EOF'
import sys
import petsc4py
petsc4py.init([])
from petsc4py import PETSc
import h5py, numpy as np, scipy.sparse as sp, scipy.sparse.linalg as spla

w = sys.argv[1]

def petsc_load(path):
    v = PETSc.Viewer().createHDF5(path, "r")
    A = PETSc.Mat().create(); A.setName("matrix"); A.setType("aij"); A.load(v)
    b = PETSc.Vec().create(); b.setName("rhs"); b.load(v)
    return A, b

def scipy_load(path):
    f = h5py.File(path); g = f["matrix"]; n = int(g.attrs["shape"][0])
    return f, sp.csr_matrix((g["data"][:], g["indices"][:], g["indptr"][:]), shape=(n, n))

# the nonsymmetric matrix comes back as itself, not its transpose
A, _ = petsc_load(f"{w}/a.h5")
_, B = scipy_load(f"{w}/a.h5")
ai, aj, av = A.getValuesCSR()
C = sp.csr_matrix((av, aj, ai), shape=B.shape)
assert abs(C - B).max() == 0 and abs(B - B.T).max() > 0, "MatLoad must give the CSR matrix"
print("MatLoad of a nonsymmetric matrix: identical to the CSR arrays")

def solve(path, rtol):
    A, b = petsc_load(path)
    f, B = scipy_load(path)
    Z = f["near_null_space"][:]
    vecs = []
    for z in Z:
        v = A.createVecLeft(); v.setArray(z); vecs.append(v)
    A.setNearNullSpace(PETSc.NullSpace().create(vectors=vecs))
    ksp = PETSc.KSP().create(); ksp.setOperators(A); ksp.setType("cg")
    ksp.getPC().setType("gamg"); ksp.setTolerances(rtol=rtol, max_it=500)
    x = A.createVecRight(); ksp.solve(b, x)
    assert ksp.getConvergedReason() > 0, f"CG/GAMG did not converge: {ksp.getConvergedReason()}"
    direct = spla.spsolve(B.tocsc(), f["rhs"][:])
    d = np.linalg.norm(x.getArray() - direct) / np.linalg.norm(direct)
    print(f"{path.split('/')[-1]}: CG+GAMG {ksp.getIterationNumber()} iterations, vs direct solve {d:.1e}")
    assert d < 1e-7
    return f, x.getArray()

f, u = solve(f"{w}/p.h5", 1e-10)
X = f["dofs/coordinates"][:]
exact = np.sin(np.pi * X[:, 0]) * np.sin(np.pi * X[:, 1]) * np.sin(np.pi * X[:, 2])
err = np.abs(u - exact).max()
print(f"Poisson: max nodal error {err:.2e}")
assert err < 0.05
solve(f"{w}/e.h5", 1e-10)
EOF
# a sweep member whose pattern is an external link into the first member's file loads as a whole matrix
write_case sw.yaml <<EOF
mesh: {file: $(geo square.geo), size: 0.2}
physics: {kind: poisson, kappa: 1}
sweep: {product: {physics.kappa: [1, 2]}, output: "$WORK/sw-{index}.h5"}
EOF
"$FEINT" run --quiet "$WORK/sw.yaml"
$PY - "$WORK/sw-1.h5" <<'EOF'
import sys, h5py, numpy as np
from petsc4py import PETSc
f = h5py.File(sys.argv[1])
assert isinstance(f.get("matrix/indices", getlink=True), h5py.ExternalLink), "the member's pattern is not linked"
A = PETSc.Mat().create(); A.setName("matrix"); A.setType("aij"); A.load(PETSc.Viewer().createHDF5(sys.argv[1], "r"))
ai, aj, av = A.getValuesCSR()
g = f["matrix"]
assert np.array_equal(ai, g["indptr"][:]) and np.array_equal(aj, g["indices"][:]) and np.array_equal(av, g["data"][:])
print("PETSc MatLoad reads a sweep member through its external links")
EOF
