# The host's parallel passes (dof numbering, first touch, field sampling,
# index narrowing/widening, the CSR pattern) give the same file whatever
# the number of threads: FEINT_THREADS=1, the default (the cores online)
# and 16 (more ranges than this machine has cores) write bitwise equal
# datasets, P1 and P2, residual, load vector, matrix and dof map.
source "$(dirname "$0")/lib.sh"
"${BUILD:-$ROOT/build}/bench/gen-cube-msh" 24 "$WORK/cube.msh" > /dev/null
for order in 1 2; do
  write_case t.yaml <<EOF
mesh: {file: $WORK/cube.msh}
space: {order: $order}
physics: {kind: poisson, kappa: "1 + x*y*z", source: "sin(x) + y"}
state: {u: "x*y - z"}
boundary: [{group: boundary, dirichlet: "x + y"}]
output: {matrix: true, cell_dofs: true}
EOF
  for t in 1 default 16; do
    if [ $t = default ]; then "$FEINT" run --quiet "$WORK/t.yaml" -o "$WORK/t-$t.h5"
    else FEINT_THREADS=$t "$FEINT" run --quiet "$WORK/t.yaml" -o "$WORK/t-$t.h5"; fi
  done
  $PY - "$WORK"/t-1.h5 "$WORK"/t-default.h5 "$WORK"/t-16.h5 "P$order" <<'PYEOF'
import sys, h5py, numpy as np
files = [h5py.File(f) for f in sys.argv[1:4]]
names = []
files[0].visititems(lambda n, o: names.append(n) if isinstance(o, h5py.Dataset) else None)
for want in ("residual", "rhs", "matrix/data", "matrix/indices", "dofs/coordinates", "dofs/cell_dofs"):
    assert want in names, f"{want} missing: {names}"
for n in names:
    a = files[0][n][()]
    for f in files[1:]:
        b = f[n][()]
        assert a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes(), f"{n} differs"
print(f"ok {sys.argv[4]}: {len(names)} datasets bitwise equal with 1, default and 16 threads")
PYEOF
done

# The mesh read on every core: the file read in 8 MB ranges side by side,
# the element rows copied, the nodes marked and renumbered in ranges. A
# 34 MB mesh (5 ranges of the file) reads to the same mesh with 1 and 16
# threads, and an unknown node tag met in two ranges is reported as the
# first in file order, as one thread would.
"${BUILD:-$ROOT/build}/bench/gen-cube-msh" 50 "$WORK/big.msh" > /dev/null
write_case big.yaml <<EOF2
mesh: {file: $WORK/big.msh}
physics: {kind: poisson, source: "x"}
output: {rhs: false, residual: true, matrix: false, cell_dofs: true}
EOF2
for t in 1 16; do FEINT_THREADS=$t "$FEINT" run --quiet "$WORK/big.yaml" -o "$WORK/big-$t.h5" || fail "big mesh, $t threads"; done
$PY - "$WORK"/big-1.h5 "$WORK"/big-16.h5 <<'PYEOF'
import sys, h5py
a, b = (h5py.File(f) for f in sys.argv[1:3])
names = []
a.visititems(lambda n, o: names.append(n) if isinstance(o, h5py.Dataset) else None)
assert "dofs/coordinates" in names and "dofs/cell_dofs" in names, names
for n in names:
    x, y = a[n][()], b[n][()]
    assert x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes(), f"{n} differs"
print(f"ok big mesh: {len(names)} datasets bitwise equal with 1 and 16 threads ({a['dofs/cell_dofs'].shape[0]} cells: their nodes and coordinates)")
PYEOF
[ $? -eq 0 ] || fail "big mesh datasets"
# two elements refer to undefined nodes: 900000001 (a third of the way) and 900000002 (near the end)
$PY - "$WORK/big.msh" "$WORK/bad.msh" <<'PYEOF'
import sys, struct
data = bytearray(open(sys.argv[1], "rb").read())
at = data.index(b"$Elements\n") + len(b"$Elements\n")
n_blocks, n, lo, hi = struct.unpack_from("<4Q", data, at); at += 32
for b in range(n_blocks):
    dim, tag, etype, ne = struct.unpack_from("<iiiQ", data, at); at += 20
    nn = {4: 4, 2: 3, 15: 1, 1: 2}[etype]
    if etype == 4:
        for frac, bad in ((0.33, 900000001), (0.9, 900000002)):
            e = int(ne * frac)
            struct.pack_into("<q", data, at + e * 8 * (nn + 1) + 16, bad)
    at += ne * 8 * (nn + 1)
open(sys.argv[2], "wb").write(data)
PYEOF
sed "s|big.msh|bad.msh|" "$WORK/big.yaml" > "$WORK/bad.yaml"
for t in 1 16; do
  FEINT_THREADS=$t "$FEINT" run --quiet "$WORK/bad.yaml" -o "$WORK/bad-$t.h5" 2> "$WORK/bad-$t.err" && fail "bad node tag read ($t threads)"
  grep -q "refers to node 900000001, which the mesh does not define" "$WORK/bad-$t.err" || fail "bad node message, $t threads: $(cat "$WORK/bad-$t.err")"
  [ ! -e "$WORK/bad-$t.h5" ] || fail "a file was left"
done
echo "ok bad node tags: the first in file order named with 1 and 16 threads"

# Text meshes: a large block's lines parsed on every core. The ASCII file of
# the same mesh reads to the binary file's dofs, bitwise (%.17g coordinates),
# with 1 and 16 threads; so does a copy whose elements are laid out
# otherwise (two on one line: the line parser declines the block and the
# token parser reads it); a bad token deep in a block is reported on its
# line as before.
"${BUILD:-$ROOT/build}/bench/gen-cube-msh" --ascii 50 "$WORK/big-ascii.msh" > /dev/null
$PY - "$WORK/big-ascii.msh" "$WORK/joined.msh" "$WORK/badtok.msh" <<'PYEOF'
import sys
lines = open(sys.argv[1]).read().split("\n")
start = lines.index("$Elements") + 3 + 12 * 50 * 50  # past the triangle block and the tetrahedra's header
k = start + 500000
assert len(lines[k].split()) == 5 and len(lines[k + 1].split()) == 5
joined = lines[:k] + [lines[k] + " " + lines[k + 1]] + lines[k + 2:]
open(sys.argv[2], "w").write("\n".join(joined))
bad = list(lines)
bad[k] = bad[k].replace(" ", " x", 1)
open(sys.argv[3], "w").write("\n".join(bad))
PYEOF
[ $? -eq 0 ] || fail "text mesh copies"
bad_line=$(( $(grep -n '^\$Elements' "$WORK/big-ascii.msh" | cut -d: -f1) + 3 + 12 * 50 * 50 + 500000 ))
for m in big-ascii joined; do
  sed "s|big.msh|$m.msh|" "$WORK/big.yaml" > "$WORK/$m.yaml"
  for t in 1 16; do FEINT_THREADS=$t "$FEINT" run --quiet "$WORK/$m.yaml" -o "$WORK/$m-$t.h5" || fail "$m, $t threads"; done
  $PY - "$WORK"/big-1.h5 "$WORK/$m-1.h5" "$WORK/$m-16.h5" <<'PYEOF' || fail "$m datasets"
import sys, h5py
a = h5py.File(sys.argv[1])
for f in sys.argv[2:]:
    b = h5py.File(f)
    for n in ("dofs/coordinates", "dofs/cell_dofs", "residual"):
        assert a[n][()].tobytes() == b[n][()].tobytes(), f"{f}: {n} differs from the binary mesh's"
PYEOF
  echo "ok $m: the text mesh reads to the binary mesh's dofs with 1 and 16 threads"
done
sed "s|big.msh|badtok.msh|" "$WORK/big.yaml" > "$WORK/badtok.yaml"
for t in 1 16; do
  FEINT_THREADS=$t "$FEINT" run --quiet "$WORK/badtok.yaml" -o "$WORK/badtok.h5" 2> "$WORK/badtok.err" && fail "bad token read"
  grep -q "badtok.msh:$bad_line: expected an element's node tag, got 'x" "$WORK/badtok.err" || fail "bad token message ($t threads): $(cat "$WORK/badtok.err")"
done
echo "ok a bad token in a large text block: named on line $bad_line with 1 and 16 threads"
