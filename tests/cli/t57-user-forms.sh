# User forms (physics kind form, issue 19) on the cpu backend: Poisson
# written as a form (f0 = -f, f1 = kappa grad u, its g3 derived) gives
# bitwise the residual, load vector, element matrices and CSR matrix of
# kind poisson: P1, P2 and P4 (the wide element-matrix loop) tetrahedra,
# P2 prisms, P3 on a mixed mesh of tetrahedra and prisms, P2 triangles
# with Dirichlet (symmetric lifting) and Neumann conditions, every
# assembly strategy; elasticity as a form (3
# components) those of kind elasticity; a form runs on quadrilaterals; --no-cache and backend.cache are
# accepted and change nothing on the cpu; the cuda backend refuses a form
# with its reason; bad input is refused with the case line and column.
source "$(dirname "$0")/lib.sh"
compare() { # builtin.h5 form.h5: bitwise equal (the bytes, so -0 and 0 differ too)
  $PY - "$@" <<'EOF'
import sys, h5py, numpy as np
a, b = h5py.File(sys.argv[1]), h5py.File(sys.argv[2])
for n in ("residual", "rhs", "element_matrices", "matrix/data", "matrix/indices", "matrix/indptr"):
    if n not in a:
        continue
    x, y = a[n][:], b[n][:]
    assert x.shape == y.shape and x.tobytes() == y.tobytes(), \
        f"{n}: kind form differs from the built-in kind by {np.abs(x - y).max():.3g}"
print(f"ok: {sys.argv[2].rsplit('/', 1)[1]} equals the built-in kind bitwise ({a['residual'].shape[0]} dofs)")
EOF
}
# pair GEO SIZE ORDER DIM [EXTRA-YAML]: the same problem as kind poisson and as kind form
pair() {
  local geo=$1 size=$2 order=$3 dim=$4 extra=${5:-} f1
  f1=$([ "$dim" = 2 ] && echo '["kappa*u_x", "kappa*u_y"]' || echo '["kappa*u_x", "kappa*u_y", "kappa*u_z"]')
  local common="mesh: {file: $(geo "$geo"), size: $size}
space: {order: $order}
state: {u: \"x*y + sin(z + x)\"}
output: {residual: true, rhs: true, matrix: true, element_matrices: true}
$extra"
  printf '%s\nphysics: {kind: poisson, kappa: "1 + x*y", source: "sin(pi*x)*y"}\n' "$common" > "$WORK/p.yaml"
  printf '%s\nphysics:\n  kind: form\n  coefficients: {kappa: "1 + x*y", f: "sin(pi*x)*y"}\n  f0: "-f"\n  f1: %s\n' \
    "$common" "$f1" > "$WORK/f.yaml"
  "$FEINT" run --quiet "$WORK/p.yaml" -o "$WORK/p.h5"
  "$FEINT" run --quiet "$WORK/f.yaml" -o "$WORK/f.h5"
  compare "$WORK/p.h5" "$WORK/f.h5"
}
pair cube.geo 0.3 1 3
pair cube.geo 0.3 2 3
pair cube.geo 0.5 4 3
pair prismcube.geo 0.5 2 3
pair square.geo 0.2 2 2 'boundary:
  - {group: left, dirichlet: "y^2"}
  - {group: top, neumann: "1 + x"}
assembly: {dirichlet: symmetric}'
for s in atomic gather; do
  "$FEINT" run --quiet "$WORK/f.yaml" -o "$WORK/f-$s.h5" --set assembly.strategy=$s
  compare "$WORK/p.h5" "$WORK/f-$s.h5"
done
# a constant coefficient and a parameter: the same numbers again
"$FEINT" run --quiet "$WORK/p.yaml" -o "$WORK/p2.h5" --set physics.kappa=2.5
"$FEINT" run --quiet "$WORK/f.yaml" -o "$WORK/f2.h5" --set 'physics.parameters={k: 2.5}' \
  --set 'physics.coefficients={f: "sin(pi*x)*y"}' --set 'physics.f1=["k*u_x", "k*u_y"]'
compare "$WORK/p2.h5" "$WORK/f2.h5"
# a mixed mesh (tetrahedra over prisms, P3: a block of each shape, each with its rules)
"$FEINT" run --quiet "$ROOT/cases/poisson-mixed.yaml" -o "$WORK/mixed-poisson.h5" --set output.element_matrices=true
"$FEINT" run --quiet "$ROOT/cases/poisson-mixed.yaml" -o "$WORK/mixed-form.h5" --set output.element_matrices=true \
  --set 'physics={kind: form, coefficients: {f: "3*pi^2*sin(pi*x)*sin(pi*y)*sin(pi*z)"}, f0: "-f", f1: [u_x, u_y, u_z]}'
compare "$WORK/mixed-poisson.h5" "$WORK/mixed-form.h5"
# the cuda backend takes forms on mixed meshes too (tests/gpu/t644); here it has no GPU
expect_bad "form on cuda on a mixed mesh" "no CUDA device is visible|built without CUDA" \
  run --quiet "$ROOT/cases/poisson-mixed.yaml" -o "$WORK/out.h5" --backend cuda \
  --set 'physics={kind: form, coefficients: {f: "1"}, f0: "-f", f1: [u_x, u_y, u_z]}'
# on P1 triangles the cuda kind takes the form (tests/gpu/t641 runs it);
# without a GPU it says so, and a build without CUDA says it lacks CUDA
expect_bad "form on cuda without a GPU" "no CUDA device is visible|built without CUDA" \
  run --quiet "$ROOT/cases/poisson2d.yaml" -o "$WORK/out.h5" --backend cuda \
  --set 'physics={kind: form, coefficients: {f: "1"}, f0: "-f", f1: [u_x, u_y]}'
# x, y, z read in f0 are the quadrature points (vertex shape functions:
# affine tetrahedra, multilinear prisms): a P2 source x y - 2 z^2 written
# in f0 gives the load of the same source interpolated at the dofs (exact
# for P2 to rounding; so does the gradient of a coefficient k = x^2 +
# 3 y (exact in P2) read as k_x + k_y against the source 2 x + 3
for g in cube.geo prismcube.geo square.geo; do
  base="mesh: {file: $(geo $g), size: 0.4}
space: {order: 2}
output: {residual: false, matrix: false, rhs: true}"
  if [ $g = square.geo ]; then
    printf '%s\nphysics: {kind: poisson, source: "2*x + 3"}\n' "$base" > "$WORK/p.yaml"
    printf '%s\nphysics: {kind: form, coefficients: {k: "x^2 + 3*y"}, f0: "-(k_x + k_y)", f1: [u_x, u_y]}\n' \
      "$base" > "$WORK/f.yaml"
  else
    printf '%s\nphysics: {kind: poisson, source: "x*y - 2*z^2"}\n' "$base" > "$WORK/p.yaml"
    printf '%s\nphysics: {kind: form, f0: "-(x*y - 2*z^2)", f1: [u_x, u_y, u_z]}\n' "$base" > "$WORK/f.yaml"
  fi
  "$FEINT" run --quiet "$WORK/p.yaml" -o "$WORK/p.h5"
  "$FEINT" run --quiet "$WORK/f.yaml" -o "$WORK/f.h5"
  $PY - "$WORK/p.h5" "$WORK/f.h5" "$g" <<'EOF'
import sys, h5py, numpy as np
a, b = h5py.File(sys.argv[1])["rhs"][:], h5py.File(sys.argv[2])["rhs"][:]
d = np.abs(a - b).max() / np.abs(a).max()
assert d < 1e-14, f"{sys.argv[3]}: f0 differs from the interpolated source by {d:.3g}"
print(f"ok: f0 in x, y, z or a coefficient's gradient on {sys.argv[3]}: relative difference {d:.2g}")
EOF
done
# elasticity written as a form (3 components, f1 = sigma(u) row by row,
# its g3 derived) gives kind elasticity's numbers bitwise, P2 tetrahedra
common="mesh: {file: $(geo cube.geo), size: 0.4}
space: {order: 2, components: 3}
state: {u: [\"x*y\", \"sin(z)\", \"x + y*z\"]}
output: {residual: true, rhs: true, matrix: true, element_matrices: true}"
printf '%s\nphysics: {kind: elasticity, lame_lambda: "1 + x", lame_mu: 0.7, source: ["sin(x)", "y*z", "-1 - x"]}\n' \
  "$common" > "$WORK/p.yaml"
printf '%s\nphysics:\n  kind: form\n  coefficients: {lam: "1 + x", mu: 0.7, fx: "sin(x)", fy: "y*z", fz: "-1 - x"}
  f0: ["-fx", "-fy", "-fz"]\n  f1: [%s, %s, %s]\n' "$common" "$(form_sigma 0 3)" "$(form_sigma 1 3)" "$(form_sigma 2 3)" > "$WORK/f.yaml"
"$FEINT" run --quiet "$WORK/p.yaml" -o "$WORK/p.h5"
"$FEINT" run --quiet "$WORK/f.yaml" -o "$WORK/elasticity-form.h5"
compare "$WORK/p.h5" "$WORK/elasticity-form.h5"
# the disk cache off (--no-cache, backend.cache: false; tests/gpu/t641 checks
# the GPU compiles anew): accepted by run and bench, nothing changes on the cpu
"$FEINT" run --quiet "$WORK/f.yaml" -o "$WORK/nocache-option.h5" --no-cache
compare "$WORK/p.h5" "$WORK/nocache-option.h5"
"$FEINT" run --quiet "$WORK/f.yaml" -o "$WORK/nocache-set.h5" --set backend.cache=false
compare "$WORK/p.h5" "$WORK/nocache-set.h5"
printf 'backend: {cache: false}\n' >> "$WORK/f.yaml"
"$FEINT" run --quiet --json "$WORK/f.yaml" -o "$WORK/nocache-key.h5" --no-cache > "$WORK/nocache.json"
compare "$WORK/p.h5" "$WORK/nocache-key.h5"
$PY -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["jit"] is None, d["jit"]' "$WORK/nocache.json" ||
  fail "the cpu backend reports compiled code: $(cat "$WORK/nocache.json")"
"$FEINT" bench --quiet --repeat 1 --no-cache "$WORK/f.yaml" -o "$WORK/nocache-bench.h5" > /dev/null
sed -i 's/cache: false/cache: maybe/' "$WORK/f.yaml"
expect_bad "backend.cache value" 'f.yaml:10:18: backend.cache: expected true or false, got' \
  run --quiet "$WORK/f.yaml" -o "$WORK/out.h5"
expect_bad "backend.cache from --set" '--set backend.cache=1: backend.cache: expected true or false, got' \
  run --quiet "$WORK/p.yaml" -o "$WORK/out.h5" --set backend.cache=1
expect_bad "backend.cache key" "unknown key 'cahce' in backend; did you mean 'cache'\\?" \
  run --quiet "$WORK/p.yaml" -o "$WORK/out.h5" --set backend.cahce=false
expect_bad "--no-cache on check" "unknown option '--no-cache'" check "$WORK/p.yaml" --no-cache
# bad input: exit status 2, no output file, the case file's line and column
# and the character inside the expression
write_case bad.yaml <<EOF
mesh: {file: $(geo square.geo), size: 0.3}
physics:
  kind: form
  parameters: {k0: 1.0}
  f0: "-1"
  f1: ["k0*u_x", "k0*u_X"]
EOF
expect_bad "unknown symbol" 'bad.yaml:6:18: in expression "k0\*u_X": unknown symbol "u_X" at character 4 \(did you mean "u_x"\?\)' \
  run --quiet "$WORK/bad.yaml" -o "$WORK/out.h5"
sed -i 's/"k0\*u_X"/"k0*(u_y"/' "$WORK/bad.yaml"
expect_bad "parse error" 'bad.yaml:6:18: in expression "k0\*\(u_y": expected .* at character 8' \
  run --quiet "$WORK/bad.yaml" -o "$WORK/out.h5"
sed -i 's/, "k0\*(u_y"//' "$WORK/bad.yaml"
expect_bad "f1 components" 'bad.yaml:6:8: physics.f1 needs 2 expressions on this 2D mesh \(one per direction\), got 1' \
  run --quiet "$WORK/bad.yaml" -o "$WORK/out.h5"
expect_bad "g3 shape" 'physics.g3\[1\]: expected a 1x1, 2x2 or 3x3 list of lists' \
  run --quiet "$WORK/bad.yaml" -o "$WORK/out.h5" --set 'physics.g3=[[1, 0], [0]]'
expect_bad "taken name" "physics.coefficients.u_x: the symbol 'u_x' is taken" \
  run --quiet "$WORK/bad.yaml" -o "$WORK/out.h5" --set 'physics.coefficients={u_x: 1}'
expect_bad "gradient name taken" "physics.parameters.f_x: the symbol 'f_x' is taken" \
  run --quiet "$WORK/bad.yaml" -o "$WORK/out.h5" --set 'physics.coefficients={f: 1}' --set 'physics.parameters.f_x=2'
expect_bad "parameter value" "physics.parameters.k0: expected a number" \
  run --quiet "$WORK/bad.yaml" -o "$WORK/out.h5" --set 'physics.parameters.k0="x"'
expect_bad "no residual" "bad.yaml:3:9: physics: kind form needs f0 or f1" \
  run --quiet "$WORK/bad.yaml" -o "$WORK/out.h5" --set physics.f0=null --set physics.f1=null
expect_bad "vector f0" 'bad.yaml:5:7: physics.f0: expected a list of 2 expressions \(one per component: space.components is 2\)' \
  run --quiet "$WORK/bad.yaml" -o "$WORK/out.h5" --set space.components=2
expect_bad "vector symbol" 'unknown symbol "u_x" at character 1 \(did you mean "u0_x"\?\)' \
  run --quiet "$WORK/bad.yaml" -o "$WORK/out.h5" --set space.components=2 --set 'physics.f0=[0, 0]' \
  --set 'physics.f1=[[u_x, u0_y], [u1_x, u1_y]]'
expect_bad "vector blocks" 'physics.g0: Jacobian blocks are written for scalar fields in this version; for 2 components they are derived' \
  run --quiet "$WORK/bad.yaml" -o "$WORK/out.h5" --set space.components=2 --set 'physics.f0=[u0, u1]' \
  --set physics.f1=null --set physics.g0=1
# quadrilaterals and hexahedra run on the cpu backend (t57-forms-tensor.sh
# checks their numbers); the cuda backend refuses them with its reason
"$FEINT" run --quiet "$WORK/bad.yaml" -o "$WORK/quad.h5" --set mesh.file="$(geo quadsquare.geo)" \
  --set 'physics.f1=["u_x", "u_y"]'
[ -s "$WORK/quad.h5" ] || fail "a form on quadrilaterals wrote no output"
echo "ok: a form runs on quadrilaterals"
# the cuda backend takes them too (tests/gpu/t641), where there is a GPU
expect_bad "quadrilaterals on cuda" "no CUDA device is visible|built without CUDA" \
  run --quiet "$WORK/bad.yaml" -o "$WORK/out.h5" --set mesh.file="$(geo quadsquare.geo)" \
  --set 'physics.f1=["u_x", "u_y"]' --backend cuda
