# Curved geometry (issue 21, first slice): second-order triangles and
# tetrahedra from Gmsh (Mesh.ElementOrder = 2), integrated on their
# second-order map on the cpu backend, against the same domains in
# straight cells (Mesh.ElementOrder = 1).
# - Area of the unit disc and volume of the unit ball (the load vector of
#   f = 1 summed): the straight cells' error falls as h^2, the curved
#   cells' as h^4.
# - -lap u = 16 r^2 on the disc, u = 0 on the circle (u = 1 - r^4), P2,
#   solved with SciPy from the exported matrix: the L2 error (through the
#   mass matrix of the same mesh) falls as h^3 on curved cells
#   (isoparametric) and is capped at h^2 on straight ones.
# - Facet integrals on curved facets (their second-order map): the
#   perimeter of the disc and the area of the sphere (a Neumann load of 1
#   summed) converge as h^4 against h^2 on straight facets; the Robin
#   problem -lap u = 16 r^2, du/dn + u = -4 on the circle (u = 1 - r^4)
#   in P2 converges in L2 as h^3 on curved cells and facets, h^2 on
#   straight ones.
# - The same curved case on 2 ranks writes the one-rank file.
# - Affine cells in a curved mesh are straight cells: the cube of
#   gen-cube-msh --order 2 (every edge node at its midpoint) gives the
#   straight cube's residual, load vector and matrix bit for bit, and info
#   counts none of its cells curved; the warped cube (every cell curved,
#   half of them negatively oriented) measures the cube's volume, 1.
source "$(dirname "$0")/lib.sh"
for shape in disc ball; do
  for order in 1 2 3; do
    if [ $shape = disc ]; then
      printf 'SetFactory("OpenCASCADE");\nDisk(1) = {0, 0, 0, 1};\nPhysical Surface("domain") = {1};\nPhysical Curve("boundary") = {1};\n' > "$WORK/$shape$order.geo"
    else
      printf 'SetFactory("OpenCASCADE");\nSphere(1) = {0, 0, 0, 1};\nPhysical Volume("domain") = {1};\nPhysical Surface("boundary") = {1};\n' > "$WORK/$shape$order.geo"
    fi
    printf 'Mesh.ElementOrder = %d;\nMesh.HighOrderOptimize = 0;\n' $order >> "$WORK/$shape$order.geo"
  done
done
write_case measure.yaml <<EOF
mesh: {file: $WORK/disc2.geo}
physics: {kind: poisson, source: "1"}
output: {rhs: true, residual: false}
EOF
write_case poisson.yaml <<EOF
mesh: {file: $WORK/disc2.geo}
space: {order: 2}
physics: {kind: poisson, source: "16*(x^2 + y^2)"}
boundary: [{group: boundary, dirichlet: "0"}]
assembly: {dirichlet: symmetric}
output: {rhs: true, residual: false, matrix: true}
EOF
write_case surface.yaml <<EOF
mesh: {file: $WORK/disc2.geo}
physics: {kind: poisson, source: "0"}
boundary: [{group: boundary, neumann: "1"}]
output: {rhs: true, residual: false}
EOF
write_case mass.yaml <<EOF
mesh: {file: $WORK/disc2.geo}
space: {order: 2}
physics: {kind: mass}
output: {rhs: false, residual: false, matrix: true}
EOF
sizes_disc="0.4 0.2 0.1"
sizes_ball="0.6 0.3 0.15"
for order in 1 2; do
  for shape in disc ball; do
    eval sizes=\$sizes_$shape
    for h in $sizes; do
      "$FEINT" run --quiet "$WORK/measure.yaml" --set mesh.file="$WORK/$shape$order.geo" --set mesh.size=$h \
        -o "$WORK/m-$shape$order-$h.h5" || fail "measure $shape, order $order, h $h"
      "$FEINT" run --quiet "$WORK/surface.yaml" --set mesh.file="$WORK/$shape$order.geo" --set mesh.size=$h \
        -o "$WORK/s-$shape$order-$h.h5" || fail "surface $shape, order $order, h $h"
    done
  done
  for h in $sizes_disc; do
    for c in poisson mass; do
      "$FEINT" run --quiet "$WORK/$c.yaml" --set mesh.file="$WORK/disc$order.geo" --set mesh.size=$h \
        -o "$WORK/$c-$order-$h.h5" || fail "$c, order $order, h $h"
    done
    "$FEINT" run --quiet "$WORK/poisson.yaml" --set mesh.file="$WORK/disc$order.geo" --set mesh.size=$h \
      --set 'boundary=[{group: boundary, robin: {alpha: 1, value: -4}}]' -o "$WORK/robin-$order-$h.h5" ||
      fail "robin, order $order, h $h"
  done
done
for h in $sizes_disc; do # the disc in 10-node triangles (order 3)
  "$FEINT" run --quiet "$WORK/measure.yaml" --set mesh.file="$WORK/disc3.geo" --set mesh.size=$h -o "$WORK/m-disc3-$h.h5" ||
    fail "measure disc, order 3, h $h"
  "$FEINT" run --quiet "$WORK/surface.yaml" --set mesh.file="$WORK/disc3.geo" --set mesh.size=$h -o "$WORK/s-disc3-$h.h5" ||
    fail "surface disc, order 3, h $h"
done
$PY - "$WORK" "$ROOT/tests/cli" <<'PYEOF' || fail "curved convergence"
import sys, math, h5py
w = sys.argv[1]
sys.path.insert(0, sys.argv[2])
from fe_checks import disc_l2_error, rate_in_band
ok = True
for shape, exact, boundary, hs in (("disc", math.pi, 2 * math.pi, [0.4, 0.2, 0.1]),
                                   ("ball", 4 * math.pi / 3, 4 * math.pi, [0.6, 0.3, 0.15])):
    for order, lo, hi in ((1, 1.6, 2.5), (2, 3.4, 4.8), (3, 3.4, 4.8)):
        if order == 3 and shape == "ball":
            continue  # order 3: the disc (equispaced edge nodes: h^4, as Newton-Cotes of odd order)
        for what, prefix, value in (("measure", "m", exact), ("boundary measure", "s", boundary)):
            errs = [abs(h5py.File(f"{w}/{prefix}-{shape}{order}-{h}.h5")["rhs"][:].sum() - value) for h in hs]
            ok &= rate_in_band(f"{shape} {('straight', 'curved', 'cubic')[order - 1]}: {what}", hs, errs, lo, hi)
hs = [0.4, 0.2, 0.1]
for case, label in (("poisson", "Dirichlet"), ("robin", "Robin")):
    for order, lo, hi in ((1, 1.6, 2.4), (2, 2.6, 3.6)):
        errs = [disc_l2_error(f"{w}/{case}-{order}-{h}.h5", f"{w}/mass-{order}-{h}.h5") for h in hs]
        ok &= rate_in_band(f"P2 Poisson ({label}) on the disc, {'curved' if order == 2 else 'straight'} cells: L2",
                           hs, errs, lo, hi)
sys.exit(0 if ok else 1)
PYEOF
# the same curved case on 2 ranks
same_on_two_ranks "curved P2 Poisson" "$WORK/poisson-2-0.2.h5" "$WORK/poisson.yaml" --set mesh.size=0.2
# affine cells of a curved mesh: as straight cells, bit for bit
gen="$(dirname "$FEINT")/bench/gen-cube-msh"
"$gen" 4 "$WORK/straight.msh" > /dev/null
"$gen" --order 2 4 "$WORK/affine.msh" > /dev/null
"$gen" --warp --order 2 4 "$WORK/warped.msh" > /dev/null
write_case cube.yaml <<EOF
mesh: {file: $WORK/straight.msh}
space: {order: 2}
physics: {kind: poisson, kappa: "1 + x*y", source: "sin(x) + z"}
state: {u: "x*y - z"}
boundary: [{group: boundary, dirichlet: "x + y"}]
output: {residual: true, rhs: true, matrix: true}
EOF
for m in straight affine; do
  "$FEINT" run --quiet "$WORK/cube.yaml" --set mesh.file="$WORK/$m.msh" -o "$WORK/cube-$m.h5" || fail "cube $m"
done
$PY - "$WORK/cube-straight.h5" "$WORK/cube-affine.h5" <<'EOF' || fail "affine cells of a curved mesh differ from straight cells"
import sys, h5py
a, b = h5py.File(sys.argv[1]), h5py.File(sys.argv[2])
for n in ("residual", "rhs", "matrix/data", "matrix/indices", "matrix/indptr"):
    assert a[n][:].tobytes() == b[n][:].tobytes(), n
EOF
"$FEINT" info "$WORK/affine.msh" > "$WORK/affine.info"
grep -q "integrates on their map; 0 of$" "$WORK/affine.info" && grep -q "^384 cells are curved" "$WORK/affine.info" ||
  fail "info on the affine cube: $(cat "$WORK/affine.info")"
"$FEINT" info "$WORK/warped.msh" > "$WORK/warped.info"
grep -q "integrates on their map; 384 of$" "$WORK/warped.info" || fail "info on the warped cube: $(cat "$WORK/warped.info")"
echo "ok affine cells of a curved mesh: the straight mesh's residual, load vector and matrix bit for bit"
"$FEINT" run --quiet "$WORK/measure.yaml" --set mesh.file="$WORK/warped.msh" -o "$WORK/warped.h5" || fail "warped cube"
$PY - "$WORK/warped.h5" <<'EOF' || fail "the warped cube's volume"
import sys, h5py
v = h5py.File(sys.argv[1])["rhs"][:].sum()
assert abs(v - 1) < 1e-13, v
print(f"ok the warped cube (every cell curved, half negatively oriented): volume 1 to {abs(v - 1):.1e}")
EOF
# geometry of order 3 (10-node triangles, 20-node tetrahedra) on a cubic
# map, which it represents exactly: the integral of x^2 (a user form's x,
# through the map) over the square under (x + 0.2 x y^2, y + 0.1 x^3 +
# 0.1 x^2 y) against Gauss-Legendre on the map's polynomial Jacobian, and
# the volume of the cube under (x + a y^3, y + b z^3, z + c x^3), 1 + a b c;
# order 2 cannot be exact there (the square's area would be: Simpson)
printf 'Point(1) = {0, 0, 0};\nPoint(2) = {1, 0, 0};\nPoint(3) = {1, 1, 0};\nPoint(4) = {0, 1, 0};\nLine(1) = {1, 2};\nLine(2) = {2, 3};\nLine(3) = {3, 4};\nLine(4) = {4, 1};\nCurve Loop(1) = {1, 2, 3, 4};\nPlane Surface(1) = {1};\nPhysical Surface("domain") = {1};\nPhysical Curve("boundary") = {1, 2, 3, 4};\nMesh.MeshSizeMax = 0.3;\n' > "$WORK/sq.geo"
printf 'SetFactory("OpenCASCADE");\nBox(1) = {0, 0, 0, 1, 1, 1};\nPhysical Volume("domain") = {1};\nPhysical Surface("boundary") = {1, 2, 3, 4, 5, 6};\nMesh.MeshSizeMax = 0.5;\n' > "$WORK/cb.geo"
# the same in quadrilaterals and hexahedra (orders 2 and 3 of issue 21's tensor slice): a cubic map of
# bilinear cells is of degree 3 in each reference variable, which order 3 represents exactly
sed 's/^Mesh.MeshSizeMax = 0.3;$/Mesh.MeshSizeMax = 0.3;\nMesh.RecombineAll = 1;/' "$WORK/sq.geo" > "$WORK/sqq.geo"
# (the hexahedra: the unstructured quadrilaterals of the square extruded, since a regular grid's symmetric
# cells would make order 2 exact too, as Simpson's rule is on cubics)
printf 'SetFactory("OpenCASCADE");\nRectangle(1) = {0, 0, 0, 1, 1};\nExtrude {0, 0, 1} { Surface{1}; Layers{3}; Recombine; }\nMesh.RecombineAll = 1;\nMesh.MeshSizeMax = 0.4;\nPhysical Volume("domain") = {1};\nPhysical Surface("boundary") = {1, 2, 3, 4, 5, 6};\n' > "$WORK/cbh.geo"
for o in 2 3; do
  gmsh "$WORK/sq.geo" -2 -order $o -format msh22 -o "$WORK/sq$o.msh" > /dev/null 2>&1 || fail "gmsh square order $o"
  gmsh "$WORK/cb.geo" -3 -order $o -format msh22 -o "$WORK/cb$o.msh" > /dev/null 2>&1 || fail "gmsh cube order $o"
  gmsh "$WORK/sqq.geo" -2 -order $o -format msh22 -o "$WORK/sqq$o.msh" > /dev/null 2>&1 || fail "gmsh quad square order $o"
  gmsh "$WORK/cbh.geo" -3 -order $o -format msh22 -o "$WORK/cbh$o.msh" > /dev/null 2>&1 || fail "gmsh hex cube order $o"
  for pair in "sq cb" "sqq cbh"; do
    set -- $pair
  $PY - "$WORK/$1$o.msh" "$WORK/$2$o.msh" <<'EOF' || fail "cubic map"
import sys
for path, dim in ((sys.argv[1], 2), (sys.argv[2], 3)):
    lines = open(path).read().split("\n")
    i = lines.index("$Nodes")
    for k in range(i + 2, i + 2 + int(lines[i + 1])):
        t = lines[k].split()
        x, y, z = map(float, t[1:4])
        p = (x + 0.2 * x * y * y, y + 0.1 * x**3 + 0.1 * x * x * y, z) if dim == 2 else \
            (x + 0.1 * y**3, y + 0.1 * z**3, z + 0.1 * x**3)
        lines[k] = f"{t[0]} {p[0]!r} {p[1]!r} {p[2]!r}"
    open(path, "w").write("\n".join(lines))
EOF
  if [ $2 = cbh ]; then # (the hexahedra's volume is exact at order 2 by the extrusion: x^2 instead)
    "$FEINT" run --quiet "$WORK/measure.yaml" --set mesh.file="$WORK/$2$o.msh" -o "$WORK/cubic-$2$o.h5" \
      --set 'physics={kind: form, f0: "x*x", f1: ["0", "0", "0"]}' --set quadrature.degree=12 || fail "cubic cube"
  else
    "$FEINT" run --quiet "$WORK/measure.yaml" --set mesh.file="$WORK/$2$o.msh" -o "$WORK/cubic-$2$o.h5" || fail "cubic cube"
  fi
  "$FEINT" run --quiet "$WORK/measure.yaml" --set mesh.file="$WORK/$1$o.msh" -o "$WORK/cubic-$1$o.h5" \
    --set 'physics={kind: form, f0: "x*x", f1: ["0", "0"]}' --set quadrature.degree=12 || fail "cubic square"
  done
done
$PY - "$WORK" <<'EOF' || fail "order 3 geometry on a cubic map"
import sys, h5py, numpy as np
w = sys.argv[1]
x, wt = np.polynomial.legendre.leggauss(12)
X, Y = np.meshgrid((x + 1) / 2, (x + 1) / 2, indexing="ij")
W = np.outer(wt, wt) / 4
det = (1 + 0.2 * Y * Y) * (1 + 0.1 * X * X) - 0.4 * X * Y * (0.3 * X * X + 0.2 * X * Y)
x2 = (W * (X + 0.2 * X * Y * Y) ** 2 * det).sum()
X3, Y3, Z3 = np.meshgrid((x + 1) / 2, (x + 1) / 2, (x + 1) / 2, indexing="ij")  # the cube's x^2: x = X + a Y^3
x2_cube = (np.einsum("i,j,k->ijk", wt, wt, wt) / 8 * (X3 + 0.1 * Y3**3) ** 2 * (1 + 0.027 * X3**2 * Y3**2 * Z3**2)).sum()
ok = True
for s, exact, sign, label in (("sq", x2, -1, "square (x^2), triangles"), ("cb", 1 + 0.001, 1, "cube (volume), tetrahedra"),
                              ("sqq", x2, -1, "square (x^2), quadrilaterals"),
                              ("cbh", x2_cube, -1, "cube (x^2), hexahedra")):
    e = [abs(sign * h5py.File(f"{w}/cubic-{s}{o}.h5")["rhs"][:].sum() - exact) for o in (2, 3)]
    good = e[1] < 1e-13 and e[0] > 1e-8
    print(f"{'ok' if good else 'BAD'} {label} on a cubic map: error "
          f"{e[0]:.1e} with order 2 geometry, {e[1]:.1e} with order 3")
    ok &= good
sys.exit(0 if ok else 1)
EOF
