# Every example case in cases/ is valid and runs.
source "$(dirname "$0")/lib.sh"
for c in "$ROOT"/cases/*.yaml; do
  "$FEINT" check "$c" > /dev/null || fail "check $c"
  "$FEINT" run --quiet "$c" -o "$WORK/out.h5" || fail "run $c"
  echo "ok $(basename "$c")"
done
"$FEINT" run --quiet "$ROOT/cases/advection-diffusion.yaml" -o "$WORK/out.h5" --set physics.kind=diffusion || fail "diffusion variant"
