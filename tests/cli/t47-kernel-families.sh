# feint info --kernels lists every backend (the cpu one available here)
# and the cuda kind's kernel families, each with what it computes, its
# compile-time axes, when it is chosen, its knobs and its source; every
# family named there is explained in docs/backends.md and every source
# file it names exists. feint run --json names the families that ran
# (kernel_family, matrix_kernel_family): "" on the cpu backend (one
# implementation), which does not read the GPU's tuning variables.
source "$(dirname "$0")/lib.sh"
out=$("$FEINT" info --kernels) || fail "feint info --kernels: exit $?"
echo "$out" | grep -q "^backend cpu: available" || fail "no available cpu backend in: $out"
echo "$out" | grep -q "^backend cuda: " || fail "no cuda backend in: $out"
names=$(echo "$out" | awk '/^  [a-z0-9-]+$/ {print $1}')
[ "$(echo "$names" | wc -l)" -ge 8 ] || fail "fewer than 8 kernel families: $names"
[ "$(echo "$names" | sort | uniq -d)" = "" ] || fail "a family named twice: $names"
for field in computes "compile-time axes" chosen "tuned by" source; do
  [ "$(echo "$out" | grep -c "^    $field: .")" = "$(echo "$names" | wc -l)" ] ||
    fail "not every family has its '$field' line"
done
for n in $names; do
  grep -q "\`$n\`" "$ROOT/docs/backends.md" || fail "docs/backends.md does not explain the family $n"
done
for f in $(echo "$out" | sed -n 's/^    source: //p' | tr ',' ' '); do
  [ -f "$ROOT/src/backend/cuda/$f" ] || fail "a family's source src/backend/cuda/$f does not exist"
done
"$FEINT" info --kernels extra > /dev/null 2>&1 && fail "feint info --kernels extra accepted"

write_case p.yaml <<EOF
mesh: {file: $(geo cube.geo), refine: 0}
physics: {kind: poisson, kappa: 1, source: 1}
state: {u: "x"}
output: {matrix: true}
EOF
json=$(FEINT_CUDA_CHUNK=100 "$FEINT" run --json --quiet --backend cpu "$WORK/p.yaml" -o "$WORK/p.h5") ||
  fail "cpu run with a GPU tuning variable set: exit $?"
$PY - "$json" <<'PYEOF' || fail "json kernel families"
import json, sys
j = json.loads(sys.argv[1])
assert j["kernel_family"] == "" and j["matrix_kernel_family"] == "", (j["kernel_family"], j["matrix_kernel_family"])
PYEOF
echo "kernel families: $(echo $names)"
