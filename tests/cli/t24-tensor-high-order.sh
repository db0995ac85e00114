# Hexahedra of orders 7..15 and quadrilaterals of order 15 through
# `feint run` on the cpu backend (sum-factorised kernels,
# src/backend/cpu/tensor_cells.c), checked with SciPy from the exported
# files on small meshes (p = 15: one hexahedron, 4096 local dofs):
#  - twisted hexahedra (non-planar faces, Jacobian varying inside the
#    cell), p = 8 on 8 cells and p = 15 on 1: the mass matrix sums to the
#    trilinear volume; the Poisson matrix is symmetric with zero row sums
#    and passes the patch test; the residual of a degree-p state without
#    load equals the assembled matrix times the state; BP3.0 / BP1.0
#    operators (`operator: apply`) equal the assembled screened Poisson /
#    mass matrix times x and the residual of the same state; the element
#    matrix of the one-cell mesh is its CSR matrix; elasticity (3
#    components, p = 8) annihilates exactly the rigid body modes; Neumann
#    and Robin terms (p = 12) on the planar top face integrate to its area;
#  - one parallelepiped (affine, so the integrals are exact), p = 8 and 15:
#    a polynomial of degree p solves the Dirichlet problem with its load to
#    round-off (SciPy from the exported matrix, and feint's own Dirichlet
#    rows) at the nodes and inside the cells; one of degree p + 1 does not
#    inside the cells (the control; at the GLL nodes it is reproduced too,
#    Lobatto superconvergence, see fe_checks.py reproduce);
#  - quadrilaterals of order 15: the same sums, Laplacian, patch test and
#    residual identity on trapezoids, exact reproduction on a
#    parallelogram;
#  - a manufactured Poisson solution at p = 7 converges at rate p + 1;
#  - outputs over the memory limit (FEINT_MEMORY_LIMIT) are refused with
#    the bytes they need.
source "$(dirname "$0")/lib.sh"
data() { echo "$ROOT/tests/data/$1"; }
run() { "$FEINT" run --quiet "$@"; }
check() { $PY "$ROOT/tests/cli/fe_checks.py" "$@"; }
TW=$(data twisted_hex1.geo) SH=$(data sheared_hex1.geo)
# poly DEGREE DIM WHAT STYLE: u = l^q + x^(q-1) [z|y] - y^q, l = x + 2y - z - 0.9
# (x + 2y - 1.2 in 2D)
# (WHAT u) or its load -lap u (WHAT f), a feint expression (STYLE feint)
# or numpy (STYLE numpy)
poly() {
  $PY - "$@" <<'EOF'
import sys
q, dim, what, style = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
l, w, t = ("x + 2*y - z - 0.9", 6, "z") if dim == 3 else ("x + 2*y - 1.2", 5, "y")
if what == "u":
    e = f"({l})^{q} + x^{q - 1}*{t} - y^{q}"
else:
    e = f"{-w * q * (q - 1)}*({l})^{q - 2} - {(q - 1) * (q - 2)}*x^{q - 3}*{t} + {q * (q - 1)}*y^{q - 2}"
print(e.replace("^", "**") if style == "numpy" else e)
EOF
}
write_case h.yaml <<EOF
mesh: {file: $TW}
space: {order: 1}
physics: {kind: mass}
output: {residual: false}
EOF
volume() { # mesh refine: the trilinear volume from an order-1 run
  run "$WORK/h.yaml" -o "$WORK/v.h5" --set mesh.file="$1" --set mesh.refine="$2" --set output.cell_dofs=true
  $PY -c "import sys; sys.path.insert(0, '$ROOT/tests/cli'); import fe_checks; print(repr(fe_checks.trilinear_volume('$WORK/v.h5')))"
}

# twisted hexahedra: order refine
for pr in "8 1" "15 0"; do
  read -r p r <<< "$pr"
  vol=$(volume "$TW" "$r")
  U="x^$p - 2*y^$((p - 1))*z + x*y*z + 1"
  o=(--set mesh.refine="$r" --set space.order="$p")
  echo "twisted hexahedra p$p refine $r:"
  run "$WORK/h.yaml" -o "$WORK/m.h5" "${o[@]}" --set output.element_matrices=$([ "$r" = 0 ] && echo true || echo false)
  if [ "$r" = 0 ]; then check sum "$WORK/m.h5" "$vol" 1e-11 + element-matrix "$WORK/m.h5" "$WORK/m.h5"
  else check sum "$WORK/m.h5" "$vol" 1e-11; fi
  run "$WORK/h.yaml" -o "$WORK/p.h5" "${o[@]}" --set physics.kind=poisson --set output.residual=true \
    --set "state.u=\"$U\""
  check laplacian "$WORK/p.h5" + patch "$WORK/p.h5" "$vol" 0 + residual-matvec "$WORK/p.h5" "${U//^/**}"
  # BP3.0 = screened Poisson (kappa = lambda = 1), BP1.0 = mass, both with p+2 Gauss points (the default rule)
  run "$WORK/h.yaml" -o "$WORK/op.h5" "${o[@]}" --set "operator={kind: bp3.0, lambda: 1}" --set "state.u=\"$U\"" \
    --set output=null
  run "$WORK/h.yaml" -o "$WORK/a.h5" "${o[@]}" --set physics.kind=helmholtz --set physics.kappa=1 \
    --set physics.lambda=1 --set output.residual=true --set "state.u=\"$U\""
  check bp "$WORK/op.h5" "$WORK/a.h5" + residual-bp "$WORK/op.h5" "$WORK/a.h5"
  [ "$p" = 15 ] && continue
  run "$WORK/h.yaml" -o "$WORK/op.h5" "${o[@]}" --set "operator={kind: bp1.0}" --set "state.u=\"$U\"" --set output=null
  run "$WORK/h.yaml" -o "$WORK/a.h5" "${o[@]}" --set output.residual=true --set output.matrix=false \
    --set "state.u=\"$U\""
  check residual-bp "$WORK/op.h5" "$WORK/a.h5"
done
# elasticity, 3 components: the kernel is exactly the 6 rigid body modes
run "$WORK/h.yaml" -o "$WORK/e.h5" --set space.order=8 --set physics.kind=elasticity --set physics.E=1 \
  --set physics.nu=0.3
echo -n "elasticity p8: "; check rigid "$WORK/e.h5"
# Neumann g = 1 and Robin alpha = 1 on the planar top face (area 1): the
# load sums to 1, the Poisson + Robin matrix (zero row sums without it) to 1
run "$WORK/h.yaml" -o "$WORK/n.h5" --set space.order=12 --set physics.kind=poisson --set output.matrix=false \
  --set output.rhs=true --set "boundary=[{group: top, neumann: 1}]"
echo -n "Q12 Neumann: "; $PY "$ROOT/tests/cli/bc_checks.py" flux "$WORK/n.h5" 1
run "$WORK/h.yaml" -o "$WORK/n.h5" --set space.order=12 --set physics.kind=poisson \
  --set "boundary=[{group: top, robin: {alpha: 1, value: 0}}]"
echo -n "Q12 Robin: "; check sum "$WORK/n.h5" 1 1e-11

# exact reproduction on the parallelepiped, SciPy's Dirichlet solve from
# the exported matrix; feint's Dirichlet rows at p = 15
for p in 8 15; do
  for q in $p $((p + 1)); do
    run "$WORK/h.yaml" -o "$WORK/x.h5" --set mesh.file="$SH" --set space.order="$p" \
      --set physics.kind=poisson --set output.rhs=true --set "physics.source=\"$(poly $q 3 f feint)\""
    echo -n "parallelepiped p$p, degree $q: "
    check reproduce "$WORK/x.h5" "$(poly $q 3 u numpy)" "$([ $q = $p ] && echo exact || echo inexact)"
  done
done
run "$WORK/h.yaml" -o "$WORK/x.h5" --set mesh.file="$SH" --set space.order=15 --set physics.kind=poisson \
  --set output.rhs=true --set "physics.source=\"$(poly 15 3 f feint)\"" \
  --set "boundary=[{group: boundary, dirichlet: \"$(poly 15 3 u feint)\"}]"
echo -n "parallelepiped p15, feint's Dirichlet rows: "; check dirichlet "$WORK/x.h5" "$(poly 15 3 u numpy)"

# quadrilaterals of order 15
U="x^15 - 3*x^7*y^8 + y^15 + x*y"
run "$WORK/h.yaml" -o "$WORK/m.h5" --set mesh.file="$(data trapezoid.geo)" --set space.order=15
echo -n "trapezoids Q15: "; check sum "$WORK/m.h5" 1.75
run "$WORK/h.yaml" -o "$WORK/p.h5" --set mesh.file="$(data trapezoid.geo)" --set space.order=15 \
  --set physics.kind=poisson --set output.residual=true --set "state.u=\"$U\""
check laplacian "$WORK/p.h5" + patch "$WORK/p.h5" 1.75 0 + residual-matvec "$WORK/p.h5" "${U//^/**}"
for q in 15 16; do
  run "$WORK/h.yaml" -o "$WORK/x.h5" --set mesh.file="$(data sheared_quad1.geo)" --set space.order=15 \
    --set physics.kind=poisson --set output.rhs=true --set "physics.source=\"$(poly $q 2 f feint)\""
  echo -n "parallelogram Q15, degree $q: "
  check reproduce "$WORK/x.h5" "$(poly $q 2 u numpy)" "$([ $q = 15 ] && echo exact || echo inexact)"
done

# convergence of a manufactured solution at p = 7 on the unit cube of
# hexahedra that are no parallelepipeds, 8 and 64 cells (u = prod sin(pi
# x_d / 2): the asymptotic rate on these coarse meshes)
pairs=()
for r in $(levels 0 1); do pairs+=("$(manufactured_pair "$(data quad_cube.geo)" 7 1 c7-$r 3 $r 0.5)"); done
echo -n "hexahedra p7: "; rates check convergence 7 k=0.5 "${pairs[@]}"

# outputs over the memory limit: refused before allocating, naming the bytes
FEINT_MEMORY_LIMIT=1e8 expect_bad "element matrices over the memory limit" \
  "output.element_matrices: the element matrices \(cells x local dofs\^2\) need 134217728 bytes \(16777216 x 8\), more than the memory limit of 100000000 bytes" \
  run "$WORK/h.yaml" -o "$WORK/out.h5" --set space.order=15 --set output.element_matrices=true
FEINT_MEMORY_LIMIT=1e8 expect_bad "CSR matrix over the memory limit" \
  "output.matrix: the CSR matrix values \(nonzeros\) need 134217728 bytes \(16777216 x 8\)" \
  run "$WORK/h.yaml" -o "$WORK/out.h5" --set space.order=15
FEINT_MEMORY_LIMIT=lots expect_bad "an unreadable memory limit" \
  "FEINT_MEMORY_LIMIT=lots: expected a positive number of bytes" \
  run "$WORK/h.yaml" -o "$WORK/out.h5" --set space.order=2
echo ok
