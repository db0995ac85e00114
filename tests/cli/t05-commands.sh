# The command line: --help, --version, info, check, run exit statuses.
source "$(dirname "$0")/lib.sh"
"$FEINT" --help | grep -q "feint run CASE.yaml" || fail "--help"
"$FEINT" --version | grep -Eq "^feint [0-9]+\.[0-9]+\.[0-9]+$" || fail "--version"
set +e; "$FEINT" > /dev/null 2>&1; rc=$?; set -e
[ $rc -eq 2 ] || fail "no arguments: exit $rc, expected 2"

# info: counts, groups, bounding box, volume, quality of a mesh we know
"$FEINT" info "$(geo cube.geo)" > "$WORK/info"
grep -Eq "dim 3 +tag [0-9]+ +domain" "$WORK/info" || fail "info: volume group"
grep -Eq "dim 2 +tag [0-9]+ +boundary" "$WORK/info" || fail "info: boundary group"
grep -Eq "^total volume 1(\.0*)?$|^total volume 0\.99999999999|^total volume 1\.00000000000" "$WORK/info" || fail "info: volume $(grep volume "$WORK/info")"
grep -q "bounding box \[0, 1\] x \[0, 1\] x \[0, 1\]" "$WORK/info" || fail "info: bounding box"
grep -Eq "worst cell quality 0\.[0-9]+" "$WORK/info" || fail "info: quality"
grep -Eq "Tetrahedron 4 +[0-9]+" "$WORK/info" || fail "info: element counts"
cat "$WORK/info"

# check validates and writes nothing
write_case c.yaml <<EOF
mesh: {file: $(geo square.geo), size: 0.2}
physics: {kind: poisson}
output: {file: should-not-exist.h5}
EOF
(cd "$WORK" && "$FEINT" check c.yaml) | grep -q "ok" || fail "check"
[ ! -e "$WORK/should-not-exist.h5" ] || fail "check wrote a file"
# run writes output.file next to the case when no -o is given
(cd /tmp && "$FEINT" run --quiet "$WORK/c.yaml") && [ -s "$WORK/should-not-exist.h5" ] || fail "run: output.file"

# bench: a table row for each compute phase with its fraction of the copy bandwidth
"$FEINT" bench "$WORK/c.yaml" --repeat 3 -o "$WORK/b.h5" > "$WORK/bench"
grep -q "copy bandwidth measured now" "$WORK/bench" || fail "bench: copy bandwidth"
# ... and GF/s of the flop model (feint(1), bench): a positive number after the %
grep -Eq "^assembly +[0-9.]+ +- +- +- +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+% +([0-9]*[1-9][0-9]*\.[0-9]+|[0-9]*\.[0-9]*[1-9][0-9]*)$" "$WORK/bench" \
  || fail "bench: assembly row: $(cat "$WORK/bench")"
echo bench ok
# backend choice said on stderr: auto without a GPU falls back to the cpu,
# the cpu backend says it ignores --device; an empty --device is refused
if ! nvidia-smi -L > /dev/null 2>&1; then
  "$FEINT" run "$WORK/c.yaml" -o "$WORK/a.h5" --backend auto 2> "$WORK/note" > /dev/null
  grep -q "backend auto: no GPU found; using the cpu backend" "$WORK/note" || fail "auto note: $(cat "$WORK/note")"
fi
"$FEINT" run "$WORK/c.yaml" -o "$WORK/a.h5" --backend cpu --device 3 2> "$WORK/note" > /dev/null
grep -q -- "--device 3 is a CUDA device; the cpu backend ignores it" "$WORK/note" || fail "cpu --device note: $(cat "$WORK/note")"
expect_bad "empty --device" "--device : expected a device number" run "$WORK/c.yaml" -o "$WORK/out.h5" --device ""
# make install puts the binary and the man page under PREFIX; install-files
# copies the binary under test ($FEINT's folder) without building anything
# (make install would rebuild build/, with CUDA where nvcc is found)
make -s -C "$ROOT" install-files BUILD="$(dirname "$FEINT")" PREFIX="$WORK/inst" > /dev/null
[ -x "$WORK/inst/bin/feint" ] && [ -f "$WORK/inst/share/man/man1/feint.1" ] || fail "make install"
"$WORK/inst/bin/feint" --version > /dev/null || fail "installed binary"
echo install ok
# --json: one object a script can parse, with the sizes and norms of the run
"$FEINT" run "$WORK/c.yaml" -o "$WORK/j.h5" --json 2>/dev/null > "$WORK/j.json"
$PY - "$WORK/j.json" "$WORK/j.h5" <<'EOF'
import json, sys, h5py, numpy as np
s = json.load(open(sys.argv[1])); f = h5py.File(sys.argv[2])
assert s["output"] == sys.argv[2] and s["dofs"] == f.attrs["n_dofs"], s
assert abs(s["norms"]["rhs"] - np.linalg.norm(f["rhs"][:])) <= 1e-12 * max(1, s["norms"]["rhs"])
assert s["nonzeros"] == len(f["matrix/data"]) and s["seconds"]["assembly"] > 0
assert s["colors"] == 0 and "colors" not in f.attrs, "no colouring on the cpu backend"
print("json ok")
EOF
# every command's --help prints its usage and exits 0
for c in run check bench info; do
  "$FEINT" $c --help > "$WORK/help" || fail "$c --help: exit $?"
  grep -q "^usage: feint $c " "$WORK/help" || fail "$c --help: $(cat "$WORK/help")"
done
"$FEINT" run "$WORK/c.yaml" -h | grep -q -- "--output FILE" || fail "run -h"
# one output file: a second -o is refused
expect_bad "-o twice" "^feint: error: -o b.h5: the output is already a.h5; give -o once" \
  run "$WORK/c.yaml" -o a.h5 -o b.h5
# the timing table gives cells per second where the phase goes over the cells
"$FEINT" run "$WORK/c.yaml" -o "$WORK/t.h5" 2> /dev/null > "$WORK/table"
grep -Eq "^  assembly +[0-9.]+ s +[0-9.]+ Mcells/s$" "$WORK/table" || fail "table: assembly: $(cat "$WORK/table")"
for p in case setup write; do
  grep -Eq "^  $p +[0-9.]+ s$" "$WORK/table" || fail "table: $p without Mcells/s: $(cat "$WORK/table")"
done
# on a terminal the progress bar ends full on a line of its own, and a note
# (the backend's, a warning) takes a line of its own, not the bar's
if command -v script > /dev/null; then
  script -qec "'$FEINT' run '$WORK/c.yaml' -o '$WORK/p.h5' --backend cpu --device 3 --set physics.E=1" /dev/null \
    > "$WORK/tty" < /dev/null
  $PY - "$WORK/tty" <<'EOF'
import sys
raw = open(sys.argv[1], 'rb').read().decode()
# what the terminal shows: each line's text after its last carriage return
shown = [l.split('\r')[-1].replace('\x1b[K', '') for l in raw.replace('\r\n', '\n').split('\n')]
assert "[" + "#" * 30 + "] 100% done" in shown, shown
assert any(l.startswith("feint: --device 3 is a CUDA device") for l in shown), shown
assert any(l.startswith("feint: warning: --set physics.E=1: key 'E'") for l in shown), shown
assert shown.index("[" + "#" * 30 + "] 100% done") < [i for i, l in enumerate(shown) if l.startswith("wrote ")][0]
print("progress bar ok")
EOF
fi
