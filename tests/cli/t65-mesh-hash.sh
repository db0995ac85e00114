# The mesh's provenance hash (mesh_sha256) taken from feint's cache where the file is the one hashed before
# (feint/file_hash.h): a settled file's hash is stored by its first run and read by the next; a file changed in
# place, even to its old size and modification time, is hashed again; a file changed in the seconds before its run
# is not stored; --no-cache and backend.cache: false neither read nor write it. Every run's hash is hashlib's.
source "$(dirname "$0")/lib.sh"
export FEINT_CACHE_DIR="$WORK/cache"
"$BUILD/bench/gen-cube-msh" 6 "$WORK/m.msh" > /dev/null
write_case h.yaml <<EOF
mesh: {file: $WORK/m.msh}
physics: {kind: poisson, source: 1}
output: {rhs: true}
EOF
# run NAME [ARGS...]: a run; prints how the provenance took the hash, checks it against hashlib
run() {
  local name=$1; shift
  "$FEINT" run --quiet --json "$WORK/h.yaml" -o "$WORK/$name.h5" "$@" > "$WORK/$name.json"
  $PY - "$WORK/$name.h5" "$WORK/$name.json" <<'PY' || fail "$name: the mesh's hash"
import hashlib, json, re, sys, h5py
f = h5py.File(sys.argv[1])
want = hashlib.sha256(open(f.attrs["mesh_file"], "rb").read()).hexdigest()
assert f.attrs["mesh_sha256"] == want, (f.attrs["mesh_sha256"], want)
steps = json.loads(open(sys.argv[2]).read().strip().splitlines()[-1])["write_steps"]
print("cached" if "the mesh hash cached" in steps else "hashed")
PY
}
entries() { ls "$FEINT_CACHE_DIR" 2> /dev/null | grep -c '\.bin$' || true; }
expect() { # NAME WANT(cached|hashed) ENTRIES [ARGS...]
  local name=$1 want=$2 n=$3; shift 3
  local got
  got=$(run "$name" "$@")
  [ "$got" = "$want" ] || fail "$name: the hash $got, expected $want"
  [ "$(entries)" = "$n" ] || fail "$name: $(entries) cache entries, expected $n"
  echo "ok $name: $got, $n entries"
}
# a file just written is not stored (its times could stay through another write in the same clock tick)
expect fresh hashed 0
sleep 2.2
expect off-option hashed 0 --no-cache
expect off-key hashed 0 --set backend.cache=false
expect first hashed 1
expect second cached 1
expect off-second hashed 1 --no-cache
# changed in place to the same size, then given back its modification time: its change time still moved
$PY - "$WORK/m.msh" <<'PY'
import os, sys
st = os.stat(sys.argv[1])
data = bytearray(open(sys.argv[1], "rb").read())
data[data.rindex(b"$EndNodes") - 9] ^= 1  # the last coordinate's lowest bit (a binary double, then a newline)
with open(sys.argv[1], "r+b") as f:
    f.write(data)
os.utime(sys.argv[1], ns=(st.st_atime_ns, st.st_mtime_ns))
after = os.stat(sys.argv[1])
assert after.st_size == st.st_size and after.st_mtime_ns == st.st_mtime_ns and after.st_ctime_ns != st.st_ctime_ns
PY
expect changed hashed 1
sleep 2.2
expect changed-settled hashed 2
expect changed-second cached 2
# a damaged entry is not read: hashed again (and stored again)
for f in "$FEINT_CACHE_DIR"/*.bin; do printf 'damaged' | dd of="$f" bs=1 seek=150 conv=notrunc 2> /dev/null; done
expect damaged hashed 2
expect damaged-second cached 2
