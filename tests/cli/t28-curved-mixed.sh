# Curved cells in mixed meshes (issue 21): Gmsh's second- and third-order
# cells of several shapes in one region (each block its own geometry
# nodes: a triangle 6, a quadrilateral 9, a prism 18, a hexahedron 27),
# integrated on their map on the cpu backend, against the same domains in
# straight cells. The domains (lib.sh curved_mixed_geo): the unit disc,
# half quadrilaterals and half triangles (order 2 and 3); the cylinder of
# height 1 on it in hexahedra and prisms (order 2, complete and
# incomplete); the cylinder in a layer of prisms under tetrahedra.
# - Measure (the load of f = 1, summed) and boundary measure (a Neumann
#   load of 1, summed): errors fall as h^4 on curved cells, h^2 on straight.
# - The divergence theorem on the discrete domain: the flux of q = (x, y(,
#   z)) through the boundary is dim times the measure, to round-off (the
#   normal from each facet's cell's map, whatever its block).
# - -lap u = 16 r^2 on the mixed disc, u = 0 on the circle (u = 1 - r^4),
#   P2, solved with SciPy from the exported matrix: the L2 error falls as
#   h^3 on curved cells and is capped at h^2 on straight ones.
# - `feint info` gives each block's nodes a cell and curved cells.
# - 2 ranks write the one-rank file; an XDMF file is written and read.
# - A file mixing curved and straight cells is refused, naming the shape.
source "$(dirname "$0")/lib.sh"
for order in 1 2 3 i; do
  for shapes in tri-quad hex-prism tet-prism; do curved_mixed_geo "$WORK/$shapes$order.geo" $shapes $order; done
done
write_case measure.yaml <<EOF
mesh: {file: $WORK/tri-quad2.geo}
physics: {kind: poisson, source: "1"}
output: {rhs: true, residual: false}
EOF
write_case surface.yaml <<EOF
mesh: {file: $WORK/tri-quad2.geo}
physics: {kind: poisson, source: "0"}
boundary: [{group: boundary, neumann: "1"}]
output: {rhs: true, residual: false}
EOF
write_case flux.yaml <<EOF
mesh: {file: $WORK/tri-quad2.geo, size: 0.3}
space: {order: 2}
physics: {kind: poisson, source: "0"}
boundary: [{group: boundary, flux: ["x", "y"]}]
output: {rhs: true, residual: false}
EOF
sizes="0.4 0.2 0.1"
cases="tri-quad1 tri-quad2 tri-quad3 hex-prism1 hex-prism2 hex-prismi tet-prism1 tet-prism2"
for c in $cases; do
  for h in $sizes; do
    for k in measure surface; do
      "$FEINT" run --quiet "$WORK/$k.yaml" --set mesh.file="$WORK/$c.geo" --set mesh.size=$h \
        -o "$WORK/$k-$c-$h.h5" || fail "$k on $c, h $h"
    done
  done
  q='[x, y]'
  case $c in tri*) ;; *) q='[x, y, z]' ;; esac
  "$FEINT" run --quiet "$WORK/flux.yaml" --set mesh.file="$WORK/$c.geo" --set "boundary.0.flux=$q" \
    -o "$WORK/flux-$c.h5" || fail "flux on $c"
  "$FEINT" run --quiet "$WORK/measure.yaml" --set mesh.file="$WORK/$c.geo" --set mesh.size=0.3 \
    --set space.order=2 -o "$WORK/m2-$c.h5" || fail "measure, P2, on $c"
done
PYTHONPATH="$(dirname "$0")" $PY - "$WORK" "$sizes" "$cases" <<'EOF' || fail "measures and their rates"
import sys, math, h5py
from fe_checks import rate_in_band
w, hs, cases = sys.argv[1], [float(h) for h in sys.argv[2].split()], sys.argv[3].split()
# measure and boundary measure of the unit disc, and of the cylinders of height 1 on it
exact = {"tri-quad": (math.pi, 2 * math.pi), "hex-prism": (math.pi, 4 * math.pi), "tet-prism": (math.pi, 4 * math.pi)}
ok = True
for c in cases:
    shapes, order = c[:-1], c[-1]
    for k, what in enumerate(("measure", "surface")):
        errs = [abs(h5py.File(f"{w}/{what}-{c}-{h}.h5")["rhs"][:].sum() - exact[shapes][k]) for h in sys.argv[2].split()]
        lo, hi = (1.7, 2.3) if order == "1" else (3.6, 4.4)
        ok &= rate_in_band(f"{what} of {shapes}, geometry order {order}", hs, errs, lo, hi)
    dim = 2 if shapes == "tri-quad" else 3
    flux = h5py.File(f"{w}/flux-{c}.h5")["rhs"][:].sum()
    measure = h5py.File(f"{w}/m2-{c}.h5")["rhs"][:].sum()
    e = abs(flux - dim * measure) / (dim * measure)
    good = e < 1e-12
    print(f"{'ok' if good else 'BAD'} {c}: the flux of (x, y{', z' if dim == 3 else ''}) {flux:.15f} = {dim} x measure "
          f"to {e:.1e}")
    ok &= good
sys.exit(0 if ok else 1)
EOF
# P2 Poisson on the mixed disc: L2 error of the SciPy solution of the exported matrix
write_case poisson.yaml <<EOF
mesh: {file: $WORK/tri-quad2.geo}
space: {order: 2}
physics: {kind: poisson, source: "16*(x^2 + y^2)"}
boundary: [{group: boundary, dirichlet: "0"}]
assembly: {dirichlet: symmetric}
output: {rhs: true, residual: false, matrix: true}
EOF
write_case mass.yaml <<EOF
mesh: {file: $WORK/tri-quad2.geo}
space: {order: 2}
physics: {kind: mass}
output: {rhs: false, residual: false, matrix: true}
EOF
for order in 1 2; do
  for h in $sizes; do
    for k in poisson mass; do
      "$FEINT" run --quiet "$WORK/$k.yaml" --set mesh.file="$WORK/tri-quad$order.geo" --set mesh.size=$h \
        -o "$WORK/$k-$order-$h.h5" || fail "$k, order $order, h $h"
    done
  done
done
PYTHONPATH="$(dirname "$0")" $PY - "$WORK" "$sizes" <<'EOF' || fail "P2 on the mixed disc"
import sys
from fe_checks import rate_in_band, disc_l2_error
w, sizes = sys.argv[1], sys.argv[2].split()
hs = [float(h) for h in sizes]
ok = True
for order, lo, hi in ((1, 1.7, 2.3), (2, 2.7, 3.8)):
    errs = [disc_l2_error(f"{w}/poisson-{order}-{h}.h5", f"{w}/mass-{order}-{h}.h5") for h in sizes]
    ok &= rate_in_band(f"P2 on the triangle + quadrilateral disc, geometry order {order}, L2", hs, errs, lo, hi)
sys.exit(0 if ok else 1)
EOF
# info: each block's nodes a cell and its curved cells
"$FEINT" info "$WORK/hex-prism2.geo" > "$WORK/info.out" || fail "info on the curved hexahedra and prisms"
grep -q "hexahedron cells.*of 27 nodes, [1-9][0-9]* curved" "$WORK/info.out" &&
  grep -q "prism cells.*of 18 nodes, [1-9][0-9]* curved" "$WORK/info.out" || fail "info: $(cat "$WORK/info.out")"
echo "ok: info gives each block's nodes and curved cells"
# 2 ranks, and the XDMF file, on the curved hexahedra and prisms (P2, every output)
"$FEINT" run --quiet "$WORK/poisson.yaml" --set mesh.file="$WORK/hex-prism2.geo" --set mesh.size=0.4 \
  --set output.xdmf=true -o "$WORK/one.h5" || fail "P2 on the curved hexahedra and prisms"
same_on_two_ranks "P2 on the curved hexahedra and prisms" "$WORK/one.h5" "$WORK/poisson.yaml" \
  --set mesh.file="$WORK/hex-prism2.geo" --set mesh.size=0.4 --set output.xdmf=true
$PY "$(dirname "$0")/xdmf_checks.py" "$WORK/one" 2 1 "$(echo | awk '{print atan2(0, -1)}')" curved ||
  fail "the XDMF file of the curved hexahedra and prisms"
echo "ok: its XDMF file reads in meshio, every drawn piece inside its cell and turned the right way"
# a file mixing curved and straight cells: refused, naming the shape
cat > "$WORK/half-curved.msh" <<'EOF'
$MeshFormat
2.2 0 8
$EndMeshFormat
$Nodes
8
1 0 0 0
2 1 0 0
3 0 1 0
4 0.5 0 0
5 0.5 0.5 0
6 0 0.5 0
7 1 1 0
8 2 1 0
$EndNodes
$Elements
2
1 9 2 1 1 1 2 3 4 5 6
2 3 2 1 1 2 8 7 3
$EndElements
EOF
expect_bad "a file mixing curved and straight cells" "half-curved.msh: the region mixes curved cells with straight.*quadrilaterals" \
  run "$WORK/measure.yaml" --set mesh.file="$WORK/half-curved.msh" -o "$WORK/out.h5"
echo "ok: t28"
