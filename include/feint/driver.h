/* feint driver: the whole pipeline of `feint run` and `feint check`
 * (case -> mesh -> space -> form -> plan -> backend -> HDF5), with phase
 * timings. cmd/ parses the command line and maps statuses to exit codes. */
#ifndef FEINT_DRIVER_H
#define FEINT_DRIVER_H

#include <stdint.h>

#include "feint/case.h"

typedef struct {
  const char *case_path;
  int n_overrides;
  const char *const *overrides;
  const char *output;        /* NULL: the case's output.file */
  int backend_set;           /* 1 if --backend was given */
  feint_device_kind backend; /* --backend */
  int device_index;          /* --device N, -1 = default */
  int check_only;            /* validate case and mesh, compute nothing */
  int quiet;
  int json;                  /* feint run --json: print a summary object */
  int no_cache;              /* --no-cache: as backend.cache: false */
  /* Called as each phase starts (may be NULL): the phase name, the sweep
   * member (0-based) and the member count (0 for a single run). */
  void (*progress)(void *ctx, const char *phase, int member, int n_members);
  void *progress_ctx;
  /* Called with each note or warning line meant for standard error (may
   * be NULL: the driver prints it there), so a progress display can end
   * its line first. */
  void (*note)(void *ctx, const char *line);
  int repeat;                /* feint bench: run each compute phase this many times
                                (phase time = median); 0 or 1 = once */
  struct feint_comm *comm;   /* mpirun's ranks (feint/dist.h), NULL on one rank: rank 0 runs
                                feint_driver_run, the others feint_driver_worker */
} feint_run_options;

enum {
  FEINT_PHASE_CASE = 0,
  FEINT_PHASE_MESH,
  FEINT_PHASE_DOFMAP,
  FEINT_PHASE_FORM,
  FEINT_PHASE_PATTERN,
  FEINT_PHASE_SETUP,       /* backend creation (device uploads) */
  FEINT_PHASE_RESIDUAL,
  FEINT_PHASE_RHS,
  FEINT_PHASE_ELEMENT,
  FEINT_PHASE_ASSEMBLY,
  FEINT_PHASE_WRITE,
  FEINT_PHASE_COUNT
};
extern const char *const feint_phase_names[FEINT_PHASE_COUNT];
/* 1 for a phase whose work goes over the cells, so that cells per second
 * says something: not case (parsing), setup (backend creation, uploads)
 * and write. */
static inline int feint_phase_goes_over_cells(int phase) {
  return phase != FEINT_PHASE_CASE && phase != FEINT_PHASE_SETUP && phase != FEINT_PHASE_WRITE;
}

typedef struct {
  double seconds[FEINT_PHASE_COUNT];
  /* Device time of the kernels of a compute phase (median over repeats;
   * 0 when the backend does not measure it, e.g. the CPU). */
  double kernel_seconds[FEINT_PHASE_COUNT];
  /* Wall time of the phase's host-to-device and device-to-host copies
   * (CUDA; compute phases: median over repeats; 0 on the CPU). */
  double h2d_seconds[FEINT_PHASE_COUNT], d2h_seconds[FEINT_PHASE_COUNT];
  /* Fewest bytes a compute phase must move: each input read once, each
   * output written once (node coordinates, connectivity, coefficients,
   * state, result). */
  double min_bytes[FEINT_PHASE_COUNT];
  /* Floating-point operations of a compute phase's algorithm (the model of
   * feint_form_flops; the BP operators': feint_bp_flops), 0: not counted. */
  double flops[FEINT_PHASE_COUNT];
  int n_colors;            /* colours of the cuda backend's cell colouring (assembly.strategy colored), else 0 */
  double driver_seconds;     /* feint_driver_run from start to return (release included): the process's
                               time beyond it is its start and exit */
  char write_steps[400];     /* the write phase piece by piece (a sweep's members one after the other, as far as it fits) */
  char pattern_steps[200];   /* the GPU symbolic phase's steps (feint_plan_cuda_stats); "" else */
  char setup_steps[500];     /* cuda: the backend's creation step by step (feint_cuda_stats); "" else */
  char residual_kernel[160]; /* cuda: which kernel computed the residual (operator: y = A x) and in which cell
                                order, in words; "" else */
  char kernel_family[32];    /* its kernel family (feint info --kernels), "" where the backend has none */
  char matrix_family[32];    /* the kernel family that assembled the matrix, "" */
  /* run-time compiled kernels (a user form on the GPU; feint_backend_info):
   * jit 1 when some backend made any; over the backends created (a sweep
   * member that takes the previous one's backend makes none): how many
   * were compiled and how many came from the disk cache, their compile
   * and load (cache lookup + module load) milliseconds */
  int jit, jit_compiled, jit_cache_hit;
  double jit_compile_ms, jit_load_ms;
  int64_t n_nodes;
  char device[256];
  double gmsh_seconds;     /* of the mesh_read phase, spent inside libgmsh (.geo, refine; 0 for a .msh read natively) */
  int64_t n_cells, n_dofs, nnz;
  int index_bits, slot_bits; /* widths of the plan's column indices and slots (32 or 64; 0: no matrix) */
  int n_members;           /* sweep members run (0 for a single run) */
  int n_ranks;             /* MPI ranks that computed (1 without mpirun) */
  char rank_devices[1024]; /* under mpirun: "0: <device>; 1: <device>; ..." (what each rank's backend ran on) */
  char dist_steps[2048];   /* under mpirun: rank 0's steps with their times (partition, parts, waits, sums) */
  char partition[96];      /* under mpirun: how the cells were shared ("rows, 0.8% of cells twice", "curve", "METIS") */
  int n_backend_reused;    /* sweep members that took the previous member's backend, re-uploading only
                              the form's data (feint_backend_update_form) instead of creating one */
  double residual_norm, rhs_norm, matrix_norm; /* 2-norms of what was written (0 if not) */
  char backend[16];
  char output[1200];
} feint_run_report;

int feint_driver_run(const feint_run_options *opts, feint_run_report *report);
/* A rank other than 0 under mpirun: computes its part of the run rank 0
 * leads (opts->comm set) and returns rank 0's status, printing nothing. */
int feint_driver_worker(const feint_run_options *opts);

/* Wall-clock seconds (monotonic). */
double feint_now(void);

#endif
