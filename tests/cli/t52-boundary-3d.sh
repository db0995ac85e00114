# Boundary conditions on hexahedra and prisms, checked by bc3d_checks.py
# against the geometry it writes: twisted boxes whose lateral faces are
# non-planar bilinear patches, every cell and boundary facet in a random
# orientation (so the facet dofs must follow the dof map's face frames):
#  - Neumann: the load of a constant g sums to g |group|, that of a linear
#    flux g to int g over the group, and its moment b . u_I against a u of
#    the facet space (linear for p = 1, quadratic above) equals int g u, on
#    the non-planar sides, the planar top and the whole boundary (prisms:
#    triangles and quadrilaterals together), hexahedra p = 1..4 (9 and 15
#    in unit test t531), prisms p = 1, 2, 3 (a facet read in the wrong
#    orientation, or an equispaced facet basis on the GLL hexahedra, fails
#    the moments);
#  - Robin: the matrix R sums to int alpha, u_I^T R v_I = int alpha u v,
#    R symmetric, the load r . u_I = int alpha G u (hexahedra p = 1..4,
#    prisms p = 1..3); a tensor alpha in elasticity: block (c, d) of R sums
#    to alpha_cd |sides| (p = 1, 2);
#  - Dirichlet on the sides with Neumann on top and bottom: a manufactured
#    Poisson problem solved with SciPy converges in L2 at >= p+1-0.3 for
#    p = 1..3 on both (and the constrained dofs are the lateral ones);
#  - elasticity patch test: an affine displacement as Dirichlet data on the
#    whole boundary is reproduced at every dof (hexahedra, prisms);
#  - bad input: a quadrilateral facet whose vertices are not in cyclic
#    order.
source "$(dirname "$0")/lib.sh"
C="$PY $ROOT/tests/cli/bc3d_checks.py"
run() { "$FEINT" run --quiet "$@"; }
for kind in hex prism; do for n in 2 3 4 6; do $C mesh $kind $n "$WORK/$kind$n.msh"; done; done
G="1 + x - 2*y + 3*z"

# Neumann: load sums and moments
write_case n.yaml <<EOF
mesh: {file: $WORK/hex2.msh}
space: {order: 1}
physics: {kind: poisson}
output: {matrix: false, residual: false}
EOF
neumann() { # kind order
  local u="x*x - y*z + 2*x*y"
  [ "$2" = 1 ] && u="2*x - y + z"
  for group in sides top boundary; do
    run "$WORK/n.yaml" -o "$WORK/n.h5" --set mesh.file="$WORK/${1}2.msh" --set space.order=$2 \
      --set "boundary=[{group: $group, neumann: \"$G\"}]"
    echo -n "$1 p$2: "; $C moment "$WORK/n.h5" "$WORK/${1}2.msh" $group "$G" "$u"
  done
  run "$WORK/n.yaml" -o "$WORK/n.h5" --set mesh.file="$WORK/${1}2.msh" --set space.order=$2 \
    --set "boundary=[{group: boundary, neumann: 2.5}]"
  echo -n "$1 p$2: "; $C moment "$WORK/n.h5" "$WORK/${1}2.msh" boundary 2.5 "$u"
}
for p in 1 2 3 4; do neumann hex $p; done
for p in 1 2 3; do neumann prism $p; done

# Robin: matrix sums and moments (alpha linear for p = 1: it is interpolated
# at the facet dofs)
robin() { # kind order
  local a="2 + x*y" v="x*y + z*z"
  [ "$2" = 1 ] && a="2 + x - 0.5*y" v="y + 2*z"
  run "$WORK/n.yaml" -o "$WORK/r1.h5" --set mesh.file="$WORK/${1}2.msh" --set space.order=$2 \
    --set output.matrix=true --set "boundary=[{group: boundary, robin: {alpha: \"$a\", value: \"1 - y\"}}]"
  run "$WORK/n.yaml" -o "$WORK/r0.h5" --set mesh.file="$WORK/${1}2.msh" --set space.order=$2 \
    --set output.matrix=true
  echo "$1 p$2:"; $C robin "$WORK/r1.h5" "$WORK/r0.h5" "$WORK/${1}2.msh" boundary "$a" "1 - y" "1 + x - z" "$v"
}
for p in 1 2 3 4; do robin hex $p; done
for p in 1 2 3; do robin prism $p; done
# a tensor alpha (a spring support) in elasticity: block (c, d) sums to alpha_cd |group|
for kind in hex prism; do
  for p in 1 2; do
    tensor="boundary=[{group: sides, robin: {alpha: [[2, 0.5, 0], [0.5, 1, 0.25], [0, 0.25, 3]]}}]"
    run "$WORK/n.yaml" -o "$WORK/r1.h5" --set mesh.file="$WORK/${kind}2.msh" --set space.order=$p \
      --set output.matrix=true --set physics.kind=elasticity --set physics.E=1 --set physics.nu=0.3 --set "$tensor"
    run "$WORK/n.yaml" -o "$WORK/r0.h5" --set mesh.file="$WORK/${kind}2.msh" --set space.order=$p \
      --set output.matrix=true --set physics.kind=elasticity --set physics.E=1 --set physics.nu=0.3
    echo "$kind p$p elasticity:"
    $C tensor "$WORK/r1.h5" "$WORK/r0.h5" "$WORK/${kind}2.msh" sides 2,0.5,0,0.5,1,0.25,0,0.25,3
  done
done

# Dirichlet + Neumann convergence
U="sin(2*x+0.5)*cos(y+0.3)*exp(0.5*z)"
converge() { # kind order meshes...
  local kind=$1 p=$2 pairs=() n; shift 2
  for n in "$@"; do
    write_case c.yaml <<EOF
mesh: {file: $WORK/$kind$n.msh}
space: {order: $p}
physics: {kind: poisson, source: "4.75*$U"}
output: {residual: false}
boundary:
  - {group: sides, dirichlet: "$U"}
  - {group: top, neumann: "0.5*$U"}
  - {group: bottom, neumann: "-0.5*$U"}
EOF
    pairs+=("$(solution_mass_pair c.yaml "$kind$p-$n")")
  done
  echo -n "$kind "; $C converge "np.sin(2*x+0.5)*np.cos(y+0.3)*np.exp(0.5*z)" $p $kind "${pairs[@]}"
}
for kind in hex prism; do
  converge $kind 1 2 4 6
  converge $kind 2 2 4 6
  converge $kind 3 2 3 4
done

# elasticity patch test
D=("0.1 + x - 0.2*y + 0.3*z" "0.2*x + 0.5*y - z" "-0.3 + 0.1*x + 0.4*y + 0.2*z")
for kind in hex prism; do
  for p in 1 2; do
    write_case e.yaml <<EOF
mesh: {file: $WORK/${kind}3.msh}
space: {order: $p}
physics: {kind: elasticity, E: 1, nu: 0.3}
output: {residual: false}
boundary:
  - {group: boundary, dirichlet: ["${D[0]}", "${D[1]}", "${D[2]}"]}
EOF
    run "$WORK/e.yaml" -o "$WORK/e.h5"
    echo -n "$kind p$p: "; $C patch "$WORK/e.h5" "${D[@]}"
  done
done

# bad input
$C mesh hex 2 "$WORK/bad.msh" bad
want="boundary\\[0\\]\\.neumann: the quadrilateral facet at \\(.*\\) \\(its first vertex\\) is no face of the hexahedron"
expect_bad "non-cyclic quadrilateral facet" "$want" \
  run --quiet "$WORK/n.yaml" -o "$WORK/out.h5" --set mesh.file="$WORK/bad.msh" --set 'boundary=[{group: top, neumann: 1}]'
