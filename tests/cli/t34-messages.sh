# How input errors read: each names where (file:line, or the --set text),
# what is wrong and what was expected; a long message keeps its reason; no
# message holds half a UTF-8 character. Each exits 2 and writes nothing.
source "$(dirname "$0")/lib.sh"
square=$(geo square.geo)
write_case ok.yaml <<EOF
mesh: {file: $square, size: 0.25}
physics: {kind: poisson}
EOF
utf8() { # the last message is valid UTF-8
  $PY -c "import sys; open(sys.argv[1], 'rb').read().decode('utf-8')" "$WORK/stderr" ||
    fail "$1: the message is not valid UTF-8: $(od -c "$WORK/stderr" | tail -4)"
}

# a message longer than the 4 KB buffer keeps its start (the --set) and its reason
long=$(printf 'x+%.0s' $(seq 2500))
expect_bad "long value" '^feint: error: --set physics.source="x\+x\+.* bytes left out .*x\+y\+": expected a number.* before the end at character 5003$' \
  run "$WORK/ok.yaml" -o "$WORK/out.h5" --set "physics.source=\"${long}y+\""
[ "$(wc -c < "$WORK/stderr")" -le 4200 ] || fail "long value: $(wc -c < "$WORK/stderr") bytes"
key=$(printf 'k%.0s' $(seq 5000))
expect_bad "long key" "^feint: error: --set physics.kkk+: unknown key 'k{100}' in physics \(valid keys: kind, " \
  run "$WORK/ok.yaml" -o "$WORK/out.h5" --set "physics.$key=1"
expect_bad "long file name" "mesh file '/nonexistent/a+.* bytes left out .*a+\.msh' cannot be read: " \
  run "$WORK/ok.yaml" -o "$WORK/out.h5" --set "mesh.file=/nonexistent/$(printf 'a%.0s' $(seq 6000)).msh"

# values cut for a message are cut between characters
e=$(printf 'é%.0s' $(seq 40))
expect_bad "UTF-8 value cut" "got 'aé+\.\.\.'$" run "$WORK/ok.yaml" -o "$WORK/out.h5" --set "physics.kind=a$e"
utf8 "UTF-8 value cut"
expect_bad "UTF-8 long value" "bytes left out .*not 'é' at character 1$" \
  run "$WORK/ok.yaml" -o "$WORK/out.h5" --set "physics.source=$(printf 'é%.0s' $(seq 2500))+"
utf8 "UTF-8 long value"
expect_bad "UTF-8 character in an expression" "not 'é' at character 3$" \
  run "$WORK/ok.yaml" -o "$WORK/out.h5" --set "physics.source=x+é"
utf8 "UTF-8 character in an expression"
expect_bad "UTF-8 key" "unknown key 'a(é)+' in physics" run "$WORK/ok.yaml" -o "$WORK/out.h5" --set "physics.a$e$e=1"
utf8 "UTF-8 key"

# sweeps: an empty product or list says so, at its line; the member cap is named
printf 'mesh: {file: %s}\nphysics: {kind: poisson}\nsweep:\n  product: {}\n' "$square" > "$WORK/s.yaml"
expect_bad "empty sweep.product" "s.yaml:4:12: sweep.product is empty: give at least one key.path: \[values\]" \
  run "$WORK/s.yaml" -o "$WORK/out.h5"
expect_bad "empty sweep.list" "--set sweep.list=\[\]: sweep.list is empty" \
  run "$WORK/ok.yaml" -o "$WORK/out.h5" --set 'sweep.list=[]'
expect_bad "empty product values" "sweep.product: the list of values of physics.kappa is empty" \
  run "$WORK/ok.yaml" -o "$WORK/out.h5" --set 'sweep.product={physics.kappa: []}'
a=$(seq -s, 1 400); b=$(seq -s, 1 300)
expect_bad "sweep cap" "sweep.product: at least 120000 members, above the most a sweep may have \(100000\)" \
  check "$WORK/ok.yaml" --set "sweep.product={physics.kappa: [$a], physics.source: [$b]}"

# quadrature.degree: to 40 on triangles (and tetrahedra, prisms), to 47 on
# quadrilaterals (and hexahedra); one more is refused at its line
printf 'mesh: {file: %s, size: 0.5}\nphysics: {kind: poisson}\nquadrature: {degree: 41}\n' "$square" > "$WORK/q.yaml"
"$FEINT" check "$WORK/q.yaml" --set quadrature.degree=40 > /dev/null || fail "degree 40 on triangles"
expect_bad "degree 41 on triangles" "q.yaml:3:22: quadrature.degree 41 is beyond the rules on triangles: 0..40 \(0..47 on quadrilaterals" \
  check "$WORK/q.yaml"
"$FEINT" check "$WORK/q.yaml" --set quadrature.degree=47 --set mesh.file="$ROOT/tests/data/quad_square.geo" > /dev/null ||
  fail "degree 47 on quadrilaterals"
expect_bad "degree 48" "--set quadrature.degree=48: quadrature.degree: 48 is out of range 0..47" \
  check "$WORK/q.yaml" --set quadrature.degree=48 --set mesh.file="$ROOT/tests/data/quad_square.geo"

# space.order the cells lack: at the order's line
printf 'mesh: {file: %s, size: 0.5}\nphysics: {kind: poisson}\nspace:\n  order: 8\n' "$square" > "$WORK/o.yaml"
expect_bad "order 8 on triangles" "o.yaml:4:10: space.order 8 is not supported on triangles \(orders 1..7\)" \
  run "$WORK/o.yaml" -o "$WORK/out.h5"

# --set into a list: what is wrong with the path
printf 'mesh: {file: %s, size: 0.5}\nphysics: {kind: poisson}\nboundary:\n  - {group: left, dirichlet: 0}\n' "$square" > "$WORK/b.yaml"
expect_bad "index past the end" "--set boundary.5.neumann=1: index 5 is past the end of boundary \(a list of 1 entry, indices 0..0\); to add entries, set the whole list" \
  run "$WORK/b.yaml" -o "$WORK/out.h5" --set boundary.5.neumann=1
expect_bad "index into no list" "--set boundary.5.neumann=1: the case has no list boundary to index with 5; set the whole list instead \(boundary=\[...\]\)" \
  run "$WORK/ok.yaml" -o "$WORK/out.h5" --set boundary.5.neumann=1
expect_bad "key into a list" "--set boundary.left.neumann=1: boundary is a list of 1 entry: address an entry by its index \(0..0\), not 'left'" \
  run "$WORK/b.yaml" -o "$WORK/out.h5" --set boundary.left.neumann=1
"$FEINT" check "$WORK/b.yaml" --set boundary.0.neumann=1 > /dev/null || fail "boundary.0.neumann"

# an empty --set value is refused (an unset shell variable, most likely); null unsets
expect_bad "empty --set value" "--set physics.kappa=: empty value \(to unset the key, write physics.kappa=null\)" \
  run "$WORK/ok.yaml" -o "$WORK/out.h5" --set physics.kappa=
"$FEINT" check "$WORK/b.yaml" --set boundary=null > /dev/null || fail "--set boundary=null"

# keys the physics does not read: a warning with the key's place; the run succeeds
printf 'mesh: {file: %s, size: 0.5}\nphysics:\n  kind: poisson\n  E: 1\n' "$square" > "$WORK/w.yaml"
"$FEINT" run --quiet "$WORK/w.yaml" -o "$WORK/w.h5" --set physics.velocity=[1,0] 2> "$WORK/warn" || fail "unused key: run failed"
[ -s "$WORK/w.h5" ] || fail "unused key: no output"
grep -q "^feint: warning: $WORK/w.yaml:4:3: key 'E' is not used by physics 'poisson' (it reads kind, source, kappa)$" "$WORK/warn" ||
  fail "unused key: $(cat "$WORK/warn")"
grep -q "^feint: warning: --set physics.velocity=\[1,0\]: key 'velocity' is not used by physics 'poisson'" "$WORK/warn" ||
  fail "unused key from --set: $(cat "$WORK/warn")"
"$FEINT" check "$WORK/w.yaml" --set physics.kind=elasticity --set physics.nu=0.3 2> "$WORK/warn" > /dev/null
[ ! -s "$WORK/warn" ] || fail "elasticity reads E and nu: $(cat "$WORK/warn")"
echo "ok warnings"

# FEINT_DEBUG=1: the same messages, then a line naming the place in feint's
# sources where the error arose (a feint_error_set call; the innermost one
# where a message wraps another, also across the meshing child process);
# without it, no source location
debug_where() { # feint args...: prints the place FEINT_DEBUG=1 names
  ! "$FEINT" "$@" > /dev/null 2> "$WORK/plain" || fail "debug: $* succeeded"
  ! FEINT_DEBUG=1 "$FEINT" "$@" > /dev/null 2> "$WORK/debug" || fail "debug: $* succeeded"
  ! grep -Eq 'debug|\.(c|cu):[0-9]' "$WORK/plain" || fail "debug: a location without FEINT_DEBUG: $(cat "$WORK/plain")"
  grep -v '^feint: debug: ' "$WORK/debug" | cmp -s - "$WORK/plain" ||
    fail "debug: the messages differ under FEINT_DEBUG=1: $(cat "$WORK/debug")"
  local at
  at=$(sed -n 's/^feint: debug: the error arose at \(src\/[a-z0-9_/]*\.c\):\([0-9]*\)$/\1 \2/p' "$WORK/debug")
  [ -n "$at" ] || fail "debug: no location line: $(cat "$WORK/debug")"
  set -- $at
  sed -n "$2p" "$ROOT/$1" | grep -Eq 'feint_error_set|fail_at|fail_byte' || fail "debug: $1:$2 sets no error: $(sed -n "$2p" "$ROOT/$1")"
  echo "$1:$2"
}
source_line() { sed -n "${1#*:}p" "$ROOT/${1%%:*}"; }
where=$(debug_where run "$WORK/ok.yaml" -o "$WORK/out.h5" --set physics.kind=poison)
[[ $where == src/case/* ]] || fail "debug: a case error located in $where"
# a sweep member's error is wrapped in "sweep member N: ...": located inside
where=$(debug_where run "$WORK/ok.yaml" -o "$WORK/out.h5" --set 'sweep.list=[{physics.kappa: "x+"}]')
grep -q "sweep member" "$WORK/plain" || fail "debug: not a sweep member's error: $(cat "$WORK/plain")"
! source_line "$where" | grep -q "sweep member" || fail "debug: located at the wrap ($where), not where it arose"
printf 'Point(1) = {0, 0, 0;\n' > "$WORK/bad.geo"
where=$(debug_where check "$WORK/ok.yaml" --set mesh.file="$WORK/bad.geo")
[[ $where == src/mesh/* && $where != src/mesh/gmsh_child.c:* ]] || fail "debug: a .geo error located in $where (the parent's copy)"
echo "ok FEINT_DEBUG=1 names where errors arise"
