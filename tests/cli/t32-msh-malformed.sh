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
# Large files, whose parsed text the reader gives back while it reads (in
# pieces of 8 MiB): a message still names the fault's line (text) or byte
# (binary data), both found here by Python in the file itself.
"${BUILD:-$ROOT/build}/bench/gen-cube-msh" 50 "$WORK/big.bin.msh" > /dev/null
gmsh "$WORK/big.bin.msh" -save -format msh41 -o "$WORK/big.msh" > /dev/null 2>&1 || fail "gmsh could not convert the large mesh"
"$PY" - "$WORK" <<'EOF' > "$WORK/where.txt"
import sys
work = sys.argv[1]
# text: the last element's second node tag made a letter
d = open(f"{work}/big.msh", "rb").read()
end = d.rfind(b"$EndElements")
start = d.rfind(b"\n", 0, end - 1) + 1
fields = d[start:end - 1].split(b" ")
fields[2] = b"x"
open(f"{work}/big-bad.msh", "wb").write(d[:start] + b" ".join(fields) + d[end - 1:])
print(d[:start].count(b"\n") + 1)
# text: the word after the elements misspelt (past the parsed text given back)
open(f"{work}/big-end.msh", "wb").write(d[:end] + b"$EndElementz" + d[end + 12:])
print(d[:end].count(b"\n") + 1)
# binary: the word after the element data misspelt
b = open(f"{work}/big.bin.msh", "rb").read()
k = b.rfind(b"$EndElements")
open(f"{work}/big-bad.bin.msh", "wb").write(b[:k] + b"$EndElementz" + b[k + 12:])
print(k)
EOF
line=$(sed -n 1p "$WORK/where.txt")
end_line=$(sed -n 2p "$WORK/where.txt")
byte=$(sed -n 3p "$WORK/where.txt")
"$FEINT" info "$WORK/big.msh" > /dev/null || fail "the large text mesh does not read"
"$FEINT" info "$WORK/big.bin.msh" > /dev/null || fail "the large binary mesh does not read"
for f in big-bad.msh big-end.msh big-bad.bin.msh; do
  set +e
  "$FEINT" info "$WORK/$f" > /dev/null 2> "$WORK/stderr"
  rc=$?
  set -e
  [ $rc -eq 2 ] || fail "$f: exit status $rc, expected 2"
  want="$WORK/big-bad.msh:$line: expected an element's node tag"
  [ $f = big-end.msh ] && want="$WORK/big-end.msh:$end_line: expected \"\$EndElements\""
  [ $f = big-bad.bin.msh ] && want="$WORK/big-bad.bin.msh: byte $byte: expected \"\$EndElements\""
  grep -qF -- "$want" "$WORK/stderr" || fail "$f: message '$(cat "$WORK/stderr")', expected '$want'"
done
echo "ok large files: the faults' lines $line and $end_line (text) and byte $byte (binary) named"
# a node tag given twice, far apart in a large binary file (the table is filled on every core, in ranges of 65536
# nodes): the first tag given again in file order is named, as one pass names it
"$BUILD/bench/gen-cube-msh" 50 "$WORK/dup.bin.msh" > /dev/null # 132651 nodes, one block, tags 1..132651
$PY - "$WORK/dup.bin.msh" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
tags = d.index(b"$Nodes\n") + 7 + 32 + 20  # the block's tags: past the section's 4 and the block's header
put = lambda i, v: struct.pack_into("<Q", d, tags + 8 * i, v)
put(130000, 4)  # node 4 again, later in the file
put(100000, 6)  # node 6 again: the first repeated tag in file order
open(sys.argv[1], "wb").write(d)
PY
expect_bad "node tags given twice, far apart" "mesh $WORK/dup.bin.msh: node 6 is defined twice" info "$WORK/dup.bin.msh"
