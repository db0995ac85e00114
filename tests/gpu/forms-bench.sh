#!/usr/bin/env bash
# make bench-gpu (issue 19): user forms against the built-in kinds they
# re-express, each pair in feint bench on the same mesh and device, one
# after the other: P1 Poisson and elasticity on cases/bench/bench-6m.yaml
# (~6M tetrahedra; the forms run in the P1 kernel templates), P2 Poisson
# and elasticity on ~1M tetrahedra (the form-jit family; the built-in
# kinds on thread transposition, their default); then a form's
# first compile (empty cache) and its cached load, from feint run --json.
# Prints each phase's kernel time and the form's ratio. Not a test.
# BACKEND=cpu M6=... M1=... (smaller cases) try the script itself without
# a GPU (kernel times are then wall times; no compile part).
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${BUILD:-build}
out=${OUT:-$B/bench-gpu}
mkdir -p "$out"
cache=$(mktemp -d)
export FEINT_CACHE_DIR="$cache"
trap 'rm -rf "$cache" /tmp/feint-forms-bench.h5' EXIT
poisson_form='{kind: form, coefficients: {kappa: "1 + x*y*z", f: "x + y"}, f0: "-f", f1: ["kappa*u_x", "kappa*u_y", "kappa*u_z"]}'
sigma='[["2*mu*u0_x + lam*(u0_x + u1_y + u2_z)", "mu*(u0_y + u1_x)", "mu*(u0_z + u2_x)"], ["mu*(u1_x + u0_y)", "2*mu*u1_y + lam*(u0_x + u1_y + u2_z)", "mu*(u1_z + u2_y)"], ["mu*(u2_x + u0_z)", "mu*(u2_y + u1_z)", "2*mu*u2_z + lam*(u0_x + u1_y + u2_z)"]]'
elasticity_form="{kind: form, parameters: {lam: 0.6, mu: 0.7}, f1: $sigma}"
elasticity='{kind: elasticity, lame_lambda: 0.6, lame_mu: 0.7}'
vector=(--set space.components=3 --set 'state.u=["x*y", "y*z", "z*x"]')
bench() { # NAME CASE [--set ...]: feint bench into $out/forms-NAME.txt
  local name=$1 case=$2
  shift 2
  "$B/feint" bench "$case" --backend "$backend" --repeat ${REPEAT:-11} -o /tmp/feint-forms-bench.h5 --quiet \
    --set output.rhs=true --set output.matrix=true "$@" > "$out/forms-$name.txt" 2>&1 ||
    { cat "$out/forms-$name.txt"; return 1; }
}
kernel_ms() { awk -v p="$2" '$1 == p && $2 ~ /^[0-9.]+$/ {print ($5 == "-" ? $2 : $5)}' "$out/forms-$1.txt"; }
family() { sed -n 's/^kernel families (feint info --kernels): //p' "$out/forms-$1.txt"; }
compare() { # LABEL BUILTIN FORM
  printf '%-22s %-34s %-34s' "$1" "$(family "$2")" "$(family "$3")"
  for ph in residual rhs assembly; do
    local a b
    a=$(kernel_ms "$2" $ph) b=$(kernel_ms "$3" $ph)
    printf '  %s %s/%s ms (%s)' $ph "$a" "$b" "$(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.2fx", b / a}')"
  done
  echo
}
backend=${BACKEND:-cuda} m6=${M6:-cases/bench/bench-6m.yaml} m1=${M1:-cases/bench/sweep-1m.yaml}
p2=(--set space.order=2 --set sweep=null --set 'state.u=x*y*z' --set output.residual=true)
bench p1-poisson $m6 && bench p1-poisson-form $m6 --set "physics=$poisson_form" &&
  bench p1-elasticity $m6 --set "physics=$elasticity" "${vector[@]}" &&
  bench p1-elasticity-form $m6 --set "physics=$elasticity_form" "${vector[@]}" &&
  bench p2-poisson $m1 "${p2[@]}" --set 'physics={kind: poisson, kappa: "1 + x*y*z", source: "x + y"}' &&
  bench p2-poisson-form $m1 "${p2[@]}" --set "physics=$poisson_form" &&
  bench p2-elasticity $m1 "${p2[@]}" --set "physics=$elasticity" "${vector[@]}" &&
  bench p2-elasticity-form $m1 "${p2[@]}" --set "physics=$elasticity_form" "${vector[@]}" || exit 1
{
  echo "device: $(sed -n "s/^backend $backend on //p" "$out/forms-p1-poisson.txt" | cut -d';' -f1)"
  echo "kernel times, built-in / form (form's ratio); families: built-in, form (residual, matrix)"
  compare "P1 Poisson (6M)" p1-poisson p1-poisson-form
  compare "P1 elasticity (6M)" p1-elasticity p1-elasticity-form
  compare "P2 Poisson (1M)" p2-poisson p2-poisson-form
  compare "P2 elasticity (1M)" p2-elasticity p2-elasticity-form
  # compile and cached load on a small mesh (the code does not depend on the mesh)
  for o in 1 2; do
    [ "$backend" = cuda ] || break
    rm -rf "$cache"/*
    for k in first cached; do
      "$B/feint" run --quiet --json $m1 --backend cuda -o /tmp/feint-forms-bench.h5 --set sweep=null \
        --set mesh.size=0.2 --set mesh.refine=0 --set space.order=$o --set "physics=$poisson_form" \
        > "$out/forms-jit.json" || exit 1
      ${PY:-/usr/bin/python3} -c 'import json, sys; j = json.load(open(sys.argv[1]))["jit"]; print("P%s Poisson form, %s run: compiled %d (%.1f ms), cache hit %d, load %.2f ms" % (sys.argv[2], sys.argv[3], j["compiled"], j["compile_ms"], j["cache_hit"], j["load_ms"]))' \
        "$out/forms-jit.json" $o $k
    done
  done
} | tee "$out/forms.txt"
