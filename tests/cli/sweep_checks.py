"""A sweep's members against the same members run alone (sweep_vs_separate
in lib.sh): sweep_checks.py DIR N WANT TOL. DIR holds sw-<i>.h5 (the
sweep's members), sep-<i>.h5 (member i run alone) and sw.json (the sweep's
--json); WANT is a string of N 0/1, whether member i should have reused the
previous member's backend; TOL 0 asks for bitwise equality, else the
largest relative 2-norm difference allowed (the atomic strategy)."""
import json
import sys

import h5py
import numpy as np

w, n, want, tol = sys.argv[1], int(sys.argv[2]), [int(c) for c in sys.argv[3]], float(sys.argv[4])
assert len(want) == n, ("WANT has", len(want), "flags for", n, "members")
names = ["residual", "rhs", "element_matrices", "matrix/data", "matrix/indices", "matrix/indptr"]
got, worst = [], 0.0
for i in range(n):
    sep, mem = h5py.File(f"{w}/sep-{i}.h5"), h5py.File(f"{w}/sw-{i}.h5")
    assert sep.attrs["backend"] == mem.attrs["backend"], (i, sep.attrs["backend"], mem.attrs["backend"])
    for name in names:
        assert (name in sep) == (name in mem), (i, name, "written by one run only")
        if name not in sep:
            continue
        a, b = sep[name][:], mem[name][:]
        assert a.shape == b.shape, (i, name, a.shape, b.shape)
        if tol == 0 or name.startswith("matrix/ind"):
            assert a.tobytes() == b.tobytes(), (i, name, "member differs from its separate run")
        else:
            e = np.linalg.norm(a - b) / max(np.linalg.norm(a), 1e-300)
            worst = max(worst, e)
            assert e <= tol, (i, name, e, "member differs from its separate run")
    assert np.abs(mem["residual"][:]).max() > 0 and np.abs(mem["element_matrices"][:]).max() > 0, (i, "all zero")
    got.append(int(mem.attrs["backend_reused"]))
assert got == want, ("backend_reused per member", got, "expected", want)
# a member that reused the backend computed other values than the one before (the update took effect)
for i in range(1, n):
    if want[i]:
        a, b = h5py.File(f"{w}/sw-{i-1}.h5"), h5py.File(f"{w}/sw-{i}.h5")
        assert any(not np.array_equal(a[x][:], b[x][:]) for x in ["residual", "rhs", "element_matrices"]), (i, "same")
s = json.load(open(f"{w}/sw.json"))
assert s["members"] == n and s["backend_reused"] == sum(want), s
how = "bitwise equal to" if tol == 0 else f"within {worst:.1e} of"
print(f"  {n} members {how} separate runs ({mem.attrs['backend']}); backend reused by members "
      f"{[i for i in range(n) if want[i]]}")
