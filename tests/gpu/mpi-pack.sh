#!/usr/bin/env bash
# mpi-pack: OpenMPI for the GPU machines, which have none (issue 20's
# multi-GPU runs). Copies this machine's Debian OpenMPI runtime (mpirun,
# its components, PMIx and their help files) and every shared library they
# need (except glibc and the CUDA driver) into a tree packed as
# DIR/openmpi.tar.xz (default .device-mpi/), and writes DIR/run:
#
#   bash .device-mpi/run mpirun -n 2 build/feint run case.yaml
#
# which unpacks once into /tmp/feint-ompi and runs the command with
# OPAL_PREFIX, the component paths and the library path set to the copy,
# shared memory between the ranks (btl self,vader; pml ob1: one host) and
# root allowed (the device machines run as root). Combine with
# device-pack's runner for feint's own libraries:
#   bash .device/run bash .device-mpi/run mpirun -n 2 build/feint run ...
# Run tests/deps.sh first (libopenmpi-dev, openmpi-bin).
set -euo pipefail
# Usage: bash tests/gpu/mpi-pack.sh [DIR [ELF...]]: the libraries of the
# ELF files given (build/feint-mpi.so: libmetis) are packed too.
out=${1:-.device-mpi}
shift $(( $# > 0 ? 1 : 0 ))
extra=("$@")
command -v orterun > /dev/null || { echo "mpi-pack: no OpenMPI here (bash tests/deps.sh)" >&2; exit 2; }
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root=$stage/ompi
arch=x86_64-linux-gnu
keep() { # path...: copied to the same path under the tree
  for f in "$@"; do mkdir -p "$root$(dirname "$f")" && cp -a "$f" "$root$f"; done
}
keep /usr/bin/orterun /usr/bin/orted /usr/lib/$arch/openmpi/lib/openmpi3 /usr/share/openmpi \
  /usr/lib/$arch/pmix2/lib/pmix /usr/lib/$arch/pmix2/share /etc/openmpi
mkdir -p "$root/lib"
{ find "$root" -type f \( -name '*.so*' -o -perm -u+x \) -print0; printf '%s\0' "${extra[@]}"; } |
  while IFS= read -r -d '' f; do
    [ -n "$f" ] && file -b "$f" | grep -q ELF || continue
    ldd "$f" 2> /dev/null | awk '/=> \// {print $3}'
  done | sort -u | grep -vE '/(libc|libm|libpthread|libdl|librt|libresolv|libutil|ld-linux[^/]*|libcuda|libnvidia[^/]*)\.so' \
  | while read -r lib; do cp -Ln "$lib" "$root/lib/" 2> /dev/null || true; done
mkdir -p "$out"
XZ_OPT="-6 -T0" tar -C "$stage" -cJf "$out/openmpi.tar.xz" ompi
cat > "$out/run" <<'RUN'
#!/usr/bin/env bash
# Unpack the packed OpenMPI once, then run the command with it.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
rt=/tmp/feint-ompi
if [ ! -f "$rt/.stamp" ] || [ "$here/openmpi.tar.xz" -nt "$rt/.stamp" ]; then
  rm -rf "$rt"; mkdir -p "$rt" && tar -C "$rt" --strip-components=1 -xJf "$here/openmpi.tar.xz" && touch "$rt/.stamp"
fi
arch=x86_64-linux-gnu
export OPAL_PREFIX=$rt/usr PATH=$rt/usr/bin:$PATH
export LD_LIBRARY_PATH=$rt/lib:$rt/usr/lib/$arch/openmpi/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export OMPI_MCA_mca_base_component_path=$rt/usr/lib/$arch/openmpi/lib/openmpi3
export PMIX_MCA_mca_base_component_path=$rt/usr/lib/$arch/pmix2/lib/pmix PMIX_INSTALL_PREFIX=$rt/usr/lib/$arch/pmix2
export OMPI_MCA_btl=self,vader OMPI_MCA_pml=ob1 OMPI_MCA_mca_base_component_show_load_errors=0
export PMIX_MCA_pcompress_base_silence_warning=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
[ -e "$rt/usr/bin/mpirun" ] || ln -s orterun "$rt/usr/bin/mpirun"
exec "$@"
RUN
chmod +x "$out/run"
echo "mpi-pack: $(ls "$root/lib" | wc -l) libraries, $(du -h "$out/openmpi.tar.xz" | cut -f1) in $out/; carry '$out'"
