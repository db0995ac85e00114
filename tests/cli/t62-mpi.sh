# mpirun -n P feint run (issue 20, first slice): on 2 and 3 ranks (CPU
# backend, --oversubscribe) the file equals the one-rank file: the same
# datasets, integer ones (dof maps, pattern, Dirichlet dofs) equal, values
# within 1e-14 of each dataset's largest (the ranks' sums are added in
# another order; tests/cli/mpi_compare.py), for P1 and P2 tetrahedra,
# elasticity, Q3 hexahedra, P3 prisms, mixed meshes (3D and 2D), a user
# form with its state from a node dataset, per-cell datasets and physical
# groups, element matrices, every boundary condition (Dirichlet,
# symmetric and not; Neumann; Robin), the three assembly strategies, and
# sweeps in both layouts; the operator section (BP operators on hexahedra).
# On the rows partition (mesh.partition: rows) every one of those files
# but the operator section's is the one-rank file bit for bit; auto takes
# it where its parts are near equal shares.
# (t320-dist-part checks the parts themselves against the whole; t321-dist-share the shares of a mesh that the
# ranks read themselves.)
# PETSc under mpirun -n 2 loads a file written on 3 ranks and CG+GAMG
# solves the manufactured problem to the one-rank file's error. Errors
# under mpirun: one message, exit status 2 on every rank, no file; an
# error on rank 1 only (out of memory) reported once with its rank; a rank
# killed mid-run leaves no file.
# Without mpirun feint never loads the MPI plugin.
source "$(dirname "$0")/lib.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# OpenMPI's shared-memory transport wants a writable session directory
export TMPDIR=$WORK
export PETSC_DIR=${PETSC_DIR:-$(ls -d /usr/lib/petscdir/petsc*/x86_64-linux-gnu-real 2>/dev/null | head -1)}
[ -f "$(dirname "$FEINT")/feint-mpi.so" ] || fail "no $(dirname "$FEINT")/feint-mpi.so (bash tests/deps.sh; make)"
# Under make test-asan the ranks keep ASan and UBSan but not leak detection:
# OpenMPI's components leak at exit from modules already unloaded, which
# LeakSanitizer cannot name for a suppression. feint's own part of the
# exchange (src/dist/part.c) is leak-checked by t320-dist-part.
if sanitized; then export ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0"; fi
mpi() { local n=$1; shift; mpirun -n "$n" "$FEINT" run --quiet "$@"; }
# same NAME CASE ARGS...: one rank against 2 and 3 (mesh.partition auto: on these small meshes the rows
# partition's parts overlap too much, so it takes the Morton curve's, whose sums are added in another order:
# within 1e-14), and against 3 ranks on the rows partition, bit for bit: each rank sums its own rows whole,
# in the one-rank order (not the operator section, whose parts are the curve's: SUMMED=1 leaves it out).
same() {
  local name=$1 case=$2; shift 2
  "$FEINT" run --quiet "$case" -o "$WORK/$name-1.h5" "$@"
  for n in 2 3; do
    mpi "$n" "$case" -o "$WORK/$name-$n.h5" "$@"
    compare_files "$name, $n ranks" "$WORK/$name-1.h5" "$WORK/$name-$n.h5"
  done
  [ -n "${SUMMED:-}" ] && return 0
  # one rank's file again with the key set (it has no parts), so that the cases written in both files agree
  "$FEINT" run --quiet "$case" -o "$WORK/$name-1-rows.h5" "$@" --set mesh.partition=rows
  mpi 3 "$case" -o "$WORK/$name-rows.h5" "$@" --set mesh.partition=rows
  compare_files "$name, 3 ranks, rows partition" "$WORK/$name-1-rows.h5" "$WORK/$name-rows.h5" 0
}
ALL="--set output.matrix=true --set output.residual=true --set output.rhs=true"
write_case p1.yaml <<EOF
mesh: {file: $(geo cube.geo), size: 0.25}
physics: {kind: poisson, kappa: "1 + x*y", source: "sin(x) + z"}
state: {u: "x*y - z"}
boundary: [{group: left, dirichlet: "y"}, {group: boundary, neumann: "1 + x"}]
assembly: {dirichlet: symmetric}
EOF
same p1-tets "$WORK/p1.yaml" $ALL --set output.element_matrices=true
for s in colored gather atomic; do same "p1-$s" "$WORK/p1.yaml" $ALL --set assembly.strategy=$s; done
same p1-metis "$WORK/p1.yaml" $ALL --set mesh.partition=metis
# Rank 0 keeps only its part once the ranks have theirs, where nothing after needs the whole mesh (no XDMF,
# sweep or Matrix Market copy): it writes the dofs' datasets first (coordinates, components, the dof map; the
# near-null space), its boundary conditions (Dirichlet lifted, Neumann, Robin) then read their own facet sets and the
# residual's the kept state. The files stay the one-rank files (bit for bit on the rows partition). --json's
# dist_steps says which was done.
write_case el1.yaml <<EOF
mesh: {file: $(geo cube.geo), size: 0.2}
physics: {kind: elasticity, E: "1 + y", nu: 0.3, source: [0, "x", -1]}
state: {u: ["x*y", "y*z", "z - x"]}
boundary: [{group: left, dirichlet: [0, "y", 0]}, {group: boundary, robin: {alpha: 2, value: [0, 0, "x"]}}]
assembly: {dirichlet: symmetric}
EOF
# says LABEL EXPR NAME WANT PARTITION CASE ARGS...: one rank against 3 on the partition (bit for bit on the rows
# partition), and EXPR (Python, of rank 0's dist_steps `steps`) must give WANT
says() {
  local label=$1 expr=$2 name=$3 want=$4 partition=$5 case=$6; shift 6
  "$FEINT" run --quiet "$case" -o "$WORK/$name-1.h5" "$@" --set mesh.partition="$partition"
  mpi 3 "$case" -o "$WORK/$name-3.h5" "$@" --set mesh.partition="$partition" --json > "$WORK/$name.json"
  $PY - "$WORK/$name.json" "$want" "$expr" "$label" <<'PY' || fail "$name: $label should be $want"
import json, sys
steps = json.loads([l for l in open(sys.argv[1]) if l.startswith("{")][-1])["dist_steps"]
said = eval(sys.argv[3])
assert said == sys.argv[2], steps
print(f"{sys.argv[4]}: {said}")
PY
  compare_files "$name, 3 ranks, partition $partition" "$WORK/$name-1.h5" "$WORK/$name-3.h5" \
    "$([ "$partition" = rows ] && echo 0)"
}
released() { # name want(yes|no) partition case args...
  says "rank 0 keeps its part only" '"yes" if "rank 0 keeps its part only" in steps else "no"' "$@"
}
released p1-released yes rows "$WORK/p1.yaml" $ALL
released p1-vector-released yes rows "$WORK/el1.yaml" $ALL
released p1-cell-dofs-released yes rows "$WORK/p1.yaml" $ALL --set output.element_matrices=true
released p1-curve-released yes morton "$WORK/el1.yaml" $ALL --set output.cell_dofs=true
# For P1 the ranks build their parts from slabs of the whole that rank 0 sends as they lie, each cell going to the
# ranks whose rows it touches or to its part (FEINT_DIST_BUILD=rank0: rank 0 packs them, as it does for higher
# orders and a Matrix Market copy; =slabs: built for higher orders too): the same files
built() { # name want("ranks"|"rank 0") partition case args...
  says "parts built by" '"ranks" if "parts built (each rank its own" in steps else "rank 0"' "$@"
}
built p1-built ranks rows "$WORK/p1.yaml" $ALL --set output.element_matrices=true
built p1-vector-built ranks rows "$WORK/el1.yaml" $ALL
built p1-curve-built ranks morton "$WORK/el1.yaml" $ALL
built p1-metis-built ranks metis "$WORK/p1.yaml" $ALL --set output.element_matrices=true
FEINT_DIST_BUILD=rank0 built p1-packed "rank 0" rows "$WORK/p1.yaml" $ALL --set output.element_matrices=true
built p2-packed "rank 0" rows "$WORK/p1.yaml" $ALL --set space.order=2
FEINT_DIST_BUILD=slabs built p2-built ranks rows "$WORK/p1.yaml" $ALL --set space.order=2
FEINT_DIST_BUILD=slabs built p2-vector-curve-built ranks morton "$WORK/el1.yaml" $ALL --set space.order=2
FEINT_DIST_BUILD=slabs built p3-prism-built ranks morton "$ROOT/cases/poisson-prism.yaml" $ALL
built mm-packed "rank 0" morton "$WORK/p1.yaml" $ALL --set output.matrix_market=mm-built.mtx
# Element matrices are written by the ranks that computed them, range by range of whole cells (on the rows
# partition a cell in several parts by the rank of its lowest dof), where every rank's are as wide as the whole's
# and lie in few ranges; else (a rank voting no, FEINT_DIST_ELEMENTS=owners) they go to their cells' owners
elements() { # name want(place|owners) partition case args...
  says "element matrices written by" \
    "'place' if 'kept where computed' in steps else 'owners' if 'sent to their cells' in steps else '?'" "$@"
}
"$(dirname "$FEINT")/bench/gen-cube-msh" 8 "$WORK/layers.msh" > /dev/null # 3072 tetrahedra numbered in layers
write_case layers.yaml <<EOF
mesh: {file: $WORK/layers.msh}
space: {order: 2}
physics: {kind: poisson, kappa: "1 + x*y", source: "x + z"}
output: {element_matrices: true, matrix: true, rhs: true}
boundary: [{group: boundary, robin: {alpha: 2, value: "y"}}]
EOF
elements layers-rows place rows "$WORK/layers.yaml" --set space.order=1
FEINT_DIST_ELEMENTS=owners elements layers-owners owners rows "$WORK/layers.yaml" --set space.order=1
# P2 on the curve's 3 parts of this small mesh: more ranges than the limit, written anyway when it is lifted
elements layers-curve owners morton "$WORK/layers.yaml"
FEINT_DIST_ELEMENTS=place elements layers-curve-place place morton "$WORK/layers.yaml"
# P1 from a binary MSH 4.1 file: every rank reads its share of the cells beside rank 0's read, and its slab is its
# share (on a partition of the cells, with its cells' parts from rank 0); other meshes and orders: rank 0 reads
# alone (FEINT_DIST_READ=rank0 too). The files stay the one-rank files (bit for bit on the rows partition).
read_by() { # name want("shares"|"rank 0") partition case args...
  says "mesh read by" '"shares" if "each its share of the cells" in steps and "slab its share" in steps else "rank 0"' "$@"
}
write_case layers-el.yaml <<EOF
mesh: {file: $WORK/layers.msh}
physics: {kind: elasticity, E: "1 + y", nu: 0.3, source: [0, "x", -1]}
state: {u: ["x*y", "y*z", "z - x"]}
boundary: [{group: boundary, dirichlet: [0, "y", 0]}]
output: {matrix: true, rhs: true, residual: true}
EOF
read_by layers-shares shares rows "$WORK/layers.yaml" --set space.order=1
read_by layers-el-shares shares rows "$WORK/layers-el.yaml" --set assembly.dirichlet=symmetric
FEINT_DIST_READ=rank0 read_by layers-rank0 "rank 0" rows "$WORK/layers.yaml" --set space.order=1
# the rows partition's balance: counted by the workers on their shares while rank 0 reads, and by rank 0 on its
# own, the same figures as rank 0's count over the whole
$PY - "$WORK/layers-shares.json" "$WORK/layers-rank0.json" <<'PY' || fail "the rows parts counted on the shares"
import json, re, sys
def partition(path):
    steps = json.loads([l for l in open(path) if l.startswith("{")][-1])["dist_steps"]
    return re.search(r"partition \(rows: ([^)]*)\)", steps).group(1)
shares, whole = partition(sys.argv[1]), partition(sys.argv[2])
assert shares.endswith("; counted on the shares") and shares.split(";")[0] == whole, (shares, whole)
print(f"rows parts counted on the shares: {shares}")
PY
read_by layers-p2 "rank 0" rows "$WORK/layers.yaml"
# Rank 0 too reads only its share, and keeps only it where the partition is made on the shares (the rows',
# counted on them, or the curve's) and nothing it makes reads the whole's cells (Dirichlet, Neumann and Robin read
# the facets and nodes; a flux the cells that may hold its facets, gathered; a dof map is written by the ranks), no
# XDMF mesh written, not a sweep. Its space is then the whole's P1 space on its share (every node and facet, its
# own cells), its datasets read as a part's. Else the whole is gathered on rank 0 from the shares
# (FEINT_DIST_READ=whole: rank 0 reads the whole). The same files every way (bit for bit on the rows partition).
write_case layers-d.yaml <<EOF
mesh: {file: $WORK/layers.msh}
physics: {kind: poisson, kappa: "1 + x*y", source: "x + z"}
state: {u: "x - y*z"}
boundary: [{group: boundary, dirichlet: "x*y"}]
output: {matrix: true, rhs: true, residual: true, near_null_space: true}
EOF
rank0_reads() { # name want("its share"|"gathered"|"the whole") partition case args...
  says "rank 0 holds" '"its share" if "rank 0 too" in steps else "gathered" if "whole gathered" in steps else "the whole"' \
    "$@"
}
rank0_reads layers-d-share "its share" rows "$WORK/layers-d.yaml"
rank0_reads layers-d-lifted "its share" rows "$WORK/layers-d.yaml" --set assembly.dirichlet=symmetric
rank0_reads layers-el-share "its share" rows "$WORK/layers-el.yaml" --set assembly.dirichlet=symmetric
rank0_reads layers-d-elements "its share" rows "$WORK/layers-d.yaml" --set output.element_matrices=true \
  --set output.cell_dofs=false
$PY - "$WORK/cells.h5" <<'PY'
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "w") as g:
    g["kappa"] = 1.0 + np.random.default_rng(11).random(6 * 8**3) # gen-cube-msh 8's tetrahedra
PY
rank0_reads layers-d-cell-dataset "its share" rows "$WORK/layers-d.yaml" \
  --set "physics.kappa={file: $WORK/cells.h5, dataset: /kappa, on: cell}"
rank0_reads layers-d-robin "its share" rows "$WORK/layers-d.yaml" \
  --set 'boundary=[{group: boundary, robin: {alpha: 2, value: "y"}}, {group: boundary, dirichlet: "x"}]'
rank0_reads layers-d-neumann "its share" rows "$WORK/layers-d.yaml" --set 'boundary=[{group: boundary, neumann: "1 + x"}]'
# a flux: its facets' normals from the cells that may hold them, gathered from every share (bit for bit)
rank0_reads layers-d-flux "its share" rows "$WORK/layers-d.yaml" --set 'boundary=[{group: boundary, flux: ["x", "y", 0]}]'
rank0_reads layers-d-flux-curve "its share" morton "$WORK/layers-d.yaml" \
  --set 'boundary=[{group: boundary, flux: ["x", "y*z", 1]}, {group: boundary, dirichlet: "x"}]'
# a dof map written (output.cell_dofs, or element matrices' default): the ranks write it together, each its share's
# rows, before the setup
rank0_reads layers-robin "its share" rows "$WORK/layers.yaml" --set space.order=1 # element matrices: the dof map
rank0_reads layers-el-cell-dofs "its share" morton "$WORK/layers-el.yaml" --set output.cell_dofs=true # 3 a node
# an XDMF mesh: its topology a view of that dof map, its cell fields (the cells' groups, the per-cell coefficients of
# a form made on each share) written by the ranks together, each its share's rows; the XDMF file is the one-rank
# run's (but for the HDF5 file's name)
xdmf_same() { # name
  sed "s/$1-3\.h5/$1-1.h5/g" "$WORK/$1-3.xdmf" | cmp -s - "$WORK/$1-1.xdmf" || fail "$1: the XDMF files differ"
  echo "$1: the same XDMF file"
}
rank0_reads layers-d-xdmf "its share" rows "$WORK/layers-d.yaml" --set output.xdmf=true
xdmf_same layers-d-xdmf
rank0_reads layers-d-xdmf-cells "its share" morton "$WORK/layers-d.yaml" --set output.xdmf=true \
  --set "physics.kappa={file: $WORK/cells.h5, dataset: /kappa, on: cell}" --set 'physics.source={groups: {domain: 3}}'
xdmf_same layers-d-xdmf-cells
$PY - "$WORK/layers-d-xdmf-cells-3.h5" "$WORK/cells.h5" <<'PY' || fail "layers-d-xdmf-cells: the cell fields"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r") as f, h5py.File(sys.argv[2], "r") as g:
    assert np.array_equal(f["xdmf/cell/kappa"][...], g["kappa"][...]), "kappa"
    assert np.all(f["xdmf/cell/source"][...] == 3.0) and np.all(f["xdmf/cell_group"][...] == 1), "source, groups"
    print(f"layers-d-xdmf-cells: {len(f['xdmf/cell_group'])} cells' kappa, source and group written by 3 ranks")
PY
# off the rows partition the curve's is made on the shares (each rank places its own cells from every share's
# counts of the curve's boxes): the partition the whole's curve makes, so the file is the gathered whole's, bit for
# bit; METIS is given the shares' cells gathered on rank 0 (nothing else of the whole), and each rank its share's
# parts: METIS's on the whole, so the file is the whole read's, bit for bit
rank0_reads layers-d-auto "its share" auto "$WORK/layers-d.yaml" # 3 ranks: the largest rows part 1.5 shares
rank0_reads layers-d-curve "its share" morton "$WORK/layers-d.yaml"
FEINT_DIST_READ=whole mpi 3 "$WORK/layers-d.yaml" -o "$WORK/layers-d-curve-whole.h5" --set mesh.partition=morton
compare_files "layers-d, 3 ranks, the curve made on the shares against the whole's" "$WORK/layers-d-curve-whole.h5" \
  "$WORK/layers-d-curve-3.h5" 0
rank0_reads layers-d-metis "its share" metis "$WORK/layers-d.yaml"
FEINT_DIST_READ=whole mpi 3 "$WORK/layers-d.yaml" -o "$WORK/layers-d-metis-whole.h5" --set mesh.partition=metis
compare_files "layers-d, 3 ranks, METIS on the shares' cells against the whole's" "$WORK/layers-d-metis-whole.h5" \
  "$WORK/layers-d-metis-3.h5" 0
rank0_reads layers-d-cell-dofs "its share" rows "$WORK/layers-d.yaml" --set output.cell_dofs=true
FEINT_DIST_READ=whole rank0_reads layers-d-whole "the whole" rows "$WORK/layers-d.yaml"
# sweeps: members on the same mesh keep their parts, rank 0 its share (the dof map written once by the ranks, the
# later members' linked to it; a flux's facets oriented by the cells of every group's facets, gathered at the
# read); a member on another space reads the mesh again (P2: rank 0 alone)
sweep_reads() { # name want case args...: the last member's steps say how rank 0 holds the mesh
  local name=$1 want=$2 case=$3; shift 3
  "$FEINT" run --quiet "$case" -o "$WORK/$name-1.h5" "$@"
  mpi 3 "$case" -o "$WORK/$name-3.h5" "$@" --json > "$WORK/$name.json"
  $PY - "$WORK/$name.json" "$want" <<'PY' || fail "$name: rank 0 should hold $want"
import json, sys
steps = json.loads([l for l in open(sys.argv[1]) if l.startswith("{")][-1])["dist_steps"]
said = ("its share" if "rank 0 too" in steps or "rank 0 on its share" in steps else
        "gathered" if "whole gathered" in steps else "kept" if "parts kept" in steps else "the whole")
assert said == sys.argv[2], steps[:300]
print(f"sweep, the last member: rank 0 holds {said}")
PY
}
sweep_reads layers-d-sweep "its share" "$WORK/layers-d.yaml" --set mesh.partition=rows --set output.cell_dofs=true \
  --set 'sweep={product: {physics.kappa: [1, "2 + x"], physics.source: [1, "y"]}, layout: groups}'
compare_files "layers-d, a sweep kept on rank 0's share, 3 ranks" "$WORK/layers-d-sweep-1.h5" \
  "$WORK/layers-d-sweep-3.h5" 0
sweep_reads layers-d-sweep-files "its share" "$WORK/layers-d.yaml" --set mesh.partition=morton \
  --set output.element_matrices=true --set 'sweep={product: {physics.kappa: [1, "2 + x"]}}'
for i in 0 1; do
  compare_files "layers-d, a sweep of files kept on rank 0's share, member $i" "$WORK/layers-d-sweep-files-1-$i.h5" \
    "$WORK/layers-d-sweep-files-3-$i.h5"
done
# an XDMF mesh in a sweep: the workers keep their shares beside their parts, for the members' cell fields (each
# member its own per-cell coefficients; the topology and the groups linked to the first's)
sweep_reads layers-d-sweep-xdmf "its share" "$WORK/layers-d.yaml" --set mesh.partition=rows --set output.xdmf=true \
  --set "physics.kappa={file: $WORK/cells.h5, dataset: /kappa, on: cell}" \
  --set 'sweep={product: {physics.source: [1, {groups: {domain: 3}}]}, layout: groups}'
compare_files "layers-d, a sweep with an XDMF mesh kept on rank 0's share, 3 ranks" "$WORK/layers-d-sweep-xdmf-1.h5" \
  "$WORK/layers-d-sweep-xdmf-3.h5" 0
xdmf_same layers-d-sweep-xdmf
sweep_reads layers-d-sweep-xdmf-files "its share" "$WORK/layers-d.yaml" --set mesh.partition=morton \
  --set output.xdmf=true --set 'sweep={product: {physics.source: [{groups: {domain: 2}}, {groups: {domain: 3}}]}}'
for i in 0 1; do
  compare_files "layers-d, a sweep of files with an XDMF mesh on rank 0's share, member $i" \
    "$WORK/layers-d-sweep-xdmf-files-1-$i.h5" "$WORK/layers-d-sweep-xdmf-files-3-$i.h5"
done
sed "s/layers-d-sweep-xdmf-files-3/layers-d-sweep-xdmf-files-1/g" "$WORK/layers-d-sweep-xdmf-files-3.xdmf" |
  cmp -s - "$WORK/layers-d-sweep-xdmf-files-1.xdmf" || fail "layers-d-sweep-xdmf-files: the XDMF files differ"
sweep_reads layers-d-sweep-order "the whole" "$WORK/layers-d.yaml" --set mesh.partition=rows \
  --set 'sweep={product: {space.order: [1, 2]}, layout: groups}'
compare_files "layers-d, a sweep from P1 on rank 0's share to P2, 3 ranks" "$WORK/layers-d-sweep-order-1.h5" \
  "$WORK/layers-d-sweep-order-3.h5" 0
sweep_reads layers-d-sweep-flux "its share" "$WORK/layers-d.yaml" --set mesh.partition=rows \
  --set 'boundary=[{group: boundary, flux: ["x", "y", 0]}]' --set 'sweep={product: {physics.kappa: [1, 2]}, layout: groups}'
compare_files "layers-d, a sweep with a flux on rank 0's share, 3 ranks" "$WORK/layers-d-sweep-flux-1.h5" \
  "$WORK/layers-d-sweep-flux-3.h5" 0
# a flux only in the later member: its cells are among those of every group's facets, gathered at the read
sweep_reads layers-d-sweep-flux-later "its share" "$WORK/layers-d.yaml" --set mesh.partition=rows --set \
  'sweep={product: {boundary: [[{group: boundary, dirichlet: "x"}], [{group: boundary, flux: ["x", "y*z", 1]}]]}, layout: groups}'
compare_files "layers-d, a sweep gaining a flux on rank 0's share, 3 ranks" "$WORK/layers-d-sweep-flux-later-1.h5" \
  "$WORK/layers-d-sweep-flux-later-3.h5" 0
read_by layers-curve shares morton "$WORK/layers.yaml" --set space.order=1
read_by layers-el-metis shares metis "$WORK/layers-el.yaml"
read_by geo-rank0 "rank 0" rows "$WORK/p1.yaml" $ALL
# hexahedra from a binary file: their P1 slabs would carry dof maps, so the others read no share (rank 0 reads it)
gmsh -3 "$(geo hexcube.geo)" -format msh41 -bin -o "$WORK/hex.msh" > /dev/null 2>&1 || fail "gmsh could not write hex.msh"
write_case hex-bin.yaml <<EOF
mesh: {file: $WORK/hex.msh}
physics: {kind: poisson, kappa: "1 + x*y", source: "x + z"}
output: {matrix: true, rhs: true}
EOF
says "hexahedra from a binary file" '"rank 0 alone" if "not triangles or tetrahedra" in steps else steps' \
  hex-bin-declined "rank 0 alone" rows "$WORK/hex-bin.yaml"
# a rank whose file system lacks the mesh file (FEINT_DIST_FAIL=1:open: as if) reads no share: rank 0 reads alone
FEINT_DIST_FAIL=1:open says "a rank without the file" '"rank 0 alone" if "could not read the file" in steps else steps' \
  layers-declined "rank 0 alone" rows "$WORK/layers.yaml" --set space.order=1
# a rank failing its read (FEINT_DIST_FAIL=RANK:read): its own message, status 1 on every rank, no file; an element
# naming an undefined node in the last rank's share: the one-rank message (rank 0 reads every cell), status 2
# fails_on_purpose AT WHAT CASE ARGS...: FEINT_DIST_FAIL=AT (RANK:PHASE) on 3 ranks gives that rank's own message,
# once, status 1 on every rank, and no file
fails_on_purpose() {
  local at=$1 what=$2 case=$3; shift 3
  rm -f "$WORK/fail.h5"
  set +e
  FEINT_DIST_FAIL=$at timeout 120 mpirun -x FEINT_DIST_FAIL -n 3 "$FEINT" run --quiet "$case" "$@" \
    -o "$WORK/fail.h5" > "$WORK/fail.out" 2>&1
  local rc=$?
  set -e
  local rank=${at%%:*}
  local want="feint: error: $([ "$rank" = 0 ] || echo "rank $rank: ")failed on purpose (FEINT_DIST_FAIL=$at)"
  [ $rc -eq 1 ] && [ "$(grep -c '^feint: error' "$WORK/fail.out")" -eq 1 ] && grep -qxF "$want" "$WORK/fail.out" ||
    fail "rank $at failing: status $rc, $(cat "$WORK/fail.out")"
  ! ls "$WORK"/fail.h5* > /dev/null 2>&1 || fail "rank $at failing: a file was left"
  echo "ok rank $at failing $what: $(grep '^feint: error' "$WORK/fail.out")"
}
for at in 1:read 2:read 0:read; do
  fails_on_purpose $at "its read" "$WORK/layers.yaml" --set space.order=1 --set mesh.partition=rows
done
for at in 1:read 0:read 0:setup 2:setup; do
  fails_on_purpose $at "its ${at#*:} (rank 0 reading its share only)" "$WORK/layers-d.yaml" --set mesh.partition=rows
done
for at in 0:curve 2:curve; do
  fails_on_purpose $at "its place of its cells on the curve" "$WORK/layers-d.yaml" --set mesh.partition=morton
done
for at in 0:dofmap 2:dofmap; do
  fails_on_purpose $at "its write of its share's rows of the dof map" "$WORK/layers-d.yaml" --set mesh.partition=rows \
    --set output.cell_dofs=true
done
for at in 0:metis 2:metis; do
  fails_on_purpose $at "its part in METIS's partition of the shares' cells" "$WORK/layers-d.yaml" \
    --set mesh.partition=metis
done
for at in 0:xdmf 2:xdmf; do
  fails_on_purpose $at "its write of its share's rows of the XDMF cell fields" "$WORK/layers-d.yaml" \
    --set mesh.partition=rows --set output.xdmf=true
done
for at in 0:flux 1:flux; do
  fails_on_purpose $at "its search for the flux facets' cells" "$WORK/layers-d.yaml" --set mesh.partition=rows \
    --set 'boundary=[{group: boundary, flux: ["x", "y", 0]}]'
done
fails_on_purpose 2:flux "its search for every facet group's cells (a sweep, at the read)" "$WORK/layers-d.yaml" \
  --set mesh.partition=rows --set 'sweep={product: {physics.kappa: [1, 2]}, layout: groups}'
$PY - "$WORK/layers.msh" "$WORK/badnode.msh" <<'PY'
import sys
data = bytearray(open(sys.argv[1], "rb").read())
end = data.rindex(b"$EndElements")
data[end - 9:end - 1] = (99999999).to_bytes(8, "little")  # the last element's last node
open(sys.argv[2], "wb").write(data)
PY
sed "s|$WORK/layers.msh|$WORK/badnode.msh|" "$WORK/layers.yaml" > "$WORK/badnode.yaml" # run with mpi_bad, below
# Parts large enough for every step of packing to split them into ranges (2 ranks of 384k cells, 4 threads
# each; rank 0's own part packed alone after the other's): the file bit for bit
"$(dirname "$FEINT")/bench/gen-cube-msh" 40 "$WORK/big.msh" > /dev/null
write_case big.yaml <<EOF
mesh: {file: $WORK/big.msh}
physics: {kind: poisson, kappa: "1 + x*y", source: "x + z"}
output: {matrix: true, rhs: true}
EOF
"$FEINT" run --quiet "$WORK/big.yaml" -o "$WORK/big-1.h5" --set mesh.partition=rows
FEINT_THREADS=4 mpirun -x FEINT_THREADS -n 2 "$FEINT" run --quiet "$WORK/big.yaml" -o "$WORK/big-2.h5" \
  --set mesh.partition=rows
compare_files "384k cells, 2 ranks on 4 threads each, rows partition" "$WORK/big-1.h5" "$WORK/big-2.h5" 0
# Gmsh's own cell order: the rows partition's cells lie in many ranges (one rank votes for the owners) unless
# the limit is lifted, when each rank writes hundreds of ranges
elements p1-el-scattered owners rows "$WORK/p1.yaml" $ALL --set output.element_matrices=true
FEINT_DIST_ELEMENTS=place elements p1-el-ranges place rows "$WORK/p1.yaml" $ALL --set output.element_matrices=true
elements el1-el-metis owners metis "$WORK/el1.yaml" $ALL --set output.element_matrices=true
# mesh.partition auto (the default): the rows partition where its largest part is within 5/4 of an equal share
# (nodes numbered along space: mesh.reorder morton, 2 ranks: 1.11 here), then bit for bit; the curve where not
# (3 ranks: 1.41; Gmsh's own node order: 1.93 on 2 ranks); --json's partition and dist_steps say which
auto_case() { # reorder ranks want(rows|curve)
  local out="$WORK/auto-$1-$2.h5"
  mpi "$2" "$WORK/p1.yaml" $ALL --set mesh.size=0.1 --set mesh.reorder="$1" --json -o "$out" > "$WORK/auto.json"
  $PY - "$WORK/auto.json" "$3" <<'PY' || fail "auto partition, reorder $1, $2 ranks: not the $3 partition"
import json, sys
js = json.loads([l for l in open(sys.argv[1]) if l.startswith("{")][-1])
steps, partition = js["dist_steps"], js["partition"]
took_rows = "partition (rows, auto" in steps and "not taken" not in steps.split(";")[0]
assert took_rows == (sys.argv[2] == "rows"), steps[:200]
assert partition.startswith("rows, ") if took_rows else partition == "curve", partition
print(f"partition: {partition}; {steps[:steps.index(' ms,') + 3]}")
PY
  "$FEINT" run --quiet "$WORK/p1.yaml" $ALL --set mesh.size=0.1 --set mesh.reorder="$1" -o "$WORK/auto-$1-1.h5"
  compare_files "auto partition, reorder $1, $2 ranks" "$WORK/auto-$1-1.h5" "$out" "$([ "$3" = rows ] && echo 0)"
}
auto_case morton 2 rows
auto_case morton 3 curve
auto_case none 2 curve
write_case el.yaml <<EOF
mesh: {file: $(geo cube.geo), size: 0.3}
space: {order: 2}
physics: {kind: elasticity, E: "1 + y", nu: 0.3, source: [0, "x", -1]}
state: {u: ["x*y", "y*z", "z - x"]}
boundary: [{group: left, dirichlet: [0, 0, 0]}, {group: boundary, neumann: [0, 0, "x"]}]
output: {near_null_space: true}
EOF
same p2-elasticity "$WORK/el.yaml" $ALL
released p2-near-null-released yes morton "$WORK/el.yaml" $ALL
released p1-near-null-released yes rows "$WORK/el.yaml" $ALL --set space.order=1
# XDMF too, from a .geo mesh (rank 0 reads the whole): rank 0 draws the mesh and the cell fields before it releases
# the whole, the point fields (views of the results) at the end
released p1-xdmf-released yes rows "$WORK/el.yaml" $ALL --set space.order=1 --set output.xdmf=true
xdmf_same p1-xdmf-released
write_case q3.yaml <<EOF
mesh: {file: $(geo hexcube.geo)}
space: {order: 3}
physics: {kind: poisson, kappa: "2 + x", source: "x*y*z"}
state: {u: "x*x - y*z"}
boundary: [{group: left, robin: {alpha: 2, value: "y"}}]
EOF
same q3-hexes "$WORK/q3.yaml" $ALL --set output.element_matrices=true
same p3-prisms "$ROOT/cases/poisson-prism.yaml" $ALL
write_case mx.yaml <<EOF
mesh: {file: $(geo mixedcube.geo)}
space: {order: 2}
physics: {kind: poisson, source: "x + y*z"}
state: {u: "sin(x)*y"}
boundary: [{group: left, dirichlet: "z"}, {group: boundary, robin: {alpha: 1, value: "x"}}]
assembly: {dirichlet: symmetric}
EOF
same mixed-3d "$WORK/mx.yaml" $ALL --set output.element_matrices=true
released mixed-3d-released yes morton "$WORK/mx.yaml" $ALL --set output.element_matrices=true
same mixed-3d-p3 "$ROOT/cases/poisson-mixed-p3.yaml" $ALL
# three shapes, Lobatto nodes everywhere: a part of tetrahedra only keeps them
write_case m3.yaml <<EOF
mesh: {file: $ROOT/tests/data/tet_prism_hex_cube.geo}
space: {order: 3}
physics: {kind: poisson, kappa: "1 + x", source: "x*y"}
state: {u: "sin(x + z)"}
EOF
same mixed-3-shapes "$WORK/m3.yaml" $ALL --set output.element_matrices=true
write_case m2.yaml <<EOF
mesh: {file: $(geo mixedsquare.geo)}
space: {order: 3}
physics: {kind: poisson, source: "x*y"}
boundary: [{group: left, dirichlet: 0}, {group: top, neumann: "x"}]
EOF
same mixed-2d "$WORK/m2.yaml" $ALL
same groups "$ROOT/cases/two-materials.yaml" $ALL
released groups-xdmf-released yes morton "$ROOT/cases/two-materials.yaml" $ALL --set output.xdmf=true
xdmf_same groups-xdmf-released
# a user form whose state comes from a node dataset, and a per-cell coefficient dataset
write_case cd.yaml <<EOF
mesh: {file: $(geo square.geo), size: 0.15}
space: {order: 2}
physics: {kind: poisson, source: "x"}
EOF
"$FEINT" run --quiet "$ROOT/cases/nonlinear-form.yaml" -o "$WORK/nl0.h5"
"$FEINT" run --quiet "$WORK/cd.yaml" -o "$WORK/cd0.h5" --set output.cell_dofs=true
$PY - "$WORK" <<'EOF'
import sys, h5py, numpy as np
w = sys.argv[1]
X = h5py.File(f"{w}/nl0.h5")["dofs/coordinates"][:]
n_cells = h5py.File(f"{w}/cd0.h5")["dofs/cell_dofs"].shape[0]
with h5py.File(f"{w}/data.h5", "w") as g:
    g["u"] = np.sin(3 * X[:, 0]) * X[:, 1] + 0.3
    g["kappa"] = 1.0 + np.random.default_rng(7).random(n_cells)
EOF
same form-dataset "$ROOT/cases/nonlinear-form.yaml" $ALL --set "state.u={file: $WORK/data.h5, dataset: /u, on: node}"
same cell-dataset "$WORK/cd.yaml" $ALL --set "physics.kappa={file: $WORK/data.h5, dataset: /kappa, on: cell}"

# sweeps: one file of groups, and a file per member (kappa alone: one rank reuses its backend; order: a new space)
write_case sw.yaml <<EOF
mesh: {file: $(geo square.geo), size: 0.1}
physics: {kind: poisson, source: "x*y", kappa: 1}
state: {u: "x + y*y"}
boundary: [{group: left, dirichlet: 0}, {group: top, robin: {alpha: 2, value: "x"}}]
output: {matrix: true, residual: true, rhs: true}
sweep: {product: {space.order: [1, 2], physics.kappa: [1, "2 + x"]}}
EOF
same sweep-groups "$WORK/sw.yaml" --set sweep.layout=groups
"$FEINT" run --quiet "$WORK/sw.yaml" -o "$WORK/swf-1.h5"
mpi 3 "$WORK/sw.yaml" -o "$WORK/swf-3.h5"
for i in 0 1 2 3; do
  compare_files "sweep member $i, 3 ranks" "$WORK/swf-1-$i.h5" "$WORK/swf-3-$i.h5"
done

# a sweep over coefficients alone: every rank keeps its part (mesh, space, pattern) from one member to the next
write_case swk.yaml <<EOF
mesh: {file: $(geo cube.geo), size: 0.2}
space: {order: 2}
physics: {kind: elasticity, E: 1, nu: 0.3, source: [0, 0, -1]}
boundary: [{group: left, dirichlet: [0, 0, 0]}]
output: {matrix: true, rhs: true, element_matrices: true}
sweep: {product: {physics.E: [1, "1 + x"], physics.nu: [0.3, 0.25]}, layout: groups}
EOF
same sweep-kept "$WORK/swk.yaml"
same sweep-kept-p1 "$WORK/swk.yaml" --set space.order=1 # parts built from slabs, rank 0 keeping the whole
# the members after the first keep every rank's part, and each rank keeps its backend where one rank does (only
# the coefficients change: the backend is given the new form); the files above are equal all the same
"$FEINT" run --quiet "$WORK/swk.yaml" -o "$WORK/swk-json-1.h5" --json > "$WORK/swk-1.json"
mpi 3 "$WORK/swk.yaml" -o "$WORK/swk-json.h5" --json > "$WORK/swk-3.json"
$PY - "$WORK/swk-1.json" "$WORK/swk-3.json" <<'PY'
import json, sys
one, three = (json.loads([l for l in open(f) if l.startswith("{")][-1]) for f in sys.argv[1:])
s = three["dist_steps"]
assert "parts kept" in s, s
assert three["backend_reused"] == one["backend_reused"] > 0, (one["backend_reused"], three["backend_reused"])
assert "backends kept on 2 of the 2 other ranks" in s, s
print(f"ok: the members kept their parts, and {three['backend_reused']} of {three['members']} their backends on "
      f"every rank (as on one rank): {s[:60]}")
PY

# the operator section: every rank its part's y = A x, added on rank 0 (BP3.5 stored, BP1.0, BP3.0 recomputed)
SUMMED=1 same bp3.5 "$ROOT/cases/bp-hex.yaml"
SUMMED=1 same bp1.0 "$ROOT/cases/bp-hex.yaml" --set operator.kind=bp1.0 --set space.order=2
SUMMED=1 same bp3.0 "$ROOT/cases/bp-hex.yaml" --set operator.kind=bp3.0 --set operator.geometry=recompute --set space.order=3
SUMMED=1 same bp-sweep "$ROOT/cases/bp-hex.yaml" --set 'sweep={product: {space.order: [1, 3]}, layout: groups}'

# PETSc on 2 ranks loads the file written on 3 and solves it to the one-rank file's error
write_case ms.yaml <<EOF
mesh: {file: $(geo cube.geo), size: 0.15}
space: {order: 2}
physics: {kind: poisson, source: "3*pi^2*sin(pi*x)*sin(pi*y)*sin(pi*z)"}
boundary: [{group: boundary, dirichlet: 0}]
assembly: {dirichlet: symmetric}
EOF
"$FEINT" run --quiet "$WORK/ms.yaml" -o "$WORK/ms-1.h5" --set output.matrix=true
mpi 3 "$WORK/ms.yaml" -o "$WORK/ms-3.h5" --set output.matrix=true
cat > "$WORK/solve.py" <<'EOF'
import sys
import petsc4py
petsc4py.init([])
from petsc4py import PETSc
import h5py, numpy as np

def error(path):
    v = PETSc.Viewer().createHDF5(path, "r")
    A = PETSc.Mat().create(); A.setName("matrix"); A.setType("aij"); A.load(v)
    b = PETSc.Vec().create(); b.setName("rhs"); b.load(v)
    ksp = PETSc.KSP().create(); ksp.setOperators(A); ksp.setType("cg")
    ksp.getPC().setType("gamg"); ksp.setTolerances(rtol=1e-12, max_it=500)
    x = A.createVecRight(); ksp.solve(b, x)
    assert ksp.getConvergedReason() > 0, f"CG/GAMG did not converge: {ksp.getConvergedReason()}"
    lo, hi = x.getOwnershipRange()
    X = h5py.File(path, "r")["dofs/coordinates"][lo:hi]
    exact = np.sin(np.pi * X[:, 0]) * np.sin(np.pi * X[:, 1]) * np.sin(np.pi * X[:, 2])
    e = PETSc.COMM_WORLD.tompi4py().allreduce(np.abs(x.getArray() - exact).max(), op=__import__("mpi4py").MPI.MAX) \
        if False else None
    local = np.abs(x.getArray() - exact).max() if hi > lo else 0.0
    ev = PETSc.Vec().createMPI((1, PETSc.COMM_WORLD.getSize()))
    ev.setValue(PETSc.COMM_WORLD.getRank(), local); ev.assemble()
    return ev.max()[1], ksp.getIterationNumber(), A.getSize()[0]

e1, it1, n = error(sys.argv[1])
e3, it3, _ = error(sys.argv[2])
if PETSc.COMM_WORLD.getRank() == 0:
    print(f"PETSc on {PETSc.COMM_WORLD.getSize()} ranks, {n} dofs: one-rank file error {e1:.3e} ({it1} CG+GAMG "
          f"iterations), 3-rank file {e3:.3e} ({it3})")
assert e1 < 0.02 and abs(e3 - e1) <= 1e-8 * e1, (e1, e3)
EOF
mpirun -n 2 $PY "$WORK/solve.py" "$WORK/ms-1.h5" "$WORK/ms-3.h5"

# errors: one message, status 2 from every rank, no file
mpi_bad() { # name, expected message (grep -E), ranks, feint run args
  local name=$1 want=$2 n=$3; shift 3
  rm -f "$WORK/out.h5"
  set +e
  mpirun -n "$n" "$FEINT" run "$@" -o "$WORK/out.h5" > "$WORK/stdout" 2> "$WORK/stderr"
  local rc=$?
  set -e
  [ $rc -eq 2 ] || fail "$name: mpirun's status $rc, expected 2 ($(cat "$WORK/stderr"))"
  [ "$(grep -c '^feint: error' "$WORK/stderr")" -eq 1 ] || fail "$name: not one message: $(cat "$WORK/stderr")"
  grep -Eq -- "$want" "$WORK/stderr" || fail "$name: message '$(grep '^feint' "$WORK/stderr")' lacks /$want/"
  [ ! -e "$WORK/out.h5" ] && ! ls "$WORK"/out.h5.tmp-* > /dev/null 2>&1 || fail "$name: a file was left behind"
  echo "ok $name: $(grep '^feint: error' "$WORK/stderr")"
}
mpi_bad "bad expression" "physics.source.*unknown" 3 "$WORK/p1.yaml" --set 'physics.source=sin(q)'
mpi_bad "bad option" "unknown option" 2 "$WORK/p1.yaml" --frobnicate
mpi_bad "undefined node in the last share" "refers to node 99999999, which the mesh does not define" 3 \
  "$WORK/badnode.yaml" --set space.order=1 --set mesh.partition=rows
# the same messages where rank 0 reads its share only: a node undefined in another share (rank 0 reads the whole
# for the one-rank message), a group the case names that the mesh lacks
mpi_bad "undefined node in the last share, rank 0 reading its share only" \
  "refers to node 99999999, which the mesh does not define" 3 "$WORK/badnode.yaml" --set space.order=1 \
  --set mesh.partition=rows --set 'boundary=[{group: boundary, dirichlet: 0}]' --set output.element_matrices=false
mpi_bad "unknown group, rank 0 reading its share only" "unknown physical group 'nosuch'" 3 "$WORK/layers-d.yaml" \
  --set mesh.partition=rows --set 'boundary=[{group: nosuch, dirichlet: 0}]'
cat > "$WORK/two.msh" <<'EOF'
$MeshFormat
4.1 0 8
$EndMeshFormat
$Nodes
1 4 1 4
2 1 0 4
1
2
3
4
0 0 0
1 0 0
1 1 0
0 1 0
$EndNodes
$Elements
1 2 1 2
2 1 2 2
1 1 2 3
2 1 3 4
$EndElements
EOF
echo "{mesh: {file: $WORK/two.msh}, physics: {kind: poisson}}" > "$WORK/two.yaml"
mpi_bad "more ranks than cells" "2 cells cannot be shared among 3 ranks" 3 "$WORK/two.yaml"
FEINT_MPI_PLUGIN=$WORK/none.so mpi_bad "no plugin" "FEINT_MPI_PLUGIN=.*none.so: no such file" 2 "$WORK/p1.yaml"
mkdir -p "$WORK/bare"
cp "$FEINT" "$WORK/bare/feint"
FEINT=$WORK/bare/feint mpi_bad "built without MPI" "built without MPI .*bash tests/deps.sh" 2 "$WORK/p1.yaml"
# an error on another rank than 0 (rank 1 runs out of memory: a limit on its address space): one message naming
# the rank, every rank's status 1, no file. Not under the sanitizers (their shadow memory needs the address space).
if ! sanitized; then
  write_case oom.yaml <<EOF
mesh: {file: $(geo cube.geo), size: 0.05}
space: {order: 4}
physics: {kind: poisson, source: "x"}
output: {element_matrices: true}
EOF
  rm -f "$WORK/oom.h5"
  set +e
  mpirun -n 1 "$FEINT" run --quiet "$WORK/oom.yaml" -o "$WORK/oom.h5" : \
    -n 1 bash -c "ulimit -v 400000; exec $FEINT run --quiet $WORK/oom.yaml -o $WORK/oom.h5" > "$WORK/oom.out" 2>&1
  rc=$?
  set -e
  [ $rc -eq 1 ] || fail "rank 1 out of memory: mpirun's status $rc ($(grep feint "$WORK/oom.out"))"
  [ "$(grep -c '^feint: error' "$WORK/oom.out")" -eq 1 ] && grep -q "^feint: error: rank 1: out of memory" "$WORK/oom.out" ||
    fail "rank 1 out of memory: $(grep feint "$WORK/oom.out")"
  ! ls "$WORK"/oom.h5* > /dev/null 2>&1 || fail "rank 1 out of memory: a file was left"
  echo "ok rank 1 out of memory: $(grep '^feint: error' "$WORK/oom.out")"
fi
# a rank that fails a phase while the others wait for its rows in the exchange (FEINT_DIST_FAIL, a test
# hook): one message, its own (not "rank 1 failed" from another rank), status 1 on every rank, no file
# (the rows partition's exchanges carry statuses only: rows:1:... runs on it; setup there is the parts' build
# from slabs, every rank in it)
for at in 1:residual 2:rhs 1:assembly 0:assembly 2:element_matrices 2:setup rows:1:assembly rows:2:rhs rows:1:setup \
  rows:2:setup rows:0:setup; do
  partition=auto
  if [ "${at%%:*}" = rows ]; then partition=rows at=${at#rows:}; fi
  fails_on_purpose "$at" "($partition partition)" "$WORK/p1.yaml" $ALL --set output.element_matrices=true \
    --set mesh.partition=$partition
done
# a Matrix Market copy: the owners' blocks gathered on rank 0 (the other runs write them together); the .mtx the
# same as one rank's to the last digit but for the sums' rounding
same mm "$WORK/p1.yaml" $ALL --set output.matrix_market=mm.mtx
"$FEINT" run --quiet "$WORK/p1.yaml" $ALL --set output.matrix_market="$WORK/mm-1.mtx" -o "$WORK/mmx-1.h5"
for n in 2 3; do mpi "$n" "$WORK/p1.yaml" $ALL --set output.matrix_market="$WORK/mm-$n.mtx" -o "$WORK/mmx-$n.h5"; done
$PY - "$WORK"/mm-1.mtx "$WORK"/mm-2.mtx "$WORK"/mm-3.mtx <<'PY'
import sys, scipy.io, numpy as np
a = scipy.io.mmread(sys.argv[1]).tocsr()
for f in sys.argv[2:]:
    b = scipy.io.mmread(f).tocsr()
    assert (a.indptr == b.indptr).all() and (a.indices == b.indices).all(), f
    d = np.abs(a.data - b.data).max() / np.abs(a.data).max()
    assert d < 1e-14, (f, d)
print("matrix market on 2 and 3 ranks: the one-rank matrix, values within 1e-14")
PY
# the parallel write in transfers of 1000 values (the hook for a piece past MPI-IO's int counts), independent and
# two-phase collective (every rank as many transfers as the rank with most), the element matrices in each rank's
# hundreds of ranges: the same file
"$FEINT" run --quiet "$WORK/p1.yaml" $ALL --set output.element_matrices=true -o "$WORK/chunk-1.h5"
for mode in independent collective; do
  FEINT_DIST_ELEMENTS=place FEINT_MPIO=$mode FEINT_MPIO_CHUNK=1000 mpirun -x FEINT_DIST_ELEMENTS -x FEINT_MPIO \
    -x FEINT_MPIO_CHUNK -n 3 "$FEINT" run --quiet "$WORK/p1.yaml" $ALL --set output.element_matrices=true \
    -o "$WORK/chunk-$mode.h5"
  compare_files "transfers of 1000 values, $mode, 3 ranks" "$WORK/chunk-1.h5" "$WORK/chunk-$mode.h5"
done
# 64-bit columns (the hook lowers the limit): the pattern gathered from the owners' blocks is as wide
FEINT_WIDE_INDEX_LIMIT=100 same wide "$WORK/p1.yaml" $ALL
[ "$($PY -c "import h5py,sys; print(h5py.File(sys.argv[1])['matrix/indices'].dtype)" "$WORK/wide-3.h5")" = int64 ] ||
  fail "the 64-bit pattern is not 64-bit on 3 ranks"
if false; then :
fi
mpi_bad "bad partition" "mesh.partition.*(morton|metis)" 2 "$WORK/p1.yaml" --set mesh.partition=scotch
# a rank that dies mid-run: mpirun ends the others, and no file (nor temporary) is left. Rank 1 is found from the
# start of the run, then killed as soon as rank 0 has started the output file (the temporary), so that the check
# sees the temporary removed too. The run goes on for a second or more after that (several under the sanitizers);
# should it end before the kill all the same, the test fails and says so.
write_case long.yaml <<EOF
mesh: {file: $(geo cube.geo), size: 0.06}
space: {order: 3}
physics: {kind: poisson, kappa: "1 + x*y", source: "x"}
output: {matrix: true, element_matrices: true}
EOF
mpirun -n 2 "$FEINT" run --quiet "$WORK/long.yaml" -o "$WORK/long.h5" > "$WORK/kill.out" 2>&1 &
mp=$!
long_fail() { # why: fails with mpirun's output, ending the run first if it still goes on
  kill "$mp" 2> /dev/null || true
  wait "$mp" 2> /dev/null || true
  fail "$1; mpirun's output: $(tail -20 "$WORK/kill.out")"
}
running() { # pid: alive and not a zombie (builtins only: it is polled)
  local stat
  { read -r stat < /proc/"$1"/stat; } 2> /dev/null || return 1
  stat=${stat##*) }
  [ "${stat%% *}" != Z ]
}
# rank 1: the first (oldest) process of the run with OMPI_COMM_WORLD_RANK=1 in its environment, looked for every
# 0.05 s for up to 2 minutes (under the sanitizers, beside other tests, mpirun takes a while to start the ranks).
# No pipe into head (a second match would meet a closed pipe, and pipefail end the script), and no pgrep or grep
# whose failure would end it either.
deadline=$((SECONDS + 120))
rank1=
while :; do
  for p in $(pgrep -f "$WORK/long.yaml" || true); do
    if grep -qxzF OMPI_COMM_WORLD_RANK=1 /proc/"$p"/environ 2> /dev/null; then rank1=$p; break; fi
  done
  [ -z "$rank1" ] || break
  kill -0 "$mp" 2> /dev/null || long_fail "the long run ended before its rank 1 was found"
  [ $SECONDS -lt $deadline ] || long_fail "rank 1 of the long run not found in 2 minutes"
  sleep 0.05
done
# then the temporary (up to 4 minutes: the sanitizers read the mesh and compute the integrals slowly)
deadline=$((SECONDS + 240))
until compgen -G "$WORK/long.h5.tmp-*" > /dev/null; do
  running "$rank1" || long_fail "rank 1 of the long run (pid $rank1) ended before rank 0 started its output file"
  [ $SECONDS -lt $deadline ] || long_fail "the long run started no output file in 4 minutes"
  sleep 0.05
done
running "$rank1" && kill -9 "$rank1" 2> /dev/null ||
  long_fail "rank 1 of the long run (pid $rank1) ended before it could be killed (the run is too short)"
set +e
wait "$mp"
rc=$?
set -e
[ $rc -ne 0 ] || fail "mpirun succeeded although rank 1 was killed: $(tail -20 "$WORK/kill.out")"
grep -Eq 'rank 1 .*signal 9' "$WORK/kill.out" ||
  fail "mpirun (status $rc) does not report rank 1 killed by signal 9: $(tail -20 "$WORK/kill.out")"
# rank 0 gone too (up to 10 s) before looking for what it left
for i in $(seq 1 100); do pgrep -f "$WORK/long.yaml" > /dev/null || break; sleep 0.1; done
! ls "$WORK"/long.h5* > /dev/null 2>&1 || fail "a killed run left $(ls "$WORK"/long.h5*)"
echo "ok: rank 1 killed mid-run (its output file started): mpirun's status $rc, no file left"
# without mpirun the plugin is never looked for
FEINT_MPI_PLUGIN=$WORK/none.so "$FEINT" run --quiet "$WORK/p1.yaml" -o "$WORK/plain.h5"
echo "ok: without mpirun feint does not load the MPI plugin"
