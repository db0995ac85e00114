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
