#!/usr/bin/env bash
# User forms on the GPU (issue 19): on P1 compiled into the P1 kernel
# templates (families p1-block / p1-cell, the residual of tetrahedra
# p1-lean / p1-lean-pipe; every assembly strategy: colored
# and gather twice, bitwise equal), on P2 and P3 by the form-jit family
# (element matrices of more than 256 entries a warp a cell); feint
# run --backend cuda against --backend cpu, within 1e-13 relative (2-norm and max-norm)
# on the residual, the load vector, the element matrices and the CSR
# matrix: Poisson written as a form (nodal coefficients kappa and f),
# the nonlinear k(u) = k0 + beta u^2 form at a state u, a Bratu source
# lambda e^u, a vector form (2 components on triangles, 3 on tetrahedra);
# P1, P2 and P3, triangles and tetrahedra. Then the disk cache of compiled
# code (--json "jit"): a fresh cache compiles, a second run is a cache hit
# that compiles nothing, a changed expression compiles again, a changed
# parameter or constant coefficient does not (and changes the numbers,
# which still agree with the cpu); --no-cache or backend.cache: false
# compile on a warm cache and write nothing into it. A sweep over a parameter takes the
# backend over (no compile after the first member). Without NVRTC
# (FEINT_NVRTC_LIBRARY pointing nowhere), --backend auto runs the form on
# the cpu backend and says why.
source "$(dirname "$0")/../cli/lib.sh"
require_gpu
export FEINT_CACHE_DIR="$WORK/cache"
OUTS=(residual rhs element_matrices matrix/data)
agree() { # CPU.h5 GPU.h5 LABEL: 1e-13 relative, 2-norm and max-norm, every output
  $PY "$ROOT/tests/gpu/agree.py" --tol=1e-13 --nonzero --ref=cpu "$@" both "${OUTS[@]}"
}
jit() { # JSON KEY: the value of "jit" KEY in feint run --json's output
  $PY -c 'import json, sys; d = json.load(open(sys.argv[1])); print(d["jit"][sys.argv[2]] if d["jit"] else "null")' "$1" "$2"
}
family() { $PY -c 'import json, sys; print(json.load(open(sys.argv[1]))["kernel_family"])' "$1"; }
# case NAME GEO ORDER COMPONENTS PHYSICS-YAML: $WORK/NAME.yaml
case_file() {
  printf 'mesh: {file: %s, size: %s}\nspace: {order: %s, components: %s}\nstate: {u: %s}\n%s\n%s\n' \
    "$(geo "$2")" "$([ "$2" = square.geo ] && echo 0.15 || echo 0.3)" "$3" "$4" "$5" \
    "output: {residual: true, rhs: true, matrix: true, element_matrices: true}" "$6" > "$WORK/$1.yaml"
}
run_both() { # NAME FAMILY [--set ...]: cpu and cuda, compared; P1 in every strategy
  local name=$1 want=$2
  shift 2
  "$FEINT" run --quiet "$WORK/$name.yaml" -o "$WORK/$name-cpu.h5" --backend cpu "$@"
  "$FEINT" run --quiet --json "$WORK/$name.yaml" -o "$WORK/$name-gpu.h5" --backend cuda "$@" > "$WORK/$name.json"
  local got
  got=$(family "$WORK/$name.json")
  # the P1 templates report the family of the last vector: the lean walk's for a residual of tetrahedra
  [ "$got" = "$want" ] || { [ "$want" = p1-block ] && [[ $got = p1-lean* ]]; } ||
    fail "$name: kernel family $got, not $want"
  agree "$WORK/$name-cpu.h5" "$WORK/$name-gpu.h5" "$name"
  [ "$want" = p1-block ] || return 0
  local st
  for st in colored gather; do # deterministic: two runs bitwise equal
    "$FEINT" run --quiet "$WORK/$name.yaml" -o "$WORK/$name-$st-a.h5" --backend cuda --set assembly.strategy=$st "$@"
    "$FEINT" run --quiet "$WORK/$name.yaml" -o "$WORK/$name-$st-b.h5" --backend cuda --set assembly.strategy=$st "$@"
    agree "$WORK/$name-cpu.h5" "$WORK/$name-$st-a.h5" "$name $st"
    $PY - "$WORK/$name-$st-a.h5" "$WORK/$name-$st-b.h5" "${OUTS[@]}" <<'EOF' || fail "$name $st: two runs differ"
import sys, h5py
a, b = h5py.File(sys.argv[1]), h5py.File(sys.argv[2])
for n in sys.argv[3:]:
    assert a[n][:].tobytes() == b[n][:].tobytes(), n
EOF
  done
}
for geo in square.geo cube.geo; do
  if [ $geo = square.geo ]; then
    grad='["kappa*u_x", "kappa*u_y"]'; k='["(k0 + beta*u^2)*u_x", "(k0 + beta*u^2)*u_y"]'; g='[u_x, u_y]'
    vec_state='["sin(x) + y", "x*y"]'
    vec='  f0: ["u0*u1 - 1", "-exp(u0)*u1"]
  f1: [["(1 + u1^2)*u0_x", "u0_y + u1_x"], ["k*u1_x", "u1_y - u0_x*u1"]]'
    nc=2
  else
    grad='["kappa*u_x", "kappa*u_y", "kappa*u_z"]'
    k='["(k0 + beta*u^2)*u_x", "(k0 + beta*u^2)*u_y", "(k0 + beta*u^2)*u_z"]'; g='[u_x, u_y, u_z]'
    vec_state='["sin(x) + y", "x*z", "1 + y*z"]'
    vec='  f0: ["u0*u1 - u2 + 1", "-exp(u0)*u1", "u2^2 - x"]
  f1: [["(1 + u1^2)*u0_x", "u0_y + u1_x", "u0_z"], ["k*u1_x", "u1_y", "u1_z - u2_x"], ["u2_x", "u2_y*u0", "(1 + u2^2)*u2_z"]]'
    nc=3
  fi
  for order in 1 2 3; do
    tag=${geo%.geo}-p$order
    fam=$([ $order = 1 ] && echo p1-block || echo form-jit)
    case_file "poisson-$tag" $geo $order 1 '"x*y + sin(z + x)"' "physics:
  kind: form
  coefficients: {kappa: \"1 + x*y\", f: \"sin(pi*x)*y\"}
  f0: \"-f\"
  f1: $grad"
    run_both "poisson-$tag" $fam
    case_file "ku-$tag" $geo $order 1 '"x*y + sin(z + x)"' "physics:
  kind: form
  parameters: {k0: 1.0, beta: 2.0}
  coefficients: {f: 3.0}
  f0: \"-f\"
  f1: $k"
    run_both "ku-$tag" $fam
    case_file "bratu-$tag" $geo $order 1 '"0.5*x*y"' "physics:
  kind: form
  parameters: {lambda: 2.0}
  f0: \"-lambda*exp(u)\"
  f1: $g"
    # on tetrahedra e^u's rule has more points than the P1 templates'
    # table holds (FEINT_P1_MAXQ, 24): the form-jit family takes it (so
    # for the vector form below)
    run_both "bratu-$tag" $([ $geo = cube.geo ] && echo form-jit || echo $fam)
    case_file "vector-$tag" $geo $order $nc "$vec_state" "physics:
  kind: form
  parameters: {k: 1.5}
$vec"
    run_both "vector-$tag" $([ $geo = cube.geo ] && echo form-jit || echo $fam) # exp(u0), as bratu
  done
done

# the residual of P1 tetrahedra in the lean walk (p1_lean.cuh; the family
# reported is the last vector's: no rhs after the residual): the
# pipelined kernel for one component where it walks every chunk, the
# shared gather for three components and for colored, which takes only
# forms whose f0 and f1 are affine in x, u and the nodal coefficients
# (collapsed sums: poisson; not ku and nl3, three components, in the
# block kernel there)
case_file nl3-cube-p1 cube.geo 1 3 '["sin(x) + y", "x*z", "1 + y*z"]' "physics:
  kind: form
  parameters: {k: 1.5}
  coefficients: {f: \"x*y\"}
  f0: [\"f - x\", \"x*y\", \"-f\"]
  f1: [[\"(1 + u1^2)*u0_x\", \"u0_y + u1_x\", \"u0_z\"], [\"k*u1_x\", \"u1_y\", \"u1_z - u2_x\"], [\"u2_x\", \"u2_y*u0\", \"(1 + f)*u2_z\"]]"
"$FEINT" run --quiet "$WORK/nl3-cube-p1.yaml" -o "$WORK/nl3-cube-p1-cpu.h5" --backend cpu
for name in poisson-cube-p1 ku-cube-p1 nl3-cube-p1; do
  for st in atomic colored gather; do
    want=p1-lean-pipe
    [ $name = nl3-cube-p1 ] && want=p1-lean
    [ $st = colored ] && want=$([ $name = poisson-cube-p1 ] && echo p1-lean || echo p1-block)
    "$FEINT" run --quiet --json "$WORK/$name.yaml" -o "$WORK/lean.h5" --backend cuda --set assembly.strategy=$st \
      --set output.rhs=false > "$WORK/lean.json"
    [ "$(family "$WORK/lean.json")" = $want ] || fail "$name $st residual: kernel family $(family "$WORK/lean.json"), not $want"
    $PY "$ROOT/tests/gpu/agree.py" --tol=1e-13 --nonzero --ref=cpu "$WORK/$name-cpu.h5" "$WORK/lean.h5" \
      "$name $st ($want)" both residual element_matrices matrix/data || fail "$name $st: the lean residual differs from the cpu"
  done
done
echo "  P1 tetrahedra: the residual in the lean walk (pipelined, shared gather) or the block kernel agrees with the cpu"

# Neumann and Robin boundaries with a form: the facet integrals on the GPU
# (the boundary data's, whatever the volume form), P1 and P2
for order in 1 2; do
  c="$WORK/ku-cube-p$order.yaml"
  bc='[{group: left, dirichlet: "x*y"}, {group: boundary, robin: {alpha: 2, value: "x - y*z"}}]'
  "$FEINT" run --quiet "$c" -o "$WORK/bc-cpu.h5" --backend cpu --set "boundary=$bc"
  "$FEINT" run --quiet "$c" -o "$WORK/bc-gpu.h5" --backend cuda --set "boundary=$bc"
  agree "$WORK/bc-cpu.h5" "$WORK/bc-gpu.h5" "ku-cube-p$order, Dirichlet and Robin boundaries"
done

# the cache of compiled code, for both paths (P2: form-jit, P1: the P1 templates)
for p in p2 p1; do
  c="$WORK/ku-cube-$p.yaml"
  rm -rf "$FEINT_CACHE_DIR"
  run_json() { "$FEINT" run --quiet --json "$c" -o "$WORK/c.h5" --backend cuda "$@" > "$WORK/c.json"; }
  run_json
  [ "$(jit "$WORK/c.json" compiled)" = 1 ] && [ "$(jit "$WORK/c.json" cache_hit)" = 0 ] || fail "a fresh cache did not compile: $(cat "$WORK/c.json")"
  echo "  $p: fresh cache: compiled in $(jit "$WORK/c.json" compile_ms) ms"
  run_json
  [ "$(jit "$WORK/c.json" compiled)" = 0 ] && [ "$(jit "$WORK/c.json" cache_hit)" = 1 ] || fail "the second run compiled: $(cat "$WORK/c.json")"
  echo "  $p: second run: a cache hit, loaded in $(jit "$WORK/c.json" load_ms) ms"
  run_json --set 'physics.parameters={k0: 3.0, beta: 0.5}' --set 'physics.coefficients={f: 7.0}'
  [ "$(jit "$WORK/c.json" compiled)" = 0 ] && [ "$(jit "$WORK/c.json" cache_hit)" = 1 ] || fail "a changed parameter compiled: $(cat "$WORK/c.json")"
  cp "$WORK/c.h5" "$WORK/c-param.h5"
  "$FEINT" run --quiet "$c" -o "$WORK/c-param-cpu.h5" --backend cpu --set 'physics.parameters={k0: 3.0, beta: 0.5}' \
    --set 'physics.coefficients={f: 7.0}'
  agree "$WORK/c-param-cpu.h5" "$WORK/c-param.h5" "changed parameters, from the cache"
  $PY - "$WORK/ku-cube-$p-gpu.h5" "$WORK/c-param.h5" <<'EOF' || fail "the parameters did not reach the kernels"
import sys, h5py, numpy as np
a, b = h5py.File(sys.argv[1]), h5py.File(sys.argv[2])
assert not np.allclose(a["matrix/data"][:], b["matrix/data"][:]) and not np.allclose(a["rhs"][:], b["rhs"][:])
EOF
  echo "  $p: changed parameters and constant: no compile, other numbers"
  run_json --set 'physics.f1=["(k0 + beta*u^3)*u_x", "(k0 + beta*u^2)*u_y", "(k0 + beta*u^2)*u_z"]'
  [ "$(jit "$WORK/c.json" compiled)" = 1 ] || fail "a changed expression did not compile: $(cat "$WORK/c.json")"
  echo "  $p: changed expression: compiled again"
  # the cache off for one run (--no-cache, the case key backend.cache: false):
  # the warm cache holds this case's code, yet the run compiles, and no file
  # in the cache is written or replaced (ls -i: a store renames a new inode in)
  run_json
  [ "$(jit "$WORK/c.json" cache_hit)" = 1 ] || fail "the cache is not warm: $(cat "$WORK/c.json")"
  ls -i "$FEINT_CACHE_DIR" > "$WORK/cache-before"
  for off in --no-cache backend.cache=false; do
    if [ $off = --no-cache ]; then run_json --no-cache; else run_json --set $off; fi
    [ "$(jit "$WORK/c.json" compiled)" = 1 ] && [ "$(jit "$WORK/c.json" cache_hit)" = 0 ] ||
      fail "$off on a warm cache did not compile: $(cat "$WORK/c.json")"
    ls -i "$FEINT_CACHE_DIR" | cmp -s - "$WORK/cache-before" ||
      fail "$off wrote into the cache: $(ls -i "$FEINT_CACHE_DIR")"
    echo "  $p: $off: compiled in $(jit "$WORK/c.json" compile_ms) ms, the cache untouched"
  done

  # a sweep over a parameter: one compile (cached now), the backend taken over
  cat "$c" > "$WORK/sweep.yaml"
  printf 'sweep:\n  product: {physics.parameters: [{k0: 1.0, beta: 2.0}, {k0: 2.0, beta: 1.0}]}\n  output: "%s/sw-{index}.h5"\n' \
    "$WORK" >> "$WORK/sweep.yaml"
  if "$FEINT" run --quiet --json "$WORK/sweep.yaml" -o "$WORK/unused.h5" --backend cuda > "$WORK/sweep.json" 2> "$WORK/sweep.err"; then
    $PY -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["backend_reused"] == 1 and d["jit"]["compiled"] + d["jit"]["cache_hit"] == 1, d' \
      "$WORK/sweep.json" || fail "the sweep: $(cat "$WORK/sweep.json")"
    echo "  $p: a sweep over a parameter: one backend, taken over by the second member"
  else
    cat "$WORK/sweep.err" >&2
    fail "the sweep over a parameter"
  fi
  # a corrupt cache entry is ignored, compiled again and replaced
  run_json
  for f in "$FEINT_CACHE_DIR"/*.bin; do printf 'feint test: not a CUBIN' | dd of="$f" bs=1 seek=200 conv=notrunc 2> /dev/null; done
  run_json
  [ "$(jit "$WORK/c.json" compiled)" = 1 ] || fail "a corrupt cache entry was used: $(cat "$WORK/c.json")"
  run_json
  [ "$(jit "$WORK/c.json" cache_hit)" = 1 ] || fail "the corrupt entry was not replaced: $(cat "$WORK/c.json")"
  echo "  $p: a corrupt cache entry: compiled again and replaced"
done
# a cache that cannot be written: the run compiles, succeeds and warns once
touch "$WORK/not-a-dir"
FEINT_CACHE_DIR="$WORK/not-a-dir/cache" "$FEINT" run "$WORK/ku-cube-p1.yaml" -o "$WORK/ro.h5" --backend cuda \
  > "$WORK/ro.out" 2>&1 || { cat "$WORK/ro.out"; fail "an unwritable cache failed the run"; }
[ "$(grep -c "warning: the cache of compiled code is not written" "$WORK/ro.out")" = 1 ] ||
  fail "an unwritable cache: $(cat "$WORK/ro.out")"
echo "  an unwritable cache: one warning, the run done"
# single precision in the P1 templates (float storage): the cpu's numbers to 1e-5
c="$WORK/ku-cube-p1.yaml"
"$FEINT" run --quiet --json "$c" -o "$WORK/single.h5" --backend cuda --set backend.precision=single > "$WORK/single.json"
[ "$(family "$WORK/single.json")" = p1-block ] || fail "single precision: family $(family "$WORK/single.json")"
$PY "$ROOT/tests/gpu/agree.py" --tol=1e-5 --nonzero --ref=cpu "$WORK/ku-cube-p1-cpu.h5" "$WORK/single.h5" \
  "ku-cube-p1 single precision" both "${OUTS[@]}" || fail "single precision differs from the cpu"
c="$WORK/ku-cube-p2.yaml"

# no NVRTC: auto falls back to the cpu backend, saying why
FEINT_NVRTC_LIBRARY=/nonexistent/libnvrtc.so.13 "$FEINT" run "$c" -o "$WORK/auto.h5" > "$WORK/auto.out" 2>&1 ||
  { cat "$WORK/auto.out"; fail "auto without NVRTC"; }
grep -q "need NVRTC" "$WORK/auto.out" && grep -q "using the cpu backend" "$WORK/auto.out" ||
  fail "auto without NVRTC: $(cat "$WORK/auto.out")"
echo "ok: user forms on the GPU agree with the cpu backend; the cache of compiled code works"
