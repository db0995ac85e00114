# libgmsh contained (src/mesh/gmsh_child.c): a .geo is meshed in a child
# process. A .geo is a program, so its commands run (what the user asked
# for), but only a .geo: a .msh or another file never reaches Gmsh, refined
# or not. Gmsh's crash, a memory limit (FEINT_MEMORY_LIMIT), a time limit
# (FEINT_GMSH_TIMEOUT) and SIGINT/SIGTERM/SIGHUP of feint end the child and
# whatever the .geo started, with one clear message and the documented exit
# status (2 a crash, 1 a limit), no output file, no core file, no temporary
# file; the .geo's output never reaches feint's stdout, its stderr does,
# named; `feint info` takes the same path.
source "$(dirname "$0")/lib.sh"
export TMPDIR="$WORK/tmp"
mkdir -p "$TMPDIR"
cd "$WORK"
no_litter() { # name: nothing in TMPDIR, no core file in the working folder
  [ -z "$(ls -A "$TMPDIR")" ] || fail "$1: left in TMPDIR: $(ls -A "$TMPDIR")"
  ! ls "$WORK"/core* >/dev/null 2>&1 || fail "$1: core file left"
}
expect_fail() { # name, exit status, message regex, feint args...
  local name=$1 want_rc=$2 want=$3; shift 3
  rm -f "$WORK/out.h5"
  set +e
  "$FEINT" "$@" > "$WORK/stdout" 2> "$WORK/stderr"
  local rc=$?
  set -e
  [ $rc -eq "$want_rc" ] || fail "$name: exit status $rc, expected $want_rc ($(cat "$WORK/stderr"))"
  grep -Eq -- "$want" "$WORK/stderr" || fail "$name: message '$(cat "$WORK/stderr")' lacks /$want/"
  [ ! -e "$WORK/out.h5" ] || fail "$name: output file left behind"
  no_litter "$name"
  echo "ok $name: $(tail -1 "$WORK/stderr")"
}
SQUARE='Point(1) = {0, 0, 0, 0.1}; Point(2) = {1, 0, 0, 0.1}; Point(3) = {1, 1, 0, 0.1}; Point(4) = {0, 1, 0, 0.1};
Line(1) = {1, 2}; Line(2) = {2, 3}; Line(3) = {3, 4}; Line(4) = {4, 1};
Curve Loop(1) = {1, 2, 3, 4}; Plane Surface(1) = {1};'
write_case p.yaml <<EOF
mesh: {file: $WORK/prog.geo}
physics: {kind: mass}
EOF

# a .geo is a program: its commands run; their stdout goes nowhere (not
# into --json), their stderr to feint's, named; Printf is Gmsh's chatter
printf 'System "touch %s/ran; echo noise; echo from-the-geo >&2";\nPrintf("chatter");\n%s\n' "$WORK" "$SQUARE" > prog.geo
"$FEINT" run --quiet --json p.yaml -o out.h5 > stdout 2> stderr
[ -e ran ] || fail "the .geo's System command did not run"
$PY -c "import json, sys; json.load(open('stdout'))" || fail "the .geo's output reached stdout: $(head -3 stdout)"
grep -qx "$WORK/prog.geo: from-the-geo" stderr || fail "the .geo's stderr not passed on, named: $(cat stderr)"
! grep -q "noise\|chatter" stderr || fail "the .geo's stdout or Gmsh's chatter on stderr: $(cat stderr)"
no_litter "a .geo's commands"
echo "ok a .geo's commands run; stdout clean, stderr named"

# only a .geo runs: a script in a .msh, or in a file of another name, is
# never given to Gmsh, refined or not
printf 'System "touch %s/pwned";\n%s\n' "$WORK" "$SQUARE" > script.msh
cp script.msh script.txt
expect_fail "a .msh holding a script" 2 "not a Gmsh mesh" run p.yaml -o out.h5 --set mesh.file="$WORK/script.msh"
expect_fail "a .msh holding a script, refined" 2 "not a Gmsh mesh" run p.yaml -o out.h5 \
  --set mesh.file="$WORK/script.msh" --set mesh.refine=1
expect_fail "a .txt holding a script" 2 "neither a Gmsh mesh" info "$WORK/script.txt"
[ ! -e pwned ] || fail "a script not in a .geo was run"

# Gmsh crashes (on a .msh the .geo merges: a node tag of 999999999999999
# sends libgmsh 4.8 to SIGSEGV): exit 2, in feint run and feint info
printf '$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Entities\n0 0 0 1\n1 0 0 0 1 1 1 0 0\n$EndEntities\n$Nodes\n1 5 1 5\n3 1 0 5\n1\n2\n3\n4\n5\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n1 1 1\n$EndNodes\n$Elements\n1 2 1 2\n3 1 4 2\n1 1 2 3 4\n2 2 3 4 999999999999999\n$EndElements\n' > crash.msh
printf 'Merge "crash.msh";\n' > crash.geo
ulimit -c unlimited 2>/dev/null || true
# under AddressSanitizer (make test-asan) its handler would catch the
# child's SIGSEGV and exit 1: let the signal through, as in a plain build
asan=${ASAN_OPTIONS:-}
if [ -n "$asan" ]; then export ASAN_OPTIONS=$asan:handle_segv=0; fi
expect_fail "Gmsh killed by SIGSEGV" 2 "crash.geo: Gmsh failed to mesh this \.geo \(it was killed by SIGSEGV\)" \
  run p.yaml -o out.h5 --set mesh.file="$WORK/crash.geo"
expect_fail "Gmsh killed by SIGSEGV (feint info)" 2 \
  "^feint: error: $WORK/crash.geo: Gmsh failed to mesh this \.geo \(it was killed by SIGSEGV\)" info "$WORK/crash.geo"
if [ -n "$asan" ]; then export ASAN_OPTIONS=$asan; fi
printf 'Point(1) = {0, 0, 0};\nExit;\n' > exit.geo
expect_fail "a .geo that exits" 2 "exit.geo: Gmsh failed to mesh this \.geo \(it exited with status 0 before it was done\)" \
  info "$WORK/exit.geo"

# the memory limit covers meshing and refinement: out of memory, exit 1,
# the limit named (the square refined 8 times is 16M triangles). Not under
# AddressSanitizer (make test-asan): its allocator would end the child itself
# when an allocation fails, before operator new's handler can tell why.
if sanitized; then
  echo "skip the memory limit under AddressSanitizer"
else
  FEINT_MEMORY_LIMIT=1e8 expect_fail "refinement over the memory limit" 1 \
    "square.geo: Gmsh failed to mesh this \.geo: out of memory \(it may take 100 MB beyond libgmsh itself: FEINT_MEMORY_LIMIT\)" \
    run p.yaml -o out.h5 --set mesh.file="$(geo square.geo)" --set mesh.refine=8
  FEINT_MEMORY_LIMIT=1e8 "$FEINT" run --quiet p.yaml -o out.h5 --set mesh.file="$(geo square.geo)" --set mesh.refine=2 \
    || fail "a small refinement under the memory limit failed"
  echo "ok a small refinement under the memory limit runs"
fi

# the time limit: real meshing (a tiny size), and a .geo whose command
# hangs: exit 1 at the limit, nothing it started left running
t0=$(date +%s.%N)
FEINT_GMSH_TIMEOUT=1 expect_fail "meshing over the time limit" 1 \
  "square.geo: Gmsh failed to mesh this \.geo \(it took longer than 1 s; FEINT_GMSH_TIMEOUT sets the limit\)" \
  run p.yaml -o out.h5 --set mesh.file="$(geo square.geo)" --set mesh.size=0.0003
printf 'System "sleep 31.25";\n%s\n' "$SQUARE" > slow.geo
FEINT_GMSH_TIMEOUT=0.5 expect_fail "a hanging .geo over the time limit" 1 \
  "slow.geo: Gmsh failed to mesh this \.geo \(it took longer than 0.5 s" info "$WORK/slow.geo"
elapsed=$($PY -c "import time; print(time.time() - $t0)")
$PY -c "import sys; sys.exit(not $elapsed < 10)" || fail "the time limits took $elapsed s"
! pgrep -f "sleep 31.25" >/dev/null || fail "the .geo's command outlived the time limit"
FEINT_GMSH_TIMEOUT=soon expect_fail "an unreadable time limit" 2 \
  "FEINT_GMSH_TIMEOUT=soon: expected a number of seconds \(0: no limit\)" info "$WORK/slow.geo"

# SIGINT, SIGTERM, SIGHUP of feint while Gmsh runs: feint dies of the
# signal at once, the child and the .geo's command with it. feint starts
# with the signals' default actions, as from a terminal (a suite run under
# nohup would hand it SIGHUP ignored, which feint rightly keeps ignored)
$PY - "$FEINT" "$WORK/slow.geo" <<'EOF'
import signal, subprocess, sys, time
def default_actions():
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, signal.SIG_DFL)
for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    t = time.time()
    p = subprocess.Popen([sys.argv[1], "info", sys.argv[2]], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         preexec_fn=default_actions)
    time.sleep(0.5)
    p.send_signal(sig)
    p.communicate(timeout=20)
    assert p.returncode == -sig, f"{sig!r}: exit {p.returncode}"
    assert time.time() - t < 10, f"{sig!r}: took {time.time() - t:.1f} s"
    for _ in range(50):  # the kernel reaps the killed group
        if subprocess.run(["pgrep", "-f", "sleep 31.25"], capture_output=True).returncode: break
        time.sleep(0.1)
    else:
        raise SystemExit(f"{sig!r}: the .geo's command outlived feint")
    print(f"ok {signal.Signals(sig).name} ends the meshing")
EOF
no_litter "signals"
echo ok
