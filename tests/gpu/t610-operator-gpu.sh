# feint run with an operator section (issue 4): --backend cuda (the BP
# kernels of src/backend/cuda/bp.cu) agrees with --backend cpu (the
# reference sum factorisation) through the whole command line, on the
# refined transfinite hex cube, N = 1..8, BP1.0 / BP3.5 / BP3.0, stored
# and recomputed geometry; backend auto picks the GPU. Needs a GPU.
source "$(dirname "$0")/../cli/lib.sh"
require_gpu
write_case op.yaml <<EOF
mesh: {file: $(geo hexcube.geo), refine: 1}
space: {order: 1}
operator: {kind: bp1.0, lambda: 0.7}
state: {u: "sin(3*x)*cos(y) + x*y*z"}
EOF
for N in 1 2 3 5 8; do
  for k in bp1.0 bp3.5 bp3.0; do
    for g in stored recompute; do
      sets=(--set space.order=$N --set operator.kind=$k --set operator.geometry=$g)
      "$FEINT" run --quiet --backend cpu "$WORK/op.yaml" -o "$WORK/cpu.h5" "${sets[@]}" || fail "cpu $N $k $g"
      "$FEINT" run --quiet --backend cuda "$WORK/op.yaml" -o "$WORK/gpu.h5" "${sets[@]}" || fail "cuda $N $k $g"
      $PY - "$WORK/cpu.h5" "$WORK/gpu.h5" "N=$N $k $g" <<'EOF' || fail "cuda vs cpu: N=$N $k $g"
import sys, h5py, numpy as np
a, b = h5py.File(sys.argv[1]), h5py.File(sys.argv[2])
assert b.attrs["backend"] == "cuda" and b["operator"].attrs["kernel_seconds"] > 0
assert np.array_equal(a["operator/x"][:], b["operator/x"][:])
y, z = a["operator/y"][:], b["operator/y"][:]
e = np.linalg.norm(y - z) / np.linalg.norm(y)
print(f"  {sys.argv[3]}: relative difference {e:.2e}")
sys.exit(0 if e <= 1e-12 else 1)
EOF
    done
  done
done
"$FEINT" run --quiet "$WORK/op.yaml" -o "$WORK/auto.h5"
$PY -c "import h5py,sys; sys.exit(0 if h5py.File('$WORK/auto.h5').attrs['backend']=='cuda' else 1)" || fail "auto did not pick cuda"
echo ok
