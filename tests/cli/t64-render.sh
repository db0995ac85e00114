# A headless render of a result (issue 23): cases/poisson-dirichlet.yaml
# run with output.xdmf, its load vector drawn by VTK (python3-paraview's) from
# what meshio reads of the XDMF file, off screen under Xvfb
# (render_xdmf.py). The picture's colour range is the dataset's min and
# max, and (2D) the pixels where the field is lowest and highest have the
# map's two end colours (within a tenth of the map). The
# picture stays in $FEINT_RENDER_DIR when that is set, to look at.
# ParaView's own reader then opens each kind of file (paraview_read.py).
source "$(dirname "$0")/lib.sh"
command -v xvfb-run > /dev/null || fail "no xvfb-run (bash tests/deps.sh test)"
cd "$WORK"
"$FEINT" run --quiet "$ROOT/cases/poisson-dirichlet.yaml" --set output.xdmf=true -o pd.h5 || fail "the run"
render() { # FILE FIELD DATASET [3d: the ends may lie inside]
  out=$(xvfb-run -a $PY "$ROOT/tests/cli/render_xdmf.py" "$1.xdmf" "$2" "$1-$2.png" 2> render.err) \
    || { cat render.err >&2; fail "render of $1's $2"; }
  echo "$out" | sed 's/^/  /'
  [ -s "$1-$2.png" ] || fail "no picture"
  $PY - "$1.h5" "$3" "$out" ${4:-} <<'PYEOF' || fail "$1's $2: the picture's colours"
import sys, h5py
v = h5py.File(sys.argv[1], "r")[sys.argv[2]][()]
lines = dict(l.split(None, 1) for l in sys.argv[3].splitlines())
lo, hi = map(float, lines["range"].split())
assert (lo, hi) == (v.min(), v.max()), ("colour range", lo, hi, v.min(), v.max())
low, high = map(float, lines["ends"].split())
assert sys.argv[4:] == ["3d"] or (low < 1 and high < 1), ("the lowest and highest points' colours are not the map's ends", low, high)
PYEOF
  if [ -n "${FEINT_RENDER_DIR:-}" ]; then cp "$1-$2.png" "$FEINT_RENDER_DIR/"; fi
}
render pd rhs rhs
# a 3D P3 result, cut into first-order pieces
printf 'mesh: {file: %s, size: 0.3}\nspace: {order: 3}\nphysics: {kind: poisson, source: "x"}\nstate: {u: "sin(3*x)*y + z"}\noutput: {residual: true, xdmf: true}\n' \
  "$(geo cube.geo)" > p3.yaml
"$FEINT" run --quiet p3.yaml -o p3.h5 || fail "the P3 run"
render p3 residual residual 3d
echo "ok: the pictures' colour ranges are the fields' min and max"

# ParaView's own reader (Debian's paraview, pvpython) opens every kind of
# file: second-order cells as VTK's quadratic cells, cut cells, mixed
# meshes, vectors, sweeps in both layouts as time steps, an operator sweep
# of orders (a mesh a step)
command -v pvpython > /dev/null || fail "no pvpython (bash tests/deps.sh test)"
pv() { # NAME GEO SIZE ORDER COMPONENTS PHYSICS [SWEEP]
  local u='"x*y"'
  [ "$5" = 1 ] || u='["x*y", "z", "x"]'
  printf 'mesh: {file: %s, size: %s}\nspace: {order: %s, components: %s}\nphysics: %s\nstate: {u: %s}\noutput: {residual: true, xdmf: true}\n%s\n' \
    "$2" "$3" "$4" "$5" "$6" "$u" "${7:-}" > "pv-$1.yaml"
  "$FEINT" run --quiet "pv-$1.yaml" -o "pv-$1.h5" || fail "pv-$1: the run"
}
poisson='{kind: poisson, kappa: "1 + x", source: "x"}'
pv p3-tet "$(geo cube.geo)" 0.5 3 1 "$poisson"
pv q2-hex "$(geo hexcube.geo)" 0.5 2 1 "$poisson"
pv q3-hex-vec "$(geo hexcube.geo)" 0.5 3 3 '{kind: elasticity, E: 1, nu: 0.3}'
pv p2-prism "$(geo prismcube.geo)" 0.5 2 1 "$poisson"
pv p2-tri "$(geo square.geo)" 0.3 2 1 "$poisson"
pv q2-quad "$(geo quadsquare.geo)" 0.3 2 1 "$poisson"
pv p2-mixed "$(geo mixedcube.geo)" 0.5 2 1 "$poisson"
pv p1-mixed2d "$(geo mixedsquare.geo)" 0.3 1 1 "$poisson"
pv sw-files "$(geo cube.geo)" 0.5 2 1 "$poisson" 'sweep: {product: {physics.kappa: [1, 2]}}'
pv sw-groups "$(geo cube.geo)" 0.5 2 1 "$poisson" 'sweep: {layout: groups, product: {physics.kappa: [1, 2]}}'
printf 'mesh: {file: %s}\nspace: {order: 3}\noperator: {kind: bp3.5, lambda: 1}\nstate: {u: "x*y"}\noutput: {xdmf: true}\nsweep: {product: {space.order: [1, 3]}}\n' \
  "$(geo hexcube.geo)" > pv-op.yaml
"$FEINT" run --quiet pv-op.yaml -o pv-op.h5 || fail "pv-op: the run"
xvfb-run -a pvpython "$ROOT/tests/cli/paraview_read.py" "$PWD/pv-op:12:pv-op-0.h5,pv-op-1.h5" "$PWD/pv-p3-tet:10" "$PWD/pv-q2-hex:29" "$PWD/pv-q3-hex-vec:12" \
  "$PWD/pv-p2-prism:32" "$PWD/pv-p2-tri:22" "$PWD/pv-q2-quad:28" "$PWD/pv-p2-mixed:10,13" "$PWD/pv-p1-mixed2d:5,9" \
  "$PWD/pv-sw-files:24:pv-sw-files-0.h5,pv-sw-files-1.h5" \
  "$PWD/pv-sw-groups:24:pv-sw-groups.h5@member_0000,pv-sw-groups.h5@member_0001" > pv.out 2> pv.err \
  || { grep -v "^ *[0-9]* *0x" pv.err | head -20 >&2; fail "ParaView's reader"; }
cat pv.out
echo "ok: ParaView opens every kind of XDMF file feint writes"
