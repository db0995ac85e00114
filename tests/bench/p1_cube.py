"""The case the mpirun benchmarks run (mpi-scaling.py, mpi-timeline.py):
P1 Poisson (residual, load vector, matrix) on a generated cube of 6 N^3
tetrahedra, the mesh made once per N in the work directory."""
import os
import subprocess
import time


def p1_cube_case(gen, work, n):
    mesh = os.path.join(work, f"cube-{n}.msh")
    if not os.path.exists(mesh):
        t0 = time.perf_counter()
        subprocess.run([gen, str(n), mesh], check=True, capture_output=True)
        print(f"generated {mesh} ({os.path.getsize(mesh) / 1e6:.0f} MB) in {time.perf_counter() - t0:.1f} s",
              flush=True)
    path = os.path.join(work, f"p1-{n}.yaml")
    with open(path, "w") as fh:
        fh.write(f"mesh: {{file: {mesh}}}\n"
                 'physics: {kind: poisson, kappa: "1 + x*y*z", source: "x + y"}\nstate: {u: "x*y*z"}\n'
                 "output: {residual: true, rhs: true, matrix: true}\n")
    return path
