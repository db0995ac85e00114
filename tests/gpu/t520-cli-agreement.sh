# feint run --backend cuda agrees with --backend cpu through the whole
# command line (case -> mesh -> HDF5) for every assembly strategy; colored
# and gather runs are bitwise reproducible; auto picks the GPU.
source "$(dirname "$0")/../cli/lib.sh"
require_gpu
compare() { $PY "$ROOT/tests/gpu/agree.py" "$1" "$2" "$3" 2 matrix/data rhs residual; }
cases=(
  "square.geo 0.02 1 poisson"
  "square.geo 0.03 2 helmholtz"
  "cube.geo 0.08 1 elasticity"
  "cube.geo 0.1 2 poisson"
)
for spec in "${cases[@]}"; do
  set -- $spec
  agreement_case "$@" > "$WORK/g.yaml"
  "$FEINT" run --quiet "$WORK/g.yaml" -o "$WORK/cpu.h5" --backend cpu
  echo "$1 P$3 $4:"
  for s in colored atomic gather; do
    "$FEINT" run --quiet "$WORK/g.yaml" -o "$WORK/$s.h5" --backend cuda --set assembly.strategy=$s
    compare "$WORK/cpu.h5" "$WORK/$s.h5" "$s"
  done
  for s in colored gather; do
    "$FEINT" run --quiet "$WORK/g.yaml" -o "$WORK/$s-2.h5" --backend cuda --set assembly.strategy=$s
    $PY -c "
import sys, h5py, numpy as np
a, b = h5py.File('$WORK/$s.h5'), h5py.File('$WORK/$s-2.h5')
ok = all(np.array_equal(a[n][:], b[n][:]) for n in ['matrix/data', 'rhs', 'residual'])
print('  $s twice: bitwise', 'identical' if ok else 'DIFFERENT'); sys.exit(0 if ok else 1)"
  done
done
"$FEINT" run "$WORK/g.yaml" -o "$WORK/auto.h5" 2> "$WORK/note" > /dev/null
grep -q "using cuda" "$WORK/note" || fail "auto did not pick cuda: $(cat "$WORK/note")"
$PY -c "
import h5py; f = h5py.File('$WORK/auto.h5'); print('auto:', f.attrs['backend'], f.attrs['device'])
assert f.attrs['backend'] == 'cuda'"
# the colouring's size reaches the user: --json colors and the file's attribute, > 1 colours
"$FEINT" run --quiet "$WORK/g.yaml" -o "$WORK/col.h5" --backend cuda --set assembly.strategy=colored --json \
  > "$WORK/col.json"
$PY - "$WORK/col.json" "$WORK/col.h5" <<'PYEOF'
import json, sys, h5py
s = json.load(open(sys.argv[1])); f = h5py.File(sys.argv[2])
print("colored: colors", s["colors"], "attribute", f.attrs.get("colors"))
assert s["colors"] > 1 and f.attrs["colors"] == s["colors"]
# the transfers reach the report: the mesh goes up in setup, u up and the
# residual down in the residual phase, each inside its phase's time
t, up, down = s["seconds"], s["h2d_seconds"], s["d2h_seconds"]
print("transfers: setup h2d", up["setup"], "residual h2d", up["residual"], "d2h", down["residual"])
assert up["setup"] > 0 and up["residual"] > 0 and down["residual"] > 0 and down["assembly"] > 0
assert all(0 <= up[k] + down[k] <= t[k] for k in t), (t, up, down)
assert up["write"] == 0 and down["write"] == 0 and up["mesh_read"] == 0
# the kernel family of the residual (P2 tetrahedra: thread transposition)
print("residual kernel:", s["residual_kernel"])
assert s["residual_kernel"].startswith("thread transposition, cells in "), s["residual_kernel"]
# and by their names in feint info --kernels (P2 matrices: thread transposition too)
assert s["kernel_family"] == "tt" and s["matrix_kernel_family"] == "tt", (s["kernel_family"], s["matrix_kernel_family"])
PYEOF
# FEINT_CUDA_BUILTIN_FORMS=1: the built-in kind as its form (form-jit),
# one colour at a time, the same numbers
FEINT_CUDA_BUILTIN_FORMS=1 "$FEINT" run --quiet "$WORK/g.yaml" -o "$WORK/col-form.h5" --backend cuda \
  --set assembly.strategy=colored --json > "$WORK/col-form.json"
$PY - "$WORK/col-form.json" <<'PYEOF'
import json, sys
s = json.load(open(sys.argv[1]))
assert s["residual_kernel"].startswith("run-time compiled form kernels"), s["residual_kernel"]
assert "a colour at a time" in s["residual_kernel"], s["residual_kernel"]
assert s["kernel_family"] == "form-jit" and s["matrix_kernel_family"] == "form-jit", (s["kernel_family"], s["matrix_kernel_family"])
PYEOF
$PY "$ROOT/tests/gpu/agree.py" --tol=1e-13 "$WORK/col.h5" "$WORK/col-form.h5" "P2 tt vs form-jit" both residual matrix/data ||
  fail "P2: thread transposition and the form kernels differ"
# feint bench on the GPU: the h2d and d2h columns hold times
"$FEINT" bench --quiet "$WORK/g.yaml" -o "$WORK/bench.h5" --backend cuda --repeat 3 > "$WORK/bench"
grep -Eq "^residual +[0-9.]+ +[0-9]+\.[0-9]+ +[0-9]+\.[0-9]+ +[0-9.]+ " "$WORK/bench" || fail "bench: $(cat "$WORK/bench")"
grep -q "^host-to-device copies" "$WORK/bench" || fail "bench: no transfer line: $(cat "$WORK/bench")"
# P1 Poisson on tetrahedra: the lean kernel, as the issue's benchmark uses
"$FEINT" bench --quiet "$WORK/g.yaml" -o "$WORK/bench.h5" --backend cuda --repeat 3 --set space.order=1 \
  --set assembly.strategy=atomic > "$WORK/bench"
grep -q "^residual kernel: the lean P1 tetrahedron kernel, cells in \(mesh\|curve\) order, pipelined over persistent blocks" \
  "$WORK/bench" || fail "bench: residual kernel: $(cat "$WORK/bench")"
grep -q "^kernel families (feint info --kernels): residual p1-lean-pipe, matrix p1-block" "$WORK/bench" ||
  fail "bench: kernel families: $(cat "$WORK/bench")"
# the operator names its BP family; a knob for a variant a default build lacks is refused by name
"$FEINT" run --quiet --json "$ROOT/cases/bp-hex.yaml" -o "$WORK/bp.h5" --backend cuda > "$WORK/bp.json"
$PY -c "
import json; s = json.load(open('$WORK/bp.json')); print('operator kernel:', s['kernel_family'], s['residual_kernel'])
assert s['kernel_family'].startswith('bp-'), s['kernel_family']"
if [ "${FEINT_EXPERIMENTS:-0}" != 1 ]; then # a default build (make EXPERIMENTS=1 accepts it)
  set +e; FEINT_CUDA_LEAN_MINB=3 "$FEINT" run --quiet "$WORK/g.yaml" -o "$WORK/x.h5" --backend cuda --set space.order=1 \
    2> "$WORK/err"; rc=$?; set -e
  if [ "$rc" = 2 ]; then grep -q "FEINT_CUDA_LEAN_MINB=3.*EXPERIMENTS=1" "$WORK/err" || fail "MINB message: $(cat "$WORK/err")"
  else fail "FEINT_CUDA_LEAN_MINB=3 without the experiments' kernels: exit $rc"; fi
  [ ! -e "$WORK/x.h5" ] || fail "a file left after a refused tuning variable"
fi
# --device past the visible GPUs: an input error naming --device, for the
# matrix (GPU symbolic phase) and for the operator path, no file left
n_gpus=$(nvidia-smi -L 2>/dev/null | wc -l); [ "$n_gpus" -ge 1 ] || n_gpus=8
for run in "$WORK/g.yaml" "$ROOT/cases/bp-hex.yaml"; do
  rm -f "$WORK/dev.h5"
  set +e; "$FEINT" run "$run" -o "$WORK/dev.h5" --backend cuda --device $n_gpus 2> "$WORK/err"; rc=$?; set -e
  [ $rc = 2 ] || fail "--device $n_gpus on $run: exit $rc (expected 2): $(cat "$WORK/err")"
  grep -q -- "--device $n_gpus: only" "$WORK/err" || fail "--device message: $(cat "$WORK/err")"
  [ ! -e "$WORK/dev.h5" ] || fail "--device $n_gpus left $WORK/dev.h5"
done
echo "--device past the visible GPUs: refused (exit 2)"
# CUDA_VISIBLE_DEVICES decides what feint sees: none visible, auto says so and
# runs on the cpu, cuda is refused (exit 2, no file); one visible, --device 1
# is past it
CUDA_VISIBLE_DEVICES= "$FEINT" run "$WORK/g.yaml" -o "$WORK/vis.h5" 2> "$WORK/note" > /dev/null ||
  fail "CUDA_VISIBLE_DEVICES= with auto: $(cat "$WORK/note")"
grep -q "no GPU found; using the cpu backend" "$WORK/note" || fail "CUDA_VISIBLE_DEVICES= note: $(cat "$WORK/note")"
$PY -c "import h5py,sys; sys.exit(0 if h5py.File('$WORK/vis.h5').attrs['backend']=='cpu' else 1)" ||
  fail "CUDA_VISIBLE_DEVICES= did not run on the cpu"
rm -f "$WORK/vis.h5"
set +e; CUDA_VISIBLE_DEVICES= "$FEINT" run "$WORK/g.yaml" -o "$WORK/vis.h5" --backend cuda 2> "$WORK/err"; rc=$?; set -e
[ $rc = 2 ] && grep -q "no CUDA device is visible" "$WORK/err" && [ ! -e "$WORK/vis.h5" ] ||
  fail "CUDA_VISIBLE_DEVICES= with --backend cuda: exit $rc: $(cat "$WORK/err")"
set +e; CUDA_VISIBLE_DEVICES=0 "$FEINT" run "$WORK/g.yaml" -o "$WORK/vis.h5" --backend cuda --device 1 2> "$WORK/err"
rc=$?; set -e
[ $rc = 2 ] && grep -q -- "--device 1: only 1 CUDA device is visible" "$WORK/err" ||
  fail "CUDA_VISIBLE_DEVICES=0 --device 1: exit $rc: $(cat "$WORK/err")"
echo "CUDA_VISIBLE_DEVICES: honoured (none visible: cpu / refused; one visible: --device 1 refused)"
# out of GPU memory (the FEINT_CUDA_ALLOC_LIMIT test hook fails any request
# above 4 KiB): exit 1, a message naming the phase and the bytes requested,
# no output file; for the pattern + matrix path, a residual-only run and the
# BP operator
oom() { # expected-module args...
  local want=$1; shift
  rm -f "$WORK/oom.h5"
  set +e; FEINT_CUDA_ALLOC_LIMIT=4096 "$FEINT" run "$@" -o "$WORK/oom.h5" --backend cuda 2> "$WORK/err"; rc=$?; set -e
  [ $rc = 1 ] || fail "out of memory ($*): exit $rc (expected 1): $(cat "$WORK/err")"
  grep -q "$want.*out of GPU memory allocating [0-9]* bytes" "$WORK/err" || fail "out-of-memory message ($*): $(cat "$WORK/err")"
  [ ! -e "$WORK/oom.h5" ] || fail "out of memory ($*) left $WORK/oom.h5"
  echo "  out of memory: $(grep -o "error: .*" "$WORK/err")"
}
oom "GPU symbolic phase" "$WORK/g.yaml"
oom "" "$WORK/g.yaml" --set output.matrix=false --set output.rhs=false
oom "" "$ROOT/cases/bp-hex.yaml"
# on the GPU too: a cold run and a warm one (feint bench --repeat) agree bitwise (colored)
"$FEINT" run --quiet "$WORK/g.yaml" -o "$WORK/cold.h5" --backend cuda --set assembly.strategy=colored
"$FEINT" bench --quiet "$WORK/g.yaml" -o "$WORK/warm.h5" --backend cuda --set assembly.strategy=colored --repeat 3 > /dev/null
$PY - "$WORK/cold.h5" "$WORK/warm.h5" <<'EOF'
import sys, h5py, numpy as np
a, b = h5py.File(sys.argv[1]), h5py.File(sys.argv[2])
for n in ["matrix/data", "rhs", "residual"]:
    assert np.array_equal(a[n][:], b[n][:]), f"{n}: the warm GPU run differs from the cold one"
print("GPU cold and warm runs agree bitwise (colored)")
EOF
