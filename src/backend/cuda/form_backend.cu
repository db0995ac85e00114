/* The user-form backend behind the cuda kind (family "form-jit", issue
 * 19): a form's expressions compiled at run time (form_source.h: the CUDA
 * source; jit.h: NVRTC behind the disk cache) for triangles, tetrahedra,
 * prisms, quadrilaterals and hexahedra of up to FEINT_FORM_CUDA_MAX_NBC
 * local dofs (J at every point on the non-simplex cells, whose basis is
 * tabulated at the rule's points), 1..3 components; on a mixed mesh each
 * block (cell shape) has its own source, module and tables, the kernels
 * reading the shared maps at the widest block's row strides.
 * Host code only; the kernels are the generated ones.
 *
 * Data model (as the other cuda implementations): node coordinates, the
 * cells' vertices, the dof maps (32-bit), both rules' tables, the
 * coefficient fields and the state u go to the device when the backend
 * is created; a residual uploads its u, and the result comes back (the
 * vector, the CSR values, or the element matrices by batches). Vectors
 * and the CSR values are summed by atomicAdd: in any order with the
 * atomic strategy; with colored and gather one colour of cells at a
 * time (a greedy colouring of the cells by their vertices,
 * feint/coloring.h), whose cells share no dof, so that every address takes its adds in one fixed order:
 * bitwise reproducible from run to run (gather has no kernel of its
 * own here: it runs the colours too). Parameters and constant
 * coefficients are kernel arguments: a sweep member whose form generates
 * the same source takes the backend over (update_form) without
 * compiling; another source (an expression changed) needs a new backend. */
#define FEINT_CUDA_MODULE "user form"
#include "backend/cuda/common.cuh"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/cuda/jit.h"
/* the C headers (feint/plan.h and feint/bp.h have no C++ guards) */
extern "C" {
#include "backend/cuda/cuda_timing.h"
#include "backend/cuda/families.h"
#include "backend/cuda/form_source.h"
#include "backend/cuda/tuning.h"
#include "boundary/facet.h"
#include "feint/backend.h"
#include "feint/coloring.h"
#include "feint/inverse_map.h"
#include "feint/plan.h"
}

namespace {

enum { BORROW_CELLS = 1, BORROW_SDOFS = 2, BORROW_SLOTS = 4 };

double now_ms() {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return 1e3 * (double)t.tv_sec + 1e-6 * (double)t.tv_nsec;
}

/* One kernel class's kernels (feint_form_cuda_classes: a mesh block, all
 * cells of a single-shape mesh, or a curved mesh's curved or affine
 * cells): its own layout, source, compiled module and rule tables. */
struct form_block {
  feint_jit *jit;
  feint_jit_stats stats;
  char *source;              /* the generated source (update_form compares it) */
  double *tab_vector, *tab_matrix;
  int matrix_kernel;         /* FEINT_FORM_MATRIX_THREAD, _WARP or _BLOCK */
  int vector_block;          /* 1: the vector kernel takes a block a cell, else a thread */
  int nbc;                   /* its local dofs */
  int curved;                /* 1: its kernels read each cell's geometry nodes (form_data geom) as x */
  long long first, n;        /* its cells (a mesh block's range; a curved mesh's classes go by order) */
};

struct form_data {
  int dev;
  feint_cache *cache;
  int n_blocks;
  form_block blk[FEINT_FORM_CUDA_MAX_CLASSES];
  long long n_cells;
  int nbc;                   /* the row stride of the dof maps and slots: the widest block's */
  double *x, *y, *z;         /* device: node coordinates */
  double *geom;              /* device: a curved mesh's cells' geometry nodes (n_cells x ng x 3), else NULL */
  int *order_host;           /* host: order's cells, where the classes are not ranges (a curved mesh) */
  int *cells, *dofs, *sdofs; /* device: n_cells x nv, x nbc (NULL where interleaved), x nb */
  int borrowed;              /* the plan's device arrays read in place (the plan frees them): BORROW_* bits */
  char steps[200];           /* the creation's steps and times (info: setup_steps) */
  double *state;             /* device: the form's u (n_dofs): the Jacobian's state */
  double *u;                 /* device: a residual's u (n_dofs) */
  double *vec;               /* device: a vector's result (n_dofs) */
  double *values;            /* device: CSR values (nnz), made on first assembly */
  int *slots;                /* device: the plan's slots (n_cells x nbc^2), made on first assembly */
  double *Ke;                /* device: a batch of element matrices */
  size_t scratch_per_block; /* doubles: the widest of the blocks' needs */
  double *scratch;           /* device: the block matrix kernel's points' blocks, where not in shared memory */
  int *order;                /* device: the cells by colour and class (colored, gather; a curved mesh's by class
                                alone with atomic); NULL: atomic, mesh order */
  long long *colour_first;   /* host: n_groups x n_blocks + 1 offsets into order, group-major */
  int n_colours;             /* colours (colored, gather), else 0 */
  int n_groups;              /* the order's groups: its colours, or 1 (atomic on a curved mesh) */
  long long batch;           /* cells per element-matrix batch */
  int n_aux;
  double **fields;           /* host array of n_aux device pointers (NULL: a constant); the kernel's form_fields */
  double *constants;         /* host: the kernel's form_constants */
  int n_constants;
  cudaEvent_t ev[2];
  int have_events;
  /* Several classes (a mixed or curved mesh): the vector kernels of one
   * group run side by side, a stream a class, forked from and joined to
   * the legacy stream (class_streams). A group's cells share no dof (a
   * colour), or add atomically (one group), so the order of classes
   * within it does not matter; the matrix kernels share scratch and stay
   * on the legacy stream. n_streams 0: one class, no streams. */
  int n_streams;
  cudaStream_t stream[FEINT_FORM_CUDA_MAX_CLASSES];
  cudaEvent_t fork, done[FEINT_FORM_CUDA_MAX_CLASSES];
  double last_ms;
};

void free_device(void *p) {
  if (p) cudaFree(p);
}

void form_destroy(feint_backend *b) {
  form_data *d = (form_data *)b->data;
  if (d) {
    for (int b = 0; b < d->n_blocks; b++) {
      feint_jit_destroy(d->blk[b].jit);
      free(d->blk[b].source);
      free_device(d->blk[b].tab_vector);
      free_device(d->blk[b].tab_matrix);
    }
    feint_cache_close(d->cache);
    if (d->borrowed & BORROW_CELLS) d->cells = NULL;
    if (d->borrowed & BORROW_SDOFS) d->sdofs = NULL;
    if (d->borrowed & BORROW_SLOTS) d->slots = NULL;
    void *dev[] = {d->x,      d->y,     d->z,  d->cells,  d->dofs, d->sdofs, d->state,
                   d->u,      d->vec,   d->values, d->slots, d->Ke,   d->order, d->scratch, d->geom};
    for (size_t k = 0; k < sizeof dev / sizeof dev[0]; k++) free_device(dev[k]);
    for (int k = 0; d->fields && k < d->n_aux; k++) free_device(d->fields[k]);
    free(d->fields);
    free(d->constants);
    free(d->colour_first);
    free(d->order_host);
    if (d->have_events) {
      cudaEventDestroy(d->ev[0]);
      cudaEventDestroy(d->ev[1]);
    }
    if (d->n_streams) cudaEventDestroy(d->fork);
    for (int k = 0; k < d->n_streams; k++) {
      cudaStreamDestroy(d->stream[k]);
      cudaEventDestroy(d->done[k]);
    }
    free(d);
  }
  free(b);
}

/* Block b's table of one rule (form_source.h's layout) uploaded. */
int upload_table(const feint_form *f, const feint_space *s, int b, int matrix, double **out) {
  double *tab = NULL;
  size_t n = 0;
  FEINT_CALL(feint_form_cuda_block_rule_table(f, s, b, matrix, &tab, &n));
  const int st = feint_cuda_upload(out, tab, n, "form tables");
  free(tab);
  return st;
}

/* The coefficient fields' values (per cell, nodal) into their device
 * arrays (allocated the first time), and the constants. */
int upload_fields(form_data *d, const feint_form *f, const feint_space *s) {
  for (int k = 0; k < d->n_aux; k++) {
    const feint_field *fld = &f->aux[k];
    if (fld->kind == FEINT_FIELD_CONSTANT) continue;
    const size_t n = (size_t)feint_field_size(fld->kind, s);
    if (!d->fields[k]) FEINT_CALL(feint_cuda_alloc((void **)&d->fields[k], n * sizeof(double), "form coefficients"));
    FEINT_CUDA_CALL("form coefficients",
                    feint_cuda_memcpy(d->fields[k], fld->values, n * sizeof(double), cudaMemcpyHostToDevice));
  }
  feint_form_cuda_constants(f->user, f->aux, d->n_aux, d->constants);
  FEINT_CUDA_CALL("form state", feint_cuda_memcpy(d->state, f->u, (size_t)s->n_dofs * sizeof(double),
                                                  cudaMemcpyHostToDevice));
  return FEINT_OK;
}

int timer_start(form_data *d) {
  FEINT_CUDA_CALL("set device", cudaSetDevice(d->dev));
  FEINT_CUDA_CALL("form kernel timer", cudaEventRecord(d->ev[0], 0));
  return FEINT_OK;
}

int timer_stop(form_data *d) {
  float ms = 0;
  FEINT_CUDA_CALL("form kernel timer", cudaEventRecord(d->ev[1], 0));
  FEINT_CUDA_CALL("form kernels", cudaEventSynchronize(d->ev[1]));
  FEINT_CUDA_CALL("form kernels", cudaGetLastError());
  FEINT_CUDA_CALL("form kernel timer", cudaEventElapsedTime(&ms, d->ev[0], d->ev[1]));
  d->last_ms += ms;
  return FEINT_OK;
}

const unsigned block_threads = 128;

/* The launches over the cells: one per group (colour) and class (colored,
 * gather; a curved mesh's), first and n into d->order, else one per block
 * over its cells in mesh order; *b the class. */
int n_launches(const form_data *d) { return d->order ? d->n_groups * d->n_blocks : d->n_blocks; }

/* Class b's x: its cells' own geometry nodes, or the node coordinates. */
double **class_x(form_data *d, int b) { return d->blk[b].curved ? &d->geom : &d->x; }
void launch_range(const form_data *d, int k, int *b, long long *first, long long *n) {
  *b = k % d->n_blocks;
  *first = d->order ? d->colour_first[k] : d->blk[k].first;
  *n = d->order ? d->colour_first[k + 1] - *first : d->blk[k].n;
}

/* One stream a class (form_data n_streams), made once several classes
 * exist; each made stream is counted, so form_destroy frees what a
 * failure leaves. */
int class_streams(form_data *d) {
  /* FEINT_FORM_SERIAL_CLASSES=1: the classes one after the other on the
   * legacy stream, for benchmarks to compare against */
  const char *serial = getenv("FEINT_FORM_SERIAL_CLASSES");
  if (d->n_blocks < 2 || (serial && !strcmp(serial, "1"))) return FEINT_OK;
  FEINT_CUDA_CALL("class streams", cudaEventCreateWithFlags(&d->fork, cudaEventDisableTiming));
  for (int k = 0; k < d->n_blocks; k++) {
    FEINT_CUDA_CALL("class streams", cudaStreamCreateWithFlags(&d->stream[k], cudaStreamNonBlocking));
    const cudaError_t e = cudaEventCreateWithFlags(&d->done[k], cudaEventDisableTiming);
    if (e != cudaSuccess) {
      cudaStreamDestroy(d->stream[k]);
      return FEINT_CUDA_FAIL(e, "class streams");
    }
    d->n_streams = k + 1;
  }
  return FEINT_OK;
}

/* The class streams start after what the legacy stream holds (fork), and
 * the legacy stream goes on after them (join). */
int streams_fork(form_data *d) {
  if (!d->n_streams) return FEINT_OK;
  FEINT_CUDA_CALL("class streams", cudaEventRecord(d->fork, 0));
  for (int k = 0; k < d->n_streams; k++) FEINT_CUDA_CALL("class streams", cudaStreamWaitEvent(d->stream[k], d->fork, 0));
  return FEINT_OK;
}
int streams_join(form_data *d) {
  for (int k = 0; k < d->n_streams; k++) {
    FEINT_CUDA_CALL("class streams", cudaEventRecord(d->done[k], d->stream[k]));
    FEINT_CUDA_CALL("class streams", cudaStreamWaitEvent(0, d->done[k], 0));
  }
  return FEINT_OK;
}

/* The element vectors of all cells added into d->vec (zeroed first): u
 * NULL is the load vector (sign -1). A group's classes run side by side
 * (form_data n_streams). */
int run_vector(feint_backend *b, const double *u_dev, double *host_out) {
  form_data *d = (form_data *)b->data;
  const feint_space *s = b->problem->space;
  d->last_ms = 0;
  FEINT_CALL(timer_start(d));
  FEINT_CUDA_CALL("form vector", cudaMemset(d->vec, 0, (size_t)s->n_dofs * sizeof(double)));
  double sign = u_dev ? 1.0 : -1.0;
  const double *u = u_dev;
  for (int k = 0; k < n_launches(d); k++) {
    long long first = 0, n = 0;
    int b = 0;
    launch_range(d, k, &b, &first, &n);
    if (b == 0) FEINT_CALL(streams_fork(d)); /* a group's first class */
    void *args[] = {&first, &n, &d->order, class_x(d, b), &d->y, &d->z, &d->cells, &d->dofs, &d->sdofs, &d->blk[b].tab_vector,
                    (void *)&u, &sign, d->fields, d->constants, &d->vec};
    const int by_block = d->blk[b].vector_block; /* a block a cell, blocks taking cells in turn */
    const unsigned grid[3] = {(unsigned)(by_block ? (n < (1ll << 30) ? n : 1ll << 30)
                                                  : (n + block_threads - 1) / block_threads),
                              1, 1};
    const unsigned block[3] = {by_block ? (unsigned)FEINT_FORM_MATRIX_BLOCK_THREADS : block_threads, 1, 1};
    void *stream = d->n_streams ? (void *)d->stream[b] : NULL;
    if (n > 0) FEINT_CALL(feint_jit_launch(d->blk[b].jit, FEINT_FORM_KERNEL_VECTOR, grid, block, 0, stream, args));
    if (b == d->n_blocks - 1) FEINT_CALL(streams_join(d)); /* its last */
  }
  FEINT_CALL(timer_stop(d));
  FEINT_CUDA_CALL("form vector", feint_cuda_memcpy(host_out, d->vec, (size_t)s->n_dofs * sizeof(double),
                                                   cudaMemcpyDeviceToHost));
  return FEINT_OK;
}

int form_residual(feint_backend *b, const double *u, double *F) {
  form_data *d = (form_data *)b->data;
  FEINT_CUDA_CALL("form state", feint_cuda_memcpy(d->u, u, (size_t)b->problem->space->n_dofs * sizeof(double),
                                                  cudaMemcpyHostToDevice));
  return run_vector(b, d->u, F);
}

int form_rhs(feint_backend *b, double *rhs) { return run_vector(b, NULL, rhs); }

/* Block b's matrix kernel on cells list[first .. first + n - 1] (list
 * NULL: first .. first + n - 1): slots NULL writes cell c's element
 * matrix to out's row c - out_first, else adds them into the CSR values. */
int launch_matrix(form_data *d, int b, long long first, long long n, const int *list, const int *slots,
                  double *out, long long out_first) {
  if (n <= 0) return FEINT_OK;
  const form_block *B = &d->blk[b];
  void *args[] = {&first, &n, (void *)&list, class_x(d, b), &d->y, &d->z, &d->cells, &d->dofs, &d->sdofs, (void *)&B->tab_matrix,
                  &d->state, d->fields, d->constants, (void *)&slots, &out, &out_first, &d->scratch};
  unsigned grid[3] = {1, 1, 1}, block[3] = {block_threads, 1, 1};
  if (B->matrix_kernel == FEINT_FORM_MATRIX_BLOCK) { /* a block a cell, blocks taking cells in turn */
    const long long cap = d->scratch ? (long long)FEINT_FORM_MATRIX_BLOCK_GRID : 1ll << 30;
    grid[0] = (unsigned)(n < cap ? n : cap);
    block[0] = FEINT_FORM_MATRIX_BLOCK_THREADS;
  } else {
    const int warp = B->matrix_kernel == FEINT_FORM_MATRIX_WARP;
    const long long per_block = warp ? (long long)FEINT_FORM_MATRIX_CELLS : (long long)block_threads;
    grid[0] = (unsigned)((n + per_block - 1) / per_block);
    block[0] = warp ? 32u * FEINT_FORM_MATRIX_CELLS : block_threads;
  }
  return feint_jit_launch(B->jit, FEINT_FORM_KERNEL_MATRIX, grid, block, 0, NULL, args);
}

/* A curved mesh's element matrices, in batches of cells in mesh order.
 * Each (group, class) segment of the order holds its cells ascending, so
 * the batch [c0, c1)'s cells of segment k are the run of it from
 * cursor[k]; the kernels write each matrix at its cell's row of the
 * batch, which then goes to the host in one copy. */
static int order_batch(form_data *d, long long *cursor, long long c0, long long c1, double *Ke) {
  const size_t n2 = (size_t)d->nbc * (size_t)d->nbc;
  FEINT_CALL(timer_start(d));
  for (int b = 0; b < d->n_blocks; b++)
    if (d->blk[b].nbc < d->nbc) { /* a mixed mesh: a narrower block's rows are padded with zeros */
      FEINT_CUDA_CALL("element matrices", cudaMemset(d->Ke, 0, (size_t)(c1 - c0) * n2 * sizeof(double)));
      break;
    }
  for (int k = 0; k < n_launches(d); k++) {
    long long first = 0, n = 0, run = cursor[k];
    int b = 0;
    launch_range(d, k, &b, &first, &n);
    while (run < first + n && d->order_host[run] < c1) run++;
    FEINT_CALL(launch_matrix(d, b, cursor[k], run - cursor[k], d->order, NULL, d->Ke, c0));
    cursor[k] = run;
  }
  FEINT_CALL(timer_stop(d));
  FEINT_CUDA_CALL("element matrices", feint_cuda_memcpy(Ke + (size_t)c0 * n2, d->Ke, (size_t)(c1 - c0) * n2 * sizeof(double),
                                                        cudaMemcpyDeviceToHost));
  return FEINT_OK;
}

static int element_matrices_by_order(form_data *d, double *Ke) {
  long long *cursor = NULL;
  FEINT_CALL(feint_malloc((size_t)n_launches(d), sizeof *cursor, &cursor, "element matrices"));
  for (int k = 0; k < n_launches(d); k++) {
    int b = 0;
    long long n = 0;
    launch_range(d, k, &b, &cursor[k], &n);
  }
  int status = FEINT_OK;
  for (long long c0 = 0; c0 < d->n_cells && !status; c0 += d->batch)
    status = order_batch(d, cursor, c0, d->n_cells - c0 < d->batch ? d->n_cells : c0 + d->batch, Ke);
  free(cursor);
  return status;
}

int form_element_matrices(feint_backend *b, double *Ke) {
  form_data *d = (form_data *)b->data;
  const size_t n2 = (size_t)d->nbc * (size_t)d->nbc;
  if (!d->Ke) FEINT_CALL(feint_cuda_alloc((void **)&d->Ke, (size_t)d->batch * n2 * sizeof(double), "element matrices"));
  d->last_ms = 0;
  if (d->order_host) return element_matrices_by_order(d, Ke);
  for (int b = 0; b < d->n_blocks; b++) { /* batches within a block: one kernel each */
    const long long end = d->blk[b].first + d->blk[b].n;
    for (long long c0 = d->blk[b].first; c0 < end; c0 += d->batch) {
      const long long n = end - c0 < d->batch ? end - c0 : d->batch;
      FEINT_CALL(timer_start(d));
      if (d->blk[b].nbc < d->nbc) /* a narrower block's rows are padded with zeros */
        FEINT_CUDA_CALL("element matrices", cudaMemset(d->Ke, 0, (size_t)n * n2 * sizeof(double)));
      FEINT_CALL(launch_matrix(d, b, c0, n, NULL, NULL, d->Ke, c0));
      FEINT_CALL(timer_stop(d));
      FEINT_CUDA_CALL("element matrices", feint_cuda_memcpy(Ke + (size_t)c0 * n2, d->Ke,
                                                            (size_t)n * n2 * sizeof(double), cudaMemcpyDeviceToHost));
    }
  }
  return FEINT_OK;
}

int form_assemble_matrix(feint_backend *b, double *values) {
  form_data *d = (form_data *)b->data;
  const feint_plan *plan = b->problem->plan;
  if (!plan) return feint_error_set(FEINT_ERR_COMPUTE, "assembly needs a plan (CSR pattern)");
  if (plan->slots64)
    return feint_error_set(FEINT_ERR_INPUT, "user forms on the GPU assemble with 32-bit slots; use --backend cpu");
  const size_t n2 = (size_t)d->nbc * (size_t)d->nbc;
  if (!d->slots && plan->device_slots && plan->device == d->dev) { /* built on this GPU: read in place */
    d->slots = (int *)plan->device_slots;
    d->borrowed |= BORROW_SLOTS;
  }
  if (!d->slots) {
    FEINT_CALL(feint_plan_host_slots(plan)); /* a plan built on another GPU */
    FEINT_CALL(feint_cuda_upload(&d->slots, plan->slots, (size_t)d->n_cells * n2, "matrix slots"));
  }
  if (!d->values) FEINT_CALL(feint_cuda_alloc((void **)&d->values, (size_t)plan->nnz * sizeof(double), "matrix values"));
  d->last_ms = 0;
  FEINT_CALL(timer_start(d));
  FEINT_CUDA_CALL("matrix values", cudaMemset(d->values, 0, (size_t)plan->nnz * sizeof(double)));
  for (int k = 0; k < n_launches(d); k++) {
    long long first = 0, n = 0;
    int b = 0;
    launch_range(d, k, &b, &first, &n);
    FEINT_CALL(launch_matrix(d, b, first, n, d->order, d->slots, d->values, 0));
  }
  FEINT_CALL(timer_stop(d));
  FEINT_CUDA_CALL("matrix values", feint_cuda_memcpy(values, d->values, (size_t)plan->nnz * sizeof(double),
                                                     cudaMemcpyDeviceToHost));
  return FEINT_OK;
}

double form_last_kernel_ms(feint_backend *b) { return ((form_data *)b->data)->last_ms; }

/* A sweep member: the same source (only parameters, constants or field
 * values changed) is taken in place; another needs a compile. */
int form_update_form(feint_backend *b, const feint_form *form) {
  form_data *d = (form_data *)b->data;
  const feint_space *s = b->problem->space;
  for (int k = 0; k < d->n_blocks; k++) {
    feint_form_cuda_layout L = feint_form_cuda_layout_block(form, s, k);
    L.matrix_kernel = d->blk[k].matrix_kernel;
    char *src = NULL;
    FEINT_CALL(feint_form_cuda_source(form->user, &L, &src));
    const int same = !strcmp(src, d->blk[k].source);
    free(src);
    if (!same)
      return feint_error_set(FEINT_BACKEND_CANNOT_REUSE,
                             "the user form's expressions changed: its GPU code is compiled again");
  }
  return upload_fields(d, form, s);
}

int form_info(const feint_backend *b, feint_backend_info *out) {
  const form_data *d = (const form_data *)b->data;
  static const char *const kernels[] = {"", "thread", "warp", "block"};
  char matrix[64] = "";
  for (int k = 0; k < d->n_blocks; k++)
    snprintf(matrix + strlen(matrix), sizeof matrix - strlen(matrix), "%s%s", k ? "/" : "",
             kernels[d->blk[k].matrix_kernel]);
  out->precision = FEINT_PRECISION_DOUBLE;
  snprintf(out->family, sizeof out->family, "%s", feint_cuda_family_name(FEINT_FAMILY_FORM_JIT));
  snprintf(out->matrix_family, sizeof out->matrix_family, "%s", feint_cuda_family_name(FEINT_FAMILY_FORM_JIT));
  snprintf(out->kernel, sizeof out->kernel,
           "run-time compiled form kernels%s: a %s a cell (vectors), a %s a cell (matrices); %s (%s)",
           d->blk[0].curved ? " for curved and for affine cells" : d->n_blocks > 1 ? " per cell shape" : "",
           d->blk[d->n_blocks - 1].vector_block ? "block" : "thread", matrix,
           d->n_colours ? "a colour at a time" : "atomic sums",
           d->blk[0].stats.arch);
  out->n_colors = d->n_colours;
  snprintf(out->setup_steps, sizeof out->setup_steps, "%s", d->steps);
  out->jit = 1;
  out->jit_cache_hit = 1;
  out->jit_compile_ms = out->jit_load_ms = 0;
  for (int k = 0; k < d->n_blocks; k++) { /* the blocks' modules together */
    out->jit_cache_hit &= d->blk[k].stats.cache_hit;
    out->jit_compile_ms += d->blk[k].stats.compile_ms;
    out->jit_load_ms += d->blk[k].stats.lookup_ms + d->blk[k].stats.load_ms;
  }
  snprintf(out->jit_key, sizeof out->jit_key, "%s", d->blk[0].stats.key);
  snprintf(out->jit_warning, sizeof out->jit_warning, "%s", feint_cache_warning(d->cache));
  return FEINT_OK;
}

/* The launches' order of the cells, on the device: by group, then class
 * (mesh order within one). The groups are the colored (and gather)
 * strategy's colours, cells coloured so that no two of a colour share a
 * vertex; else one group (atomic on a curved mesh, whose classes are not
 * ranges). Cells that share a dof share a vertex (every dof of an edge,
 * face or cell lies on the closure of its vertices; interior dofs are a
 * cell's own), and vertex rows are shorter than dof rows: on the host
 * from them, 1.3M P2 tetrahedra take 38 ms where the GPU chunk colouring
 * of the dof rows took 490 (H200 machine). */
int order_cells(form_data *d, const feint_mesh *m, int coloured) {
  const long long nc = d->n_cells;
  const int nb = d->n_blocks;
  int *key = NULL;
  int64_t *rows = NULL; /* a mixed mesh's rows, their padding the row's first vertex (colour_chunks reads all) */
  feint_inverse_map *by_key = NULL; /* each (group, class)'s cells, in mesh order */
  FEINT_CALL(feint_calloc((size_t)(nc > 0 ? nc : 1), sizeof *key, &key, "cell colours"));
  int status = FEINT_OK;
  if (coloured && m->n_blocks > 1 &&
      !(status = feint_malloc((size_t)(nc > 0 ? nc : 1) * (size_t)m->nv, sizeof *rows, &rows, "cell rows")))
    for (long long i = 0; i < nc * m->nv; i++) rows[i] = m->cells[i] >= 0 ? m->cells[i] : m->cells[i / m->nv * m->nv];
  if (!status && coloured)
    status = feint_colour_chunks(rows ? rows : m->cells, nc, m->nv, m->n_nodes, NULL, 1, FEINT_MAX_COLOURS,
                                 "user-form colouring", key, &d->n_colours);
  d->n_groups = coloured ? d->n_colours : 1;
  if (!status && m->curved_cells) /* key group x classes + class: the launches' ranges, group-major */
    for (long long i = 0; i < nc; i++) key[i] = key[i] * nb + 2 * feint_mesh_cell_block(m, i) + !m->curved_cells[i];
  else if (!status)
    for (int b = 0; b < nb; b++)
      for (long long i = d->blk[b].first; i < d->blk[b].first + d->blk[b].n; i++) key[i] = key[i] * nb + b;
  if (!status) status = feint_inverse_map_create(nc, NULL, key, d->n_groups * nb, "user-form colouring", &by_key);
  if (!status)
    status = feint_calloc((size_t)d->n_groups * nb + 1, sizeof *d->colour_first, &d->colour_first, "colours");
  if (!status) {
    for (int k = 0; k <= d->n_groups * nb; k++) d->colour_first[k] = by_key->offsets[k];
    status = feint_cuda_upload_index32(&d->order, by_key->entries, (size_t)nc, "cells by colour");
  }
  if (!status && m->curved_cells && !(status = feint_malloc((size_t)(nc > 0 ? nc : 1), sizeof *d->order_host,
                                                             &d->order_host, "cells by class")))
    for (long long i = 0; i < nc; i++) d->order_host[i] = (int)by_key->entries[i];
  feint_inverse_map_destroy(by_key);
  free(rows);
  free(key);
  return status;
}

/* Block b's layout checked, its source generated and compiled (or loaded
 * from the cache). */
int create_block(const feint_problem *p, const feint_cuda_tuning *tuning, form_data *d, int b) {
  const feint_space *s = p->space;
  form_block *B = &d->blk[b];
  feint_form_cuda_layout L = feint_form_cuda_layout_block(p->form, s, b);
  L.matrix_kernel = tuning->form_matrix;
  char why[200];
  if (!feint_form_cuda_fits(&L, why, sizeof why)) return feint_error_set(FEINT_ERR_INPUT, "%s", why);
  B->matrix_kernel = feint_form_cuda_matrix_kernel(&L);
  B->vector_block = feint_form_cuda_vector_block(&L);
  B->nbc = L.nb * L.nc;
  B->curved = L.curved;
  B->first = B->curved || s->mesh->n_geometry_nodes ? 0 : (long long)s->mesh->blocks[b].first_cell;
  B->n = B->curved || s->mesh->n_geometry_nodes ? 0 : (long long)s->mesh->blocks[b].n_cells; /* by order */
  FEINT_CALL(feint_form_cuda_source(p->form->user, &L, &B->source));
  feint_jit_source src;
  memset(&src, 0, sizeof src);
  src.source = B->source;
  src.label = "physics kind form (its generated CUDA code)";
  src.name = "feint_form.cu";
  src.options = feint_form_cuda_options;
  src.n_options = FEINT_FORM_CUDA_OPTIONS;
  src.kernels = feint_form_cuda_kernels;
  src.n_kernels = FEINT_FORM_KERNELS;
  FEINT_CALL(feint_jit_create(&src, d->dev, d->cache, &B->jit, &B->stats));
  const size_t scratch = feint_form_cuda_matrix_scratch(&L);
  if (scratch > d->scratch_per_block) d->scratch_per_block = scratch;
  return FEINT_OK;
}

int create(const feint_problem *p, int device_index, feint_backend *b, form_data *d) {
  const feint_space *s = p->space;
  const feint_mesh *m = s->mesh;
  const feint_form *f = p->form;
  FEINT_CALL(feint_cuda_device_select(device_index, &d->dev));
  FEINT_CUDA_CALL("set device", cudaSetDevice(d->dev));
  FEINT_CALL(feint_bp_gpu_device_name(d->dev, b->device, sizeof b->device));
  FEINT_CUDA_CALL("form kernel timer", cudaEventCreate(&d->ev[0]));
  const cudaError_t e = cudaEventCreate(&d->ev[1]);
  if (e != cudaSuccess) {
    cudaEventDestroy(d->ev[0]);
    return FEINT_CUDA_FAIL(e, "form kernel timer");
  }
  d->have_events = 1;
  const double t_start = now_ms();
  /* the code first: a form that does not compile fails before any upload */
  feint_cuda_tuning tuning;
  FEINT_CALL(feint_cuda_tuning_read(p, &tuning));
  FEINT_CALL(feint_cache_open(NULL, !p->no_cache, &d->cache));
  d->n_blocks = feint_form_cuda_classes(s);
  for (int k = 0; k < d->n_blocks; k++) FEINT_CALL(create_block(p, &tuning, d, k));
  FEINT_CALL(class_streams(d));
  const int interleaved = s->components_interleaved;
  const double t_code = now_ms();
  /* the mesh and the maps */
  d->n_cells = (long long)m->n_cells;
  d->nbc = s->nbc;
  d->n_aux = f->n_aux;
  if (m->n_curved_cells) /* the curved class's x: each cell its geometry nodes (layout curved) */
    FEINT_CALL(feint_cuda_upload(&d->geom, m->geometry_nodes, (size_t)m->n_cells * (size_t)m->n_geometry_nodes * 3,
                                 "curved cells' geometry"));
  FEINT_CALL(feint_cuda_upload(&d->x, m->x, (size_t)m->n_nodes, "node coordinates"));
  FEINT_CALL(feint_cuda_upload(&d->y, m->y, (size_t)m->n_nodes, "node coordinates"));
  FEINT_CALL(feint_cuda_upload(&d->z, m->z, (size_t)m->n_nodes, "node coordinates"));
  /* the scalar cell dofs of a plan built on this GPU are there already
   * (plan.h device_sdofs; on P1 they are the cells) */
  const feint_plan *pl = p->plan;
  if (pl && pl->device_sdofs && pl->device == d->dev) {
    d->sdofs = (int *)pl->device_sdofs;
    d->borrowed |= BORROW_SDOFS;
  } else {
    FEINT_CALL(feint_cuda_upload_index32(&d->sdofs, s->scalar_cell_dofs, (size_t)m->n_cells * (size_t)s->nb,
                                         "scalar cell dofs"));
  }
  if ((d->borrowed & BORROW_SDOFS) && s->scalar_cell_dofs == m->cells) {
    d->cells = d->sdofs;
    d->borrowed |= BORROW_CELLS;
  } else {
    FEINT_CALL(feint_cuda_upload_index32(&d->cells, m->cells, (size_t)m->n_cells * (size_t)m->nv, "cells"));
  }
  if (!interleaved) /* else the kernels make the dofs from the scalar ones */
    FEINT_CALL(feint_cuda_upload_index32(&d->dofs, s->cell_dofs, (size_t)m->n_cells * (size_t)s->nbc, "cell dofs"));
  for (int k = 0; k < d->n_blocks; k++) {
    FEINT_CALL(upload_table(f, s, k, 0, &d->blk[k].tab_vector));
    FEINT_CALL(upload_table(f, s, k, 1, &d->blk[k].tab_matrix));
  }
  const size_t n_dofs = (size_t)s->n_dofs;
  FEINT_CALL(feint_cuda_alloc((void **)&d->state, n_dofs * sizeof(double), "form state"));
  FEINT_CALL(feint_cuda_alloc((void **)&d->u, n_dofs * sizeof(double), "form state"));
  FEINT_CALL(feint_cuda_alloc((void **)&d->vec, n_dofs * sizeof(double), "form vector"));
  d->n_constants = feint_form_cuda_constants_count(f->user, d->n_aux);
  FEINT_CALL(feint_calloc((size_t)(d->n_aux > 0 ? d->n_aux : 1), sizeof *d->fields, &d->fields, "form fields"));
  FEINT_CALL(feint_calloc((size_t)d->n_constants, sizeof *d->constants, &d->constants, "form constants"));
  FEINT_CALL(upload_fields(d, f, s));
  if (d->scratch_per_block)
    FEINT_CALL(feint_cuda_alloc((void **)&d->scratch,
                                d->scratch_per_block * FEINT_FORM_MATRIX_BLOCK_GRID * sizeof(double),
                                "matrix kernel scratch"));
  const double t_uploads = now_ms();
  const int coloured = p->strategy != FEINT_ASSEMBLY_ATOMIC;
  if (coloured || m->curved_cells) FEINT_CALL(order_cells(d, m, coloured));
  snprintf(d->steps, sizeof d->steps, "code %.1f ms (%s), uploads %.1f ms%s, colouring %.1f ms (%d colours)",
           t_code - t_start, d->blk[0].stats.cache_hit ? "cached" : "compiled", t_uploads - t_code,
           d->borrowed ? " (the plan's device maps read in place)" : "", now_ms() - t_uploads, d->n_colours);
  /* element matrices: batches of about 256 MB */
  const long long per_cell = (long long)s->nbc * s->nbc * (long long)sizeof(double);
  d->batch = (256ll << 20) / per_cell;
  if (d->batch < 1) d->batch = 1;
  if (d->batch > d->n_cells) d->batch = d->n_cells > 0 ? d->n_cells : 1;
  return FEINT_OK;
}

} // namespace

extern "C" int feint_backend_form_create(const feint_problem *p, int device_index, feint_backend **out) {
  *out = NULL;
  feint_backend *b = NULL;
  FEINT_CALL(feint_backend_alloc(p, sizeof(form_data), form_destroy, &b));
  form_data *d = (form_data *)b->data;
  int st = create(p, device_index, b, d);
  if (st) {
    form_destroy(b);
    return st;
  }
  b->name = "cuda";
  b->problem = p;
  b->residual = form_residual;
  b->rhs = form_rhs;
  b->element_matrices = form_element_matrices;
  b->assemble_matrix = form_assemble_matrix;
  b->last_kernel_ms = form_last_kernel_ms;
  b->update_form = form_update_form;
  b->info = form_info;
  b->integrate_facets = feint_facets_cuda; /* the boundary data's, whatever the volume form */
  *out = b;
  return FEINT_OK;
}
