"""Run a command (one rank of an mpirun) and append its peak resident set
to the file named by RANK_RSS_LOG: "<rank> <MB>". For the memory figures of
`feint run` under mpirun (docs/mpi.md): mpirun -n P python3 rank-rss.py feint run ...
Not a test: it only reports."""
import os
import resource
import subprocess
import sys

status = subprocess.call(sys.argv[1:])
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
rank = os.environ.get("OMPI_COMM_WORLD_RANK", os.environ.get("PMI_RANK", "0"))
with open(os.environ["RANK_RSS_LOG"], "a") as log:
    log.write(f"{rank} {peak:.0f}\n")
sys.exit(status)
