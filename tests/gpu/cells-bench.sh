#!/usr/bin/env bash
# make bench-gpu (issue 19): the built-in kinds on hexahedra, which the
# cuda kind runs as the forms they are (family form-jit: J at every point,
# the basis tabulated at the rule's points), against the cpu backend's
# sum-factorised kernels, each pair in feint bench on the same mesh and
# machine: Poisson (variable coefficient) and elasticity, Q1 on ~0.11M
# hexahedra (cases/hexcube.geo refined 4 times) and Q2 on ~14k (3 times);
# then the GPU alone on 8 times as many cells. Prints each phase's kernel
# time (the cpu's wall time) and the GPU's speed-up. Not a test.
# REFINE_Q1=2 REFINE_Q2=1 try it small.
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${BUILD:-build}
out=${OUT:-$B/bench-gpu}
mkdir -p "$out"
base=$(mktemp --suffix=.yaml)
trap 'rm -f /tmp/feint-cells-bench.h5 "$base"' EXIT
printf 'mesh: {file: %s}\nspace: {order: 1}\nphysics: {kind: poisson}\n' "$PWD/cases/hexcube.geo" > "$base"
elasticity='{kind: elasticity, lame_lambda: "0.6 + x", lame_mu: 0.7, source: ["1", "x", "y*z"]}'
poisson='{kind: poisson, kappa: "1 + x*y*z", source: "x + y"}'
bench() { # NAME BACKEND REPEAT [--set ...]: feint bench into $out/cells-NAME.txt
  local name=$1 backend=$2 repeat=$3
  shift 3
  "$B/feint" bench "$base" --backend "$backend" --repeat "$repeat" -o /tmp/feint-cells-bench.h5 --quiet \
    --set 'state.u=x*y*z' --set output.residual=true \
    --set output.rhs=true --set output.matrix=true "$@" > "$out/cells-$name.txt" 2>&1 ||
    { cat "$out/cells-$name.txt"; return 1; }
}
kernel_ms() { awk -v p="$2" '$1 == p && $2 ~ /^[0-9.]+$/ {print ($5 == "-" ? $2 : $5)}' "$out/cells-$1.txt"; }
{
  for k in "poisson 1 ${REFINE_Q1:-4} 1" "poisson 2 ${REFINE_Q2:-3} 1" "elasticity 1 ${REFINE_Q1:-4} 3" \
    "elasticity 2 ${REFINE_Q2:-3} 3"; do
    set -- $k
    name=$1-q$2 phys=$poisson vec=()
    [ $1 = poisson ] || { phys=$elasticity; vec=(--set space.components=3 --set 'state.u=["x*y", "y*z", "z*x"]'); }
    args=(--set mesh.refine=$3 --set space.order=$2 --set "physics=$phys" "${vec[@]}")
    bench $name-cpu cpu 1 "${args[@]}" && bench $name ${GPU_BACKEND:-cuda} 11 "${args[@]}" || exit 1
    bench $name-big ${GPU_BACKEND:-cuda} 11 "${args[@]}" --set mesh.refine=$(($3 + 1)) || exit 1
    printf '%-14s %s:' "Q$2 $1" "$(sed -n 's/^backend [^;]*; \([0-9]* cells\), [0-9]* nodes, \([0-9]* dofs\).*/\1, \2/p' \
      "$out/cells-$name.txt")"
    for ph in residual rhs assembly; do
      a=$(kernel_ms $name-cpu $ph) b=$(kernel_ms $name $ph)
      printf '  %s %s/%s ms (%s)' $ph "$a" "$b" "$(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.1fx", a / b}')"
    done
    printf '\n%-14s %s:' "" "$(sed -n 's/^backend [^;]*; \([0-9]* cells\), [0-9]* nodes, \([0-9]* dofs\).*/\1, \2/p' \
      "$out/cells-$name-big.txt")"
    for ph in residual rhs assembly; do printf '  %s %s ms' $ph "$(kernel_ms $name-big $ph)"; done
    echo
  done
  echo "(cpu / cuda kernel ms; cpu: the reference backend, one thread; cuda: $(sed -n 's/^backend cuda on //p' \
    "$out/cells-poisson-q1.txt" | cut -d';' -f1))"
  # the first compile of the largest layouts the kernels take (no cache)
  [ "${GPU_BACKEND:-cuda}" = cuda ] || exit 0
  form='{kind: form, coefficients: {f: "x + y"}, f0: "-f*exp(u)", f1: ["(1 + u^2)*u_x", "u_y", "u_z"]}'
  for k in "P7 tetrahedra, a form|cube.geo|7|$form" "P5 prisms, a form|prismcube.geo|5|$form" \
    "Q3 hexahedra, poisson|hexcube.geo|3|$poisson" "Q2 hexahedra, elasticity|hexcube.geo|2|$elasticity" \
    "Q3 hexahedra, elasticity|hexcube.geo|3|$elasticity" "Q7 hexahedra, poisson|hexcube.geo|7|$poisson"; do
    IFS='|' read -r label geo order phys <<< "$k"
    vec=()
    [[ $label != *elasticity ]] || vec=(--set space.components=3 --set 'state.u=["x", "y", "z"]')
    "$B/feint" run --quiet --json "$base" --no-cache --backend cuda -o /tmp/feint-cells-bench.h5 \
      --set mesh.file="$PWD/cases/$geo" --set mesh.size=0.5 --set space.order=$order --set "physics=$phys" \
      --set 'state.u=x*y' --set output.matrix=true "${vec[@]}" > "$out/cells-jit.json" || exit 1
    ${PY:-/usr/bin/python3} -c 'import json, sys; j = json.load(open(sys.argv[1])); print("%-26s first compile %.0f ms (%s)" % (sys.argv[2], j["jit"]["compile_ms"], j["kernel_family"]))' \
      "$out/cells-jit.json" "$label"
  done
} | tee "$out/cells.txt"
