/* Dirichlet and Neumann conditions on boundary physical groups; see
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

/* Neumann load of one entry: integrate h phi_i over the group's facets. */
static int integrate_neumann(feint_boundary_conditions *bc, const bvalue h[3], int64_t f0, int64_t f1,
                             int64_t *n_facets) {
  const feint_space *s = bc->space;
  const feint_mesh *m = s->mesh;
  const int nc = s->components, dim = m->dim, nvf = m->nv_facet;
  const feint_cell_type fc = dim == 3 ? FEINT_CELL_TRIANGLE : FEINT_CELL_SEGMENT;
  int varies = 0;
  for (int c = 0; c < nc; c++) varies |= h[c].kind >= 2;
  feint_element *el = NULL;
  feint_quadrature *q = NULL;
  double *phi = NULL;
  int status;
  if ((status = feint_element_create(fc, s->order, &el)) ||
      (status = feint_quadrature_create(fc, s->order * (varies ? 2 : 1), &q)) ||
      (status = feint_malloc((size_t)(q->n * el->nb), sizeof *phi, &phi, "facet basis")))
    goto done;
  feint_element_tabulate(el, q->n, q->points, phi, NULL);
  const int nb = el->nb;
  int64_t dofs[16];
  double hv[3][16];
  for (int64_t f = f0; f < f1; f++) {
    const int64_t *nodes = m->facets + f * nvf;
    int r = feint_space_facet_dofs(s, nodes, dofs);
    if (r == -1) continue; /* not a facet of the region */
    if (r) {
      status = r;
      goto done;
    }
    (*n_facets)++;
    /* |J|: length (segment, reference length 1) or |cross| (triangle, reference area 1/2) */
    double e1[3], e2[3], det;
    const double *X[3] = {m->x, m->y, m->z};
    for (int a = 0; a < 3; a++) {
      e1[a] = X[a][nodes[1]] - X[a][nodes[0]];
      e2[a] = dim == 3 ? X[a][nodes[2]] - X[a][nodes[0]] : 0.0;
    }
    if (dim == 3) {
      double cx = e1[1] * e2[2] - e1[2] * e2[1], cy = e1[2] * e2[0] - e1[0] * e2[2],
             cz = e1[0] * e2[1] - e1[1] * e2[0];
      det = sqrt(cx * cx + cy * cy + cz * cz);
    } else {
      det = sqrt(e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2]);
    }
    for (int c = 0; c < nc; c++)
      for (int j = 0; j < nb; j++) hv[c][j] = bvalue_at(&h[c], s, dofs[j]);
    for (int k = 0; k < q->n; k++) {
      const double *p = phi + k * nb;
      const double w = q->weights[k] * det;
      for (int c = 0; c < nc; c++) {
        if (!h[c].kind) continue;
        double hq = 0;
        for (int j = 0; j < nb; j++) hq += p[j] * hv[c][j];
        for (int i = 0; i < nb; i++) bc->neumann[dofs[i] * nc + c] += w * hq * p[i];
      }
    }
  }
done:
  free(phi);
  feint_quadrature_destroy(q);
  feint_element_destroy(el);
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
  free(bc);
}

int feint_boundary_rhs_needs_matrix(const feint_boundary_conditions *bc) {
  return bc && bc->mode == FEINT_DIRICHLET_SYMMETRIC && bc->n_dirichlet > 0;
}

void feint_boundary_apply_residual(const feint_boundary_conditions *bc, const double *u, double *F) {
  const int64_t n = bc->space->n_dofs;
  if (bc->neumann)
    for (int64_t i = 0; i < n; i++) F[i] -= bc->neumann[i];
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
  }
  for (int64_t k = 0; k < bc->n_dirichlet; k++) b[bc->dirichlet_dofs[k]] = bc->dirichlet_values[k];
  return FEINT_OK;
}

int feint_boundary_apply_matrix(const feint_boundary_conditions *bc, const int64_t *indptr,
                                const int32_t *indices, double *values) {
  const int64_t n = bc->space->n_dofs;
  const int symmetric = bc->mode == FEINT_DIRICHLET_SYMMETRIC;
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
