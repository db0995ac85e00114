# Bad input: each case exits 2 with a message naming what is wrong (and the
# file:line where there is one), and leaves no output file.
source "$(dirname "$0")/lib.sh"
good="physics: {kind: poisson}"
square=$(geo square.geo)

printf 'mesh: {file: %s}\n%s\n' "$WORK/nope.msh" "$good" > "$WORK/a.yaml"
expect_bad "missing mesh" "nope.msh.*(No such file|cannot be read)" run "$WORK/a.yaml" -o "$WORK/out.h5"

printf 'this is not a mesh\n' > "$WORK/garbage.msh"
printf 'mesh: {file: %s}\n%s\n' "$WORK/garbage.msh" "$good" > "$WORK/a.yaml"
expect_bad "unreadable mesh" "garbage.msh" run "$WORK/a.yaml" -o "$WORK/out.h5"

printf 'mesh:\n  file: %s\nphysics: {kind: poisson\n' "$square" > "$WORK/a.yaml"
expect_bad "malformed YAML" "a.yaml:[0-9]+:[0-9]+: malformed YAML" run "$WORK/a.yaml" -o "$WORK/out.h5"

printf 'mesh:\n  file: %s\nphysics:\n  kind: poisson\n  kapa: 2\n' "$square" > "$WORK/a.yaml"
expect_bad "unknown physics key" "a.yaml:5:3: .*'kapa'.*did you mean 'kappa'" run "$WORK/a.yaml" -o "$WORK/out.h5"
printf 'mesh:\n  file: %s\nphysics:\n  kind: poisson\nspace:\n  ordr: 2\n' "$square" > "$WORK/a.yaml"
expect_bad "unknown key" "a.yaml:6:3: .*'ordr'.*did you mean 'order'" run "$WORK/a.yaml" -o "$WORK/out.h5"
printf 'mesh:\n  file: %s\nphysics:\n  kind: poisson\n' "$square" > "$WORK/ok.yaml"
expect_bad "unknown key in --set" "--set spce.order=2.*did you mean 'space'" run "$WORK/ok.yaml" -o "$WORK/out.h5" --set spce.order=2

printf 'mesh:\n  file: %s\nphysics:\n  kind: poisson\nspace:\n  order: [1]\n' "$square" > "$WORK/a.yaml"
expect_bad "wrong type" "a.yaml:6:10: .*order" run "$WORK/a.yaml" -o "$WORK/out.h5"

printf 'physics:\n  kind: poisson\n' > "$WORK/a.yaml"
expect_bad "missing mesh.file" "missing required key mesh.file" run "$WORK/a.yaml" -o "$WORK/out.h5"

printf 'mesh:\n  file: %s\n  region: [inside]\nphysics:\n  kind: poisson\n' "$square" > "$WORK/a.yaml"
expect_bad "unknown physical group" "unknown physical group 'inside'.*domain" run "$WORK/a.yaml" -o "$WORK/out.h5"

printf 'mesh:\n  file: %s\n  region: [left]\nphysics:\n  kind: poisson\n' "$square" > "$WORK/a.yaml"
expect_bad "region of the wrong dimension" "left" run "$WORK/a.yaml" -o "$WORK/out.h5"

gmsh -2 -order 2 "$square" -o "$WORK/p2.msh" > /dev/null
printf 'mesh:\n  file: %s\nphysics:\n  kind: poisson\n' "$WORK/p2.msh" > "$WORK/a.yaml"
expect_bad "unsupported element type" "6-node triangle" run "$WORK/a.yaml" -o "$WORK/out.h5"

cat > "$WORK/empty.geo" <<EOF
Point(1) = {0, 0, 0, 0.5}; Point(2) = {1, 0, 0, 0.5}; Point(3) = {0, 1, 0, 0.5};
Line(1) = {1, 2}; Line(2) = {2, 3}; Line(3) = {3, 1};
Curve Loop(1) = {1, 2, 3}; Plane Surface(1) = {1};
Physical Surface("domain") = {1};
Physical Surface("nothing") = {};
EOF
printf 'mesh:\n  file: %s\n  region: [nothing]\nphysics:\n  kind: poisson\n' "$WORK/empty.geo" > "$WORK/a.yaml"
# Gmsh drops physical groups without elements, so an empty one is unknown
expect_bad "empty region" "nothing" run "$WORK/a.yaml" -o "$WORK/out.h5"

expect_bad "unwritable output" "cannot write output file" run "$WORK/ok.yaml" -o "$WORK/no/such/dir/out.h5"
expect_bad "unknown physics" "physics.kind" run "$WORK/ok.yaml" -o "$WORK/out.h5" --set physics.kind=poison
expect_bad "bad expression" "in expression.*character" run "$WORK/ok.yaml" -o "$WORK/out.h5" --set 'physics.source="sin(x"'
expect_bad "unknown option" "unknown option" run "$WORK/ok.yaml" --frobnicate
expect_bad "missing case file" "missing the case file" run
expect_bad "case file not found" "nocase.yaml" run "$WORK/nocase.yaml" -o "$WORK/out.h5"
expect_bad "unknown command" "unknown command" frobnicate

# and a good run does write the file
"$FEINT" run --quiet "$WORK/ok.yaml" -o "$WORK/out.h5" && [ -s "$WORK/out.h5" ] || fail "good run"
