# Sweep members that change only the form's data (coefficients, source,
# state u) reuse the previous member's backend (update_form): each member's
# residual, rhs, element matrices and CSR matrix equal a separate run of
# that member bitwise, on simplices (P1, P2), tensor cells (Q2, the tensor
# kernels) and a vector form (elasticity); members that change a field's
# kind, the order or the outputs needing a matrix re-create it (and the
# progress says why), and FEINT_BACKEND_REUSE=0 re-creates it for every
# member with the same results.
source "$(dirname "$0")/lib.sh"
SWEEP_ARGS=(--backend cpu)
write_case p.yaml <<EOF
mesh: {file: $(geo square.geo), size: 0.15}
physics: {kind: helmholtz, kappa: 1, lambda: 2, source: "x*y"}
state: {u: "x + y*y"}
output: {residual: true, rhs: true, matrix: true, element_matrices: true}
EOF
cell_datasets p.yaml
# constants, the state, the source, nodal and per-cell fields of the same
# kind reuse; a kind change (constant -> nodal raises the quadrature
# degree; nodal -> per cell) and the order re-create
K="{file: k.h5, dataset: /a, on: cell}"; K2="{file: k.h5, dataset: /b, on: cell}"
sweep_vs_separate p.yaml 0111010101010 0 \
  "physics.kappa=1" "physics.kappa=2.5" "physics.kappa=2.5;state.u=\"x*x - y\"" \
  "physics.kappa=2.5;physics.source=\"sin(x)\"" "physics.kappa=\"1 + x*y\"" "physics.kappa=\"2 - x\"" \
  "physics.kappa=$K" "physics.kappa=$K2" "physics.lambda=$K2" "physics.lambda=$K" \
  "space.order=2" "space.order=2;physics.kappa=3" "space.order=1;physics.kappa=3"
grep -q "setup (new backend: coefficient field 0 changed from constant to nodal)" "$WORK/progress" ||
  fail "the reason for a new backend: $(grep setup "$WORK/progress")"
# without the matrix output another plan (none) is asked for: a new backend
sweep_vs_separate p.yaml 010 0 "physics.kappa=1" "physics.kappa=4" "physics.kappa=5;output.matrix=false"
# tensor-product cells (the sum-factorised kernels hold the form's rules)
write_case q.yaml <<EOF
mesh: {file: $(geo quadsquare.geo), size: 0.25}
space: {order: 2}
physics: {kind: poisson, kappa: "1 + x", source: "x - y"}
state: {u: "x*y"}
output: {residual: true, rhs: true, matrix: true, element_matrices: true}
EOF
sweep_vs_separate q.yaml 011 0 "physics.kappa=\"1 + x\"" "physics.kappa=\"3 - y\"" "state.u=\"x + 1\""
# a vector form: elasticity from E and nu (Lame fields) on a 3D mesh
elasticity_case e.yaml 0.4
sweep_vs_separate e.yaml 0110 0 "physics.E=1" "physics.E=2;physics.nu=0.25" "state.u=[1, \"x\", 0]" \
  "physics.E=\"1 + x\""
# FEINT_BACKEND_REUSE=0: every member re-creates its backend, same results
FEINT_BACKEND_REUSE=0 sweep_vs_separate p.yaml 000 0 "physics.kappa=1" "physics.kappa=2" "state.u=\"x\""
grep -q "setup (new backend: FEINT_BACKEND_REUSE=0)" "$WORK/progress" || fail "$(grep setup "$WORK/progress")"
FEINT_BACKEND_REUSE=yes expect_bad "bad FEINT_BACKEND_REUSE" "FEINT_BACKEND_REUSE=yes: expected 0 or 1" \
  run "$WORK/p.yaml" -o "$WORK/out.h5"
