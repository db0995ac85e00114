#!/usr/bin/env bash
# The element-matrix backend on vector forms (docs/perf/element-matrices.md,
# "Vector forms"): feint bench of cases/bench/elmat-p3-elasticity.yaml
# (P3 elasticity, nodal E) at P3 and P4 on tetrahedra and P3 on prisms,
# cuda (medians of --repeat runs; FEINT_ELMAT_TIMES=1 splits the kernels)
# against the cpu backend (one run), all phases: element matrices, CSR
# assembly, residual, load vector. Not a test.
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${BUILD:-build}
out=${OUT:-$B/elmat-vector-bench}
mkdir -p "$out"
case=cases/bench/elmat-p3-elasticity.yaml
bench() { # LABEL BACKEND REPEAT ARGS...
  echo "== $1" | tee -a "$out/bench.txt"
  FEINT_ELMAT_TIMES=1 "$B/feint" bench "$case" --quiet -o /tmp/elmat-vector-bench.h5 --backend "$2" --repeat "$3" \
    "${@:4}" > "$out/run.txt" 2> "$out/times.txt"
  cat "$out/run.txt" >> "$out/bench.txt"
  cat "$out/run.txt"
  # the kernels one by one: medians over the calls
  for what in element_matrices assembly residual rhs; do
    local lines n
    lines=$(grep "elmat times: $what " "$out/times.txt")
    n=$(grep -c . <<<"$lines")
    [ "$n" -gt 0 ] || continue
    median() { awk -v c="$1" '{print $c}' <<<"$lines" | sort -g | sed -n "$(((n + 1) / 2))p"; }
    if [ "$what" = residual ] || [ "$what" = rhs ]; then
      echo "  $what kernels: element_vectors $(median 5) gather $(median 7) ms ($n calls)" | tee -a "$out/bench.txt"
    else
      echo "  $what kernels: coefficients $(median 5) element_matrices $(median 7) gather $(median 9) ms ($n calls)" |
        tee -a "$out/bench.txt"
    fi
  done
}
p4="--set space.order=4 --set mesh.size=0.2" # 738 cells, 28,605 dofs
prism="--set mesh.file=../prismcube.geo --set mesh.size=0.12" # 792 cells, 36,894 dofs
bench "P3 elasticity tetrahedra, cuda" cuda 7
bench "P4 elasticity tetrahedra, cuda" cuda 7 $p4
bench "P3 elasticity prisms, cuda" cuda 7 $prism
bench "P3 elasticity tetrahedra, cpu" cpu 1
bench "P4 elasticity tetrahedra, cpu" cpu 1 $p4
bench "P3 elasticity prisms, cpu" cpu 1 $prism
rm -f /tmp/elmat-vector-bench.h5
