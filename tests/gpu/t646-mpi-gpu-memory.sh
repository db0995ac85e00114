#!/usr/bin/env bash
# A mesh too large for one GPU runs on P ranks (issue 20): each rank's GPU
# holds its part only (rank 0 makes no whole pattern on its GPU). The GPU
# is made small by FEINT_CUDA_ALLOC_LIMIT (every allocation above it fails
# as out of memory): with a limit between the part's and the whole mesh's
# largest allocation (the symbolic phase's sort keys, 128 bytes a P1
# tetrahedron), one rank fails with the out-of-memory message, and 2 ranks
# write the file that one rank writes without the limit. The ranks may
# share a GPU: the limit is per allocation. MPIRUN is the launcher (on the
# GPU machines: bash .device-mpi/run mpirun, tests/gpu/mpi-pack.sh).
source "$(dirname "$0")/../cli/lib.sh"
require_gpu
export FEINT_CACHE_DIR="$WORK/cache" OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPIRUN=${MPIRUN:-mpirun}
GEN=$(dirname "$FEINT")/bench/gen-cube-msh
[ -x "$GEN" ] || fail "no $GEN (make)"
"$GEN" 40 "$WORK/cube.msh" > /dev/null # 384000 tetrahedra: sort keys 49 MB whole, 25 MB a part of 2
write_case p1.yaml <<EOF2
mesh: {file: $WORK/cube.msh}
physics: {kind: poisson, kappa: "1 + x*y", source: "x + y"}
state: {u: "x*y*z"}
output: {residual: true, rhs: true, matrix: true}
EOF2
LIMIT=40000000
"$FEINT" run --quiet "$WORK/p1.yaml" --backend cuda -o "$WORK/whole.h5"
set +e
FEINT_CUDA_ALLOC_LIMIT=$LIMIT "$FEINT" run --quiet "$WORK/p1.yaml" --backend cuda -o "$WORK/one.h5" 2> "$WORK/one.err"
rc=$?
set -e
[ $rc -eq 1 ] && grep -q "out of GPU memory" "$WORK/one.err" && [ ! -e "$WORK/one.h5" ] ||
  fail "one rank under a $LIMIT-byte limit: status $rc, $(cat "$WORK/one.err")"
echo "one rank under a $LIMIT-byte limit: $(grep -o 'out of GPU memory allocating [0-9]* bytes' "$WORK/one.err")"
FEINT_CUDA_ALLOC_LIMIT=$LIMIT $MPIRUN -x FEINT_CUDA_ALLOC_LIMIT -n 2 "$FEINT" run --quiet "$WORK/p1.yaml" --backend cuda \
  -o "$WORK/two.h5" || fail "2 ranks under a $LIMIT-byte limit failed"
compare_files "2 ranks under the limit against one rank without it" "$WORK/whole.h5" "$WORK/two.h5"
