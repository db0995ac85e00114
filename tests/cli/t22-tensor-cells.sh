# Quadrilaterals and hexahedra in the assembled path (issue 4), checked
# with SciPy from the exported matrices:
#  - mass matrices sum to the volume (exact areas, and a twisted hexahedral
#    mesh whose trilinear volume fe_checks.py computes from the vertices),
#    Poisson matrices are symmetric with zero row sums and pass the patch
#    test (A x = 0 inside for the linear function x: fails if non-affine
#    cells were treated as affine), for quadrilaterals of orders 1..4, 7,
#    10, 14 (15: t24), prisms of every order 1..7, hexahedra of several
#    (every order 1..15 through the BP operators: t601);
#  - elasticity on distorted quadrilaterals annihilates exactly the rigid
#    body modes;
#  - manufactured Poisson solutions converge in L2 at rate >= p+1-0.3,
#    p = 1..4, on unstructured quadrilaterals and on hexahedra that are not
#    parallelepipeds;
#  - the assembled mass / screened Poisson matrix times x equals the BP1.0 /
#    BP3.0 operator's y = A x on the same (twisted) hexahedral mesh, orders
#    1..4 (the hexahedral space uses the BP dof numbering);
#  - Neumann on quadrilaterals of orders 3..15: exact load sums of a
#    polynomial flux, a mixed Dirichlet/Neumann problem converging at p+1;
#  - a varying Robin alpha at orders 14 and 15 on quadrilaterals: the
#    Robin matrix and load sums;
#  - bad input: cuda backend (boundary conditions on hexahedra and
#    prisms: t52-boundary-3d.sh).
source "$(dirname "$0")/lib.sh"
data() { echo "$ROOT/tests/data/$1"; }
run() { "$FEINT" run --quiet "$@"; }
check() { $PY "$ROOT/tests/cli/fe_checks.py" "$@"; }
write_case m.yaml <<EOF
mesh: {file: $(data trapezoid.geo)}
space: {order: 1}
physics: {kind: mass}
EOF
# sums, Laplacians, patch test: mesh, volume (or "trilinear"), box domain?,
# orders; the mass and Poisson matrices of every order from one feint
# process (a sweep: the mesh is read once; each member equals its run
# alone, t55), their checks in one SciPy process
sums() {
  local mesh=$1 vol=$2 box=$3 name list="" checks=() i=0; shift 3
  name=$(basename "$mesh" .geo)
  if [ "$vol" = trilinear ]; then
    run "$WORK/m.yaml" -o "$WORK/v.h5" --set mesh.file="$mesh" --set output.cell_dofs=true
    vol=$($PY -c "import sys; sys.path.insert(0, '$ROOT/tests/cli'); import fe_checks; print(repr(fe_checks.trilinear_volume('$WORK/v.h5')))")
  fi
  for p in "$@"; do
    list+="${list:+, }{space.order: $p, physics.kind: mass}, {space.order: $p, physics.kind: poisson}"
    checks+=(attrs "$WORK/s-$name-$i.h5" order=$p physics=mass + attrs "$WORK/s-$name-$((i + 1)).h5" order=$p
             physics=poisson + sum "$WORK/s-$name-$i.h5" "$vol" + laplacian "$WORK/s-$name-$((i + 1)).h5"
             + patch "$WORK/s-$name-$((i + 1)).h5" "$vol" "$box" +)
    i=$((i + 2))
  done
  run "$WORK/m.yaml" -o "$WORK/s-$name.h5" --set mesh.file="$mesh" --set "sweep.list=[$list]"
  echo "$name p$*:"
  check "${checks[@]:0:${#checks[@]}-1}"
  rm -f "$WORK"/s-"$name"-*.h5
}
# quadrilaterals: the lowest orders (no interior node, one, several per
# edge), some between and the highest below t24's 15 (one code path for
# every order; the GLL tables of each order: t021, t030)
sums "$(data trapezoid.geo)" 1.75 0 1 2 3 4 7 10 14
sums "$(data quad_square.geo)" 1 1 1 4
sums "$(data trapezoid_hex.geo)" 1.75 0 1 2 3
sums "$(data twisted_hex.geo)" trilinear 0 1 2 4
sums "$(data quad_cube.geo)" 1 1 1 3
sums "$(geo hexcube.geo)" 1 1 5

run "$WORK/m.yaml" -o "$WORK/e.h5" --set space.order=2 --set physics.kind=elasticity --set physics.E=1 \
  --set physics.nu=0.3
check rigid "$WORK/e.h5"

# convergence: pairs of poisson/mass runs over a sequence of meshes
converge() { # dim order mesh-options (one word per mesh, options joined by ':')...
  local dim=$1 order=$2 src exact pairs=() k=0; shift 2
  if [ "$dim" = 2 ]; then src="2*pi^2*sin(pi*x)*sin(pi*y)"; exact="sin(pi*x)*sin(pi*y)"
  else src="3*pi^2*sin(pi*x)*sin(pi*y)*sin(pi*z)"; exact="sin(pi*x)*sin(pi*y)*sin(pi*z)"; fi
  write_case c.yaml <<EOF
mesh: {file: $(data quad_square.geo)}
space: {order: $order}
physics: {kind: poisson, source: "$src"}
state: {u: "$exact"}
EOF
  if sanitized; then set -- "$1"; fi # lib.sh: levels
  # one feint process: a sweep of the meshes, each as poisson and mass
  local list="" m o kv item
  for m in "$@"; do
    item=""
    IFS=: read -ra o <<< "$m"
    for kv in "${o[@]}"; do item+="${kv%%=*}: ${kv#*=}, "; done
    list+="${list:+, }{${item}physics.kind: poisson}, {${item}physics.kind: mass}"
    pairs+=("$WORK/cv-$k.h5,$WORK/cv-$((k + 1)).h5")
    k=$((k + 2))
  done
  run "$WORK/c.yaml" -o "$WORK/cv.h5" --set "sweep.list=[$list]"
  echo "convergence ${dim}D p$order: ${*//$ROOT\//}"
  rates check convergence $order "${pairs[@]}"
}
for p in 1 2 3 4; do converge 2 $p mesh.size=0.4 mesh.size=0.2 mesh.size=0.1; done
cube="mesh.file=$(data quad_cube.geo):mesh.size=1"
for p in 1 2 3; do converge 3 $p "$cube" "$cube:mesh.refine=1" "$cube:mesh.refine=2"; done
converge 3 4 "$cube" "$cube:mesh.refine=1"

# the assembled matrix against the matrix-free BP operator on the same mesh:
# BP1.0 = mass, BP3.0 = Helmholtz with kappa = lambda = 1, both with N+2
# Gauss points per direction (the default rule on hexahedra)
write_case op.yaml <<EOF
mesh: {file: $(data twisted_hex.geo)}
space: {order: 1}
operator: {kind: bp3.0, lambda: 1}
state: {u: "sin(3*x)*cos(y) + z^2 - x*y*z"}
EOF
write_case a.yaml <<EOF
mesh: {file: $(data twisted_hex.geo)}
space: {order: 1}
physics: {kind: helmholtz, kappa: 1, lambda: 1}
EOF
# (per mesh one sweep of the operator runs and one of the assembled ones:
# members k = 0, 1 are orders 1 (BP3.0 / Helmholtz, BP1.0 / mass), 2, 3 order 2, ...)
for mesh in twisted_hex quad_cube; do
  run "$WORK/op.yaml" -o "$WORK/op-$mesh.h5" --set mesh.file="$(data $mesh.geo)" \
    --set "sweep.product={space.order: [1, 2, 3, 4], operator.kind: [bp3.0, bp1.0]}"
  run "$WORK/a.yaml" -o "$WORK/a-$mesh.h5" --set mesh.file="$(data $mesh.geo)" \
    --set "sweep.product={space.order: [1, 2, 3, 4], physics.kind: [helmholtz, mass]}"
  checks=()
  for k in 0 1 2 3 4 5 6 7; do checks+=(bp "$WORK/op-$mesh-$k.h5" "$WORK/a-$mesh-$k.h5" +); done
  echo "$mesh p1..4 (BP3.0, BP1.0 each):"; check "${checks[@]:0:${#checks[@]}-1}"
done

# bad input: the cuda kind takes hexahedra (through the user-form kernels,
# tests/gpu/t642), and says when there is no GPU
expect_bad "cuda on hexahedra without a GPU" "no CUDA device is visible|built without CUDA" \
  run --quiet "$WORK/a.yaml" -o "$WORK/out.h5" --backend cuda

# a varying Robin alpha at orders 14 and 15 (segment facet rules of degree
# 3p = 42, 45; refused above 40 before): the Robin part sums to int alpha
# = int alpha G = 1.5 on "left" (moments on twisted cells: t532)
for p in 14 15; do
  run "$WORK/m.yaml" -o "$WORK/r1.h5" --set mesh.file="$(data quad_square.geo)" --set space.order=$p \
    --set physics.kind=poisson --set 'boundary=[{group: left, robin: {alpha: "1 + y", value: 1}}]'
  run "$WORK/m.yaml" -o "$WORK/r0.h5" --set mesh.file="$(data quad_square.geo)" --set space.order=$p \
    --set physics.kind=poisson
  echo -n "Q$p varying Robin alpha: "; $PY "$ROOT/tests/cli/robin_checks.py" sum "$WORK/r1.h5" "$WORK/r0.h5" 1.5 1.5
done
expect_bad "order 16" "space.order: 16 is out of range 1..15" run --quiet "$WORK/m.yaml" -o "$WORK/out.h5" --set space.order=16

# Dirichlet data on quadrilaterals (facet dofs of order 4: edge dofs with
# their orientation): the example case's system solves to the exact
# solution at the dofs up to the discretisation error
run "$ROOT/cases/poisson-quad.yaml" -o "$WORK/q.h5"
$PY - "$WORK/q.h5" <<'EOF'
import sys, h5py, numpy as np, scipy.sparse as sp, scipy.sparse.linalg as spla
f = h5py.File(sys.argv[1]); g = f["matrix"]
A = sp.csr_matrix((g["data"][:], g["indices"][:], g["indptr"][:]), shape=tuple(g.attrs["shape"]))
u = spla.spsolve(A.tocsc(), f["rhs"][:]); x = f["dofs/coordinates"][:]
err = abs(u - np.sin(np.pi * x[:, 0]) * np.sin(np.pi * x[:, 1]) - x[:, 0] * x[:, 1]).max()
print(f"Q4 Dirichlet solve on quadrilaterals: max nodal error {err:.3g} ({len(u)} dofs)")
sys.exit(0 if err < 1e-5 else 1)
EOF

# Neumann on quadrilaterals beyond order 2 (the facet basis is the GLL
# segment's, matching the edges' nodes): the load of a flux of degree p
# along "left" (x = 0) sums to its exact integral, 1/(p+1) (an equispaced
# basis with the flux sampled at the GLL dofs misses it); Dirichlet on the
# left and the exact flux on the other sides converge at rate p+1
BC="$PY $ROOT/tests/cli/bc_checks.py"
for p in 3 4 9 15; do
  run "$WORK/m.yaml" -o "$WORK/n.h5" --set mesh.file="$(data quad_square.geo)" --set space.order=$p \
    --set physics.kind=poisson --set output.matrix=false --set output.residual=false \
    --set "boundary=[{group: left, neumann: \"y^$p - 3*y^2 + x + 1\"}]"
  echo -n "Q$p Neumann: "; $BC flux "$WORK/n.h5" "$($PY -c "print(repr(1 / ($p + 1)))")"
done
for p in 3 4; do
  t=(); for h in $(levels 0.4 0.2 0.1); do t+=("$(mixed_pair "$(data quad_square.geo)" $p $h)"); done
  echo -n "Q$p "; rates $BC mixed $p "${t[@]}"
done

# prisms (wedges): sums, Laplacians, patch test on an extruded
# triangulation and a twisted one (whose boundary surface, hence volume, is
# that of twisted_hex.geo: the same bilinear lateral patches)
sums "$(data prism_cube.geo)" 1 1 1 2 3 4 5 6 7
run "$WORK/m.yaml" -o "$WORK/v.h5" --set mesh.file="$(data twisted_hex.geo)" --set output.cell_dofs=true
vol=$($PY -c "import sys; sys.path.insert(0, '$ROOT/tests/cli'); import fe_checks; print(repr(fe_checks.trilinear_volume('$WORK/v.h5')))")
sums "$(data twisted_prism.geo)" "$vol" 0 1 3
prisms="mesh.file=$(data prism_cube.geo):mesh.size=0.5"
for p in 1 2; do converge 3 $p "$prisms" "$prisms:mesh.refine=1" "$prisms:mesh.refine=2"; done
prisms="mesh.file=$(data prism_cube.geo):mesh.size=1"
converge 3 3 "$prisms" "$prisms:mesh.refine=1" "$prisms:mesh.refine=2"
prisms="mesh.file=$(data prism_cube.geo):mesh.size=0.5"
converge 3 4 "$prisms" "$prisms:mesh.refine=1"
expect_bad "prism order 8" "order 8 on a prism is not supported" \
  run --quiet "$WORK/m.yaml" -o "$WORK/out.h5" --set mesh.file="$(data prism_cube.geo)" --set space.order=8
