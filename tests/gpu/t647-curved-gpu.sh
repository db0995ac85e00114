#!/usr/bin/env bash
# Curved cells on the GPU (issue 21): second-order triangles and
# tetrahedra run on the cuda backend by the form-jit family, J at every
# point from each cell's own geometry nodes (a built-in kind as the form
# it is). feint run --backend cuda against --backend cpu within 1e-13
# relative (2-norm and max-norm) on the residual, load vector, element
# matrices and CSR matrix, in every assembly strategy: Poisson P1/P2/P3 on
# the curved disc and ball, elasticity P2 on the ball, a nonlinear user
# form P2 on the ball; facet integrals on curved facets (Robin on the
# disc, Neumann on the ball); geometry of order 3 (P3 with Robin on the
# disc, P2 with Neumann on the ball); quadrilaterals, hexahedra and
# prisms of order 2, complete and incomplete (Q2/P2 with Robin or Neumann
# on their curved facets, Q2 elasticity on hexahedra), quadrilaterals and
# hexahedra of order 3; flux conditions (q . n, n from the map); mixed
# meshes of curved triangles and quadrilaterals (orders 2 and 3),
# hexahedra and prisms (complete and incomplete), tetrahedra and prisms
# (P2 elasticity too); the BP operators on curved hexahedra. Orientation: the warped cube of gen-cube-msh
# --order 2 has half its cells negatively oriented (Kuhn paths of odd
# permutations); the GPU agrees there and its load vector of f = 1 sums
# to the volume, 1. The unwarped cube in 10-node cells (every cell affine:
# the straight class alone) agrees with the cpu, which gives the straight
# cube's numbers bit for bit (t25); the disc and the ball have both
# classes (curved boundary cells, affine interior ones). --backend auto
# takes the GPU (no fallback).
source "$(dirname "$0")/../cli/lib.sh"
require_gpu
export FEINT_CACHE_DIR="$WORK/cache"
OUTS=(residual rhs element_matrices matrix/data)
family() { $PY -c 'import json, sys; print(json.load(open(sys.argv[1]))["kernel_family"])' "$1"; }
case_file() { # NAME MESH SIZE ORDER COMPONENTS STATE PHYSICS-YAML
  printf 'mesh: {file: %s, size: %s}\nspace: {order: %s, components: %s}\nstate: {u: %s}\n%s\n%s\n' \
    "$2" "$3" "$4" "$5" "$6" "output: {residual: true, rhs: true, matrix: true, element_matrices: true}" "$7" \
    > "$WORK/$1.yaml"
}
run_both() { # NAME: cpu, then cuda in each strategy, compared
  local name=$1 st
  "$FEINT" run --quiet "$WORK/$name.yaml" -o "$WORK/$name-cpu.h5" --backend cpu
  for st in atomic colored gather; do
    "$FEINT" run --quiet --json "$WORK/$name.yaml" -o "$WORK/$name-$st.h5" --backend cuda \
      --set assembly.strategy=$st > "$WORK/$name.json" || fail "$name $st: the cuda run failed"
    [ "$(family "$WORK/$name.json")" = form-jit ] || fail "$name $st: family $(family "$WORK/$name.json")"
    $PY "$ROOT/tests/gpu/agree.py" --tol=1e-13 --nonzero --ref=cpu "$WORK/$name-cpu.h5" "$WORK/$name-$st.h5" \
      "$name $st" both "${OUTS[@]}" || fail "$name $st: cuda differs from cpu"
  done
  echo "ok $name: cuda equals cpu on curved cells (atomic, colored, gather)"
}
disc=$ROOT/tests/data/disc2.geo ball=$ROOT/tests/data/ball2.geo
for p in 1 2 3; do
  case_file disc-p$p "$disc" 0.2 $p 1 '"x*y + 1"' 'physics: {kind: poisson, kappa: "1 + x^2", source: "16*(x^2 + y^2)"}'
  run_both disc-p$p
done
case_file ball-p2 "$ball" 0.4 2 1 '"x*y - z"' 'physics: {kind: poisson, kappa: "1 + x^2", source: "sin(x) + y"}'
run_both ball-p2
case_file ball-p3 "$ball" 0.6 3 1 '"x*y - z"' 'physics: {kind: poisson, source: "1"}'
run_both ball-p3
# curved facets: Robin (a varying alpha) on the disc, Neumann on the ball (the GPU facet kernel)
case_file robin "$disc" 0.2 2 1 '"x*y + 1"' 'physics: {kind: poisson, source: "16*(x^2 + y^2)"}
boundary: [{group: boundary, robin: {alpha: "1 + x^2", value: -4}}]'
run_both robin
case_file neumann "$ball" 0.4 2 1 '"x*y - z"' 'physics: {kind: poisson, source: "1"}
boundary: [{group: boundary, neumann: "x*y + 1"}]'
run_both neumann
# geometry of order 3 (10-node triangles, 20-node tetrahedra)
sed 's/Mesh.ElementOrder = 2;/Mesh.ElementOrder = 3;/' "$disc" > "$WORK/disc3.geo"
sed 's/Mesh.ElementOrder = 2;/Mesh.ElementOrder = 3;/' "$ball" > "$WORK/ball3.geo"
case_file disc3 "$WORK/disc3.geo" 0.3 3 1 '"x*y + 1"' 'physics: {kind: poisson, kappa: "1 + x^2", source: "16*(x^2 + y^2)"}
boundary: [{group: boundary, robin: {alpha: "1 + x^2", value: -4}}]'
run_both disc3
case_file ball3 "$WORK/ball3.geo" 0.6 2 1 '"x*y - z"' 'physics: {kind: poisson, source: "sin(x) + y"}
boundary: [{group: boundary, neumann: "x*y + 1"}]'
run_both ball3
case_file elastic "$ball" 0.5 2 3 '["x*y", "y*z", "z - x"]' 'physics: {kind: elasticity, lame_lambda: 0.6, lame_mu: 0.7, source: [1, "x", "y*z"]}'
run_both elastic
case_file form "$ball" 0.5 2 1 '"x*y + sin(z + x)"' 'physics:
  kind: form
  parameters: {k0: 1.5, beta: 2}
  coefficients: {kappa: "1 + x*y", f: 3}
  f0: "-f*exp(u) + kappa_x"
  f1: ["(k0 + beta*u^2)*kappa*u_x", "kappa*u_y", "u_z + kappa_x*u"]'
run_both form
# orientation: half the warped cube's cells are negatively oriented
"$(dirname "$FEINT")/bench/gen-cube-msh" --warp --order 2 4 "$WORK/cube2.msh"
case_file cube "$WORK/cube2.msh" 1 2 1 '"x*y - z"' 'physics: {kind: poisson, kappa: "1 + x^2", source: "1"}'
run_both cube
$PY - "$WORK/cube-colored.h5" <<'EOF' || fail "warped cube: the GPU's volume is not 1"
import sys, h5py
v = h5py.File(sys.argv[1])["rhs"][:].sum()
assert abs(v - 1) < 1e-12, v
EOF
echo "ok: the warped cube's volume on the GPU is 1 (mixed orientations)"
"$(dirname "$FEINT")/bench/gen-cube-msh" --order 2 4 "$WORK/affine.msh"
case_file affine "$WORK/affine.msh" 1 2 1 '"x*y - z"' 'physics: {kind: poisson, kappa: "1 + x^2", source: "x + y"}'
run_both affine
# quadrilaterals, hexahedra and prisms of order 2, complete and incomplete (Neumann on curved quadrilateral facets)
for kind in 2 i; do
  for shape in quad hex prism; do curved_geo "$WORK/$shape$kind.geo" $shape $kind; done
  case_file quad$kind "$WORK/quad$kind.geo" 0.2 2 1 '"x*y + 1"' 'physics: {kind: poisson, kappa: "1 + x^2", source: "16*(x^2 + y^2)"}
boundary: [{group: boundary, robin: {alpha: "1 + x^2", value: -4}}]'
  run_both quad$kind
  for shape in hex prism; do
    case_file $shape$kind "$WORK/$shape$kind.geo" 0.4 2 1 '"x*y - z"' 'physics: {kind: poisson, kappa: "1 + x^2", source: "sin(x) + y"}
boundary: [{group: boundary, neumann: "x*y + 1"}]'
    run_both $shape$kind
  done
done
# order 3: 16-node quadrilaterals (Q3), 64-node hexahedra (Q2)
for shape in quad hex; do
  curved_geo "$WORK/${shape}3.geo" $shape 3
done
case_file quad3 "$WORK/quad3.geo" 0.3 3 1 '"x*y + 1"' 'physics: {kind: poisson, kappa: "1 + x^2", source: "16*(x^2 + y^2)"}
boundary: [{group: boundary, robin: {alpha: "1 + x^2", value: -4}}]'
run_both quad3
case_file hex3 "$WORK/hex3.geo" 0.5 2 1 '"x*y - z"' 'physics: {kind: poisson, kappa: "1 + x^2", source: "sin(x) + y"}
boundary: [{group: boundary, neumann: "x*y + 1"}]'
run_both hex3
# flux conditions (q . n from the map at the facet points): curved triangles and hexahedra
case_file flux-disc "$disc" 0.2 2 1 '"x*y + 1"' 'physics: {kind: poisson, source: "16*(x^2 + y^2)"}
boundary: [{group: boundary, flux: ["-4*x*(x^2 + y^2)", "y"]}]'
run_both flux-disc
case_file flux-hex "$WORK/hex2.geo" 0.4 2 1 '"x*y - z"' 'physics: {kind: poisson, source: "1"}
boundary: [{group: boundary, flux: ["x", "y*z", "1 + z"]}]'
run_both flux-hex
case_file hex-elastic "$WORK/hex2.geo" 0.5 2 3 '["x*y", "y*z", "z - x"]' 'physics: {kind: elasticity, lame_lambda: 0.6, lame_mu: 0.7, source: [1, "x", "y*z"]}'
run_both hex-elastic
# curved cells in mixed meshes: two kernel classes a shape (curved, affine), each with its block's nodes
for shapes in tri-quad hex-prism tet-prism; do curved_mixed_geo "$WORK/$shapes.geo" $shapes 2; done
curved_mixed_geo "$WORK/tri-quad3.geo" tri-quad 3
curved_mixed_geo "$WORK/hex-prismi.geo" hex-prism i
case_file tri-quad "$WORK/tri-quad.geo" 0.2 2 1 '"x*y + 1"' 'physics: {kind: poisson, kappa: "1 + x^2", source: "16*(x^2 + y^2)"}
boundary: [{group: boundary, robin: {alpha: "1 + x^2", value: -4}}]'
run_both tri-quad
case_file tri-quad3 "$WORK/tri-quad3.geo" 0.3 3 1 '"x*y + 1"' 'physics: {kind: poisson, source: "1"}
boundary: [{group: boundary, flux: ["x", "y*x"]}]'
run_both tri-quad3
for shapes in hex-prism hex-prismi tet-prism; do
  case_file $shapes "$WORK/$shapes.geo" 0.4 2 1 '"x*y - z"' 'physics: {kind: poisson, kappa: "1 + x^2", source: "sin(x) + y"}
boundary: [{group: boundary, neumann: "x*y + 1"}]'
  run_both $shapes
done
case_file mixed-elastic "$WORK/tet-prism.geo" 0.5 2 3 '["x*y", "y*z", "z - x"]' 'physics: {kind: elasticity, lame_lambda: 0.6, lame_mu: 0.7, source: [1, "x", "y*z"]}'
run_both mixed-elastic
# the BP operators on curved hexahedra: stored factors made on the host from each cell's nodes, uploaded
printf 'mesh: {file: %s, size: 0.3}\nspace: {order: 3}\noperator: {kind: bp1.0, lambda: 2, geometry: stored}\nstate: {u: "sin(x) + y*z"}\n' \
  "$WORK/hex2.geo" > "$WORK/op.yaml"
for k in bp1.0 bp3.0 bp3.5; do
  for b in cpu cuda; do
    "$FEINT" run --quiet "$WORK/op.yaml" --set operator.kind=$k --backend $b -o "$WORK/op-$k-$b.h5" || fail "operator $k $b"
  done
  $PY "$ROOT/tests/gpu/agree.py" --tol=1e-13 --nonzero --ref=cpu "$WORK/op-$k-cpu.h5" "$WORK/op-$k-cuda.h5" \
    "curved $k" both operator/y || fail "operator $k: cuda differs from cpu"
done
echo "ok: the BP operators on curved hexahedra agree on the GPU"
# auto: the GPU, without a fallback
"$FEINT" run "$WORK/disc-p2.yaml" -o "$WORK/auto.h5" > "$WORK/auto.out" 2>&1 || fail "auto run failed"
grep -qi "cpu backend" "$WORK/auto.out" && fail "auto fell back to the cpu: $(cat "$WORK/auto.out")"
$PY -c 'import sys, h5py; assert h5py.File(sys.argv[1]).attrs["backend"] == "cuda"' "$WORK/auto.h5" ||
  fail "auto did not run on the cuda backend"
echo "ok: --backend auto runs curved cells on the GPU"
