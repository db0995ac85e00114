# Stiffness (variable coefficient): rows sum to zero, symmetric.
source "$(dirname "$0")/lib.sh"
for spec in "square.geo 1 0.1" "square.geo 2 0.1" "cube.geo 1 0.3" "cube.geo 2 0.3"; do
  set -- $spec
  write_case p.yaml <<EOF
mesh: {file: $(geo $1), size: $3}
space: {order: $2}
physics: {kind: poisson, kappa: "1 + x*x + y"}
EOF
  "$FEINT" run --quiet "$WORK/p.yaml" -o "$WORK/p.h5"
  $PY "$ROOT/tests/cli/fe_checks.py" laplacian "$WORK/p.h5"
done
