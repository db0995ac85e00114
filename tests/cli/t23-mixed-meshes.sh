# Mixed meshes (issue 4: a region of several shapes, one block each) in
# the assembled path, checked with SciPy from the exported matrices, on
# triangles + quadrilaterals, hexahedra + prisms (sharing quadrilateral
# faces) and tetrahedra + prisms (sharing triangles), orders 1 and 2, and
# beyond: orders 3 and 4 on all three (5 on tetrahedra + prisms) for sums
# and exact polynomials, 3 and 4 with quadrilaterals or hexahedra (Lobatto
# nodes on every block, fe.h) and 3 on tetrahedra + prisms for
# convergence:
#  - mass matrices sum to the volume; Poisson matrices are symmetric with
#    zero row sums and pass the patch test; elasticity annihilates exactly
#    the rigid body modes;
#  - conformity: a polynomial of degree p (not harmonic: the load counts)
#    is reproduced at every dof by the Poisson solve with its boundary
#    values (fails when the blocks do not share their interface dofs);
#  - manufactured Poisson solutions converge in L2 at rate >= p+1-0.3;
#    Dirichlet + Neumann and Robin on the 2D mixed mesh converge at p+1;
#  - the padded element matrices and cell dof map (-1 past a narrower
#    block's dofs) assemble to the exported CSR matrix;
#  - boundary conditions on the 3D mixed meshes (facets of triangles and
#    quadrilaterals, each read from its cell's block): the Neumann load of
#    a constant g against a polynomial of degree p equals g int u over the
#    whole boundary and over x = 0 (p = 1, 2; tetrahedra + prisms 3); the
#    Robin matrix on x = 0 sums to alpha, its load to alpha G; Dirichlet on
#    x = 0 with the exact flux elsewhere converges at p+1 (p = 1, 2;
#    tetrahedra + prisms 3; hexahedra + prisms 3, 4);
#  - Dirichlet + Neumann on triangles + quadrilaterals at p = 3, 4 converge
#    at p+1 (the Dirichlet values sit at the GLL edge nodes);
#  - bad input: order 8 (both kinds of mix), the cuda backend, the BP
#    operators.
source "$(dirname "$0")/lib.sh"
data() { echo "$ROOT/tests/data/$1"; }
run() { "$FEINT" run --quiet "$@"; }
check() { $PY "$ROOT/tests/cli/fe_checks.py" "$@"; }
meshes=("$(data mixed_square.geo)" "$(data hex_prism_cube.geo)" "$(geo mixedcube.geo)")
write_case m.yaml <<EOF
mesh: {file: ${meshes[0]}}
space: {order: 1}
physics: {kind: mass}
EOF
# per mesh one feint process (a sweep; members k..k+3 of order p: mass,
# Poisson, elasticity, Poisson with a source and its rhs)
for mesh in "${meshes[@]}"; do
  "$FEINT" info "$mesh" | grep -q "block 1:" || fail "$mesh: not read as a mixed mesh"
  list="" checks=() k=0
  for p in 1 2; do
    u="1 + 2*x - 3*y + 0.5*z" src=0
    [ $p = 2 ] && u="$u + x^2 - 2*x*y + 3*y*z - 0.7*x*z" src=-2
    list+="${list:+, }{space.order: $p}, {space.order: $p, physics.kind: poisson}"
    list+=", {space.order: $p, physics.kind: elasticity, physics.E: 1, physics.nu: 0.3}"
    list+=", {space.order: $p, physics.kind: poisson, physics.source: $src, output.rhs: true}"
    checks+=(attrs "$WORK/s-$k.h5" order=$p physics=mass + attrs "$WORK/s-$((k + 2)).h5" order=$p physics=elasticity
             + sum "$WORK/s-$k.h5" 1 + laplacian "$WORK/s-$((k + 1)).h5" + patch "$WORK/s-$((k + 1)).h5" 1 1
             + rigid "$WORK/s-$((k + 2)).h5" + exact "$WORK/s-$((k + 3)).h5" "${u//^/**}" +)
    k=$((k + 4))
  done
  run "$WORK/m.yaml" -o "$WORK/s.h5" --set mesh.file="$mesh" --set "sweep.list=[$list]"
  echo "$(basename "$mesh") p1 (s-0..3), p2 (s-4..7)"
  check "${checks[@]:0:${#checks[@]}-1}"
done

# beyond order 2: the shared edges' and faces' nodes in every orientation
# (Lobatto nodes with quadrilaterals or hexahedra, equispaced on
# tetrahedra + prisms); a cubic (quartic, quintic) is reproduced at P3
# (P4), not a quartic (quintic) at P3 (P4). The polynomials hold in 2D
# (z = 0) too.
u3="1 + 2*x - 3*y + 0.5*z + x^2 - 2*x*y + 3*y*z - 0.7*x*z + x^3 + y^2*z" src3="-(2 + 6*x + 2*z)"
u4="$u3 + x^2*y^2" src4="$src3 - 2*x^2 - 2*y^2"
u5="$u4 + x^4*y - 2*y^3*x^2" src5="$src4 + 4*y^3"
exact() { # mesh order u source
  run "$WORK/m.yaml" -o "$WORK/x.h5" --set mesh.file="$1" --set space.order=$2 --set physics.kind=poisson \
    --set "physics.source=$4" --set output.rhs=true
  check exact "$WORK/x.h5" "${3//^/**}"
}
for mesh in "${meshes[@]}"; do
  orders="3 4"; [ "$mesh" = "${meshes[2]}" ] && orders="3 4 5"
  list="" checks=() k=0
  for p in $orders; do
    list+="${list:+, }{space.order: $p}, {space.order: $p, physics.kind: poisson}"
    checks+=(attrs "$WORK/s-$k.h5" order=$p physics=mass + sum "$WORK/s-$k.h5" 1 1e-11
             + laplacian "$WORK/s-$((k + 1)).h5" +)
    k=$((k + 2))
  done
  run "$WORK/m.yaml" -o "$WORK/s.h5" --set mesh.file="$mesh" --set "sweep.list=[$list]"
  echo "$(basename "$mesh") p$orders (mass, Poisson each)"
  check "${checks[@]:0:${#checks[@]}-1}"
  exact "$mesh" 3 "$u3" "$src3"
  exact "$mesh" 4 "$u4" "$src4"
  if exact "$mesh" 3 "$u4" "$src4" > /dev/null; then fail "$(basename "$mesh"): a quartic reproduced by P3"; fi
  if [ "$mesh" != "${meshes[2]}" ] && exact "$mesh" 4 "$u5" "$src5" > /dev/null; then
    fail "$(basename "$mesh"): a quintic reproduced by P4"
  fi
done

# element matrices and cell dofs, padded on the narrower block, assemble
# to the CSR matrix (elasticity: the interleaved components too)
run "$WORK/m.yaml" -o "$WORK/k.h5" --set mesh.file="${meshes[1]}" --set space.order=2 \
  --set physics.kind=elasticity --set physics.E=1 --set physics.nu=0.3 --set output.element_matrices=true
$PY - "$WORK/k.h5" <<'EOF'
import sys, h5py, numpy as np, scipy.sparse as sp
f = h5py.File(sys.argv[1]); g = f["matrix"]
A = sp.csr_matrix((g["data"][:], g["indices"][:], g["indptr"][:]), shape=tuple(g.attrs["shape"]))
K, cd = f["element_matrices"][:], f["dofs/cell_dofs"][:]
rows, cols, vals = [], [], []
widths = set()
for k, d in zip(K, cd):
    n = int((d >= 0).sum())
    widths.add(n)
    if (d[n:] != -1).any() or abs(k[n:]).max(initial=0) or abs(k[:, n:]).max(initial=0):
        sys.exit("padding is not -1 / zero past a cell's own dofs")
    rows += np.repeat(d[:n], n).tolist(); cols += np.tile(d[:n], n).tolist(); vals += k[:n, :n].ravel().tolist()
B = sp.csr_matrix((vals, (rows, cols)), shape=A.shape)
err = abs(A - B).max() / abs(A).max()
print(f"element matrices of {len(K)} cells (local sizes {sorted(widths)}) assemble to the CSR matrix: {err:.3g}")
sys.exit(0 if err < 1e-13 and len(widths) == 2 else 1)
EOF

# convergence of manufactured solutions, refined meshes of each kind
for p in 1 2; do
  t=(); for r in $(levels 0 1 2); do t+=("$(manufactured_pair "${meshes[0]}" $p 0.25 s$r 2 $r)"); done
  echo -n "triangles + quadrilaterals p$p: "; rates check convergence $p "${t[@]}"
  t=(); for r in $(levels 0 1 2); do t+=("$(manufactured_pair "${meshes[1]}" $p 0.5 h$r 3 $r)"); done
  echo -n "hexahedra + prisms p$p: "; rates check convergence $p "${t[@]}"
  # P1 on these tetrahedra (as on the same geometry meshed with tetrahedra
  # only) needs one refinement more to reach the asymptotic rate
  t=(); for r in $(levels $((2 - p)) $((3 - p)) $((4 - p))); do t+=("$(manufactured_pair mixedcube.geo $p 0.5 c$r 3 $r)"); done
  echo -n "tetrahedra + prisms p$p: "; rates check convergence $p "${t[@]}"
  # Dirichlet (vertex and edge dofs of the lines) and Neumann on the 2D mixed mesh
  t=(); for h in $(levels 0.4 0.2 0.1); do t+=("$(mixed_pair "${meshes[0]}" $p $h)"); done
  echo -n "Dirichlet/Neumann, triangles + quadrilaterals p$p: "; rates $PY "$ROOT/tests/cli/bc_checks.py" mixed $p "${t[@]}"
  t=(); for h in $(levels 0.4 0.2 0.1); do t+=("$(robin_pair $p $h "2 + x*y" "${meshes[0]}")"); done
  echo -n "Robin, triangles + quadrilaterals p$p: "; rates $PY "$ROOT/tests/cli/robin_checks.py" converge $p "${t[@]}"
done
t=(); for r in $(levels 0 1 2); do t+=("$(manufactured_pair mixedcube.geo 3 1 c3-$r 3 $r 0.5)"); done
echo -n "tetrahedra + prisms p3: "; rates check convergence 3 k=0.5 "${t[@]}"
# Lobatto nodes: Dirichlet values at the GLL edge nodes, Neumann on the
# rest; P4 reaches its rate on the fourth mesh (rates 3.9, 6.3, 5.1)
for p in 3 4; do
  t=(); for h in $(levels 0.4 0.2 0.1 0.05); do t+=("$(mixed_pair "${meshes[0]}" $p $h)"); done
  echo -n "Dirichlet/Neumann, triangles + quadrilaterals p$p: "; rates $PY "$ROOT/tests/cli/bc_checks.py" mixed $p "${t[@]}"
done

# boundary conditions on the 3D mixed meshes (groups "boundary", "left")
BC="$PY $ROOT/tests/cli/bc_checks.py"
polys=("" "1 + 2*x - y + z" "x*x - y*z + 2*x*y" "x*x - y*z + 2*x*y + z**3*(x+1) - x*y*z"
       "x*x - y*z + 2*x*y + z**3*(x+1) - x*y*z + x**2*y**2 - z**4")
for mesh in "${meshes[1]}" "${meshes[2]}"; do
  orders="1 2 3 4"; [ "$mesh" = "${meshes[2]}" ] && orders="1 2 3"
  for p in $orders; do
    for group in boundary left; do
      run "$WORK/m.yaml" -o "$WORK/n.h5" --set mesh.file="$mesh" --set space.order=$p --set physics.kind=poisson \
        --set "boundary=[{group: $group, neumann: 2.5}]"
      echo -n "$(basename "$mesh") p$p Neumann: "; $BC cube-moment "$WORK/n.h5" $group 2.5 "${polys[$p]}"
    done
    run "$WORK/m.yaml" -o "$WORK/r1.h5" --set mesh.file="$mesh" --set space.order=$p --set physics.kind=poisson \
      --set "boundary=[{group: left, robin: {alpha: 1.5, value: 2}}]"
    run "$WORK/m.yaml" -o "$WORK/r0.h5" --set mesh.file="$mesh" --set space.order=$p --set physics.kind=poisson
    echo -n "$(basename "$mesh") p$p "; $PY "$ROOT/tests/cli/robin_checks.py" sum "$WORK/r1.h5" "$WORK/r0.h5" 1.5 3
  done
done
for p in 1 2; do
  t=(); for r in $(levels 0 1 2); do t+=("$(mixed_cube_pair "${meshes[1]}" $p 0.5 $r)"); done
  echo -n "Dirichlet/Neumann, hexahedra + prisms p$p: "; rates $BC mixed-cube $p "${t[@]}"
  # P1 needs one refinement more (as above)
  t=(); for r in $(levels $((2 - p)) $((3 - p)) $((4 - p))); do t+=("$(mixed_cube_pair "${meshes[2]}" $p 0.5 $r)"); done
  echo -n "Dirichlet/Neumann, tetrahedra + prisms p$p: "; rates $BC mixed-cube $p "${t[@]}"
done
t=(); for r in $(levels 0 1 2); do t+=("$(mixed_cube_pair "${meshes[2]}" 3 1 $r)"); done
echo -n "Dirichlet/Neumann, tetrahedra + prisms p3: "; rates $BC mixed-cube 3 "${t[@]}"
for p in 3 4; do
  t=(); for r in $(levels 0 1 2); do t+=("$(mixed_cube_pair "${meshes[1]}" $p 1 $r)"); done
  echo -n "Dirichlet/Neumann, hexahedra + prisms p$p: "; rates $BC mixed-cube $p "${t[@]}"
done

# bad input
expect_bad "order 8 on a mixed mesh with quadrilaterals" \
  "space.order 8 is not supported on mixed meshes of triangle \+ quadrilateral cells \(.*mixed_square.geo; orders 1..7, as on triangles, tetrahedra and prisms\)" \
  run --quiet "$WORK/m.yaml" -o "$WORK/out.h5" --set space.order=8
expect_bad "order 8 on tetrahedra + prisms" \
  "space.order 8 is not supported on mixed meshes of tetrahedron \+ prism cells \(.*mixedcube.geo; orders 1..7, as on triangles, tetrahedra and prisms\)" \
  run --quiet "$WORK/m.yaml" -o "$WORK/out.h5" --set mesh.file="${meshes[2]}" --set space.order=8
# the cuda backend takes mixed meshes (each shape's form kernels, tests/gpu/t644): here it has no GPU
expect_bad "cuda on a mixed mesh without a GPU" "no CUDA device is visible|built without CUDA" \
  run --quiet "$WORK/m.yaml" -o "$WORK/out.h5" --set mesh.file="${meshes[2]}" --backend cuda
write_case op.yaml <<EOF
mesh: {file: ${meshes[1]}}
space: {order: 1}
operator: {kind: bp1.0}
EOF
expect_bad "BP operator on a mixed mesh" "the BP operators need a hexahedral mesh; .* has hexahedron \+ prism cells" \
  run --quiet "$WORK/op.yaml" -o "$WORK/out.h5"
