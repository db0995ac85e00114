#!/usr/bin/env bash
# User forms and built-in kinds on the GPU on cells whose Jacobian varies
# (issue 19): prisms, quadrilaterals and hexahedra through the form-jit
# family (J at every point; the tensor cells' basis tabulated at the
# rule's points), feint run --backend cuda against --backend cpu (which
# sum-factorises the tensor cells) within 1e-13 relative (2-norm and
# max-norm) on the residual, the load vector, the element matrices and
# the CSR matrix: the nonlinear k(u) = k0 + beta u^2 form and a coupled
# form of 3 components on twisted hexahedra (Q1, Q2: 81 dofs, the block
# matrix kernel) and prisms (P1, P2), a 2-component form on
# quadrilaterals (Q1..Q3); the built-in poisson and elasticity kinds on
# twisted hexahedra (which run as the forms they are), with Dirichlet and
# Robin boundaries, up to Q3 elasticity (192 dofs a cell: the block
# matrix kernel, its points' blocks in scratch); each matrix kernel where
# the layout would take another (FEINT_FORM_MATRIX). Past the kernels'
# limit (512 dofs a cell) --backend cuda says why and auto takes the cpu.
source "$(dirname "$0")/../cli/lib.sh"
require_gpu
export FEINT_CACHE_DIR="$WORK/cache"
OUTS=(residual rhs element_matrices matrix/data)
family() { $PY -c 'import json, sys; print(json.load(open(sys.argv[1]))["kernel_family"])' "$1"; }
data() { echo "$ROOT/tests/data/$1"; }
# check NAME MESH ORDER COMPONENTS STATE PHYSICS [--set ...]: cpu and cuda, compared
check() {
  local name=$1
  printf 'mesh: {file: %s, size: 0.4}\nspace: {order: %s, components: %s}\nstate: {u: %s}\n%s\nphysics:\n%s\n' \
    "$2" "$3" "$4" "$5" "output: {residual: true, rhs: true, matrix: true, element_matrices: true}" "$6" \
    > "$WORK/$name.yaml"
  shift 6
  "$FEINT" run --quiet "$WORK/$name.yaml" -o "$WORK/$name-cpu.h5" --backend cpu "$@"
  "$FEINT" run --quiet --json "$WORK/$name.yaml" -o "$WORK/$name-gpu.h5" --backend cuda "$@" > "$WORK/$name.json"
  [ "$(family "$WORK/$name.json")" = form-jit ] || fail "$name: kernel family $(family "$WORK/$name.json")"
  $PY "$ROOT/tests/gpu/agree.py" --tol=1e-13 --nonzero --ref=cpu "$WORK/$name-cpu.h5" "$WORK/$name-gpu.h5" "$name" \
    both "${OUTS[@]}" || fail "$name: the GPU differs from the cpu"
}
ku3='  kind: form
  parameters: {k0: 1.0, beta: 2.0}
  coefficients: {kappa: "1 + x*y", f: "sin(pi*x)*y"}
  f0: "-f*kappa"
  f1: ["(k0 + beta*u^2)*u_x", "(k0 + beta*u^2)*u_y", "(k0 + beta*u^2)*kappa*u_z"]'
vec3='  kind: form
  parameters: {k: 1.5}
  f0: ["u0*u1 - u2 + 1", "-exp(u0)*u1", "u2^2 - x"]
  f1: [["(1 + u1^2)*u0_x", "u0_y + u1_x", "u0_z"], ["k*u1_x", "u1_y", "u1_z - u2_x"], ["u2_x", "u2_y*u0", "(1 + u2^2)*u2_z"]]'
vec2='  kind: form
  parameters: {k: 1.5}
  f0: ["u0*u1 - 1", "-exp(u0)*u1"]
  f1: [["(1 + u1^2)*u0_x", "u0_y + u1_x"], ["k*u1_x", "u1_y - u0_x*u1"]]'
for o in 1 2; do
  check ku-hex-q$o "$(data twisted_hex.geo)" $o 1 '"x*y + sin(z + x)"' "$ku3"
  check vec-hex-q$o "$(data twisted_hex.geo)" $o 3 '["sin(x) + y", "x*z", "1 + y*z"]' "$vec3"
  check ku-prism-p$o "$(data twisted_prism.geo)" $o 1 '"x*y + sin(z + x)"' "$ku3"
  check vec-prism-p$o "$(data twisted_prism.geo)" $o 3 '["sin(x) + y", "x*z", "1 + y*z"]' "$vec3"
done
for o in 1 2 3; do
  check vec-quad-q$o "$(geo quadsquare.geo)" $o 2 '["sin(x) + y", "x*y"]' "$vec2"
done
echo "ok: forms on twisted hexahedra, prisms and quadrilaterals agree with the cpu"

# the colored strategy (the default) and gather run one colour of cells
# at a time: two runs bitwise equal; atomic agrees with them
printf 'mesh: {file: %s, size: 0.3}\nspace: {order: 2}\nstate: {u: "x*y + z"}\n%s\nphysics:\n%s\n' "$(geo cube.geo)" \
  "output: {residual: true, rhs: true, matrix: true}" "$ku3" > "$WORK/ku-tet-p2.yaml"
for name in ku-hex-q2 ku-tet-p2; do
  for st in colored gather; do
    for r in a b; do
      "$FEINT" run --quiet --json "$WORK/$name.yaml" -o "$WORK/$name-$st-$r.h5" --backend cuda \
        --set assembly.strategy=$st > "$WORK/$name-$st.json"
    done
    $PY -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["colors"] > 0 and d["kernel_family"] == "form-jit", d' \
      "$WORK/$name-$st.json" || fail "$name $st: no colouring: $(cat "$WORK/$name-$st.json")"
    $PY - "$WORK/$name-$st-a.h5" "$WORK/$name-$st-b.h5" residual rhs matrix/data <<'EOF' || fail "$name $st: two runs differ"
import sys, h5py
a, b = h5py.File(sys.argv[1]), h5py.File(sys.argv[2])
for n in sys.argv[3:]:
    assert a[n][:].tobytes() == b[n][:].tobytes(), n
EOF
  done
  "$FEINT" run --quiet "$WORK/$name.yaml" -o "$WORK/$name-atomic.h5" --backend cuda --set assembly.strategy=atomic
  $PY "$ROOT/tests/gpu/agree.py" --tol=1e-13 --nonzero "$WORK/$name-colored-a.h5" "$WORK/$name-atomic.h5" \
    "$name atomic vs colored" both residual rhs matrix/data || fail "$name: atomic differs from colored"
done
echo "ok: colored and gather are bitwise reproducible on the form-jit kernels"

# the built-in kinds on hexahedra run as their forms; boundaries on the GPU's facets
bc='[{group: bottom, dirichlet: "x*y"}, {group: sides, robin: {alpha: 2, value: "x - y*z"}}, {group: top, neumann: 0.5}]'
for o in 1 2; do
  check poisson-hex-q$o "$(data twisted_hex_bc.geo)" $o 1 '"x*y + sin(z + x)"' \
    '  {kind: poisson, kappa: "1 + x*y", source: "sin(pi*x)*y + 0.5"}' --set "boundary=$bc"
  check elasticity-hex-q$o "$(data twisted_hex_bc.geo)" $o 3 '["x*y", "sin(z)", "x + y*z"]' \
    '  {kind: elasticity, lame_lambda: "1 + x", lame_mu: "0.7 + y*z", source: ["sin(x) + 1", "y*z - 2", "-1 - x"]}'
done
echo "ok: the built-in kinds on hexahedra (as forms) agree with the cpu, boundaries included"

# a sweep over a coefficient of a built-in kind on hexahedra: one backend
# (its form view taken over by the second member: no compile, no upload of
# the mesh), each member equal to its own run on the cpu
c="$WORK/poisson-hex-q2.yaml"
cp "$c" "$WORK/sweep.yaml"
printf 'sweep:\n  product: {physics.kappa: ["1 + x*y", "2 + z*z"]}\n  output: "%s/sw-{index}.h5"\n' "$WORK" \
  >> "$WORK/sweep.yaml"
"$FEINT" run --quiet --json "$WORK/sweep.yaml" -o "$WORK/unused.h5" --backend cuda > "$WORK/sweep.json" ||
  fail "the sweep on hexahedra"
$PY -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["backend_reused"] == 1, d' "$WORK/sweep.json" ||
  fail "the sweep did not reuse its backend: $(cat "$WORK/sweep.json")"
k=0
for kappa in "1 + x*y" "2 + z*z"; do
  "$FEINT" run --quiet "$c" -o "$WORK/sw-cpu-$k.h5" --backend cpu --set "physics.kappa=$kappa"
  $PY "$ROOT/tests/gpu/agree.py" --tol=1e-13 --nonzero --ref=cpu "$WORK/sw-cpu-$k.h5" "$WORK/sw-$k.h5" \
    "sweep member $k (kappa $kappa)" both "${OUTS[@]}" || fail "sweep member $k differs from its cpu run"
  k=$((k + 1))
done
echo "ok: a sweep of a built-in kind on hexahedra reuses its backend and agrees member by member"

# Q3 elasticity on hexahedra (192 dofs a cell)
check elasticity-hex-q3 "$(data twisted_hex.geo)" 3 3 '["x*y", "sin(z)", "x + y*z"]' \
  '  {kind: elasticity, lame_lambda: "1 + x", lame_mu: "0.7 + y*z", source: ["sin(x) + 1", "y*z - 2", "-1 - x"]}'
grep -q 'a block a cell' "$WORK/elasticity-hex-q3.json" ||
  fail "Q3 elasticity: not the block matrix kernel: $(cat "$WORK/elasticity-hex-q3.json")"
# each matrix kernel where the layout takes another: the warp on
# hexahedra, the block on P2 tetrahedra (elasticity: a warp by default)
FEINT_FORM_MATRIX=warp check vec-hex-q2-warp "$(data twisted_hex.geo)" 2 3 '["sin(x) + y", "x*z", "1 + y*z"]' "$vec3"
grep -q 'a warp a cell' "$WORK/vec-hex-q2-warp.json" || fail "FEINT_FORM_MATRIX=warp not taken"
FEINT_FORM_MATRIX=block check vec-tet-p2-block "$(geo cube.geo)" 2 3 '["sin(x) + y", "x*z", "1 + y*z"]' "$vec3"
grep -q 'a block a cell' "$WORK/vec-tet-p2-block.json" || fail "FEINT_FORM_MATRIX=block not taken"
echo "ok: Q3 elasticity on hexahedra, and each matrix kernel on either cell, agree with the cpu"

# past the kernels' limit: the reason, and auto on the cpu
printf 'mesh: {file: %s, size: 1}\nspace: {order: 11}\noutput: {matrix: false}\nphysics: {kind: poisson}\n' \
  "$(data twisted_hex.geo)" > "$WORK/q11.yaml"
expect_bad "Q11 on cuda" "not 1728" run --quiet "$WORK/q11.yaml" -o "$WORK/out.h5" --backend cuda
"$FEINT" run "$WORK/q11.yaml" -o "$WORK/q11.h5" --backend auto 2> "$WORK/q11.err" || fail "auto on Q11"
grep -q "cpu" "$WORK/q11.err" || fail "auto did not say it took the cpu: $(cat "$WORK/q11.err")"
echo "ok: Q11 on hexahedra (1728 dofs a cell): cuda says why, auto takes the cpu"
