/* Private to the driver module: the state of one run (or sweep member)
 * and what the pipeline (driver.c) and the operator path (operator.c)
 * share. */
#ifndef FEINT_DRIVER_RUN_H
#define FEINT_DRIVER_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "feint/backend.h"
#include "feint/boundary.h"
#include "feint/bp.h"
#include "feint/driver.h"
#include "feint/h5.h"
#include "feint/mesh.h"
#include "feint/file_hash.h"

/* An array's place in the output: a file and the group in it. */
typedef struct {
  char file[1200];
  char group[300];
} run_shared;

/* Rank 0's side of a run under mpirun (dist.c). */
typedef struct run_dist run_dist;
typedef struct run_part run_part;

/* The whole problem's sizes and state, set once its space and form
 * exist: under mpirun rank 0 releases the whole mesh, space and form once
 * the ranks have their parts (when nothing after needs them), and reads
 * these after that. */
typedef struct {
  int64_t n_cells, n_nodes, n_dofs;
  int dim, nv, nb, nbc, order, components, quadrature_degree;
  const double *u;          /* the state: the form's, or run_state.u_kept once the form is released */
  double coefficient_values; /* the form's coefficient fields' values (the work model's bytes) */
  double flops[3];           /* feint_form_flops: residual, load vector, matrix */
} run_whole;

/* Everything a run owns, released in one place. The mesh, space, plan
 * and backend outlive a sweep member when the next member's keys allow
 * (run_reuse, setup_backend). */
typedef struct {
  feint_case *c;       /* the member's case (owned unless it is the base) */
  feint_mesh *mesh;
  feint_space *space;
  feint_form *form;
  feint_boundary_conditions *bc; /* NULL without a boundary section */
  feint_plan *plan;
  /* The backend outlives a member when the next one changes only the
   * form's data (setup_backend): it reads `problem` while it lives, holds
   * the form it last took (backend_form: a previous member's, until it
   * takes this one's or is destroyed) and was made for backend_kind. */
  feint_backend *backend;
  feint_problem problem;
  feint_form *backend_form;
  feint_device_kind backend_kind;
  feint_precision precision; /* what the backend computes in (feint_backend_info) */
  int backend_reused;  /* this member took the previous member's backend (provenance, report) */
  const char *backend_dropped; /* why run_reuse destroyed the previous member's backend, or NULL */
  int reuse_backend;   /* 0: FEINT_BACKEND_REUSE=0, every member creates its backend */
  feint_output *out;
  const char *prefix;  /* "" or "member_0003/": where this member's results go */
  double seconds_before[FEINT_PHASE_COUNT]; /* report's phase times when this member began */
  int member;          /* sweep member index, -1 for a single run */
  int n_members;       /* sweep members, 0 for a single run */
  double *vec, *rhs, *values, *Ke; /* residual, load vector, CSR values, element matrices */
  int values_in_part;  /* values is rank 0's rows' slice of its part's results, which the part holds
                          (run_dist_values_in_part), not an allocation of its own */
  int n_near_null_modes;  /* rows of near_null_space written for this member */
  char out_path[1200];   /* the file r->out writes (a sweep member's own file in the files layout) */
  /* Where this run already wrote the arrays a sweep's members share (file
   * "" = not yet): the pattern (while the plan lives) and the dof arrays
   * (while the space lives); later members link to them (share_at). */
  run_shared pattern_at, dofs_at;
  /* output.xdmf: where the drawn mesh was written (as dofs_at), and the
   * grids of the XDMF file, one a member (xdmf_run.c) */
  run_shared xdmf_at;
  struct run_xdmf_grid *xdmf_grids;
  int n_xdmf_grids;
  feint_file_hash *mesh_hash; /* the mesh file's hash, computed beside the run (or cached) */
  int hash_cache;             /* the hashes may come from and go to the cache (not --no-cache, backend.cache) */
  run_dist *dist;      /* under mpirun on more than one rank, else NULL */
  run_whole whole;
  double *u_kept;      /* the released form's state (run_whole.u) */
} run_state;

/* feint bench repeats a phase at most this often. */
enum { RUN_MAX_REPEAT = 201 };

/* The backends' host <-> device copy totals at one moment
 * (feint_backend_transfer_seconds); run_transfers_add puts what a phase
 * copied since `before` into the report's h2d / d2h seconds. */
typedef struct {
  double h2d, d2h;
} run_transfers;
run_transfers run_transfers_now(void);
run_transfers run_transfers_since(run_transfers before);
void run_transfers_add(feint_run_report *rep, int phase, run_transfers before);

/* Time a step into a report's phase, with its transfers; return its failure. */
#define TIMED(report, phase, expr)                                                                 \
  do {                                                                                             \
    const run_transfers x0_ = run_transfers_now();                                                 \
    double t0_ = feint_now();                                                                      \
    int s_ = (expr);                                                                               \
    (report)->seconds[phase] += feint_now() - t0_;                                                 \
    run_transfers_add(report, phase, x0_);                                                         \
    if (s_) return s_;                                                                             \
  } while (0)

/* Tell the caller a phase starts (progress display). */
void run_starting(const feint_run_options *opts, const run_state *r, int phase);
/* A note or warning line for standard error ("feint: " is added), through
 * opts->note when set. */
void run_note(const feint_run_options *opts, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* How many times to run a compute phase (feint bench --repeat). */
int run_repeats(const feint_run_options *opts);
/* The median of n timings (sorts them). */
double run_median(double *t, int n);
/* Euclidean norm (Frobenius for matrix values), for summaries. */
double run_norm2(const double *v, int64_t n);
/* The kernel (in words and by family) that ran the residual or the
 * operator's apply, and the backend's creation steps, from what the
 * backend reports (feint_backend_info) into rep. */
void run_describe_residual_kernel(const feint_backend_info *info, feint_run_report *rep);
/* Link the dataset `name` of this member to the same dataset where an
 * earlier member wrote it, when `at` says one did (*linked = 1). */
int run_share_at(run_state *r, const run_shared *at, const char *name, int *linked);

/* output.xdmf (xdmf_run.c): whether the cells can be drawn (before
 * anything is computed); the views and cell fields of this run or member
 * (in its write phase), its grid kept; the XDMF file of the grids kept,
 * beside `output` (the HDF5 file, or a sweep's base name), once the HDF5
 * files are committed; the grids forgotten. The views come in two steps:
 * the drawn mesh and the cell fields (from the mesh, space and form: under
 * mpirun rank 0 draws them before it releases the whole), then the point
 * fields (views of the results, from their sizes alone). */
int run_xdmf_check(const run_state *r);
int run_xdmf_mesh_views(run_state *r);
int run_xdmf_result_views(run_state *r);
/* An operator run's (operator.c): its hexahedra drawn by its dof map, its
 * vectors x and y as point fields. */
int run_xdmf_operator_views(run_state *r, const feint_bp_dofmap *dofs);
int run_xdmf_file(run_state *r, const char *output);
void run_xdmf_forget(run_state *r);

/* Name of a result inside this member's place in the file. */
const char *run_member_path(const run_state *r, const char *name, char *buf, size_t size);

/* What the provenance attributes say beyond the case and the mesh. */
typedef struct {
  const char *backend, *device; /* the kind's name, the device in words */
  int single;                /* computed in single precision */
  const char *operator_name; /* operator runs: "BP3.5" etc. (attribute operator); NULL: the case's physics */
  int order, components;
  int quadrature_degree;     /* < 0: not written */
  int64_t n_cells, n_dofs;
} run_provenance;
int run_write_provenance(run_state *r, const feint_run_report *rep, const run_provenance *p);

/* Under mpirun (dist.c), rank 0: the ranks' state (*out NULL on one
 * rank); the partition and the parts sent, rank
 * 0's own part's problem in *own (its backend is r->backend, made by the
 * caller); the other ranks' answers to the setup (their devices, after
 * rank 0's own (its backend's kind name, device, GPU index), into
 * rep->rank_devices); the rows each rank owns, made once for a part
 * (and from their blocks rank 0's whole pattern r->plan, when the matrix
 * is wanted and r->plan is NULL); one compute phase on every rank, summed
 * by the rows' owners, which apply the boundary conditions (the load
 * vector lifted at the matrix's phase when `lift`), and gathered into r's
 * arrays (kernel seconds: rank 0's); the command that ends the other
 * ranks with rank 0's status (once). */
int run_dist_create(struct feint_comm *comm, run_dist **out);
/* Rank 0's read of the mesh (feint_mesh_read, as one rank reads it): for
 * P1 from a binary MSH 4.1 file, with every other rank reading its share
 * of the cells beside it (feint_mesh_read_share), so that the ranks'
 * slabs need not come from rank 0 (run_dist_setup); else rank 0 alone.
 * Share only (share_ok: not a check; share_partition in dist.c says
 * when): rank 0 too reads only its share, *out is that share (every node
 * and facet, its own cells), run_dist_share_only says so, the whole's P1
 * space on it is run_dist_share_space's, and run_dist_share gives the
 * whole's cell count and blocks. */
int run_dist_read_mesh(run_state *r, const feint_mesh_options *mo, int share_ok, feint_mesh **out);
int run_dist_share_only(const run_state *r);
/* Whether a sweep's next member (case c) can go on with rank 0's share as
 * it is, the other ranks' shares gone: one that needs them (a flux's
 * cells), or whose space is not P1 on the share, reads the mesh again. */
int run_dist_share_serves(const run_state *r, const feint_case *c);
int run_dist_share_space(const run_state *r, int components, feint_space **out);
const feint_mesh_share *run_dist_share(const run_state *r);
/* The boundary conditions where rank 0 holds its share only: a flux
 * condition's facets oriented by the cells that may hold them, gathered
 * from every share (as the whole's cells orient them). */
int run_dist_boundary_create(run_state *r, feint_boundary_conditions **out);
/* Where rank 0 holds its share only: the dof map (dataset `name`, made at
 * its full size in r->out before) written by the ranks together, each its
 * share's rows, while they hold their shares (before the setup). */
int run_dist_write_cell_dofs(run_state *r, const char *name);
enum { RUN_XDMF_MAX_FIELDS = 40 }; /* an XDMF grid's fields: residual, rhs, group, the per-cell coefficients, modes */
/* The XDMF file's per-cell datasets names[0..n) (reserved, of the whole's
 * cells), written by the ranks together, each its share's rows: aux[k] -1
 * the cells' groups' Gmsh tags (int64), else the form's per-cell
 * coefficient aux[k] (a form made on each share). */
int run_dist_write_cell_fields(run_state *r, int n, const char *const *names, const int *aux);
/* 1 when run_dist_setup will keep every rank's part (a sweep member on the
 * previous member's mesh and space, set up alike): rank 0's backend, made
 * for its part, may then stay too (each rank decides for its own). */
int run_dist_keeps_parts(const feint_run_options *opts, const run_state *r, feint_device_kind kind, int need_matrix);
/* Whether a backend made for `had` computes `want` once given its form:
 * everything but the form is the same. */
int run_same_setup(const feint_problem *had, const feint_problem *want);
int run_dist_setup(const feint_run_options *opts, run_state *r, feint_device_kind kind, int need_matrix,
                   feint_problem *own);
int run_dist_wait_setup(run_state *r, const char *name, const char *own_device, int device_index,
                        feint_run_report *rep);
int run_dist_rows(run_state *r, int need_matrix);
int run_dist_compute(run_state *r, int phase, int lift, double *kernel_seconds);
/* 1 when the owners keep their blocks and write them into the file
 * together (run_dist_write), 0 when rank 0 gathers them (a Matrix Market
 * copy needs the whole matrix on rank 0); then the sum of squares of a
 * phase's values over all the blocks (the load vector's after lifting). */
int run_dist_collective(const run_state *r);
double run_dist_norm2(const run_state *r, int phase);
/* The whole matrix's nonzeros (after run_dist_rows) and rank 0's own
 * block's (*own): rank 0 holds only its block when the owners write. */
int64_t run_dist_nnz(const run_state *r, int64_t *own);
/* 1 when rank 0's block of the matrix values will be its own rows' slice
 * of its part's results, as a worker's is (the rows partition, the owners
 * writing): the driver allocates no values, run_dist_compute points
 * r->values there. */
int run_dist_values_in_part(const run_state *r);
/* run_dist_write's datasets besides the phases' blocks: the owners' rows
 * of the matrix pattern (row pointers, columns; int64). */
enum { RUN_DIST_INDPTR = -1, RUN_DIST_INDICES = -2 };
/* The owners' blocks of the phases (RESIDUAL, RHS, ASSEMBLY: the matrix
 * values) into the datasets names[k], made at their full size in r->out
 * before (feint_output_reserve_doubles, feint_output_csr without data):
 * every rank writes its own block, with parallel HDF5. */
int run_dist_write(run_state *r, int n, const char *const *names, const int32_t *phases);
void run_dist_finish(run_state *r, int status);
/* The case's mesh options (its mesh section), and the space's components
 * on mesh m: the same on every rank. */
feint_mesh_options run_mesh_options(const feint_case *c);
int run_space_components(const feint_case *c, const feint_mesh *m);
/* Under mpirun, once the parts are sent (dist.c): whether rank 0 still
 * needs the whole mesh, space and form, and their release (rank 0 keeps
 * its part only: mesh, space and form NULL after it). */
int run_whole_needed(const run_state *r);
int run_release_whole(run_state *r);
/* Note a step of rank 0 that took since *t0 (restarted) in the report's
 * dist_steps. */
void run_dist_note(run_state *r, const char *what, double *t0);
/* Rank 0's record of the other ranks' parts (cells and dofs by number)
 * and the partition go with the whole mesh (run_release_whole); the
 * step, begun at t0, is noted. */
void run_dist_release_whole(run_state *r, double t0);
/* The run's mesh or space is about to go (a sweep's next member): the
 * ranks' parts, made of them, cannot be kept. */
void run_dist_forget(run_state *r);
/* The operator section under mpirun (operator.c): rank 0 partitions the
 * hexahedra and sends each rank its part (hexahedra, GLL dof map, x);
 * every rank makes its part's operator and backend, rank 0's described in
 * *own (owned by r->dist; the others' answers read by
 * run_dist_wait_setup); apply: every rank's y = A x of its part, rank 0's
 * own_y given, added into the whole's y. */
typedef struct {
  const feint_bp_op *op;
  feint_operator *apply;
  const double *x;
  int64_t n_dofs;
} run_operator_part;
int run_dist_operator_setup(run_state *r, const feint_run_options *opts, feint_device_kind kind,
                            const feint_hexmesh *hm, const feint_bp_dofmap *d, const double *x, int bp_kind, int geo,
                            double lambda, run_operator_part *own, char *note, size_t note_size);
int run_dist_operator_apply(run_state *r, const double *own_y, int64_t n_whole, double *y);
/* Rank 0's steps so far with their times, in words ("" on one rank). */
const char *run_dist_steps(const run_state *r);
/* How the cells were shared among the ranks, in words ("" on one rank). */
const char *run_dist_partition(const run_state *r);
void run_dist_destroy(run_dist *d);

/* The operator section (operator.c): y = A x on the hexahedra of r->mesh. */
int run_operator(const feint_run_options *opts, feint_run_report *rep, run_state *r);
/* One rank's BP operator on hexahedra hm and its backend (operator.c, and
 * every rank's part under mpirun): a device backend builds straight
 * cells' stored factors itself (no host copy); curved cells' come from
 * the host. */
int run_operator_create(const feint_hexmesh *hm, const feint_bp_dofmap *d, int bp_kind, int geo, double lambda,
                        feint_device_kind kind, int device_index, feint_bp_op **op, feint_operator **apply,
                        char *note, size_t note_size);

#endif
