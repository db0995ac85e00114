#!/usr/bin/env bash
# User forms and built-in kinds on mixed meshes on the GPU (issue 19):
# each cell shape of the mesh gets its own form-jit source, module and
# rule tables, its kernels reading the shared dof maps and slots at the
# widest shape's row strides (feint/space.h). feint run --backend cuda
# against --backend cpu within 1e-13 relative (2-norm and max-norm) on
# the residual, the load vector, the element matrices (a narrower cell's
# rows padded with zeros) and the CSR matrix: the nonlinear k(u) form and
# a coupled form of 3 components on tetrahedra + hexahedra + prisms (P1,
# P2) and tetrahedra + prisms (P3), a 2-component form on triangles +
# quadrilaterals (P1..P3); the built-in poisson and elasticity kinds
# (which run as their forms there) with Dirichlet, Robin and Neumann
# boundaries; colored and gather bitwise reproducible, atomic agreeing.
source "$(dirname "$0")/../cli/lib.sh"
require_gpu
export FEINT_CACHE_DIR="$WORK/cache"
OUTS=(residual rhs element_matrices matrix/data)
family() { $PY -c 'import json, sys; print(json.load(open(sys.argv[1]))["kernel_family"])' "$1"; }
data() { echo "$ROOT/tests/data/$1"; }
# check NAME MESH SIZE ORDER COMPONENTS STATE PHYSICS [--set ...]: cpu and cuda, compared
check() {
  local name=$1
  printf 'mesh: {file: %s, size: %s}\nspace: {order: %s, components: %s}\nstate: {u: %s}\n%s\nphysics:\n%s\n' \
    "$2" "$3" "$4" "$5" "$6" "output: {residual: true, rhs: true, matrix: true, element_matrices: true}" "$7" \
    > "$WORK/$name.yaml"
  shift 7
  "$FEINT" run --quiet "$WORK/$name.yaml" -o "$WORK/$name-cpu.h5" --backend cpu "$@"
  "$FEINT" run --quiet --json "$WORK/$name.yaml" -o "$WORK/$name-gpu.h5" --backend cuda "$@" > "$WORK/$name.json" ||
    fail "$name: --backend cuda"
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
  check ku-tph-p$o "$(data tet_prism_hex_cube.geo)" 0.4 $o 1 '"x*y + sin(z + x)"' "$ku3"
  check vec-tph-p$o "$(data tet_prism_hex_cube.geo)" 0.4 $o 3 '["sin(x) + y", "x*z", "1 + y*z"]' "$vec3"
done
grep -q "per cell shape" "$WORK/vec-tph-p2.json" || fail "no kernels per cell shape: $(cat "$WORK/vec-tph-p2.json")"
check ku-tp-p3 "$(geo mixedcube.geo)" 0.5 3 1 '"x*y + sin(z + x)"' "$ku3"
for o in 1 2 3; do
  check vec-tq-p$o "$(geo mixedsquare.geo)" 0.25 $o 2 '["sin(x) + y", "x*y"]' "$vec2"
done
echo "ok: forms on mixed meshes (tetrahedra + hexahedra + prisms, tetrahedra + prisms, triangles + quadrilaterals) agree with the cpu"

# the built-in kinds, which run as their forms on mixed meshes, with boundaries
bc='[{group: left, dirichlet: "x*y"}, {group: boundary, robin: {alpha: 2, value: "x - y*z"}}]'
for o in 1 2; do
  check poisson-tp-p$o "$(geo mixedcube.geo)" 0.4 $o 1 '"x*y + sin(z + x)"' \
    '  {kind: poisson, kappa: "1 + x*y", source: "sin(pi*x)*y + 0.5"}' --set "boundary=$bc"
  check elasticity-tp-p$o "$(geo mixedcube.geo)" 0.4 $o 3 '["x*y", "sin(z)", "x + y*z"]' \
    '  {kind: elasticity, lame_lambda: "1 + x", lame_mu: "0.7 + y*z", source: ["sin(x) + 1", "y*z - 2", "-1 - x"]}' \
    --set 'boundary=[{group: left, dirichlet: [0, 0, 0]}, {group: boundary, neumann: [0.5, 0, -1]}]'
done
check poisson-tq-p2 "$(geo mixedsquare.geo)" 0.25 2 1 '"x*y + sin(x)"' '  {kind: poisson, kappa: "1 + x*y", source: "x"}' \
  --set 'boundary=[{group: left, dirichlet: 0}, {group: top, neumann: 1}, {group: right, robin: {alpha: 1, value: 2}}]'
echo "ok: the built-in kinds on mixed meshes (as forms) agree with the cpu, boundaries included"

# colored and gather: one colour of cells (of every shape) at a time, two runs bitwise equal; atomic agrees
name=vec-tph-p2
for st in colored gather; do
  for r in a b; do
    "$FEINT" run --quiet --json "$WORK/$name.yaml" -o "$WORK/$name-$st-$r.h5" --backend cuda \
      --set assembly.strategy=$st > "$WORK/$name-$st.json" || fail "$name $st"
  done
  $PY - "$WORK/$name-$st-a.h5" "$WORK/$name-$st-b.h5" residual rhs matrix/data <<'PYEOF' || fail "$name $st: two runs differ"
import sys, h5py
a, b = h5py.File(sys.argv[1]), h5py.File(sys.argv[2])
for n in sys.argv[3:]:
    assert a[n][:].tobytes() == b[n][:].tobytes(), n
PYEOF
done
"$FEINT" run --quiet "$WORK/$name.yaml" -o "$WORK/$name-atomic.h5" --backend cuda --set assembly.strategy=atomic
$PY "$ROOT/tests/gpu/agree.py" --tol=1e-13 --nonzero "$WORK/$name-colored-a.h5" "$WORK/$name-atomic.h5" \
  "$name atomic vs colored" both residual rhs matrix/data || fail "$name: atomic differs from colored"
echo "ok: colored and gather are bitwise reproducible on a mixed mesh"
