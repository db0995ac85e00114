# The output target: bad targets refused before anything is computed (no
# file, exit 2), symbolic links written through, no temporary file before
# the first write, none left by SIGINT / SIGTERM.
source "$(dirname "$0")/lib.sh"
write_case c.yaml <<EOF
mesh: {file: $(geo cube.geo), size: 0.08}
physics: {kind: poisson, kappa: "1 + x", source: "x*y"}
state: {u: "x*y*z"}
EOF
expect_bad "empty name" "output file name is empty" run "$WORK/c.yaml" -o ""
mkdir -p "$WORK/dir"
expect_bad "directory" "it is a directory" run "$WORK/c.yaml" -o "$WORK/dir"
expect_bad "device" "not a regular file" run "$WORK/c.yaml" -o /dev/null
[ -c /dev/null ] || fail "/dev/null is no longer a device"
mkfifo "$WORK/fifo"
expect_bad "fifo" "not a regular file" run "$WORK/c.yaml" -o "$WORK/fifo"
ln -s "$WORK/nowhere/x.h5" "$WORK/dangling.h5"
expect_bad "link into a missing directory" "No such file or directory" run "$WORK/c.yaml" -o "$WORK/dangling.h5"
# a directory the user cannot write to: root writes anywhere, so as root
# feint runs as nobody (setpriv), with the case and the build readable
chmod 500 "$WORK/dir"
if [ "$(id -u)" -ne 0 ]; then
  expect_bad "read-only directory" "Permission denied" run "$WORK/c.yaml" -o "$WORK/dir/x.h5"
elif command -v setpriv > /dev/null && setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$FEINT" &&
     setpriv --reuid=65534 --regid=65534 --clear-groups test -r "$(geo cube.geo)"; then
  chmod 755 "$WORK"
  chmod 644 "$WORK/c.yaml"
  printf '#!/bin/sh\nexec setpriv --reuid=65534 --regid=65534 --clear-groups "%s" "$@"\n' "$FEINT" > "$WORK/as-nobody"
  chmod 755 "$WORK/as-nobody"
  real=$FEINT FEINT=$WORK/as-nobody
  expect_bad "read-only directory (as nobody)" "Permission denied" run "$WORK/c.yaml" -o "$WORK/dir/x.h5"
  FEINT=$real
  [ -z "$(ls -A "$WORK/dir")" ] || fail "something was written into the read-only directory"
  chmod 700 "$WORK"
else
  echo "SKIP read-only directory: running as root without setpriv, or nobody cannot read $FEINT or cases/"
fi
chmod 700 "$WORK/dir"
# a symbolic link is written through: the link stays, its target is the
# file (made, then replaced)
mkdir -p "$WORK/real"
ln -s "real/new.h5" "$WORK/rel.h5"
"$FEINT" run --quiet "$WORK/c.yaml" -o "$WORK/rel.h5"
[ -L "$WORK/rel.h5" ] && [ -f "$WORK/real/new.h5" ] || fail "a relative link to a new file was not written through"
ln -s "$WORK/real/target.h5" "$WORK/link.h5"
"$FEINT" run --quiet "$WORK/c.yaml" -o "$WORK/link.h5"
[ -L "$WORK/link.h5" ] && [ -f "$WORK/real/target.h5" ] || fail "the link was not written through"
"$FEINT" run --quiet "$WORK/c.yaml" -o "$WORK/link.h5" --set physics.kappa=2
[ -L "$WORK/link.h5" ] || fail "rewriting through the link replaced the link"
h5ls "$WORK/link.h5/residual" > /dev/null || fail "no residual through the link"
ls "$WORK"/real/*.tmp-* "$WORK"/*.tmp-* > /dev/null 2>&1 && fail "temporary file left after a run"
# a run that is interrupted leaves no file and no temporary file, at any moment
for sig in INT TERM; do
  for delay in 0.05 0.3 0.6 1.0; do
    rm -f "$WORK/sig.h5" "$WORK"/sig.h5.tmp-*
    "$FEINT" run --quiet "$WORK/c.yaml" -o "$WORK/sig.h5" --set mesh.refine=1 & pid=$!
    sleep $delay
    kill -$sig $pid 2>/dev/null || true
    wait $pid 2>/dev/null || true
    ! ls "$WORK"/sig.h5.tmp-* > /dev/null 2>&1 || fail "SIG$sig after $delay s left a temporary file"
  done
done
echo "ok: bad targets refused, links written through, nothing left behind by signals"
