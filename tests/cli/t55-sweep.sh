# Parameter sweeps in one process: members equal separate runs bitwise
# (files and groups layouts), the mesh is read once when only coefficients
# change, bad sweep definitions are clear input errors.
source "$(dirname "$0")/lib.sh"
write_case s.yaml <<EOF
mesh: {file: $(geo square.geo), size: 0.1}
physics: {kind: poisson, kappa: 1, source: "x*y"}
state: {u: "x + y"}
sweep:
  product: {physics.kappa: [1, 10, "1 + x"], space.order: [1, 2]}
  output: "$WORK/k-{index}.h5"
EOF
"$FEINT" run --quiet "$WORK/s.yaml" -o "$WORK/unused.h5"
"$FEINT" run --quiet "$WORK/s.yaml" -o "$WORK/groups.h5" --set sweep.layout=groups
i=0
for k in 1 10 '"1 + x"'; do
  for p in 1 2; do
    "$FEINT" run --quiet "$WORK/s.yaml" -o "$WORK/sep-$i.h5" --set "physics.kappa=$k" --set space.order=$p --set sweep=null
    i=$((i + 1))
  done
done
$PY - "$WORK" <<'EOF'
import sys, h5py, numpy as np
w = sys.argv[1]
g = h5py.File(f"{w}/groups.h5")
assert g.attrs["sweep_members"] == 6
names = ["matrix/data", "matrix/indices", "matrix/indptr", "rhs", "residual", "dofs/cell_dofs"]
for i in range(6):
    sep, mem = h5py.File(f"{w}/sep-{i}.h5"), h5py.File(f"{w}/k-{i}.h5")
    for n in names:
        if n not in sep:  # the P1 dof map is the mesh's connectivity: not written (output.cell_dofs)
            assert n not in mem and f"member_{i:04d}/{n}" not in g, (i, n, "written in a member only")
            continue
        assert np.array_equal(sep[n][:], mem[n][:]), (i, n, "file member differs from a separate run")
        assert np.array_equal(sep[n][:], g[f"member_{i:04d}/{n}"][:]), (i, n, "group member differs")
    assert not any(l.startswith("sweep:") for l in mem.attrs["case"].splitlines()), "member case has a sweep"
    # only the first member (and the first of each new order) builds a dof map; the mesh is read once
    t = mem.attrs["time_mesh_read"]
    assert (t > 0) == (i == 0), (i, t)
print("6 members equal separate runs bitwise (files and groups); mesh read once")
EOF
rm -f "$WORK"/k-*.h5
expect_bad "bad member key" "sweep member 1: .*unknown key 'kapa'" run "$WORK/s.yaml" -o "$WORK/out.h5" --set 'sweep.product={physics.kappa: [1], space.order: [1]}' --set 'sweep.list=null' --set 'sweep.product=null' --set 'sweep.list=[{physics.kappa: 2}, {physics.kapa: 3}]'
expect_bad "product and list" "exactly one of product or list" run "$WORK/s.yaml" -o "$WORK/out.h5" --set 'sweep.list=[{physics.kappa: 2}]'
expect_bad "template without index" "needs \{index\}" run "$WORK/s.yaml" -o "$WORK/out.h5" --set 'sweep.output=fixed.h5'
! ls "$WORK"/k-*.h5 "$WORK"/out-*.h5 >/dev/null 2>&1 || fail "a failed sweep wrote output"
# progress: plain lines on a non-terminal, nothing with --quiet
"$FEINT" run "$WORK/s.yaml" -o "$WORK/p.h5" --backend cpu > /dev/null 2> "$WORK/progress"
grep -q "^feint: member 6/6: write$" "$WORK/progress" || fail "progress lines: $(cat "$WORK/progress")"
"$FEINT" run --quiet "$WORK/s.yaml" -o "$WORK/p.h5" --backend cpu > "$WORK/out" 2>&1
[ ! -s "$WORK/out" ] || fail "--quiet printed: $(cat "$WORK/out")"
echo progress ok
# members share what does not change: the pattern and the dof arrays are
# written once (hard links in the groups layout, external links into the
# first member's file in the files layout) and read back equal
write_case sh.yaml <<EOF
mesh: {file: $(geo square.geo), size: 0.1}
space: {order: 2}
physics: {kind: poisson, kappa: 1, source: "x*y"}
state: {u: "x + y"}
sweep:
  product: {physics.kappa: [1, 2, 3]}
  output: "$WORK/sh-{index}.h5"
EOF
"$FEINT" run --quiet "$WORK/sh.yaml"
"$FEINT" run --quiet "$WORK/sh.yaml" -o "$WORK/shg.h5" --set sweep.layout=groups
"$FEINT" run --quiet "$WORK/sh.yaml" -o "$WORK/sh-sep.h5" --set sweep=null --set physics.kappa=3
$PY - "$WORK" <<'EOF'
import sys, h5py, numpy as np
w = sys.argv[1]
shared = ["matrix/indptr", "matrix/indices", "matrix/ir", "matrix/jc", "dofs/coordinates", "dofs/component",
          "dofs/cell_dofs"]
g = h5py.File(f"{w}/shg.h5")
addr = lambda f, n: h5py.h5o.get_info(f[n].id).addr
for i in (1, 2):
    m = h5py.File(f"{w}/sh-{i}.h5")
    for n in shared:
        assert addr(g, f"member_{i:04d}/{n}") == addr(g, f"member_0000/{n}"), (i, n, "not a hard link")
        link = m.get(n, getlink=True)
        assert isinstance(link, h5py.ExternalLink) and link.filename == "sh-0.h5", (i, n, link)
    assert not isinstance(m.get("matrix/data", getlink=True), h5py.ExternalLink), "member data linked"
sep, last = h5py.File(f"{w}/sh-sep.h5"), h5py.File(f"{w}/sh-2.h5")
for n in shared + ["matrix/data", "rhs", "residual"]:
    assert np.array_equal(sep[n][:], last[n][:]), (n, "linked member differs from a separate run")
    assert np.array_equal(sep[n][:], g[f"member_0002/{n}"][:]), (n, "group member differs")
print("sweep members share the pattern and dof arrays (hard and external links) and read as separate runs")
EOF
# every member is validated before the first computes: a bad expression or a
# missing dataset file in member 2 leaves no file at all, and the message
# names the member and the value as the sweep gave it
write_case bad.yaml <<EOF
mesh: {file: $(geo square.geo), size: 0.3}
physics: {kind: poisson, kappa: 1}
sweep: {product: {physics.kappa: [1, 2, "x +"]}, output: "$WORK/bad-{index}.h5"}
EOF
expect_bad "bad expression in member 2" "sweep member 2: sweep value physics.kappa=\"x \+\": in expression" \
  run "$WORK/bad.yaml" -o "$WORK/out.h5"
! ls "$WORK"/bad-*.h5 > /dev/null 2>&1 || fail "members before the bad one were computed and written"
expect_bad "missing dataset file in member 1" "sweep member 1: .*cannot read HDF5 file" \
  run "$WORK/bad.yaml" -o "$WORK/out.h5" --set 'sweep.product={physics.kappa: [1, {file: none.h5, dataset: k, on: cell}]}'
! ls "$WORK"/bad-*.h5 > /dev/null 2>&1 || fail "a member was written before the bad one was found"
# validation is linear in the members, and a member is not kept once
# validated: `feint check` on sweeps of N members, measured by the child's
# CPU time (not wall time: the machine may be shared) and peak RSS. Linear
# time: 10x the members cost < 15x the time (quadratic: 100x; the start-up
# is not subtracted: it only lowers a linear ratio, and at small sizes it is
# noise). Memory: 100,000 members (before: 2.1 GB, 21 KB each) stay under
# 300 MB, under 2 KB more per member than 10,000. Under AddressSanitizer
# (make test-asan) smaller sweeps, and no memory bound (its allocator's
# quarantine and shadow).
$PY - "$FEINT" "$WORK" "$(geo square.geo)" "$(sanitized && echo asan)" <<'EOF'
import os, subprocess, sys
feint, work, mesh, asan = sys.argv[1:5]
def check(n):
    """CPU seconds and peak RSS (MB) of feint check on an n-member sweep"""
    path = f"{work}/big{n}.yaml"
    vals = ", ".join(str(1 + i / 1000) for i in range(n))
    with open(path, "w") as f:
        f.write(f"mesh: {{file: {mesh}, size: 0.3}}\nphysics: {{kind: poisson, kappa: 1}}\n"
                f"sweep: {{product: {{physics.kappa: [{vals}]}}}}\n")
    p = subprocess.Popen([feint, "check", path], stdout=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, f"feint check of {n} members failed"
    t, mb = ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024
    print(f"feint check of {n} members: {t:.2f} s CPU, peak RSS {mb:.0f} MB")
    return t, mb
small, large = (2000, 20000) if asan else (10000, 100000)
ts, ms = check(small)
tl, ml = check(large)
ratio = tl / max(ts, 1e-3)
print(f"{large} / {small} members: {ratio:.1f}x the time (linear: at most 10x, quadratic: 100x)")
assert ratio < 15, f"checking {large} members took {ratio:.1f}x the time of {small}: not linear"
if not asan:
    per = (ml - ms) * 1024 / (large - small)
    print(f"{large} members: {ml:.0f} MB, {per:.2f} KB per member more than {small}")
    assert ml < 300, f"feint check of {large} members took {ml:.0f} MB"
    assert per < 2, f"each member adds {per:.1f} KB: members are kept"
EOF
