# Sweep members that change only the form's data (coefficients, source,
# state u) reuse the previous member's backend (update_form): each member's
# residual, rhs, element matrices and CSR matrix equal a separate run of
# that member bitwise, on simplices (P1, P2), tensor cells (Q2, the tensor
# kernels) and a vector form (elasticity); members that change a field's
# kind, the order or the quadrature re-create it, and FEINT_BACKEND_REUSE=0
# re-creates it for every member with the same results.
source "$(dirname "$0")/lib.sh"
# check_sweep CASE EXPECTED_REUSE MEMBER_OVERRIDES...: runs the sweep of
# CASE (a list whose members are the given override sets, each a
# ';'-separated list of key=value), then every member alone, and compares.
check_sweep() {
  local case=$1 want=$2; shift 2
  local list="" i=0 sets
  for m in "$@"; do
    local item="" kv
    IFS=';' read -ra sets <<< "$m"
    for kv in "${sets[@]}"; do item+="${item:+, }${kv%%=*}: ${kv#*=}"; done
    list+="${list:+, }{$item}"
  done
  "$FEINT" run "$WORK/$case" -o "$WORK/sw.h5" --set "sweep.list=[$list]" --backend cpu --json \
    > "$WORK/sw.json" 2> "$WORK/progress"
  for m in "$@"; do
    local args=()
    IFS=';' read -ra sets <<< "$m"
    for kv in "${sets[@]}"; do args+=(--set "$kv"); done
    "$FEINT" run --quiet "$WORK/$case" -o "$WORK/sep-$i.h5" --backend cpu "${args[@]}"
    i=$((i + 1))
  done
  $PY - "$WORK" "$i" "$want" <<'EOF'
import json, sys, h5py, numpy as np
w, n, want = sys.argv[1], int(sys.argv[2]), [int(c) for c in sys.argv[3]]
names = ["residual", "rhs", "element_matrices", "matrix/data", "matrix/indices", "matrix/indptr"]
got = []
for i in range(n):
    sep, mem = h5py.File(f"{w}/sep-{i}.h5"), h5py.File(f"{w}/sw-{i}.h5")
    for name in names:
        assert (name in sep) == (name in mem), (i, name, "written by one run only")
        if name not in sep: continue
        a, b = sep[name][:], mem[name][:]
        assert a.shape == b.shape and a.tobytes() == b.tobytes(), (i, name, "member differs from its separate run")
    assert np.abs(mem["residual"][:]).max() > 0 and np.abs(mem["element_matrices"][:]).max() > 0, (i, "all zero")
    got.append(int(mem.attrs["backend_reused"]))
assert got == want, ("backend_reused per member", got, "expected", want)
# consecutive members that reused the backend computed different matrices or vectors (the update took effect)
for i in range(1, n):
    if want[i]:
        a, b = h5py.File(f"{w}/sw-{i-1}.h5"), h5py.File(f"{w}/sw-{i}.h5")
        assert any(not np.array_equal(a[x][:], b[x][:]) for x in ["residual", "rhs", "element_matrices"]), (i, "same")
s = json.load(open(f"{w}/sw.json"))
assert s["members"] == n and s["backend_reused"] == sum(want), s
print(f"{n} members bitwise equal to separate runs; backend reused by members {[i for i in range(n) if want[i]]}")
EOF
  grep -q "^feint: member 2/$i: setup (backend reused)$" "$WORK/progress" || [ "${want:1:1}" = 0 ] ||
    fail "progress does not say the backend was reused: $(grep setup "$WORK/progress")"
  rm -f "$WORK"/sw-*.h5 "$WORK"/sep-*.h5
}
write_case p.yaml <<EOF
mesh: {file: $(geo square.geo), size: 0.15}
physics: {kind: helmholtz, kappa: 1, lambda: 2, source: "x*y"}
state: {u: "x + y*y"}
output: {residual: true, rhs: true, matrix: true, element_matrices: true}
EOF
# two per-cell coefficient datasets (random) for its cells
"$FEINT" run "$WORK/p.yaml" -o "$WORK/count.h5" --backend cpu --json > "$WORK/count.json" 2> /dev/null
$PY - "$WORK" <<'EOF'
import json, sys, h5py, numpy as np
w = sys.argv[1]; n = json.load(open(f"{w}/count.json"))["cells"]
rng = np.random.default_rng(7)
with h5py.File(f"{w}/k.h5", "w") as f:
    f["a"] = 1 + rng.random(n); f["b"] = 2 + rng.random(n)
EOF
# constants, the state, the source, nodal and per-cell fields of the same
# kind reuse; a kind change (constant -> nodal raises the quadrature
# degree; nodal -> per cell) and the order re-create
K="{file: k.h5, dataset: /a, on: cell}"; K2="{file: k.h5, dataset: /b, on: cell}"
check_sweep p.yaml 0111010101010 \
  "physics.kappa=1" "physics.kappa=2.5" "physics.kappa=2.5;state.u=\"x*x - y\"" \
  "physics.kappa=2.5;physics.source=\"sin(x)\"" "physics.kappa=\"1 + x*y\"" "physics.kappa=\"2 - x\"" \
  "physics.kappa=$K" "physics.kappa=$K2" "physics.lambda=$K2" "physics.lambda=$K" \
  "space.order=2" "space.order=2;physics.kappa=3" "space.order=1;physics.kappa=3"
# element matrices and matrix only when asked: another plan re-creates it
check_sweep p.yaml 010 "physics.kappa=1" "physics.kappa=4" "physics.kappa=5;output.matrix=false"
# tensor-product cells (the sum-factorised kernels hold the form's rules)
write_case q.yaml <<EOF
mesh: {file: $(geo quadsquare.geo), size: 0.25}
space: {order: 2}
physics: {kind: poisson, kappa: "1 + x", source: "x - y"}
state: {u: "x*y"}
output: {residual: true, rhs: true, matrix: true, element_matrices: true}
EOF
check_sweep q.yaml 011 "physics.kappa=\"1 + x\"" "physics.kappa=\"3 - y\"" "state.u=\"x + 1\""
# a vector form: elasticity from E and nu (Lame fields) on a 3D mesh
write_case e.yaml <<EOF
mesh: {file: $(geo cube.geo), size: 0.4}
physics: {kind: elasticity, E: 1, nu: 0.3, source: [1, "x", "y*z"]}
state: {u: ["x*y", "y*z", "z - x"]}
output: {residual: true, rhs: true, matrix: true, element_matrices: true}
EOF
check_sweep e.yaml 0110 "physics.E=1" "physics.E=2;physics.nu=0.25" "state.u=[1, \"x\", 0]" "physics.E=\"1 + x\""
# FEINT_BACKEND_REUSE=0: every member re-creates its backend, same results
FEINT_BACKEND_REUSE=0 check_sweep p.yaml 000 "physics.kappa=1" "physics.kappa=2" "state.u=\"x\""
FEINT_BACKEND_REUSE=yes expect_bad "bad FEINT_BACKEND_REUSE" "FEINT_BACKEND_REUSE=yes: expected 0 or 1" \
  run "$WORK/p.yaml" -o "$WORK/out.h5"
