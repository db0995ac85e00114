# Linear elasticity annihilates the rigid body modes: 3 in 2D, 6 in 3D.
source "$(dirname "$0")/lib.sh"
for spec in "square.geo 1 0.25" "square.geo 2 0.3" "cube.geo 1 0.5" "cube.geo 2 0.6"; do
  set -- $spec
  write_case e.yaml <<EOF
mesh: {file: $(geo $1), size: $3}
space: {order: $2}
physics: {kind: elasticity, E: "1 + x", nu: 0.3}
EOF
  "$FEINT" run --quiet "$WORK/e.yaml" -o "$WORK/e.h5"
  $PY "$ROOT/tests/cli/fe_checks.py" rigid "$WORK/e.h5"
done
