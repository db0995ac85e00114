# A headless render of a result (issue 23): cases/poisson-dirichlet.yaml
# run with output.xdmf, its load vector drawn by VTK (python3-vtk9) from
# what meshio reads of the XDMF file, off screen under Xvfb
# (render_xdmf.py). The picture's colour range is the dataset's min and
# max, and (2D) the pixels where the field is lowest and highest have the
# map's two end colours (within a tenth of the map). The
# picture stays in $FEINT_RENDER_DIR when that is set, to look at.
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
