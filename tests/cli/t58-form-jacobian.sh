# User forms' Jacobians (issue 19): for k(u) = k0 + beta u^2, a Bratu
# source lambda e^u and a p-Laplacian (p = 3), the matrix feint derives
# agrees with finite differences of its residual (central differences:
# error slope 2, forward: 1, along a random direction) and equals the one
# from hand-written g0..g3 (P2 triangles, P1 tetrahedra); a Newton solve
# of -div((k0 + beta u^2) grad u) = f driven from Python, one `feint run
# --set state.u=...` per iteration, converges quadratically, and its
# solution at the element's order (P2: 3, max nodal error, refined twice).
source "$(dirname "$0")/lib.sh"
$PY "$ROOT/tests/cli/form_checks.py" fd "$FEINT" "$WORK" "$(geo square.geo)" 0.2 2
$PY "$ROOT/tests/cli/form_checks.py" fd "$FEINT" "$WORK" "$(geo cube.geo)" 0.4 1
# under the sanitizers the first mesh only (lib.sh: levels)
$PY "$ROOT/tests/cli/form_checks.py" newton "$FEINT" "$WORK" "$(geo square.geo)" 0.2 2 "$(levels 1 2 3 | wc -w)"
