# Flux boundary conditions (issue 21's normals from the map): boundary:
# [{group, flux: [qx, qy(, qz)]}] is the Neumann value q . n, n the
# outward unit normal at each facet quadrature point, from the cell's map
# (curved cells: their geometry nodes).
# - The divergence theorem on the discrete domain: with q = (x, y(, z)),
#   the load vector sums to dim times the measure of the same mesh (the
#   load of f = 1), to round-off, on straight and curved triangles,
#   quadrilaterals, tetrahedra, hexahedra and prisms (a wrong sign or a
#   normal of the wrong length fails it).
# - -lap u = 16 r^2 on the unit disc, u = 1 - r^4: u = 0 on the upper
#   half circle, flux grad u on the lower one, P2, solved with SciPy from
#   the exported matrix: the L2 error falls as h^3 on curved cells, h^2 on
#   straight ones.
# - The curved case on 2 ranks writes the one-rank file.
# - Bad input: a flux on a vector space, a flux of the wrong length, flux
#   beside neumann: exit 2 with a message, no file.
source "$(dirname "$0")/lib.sh"
for order in 1 2; do
  for shape in tri quad tet hex prism; do curved_geo "$WORK/$shape$order.geo" $shape $order; done
  extra="Mesh.HighOrderOptimize = 0;\nMesh.ElementOrder = $order;\n"
  # the disc with two halves of its circle
  printf "Point(1) = {0, 0, 0};\nPoint(2) = {1, 0, 0};\nPoint(3) = {-1, 0, 0};\nCircle(1) = {2, 1, 3};\nCircle(2) = {3, 1, 2};\nCurve Loop(1) = {1, 2};\nPlane Surface(1) = {1};\nPhysical Surface(\"domain\") = {1};\nPhysical Curve(\"upper\") = {1};\nPhysical Curve(\"lower\") = {2};\n$extra" \
    > "$WORK/halves$order.geo"
done
write_case flux.yaml <<EOF
mesh: {file: $WORK/tri2.geo, size: 0.3}
space: {order: 2}
physics: {kind: poisson, source: "0"}
boundary: [{group: boundary, flux: ["x", "y"]}]
output: {rhs: true, residual: false}
EOF
write_case measure.yaml <<EOF
mesh: {file: $WORK/tri2.geo, size: 0.3}
space: {order: 2}
physics: {kind: poisson, source: "1"}
output: {rhs: true, residual: false}
EOF
for shape in tri quad tet hex prism; do
  q='[x, y]'
  case $shape in tet | hex | prism) q='[x, y, z]' ;; esac
  for order in 1 2; do
    "$FEINT" run --quiet "$WORK/flux.yaml" --set mesh.file="$WORK/$shape$order.geo" --set "boundary.0.flux=$q" \
      -o "$WORK/f-$shape$order.h5" || fail "flux $shape order $order"
    "$FEINT" run --quiet "$WORK/measure.yaml" --set mesh.file="$WORK/$shape$order.geo" \
      -o "$WORK/m-$shape$order.h5" || fail "measure $shape order $order"
  done
done
$PY - "$WORK" <<'EOF' || fail "the divergence theorem"
import sys, h5py
w = sys.argv[1]
ok = True
for shape, dim in (("tri", 2), ("quad", 2), ("tet", 3), ("hex", 3), ("prism", 3)):
    for order in (1, 2):
        flux = h5py.File(f"{w}/f-{shape}{order}.h5")["rhs"][:].sum()
        measure = h5py.File(f"{w}/m-{shape}{order}.h5")["rhs"][:].sum()
        e = abs(flux - dim * measure) / (dim * measure)
        good = e < 1e-12
        print(f"{'ok' if good else 'BAD'} {shape} order {order}: the flux of (x, y{', z' if dim == 3 else ''}) "
              f"{flux:.15f} = {dim} x measure to {e:.1e}")
        ok &= good
sys.exit(0 if ok else 1)
EOF
write_case halves.yaml <<EOF
mesh: {file: $WORK/halves2.geo}
space: {order: 2}
physics: {kind: poisson, source: "16*(x^2 + y^2)"}
boundary:
  - {group: upper, dirichlet: 0}
  - {group: lower, flux: ["-4*x*(x^2 + y^2)", "-4*y*(x^2 + y^2)"]}
assembly: {dirichlet: symmetric}
output: {rhs: true, residual: false, matrix: true}
EOF
write_case mass.yaml <<EOF
mesh: {file: $WORK/halves2.geo}
space: {order: 2}
physics: {kind: mass}
output: {rhs: false, residual: false, matrix: true}
EOF
for order in 1 2; do
  for h in 0.4 0.2 0.1; do
    for c in halves mass; do
      "$FEINT" run --quiet "$WORK/$c.yaml" --set mesh.file="$WORK/halves$order.geo" --set mesh.size=$h \
        -o "$WORK/$c-$order-$h.h5" || fail "$c order $order h $h"
    done
  done
done
$PY - "$WORK" "$ROOT/tests/cli" <<'EOF' || fail "the flux condition's convergence"
import sys
w = sys.argv[1]
sys.path.insert(0, sys.argv[2])
from fe_checks import disc_l2_error, rate_in_band
hs = [0.4, 0.2, 0.1]
ok = True
for order, lo, hi in ((1, 1.6, 2.4), (2, 2.6, 3.9)):
    errs = [disc_l2_error(f"{w}/halves-{order}-{h}.h5", f"{w}/mass-{order}-{h}.h5") for h in hs]
    ok &= rate_in_band(f"P2 Poisson, flux grad u on the lower half circle, {'curved' if order == 2 else 'straight'} "
                       "cells: L2", hs, errs, lo, hi)
sys.exit(0 if ok else 1)
EOF
bad() { # message case-settings...
  local msg=$1 rc=0
  shift
  "$FEINT" run --quiet "$WORK/flux.yaml" "$@" -o "$WORK/bad.h5" 2> "$WORK/err" || rc=$?
  [ $rc = 2 ] && grep -q -- "$msg" "$WORK/err" && [ ! -e "$WORK/bad.h5" ] || fail "exit $rc for $*: $(cat "$WORK/err")"
  echo "exit 2: $(head -c 200 "$WORK/err")"
}
bad "gives the scalar Neumann value q . n, but the space has 2 components" --set 'physics={kind: elasticity, lame_lambda: 1, lame_mu: 1}' --set space.components=2
bad "has 3 values; give the vector q of the 2D mesh" --set 'boundary.0.flux=[x, y, z]'
bad "give neumann (the value) or flux" --set boundary.0.neumann=1
# the curved case on 2 ranks writes the one-rank file
same_on_two_ranks "flux condition" "$WORK/halves-2-0.2.h5" "$WORK/halves.yaml" --set mesh.size=0.2
