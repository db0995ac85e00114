# The fuzz harnesses' inputs (issue 22), replayed with the normal build: the
# seed corpora and the regression inputs (tests/fuzz/regress/<harness>: each
# crash a fuzzer found, after its fix) go through the harnesses' own checks
# (tests/fuzz/replay.c: a failure aborts), and every case regression input
# through `feint check` (its leading "--set k=v" lines as options), which
# must exit 0 or 2, never by a signal. The .msh regressions go through
# feint in t32-msh-malformed.sh.
source "$(dirname "$0")/lib.sh"
REPLAY="${BUILD:-$(dirname "$FEINT")}/tests/fuzz"
for h in case expr msh; do
  for dir in "$ROOT/tests/fuzz/corpus/$h" "$ROOT/tests/fuzz/regress/$h"; do
    [ -d "$dir" ] || continue
    set +e
    timeout 60 "$REPLAY/replay_$h" "$dir" > "$WORK/stdout" 2> "$WORK/stderr"
    rc=$?
    set -e
    [ $rc -eq 0 ] || fail "replay_$h $dir: exit status $rc: $(tail -c 600 "$WORK/stderr")"
    echo "ok $h: $(cat "$WORK/stdout") from ${dir#"$ROOT"/}"
  done
done
n=0
for f in "$ROOT"/tests/fuzz/regress/case/*; do
  [ -f "$f" ] || continue
  sets=()
  while IFS= read -r line; do
    case $line in "--set "*) sets+=(--set "${line#--set }") ;; *) break ;; esac
  done < "$f"
  tail -n +$((${#sets[@]} + 1)) "$f" > "$WORK/case.yaml"
  set +e
  timeout 20 "$FEINT" check "$WORK/case.yaml" "${sets[@]}" > /dev/null 2> "$WORK/stderr"
  rc=$?
  set -e
  [ $rc -eq 0 ] || [ $rc -eq 2 ] || fail "feint check $f: exit status $rc (signal or hang): $(head -c 300 "$WORK/stderr")"
  n=$((n + 1))
done
echo "ok feint check on $n case regressions"
