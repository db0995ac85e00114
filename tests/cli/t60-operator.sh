# feint run with an operator section (issue 4) on the transfinite hex cube
# (cases/hexcube.geo), CPU backend, N = 1..4 and BP1.0 / BP3.5 / BP3.0:
# mass: 1^T M 1 = volume and 1^T M u = the integral of u for u in Q_N;
# stiffness: S 1 = 0 (lambda = 0), u^T S u = the Dirichlet energy of
# u = x^2 + y z, 1^T (S + M) 1 = volume; x is state.u at /dofs/coordinates;
# the attributes are there. (y = assembled CSR x: tests/unit/t611.) Bad
# input: an operator on a tetrahedral mesh, physics on a hex mesh and
# assembled outputs beside an operator exit 2 with a clear message.
source "$(dirname "$0")/lib.sh"
write_case op.yaml <<EOF
mesh: {file: $(geo hexcube.geo)}
space: {order: 1}
operator: {kind: bp1.0}
state: {u: 1}
backend: {device: cpu}
EOF
run() { # N kind lambda u geometry -> $WORK/o.h5
  "$FEINT" run --quiet "$WORK/op.yaml" -o "$WORK/o.h5" --set space.order=$1 --set operator.kind=$2 \
    --set operator.lambda=$3 --set "state.u=\"$4\"" --set operator.geometry=$5 || fail "run $*"
}
check() { # what N kind expected -> compare with $WORK/o.h5
  $PY - "$WORK/o.h5" "$@" <<'EOF'
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1]); what, N, kind, want = sys.argv[2], int(sys.argv[3]), sys.argv[4], float(sys.argv[5])
x, y, X = f["operator/x"][:], f["operator/y"][:], f["dofs/coordinates"][:]
a = f["operator"].attrs
assert a["kind"] == kind.upper() and a["order"] == N, (a["kind"], a["order"])
assert a["min_bytes"] > 0 and a["kernel_seconds"] > 0 and f.attrs["backend"] == "cpu"
assert X.shape == (len(y), 3) and f["dofs/cell_dofs"].shape == (f.attrs["n_cells"], (N + 1) ** 3)
got = {"sum": y.sum(), "max": abs(y).max(), "energy": x @ y}[what]
print(f"N={N} {kind:5s} {what:6s} {got: .15f} (want {want})")
sys.exit(0 if abs(got - want) < 1e-11 else 1)
EOF
}
for N in 1 2 3 4; do
  for g in stored recompute; do
    run $N bp1.0 1 1 $g; check sum $N bp1.0 1
  done
  # u in Q_N: x^N + y z integrates to 1/(N+1) + 1/4
  run $N bp1.0 1 "x^$N + y*z" stored; check sum $N bp1.0 "$($PY -c "print(1/($N+1) + 0.25)")"
  for k in bp3.5 bp3.0; do
    run $N $k 0 1 stored; check max $N $k 0
    run $N $k 1 1 recompute; check sum $N $k 1
    # grad(x^2 + y z) = (2x, z, y): energy 4/3 + 1/3 + 1/3 = 2
    [ $N -ge 2 ] && { run $N $k 0 "x^2 + y*z" stored; check energy $N $k 2; }
  done
done
# x is state.u at the dof coordinates
run 3 bp3.0 1 "sin(x) + y*z^2" stored
$PY - "$WORK/o.h5" <<'EOF' || fail "x is not state.u at the dofs"
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1]); X = f["dofs/coordinates"][:]
u = np.sin(X[:, 0]) + X[:, 1] * X[:, 2] ** 2
sys.exit(0 if abs(f["operator/x"][:] - u).max() < 1e-14 else 1)
EOF
# refinement splits hexahedra: 8 x 27 cells, (6 N + 1)^3 dofs
"$FEINT" run --quiet "$WORK/op.yaml" -o "$WORK/o.h5" --set mesh.refine=1 --set space.order=5 \
  --set operator.kind=bp3.5 --set state.u=1
$PY -c "import h5py,sys; f=h5py.File('$WORK/o.h5'); sys.exit(0 if f.attrs['n_cells']==216 and len(f['operator/y'])==31**3 and abs(f['operator/y'][:].sum()-1)<1e-12 else 1)" \
  || fail "refined hex cube"

# bad input
bad() { # expected-message command...
  local msg=$1; shift
  set +e; "$@" -o "$WORK/bad.h5" 2> "$WORK/err"; local rc=$?; set -e
  [ $rc = 2 ] || fail "exit $rc (expected 2) for: $* ($(cat "$WORK/err"))"
  grep -q "$msg" "$WORK/err" || fail "message for $*: $(cat "$WORK/err")"
  [ ! -e "$WORK/bad.h5" ] || fail "output left behind by $*"
  echo "exit 2: $(head -c 160 "$WORK/err")"
}
bad "BP operators need a hexahedral mesh; .*cube.geo has tetrahedron cells" \
  "$FEINT" run "$WORK/op.yaml" --set mesh.file=$(geo cube.geo)
bad "output.matrix: not available with an operator section" "$FEINT" run "$WORK/op.yaml" --set output.matrix=true
bad "boundary: not available with an operator section" "$FEINT" run "$WORK/op.yaml" --set 'boundary=[{group: left, dirichlet: 0}]'
# operator.lambda beside bp1.0 is accepted but said to be ignored; bp3.5 takes it silently
"$FEINT" run "$WORK/op.yaml" -o "$WORK/o.h5" --set operator.lambda=2 2> "$WORK/note" > /dev/null
grep -q "operator.lambda=2: operator.lambda is ignored by bp1.0" "$WORK/note" || fail "no lambda note: $(cat "$WORK/note")"
"$FEINT" run "$WORK/op.yaml" -o "$WORK/o.h5" --set operator.lambda=2 --set operator.kind=bp3.5 2> "$WORK/note" > /dev/null
! grep -q "ignored" "$WORK/note" || fail "lambda note for bp3.5: $(cat "$WORK/note")"
bad "space.order: 16 is out of range 1..15" "$FEINT" run "$WORK/op.yaml" --set space.order=16
bad "operator.kind: expected one of bp1.0, bp3.5, bp3.0" "$FEINT" run "$WORK/op.yaml" --set operator.kind=bp5
bad "space.order 8 is not supported on triangles (orders 1..7)" \
  "$FEINT" run "$ROOT/cases/poisson2d.yaml" --set space.order=8
echo ok
