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
# uniform refinement: 4x (2D) / 8x (3D) the cells, same volume
for spec in "square.geo 0.2 4" "cube.geo 0.5 8"; do
  set -- $spec
  printf 'mesh: {file: %s, size: %s}\nphysics: {kind: mass}\n' "$(geo $1)" "$2" > "$WORK/r.yaml"
  n0=$("$FEINT" check "$WORK/r.yaml" | sed 's/.*(\([0-9]*\) cells.*/\1/')
  n1=$("$FEINT" check "$WORK/r.yaml" --set mesh.refine=1 | sed 's/.*(\([0-9]*\) cells.*/\1/')
  [ "$n1" -eq $(( $3 * n0 )) ] || fail "refine: $n0 -> $n1 cells, expected x$3"
  "$FEINT" run --quiet "$WORK/r.yaml" -o "$WORK/r.h5" --set mesh.refine=1
  $PY "$ROOT/tests/cli/fe_checks.py" sum "$WORK/r.h5" 1.0
done
