#!/usr/bin/env bash
# make bench: per-phase times and cells per second of the CPU reference
# path for P1 and P2 Poisson (P1 coefficient) and P1 elasticity on a
# tetrahedral mesh of >= 500,000 cells. Not a test: it only reports.
set -euo pipefail
cd "$(dirname "$0")/.."
FEINT=$PWD/build/feint
dir=build/bench
mkdir -p "$dir"
mesh=$dir/cube-561k.msh
if [ ! -s "$mesh" ]; then
  echo "meshing the unit cube (once) -> $mesh"
  gmsh -3 -setnumber Mesh.MeshSizeMax 0.02 -setnumber Mesh.MeshSizeFromPoints 0 \
       -format msh41 -bin cases/cube.geo -o "$mesh" > /dev/null
fi
cat > "$dir/bench.yaml" <<EOF
mesh: {file: $(basename "$mesh")}
physics: {kind: poisson, kappa: "1 + x", E: 1, nu: 0.3, source: "x*y"}
state: {u: "x*y*z"}
output: {file: bench.h5}
backend: {device: cpu}
EOF
run() {
  echo "== $1"
  shift
  "$FEINT" run "$dir/bench.yaml" "$@" 2> >(grep -Ev "^feint: [a-z_]+$" >&2) | tail -n +2
}
run "P1 Poisson, P1 kappa" --set space.order=1
run "P2 Poisson, P2 kappa" --set space.order=2
run "P1 elasticity" --set physics.kind=elasticity --set 'state.u=["x*y", "y*z", "z*x"]' --set physics.source=null
rm -f "$dir/bench.h5"
