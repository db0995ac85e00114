# Manufactured Poisson problem solved from the exported matrix with SciPy:
# L2 error converges at order p+1 over three refinements, 2D and 3D, and
# the residual at the exact solution shrinks (energy norm, at least order p).
source "$(dirname "$0")/lib.sh"
run_pair() { # geo order size name dim
  local src exact
  if [ "$5" = 2 ]; then src="2*pi^2*sin(pi*x)*sin(pi*y)"; exact="sin(pi*x)*sin(pi*y)"
  else src="3*pi^2*sin(pi*x)*sin(pi*y)*sin(pi*z)"; exact="sin(pi*x)*sin(pi*y)*sin(pi*z)"; fi
  write_case c.yaml <<EOF
mesh: {file: $(geo $1), size: $3}
space: {order: $2}
physics: {kind: poisson, source: "$src"}
state: {u: "$exact"}
EOF
  "$FEINT" run --quiet "$WORK/c.yaml" -o "$WORK/$4-p.h5"
  "$FEINT" run --quiet "$WORK/c.yaml" -o "$WORK/$4-m.h5" --set physics.kind=mass
  echo "$WORK/$4-p.h5,$WORK/$4-m.h5"
}
for order in 1 2; do
  pairs=(); for h in 0.2 0.1 0.05; do pairs+=("$(run_pair square.geo $order $h s$h 2)"); done
  $PY "$ROOT/tests/cli/fe_checks.py" convergence $order "${pairs[@]}"
  pairs=(); for h in 0.25 0.125 0.0625; do pairs+=("$(run_pair cube.geo $order $h c$h 3)"); done
  $PY "$ROOT/tests/cli/fe_checks.py" convergence $order "${pairs[@]}"
done
