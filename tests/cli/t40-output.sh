# The output file: layout, MATLAB/PETSc names, provenance with overrides,
# relations between results (matrix = sum of element matrices, residual =
# A u - b), hashes, the MAT-file header, the case read from stdin.
source "$(dirname "$0")/lib.sh"
for spec in "square.geo 2 0.2 1" "cube.geo 1 0.4 1" "square.geo 1 0.3 2"; do
  set -- $spec
  kind=helmholtz; [ "$4" = 2 ] && kind=elasticity
  write_case o.yaml <<EOF
mesh: {file: $(geo $1), size: $3}
space: {order: $2}
physics: {kind: $kind, kappa: "1 + x*y", lambda: 2, E: 3, nu: 0.25, source: $( [ "$4" = 2 ] && echo '["x", "y"]' || echo '"x - y"')}
state: {u: $( [ "$4" = 2 ] && echo '["x*y", "x - y"]' || echo '"x*x + y"')}
output: {element_matrices: true}
EOF
  "$FEINT" run --quiet "$WORK/o.yaml" -o "$WORK/o.h5"
  if [ "$4" = 2 ]; then
    # interleaved components: u_c at dof i*2+c
    $PY "$ROOT/tests/cli/output_checks.py" "$WORK/o.h5" "np.where(np.arange(len(x)) % 2 == 0, x*y, x - y)"
  else
    $PY "$ROOT/tests/cli/output_checks.py" "$WORK/o.h5" "x*x + y"
  fi
done
# provenance: the case as run carries the override; hashes match the files
"$FEINT" run --quiet "$WORK/o.yaml" -o "$WORK/o.h5" --set physics.lambda=7
$PY - "$WORK/o.h5" "$WORK/o.yaml" <<'EOF'
import hashlib, sys, h5py, yaml
f = h5py.File(sys.argv[1])
case = yaml.safe_load(f.attrs["case"])
assert case["physics"]["lambda"] == 7, case
assert f.attrs["case_sha256"] == hashlib.sha256(open(sys.argv[2], "rb").read()).hexdigest()
assert f.attrs["mesh_sha256"] == hashlib.sha256(open(f.attrs["mesh_file"], "rb").read()).hexdigest()
assert f.attrs["backend"] == "cpu" and f.attrs["precision"] == "double"
print("provenance ok")
EOF
head -c 19 "$WORK/o.h5" | grep -q "MATLAB 7.3 MAT-file" || fail "no MAT-file header"
# a MATLAB reader (libmatio; no MATLAB here) loads the sparse matrix and a vector as SciPy does
cc -O2 -o "$WORK/matio_read" "$ROOT/tests/cli/matio_read.c" -lmatio || fail "cannot build the libmatio reader"
"$WORK/matio_read" "$WORK/o.h5" matrix > "$WORK/matrix.txt" || fail "libmatio cannot read the matrix"
"$WORK/matio_read" "$WORK/o.h5" rhs > "$WORK/rhs.txt" || fail "libmatio cannot read the rhs"
$PY - "$WORK/o.h5" "$WORK/matrix.txt" "$WORK/rhs.txt" <<'EOF'
import sys, h5py, numpy as np, scipy.sparse as sp
f = h5py.File(sys.argv[1])
g = f["matrix"]
A = sp.csr_matrix((g["data"][:], g["indices"][:], g["indptr"][:]), shape=tuple(g.attrs["shape"]))
lines = open(sys.argv[2]).read().split("\n")
head = lines[0].split()
assert head[0] == "sparse" and (int(head[1]), int(head[2]), int(head[3])) == (A.shape[0], A.shape[1], A.nnz), head
t = np.array([[float(v) for v in l.split()] for l in lines[1:] if l])
M = sp.coo_matrix((t[:, 2], (t[:, 0].astype(int), t[:, 1].astype(int))), shape=A.shape)
# MATLAB reads the CSR arrays as CSC: the transpose
assert abs(M - A.T).max() == 0, "libmatio's matrix differs"
rhs = np.array([float(v) for v in open(sys.argv[3]).read().split()[2:]])
assert np.array_equal(rhs, f["rhs"][:]), "libmatio's rhs differs"
print(f"libmatio reads the sparse matrix ({A.nnz} nonzeros) and the rhs")
EOF
h5dump -H "$WORK/o.h5" > /dev/null || fail "h5dump cannot read the file"
# the case on standard input
"$FEINT" run --quiet - -o "$WORK/stdin.h5" < "$WORK/o.yaml" && [ -s "$WORK/stdin.h5" ] || fail "case from stdin"
echo ok
# a cold run and a warm one (feint bench repeats every compute phase and
# writes the last) give the same numbers, bitwise
"$FEINT" run --quiet "$WORK/o.yaml" -o "$WORK/cold.h5"
"$FEINT" bench --quiet "$WORK/o.yaml" -o "$WORK/warm.h5" --repeat 3 > /dev/null
$PY - "$WORK/cold.h5" "$WORK/warm.h5" <<'EOF'
import sys, h5py, numpy as np
a, b = h5py.File(sys.argv[1]), h5py.File(sys.argv[2])
for n in ["matrix/data", "matrix/indices", "rhs", "residual", "element_matrices"]:
    assert np.array_equal(a[n][:], b[n][:]), f"{n}: the warm run differs from the cold one"
print("cold and warm runs agree bitwise")
EOF
