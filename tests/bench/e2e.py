"""The end-to-end benchmark (make bench-e2e): `feint run` as a user runs it,
one fresh process per run, on a >= 6M-cell P1 tetrahedral mesh, beside the
floors measured in the same run on the same file system: libgmsh's own
open of the mesh, a plain read of it, a plain write (with and without
fsync) of the output's byte count, and the kernel times (`feint bench`, warm
medians). Prints one table per case and ends with the line
    whole run / (libgmsh's open + plain write) = R
for the first case (the issue's: P1 Poisson, GPU when there is one).
Not a test: it only reports.

usage: e2e.py FEINT GMSH_OPEN GEN_MESH WORKDIR [N] (N^3 cubes of 6 tetrahedra; 100: 6M cells)
E2E_CASES (p1,p2,el,sweep) and E2E_BACKENDS (cuda,cpu) choose what runs (default: all).
"""
import json
import os
import subprocess
import sys
import time

feint, gmsh_open, gen, work = sys.argv[1:5]
work = os.path.abspath(work)
N = int(sys.argv[5]) if len(sys.argv) > 5 else 100
os.makedirs(work, exist_ok=True)
mesh = os.path.join(work, f"cube-{N}.msh")
PHASES = ["case", "mesh_read", "dof_map", "form", "pattern", "setup", "residual", "rhs", "element_matrices",
          "assembly", "write"]


def wall(cmd, **kw):
    t0 = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    return time.perf_counter() - t0, r


def timed_child(cmd):
    """Wall time, peak RSS (MB) and standard output of one fresh process."""
    out = os.path.join(work, "child.out")
    with open(out, "w") as fo, open(os.path.join(work, "child.err"), "w") as fe:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=fo, stderr=fe)
        _, status, ru = os.wait4(p.pid, 0)
        t = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode:
        sys.exit(f"e2e: {' '.join(cmd)} failed ({p.returncode}):\n" + open(os.path.join(work, "child.err")).read())
    return t, ru.ru_maxrss / 1024, open(out).read()


if not os.path.exists(mesh):
    t, r = wall([gen, str(N), mesh])
    if r.returncode:
        sys.exit(f"e2e: mesh generation failed: {r.stderr}")
    print(f"generated {mesh} ({os.path.getsize(mesh) / 1e6:.0f} MB) in {t:.2f} s")

has_gpu = subprocess.run(["nvidia-smi", "-L"], capture_output=True).returncode == 0 if \
    any(os.access(os.path.join(d, "nvidia-smi"), os.X_OK) for d in os.environ.get("PATH", "").split(":")) else False


def floors(out_bytes):
    """Floors on this file system, measured now: the best of three of each
    (libgmsh's open varied 0.9-1.9 s from one run to the next on one host)."""
    f = {}
    opens = []
    for _ in range(3):
        t, r = wall([gmsh_open, mesh])
        opens.append(float(r.stdout.split()[1]) if r.returncode == 0 else float("nan"))
    f["gmsh_open"] = min(opens)
    t0 = time.perf_counter()
    with open(mesh, "rb") as fh:
        while fh.read(1 << 24):
            pass
    f["read"] = time.perf_counter() - t0
    blob = os.urandom(1 << 24)
    target = os.path.join(work, "plain-write.bin")
    for sync in (False, True):
        best = float("inf")
        for _ in range(3):
            t0 = time.perf_counter()
            with open(target, "wb") as fh:
                left = out_bytes
                while left > 0:
                    fh.write(blob[:min(left, len(blob))])
                    left -= len(blob)
                if sync:
                    fh.flush()
                    os.fsync(fh.fileno())
            best = min(best, time.perf_counter() - t0)
            os.remove(target)
        f["write_fsync" if sync else "write"] = best
    return f


def case_file(name, body):
    path = os.path.join(work, name + ".yaml")
    with open(path, "w") as fh:
        fh.write(f"mesh: {{file: {mesh}}}\n" + body)
    return path


P1 = case_file("p1", 'physics: {kind: poisson, kappa: "1 + x*y*z", source: "x + y"}\nstate: {u: "x*y*z"}\n'
               "output: {residual: true, rhs: true, matrix: true}\n")
P2 = case_file("p2", 'space: {order: 2}\nphysics: {kind: poisson, kappa: "1 + x*y*z", source: "x + y"}\n'
               'state: {u: "x*y*z"}\noutput: {residual: true, rhs: true, matrix: true}\n')
EL = case_file("el", 'physics: {kind: elasticity, E: 1, nu: 0.3}\nstate: {u: ["x*y", "y*z", "z*x"]}\n'
               "output: {residual: true, rhs: false, matrix: true}\n")
SW = case_file("sweep", 'physics: {kind: poisson, kappa: "1 + x*y*z", source: "x + y"}\nstate: {u: "x*y*z"}\n'
               "output: {residual: true, rhs: true, matrix: true}\n"
               "sweep: {product: {physics.kappa: [" + ", ".join(str(1 + k) for k in range(20)) + "]},"
               f" output: \"{work}/sweep-{{index}}.h5\"}}\n")

backends = [b for b in (["cuda"] if has_gpu else []) + ["cpu"]
            if b in os.environ.get("E2E_BACKENDS", "cuda,cpu").split(",")]
wanted = os.environ.get("E2E_CASES", "p1,p2,el,sweep").split(",")
summary = []
for key, label, case, sets in [("p1", "P1 Poisson", P1, []), ("p2", "P2 Poisson", P2, []),
                               ("el", "P1 elasticity", EL, [])]:
    if key not in wanted:
        continue
    for be in backends:
        out = os.path.join(work, f"out-{be}.h5")
        runs = []
        for rep in range(2 if be == "cuda" else 1):
            # a new file each time, as the floors write one: replacing a 293 MB
            # file made the rename pay its unlink (134 ms on the H200 host's ext4)
            if os.path.exists(out):
                os.remove(out)
            t, rss, text = timed_child([feint, "run", case, "--backend", be, "-o", out, "--json", "--quiet"] + sets)
            runs.append((t, rss, json.loads(text)))
        t, rss, js = min(runs, key=lambda x: x[0])
        size = os.path.getsize(out)
        warm = None
        if be == "cuda":
            _, _, text = timed_child([feint, "bench", case, "--backend", be, "-o", out, "--json", "--quiet",
                                      "--repeat", "5"] + sets)
            try:
                warm = json.loads(text)
            except ValueError:  # a feint without bench --json
                warm = None
        fl = floors(size)
        print(f"\n== {label}, backend {be} ({js['device']}): {js['cells']} cells, {js['dofs']} dofs, "
              f"{js['nonzeros']} nonzeros; file {size / 1e6:.1f} MB; peak RSS {rss:.0f} MB")
        print(f"{'phase':17s} {'run [s]':>9s} {'h2d [s]':>8s} {'d2h [s]':>8s} {'kernel[ms]':>10s} "
              f"{'bench warm [s]':>14s}")
        for p in PHASES:
            s = js["seconds"][p]
            if s <= 0:
                continue
            kw = (warm or js).get("kernel_seconds", {}).get(p, 0) * 1e3
            ws = f"{warm['seconds'][p]:14.4f}" if warm else f"{'-':>14s}"
            print(f"{p:17s} {s:9.4f} {js['h2d_seconds'][p]:8.4f} {js['d2h_seconds'][p]:8.4f} "
                  f"{kw:10.3f} {ws}")
        for key in ("pattern_steps", "setup_steps", "write_steps", "residual_kernel"):
            if js.get(key):
                print(f"{key}: {js[key]}")
        phase_sum = sum(js["seconds"].values())
        drv = js.get("driver_seconds", phase_sum)
        print(f"{'whole process':17s} {t:9.4f}   (phases {phase_sum:.3f} s, the rest of the run "
              f"{drv - phase_sum:.3f} s, process start and exit {t - drv:.3f} s)")
        print(f"floors (best of 3): libgmsh open {fl['gmsh_open']:.4f} s, plain read {fl['read']:.4f} s, plain write of "
              f"{size / 1e6:.1f} MB {fl['write']:.4f} s ({fl['write_fsync']:.4f} s with fsync)")
        mr = js["seconds"]["mesh_read"]
        print(f"mesh_read / libgmsh open = {mr / fl['gmsh_open']:.3f}; write / plain write = "
              f"{js['seconds']['write'] / fl['write']:.3f}; dof_map + pattern + setup = "
              f"{1e3 * (js['seconds']['dof_map'] + js['seconds']['pattern'] + js['seconds']['setup']):.1f} ms")
        ratio = t / (fl["gmsh_open"] + fl["write"])
        print(f"whole run / (libgmsh's open + plain write) = {ratio:.3f}")
        summary.append((label, be, t, ratio))

# a 20-member sweep (files layout: members share the pattern and dof arrays)
for be in backends if "sweep" in wanted and "p1" in wanted else []:
    t, rss, text = timed_child([feint, "run", SW, "--backend", be, "--json", "--quiet"])
    js = json.loads(text)
    one = [s for (l, b, s, r) in summary if l == "P1 Poisson" and b == be][0]
    own = os.path.getsize(os.path.join(work, "sweep-19.h5"))
    fl = floors(own)
    bound = 2 * (one + 19 * fl["write"])
    print(f"\n== 20-member sweep, backend {be}: {t:.3f} s (one run {one:.3f} s; a member's own "
          f"{own / 1e6:.1f} MB take {fl['write']:.4f} s to write plainly); target 2 x (one run + 19 x that) = "
          f"{bound:.3f} s: {t / bound:.3f} of it; peak RSS {rss:.0f} MB")
    for k in range(20):
        os.remove(os.path.join(work, f"sweep-{k}.h5"))

print()
for label, be, t, r in summary:
    print(f"{label:14s} {be:5s} whole run {t:7.3f} s  / (libgmsh's open + plain write) = {r:.3f}")
if summary:
    print(f"whole run / (libgmsh's open + plain write) = {summary[0][3]:.3f}")
