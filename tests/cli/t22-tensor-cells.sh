# Quadrilaterals and hexahedra in the assembled path (issue 4), checked
# with SciPy from the exported matrices:
#  - mass matrices sum to the volume (exact areas, and a twisted hexahedral
#    mesh whose trilinear volume fe_checks.py computes from the vertices),
#    Poisson matrices are symmetric with zero row sums and pass the patch
#    test (A x = 0 inside for the linear function x: fails if non-affine
#    cells were treated as affine), for several orders;
#  - elasticity on distorted quadrilaterals annihilates exactly the rigid
#    body modes;
#  - manufactured Poisson solutions converge in L2 at rate >= p+1-0.3,
#    p = 1..4, on unstructured quadrilaterals and on hexahedra that are not
#    parallelepipeds;
#  - the assembled mass / screened Poisson matrix times x equals the BP1.0 /
#    BP3.0 operator's y = A x on the same (twisted) hexahedral mesh, orders
#    1..4 (the hexahedral space uses the BP dof numbering);
#  - bad input: cuda backend, boundary conditions on hexahedra, Neumann
#    beyond order 2 on quadrilaterals.
source "$(dirname "$0")/lib.sh"
data() { echo "$ROOT/tests/data/$1"; }
run() { "$FEINT" run --quiet "$@"; }
check() { $PY "$ROOT/tests/cli/fe_checks.py" "$@"; }
write_case m.yaml <<EOF
mesh: {file: $(data trapezoid.geo)}
space: {order: 1}
physics: {kind: mass}
EOF
# sums, Laplacians, patch test: mesh, volume (or "trilinear"), box domain?, orders
sums() {
  local mesh=$1 vol=$2 box=$3; shift 3
  if [ "$vol" = trilinear ]; then
    run "$WORK/m.yaml" -o "$WORK/v.h5" --set mesh.file="$mesh"
    vol=$($PY -c "import sys; sys.path.insert(0, '$ROOT/tests/cli'); import fe_checks; print(repr(fe_checks.trilinear_volume('$WORK/v.h5')))")
  fi
  for p in "$@"; do
    run "$WORK/m.yaml" -o "$WORK/m.h5" --set mesh.file="$mesh" --set space.order=$p
    run "$WORK/m.yaml" -o "$WORK/p.h5" --set mesh.file="$mesh" --set space.order=$p --set physics.kind=poisson
    echo "$(basename "$mesh") p$p"
    check sum "$WORK/m.h5" "$vol"
    check laplacian "$WORK/p.h5"
    check patch "$WORK/p.h5" "$vol" "$box"
  done
}
sums "$(data trapezoid.geo)" 1.75 0 1 2 3 5 8
sums "$(data quad_square.geo)" 1 1 1 4
sums "$(data trapezoid_hex.geo)" 1.75 0 1 2 3
sums "$(data twisted_hex.geo)" trilinear 0 1 2 4
sums "$(data quad_cube.geo)" 1 1 1 3
sums "$(geo hexcube.geo)" 1 1 5

run "$WORK/m.yaml" -o "$WORK/e.h5" --set space.order=2 --set physics.kind=elasticity --set physics.E=1 \
  --set physics.nu=0.3
check rigid "$WORK/e.h5"
