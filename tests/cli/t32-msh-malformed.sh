# Malformed .msh files (issue 22): each hand-made bad file makes
# `feint info FILE` exit 2 with a message naming the file (and the line or
# byte, and what was expected: the regex beside each case in msh_bad.py);
# a .msh holding a .geo script is not run; seeded random byte flips of small
# binary 4.1 and 2.2 meshes never crash (exit 0 or 2, no signal) nor hang;
# the regression files of the fuzzer (tests/fuzz/regress/msh) exit 0 or 2.
source "$(dirname "$0")/lib.sh"
"$PY" "$ROOT/tests/cli/msh_bad.py" "$WORK" "$ROOT/tests/data/msh" 300
n=0
while IFS=$'\t' read -r name want; do
  f="$WORK/$name.msh"
  set +e
  timeout 20 "$FEINT" info "$f" > "$WORK/stdout" 2> "$WORK/stderr"
  rc=$?
  set -e
  if [ "$want" = OK ]; then
    [ $rc -eq 0 ] || fail "$name: exit status $rc, expected 0 ($(cat "$WORK/stderr"))"
  else
    [ $rc -eq 2 ] || fail "$name: exit status $rc, expected 2 ($(cat "$WORK/stderr"))"
    grep -q -- "$name.msh" "$WORK/stderr" || fail "$name: message '$(cat "$WORK/stderr")' does not name the file"
    grep -Eq -- "$want" "$WORK/stderr" || fail "$name: message '$(cat "$WORK/stderr")' lacks /$want/"
  fi
  n=$((n + 1))
done < "$WORK/cases.txt"
[ ! -e "$WORK/pwned" ] || fail "a .msh holding a .geo script was run"
echo "ok $n hand-made files"
check_no_crash() { # file
  set +e
  timeout 20 "$FEINT" info "$1" > /dev/null 2> "$WORK/stderr"
  local rc=$?
  set -e
  [ $rc -eq 0 ] || [ $rc -eq 2 ] || fail "$1: exit status $rc (signal or hang): $(head -c 300 "$WORK/stderr")"
}
start=$SECONDS
while read -r name; do check_no_crash "$WORK/$name.msh"; done < "$WORK/mutants.txt"
echo "ok 300 mutants in $((SECONDS - start)) s"
for f in "$ROOT"/tests/fuzz/regress/msh/*; do [ -f "$f" ] && check_no_crash "$f"; done
echo "ok fuzz regressions"
