#!/usr/bin/env bash
# Install the Debian packages feint builds and tests with, if missing.
# Usage: bash tests/deps.sh [build|test|fuzz] (fuzz: clang and libFuzzer for make fuzz)
set -euo pipefail
# OpenMPI and METIS: feint-mpi.so, for mpirun -n P feint run (include/feint/dist.h)
pkgs=(build-essential pkg-config libgmsh-dev gmsh libhdf5-dev libyaml-dev libopenmpi-dev openmpi-bin libmetis-dev libhdf5-openmpi-dev)
[ "${1:-build}" = test ] && pkgs+=(hdf5-tools python3-h5py python3-scipy python3-numpy python3-yaml python3-petsc4py libmatio-dev python3-meshio paraview python3-paraview xvfb xauth)
[ "${1:-build}" = fuzz ] && pkgs+=(clang libclang-rt-dev)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  SUDO=; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
