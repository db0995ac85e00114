# Shared helpers for the command-line tests (sourced).
set -euo pipefail
: "${FEINT:=$PWD/build/feint}"
: "${PY:=/usr/bin/python3}"
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# require_gpu: the GPU scripts (tests/gpu) fail, not pass, without a GPU
require_gpu() {
  local n
  n=$(nvidia-smi -L 2>/dev/null | grep -c GPU || true)
  [ "$n" -gt 0 ] || fail "no GPU visible (this test runs on the GPU machine)"
}
# Under the sanitizers (make test-asan sets ASAN_OPTIONS) a convergence
# study's finer meshes run the code of its first mesh again on more cells:
# most of the sanitized suite's time (t22 and t23 took 11 of its 21 minutes)
# for nothing a sanitizer could find more. There a study runs its first
# mesh only and does not check rates; the plain suite runs it whole.
#   for r in $(levels 0 1 2); do ...; done; rates CHECK-COMMAND...
sanitized() { [ -n "${ASAN_OPTIONS:-}" ]; }
levels() { if sanitized; then echo "$1"; else echo "$@"; fi; }
rates() { if sanitized; then echo "(sanitized build: first mesh only, rates not checked)"; else "$@"; fi; }
# write_case NAME <<EOF ... : a case file in $WORK, meshes from cases/
write_case() { cat > "$WORK/$1"; }
geo() { echo "$ROOT/cases/$1"; }
# agreement_case GEO SIZE ORDER KIND: the case the GPU agreement scripts
# run (tests/gpu: t520, bitwise-builds.sh) on stdout: a coefficient, a
# source and a state u given by expressions, vector-valued for elasticity.
agreement_case() {
  local st='"x*y - z"' src='"sin(x) + y"'
  [ "$4" = elasticity ] && st='["x*y", "y*z", "z - x"]' && src='[1, "x", "y*z"]'
  cat <<EOF
mesh: {file: $(geo "$1"), size: $2}
space: {order: $3}
physics: {kind: $4, kappa: "1 + x*x", lambda: 2, E: "1 + y", nu: 0.3, source: $src}
state: {u: $st}
EOF
}
expect_bad() { # name, expected message fragment (grep -E), feint args...
  # exit status 2, the message on stderr, and no output (nor temporary) file at $WORK/out.h5
  local name=$1 want=$2; shift 2
  rm -f "$WORK/out.h5" "$WORK"/out.h5.tmp-*
  set +e
  "$FEINT" "$@" > "$WORK/stdout" 2> "$WORK/stderr"
  local rc=$?
  set -e
  [ $rc -eq 2 ] || fail "$name: exit status $rc, expected 2 ($(cat "$WORK/stderr"))"
  grep -Eq -- "$want" "$WORK/stderr" || fail "$name: message '$(cat "$WORK/stderr")' lacks /$want/"
  [ ! -e "$WORK/out.h5" ] || fail "$name: output file left behind"
  ! ls "$WORK"/out.h5.tmp-* >/dev/null 2>&1 || fail "$name: temporary file left behind"
  echo "ok $name: $(head -1 "$WORK/stderr")"
}
# manufactured_pair GEO ORDER SIZE NAME DIM [REFINE [K]]: the Poisson problem
# -lap u = f with u = prod_d sin(K pi x_d) (K = 1) on the mesh GEO (in
# cases/, or an absolute path) at SIZE
# refined REFINE times (0), with the state u = the exact solution, run as
# Poisson and as the mass matrix (one feint process: a sweep of the two, the
# mesh read once); prints "poisson.h5,mass.h5", the pair fe_checks.py
# convergence reads (give it k=K when K != 1).
manufactured_pair() {
  local k=${7:-1} src exact
  if [ "$5" = 2 ]; then src="2*($k*pi)^2*sin($k*pi*x)*sin($k*pi*y)"; exact="sin($k*pi*x)*sin($k*pi*y)"
  else src="3*($k*pi)^2*sin($k*pi*x)*sin($k*pi*y)*sin($k*pi*z)"; exact="sin($k*pi*x)*sin($k*pi*y)*sin($k*pi*z)"; fi
  write_case c.yaml <<EOF
mesh: {file: $(case $1 in /*) echo "$1" ;; *) geo "$1" ;; esac), size: $3, refine: ${6:-0}}
space: {order: $2}
physics: {kind: poisson, source: "$src"}
state: {u: "$exact"}
EOF
  "$FEINT" run --quiet "$WORK/c.yaml" -o "$WORK/$4.h5" --set "sweep.list=[{}, {physics.kind: mass}]"
  echo "$WORK/$4-0.h5,$WORK/$4-1.h5"
}

# solution_mass_pair CASE NAME: runs $WORK/CASE as given and as the mass
# matrix without boundary conditions (one feint process, a sweep of the
# two); prints "NAME-0.h5,NAME-1.h5" (the pair bc_checks.py reads: the
# system to solve, the L2 norm's matrix).
solution_mass_pair() {
  "$FEINT" run --quiet "$WORK/$1" -o "$WORK/$2.h5" --set "sweep.list=[{}, {physics.kind: mass, boundary: null}]"
  echo "$WORK/$2-0.h5,$WORK/$2-1.h5"
}

# mixed_pair MESHFILE ORDER SIZE: Dirichlet on "left", the exact flux
# grad(u).n on the other sides of the unit square, u = sin(2x+0.5)
# cos(y+0.3) + x^2 (bc_checks.py mixed_exact); prints "mixed.h5,mass.h5"
# for bc_checks.py mixed.
mixed_pair() {
  write_case x.yaml <<EOF
mesh: {file: $1, size: $3}
space: {order: $2}
physics: {kind: poisson, source: "5*sin(2*x+0.5)*cos(y+0.3) - 2"}
boundary:
  - {group: left, dirichlet: "sin(2*x+0.5)*cos(y+0.3) + x^2"}
  - {group: right, neumann: "2*cos(2*x+0.5)*cos(y+0.3) + 2*x"}
  - {group: top, neumann: "-sin(2*x+0.5)*sin(y+0.3)"}
  - {group: bottom, neumann: "sin(2*x+0.5)*sin(y+0.3)"}
EOF
  solution_mass_pair x.yaml "x$2-$3"
}

# mixed_cube_pair MESHFILE ORDER SIZE REFINE: on a unit cube with groups
# "left" (x = 0) and "boundary", Dirichlet on left and the exact flux on
# the whole boundary (the Dirichlet entry constrains the left face's dofs):
# u = cos(pi x/2) sin(pi y) sin(pi z), whose outward flux on every face but
# x = 0 is (2x-1) u_x + (2y-1) u_y + (2z-1) u_z (nonzero on x = 1; see
# bc_checks.py mixed_cube_exact); prints "mixed.h5,mass.h5" for
# bc_checks.py mixed-cube.
mixed_cube_pair() {
  local UX="-pi/2*sin(pi*x/2)*sin(pi*y)*sin(pi*z)" UY="pi*cos(pi*x/2)*cos(pi*y)*sin(pi*z)"
  local UZ="pi*cos(pi*x/2)*sin(pi*y)*cos(pi*z)"
  write_case x.yaml <<EOF
mesh: {file: $1, size: $3, refine: $4}
space: {order: $2}
physics: {kind: poisson, source: "9*pi^2/4*cos(pi*x/2)*sin(pi*y)*sin(pi*z)"}
boundary:
  - {group: boundary, neumann: "(2*x-1)*$UX + (2*y-1)*$UY + (2*z-1)*$UZ"}
  - {group: left, dirichlet: "sin(pi*y)*sin(pi*z)"}
EOF
  solution_mass_pair x.yaml "x$2-$3-$4"
}

# robin_pair ORDER SIZE ALPHA [MESHFILE]: Poisson with u = sin(pi x)
# sin(pi y) + x and Robin data alpha (du/dn) + alpha u = alpha G, G = u +
# (du/dn) / alpha, on every side of the unit square (square.geo unless
# MESHFILE); prints "r.h5,rm.h5" for robin_checks.py converge.
ROBIN_U="sin(pi*x)*sin(pi*y) + x"
robin_pair() {
  local a=$3 U=$ROBIN_U UX="(pi*cos(pi*x)*sin(pi*y) + 1)" UY="(pi*sin(pi*x)*cos(pi*y))"
  write_case r.yaml <<EOF
mesh: {file: ${4:-$(geo square.geo)}, size: $2}
space: {order: $1}
physics: {kind: poisson, source: "2*pi^2*sin(pi*x)*sin(pi*y)"}
state: {u: "$U"}
boundary:
  - {group: left,   robin: {alpha: "$a", value: "$U - $UX/($a)"}}
  - {group: right,  robin: {alpha: "$a", value: "$U + $UX/($a)"}}
  - {group: bottom, robin: {alpha: "$a", value: "$U - $UY/($a)"}}
  - {group: top,    robin: {alpha: "$a", value: "$U + $UY/($a)"}}
EOF
  solution_mass_pair r.yaml "r$1-$2"
}

# sweep_vs_separate CASE WANT TOL MEMBER...: runs $WORK/CASE as a sweep
# whose members are the MEMBERs (each a ';'-separated list of key=value
# overrides), with the feint arguments in the array SWEEP_ARGS (e.g.
# --backend cuda), then every member alone, and compares them with
# sweep_checks.py (WANT: per member 1 if it should reuse the previous
# member's backend; TOL: 0 for bitwise). The progress lines must say so.
sweep_vs_separate() {
  local case=$1 want=$2 tol=$3; shift 3
  local list="" i=0 sets m kv item
  for m in "$@"; do
    item=""
    IFS=';' read -ra sets <<< "$m"
    for kv in "${sets[@]}"; do item+="${item:+, }${kv%%=*}: ${kv#*=}"; done
    list+="${list:+, }{$item}"
  done
  "$FEINT" run "$WORK/$case" -o "$WORK/sw.h5" --set "sweep.list=[$list]" "${SWEEP_ARGS[@]}" --json \
    > "$WORK/sw.json" 2> "$WORK/progress"
  for m in "$@"; do
    local args=()
    IFS=';' read -ra sets <<< "$m"
    for kv in "${sets[@]}"; do args+=(--set "$kv"); done
    "$FEINT" run --quiet "$WORK/$case" -o "$WORK/sep-$i.h5" "${SWEEP_ARGS[@]}" "${args[@]}"
    i=$((i + 1))
  done
  $PY "$ROOT/tests/cli/sweep_checks.py" "$WORK" "$i" "$want" "$tol"
  local k
  for ((k = 1; k < i; k++)); do
    if [ "${want:k:1}" = 1 ]; then
      grep -q "^feint: member $((k + 1))/$i: setup (backend reused)$" "$WORK/progress" ||
        fail "member $((k + 1)): progress does not say the backend was reused: $(grep setup "$WORK/progress")"
    else
      grep -q "^feint: member $((k + 1))/$i: setup (new backend: .*)$" "$WORK/progress" ||
        fail "member $((k + 1)): progress does not say why the backend is new: $(grep setup "$WORK/progress")"
    fi
  done
  rm -f "$WORK"/sw-*.h5 "$WORK"/sep-*.h5
}

# cell_datasets CASE: $WORK/k.h5 with two random per-cell datasets /a
# (values in 1..2) and /b (2..3) for the cells of $WORK/CASE's mesh.
cell_datasets() {
  local n
  n=$("$FEINT" check "$WORK/$1" | sed -E 's/.*ok \(([0-9]+) cells.*/\1/')
  $PY - "$WORK" "$n" <<'EOF'
import sys, h5py, numpy as np
w, n = sys.argv[1], int(sys.argv[2])
rng = np.random.default_rng()
with h5py.File(f"{w}/k.h5", "w") as f:
    f["a"] = 1 + rng.random(n); f["b"] = 2 + rng.random(n)
EOF
}

# elasticity_case NAME SIZE: $WORK/NAME, P1 elasticity on the unit cube at
# SIZE (E, nu constants, a source and a state with every component), all
# four outputs: a vector form for the sweep checks.
elasticity_case() {
  write_case "$1" <<EOF
mesh: {file: $(geo cube.geo), size: $2}
physics: {kind: elasticity, E: 1, nu: 0.3, source: [1, "x", "y*z"]}
state: {u: ["x*y", "y*z", "z - x"]}
output: {residual: true, rhs: true, matrix: true, element_matrices: true}
EOF
}
# attr FILE NAME: a root attribute of an output file
attr() { $PY -c "import h5py, sys; print(h5py.File(sys.argv[1]).attrs[sys.argv[2]])" "$1" "$2"; }
same_bits() { # A.h5 B.h5 LABEL DATASET...: bitwise equal
  $PY -c "
import h5py, numpy as np, sys
a, b = h5py.File(sys.argv[1]), h5py.File(sys.argv[2])
for n in sys.argv[4:]:
    assert np.array_equal(a[n][:], b[n][:]), sys.argv[3] + ': ' + n + ' differs'
print('  ' + sys.argv[3] + ': bitwise equal (' + ', '.join(sys.argv[4:]) + ')')" "$@"
}
# form_pair LABEL MESH ORDER COMPONENTS STATE BUILTIN-PHYSICS FORM-KEYS: the
# same problem as a built-in physics kind and as kind form (FORM-KEYS: the
# lines under physics after kind: form), compared bitwise (t57-forms-*)
form_pair() {
  local common="mesh: $2
space: {order: $3, components: $4}
state: {u: $5}
output: {residual: true, rhs: true, matrix: true, element_matrices: true}"
  printf '%s\nphysics: %s\n' "$common" "$6" > "$WORK/k.yaml"
  printf '%s\nphysics:\n  kind: form\n%s\n' "$common" "$7" > "$WORK/f.yaml"
  "$FEINT" run --quiet "$WORK/k.yaml" -o "$WORK/k.h5"
  "$FEINT" run --quiet "$WORK/f.yaml" -o "$WORK/f.h5"
  $PY "$ROOT/tests/cli/form_checks.py" bitwise "$WORK/k.h5" "$WORK/f.h5" "$1"
}
# form_sigma C DIM: row C of sigma(u) = lam tr(eps) I + 2 mu eps as f1
# expressions, summed in feint_physics_f1's order (so bitwise its numbers)
form_sigma() {
  local d r="" e xyz=xyz tr="u0_x + u1_y"
  [ "$2" = 3 ] && tr="$tr + u2_z"
  for ((d = 0; d < $2; d++)); do
    e="mu*(u${1}_${xyz:d:1} + u${d}_${xyz:$1:1})"
    [ "$d" != "$1" ] || e="$e + lam*($tr)"
    r="$r${r:+, }\"$e\""
  done
  echo "[$r]"
}
# compare_files LABEL A B [RTOL]: the two result files agree (tests/cli/mpi_compare.py: the same datasets, integer
# ones equal, values within RTOL of each dataset's largest; default 1e-14), else the test fails. (Its verdict is
# taken before it is printed: a failing command inside echo's arguments would not fail the echo.)
compare_files() {
  local out
  out=$($PY "$ROOT/tests/cli/mpi_compare.py" "$2" "$3" ${4:+"$4"}) || fail "$1: the files differ"
  echo "$1: $out"
}
# same_on_two_ranks LABEL ONE-RANK.h5 feint-run-args...: feint run on 2 ranks (mpirun, oversubscribed) writes the
# one-rank file (compare_files); skipped where the MPI plugin or mpirun is missing. OpenMPI's components leak at exit
# from modules LeakSanitizer cannot name (t62): no leak check there.
same_on_two_ranks() {
  local label=$1 one=$2 asan=${ASAN_OPTIONS:-}
  shift 2
  [ -e "$(dirname "$FEINT")/feint-mpi.so" ] && command -v mpirun > /dev/null || return 0
  if sanitized; then asan="$asan:detect_leaks=0"; fi
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ASAN_OPTIONS=$asan \
    mpirun --oversubscribe -n 2 "$FEINT" run --quiet "$@" -o "$WORK/two-ranks.h5" || fail "$label on 2 ranks"
  compare_files "$label, 1 against 2 ranks" "$one" "$WORK/two-ranks.h5"
}
# curved_mixed_geo FILE SHAPES ORDER: a Gmsh program of a curved domain in two cell shapes: the unit disc, its
# right half in quadrilaterals and its left half in triangles (tri-quad); that disc extruded by 1 in two layers of
# hexahedra and prisms (hex-prism); the disc in triangles extruded by 0.5 in two layers of prisms, under a cylinder
# of 0.5 in tetrahedra (tet-prism); physical groups "domain" and "boundary"; ORDER 1..3 or i, as curved_geo.
curved_mixed_geo() {
  local file=$1 shapes=$2 order=$3 o=$3 extra=''
  if [ "$order" = i ]; then o=2 extra='Mesh.SecondOrderIncomplete = 1;\n'; fi
  extra="${extra}Mesh.HighOrderOptimize = 0;\nMesh.ElementOrder = $o;\n"
  local halves='Point(1) = {0, 0, 0};\nPoint(2) = {1, 0, 0};\nPoint(3) = {0, 1, 0};\nPoint(4) = {-1, 0, 0};\nPoint(5) = {0, -1, 0};\nCircle(1) = {5, 1, 2};\nCircle(2) = {2, 1, 3};\nCircle(3) = {3, 1, 4};\nCircle(4) = {4, 1, 5};\nLine(5) = {3, 1};\nLine(6) = {1, 5};\nCurve Loop(1) = {1, 2, 5, 6};\nPlane Surface(1) = {1};\nCurve Loop(2) = {3, 4, -6, -5};\nPlane Surface(2) = {2};\n'
  case $shapes in
    tri-quad) printf "${halves}Recombine Surface{1};\nPhysical Surface(\"domain\") = {1, 2};\nPhysical Curve(\"boundary\") = {1, 2, 3, 4};\n$extra" ;;
    hex-prism) printf "${halves}Recombine Surface{1};\na[] = Extrude {0, 0, 1} { Surface{1}; Layers{2}; Recombine; };\nb[] = Extrude {0, 0, 1} { Surface{2}; Layers{2}; Recombine; };\nPhysical Volume(\"domain\") = {a[1], b[1]};\nPhysical Surface(\"boundary\") = {1, 2, a[0], b[0], a[2], a[3], b[2], b[3]};\n$extra" ;;
    tet-prism) printf "${halves}a[] = Extrude {0, 0, 0.5} { Surface{1, 2}; Layers{2}; Recombine; };\nb[] = Extrude {0, 0, 0.5} { Surface{a[0], a[6]}; };\nPhysical Volume(\"domain\") = {a[1], a[7], b[1], b[7]};\nPhysical Surface(\"boundary\") = {1, 2, b[0], b[6], a[2], a[3], a[8], a[9], b[2], b[3], b[8], b[9]};\n$extra" ;;
    *) fail "curved_mixed_geo: no shapes $shapes" ;;
  esac > "$file"
}
# curved_geo FILE SHAPE ORDER: a Gmsh program of a curved domain: the unit disc in triangles (tri) or
# quadrilaterals (quad), the unit ball in tetrahedra (tet), the disc extruded by 1 in two layers of hexahedra
# (hex) or prisms (prism); physical groups "domain" and "boundary"; ORDER 1..3, or i for Gmsh's incomplete
# second-order cells (Mesh.SecondOrderIncomplete). High-order nodes as Gmsh places them (no optimisation).
curved_geo() {
  local file=$1 shape=$2 order=$3 o=$3 extra='' disc='SetFactory("OpenCASCADE");\nDisk(1) = {0, 0, 0, 1};\n'
  if [ "$order" = i ]; then o=2 extra='Mesh.SecondOrderIncomplete = 1;\n'; fi
  extra="${extra}Mesh.HighOrderOptimize = 0;\nMesh.ElementOrder = $o;\n"
  case $shape in
    quad | hex) extra="Mesh.RecombineAll = 1;\n$extra" ;;
  esac
  case $shape in
    tri | quad) printf "${disc}Physical Surface(\"domain\") = {1};\nPhysical Curve(\"boundary\") = {1};\n$extra" ;;
    tet) printf "SetFactory(\"OpenCASCADE\");\nSphere(1) = {0, 0, 0, 1};\nPhysical Volume(\"domain\") = {1};\nPhysical Surface(\"boundary\") = {1};\n$extra" ;;
    hex | prism) printf "${disc}Extrude {0, 0, 1} { Surface{1}; Layers{2}; Recombine; }\nPhysical Volume(\"domain\") = {1};\nPhysical Surface(\"boundary\") = {1, 2, 3};\n$extra" ;;
    *) fail "curved_geo: no shape $shape" ;;
  esac > "$file"
}
