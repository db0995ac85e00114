#!/usr/bin/env bash
# Residual and load vector of the element-matrix backend on the GPU
# machine (docs/perf/element-matrices.md, "Residual and load vector on the
# GPU"): feint bench of cases/bench/elmat-p4-tet.yaml with the residual and
# rhs phases only (P4, its order-7 variant, a larger P4 mesh, P4 prisms,
# and P4 with assembly.strategy atomic; then each choice of cells per
# block, FEINT_ELMAT_VECTOR_CELLS), FEINT_ELMAT_TIMES=1 giving each
# call's element-vector kernel and gather apart (CUDA events; medians of
# the calls); the cpu backend once for reference. Prints to stdout. Not a
# test.
set -uo pipefail
cd "$(dirname "$0")/../.."
times=$(mktemp)
trap 'rm -f "$times" /tmp/elmat-vectors.h5' EXIT
bench() { # LABEL BACKEND REPEAT ARGS...
  echo "== $1"
  FEINT_ELMAT_TIMES=1 "${BUILD:-build}/feint" bench cases/bench/elmat-p4-tet.yaml --quiet -o /tmp/elmat-vectors.h5 \
    --set output.element_matrices=false --set output.matrix=false --backend "$2" --repeat "$3" "${@:4}" 2> "$times"
  for what in residual rhs; do
    local lines n
    lines=$(grep "elmat times: $what " "$times")
    n=$(grep -c . <<<"$lines")
    [ "$n" -gt 0 ] || continue
    median() { awk -v c="$1" '{print $c}' <<<"$lines" | sort -g | sed -n "$(((n + 1) / 2))p"; }
    echo "  $what kernels: element_vectors median $(median 5) ms, gather $(median 7) ms ($n calls)"
  done
}
bench "P4 tetrahedra, 3384 cells" cuda 21
bench "P4 tetrahedra, strategy atomic" cuda 21 --set assembly.strategy=atomic
bench "P7 tetrahedra, 738 cells" cuda 11 --set mesh.size=0.2 --set space.order=7
bench "P4 tetrahedra, 22,875 cells" cuda 11 --set mesh.size=0.06
bench "P4 prisms" cuda 11 --set mesh.file=../prismcube.geo --set mesh.size=0.08
# cells per block of the element-vector kernel, each choice (as many as fit 48 KB)
for cb in 1 2 4 8; do
  export FEINT_ELMAT_VECTOR_CELLS=$cb
  bench "P4 tetrahedra, $cb cells per block" cuda 21
  bench "P4 tetrahedra, 22,875 cells, $cb cells per block" cuda 11 --set mesh.size=0.06
  bench "P7 tetrahedra, $cb cells per block" cuda 11 --set mesh.size=0.2 --set space.order=7
  bench "P7 prisms (size 0.25), $cb cells per block" cuda 11 --set mesh.file=../prismcube.geo --set space.order=7 \
    --set mesh.size=0.25
done
unset FEINT_ELMAT_VECTOR_CELLS
bench "cpu: P4 tetrahedra" cpu 1
