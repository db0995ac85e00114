# Robin terms (kappa du/dn + alpha u = alpha G), checked from the exported
# system with SciPy: the Robin part of the matrix sums to int alpha over the
# group and the load to int alpha G; a Poisson problem with Robin data on
# every side converges at order p+1 (P1, P2; Q3, Q4 on quadrilaterals,
# whose sums are checked up to Q9); Dirichlet + Robin agree in the
# rows and symmetric modes; vector problems take alpha per component or as a
# tensor (block sums, an exact elasticity patch test); bad Robin input exits 2.
source "$(dirname "$0")/lib.sh"
CHECK="$PY $ROOT/tests/cli/robin_checks.py"

# (1) sums: with and without the Robin entry on "left" (length/area 1)
sums() { # geo order alpha value want_matrix want_rhs [physics]
  local g=$1 p=$2 a=$3 v=$4 wm=$5 wr=$6; shift 6
  local phys=${1:-"{kind: poisson}"}
  case $g in /*) ;; *) g=$(geo "$g") ;; esac
  write_case s.yaml <<EOF
mesh: {file: $g, size: 0.2}
space: {order: $p}
physics: $phys
boundary: [{group: left, robin: {alpha: $a, value: $v}}]
output: {residual: false}
EOF
  "$FEINT" run --quiet "$WORK/s.yaml" -o "$WORK/s1.h5"
  "$FEINT" run --quiet "$WORK/s.yaml" -o "$WORK/s0.h5" --set boundary=null
  $CHECK sum "$WORK/s1.h5" "$WORK/s0.h5" "$wm" "$wr"
}
for p in 1 2; do
  sums square.geo $p 3 2 3 6
  sums square.geo $p '"1 + y"' 1 1.5 1.5
  sums square.geo $p 1 '"y"' 1 0.5
  sums cube.geo $p 3 2 3 6
done
sums square.geo 2 '"1 + y"' '"y"' 1.5 0.8333333333333333 # int (1+y) y dy = 5/6
# quadrilaterals beyond order 2 (the GLL segment facet basis): alpha and G
# of degree <= p along "left", sampled at the GLL dofs, integrate exactly
QUADS="$ROOT/tests/data/quad_square.geo"
for p in 3 4 9; do
  sums "$QUADS" $p 3 "\"y^$p\"" 3 "$($PY -c "print(repr(3 / ($p + 1)))")"
  sums "$QUADS" $p '"1 + y"' "\"y^$((p - 1))\"" 1.5 "$($PY -c "print(repr(1 / $p + 1 / ($p + 1)))")"
done
# vector space: the same alpha and value for every component
sums square.geo 1 2 1 4 4 "{kind: elasticity, E: 1, nu: 0.3}"

# (1b) vector spaces: alpha per component (diagonal, null = 0) or a tensor
# coupling the components; each (c, d) block sums to alpha_cd |left| and
# each component's load to (alpha G)_c |left|
blocks() { # geo alpha value K(row-major) G
  write_case v.yaml <<EOF
mesh: {file: $(geo $1), size: 0.25}
space: {order: 2}
physics: {kind: elasticity, lame_lambda: 1, lame_mu: 1}
boundary: [{group: left, robin: {alpha: $2, value: $3}}]
output: {residual: false}
EOF
  "$FEINT" run --quiet "$WORK/v.yaml" -o "$WORK/v1.h5"
  "$FEINT" run --quiet "$WORK/v.yaml" -o "$WORK/v0.h5" --set boundary=null
  $CHECK blocks "$WORK/v1.h5" "$WORK/v0.h5" 1 "$4" "$5"
}
blocks square.geo "[2, 5]" "[1, -1]" 2,0,0,5 1,-1
blocks square.geo "[3, ~]" 2 3,0,0,0 2,2
blocks square.geo "[[3, 1], [0.5, 2]]" "[1, 2]" 3,1,0.5,2 1,2
blocks cube.geo "[[3, 1, 0], [1, 2, 0], [0, 0, 1]]" "[1, 0, -1]" 3,1,0,1,2,0,0,0,1 1,0,-1

# tensor Robin patch test: elasticity (lambda = mu = 1), exact linear
# displacement u = (0.1 + 0.2x + 0.3y, -0.2 + 0.4x - 0.1y), no body force,
# sigma n + K u = K G on every side with K = [[3, 1], [1, 2]]:
# sigma = [[0.5, 0.7], [0.7, -0.1]], G = u + K^-1 sigma n, K^-1 = [[2, -1], [-1, 3]] / 5
UX="0.1 + 0.2*x + 0.3*y"; UY="-0.2 + 0.4*x - 0.1*y"
patch_case() { # order K
  write_case e.yaml <<EOF
mesh: {file: $(geo square.geo), size: 0.2}
space: {order: $1}
physics: {kind: elasticity, lame_lambda: 1, lame_mu: 1}
boundary:
  - {group: left,   robin: {alpha: $2, value: ["$UX - 0.06", "$UY - 0.32"]}}
  - {group: right,  robin: {alpha: $2, value: ["$UX + 0.06", "$UY + 0.32"]}}
  - {group: bottom, robin: {alpha: $2, value: ["$UX - 0.3", "$UY + 0.2"]}}
  - {group: top,    robin: {alpha: $2, value: ["$UX + 0.3", "$UY - 0.2"]}}
output: {residual: false}
EOF
}
for p in 1 2; do
  patch_case $p "[[3, 1], [1, 2]]"
  "$FEINT" run --quiet "$WORK/e.yaml" -o "$WORK/e$p.h5"
  $CHECK patch "$WORK/e$p.h5" "0.1 + 0.2*x + 0.3*y;-0.2 + 0.4*x - 0.1*y"
done
# P2 reproduces a quadratic displacement: u = (xy, x^2), body force (0, -4),
# traction linear along each side, G quadratic (interpolated exactly in P2)
write_case q.yaml <<EOF
mesh: {file: $(geo square.geo), size: 0.2}
space: {order: 2}
physics: {kind: elasticity, lame_lambda: 1, lame_mu: 1, source: [0, -4]}
boundary:
  - {group: left,   robin: {alpha: [[3, 1], [1, 2]], value: ["x*y - 1.2*y", "x^2 + 0.6*y"]}}
  - {group: right,  robin: {alpha: [[3, 1], [1, 2]], value: ["x*y + 1.2*y - 0.6", "x^2 - 0.6*y + 1.8"]}}
  - {group: bottom, robin: {alpha: [[3, 1], [1, 2]], value: ["x*y - 1.2*x", "x^2 + 0.6*x"]}}
  - {group: top,    robin: {alpha: [[3, 1], [1, 2]], value: ["x*y + 1.2*x - 0.2", "x^2 - 0.6*x + 0.6"]}}
output: {residual: false}
EOF
"$FEINT" run --quiet "$WORK/q.yaml" -o "$WORK/q.h5"
$CHECK patch "$WORK/q.h5" "x*y;x**2"
# the coupling's sign flipped must fail the same check (the test can fail)
patch_case 1 "[[3, -1], [-1, 2]]"
"$FEINT" run --quiet "$WORK/e.yaml" -o "$WORK/ew.h5"
if $CHECK patch "$WORK/ew.h5" "0.1 + 0.2*x + 0.3*y;-0.2 + 0.4*x - 0.1*y" > /dev/null; then
  echo "FAIL: the patch test passes with the wrong alpha"; exit 1
fi

# (2) manufactured u = sin(pi x) sin(pi y) + x, alpha on every side
# (robin_pair, lib.sh)
for order in 1 2; do
  t=(); for h in 0.2 0.1 0.05; do t+=("$(robin_pair $order $h 1)"); done
  $CHECK converge $order "${t[@]}"
  t=(); for h in 0.2 0.1 0.05; do t+=("$(robin_pair $order $h "2 + x*y")"); done
  $CHECK converge $order "${t[@]}"
done
for order in 3 4; do # quadrilaterals
  t=(); for h in 0.4 0.2 0.1; do t+=("$(robin_pair $order $h "2 + x*y" "$QUADS")"); done
  echo -n "Q$order "; $CHECK converge $order "${t[@]}"
done

# Dirichlet on the left + Robin elsewhere: rows and symmetric agree
robin_pair 2 0.1 1 > /dev/null
"$FEINT" run --quiet "$WORK/r.yaml" -o "$WORK/dr.h5" --set "boundary.0={group: left, dirichlet: \"$ROBIN_U\"}"
"$FEINT" run --quiet "$WORK/r.yaml" -o "$WORK/ds.h5" --set "boundary.0={group: left, dirichlet: \"$ROBIN_U\"}" \
  --set assembly.dirichlet=symmetric
$CHECK modes "$WORK/dr.h5" "$WORK/ds.h5"

# a sweep over alpha (the pattern reused, the Robin positions bound per
# member) equals separate runs bitwise
write_case w.yaml <<EOF
mesh: {file: $(geo square.geo), size: 0.2}
space: {order: 2}
physics: {kind: poisson}
boundary: [{group: left, robin: {alpha: 1, value: "y"}}, {group: right, dirichlet: 0}]
assembly: {dirichlet: symmetric}
sweep: {product: {boundary.0.robin.alpha: [1, "3 + x*y"]}}
EOF
"$FEINT" run --quiet "$WORK/w.yaml" -o "$WORK/w.h5"
for m in 0 1; do
  a=1; [ $m = 1 ] && a='"3 + x*y"'
  "$FEINT" run --quiet "$WORK/w.yaml" -o "$WORK/w1.h5" --set sweep=null --set "boundary.0.robin.alpha=$a"
  $PY - "$WORK/w-$m.h5" "$WORK/w1.h5" <<'PYEOF'
import sys, h5py, numpy as np
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
for k in ("matrix/data", "matrix/indices", "rhs", "residual"):
    if not np.array_equal(a[k][:], b[k][:]):
        sys.exit(f"FAIL: sweep member {sys.argv[1]} differs from a separate run in {k}")
print("sweep member", sys.argv[1].split("/")[-1], "equals a separate run")
PYEOF
done

# (3) bad input: exit 2, a clear message, no output left behind
printf 'mesh: {file: %s}\nphysics: {kind: poisson}\nboundary:\n  - {group: left, robin: {value: 1}}\n' \
  "$(geo square.geo)" > "$WORK/b.yaml"
expect_bad "robin without alpha" "b.yaml:4:.*missing required key boundary\[0\]\.robin\.alpha" \
  run "$WORK/b.yaml" -o "$WORK/out.h5"
expect_bad "robin without alpha (check)" "missing required key boundary\[0\]\.robin\.alpha" check "$WORK/b.yaml"
expect_bad "robin unknown key" "unknown key 'alpah'.*did you mean 'alpha'" \
  run "$WORK/b.yaml" -o "$WORK/out.h5" --set 'boundary.0.robin={alpah: 1}'
expect_bad "robin not a mapping" "boundary\[0\]\.robin: expected a mapping \{alpha, value\}" \
  run "$WORK/b.yaml" -o "$WORK/out.h5" --set 'boundary.0.robin=1'
expect_bad "robin tensor of the wrong size" "boundary\[0\]\.robin\.alpha is a 3x3 tensor but the space has 1 component" \
  run "$WORK/b.yaml" -o "$WORK/out.h5" --set 'boundary.0.robin={alpha: [[1, 0, 0], [0, 1, 0], [0, 0, 1]]}'
expect_bad "robin alpha list of the wrong length" "boundary\[0\]\.robin\.alpha has 3 values but the space has 2 components" \
  run "$WORK/b.yaml" -o "$WORK/out.h5" --set 'boundary.0.robin={alpha: [1, 2, 3]}' \
  --set 'physics={kind: elasticity, E: 1, nu: 0.3}'
expect_bad "robin alpha all null" "boundary\[0\]\.robin\.alpha: every alpha entry is null" \
  run "$WORK/b.yaml" -o "$WORK/out.h5" --set 'boundary.0.robin={alpha: [~, ~]}' \
  --set 'physics={kind: elasticity, E: 1, nu: 0.3}'
expect_bad "robin tensor row of the wrong length" "boundary\[0\]\.robin\.alpha\[1\]: expected a row of 2 values" \
  run "$WORK/b.yaml" -o "$WORK/out.h5" --set 'boundary.0.robin={alpha: [[1, 0], [0]]}'
expect_bad "robin bad expression" "boundary\.0\.robin=.*in expression \"1 \+\* q\"" \
  run "$WORK/b.yaml" -o "$WORK/out.h5" --set 'boundary.0.robin={alpha: "1 +* q"}'
