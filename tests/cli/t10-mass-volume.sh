# Mass matrices sum to the domain volume (P1 and P2, 2D and 3D).
source "$(dirname "$0")/lib.sh"
for spec in "square.geo 1 0.1" "square.geo 2 0.1" "cube.geo 1 0.3" "cube.geo 2 0.3"; do
  set -- $spec
  write_case m.yaml <<EOF
mesh: {file: $(geo $1), size: $3}
space: {order: $2}
physics: {kind: mass}
output: {element_matrices: true}
EOF
  "$FEINT" run --quiet "$WORK/m.yaml" -o "$WORK/m.h5"
  $PY "$ROOT/tests/cli/fe_checks.py" sum "$WORK/m.h5" 1.0
done
