# User forms (physics kind form, issue 19) on quadrilaterals and hexahedra
# (the sum-factorised kernels of the cpu backend): Poisson and elasticity
# written as forms give bitwise the residual, load vector, element
# matrices and CSR matrix of the built-in kinds on Q1 and Q3
# quadrilaterals, Q1 and Q2 hexahedra and P2 on a mixed mesh of
# triangles and quadrilaterals (nodal coefficients, a source nowhere 0,
# a state that makes every output nonzero; the forms written as the sums
# of physics.h in its order, see t57-forms-kinds.sh); a load reads f1 at
# u = 0 (kept, unlike the built-in load, which has no flux); x, y, z and a
# coefficient's gradient at the points; the Jacobian of nonlinear forms on
# hexahedra against central differences of the residual; --backend cuda
# refuses a form on these cells with its reason, auto takes the cpu.
source "$(dirname "$0")/lib.sh"
S='"sin(pi*x)*y + 0.5"' # the source, nowhere 0
K='"1 + x*y"'
QUAD="{file: $(geo quadsquare.geo), size: 0.3}"
HEX="{file: $(geo hexcube.geo)}"
for m in "quadrilaterals 1 2" "quadrilaterals 3 2" "hexahedra 1 3" "hexahedra 2 3" "mixed 2 2"; do
  set -- $m
  cells=$1 o=$2 dim=$3
  case $cells in
    quadrilaterals) mesh=$QUAD ;;
    hexahedra) mesh=$HEX ;;
    mixed) mesh="{file: $(geo mixedsquare.geo), size: 0.3}" ;; # triangles + quadrilaterals
  esac
  if [ "$dim" = 2 ]; then
    f1='["kappa*u_x", "kappa*u_y"]' u='"x*y + sin(x)"' uv='["x*y", "sin(x + y)"]' mu='"0.7 + x*y"'
    lf="{lam: \"1 + x\", mu: $mu, fx: \"sin(x) + 1\", fy: \"y - 2\"}" f0='["-fx", "-fy"]' src='["sin(x) + 1", "y - 2"]'
    rows="$(form_sigma 0 2), $(form_sigma 1 2)"
  else
    f1='["kappa*u_x", "kappa*u_y", "kappa*u_z"]' u='"x*y + sin(z + x)"' uv='["x*y", "sin(z)", "x + y*z"]' mu='"0.7 + y*z"'
    lf="{lam: \"1 + x\", mu: $mu, fx: \"sin(x) + 1\", fy: \"y*z - 2\", fz: \"-1 - x\"}" f0='["-fx", "-fy", "-fz"]'
    src='["sin(x) + 1", "y*z - 2", "-1 - x"]'
    rows="$(form_sigma 0 3), $(form_sigma 1 3), $(form_sigma 2 3)"
  fi
  form_pair "poisson $cells order $o" "$mesh" "$o" 1 "$u" "{kind: poisson, kappa: $K, source: $S}" \
    "  coefficients: {kappa: $K, f: $S}
  f0: \"-f\"
  f1: $f1"
  form_pair "elasticity $cells order $o" "$mesh" "$o" "$dim" "$uv" \
    "{kind: elasticity, lame_lambda: \"1 + x\", lame_mu: $mu, source: $src}" \
    "  coefficients: $lf
  f0: $f0
  f1: [$rows]"
done
# a load reads f1 at u = 0: f1 = grad u - g, g = (x - 1, 0), on Q2
# quadrilaterals has the load int grad v . g = -int v div g + int v g . n
# over the boundary: that of kind poisson with source -1 and Neumann value
# 1 on x = 0 (g . n is 0 on the other sides)
base="mesh: $QUAD
space: {order: 2}
output: {residual: false, matrix: false, rhs: true}"
printf '%s\nphysics: {kind: poisson, source: -1}\nboundary:\n  - {group: left, neumann: 1}\n' "$base" > "$WORK/p.yaml"
printf '%s\nphysics: {kind: form, f1: ["u_x - (x - 1)", u_y]}\n' "$base" > "$WORK/f.yaml"
"$FEINT" run --quiet "$WORK/p.yaml" -o "$WORK/p.h5"
"$FEINT" run --quiet "$WORK/f.yaml" -o "$WORK/f.h5"
$PY "$ROOT/tests/cli/form_checks.py" rhs "$WORK/p.h5" "$WORK/f.h5" "a load keeps f1 at u = 0 (quadrilaterals)"
# x, y, z at the points (the multilinear map) and a coefficient's gradient:
# a source x y - 2 z^2 written in f0, and k = x^2 + 3 y read as k_x + k_y
# against the source 2 x + 3 (both exact in Q2), give the loads of the
# sources interpolated at the dofs
for g in quadsquare.geo hexcube.geo; do
  mesh=$([ $g = hexcube.geo ] && echo "$HEX" || echo "$QUAD")
  base="mesh: $mesh
space: {order: 2}
output: {residual: false, matrix: false, rhs: true}"
  for which in coordinates gradient; do
    if [ $which = coordinates ]; then
      printf '%s\nphysics: {kind: poisson, source: "x*y - 2*z^2"}\n' "$base" > "$WORK/p.yaml"
      printf '%s\nphysics: {kind: form, f0: "-(x*y - 2*z^2)", f1: [u_x, u_y%s]}\n' "$base" \
        "$([ $g = hexcube.geo ] && echo ', u_z')" > "$WORK/f.yaml"
    else
      printf '%s\nphysics: {kind: poisson, source: "2*x + 3"}\n' "$base" > "$WORK/p.yaml"
      printf '%s\nphysics: {kind: form, coefficients: {k: "x^2 + 3*y"}, f0: "-(k_x + k_y)", f1: [u_x, u_y%s]}\n' \
        "$base" "$([ $g = hexcube.geo ] && echo ', u_z')" > "$WORK/f.yaml"
    fi
    "$FEINT" run --quiet "$WORK/p.yaml" -o "$WORK/p.h5"
    "$FEINT" run --quiet "$WORK/f.yaml" -o "$WORK/f.h5"
    $PY "$ROOT/tests/cli/form_checks.py" rhs "$WORK/p.h5" "$WORK/f.h5" "f0 reading $which on $g"
  done
done
# nonlinear forms (k(u) = 1 + 2 u^2, Bratu, p-Laplacian, two coupled
# components) on Q2 hexahedra: the Jacobian at the state is the derivative
# of the residual (central differences O(h^2)), derived blocks equal to
# hand-written ones
$PY "$ROOT/tests/cli/form_checks.py" fd "$FEINT" "$WORK" "$(geo hexcube.geo)" 1 2
# the cuda backend takes forms on these cells (tests/gpu/t641); without a
# GPU it says so (a build without CUDA says so first); auto takes the cpu
expect_bad "form on hexahedra, cuda" "no CUDA device is visible|built without CUDA" \
  run --quiet "$WORK/f.yaml" -o "$WORK/out.h5" --backend cuda
"$FEINT" run --quiet "$WORK/f.yaml" -o "$WORK/auto.h5" --backend auto
echo "ok: --backend auto runs a form on hexahedra"
