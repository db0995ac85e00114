/* The CUDA backend for high-order forms on tetrahedra (orders 3..7) and
 * prisms (orders 1..7): element matrices by the Banas et al. kernels of
 * feint/elmat.h, on the form's own matrix rule so the result is the CPU
 * reference's to round-off. Vector forms (space.components 2 or 3, e.g.
 * elasticity) run as nc^2 scalar blocks, one per component pair, by the
 * same kernels, interleaved on the device into the space's layout (local
 * dof i nc + c; feint/elmat.h), and their residual and load vector by the
 * element-vector kernel with nc components. A sweep member of the same
 * layout takes the backend over (update_form: its field values uploaded
 * into the same device arrays of the attached form). Data model (as the
 * fused cuda backend's): the cells' vertices, the scalar dof map and the coefficient fields go to the
 * device once, when the backend is created (feint_elmat_gpu_attach), with
 * the plan's slot map inverted there (feint_plan_gpu). A call then runs,
 * batch by batch of cells, all on the GPU: the coefficients g0..g3 at the
 * rule's points (nodal fields interpolated from their values at the dofs,
 * P0 and constant fields read; once per cell when every field is constant
 * or P0 on tetrahedra, the reference-matrix fast path), the element
 * matrices, and for the CSR matrix their sum into the values by a gather
 * over each nonzero's entries in cell order (bitwise the host scatter's
 * sums). Only the CSR values come back, or the element matrices when the
 * case asks for them; the device time of a call's kernels (coefficients,
 * element matrices, gather) is feint bench's kernel column. Plans with
 * 64-bit slots (more than 2^31 - 1 nonzeros, or FEINT_WIDE_INDEX_LIMIT)
 * are scattered on the host from downloaded batches. Residual and load
 * vector run on the GPU too, on the form's vector rule (the elements'
 * by thread transposition, feint_elmat_gpu_form_vectors; u goes up, F
 * comes back): with assembly.strategy colored or gather (bitwise
 * reproducible) summed by dof in cell order from the element vectors
 * (the dof map inverted on the device, feint_plan_gpu_create_map: the
 * additions of the host scatter, so F is the sum the cpu backend would
 * make of these element vectors); with atomic added by atomicAdd in the
 * kernel (not reproducible bit for bit). A dof map past the 32-bit limit
 * of plan.h (or FEINT_WIDE_INDEX_LIMIT) has its element vectors
 * scattered on the host in cell order. Test hook:
 * FEINT_ELMAT_BATCH=N (N >= 1) sets the cells per batch (default: about
 * 256 MB of element matrices). Benchmark hook: FEINT_ELMAT_TIMES=1 prints
 * each call's kernel times by kernel (coefficients, element matrices,
 * gather; element vectors, gather; CUDA events) to stderr. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cuda/cuda_timing.h"
#include "backend/cuda/tuning.h"
#include "feint/backend.h"
#include "feint/elmat.h"
#include "feint/error.h"
#include "feint/physics.h"
#include "feint/plan.h"

typedef struct {
  feint_elmat_tables *t;
  feint_elmat_gpu *g;
  feint_plan_gpu *pg; /* NULL: no matrix, or a plan scattered on the host */
  feint_plan_gpu *vg; /* the dof map inverted: element vectors summed by dof (NULL: atomic, or on the host) */
  int vec_atomic;     /* assembly.strategy atomic: element vectors added by atomicAdd */
  double *Fe;         /* n_cells x nbc: element vectors scattered on the host (vg NULL, not atomic) */
  feint_elmat_variant v;
  int64_t batch;      /* cells per GPU call */
  double last_ms;     /* device time of the last call's kernels (last_kernel_ms) */
  double coef_ms, matrix_ms; /* its coefficient and element-matrix kernels */
  double vector_ms;          /* its element-vector kernel */
  int print_times;    /* FEINT_ELMAT_TIMES=1 */
  double *Ke;         /* batch x nbc x nbc: the host scatter's batch (pg NULL with a plan) */
} elmat_data;



/* Per-cell coefficients hold exactly when no coefficient field varies
 * inside a cell; the fast path needs a constant Jacobian too, which only
 * tetrahedra guarantee. */
static int coefficients_per_cell(const feint_problem *p) {
  if (p->space->mesh->cell_type != FEINT_CELL_TETRAHEDRON) return 0;
  const feint_form *f = p->form;
  const int n_aux = feint_physics_source_offset(f->physics, f->dim);
  for (int k = 0; k < n_aux; k++)
    if (f->aux[k].kind == FEINT_FIELD_NODE) return 0;
  return 1;
}

static int64_t batch_cells(const elmat_data *d, int64_t c0, int64_t n_cells) {
  return n_cells - c0 < d->batch ? n_cells - c0 : d->batch;
}

/* The element matrices of cells c0 .. c0 + n - 1 on the device, their
 * kernels' time added to last_ms. */
static int batch_matrices(elmat_data *d, int64_t c0, int64_t n, const double **A) {
  feint_elmat_gpu_timing tm;
  FEINT_CALL(feint_elmat_gpu_form_matrices(d->g, c0, n, A, &tm));
  d->last_ms += tm.coef_ms + tm.kernel_ms;
  d->coef_ms += tm.coef_ms;
  d->matrix_ms += tm.kernel_ms;
  return FEINT_OK;
}

static void begin_call(elmat_data *d) {
  d->last_ms = d->coef_ms = d->matrix_ms = d->vector_ms = 0;
}

/* FEINT_ELMAT_TIMES=1: the call's kernels one by one (gather: the rest). */
static void print_times(const elmat_data *d, const char *what) {
  if (!d->print_times) return;
  const double gather = d->last_ms - d->coef_ms - d->matrix_ms - d->vector_ms;
  if (d->vector_ms > 0)
    fprintf(stderr, "elmat times: %s element_vectors %.4f gather %.4f ms\n", what, d->vector_ms, gather);
  else
    fprintf(stderr, "elmat times: %s coefficients %.4f element_matrices %.4f gather %.4f ms\n", what, d->coef_ms,
            d->matrix_ms, gather);
}

/* Entries of one cell's element matrix (nbc = nb x components). */
static int64_t cell_entries(const feint_problem *p) { return (int64_t)p->space->nbc * p->space->nbc; }

static int elmat_element_matrices(feint_backend *b, double *Ke) {
  elmat_data *d = b->data;
  const int64_t n_cells = b->problem->space->mesh->n_cells, n2 = cell_entries(b->problem);
  begin_call(d);
  for (int64_t c0 = 0; c0 < n_cells; c0 += d->batch) {
    const int64_t n = batch_cells(d, c0, n_cells);
    const double *A = NULL;
    FEINT_CALL(batch_matrices(d, c0, n, &A));
    FEINT_CALL(feint_elmat_gpu_download(d->g, n, Ke + c0 * n2));
  }
  print_times(d, "element_matrices");
  return FEINT_OK;
}

/* Add n entries of element matrices, whose first slot is plan slot `first`,
 * into the CSR values (the slot width is tested once per batch). */
static void scatter_batch(const feint_plan *plan, int64_t first, int64_t n, const double *Ke, double *values) {
  if (plan->slots64) {
    const int64_t *slot = plan->slots64 + first;
    for (int64_t k = 0; k < n; k++) values[slot[k]] += Ke[k];
  } else {
    const int32_t *slot = plan->slots + first;
    for (int64_t k = 0; k < n; k++) values[slot[k]] += Ke[k];
  }
}

static int elmat_assemble_matrix(feint_backend *b, double *values) {
  const feint_plan *plan = b->problem->plan;
  if (!plan) return feint_error_set(FEINT_ERR_COMPUTE, "assembly needs a plan (CSR pattern)");
  FEINT_CALL(feint_plan_host_slots(plan)); /* a plan built on the GPU */
  elmat_data *d = b->data;
  const int64_t n_cells = b->problem->space->mesh->n_cells, n2 = cell_entries(b->problem);
  begin_call(d);
  if (d->pg) FEINT_CALL(feint_plan_gpu_begin(d->pg));
  else memset(values, 0, sizeof(double) * (size_t)plan->nnz);
  for (int64_t c0 = 0; c0 < n_cells; c0 += d->batch) {
    const int64_t n = batch_cells(d, c0, n_cells);
    const double *A = NULL;
    FEINT_CALL(batch_matrices(d, c0, n, &A));
    if (d->pg) {
      FEINT_CALL(feint_plan_gpu_add(d->pg, n, A));
    } else {
      FEINT_CALL(feint_elmat_gpu_download(d->g, n, d->Ke));
      scatter_batch(plan, c0 * n2, n * n2, d->Ke, values);
    }
  }
  double gather_ms = 0;
  if (d->pg) FEINT_CALL(feint_plan_gpu_values(d->pg, values, &gather_ms));
  d->last_ms += gather_ms;
  print_times(d, "assembly");
  return FEINT_OK;
}

/* The residual at u (the load vector: u NULL) into F (host, n_dofs): the
 * element vectors on the device, summed per the strategy (see the top). */
static int elmat_vector(feint_backend *b, const double *u, double *F) {
  elmat_data *d = b->data;
  const feint_space *s = b->problem->space;
  const double *dev = NULL;
  double gather_ms = 0;
  begin_call(d);
  FEINT_CALL(feint_elmat_gpu_form_vectors(d->g, u, d->vec_atomic, &dev, &d->vector_ms));
  if (d->vec_atomic) {
    FEINT_CALL(feint_elmat_gpu_download_vectors(d->g, 1, F));
  } else if (d->vg) {
    FEINT_CALL(feint_plan_gpu_begin(d->vg));
    FEINT_CALL(feint_plan_gpu_add(d->vg, s->mesh->n_cells, dev));
    FEINT_CALL(feint_plan_gpu_values(d->vg, F, &gather_ms));
  } else {
    FEINT_CALL(feint_elmat_gpu_download_vectors(d->g, 0, d->Fe));
    memset(F, 0, sizeof(double) * (size_t)s->n_dofs);
    const int64_t n = s->mesh->n_cells * s->nbc;
    for (int64_t k = 0; k < n; k++) F[s->cell_dofs[k]] += d->Fe[k];
  }
  d->last_ms = d->vector_ms + gather_ms;
  print_times(d, u ? "residual" : "rhs");
  return FEINT_OK;
}

static int elmat_residual(feint_backend *b, const double *u, double *F) { return elmat_vector(b, u, F); }

static int elmat_rhs(feint_backend *b, double *rhs) { return elmat_vector(b, NULL, rhs); }

/* update_form: a sweep member's form of the same layout (checked by
 * feint_backend_update_form) on the same space, plan and settings: its
 * field values go into the device arrays of the attached form. The
 * variant (coefficients per cell or per point) depends on the fields'
 * kinds only, so it stays right, as do the cells, dof maps and plans. */
static int elmat_update_form(feint_backend *b, const feint_form *form) {
  elmat_data *d = b->data;
  return feint_elmat_gpu_update_form(d->g, form, b->problem->space);
}

static double elmat_last_kernel_ms(feint_backend *b) {
  const elmat_data *d = b->data;
  return d->last_ms;
}

static void elmat_destroy(feint_backend *b) {
  elmat_data *d = b->data;
  if (d) {
    feint_plan_gpu_destroy(d->pg);
    feint_plan_gpu_destroy(d->vg);
    feint_elmat_gpu_destroy(d->g);
    feint_elmat_tables_destroy(d->t);
    free(d->Ke);
    free(d->Fe);
    free(d);
  }
  free(b);
}

/* Cells per batch: about 256 MB of element matrices, or FEINT_ELMAT_BATCH;
 * and the FEINT_ELMAT_TIMES hook. */
static int choose_batch(const feint_problem *p, elmat_data *d, int64_t n_cells) {
  const int64_t n2 = cell_entries(p);
  d->batch = ((int64_t)1 << 25) / n2;
  feint_cuda_tuning tune;
  FEINT_CALL(feint_cuda_tuning_read(p, &tune));
  if (tune.elmat_batch) d->batch = tune.elmat_batch;
  if (d->batch < 1) d->batch = 1;
  if (d->batch > n_cells) d->batch = n_cells;
  d->print_times = tune.elmat_times;
  return FEINT_OK;
}

/* How element vectors are summed: atomics for strategy atomic; else the
 * (vector) dof map inverted on the device while it fits 32 bits (plan.h's
 * limit), else the host scatter's buffer. */
static int vector_assembly_setup(const feint_problem *p, elmat_data *d) {
  const feint_space *s = p->space;
  const int64_t n = s->mesh->n_cells * s->nbc, limit = feint_plan_narrow_limit();
  d->vec_atomic = p->strategy == FEINT_ASSEMBLY_ATOMIC;
  if (d->vec_atomic) return FEINT_OK;
  if (n > limit || s->n_dofs > limit) return feint_malloc((size_t)n, sizeof(double), &d->Fe, "element vectors");
  int32_t *map = NULL;
  FEINT_CALL(feint_malloc((size_t)n, sizeof *map, &map, "dof map"));
  for (int64_t k = 0; k < n; k++) map[k] = (int32_t)s->cell_dofs[k];
  const int st = feint_plan_gpu_create_map(map, s->mesh->n_cells, s->nbc, s->n_dofs, &d->vg);
  free(map);
  return st;
}

static int elmat_setup(const feint_problem *p, int dev, elmat_data *d) {
  const feint_form *f = p->form;
  const int terms = feint_physics_jacobian_terms(f->physics);
  d->v = (feint_elmat_variant){FEINT_ELMAT_DEFAULT_DATA(p->space->order), FEINT_ELMAT_GEO_VERTICES,
                               coefficients_per_cell(p) ? FEINT_ELMAT_COEF_CELL : FEINT_ELMAT_COEF_POINT,
                               (terms & 6) ? 16 : 10};
  FEINT_CALL(feint_elmat_tables_create_degree(p->space->mesh->cell_type, p->space->order,
                                              f->matrix_quadrature_degree, &d->t));
  FEINT_CALL(feint_elmat_gpu_create(d->t, dev, &d->g));
  FEINT_CALL(feint_elmat_gpu_attach(d->g, &d->v, f, p->space));
  FEINT_CALL(choose_batch(p, d, p->space->mesh->n_cells));
  FEINT_CALL(vector_assembly_setup(p, d));
  if (!p->plan) return FEINT_OK;
  if (feint_plan_gpu_fits(p->plan) == FEINT_OK) return feint_plan_gpu_create(p->plan, &d->pg);
  feint_error_clear();
  return feint_malloc((size_t)(d->batch * cell_entries(p)), sizeof(double), &d->Ke, "element matrices");
}

int feint_backend_elmat_create(const feint_problem *p, int device_index, feint_backend **out) {
  *out = NULL;
  char why[400];
  if (!feint_backend_elmat_supported(p, why, sizeof why)) return feint_error_set(FEINT_ERR_INPUT, "%s", why);
  int dev;
  FEINT_CALL(feint_cuda_device_select(device_index, &dev));
  feint_backend *b = NULL;
  FEINT_CALL(feint_backend_alloc(p, sizeof(elmat_data), elmat_destroy, &b));
  elmat_data *d = b->data;
  int st = FEINT_OK;
  char name[200] = "";
  if ((st = elmat_setup(p, dev, d)) || (st = feint_elmat_gpu_device_name(dev, name, sizeof name))) {
    elmat_destroy(b);
    return st;
  }
  b->name = "cuda";
  /* GPU names are short; bounding the name keeps the sentence whole (and
   * gcc -O1's truncation check quiet) */
  snprintf(b->device, sizeof b->device,
           "%.40s (CUDA device %d; %s element matrices of order %d by the high-order kernels, coefficients %s on "
           "the GPU, CSR %s; residual and load vector on the GPU, %s; double precision)",
           name, dev, feint_cell_name(p->space->mesh->cell_type), p->space->order,
           d->v.coef == FEINT_ELMAT_COEF_CELL ? "per cell" : "per point",
           d->Ke ? "scattered on the host" : "summed on the GPU",
           d->vec_atomic ? "added by atomics" : d->vg ? "summed per dof" : "scattered on the host");
  b->residual = elmat_residual;
  b->rhs = elmat_rhs;
  b->element_matrices = elmat_element_matrices;
  b->assemble_matrix = elmat_assemble_matrix;
  b->last_kernel_ms = elmat_last_kernel_ms;
  b->update_form = elmat_update_form;
  *out = b;
  return FEINT_OK;
}
