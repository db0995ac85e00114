# The cuda backend's user-form kernels (src/backend/cuda/form_source.c,
# family form-jit) checked on the CPU in every build: their generated
# source, with the CUDA keywords defined away, compiled as C++ and run cell
# after cell on the host (tests/cli/form_kernels_host.cpp) gives the cpu
# backend's residual, load vector, element matrices and CSR values to
# 1e-15 (the same sums in the same order; bitwise here): Poisson as a form
# with nodal coefficients on P1 triangles, a nonlinear form with a
# parameter, exp(u) and a coefficient's gradient on P2 tetrahedra, vector
# forms of 2 components (P1 triangles) and 3 (P2 tetrahedra); on cells
# whose J varies (twisted prisms: P2 has 18 basis functions, past which
# the cpu backend orders its matrix sums otherwise, 1e-14; twisted
# hexahedra and quadrilaterals, which it sum-factorises: 1e-13); curved
# cells, and the curved classes of mixed meshes (FEINT_HOST_CLASS: each
# shape's cells read their rows of the widest shape's nodes; element
# matrices compared). The GPU runs
# the same source (tests/gpu/t641-forms-gpu.sh). Skipped under the
# sanitizers (the library is instrumented) and without a C++ compiler.
source "$(dirname "$0")/lib.sh"
if sanitized || ! command -v "${CXX:-g++}" > /dev/null; then
  echo "skipped: $(sanitized && echo "sanitized build" || echo "no C++ compiler")"
  exit 0
fi
B=$(dirname "$FEINT")
cxx() { # OUT [FLAGS...]: the harness against the build's library
  local out=$1
  shift
  "${CXX:-g++}" -O1 -w "$@" -I"$ROOT/include" -I"$ROOT/src" $(pkg-config --cflags hdf5-serial yaml-0.1) \
    -o "$out" "$ROOT/tests/cli/form_kernels_host.cpp" "$B/libfeint.a" $(pkg-config --libs hdf5-serial yaml-0.1) \
    -lm -lpthread -ldl
}
cxx "$WORK/generate"
check() { # NAME [TOL]: $WORK/NAME.yaml through the kernels on the host
  "$WORK/generate" "$WORK/$1.yaml" > "$WORK/$1.cu"
  grep -q "feint_form_matrix" "$WORK/$1.cu" || fail "$1: no source"
  cxx "$WORK/$1" -DFEINT_FORM_SOURCE="\"$WORK/$1.cu\""
  "$WORK/$1" "$WORK/$1.yaml" ${2:-} || fail "$1: the kernels differ from the cpu backend"
}
check_block() { # NAME TOL: the same with the block-a-cell matrix kernel
  cxx "$WORK/$1-block" -DFM_MODE=3 -DFEINT_FORM_SOURCE="\"$WORK/$1.cu\""
  "$WORK/$1-block" "$WORK/$1.yaml" $2 || fail "$1: the block matrix kernel differs from the cpu backend"
}
write() { # NAME GEO SIZE ORDER COMPONENTS STATE PHYSICS (GEO: in cases/, or a path)
  local g=$2
  [[ $g == */* ]] || g=$(geo "$g")
  printf 'mesh: {file: %s, size: %s}\nspace: {order: %s, components: %s}\nstate: {u: %s}\nphysics:\n%s\n' \
    "$g" "$3" "$4" "$5" "$6" "$7" > "$WORK/$1.yaml"
}
write poisson square.geo 0.2 1 1 '"x*y"' '  kind: form
  coefficients: {kappa: "1 + x*y", f: "sin(pi*x)*y"}
  f0: "-f"
  f1: ["kappa*u_x", "kappa*u_y"]'
check poisson
write nonlinear cube.geo 0.4 2 1 '"x*y + sin(z + x)"' '  kind: form
  parameters: {k0: 1.5, beta: 2}
  coefficients: {kappa: "1 + x*y", f: 3}
  f0: "-f*exp(u) + kappa_x"
  f1: ["(k0 + beta*u^2)*kappa*u_x", "kappa*u_y", "u_z + kappa_x*u"]'
check nonlinear
write vector2 square.geo 0.2 1 2 '["sin(x) + y", "x*y"]' '  kind: form
  parameters: {k: 1.5}
  f0: ["u0*u1 - 1", "-exp(u0)*u1"]
  f1: [["(1 + u1^2)*u0_x", "u0_y + u1_x"], ["k*u1_x", "u1_y - u0_x*u1"]]'
check vector2
# a nonlinear form of 3 components and its state
vector3='  kind: form
  parameters: {k: 1.5}
  f0: ["u0*u1 - u2 + 1", "-exp(u0)*u1", "u2^2 - x"]
  f1: [["(1 + u1^2)*u0_x", "u0_y + u1_x", "u0_z"], ["k*u1_x", "u1_y", "u1_z - u2_x"], ["u2_x", "u2_y*u0", "(1 + u2^2)*u2_z"]]'
state3='["sin(x) + y", "x*z", "1 + y*z"]'
write vector3 cube.geo 0.5 2 3 "$state3" "$vector3"
check vector3
nonlinear='  kind: form
  parameters: {k0: 1.5, beta: 2}
  coefficients: {kappa: "1 + x*y", f: 3}
  f0: "-f*exp(u) + kappa_x"
  f1: ["(k0 + beta*u^2)*kappa*u_x", "kappa*u_y", "u_z + kappa_x*u"]'
write prism "$ROOT/tests/data/twisted_prism.geo" 0.5 2 1 '"x*y + sin(z + x)"' "$nonlinear"
grep -q "FORM_AFFINE 0" <("$WORK/generate" "$WORK/prism.yaml") || fail "prisms: J not per point"
check prism 1e-14
write hex "$ROOT/tests/data/twisted_hex.geo" 0.5 2 1 '"x*y + sin(z + x)"' "$nonlinear"
check hex 1e-13
write hex3 "$ROOT/tests/data/twisted_hex.geo" 0.5 1 3 "$state3" "$vector3"
check hex3 1e-13
write quad "$ROOT/tests/data/quad_square.geo" 0.25 3 2 '["sin(x) + y", "x*y"]' '  kind: form
  parameters: {k: 1.5}
  f0: ["u0*u1 - 1", "-exp(u0)*u1"]
  f1: [["(1 + u1^2)*u0_x", "u0_y + u1_x"], ["k*u1_x", "u1_y - u0_x*u1"]]'
check quad 1e-13
# the block-a-cell matrix kernel (large cells, many points) pulls the
# Jacobian blocks back to the reference cell first: round-off apart
grep -q "FM_MODE 3" "$WORK/hex3.cu" || fail "Q1 hexahedra of 3 components: not the block matrix kernel"
for n in nonlinear vector3 prism hex3 quad; do check_block $n 1e-13; done
# past 128 dofs a cell: Q3 hexahedra of 3 components (192), the block
# matrix kernel's points' blocks in scratch, the block vector kernel (64
# basis functions)
write hexq3 "$ROOT/tests/data/twisted_hex.geo" 0.5 3 3 "$state3" "$vector3"
check hexq3 1e-13
grep -q "FB_D_SHARED 0" "$WORK/hexq3.cu" || fail "Q3 hexahedra of 3 components: the points' blocks not in scratch"
grep -q "FV_BLOCK 1" "$WORK/hexq3.cu" || fail "Q3 hexahedra of 3 components: not the block vector kernel"
check_block hexq3 1e-13
# curved cells (second-order triangles and tetrahedra): J at every point
# from each cell's own geometry nodes, read from x (the layout's curved)
write curved2 "$ROOT/tests/data/disc2.geo" 0.4 2 1 '"x*y + sin(x)"' '  kind: form
  parameters: {k0: 1.5, beta: 2}
  coefficients: {kappa: "1 + x*y", f: 3}
  f0: "-f*exp(u) + kappa_x"
  f1: ["(k0 + beta*u^2)*kappa*u_x", "kappa*u_y + x"]'
grep -q "FORM_CURVED 1" <("$WORK/generate" "$WORK/curved2.yaml") || fail "curved triangles: not the curved layout"
grep -q "FORM_AFFINE 0" <("$WORK/generate" "$WORK/curved2.yaml") || fail "curved triangles: J not per point"
check curved2 1e-14
write curved3 "$ROOT/tests/data/ball2.geo" 0.6 2 3 "$state3" "$vector3"
check curved3 1e-14
write curvedp3 "$ROOT/tests/data/ball2.geo" 0.6 3 1 '"x*y + sin(z + x)"' "$nonlinear"
check curvedp3 1e-14
for n in curved2 curved3 curvedp3; do check_block $n 1e-13; done
# curved cells of mixed meshes: each shape's curved class reads its cells' rows of the widest block's nodes
for shapes in tri-quad tet-prism; do curved_mixed_geo "$WORK/$shapes.geo" $shapes 2; done
write mixed2 "$WORK/tri-quad.geo" 0.3 2 1 '"x*y + sin(x)"' '  kind: form
  coefficients: {kappa: "1 + x*y", f: "sin(pi*x)*y"}
  f0: "-f*u"
  f1: ["kappa*u_x", "kappa*u_y + u"]'
write mixed3 "$WORK/tet-prism.geo" 0.5 2 1 '"x*y + sin(z + x)"' "$nonlinear"
for n in mixed2 mixed3; do
  for k in 0 2; do # (classes 2b: block b's curved cells)
    FEINT_HOST_CLASS=$k "$WORK/generate" "$WORK/$n.yaml" > "$WORK/$n-$k.cu"
    grep -q "FORM_CURVED 1" "$WORK/$n-$k.cu" || fail "$n class $k: not the curved layout"
    cxx "$WORK/$n-$k" -DFEINT_FORM_SOURCE="\"$WORK/$n-$k.cu\""
    FEINT_HOST_CLASS=$k "$WORK/$n-$k" "$WORK/$n.yaml" 1e-13 || fail "$n class $k: the kernels differ from the cpu backend"
  done
done
echo "ok: the user-form kernels on the host equal the cpu backend"
