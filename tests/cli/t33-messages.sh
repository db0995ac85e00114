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
