"""mpirun scaling of `feint run` (issue 20): the whole run as a user runs
it (one fresh mpirun per run) and its phases as rank 0 reports them
(--json), P1 Poisson on generated cubes of 6 N^3 tetrahedra.
  weak:   6M cells per rank (N = 100 P^(1/3)) on 1, 2, ... ranks
  strong: the same mesh on 1, 2, ... ranks (24M cells by default)
Efficiency of a phase: weak t(1)/t(P), strong t(1)/(P t(P)).
Not a test: it only reports.

usage: mpi-scaling.py FEINT GEN_MESH WORKDIR "MPIRUN..." RANKS [STRONG_N] [BACKEND] [PARTITIONS]
  (STRONG_N 0: weak scaling only; PARTITIONS: comma-separated mesh.partition values, each run on every
  rank count above 1 against the same one-rank run; default auto)
  RANKS: comma-separated rank counts (1,2 or 1,2,4); MPIRUN the launcher
  prefix, e.g. "mpirun" or "bash .device-mpi/run mpirun".
  MPI_SCALING_RSS=1: each rank runs under tests/bench/rank-rss.py, and the
  tables give every rank's peak resident set (a Python start more a rank).
  MPI_SCALING_SET="key=value;key=value": more --set options for every run
  (output.xdmf=true, say).
"""
import json
import os
import shlex
import subprocess
import sys
import time

from p1_cube import p1_cube_case

feint, gen, work, mpirun, ranks = sys.argv[1:6]
ranks = [int(r) for r in ranks.split(",")]
strong_n = int(sys.argv[6]) if len(sys.argv) > 6 else 159
backend = sys.argv[7] if len(sys.argv) > 7 else "cuda"
partitions = sys.argv[8].split(",") if len(sys.argv) > 8 else ["auto"]
work = os.path.abspath(work)
RSS = os.environ.get("MPI_SCALING_RSS") == "1"
os.makedirs(work, exist_ok=True)
PHASES = ["mesh_read", "dof_map", "form", "pattern", "setup", "residual", "rhs", "assembly", "write"]


def case(n):
    return p1_cube_case(gen, work, n)


def run(n, p, partition="auto"):
    out = os.path.join(work, f"out-{n}-{p}.h5")
    if os.path.exists(out):
        os.remove(out)
    cmd = [feint, "run", case(n), "--backend", backend, "-o", out, "--json", "--quiet",
           "--set", f"mesh.partition={partition}"]
    for s in filter(None, os.environ.get("MPI_SCALING_SET", "").split(";")):
        cmd += ["--set", s]
    rss_log = os.path.join(work, "rss.log")
    if RSS:
        cmd = [sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "rank-rss.py")] + cmd
        if os.path.exists(rss_log):
            os.remove(rss_log)
    if p > 1:
        cmd = shlex.split(mpirun) + ["-n", str(p)] + (["-x", "RANK_RSS_LOG"] if RSS else []) + cmd
    t0 = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, RANK_RSS_LOG=rss_log))
    t = time.perf_counter() - t0
    if r.returncode:
        sys.exit(f"mpi-scaling: {' '.join(cmd)} failed ({r.returncode}):\n{r.stderr[-3000:]}")
    js = json.loads([line for line in r.stdout.splitlines() if line.startswith("{")][-1])
    if RSS:
        js["rank_rss_mb"] = dict(sorted((int(k), float(v)) for k, v in (line.split() for line in open(rss_log))))
    os.remove(out)
    xdmf = out[:-3] + ".xdmf"
    if os.path.exists(xdmf):
        os.remove(xdmf)
    return t, js


def plain_write(nbytes):
    """Seconds one process takes to write nbytes into a new file beside the
    results (the page cache, as the runs' files): the write's floor."""
    path = os.path.join(work, "plain.bin")
    buf = bytearray(nbytes)
    t0 = time.perf_counter()
    with open(path, "wb") as fh:
        fh.write(buf)
    t = time.perf_counter() - t0
    os.remove(path)
    return t


def write_figures(js):
    """The ranks' write: the steps rank 0 reports, the bytes the ranks wrote
    together (the matrix values and the two vectors) and a plain write of
    as many bytes."""
    nbytes = 8 * (js["nonzeros"] + 2 * js["dofs"])
    floor = plain_write(nbytes)
    return (f"write steps: {js.get('write_steps', '')}; the blocks written together: {nbytes / 1e6:.0f} MB "
            f"(values and both vectors); a plain write of as many bytes {floor * 1e3:.1f} ms "
            f"({nbytes / floor / 1e9:.2f} GB/s)")


def table(title, rows, weak):
    print(f"\n== {title} ({rows[0][2]['device']}, backend {rows[0][2]['backend']})")
    print(f"{'ranks':>5} {'cells':>10} {'whole s':>9} {'eff':>5} " +
          " ".join(f"{ph[:9]:>9}" for ph in PHASES) + f" {'asm kern':>9}")
    t1 = rows[0][1]
    s1 = rows[0][2]["seconds"]
    for p, t, js in rows:
        eff = t1 / t if weak else t1 / (p * t)
        print(f"{p:5d} {js['cells']:10d} {t:9.3f} {eff:5.2f} " +
              " ".join(f"{js['seconds'].get(ph, 0):9.4f}" for ph in PHASES) +
              f" {js['kernel_seconds'].get('assembly', 0) * 1e3:8.2f}m")
    print(f"  1 rank, {write_figures(rows[0][2])}")
    for p, t, js in rows:
        if "rank_rss_mb" in js:
            print(f"  {p} ranks, peak resident set by rank: " +
                  ", ".join(f"{k}: {v:.0f} MB" for k, v in js["rank_rss_mb"].items()))
    for p, t, js in rows[1:]:
        print(f"  {p} ranks, rank 0's steps: {js.get('dist_steps', '')}")
        print(f"  {p} ranks, {write_figures(js)}")
        effs = []
        for ph in ("assembly", "residual", "rhs"):
            a, b = s1.get(ph, 0), js["seconds"].get(ph, 0)
            if a > 0 and b > 0:
                effs.append(f"{ph} {a / b if weak else a / (p * b):.2f}")
        print(f"  {p} ranks: efficiency " + ", ".join(effs) + (" (weak)" if weak else " (strong)"))


one = {}
for partition in partitions:
    weak_rows = []
    for p in ranks:
        n = round(100 * p ** (1 / 3))
        if p == 1 and ("weak", n) in one:
            weak_rows.append(one[("weak", n)])
            continue
        t, js = run(n, p, partition)
        weak_rows.append((p, t, js))
        if p == 1:
            one[("weak", n)] = weak_rows[-1]
        print(f"weak {p} ranks, N={n}, partition {partition}: {t:.3f} s", flush=True)
    table(f"weak scaling, ~6M P1 tetrahedra per rank, mesh.partition {partition}", weak_rows, True)
    strong_rows = []
    for p in ranks if strong_n > 0 else []:
        if p == 1 and ("strong", strong_n) in one:
            strong_rows.append(one[("strong", strong_n)])
            continue
        t, js = run(strong_n, p, partition)
        strong_rows.append((p, t, js))
        if p == 1:
            one[("strong", strong_n)] = strong_rows[-1]
        print(f"strong {p} ranks, N={strong_n}, partition {partition}: {t:.3f} s", flush=True)
    if strong_rows:
        table(f"strong scaling, {6 * strong_n ** 3 / 1e6:.1f}M P1 tetrahedra, mesh.partition {partition}",
              strong_rows, False)
