# Boundary conditions (Dirichlet rows and symmetric lifting, Neumann flux),
# checked independently from the exported system with SciPy: the
# manufactured Poisson problem with Dirichlet data from feint converges at
# order p+1 (2D and 3D), the constrained dofs are the dofs on the boundary,
# Neumann loads integrate to the exact boundary integrals, a mixed
# Dirichlet/Neumann problem converges, and bad boundary input exits 2.
source "$(dirname "$0")/lib.sh"
CHECK="$PY $ROOT/tests/cli/bc_checks.py"

dirichlet_triple() { # geo order size name dim
  local src exact
  if [ "$5" = 2 ]; then src="2*pi^2*sin(pi*x)*sin(pi*y)"; exact="sin(pi*x)*sin(pi*y)"
  else src="3*pi^2*sin(pi*x)*sin(pi*y)*sin(pi*z)"; exact="sin(pi*x)*sin(pi*y)*sin(pi*z)"; fi
  write_case d.yaml <<EOF
mesh: {file: $(geo $1), size: $3}
space: {order: $2}
physics: {kind: poisson, source: "$src"}
state: {u: "$exact"}
boundary: [{group: boundary, dirichlet: "$exact"}]
EOF
  "$FEINT" run --quiet "$WORK/d.yaml" -o "$WORK/$4-r.h5"
  "$FEINT" run --quiet "$WORK/d.yaml" -o "$WORK/$4-s.h5" --set assembly.dirichlet=symmetric
  "$FEINT" run --quiet "$WORK/d.yaml" -o "$WORK/$4-m.h5" --set physics.kind=mass --set boundary=null
  echo "$WORK/$4-r.h5,$WORK/$4-s.h5,$WORK/$4-m.h5"
}
for order in 1 2; do
  t=(); for h in 0.2 0.1 0.05; do t+=("$(dirichlet_triple square.geo $order $h s$h 2)"); done
  $CHECK dirichlet $order "${t[@]}"
  # 3D P2 one level coarser: the direct solve of the finest P2 system takes long
  if [ $order = 1 ]; then sizes="0.25 0.125 0.0625"; else sizes="0.5 0.25 0.125"; fi
  t=(); for h in $sizes; do t+=("$(dirichlet_triple cube.geo $order $h c$h 3)"); done
  $CHECK dirichlet $order "${t[@]}"
done

# Neumann flux: the load sums to the exact integral of h over the group
flux() { # geo order h expected... (group left)
  local g=$1 p=$2 h=$3; shift 3
  write_case n.yaml <<EOF
mesh: {file: $(geo $g), size: 0.2}
space: {order: $p}
physics: {kind: poisson}
boundary: [{group: left, neumann: $h}]
output: {matrix: false, residual: false}
EOF
  "$FEINT" run --quiet "$WORK/n.yaml" -o "$WORK/n.h5"
  $CHECK flux "$WORK/n.h5" "$@"
}
for p in 1 2; do
  flux square.geo $p 1 1
  flux square.geo $p '"y"' 0.5
  flux cube.geo $p 1 1
  flux cube.geo $p '"y"' 0.5
  flux cube.geo $p '"y + 2*z"' 1.5
done
flux square.geo 2 '"y^2"' 0.333333333333333333  # P2 interpolates y^2 exactly
flux square.geo 3 '"y^3 - x"' 0.25
flux cube.geo 2 '"y*z"' 0.25
# vector space: one value per component
write_case e.yaml <<EOF
mesh: {file: $(geo square.geo), size: 0.2}
space: {order: 2}
physics: {kind: elasticity, E: 1, nu: 0.3}
boundary: [{group: top, neumann: [0, "-x"]}]
output: {matrix: false, residual: false}
EOF
"$FEINT" run --quiet "$WORK/e.yaml" -o "$WORK/e.h5"
$CHECK flux "$WORK/e.h5" 0 -0.5
# a null item leaves that component free
"$FEINT" run --quiet "$WORK/e.yaml" -o "$WORK/e0.h5" --set 'boundary=[{group: left, dirichlet: [~, 0]}]'
$CHECK components "$WORK/e0.h5" 0

# mixed: Dirichlet on the left, the exact flux on the other sides (lib.sh)
for order in 1 2; do
  t=(); for h in 0.2 0.1 0.05; do t+=("$(mixed_pair "$(geo square.geo)" $order $h)"); done
  $CHECK mixed $order "${t[@]}"
done

# the example case runs
"$FEINT" run --quiet "$ROOT/cases/poisson-dirichlet.yaml" -o "$WORK/example.h5"

# bad input: exit 2, a clear message, no output left behind
printf 'mesh: {file: %s}\nphysics: {kind: poisson}\nboundary:\n  - {group: walls, dirichlet: 0}\n' \
  "$(geo square.geo)" > "$WORK/b.yaml"
expect_bad "unknown group" "b.yaml:4:5: .*unknown physical group 'walls'.*left" run "$WORK/b.yaml" -o "$WORK/out.h5"
expect_bad "unknown group (check)" "unknown physical group 'walls'" check "$WORK/b.yaml"
expect_bad "group of the wrong dimension" "b.yaml:4:5: .*'domain' has dimension 2.*dimension 1" \
  run "$WORK/b.yaml" -o "$WORK/out.h5" --set boundary.0.group=domain
expect_bad "wrong number of components" "boundary\[0\]\.dirichlet has 2 values but the space has 1 component" \
  run "$WORK/b.yaml" -o "$WORK/out.h5" --set boundary.0.group=left --set 'boundary.0.dirichlet=[0, 1]'
expect_bad "wrong number of components (vector)" "boundary\[0\]\.neumann has 3 values but the space has 2 components" \
  run "$WORK/b.yaml" -o "$WORK/out.h5" --set physics.kind=elasticity --set physics.E=1 --set physics.nu=0.3 \
  --set 'boundary.0={group: left, neumann: [0, 1, 2]}'
expect_bad "bad dirichlet mode" "assembly.dirichlet: expected one of rows, symmetric" \
  run "$WORK/b.yaml" -o "$WORK/out.h5" --set assembly.dirichlet=lifted
