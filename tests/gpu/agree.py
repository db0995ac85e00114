"""CPU-vs-GPU agreement of two `feint run` files: agree.py CPU.h5 GPU.h5
LABEL NORM DATASET... (NORM: 2 for the relative 2-norm, max for the
relative max-norm). Checks the GPU file came from the cuda backend and the
CSR pattern is the same; exits 1 past 1e-12."""
import sys
import h5py
import numpy as np

cpu, gpu = h5py.File(sys.argv[1]), h5py.File(sys.argv[2])
label, norm, names = sys.argv[3], sys.argv[4], sys.argv[5:]
assert gpu.attrs["backend"] == "cuda", gpu.attrs["backend"]
assert np.array_equal(cpu["matrix/indices"][:], gpu["matrix/indices"][:])
worst = 0.0
for name in names:
    x, y = cpu[name][:], gpu[name][:]
    if norm == "max":
        e = np.abs(x - y).max() / max(np.abs(x).max(), 1e-300)
    else:
        e = np.linalg.norm(x - y) / max(np.linalg.norm(x), 1e-300)
    worst = max(worst, e)
print(f"  {label}: relative difference GPU - CPU {worst:.2e} ({gpu.attrs['device']})")
sys.exit(0 if worst <= 1e-12 else 1)
