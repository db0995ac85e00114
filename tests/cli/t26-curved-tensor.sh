# Curved quadrilaterals, hexahedra and prisms (issue 21): Gmsh's
# second-order cells, complete (9, 27, 18 nodes) and incomplete (8, 20,
# 15: Mesh.SecondOrderIncomplete), and third-order quadrilaterals and
# hexahedra (16, 64 nodes), integrated on their map on the cpu backend,
# against the same domains in straight cells.
# - Area and perimeter of the unit disc in quadrilaterals, volume and
#   surface area of the cylinder (the disc extruded by 1, two layers) in
#   hexahedra and in prisms: the load vector of f = 1 and a Neumann load
#   of 1, summed. Straight cells' errors fall as h^2, curved cells' as h^4
#   (order 3 too: Gmsh's equispaced nodes give an odd order no extra
#   power, as on the simplices, t25).
# - -lap u = 16 r^2 on the disc in quadrilaterals, u = 0 on the circle
#   (u = 1 - r^4), Q2, solved with SciPy from the exported matrix: the L2
#   error (through the mass matrix of the same mesh) falls as h^3 on
#   curved cells (isoparametric) and is capped at h^2 on straight ones.
# - The BP operators on the curved cylinder in hexahedra (Q2; geometric
#   factors stored from each cell's nodes): 1^T M 1 = volume, 1^T (S +
#   2 M) 1 = 2 volume and the Dirichlet energy of x^2 + y z converge as
#   h^4 on curved cells, h^2 on straight ones; recomputed factors (the
#   trilinear map) are refused there; 2 ranks write the one-rank file.
# - A box of hexahedra with second-order nodes on straight edges (every
#   cell's map multilinear) gives the first-order box's residual, load
#   vector and matrix bit for bit.
source "$(dirname "$0")/lib.sh"
for order in 1 2 i 3; do
  for shape in quad hex prism; do curved_geo "$WORK/$shape$order.geo" $shape $order; done
done
write_case measure.yaml <<EOF
mesh: {file: $WORK/quad2.geo}
physics: {kind: poisson, source: "1"}
output: {rhs: true, residual: false}
EOF
write_case surface.yaml <<EOF
mesh: {file: $WORK/quad2.geo}
physics: {kind: poisson, source: "0"}
boundary: [{group: boundary, neumann: "1"}]
output: {rhs: true, residual: false}
EOF
write_case poisson.yaml <<EOF
mesh: {file: $WORK/quad2.geo}
space: {order: 2}
physics: {kind: poisson, source: "16*(x^2 + y^2)"}
boundary: [{group: boundary, dirichlet: "0"}]
assembly: {dirichlet: symmetric}
output: {rhs: true, residual: false, matrix: true}
EOF
write_case mass.yaml <<EOF
mesh: {file: $WORK/quad2.geo}
space: {order: 2}
physics: {kind: mass}
output: {rhs: false, residual: false, matrix: true}
EOF
sizes="0.4 0.2 0.1"
for shape in quad hex prism; do
  for order in 1 2 i 3; do
    if [ $shape$order = prism3 ]; then continue; fi # (Gmsh 4.8 makes no prisms of order 3)
    for h in $sizes; do
      for c in measure surface; do
        "$FEINT" run --quiet "$WORK/$c.yaml" --set mesh.file="$WORK/$shape$order.geo" --set mesh.size=$h \
          -o "$WORK/$c-$shape$order-$h.h5" || fail "$c $shape, order $order, h $h"
      done
    done
  done
done
for order in 1 2; do
  for h in $sizes; do
    for c in poisson mass; do
      "$FEINT" run --quiet "$WORK/$c.yaml" --set mesh.file="$WORK/quad$order.geo" --set mesh.size=$h \
        -o "$WORK/$c-$order-$h.h5" || fail "$c, order $order, h $h"
    done
  done
done
# the BP operators on the curved cylinder (stored factors from each cell's nodes), Q2: 1^T A 1 and the
# Dirichlet energy of x^2 + y z (19 pi / 12)
write_case op.yaml <<EOF
mesh: {file: $WORK/hex2.geo}
space: {order: 2}
operator: {kind: bp1.0, lambda: 2, geometry: stored}
state: {u: "1"}
backend: {device: cpu}
EOF
for order in 1 2 3; do
  for h in $sizes; do
    for k in bp1.0 bp3.0 bp3.5; do
      "$FEINT" run --quiet "$WORK/op.yaml" --set mesh.file="$WORK/hex$order.geo" --set mesh.size=$h \
        --set operator.kind=$k -o "$WORK/op-$k-$order-$h.h5" || fail "operator $k, order $order, h $h"
    done
    "$FEINT" run --quiet "$WORK/op.yaml" --set mesh.file="$WORK/hex$order.geo" --set mesh.size=$h \
      --set operator.kind=bp3.0 --set operator.lambda=0 --set 'state.u="x^2 + y*z"' \
      -o "$WORK/energy-$order-$h.h5" || fail "operator energy, order $order, h $h"
  done
done
expect_fail() { # message command...: exit 2, the message, no file
  local msg=$1 rc=0
  shift
  "$@" -o "$WORK/bad.h5" 2> "$WORK/err" || rc=$?
  [ $rc = 2 ] && grep -q "$msg" "$WORK/err" && [ ! -e "$WORK/bad.h5" ] || fail "exit $rc for $*: $(cat "$WORK/err")"
}
expect_fail "curved hexahedra need stored factors" "$FEINT" run --quiet "$WORK/op.yaml" --set operator.geometry=recompute
"$FEINT" info "$WORK/hex2.geo" > "$WORK/hex2.info" || fail "info on curved hexahedra"
grep -q "^geometry order 2 (curved cells of 27 nodes" "$WORK/hex2.info" || fail "info: $(cat "$WORK/hex2.info")"
$PY - "$WORK" "$ROOT/tests/cli" <<'PYEOF' || fail "curved convergence"
import sys, math, h5py
w = sys.argv[1]
sys.path.insert(0, sys.argv[2])
from fe_checks import disc_l2_error, rate_in_band
hs = [0.4, 0.2, 0.1]
ok = True
for shape, measure, boundary in (("quad", math.pi, 2 * math.pi), ("hex", math.pi, 4 * math.pi),
                                 ("prism", math.pi, 4 * math.pi)):
    for order, label, lo, hi in (("1", "straight", 1.6, 2.5), ("2", "curved", 3.4, 4.8),
                                 ("i", "curved incomplete", 3.4, 4.8), ("3", "cubic", 3.4, 4.8)):
        if shape == "prism" and order == "3":
            continue
        for what, case, exact in (("measure", "measure", measure), ("boundary measure", "surface", boundary)):
            errs = [abs(h5py.File(f"{w}/{case}-{shape}{order}-{h}.h5")["rhs"][:].sum() - exact) for h in hs]
            ok &= rate_in_band(f"{shape} {label}: {what}", hs, errs, lo, hi)
for what, name, exact in (("BP1.0 1^T M 1", "op-bp1.0", math.pi), ("BP3.0 1^T (S + 2 M) 1", "op-bp3.0", 2 * math.pi),
                          ("BP3.5 1^T (S + 2 M) 1", "op-bp3.5", 2 * math.pi),
                          ("BP3.0 energy of x^2 + y z", "energy", 19 * math.pi / 12)):
    for order, label, lo, hi in (("1", "straight", 1.6, 2.5), ("2", "curved", 3.4, 4.8), ("3", "cubic", 3.4, 4.8)):
        errs = []
        for h in hs:
            f = h5py.File(f"{w}/{name}-{order}-{h}.h5")
            errs.append(abs((f["operator/x"][:] @ f["operator/y"][:] if name == "energy" else f["operator/y"][:].sum())
                            - exact))
        ok &= rate_in_band(f"{what} on the {label} cylinder", hs, errs, lo, hi)
for order, lo, hi in ((1, 1.6, 2.4), (2, 2.6, 3.9)):
    errs = [disc_l2_error(f"{w}/poisson-{order}-{h}.h5", f"{w}/mass-{order}-{h}.h5") for h in hs]
    ok &= rate_in_band(f"Q2 Poisson on the disc, {'curved' if order == 2 else 'straight'} quadrilaterals: L2",
                       hs, errs, lo, hi)
sys.exit(0 if ok else 1)
PYEOF
# multilinear cells of a curved mesh: as straight cells, bit for bit
printf 'SetFactory("OpenCASCADE");\nBox(1) = {0, 0, 0, 1, 1, 1};\nTransfinite Curve{:} = 4;\nTransfinite Surface{:};\nTransfinite Volume{:};\nMesh.RecombineAll = 1;\nPhysical Volume("domain") = {1};\nPhysical Surface("boundary") = {1, 2, 3, 4, 5, 6};\n' > "$WORK/box.geo"
for o in 1 2; do
  gmsh "$WORK/box.geo" -3 -order $o -format msh41 -o "$WORK/box$o.msh" > /dev/null 2>&1 || fail "gmsh box order $o"
done
write_case box.yaml <<EOF
mesh: {file: $WORK/box1.msh}
space: {order: 2}
physics: {kind: poisson, kappa: "1 + x*y", source: "sin(x) + z"}
state: {u: "x*y - z"}
boundary: [{group: boundary, dirichlet: "x + y"}]
output: {residual: true, rhs: true, matrix: true}
EOF
for o in 1 2; do
  "$FEINT" run --quiet "$WORK/box.yaml" --set mesh.file="$WORK/box$o.msh" -o "$WORK/box$o.h5" || fail "box order $o"
done
"$FEINT" info "$WORK/box2.msh" | grep -q "integrates on their map; 0 of$" || fail "info on the box: none curved"
$PY - "$WORK/box1.h5" "$WORK/box2.h5" <<'EOF' || fail "multilinear cells of a curved mesh differ from straight cells"
import sys, h5py
a, b = h5py.File(sys.argv[1]), h5py.File(sys.argv[2])
for n in ("residual", "rhs", "matrix/data", "matrix/indices", "matrix/indptr", "dofs/coordinates"):
    assert a[n][:].tobytes() == b[n][:].tobytes(), n
EOF
echo "ok hexahedra of 27 nodes on straight edges: the 8-node box's residual, load vector and matrix bit for bit"
# the BP operator on curved hexahedra on 2 ranks (each part carries its cells' geometry nodes)
same_on_two_ranks "BP3.0 on curved hexahedra" "$WORK/op-bp3.0-2-0.2.h5" "$WORK/op.yaml" --set mesh.size=0.2 \
  --set operator.kind=bp3.0
