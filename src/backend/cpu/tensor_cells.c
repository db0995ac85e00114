/* Sum-factorised element vectors and matrices on quadrilaterals and
 * hexahedra (see tensor_cells.h). A quadrilateral is handled as a
 * hexahedron one point and one basis function thick in z, so both shapes
 * share every loop. */
#include "backend/cpu/tensor_cells.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cpu/pointwise.h"
#include "feint/error.h"
#include "feint/geometry.h"
#include "feint/tensor.h"

/* A tensor rule's 1D tables: the element's n basis functions (and their
 * derivatives) at the m points per direction, m x n, and their transposes
 * n x m (for integration). */
typedef struct {
  int m, nq;
  const double *weights, *geometry_grad; /* the form's rule: nq weights, nq x nv x dim vertex gradients */
  const double *geometry_value;          /* user forms: nq x nv vertex shape values (x, y, z) */
  double *B, *D, *Bt, *Dt;
} tensor_rule;

/* Factors along one direction of a term: value (B) or reference
 * derivative (D) of the test and of the trial function. Element-matrix
 * terms are grouped by their x factors, 2 * (test D) + (trial D). */
enum { GROUPS = 4, CLASSES = 9 };

struct cpu_tensor {
  const feint_problem *p;
  int block, dim, nc, n, nb, nv, nz; /* nz: basis functions (and points) along z: n in 3D, 1 in 2D */
  int straight; /* 1: a curved mesh's straight cells (the form's straight rules, the vertices' map) */
  int curved;   /* 1: its cells' geometry nodes make the map (nv of them) */
  tensor_rule vec, mat;
  /* work arrays, sized at create for the larger rule */
  double *vert, *invJ, *wdet, *aux, *nodal, *pts, *w1, *w2, *out, *acc;
  double *val, *rgrad, *f0w, *f1w; /* element vectors: per component (and direction) x points */
  double *coef;                     /* element matrices: nc^2 x (dim+1)^2 x points */
  double *A1, *A2, *W;              /* element matrices: the partial contractions (see pair_matrix) */
  /* user forms: the symbols (nq rows), f0 and f1, g0..g3 (cpu_user_*),
   * coefficients' reference gradients (n_aux x dim x nq), one point's
   * coefficient values and gradients */
  double *sym, *uf0, *uf1, *ug, *agrad, *ca, *cg;
};

static const double one[1] = {1};

static void rule_free(tensor_rule *r) {
  free(r->B);
  free(r->D);
  free(r->Bt);
  free(r->Dt);
}

void cpu_tensor_destroy(cpu_tensor *t) {
  if (!t) return;
  rule_free(&t->vec);
  rule_free(&t->mat);
  double *arrays[] = {t->vert, t->invJ, t->wdet, t->aux, t->nodal, t->pts, t->w1, t->w2, t->out,
                      t->acc,  t->val,  t->rgrad, t->f0w, t->f1w, t->coef, t->A1, t->A2, t->W,
                      t->sym,  t->uf0,  t->uf1,   t->ug,  t->agrad, t->ca, t->cg};
  for (size_t k = 0; k < sizeof arrays / sizeof *arrays; k++) free(arrays[k]);
  free(t);
}

/* The 1D tables of a tensor rule (points lexicographic, x fastest: the
 * first m points run along x). */
static int rule_create(const feint_element *el, const feint_quadrature *q, const double *geometry_grad,
                       const double *geometry_value, tensor_rule *r) {
  const int n = el->order + 1, dim = el->dim;
  int m = (int)lround(pow((double)q->n, 1.0 / dim));
  if (m < 1 || (dim == 2 ? m * m : m * m * m) != q->n || m > FEINT_TENSOR_MAX_POINTS)
    return feint_error_set(FEINT_ERR_COMPUTE, "internal: a %d-point rule on a %s is no tensor rule", q->n,
                           feint_cell_name(el->cell));
  r->m = m;
  r->nq = q->n;
  r->weights = q->weights;
  r->geometry_grad = geometry_grad;
  r->geometry_value = geometry_value;
  double x[FEINT_TENSOR_MAX_POINTS];
  for (int a = 0; a < m; a++) x[a] = q->points[a * dim];
  FEINT_CALL(feint_malloc((size_t)(m * n), sizeof(double), &r->B, "1D basis table"));
  FEINT_CALL(feint_malloc((size_t)(m * n), sizeof(double), &r->D, "1D basis table"));
  FEINT_CALL(feint_malloc((size_t)(m * n), sizeof(double), &r->Bt, "1D basis table"));
  FEINT_CALL(feint_malloc((size_t)(m * n), sizeof(double), &r->Dt, "1D basis table"));
  FEINT_CALL(feint_lagrange_matrices(n, el->nodes1d, m, x, r->B, r->D));
  for (int a = 0; a < m; a++)
    for (int i = 0; i < n; i++) {
      r->Bt[i * m + a] = r->B[a * n + i];
      r->Dt[i * m + a] = r->D[a * n + i];
    }
  return FEINT_OK;
}

/* W[(i0 * GROUPS + g) * m + a][j0] = X(a, i0) Y(a, j0), the x factors of
 * group g (X = D when g & 2, Y = D when g & 1). */
static void fill_x_factors(const tensor_rule *r, int n, double *W) {
  const int m = r->m;
  for (int i0 = 0; i0 < n; i0++)
    for (int g = 0; g < GROUPS; g++)
      for (int a = 0; a < m; a++) {
        const double *X = (g & 2) ? r->D : r->B, *Y = (g & 1) ? r->D : r->B;
        double *w = W + ((size_t)(i0 * GROUPS + g) * m + a) * n;
        for (int j0 = 0; j0 < n; j0++) w[j0] = X[a * n + i0] * Y[a * n + j0];
      }
}

/* Block `block`'s vector and matrix rules in form f (and the gradients of
 * its geometry's vertex functions at their points). */
typedef struct {
  const feint_quadrature *vq, *mq;
  const double *vg, *mg, *vv, *mv; /* vertex gradients, vertex values */
} block_rules;

static block_rules rules_of(const feint_form *f, int block, int straight) {
  block_rules r;
  if (straight) { /* a curved mesh's affine cells */
    r.vq = f->straight_rule[block].quadrature;
    r.mq = f->straight_matrix_rule[block].quadrature;
    r.vg = f->straight_rule[block].geometry_grad;
    r.mg = f->straight_matrix_rule[block].geometry_grad;
    r.vv = f->straight_rule[block].geometry_value;
    r.mv = f->straight_matrix_rule[block].geometry_value;
    return r;
  }
  r.vq = f->n_blocks ? f->block_rule[block].quadrature : f->quadrature;
  r.mq = f->n_blocks            ? f->block_matrix_rule[block].quadrature
         : f->matrix_quadrature ? f->matrix_quadrature
                                : f->quadrature;
  r.vg = f->n_blocks ? f->block_rule[block].geometry_grad : f->geometry_grad;
  r.mg = f->n_blocks ? f->block_matrix_rule[block].geometry_grad
         : f->matrix_quadrature ? f->matrix_geometry_grad
                                : f->geometry_grad;
  r.vv = f->n_blocks ? f->block_rule[block].geometry_value : f->geometry_value;
  r.mv = f->n_blocks ? f->block_matrix_rule[block].geometry_value
         : f->matrix_quadrature ? f->matrix_geometry_value
                                : f->geometry_value;
  return r;
}

void cpu_tensor_use_form(cpu_tensor *t, const feint_form *f) {
  const block_rules r = rules_of(f, t->block, t->straight);
  t->vec.weights = r.vq->weights;
  t->vec.geometry_grad = r.vg;
  t->vec.geometry_value = r.vv;
  t->mat.weights = r.mq->weights;
  t->mat.geometry_grad = r.mg;
  t->mat.geometry_value = r.mv;
}

int cpu_tensor_create(const feint_problem *p, int block, int straight, cpu_tensor **out) {
  *out = NULL;
  const feint_space *s = p->space;
  const feint_form *f = p->form;
  const feint_element *el = s->blocks[block].element;
  cpu_tensor *t = NULL;
  FEINT_CALL(feint_calloc(1, sizeof *t, &t, "tensor kernels"));
  t->p = p;
  t->block = block;
  t->dim = el->dim;
  t->nc = f->nc;
  t->n = el->order + 1;
  t->nb = el->nb;
  t->straight = straight;
  t->curved = s->mesh->n_geometry_nodes > 0 && !straight;
  t->nv = t->curved ? s->mesh->blocks[block].n_geometry_nodes : s->mesh->blocks[block].nv;
  t->nz = t->dim == 3 ? t->n : 1;
  const block_rules r = rules_of(f, block, straight);
  int status;
  if ((status = rule_create(el, r.vq, r.vg, r.vv, &t->vec)) ||
      (status = rule_create(el, r.mq, r.mg, r.mv, &t->mat))) {
    cpu_tensor_destroy(t);
    return status;
  }
  const int dim = t->dim, nc = t->nc, n = t->n, nz = t->nz, S = dim + 1;
  const int nq = t->vec.nq > t->mat.nq ? t->vec.nq : t->mat.nq, mm = t->mat.m;
  const int big = t->vec.m > mm ? t->vec.m : mm, side = big > n ? big : n;
  const size_t cube = (size_t)side * side * (dim == 3 ? side : 1), nq_n = (size_t)nq;
  const size_t n_aux = f->n_aux > 0 ? (size_t)f->n_aux : 1;
  /* a user form's arrays (1 value each for the built-in kinds) */
  const feint_user_form *uf = f->user;
  const size_t ns = uf ? (size_t)uf->n_symbols : 1, nq_u = uf ? nq_n : 1;
  struct {
    double **a;
    size_t n;
    const char *what;
  } arrays[] = {
      {&t->vert, (size_t)t->nv * 3, "cell vertices"},
      {&t->invJ, (size_t)nq * 9, "inverse Jacobians"},
      {&t->wdet, (size_t)nq, "quadrature weights"},
      {&t->aux, (size_t)nq * n_aux, "coefficients at the points"},
      {&t->nodal, (size_t)t->nb, "cell values"},
      {&t->pts, cube, "values at the points"},
      {&t->w1, cube, "contraction work"},
      {&t->w2, cube, "contraction work"},
      {&t->out, cube, "element vector part"},
      {&t->acc, cube, "element vector part"},
      {&t->val, (size_t)nc * nq_n, "state at the points"},
      {&t->rgrad, (size_t)nc * dim * nq_n, "state gradient at the points"},
      {&t->f0w, (size_t)nc * nq_n, "residual terms"},
      {&t->f1w, (size_t)nc * dim * nq_n, "residual terms"},
      {&t->coef, (size_t)nc * nc * S * S * t->mat.nq, "reference coefficients"},
      {&t->A1, (size_t)CLASSES * mm * mm * nz * nz, "element matrix contraction along z"},
      {&t->A2, (size_t)n * n * nz * nz * GROUPS * mm, "element matrix contraction along y"},
      {&t->W, (size_t)n * GROUPS * mm * n, "element matrix x factors"},
      {&t->sym, ns * nq_u, "form symbols"},
      {&t->uf0, (size_t)nc * nq_u, "form f0"},
      {&t->uf1, (size_t)nc * dim * nq_u, "form f1"},
      {&t->ug, (size_t)nc * nc * S * S * nq_u, "form g"},
      {&t->agrad, (uf ? n_aux * dim : 1) * nq_u, "coefficient gradients at the points"},
      {&t->ca, n_aux, "form coefficients"},
      {&t->cg, n_aux * dim, "form coefficients"},
  };
  for (size_t k = 0; k < sizeof arrays / sizeof *arrays; k++)
    if ((status = feint_malloc(arrays[k].n, sizeof(double), arrays[k].a, arrays[k].what))) {
      cpu_tensor_destroy(t);
      return status;
    }
  fill_x_factors(&t->mat, n, t->W);
  *out = t;
  return FEINT_OK;
}

/* out = (X2 x X1 x X0) in, X_d of rows[d] x cols[d] (row-major): in holds
 * cols[2] x cols[1] x cols[0] values (index 0 fastest), out rows[2] x
 * rows[1] x rows[0]; one direction at a time through w1 and w2. */
static void contract(const double *const X[3], const int rows[3], const int cols[3], const double *in,
                     double *out, double *w1, double *w2) {
  const int r0 = rows[0], r1 = rows[1], r2 = rows[2], c0 = cols[0], c1 = cols[1], c2 = cols[2];
  for (int kj = 0; kj < c2 * c1; kj++)
    for (int a = 0; a < r0; a++) {
      double v = 0;
      for (int i = 0; i < c0; i++) v += X[0][a * c0 + i] * in[kj * c0 + i];
      w1[kj * r0 + a] = v;
    }
  for (int k = 0; k < c2; k++)
    for (int b = 0; b < r1; b++) {
      double *o = w2 + (k * r1 + b) * r0;
      for (int a = 0; a < r0; a++) o[a] = 0;
      for (int j = 0; j < c1; j++) {
        const double x = X[1][b * c1 + j], *src = w1 + (k * c1 + j) * r0;
        for (int a = 0; a < r0; a++) o[a] += x * src[a];
      }
    }
  for (int c = 0; c < r2; c++) {
    double *o = out + c * r1 * r0;
    for (int ab = 0; ab < r1 * r0; ab++) o[ab] = 0;
    for (int k = 0; k < c2; k++) {
      const double x = X[2][c * c2 + k], *src = w2 + k * r1 * r0;
      for (int ab = 0; ab < r1 * r0; ab++) o[ab] += x * src[ab];
    }
  }
}

/* Nodal values in[nb] to the points (out[nq]): the values, or the
 * reference derivative along direction dx (>= 0). */
static void to_points(cpu_tensor *t, const tensor_rule *r, int dx, const double *in, double *out) {
  const double *X[3];
  for (int d = 0; d < 3; d++) X[d] = d >= t->dim ? one : d == dx ? r->D : r->B;
  const int rows[3] = {r->m, r->m, t->dim == 3 ? r->m : 1}, cols[3] = {t->n, t->n, t->nz};
  contract(X, rows, cols, in, out, t->w1, t->w2);
}

/* The transpose: point values in[nq] against the basis functions (or
 * their derivatives along dx), out[nb]. */
static void from_points(cpu_tensor *t, const tensor_rule *r, int dx, const double *in, double *out) {
  const double *X[3];
  for (int d = 0; d < 3; d++) X[d] = d >= t->dim ? one : d == dx ? r->Dt : r->Bt;
  const int rows[3] = {t->n, t->n, t->nz}, cols[3] = {r->m, r->m, t->dim == 3 ? r->m : 1};
  contract(X, rows, cols, in, out, t->w1, t->w2);
}

/* Cell c's geometry at the rule's points: invJ (9 per point) and
 * w |det J|. */
static void geometry(cpu_tensor *t, const tensor_rule *r, int64_t c) {
  const feint_mesh *m = t->p->space->mesh;
  const double *X[3] = {m->x, m->y, m->z};
  const int dim = t->dim, nv = t->nv;
  if (t->curved)
    memcpy(t->vert, feint_mesh_curved_nodes(m, c, nv), (size_t)nv * 3 * sizeof *t->vert);
  else
    for (int k = 0; k < nv; k++)
      for (int a = 0; a < dim; a++) t->vert[k * 3 + a] = X[a][m->cells[c * m->nv + k]];
  for (int q = 0; q < r->nq; q++) {
    double J[9];
    feint_multilinear_jacobian(dim, nv, t->vert, r->geometry_grad + q * nv * dim, J);
    t->wdet[q] = r->weights[q] * fabs(feint_inverse_jacobian(dim, J, t->invJ + q * 9));
  }
}

/* The first n_aux coefficient fields at the points: aux[q * n_aux + k]
 * (feint_form_aux_eval's values, nodal fields interpolated by
 * contraction); a user form's nodal fields whose gradient it reads also
 * their reference derivatives, agrad[(k * dim + d) * nq + q]. */
static void aux_at_points(cpu_tensor *t, const tensor_rule *r, int64_t c, int n_aux) {
  const feint_form *f = t->p->form;
  const int64_t *sdofs = t->p->space->scalar_cell_dofs + c * t->p->space->nb;
  for (int k = 0; k < n_aux; k++) {
    const feint_field *fld = &f->aux[k];
    if (fld->kind == FEINT_FIELD_NODE || fld->kind == FEINT_FIELD_CELL_NODE) {
      for (int i = 0; i < t->nb; i++)
        t->nodal[i] = fld->kind == FEINT_FIELD_NODE ? fld->values[sdofs[i]] : fld->values[c * fld->per_cell + i];
      to_points(t, r, -1, t->nodal, t->pts);
      for (int d = 0; f->user && cpu_user_reads_gradient(f->user, k) && d < t->dim; d++)
        to_points(t, r, d, t->nodal, t->agrad + (k * t->dim + d) * r->nq);
    }
    for (int q = 0; q < r->nq; q++)
      t->aux[q * n_aux + k] = fld->kind == FEINT_FIELD_CONSTANT ? fld->constant
                              : fld->kind == FEINT_FIELD_CELL   ? fld->values[c]
                                                                : t->pts[q];
  }
}

/* The state's components and their reference derivatives at the points
 * from u_global: val[k * nq + q], rgrad[(k * dim + d) * nq + q]. */
static void state_at_points(cpu_tensor *t, const tensor_rule *r, int64_t c, const double *u_global) {
  const int64_t *dofs = t->p->space->cell_dofs + c * t->p->space->nbc;
  const int nq = r->nq;
  for (int k = 0; k < t->nc; k++) {
    for (int i = 0; i < t->nb; i++) t->nodal[i] = u_global[dofs[i * t->nc + k]];
    to_points(t, r, -1, t->nodal, t->val + k * nq);
    for (int d = 0; d < t->dim; d++) to_points(t, r, d, t->nodal, t->rgrad + (k * t->dim + d) * nq);
  }
}

/* Physical gradient g[dim] at point q from reference derivatives
 * ref[d * nq + q]: g_a = sum_d ref_d K[d * dim + a], K = J^-1. */
static void physical_gradient(const double *ref, int nq, int q, const double *K, int dim, double *g) {
  for (int a = 0; a < dim; a++) {
    g[a] = 0;
    for (int d = 0; d < dim; d++) g[a] += ref[d * nq + q] * K[d * dim + a];
  }
}

/* A user form's symbols at every point of rule r in cell c (cpu_user_point;
 * geometry and aux_at_points done), u and grad u from val and rgrad
 * (state_at_points) when with_state, else u = 0. */
static void user_symbols(cpu_tensor *t, const tensor_rule *r, int64_t c, int with_state) {
  const feint_form *f = t->p->form;
  const feint_user_form *uf = f->user;
  const int dim = t->dim, nq = r->nq, n_aux = f->n_aux, coords = cpu_user_reads_x(uf);
  for (int q = 0; q < nq; q++) {
    const double *K = t->invJ + q * 9;
    double x[3], u[3], gradu[9];
    if (coords) cpu_point_coordinates(t->p->space->mesh, c, t->nv, r->geometry_value + q * t->nv, x);
    for (int k = 0; k < t->nc && with_state; k++) {
      u[k] = t->val[k * nq + q];
      physical_gradient(t->rgrad + k * dim * nq, nq, q, K, dim, gradu + k * dim);
    }
    for (int k = 0; k < n_aux; k++) {
      const int kind = f->aux[k].kind;
      t->ca[k] = t->aux[q * n_aux + k];
      if ((kind == FEINT_FIELD_NODE || kind == FEINT_FIELD_CELL_NODE) && cpu_user_reads_gradient(uf, k))
        physical_gradient(t->agrad + k * dim * nq, nq, q, K, dim, t->cg + k * dim);
      else
        for (int d = 0; d < dim; d++) t->cg[k * dim + d] = 0;
    }
    cpu_user_point(uf, coords ? x : NULL, with_state ? u : NULL, gradu, t->ca, t->cg, t->sym + q * uf->n_symbols);
  }
}

void cpu_tensor_element_vector(cpu_tensor *t, int64_t c, const double *u_global, double *Fe) {
  const feint_form *f = t->p->form;
  const feint_user_form *uf = f->user;
  const tensor_rule *r = &t->vec;
  const int dim = t->dim, nc = t->nc, nq = r->nq, nb = t->nb, n_aux = f->n_aux;
  geometry(t, r, c);
  aux_at_points(t, r, c, n_aux);
  if (u_global) state_at_points(t, r, c, u_global);
  if (uf) { /* the whole cell's points at once */
    user_symbols(t, r, c, u_global != NULL);
    cpu_user_residual(uf, nq, t->sym, u_global != NULL, t->uf0, t->uf1);
  }
  for (int q = 0; q < nq; q++) {
    double u[3] = {0}, gradu[9] = {0}, f0[3], f1[9] = {0};
    const double *K = t->invJ + q * 9; /* K[d * dim + a] = d xi_d / d x_a */
    const double *F0 = f0, *F1 = f1;
    const feint_point pt = {dim, nc, u, gradu, t->aux + q * n_aux};
    if (uf) {
      F0 = t->uf0 + q * nc;
      F1 = t->uf1 + q * nc * dim;
    } else if (u_global) {
      for (int k = 0; k < nc; k++) {
        u[k] = t->val[k * nq + q];
        physical_gradient(t->rgrad + k * dim * nq, nq, q, K, dim, gradu + k * dim);
      }
      feint_physics_f0(f->physics, &pt, f0);
      feint_physics_f1(f->physics, &pt, f1);
    } else {
      feint_physics_source(f->physics, &pt, f0);
    }
    for (int k = 0; k < nc; k++) {
      t->f0w[k * nq + q] = t->wdet[q] * F0[k];
      /* the flux against reference gradients: w |J| J^-1 f1 */
      for (int d = 0; d < dim; d++) {
        double v = 0;
        for (int a = 0; a < dim; a++) v += K[d * dim + a] * F1[k * dim + a];
        t->f1w[(k * dim + d) * nq + q] = t->wdet[q] * v;
      }
    }
  }
  /* the built-in load has no flux term; a user form's load keeps its f1 */
  const int flux = u_global || uf;
  for (int k = 0; k < nc; k++) {
    from_points(t, r, -1, t->f0w + k * nq, t->acc);
    for (int d = 0; flux && d < dim; d++) {
      from_points(t, r, d, t->f1w + (k * dim + d) * nq, t->out);
      for (int i = 0; i < nb; i++) t->acc[i] += t->out[i];
    }
    for (int i = 0; i < nb; i++) Fe[i * nc + k] = t->acc[i];
  }
}

/* Which (test factor s, trial factor t) pairs a physics has: s, t = 0 the
 * value, 1 + d the reference derivative along d. */
static int term_active(int terms, int s, int t) {
  return s == 0 ? (t == 0 ? terms & 1 : terms & 2) : (t == 0 ? terms & 4 : terms & 8);
}

/* The reference coefficients of point q for every component pair:
 * coef[((fg * S + s) * S + t) * nq + q], S = dim + 1. With K = J^-1
 * (physical gradient = K^T reference gradient) and w = w |det J|:
 * C00 = w g0, C0e = w (K g1)_e, Cd0 = w (K g2)_d, Cde = w (K g3 K^T)_de. */
static void reference_coefficients(cpu_tensor *t, int q, const cpu_coefficients *g, int terms) {
  const int dim = t->dim, nc = t->nc, S = dim + 1, nq = t->mat.nq;
  const double *K = t->invJ + q * 9, w = t->wdet[q];
  for (int fg = 0; fg < nc * nc; fg++) {
    double *C = t->coef + (size_t)fg * S * S * nq + q;
    C[0] = (terms & 1) ? w * g->g0[fg] : 0;
    for (int d = 0; d < dim; d++) {
      double v1 = 0, v2 = 0;
      for (int a = 0; a < dim; a++) {
        v1 += K[d * dim + a] * g->g1[fg * dim + a];
        v2 += K[d * dim + a] * g->g2[fg * dim + a];
      }
      C[(1 + d) * nq] = (terms & 2) ? w * v1 : 0;
      C[(1 + d) * S * nq] = (terms & 4) ? w * v2 : 0;
      for (int e = 0; e < dim; e++) {
        double v = 0;
        for (int a = 0; a < dim; a++)
          for (int b = 0; b < dim; b++) v += K[d * dim + a] * g->g3[(fg * dim + a) * dim + b] * K[e * dim + b];
        C[((1 + d) * S + 1 + e) * nq] = (terms & 8) ? w * v : 0;
      }
    }
  }
}

/* Class of a factor index along x and y: 0 the derivative along x, 1
 * along y, 2 neither (the value, or the derivative along z). */
static int xy_class(int s) { return s == 1 ? 0 : s == 2 ? 1 : 2; }

/* dst[j0 * stride] = sum over the groups g and points a of v[g m + a]
 * W[g][a][j0], j0 < n: four columns at a time in registers (gcc -O2
 * vectorises the unrolled block, not the plain loop). */
static inline void x_contract(const double *restrict W, const double *restrict v, const int *groups, int ng, int m,
                              int n, int stride, double *restrict dst) {
  int j0 = 0;
  for (; j0 + 4 <= n; j0 += 4) {
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (int k = 0; k < ng; k++) {
      const double *w = W + (size_t)groups[k] * m * n + j0, *vg = v + groups[k] * m;
      for (int a = 0; a < m; a++, w += n) {
        const double va = vg[a];
        s0 += va * w[0];
        s1 += va * w[1];
        s2 += va * w[2];
        s3 += va * w[3];
      }
    }
    dst[j0 * stride] = s0;
    dst[(j0 + 1) * stride] = s1;
    dst[(j0 + 2) * stride] = s2;
    dst[(j0 + 3) * stride] = s3;
  }
  for (; j0 < n; j0++) {
    double s0 = 0;
    for (int k = 0; k < ng; k++)
      for (int a = 0; a < m; a++) s0 += v[groups[k] * m + a] * W[((size_t)groups[k] * m + a) * n + j0];
    dst[j0 * stride] = s0;
  }
}

/* The block of component pair (fc, gc) of the element matrix from its
 * reference coefficients C (S^2 x nq): K_ij = sum_q sum_st C_st(q)
 * X_s(i, q) Y_t(j, q), each of X, Y a product of 1D factors B or D.
 * Stage 1 contracts z for each (s, t) and sums the terms whose x and y
 * factors agree (9 classes); stage 2 contracts y and sums the classes
 * whose x factors agree (4 groups), keeping the x point index; stage 3
 * contracts x and writes every entry once. */
static void pair_matrix(cpu_tensor *t, const double *C, int terms, int fc, int gc, double *Ke) {
  const tensor_rule *r = &t->mat;
  const int dim = t->dim, S = dim + 1, n = t->n, nz = t->nz, m = r->m, mz = dim == 3 ? m : 1, nq = r->nq;
  const int nc = t->nc, nbc = t->nb * nc, z2 = nz * nz, GM = GROUPS * m;
  const double *Bz = dim == 3 ? r->B : one, *Dz = dim == 3 ? r->D : one;
  int class_used[CLASSES] = {0}, group_used[GROUPS] = {0};
  memset(t->A1, 0, sizeof(double) * (size_t)CLASSES * m * m * z2);
  memset(t->A2, 0, sizeof(double) * (size_t)n * n * z2 * GM);
  /* stage 1: A1[cls][(a + m b) z2 + i2 nz + j2] = sum_c C_st(a, b, c) Xz(c, i2) Yz(c, j2) */
  for (int s = 0; s < S; s++)
    for (int u = 0; u < S; u++) {
      if (!term_active(terms, s, u)) continue;
      const int cls = xy_class(s) * 3 + xy_class(u);
      class_used[cls] = 1;
      const double *X = s == 3 ? Dz : Bz, *Y = u == 3 ? Dz : Bz, *Cst = C + (size_t)(s * S + u) * nq;
      double *A = t->A1 + (size_t)cls * m * m * z2, P[FEINT_TENSOR_MAX_POINTS * FEINT_TENSOR_MAX_POINTS];
      for (int c = 0; c < mz; c++) {
        for (int i2 = 0; i2 < nz; i2++)
          for (int j2 = 0; j2 < nz; j2++) P[i2 * nz + j2] = X[c * nz + i2] * Y[c * nz + j2];
        for (int ab = 0; ab < m * m; ab++) {
          const double v = Cst[ab + m * m * c];
          double *a = A + (size_t)ab * z2;
          for (int k = 0; k < z2; k++) a[k] += v * P[k];
        }
      }
    }
  /* stage 2: A2[((i1 n + j1) z2 + i2 nz + j2) GM + g m + a] += sum_b Xy(b, i1) Yy(b, j1) A1[cls][a, b] */
  for (int cls = 0; cls < CLASSES; cls++) {
    if (!class_used[cls]) continue;
    const int sx = cls / 3, tx = cls % 3, g = 2 * (sx == 0) + (tx == 0);
    group_used[g] = 1;
    const double *X = sx == 1 ? r->D : r->B, *Y = tx == 1 ? r->D : r->B, *A = t->A1 + (size_t)cls * m * m * z2;
    double *tmp = t->pts; /* z2 values */
    for (int a = 0; a < m; a++)
      for (int i1 = 0; i1 < n; i1++)
        for (int j1 = 0; j1 < n; j1++) {
          for (int k = 0; k < z2; k++) tmp[k] = 0;
          for (int b = 0; b < m; b++) {
            const double w = X[b * n + i1] * Y[b * n + j1], *src = A + (size_t)(a + m * b) * z2;
            for (int k = 0; k < z2; k++) tmp[k] += w * src[k];
          }
          double *dst = t->A2 + ((size_t)(i1 * n + j1) * z2) * GM + g * m + a;
          for (int k = 0; k < z2; k++) dst[(size_t)k * GM] += tmp[k];
        }
  }
  /* stage 3: K[(i0, i1, i2), (j0, j1, j2)] = sum_g sum_a W[i0][g][a][j0] A2[i1, j1, i2, j2][g][a]
   * (the active (g, a) as one run of ng m values: A2's and W's of one i0) */
  int groups[GROUPS], ng = 0;
  for (int g = 0; g < GROUPS; g++)
    if (group_used[g]) groups[ng++] = g;
  for (int i2 = 0; i2 < nz; i2++)
    for (int i1 = 0; i1 < n; i1++)
      for (int i0 = 0; i0 < n; i0++) {
        double *row = Ke + (size_t)(((i2 * n + i1) * n + i0) * nc + fc) * nbc;
        for (int j2 = 0; j2 < nz; j2++)
          for (int j1 = 0; j1 < n; j1++) {
            const double *src = t->A2 + ((size_t)(i1 * n + j1) * z2 + i2 * nz + j2) * GM;
            double *dst = row + ((j2 * n + j1) * n) * nc + gc;
            x_contract(t->W + (size_t)i0 * GROUPS * m * n, src, groups, ng, m, n, nc, dst);
          }
      }
}

void cpu_tensor_element_matrix(cpu_tensor *t, int64_t c, double *Ke) {
  const feint_form *f = t->p->form;
  const tensor_rule *r = &t->mat;
  const feint_user_form *uf = f->user;
  const int dim = t->dim, nc = t->nc, S = dim + 1, terms = uf ? uf->terms : feint_physics_jacobian_terms(f->physics);
  /* the built-in Jacobian reads the coefficients, not the load (last in
   * the layout); a user form reads all of its coefficients */
  const int n_aux = uf ? f->n_aux : feint_physics_source_offset(f->physics, dim);
  geometry(t, r, c);
  aux_at_points(t, r, c, n_aux);
  if (uf) { /* at the form's state, the whole cell's points at once */
    state_at_points(t, r, c, f->u);
    user_symbols(t, r, c, 1);
    cpu_user_jacobian(uf, r->nq, t->sym, t->ug);
  }
  cpu_coefficients g = {{0}, {0}, {0}, {0}};
  for (int q = 0; q < r->nq; q++) {
    if (uf)
      cpu_user_coefficients_at(t->ug, r->nq, q, terms, dim, nc, &g);
    else
      cpu_coefficients_at(f, t->aux + q * n_aux, terms, dim, nc, &g);
    reference_coefficients(t, q, &g, terms);
  }
  for (int fc = 0; fc < nc; fc++)
    for (int gc = 0; gc < nc; gc++)
      pair_matrix(t, t->coef + (size_t)(fc * nc + gc) * S * S * r->nq, terms, fc, gc, Ke);
}
