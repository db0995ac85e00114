# Coefficients per physical group on the cuda backend (issue 19,
# materials): a value per group is a per-cell field, so the kernels are
# those of a cell dataset. On cases/two-materials.geo, kappa and the
# source per group give on the GPU bitwise what the same numbers as
# per-cell datasets give (colored and gather; atomic within 1e-12, its sums
# have no fixed order), and agree with the cpu backend within 1e-13 of
# each array's largest entry: the P1 and P2 fused kernels and the
# element-matrix backend (P3), and P1 elasticity with E per group (the
# per-cell Lame fields). A user form takes expressions and node datasets
# per group on the GPU too (values per cell's nodes), and so does a
# built-in kind, which runs there as the user form it is.
source "$(dirname "$0")/../cli/lib.sh"
require_gpu
close() { # a.h5 b.h5 tol: every array within tol of its largest entry (0: bitwise)
  $PY - "$@" <<'EOF'
import sys, h5py, numpy as np
a, b, tol = h5py.File(sys.argv[1]), h5py.File(sys.argv[2]), float(sys.argv[3])
worst = 0.0
for n in ("residual", "rhs", "element_matrices", "matrix/data", "matrix/indices", "matrix/indptr"):
    x, y = a[n][:], b[n][:]
    assert x.shape == y.shape, f"{n}: shapes {x.shape} and {y.shape}"
    if tol == 0:
        assert x.tobytes() == y.tobytes(), f"{n}: differs by {np.abs(x - y).max():.3g}"
        continue
    d = np.abs(x - y).max() / max(np.abs(x).max(), 1e-300)
    worst = max(worst, d)
    assert d <= tol, f"{n}: relative difference {d:.3g} > {tol}"
print(f"ok ({a['rhs'].shape[0]} dofs): " + ("bitwise" if tol == 0 else f"largest relative difference {worst:.3g}"))
EOF
}
common="mesh: {file: $(geo two-materials.geo), size: 0.1}
output: {residual: true, rhs: true, matrix: true, element_matrices: true, cell_dofs: true}"
D="file: cells.h5, on: cell, dataset"
write_case g-poisson.yaml <<EOF
$common
physics: {kind: poisson, kappa: {groups: {inner: 1.5, outer: 10}}, source: {groups: {inner: 2, outer: -0.25}}}
state: {u: "x*y + sin(z + x)"}
EOF
write_case d-poisson.yaml <<EOF
$common
physics: {kind: poisson, kappa: {$D: /kappa}, source: {$D: /source}}
state: {u: "x*y + sin(z + x)"}
EOF
write_case g-elasticity.yaml <<EOF
$common
physics: {kind: elasticity, E: {groups: {inner: 1, outer: 200}}, nu: 0.3, source: [{groups: {inner: 2, outer: -0.25}}, 0, 1]}
state: {u: ["x*y", "y*z", "z - x"]}
EOF
write_case d-elasticity.yaml <<EOF
$common
physics: {kind: elasticity, E: {$D: /E}, nu: 0.3, source: [{$D: /source}, 0, 1]}
state: {u: ["x*y", "y*z", "z - x"]}
EOF
"$FEINT" run --quiet --backend cpu "$WORK/g-poisson.yaml" -o "$WORK/geom.h5"
$PY - "$WORK/geom.h5" "$WORK/cells.h5" <<'EOF'
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1])
inner = f["dofs/coordinates"][:, 0][f["dofs/cell_dofs"][:]].mean(axis=1) < 0.5
with h5py.File(sys.argv[2], "w") as g:
    g["kappa"] = np.where(inner, 1.5, 10.0)
    g["source"] = np.where(inner, 2.0, -0.25)
    g["E"] = np.where(inner, 1.0, 200.0)
EOF
for kind_order in poisson:1 poisson:2 poisson:3 elasticity:1; do
  kind=${kind_order%:*} order=${kind_order#*:}
  for strategy in colored gather atomic; do
    a=(--set space.order=$order --set assembly.strategy=$strategy)
    "$FEINT" run --quiet --backend cuda "$WORK/g-$kind.yaml" -o "$WORK/g.h5" "${a[@]}"
    "$FEINT" run --quiet --backend cuda "$WORK/d-$kind.yaml" -o "$WORK/d.h5" "${a[@]}"
    "$FEINT" run --quiet --backend cpu "$WORK/g-$kind.yaml" -o "$WORK/c.h5" "${a[@]}"
    tol=0; [ $strategy = atomic ] && tol=1e-12
    echo -n "$kind P$order $strategy, groups = cell datasets on cuda: "; close "$WORK/d.h5" "$WORK/g.h5" $tol
    echo -n "$kind P$order $strategy, cuda = cpu: "; close "$WORK/c.h5" "$WORK/g.h5" 1e-13
  done
done
# a user form with coefficients given by an expression per group (and a
# gradient of one): values per cell's nodes, which the generated code reads
# on the GPU (P1: the lean walk and the block kernel, every strategy; P2:
# form-jit), and a node dataset for one group
write_case f-groups.yaml <<EOF2
$common
physics:
  kind: form
  coefficients: {k: {groups: {inner: "1 + x*y", outer: 10}}, f: {groups: {inner: "x^2", outer: "3*x"}}}
  f0: "-f + u*k_x"
  f1: ["k*u_x", "k*u_y", "k*u_z"]
state: {u: "x*y + sin(z + x)"}
EOF2
for order in 1 2; do
  "$FEINT" run --quiet --backend cpu "$WORK/f-groups.yaml" -o "$WORK/fc.h5" --set space.order=$order
  for strategy in atomic colored gather; do
    [ $order = 2 ] && [ $strategy != atomic ] && continue
    "$FEINT" run --quiet --backend cuda "$WORK/f-groups.yaml" -o "$WORK/fg.h5" --set space.order=$order \
      --set assembly.strategy=$strategy
    echo -n "form P$order $strategy, expressions per group, cuda = cpu: "; close "$WORK/fc.h5" "$WORK/fg.h5" 1e-13
  done
done
"$FEINT" run --quiet --backend cpu "$WORK/f-groups.yaml" -o "$WORK/nodes.h5" --set output.cell_dofs=true
$PY - "$WORK/nodes.h5" "$WORK/k-nodes.h5" <<'EOF2'
import sys, h5py
x = h5py.File(sys.argv[1])["dofs/coordinates"][:]
with h5py.File(sys.argv[2], "w") as g:
    g["k"] = 2 + x[:, 0] * x[:, 2]
EOF2
set_k="physics.coefficients.k={groups: {inner: {file: $WORK/k-nodes.h5, dataset: /k, on: node}}, default: \"1 + y\"}"
"$FEINT" run --quiet --backend cpu "$WORK/f-groups.yaml" -o "$WORK/fc.h5" --set "$set_k"
"$FEINT" run --quiet --backend cuda "$WORK/f-groups.yaml" -o "$WORK/fg.h5" --set "$set_k"
echo -n "form P1, a node dataset for one group, cuda = cpu: "; close "$WORK/fc.h5" "$WORK/fg.h5" 1e-13
# the built-in kinds with an expression per group run on the GPU as the
# user forms they are (feint/physics_form.h): P1 (the lean walk) and P2
# (form-jit) Poisson, P1 elasticity with E per group by expressions
for order in 1 2; do
  for kind in poisson elasticity; do
    [ $kind = elasticity ] && [ $order = 2 ] && continue
    if [ $kind = poisson ]; then
      set_k='physics.kappa={groups: {inner: "1 + x*y"}, default: "10 + z"}'
    else
      set_k='physics.E={groups: {inner: "1 + x", outer: 200}}'
    fi
    "$FEINT" run --quiet --backend cpu "$WORK/g-$kind.yaml" -o "$WORK/bc.h5" --set space.order=$order --set "$set_k"
    "$FEINT" run --quiet --json --backend cuda "$WORK/g-$kind.yaml" -o "$WORK/bg.h5" --set space.order=$order \
      --set "$set_k" > "$WORK/bg.json"
    fam=$($PY -c 'import json, sys; print(json.load(open(sys.argv[1]))["kernel_family"])' "$WORK/bg.json")
    echo -n "$kind P$order, expressions per group on cuda ($fam, as a form), cuda = cpu: "
    close "$WORK/bc.h5" "$WORK/bg.h5" 1e-13
  done
done
