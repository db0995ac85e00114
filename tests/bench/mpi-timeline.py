"""Where a `feint run`'s time goes outside its phases, one rank against
mpirun -n P (issue 20's weak scaling): each run writes its ranks' wall-clock
marks (FEINT_TIMELINE: main, MPI_Init done, run done, MPI_Finalize done,
exit), and this splits the whole run, as the user waits for it, into
  start:    the launcher's start to the last rank's main (mpirun, exec, loading)
  MPI_Init: main to MPI_Init done (the slowest rank)
  run:      rank 0's run (its phases and the waits between them)
  finalize: run done to MPI_Finalize done (rank 0)
  exit:     MPI_Finalize done to the last rank's exit (CUDA's teardown among it)
  end:      the last exit to the launcher's return
and, inside rank 0's run,
  read:     rank 0's mesh read (its share's, or the whole's)
  gpu:      MPI_Init done to the last rank's CUDA context made (the driver
            and the context, which the ranks make beside the read)
Each mark carries the rank's resident set then (MB), its pages from files and its heap;
each run's line is followed by every rank's peak resident set, what it holds once the run
has freed its arrays (CUDA's driver and context, MPI, the libraries), and the difference
(feint's own at the peak). The output is removed before each run, as the floors' files are (replacing
a file makes the file system free the old one: 0.4 s a GiB on the H200
hosts' ext4, mounted with discard). MPI_TIMELINE_MARKS=1 prints every
rank's marks after each run.
P1 Poisson on generated cubes of 6 N^3 tetrahedra, 6M cells a rank (weak;
MPI_TIMELINE_N sets one rank's N, 100 by default).
Not a test: it only reports.

usage: mpi-timeline.py FEINT GEN_MESH WORKDIR "MPIRUN..." RANKS [RUNS] [BACKEND]
"""
import os
import shlex
import subprocess
import sys
import time

from p1_cube import p1_cube_case

feint, gen, work, mpirun, ranks = sys.argv[1:6]
runs = int(sys.argv[6]) if len(sys.argv) > 6 else 3
backend = sys.argv[7] if len(sys.argv) > 7 else "cuda"
ranks = [int(r) for r in ranks.split(",")]
work = os.path.abspath(work)
os.makedirs(work, exist_ok=True)
BASE_N = int(os.environ.get("MPI_TIMELINE_N", "100"))  # one rank's cube: 6 N^3 cells


def case(n):
    return p1_cube_case(gen, work, n)


def one_run(p):
    n = round(BASE_N * p ** (1 / 3))
    log = os.path.join(work, "timeline.txt")
    if os.path.exists(log):
        os.remove(log)
    out = os.path.join(work, "t.h5")
    if os.path.exists(out):
        os.remove(out)
    cmd = [feint, "run", case(n), "--backend", backend, "-o", out, "--quiet"]
    if p > 1:
        cmd = shlex.split(mpirun) + ["-x", "FEINT_TIMELINE", "-n", str(p)] + cmd
    env = dict(os.environ, FEINT_TIMELINE=log)
    t0 = time.time()
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    t1 = time.time()
    if r.returncode:
        sys.exit(f"mpi-timeline: {' '.join(cmd)} failed ({r.returncode}):\n{r.stderr[-2000:]}")
    marks, every, resident = {}, [], {}
    for line in open(log):
        parts = line.split()
        # <rank> <what> <seconds> <resident MB> <from files MB> <heap MB>
        marks.setdefault(int(parts[0]), {})[" ".join(parts[1:-4])] = float(parts[-4])
        every.append((float(parts[-4]), int(parts[0]), " ".join(parts[1:-4]), parts[-3], parts[-2], parts[-1]))
        resident.setdefault(int(parts[0]), {})[" ".join(parts[1:-4])] = float(parts[-3])
    if os.environ.get("MPI_TIMELINE_MARKS") == "1":
        for t, rank, what, mb, file_mb, heap in sorted(every):
            print(f"    {t - t0:7.3f} rank {rank}: {what} ({mb} MB resident, {file_mb} from files, {heap} heap)")
    m0 = marks[0]
    main = max(m["main"] for m in marks.values())
    init = max(m.get("MPI_Init done", m["main"]) for m in marks.values())
    exit_ = max(m["exit"] for m in marks.values())
    start_run = m0.get("MPI_Init done", m0["main"])
    fin = m0.get("MPI_Finalize done", m0["run done"])
    read = m0["read: finished"] - m0["read: start"] if "read: finished" in m0 else float("nan")
    ready = [m["cuda: context made"] for m in marks.values() if "cuda: context made" in m]
    gpu = max(ready) - start_run if ready else float("nan")
    # a rank's peak, what it still holds once the run has freed its arrays (CUDA's driver and context, MPI, the
    # libraries), and the difference: feint's own at the peak
    memory = {r: (max(v.values()), v.get("run done", float("nan"))) for r, v in resident.items()}
    return {"whole": t1 - t0, "start": main - t0, "MPI_Init": init - main, "run": m0["run done"] - start_run,
            "finalize": fin - m0["run done"], "exit": exit_ - fin, "end": t1 - exit_, "read": read, "gpu": gpu,
            "memory": memory}


COLS = ["whole", "start", "MPI_Init", "run", "finalize", "exit", "end", "read", "gpu"]
print(f"{'ranks':>5} " + " ".join(f"{c:>9}" for c in COLS))
for k in range(runs):
    for p in ranks:
        row = one_run(p)
        print(f"{p:5d} " + " ".join(f"{row[c]:9.3f}" for c in COLS), flush=True)
        print("      memory by rank (MB; peak, held once the run has freed its arrays, feint's own at the peak): " +
              ", ".join(f"{r}: {peak:.0f} / {left:.0f} / {peak - left:.0f}" for r, (peak, left) in
                        sorted(row["memory"].items())), flush=True)
