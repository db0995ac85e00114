# Sweep members on the cuda backend that change only the form's data reuse
# the previous member's backend (update_form re-uploads the coefficients)
# and agree with the same members run alone: bitwise for the colored and
# gather strategies (and in single precision), within 1e-12 for atomic
# (its sums have no fixed order). Covers the P1 kernels with a constant, a
# nodal (the packed node records) and a per-cell coefficient (the
# curve-ordered views), P1 elasticity with per-cell Lame fields (the
# colour-sorted views of the per-cell matrix kernel), P2 Helmholtz (the
# thread-transposition kernels) and the element-matrix backend (P3
# tetrahedra with constant, per-cell and nodal kappa, P3 elasticity on
# tetrahedra, P3 Helmholtz on twisted prisms), whose update_form copies the
# new field values into its device arrays; a member whose fields change
# kind gets a new backend, saying why.
source "$(dirname "$0")/../cli/lib.sh"
require_gpu
write_case p.yaml <<EOF
mesh: {file: $(geo cube.geo), size: 0.1}
physics: {kind: poisson, kappa: "1 + x*y", source: "x - z"}
state: {u: "x*y*z + y"}
output: {residual: true, rhs: true, matrix: true, element_matrices: true}
EOF
cell_datasets p.yaml
K="{file: k.h5, dataset: /a, on: cell}"; K2="{file: k.h5, dataset: /b, on: cell}"
P1=("physics.kappa=\"1 + x*y\"" "physics.kappa=\"2 - z\"" "state.u=\"x - y*y\"" "physics.source=\"sin(y)\""
    "physics.kappa=$K" "physics.kappa=$K2" "physics.kappa=3" "physics.kappa=4.5")
for s in colored gather; do
  echo "P1 Poisson, $s:"
  SWEEP_ARGS=(--backend cuda --set assembly.strategy=$s)
  sweep_vs_separate p.yaml 01110101 0 "${P1[@]}"
done
echo "P1 Poisson, colored, cells in curve order (FEINT_CUDA_ORDER=1):"
SWEEP_ARGS=(--backend cuda)
FEINT_CUDA_ORDER=1 sweep_vs_separate p.yaml 01110101 0 "${P1[@]}"
echo "P1 Poisson, atomic:"
SWEEP_ARGS=(--backend cuda --set assembly.strategy=atomic)
sweep_vs_separate p.yaml 01110101 1e-12 "${P1[@]}"
echo "P1 Poisson, single precision:"
SWEEP_ARGS=(--backend cuda --set backend.precision=single)
sweep_vs_separate p.yaml 01110101 0 "${P1[@]}"
elasticity_case e.yaml 0.15
cell_datasets e.yaml
for s in colored gather; do
  echo "P1 elasticity, $s:"
  SWEEP_ARGS=(--backend cuda --set assembly.strategy=$s)
  sweep_vs_separate e.yaml 01011 0 "physics.E=1" "physics.E=2;physics.nu=0.25" "physics.E=$K" \
    "physics.E=$K2;physics.nu=0.2" "physics.E=$K2;state.u=[1, \"x\", \"z*z\"]"
done
write_case h.yaml <<EOF
mesh: {file: $(geo square.geo), size: 0.05}
space: {order: 2}
physics: {kind: helmholtz, kappa: "1 + x*x", lambda: 2, source: "sin(x) + y"}
state: {u: "x*y - y"}
output: {residual: true, rhs: true, matrix: true, element_matrices: true}
EOF
echo "P2 Helmholtz, colored:"
SWEEP_ARGS=(--backend cuda)
sweep_vs_separate h.yaml 0111 0 "physics.lambda=2" "physics.lambda=5" "physics.kappa=\"2 + y\"" "state.u=\"x\""
write_case t.yaml <<EOF
mesh: {file: $(geo cube.geo), size: 0.3}
space: {order: 3}
physics: {kind: poisson, kappa: 1, source: "x"}
state: {u: "x*y"}
output: {residual: true, rhs: true, matrix: true, element_matrices: true}
EOF
echo "P3 tetrahedra (element-matrix backend):"
cell_datasets t.yaml
sweep_vs_separate t.yaml 01010101 0 "physics.kappa=1" "physics.kappa=2" "physics.kappa=$K" "physics.kappa=$K2" \
  "physics.kappa=\"1 + x\"" "physics.kappa=\"2 - y*z\"" "physics.source=\"sin(y)\"" "state.u=\"x - z\""
grep -q "setup (new backend: coefficient field 0 changed from constant to per cell)" "$WORK/progress" ||
  fail "$(grep setup "$WORK/progress")"
write_case te.yaml <<EOF
mesh: {file: $(geo cube.geo), size: 0.5}
space: {order: 3, components: 3}
physics: {kind: elasticity, E: 1, nu: 0.3, source: [1, "x", "y*z"]}
state: {u: ["x*y", "y*z", "z - x"]}
output: {residual: true, rhs: true, matrix: true, element_matrices: true}
EOF
for s in colored gather; do
  echo "P3 elasticity on tetrahedra (element-matrix backend, vector form), $s:"
  SWEEP_ARGS=(--backend cuda --set assembly.strategy=$s)
  sweep_vs_separate te.yaml 0101 0 "physics.E=1" "physics.E=2;physics.nu=0.25" "physics.E=\"1 + x\"" \
    "physics.E=\"2 + y\";state.u=[1, \"x\", \"z*z\"]"
done
write_case tp.yaml <<EOF
mesh: {file: $ROOT/tests/data/twisted_prism.geo}
space: {order: 3}
physics: {kind: helmholtz, kappa: "1 + x*y", lambda: 2, source: "z"}
state: {u: "x - y*z"}
output: {residual: true, rhs: true, matrix: true, element_matrices: true}
EOF
echo "P3 twisted prisms (element-matrix backend):"
SWEEP_ARGS=(--backend cuda)
sweep_vs_separate tp.yaml 0111 0 "physics.kappa=\"1 + x*y\"" "physics.kappa=\"2 + z\"" "physics.lambda=3" \
  "physics.source=\"x*x\";state.u=\"y\""
