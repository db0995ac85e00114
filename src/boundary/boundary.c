/* Dirichlet, Neumann and Robin conditions on boundary physical groups; see
 * include/feint/boundary.h. */
#include "feint/boundary.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feint/error.h"
#include "feint/expr.h"
#include "feint/fe.h"
#include "feint/h5.h"

/* A case value sampled for boundary use: a constant, an expression or
 * per-scalar-dof values. */
typedef struct {
  int kind;          /* 0 = none (free / zero), 1 = constant, 2 = expression, 3 = nodal */
  double constant;
  feint_expr *expr;
  double *nodal;     /* n_scalar_dofs */
} bvalue;

static void bvalue_release(bvalue *v) {
  feint_expr_destroy(v->expr);
  free(v->nodal);
  memset(v, 0, sizeof *v);
}

static int bvalue_make(const feint_value *in, const feint_space *s, const char *name, bvalue *v) {
  memset(v, 0, sizeof *v);
  switch (in->kind) {
    case FEINT_VALUE_NONE: return FEINT_OK;
    case FEINT_VALUE_CONSTANT:
      v->kind = 1;
      v->constant = in->constant;
      return FEINT_OK;
    case FEINT_VALUE_EXPRESSION:
      FEINT_CALL(feint_expr_create(in->expression, in->where, &v->expr));
      if (feint_expr_is_constant(v->expr)) {
        v->kind = 1;
        v->constant = feint_expr_eval(v->expr, 0, 0, 0);
        feint_expr_destroy(v->expr);
        v->expr = NULL;
      } else {
        v->kind = 2;
      }
      return FEINT_OK;
    case FEINT_VALUE_DATASET:
      if (in->on_cells)
        return feint_error_set(FEINT_ERR_INPUT,
                               "%s: %s: a boundary value from a dataset must be on: node (one value per "
                               "scalar dof), not on: cell",
                               in->where, name);
      v->kind = 3;
      return feint_h5_read_doubles(in->file, in->dataset, s->n_scalar_dofs, in->where, &v->nodal);
  }
  return feint_error_set(FEINT_ERR_INPUT, "%s: unsupported value for %s", in->where, name);
}

/* The value at scalar dof d. */
static double bvalue_at(const bvalue *v, const feint_space *s, int64_t d) {
  switch (v->kind) {
    case 1: return v->constant;
    case 2: {
      const double *x = s->coordinates + 3 * d;
      return feint_expr_eval(v->expr, x[0], x[1], x[2]);
    }
    case 3: return v->nodal[d];
  }
  return 0.0;
}

/* Sample the list of an entry: n == 1 applies to every component, else one
 * per component. */
static int sample_list(const feint_value_list *l, const feint_space *s, const char *name, const char *where,
                       bvalue out[3]) {
  const int nc = s->components;
  memset(out, 0, 3 * sizeof *out);
  if (l->n != 1 && l->n != nc)
    return feint_error_set(FEINT_ERR_INPUT,
                           "%s: %s has %d values but the space has %d component%s (give one value for "
                           "all components, or one per component)",
                           where, name, l->n, nc, nc == 1 ? "" : "s");
  for (int c = 0; c < nc; c++) {
    int status = bvalue_make(&l->c[l->n == 1 ? 0 : c], s, name, &out[c]);
    if (status) {
      for (int k = 0; k < nc; k++) bvalue_release(&out[k]);
      return status;
    }
  }
  return FEINT_OK;
}

/* The (dim-1)-dimensional group named by entry `b`, or an input error. */
static int find_group(const feint_mesh *m, const feint_boundary *b, int index, int *out) {
  const int fdim = m->dim - 1;
  int g = feint_mesh_find_group(m, b->group, fdim);
  if (g >= 0) {
    *out = g;
    return FEINT_OK;
  }
  int other = feint_mesh_find_group(m, b->group, -1);
  if (other >= 0)
    return feint_error_set(FEINT_ERR_INPUT,
                           "%s: boundary[%d].group: physical group '%s' has dimension %d; boundary "
                           "conditions need a group of dimension %d (the facets of the %dD mesh)",
                           b->where, index, b->group, m->groups[other].dim, fdim, m->dim);
  char list[512] = "";
  size_t used = 0;
  for (int k = 0; k < m->n_groups; k++) {
    if (m->groups[k].dim != fdim || !m->groups[k].name[0]) continue;
    int w = snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "", m->groups[k].name);
    if (w < 0 || (size_t)w >= sizeof list - used) break;
    used += (size_t)w;
  }
  return feint_error_set(FEINT_ERR_INPUT, "%s: boundary[%d].group: unknown physical group '%s' (groups of "
                         "dimension %d: %s)",
                         b->where, index, b->group, fdim, used ? list : "none");
}

/* Facet quadrature shared by the Neumann and Robin integrals: the facet's
 * own Lagrange element of the space's order (a segment in 2D, a triangle in
 * 3D), a Gauss rule of the given degree and the basis at its points. */
typedef struct {
  feint_element *el;
  feint_quadrature *q;
  double *phi; /* q->n x el->nb */
  int nb;
} facet_rule;

static void facet_rule_destroy(facet_rule *r) {
  free(r->phi);
  feint_quadrature_destroy(r->q);
  feint_element_destroy(r->el);
  memset(r, 0, sizeof *r);
}

static int facet_rule_create(const feint_space *s, int degree, facet_rule *r) {
  const feint_cell_type fc = s->mesh->dim == 3 ? FEINT_CELL_TRIANGLE : FEINT_CELL_SEGMENT;
  memset(r, 0, sizeof *r);
  /* the facet element has equispaced nodes; a quadrilateral's edges carry
   * GLL nodes, which coincide only up to order 2 */
  if (!feint_cell_is_simplex(s->mesh->cell_type) && s->order > 2)
    return feint_error_set(FEINT_ERR_INPUT,
                           "Neumann and Robin conditions on %s meshes need space.order <= 2 in this version",
                           feint_cell_name(s->mesh->cell_type));
  int status;
  if ((status = feint_element_create(fc, s->order, &r->el)) || (status = feint_quadrature_create(fc, degree, &r->q)) ||
      (status = feint_malloc((size_t)(r->q->n * r->el->nb), sizeof *r->phi, &r->phi, "facet basis"))) {
    facet_rule_destroy(r);
    return status;
  }
  feint_element_tabulate(r->el, r->q->n, r->q->points, r->phi, NULL);
  r->nb = r->el->nb;
  return FEINT_OK;
}

/* |J| of an affine facet: length (segment, reference length 1) or |cross|
 * (triangle, reference area 1/2). */
static double facet_det(const feint_mesh *m, const int64_t *nodes) {
  double e1[3], e2[3];
  const double *X[3] = {m->x, m->y, m->z};
  for (int a = 0; a < 3; a++) {
    e1[a] = X[a][nodes[1]] - X[a][nodes[0]];
    e2[a] = m->dim == 3 ? X[a][nodes[2]] - X[a][nodes[0]] : 0.0;
  }
  if (m->dim == 3) {
    double cx = e1[1] * e2[2] - e1[2] * e2[1], cy = e1[2] * e2[0] - e1[0] * e2[2],
           cz = e1[0] * e2[1] - e1[1] * e2[0];
    return sqrt(cx * cx + cy * cy + cz * cz);
  }
  return sqrt(e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2]);
}

/* The facets f0..f1 of a group that lie on the region: calls visit(ctx,
 * dofs, det) for each with its scalar dofs (in the facet element's order)
 * and |J|, and counts them. */
typedef int (*facet_visit)(void *ctx, const int64_t *dofs, double det);

static int for_region_facets(const feint_space *s, int64_t f0, int64_t f1, facet_visit visit, void *ctx,
                             int64_t *n_facets) {
  const feint_mesh *m = s->mesh;
  int64_t dofs[16];
  for (int64_t f = f0; f < f1; f++) {
    const int64_t *nodes = m->facets + f * m->nv_facet;
    int r = feint_space_facet_dofs(s, nodes, dofs);
    if (r == -1) continue; /* not a facet of the region */
    FEINT_CALL(r);
    (*n_facets)++;
    if (visit) FEINT_CALL(visit(ctx, dofs, facet_det(m, nodes)));
  }
  return FEINT_OK;
}

typedef struct {
  feint_boundary_conditions *bc;
  const bvalue *h;
  const facet_rule *r;
} neumann_ctx;

static int neumann_facet(void *vctx, const int64_t *dofs, double det) {
  const neumann_ctx *x = vctx;
  const feint_space *s = x->bc->space;
  const int nc = s->components, nb = x->r->nb;
  double hv[3][16];
  for (int c = 0; c < nc; c++)
    for (int j = 0; j < nb; j++) hv[c][j] = bvalue_at(&x->h[c], s, dofs[j]);
  for (int k = 0; k < x->r->q->n; k++) {
    const double *p = x->r->phi + k * nb;
    const double w = x->r->q->weights[k] * det;
    for (int c = 0; c < nc; c++) {
      if (!x->h[c].kind) continue;
      double hq = 0;
      for (int j = 0; j < nb; j++) hq += p[j] * hv[c][j];
      for (int i = 0; i < nb; i++) x->bc->neumann[dofs[i] * nc + c] += w * hq * p[i];
    }
  }
  return FEINT_OK;
}

/* Neumann load of one entry: integrate h phi_i over the group's facets. */
static int integrate_neumann(feint_boundary_conditions *bc, const bvalue h[3], int64_t f0, int64_t f1,
                             int64_t *n_facets) {
  const feint_space *s = bc->space;
  int varies = 0;
  for (int c = 0; c < s->components; c++) varies |= h[c].kind >= 2;
  facet_rule r;
  FEINT_CALL(facet_rule_create(s, s->order * (varies ? 2 : 1), &r));
  neumann_ctx x = {bc, h, &r};
  int status = for_region_facets(s, f0, f1, neumann_facet, &x, n_facets);
  facet_rule_destroy(&r);
  return status;
}

typedef struct {
  feint_boundary_conditions *bc;
  const bvalue *alpha, *g;
  const facet_rule *r;
} robin_ctx;

/* One facet's Robin terms: the facet mass matrix weighted by alpha (both
 * interpolated in the facet element), M_ij = int alpha phi_i phi_j, as
 * triplets for every component, and the load M g (g interpolated), which
 * is int alpha g phi_i exactly for the interpolants. */
static int robin_facet(void *vctx, const int64_t *dofs, double det) {
  const robin_ctx *x = vctx;
  feint_boundary_conditions *bc = x->bc;
  const feint_space *s = bc->space;
  const int nc = s->components, nb = x->r->nb;
  double av[16], gv[16], M[16 * 16];
  for (int j = 0; j < nb; j++) {
    av[j] = bvalue_at(x->alpha, s, dofs[j]);
    gv[j] = bvalue_at(x->g, s, dofs[j]);
  }
  memset(M, 0, sizeof M);
  for (int k = 0; k < x->r->q->n; k++) {
    const double *p = x->r->phi + k * nb;
    double aq = 0;
    for (int j = 0; j < nb; j++) aq += p[j] * av[j];
    const double w = x->r->q->weights[k] * det * aq;
    for (int i = 0; i < nb; i++)
      for (int j = 0; j < nb; j++) M[i * nb + j] += w * p[i] * p[j];
  }
  const int64_t need = bc->n_robin + (int64_t)nc * nb * nb;
  if (need > bc->robin_capacity) {
    int64_t cap = bc->robin_capacity ? 2 * bc->robin_capacity : 1024;
    while (cap < need) cap *= 2;
    int64_t *rows = realloc(bc->robin_rows, (size_t)cap * sizeof *rows);
    if (rows) bc->robin_rows = rows;
    int64_t *cols = realloc(bc->robin_cols, (size_t)cap * sizeof *cols);
    if (cols) bc->robin_cols = cols;
    double *vals = realloc(bc->robin_values, (size_t)cap * sizeof *vals);
    if (vals) bc->robin_values = vals;
    if (!rows || !cols || !vals) return feint_error_set(FEINT_ERR_COMPUTE, "out of memory for the Robin terms");
    bc->robin_capacity = cap;
  }
  for (int c = 0; c < nc; c++)
    for (int i = 0; i < nb; i++) {
      const int64_t di = dofs[i] * nc + c;
      double load = 0;
      for (int j = 0; j < nb; j++) {
        const int64_t t = bc->n_robin++;
        bc->robin_rows[t] = di;
        bc->robin_cols[t] = dofs[j] * nc + c;
        bc->robin_values[t] = M[i * nb + j];
        load += M[i * nb + j] * gv[j];
      }
      bc->robin_load[di] += load;
    }
  return FEINT_OK;
}

/* Robin terms of one entry on the group's facets. */
static int integrate_robin(feint_boundary_conditions *bc, const bvalue *alpha, const bvalue *g, int64_t f0,
                           int64_t f1, int64_t *n_facets) {
  const feint_space *s = bc->space;
  facet_rule r;
  FEINT_CALL(facet_rule_create(s, s->order * (alpha->kind >= 2 ? 3 : 2), &r));
  robin_ctx x = {bc, alpha, g, &r};
  int status = for_region_facets(s, f0, f1, robin_facet, &x, n_facets);
  facet_rule_destroy(&r);
  return status;
}

/* Constrain the dofs of the group's facets for one entry. */
static int mark_dirichlet(feint_boundary_conditions *bc, const bvalue g[3], int64_t f0, int64_t f1,
                          int64_t *n_facets) {
  const feint_space *s = bc->space;
  const feint_mesh *m = s->mesh;
  const int nc = s->components, nvf = m->nv_facet;
  const int nb = m->dim == 3 ? (s->order + 1) * (s->order + 2) / 2 : s->order + 1;
  int64_t dofs[16];
  for (int64_t f = f0; f < f1; f++) {
    int r = feint_space_facet_dofs(s, m->facets + f * nvf, dofs);
    if (r == -1) continue;
    FEINT_CALL(r);
    (*n_facets)++;
    for (int i = 0; i < nb; i++)
      for (int c = 0; c < nc; c++) {
        if (!g[c].kind) continue; /* free component */
        const int64_t d = dofs[i] * nc + c;
        bc->constrained[d] = 1;
        bc->g[d] = bvalue_at(&g[c], s, dofs[i]);
      }
  }
  return FEINT_OK;
}

int feint_boundary_create(const feint_case *c, const feint_space *s, feint_boundary_conditions **out) {
  *out = NULL;
  const feint_mesh *m = s->mesh;
  if (c->n_boundary > 0 && m->cell_type == FEINT_CELL_PRISM) /* mixed facets: not read (mesh.h) */
    return feint_error_set(FEINT_ERR_INPUT, "%s: boundary conditions on prism meshes are not supported in this version",
                           c->boundary[0].where);
  feint_boundary_conditions *bc = NULL;
  FEINT_CALL(feint_calloc(1, sizeof *bc, &bc, "boundary conditions"));
  bc->space = s;
  bc->mode = c->dirichlet;
  int status;
  if ((status = feint_calloc((size_t)s->n_dofs, 1, &bc->constrained, "Dirichlet marks")) ||
      (status = feint_calloc((size_t)s->n_dofs, sizeof *bc->g, &bc->g, "Dirichlet values")))
    goto fail;
  for (int i = 0; i < c->n_boundary && !status; i++) {
    const feint_boundary *b = &c->boundary[i];
    int g = -1;
    if ((status = find_group(m, b, i, &g))) goto fail;
    const int64_t f0 = m->facet_offsets[g], f1 = m->facet_offsets[g + 1];
    char name[64];
    bvalue v[3];
    int64_t used = 0;
    if (b->dirichlet.n) {
      snprintf(name, sizeof name, "boundary[%d].dirichlet", i);
      if ((status = sample_list(&b->dirichlet, s, name, b->where, v))) goto fail;
      status = mark_dirichlet(bc, v, f0, f1, &used);
      for (int k = 0; k < 3; k++) bvalue_release(&v[k]);
      if (status) goto fail;
    }
    if (b->neumann.n) {
      snprintf(name, sizeof name, "boundary[%d].neumann", i);
      if (!bc->neumann && (status = feint_calloc((size_t)s->n_dofs, sizeof *bc->neumann, &bc->neumann,
                                                 "Neumann load")))
        goto fail;
      if ((status = sample_list(&b->neumann, s, name, b->where, v))) goto fail;
      used = 0;
      status = integrate_neumann(bc, v, f0, f1, &used);
      bc->n_neumann_facets += used;
      for (int k = 0; k < 3; k++) bvalue_release(&v[k]);
      if (status) goto fail;
    }
    if (b->has_robin) {
      bvalue alpha, g;
      snprintf(name, sizeof name, "boundary[%d].robin.alpha", i);
      if ((status = bvalue_make(&b->robin_alpha, s, name, &alpha))) goto fail;
      snprintf(name, sizeof name, "boundary[%d].robin.value", i);
      if ((status = bvalue_make(&b->robin_value, s, name, &g))) {
        bvalue_release(&alpha);
        goto fail;
      }
      if (!bc->robin_load)
        status = feint_calloc((size_t)s->n_dofs, sizeof *bc->robin_load, &bc->robin_load, "Robin load");
      used = 0;
      if (!status) status = integrate_robin(bc, &alpha, &g, f0, f1, &used);
      bc->n_robin_facets += used;
      bvalue_release(&alpha);
      bvalue_release(&g);
      if (status) goto fail;
    }
    if (used == 0) {
      status = feint_error_set(FEINT_ERR_INPUT,
                               "%s: boundary[%d].group: physical group '%s' has no facet on the cells of "
                               "the region",
                               b->where, i, b->group);
      goto fail;
    }
  }
  for (int64_t d = 0; d < s->n_dofs; d++) bc->n_dirichlet += bc->constrained[d];
  if ((status = feint_malloc((size_t)bc->n_dirichlet, sizeof(int64_t), &bc->dirichlet_dofs, "Dirichlet dofs")) ||
      (status = feint_malloc((size_t)bc->n_dirichlet, sizeof(double), &bc->dirichlet_values, "Dirichlet values")))
    goto fail;
  int64_t k = 0;
  for (int64_t d = 0; d < s->n_dofs; d++)
    if (bc->constrained[d]) {
      bc->dirichlet_dofs[k] = d;
      bc->dirichlet_values[k++] = bc->g[d];
    }
  *out = bc;
  return FEINT_OK;
fail:
  feint_boundary_destroy(bc);
  return status;
}

void feint_boundary_destroy(feint_boundary_conditions *bc) {
  if (!bc) return;
  free(bc->dirichlet_dofs);
  free(bc->dirichlet_values);
  free(bc->constrained);
  free(bc->g);
  free(bc->neumann);
  free(bc->robin_rows);
  free(bc->robin_cols);
  free(bc->robin_values);
  free(bc->robin_load);
  free(bc->robin_positions);
  free(bc);
}

/* Position of column j in row i of a sorted CSR pattern, -1 if absent. */
static int64_t csr_find(const int64_t *indptr, const int32_t *indices, int64_t i, int64_t j) {
  int64_t lo = indptr[i], hi = indptr[i + 1];
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (indices[mid] < j) lo = mid + 1;
    else hi = mid;
  }
  return lo < indptr[i + 1] && indices[lo] == j ? lo : -1;
}

static int robin_missing(int64_t i, int64_t j) {
  return feint_error_set(FEINT_ERR_COMPUTE, "internal: Robin entry (%lld, %lld) is not in the matrix pattern",
                         (long long)i, (long long)j);
}

int feint_boundary_bind_pattern(feint_boundary_conditions *bc, const int64_t *indptr, const int32_t *indices) {
  if (!bc || !bc->n_robin) return FEINT_OK;
  if (bc->robin_positions && bc->robin_indptr == indptr && bc->robin_indices == indices) return FEINT_OK;
  free(bc->robin_positions);
  bc->robin_positions = NULL;
  int64_t *pos = NULL;
  FEINT_CALL(feint_malloc((size_t)bc->n_robin, sizeof *pos, &pos, "Robin positions"));
  for (int64_t t = 0; t < bc->n_robin; t++) {
    pos[t] = csr_find(indptr, indices, bc->robin_rows[t], bc->robin_cols[t]);
    if (pos[t] < 0) {
      free(pos);
      return robin_missing(bc->robin_rows[t], bc->robin_cols[t]);
    }
  }
  bc->robin_positions = pos;
  bc->robin_indptr = indptr;
  bc->robin_indices = indices;
  return FEINT_OK;
}

int feint_boundary_rhs_needs_matrix(const feint_boundary_conditions *bc) {
  return bc && bc->mode == FEINT_DIRICHLET_SYMMETRIC && bc->n_dirichlet > 0;
}

void feint_boundary_apply_residual(const feint_boundary_conditions *bc, const double *u, double *F) {
  const int64_t n = bc->space->n_dofs;
  if (bc->neumann)
    for (int64_t i = 0; i < n; i++) F[i] -= bc->neumann[i];
  if (bc->robin_load) {
    for (int64_t t = 0; t < bc->n_robin; t++) F[bc->robin_rows[t]] += bc->robin_values[t] * u[bc->robin_cols[t]];
    for (int64_t i = 0; i < n; i++) F[i] -= bc->robin_load[i];
  }
  for (int64_t k = 0; k < bc->n_dirichlet; k++) {
    const int64_t d = bc->dirichlet_dofs[k];
    F[d] = u[d] - bc->dirichlet_values[k];
  }
}

int feint_boundary_apply_rhs(const feint_boundary_conditions *bc, const int64_t *indptr,
                             const int32_t *indices, const double *values, double *b) {
  const int64_t n = bc->space->n_dofs;
  if (bc->neumann)
    for (int64_t i = 0; i < n; i++) b[i] += bc->neumann[i];
  if (bc->robin_load)
    for (int64_t i = 0; i < n; i++) b[i] += bc->robin_load[i];
  if (feint_boundary_rhs_needs_matrix(bc)) {
    if (!indptr || !indices || !values)
      return feint_error_set(FEINT_ERR_COMPUTE, "internal: symmetric Dirichlet lifting needs the matrix");
    for (int64_t i = 0; i < n; i++) {
      if (bc->constrained[i]) continue;
      double lift = 0;
      for (int64_t k = indptr[i]; k < indptr[i + 1]; k++)
        if (bc->constrained[indices[k]]) lift += values[k] * bc->g[indices[k]];
      b[i] -= lift;
    }
    /* the matrix lifted with includes the Robin terms (added by apply_matrix) */
    for (int64_t t = 0; t < bc->n_robin; t++) {
      const int64_t i = bc->robin_rows[t], j = bc->robin_cols[t];
      if (!bc->constrained[i] && bc->constrained[j]) b[i] -= bc->robin_values[t] * bc->g[j];
    }
  }
  for (int64_t k = 0; k < bc->n_dirichlet; k++) b[bc->dirichlet_dofs[k]] = bc->dirichlet_values[k];
  return FEINT_OK;
}

int feint_boundary_apply_matrix(const feint_boundary_conditions *bc, const int64_t *indptr,
                                const int32_t *indices, double *values) {
  const int64_t n = bc->space->n_dofs;
  const int symmetric = bc->mode == FEINT_DIRICHLET_SYMMETRIC;
  /* Robin terms first, then the Dirichlet elimination */
  const int bound = bc->robin_positions && bc->robin_indptr == indptr && bc->robin_indices == indices;
  for (int64_t t = 0; t < bc->n_robin; t++) {
    const int64_t k =
        bound ? bc->robin_positions[t] : csr_find(indptr, indices, bc->robin_rows[t], bc->robin_cols[t]);
    if (k < 0) return robin_missing(bc->robin_rows[t], bc->robin_cols[t]);
    values[k] += bc->robin_values[t];
  }
  for (int64_t i = 0; i < n; i++) {
    if (bc->constrained[i]) {
      int diagonal = 0;
      for (int64_t k = indptr[i]; k < indptr[i + 1]; k++) {
        diagonal |= indices[k] == i;
        values[k] = indices[k] == i ? 1.0 : 0.0;
      }
      if (!diagonal)
        return feint_error_set(FEINT_ERR_COMPUTE, "internal: row %lld has no diagonal entry in the pattern",
                               (long long)i);
    } else if (symmetric) {
      for (int64_t k = indptr[i]; k < indptr[i + 1]; k++)
        if (bc->constrained[indices[k]]) values[k] = 0.0;
    }
  }
  return FEINT_OK;
}

int feint_boundary_write(const feint_boundary_conditions *bc, feint_output *o, const char *prefix) {
  const int64_t n = bc->n_dirichlet;
  char name[512];
  snprintf(name, sizeof name, "%sboundary/dirichlet_dofs", prefix ? prefix : "");
  FEINT_CALL(feint_output_int64(o, name, 1, &n, bc->dirichlet_dofs));
  snprintf(name, sizeof name, "%sboundary/dirichlet_values", prefix ? prefix : "");
  FEINT_CALL(feint_output_doubles(o, name, 1, &n, bc->dirichlet_values));
  return FEINT_OK;
}
