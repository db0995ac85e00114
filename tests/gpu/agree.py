"""GPU agreement of two `feint run` files:
agree.py [--tol=T] [--nonzero] [--ref=BACKEND] REF.h5 GPU.h5 LABEL NORM DATASET...
REF.h5 is the reference (the cpu backend, or another run on the GPU), GPU.h5
came from the cuda backend. NORM: 2 for the relative 2-norm, max for the
relative max-norm, both for each of them. Checks the CSR pattern is the
same where there is one; exits 1 past T (default 1e-12) relative. --nonzero fails a dataset
that is zero in REF.h5 (nothing compared); --ref checks REF.h5's backend."""
import sys
import h5py
import numpy as np

opts = {a.split("=")[0]: a.partition("=")[2] for a in sys.argv[1:] if a.startswith("--")}
args = [a for a in sys.argv[1:] if not a.startswith("--")]
tol = float(opts.get("--tol", "1e-12"))
ref, gpu = h5py.File(args[0]), h5py.File(args[1])
label, norm, names = args[2], args[3], args[4:]
assert gpu.attrs["backend"] == "cuda", gpu.attrs["backend"]
if "--ref" in opts:
    assert ref.attrs["backend"] == opts["--ref"], ref.attrs["backend"]
if "matrix/indices" in ref:  # (an operator run has no matrix)
    assert np.array_equal(ref["matrix/indices"][:], gpu["matrix/indices"][:])
worst = {}
for name in names:
    x, y = ref[name][:], gpu[name][:]
    assert x.shape == y.shape, (name, x.shape, y.shape)
    if "--nonzero" in opts:
        assert np.linalg.norm(x) > 0, f"{label}: {name} is zero: nothing compared"
    e = []
    if norm in ("max", "both"):
        e.append(np.abs(x - y).max() / max(np.abs(x).max(), 1e-300))
    if norm in ("2", "both"):
        e.append(np.linalg.norm(x - y) / max(np.linalg.norm(x), 1e-300))
    worst[name] = max(e)
detail = ", ".join(f"{n} {e:.1e}" for n, e in worst.items()) if len(worst) > 1 else ""
print(f"  {label}: relative difference {max(worst.values()):.2e}" + (f" ({detail})" if detail else "")
      + f" ({gpu.attrs['device']})")
sys.exit(0 if max(worst.values()) <= tol else 1)
