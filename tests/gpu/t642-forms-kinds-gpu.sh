#!/usr/bin/env bash
# Built-in kinds written as user forms on the GPU (issue 19): poisson and
# elasticity as kind form on --backend cuda (on P1 compiled into the P1
# kernel templates, family p1-block / p1-lean, in each assembly strategy;
# on P2 and P3 the form-jit family) against the built-in kind on --backend
# cuda (on P3 the element-matrix backend, a high-order element), within
# 1e-13 relative (2-norm and max-norm) on the residual, the load vector,
# the element matrices and the CSR matrix; P1, P2 and P3 tetrahedra, nodal
# coefficients. The same forms equal the kinds bitwise on the cpu backend
# (tests/cli/t57-forms-kinds.sh, which writes them the same way).
source "$(dirname "$0")/../cli/lib.sh"
require_gpu
export FEINT_CACHE_DIR="$WORK/cache"
family() { $PY -c 'import json, sys; print(json.load(open(sys.argv[1]))["kernel_family"])' "$1"; }
sigma() { # row c of sigma(u) = lam tr(eps) I + 2 mu eps
  local d r="" e xyz=xyz
  for d in 0 1 2; do
    e="mu*(u${1}_${xyz:d:1} + u${d}_${xyz:$1:1})"
    [ "$d" != "$1" ] || e="$e + lam*(u0_x + u1_y + u2_z)"
    r="$r${r:+, }\"$e\""
  done
  echo "[$r]"
}
# pair NAME ORDER COMPONENTS STATE BUILTIN-PHYSICS FORM-PHYSICS [STRATEGY]: both on cuda, compared
pair() {
  local want=$([ "$2" = 1 ] && echo p1-block || echo form-jit) st=(--set assembly.strategy=${7:-atomic})
  local common="mesh: {file: $(geo cube.geo), size: 0.3}
space: {order: $2, components: $3}
state: {u: $4}
output: {residual: true, rhs: true, matrix: true, element_matrices: true}"
  printf '%s\nphysics: %s\n' "$common" "$5" > "$WORK/k.yaml"
  printf '%s\nphysics:\n  kind: form\n%s\n' "$common" "$6" > "$WORK/f.yaml"
  "$FEINT" run --quiet "$WORK/k.yaml" -o "$WORK/k.h5" --backend cuda "${st[@]}"
  "$FEINT" run --quiet --json "$WORK/f.yaml" -o "$WORK/f.h5" --backend cuda "${st[@]}" > "$WORK/f.json"
  local got
  got=$(family "$WORK/f.json") # the residual of P1 tetrahedra: the lean walk
  [ "$got" = $want ] || { [ $want = p1-block ] && [[ $got = p1-lean* ]]; } || fail "$1 P$2: kernel family $got, not $want"
  $PY "$ROOT/tests/gpu/agree.py" --tol=1e-13 --nonzero "$WORK/k.h5" "$WORK/f.h5" "$1 P$2 ($want vs the kind, ${7:-atomic})" \
    both residual rhs element_matrices matrix/data || fail "$1 P$2: the form differs from the kind on the GPU"
}
S='"sin(pi*x)*y + 0.5"'
for os in 1:atomic 1:colored 1:gather 2:atomic 3:atomic; do
  o=${os%:*} st=${os#*:}
  pair poisson $o 1 '"x*y + sin(z + x)"' "{kind: poisson, kappa: \"1 + x*y\", source: $S}" \
    "  coefficients: {kappa: \"1 + x*y\", f: $S}
  f0: \"-f\"
  f1: [\"kappa*u_x\", \"kappa*u_y\", \"kappa*u_z\"]" $st
  pair elasticity $o 3 '["x*y", "sin(z)", "x + y*z"]' \
    '{kind: elasticity, lame_lambda: "1 + x", lame_mu: "0.7 + y*z", source: ["sin(x) + 1", "y*z - 2", "-1 - x"]}' \
    "  coefficients: {lam: \"1 + x\", mu: \"0.7 + y*z\", fx: \"sin(x) + 1\", fy: \"y*z - 2\", fz: \"-1 - x\"}
  f0: [\"-fx\", \"-fy\", \"-fz\"]
  f1: [$(sigma 0), $(sigma 1), $(sigma 2)]" $st
done
echo "ok: poisson and elasticity as forms (P1 templates, form-jit) agree with the built-in kinds on the GPU"
