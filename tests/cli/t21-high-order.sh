# High orders on simplices, checked from the exported matrices with SciPy:
# P1..P7 mass matrices sum to the domain volume and variable-coefficient
# Laplacians have zero row sums and are symmetric (tetrahedra and
# triangles); the manufactured Poisson problem converges in L2 at order
# p+1 for p = 1..4 (refinements of one coarse mesh); a P3 tetrahedral
# problem with Dirichlet and Neumann conditions converges at order 4;
# Neumann loads at P4..P6 integrate exactly; the CUDA backend refuses P3
# tetrahedra rather than compute them.
source "$(dirname "$0")/lib.sh"

# one feint process per mesh: a sweep of the orders, mass and Poisson each
for spec in "cube.geo 0.7" "square.geo 0.3"; do
  set -- $spec
  write_case h.yaml <<EOF
mesh: {file: $(geo $1), size: $2}
space: {order: 1}
physics: {kind: mass}
EOF
  list="" checks=() k=0
  for p in 1 2 3 4 5 6 7; do
    list+="${list:+, }{space.order: $p}, {space.order: $p, physics.kind: poisson, physics.kappa: \"1 + x*x + y\"}"
    # P5+ bases carry the Vandermonde inverse's round-off (up to 5e-12 at
    # P7, lagrange.c): the sum is exact to that, not to 1e-12
    checks+=(attrs "$WORK/s-$k.h5" order=$p physics=mass + attrs "$WORK/s-$((k + 1)).h5" order=$p physics=poisson
             + sum "$WORK/s-$k.h5" 1.0 $([ $p -ge 5 ] && echo 1e-10 || echo 1e-12) + laplacian "$WORK/s-$((k + 1)).h5" +)
    k=$((k + 2))
  done
  "$FEINT" run --quiet "$WORK/h.yaml" -o "$WORK/s.h5" --set "sweep.list=[$list]"
  echo "$1 P1..P7 (mass, Poisson each):"
  $PY "$ROOT/tests/cli/fe_checks.py" "${checks[@]:0:${#checks[@]}-1}"
done

# Convergence: three uniform refinements of a coarse mesh, so that the
# rates are those of one mesh family. On the 24-tetrahedron cube a smoother
# solution (k = 1/2) is in the asymptotic range at P4 by the second level.
# P1 and P2 start one level finer (the coarsest has too few interior dofs).
for p in 1 2 3 4; do
  lv="0 1 2"; [ $p -le 2 ] && lv="1 2 3"
  pairs=(); for r in $(levels $lv); do pairs+=("$(manufactured_pair cube.geo $p 1.0 c$r 3 $r 0.5)"); done
  rates $PY "$ROOT/tests/cli/fe_checks.py" convergence $p k=0.5 "${pairs[@]}"
  pairs=(); for r in $(levels 0 1 2); do pairs+=("$(manufactured_pair square.geo $p 0.2 s$r 2 $r)"); done
  rates $PY "$ROOT/tests/cli/fe_checks.py" convergence $p "${pairs[@]}"
done

# P3 tetrahedra, Dirichlet on x = 0 and the exact flux on the other faces
# (lib.sh mixed_cube_pair).
t=(); for r in $(levels 0 1 2); do t+=("$(mixed_cube_pair "$(geo cube.geo)" 3 1.0 $r)"); done
rates $PY "$ROOT/tests/cli/bc_checks.py" mixed-cube 3 "${t[@]}"

# Neumann loads through the face-interior dofs of P4..P6 facets (several
# per face, so the facet's lattice orientation matters): a cubic h is
# interpolated exactly, so the load sums to the exact integral over x = 0,
# int int y^2 z + z^3 dy dz = 1/6 + 1/4
for p in 4 5 6; do
  write_case n.yaml <<EOF
mesh: {file: $(geo cube.geo), size: 0.7}
space: {order: $p}
physics: {kind: poisson}
boundary: [{group: left, neumann: "y^2*z + z^3"}]
output: {matrix: false, residual: false}
EOF
  "$FEINT" run --quiet "$WORK/n.yaml" -o "$WORK/n.h5"
  $PY "$ROOT/tests/cli/bc_checks.py" flux "$WORK/n.h5" 0.41666666666666667
done

# P3 tetrahedra on cuda: scalar and vector forms go to the element-matrix
# kernels (here: no GPU, so both are refused for that reason)
write_case g.yaml <<EOF
mesh: {file: $(geo cube.geo), size: 1.0}
space: {order: 3}
physics: {kind: poisson}
EOF
expect_bad "P3 tetrahedra on cuda" "without CUDA|no CUDA device|no GPU" run "$WORK/g.yaml" -o "$WORK/out.h5" --backend cuda
expect_bad "P3 elasticity on cuda" "without CUDA|no CUDA device|no GPU" \
  run "$WORK/g.yaml" -o "$WORK/out.h5" --backend cuda --set physics.kind=elasticity --set physics.E=1 --set physics.nu=0.3
