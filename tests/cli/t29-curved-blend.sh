# mesh.curved_nodes: blend (issue 21): the face nodes of Gmsh's
# third-order triangles and tetrahedra placed from their faces' edges
# (src/mesh/blend.c), where Gmsh leaves them where the straight face would
# have them.
# - P3 Poisson on the order-3 disc, -lap u = 16 r^2, u = 0 on the circle
#   (u = 1 - r^4), solved with SciPy from the exported matrix: the L2 error
#   falls as h^4 with blend (isoparametric order p + 1) and only about as
#   h^3.1-3.4 with the nodes as Gmsh places them.
# - The same on the order-3 ball in tetrahedra (20 nodes: four face nodes
#   a cell), -lap u = 20 r^2.
# - The disc's area and perimeter still converge as h^4 with blend.
# - A mesh without such nodes (order 2) gives the same file bit for bit
#   with blend; a bad value is refused with a message.
source "$(dirname "$0")/lib.sh"
curved_geo "$WORK/disc3.geo" tri 3
curved_geo "$WORK/ball3.geo" tet 3
curved_geo "$WORK/disc2.geo" tri 2
write_case poisson.yaml <<EOF
mesh: {file: $WORK/disc3.geo}
space: {order: 3}
physics: {kind: poisson, source: "16*(x^2 + y^2)"}
boundary: [{group: boundary, dirichlet: "0"}]
assembly: {dirichlet: symmetric}
output: {rhs: true, residual: false, matrix: true}
EOF
write_case mass.yaml <<EOF
mesh: {file: $WORK/disc3.geo}
space: {order: 3}
physics: {kind: mass}
output: {rhs: false, residual: false, matrix: true}
EOF
write_case measure.yaml <<EOF
mesh: {file: $WORK/disc3.geo, curved_nodes: blend}
physics: {kind: poisson, source: "1"}
boundary: [{group: boundary, neumann: "1"}]
output: {rhs: true, residual: false}
EOF
disc_sizes=$(levels 0.4 0.2 0.1)
ball_sizes=$(levels 0.6 0.3)
for nodes in file blend; do
  for h in $disc_sizes; do
    for k in poisson mass; do
      "$FEINT" run --quiet "$WORK/$k.yaml" --set mesh.size=$h --set mesh.curved_nodes=$nodes \
        -o "$WORK/$k-disc-$nodes-$h.h5" || fail "$k on the disc, $nodes, h $h"
    done
  done
  for h in $ball_sizes; do
    for k in poisson mass; do
      "$FEINT" run --quiet "$WORK/$k.yaml" --set mesh.file="$WORK/ball3.geo" --set mesh.size=$h \
        --set mesh.curved_nodes=$nodes --set physics.source="20*(x^2 + y^2 + z^2)" \
        -o "$WORK/$k-ball-$nodes-$h.h5" || fail "$k on the ball, $nodes, h $h"
    done
  done
done
for h in $disc_sizes; do
  "$FEINT" run --quiet "$WORK/measure.yaml" --set mesh.size=$h -o "$WORK/measure-$h.h5" || fail "measure, h $h"
done
rates env PYTHONPATH="$(dirname "$0")" $PY - "$WORK" "$disc_sizes" "$ball_sizes" <<'EOF' || fail "P3 rates"
import sys, math
import numpy as np, scipy.sparse.linalg as spla, h5py
from fe_checks import rate_in_band, disc_l2_error, load
w, disc, ball = sys.argv[1], sys.argv[2].split(), sys.argv[3].split()

def ball_l2_error(solution, mass):
    f, A = load(solution)
    u = spla.spsolve(A.tocsc(), f["rhs"][:])
    X = f["dofs/coordinates"][:]
    e = u - (1 - (X ** 2).sum(axis=1) ** 2)
    return float(np.sqrt(abs(e @ (load(mass)[1] @ e))))

ok = True
for nodes, lo, hi in (("file", 2.8, 3.5), ("blend", 3.6, 4.4)):
    errs = [disc_l2_error(f"{w}/poisson-disc-{nodes}-{h}.h5", f"{w}/mass-disc-{nodes}-{h}.h5") for h in disc]
    ok &= rate_in_band(f"P3 on the order-3 disc, nodes {nodes}, L2", [float(h) for h in disc], errs, lo, hi)
for nodes, lo, hi in (("file", 2.8, 3.8), ("blend", 3.9, 4.8)):
    errs = [ball_l2_error(f"{w}/poisson-ball-{nodes}-{h}.h5", f"{w}/mass-ball-{nodes}-{h}.h5") for h in ball]
    ok &= rate_in_band(f"P3 on the order-3 ball, nodes {nodes}, L2", [float(h) for h in ball], errs, lo, hi)
# area and perimeter with blend: the load of f = 1 on the cells, of 1 on the boundary (separate dofs sums)
area = [abs(h5py.File(f"{w}/measure-{h}.h5")["rhs"][:].sum() - math.pi - 2 * math.pi) for h in disc]
ok &= rate_in_band("area + perimeter of the blended order-3 disc", [float(h) for h in disc], area, 3.6, 4.4)
sys.exit(0 if ok else 1)
EOF
# nothing to blend on an order-2 mesh: the same file bit for bit
for nodes in file blend; do
  "$FEINT" run --quiet "$WORK/poisson.yaml" --set mesh.file="$WORK/disc2.geo" --set mesh.size=0.3 \
    --set mesh.curved_nodes=$nodes --set space.order=2 -o "$WORK/order2-$nodes.h5" || fail "order 2, $nodes"
done
same_bits "$WORK/order2-file.h5" "$WORK/order2-blend.h5" "order-2 disc, blend against file" rhs matrix/data
expect_bad "a bad curved_nodes" "mesh.curved_nodes.*(file|blend)" run "$WORK/poisson.yaml" \
  --set mesh.curved_nodes=smooth -o "$WORK/out.h5"
echo "ok: t29"
