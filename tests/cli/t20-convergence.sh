# Manufactured Poisson problem solved from the exported matrix with SciPy:
# L2 error converges at order p+1 over three refinements, 2D and 3D, and
# the residual at the exact solution shrinks (energy norm, at least order p).
# Orders 3..4 and the P1..P7 sums: t21-high-order.sh.
source "$(dirname "$0")/lib.sh"
for order in 1 2; do
  pairs=(); for h in 0.2 0.1 0.05; do pairs+=("$(manufactured_pair square.geo $order $h s$h 2)"); done
  $PY "$ROOT/tests/cli/fe_checks.py" convergence $order "${pairs[@]}"
  pairs=(); for h in 0.25 0.125 0.0625; do pairs+=("$(manufactured_pair cube.geo $order $h c$h 3)"); done
  $PY "$ROOT/tests/cli/fe_checks.py" convergence $order "${pairs[@]}"
done
