# Matrices past 2^31 nonzeros / columns: the 64-bit paths (64-bit slots in
# the numeric assembly, 64-bit column indices in the pattern, the boundary
# terms and the writers) run on small problems (a mixed mesh among them) through the test hook
# FEINT_WIDE_INDEX_LIMIT (feint/plan.h), and the files they write equal
# the 32-bit path's exactly: every dataset (values and types) in h5py, the
# Matrix Market text, the matrix PETSc's MatLoad reads; --json reports the
# widths used, so the hook is seen to take effect. The memory limit counts
# the slot map at the width the plan then uses.
source "$(dirname "$0")/lib.sh"
export PETSC_DIR=${PETSC_DIR:-$(ls -d /usr/lib/petscdir/petsc*/x86_64-linux-gnu-real 2>/dev/null | head -1)}
write_case e.yaml <<EOF
mesh: {file: $(geo cube.geo), size: 0.25}
space: {order: 2}
physics: {kind: elasticity, E: "1 + x", nu: 0.3, source: [0, "y", -1]}
state: {u: ["x*y", "z", "x - z"]}
boundary:
  - {group: left, dirichlet: [0, "y", ~]}
  - {group: boundary, robin: {alpha: [[2, 1, 0], [1, 2, 0], [0, 0, 1]], value: [x, 0, y]}}
assembly: {dirichlet: symmetric}
output: {matrix_market: e.mtx, near_null_space: true}
EOF
# p is meshed here, not by feint: FEINT_MEMORY_LIMIT, which the slot map
# check below sets to a few kilobytes, also limits Gmsh's meshing of a .geo
gmsh -2 "$(geo square.geo)" -clmax 0.1 -format msh41 -o "$WORK/p.msh" > /dev/null
write_case p.yaml <<EOF
mesh: {file: $WORK/p.msh}
physics: {kind: advection, velocity: [1, "x"]}
boundary: [{group: left, dirichlet: "y"}, {group: top, neumann: 2}]
output: {matrix_market: p.mtx}
EOF
# a mixed mesh (triangles + quadrilaterals: padded slots of -1 on the
# triangles, feint/plan.h)
write_case x.yaml <<EOF
mesh: {file: $ROOT/tests/data/mixed_square.geo, size: 0.2}
space: {order: 2}
physics: {kind: elasticity, E: "1 + x", nu: 0.3, source: [0, "y"]}
boundary:
  - {group: left, dirichlet: [0, "y"]}
  - {group: bottom, robin: {alpha: 2, value: [x, 0]}}
output: {matrix_market: x.mtx}
EOF
widths() { # case out limit want_index want_slot
  local json
  json=$(FEINT_WIDE_INDEX_LIMIT=$3 "$FEINT" run --quiet --json "$WORK/$1" -o "$WORK/$2.h5")
  grep -q "\"index_bits\": $4, \"slot_bits\": $5" <<<"$json" || fail "$2: expected index_bits $4, slot_bits $5: $json"
  mv "$WORK/${1%.yaml}.mtx" "$WORK/$2.mtx"
}
for c in e p x; do
  "$FEINT" run --quiet --json "$WORK/$c.yaml" -o "$WORK/$c-narrow.h5" | grep -q '"index_bits": 32, "slot_bits": 32' \
    || fail "$c: the default is not 32-bit"
  mv "$WORK/$c.mtx" "$WORK/$c-narrow.mtx"
  n=$($PY -c "import h5py; print(h5py.File('$WORK/$c-narrow.h5')['matrix'].attrs['shape'][0])")
  widths $c.yaml $c-wide 0 64 64          # everything 64-bit
  widths $c.yaml $c-slots "$n" 32 64      # columns fit, nonzeros do not
  for w in wide slots; do
    cmp -s "$WORK/$c-narrow.mtx" "$WORK/$c-$w.mtx" || fail "$c: Matrix Market text differs ($w)"
  done
done
$PY - "$WORK" <<'EOF'
import sys
import h5py, numpy as np, scipy.sparse as sp
import petsc4py
petsc4py.init([])
from petsc4py import PETSc
w = sys.argv[1]

def datasets(path):
    f = h5py.File(path, "r")
    out = {}
    f.visititems(lambda n, o: out.__setitem__(n, o) if isinstance(o, h5py.Dataset) else None)
    return f, out

def petsc_matrix(path):
    v = PETSc.Viewer().createHDF5(path, "r")
    A = PETSc.Mat().create(); A.setName("matrix"); A.setType("aij"); A.load(v)
    ip, ix, d = A.getValuesCSR()
    return sp.csr_matrix((d, ix, ip), shape=A.getSize())

for case in ("e", "p", "x"):
    fn, dn = datasets(f"{w}/{case}-narrow.h5")
    A = petsc_matrix(f"{w}/{case}-narrow.h5")
    g = fn["matrix"]
    S = sp.csr_matrix((g["data"][:], g["indices"][:], g["indptr"][:]), shape=tuple(g.attrs["shape"]))
    if (A != S).nnz:
        sys.exit(f"FAIL {case}: PETSc's matrix differs from the CSR datasets")
    for wide in ("wide", "slots"):
        fw, dw = datasets(f"{w}/{case}-{wide}.h5")
        if dn.keys() != dw.keys():
            sys.exit(f"FAIL {case}-{wide}: datasets {sorted(dn.keys() ^ dw.keys())}")
        for k in dn:
            if dn[k].dtype != dw[k].dtype or not np.array_equal(dn[k][()], dw[k][()]):
                sys.exit(f"FAIL {case}-{wide}: dataset {k} differs from the 32-bit path's")
        for k in ("MATLAB_sparse", "MATLAB_class", "shape"):
            if not np.array_equal(fw["matrix"].attrs[k], g.attrs[k]):
                sys.exit(f"FAIL {case}-{wide}: attribute matrix/{k} differs")
        B = petsc_matrix(f"{w}/{case}-{wide}.h5")
        if (A != B).nnz or A.shape != B.shape:
            sys.exit(f"FAIL {case}-{wide}: PETSc loads a different matrix")
    print(f"{case}: {len(dn)} datasets, {S.nnz} nonzeros: 64-bit index and slot paths write the same file; "
          "PETSc loads the same matrix")
EOF
# the CUDA backend is 32-bit: a 64-bit plan is refused with the limit named
# (only where this feint has CUDA and a GPU; else the usual no-CUDA error)
set +e
msg=$(FEINT_WIDE_INDEX_LIMIT=0 "$FEINT" run --quiet "$WORK/p.yaml" -o "$WORK/g.h5" --backend cuda 2>&1); rc=$?
set -e
[ $rc -eq 2 ] || fail "backend cuda with a 64-bit plan: exit $rc, expected 2 ($msg)"
grep -Eq "32-bit slots and column indices \(at most 0 nonzeros and columns\)|without CUDA|no CUDA device" <<<"$msg" \
  || fail "backend cuda with a 64-bit plan: $msg"
[ ! -e "$WORK/g.h5" ] || fail "backend cuda with a 64-bit plan left an output file"

# the memory check counts the slot map at the width the plan will use:
# under a limit of 6 bytes per entry, 64-bit slots (the hook one below the
# nonzeros) are refused and 32-bit ones (the hook at the nonzeros) pass
nnz=$($PY -c "import h5py; print(h5py.File('$WORK/p-narrow.h5')['matrix/data'].shape[0])")
set +e
msg=$(FEINT_MEMORY_LIMIT=1 "$FEINT" run --quiet "$WORK/p.yaml" -o "$WORK/out.h5" 2>&1)
set -e
entries=$(sed -n 's/.*slot map (cells x local dofs^2) need [0-9]* bytes (\([0-9]*\) x 4).*/\1/p' <<<"$msg")
[ -n "$entries" ] || fail "slot map size not in: $msg"
limit=$((6 * entries))
FEINT_MEMORY_LIMIT=$limit FEINT_WIDE_INDEX_LIMIT=$((nnz - 1)) expect_bad "64-bit slot map over the memory limit" \
  "output.matrix: the CSR pattern's slot map \(cells x local dofs\^2\) need $((8 * entries)) bytes \($entries x 8\), more than the memory limit of $limit bytes" \
  run "$WORK/p.yaml" -o "$WORK/out.h5"
FEINT_MEMORY_LIMIT=$limit FEINT_WIDE_INDEX_LIMIT=$nnz "$FEINT" run --quiet --json "$WORK/p.yaml" -o "$WORK/out.h5" \
  | grep -q '"slot_bits": 32' || fail "32-bit slot map under the memory limit: not run with 32-bit slots"
echo "slot map of $entries entries ($nnz nonzeros) under a limit of $limit bytes: 64-bit refused, 32-bit runs"
echo ok
