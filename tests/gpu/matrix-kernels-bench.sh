#!/usr/bin/env bash
# make bench-gpu (issue 19): the user-form matrix kernels against each
# other (FEINT_FORM_MATRIX: a warp a cell, a block a cell), each pair in
# feint bench on the same mesh in one call, CSR assembly kernel ms:
# elasticity (the built-in kind, run as its form) on P2 tetrahedra
# (cases/cube.geo refined 3 times, ~0.37M cells), Q1 hexahedra (~0.11M,
# cases/hexcube.geo refined 4 times) and Q2 (~14k, 3 times); and past the
# warp kernel's 128 dofs, Q3 elasticity (192 dofs a cell, ~1.7k cells)
# against the cpu backend (one thread), and P2 elasticity on a mixed mesh
# (cases/mixedcube.geo refined twice: tetrahedra over prisms, each shape
# its own kernels) against the cpu. Not a test. REFINE=-1 tries it
# small (every mesh refined once less).
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${BUILD:-build}
out=${OUT:-$B/bench-gpu}
mkdir -p "$out"
base=$(mktemp --suffix=.yaml)
trap 'rm -f /tmp/feint-mk-bench.h5 "$base"' EXIT
elasticity='{kind: elasticity, lame_lambda: "0.6 + x", lame_mu: 0.7, source: ["1", "x", "y*z"]}'
printf 'mesh: {file: %s}\nspace: {order: 1, components: 3}\nstate: {u: ["x*y", "y*z", "z*x"]}\nphysics: %s\n' \
  "$PWD/cases/hexcube.geo" "$elasticity" > "$base"
r=${REFINE:-0}
bench() { # NAME BACKEND KERNEL [--set ...]: feint bench into $out/mk-NAME.txt
  local name=$1 backend=$2 kernel=$3
  shift 3
  FEINT_FORM_MATRIX=$kernel "$B/feint" bench "$base" --backend "$backend" --repeat 5 -o /tmp/feint-mk-bench.h5 \
    --quiet --set output.residual=false --set output.matrix=true "$@" > "$out/mk-$name.txt" 2>&1 ||
    { cat "$out/mk-$name.txt"; return 1; }
}
kernel_ms() { awk '$1 == "assembly" && $2 ~ /^[0-9.]+$/ {print ($5 == "-" ? $2 : $5)}' "$out/mk-$1.txt"; }
cells() { sed -n 's/^backend [^;]*; \([0-9]* cells\), [0-9]* nodes, \([0-9]* dofs\).*/\1, \2/p' "$out/mk-$1.txt"; }
{
  for k in "p2-tet cube.geo 2 $((3 + r))" "q1-hex hexcube.geo 1 $((4 + r))" "q2-hex hexcube.geo 2 $((3 + r))"; do
    set -- $k
    args=(--set mesh.file="$PWD/cases/$2" --set space.order=$3 --set mesh.refine=$4)
    bench $1-warp cuda warp "${args[@]}" && bench $1-block cuda block "${args[@]}" || exit 1
    a=$(kernel_ms $1-warp) b=$(kernel_ms $1-block)
    printf '%-8s elasticity %s: assembly warp %s ms, block %s ms (%s)\n' $1 "$(cells $1-block)" "$a" "$b" \
      "$(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.2fx", a / b}')"
  done
  args=(--set space.order=3 --set mesh.refine=$((2 + r)))
  bench q3-hex-cpu cpu "" "${args[@]}" && bench q3-hex cuda "" "${args[@]}" || exit 1
  a=$(kernel_ms q3-hex-cpu) b=$(kernel_ms q3-hex)
  printf '%-8s elasticity %s: assembly cpu %s ms, cuda (block) %s ms (%s)\n' q3-hex "$(cells q3-hex)" "$a" "$b" \
    "$(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.0fx", a / b}')"
  # a mixed mesh (tetrahedra over prisms): each shape's kernels, against the cpu
  args=(--set mesh.file="$PWD/cases/mixedcube.geo" --set space.order=2 --set mesh.refine=$((2 + r)))
  bench mixed-cpu cpu "" "${args[@]}" && bench mixed cuda "" "${args[@]}" || exit 1
  a=$(kernel_ms mixed-cpu) b=$(kernel_ms mixed)
  printf '%-8s elasticity %s: assembly cpu %s ms, cuda %s ms (%s)\n' mixed-p2 "$(cells mixed)" "$a" "$b" \
    "$(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.0fx", a / b}')"
  echo "(kernel ms; cuda: $(sed -n 's/^backend cuda on //p' "$out/mk-q3-hex.txt" | cut -d';' -f1))"
} | tee "$out/matrix-kernels.txt"
