#!/usr/bin/env bash
# make bench-gpu (issue 21): curved against straight cells of the same
# order on the GPU. gen-cube-msh --warp N: the unit cube's 6 N^3
# tetrahedra moved by a smooth map, as straight cells (4 nodes) and as
# curved ones (--order 2: 10 nodes on the map); P2 Poisson with a
# variable coefficient, feint bench's kernel times of the residual, the
# load vector and the CSR assembly:
#   straight, default kernels (thread transposition, tt);
#   straight as a form (FEINT_CUDA_BUILTIN_FORMS=1: form-jit, J per cell);
#   curved (form-jit, J at every point from the cell's 10 nodes, a rule
#   3 degrees higher);
#   affine: the unwarped cube in 10-node cells, every edge node at its
#   midpoint (form-jit's affine class: straight cells in a curved mesh).
# The ratio curved / straight-form is the cost of the geometry alone (the
# same kernels otherwise); affine / straight-form what an affine cell of
# a curved mesh costs. Then whole cold runs (feint run) of each.
# N=... for a smaller mesh (default 60: 1.3M cells). SHAPE=hex: the cube's
# N^3 hexahedra instead (default N 80: 512k cells), Q2, straight in 8
# nodes, curved and affine in 27 (the default kernels of hexahedra are
# already form-jit's, J at every point). Not a test.
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${BUILD:-build}
out=${OUT:-$B/bench-gpu}
shape=${SHAPE:-tet}
hex=()
if [ "$shape" = hex ]; then hex=(--hex); fi
N=${N:-$([ "$shape" = hex ] && echo 80 || echo 60)}
backend=${BACKEND:-cuda}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export FEINT_CACHE_DIR="$work/cache"
"$B/bench/gen-cube-msh" "${hex[@]}" --warp "$N" "$work/straight.msh" || exit 1
"$B/bench/gen-cube-msh" "${hex[@]}" --warp --order 2 "$N" "$work/curved.msh" || exit 1
"$B/bench/gen-cube-msh" "${hex[@]}" --order 2 "$N" "$work/affine.msh" || exit 1
for g in straight curved affine; do
  printf 'mesh: {file: %s}\nspace: {order: 2}\nphysics: {kind: poisson, kappa: "1 + x*y*z", source: "x + y"}\nstate: {u: "x*y*z"}\noutput: {residual: true, rhs: true, matrix: true}\n' \
    "$work/$g.msh" > "$work/$g.yaml"
done
bench() { # NAME CASE [ENV...]: feint bench into $out/curved-NAME.txt
  local name=$1 case=$2
  shift 2
  env "$@" "$B/feint" bench "$work/$case.yaml" --backend "$backend" --repeat ${REPEAT:-11} -o "$work/b.h5" --quiet \
    > "$out/curved-$shape-$name.txt" 2>&1 || { cat "$out/curved-$shape-$name.txt"; return 1; }
}
kernel_ms() { awk -v p="$2" '$1 == p && $2 ~ /^[0-9.]+$/ {print ($5 == "-" ? $2 : $5)}' "$out/curved-$shape-$1.txt"; }
family() { sed -n 's/^kernel families (feint info --kernels): //p' "$out/curved-$shape-$1.txt"; }
bench straight-tt straight && bench straight-form straight FEINT_CUDA_BUILTIN_FORMS=1 && bench curved curved &&
  bench affine affine || exit 1
cells=$([ "$shape" = hex ] && echo "$((N * N * N)) hexahedra (Q2)" || echo "$((6 * N * N * N)) tetrahedra (P2)")
echo "Poisson, $cells, $backend ($(sed -n 's/^backend [a-z]* on \([^;]*\);.*/\1/p' "$out/curved-$shape-curved.txt"))"
for name in straight-tt straight-form curved affine; do
  printf '%-14s %-30s' "$name" "$(family $name)"
  for ph in residual rhs assembly; do printf '  %s %s ms' $ph "$(kernel_ms $name $ph)"; done
  echo
done
for ph in residual rhs assembly; do
  awk -v p=$ph -v c="$(kernel_ms curved $ph)" -v f="$(kernel_ms straight-form $ph)" -v t="$(kernel_ms straight-tt $ph)" \
    -v a="$(kernel_ms affine $ph)" \
    'BEGIN {printf "%-9s curved / straight as a form %.2fx, curved / straight tt %.2fx, affine / straight as a form %.2fx\n", p, c / f, c / t, a / f}'
done
# whole cold runs, as a user waits for them (the cache warm: the first compile is not the geometry's)
for rep in 1 2; do
  for name in straight-tt straight-form curved affine; do
    case $name in
      straight-tt) env=() c=straight ;;
      straight-form) env=(FEINT_CUDA_BUILTIN_FORMS=1) c=straight ;;
      *) env=() c=$name ;;
    esac
    t0=$(date +%s.%N)
    env "${env[@]}" "$B/feint" run --quiet "$work/$c.yaml" --backend "$backend" -o "$work/r.h5" || echo "FAIL run $name"
    t1=$(date +%s.%N)
    awk -v n=$name -v a=$t0 -v b=$t1 'BEGIN {printf "whole run %-14s %.2f s\n", n, b - a}'
  done
done
