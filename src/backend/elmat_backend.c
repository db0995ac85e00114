/* The CUDA backend for high-order scalar forms on tetrahedra (orders 3..7)
 * and prisms (orders 1..7): element matrices by the Banas et al. kernels of
 * feint/elmat.h, on the form's own matrix rule so the result is the CPU
 * reference's to round-off. The pointwise coefficients g0..g3 are
 * evaluated on the host at the rule's points (the generic coefficient
 * array the kernels take), or once per cell when every coefficient field
 * is constant or P0 on tetrahedra (the reference-matrix fast path). The
 * CSR matrix is the element matrices scattered through the plan's slot map
 * on the host, batch by batch; residual and load vector are the CPU
 * reference's (the device string says so). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feint/backend.h"
#include "feint/elmat.h"
#include "feint/error.h"
#include "feint/physics.h"

typedef struct {
  feint_backend *cpu; /* residual and load vector */
  feint_elmat_tables *t;
  feint_elmat_gpu *g;
  feint_elmat_variant v;
  int64_t batch;      /* cells per GPU call */
  double *xv;         /* batch x 3 nv vertex coordinates */
  double *coef;       /* batch x (nq or 1) x ncoef */
  double *Ke;         /* batch x nb x nb (assembly only) */
} elmat_data;

/* The kernel measured fastest per order with per-point coefficients
 * (src/backend/cuda/ELMAT.md): FP64 tensor cores except at P4 and P6,
 * where the 8 x 8 tiles pad nb and the shared-memory kernel wins. */
static feint_elmat_data fastest_data(int order) {
  return order == 4 || order == 6 ? FEINT_ELMAT_DATA_SHARED : FEINT_ELMAT_DATA_TENSOR;
}

int feint_backend_elmat_applies(const feint_problem *p) {
  const feint_mesh *m = p->space->mesh;
  if (feint_mesh_is_mixed(m)) return 0; /* one shape per kernel: the cuda checks refuse mixed meshes */
  return (m->cell_type == FEINT_CELL_TETRAHEDRON && p->space->order > 2) || m->cell_type == FEINT_CELL_PRISM;
}

int feint_backend_elmat_supports(const feint_problem *p) {
  const feint_space *s = p->space;
  const feint_cell_type cell = s->mesh->cell_type;
  if (!feint_backend_elmat_applies(p))
    return feint_error_set(FEINT_ERR_INPUT, "not a high-order tetrahedral or prism space");
  if (s->order > FEINT_ELMAT_MAX_ORDER)
    return feint_error_set(FEINT_ERR_INPUT, "the cuda backend computes %s element matrices of orders up to %d, "
                           "not space.order %d (use --backend cpu)", feint_cell_name(cell), FEINT_ELMAT_MAX_ORDER,
                           s->order);
  if (p->form->nc != 1)
    return feint_error_set(FEINT_ERR_INPUT, "the cuda backend computes %s element matrices of order %d for scalar "
                           "forms only, not %d components (use --backend cpu)", feint_cell_name(cell), s->order,
                           p->form->nc);
  return FEINT_OK;
}

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

/* The coefficient array (elmat.h layout) of cells c0 .. c0+n-1. */
static void fill_batch(const feint_problem *p, const elmat_data *d, int64_t c0, int64_t n) {
  const feint_form *f = p->form;
  const feint_mesh *m = p->space->mesh;
  const feint_elmat_tables *t = d->t;
  const int nb = t->nb, nv = t->nv, ncoef = d->v.ncoef, terms = feint_physics_jacobian_terms(f->physics);
  const int npts = d->v.coef == FEINT_ELMAT_COEF_CELL ? 1 : t->nq;
  const int n_aux = feint_physics_source_offset(f->physics, f->dim);
  double a[16], g0[1], g1[3], g3[9], zero[3] = {0, 0, 0};
  for (int64_t e = 0; e < n; e++) {
    const int64_t c = c0 + e;
    for (int v = 0; v < nv; v++) {
      const int64_t node = m->cells[c * m->nv + v];
      double *x = d->xv + (e * nv + v) * 3;
      x[0] = m->x[node], x[1] = m->y[node], x[2] = m->z[node];
    }
    const int64_t *sdofs = p->space->scalar_cell_dofs + c * nb;
    for (int q = 0; q < npts; q++) {
      /* the basis values at point q (with per-cell coefficients the fields do not read them) */
      feint_form_aux_eval(f, t->B + (size_t)q * 4 * nb, nb, c, sdofs, n_aux, a);
      const feint_point pt = {3, 1, zero, zero, a};
      double *out = d->coef + ((size_t)e * npts + q) * ncoef;
      memset(out, 0, sizeof(double) * (size_t)ncoef);
      if (terms & 1) feint_physics_g0(f->physics, &pt, g0), out[0] = g0[0];
      if (terms & 2) feint_physics_g1(f->physics, &pt, g1), memcpy(out + 1, g1, sizeof g1);
      if (terms & 8) feint_physics_g3(f->physics, &pt, g3), memcpy(out + (ncoef == 16 ? 7 : 1), g3, sizeof g3);
    }
  }
}

/* Element matrices of cells c0 .. c0+n-1 into A (n x nb x nb). */
static int batch_matrices(feint_backend *b, int64_t c0, int64_t n, double *A) {
  elmat_data *d = b->data;
  fill_batch(b->problem, d, c0, n);
  return feint_elmat_gpu_compute(d->g, &d->v, n, d->xv, d->coef, A, NULL);
}

static int elmat_element_matrices(feint_backend *b, double *Ke) {
  elmat_data *d = b->data;
  const int64_t n_cells = b->problem->space->mesh->n_cells, n2 = (int64_t)d->t->nb * d->t->nb;
  for (int64_t c0 = 0; c0 < n_cells; c0 += d->batch) {
    const int64_t n = n_cells - c0 < d->batch ? n_cells - c0 : d->batch;
    FEINT_CALL(batch_matrices(b, c0, n, Ke + c0 * n2));
  }
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
  elmat_data *d = b->data;
  const int64_t n_cells = b->problem->space->mesh->n_cells, n2 = (int64_t)d->t->nb * d->t->nb;
  memset(values, 0, sizeof(double) * (size_t)plan->nnz);
  for (int64_t c0 = 0; c0 < n_cells; c0 += d->batch) {
    const int64_t n = n_cells - c0 < d->batch ? n_cells - c0 : d->batch;
    FEINT_CALL(batch_matrices(b, c0, n, d->Ke));
    scatter_batch(plan, c0 * n2, n * n2, d->Ke, values);
  }
  return FEINT_OK;
}

static int elmat_residual(feint_backend *b, const double *u, double *F) {
  elmat_data *d = b->data;
  return d->cpu->residual(d->cpu, u, F);
}

static int elmat_rhs(feint_backend *b, double *rhs) {
  elmat_data *d = b->data;
  return d->cpu->rhs(d->cpu, rhs);
}

static void elmat_destroy(feint_backend *b) {
  elmat_data *d = b->data;
  if (d) {
    feint_backend_destroy(d->cpu);
    feint_elmat_gpu_destroy(d->g);
    feint_elmat_tables_destroy(d->t);
    free(d->xv);
    free(d->coef);
    free(d->Ke);
    free(d);
  }
  free(b);
}

int feint_backend_elmat_create(const feint_problem *p, int device_index, feint_backend **out) {
  *out = NULL;
  FEINT_CALL(feint_backend_elmat_supports(p));
  int dev;
  FEINT_CALL(feint_cuda_device_select(device_index, &dev));
  feint_backend *b = NULL;
  elmat_data *d = NULL;
  FEINT_CALL(feint_calloc(1, sizeof *b, &b, "backend"));
  int st = feint_calloc(1, sizeof *d, &d, "backend");
  if (st) {
    free(b);
    return st;
  }
  b->data = d;
  b->destroy = elmat_destroy;
  b->problem = p;
  const feint_form *f = p->form;
  const int terms = feint_physics_jacobian_terms(f->physics);
  d->v = (feint_elmat_variant){fastest_data(p->space->order), FEINT_ELMAT_GEO_VERTICES,
                               coefficients_per_cell(p) ? FEINT_ELMAT_COEF_CELL : FEINT_ELMAT_COEF_POINT,
                               (terms & 6) ? 16 : 10};
  if ((st = feint_backend_cpu_create(p, &d->cpu)) ||
      (st = feint_elmat_tables_create_degree(p->space->mesh->cell_type, p->space->order,
                                             f->matrix_quadrature_degree, &d->t)) ||
      (st = feint_elmat_gpu_create(d->t, dev, &d->g))) {
    elmat_destroy(b);
    return st;
  }
  /* batches of about 256 MB of element matrices */
  const int64_t n2 = (int64_t)d->t->nb * d->t->nb, n_cells = p->space->mesh->n_cells;
  d->batch = ((int64_t)1 << 25) / n2;
  if (d->batch < 1) d->batch = 1;
  if (d->batch > n_cells) d->batch = n_cells;
  const int npts = d->v.coef == FEINT_ELMAT_COEF_CELL ? 1 : d->t->nq;
  if ((st = feint_malloc((size_t)d->batch * 3 * d->t->nv, sizeof(double), &d->xv, "element vertices")) ||
      (st = feint_malloc((size_t)d->batch * npts * d->v.ncoef, sizeof(double), &d->coef, "element coefficients")) ||
      (p->plan && (st = feint_malloc((size_t)(d->batch * n2), sizeof(double), &d->Ke, "element matrices")))) {
    elmat_destroy(b);
    return st;
  }
  char name[200] = "";
  if ((st = feint_elmat_gpu_device_name(dev, name, sizeof name))) {
    elmat_destroy(b);
    return st;
  }
  b->name = "cuda";
  snprintf(b->device, sizeof b->device,
           "%s (CUDA device %d; %s element matrices of order %d by the high-order kernels, %s; residual and "
           "load vector on the cpu; double precision)",
           name, dev, feint_cell_name(p->space->mesh->cell_type), p->space->order,
           d->v.coef == FEINT_ELMAT_COEF_CELL ? "coefficients per cell" : "coefficients per point");
  b->residual = elmat_residual;
  b->rhs = elmat_rhs;
  b->element_matrices = elmat_element_matrices;
  b->assemble_matrix = elmat_assemble_matrix;
  *out = b;
  return FEINT_OK;
}
