/* The run under mpirun (feint/dist.h). Rank 0 runs the pipeline of
 * driver.c on the whole mesh up to the dof numbering and the boundary
 * conditions: it reads the mesh once, numbers the dofs, partitions the
 * cells and sends every other rank a slab of the whole, from which the
 * ranks build their parts together (or, for a Matrix Market copy, which
 * gathers the results on rank 0 by its records of the parts, the part).
 * Each rank (rank 0 too) makes
 * its part's pattern and computes the volume integrals of its own cells
 * on its own device. The rows are owned in contiguous blocks (PETSc's
 * layout, feint_dist_rows). On the rows partition a rank's part holds
 * every cell of its rows, so it sums them whole, bit for bit as one rank
 * does; on a partition of the cells (Morton curve, METIS) each rank sends
 * its contributions to the rows' owners, which add them (equal to
 * rounding: another order). The owners apply the boundary conditions to
 * their rows (rank 0's conditions, sent with each command) and write
 * their blocks into the file together, in the one-rank layout and dof
 * numbers. Element matrices are written by their cells' owners.
 *
 * The other ranks (feint_driver_worker) do what rank 0 tells them, one
 * command at a time, and answer each with a status (and the error's
 * message) before any data, so an error on any rank ends the run on all
 * of them with one message and one exit status, before anything is
 * written. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "driver/run.h"
#include "feint/boundary.h"
#include "feint/bp.h"
#include "feint/dist.h"
#include "feint/error.h"
#include "feint/form.h"
#include "feint/msh.h"
#include "feint/parallel.h"
#include "feint/plan.h"

enum { CMD_SETUP = 1, CMD_ROWS, CMD_COMPUTE, CMD_WRITE, CMD_FINISH, CMD_OPERATOR_SETUP, CMD_OPERATOR_APPLY, CMD_READ,
       CMD_SHARE_CELLS, CMD_CURVE, CMD_FLUX_HOLDERS, CMD_WRITE_CELL_DOFS, CMD_WRITE_CELL_FIELDS, CMD_SHARE_PARTS };

/* How the operator section's parts make their operator (after a command). */
typedef struct {
  int32_t kind, geo; /* feint_bp_kind, feint_bp_geo_mode */
  double lambda;
} operator_setup;

/* What rank 0 sends: a command, its argument (the phase to compute, the
 * status to exit with), for setup how to set up; for a compute phase
 * whether the load vector is lifted with the matrix (symmetric Dirichlet)
 * and whether the blocks stay with their owners, which write them into
 * the file together (collective), or go to rank 0. */
typedef struct {
  int32_t cmd, arg;
  int32_t kind, need_matrix, no_cache, device_index, lift, collective;
  int32_t reuse; /* setup: a sweep member on kept parts may keep each rank's backend (FEINT_BACKEND_REUSE) */
  int32_t nbc_whole; /* element matrices kept by their cells' owners: the whole's rows (local dofs of a cell) */
  int32_t complete;  /* rows: the parts are the rows partition's, each rank's rows whole (feint_dist_rows_create) */
  int32_t slab;      /* setup: a slab of the whole follows, from which the ranks build their parts together */
  int32_t share;     /* setup (with slab): no slab follows, each worker's is its share of the mesh (CMD_READ) */
  int32_t curve;     /* setup (with share): the share's cells' parts are those the worker holds (CMD_CURVE, _SHARE_PARTS) */
  int32_t keep_share; /* setup (with share): kept beside the part (a sweep's later members' XDMF cell fields) */
} command;

/* A worker's blocks: the residual's, the load vector's, the matrix's, the
 * element matrices of the cells it owns. */
enum { BLOCK_RESIDUAL, BLOCK_RHS, BLOCK_MATRIX, BLOCK_ELEMENT, N_BLOCKS };
enum { MAX_ITEMS = 4 }; /* datasets in one collective write */
static int block_of(int phase) {
  return phase == FEINT_PHASE_RESIDUAL ? BLOCK_RESIDUAL
         : phase == FEINT_PHASE_RHS    ? BLOCK_RHS
         : phase == FEINT_PHASE_ELEMENT ? BLOCK_ELEMENT
                                        : BLOCK_MATRIX;
}

/* A rank's problem on its own cells. */
struct run_part {
  feint_case *c;       /* a worker's case (rank 0's is the run's) */
  feint_mesh *mesh;
  feint_space *space;
  feint_form *form;
  feint_plan *plan;    /* NULL without a matrix */
  feint_backend *backend; /* a worker's (rank 0's is run_state's) */
  feint_problem problem; /* the backend's (it keeps its address) */
  feint_problem next;    /* a sweep member's, while the kept backend is offered its form */
  feint_form *old_form;  /* the previous member's form and case, until the kept backend has the new form */
  feint_case *old_c;
  double *result;      /* the last phase's values */
  /* the rows it owns (kept with the pattern), each local dof's whole number */
  feint_dist_rows *rows;
  int64_t *local_whole;
  int complete;                   /* its part holds every cell of its rows (the rows partition) */
  double *blocks[N_BLOCKS];       /* a worker's blocks of the phases computed (BLOCK_...); rank 0's element block */
  double *block_memory[N_BLOCKS]; /* what each block lies in (freed with it): the block, or on the rows
                                     partition the phase's whole results, of which the block is a slice */
  int64_t cell0, n_cells_owned;   /* the whole cells whose element matrices it owns (BLOCK_ELEMENT) */
  int nbc_whole;                  /* and their rows' width */
  int64_t *element_ranges, n_element_ranges; /* or, written where computed, the ranges of the part's
                                                results it writes (feint_dist_cells_in_place) */
  feint_boundary_conditions *bc;  /* a worker's copy of rank 0's conditions (the last command's) */
  /* the operator section (operator.c): the part's hexahedra, dof map, x, operator, its backend (a worker's) */
  feint_hexmesh *hm;
  feint_bp_dofmap *dofs;
  double *x;
  feint_bp_op *op;
  feint_operator *apply;
  /* the last setup's steps: seconds to unpack the part (or its build's last step), make its form, its pattern (and
   * the pattern's steps) */
  double setup_seconds[3];
  int built;                      /* the part was built by the ranks (not unpacked) */
  char plan_steps[200];
};

/* A worker's share of the run's mesh (CMD_READ), until its slab is made of
 * it or a setup without it drops it. */
typedef struct {
  feint_mesh *mesh;
  feint_mesh_share share;
  int components;
  int64_t *rows_counts; /* size: the cells of its share each rank's rows part would hold (the read's answer) */
  int *parts;           /* its cells' parts: placed on the Morton curve (CMD_CURVE) or METIS's (CMD_SHARE_PARTS) */
} worker_share;

static void worker_share_drop(worker_share *w) {
  feint_mesh_destroy(w->mesh);
  free(w->rows_counts);
  free(w->parts);
  memset(w, 0, sizeof *w);
}

struct run_dist {
  feint_comm *comm;
  int size;
  int *partition;          /* the whole mesh's cells -> rank (where rank 0 holds its share only, its share's cells
                              -> rank); NULL: the rows partition (by_rows) */
  int by_rows;             /* the parts are the rows partition's (feint_dist_part_pack) */
  feint_dist_part *parts;  /* what rank 0 keeps of each rank's part */
  run_part own;            /* rank 0's part */
  int workers_busy;        /* 1 while the workers wait for a command (not yet finished) */
  char steps[2048];        /* rank 0's steps with their times, for the report */
  char partition_words[96]; /* the partition in words, for the report */
  int setup_answers;       /* 1 while the workers' answers to the setup are unread */
  int parts_kept;          /* the parts are those of the run's current mesh and space (run_dist_forget clears) */
  command last_setup;      /* the setup they were made with */
  int64_t *value_first;    /* size + 1: where each owner's block starts in the matrix values */
  double norm2[FEINT_PHASE_COUNT]; /* a phase's sum of squares over the owners' blocks (collective) */
  int shares_read;         /* every worker holds its share of the run's mesh (run_dist_read_mesh) */
  int64_t *share_counts;   /* size, or NULL: the workers' shares' cells in each rank's rows part, summed */
  int64_t *own_counts;     /* size, or NULL: rank 0's share's, counted beside the workers' (share_rows) */
  /* rank 0 read its share only (run_dist_read_mesh): the run's mesh is that share, its space the whole's P1 space
   * on it (run_dist_share_space), the partition made on the shares at the read: the rows partition, from their
   * counts, or the curve's (share_parts) */
  int share_only;
  feint_mesh_share share;
  int *share_parts;          /* the curve's: rank 0's share's cells' parts; NULL: the rows partition */
  char share_partition[400]; /* the partition's steps, with their times */
  char read_step[400];     /* how the mesh was read (and a flux's cells gathered), the first of the next setup's
                              steps */
  /* a sweep on rank 0's share: the cells that may hold a facet of any group, gathered at the read */
  int facet_cells_kept;
  int64_t *facet_cells, n_facet_cells;
};

/* What a part holds for one sweep member: its case, form, backend and
 * results. A member on the previous member's mesh and space keeps the
 * rest (mesh, space, pattern, rows) and makes these again; with
 * keep_backend the backend stays, to be given the new form, and the old
 * form and case stay with it until then (part_forget_old). */
static void part_forget_old(run_part *p) {
  feint_form_destroy(p->old_form);
  feint_case_destroy(p->old_c);
  p->old_form = NULL;
  p->old_c = NULL;
}

static void drop_block(run_part *p, int k) {
  free(p->block_memory[k]);
  p->block_memory[k] = p->blocks[k] = NULL;
  if (k != BLOCK_ELEMENT) return;
  free(p->element_ranges);
  p->element_ranges = NULL;
  p->n_element_ranges = 0;
}

static void part_drop_form(run_part *p, int keep_backend) {
  if (!keep_backend) { /* the backend first: it may hold the old form */
    feint_backend_destroy(p->backend);
    feint_form_destroy(p->form);
    feint_case_destroy(p->c);
  }
  part_forget_old(p);
  free(p->result);
  for (int k = 0; k < N_BLOCKS; k++) drop_block(p, k);
  feint_boundary_destroy(p->bc);
  run_part kept = {.mesh = p->mesh, .space = p->space, .plan = p->plan, .rows = p->rows,
                   .local_whole = p->local_whole, .complete = p->complete, .hm = p->hm, .dofs = p->dofs,
                   .x = p->x, .op = p->op, .apply = p->apply};
  if (keep_backend) {
    kept.backend = p->backend;
    kept.problem = p->problem;
    kept.old_form = p->form;
    kept.old_c = p->c;
  }
  *p = kept;
}

static void part_release(run_part *p) {
  part_drop_form(p, 0);
  feint_operator_destroy(p->apply);
  feint_bp_op_destroy(p->op);
  feint_bp_dofmap_destroy(p->dofs);
  feint_hexmesh_destroy(p->hm);
  free(p->x);
  feint_dist_rows_destroy(p->rows);
  free(p->local_whole);
  feint_plan_destroy(p->plan);
  feint_space_destroy(p->space);
  feint_mesh_destroy(p->mesh);
  memset(p, 0, sizeof *p);
}

/* Mesh, space, form and plan of a part from its message. */
static int part_form(run_part *p, const feint_case *c, const command *cmd, int device_index);

/* The part's message lies in *holder, which goes (set to NULL) once the
 * part is unpacked: before its pattern, the setup's largest allocation. */
static int part_setup(run_part *p, const feint_case *c, const void *msg, size_t bytes, void **holder,
                      const command *cmd, int device_index) {
  const double t0 = feint_now();
  const int status = feint_dist_part_unpack(msg, bytes, &p->mesh, &p->space);
  free(*holder);
  *holder = NULL;
  FEINT_CALL(status);
  p->setup_seconds[0] = feint_now() - t0;
  p->built = 0;
  if (!p->space) return feint_error_set(FEINT_ERR_COMPUTE, "internal: a rank's part has no cells");
  return part_form(p, c, cmd, device_index);
}

/* The part its build made (taken over), made_seconds its last step's time. */
static int part_setup_built(run_part *p, const feint_case *c, feint_mesh *mesh, feint_space *space,
                            double made_seconds, const command *cmd, int device_index) {
  p->mesh = mesh;
  p->space = space;
  p->setup_seconds[0] = made_seconds;
  p->built = 1;
  return part_form(p, c, cmd, device_index);
}

/* The part's form (of case c) and, when the matrix is wanted and not made
 * yet, its pattern: the problem it makes is the part's, or p->next while
 * a kept backend waits to be offered it (part_backend). */
static int part_form(run_part *p, const feint_case *c, const command *cmd, int device_index) {
  double t0 = feint_now();
  FEINT_CALL(feint_form_create(c, p->space, &p->form));
  feint_dist_timeline("part: form");
  p->setup_seconds[1] = feint_now() - t0;
  p->setup_seconds[2] = 0;
  p->plan_steps[0] = '\0';
  feint_problem want = {p->space, p->form, p->plan, c->precision, c->strategy, c->blocks_per_batch,
                        c->batches_per_chunk, cmd->no_cache};
  if (cmd->need_matrix && !p->plan) {
    t0 = feint_now();
    FEINT_CALL(feint_backend_create_plan((feint_device_kind)cmd->kind, device_index, &want, &p->plan, p->plan_steps,
                                         sizeof p->plan_steps));
    p->setup_seconds[2] = feint_now() - t0;
    feint_dist_timeline("part: pattern");
    want.plan = p->plan;
  }
  if (p->backend) p->next = want;
  else p->problem = want;
  return FEINT_OK;
}

/* A worker's backend for the member: the kept one given the new form when
 * only the form's data changed (as one rank does, feint_backend_update_form),
 * else a new one. *reused says which. */
static int part_backend(run_part *p, const command *cmd, int device_index, int *reused) {
  *reused = 0;
  if (p->backend) {
    int status = cmd->reuse && run_same_setup(&p->problem, &p->next)
                     ? feint_backend_update_form(p->backend, &p->problem, p->next.form)
                     : FEINT_BACKEND_CANNOT_REUSE;
    if (status == FEINT_BACKEND_CANNOT_REUSE) {
      feint_error_clear();
      feint_backend_destroy(p->backend);
      p->backend = NULL;
      p->problem = p->next;
    } else if (status) {
      return status;
    } else {
      *reused = 1;
    }
  }
  part_forget_old(p);
  if (p->backend) return FEINT_OK;
  char note[512];
  return feint_backend_create((feint_device_kind)cmd->kind, device_index, &p->problem, &p->backend, note, sizeof note);
}

/* A test hook: FEINT_DIST_FAIL=RANK:PHASE (the phase's name, as
 * "assembly"; "setup": the build of the parts from slabs; "curve": the
 * place of its share's cells on the curve; "flux": its search for the
 * cells of a flux's facets; "dofmap": its write of its share's rows of the
 * dof map) makes that rank fail that phase, so that the
 * tests see every rank end with one message while the others wait in the
 * exchange. */
static int injected_failure(int rank, const char *what) {
  const char *hook = getenv("FEINT_DIST_FAIL");
  char here[64];
  snprintf(here, sizeof here, "%d:%s", rank, what);
  if (hook && !strcmp(hook, here))
    return feint_error_set(FEINT_ERR_COMPUTE, "failed on purpose (FEINT_DIST_FAIL=%s)", hook);
  return FEINT_OK;
}

/* One compute phase on rank `rank`'s part into p->result (*n values). */
static int part_compute(run_part *p, int rank, feint_backend *b, int phase, int64_t *n) {
  FEINT_CALL(injected_failure(rank, feint_phase_names[phase]));
  const int64_t nbc = p->space->nbc;
  *n = phase == FEINT_PHASE_ELEMENT    ? p->mesh->n_cells * nbc * nbc
       : phase == FEINT_PHASE_ASSEMBLY ? p->plan->nnz
                                       : p->space->n_dofs;
  free(p->result);
  p->result = NULL;
  /* touched in parallel before the backend writes it (a CSR matrix: page faults cost more than the kernels) */
  FEINT_CALL(feint_malloc_large_touched((size_t)*n + 1, sizeof(double), &p->result, "a part's results"));
  switch (phase) {
    case FEINT_PHASE_RESIDUAL: return b->residual(b, p->form->u, p->result);
    case FEINT_PHASE_RHS: return b->rhs(b, p->result);
    case FEINT_PHASE_ELEMENT: return b->element_matrices(b, p->result);
    case FEINT_PHASE_ASSEMBLY: return b->assemble_matrix(b, p->result);
  }
  return feint_error_set(FEINT_ERR_COMPUTE, "internal: phase %d is not a compute phase", phase);
}

/* Which of the part's cells this rank writes the element matrices of on
 * the rows partition, where a cell is in the part of each rank it has
 * dofs of: the lowest of them, the one holding its lowest dof. */
static int lowest_holder(const run_part *p, int rank, int size, unsigned char **writes) {
  const feint_space *s = p->space;
  int64_t lo, hi;
  feint_dist_rows_scalar_range(s->whole_scalar_dofs, size, rank, &lo, &hi);
  FEINT_CALL(feint_malloc((size_t)p->mesh->n_cells + 1, 1, writes, "the cells a rank writes"));
  for (int64_t i = 0; i < p->mesh->n_cells; i++) {
    int64_t least = INT64_MAX;
    for (int k = 0; k < s->nb; k++) {
      const int64_t d = s->scalar_cell_dofs[i * s->nb + k];
      if (d >= 0 && s->whole_scalar_dof[d] < least) least = s->whole_scalar_dof[d];
    }
    (*writes)[i] = least >= lo;
  }
  return FEINT_OK;
}

/* Element matrices: written by the ranks that computed them where every
 * rank can (no copy), else the part's to their cells' owners, this rank
 * keeping its own cells' for the write (collective). */
static int owned_elements(feint_comm *comm, run_part *p, int status, int nbc_whole) {
  drop_block(p, BLOCK_ELEMENT);
  p->nbc_whole = nbc_whole;
  unsigned char *writes = NULL;
  if (!status && p->complete) status = lowest_holder(p, feint_comm_rank(comm), feint_comm_size(comm), &writes);
  int in_place = 0;
  status = feint_dist_cells_in_place(comm, status, status ? 0 : p->mesh->n_cells, p->space->whole_cell, writes,
                                     p->space->nbc, nbc_whole, &p->element_ranges, &p->n_element_ranges, &in_place);
  free(writes);
  if (status || in_place) {
    p->block_memory[BLOCK_ELEMENT] = p->blocks[BLOCK_ELEMENT] = status ? NULL : p->result;
    if (!status) p->result = NULL;
    return status;
  }
  status = feint_dist_cells_to_owners(comm, status, p->space->whole_cells, p->mesh->n_cells, p->space->whole_cell,
                                      p->space->nbc, p->result, nbc_whole, &p->cell0, &p->n_cells_owned,
                                      &p->blocks[BLOCK_ELEMENT]);
  p->block_memory[BLOCK_ELEMENT] = p->blocks[BLOCK_ELEMENT];
  return status;
}

/* A rank's device in words: the backend's, with the GPU index it took. */
static void device_words(const char *name, const char *device, int device_index, char *out, size_t size) {
  if (strcmp(name, "cuda"))
    snprintf(out, size, "%s", device);
  else
    snprintf(out, size, "%s [GPU %d]", device, device_index < 0 ? 0 : device_index);
}

/* ---- messages ---- */

static int send_command(run_dist *d, int to, const command *cmd, const void *a, size_t na, const void *b,
                        size_t nb) {
  const void *pieces[3] = {cmd, a, b};
  const size_t sizes[3] = {sizeof *cmd, na, nb};
  return feint_comm_sendv(d->comm, to, pieces, sizes, 3);
}

/* A command with up to 15 pieces after it. */
static int send_command_pieces(run_dist *d, int to, const command *cmd, const void *const *pieces,
                               const size_t *sizes, int n) {
  const void *all[16] = {cmd};
  size_t all_sizes[16] = {sizeof *cmd};
  if (n > 15) return feint_error_set(FEINT_ERR_COMPUTE, "internal: a command of %d pieces", n);
  for (int k = 0; k < n; k++) {
    all[k + 1] = pieces[k];
    all_sizes[k + 1] = sizes[k];
  }
  return feint_comm_sendv(d->comm, to, all, all_sizes, n + 1);
}

/* A worker's answer: its status and message, then (status 0) its data
 * (at most 4 pieces). */
static int send_answer(feint_comm *comm, int status, const void *const *pieces, const size_t *sizes, int n) {
  const char *text = status ? feint_error_message() : "";
  const int32_t head[2] = {status, (int32_t)strlen(text)};
  const void *all[6] = {head, text};
  size_t all_sizes[6] = {sizeof head, (size_t)head[1]};
  int k = 2;
  for (int i = 0; i < n && i < 4 && !status; i++, k++) {
    all[k] = pieces[i];
    all_sizes[k] = sizes[i];
  }
  return feint_comm_sendv(comm, 0, all, all_sizes, k);
}

/* Rank `from`'s answer: FEINT_OK and its data (*data, *n: in msg, which
 * the caller frees), or the rank's error as this rank's. */
static int receive_answer(run_dist *d, int from, char **msg, const char **data, size_t *n) {
  size_t bytes = 0;
  *msg = NULL;
  FEINT_CALL(feint_comm_recv(d->comm, from, (void **)msg, &bytes));
  int32_t head[2] = {0, 0};
  if (bytes < sizeof head) return feint_error_set(FEINT_ERR_COMPUTE, "internal: rank %d answered nothing", from);
  memcpy(head, *msg, sizeof head);
  if (head[1] < 0 || sizeof head + (size_t)head[1] > bytes)
    return feint_error_set(FEINT_ERR_COMPUTE, "internal: rank %d's answer is malformed", from);
  if (head[0])
    return feint_error_set(head[0], "rank %d: %.*s", from, head[1], *msg + sizeof head);
  *data = *msg + sizeof head + head[1];
  *n = bytes - sizeof head - (size_t)head[1];
  return FEINT_OK;
}

/* The error to report among several ranks' (a rank's own failure
 * outranks the others' "rank p failed"), with its message. */
typedef struct {
  int status;
  char message[4200], location[200];
} first_error;

static void note_error(first_error *e, int s) {
  if (!s || (e->status && !(e->status == FEINT_DIST_PEER_FAILED && s != FEINT_DIST_PEER_FAILED))) return;
  e->status = s;
  snprintf(e->message, sizeof e->message, "%s", feint_error_message());
  snprintf(e->location, sizeof e->location, "%s", feint_error_location());
}

static int reported(const first_error *e) {
  if (!e->status) return FEINT_OK;
  return feint_error_restore(e->status == FEINT_DIST_PEER_FAILED ? FEINT_ERR_COMPUTE : e->status, e->message,
                             e->location);
}

/* The rows a part owns (collective): local_whole made, then the exchange
 * of the pattern (matrix) or of the rows only. */
/* The answers of workers first .. size - 1, their data dropped: their first error noted. */
static void read_answers(run_dist *d, int first, first_error *e) {
  for (int k = first; k < d->size; k++) {
    char *msg = NULL;
    const char *data;
    size_t bytes;
    note_error(e, receive_answer(d, k, &msg, &data, &bytes));
    free(msg);
  }
}

static int part_rows(run_part *p, feint_comm *comm, int status, int64_t n_rows, int matrix) {
  const feint_space *s = p->space;
  const int nc = s ? s->components : 1;
  if (!status && !s) status = feint_error_set(FEINT_ERR_COMPUTE, "internal: rows of a rank without a part");
  if (!status) status = feint_malloc((size_t)s->n_dofs + 1, sizeof *p->local_whole, &p->local_whole, "dof numbers");
  for (int64_t i = 0; !status && i < s->n_dofs; i++) p->local_whole[i] = s->whole_scalar_dof[i / nc] * nc + i % nc;
  if (!status && matrix && !p->plan) status = feint_error_set(FEINT_ERR_COMPUTE, "internal: rows without a pattern");
  return feint_dist_rows_create(comm, status, n_rows, nc, status ? 0 : s->n_dofs, p->local_whole,
                                matrix ? p->plan : NULL, p->complete, &p->rows);
}

/* The owned rows' pattern as a plan (rows the block's, columns whole). */
static feint_plan block_plan(const feint_dist_rows *rows) {
  feint_plan p;
  memset(&p, 0, sizeof p);
  p.n_rows = rows->n_owned;
  p.nnz = rows->nnz;
  p.indptr = rows->indptr;
  p.indices64 = rows->cols;
  p.indices = rows->cols32;
  return p;
}

/* The boundary conditions on a block of rows after a phase's sum: the
 * residual's; the load vector's (lifted at the matrix's phase when
 * `lift`); the matrix's (after lifting rhs with it). u NULL: bc is a
 * copy packed with the state. */
static int block_conditions(const feint_boundary_conditions *bc, const double *u, const feint_dist_rows *rows,
                            int phase, int lift, double *owned, double *rhs) {
  if (!bc) return FEINT_OK;
  const feint_plan bp = block_plan(rows);
  switch (phase) {
    case FEINT_PHASE_RESIDUAL: feint_boundary_apply_residual_rows(bc, u, rows->row0, rows->n_owned, owned); break;
    case FEINT_PHASE_RHS:
      if (!lift) return feint_boundary_apply_rhs_rows(bc, NULL, rows->row0, rows->n_owned, NULL, owned);
      break;
    case FEINT_PHASE_ASSEMBLY:
      if (lift) FEINT_CALL(feint_boundary_apply_rhs_rows(bc, &bp, rows->row0, rows->n_owned, owned, rhs));
      return feint_boundary_apply_matrix_rows(bc, &bp, rows->row0, owned);
  }
  return FEINT_OK;
}

/* ---- rank 0 ---- */

/* Before a setup: a sweep's previous member's parts go (its mesh or space
 * may differ from this member's). */
void run_dist_forget(run_state *r) {
  if (r->dist) r->dist->parts_kept = 0;
}

static void forget_parts(run_dist *d) {
  d->parts_kept = 0;
  part_release(&d->own);
  if (d->parts)
    for (int k = 0; k < d->size; k++) feint_dist_part_release(&d->parts[k]);
  free(d->parts);
  free(d->partition);
  free(d->value_first);
  d->parts = NULL;
  d->partition = NULL;
  d->by_rows = 0;
  d->value_first = NULL;
  d->steps[0] = '\0';
  d->partition_words[0] = '\0';
}

/* The parts' messages, packed in parallel (a part's failure carried out
 * of its thread: errors are per thread). */
typedef struct {
  void *msg;
  size_t bytes;
  int64_t n_cells;
  int status;
  char why[1024];
} packed;
typedef struct {
  const feint_space *space;
  const int *partition; /* NULL: the rows partition */
  int size;
  feint_dist_part *parts;
  int keep_records; /* 0: rank 0 releases the whole after sending, and its record of each part with it */
  int first;        /* the parts first + a .. first + b of a range */
  packed *out;
} pack_job;

static void pack_range(int64_t a, int64_t b, void *arg) {
  const pack_job *j = arg;
  for (int64_t k = j->first + a; k < j->first + b; k++) {
    packed *o = &j->out[k];
    o->status = feint_dist_part_pack(j->space, j->partition, (int)k, j->size, &o->msg, &o->bytes, &j->parts[k]);
    if (o->status) snprintf(o->why, sizeof o->why, "%s", feint_error_message());
    o->n_cells = j->parts[k].n_cells;
    if (!j->keep_records) feint_dist_part_release(&j->parts[k]); /* not held beside the messages */
  }
}

/* The first failure among the parts [from, to) packed: a part's own, or a
 * part without cells. */
static int packed_status(const pack_job *job, int from, int to, const char *path) {
  for (int k = from; k < to; k++) {
    if (job->out[k].status) return feint_error_restore(job->out[k].status, job->out[k].why, "src/dist/part.c");
    if (job->out[k].n_cells == 0)
      return feint_error_set(FEINT_ERR_INPUT, "%s: the partition left rank %d without cells (run on fewer ranks)",
                             path, k);
  }
  return FEINT_OK;
}

/* Note a step of rank 0 that took since *t0 (restarted). */
static void step(run_dist *d, const char *what, double *t0) {
  if (getenv("FEINT_TIMELINE")) {
    char mark[96];
    snprintf(mark, sizeof mark, "step: %.80s", what);
    feint_dist_timeline(mark);
  }
  const double now = feint_now();
  const size_t used = strlen(d->steps);
  snprintf(d->steps + used, sizeof d->steps - used, "%s%s %.1f ms", used ? ", " : "", what, 1e3 * (now - *t0));
  *t0 = now;
}

void run_dist_note(run_state *r, const char *what, double *t0) { step(r->dist, what, t0); }

/* Rank 0's part made from its message, with its steps. */
static void part_setup_step(run_dist *d, double *t0) {
  const run_part *p = &d->own;
  char what[400];
  char unpacked[80] = ""; /* a built part's making is the build's step */
  if (!p->built) snprintf(unpacked, sizeof unpacked, "unpacked %.1f ms, ", 1e3 * p->setup_seconds[0]);
  snprintf(what, sizeof what, "rank 0's part: form and pattern (%sform %.1f ms, pattern %.1f ms: %s)", unpacked,
           1e3 * p->setup_seconds[1], 1e3 * p->setup_seconds[2], p->plan_steps);
  step(d, what, t0);
}

void run_dist_release_whole(run_state *r, double t0) {
  run_dist *d = r->dist;
  for (int k = 0; d->parts && k < d->size; k++) feint_dist_part_release(&d->parts[k]);
  free(d->partition);
  d->partition = NULL;
  d->parts_kept = 0; /* a part's record is gone: nothing is kept for a next member */
  step(d, "rank 0 keeps its part only (the whole mesh released)", &t0);
}

int run_dist_create(feint_comm *comm, run_dist **out) {
  *out = NULL;
  if (!comm || feint_comm_size(comm) < 2) return FEINT_OK;
  run_dist *d = NULL;
  FEINT_CALL(feint_calloc(1, sizeof *d, &d, "the ranks"));
  d->comm = comm;
  d->size = feint_comm_size(comm);
  d->workers_busy = 1;
  *out = d;
  return FEINT_OK;
}

/* The rows partition's parts' cells (counts[size]): where the workers
 * read their shares of the mesh, they counted them while rank 0 read
 * (share_counts), and rank 0 counts its own share only (its first n_cells
 * rows of cell_dofs); else the whole. */
static int shares_serve(int shares_read, const feint_space *s);

static int counts_with_shares(const run_dist *d, const int64_t *cell_dofs, int nb, int64_t n_cells, int64_t n_scalar,
                              int64_t *counts) {
  FEINT_CALL(feint_dist_rows_count_cells(cell_dofs, nb, n_cells, n_scalar, d->size, counts));
  for (int q = 0; q < d->size; q++) counts[q] += d->share_counts[q];
  return FEINT_OK;
}

static int rows_part_cells(const run_dist *d, const run_state *r, int shares_read, int64_t *counts, int *on_shares) {
  const feint_space *s = r->space;
  *on_shares = d->share_counts && shares_serve(shares_read, s);
  if (!*on_shares) return feint_dist_rows_part_cells(s, d->size, counts);
  int64_t c0 = 0, c1 = 0;
  feint_dist_rows_scalar_range(s->mesh->n_cells, d->size, 0, &c0, &c1);
  return counts_with_shares(d, s->scalar_cell_dofs, s->nb, c1, s->n_scalar_dofs, counts);
}

/* Whether the rows partition is taken (mesh.partition rows, or auto where
 * its largest part is at most 5/4 of an equal share), from its parts'
 * cells among the whole's n_cells; the step in words (what). */
static int take_rows(run_dist *d, int kind, const int64_t *counts, int64_t n_cells, int on_shares, char *what,
                     size_t size) {
  int64_t most = 0, least = INT64_MAX, sum = 0;
  for (int q = 0; q < d->size; q++) {
    most = counts[q] > most ? counts[q] : most;
    least = counts[q] < least ? counts[q] : least;
    sum += counts[q];
  }
  const double share = (double)n_cells / d->size;
  /* (a rank without rows, fewer dofs than ranks, has no cells: the explicit choice says so when packing) */
  const int by_rows = kind == FEINT_PARTITION_ROWS || (most <= 1.25 * share && least > 0);
  const double twice = 100.0 * (double)(sum - n_cells) / (double)n_cells;
  if (by_rows) snprintf(d->partition_words, sizeof d->partition_words, "rows, %.1f%% of cells twice", twice);
  snprintf(what, size, "partition (rows%s: largest part %.3f of an equal share, %.1f%% of cells twice%s)%s",
           kind == FEINT_PARTITION_AUTO ? ", auto" : "", (double)most / share, twice,
           on_shares ? "; counted on the shares" : "", by_rows ? "" : ", not taken");
  return by_rows;
}

/* The whole mesh's cells shared among the ranks (mesh.partition), and the
 * parts' slots: the start of every setup. by_rows 0 (the operator
 * section, whose parts' vectors rank 0 adds) takes a partition of the
 * cells. auto takes the rows partition: P1, whose rows follow the nodes;
 * not higher orders, whose first block of rows holds every vertex and so
 * touches every cell. */
static int partition_cells(run_dist *d, const run_state *r, int by_rows, int shares_read, double *t0) {
  const feint_mesh *m = r->mesh;
  if (m->n_cells < d->size)
    return feint_error_set(FEINT_ERR_INPUT, "%s: %lld cells cannot be shared among %d ranks (run on fewer)", m->path,
                           (long long)m->n_cells, d->size);
  const int kind = r->c->mesh_partition;
  d->by_rows = 0;
  if (by_rows && (kind == FEINT_PARTITION_ROWS || kind == FEINT_PARTITION_AUTO)) {
    int64_t *counts = NULL;
    FEINT_CALL(feint_malloc((size_t)d->size, sizeof *counts, &counts, "the parts' sizes"));
    int on_shares = 0;
    const int status = rows_part_cells(d, r, shares_read, counts, &on_shares);
    char what[200];
    if (!status) d->by_rows = take_rows(d, kind, counts, m->n_cells, on_shares, what, sizeof what);
    free(counts);
    FEINT_CALL(status);
    step(d, what, t0);
  }
  if (!d->by_rows) {
    FEINT_CALL(feint_malloc((size_t)m->n_cells, sizeof *d->partition, &d->partition, "the partition"));
    if (kind == FEINT_PARTITION_METIS)
      FEINT_CALL(feint_comm_partition(d->comm, m, d->size, d->partition));
    else
      FEINT_CALL(feint_dist_partition_curve(m, d->size, d->partition));
    step(d, kind == FEINT_PARTITION_METIS ? "partition (METIS)" : "partition (curve)", t0);
    snprintf(d->partition_words, sizeof d->partition_words, "%s", kind == FEINT_PARTITION_METIS ? "METIS" : "curve");
  }
  return feint_calloc((size_t)d->size, sizeof *d->parts, &d->parts, "the parts");
}

/* Two strings as a command's payload: their lengths (int32), then their bytes. The case text as a setup's: the
 * case's name, its as_run. */
static int two_strings(const char *a, const char *b, const char *what, char **out, size_t *n) {
  const int32_t lens[2] = {(int32_t)strlen(a), (int32_t)strlen(b)};
  *n = sizeof lens + (size_t)lens[0] + (size_t)lens[1];
  FEINT_CALL(feint_malloc(*n, 1, out, what));
  memcpy(*out, lens, sizeof lens);
  memcpy(*out + sizeof lens, a, (size_t)lens[0]);
  memcpy(*out + sizeof lens + lens[0], b, (size_t)lens[1]);
  return FEINT_OK;
}

/* two_strings' payload read back: the strings (not terminated) and their
 * lengths, and the bytes they took (*at); 0 where it is cut short. */
static int two_strings_read(const char *data, size_t bytes, const char **a, int32_t *na, const char **b, int32_t *nb,
                            size_t *at) {
  int32_t lens[2] = {-1, -1};
  if (bytes >= sizeof lens) memcpy(lens, data, sizeof lens);
  if (lens[0] < 0 || lens[1] < 0 || sizeof lens + (size_t)lens[0] + (size_t)lens[1] > bytes) return 0;
  *a = data + sizeof lens;
  *na = lens[0];
  *b = data + sizeof lens + lens[0];
  *nb = lens[1];
  *at = sizeof lens + (size_t)lens[0] + (size_t)lens[1];
  return 1;
}

static int case_payload(const feint_case *c, char **out, size_t *n) {
  return two_strings(c->path, c->as_run, "the case for the other ranks", out, n);
}

/* Whether the workers read their shares of the mesh beside rank 0's read
 * (feint_mesh_read_share), for their slabs (setup_by_slabs; on a
 * partition of the cells rank 0 sends each worker its share's cells'
 * parts): P1 written collectively, from a binary MSH 4.1 file (a text
 * file would be parsed whole by every rank). Whether the shares serve is
 * known once the space is made: P1 on every node of triangles or
 * tetrahedra (shares_serve); else the workers drop them.
 * FEINT_DIST_READ=rank0: rank 0 reads alone (measuring). */
static int read_in_shares(const run_state *r, const feint_mesh_options *mo) {
  const feint_case *c = r->c;
  const char *read = getenv("FEINT_DIST_READ"), *build = getenv("FEINT_DIST_BUILD");
  return run_dist_collective(r) && c->order == 1 && !c->has_operator && !(read && !strcmp(read, "rank0")) &&
         !(build && !strcmp(build, "rank0")) &&
         !feint_mesh_read_forks(c->mesh_file, mo) && feint_msh_is_binary41(c->mesh_file);
}

static int shares_serve(int shares_read, const feint_space *s) {
  return shares_read && s->scalar_cell_dofs_borrowed && !feint_mesh_is_mixed(s->mesh) &&
         feint_cell_is_simplex(s->mesh->cell_type);
}

/* Rank 0's share is the whole. */
static void whole_range(int64_t n, int size, int rank, int64_t *lo, int64_t *hi) {
  (void)size;
  (void)rank;
  *lo = 0;
  *hi = n;
}


int run_dist_share_serves(const run_state *r, const feint_case *c) {
  return r->dist && r->dist->share_only && c->order == 1;
}

/* With rank 0's share only: whether the rows partition is taken, from the
 * shares' counts, every rank's made at the read (P1 on every node, where
 * the shares make the slabs), its step noted for the setup (*counted: the
 * counts were there). */
static int share_rows(run_dist *d, const run_state *r, const feint_mesh_share *sh, int *counted) {
  /* the workers' counts and rank 0's own, both made at the read */
  *counted = 0;
  int64_t *counts = NULL;
  if (!d->share_counts || !d->own_counts) return 0;
  if (feint_malloc((size_t)d->size, sizeof *counts, &counts, "the parts' sizes")) {
    feint_error_clear(); /* then the whole's way */
    return 0;
  }
  *counted = 1;
  const double t0 = feint_now();
  for (int q = 0; q < d->size; q++) counts[q] = d->own_counts[q] + d->share_counts[q];
  char what[200];
  const int rows = take_rows(d, r->c->mesh_partition, counts, sh->whole_cells, 1, what, sizeof what);
  snprintf(d->share_partition, sizeof d->share_partition, "%s %.1f ms", what, 1e3 * (feint_now() - t0));
  free(counts);
  return rows;
}

/* The end of a partition made on the shares: on failure rank 0's parts
 * dropped; else its step (how, with the details given) added to the
 * setup's, and its name (words) for the report. */
static int share_partition_done(run_dist *d, int status, const char *how, const char *details, const char *words,
                                double t0) {
  if (status) {
    free(d->share_parts);
    d->share_parts = NULL;
    return status;
  }
  const size_t used = strlen(d->share_partition);
  snprintf(d->share_partition + used, sizeof d->share_partition - used, "%spartition (%s: %s) %.1f ms",
           used ? ", " : "", how, details, 1e3 * (feint_now() - t0));
  snprintf(d->partition_words, sizeof d->partition_words, "%s", words);
  return FEINT_OK;
}

/* Collective with every worker (CMD_CURVE): the curve's partition made on
 * the shares, each rank placing its own cells (rank 0's parts in
 * d->share_parts), its step added to the setup's. */
static int share_curve(run_dist *d, const feint_mesh *mine, const feint_mesh_share *sh) {
  const double t0 = feint_now();
  const command cmd = {.cmd = CMD_CURVE};
  for (int k = 1; k < d->size; k++) FEINT_CALL(send_command(d, k, &cmd, NULL, 0, NULL, 0));
  first_error e = {0};
  double seconds[3] = {0, 0, 0};
  note_error(&e, feint_dist_curve_parts_of_share(d->comm, injected_failure(0, "curve"), mine, sh, &d->share_parts,
                                                 seconds));
  read_answers(d, 1, &e); /* every worker answers */
  char details[160];
  snprintf(details, sizeof details,
           "each rank placed its own cells; counted %.1f ms, exchanged %.1f ms, placed %.1f ms", 1e3 * seconds[0],
           1e3 * seconds[1], 1e3 * seconds[2]);
  return share_partition_done(d, reported(&e), "curve, on the shares", details, "curve", t0);
}

static int share_metis(run_dist *d, const feint_mesh *mine, const feint_mesh_share *sh);

/* With rank 0's share only (P1 on every node, enough cells for the ranks):
 * the partition made on the shares (*taken): the rows partition where the
 * case may take it, else the curve's; not METIS's, nor the rows
 * partition where the shares could not count it (rank 0 then gathers the
 * whole). */
static int share_partition(run_dist *d, const run_state *r, const feint_mesh *mine, const feint_mesh_share *sh,
                           int *taken) {
  d->share_partition[0] = '\0';
  *taken = 0;
  if (sh->nodes_in_cells != mine->n_nodes || sh->whole_cells < d->size) return FEINT_OK;
  const int kind = r->c->mesh_partition;
  int counted = 0;
  if (kind == FEINT_PARTITION_ROWS || kind == FEINT_PARTITION_AUTO) {
    *taken = share_rows(d, r, sh, &counted);
    if (*taken || !counted || kind == FEINT_PARTITION_ROWS) return FEINT_OK;
  } else if (kind == FEINT_PARTITION_METIS) {
    FEINT_CALL(share_metis(d, mine, sh));
    *taken = 1;
    return FEINT_OK;
  } else if (kind != FEINT_PARTITION_MORTON) {
    return FEINT_OK;
  }
  FEINT_CALL(share_curve(d, mine, sh));
  *taken = 1;
  return FEINT_OK;
}

/* The whole mesh on rank 0 made of the ranks' shares (feint_dist_whole_of_shares): rank 0's share becomes the
 * whole, the others' cells and groups coming in their answers (CMD_SHARE_CELLS), read one at a time. */
typedef struct {
  run_dist *d;
  int nv, grouped;
  char *msg;    /* the answer read last */
  int answered; /* the workers whose answers were read */
} share_pieces;

static int share_piece(void *ctx, int k, const int64_t **cells, const int **groups, int64_t *n) {
  share_pieces *p = ctx;
  free(p->msg);
  p->msg = NULL;
  const char *data = NULL;
  size_t bytes = 0;
  p->answered = k;
  FEINT_CALL(receive_answer(p->d, k, &p->msg, &data, &bytes));
  /* its cells' count, then its rows (int64, aligned) and their groups */
  int64_t count = -1;
  if (bytes >= sizeof count) memcpy(&count, data, sizeof count);
  const size_t rows = count >= 0 ? (size_t)count * (size_t)p->nv * 8 : 0;
  if (count < 0 || bytes != sizeof count + rows + (size_t)count * (p->grouped ? 4 : 0))
    return feint_error_set(FEINT_ERR_COMPUTE, "internal: rank %d's share's cells are malformed", k);
  *n = count;
  *cells = (const int64_t *)(const void *)(data + sizeof count);
  *groups = p->grouped ? (const int *)(const void *)(data + sizeof count + rows) : NULL;
  return FEINT_OK;
}

/* A share's cells (rows of nv node numbers, all set: simplices) as
 * METIS's vertex list from eind[at * nv] on. */
typedef struct {
  const int64_t *rows;
  int32_t *eind;
  int64_t at;
  int nv;
} metis_rows_job;

static void metis_rows_range(int64_t a, int64_t b, void *arg) {
  const metis_rows_job *j = arg;
  for (int64_t i = a * j->nv; i < b * j->nv; i++) j->eind[j->at * j->nv + i] = (int32_t)j->rows[i];
}

/* METIS's partition with rank 0 on its share: the shares' cells gathered
 * straight into METIS's 32-bit lists, and nothing else of the whole (no
 * groups, space or form), then each worker sent its share's cells' parts,
 * which it holds as the curve's (CMD_SHARE_PARTS), rank 0's in
 * d->share_parts. METIS is given the whole read's cells, in its order:
 * its parts. */
static int share_metis(run_dist *d, const feint_mesh *mine, const feint_mesh_share *sh) {
  double t0 = feint_now(), seconds[3] = {0, 0, 0};
  const int64_t whole = sh->whole_cells, nv = mine->nv;
  if (mine->n_nodes > INT32_MAX || whole * nv > INT32_MAX)
    return feint_error_set(FEINT_ERR_INPUT, "%s: %lld cells of %lld vertices in all are past METIS's 32-bit indices "
                           "(2^31)", mine->path, (long long)whole, (long long)(whole * nv));
  const command cmd = {.cmd = CMD_SHARE_CELLS};
  for (int k = 1; k < d->size; k++) FEINT_CALL(send_command(d, k, &cmd, NULL, 0, NULL, 0));
  int32_t *eptr = NULL, *eind = NULL;
  int *part = NULL;
  first_error e = {0};
  note_error(&e, feint_malloc((size_t)whole + 1, sizeof *eptr, &eptr, "the cells for METIS"));
  if (!e.status) note_error(&e, feint_malloc((size_t)(whole * nv) + 1, sizeof *eind, &eind, "the cells for METIS"));
  metis_rows_job j = {mine->cells, eind, 0, mine->nv};
  if (!e.status) feint_parallel_for(mine->n_cells, 1 << 16, metis_rows_range, &j);
  int64_t at = mine->n_cells;
  share_pieces p = {d, mine->nv, mine->cell_group != NULL, NULL, 0};
  for (int k = 1; k < d->size && !e.status; k++) { /* in rank order: the whole's order */
    const int *groups = NULL;
    int64_t n = 0;
    note_error(&e, share_piece(&p, k, &j.rows, &groups, &n));
    if (!e.status && n > whole - at)
      note_error(&e, feint_error_set(FEINT_ERR_COMPUTE, "internal: the shares hold more than %lld cells", (long long)whole));
    j.at = at;
    if (!e.status) feint_parallel_for(n, 1 << 16, metis_rows_range, &j);
    at += e.status ? 0 : n;
  }
  free(p.msg);
  read_answers(d, p.answered + 1, &e); /* every worker answers: the rest are read */
  if (!e.status && at != whole)
    note_error(&e, feint_error_set(FEINT_ERR_COMPUTE, "internal: the shares hold %lld cells, not %lld", (long long)at,
                                   (long long)whole));
  seconds[0] = feint_now() - t0;
  if (!e.status) { /* the whole's cells, on the whole's blocks (a share's view of them) */
    feint_mesh view = *mine;
    view.n_blocks = sh->n_blocks;
    memcpy(view.blocks, sh->blocks, sizeof view.blocks);
    for (int64_t c = 0; c <= whole; c++) eptr[c] = (int32_t)(c * nv);
    note_error(&e, injected_failure(0, "metis"));
    if (!e.status) note_error(&e, feint_malloc((size_t)whole + 1, sizeof *part, &part, "the partition"));
    if (!e.status)
      note_error(&e, feint_comm_partition_lists(d->comm, mine->path, (int32_t)whole, (int32_t)mine->n_nodes, eptr, eind,
                                                feint_comm_partition_ncommon(&view), d->size, part));
  }
  free(eptr);
  free(eind);
  seconds[1] = feint_now() - t0 - seconds[0];
  /* each worker its share's parts (the shares are the rows' ranges of the cells, rank by rank) */
  const command give = {.cmd = CMD_SHARE_PARTS};
  for (int k = 1; k < d->size && !e.status; k++) {
    int64_t c0 = 0, c1 = 0;
    feint_dist_rows_scalar_range(whole, d->size, k, &c0, &c1);
    note_error(&e, send_command(d, k, &give, part + c0, (size_t)(c1 - c0) * sizeof *part, NULL, 0));
  }
  if (!e.status) read_answers(d, 1, &e);
  if (!e.status) note_error(&e, feint_malloc((size_t)mine->n_cells + 1, sizeof *d->share_parts, &d->share_parts,
                                             "rank 0's share's parts"));
  if (!e.status) memcpy(d->share_parts, part, (size_t)mine->n_cells * sizeof *part);
  free(part);
  seconds[2] = feint_now() - t0 - seconds[0] - seconds[1];
  char details[160];
  snprintf(details, sizeof details, "gathered %.1f ms, METIS %.1f ms, the parts sent %.1f ms", 1e3 * seconds[0],
           1e3 * seconds[1], 1e3 * seconds[2]);
  return share_partition_done(d, reported(&e), "METIS, on the shares' cells gathered", details, "METIS", t0);
}

static int gather_whole(run_dist *d, feint_mesh *mesh, const feint_mesh_share *sh) {
  const command cmd = {.cmd = CMD_SHARE_CELLS};
  for (int k = 1; k < d->size; k++) FEINT_CALL(send_command(d, k, &cmd, NULL, 0, NULL, 0));
  share_pieces p = {d, mesh->nv, mesh->cell_group != NULL, NULL, 0};
  first_error e = {0};
  note_error(&e, feint_dist_whole_of_shares(mesh, sh, d->size, share_piece, &p));
  free(p.msg);
  read_answers(d, p.answered + 1, &e); /* every worker answers: the rest are read */
  return reported(&e);
}

static int keep_facet_cells(run_dist *d, const feint_mesh *m);

int run_dist_read_mesh(run_state *r, const feint_mesh_options *mo, int share_ok, feint_mesh **out) {
  run_dist *d = r->dist;
  const feint_case *c = r->c;
  *out = NULL;
  d->shares_read = 0;
  d->share_only = 0;
  free(d->share_counts);
  d->share_counts = NULL;
  free(d->own_counts);
  d->own_counts = NULL;
  free(d->share_parts);
  d->share_parts = NULL;
  free(d->facet_cells);
  d->facet_cells = NULL;
  d->n_facet_cells = 0;
  d->facet_cells_kept = 0;
  d->read_step[0] = '\0';
  if (!read_in_shares(r, mo)) return feint_mesh_read(c->mesh_file, mo, out);
  const double t0 = feint_now();
  char *head = NULL;
  size_t nhead = 0;
  FEINT_CALL(case_payload(c, &head, &nhead));
  const command cmd = {.cmd = CMD_READ};
  feint_comm_message *msgs = NULL;
  int *to = NULL;
  int status = feint_calloc((size_t)d->size, sizeof *msgs, &msgs, "the read's commands");
  if (!status) status = feint_calloc((size_t)d->size, sizeof *to, &to, "the read's commands");
  for (int k = 1; k < d->size && !status; k++) {
    msgs[k - 1] = (feint_comm_message){{&cmd, head}, {sizeof cmd, nhead}, 2};
    to[k - 1] = k;
  }
  if (!status) status = feint_comm_send_many(d->comm, d->size - 1, to, msgs);
  free(msgs);
  free(to);
  free(head);
  FEINT_CALL(status); /* no worker reads: none waits for rank 0's marks */
  /* rank 0's share: its own range, mapped, as the others read theirs (the whole, where rank 0 needs it, gathered
   * from the shares); FEINT_DIST_READ=whole: the whole, read into memory as one rank reads it (measuring) */
  const char *how = getenv("FEINT_DIST_READ");
  const int own = !(how && !strcmp(how, "whole"));
  /* (rank 0 holds every node's coordinates: it writes the whole's node datasets and makes the conditions) */
  feint_mesh_share sh = {.rank = 0, .size = d->size, .range = own ? feint_dist_rows_scalar_range : whole_range,
                         .nodes = feint_dist_share_nodes, .ctx = d->comm, .eager = !own, .simplices_only = 1,
                         .all_nodes = 1};
  if ((status = injected_failure(0, "read")))
    feint_dist_share_nodes(d->comm, status, NULL); /* the workers wait for rank 0's nodes */
  else
    status = feint_mesh_read_share(c->mesh_file, mo, &sh, out);
  /* the rows partition's counts of rank 0's share, while the workers count theirs (as they do before answering) */
  const int rows = c->mesh_partition == FEINT_PARTITION_ROWS || c->mesh_partition == FEINT_PARTITION_AUTO;
  if (!status && own && rows && *out && !sh.unsuited && !sh.declined && sh.nodes_in_cells == (*out)->n_nodes &&
      !(status = feint_malloc((size_t)d->size, sizeof *d->own_counts, &d->own_counts, "the rows' cells")))
    status = feint_dist_rows_count_cells((*out)->cells, (*out)->nv, (*out)->n_cells, (*out)->n_nodes, d->size,
                                         d->own_counts);
  /* every worker answers (with its share's rows counts); a rank's own error outranks "rank p failed" */
  first_error e = {0};
  note_error(&e, status);
  int64_t *counts = NULL;
  note_error(&e, feint_calloc((size_t)d->size, sizeof *counts, &counts, "the rows' cells"));
  int counted = counts != NULL;
  for (int k = 1; k < d->size; k++) {
    char *msg = NULL;
    const char *data;
    size_t n;
    const int theirs = receive_answer(d, k, &msg, &data, &n);
    counted = counted && !theirs && n == (size_t)d->size * sizeof *counts;
    for (int q = 0; counted && q < d->size; q++) {
      int64_t c;
      memcpy(&c, data + q * sizeof c, sizeof c);
      counts[q] += c;
    }
    free(msg);
    note_error(&e, theirs);
  }
  if (counted) d->share_counts = counts;
  else free(counts);
  /* a file that fails to read where rank 0 read only its share: the whole read's message, as one rank gives it */
  if (e.status && own && !injected_failure(0, "read")) {
    feint_mesh_destroy(*out);
    *out = NULL;
    const int whole_status = feint_mesh_read(c->mesh_file, mo, out);
    feint_mesh_destroy(*out);
    *out = NULL;
    if (whole_status) return whole_status;
  }
  if ((status = reported(&e))) {
    feint_mesh_destroy(*out);
    *out = NULL;
    return status;
  }
  /* the others read none (their slabs would not serve, or the file is not theirs to read); first, since rank 0's
   * own share, where it is not the whole, is then unsuited too */
  if (sh.declined) {
    if (own) { /* rank 0's share was not the whole, and a rank has none to gather: the whole, read as one rank
                * reads it */
      feint_mesh_destroy(*out);
      *out = NULL;
      FEINT_CALL(feint_mesh_read(c->mesh_file, mo, out));
    }
    snprintf(d->read_step, sizeof d->read_step, "mesh read by rank 0 alone (the others read no share: %s) %.1f ms",
             feint_mesh_is_mixed(*out) || !feint_cell_is_simplex((*out)->cell_type) ? "not triangles or tetrahedra"
                                                                                   : "a rank could not read the file",
             1e3 * (feint_now() - t0));
    return FEINT_OK;
  }
  if (sh.unsuited) { /* so on every rank: rank 0 reads it as one rank does */
    snprintf(d->read_step, sizeof d->read_step, "mesh read by rank 0 alone (%s)", sh.unsuited);
    return feint_mesh_read(c->mesh_file, mo, out);
  }
  d->shares_read = 1;
  int taken = 0;
  /* Rank 0 keeps only its share of the mesh, as the others do, and never
   * makes the whole, where the partition is made on the shares (rows,
   * morton, auto; METIS given the shares' cells gathered: share_metis) and
   * nothing rank 0 makes reads the whole's cells: its conditions (Dirichlet, Neumann and
   * Robin conditions on straight cells read the facets and nodes only,
   * which every share has; a flux, whose q . n takes each facet's normal
   * from the cell holding it, the cells that may hold its facets, gathered:
   * run_dist_boundary_create), its datasets (the dof map and an XDMF
   * mesh's cell fields are written by the ranks, each its share's rows:
   * run_dist_write_cell_dofs, run_dist_write_cell_fields);
   * not a check. A sweep's members on the same mesh keep its parts, made
   * once, and their conditions are made from rank 0's share (a flux's from
   * the cells of every group's facets, gathered at the read:
   * keep_facet_cells). Else rank 0 gathers the whole from the shares
   * (gather_whole). */
  if (own && share_ok && (status = share_partition(d, r, *out, &sh, &taken))) {
    feint_mesh_destroy(*out);
    *out = NULL;
    return status;
  }
  if (taken) { /* rank 0 holds its share, as all do */
    d->share_only = 1;
    d->share = sh;
    snprintf(d->read_step, sizeof d->read_step, "mesh read (the ranks each its share of the cells, rank 0 too) %.1f ms",
             1e3 * (feint_now() - t0));
    if (r->n_members > 0 && (status = keep_facet_cells(d, *out))) { /* a sweep's members' fluxes */
      feint_mesh_destroy(*out);
      *out = NULL;
    }
    return status;
  }
  if (own) { /* rank 0 needs the whole after all: made of the shares */
    const int status = gather_whole(d, *out, &sh);
    if (status) {
      feint_mesh_destroy(*out);
      *out = NULL;
      return status;
    }
  }
  snprintf(d->read_step, sizeof d->read_step, "mesh read (the others each its share of the cells%s) %.1f ms",
           own ? ", rank 0 its own and the whole gathered from them" : "", 1e3 * (feint_now() - t0));
  return FEINT_OK;
}

int run_dist_share_only(const run_state *r) { return r->dist && r->dist->share_only; }

int run_dist_share_space(const run_state *r, int components, feint_space **out) {
  return feint_dist_space_of_share(r->mesh, &r->dist->share, components, out);
}

const feint_mesh_share *run_dist_share(const run_state *r) {
  return r->dist && r->dist->share_only ? &r->dist->share : NULL;
}

/* Every share's cells that may hold a facet of the groups (CMD_FLUX_HOLDERS), in rank order: the whole's, in its
 * order (*cells, *n, freed by the caller), the step noted (whose: the facets'). */
static int gather_facet_cells(run_dist *d, const feint_mesh *m, const int *groups, int n_groups, const char *whose,
                              int64_t **cells, int64_t *n) {
  *cells = NULL;
  *n = 0;
  const double t0 = feint_now();
  const command cmd = {.cmd = CMD_FLUX_HOLDERS};
  first_error e = {0};
  for (int k = 1; k < d->size && !e.status; k++)
    note_error(&e, send_command(d, k, &cmd, groups, (size_t)n_groups * sizeof *groups, NULL, 0));
  if (e.status) return reported(&e);
  int64_t *own = NULL, n_own = 0;
  note_error(&e, injected_failure(0, "flux"));
  if (!e.status) note_error(&e, feint_mesh_facet_cells(m, groups, n_groups, &own, &n_own));
  char **msgs = NULL;
  const char **data = NULL;
  size_t *bytes = NULL;
  note_error(&e, feint_calloc((size_t)d->size, sizeof *msgs, &msgs, "the flux facets' cells"));
  if (msgs) note_error(&e, feint_calloc((size_t)d->size, sizeof *data, &data, "the flux facets' cells"));
  if (data) note_error(&e, feint_calloc((size_t)d->size, sizeof *bytes, &bytes, "the flux facets' cells"));
  int64_t total = n_own;
  for (int k = 1; k < d->size; k++) { /* every worker answers: its count, then its rows */
    char *msg = NULL;
    const char *at = NULL;
    size_t nb = 0;
    note_error(&e, receive_answer(d, k, &msg, &at, &nb));
    if (!bytes) {
      free(msg);
      continue;
    }
    int64_t count = -1;
    msgs[k] = msg;
    if (e.status) continue;
    if (nb >= sizeof count) memcpy(&count, at, sizeof count);
    if (count < 0 || nb != sizeof count + (size_t)(count * m->nv) * sizeof *own) {
      note_error(&e, feint_error_set(FEINT_ERR_COMPUTE, "internal: rank %d's flux facets' cells are malformed", k));
      continue;
    }
    data[k] = at + sizeof count;
    bytes[k] = nb - sizeof count;
    total += count;
  }
  if (!e.status)
    note_error(&e, feint_malloc((size_t)(total * m->nv) + 1, sizeof **cells, cells, "the flux facets' cells"));
  if (!e.status) {
    memcpy(*cells, own, (size_t)(n_own * m->nv) * sizeof **cells);
    size_t at = (size_t)(n_own * m->nv) * sizeof **cells;
    for (int k = 1; k < d->size; k++) {
      memcpy((char *)*cells + at, data[k], bytes[k]);
      at += bytes[k];
    }
    *n = total;
  }
  free(own);
  for (int k = 0; msgs && k < d->size; k++) free(msgs[k]);
  free(msgs);
  free(data);
  free(bytes);
  const int status = reported(&e);
  if (status) {
    free(*cells);
    *cells = NULL;
    *n = 0;
    return status;
  }
  const size_t used = strlen(d->read_step);
  snprintf(d->read_step + used, sizeof d->read_step - used, ", the cells of the %s facets gathered (%lld) %.1f ms",
           whose, (long long)total, 1e3 * (feint_now() - t0));
  return FEINT_OK;
}

/* A sweep on rank 0's share: the cells that may hold a facet of any facet group, gathered while the other ranks
 * hold their shares (before the first setup), kept for the members' flux conditions (a superset of a flux's: the
 * first cell holding a facet among them is still its lowest-numbered cell). */
static int keep_facet_cells(run_dist *d, const feint_mesh *m) {
  int *groups = NULL;
  FEINT_CALL(feint_malloc((size_t)m->n_groups + 1, sizeof *groups, &groups, "the facet groups"));
  int n_groups = 0;
  for (int g = 0; g < m->n_groups; g++)
    if (m->facet_offsets[g + 1] > m->facet_offsets[g]) groups[n_groups++] = g;
  const int status = gather_facet_cells(d, m, groups, n_groups, "groups'", &d->facet_cells, &d->n_facet_cells);
  free(groups);
  if (!status) d->facet_cells_kept = 1;
  return status;
}

int run_dist_boundary_create(run_state *r, feint_boundary_conditions **out) {
  run_dist *d = r->dist;
  const feint_case *c = r->c;
  const feint_mesh *m = r->mesh;
  int *groups = NULL;
  FEINT_CALL(feint_malloc((size_t)c->n_boundary + 1, sizeof *groups, &groups, "the flux conditions' groups"));
  const int n_groups = feint_boundary_flux_groups(c, m, groups);
  int64_t *cells = d->facet_cells, n = d->n_facet_cells;
  int status = FEINT_OK;
  if (n_groups && !d->facet_cells_kept) status = gather_facet_cells(d, m, groups, n_groups, "flux's", &cells, &n);
  free(groups);
  if (status) return status;
  if (n_groups == 0) return feint_boundary_create(c, r->space, out);
  /* the share's nodes, the gathered cells: a view read during the conditions' making only */
  const feint_mesh holders = feint_mesh_cells_view(m, cells, n);
  status = feint_boundary_create_with_holders(c, r->space, &holders, out);
  if (cells != d->facet_cells) free(cells);
  return status;
}

/* A sweep member on the previous member's mesh and space: every rank keeps
 * its part (mesh, space, pattern) and makes the member's form. */
static int keep_parts(run_dist *d, const feint_run_options *opts, run_state *r, const command *setup,
                      feint_problem *own) {
  double t0 = feint_now();
  d->steps[0] = '\0';
  command keep = *setup;
  keep.arg = 1;
  char *head = NULL;
  size_t nhead = 0;
  int status = case_payload(r->c, &head, &nhead);
  for (int k = 1; k < d->size && !status; k++) {
    status = send_command(d, k, &keep, head, nhead, NULL, 0);
    if (!status) d->setup_answers = k;
  }
  free(head);
  if (!status)
    step(d, d->share_only ? "parts kept (rank 0 on its share of the mesh), the member's case sent"
                          : "parts kept, the member's case sent", &t0);
  part_drop_form(&d->own, 1); /* its form stays as old_form while rank 0's backend (run_state's) may read it */
  if (!status) status = part_form(&d->own, r->c, setup, opts->device_index);
  if (status) return status;
  step(d, "rank 0's part: form", &t0);
  *own = d->own.problem;
  return FEINT_OK;
}

static command setup_command(const feint_run_options *opts, const run_state *r, feint_device_kind kind,
                             int need_matrix) {
  return (command){.cmd = CMD_SETUP, .kind = (int32_t)kind, .need_matrix = need_matrix,
                   .no_cache = opts->no_cache || !r->c->cache, .device_index = opts->device_index,
                   .reuse = r->reuse_backend,
                   .keep_share = r->dist && r->dist->share_only && r->c->write_xdmf && r->n_members > 0};
}

int run_dist_keeps_parts(const feint_run_options *opts, const run_state *r, feint_device_kind kind, int need_matrix) {
  const command setup = setup_command(opts, r, kind, need_matrix);
  return r->dist && r->dist->parts_kept && !memcmp(&setup, &r->dist->last_setup, sizeof setup);
}

static int read_setup_answers(run_dist *d, char *devices, size_t size);

/* Whether the ranks build their parts from slabs (else rank 0 packs
 * them): for P1 on every node, where it is faster from 2 ranks on and
 * rank 0 holds less (docs/mpi.md, session 29); not for higher orders,
 * whose parts' dofs lie across the ranks' rows (2 ranks: 0.15-0.2 s
 * slower to set up, the same memory). FEINT_DIST_BUILD=slabs or rank0
 * chooses (measuring and test hook). */
static int built_from_slabs(const feint_space *space) {
  const char *how = getenv("FEINT_DIST_BUILD");
  if (how && !strcmp(how, "rank0")) return 0;
  if (how && !strcmp(how, "slabs")) return 1;
  return space->scalar_cell_dofs_borrowed;
}

/* Every worker gets the case and
 * its slab of the whole (two messages, under way at once; the slab's bulk
 * sent from the whole as it lies), then every rank builds its part with
 * the others (feint_dist_part_build_start, _finish), rank 0 too, which
 * releases the whole mesh between the build's halves where nothing after
 * needs it (release; a sweep keeps it). Once the slabs are
 * sent rank 0 must take part in the build, whatever happens, or the
 * workers would wait for it. */
static int setup_by_slabs(run_dist *d, const feint_run_options *opts, run_state *r, const command *setup,
                          const char *head, size_t nhead, int release, int shares_read, double *t0) {
  /* each worker's slab its share of the mesh (read beside rank 0's), or one more message */
  const int shares = d->share_only || shares_serve(shares_read, r->space), size = d->size, n = (shares ? 1 : 2) * (size - 1);
  command sent = *setup;
  sent.slab = 1;
  sent.share = shares;
  sent.curve = d->share_only && d->partition; /* each worker placed its own cells on the curve */
  feint_dist_slab **slabs = NULL;
  feint_comm_message *out = NULL;
  void **heads = NULL;
  int *to = NULL;
  int status = feint_calloc((size_t)size, sizeof *slabs, &slabs, "the slabs");
  if (!status) status = feint_calloc((size_t)size, sizeof *heads, &heads, "the slabs");
  if (!status) status = feint_calloc((size_t)n + 1, sizeof *out, &out, "the slabs' sends");
  if (!status) status = feint_calloc((size_t)n + 1, sizeof *to, &to, "the slabs' sends");
  for (int k = 0; k < size && !status; k++) {
    if (k && shares) { /* and on a partition of the whole's cells, the parts of the worker's share of them */
      int64_t c0 = 0, c1 = 0;
      if (d->partition && !sent.curve) feint_dist_rows_scalar_range(r->mesh->n_cells, size, k, &c0, &c1);
      const size_t nparts = (size_t)(c1 - c0) * sizeof *d->partition;
      out[k - 1] = (feint_comm_message){{&sent, head, d->partition ? d->partition + c0 : NULL}, {sizeof sent, nhead, nparts}, 3};
      to[k - 1] = k;
      continue;
    }
    if (k == 0 && d->share_only) /* rank 0's slab is its share too */
      status = feint_dist_slab_of_share(r->mesh, &d->share, d->partition, run_space_components(r->c, r->mesh),
                                        &slabs[0]);
    else
      status = feint_dist_slab_create(r->space, d->partition, k, size, &slabs[k]);
    if (status || k == 0) continue;
    out[2 * (k - 1)] = (feint_comm_message){{&sent, head}, {sizeof sent, nhead}, 2};
    status = feint_dist_slab_message(slabs[k], &out[2 * (k - 1) + 1], &heads[k]);
    to[2 * (k - 1)] = to[2 * (k - 1) + 1] = k;
  }
  if (!status) status = feint_comm_send_many(d->comm, n, to, out);
  const int sent_all = status == FEINT_OK;
  if (sent_all) d->setup_answers = size - 1; /* workers 1..size-1 answer */
  for (int k = 0; slabs && k < size; k++) {
    free(heads ? heads[k] : NULL);
    if (k) feint_dist_slab_destroy(slabs[k]);
  }
  free(heads);
  free(out);
  free(to);
  if (!sent_all) {
    feint_dist_slab_destroy(slabs ? slabs[0] : NULL);
    free(slabs);
    return status;
  }
  step(d, shares ? "setup sent (each worker's slab its share of the mesh)" : "slabs sent", t0);
  feint_dist_part_builder *builder = NULL;
  status = feint_dist_part_build_start(d->comm, injected_failure(0, "setup"), slabs[0], &builder);
  feint_dist_slab_destroy(slabs[0]);
  free(slabs);
  if (!builder) return status; /* could not take part: the run has ended */
  if (!status) step(d, d->by_rows ? "cells sent to their rows' owners" : "cells sent to their parts' ranks", t0);
  /* the whole goes before the parts are built (the build keeps what it needs of rank 0's slab), so that rank 0
   * never holds it beside its part; a sweep keeps it (its members' conditions are made from it) */
  if (!status && release) status = run_release_whole(r);
  *t0 = feint_now();
  feint_mesh *mesh = NULL;
  feint_space *space = NULL;
  double seconds[4] = {0, 0, 0, 0};
  status = feint_dist_part_build_finish(builder, status, &mesh, &space, seconds);
  /* another rank failed the build: its own message is in its answer (every rank answers the setup) */
  if (status == FEINT_DIST_PEER_FAILED) {
    const int theirs = read_setup_answers(d, NULL, 0);
    status = theirs ? theirs : status;
  }
  if (!status) {
    char what[200];
    snprintf(what, sizeof what,
             "parts built (each rank its own; nodes numbered and asked for %.1f ms, coordinates %.1f ms, "
             "mesh and space %.1f ms)",
             1e3 * seconds[1], 1e3 * seconds[2], 1e3 * seconds[3]);
    step(d, what, t0);
  }
  d->own.complete = d->by_rows;
  if (!status) status = part_setup_built(&d->own, r->c, mesh, space, seconds[3], setup, opts->device_index);
  FEINT_CALL(status);
  part_setup_step(d, t0);
  d->parts_kept = 1;
  return FEINT_OK;
}

int run_dist_setup(const feint_run_options *opts, run_state *r, feint_device_kind kind, int need_matrix,
                   feint_problem *own) {
  run_dist *d = r->dist;
  const feint_mesh *m = r->mesh;
  const command setup = setup_command(opts, r, kind, need_matrix);
  const int shares_read = d->shares_read;
  d->shares_read = 0; /* the workers drop their shares at this setup, unless their slabs are made of them */
  if (run_dist_keeps_parts(opts, r, kind, need_matrix))
    return keep_parts(d, opts, r, &setup, own);
  char words[sizeof d->partition_words]; /* a share-only read's partition, decided at the read */
  snprintf(words, sizeof words, "%s", d->partition_words);
  forget_parts(d);
  if (d->read_step[0]) {
    snprintf(d->steps, sizeof d->steps, "%s", d->read_step);
    d->read_step[0] = '\0';
  }
  d->last_setup = setup;
  double t0 = feint_now();
  if (d->share_only) { /* the partition made on the shares at the read: the rows partition, or the curve's */
    snprintf(d->partition_words, sizeof d->partition_words, "%s", words);
    d->by_rows = d->share_parts == NULL;
    d->partition = d->share_parts; /* rank 0's share's cells' parts */
    d->share_parts = NULL;
    const size_t used = strlen(d->steps);
    snprintf(d->steps + used, sizeof d->steps - used, "%s%s", used ? ", " : "", d->share_partition);
    FEINT_CALL(feint_calloc((size_t)d->size, sizeof *d->parts, &d->parts, "the parts"));
  } else {
    FEINT_CALL(partition_cells(d, r, 1, shares_read, &t0));
  }
  char *head = NULL;
  size_t nhead = 0;
  FEINT_CALL(case_payload(r->c, &head, &nhead));
  const int release = !run_whole_needed(r);
  /* built from slabs where rank 0 keeps no record of the parts: the ranks write their own results (a Matrix
   * Market copy gathers them on rank 0, by the records) */
  if (run_dist_collective(r) && built_from_slabs(r->space)) {
    const int status = setup_by_slabs(d, opts, r, &setup, head, nhead, release, shares_read, &t0);
    free(head);
    FEINT_CALL(status);
    *own = d->own.problem;
    return FEINT_OK;
  }
  /* the workers' parts packed side by side (each a pass over the whole mesh) and sent, then rank 0's own:
   * its message is not held beside theirs */
  pack_job job = {r->space, d->partition, d->size, d->parts, !release, 1, NULL};
  int status = feint_calloc((size_t)d->size, sizeof *job.out, &job.out, "the parts' messages");
  if (!status) {
    feint_parallel_for(d->size - 1, 1, pack_range, &job);
    status = packed_status(&job, 1, d->size, m->path);
  }
  if (!status) step(d, "the other ranks' parts packed", &t0);
  /* every worker's part under way at once, the workers copying theirs side by side (rather than one after
   * another, each send waiting for its worker to take the message) */
  feint_comm_message *parts_out = NULL;
  int *workers = NULL;
  if (!status && (status = feint_calloc((size_t)d->size, sizeof *parts_out, &parts_out, "the parts' sends")) == 0)
    status = feint_calloc((size_t)d->size, sizeof *workers, &workers, "the parts' sends");
  for (int k = 1; k < d->size && !status; k++) {
    parts_out[k - 1] = (feint_comm_message){{&setup, head, job.out[k].msg}, {sizeof setup, nhead, job.out[k].bytes}, 3};
    workers[k - 1] = k;
  }
  if (!status && d->size > 1) status = feint_comm_send_many(d->comm, d->size - 1, workers, parts_out);
  if (!status) d->setup_answers = d->size - 1; /* workers 1..size-1 answer */
  free(parts_out);
  free(workers);
  for (int k = 1; job.out && k < d->size; k++) { /* sent: not held beside rank 0's own part */
    free(job.out[k].msg);
    job.out[k].msg = NULL;
  }
  free(head);
  if (!status) step(d, "parts sent", &t0);
  if (!status) {
    job.first = 0;
    pack_range(0, 1, &job);
    status = packed_status(&job, 0, 1, m->path);
  }
  if (!status) step(d, "rank 0's part packed", &t0);
  /* what rank 0 kept of the whole goes before its own part's pattern, where it can */
  if (!status && release) status = run_release_whole(r);
  if (!status) t0 = feint_now();
  d->own.complete = d->by_rows;
  if (!status) status = part_setup(&d->own, r->c, job.out[0].msg, job.out[0].bytes, &job.out[0].msg, &setup,
                                     opts->device_index);
  for (int k = 0; job.out && k < d->size; k++) free(job.out[k].msg);
  free(job.out);
  if (status) return status;
  part_setup_step(d, &t0);
  d->parts_kept = 1;
  *own = d->own.problem;
  return FEINT_OK;
}

/* The setup's answers of workers 1..d->setup_answers (each its device,
 * added to devices when given): the first error. */
static int read_setup_answers(run_dist *d, char *devices, size_t size) {
  int reused = 0;
  first_error e = {0};
  /* every answer is read, so that no rank is left sending */
  const int n_answers = d->setup_answers;
  d->setup_answers = 0;
  for (int k = 1; k <= n_answers; k++) {
    char *msg = NULL;
    const char *data;
    size_t n;
    int s = receive_answer(d, k, &msg, &data, &n);
    int32_t kept = 0;
    if (!s && n < sizeof kept) s = feint_error_set(FEINT_ERR_COMPUTE, "internal: rank %d's setup answer is cut short", k);
    if (!s) {
      memcpy(&kept, data, sizeof kept);
      reused += kept != 0;
    }
    if (!s && devices) {
      const size_t used = strlen(devices), text = n - sizeof kept;
      snprintf(devices + used, size - used, "; %d: %.*s", k, (int)(text < 200 ? text : 200), data + sizeof kept);
    }
    free(msg);
    note_error(&e, s);
    if (s && s != FEINT_ERR_INPUT && s != FEINT_ERR_COMPUTE && s != FEINT_DIST_PEER_FAILED) break; /* unreachable */
  }
  const int status = reported(&e);
  if (!status && reused) {
    char what[80];
    snprintf(what, sizeof what, "backends kept on %d of the %d other ranks", reused, n_answers);
    const size_t used = strlen(d->steps);
    snprintf(d->steps + used, sizeof d->steps - used, "%s%s", used ? ", " : "", what);
  }
  return status;
}

int run_dist_wait_setup(run_state *r, const char *name, const char *own_device, int device_index,
                        feint_run_report *rep) {
  part_forget_old(&r->dist->own); /* rank 0's backend has its new form (or is new) */
  char device[320];
  device_words(name, own_device, device_index, device, sizeof device);
  snprintf(rep->rank_devices, sizeof rep->rank_devices, "0: %s", device);
  double t0 = feint_now();
  const int status = read_setup_answers(r->dist, rep->rank_devices, sizeof rep->rank_devices);
  step(r->dist, "waited for the other ranks' setup", &t0);
  snprintf(rep->dist_steps, sizeof rep->dist_steps, "%s", r->dist->steps);
  return status;
}

/* Global dof of a part's local dof. */
static inline int64_t whole_dof(const feint_dist_part *pt, int nc, int64_t local) {
  return pt->scalar_dofs[local / nc] * nc + local % nc;
}

/* A part's vector added into the whole: its dofs are distinct, so ranges
 * of them run in parallel. */
typedef struct {
  const feint_dist_part *pt;
  int nc;
  const double *local;
  double *whole;
} vector_job;

static void add_vector_range(int64_t a, int64_t b, void *arg) {
  const vector_job *j = arg;
  for (int64_t i = a; i < b; i++) j->whole[whole_dof(j->pt, j->nc, i)] += j->local[i];
}

static void add_vector(const feint_dist_part *pt, int nc, const double *local, int64_t n, double *whole) {
  vector_job j = {pt, nc, local, whole};
  feint_parallel_for(n, 1 << 16, add_vector_range, &j);
}

static void put_element_matrices(const feint_dist_part *pt, int nbc, const double *local, int nbc_whole,
                                 double *Ke) {
  for (int64_t i = 0; i < pt->n_cells; i++) {
    double *to = Ke + pt->cells[i] * nbc_whole * nbc_whole;
    const double *from = local + i * nbc * nbc;
    for (int a = 0; a < nbc; a++) memcpy(to + a * nbc_whole, from + a * nbc, (size_t)nbc * sizeof *from);
  }
}

/* A worker's element matrices (its answer to a compute command) put
 * into the whole's by cell. */
static int put_answer(run_state *r, int rank, const char *data, size_t bytes) {
  int64_t head[2]; /* values, nbc */
  if (bytes < sizeof head) return feint_error_set(FEINT_ERR_COMPUTE, "internal: rank %d's results are cut short", rank);
  memcpy(head, data, sizeof head);
  const feint_dist_part *pt = &r->dist->parts[rank];
  if (head[1] < 1 || head[0] != pt->n_cells * head[1] * head[1] || bytes != sizeof head + (size_t)head[0] * 8)
    return feint_error_set(FEINT_ERR_COMPUTE, "internal: rank %d's results are malformed", rank);
  put_element_matrices(pt, (int)head[1], (const double *)(const void *)(data + sizeof head), r->space->nbc, r->Ke);
  return FEINT_OK;
}

/* A worker's block of a phase (its answer) at its place in the whole:
 * rows [row0, row0 + n_owned) of a vector, their entries of the matrix,
 * and after the matrix the lifted block of the load vector. */
static int place_block(run_state *r, int rank, int phase, int lift, const char *data, size_t bytes) {
  const int64_t n = r->space->n_dofs, size = r->dist->size;
  const int64_t row0 = feint_dist_row_start(n, r->space->components, (int)size, rank);
  const int64_t row1 = rank + 1 == size ? n : feint_dist_row_start(n, r->space->components, (int)size, rank + 1);
  const int matrix = phase == FEINT_PHASE_ASSEMBLY;
  const int64_t first = matrix ? r->plan->indptr[row0] : row0, count = (matrix ? r->plan->indptr[row1] : row1) - first;
  const size_t need = (size_t)count * 8 + (matrix && lift ? (size_t)(row1 - row0) * 8 : 0);
  if (bytes != need)
    return feint_error_set(FEINT_ERR_COMPUTE, "internal: rank %d's block has %zu bytes, not %zu", rank, bytes, need);
  double *whole = phase == FEINT_PHASE_RESIDUAL ? r->vec : phase == FEINT_PHASE_RHS ? r->rhs : r->values;
  memcpy(whole + first, data, (size_t)count * 8);
  if (matrix && lift) memcpy(r->rhs + row0, data + (size_t)count * 8, (size_t)(row1 - row0) * 8);
  return FEINT_OK;
}

/* One owner's block of the whole pattern, and where it goes: its columns
 * int64 (cols) or int32 (cols32). */
typedef struct {
  const int64_t *indptr, *cols;
  const int32_t *cols32;
  int64_t row0, n_rows, first;
} pattern_block;
typedef struct {
  const pattern_block *blocks;
  feint_plan *whole;
} pattern_job;

static void fill_blocks(int64_t a, int64_t b, void *arg) {
  const pattern_job *j = arg;
  feint_plan *w = j->whole;
  for (int64_t k = a; k < b; k++) {
    const pattern_block *bl = &j->blocks[k];
    for (int64_t i = 0; i <= bl->n_rows; i++) w->indptr[bl->row0 + i] = bl->first + bl->indptr[i];
    const int64_t nnz = bl->indptr[bl->n_rows];
    if (w->indices64 && bl->cols) memcpy(w->indices64 + bl->first, bl->cols, (size_t)nnz * 8);
    else if (w->indices64)
      for (int64_t e = 0; e < nnz; e++) w->indices64[bl->first + e] = bl->cols32[e];
    else if (bl->cols32) memcpy(w->indices + bl->first, bl->cols32, (size_t)nnz * 4);
    else
      for (int64_t e = 0; e < nnz; e++) w->indices[bl->first + e] = (int32_t)bl->cols[e];
  }
}

/* The whole pattern (rank 0's r->plan, as one rank makes it: 32-bit
 * columns up to the same limit) from the owners' blocks: rank 0's own,
 * and each worker's answer (rows, entries; indptr; columns). */
static int gather_pattern(run_state *r, const char *const *data, const size_t *bytes) {
  run_dist *d = r->dist;
  const int64_t n = r->space->n_dofs;
  const int nc = r->space->components;
  pattern_block *blocks = NULL;
  FEINT_CALL(feint_calloc((size_t)d->size, sizeof *blocks, &blocks, "the blocks of the pattern"));
  const feint_dist_rows *own = d->own.rows;
  blocks[0] = (pattern_block){own->indptr, own->cols, own->cols32, 0, own->n_owned, 0};
  int64_t nnz = own->nnz;
  int status = FEINT_OK;
  for (int k = 1; k < d->size && !status; k++) {
    int64_t head[3]; /* rows, nonzeros, the columns' bytes each */
    const int64_t row0 = feint_dist_row_start(n, nc, d->size, k);
    const int64_t rows = (k + 1 == d->size ? n : feint_dist_row_start(n, nc, d->size, k + 1)) - row0;
    if (bytes[k] >= sizeof head) memcpy(head, data[k], sizeof head);
    if (bytes[k] < sizeof head || head[0] != rows || head[1] < 0 || (head[2] != 4 && head[2] != 8) ||
        bytes[k] != sizeof head + (size_t)(rows + 1) * 8 + (size_t)(head[1] * head[2])) {
      status = feint_error_set(FEINT_ERR_COMPUTE, "internal: rank %d's block of the pattern is malformed", k);
      break;
    }
    const int64_t *at = (const int64_t *)(const void *)(data[k] + sizeof head);
    const void *cols = at + rows + 1;
    blocks[k] = (pattern_block){at, head[2] == 8 ? cols : NULL, head[2] == 4 ? cols : NULL, row0, rows, nnz};
    nnz += head[1];
  }
  feint_plan *w = NULL;
  if (!status) status = feint_calloc(1, sizeof *w, &w, "the pattern");
  if (!status) {
    w->n_rows = n;
    w->nnz = nnz;
    status = feint_malloc((size_t)n + 1, sizeof *w->indptr, &w->indptr, "CSR row pointers");
  }
  if (!status)
    status = n > feint_plan_narrow_limit()
                 ? feint_malloc_large_touched((size_t)nnz + 1, 8, &w->indices64, "CSR column indices (64-bit)")
                 : feint_malloc_large_touched((size_t)nnz + 1, 4, &w->indices, "CSR column indices");
  if (!status) {
    pattern_job j = {blocks, w};
    feint_parallel_for(d->size, 1, fill_blocks, &j);
    w->indptr[n] = nnz;
    r->plan = w;
  } else {
    feint_plan_destroy(w);
  }
  free(blocks);
  return status;
}

int run_dist_collective(const run_state *r) { return r->dist && !r->c->matrix_market_file; }

double run_dist_norm2(const run_state *r, int phase) { return r->dist ? r->dist->norm2[phase] : 0; }

int run_dist_values_in_part(const run_state *r) {
  return run_dist_collective(r) && r->dist->own.rows && r->dist->own.rows->complete;
}

int64_t run_dist_nnz(const run_state *r, int64_t *own) {
  const run_dist *d = r->dist;
  *own = d && d->own.rows ? d->own.rows->nnz : 0;
  return d && d->value_first ? d->value_first[d->size] : 0;
}

int run_dist_rows(run_state *r, int need_matrix) {
  run_dist *d = r->dist;
  if (d->own.rows) return FEINT_OK; /* kept with the parts */
  double t0 = feint_now();
  const int collective = run_dist_collective(r); /* else the whole pattern is gathered for rank 0 */
  const command cmd = {.cmd = CMD_ROWS, .arg = need_matrix, .collective = collective, .complete = d->by_rows};
  const int64_t n = r->whole.n_dofs;
  for (int k = 1; k < d->size; k++) FEINT_CALL(send_command(d, k, &cmd, &n, sizeof n, NULL, 0));
  first_error e = {0};
  note_error(&e, part_rows(&d->own, d->comm, FEINT_OK, n, need_matrix));
  /* the blocks' patterns: the whole pattern, for the file */
  char **msgs = calloc((size_t)d->size, sizeof *msgs);
  const char **data = calloc((size_t)d->size, sizeof *data);
  size_t *bytes = calloc((size_t)d->size, sizeof *bytes);
  free(d->value_first);
  d->value_first = calloc((size_t)d->size + 1, sizeof *d->value_first);
  if (!msgs || !data || !bytes || !d->value_first) note_error(&e, feint_error_set(FEINT_ERR_COMPUTE, "out of memory"));
  for (int k = 1; k < d->size; k++) {
    char *msg = NULL;
    const char *at = NULL;
    size_t nb = 0;
    const int s = receive_answer(d, k, &msg, &at, &nb);
    note_error(&e, s);
    if (!s && msgs) {
      msgs[k] = msg;
      data[k] = at;
      bytes[k] = nb;
    } else {
      free(msg);
    }
  }
  step(d, "rows exchanged with their owners", &t0);
  if (!e.status && need_matrix) { /* where each owner's values go */
    d->value_first[1] = d->own.rows->nnz;
    for (int k = 1; k < d->size; k++) {
      int64_t head[2] = {0, -1};
      if (bytes[k] >= sizeof head) memcpy(head, data[k], sizeof head);
      d->value_first[k + 1] = d->value_first[k] + head[1];
    }
  }
  if (!e.status && need_matrix && !r->plan && !collective) note_error(&e, gather_pattern(r, data, bytes));
  for (int k = 0; msgs && k < d->size; k++) free(msgs[k]);
  free(msgs);
  free(data);
  free(bytes);
  if (!e.status && need_matrix && !collective) step(d, "the whole pattern gathered", &t0);
  return reported(&e);
}

/* A block's sum of squares, for the report's norms: by ranges on every
 * core, the ranges' sums added in order. */
typedef struct {
  const double *v;
  double partial[FEINT_PARALLEL_MAX_RANGES];
} squares_job;

static void squares_range(int64_t a, int64_t b, int t, void *arg) {
  squares_job *j = arg;
  double s = 0;
  for (int64_t i = a; i < b; i++) s += j->v[i] * j->v[i];
  j->partial[t] = s;
}

static double sum_squares(const double *v, int64_t n) {
  squares_job j = {v, {0}};
  const int ranges = feint_parallel_for_indexed(n, 1 << 16, squares_range, &j);
  double s = 0;
  for (int t = 0; t < ranges && n > 0; t++) s += j.partial[t];
  return s;
}

int run_dist_compute(run_state *r, int phase, int lift, double *kernel_seconds) {
  run_dist *d = r->dist;
  const int owners = phase != FEINT_PHASE_ELEMENT, matrix = phase == FEINT_PHASE_ASSEMBLY;
  const int collective = run_dist_collective(r);
  const command cmd = {.cmd = CMD_COMPUTE, .arg = phase, .lift = lift, .collective = collective,
                       .nbc_whole = r->whole.nbc};
  /* the conditions go with the command: the owners apply them (the state too, for the residual) */
  void *cond = NULL;
  size_t ncond = 0;
  if (owners && r->bc)
    FEINT_CALL(feint_boundary_pack(r->bc, phase == FEINT_PHASE_RESIDUAL ? r->whole.u : NULL, &cond, &ncond));
  int status = FEINT_OK;
  for (int k = 1; k < d->size && !status; k++) status = send_command(d, k, &cmd, cond, ncond, NULL, 0);
  free(cond);
  FEINT_CALL(status);
  double t0 = feint_now(), received = 0, added = 0;
  int64_t n = 0;
  first_error e = {0};
  /* element matrices: a part's cells may be narrower than the whole's rows (a mixed mesh): the padding is 0 */
  if (!owners && !collective)
    memset(r->Ke, 0, (size_t)(r->whole.n_cells * r->whole.nbc * r->whole.nbc) * sizeof *r->Ke);
  note_error(&e, part_compute(&d->own, 0, r->backend, phase, &n));
  *kernel_seconds = r->backend->last_kernel_ms ? 1e-3 * r->backend->last_kernel_ms(r->backend) : 0;
  const double computed = feint_now() - t0;
  t0 = feint_now();
  const feint_dist_rows *rows = d->own.rows;
  if (owners) { /* rank 0's block is at the start of the whole's arrays */
    double *whole = phase == FEINT_PHASE_RESIDUAL ? r->vec : phase == FEINT_PHASE_RHS ? r->rhs : r->values;
    const int view = matrix && run_dist_values_in_part(r); /* as a worker's block: no copy */
    if (view) whole = d->own.result ? d->own.result + rows->first_value[rows->rank] : NULL;
    const int s = feint_dist_rows_sum(d->own.rows, d->comm, e.status, matrix, d->own.result, whole);
    if (!e.status) note_error(&e, s);
    if (view && !e.status) { /* the part holds its results until its next setup, after this member */
      drop_block(&d->own, BLOCK_MATRIX);
      d->own.block_memory[BLOCK_MATRIX] = d->own.result;
      d->own.blocks[BLOCK_MATRIX] = r->values = whole;
      d->own.result = NULL;
      r->values_in_part = 1;
    }
    if (!e.status) note_error(&e, block_conditions(r->bc, r->whole.u, rows, phase, lift, whole, r->rhs));
    if (!e.status) {
      d->norm2[phase] = sum_squares(whole, matrix ? rows->nnz : rows->n_owned);
      if (matrix && lift) d->norm2[FEINT_PHASE_RHS] = sum_squares(r->rhs, rows->n_owned);
    }
  } else if (collective) { /* every rank keeps its own cells' */
    note_error(&e, owned_elements(d->comm, &d->own, e.status, r->whole.nbc));
  } else if (!e.status) {
    put_element_matrices(&d->parts[0], d->own.space->nbc, d->own.result, r->whole.nbc, r->Ke);
  }
  added += feint_now() - t0;
  for (int k = 1; k < d->size; k++) {
    char *msg = NULL;
    const char *data = NULL;
    size_t bytes = 0;
    t0 = feint_now();
    int s = receive_answer(d, k, &msg, &data, &bytes);
    received += feint_now() - t0;
    t0 = feint_now();
    if (!s && !e.status && !owners && collective) { /* the element matrices stay with their owners */
    } else if (!s && !e.status && owners && collective) { /* the block stays there: its sums of squares */
      double sq[2] = {0, 0};
      if (bytes != sizeof sq) s = feint_error_set(FEINT_ERR_COMPUTE, "internal: rank %d's answer is malformed", k);
      else memcpy(sq, data, sizeof sq);
      d->norm2[phase] += sq[0];
      if (matrix && lift) d->norm2[FEINT_PHASE_RHS] += sq[1];
    } else if (!s && !e.status) {
      s = owners ? place_block(r, k, phase, lift, data, bytes) : put_answer(r, k, data, bytes);
    }
    added += feint_now() - t0;
    free(msg);
    note_error(&e, s);
  }
  const size_t used = strlen(d->steps);
  snprintf(d->steps + used, sizeof d->steps - used, "; %s: rank 0's part %.1f ms, %s %.1f ms, waited for and "
           "received the others' %.1f ms", feint_phase_names[phase], 1e3 * computed,
           owners ? "its rows summed"
           : !collective ? "put"
           : d->own.element_ranges ? "kept where computed, for the ranks' write"
                                   : "sent to their cells' owners", 1e3 * added, 1e3 * received);
  return reported(&e);
}

/* A rank's pieces of the datasets named (each a phase's block: its rows
 * of a vector, its entries of the matrix values; or its rows of the
 * matrix pattern, RUN_DIST_INDPTR and RUN_DIST_INDICES) for the
 * collective write; *scratch (freed by the caller) holds its row pointers
 * in the whole's values. A block the rank does not have (an internal
 * error) is written empty, so that the rank still joins the write, and
 * reported. */
static int rank_pieces(const run_part *part, const int64_t *value_first, double *const blocks[N_BLOCKS], int n,
                       const char *const *names, const int32_t *items, feint_dist_piece *pieces, int64_t **scratch) {
  const feint_dist_rows *rows = part->rows;
  int status = FEINT_OK;
  *scratch = NULL;
  for (int k = 0; k < n; k++) {
    if (items[k] == FEINT_PHASE_ELEMENT) { /* the element matrices of the cells this rank owns, or writes */
      const int64_t row = (int64_t)part->nbc_whole * part->nbc_whole;
      pieces[k] = (feint_dist_piece){names[k], FEINT_DIST_F64, part->cell0 * row, part->n_cells_owned * row,
                                     blocks[BLOCK_ELEMENT], part->n_element_ranges, part->element_ranges};
      if (part->element_ranges) pieces[k].offset = pieces[k].count = 0;
      if (!blocks[BLOCK_ELEMENT] && !status)
        status = feint_error_set(FEINT_ERR_COMPUTE, "internal: no element matrices to write");
      if (!blocks[BLOCK_ELEMENT]) pieces[k].count = 0;
      continue;
    }
    const int pattern = items[k] == RUN_DIST_INDPTR || items[k] == RUN_DIST_INDICES;
    const int b = pattern ? BLOCK_MATRIX : block_of(items[k]);
    pieces[k] = (feint_dist_piece){names[k], FEINT_DIST_F64, 0, 0, NULL, 0, NULL};
    if (!rows || (!pattern && !blocks[b]) || (b == BLOCK_MATRIX && (!value_first || !rows->matrix))) {
      if (!status) status = feint_error_set(FEINT_ERR_COMPUTE, "internal: no block of %s to write", names[k]);
      continue;
    }
    if (items[k] == RUN_DIST_INDPTR) { /* the last rank writes the end too */
      const int last = rows->rank + 1 == rows->size;
      if (!*scratch) {
        const int s = feint_malloc((size_t)rows->n_owned + 1, sizeof **scratch, scratch, "the row pointers");
        if (s) {
          if (!status) status = s;
          continue;
        }
        for (int64_t i = 0; i <= rows->n_owned; i++) (*scratch)[i] = value_first[rows->rank] + rows->indptr[i];
      }
      pieces[k] = (feint_dist_piece){names[k], FEINT_DIST_I64, rows->row0, rows->n_owned + last, *scratch, 0, NULL};
    } else if (items[k] == RUN_DIST_INDICES) {
      pieces[k] = (feint_dist_piece){names[k], rows->cols ? FEINT_DIST_I64 : FEINT_DIST_I32, value_first[rows->rank],
                                     rows->nnz, rows->cols ? (const void *)rows->cols : (const void *)rows->cols32, 0,
                                     NULL};
    } else {
      pieces[k].offset = b == BLOCK_MATRIX ? value_first[rows->rank] : rows->row0;
      pieces[k].count = b == BLOCK_MATRIX ? rows->nnz : rows->n_owned;
      pieces[k].data = blocks[b];
    }
  }
  return status;
}

int run_dist_write(run_state *r, int n, const char *const *names, const int32_t *phases) {
  run_dist *d = r->dist;
  double t0 = feint_now();
  const char *path = NULL;
  FEINT_CALL(feint_output_suspend(r->out, &path));
  /* the command: the file, then each dataset's phase and name, then where the owners' values go */
  int32_t lens[MAX_ITEMS];
  if (n > MAX_ITEMS) return feint_error_set(FEINT_ERR_COMPUTE, "internal: %d datasets in one write", n);
  const int32_t head[2] = {n, (int32_t)strlen(path)};
  const void *piece[2 + 3 * MAX_ITEMS + 1];
  size_t size[2 + 3 * MAX_ITEMS + 1];
  int np = 0;
  piece[np] = head;
  size[np++] = sizeof head;
  piece[np] = path;
  size[np++] = strlen(path);
  for (int k = 0; k < n; k++) {
    lens[k] = (int32_t)strlen(names[k]);
    piece[np] = &phases[k];
    size[np++] = sizeof phases[k];
    piece[np] = &lens[k];
    size[np++] = sizeof lens[k];
    piece[np] = names[k];
    size[np++] = (size_t)lens[k];
  }
  piece[np] = d->value_first;
  size[np++] = d->value_first ? (size_t)(d->size + 1) * sizeof *d->value_first : 0;
  const command cmd = {.cmd = CMD_WRITE};
  for (int k = 1; k < d->size; k++) FEINT_CALL(send_command_pieces(d, k, &cmd, piece, size, np));
  first_error e = {0};
  feint_dist_piece pieces[MAX_ITEMS];
  double *const blocks[N_BLOCKS] = {r->vec, r->rhs, r->values, d->own.blocks[BLOCK_ELEMENT]};
  int64_t *scratch = NULL;
  note_error(&e, rank_pieces(&d->own, d->value_first, blocks, n, names, phases, pieces, &scratch));
  note_error(&e, feint_comm_write(d->comm, path, n, pieces));
  free(scratch);
  read_answers(d, 1, &e);
  step(d, "written together", &t0);
  return reported(&e);
}

/* A share's rows of the whole's P1 dof map, as dataset `name` of the
 * collective write: every node a dof, a node's dofs its components
 * (interleaved, as feint_space_expand_components makes them), so one
 * component's rows are the share's cells as they lie, more are expanded
 * into *scratch (freed by the caller). */
typedef struct {
  const int64_t *cells;
  int64_t *out;
  int nc;
} expand_job;

static void expand_range(int64_t a, int64_t b, void *arg) {
  const expand_job *j = arg;
  for (int64_t e = a; e < b; e++)
    for (int k = 0; k < j->nc; k++) j->out[e * j->nc + k] = j->cells[e] * j->nc + k;
}

static int share_dof_map_piece(const char *name, const feint_mesh *m, int64_t cell0, int components,
                               int64_t **scratch, feint_dist_piece *piece) {
  *scratch = NULL;
  const int64_t entries = m->n_cells * m->nv, width = (int64_t)m->nv * components;
  *piece = (feint_dist_piece){name, FEINT_DIST_I64, cell0 * width, m->n_cells * width, m->cells, 0, NULL};
  if (components == 1) return FEINT_OK;
  FEINT_CALL(feint_malloc((size_t)(entries * components) + 1, sizeof **scratch, scratch, "the share's dof map"));
  expand_job j = {m->cells, *scratch, components};
  feint_parallel_for(entries, 1 << 16, expand_range, &j);
  piece->data = *scratch;
  return FEINT_OK;
}

/* A share's rows of the XDMF file's per-cell datasets names[0..n)
 * (run_dist_write_cell_fields): its cells' groups' tags (aux -1; into
 * *tags, freed by the caller) or the per-cell coefficient aux[k] of f, a
 * form on its share (NULL where none is asked for). */
static int share_cell_field_pieces(const feint_mesh *m, int64_t cell0, const feint_form *f, int n,
                                   const char *const *names, const int *aux, int64_t **tags,
                                   feint_dist_piece *pieces) {
  *tags = NULL;
  for (int k = 0; k < n; k++) {
    const void *data;
    if (aux[k] < 0) {
      if (!*tags) {
        FEINT_CALL(feint_malloc((size_t)m->n_cells + 1, sizeof **tags, tags, "the share's cell groups"));
        feint_mesh_cell_group_tags(m, *tags);
      }
      data = *tags;
    } else if (!f || aux[k] >= f->n_aux || f->aux[aux[k]].kind != FEINT_FIELD_CELL) {
      return feint_error_set(FEINT_ERR_COMPUTE, "internal: no per-cell coefficient %d on a share", aux[k]);
    } else {
      data = f->aux[aux[k]].values;
    }
    pieces[k] = (feint_dist_piece){names[k], aux[k] < 0 ? FEINT_DIST_I64 : FEINT_DIST_F64, cell0, m->n_cells, data,
                                   0, NULL};
  }
  return FEINT_OK;
}

/* The per-cell datasets' names, one after the other (*out), and their lengths. */
static int names_joined(int n, const char *const *names, char **out, size_t *bytes, int32_t *lengths) {
  *bytes = 0;
  for (int k = 0; k < n; k++) {
    lengths[k] = (int32_t)strlen(names[k]);
    *bytes += (size_t)lengths[k];
  }
  FEINT_CALL(feint_malloc(*bytes + 1, 1, out, "the XDMF cell fields' names"));
  size_t at = 0;
  for (int k = 0; k < n; k++) {
    memcpy(*out + at, names[k], (size_t)lengths[k]);
    at += (size_t)lengths[k];
  }
  return FEINT_OK;
}

int run_dist_write_cell_fields(run_state *r, int n, const char *const *names, const int *aux) {
  run_dist *d = r->dist;
  double t0 = feint_now();
  if (n > RUN_XDMF_MAX_FIELDS) return feint_error_set(FEINT_ERR_COMPUTE, "internal: %d XDMF cell fields", n);
  const char *path = NULL;
  FEINT_CALL(feint_output_suspend(r->out, &path));
  char *joined = NULL, *files = NULL, *case_text = NULL;
  size_t n_joined = 0, n_files = 0, n_case = 0;
  int32_t lengths[RUN_XDMF_MAX_FIELDS];
  int status = names_joined(n, names, &joined, &n_joined, lengths);
  if (!status) status = two_strings(path, "", "a write's command", &files, &n_files); /* the file */
  if (!status) status = case_payload(r->c, &case_text, &n_case); /* for the forms on the shares */
  /* the case, the file, the datasets' count, what each holds, their names' lengths, their names */
  const int32_t count = n;
  const command cmd = {.cmd = CMD_WRITE_CELL_FIELDS};
  const void *pieces[6] = {case_text, files, &count, aux, lengths, joined};
  const size_t sizes[6] = {n_case, n_files, sizeof count, (size_t)n * sizeof *aux, (size_t)n * sizeof *lengths, n_joined};
  for (int k = 1; k < d->size && !status; k++) status = send_command_pieces(d, k, &cmd, pieces, sizes, 6);
  free(joined);
  free(files);
  free(case_text);
  FEINT_CALL(status);
  first_error e = {0};
  int64_t *tags = NULL;
  feint_dist_piece mine[RUN_XDMF_MAX_FIELDS];
  note_error(&e, injected_failure(0, "xdmf"));
  int coefficients = 0;
  for (int k = 0; k < n; k++) coefficients |= aux[k] >= 0;
  if (coefficients) /* the workers' spaces' dofs are every node (rank 0 holds them: it gives its rows' range) */
    note_error(&e, feint_dist_share_all_nodes(d->comm, e.status, r->mesh, &d->share));
  if (!e.status) note_error(&e, share_cell_field_pieces(r->mesh, d->share.cell0, r->form, n, names, aux, &tags, mine));
  for (int k = 0; e.status && k < n; k++) /* still joining the write */
    mine[k] = (feint_dist_piece){names[k], aux[k] < 0 ? FEINT_DIST_I64 : FEINT_DIST_F64, 0, 0, NULL, 0, NULL};
  note_error(&e, feint_comm_write(d->comm, path, n, mine));
  free(tags);
  read_answers(d, 1, &e);
  const size_t used = strlen(d->read_step);
  snprintf(d->read_step + used, sizeof d->read_step - used, ", the XDMF cell fields written by the ranks (each its "
           "share's rows) %.1f ms", 1e3 * (feint_now() - t0));
  return reported(&e);
}

static int case_from_payload(const char *data, size_t bytes, feint_case **c, size_t *at);

/* A write command a worker cannot read: it cannot join the collective
 * write the others are in, so the run ends (every rank). */
static int unreadable_write(feint_comm *comm) {
  feint_error_set(FEINT_ERR_COMPUTE, "internal: a write command cannot be read");
  feint_comm_abort(comm, FEINT_ERR_COMPUTE);
  return FEINT_ERR_COMPUTE;
}

/* CMD_WRITE_CELL_FIELDS: the worker's share's rows of the XDMF file's
 * per-cell datasets, with the others (a form made on its share where a
 * coefficient is asked for). */
static int worker_write_cell_fields(feint_comm *comm, worker_share *ws, const char *data, size_t bytes,
                                    int *aborted) {
  *aborted = 0;
  feint_case *c = NULL;
  size_t at = 0, at_files = 0;
  int status = case_from_payload(data, bytes, &c, &at);
  const char *file = NULL, *none = NULL;
  int32_t n_file = 0, n_none = 0, n = -1, lengths[RUN_XDMF_MAX_FIELDS];
  char path[4200], names_at[RUN_XDMF_MAX_FIELDS][320];
  const char *names[RUN_XDMF_MAX_FIELDS];
  int aux[RUN_XDMF_MAX_FIELDS];
  /* the file and the names (run_dist_write_cell_fields' order), to join the write whatever else fails */
  int readable = at <= bytes && two_strings_read(data + at, bytes - at, &file, &n_file, &none, &n_none, &at_files);
  if (readable) {
    at += at_files;
    if (bytes - at >= sizeof n) memcpy(&n, data + at, sizeof n);
    at += sizeof n;
    readable = n >= 0 && n <= RUN_XDMF_MAX_FIELDS && bytes - at >= (size_t)n * (sizeof *aux + sizeof *lengths) &&
               (size_t)n_file < sizeof path;
  }
  if (readable) {
    memcpy(aux, data + at, (size_t)n * sizeof *aux);
    memcpy(lengths, data + at + (size_t)n * sizeof *aux, (size_t)n * sizeof *lengths);
    at += (size_t)n * (sizeof *aux + sizeof *lengths);
  }
  for (int k = 0; readable && k < n; k++) {
    readable = lengths[k] >= 0 && (size_t)lengths[k] < sizeof names_at[k] && bytes - at >= (size_t)lengths[k];
    if (!readable) break;
    memcpy(names_at[k], data + at, (size_t)lengths[k]);
    names_at[k][lengths[k]] = '\0';
    names[k] = names_at[k];
    at += (size_t)lengths[k];
  }
  if (!readable || at != bytes) {
    feint_case_destroy(c);
    *aborted = 1;
    return unreadable_write(comm);
  }
  memcpy(path, file, (size_t)n_file);
  path[n_file] = '\0';
  feint_space *s = NULL;
  feint_form *f = NULL;
  int64_t *tags = NULL;
  feint_dist_piece pieces[RUN_XDMF_MAX_FIELDS];
  int coefficients = 0;
  for (int k = 0; k < n; k++) coefficients |= aux[k] >= 0;
  if (!status && !ws->mesh) status = feint_error_set(FEINT_ERR_COMPUTE, "internal: no share of the mesh read");
  if (!status) status = injected_failure(feint_comm_rank(comm), "xdmf");
  if (coefficients) /* (every rank, with its status) the space's dofs are every node */
    status = feint_dist_share_all_nodes(comm, status, ws->mesh, &ws->share);
  if (!status && coefficients) status = feint_dist_space_of_share(ws->mesh, &ws->share, ws->components, &s);
  if (!status && coefficients) status = feint_form_create(c, s, &f);
  if (!status) status = share_cell_field_pieces(ws->mesh, ws->share.cell0, f, n, names, aux, &tags, pieces);
  for (int k = 0; status && k < n; k++) /* still joining the write */
    pieces[k] = (feint_dist_piece){names[k], aux[k] < 0 ? FEINT_DIST_I64 : FEINT_DIST_F64, 0, 0, NULL, 0, NULL};
  const int written = feint_comm_write(comm, path, n, pieces);
  if (!status) status = written;
  free(tags);
  feint_form_destroy(f);
  feint_space_destroy(s);
  feint_case_destroy(c);
  return send_answer(comm, status, NULL, NULL, 0);
}

int run_dist_write_cell_dofs(run_state *r, const char *name) {
  run_dist *d = r->dist;
  double t0 = feint_now();
  const char *path = NULL;
  FEINT_CALL(feint_output_suspend(r->out, &path));
  char *payload = NULL;
  size_t n = 0;
  FEINT_CALL(two_strings(path, name, "a write's command", &payload, &n)); /* the file, the dataset */
  const command cmd = {.cmd = CMD_WRITE_CELL_DOFS};
  int status = FEINT_OK;
  for (int k = 1; k < d->size && !status; k++) status = send_command(d, k, &cmd, payload, n, NULL, 0);
  free(payload);
  FEINT_CALL(status);
  first_error e = {0};
  int64_t *scratch = NULL;
  feint_dist_piece piece = {name, FEINT_DIST_I64, 0, 0, NULL, 0, NULL};
  note_error(&e, injected_failure(0, "dofmap"));
  if (!e.status)
    note_error(&e, share_dof_map_piece(name, r->mesh, d->share.cell0, run_space_components(r->c, r->mesh), &scratch,
                                       &piece));
  if (e.status) piece.count = 0; /* still joining the write */
  note_error(&e, feint_comm_write(d->comm, path, 1, &piece));
  free(scratch);
  read_answers(d, 1, &e);
  const size_t used = strlen(d->read_step);
  snprintf(d->read_step + used, sizeof d->read_step - used, ", the dof map written by the ranks (each its share's "
           "rows) %.1f ms", 1e3 * (feint_now() - t0));
  return reported(&e);
}

const char *run_dist_steps(const run_state *r) { return r->dist ? r->dist->steps : ""; }

const char *run_dist_partition(const run_state *r) { return r->dist ? r->dist->partition_words : ""; }

/* ---- the operator section on every rank ---- */

static int operator_part_create(run_part *p, feint_device_kind kind, int device_index, const operator_setup *s,
                                  char *note, size_t note_size) {
  return run_operator_create(p->hm, p->dofs, s->kind, s->geo, s->lambda, kind, device_index, &p->op, &p->apply, note,
                             note_size);
}

int run_dist_operator_setup(run_state *r, const feint_run_options *opts, feint_device_kind kind,
                            const feint_hexmesh *hm, const feint_bp_dofmap *d, const double *x, int bp_kind, int geo,
                            double lambda, run_operator_part *own, char *note, size_t note_size) {
  run_dist *d_ = r->dist;
  forget_parts(d_);
  double t0 = feint_now();
  FEINT_CALL(partition_cells(d_, r, 0, 0, &t0)); /* the hexahedra are the mesh's cells, in its order */
  const command cmd = {.cmd = CMD_OPERATOR_SETUP, .kind = (int32_t)kind, .device_index = opts->device_index};
  const operator_setup s = {bp_kind, geo, lambda};
  int status = FEINT_OK;
  for (int k = 0; k < d_->size && !status; k++) {
    void *msg = NULL;
    size_t bytes = 0;
    status = feint_dist_hex_part_pack(hm, d, x, d_->partition, k, &msg, &bytes, &d_->parts[k]);
    if (!status && d_->parts[k].n_cells == 0)
      status = feint_error_set(FEINT_ERR_INPUT, "%s: the partition left rank %d without cells (run on fewer ranks)",
                               r->mesh->path, k);
    if (!status && k == 0)
      status = feint_dist_hex_part_unpack(msg, bytes, &d_->own.hm, &d_->own.dofs, &d_->own.x);
    else if (!status)
      status = send_command(d_, k, &cmd, &s, sizeof s, msg, bytes);
    if (!status && k > 0) d_->setup_answers = k;
    free(msg);
  }
  if (!status) step(d_, "parts packed and sent", &t0);
  if (!status) status = operator_part_create(&d_->own, kind, opts->device_index, &s, note, note_size);
  if (status) return status;
  step(d_, "rank 0's part: operator", &t0);
  *own = (run_operator_part){d_->own.op, d_->own.apply, d_->own.x, d_->own.dofs->n_dofs};
  return FEINT_OK;
}

int run_dist_operator_apply(run_state *r, const double *own_y, int64_t n_whole, double *y) {
  run_dist *d = r->dist;
  const command cmd = {.cmd = CMD_OPERATOR_APPLY};
  for (int k = 1; k < d->size; k++) FEINT_CALL(send_command(d, k, &cmd, NULL, 0, NULL, 0));
  memset(y, 0, (size_t)n_whole * sizeof *y);
  add_vector(&d->parts[0], 1, own_y, d->parts[0].n_scalar_dofs, y);
  int status = FEINT_OK;
  for (int k = 1; k < d->size; k++) {
    char *msg = NULL;
    const char *data = NULL;
    size_t bytes = 0;
    int s = receive_answer(d, k, &msg, &data, &bytes);
    if (!s && bytes != (size_t)d->parts[k].n_scalar_dofs * sizeof(double))
      s = feint_error_set(FEINT_ERR_COMPUTE, "internal: rank %d's y has %zu bytes", k, bytes);
    if (!s && !status) add_vector(&d->parts[k], 1, (const double *)(const void *)data, d->parts[k].n_scalar_dofs, y);
    free(msg);
    if (s && !status) status = s;
  }
  return status;
}

void run_dist_finish(run_state *r, int status) {
  run_dist *d = r->dist;
  if (!d) return;
  if (d->setup_answers) { /* rank 0 failed first: its message stays */
    char message[4200], location[200];
    snprintf(message, sizeof message, "%s", feint_error_message());
    snprintf(location, sizeof location, "%s", feint_error_location());
    read_setup_answers(d, NULL, 0);
    feint_error_restore(status, message, location);
  }
  if (d->workers_busy) {
    const command cmd = {.cmd = CMD_FINISH, .arg = status};
    for (int k = 1; k < d->size; k++)
      if (send_command(d, k, &cmd, NULL, 0, NULL, 0)) feint_comm_abort(d->comm, status ? status : FEINT_ERR_COMPUTE);
    d->workers_busy = 0;
  }
}

void run_dist_destroy(run_dist *d) {
  if (!d) return;
  forget_parts(d);
  free(d->share_counts);
  free(d->own_counts);
  free(d->share_parts);
  free(d->facet_cells);
  free(d);
}

/* ---- the other ranks ---- */

/* The part from a slab of the whole (the message after the setup's), built
 * with the other ranks: taking part whatever failed before, so that no
 * rank waits for this one. */
static int worker_build(feint_comm *comm, run_part *p, const command *cmd, int status, int device_index,
                        worker_share *ws, const char *parts, size_t parts_bytes) {
  void *slab_msg = NULL;
  size_t slab_bytes = 0;
  feint_dist_slab *slab = NULL;
  int *share_parts = NULL;
  if (cmd->share) { /* its slab is its share of the mesh (and the parts of its cells: after the case, or placed by
                     * this rank on the curve) */
    if (!status && !ws->mesh) status = feint_error_set(FEINT_ERR_COMPUTE, "internal: no share of the mesh read");
    if (!status && cmd->curve && !ws->parts)
      status = feint_error_set(FEINT_ERR_COMPUTE, "internal: no parts placed on the curve");
    if (!status && parts_bytes && parts_bytes != (size_t)ws->mesh->n_cells * sizeof *share_parts)
      status = feint_error_set(FEINT_ERR_COMPUTE, "internal: the parts of %zu bytes for a share of %lld cells",
                               parts_bytes, (long long)ws->mesh->n_cells);
    if (!status && parts_bytes && !(status = feint_malloc(parts_bytes, 1, &share_parts, "the share's parts")))
      memcpy(share_parts, parts, parts_bytes); /* aligned */
    if (!status)
      status = feint_dist_slab_of_share(ws->mesh, &ws->share, cmd->curve ? ws->parts : share_parts, ws->components,
                                        &slab);
  } else {
    const int received = feint_comm_recv(comm, 0, &slab_msg, &slab_bytes);
    if (received) return received; /* rank 0 is gone: the worker's loop ends */
    if (!status) status = feint_dist_slab_read(slab_msg, slab_bytes, &slab);
  }
  if (!status) status = injected_failure(feint_comm_rank(comm), "setup");
  feint_dist_part_builder *builder = NULL;
  status = feint_dist_part_build_start(comm, status, slab, &builder);
  feint_dist_slab_destroy(slab); /* and the slab's message, or the share: the build keeps what it needs */
  free(slab_msg);
  free(share_parts);
  if (!cmd->keep_share || status) worker_share_drop(ws);
  if (!builder) return status;
  feint_mesh *mesh = NULL;
  feint_space *space = NULL;
  double seconds[4] = {0, 0, 0, 0};
  status = feint_dist_part_build_finish(builder, status, &mesh, &space, seconds);
  if (!status) status = part_setup_built(p, p->c, mesh, space, seconds[3], cmd, device_index);
  return status;
}

/* The case a command carries (case_payload's): *c, and the bytes it took (*at). */
static int case_from_payload(const char *data, size_t bytes, feint_case **c, size_t *at) {
  *c = NULL;
  const char *name, *text;
  int32_t n_name, n_text;
  if (!two_strings_read(data, bytes, &name, &n_name, &text, &n_text, at))
    return feint_error_set(FEINT_ERR_COMPUTE, "internal: a command's case is malformed");
  char *path = NULL;
  FEINT_CALL(feint_malloc((size_t)n_name + 1, 1, &path, "the case's name"));
  memcpy(path, name, (size_t)n_name);
  path[n_name] = '\0';
  const int status = feint_case_load_text(path, text, (size_t)n_text, 0, NULL, c);
  free(path);
  return status;
}

/* CMD_READ: the worker's share of the case's mesh (collective with every
 * rank's read, which it joins whatever happens before it). */
static int worker_read(feint_comm *comm, worker_share *ws, const char *data, size_t bytes) {
  feint_dist_timeline("read: command");
  worker_share_drop(ws);
  feint_case *c = NULL;
  size_t at = 0;
  int status = case_from_payload(data, bytes, &c, &at);
  if (!status) status = injected_failure(feint_comm_rank(comm), "read");
  ws->share = (feint_mesh_share){.rank = feint_comm_rank(comm), .size = feint_comm_size(comm),
                                 .range = feint_dist_rows_scalar_range, .nodes = feint_dist_share_nodes, .ctx = comm,
                                 .simplices_only = 1};
  if (!status && (access(c->mesh_file, R_OK) != 0 || injected_failure(feint_comm_rank(comm), "open"))) {
    /* not on this rank's file system (mpirun across hosts): it reads none, and rank 0 reads alone */
    feint_error_clear();
    ws->share.unsuited = "the file is not readable here";
    feint_dist_share_nodes(comm, FEINT_OK, NULL);
  } else if (!status) {
    /* its share of its host's cores while rank 0 reads the whole (on one host: beside it): rank 0's read is
     * 0.05-0.1 s shorter at 4 ranks (docs/mpi.md); FEINT_DIST_READ_THREADS=all: every core (measuring) */
    const char *all = getenv("FEINT_DIST_READ_THREADS");
    const int cores = feint_parallel_cpus() / feint_comm_launch().local_size;
    const int before = feint_parallel_cap(all && !strcmp(all, "all") ? 0 : cores > 1 ? cores : 1);
    const feint_mesh_options mo = run_mesh_options(c);
    status = feint_mesh_read_share(c->mesh_file, &mo, &ws->share, &ws->mesh);
    feint_parallel_cap(before);
  } else {
    feint_dist_share_nodes(comm, status, NULL); /* the others wait for this rank's nodes */
  }
  if (!status && ws->mesh) ws->components = run_space_components(c, ws->mesh);
  /* the rows partition's balance counted here, while rank 0 still reads (P1 on every node: a node a row), where
   * the case may take it */
  const int rows = c && (c->mesh_partition == FEINT_PARTITION_ROWS || c->mesh_partition == FEINT_PARTITION_AUTO);
  if (!status && rows && ws->mesh && ws->share.nodes_in_cells == ws->mesh->n_nodes &&
      !(status = feint_malloc((size_t)ws->share.size, sizeof *ws->rows_counts, &ws->rows_counts, "the rows' cells")))
    status = feint_dist_rows_count_cells(ws->mesh->cells, ws->mesh->nv, ws->mesh->n_cells, ws->mesh->n_nodes,
                                         ws->share.size, ws->rows_counts);
  feint_case_destroy(c);
  if (status) worker_share_drop(ws);
  feint_dist_timeline("read: answered");
  return status;
}

/* A setup command's data: the case, then the part's message (in the
 * received buffer *holder, freed once the part is unpacked), or for a
 * slab (cmd->slab) nothing more: the slab follows in a message of its own,
 * or is the worker's share of the mesh (cmd->share). */
static int worker_setup(feint_comm *comm, run_part *p, const command *cmd, const char *data, size_t bytes,
                        void **holder, int device_index, int *reused, worker_share *ws) {
  *reused = 0;
  size_t at = 0;
  int status = case_from_payload(data, bytes, &p->c, &at);
  if (status && !cmd->slab) return status;
  if (!status && cmd->arg == 1) /* a sweep member on the same part */
    status = p->space ? part_form(p, p->c, cmd, device_index)
                      : feint_error_set(FEINT_ERR_COMPUTE, "internal: told to keep a part it does not have");
  else if (cmd->slab)
    status = worker_build(comm, p, cmd, status, device_index, ws, data + at, status ? 0 : bytes - at);
  else if (!status)
    status = part_setup(p, p->c, data + at, bytes - at, holder, cmd, device_index);
  if (!status) status = part_backend(p, cmd, device_index, reused);
  return status;
}

/* Element matrices: the part's to their cells' owners (collective: the
 * answer is the status), or to rank 0 by cell. */
static int worker_answer_elements(feint_comm *comm, run_part *p, const command *cmd) {
  int64_t n = 0;
  int status = part_compute(p, feint_comm_rank(comm), p->backend, FEINT_PHASE_ELEMENT, &n);
  if (cmd->collective) {
    status = owned_elements(comm, p, status, cmd->nbc_whole);
    return send_answer(comm, status, NULL, NULL, 0);
  }
  const int64_t head[2] = {n, p->space->nbc};
  const void *pieces[2] = {head, p->result};
  const size_t sizes[2] = {sizeof head, (size_t)n * sizeof(double)};
  return send_answer(comm, status, pieces, sizes, 2);
}

/* A vector or the matrix: the part's values summed by their owners (this
 * rank its own block), the conditions applied to the block; the block
 * kept for the collective write (rank 0 gets its sums of squares) or sent
 * to rank 0 (after the matrix, with the lifted load vector's block). */
static int worker_answer_block(feint_comm *comm, run_part *p, const command *cmd, const char *cond, size_t ncond) {
  const int phase = cmd->arg, matrix = phase == FEINT_PHASE_ASSEMBLY, b = block_of(phase);
  int64_t n = 0;
  int status = part_compute(p, feint_comm_rank(comm), p->backend, phase, &n);
  feint_boundary_destroy(p->bc);
  p->bc = NULL;
  if (!status && ncond) status = feint_boundary_unpack(cond, ncond, &p->bc);
  const int64_t count = matrix ? p->rows->nnz : p->rows->n_owned;
  drop_block(p, b);
  double *local = p->result;
  if (!status && p->rows->complete) { /* the block is its own rows' slice of the results: no copy */
    p->block_memory[b] = p->result;
    p->result = NULL;
    p->blocks[b] = local + (matrix ? p->rows->first_value : p->rows->first_local)[p->rows->rank];
  } else if (!status) {
    status = feint_malloc_large_touched((size_t)count + 1, sizeof(double), &p->blocks[b], "the owned rows");
    p->block_memory[b] = p->blocks[b];
  }
  const int s = feint_dist_rows_sum(p->rows, comm, status, matrix, local, p->blocks[b]);
  if (!status) status = s;
  double *rhs = p->blocks[BLOCK_RHS];
  if (!status && matrix && cmd->lift && !rhs) status = feint_error_set(FEINT_ERR_COMPUTE, "internal: no load vector to lift");
  if (!status) status = block_conditions(p->bc, NULL, p->rows, phase, cmd->lift, p->blocks[b], rhs);
  const int with_rhs = matrix && cmd->lift;
  if (cmd->collective) {
    const double sq[2] = {status ? 0 : sum_squares(p->blocks[b], count),
                          status || !with_rhs ? 0 : sum_squares(rhs, p->rows->n_owned)};
    const void *piece[1] = {sq};
    const size_t size[1] = {sizeof sq};
    return send_answer(comm, status, piece, size, 1);
  }
  const void *pieces[2] = {p->blocks[b], rhs};
  const size_t sizes[2] = {(size_t)count * sizeof(double), (size_t)p->rows->n_owned * sizeof(double)};
  return send_answer(comm, status, pieces, sizes, with_rhs ? 2 : 1);
}

/* Rank 0's collective write (run_dist_write): this rank's pieces. A
 * command it cannot read leaves it unable to join: the run ends. */
static int worker_write(feint_comm *comm, run_part *p, const char *data, size_t bytes) {
  int32_t head[2];
  const char *at = data, *end = data + bytes;
  const char *names[MAX_ITEMS];
  char name_buf[MAX_ITEMS][512], path[4200];
  int32_t phases[MAX_ITEMS];
  int ok = bytes >= sizeof head;
  if (ok) {
    memcpy(head, at, sizeof head);
    at += sizeof head;
    ok = head[0] >= 0 && head[0] <= MAX_ITEMS && head[1] >= 0 && (size_t)head[1] < sizeof path && at + head[1] <= end;
  }
  if (ok) {
    memcpy(path, at, (size_t)head[1]);
    path[head[1]] = '\0';
    at += head[1];
  }
  for (int k = 0; ok && k < head[0]; k++) {
    int32_t len;
    ok = at + 8 <= end;
    if (!ok) break;
    memcpy(&phases[k], at, 4);
    memcpy(&len, at + 4, 4);
    at += 8;
    ok = len >= 0 && (size_t)len < sizeof name_buf[k] && at + len <= end;
    if (!ok) break;
    memcpy(name_buf[k], at, (size_t)len);
    name_buf[k][len] = '\0';
    names[k] = name_buf[k];
    at += len;
  }
  const size_t nfirst = (size_t)(feint_comm_size(comm) + 1) * sizeof(int64_t);
  int64_t *value_first = NULL;
  if (ok && (size_t)(end - at) == nfirst) {
    value_first = malloc(nfirst);
    if (value_first) memcpy(value_first, at, nfirst);
    ok = value_first != NULL;
  } else if (ok) {
    ok = at == end; /* no matrix */
  }
  if (!ok) {
    free(value_first);
    return unreadable_write(comm);
  }
  feint_dist_piece pieces[MAX_ITEMS];
  int64_t *scratch = NULL;
  int status = rank_pieces(p, value_first, p->blocks, head[0], names, phases, pieces, &scratch);
  const int s = feint_comm_write(comm, path, head[0], pieces);
  if (!status) status = s;
  free(scratch);
  free(value_first);
  return send_answer(comm, status, NULL, NULL, 0);
}

int feint_driver_worker(const feint_run_options *opts) {
  feint_comm *comm = opts->comm;
  const feint_launch l = feint_comm_launch();
  /* the rank's GPU: found when a command first needs it, since counting the GPUs starts CUDA's driver (0.3 s a rank
   * when four start together), which the warm-up does beside the mesh's read */
  int device_index = opts->device_index;
  int device_found = device_index >= 0;
  run_part p;
  memset(&p, 0, sizeof p);
  worker_share ws;
  memset(&ws, 0, sizeof ws);
  int status = FEINT_OK;
  /* the GPU's context, made while rank 0 reads the mesh */
  feint_backend_warm_up_start(opts->backend_set ? opts->backend : FEINT_DEVICE_AUTO, device_index, l.local_rank);
  for (;;) {
    void *msg = NULL;
    size_t bytes = 0;
    command cmd;
    feint_dist_timeline("worker: waits");
    if ((status = feint_comm_recv(comm, 0, &msg, &bytes)) || bytes < sizeof cmd) {
      free(msg);
      feint_backend_warm_up_wait();
      part_release(&p);
      worker_share_drop(&ws);
      return status ? status : FEINT_ERR_COMPUTE; /* rank 0 is gone */
    }
    memcpy(&cmd, msg, sizeof cmd);
    const char *data = (const char *)msg + sizeof cmd;
    bytes -= sizeof cmd;
    int sent = FEINT_OK;
    if ((cmd.cmd == CMD_SETUP || cmd.cmd == CMD_OPERATOR_SETUP) && cmd.device_index < 0 && !device_found) {
      device_index = feint_backend_rank_device(l.local_rank);
      device_found = 1;
    }
    if (getenv("FEINT_TIMELINE")) {
      char what[32];
      snprintf(what, sizeof what, "worker: command %d", (int)cmd.cmd);
      feint_dist_timeline(what);
    }
    if (cmd.cmd == CMD_FINISH) {
      free(msg);
      feint_backend_warm_up_wait();
      part_release(&p);
      worker_share_drop(&ws);
      feint_error_clear();
      return cmd.arg; /* every rank exits with rank 0's status */
    } else if (cmd.cmd == CMD_SETUP) {
      if (cmd.arg == 1) part_drop_form(&p, 1); /* a sweep's next member on the same part: the backend may stay */
      else part_release(&p);                 /* a sweep's previous member's */
      int32_t reused = 0;
      if (!cmd.share && !cmd.keep_share) worker_share_drop(&ws);
      status = worker_setup(comm, &p, &cmd, data, bytes, &msg, cmd.device_index >= 0 ? cmd.device_index : device_index,
                            &reused, &ws);
      char device[320] = "";
      if (p.backend)
        device_words(p.backend->name, p.backend->device, cmd.device_index >= 0 ? cmd.device_index : device_index,
                     device, sizeof device);
      const void *piece[2] = {&reused, device};
      const size_t size[2] = {sizeof reused, strlen(device)};
      sent = send_answer(comm, status, piece, size, 2);
    } else if (cmd.cmd == CMD_SHARE_CELLS) { /* its share's cells and groups, for the whole on rank 0 */
      const feint_mesh *m = ws.mesh;
      const int had = m ? FEINT_OK : feint_error_set(FEINT_ERR_COMPUTE, "internal: no share of the mesh read");
      const int64_t n = m ? m->n_cells : 0;
      const void *pieces[3] = {&n, m ? m->cells : NULL, m ? m->cell_group : NULL};
      const size_t sizes[3] = {sizeof n, m ? (size_t)(n * m->nv) * sizeof *m->cells : 0,
                               m && m->cell_group ? (size_t)n * sizeof *m->cell_group : 0};
      sent = send_answer(comm, had, pieces, sizes, 3);
    } else if (cmd.cmd == CMD_SHARE_PARTS) { /* its share's cells' parts, METIS's on the whole's cells */
      int had = ws.mesh ? FEINT_OK : feint_error_set(FEINT_ERR_COMPUTE, "internal: no share of the mesh read");
      if (!had) had = injected_failure(feint_comm_rank(comm), "metis");
      if (!had && bytes != (size_t)ws.mesh->n_cells * sizeof *ws.parts)
        had = feint_error_set(FEINT_ERR_COMPUTE, "internal: %zu bytes of parts for a share of %lld cells", bytes,
                              (long long)ws.mesh->n_cells);
      free(ws.parts);
      ws.parts = NULL;
      if (!had && !(had = feint_malloc(bytes + 1, 1, &ws.parts, "the share's parts"))) memcpy(ws.parts, data, bytes);
      sent = send_answer(comm, had, NULL, NULL, 0);
    } else if (cmd.cmd == CMD_CURVE) { /* its share's cells placed on the curve, beside the others */
      int had = ws.mesh ? FEINT_OK : feint_error_set(FEINT_ERR_COMPUTE, "internal: no share of the mesh read");
      if (!had) had = injected_failure(feint_comm_rank(comm), "curve");
      free(ws.parts);
      ws.parts = NULL;
      status = feint_dist_curve_parts_of_share(comm, had, ws.mesh, &ws.share, &ws.parts, NULL);
      sent = send_answer(comm, status, NULL, NULL, 0);
    } else if (cmd.cmd == CMD_WRITE_CELL_DOFS) { /* its share's rows of the dof map, with the others */
      const char *file, *dataset;
      int32_t n_file = 0, n_dataset = 0;
      size_t at = 0;
      char path[4200], name[512];
      if (!two_strings_read(data, bytes, &file, &n_file, &dataset, &n_dataset, &at) || at != bytes ||
          (size_t)n_file >= sizeof path || (size_t)n_dataset >= sizeof name) {
        free(msg);
        return unreadable_write(comm);
      }
      memcpy(path, file, (size_t)n_file);
      path[n_file] = '\0';
      memcpy(name, dataset, (size_t)n_dataset);
      name[n_dataset] = '\0';
      int64_t *scratch = NULL;
      feint_dist_piece piece = {name, FEINT_DIST_I64, 0, 0, NULL, 0, NULL};
      status = ws.mesh ? FEINT_OK : feint_error_set(FEINT_ERR_COMPUTE, "internal: no share of the mesh read");
      if (!status) status = injected_failure(feint_comm_rank(comm), "dofmap");
      if (!status) status = share_dof_map_piece(name, ws.mesh, ws.share.cell0, ws.components, &scratch, &piece);
      if (status) piece.count = 0;
      const int written = feint_comm_write(comm, path, 1, &piece);
      if (!status) status = written;
      free(scratch);
      sent = send_answer(comm, status, NULL, NULL, 0);
    } else if (cmd.cmd == CMD_WRITE_CELL_FIELDS) { /* its share's rows of the XDMF cell fields, with the others */
      int aborted;
      sent = worker_write_cell_fields(comm, &ws, data, bytes, &aborted);
      if (aborted) {
        free(msg);
        return sent;
      }
    } else if (cmd.cmd == CMD_FLUX_HOLDERS) { /* its share's cells that may hold the flux facets */
      int64_t *rows = NULL, n = 0;
      const int n_groups = (int)(bytes / sizeof(int));
      int *groups = NULL;
      status = ws.mesh ? FEINT_OK : feint_error_set(FEINT_ERR_COMPUTE, "internal: no share of the mesh read");
      if (!status) status = injected_failure(feint_comm_rank(comm), "flux");
      if (!status) status = feint_malloc((size_t)n_groups + 1, sizeof *groups, &groups, "the flux's groups");
      if (!status) {
        memcpy(groups, data, (size_t)n_groups * sizeof *groups);
        status = feint_mesh_facet_cells(ws.mesh, groups, n_groups, &rows, &n);
      }
      const void *pieces[2] = {&n, rows};
      const size_t sizes[2] = {sizeof n, status ? 0 : (size_t)(n * ws.mesh->nv) * sizeof *rows};
      sent = send_answer(comm, status, pieces, sizes, status ? 0 : 2);
      free(groups);
      free(rows);
    } else if (cmd.cmd == CMD_READ) {
      const int read_status = worker_read(comm, &ws, data, bytes);
      const void *counts[1] = {ws.rows_counts};
      const size_t counts_bytes[1] = {ws.rows_counts ? (size_t)ws.share.size * sizeof *ws.rows_counts : 0};
      sent = send_answer(comm, read_status, counts, counts_bytes, ws.rows_counts ? 1 : 0);
    } else if (cmd.cmd == CMD_ROWS && bytes == sizeof(int64_t)) {
      int64_t n_rows;
      memcpy(&n_rows, data, sizeof n_rows);
      feint_dist_rows_destroy(p.rows);
      p.rows = NULL;
      free(p.local_whole);
      p.local_whole = NULL;
      p.complete = cmd.complete;
      status = part_rows(&p, comm, FEINT_OK, n_rows, cmd.arg);
      /* its block's size, and its pattern when rank 0 gathers the whole one */
      const feint_dist_rows *rw = p.rows;
      const int64_t width = rw && rw->cols32 ? 4 : 8;
      const int64_t head[3] = {rw ? rw->n_owned : 0, rw && rw->matrix ? rw->nnz : 0, width};
      const void *pieces[3] = {head, rw ? rw->indptr : NULL,
                               rw && rw->cols32 ? (const void *)rw->cols32 : rw ? (const void *)rw->cols : NULL};
      const size_t sizes[3] = {sizeof head, rw && rw->matrix ? (size_t)(rw->n_owned + 1) * 8 : 0,
                               (size_t)(head[1] * width)};
      sent = send_answer(comm, status, pieces, sizes, cmd.collective ? 1 : 3);
    } else if (cmd.cmd == CMD_COMPUTE && p.backend && cmd.arg == FEINT_PHASE_ELEMENT) {
      sent = worker_answer_elements(comm, &p, &cmd);
    } else if (cmd.cmd == CMD_COMPUTE && p.backend && p.rows) {
      sent = worker_answer_block(comm, &p, &cmd, data, bytes);
    } else if (cmd.cmd == CMD_WRITE) {
      sent = worker_write(comm, &p, data, bytes);
    } else if (cmd.cmd == CMD_OPERATOR_SETUP && bytes >= sizeof(operator_setup)) {
      part_release(&p);
      operator_setup s;
      memcpy(&s, data, sizeof s);
      const int dev = cmd.device_index >= 0 ? cmd.device_index : device_index;
      char note[512], device[320] = "";
      status = feint_dist_hex_part_unpack(data + sizeof s, bytes - sizeof s, &p.hm, &p.dofs, &p.x);
      if (!status) status = operator_part_create(&p, (feint_device_kind)cmd.kind, dev, &s, note, sizeof note);
      if (!status) device_words(p.apply->name, p.apply->device, dev, device, sizeof device);
      const void *piece[1] = {device};
      const size_t size[1] = {strlen(device)};
      sent = send_answer(comm, status, piece, size, 1);
    } else if (cmd.cmd == CMD_OPERATOR_APPLY && p.apply) {
      double *y = NULL;
      status = feint_malloc_large_touched((size_t)p.dofs->n_dofs + 1, sizeof *y, &y, "a part's y");
      if (!status) status = p.apply->apply(p.apply, p.x, y);
      const void *piece[1] = {y};
      const size_t size[1] = {(size_t)p.dofs->n_dofs * sizeof *y};
      sent = send_answer(comm, status, piece, size, 1);
      free(y);
    } else {
      feint_error_set(FEINT_ERR_COMPUTE, "internal: command %d out of turn", cmd.cmd);
      sent = send_answer(comm, FEINT_ERR_COMPUTE, NULL, NULL, 0);
    }
    free(msg);
    if (sent) { /* rank 0 cannot hear this rank: end the run */
      feint_backend_warm_up_wait();
      part_release(&p);
      worker_share_drop(&ws);
      feint_comm_abort(comm, sent);
      return sent;
    }
  }
}
