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

gmsh -2 -order 4 "$square" -o "$WORK/p4.msh" > /dev/null
printf 'mesh:\n  file: %s\nphysics:\n  kind: poisson\n' "$WORK/p4.msh" > "$WORK/a.yaml"
# curved cells of a geometry feint does not run (fourth order): run names the file, the type and what feint reads
expect_bad "curved cells" "a.yaml:2:9: mesh .*/p4.msh: the region holds 15-node triangle elements \(Gmsh type 23, \"Triangle 15\"\), of geometry order 4, which feint does not read yet; feint supports straight-sided \(first-order\) cells: 3-node triangles and 4-node quadrilaterals in 2D, 4-node tetrahedra, 8-node hexahedra and 6-node prisms in 3D \(Gmsh types 2 to 6\), and curved triangles and tetrahedra of order 2 and 3 \(6- and 10-node triangles, 10- and 20-node tetrahedra: Gmsh types 9, 21, 11, 29\)" \
  run "$WORK/a.yaml" -o "$WORK/out.h5"
# ... and info describes the meshes: counts, types, geometry order (second and third order: kept), groups
gmsh -2 -order 2 "$square" -o "$WORK/p2.msh" > /dev/null
gmsh -2 -order 3 "$square" -o "$WORK/p3.msh" > /dev/null
gmsh -3 -order 2 "$(geo cube.geo)" -o "$WORK/t10.msh" > /dev/null
"$FEINT" info "$WORK/p4.msh" > "$WORK/info" || fail "info p4.msh: exit $?"
grep -q "^geometry order 4 (curved cells, not supported by feint run yet" "$WORK/info" || fail "info p4: $(cat "$WORK/info")"
"$FEINT" info "$WORK/p3.msh" > "$WORK/info" || fail "info p3.msh: exit $?"
grep -q "^geometry order 3 (curved cells of 10 nodes: feint run integrates on their map" "$WORK/info" ||
  fail "info p3: $(cat "$WORK/info")"
for m in p2:6 t10:10; do
  "$FEINT" info "$WORK/${m%:*}.msh" > "$WORK/info" || fail "info $m.msh: exit $?"
  grep -q "^geometry order 2 (curved cells of ${m#*:} nodes: feint run integrates on their map" "$WORK/info" ||
    fail "info $m: $(cat "$WORK/info")"
done
grep -Eq "^dimension 3, [0-9]+ nodes, [0-9]+ cells \(tetrahedron\)" "$WORK/info" && grep -Eq "^  Tetrahedron 10 +[0-9]+$" "$WORK/info" &&
  grep -Eq "^  Triangle 6 +[0-9]+$" "$WORK/info" && grep -Eq "dim 2 +tag [0-9]+ +left +[0-9]+ elements" "$WORK/info" &&
  grep -Eq "^total volume (1|0\.99999999|1\.0000000)" "$WORK/info" || fail "info t10.msh: $(cat "$WORK/info")"
gmsh -3 -order 4 "$(geo cube.geo)" -o "$WORK/t35.msh" > /dev/null
printf 'mesh: {file: %s}\nphysics: {kind: poisson}\n' "$WORK/t35.msh" > "$WORK/a.yaml"
expect_bad "fourth-order tetrahedra" "mesh .*/t35.msh: the region holds 35-node tetrahedron elements \(Gmsh type 30, \"Tetrahedron 35\"\), of geometry order 4" \
  check "$WORK/a.yaml"
# a cell feint does not read at all
printf '$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 5 1 5\n3 1 0 5\n1\n2\n3\n4\n5\n0 0 0\n1 0 0\n1 1 0\n0 1 0\n0.5 0.5 1\n$EndNodes\n$Elements\n1 1 1 1\n3 1 7 1\n1 1 2 3 4 5\n$EndElements\n' > "$WORK/pyr.msh"
printf 'mesh: {file: %s}\nphysics: {kind: poisson}\n' "$WORK/pyr.msh" > "$WORK/a.yaml"
expect_bad "pyramid" "mesh .*/pyr.msh: the region holds 5-node pyramid elements \(Gmsh type 7, \"Pyramid 5\"\); feint supports straight-sided" \
  check "$WORK/a.yaml"

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

mkdir -p "$WORK/outdir"
expect_bad "output is a directory" "cannot write output file '.*outdir/': it is a directory" run "$WORK/ok.yaml" \
  -o "$WORK/outdir/"

# values that are not finite (inf, nan) where they are sampled: named with
# the expression (or dataset), the case line and the point
bad_value() { # name, expected message, case lines after the mesh
  local name=$1 want=$2; shift 2
  { printf 'mesh: {file: %s, size: 0.25}\n' "$square"; printf '%s\n' "$@"; } > "$WORK/v.yaml"
  expect_bad "$name" "$want" run "$WORK/v.yaml" -o "$WORK/out.h5"
}
bad_value "kappa 0/0" 'v.yaml:2:[0-9]+: kappa "x/0" is nan at \(0, 0, 0\): expected finite' \
  'physics: {kind: poisson, kappa: "x/0"}'
bad_value "constant kappa 1/0" 'v.yaml:2:[0-9]+: kappa "1/0" is inf: expected a finite value' \
  'physics: {kind: poisson, kappa: "1/0"}'
bad_value "source sqrt of a negative" 'v.yaml:2:[0-9]+: source "sqrt\(x - 0.5\)" is nan at' \
  'physics: {kind: poisson, source: "sqrt(x - 0.5)"}'
bad_value "state.u" 'v.yaml:3:[0-9]+: state.u "1/y" is inf at' 'physics: {kind: poisson}' 'state: {u: "1/y"}'
bad_value "dirichlet log" 'v.yaml:3:[0-9]+: boundary\[0\].dirichlet "log\(x - 1\)" is (nan|-inf) at' \
  'physics: {kind: poisson}' 'boundary: [{group: boundary, dirichlet: "log(x - 1)"}]'
bad_value "robin alpha" 'v.yaml:3:[0-9]+: boundary\[0\].robin.alpha "1/x" is inf at \(0, ' \
  'physics: {kind: poisson}' 'boundary: [{group: left, robin: {alpha: "1/x", value: 1}}]'
printf 'mesh: {file: %s}\nspace: {order: 2}\noperator: {kind: bp3.5}\nstate: {u: "log(x - 0.5)"}\n' "$(geo hexcube.geo)" \
  > "$WORK/v.yaml"
expect_bad "operator x" 'v.yaml:4:[0-9]+: state.u "log\(x - 0.5\)" is nan at' run "$WORK/v.yaml" -o "$WORK/out.h5"
printf 'mesh: {file: %s, size: 0.25}\nphysics: {kind: poisson}\n' "$square" > "$WORK/v.yaml"
"$FEINT" run --quiet --json "$WORK/v.yaml" -o "$WORK/cells.h5" > "$WORK/cells.json"
$PY -c "
import h5py, json, numpy as np
n = json.load(open('$WORK/cells.json'))['cells']
with h5py.File('$WORK/nan.h5', 'w') as f: f['k'] = np.array([1.0, np.nan] + [1.0] * (n - 2))"
bad_value "nan in a dataset" 'v.yaml:2:[0-9]+: kappa "/k" is nan on cell 1: expected finite' \
  "physics: {kind: poisson, kappa: {file: $WORK/nan.h5, dataset: /k, on: cell}}"

# and a good run does write the file
"$FEINT" run --quiet "$WORK/ok.yaml" -o "$WORK/out.h5" && [ -s "$WORK/out.h5" ] || fail "good run"
