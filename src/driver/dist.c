/* The run under mpirun (feint/dist.h). Rank 0 runs the pipeline of
 * driver.c on the whole mesh: it reads the mesh once, numbers the dofs,
 * makes the pattern and the boundary conditions, partitions the cells and
 * sends every other rank its part; each rank (rank 0 too) computes the
 * volume integrals of its own cells on its own device, and rank 0 adds
 * the parts' results into the whole (vectors by dof, element matrices by
 * cell, matrix values by their place in the pattern), then applies the
 * boundary conditions and writes the file as one rank would: the same
 * layout and dof numbers, values equal to rounding (sums are taken in
 * another order).
 *
 * The other ranks (feint_driver_worker) do what rank 0 tells them, one
 * command at a time, and answer each with a status (and the error's
 * message) before any data, so an error on any rank ends the run on all
 * of them with one message and one exit status, before anything is
 * written. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/run.h"
#include "feint/bp.h"
#include "feint/dist.h"
#include "feint/error.h"
#include "feint/form.h"
#include "feint/parallel.h"
#include "feint/plan.h"

enum { CMD_SETUP = 1, CMD_COMPUTE, CMD_FINISH, CMD_OPERATOR_SETUP, CMD_OPERATOR_APPLY };

/* How the operator section's parts make their operator (after a command). */
typedef struct {
  int32_t kind, geo; /* feint_bp_kind, feint_bp_geo_mode */
  double lambda;
} operator_setup;

/* What rank 0 sends: a command, its argument (the phase to compute, the
 * status to exit with) and, for setup, how to set up. */
typedef struct {
  int32_t cmd, arg;
  int32_t kind, need_matrix, no_cache, device_index;
} command;

/* A rank's problem on its own cells. */
struct run_part {
  feint_case *c;       /* a worker's case (rank 0's is the run's) */
  feint_mesh *mesh;
  feint_space *space;
  feint_form *form;
  feint_plan *plan;    /* NULL without a matrix */
  feint_backend *backend; /* a worker's (rank 0's is run_state's) */
  feint_problem problem;
  double *result;      /* the last phase's values */
  /* the operator section (operator.c): the part's hexahedra, dof map, x, operator, its backend (a worker's) */
  feint_hexmesh *hm;
  feint_bp_dofmap *dofs;
  double *x;
  feint_bp_op *op;
  feint_operator *apply;
};

struct run_dist {
  feint_comm *comm;
  int size;
  int *partition;          /* the whole mesh's cells -> rank */
  feint_dist_part *parts;  /* what rank 0 keeps of each rank's part */
  run_part own;            /* rank 0's part */
  int workers_busy;        /* 1 while the workers wait for a command (not yet finished) */
  char steps[600];         /* rank 0's steps with their times, for the report */
  int setup_answers;       /* 1 while the workers' answers to the setup are unread */
  int parts_kept;          /* the parts are those of the run's current mesh and space (run_dist_forget clears) */
  command last_setup;      /* the setup they were made with */
};

/* What a part holds for one sweep member: its case, form, backend and
 * results. A member on the previous member's mesh and space keeps the
 * rest (mesh, space, pattern) and makes these again. */
static void part_drop_form(run_part *p) {
  feint_backend_destroy(p->backend);
  feint_form_destroy(p->form);
  feint_case_destroy(p->c);
  free(p->result);
  const run_part kept = {.mesh = p->mesh, .space = p->space, .plan = p->plan, .hm = p->hm, .dofs = p->dofs,
                         .x = p->x, .op = p->op, .apply = p->apply};
  *p = kept;
}

static void part_release(run_part *p) {
  part_drop_form(p);
  feint_operator_destroy(p->apply);
  feint_bp_op_destroy(p->op);
  feint_bp_dofmap_destroy(p->dofs);
  feint_hexmesh_destroy(p->hm);
  free(p->x);
  feint_plan_destroy(p->plan);
  feint_space_destroy(p->space);
  feint_mesh_destroy(p->mesh);
  memset(p, 0, sizeof *p);
}

/* Mesh, space, form and plan of a part from its message. */
static int part_form(run_part *p, const feint_case *c, const command *cmd, int device_index);

static int part_setup(run_part *p, const feint_case *c, const void *msg, size_t bytes, const command *cmd,
                      int device_index) {
  FEINT_CALL(feint_dist_part_unpack(msg, bytes, &p->mesh, &p->space));
  if (!p->space) return feint_error_set(FEINT_ERR_COMPUTE, "internal: a rank's part has no cells");
  return part_form(p, c, cmd, device_index);
}

/* The part's form (of case c) and, when the matrix is wanted and not made
 * yet, its pattern. */
static int part_form(run_part *p, const feint_case *c, const command *cmd, int device_index) {
  FEINT_CALL(feint_form_create(c, p->space, &p->form));
  p->problem = (feint_problem){p->space, p->form, NULL, c->precision, c->strategy, c->blocks_per_batch,
                               c->batches_per_chunk, cmd->no_cache};
  p->problem.plan = p->plan;
  if (cmd->need_matrix && !p->plan) {
    char steps[200];
    FEINT_CALL(feint_backend_create_plan((feint_device_kind)cmd->kind, device_index, &p->problem, &p->plan, steps,
                                         sizeof steps));
    p->problem.plan = p->plan;
  }
  return FEINT_OK;
}

/* One compute phase on a part into p->result (*n values). */
static int part_compute(run_part *p, feint_backend *b, int phase, int64_t *n) {
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
  d->parts = NULL;
  d->partition = NULL;
  d->steps[0] = '\0';
}

/* The parts' messages, packed in parallel (a part's failure carried out
 * of its thread: errors are per thread). */
typedef struct {
  void *msg;
  size_t bytes;
  int status;
  char why[1024];
} packed;
typedef struct {
  const feint_space *space;
  const int *partition;
  feint_dist_part *parts;
  packed *out;
} pack_job;

static void pack_range(int64_t a, int64_t b, void *arg) {
  const pack_job *j = arg;
  for (int64_t k = a; k < b; k++) {
    packed *o = &j->out[k];
    o->status = feint_dist_part_pack(j->space, j->partition, (int)k, &o->msg, &o->bytes, &j->parts[k]);
    if (o->status) snprintf(o->why, sizeof o->why, "%s", feint_error_message());
  }
}

/* Note a step of rank 0 that took since *t0 (restarted). */
static void step(run_dist *d, const char *what, double *t0) {
  const double now = feint_now();
  const size_t used = strlen(d->steps);
  snprintf(d->steps + used, sizeof d->steps - used, "%s%s %.1f ms", used ? ", " : "", what, 1e3 * (now - *t0));
  *t0 = now;
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

/* The whole mesh's cells shared among the ranks (mesh.partition), and the
 * parts' slots: the start of every setup. */
static int partition_cells(run_dist *d, const run_state *r, double *t0) {
  const feint_mesh *m = r->mesh;
  if (m->n_cells < d->size)
    return feint_error_set(FEINT_ERR_INPUT, "%s: %lld cells cannot be shared among %d ranks (run on fewer)", m->path,
                           (long long)m->n_cells, d->size);
  FEINT_CALL(feint_malloc((size_t)m->n_cells, sizeof *d->partition, &d->partition, "the partition"));
  if (r->c->mesh_partition == 1)
    FEINT_CALL(feint_comm_partition(d->comm, m, d->size, d->partition));
  else
    FEINT_CALL(feint_dist_partition_curve(m, d->size, d->partition));
  step(d, r->c->mesh_partition == 1 ? "partition (METIS)" : "partition (curve)", t0);
  return feint_calloc((size_t)d->size, sizeof *d->parts, &d->parts, "the parts");
}

/* The case text as a setup's payload: lengths, the case's name, its as_run. */
static int case_payload(const feint_case *c, char **out, size_t *n) {
  const int32_t lens[2] = {(int32_t)strlen(c->path), (int32_t)strlen(c->as_run)};
  *n = sizeof lens + (size_t)lens[0] + (size_t)lens[1];
  FEINT_CALL(feint_malloc(*n, 1, out, "the case for the other ranks"));
  memcpy(*out, lens, sizeof lens);
  memcpy(*out + sizeof lens, c->path, (size_t)lens[0]);
  memcpy(*out + sizeof lens + lens[0], c->as_run, (size_t)lens[1]);
  return FEINT_OK;
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
  if (!status) step(d, "parts kept, the member's case sent", &t0);
  part_drop_form(&d->own);
  if (!status) status = part_form(&d->own, r->c, setup, opts->device_index);
  if (status) return status;
  step(d, "rank 0's part: form", &t0);
  *own = d->own.problem;
  return FEINT_OK;
}

int run_dist_setup(const feint_run_options *opts, run_state *r, feint_device_kind kind, int need_matrix,
                   feint_problem *own) {
  run_dist *d = r->dist;
  const feint_mesh *m = r->mesh;
  const command setup = {CMD_SETUP, 0, (int32_t)kind, need_matrix, opts->no_cache || !r->c->cache,
                         opts->device_index};
  if (d->parts_kept && !memcmp(&setup, &d->last_setup, sizeof setup))
    return keep_parts(d, opts, r, &setup, own);
  forget_parts(d);
  d->last_setup = setup;
  double t0 = feint_now();
  FEINT_CALL(partition_cells(d, r, &t0));
  char *head = NULL;
  size_t nhead = 0;
  FEINT_CALL(case_payload(r->c, &head, &nhead));
  /* the parts packed side by side (each a pass over the whole mesh), then sent */
  pack_job job = {r->space, d->partition, d->parts, NULL};
  int status = feint_calloc((size_t)d->size, sizeof *job.out, &job.out, "the parts' messages");
  if (!status) {
    feint_parallel_for(d->size, 1, pack_range, &job);
    for (int k = 0; k < d->size && !status; k++) {
      if (job.out[k].status)
        status = feint_error_restore(job.out[k].status, job.out[k].why, "src/dist/part.c");
      else if (d->parts[k].n_cells == 0)
        status = feint_error_set(FEINT_ERR_INPUT,
                                 "%s: the partition left rank %d without cells (run on fewer ranks)", m->path, k);
    }
  }
  if (!status) step(d, "parts packed", &t0);
  for (int k = 1; k < d->size && !status; k++) {
    status = send_command(d, k, &setup, head, nhead, job.out[k].msg, job.out[k].bytes);
    if (!status) d->setup_answers = k; /* workers 1..k answer */
    free(job.out[k].msg);
    job.out[k].msg = NULL;
  }
  free(head);
  if (!status) step(d, "parts sent", &t0);
  if (!status) status = part_setup(&d->own, r->c, job.out[0].msg, job.out[0].bytes, &setup, opts->device_index);
  for (int k = 0; job.out && k < d->size; k++) free(job.out[k].msg);
  free(job.out);
  if (status) return status;
  step(d, "rank 0's part: form and pattern", &t0);
  d->parts_kept = 1;
  *own = d->own.problem;
  return FEINT_OK;
}

/* The setup's answers of workers 1..d->setup_answers (each its device,
 * added to devices when given): the first error. */
static int read_setup_answers(run_dist *d, char *devices, size_t size) {
  int status = FEINT_OK;
  /* every answer is read, so that no rank is left sending */
  const int n_answers = d->setup_answers;
  d->setup_answers = 0;
  for (int k = 1; k <= n_answers; k++) {
    char *msg = NULL;
    const char *data;
    size_t n;
    const int s = receive_answer(d, k, &msg, &data, &n);
    if (!s && devices) {
      const size_t used = strlen(devices);
      snprintf(devices + used, size - used, "; %d: %.*s", k, (int)(n < 200 ? n : 200), data);
    }
    free(msg);
    if (s && !status) status = s;
    if (s && s != FEINT_ERR_INPUT && s != FEINT_ERR_COMPUTE) break; /* unreachable rank */
  }
  return status;
}

int run_dist_wait_setup(run_state *r, const char *name, const char *own_device, int device_index,
                        feint_run_report *rep) {
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

/* A part's CSR matrix (local rows and columns) added into the whole's
 * values. Local numbers keep the whole's order, so a local row's sorted
 * columns are sorted in the whole too: each row is merged along its whole
 * row. Its rows are distinct rows of the whole: ranges run in parallel. */
typedef struct {
  const feint_dist_part *pt;
  int nc;
  const int64_t *indptr;
  const int32_t *indices;
  const int64_t *indices64;
  const double *values;
  const feint_plan *whole;
  double *out;
  int64_t missing; /* entries not in the whole pattern (an internal error) */
} matrix_job;

static inline int64_t column(const feint_plan *p, int64_t k) { return p->indices64 ? p->indices64[k] : p->indices[k]; }

static void add_matrix_range(int64_t a, int64_t b, void *arg) {
  matrix_job *j = arg;
  const feint_plan *w = j->whole;
  int64_t missing = 0;
  for (int64_t i = a; i < b; i++) {
    const int64_t gi = whole_dof(j->pt, j->nc, i);
    int64_t at = w->indptr[gi];
    const int64_t end = w->indptr[gi + 1];
    for (int64_t k = j->indptr[i]; k < j->indptr[i + 1]; k++) {
      const int64_t gj = whole_dof(j->pt, j->nc, j->indices64 ? j->indices64[k] : j->indices[k]);
      while (at < end && column(w, at) < gj) at++;
      if (at == end || column(w, at) != gj) {
        missing++;
        continue;
      }
      j->out[at] += j->values[k];
    }
  }
  if (missing) __atomic_add_fetch(&j->missing, missing, __ATOMIC_RELAXED);
}

static int add_matrix(const feint_dist_part *pt, int nc, int64_t n_rows, const int64_t *indptr,
                      const int32_t *indices, const int64_t *indices64, const double *values, const feint_plan *whole,
                      double *out) {
  matrix_job j = {pt, nc, indptr, indices, indices64, values, whole, out, 0};
  feint_parallel_for(n_rows, 1 << 12, add_matrix_range, &j);
  if (j.missing)
    return feint_error_set(FEINT_ERR_COMPUTE, "internal: %lld entries of a part are not in the pattern",
                           (long long)j.missing);
  return FEINT_OK;
}

/* Add one part's results of `phase` (n values; for the matrix its pattern
 * too) into the run's arrays. */
static int add_part(run_state *r, int rank, int phase, const double *values, int64_t n, int nbc,
                    const int64_t *indptr, int64_t n_rows, const int32_t *indices, const int64_t *indices64) {
  const feint_dist_part *pt = &r->dist->parts[rank];
  const int nc = r->space->components;
  switch (phase) {
    case FEINT_PHASE_RESIDUAL: add_vector(pt, nc, values, n, r->vec); return FEINT_OK;
    case FEINT_PHASE_RHS: add_vector(pt, nc, values, n, r->rhs); return FEINT_OK;
    case FEINT_PHASE_ELEMENT: put_element_matrices(pt, nbc, values, r->space->nbc, r->Ke); return FEINT_OK;
    case FEINT_PHASE_ASSEMBLY:
      return add_matrix(pt, nc, n_rows, indptr, indices, indices64, values, r->plan, r->values);
  }
  return FEINT_ERR_COMPUTE;
}

static double *phase_array(run_state *r, int phase, int64_t *n) {
  switch (phase) {
    case FEINT_PHASE_RESIDUAL: *n = r->space->n_dofs; return r->vec;
    case FEINT_PHASE_RHS: *n = r->space->n_dofs; return r->rhs;
    case FEINT_PHASE_ELEMENT: *n = r->mesh->n_cells * r->space->nbc * r->space->nbc; return r->Ke;
    default: *n = r->plan->nnz; return r->values;
  }
}

/* A worker's answer to a compute command, as add_part reads it. */
static int add_answer(run_state *r, int rank, int phase, const char *data, size_t bytes) {
  int64_t head[4]; /* values, nbc, CSR rows, 64-bit columns */
  if (bytes < sizeof head) return feint_error_set(FEINT_ERR_COMPUTE, "internal: rank %d's results are cut short", rank);
  memcpy(head, data, sizeof head);
  const int64_t n = head[0], rows = head[2];
  const int wide = head[3] != 0;
  const char *at = data + sizeof head;
  size_t need = sizeof head + (size_t)n * sizeof(double);
  const int64_t *indptr = NULL;
  const int32_t *indices = NULL;
  const int64_t *indices64 = NULL;
  if (phase == FEINT_PHASE_ASSEMBLY) need += (size_t)(rows + 1) * sizeof(int64_t) + (size_t)n * (wide ? 8 : 4);
  if (n < 0 || rows < 0 || need != bytes)
    return feint_error_set(FEINT_ERR_COMPUTE, "internal: rank %d's results are malformed", rank);
  /* the message's pieces are 8-byte multiples up to the 32-bit columns, which come last */
  const double *values = (const double *)(const void *)at;
  at += (size_t)n * sizeof(double);
  if (phase == FEINT_PHASE_ASSEMBLY) {
    indptr = (const int64_t *)(const void *)at;
    at += (size_t)(rows + 1) * sizeof(int64_t);
    if (wide) indices64 = (const int64_t *)(const void *)at;
    else indices = (const int32_t *)(const void *)at;
  }
  return add_part(r, rank, phase, values, n, (int)head[1], indptr, rows, indices, indices64);
}

int run_dist_compute(run_state *r, int phase, double *kernel_seconds) {
  run_dist *d = r->dist;
  const command cmd = {CMD_COMPUTE, phase, 0, 0, 0, 0};
  for (int k = 1; k < d->size; k++) FEINT_CALL(send_command(d, k, &cmd, NULL, 0, NULL, 0));
  double t0 = feint_now(), received = 0, added = 0;
  int64_t n_whole = 0;
  double *whole = phase_array(r, phase, &n_whole);
  memset(whole, 0, (size_t)n_whole * sizeof *whole);
  int64_t n = 0;
  int status = part_compute(&d->own, r->backend, phase, &n);
  *kernel_seconds = r->backend->last_kernel_ms ? 1e-3 * r->backend->last_kernel_ms(r->backend) : 0;
  const double computed = feint_now() - t0;
  const feint_plan *pl = d->own.plan;
  t0 = feint_now();
  if (!status)
    status = add_part(r, 0, phase, d->own.result, n, d->own.space->nbc, pl ? pl->indptr : NULL, pl ? pl->n_rows : 0,
                      pl ? pl->indices : NULL, pl ? pl->indices64 : NULL);
  added += feint_now() - t0;
  for (int k = 1; k < d->size; k++) {
    char *msg = NULL;
    const char *data = NULL;
    size_t bytes = 0;
    t0 = feint_now();
    int s = receive_answer(d, k, &msg, &data, &bytes);
    received += feint_now() - t0;
    t0 = feint_now();
    if (!s && !status) s = add_answer(r, k, phase, data, bytes);
    added += feint_now() - t0;
    free(msg);
    if (s && !status) status = s;
  }
  const size_t used = strlen(d->steps);
  snprintf(d->steps + used, sizeof d->steps - used, "; %s: rank 0's part %.1f ms, waited for and received the "
           "others' %.1f ms, added %.1f ms", feint_phase_names[phase], 1e3 * computed, 1e3 * received, 1e3 * added);
  return status;
}

const char *run_dist_steps(const run_state *r) { return r->dist ? r->dist->steps : ""; }

/* ---- the operator section on every rank ---- */

static int operator_part_create(run_part *p, feint_device_kind kind, int device_index, const operator_setup *s,
                                  char *note, size_t note_size) {
  /* a device backend computes stored factors itself: no host copy (as operator.c) */
  const int geo_on_device = feint_backend_operator_geo_on_device(kind, device_index);
  FEINT_CALL(feint_bp_op_create(p->hm, p->dofs, (feint_bp_kind)s->kind,
                                geo_on_device ? FEINT_BP_GEO_RECOMPUTE : (feint_bp_geo_mode)s->geo, s->lambda, &p->op));
  p->op->geo_mode = (feint_bp_geo_mode)s->geo;
  return feint_backend_operator_create(kind, device_index, p->op, &p->apply, note, note_size);
}

int run_dist_operator_setup(run_state *r, const feint_run_options *opts, feint_device_kind kind,
                            const feint_hexmesh *hm, const feint_bp_dofmap *d, const double *x, int bp_kind, int geo,
                            double lambda, run_operator_part *own, char *note, size_t note_size) {
  run_dist *d_ = r->dist;
  forget_parts(d_);
  double t0 = feint_now();
  FEINT_CALL(partition_cells(d_, r, &t0)); /* the hexahedra are the mesh's cells, in its order */
  const command cmd = {CMD_OPERATOR_SETUP, 0, (int32_t)kind, 0, 0, opts->device_index};
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
  const command cmd = {CMD_OPERATOR_APPLY, 0, 0, 0, 0, 0};
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
    const command cmd = {CMD_FINISH, status, 0, 0, 0, 0};
    for (int k = 1; k < d->size; k++)
      if (send_command(d, k, &cmd, NULL, 0, NULL, 0)) feint_comm_abort(d->comm, status ? status : FEINT_ERR_COMPUTE);
    d->workers_busy = 0;
  }
}

void run_dist_destroy(run_dist *d) {
  if (!d) return;
  part_release(&d->own);
  if (d->parts)
    for (int k = 0; k < d->size; k++) feint_dist_part_release(&d->parts[k]);
  free(d->parts);
  free(d->partition);
  free(d);
}

/* ---- the other ranks ---- */

static int worker_setup(run_part *p, const command *cmd, const char *data, size_t bytes, int device_index) {
  int32_t lens[2];
  if (bytes < sizeof lens) return feint_error_set(FEINT_ERR_COMPUTE, "internal: a setup message cut short");
  memcpy(lens, data, sizeof lens);
  if (lens[0] < 0 || lens[1] < 0 || sizeof lens + (size_t)lens[0] + (size_t)lens[1] > bytes)
    return feint_error_set(FEINT_ERR_COMPUTE, "internal: a setup message is malformed");
  char *path = NULL;
  FEINT_CALL(feint_malloc((size_t)lens[0] + 1, 1, &path, "the case's name"));
  memcpy(path, data + sizeof lens, (size_t)lens[0]);
  path[lens[0]] = '\0';
  const char *text = data + sizeof lens + lens[0];
  int status = feint_case_load_text(path, text, (size_t)lens[1], 0, NULL, &p->c);
  free(path);
  const size_t at = sizeof lens + (size_t)lens[0] + (size_t)lens[1];
  if (!status && cmd->arg == 1) /* a sweep member on the same part */
    status = p->space ? part_form(p, p->c, cmd, device_index)
                      : feint_error_set(FEINT_ERR_COMPUTE, "internal: told to keep a part it does not have");
  else if (!status)
    status = part_setup(p, p->c, data + at, bytes - at, cmd, device_index);
  char note[512];
  if (!status)
    status = feint_backend_create((feint_device_kind)cmd->kind, device_index, &p->problem, &p->backend, note,
                                  sizeof note);
  return status;
}

static int worker_answer_compute(feint_comm *comm, run_part *p, int phase) {
  int64_t n = 0;
  int status = part_compute(p, p->backend, phase, &n);
  const feint_plan *pl = p->plan;
  const int matrix = phase == FEINT_PHASE_ASSEMBLY;
  const int64_t head[4] = {n, p->space->nbc, matrix ? pl->n_rows : 0, matrix && pl->indices64 != NULL};
  const void *pieces[4] = {head, p->result, matrix ? pl->indptr : NULL,
                           matrix ? (pl->indices64 ? (const void *)pl->indices64 : (const void *)pl->indices) : NULL};
  const size_t sizes[4] = {sizeof head, (size_t)n * sizeof(double),
                           matrix ? (size_t)(pl->n_rows + 1) * sizeof(int64_t) : 0,
                           matrix ? (size_t)pl->nnz * (pl->indices64 ? 8 : 4) : 0};
  return send_answer(comm, status, pieces, sizes, matrix ? 4 : 2);
}

int feint_driver_worker(const feint_run_options *opts) {
  feint_comm *comm = opts->comm;
  const feint_launch l = feint_comm_launch();
  const int device_index = opts->device_index >= 0 ? opts->device_index : feint_backend_rank_device(l.local_rank);
  run_part p;
  memset(&p, 0, sizeof p);
  int status = FEINT_OK;
  /* the GPU's context, made while rank 0 reads the mesh */
  feint_backend_warm_up_start(opts->backend_set ? opts->backend : FEINT_DEVICE_AUTO, device_index);
  for (;;) {
    void *msg = NULL;
    size_t bytes = 0;
    command cmd;
    if ((status = feint_comm_recv(comm, 0, &msg, &bytes)) || bytes < sizeof cmd) {
      free(msg);
      feint_backend_warm_up_wait();
      part_release(&p);
      return status ? status : FEINT_ERR_COMPUTE; /* rank 0 is gone */
    }
    memcpy(&cmd, msg, sizeof cmd);
    const char *data = (const char *)msg + sizeof cmd;
    bytes -= sizeof cmd;
    int sent = FEINT_OK;
    if (cmd.cmd == CMD_FINISH) {
      free(msg);
      feint_backend_warm_up_wait();
      part_release(&p);
      feint_error_clear();
      return cmd.arg; /* every rank exits with rank 0's status */
    } else if (cmd.cmd == CMD_SETUP) {
      if (cmd.arg == 1) part_drop_form(&p); /* a sweep's next member on the same part */
      else part_release(&p);              /* a sweep's previous member's */
      status = worker_setup(&p, &cmd, data, bytes, cmd.device_index >= 0 ? cmd.device_index : device_index);
      char device[320] = "";
      if (p.backend)
        device_words(p.backend->name, p.backend->device, cmd.device_index >= 0 ? cmd.device_index : device_index,
                     device, sizeof device);
      const void *piece[1] = {device};
      const size_t size[1] = {strlen(device)};
      sent = send_answer(comm, status, piece, size, 1);
    } else if (cmd.cmd == CMD_COMPUTE && p.backend) {
      sent = worker_answer_compute(comm, &p, cmd.arg);
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
      feint_comm_abort(comm, sent);
      return sent;
    }
  }
}
