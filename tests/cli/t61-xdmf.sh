# output.xdmf (issue 23): an XDMF file beside the HDF5 file whose mesh and
# fields are views into it, read back by meshio (Debian's python3-meshio)
# and checked against independent truth (xdmf_checks.py): the points are
# /dofs/coordinates; every drawn cell lies in one cell of the file's dof
# map; second-order cells put each node where VTK's own cell puts its
# parametric point; cells of order >= 3 (and mixed meshes' at order 2) are
# cut into first-order pieces of positive, equal measure (affine cells)
# summing to the domain's; fields equal their datasets. Every shape at
# orders 1-3 (P4 on tetrahedra), scalar and vector, mixed meshes in 2D and
# 3D, cell fields (physical groups, per-cell coefficients), and sweeps as
# a time series in both layouts.
source "$(dirname "$0")/lib.sh"
export PYTHONPATH="$ROOT/tests/cli${PYTHONPATH:+:$PYTHONPATH}"
check() { # NAME GEO (in cases/, or a path) SIZE ORDER COMPONENTS PHYSICS STATE MEASURE [curved]
  local mesh=$2
  [ "${mesh#/}" != "$mesh" ] || mesh=$(geo "$2")
  printf 'mesh: {file: %s, size: %s}\nspace: {order: %s, components: %s}\nphysics: %s\nstate: {u: %s}\noutput: {residual: true, xdmf: true}\n' \
    "$mesh" "$3" "$4" "$5" "$6" "$7" > "$WORK/$1.yaml"
  "$FEINT" run --quiet "$WORK/$1.yaml" -o "$WORK/$1.h5" || fail "$1: the run"
  [ -f "$WORK/$1.xdmf" ] || fail "$1: no XDMF file beside the HDF5 file"
  (cd "$WORK" && $PY "$ROOT/tests/cli/xdmf_checks.py" "$1" "$4" "$5" "$8" ${9:-}) || fail "$1: the XDMF file is wrong"
}
poisson='{kind: poisson, kappa: "1 + x", source: "x*y"}'
elastic='{kind: elasticity, E: 1, nu: 0.3}'
check p1-tet cube.geo 0.5 1 1 "$poisson" '"x*y + z"' 1
check p2-tet-vec cube.geo 0.5 2 3 "$elastic" '["x", "y*z", "z*x"]' 1
check p3-tet cube.geo 0.5 3 1 "$poisson" '"x*y + z"' 1
check p4-tet cube.geo 0.7 4 1 "$poisson" '"x*y + z"' 1
check p2-tri square.geo 0.2 2 1 "$poisson" '"sin(x)*y"' 1
check p1-tri-vec square.geo 0.2 1 2 "$elastic" '["x*y", "y"]' 1
check p3-tri-vec square.geo 0.3 3 2 "$elastic" '["x*y", "y"]' 1
check q1-hex hexcube.geo 0.5 1 1 "$poisson" '"x*y + z"' 1
check q1-hex-vec hexcube.geo 0.5 1 3 "$elastic" '["x", "y*z", "z*x"]' 1
check q2-hex hexcube.geo 0.5 2 1 "$poisson" '"x*y + z"' 1
check q3-hex-vec hexcube.geo 0.5 3 3 "$elastic" '["x", "y*z", "z*x"]' 1
check q1-quad quadsquare.geo 0.25 1 2 "$elastic" '["x*y", "y"]' 1 curved
check q2-quad quadsquare.geo 0.25 2 1 "$poisson" '"sin(x)*y"' 1 curved
check q3-quad quadsquare.geo 0.25 3 1 "$poisson" '"sin(x)*y"' 1 curved
check p1-prism prismcube.geo 0.5 1 1 "$poisson" '"x*y + z"' 1
check p2-prism prismcube.geo 0.5 2 1 "$poisson" '"x*y + z"' 1
check p3-prism-vec prismcube.geo 0.5 3 3 "$elastic" '["x", "y*z", "z*x"]' 1
check mixed3d-p1 mixedcube.geo 0.5 1 1 "$poisson" '"x*y + z"' 1
check mixed3d-p2 mixedcube.geo 0.5 2 1 "$poisson" '"x*y + z"' 1
check mixed3d-p3 mixedcube.geo 0.5 3 1 "$poisson" '"x*y + z"' 1
check mixed3d-3shapes-p2 "$ROOT/tests/data/tet_prism_hex_cube.geo" 0.5 2 3 "$elastic" '["x", "y*z", "z*x"]' 1.25 curved
check mixed3d-3shapes-p3 "$ROOT/tests/data/tet_prism_hex_cube.geo" 0.5 3 1 "$poisson" '"x*y + z"' 1.25 curved
check mixed2d-p2 mixedsquare.geo 0.3 2 2 "$elastic" '["x*y", "y"]' 1
echo "ok: meshio reads every shape and order, drawn where VTK draws them"

# curved cells: drawn through their map, a second-order disc's boundary
# edges bend onto the circle (straight ones would miss it by h^2/8)
for g in 1 2; do
  curved_geo "$WORK/disc$g.geo" tri $g
  check disc$g "$WORK/disc$g.geo" 0.3 2 1 '{kind: poisson, source: "1"}' '"x*y"' 0 curved
  (cd "$WORK" && $PY - disc$g $g <<'PYEOF') || fail "disc$g: the boundary's edge nodes"
import sys, meshio, numpy as np, xdmf_checks as xc
m = meshio.read(sys.argv[1] + ".xdmf")
r = np.linalg.norm(m.points[xc.boundary_edge_nodes(m), :2], axis=1)
off = np.abs(r - 1).max()
print("  geometry order %s: boundary edge nodes %d, off the circle by %.2e" % (sys.argv[2], len(r), off))
assert (off < 1e-12) if sys.argv[2] == "2" else (off > 1e-3), off
PYEOF
done
echo "ok: curved cells are drawn curved"

# the near-null space's modes are point fields too (rigid motions: the
# modes' values at the points are rotations and translations of them)
"$FEINT" run --quiet "$WORK/p2-tet-vec.yaml" --set output.near_null_space=true -o "$WORK/nns.h5" || fail "near-null space"
"$FEINT" run --quiet "$WORK/p1-tet.yaml" --set output.near_null_space=true -o "$WORK/nns1.h5" || fail "near-null space"
(cd "$WORK" && $PY - <<'PYEOF') || fail "near-null space modes"
import numpy as np, xdmf_checks as xc
m, f, _ = xc.check("nns", 2, 3, 1.0)
X = m.points
for k in range(6):
    v = m.point_data["near_null_space_%d" % k][::3]
    P = X[::3]
    # each mode is a rigid motion a + w x x: its symmetric gradient vanishes
    A = np.c_[np.ones(len(P)), P]
    coef, res, *_ = np.linalg.lstsq(A, v, rcond=None)
    G = coef[1:].T
    assert np.allclose(A @ coef, v, atol=1e-12) and np.allclose(G + G.T, 0, atol=1e-12), k
print("  6 rigid motions")
m, f, _ = xc.check("nns1", 1, 1, 1.0)
assert np.ptp(m.point_data["near_null_space_0"]) == 0, "the scalar space's mode is a constant"
PYEOF
echo "ok: the near-null space's modes as point fields"

# cell fields: the physical group and a coefficient given per group
check groups two-materials.geo 0.25 2 1 '{kind: poisson, kappa: {groups: {inner: 1, outer: 10}}}' '"x"' 1
(cd "$WORK" && $PY - <<'PYEOF') || fail "cell fields"
import numpy as np, xdmf_checks as xc
m, f, cells = xc.check("groups", 2, 1, 1.0)
x = xc.centroids(m)[:, 0]
inner = x < 0.5
g, kappa = cells["group"], cells["kappa"]
assert len(set(g[inner])) == 1 and len(set(g[~inner])) == 1 and g[inner][0] != g[~inner][0], "groups by side"
assert np.all(kappa[inner] == 1) and np.all(kappa[~inner] == 10), "kappa by side"
print("  group tags %d (x < 0.5) and %d; kappa 1 and 10" % (g[inner][0], g[~inner][0]))
PYEOF
echo "ok: cell fields: the physical groups and a coefficient given per group"
# 2 ranks write the one-rank file, XDMF views and cell fields included
same_on_two_ranks "XDMF" "$WORK/groups.h5" "$WORK/groups.yaml"
if [ -e "$WORK/two-ranks.h5" ]; then
  (cd "$WORK" && $PY "$ROOT/tests/cli/xdmf_checks.py" two-ranks 2 1 1) || fail "2 ranks: the XDMF file is wrong"
  echo "ok: 2 ranks write the one-rank file and its XDMF file"
fi

# sweeps: a time series of the members, in one file and in a file each
for layout in groups files; do
  write_case sw-$layout.yaml <<YAML
mesh: {file: $(geo cube.geo), size: 0.5}
space: {order: 3}
physics: {kind: poisson, source: "x"}
state: {u: "x*y"}
output: {residual: true, rhs: true, xdmf: true}
sweep: {layout: $layout, product: {physics.kappa: [1, 2, 5]}}
YAML
  "$FEINT" run --quiet "$WORK/sw-$layout.yaml" -o "$WORK/sw-$layout.h5" || fail "sweep ($layout)"
  (cd "$WORK" && $PY - "$layout" <<'PYEOF') || fail "sweep ($layout): the time series"
import sys, h5py, meshio, numpy as np
layout = sys.argv[1]
with meshio.xdmf.TimeSeriesReader("sw-%s.xdmf" % layout) as r:
    points, cells = r.read_points_cells()
    assert r.num_steps == 3, r.num_steps
    for k in range(3):
        t, pd, cd = r.read_data(k)
        f = h5py.File("sw-groups.h5" if layout == "groups" else "sw-files-%d.h5" % k, "r")
        g = f["member_%04d" % k] if layout == "groups" else f
        assert t == k and np.array_equal(points, g["dofs/coordinates"][()]), k
        for field in ("residual", "rhs"):
            assert np.array_equal(pd[field], g[field][()]), (k, field)
    # the members are themselves: kappa 1, 2, 5 scale K u in R = kappa K u - b
    R = [r.read_data(k)[1]["residual"] for k in range(3)]
    assert np.allclose(R[2] - R[0], 4 * (R[1] - R[0]), atol=1e-12) and np.abs(R[1] - R[0]).max() > 1e-3, "members"
print("  %s: 3 members, %d points, %d pieces" % (layout, len(points), sum(len(c.data) for c in cells)))
PYEOF
done
echo "ok: sweeps: the members as a time series, in both layouts"

# an HDF5 file named .xdmf is not overwritten by its XDMF file
"$FEINT" run --quiet "$WORK/p1-tet.yaml" -o "$WORK/odd.xdmf" || fail "output named .xdmf"
$PY -c 'import h5py, sys; h5py.File(sys.argv[1], "r")["residual"]' "$WORK/odd.xdmf" || fail "the HDF5 file was overwritten"
grep -q "odd.xdmf:/residual" "$WORK/odd.xdmf.xdmf" || fail "no odd.xdmf.xdmf"

# operator runs: the hexahedra drawn by the operator's dof map (Q4: cut
# into 64 pieces a cell), x and y as point fields; a sweep of orders
printf 'mesh: {file: %s, refine: 1}\nspace: {order: 4}\noperator: {kind: bp3.5, lambda: 1}\nstate: {u: "sin(x)*y + z"}\noutput: {xdmf: true}\n' \
  "$(geo hexcube.geo)" > "$WORK/op.yaml"
"$FEINT" run --quiet "$WORK/op.yaml" -o "$WORK/op.h5" || fail "operator run"
(cd "$WORK" && $PY "$ROOT/tests/cli/xdmf_checks.py" op 4 1 1) || fail "operator run: the XDMF file is wrong"
"$FEINT" run --quiet "$WORK/op.yaml" --set 'sweep={product: {space.order: [1, 2, 3]}}' -o "$WORK/ops.h5" \
  || fail "operator sweep"
(cd "$WORK" && $PY - <<'PYEOF') || fail "operator sweep: the time series"
import h5py, meshio, numpy as np
with meshio.xdmf.TimeSeriesReader("ops.xdmf") as r:
    r.read_points_cells()  # the first member's mesh (meshio takes one mesh for all)
    assert r.num_steps == 3, r.num_steps
    for k in range(3):
        t, pd, _ = r.read_data(k)
        f = h5py.File("ops-%d.h5" % k, "r")
        assert np.array_equal(pd["y"], f["operator/y"][()]) and np.array_equal(pd["x"], f["operator/x"][()]), k
print("  an operator sweep of orders 1-3: 3 members")
PYEOF
echo "ok: operator runs are drawn, their vectors x and y as point fields"
