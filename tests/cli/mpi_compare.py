"""Compare the file of an mpirun run with the one-rank file of the same case:
the same datasets of the same shapes and types, integer datasets equal,
floating ones within rtol of the largest magnitude of each dataset (the
ranks add their parts in another order), and the same attributes but the
run's provenance (timings, the mesh hash's wait, ranks).
Usage: mpi_compare.py ONE.h5 MANY.h5 [rtol]"""
import sys

import h5py
import numpy as np

one, many = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
rtol = float(sys.argv[3]) if len(sys.argv) > 3 else 1e-14
# provenance that describes the run rather than its results
# (backend and device: what ran, which t645 varies; backend_reused: whether a sweep member kept its backend;
# colors: how many colours the cuda backend's cell
# colouring took, of rank 0's own cells under mpirun; the operator's apply_seconds and kernel_seconds are timings)
RUN_ATTRS = {"mpi_ranks", "backend", "device", "backend_reused", "colors", "apply_seconds", "kernel_seconds"}


def names(f):
    out = []
    f.visititems(lambda n, o: out.append(n))
    return sorted(out)


worst = 0.0
n1, n2 = names(one), names(many)
if n1 != n2:
    sys.exit(f"different objects: only one-rank {sorted(set(n1) - set(n2))}, only mpi {sorted(set(n2) - set(n1))}")
for n in n1:
    a, b = one[n], many[n]
    for k in a.attrs:
        if k in RUN_ATTRS or k.startswith("time_"):
            continue
        if k not in b.attrs:
            sys.exit(f"{n}: attribute {k} missing")
        va, vb = a.attrs[k], b.attrs[k]
        if repr(va) != repr(vb):
            sys.exit(f"{n}: attribute {k}: {va!r} != {vb!r}")
    if not isinstance(a, h5py.Dataset):
        continue
    if a.shape != b.shape or a.dtype != b.dtype:
        sys.exit(f"{n}: shape/type {a.shape} {a.dtype} != {b.shape} {b.dtype}")
    x, y = a[()], b[()]
    if a.dtype.kind in "iub":
        if not np.array_equal(x, y):
            sys.exit(f"{n}: integer values differ ({np.count_nonzero(x != y)} entries)")
    elif a.dtype.kind == "f":
        scale = max(np.abs(x).max() if x.size else 0.0, 1e-300)
        d = np.abs(x - y).max() / scale if x.size else 0.0
        worst = max(worst, d)
        if not d <= rtol:
            sys.exit(f"{n}: relative difference {d:.3e} > {rtol:.0e}")
    elif a.dtype.kind in "SOU":
        pass  # strings: the case text, names
print(f"same file: {len(n1)} objects, floating values within {worst:.2e} of the largest")
