/* Sampling of coefficients, source and state for a physics on a space. */
#include "feint/form.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feint/error.h"
#include "feint/parallel.h"
#include "feint/expr.h"
#include "feint/h5.h"
#include "feint/physics.h"

int64_t feint_field_size(feint_field_kind kind, const feint_space *s) {
  switch (kind) {
    case FEINT_FIELD_CONSTANT: return 0;
    case FEINT_FIELD_CELL: return s->mesh->n_cells;
    case FEINT_FIELD_NODE: return s->n_scalar_dofs;
    case FEINT_FIELD_CELL_NODE: return s->mesh->n_cells * s->nb;
  }
  return 0;
}

/* Refuse a sampled field holding inf or nan (a division by zero, the log
 * of a negative number, a bad dataset): it would go silently into every
 * result. The message names the value, where it is given and the first
 * point (or cell) where it is not finite. */
static int field_check_finite(const feint_value *v, const feint_space *s, const char *name, const feint_field *f) {
  const char *what = feint_value_text(v);
  if (f->kind == FEINT_FIELD_CONSTANT) {
    if (isfinite(f->constant)) return FEINT_OK;
    return feint_error_not_finite(v->where, name, what, f->constant, NULL);
  }
  const int64_t n = feint_field_size(f->kind, s);
  for (int64_t i = 0; i < n; i++) {
    if (isfinite(f->values[i])) continue;
    if (f->kind == FEINT_FIELD_CELL)
      return feint_error_set(FEINT_ERR_INPUT, "%s: %s \"%s\" is %s on cell %lld: expected finite values", v->where,
                             name, what, feint_nonfinite_name(f->values[i]), (long long)i);
    if (f->kind == FEINT_FIELD_CELL_NODE) /* an expression per group: the point is the dof's */
      return feint_error_not_finite(v->where, name, what, f->values[i],
                                    s->coordinates + 3 * s->scalar_cell_dofs[i]);
    return feint_error_not_finite(v->where, name, what, f->values[i], s->coordinates + 3 * i);
  }
  return FEINT_OK;
}

/* An expression at the dofs [a, b) (the evaluator is reentrant: every
 * core samples its range; 1M dofs took 20 ms an expression on one). */
typedef struct {
  const feint_expr *e;
  const double *coordinates;
  double *values;
} sample_job;

static void sample_range(int64_t a, int64_t b, void *arg) {
  const sample_job *j = arg;
  for (int64_t i = a; i < b; i++) {
    const double *x = j->coordinates + 3 * i;
    j->values[i] = feint_expr_eval(j->e, x[0], x[1], x[2]);
  }
}

/* One group's value as field_from_groups reads it: a number, an
 * expression, or a dataset's values (per cell or per scalar dof). */
typedef struct {
  feint_value_kind kind; /* FEINT_VALUE_NONE: no value for the group (the default's then) */
  double number;
  feint_expr *expr;
  double *data;
  int on_cells;
} group_source;

/* A dataset's values per cell or per scalar dof of s (on a rank's part:
 * the whole's values, those of the part's cells or dofs). */
static int read_dataset(const feint_value *v, const feint_space *s, double **out) {
  const int part = s->whole_cell != NULL;
  const int64_t n = v->on_cells ? s->mesh->n_cells : s->n_scalar_dofs;
  if (!part) return feint_h5_read_doubles(v->file, v->dataset, n, v->where, out);
  double *whole = NULL;
  FEINT_CALL(feint_h5_read_doubles(v->file, v->dataset, v->on_cells ? s->whole_cells : s->whole_scalar_dofs,
                                   v->where, &whole));
  const int64_t *at = v->on_cells ? s->whole_cell : s->whole_scalar_dof;
  int status = feint_malloc((size_t)n + 1, sizeof **out, out, "a part's dataset values");
  for (int64_t i = 0; !status && i < n; i++) (*out)[i] = whole[at[i]];
  free(whole);
  return status;
}

static int group_source_make(const feint_value *v, const feint_space *s, group_source *g) {
  g->kind = v->kind;
  g->number = v->constant;
  g->on_cells = v->on_cells;
  if (v->kind == FEINT_VALUE_EXPRESSION) return feint_expr_create(v->expression, v->where, &g->expr);
  if (v->kind == FEINT_VALUE_DATASET) return read_dataset(v, s, &g->data);
  return FEINT_OK;
}

/* Whether the group's value varies inside a cell (a piecewise nodal field). */
static int group_source_nodal(const group_source *g) {
  return g->kind == FEINT_VALUE_EXPRESSION || (g->kind == FEINT_VALUE_DATASET && !g->on_cells);
}

/* The value of cell c at its scalar dof d (coordinates x). */
static double group_source_at(const group_source *g, int64_t c, int64_t d, const double *x) {
  switch (g->kind) {
    case FEINT_VALUE_EXPRESSION: return feint_expr_eval(g->expr, x[0], x[1], x[2]);
    case FEINT_VALUE_DATASET: return g->data[g->on_cells ? c : d];
    default: return g->number;
  }
}

/* Cells [a, b) of a group-wise field: each cell its group's value (else
 * the default's, source[n_groups]), at its own scalar dofs (piecewise
 * nodal) or once (per cell). */
typedef struct {
  const feint_space *s;
  const group_source *source;
  int n_groups, nodal;
  double *values;
} groups_job;

static const group_source *group_of(const groups_job *j, int64_t c) {
  const int g = j->s->mesh->cell_group[c];
  return g >= 0 && j->source[g].kind != FEINT_VALUE_NONE ? &j->source[g] : &j->source[j->n_groups];
}

static void groups_range(int64_t a, int64_t b, void *arg) {
  const groups_job *j = arg;
  const int nb = j->s->nb;
  for (int64_t c = a; c < b; c++) {
    const group_source *g = group_of(j, c);
    if (!j->nodal) {
      j->values[c] = group_source_at(g, c, -1, NULL);
      continue;
    }
    const int64_t *sd = j->s->scalar_cell_dofs + c * nb;
    for (int i = 0; i < nb; i++)
      j->values[c * nb + i] = sd[i] < 0 ? 0 : group_source_at(g, c, sd[i], j->s->coordinates + 3 * sd[i]);
  }
}

/* The cells without a value (neither their group's nor a default): an
 * input error listing their groups. */
static int groups_missing(const feint_value *v, const feint_mesh *m, const char *key, const group_source *source) {
  if (v->group_default) return FEINT_OK;
  int64_t missing = 0;
  for (int64_t c = 0; c < m->n_cells; c++) {
    const int g = m->cell_group[c];
    missing += g < 0 || source[g].kind == FEINT_VALUE_NONE;
  }
  if (!missing) return FEINT_OK;
  char list[512] = "";
  size_t used = 0;
  for (int g = -1; g < m->n_groups; g++) {
    int hit = 0;
    for (int64_t c = 0; c < m->n_cells && !hit; c++)
      hit = m->cell_group[c] == g && (g < 0 || source[g].kind == FEINT_VALUE_NONE);
    if (!hit) continue;
    int w = snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "",
                     g < 0 ? "(no physical group)" : m->groups[g].name[0] ? m->groups[g].name : "(unnamed)");
    if (w < 0 || (size_t)w >= sizeof list - used) break;
    used += (size_t)w;
  }
  return feint_error_set(FEINT_ERR_INPUT,
                         "%s: %s: %lld cell%s no value: %s in group%s %s, not listed; list %s or give %s.default",
                         v->where, key, (long long)missing, missing == 1 ? " has" : "s have",
                         missing == 1 ? "it is" : "they are", strchr(list, ',') ? "s" : "", list,
                         strchr(list, ',') ? "them" : "it", v->key);
}

/* {groups: {name: value}, default}: each cell takes its physical group's
 * value (mesh->cell_group). Numbers and cell datasets only: the per-cell
 * field a dataset on: cell would give (FEINT_FIELD_CELL). An expression or
 * a node dataset among them: a piecewise nodal field
 * (FEINT_FIELD_CELL_NODE), each cell its group's value at its own scalar
 * dofs, so the field may jump between groups. Each name must be a group
 * of the cells' dimension; every cell needs a value (its group's, or the
 * default). */
static int field_from_groups(const feint_value *v, const feint_space *s, const char *name, feint_field *f) {
  const feint_mesh *m = s->mesh;
  char key[128];
  snprintf(key, sizeof key, "%s.groups", v->key);
  group_source *source = NULL; /* per mesh group, then the default's */
  FEINT_CALL(feint_calloc((size_t)m->n_groups + 1, sizeof *source, &source, "per-group values"));
  int status = FEINT_OK, nodal = 0;
  for (int i = 0; i < v->n_groups && !status; i++) {
    int g;
    status = feint_mesh_need_group(m, v->group_names[i], m->dim, v->group_where[i], key, "per-group values", &g);
    if (!status) status = group_source_make(&v->group_value[i], s, &source[g]);
    nodal |= !status && group_source_nodal(&source[g]);
  }
  if (!status && v->group_default) {
    status = group_source_make(v->group_default, s, &source[m->n_groups]);
    nodal |= group_source_nodal(&source[m->n_groups]);
  }
  if (!status) status = groups_missing(v, m, key, source);
  const int64_t n = nodal ? m->n_cells * s->nb : m->n_cells;
  if (!status) status = feint_malloc((size_t)n + 1, sizeof *f->values, &f->values, name);
  if (!status) {
    f->kind = nodal ? FEINT_FIELD_CELL_NODE : FEINT_FIELD_CELL;
    f->per_cell = nodal ? s->nb : 0;
    groups_job job = {s, source, m->n_groups, nodal, f->values};
    feint_parallel_for(m->n_cells, 1 << 12, groups_range, &job);
  }
  for (int g = 0; g <= m->n_groups; g++) {
    feint_expr_destroy(source[g].expr);
    free(source[g].data);
  }
  free(source);
  return status;
}

/* Sample a case value as a field on the space: constants stay constants,
 * expressions are interpolated at the scalar dofs, datasets are read;
 * every sample must be finite (field_check_finite). */
static int field_sample(const feint_value *v, const feint_space *s, double fallback, const char *name,
                        feint_field *f) {
  memset(f, 0, sizeof *f);
  switch (v->kind) {
    case FEINT_VALUE_NONE:
      f->kind = FEINT_FIELD_CONSTANT;
      f->constant = fallback;
      return FEINT_OK;
    case FEINT_VALUE_CONSTANT:
      f->kind = FEINT_FIELD_CONSTANT;
      f->constant = v->constant;
      return FEINT_OK;
    case FEINT_VALUE_EXPRESSION: {
      feint_expr *e = NULL;
      FEINT_CALL(feint_expr_create(v->expression, v->where, &e));
      if (feint_expr_is_constant(e)) {
        f->kind = FEINT_FIELD_CONSTANT;
        f->constant = feint_expr_eval(e, 0, 0, 0);
        feint_expr_destroy(e);
        return FEINT_OK;
      }
      int status = feint_malloc((size_t)s->n_scalar_dofs, sizeof(double), &f->values, name);
      if (status) {
        feint_expr_destroy(e);
        return status;
      }
      f->kind = FEINT_FIELD_NODE;
      sample_job job = {e, s->coordinates, f->values};
      feint_parallel_for(s->n_scalar_dofs, 1 << 14, sample_range, &job);
      feint_expr_destroy(e);
      return FEINT_OK;
    }
    case FEINT_VALUE_DATASET: {
      f->kind = v->on_cells ? FEINT_FIELD_CELL : FEINT_FIELD_NODE;
      return read_dataset(v, s, &f->values);
    }
    case FEINT_VALUE_GROUPS: return field_from_groups(v, s, name, f);
  }
  return feint_error_set(FEINT_ERR_INPUT, "%s: unsupported value for %s", v->where, name);
}

static void field_release(feint_field *f) {
  free(f->values);
  f->values = NULL;
}

static int field_from_value(const feint_value *v, const feint_space *s, double fallback, const char *name,
                            feint_field *f) {
  FEINT_CALL(field_sample(v, s, fallback, name, f));
  const int status = field_check_finite(v, s, name, f);
  if (status) field_release(f);
  return status;
}

static int field_degree(const feint_field *f, int order) {
  return f->kind == FEINT_FIELD_NODE || f->kind == FEINT_FIELD_CELL_NODE ? order : 0;
}

/* E and nu -> Lame parameters, sample by sample (both fields must be
 * sampled alike; a constant joins the other's kind). */
static int lame_from_young(feint_field *E, feint_field *nu, const feint_space *s, const char *where) {
  if (E->kind != nu->kind && E->kind != FEINT_FIELD_CONSTANT && nu->kind != FEINT_FIELD_CONSTANT)
    return feint_error_set(FEINT_ERR_INPUT,
                           "%s: E and nu must be sampled alike to be combined (both per cell, both per node, or "
                           "both with expressions per group), or one of them constant",
                           where);
  feint_field_kind kind = E->kind != FEINT_FIELD_CONSTANT ? E->kind : nu->kind;
  int64_t n = kind == FEINT_FIELD_CONSTANT ? 1 : feint_field_size(kind, s);
  double *lam = NULL, *mu = NULL;
  FEINT_CALL(feint_malloc((size_t)n, sizeof *lam, &lam, "Lame lambda"));
  int status = feint_malloc((size_t)n, sizeof *mu, &mu, "Lame mu");
  if (status) {
    free(lam);
    return status;
  }
  for (int64_t i = 0; i < n; i++) {
    double e = E->kind == FEINT_FIELD_CONSTANT ? E->constant : E->values[i];
    double v = nu->kind == FEINT_FIELD_CONSTANT ? nu->constant : nu->values[i];
    if (!(v > -1 && v < 0.5) || !(e > 0)) {
      free(lam);
      free(mu);
      return feint_error_set(FEINT_ERR_INPUT, "%s: need E > 0 and -1 < nu < 1/2, got E = %g, nu = %g",
                             where, e, v);
    }
    lam[i] = e * v / ((1 + v) * (1 - 2 * v));
    mu[i] = e / (2 * (1 + v));
  }
  field_release(E);
  field_release(nu);
  E->kind = nu->kind = kind;
  E->per_cell = nu->per_cell = kind == FEINT_FIELD_CELL_NODE ? s->nb : 0;
  if (kind == FEINT_FIELD_CONSTANT) {
    E->constant = lam[0];
    nu->constant = mu[0];
    free(lam);
    free(mu);
  } else {
    E->values = lam;
    nu->values = mu;
  }
  return FEINT_OK;
}

/* A list of values for `n` components (scalar given for a 1-component
 * quantity, or exactly n values). */
static int check_components(const feint_value_list *l, int n, const char *key, const char *where) {
  if (l->n == 0 || l->n == n) return FEINT_OK;
  return feint_error_set(FEINT_ERR_INPUT, "%s: %s needs %d value%s (one per component), got %d",
                         where, key, n, n == 1 ? "" : "s", l->n);
}

/* Degree exact for the element matrix on affine cells (vectors = 0) or
 * for the residual and load vectors (vectors = 1). */
static int default_degree(const feint_form *f, feint_cell_type cell, int order, int vectors) {
  int coef = 0;
  for (int k = 0; k < f->n_aux; k++) {
    int d = field_degree(&f->aux[k], order);
    if (d > coef) coef = d;
  }
  /* bilinear terms: g0 ~ 2p, g1/g2 ~ 2p-1, g3 ~ 2p-2, each times a
   * coefficient of degree `coef`; the load is p + coef. On tensor cells
   * the rule's degree is per direction, where a derivative along x leaves
   * the degree 2p in y: every term counts 2p. */
  const int d1 = feint_cell_is_simplex(cell); /* degree one derivative removes */
  if (f->user) {
    /* a user form's expressions count like its coefficient fields: x, y,
     * z read directly like a nodal coefficient (degree p), u and grad u
     * in the Jacobian (a nonlinear form) as 2p, the quadratic k(u) = k0 +
     * beta u^2 exactly; quadrature.degree sets any other */
    for (int i = FEINT_FORM_SYM_X; i < FEINT_FORM_SYM_U; i++)
      if (f->user->reads[i] && coef < order) coef = order;
    if (f->user->nonlinear && coef < 2 * order) coef = 2 * order;
  }
  int terms = f->user ? f->user->terms : feint_physics_jacobian_terms(f->physics), deg = vectors ? order + coef : 0;
  if (terms & 1) deg = deg > 2 * order + coef ? deg : 2 * order + coef;
  if (terms & 6) deg = deg > 2 * order - d1 + coef ? deg : 2 * order - d1 + coef;
  if (terms & 8) deg = deg > 2 * order - 2 * d1 + coef ? deg : 2 * order - 2 * d1 + coef;
  return deg + feint_cell_geometry_degree(cell);
}

/* A quadrature rule with block b's basis tabulated at its points (and, on
 * non-affine cells, the gradients of the geometry's vertex functions).
 * Tensor-product cells get no basis tables: their kernels contract 1D
 * tables (the 3D ones of a hexahedron of order 15 would take 644 MB). */
static int make_rule(const feint_space *s, int b, int degree, int values, int curved, feint_form_rule *r) {
  const feint_cell_type ct = s->mesh->blocks[b].cell_type;
  const feint_element *el = s->blocks[b].element;
  const int ng = curved ? s->mesh->blocks[b].n_geometry_nodes : 0, nv = feint_cell_geometry_nodes(ct, ng);
  const int dim = s->mesh->dim;
  r->degree = degree;
  FEINT_CALL(feint_quadrature_create(ct, degree, &r->quadrature));
  const int nq = r->quadrature->n;
  if (!feint_cell_is_tensor(ct)) {
    FEINT_CALL(feint_malloc((size_t)(nq * el->nb), sizeof(double), &r->basis, "basis table"));
    FEINT_CALL(feint_malloc((size_t)(nq * el->nb * dim), sizeof(double), &r->basis_grad, "basis table"));
    feint_element_tabulate(el, nq, r->quadrature->points, r->basis, r->basis_grad);
  }
  if (!feint_cell_is_simplex(ct) || ng) { /* J per point: tensor cells, prisms, curved cells */
    FEINT_CALL(feint_malloc((size_t)(nq * nv * dim), sizeof(double), &r->geometry_grad, "geometry table"));
    feint_cell_geometry_shape(ct, ng, nq, r->quadrature->points, NULL, r->geometry_grad);
  }
  if (values) {
    FEINT_CALL(feint_malloc((size_t)(nq * nv), sizeof(double), &r->geometry_value, "geometry table"));
    feint_cell_geometry_shape(ct, ng, nq, r->quadrature->points, r->geometry_value, NULL);
  }
  return FEINT_OK;
}

static void rule_release(feint_form_rule *r) {
  feint_quadrature_destroy(r->quadrature);
  free(r->basis);
  free(r->basis_grad);
  free(r->geometry_grad);
  free(r->geometry_value);
  memset(r, 0, sizeof *r);
}

/* The vector and matrix rules of every block: on a single-shape mesh into
 * the form's own fields, on a mixed one into block_rule[]. */
static int make_rules(const feint_case *c, const feint_space *s, feint_form *f) {
  const int mixed = feint_mesh_is_mixed(s->mesh);
  for (int b = 0; b < s->n_blocks; b++) {
    const feint_cell_type ct = s->mesh->blocks[b].cell_type;
    const int max = feint_quadrature_max_degree(ct);
    if (c->quadrature_degree > max)
      return feint_error_set(FEINT_ERR_INPUT,
                             "%s: quadrature.degree %d is beyond the rules on %s: 0..%d (0..%d on "
                             "quadrilaterals and hexahedra)",
                             c->quadrature_where, c->quadrature_degree, feint_cell_plural(ct), max,
                             feint_quadrature_max_degree(FEINT_CELL_HEXAHEDRON));
    /* curved cells: det J of a map of order g has degree dim (g - 1), which
     * the rule adds: exact for the mass and load terms on the polynomial
     * map; the stiffness terms (a rational integrand there) get the same */
    const int curved = s->mesh->n_geometry_nodes ? s->mesh->dim * (s->mesh->geometry_order - 1) : 0;
    const int straight_v = c->quadrature_degree >= 0 ? c->quadrature_degree : default_degree(f, ct, s->order, 1);
    const int dv = c->quadrature_degree >= 0 ? straight_v : straight_v + curved;
    /* a nonlinear user form's matrix takes the residual's rule, so that it
     * is the exact derivative of the discrete residual (Newton converges
     * quadratically) */
    const int straight_m = c->quadrature_degree >= 0          ? c->quadrature_degree
                           : f->user && f->user->nonlinear ? straight_v
                                                            : default_degree(f, ct, s->order, 0);
    const int dm = c->quadrature_degree >= 0 ? straight_m : f->user && f->user->nonlinear ? dv : straight_m + curved;
    FEINT_CALL(make_rule(s, b, dv, f->user != NULL, 1, &f->block_rule[b]));
    FEINT_CALL(make_rule(s, b, dm, f->user != NULL, 1, &f->block_matrix_rule[b]));
    if (s->mesh->n_geometry_nodes) { /* a curved mesh's affine cells */
      FEINT_CALL(make_rule(s, b, straight_v, f->user != NULL, 0, &f->straight_rule[b]));
      FEINT_CALL(make_rule(s, b, straight_m, f->user != NULL, 0, &f->straight_matrix_rule[b]));
    }
    if (dv > f->quadrature_degree) f->quadrature_degree = dv;
    if (dm > f->matrix_quadrature_degree) f->matrix_quadrature_degree = dm;
  }
  if (mixed) {
    f->n_blocks = s->n_blocks;
    return FEINT_OK;
  }
  const feint_form_rule *v = &f->block_rule[0], *m = &f->block_matrix_rule[0];
  f->quadrature = v->quadrature;
  f->basis = v->basis;
  f->basis_grad = v->basis_grad;
  f->geometry_grad = v->geometry_grad;
  f->geometry_value = v->geometry_value;
  f->matrix_quadrature = m->quadrature;
  f->matrix_basis = m->basis;
  f->matrix_basis_grad = m->basis_grad;
  f->matrix_geometry_grad = m->geometry_grad;
  f->matrix_geometry_value = m->geometry_value;
  memset(f->block_rule, 0, sizeof f->block_rule); /* now the form's own fields */
  memset(f->block_matrix_rule, 0, sizeof f->block_matrix_rule);
  return FEINT_OK;
}

void feint_form_coefficient_name(const feint_form *f, const feint_case *c, int k, char *buf, size_t size) {
  static const char *const axis[3] = {"x", "y", "z"};
  const int src = feint_physics_source_offset(f->physics, f->dim);
  if (f->user) snprintf(buf, size, "%s", c->form.coefficient_names[k]);
  else if (k >= src && f->physics == FEINT_PW_ELASTICITY) snprintf(buf, size, "source_%s", axis[k - src]);
  else if (k >= src) snprintf(buf, size, "source");
  else if (f->physics == FEINT_PW_POISSON || f->physics == FEINT_PW_HELMHOLTZ) snprintf(buf, size, k ? "lambda" : "kappa");
  else if (f->physics == FEINT_PW_ELASTICITY) snprintf(buf, size, k ? "lame_mu" : "lame_lambda");
  else if (f->physics == FEINT_PW_ADVECTION) snprintf(buf, size, "velocity_%s", axis[k]);
  else snprintf(buf, size, "tensor_%s%s", axis[k / f->dim], axis[k % f->dim]); /* diffusion */
}

int feint_form_create(const feint_case *c, const feint_space *s, feint_form **out) {
  *out = NULL;
  feint_form *f = NULL;
  FEINT_CALL(feint_calloc(1, sizeof *f, &f, "form"));
  const int dim = s->mesh->dim, nc = s->components;
  int status = FEINT_OK;
  f->physics = (int)c->physics;
  f->dim = dim;
  f->nc = nc;
  f->n_aux = c->physics == FEINT_PHYSICS_FORM ? c->form.n_coefficients : feint_physics_aux_count(f->physics, dim, nc);
  if ((status = feint_calloc((size_t)f->n_aux, sizeof *f->aux, &f->aux, "coefficients"))) goto fail;

  const int src = feint_physics_source_offset(f->physics, dim);
  switch (c->physics) {
    case FEINT_PHYSICS_POISSON:
    case FEINT_PHYSICS_HELMHOLTZ:
      if ((status = field_from_value(&c->kappa, s, 1.0, "kappa", &f->aux[0]))) goto fail;
      if (c->physics == FEINT_PHYSICS_HELMHOLTZ &&
          (status = field_from_value(&c->lambda, s, 1.0, "lambda", &f->aux[1])))
        goto fail;
      break;
    case FEINT_PHYSICS_MASS:
      break;
    case FEINT_PHYSICS_ELASTICITY:
      if (nc != dim) {
        status = feint_error_set(FEINT_ERR_INPUT,
                                 "%s: elasticity on a %dD mesh needs space.components: %d, got %d",
                                 c->space_where, dim, dim, nc);
        goto fail;
      }
      if (c->lame_lambda.kind != FEINT_VALUE_NONE) {
        if ((status = field_from_value(&c->lame_lambda, s, 0, "lame_lambda", &f->aux[0])) ||
            (status = field_from_value(&c->lame_mu, s, 0, "lame_mu", &f->aux[1])))
          goto fail;
      } else {
        if ((status = field_from_value(&c->E, s, 0, "E", &f->aux[0])) ||
            (status = field_from_value(&c->nu, s, 0, "nu", &f->aux[1])) ||
            (status = lame_from_young(&f->aux[0], &f->aux[1], s, c->physics_where)))
          goto fail;
      }
      break;
    case FEINT_PHYSICS_ADVECTION:
      if (c->velocity.n < dim) {
        status = feint_error_set(FEINT_ERR_INPUT, "%s: physics.velocity needs %d components on a %dD mesh, got %d",
                                 c->physics_where, dim, dim, c->velocity.n);
        goto fail;
      }
      for (int d = 0; d < dim; d++)
        if ((status = field_from_value(&c->velocity.c[d], s, 0, "velocity", &f->aux[d]))) goto fail;
      break;
    case FEINT_PHYSICS_FORM:
      if ((status = feint_user_form_create(c, dim, &f->user))) goto fail;
      for (int k = 0; k < f->n_aux; k++)
        if ((status = field_from_value(&c->form.coefficients[k], s, 0, c->form.coefficient_names[k], &f->aux[k])))
          goto fail;
      break;
    case FEINT_PHYSICS_DIFFUSION: {
      int given = c->tensor.n == 9 ? 3 : c->tensor.n == 4 ? 2 : 0;
      if (given != dim) {
        status = feint_error_set(FEINT_ERR_INPUT, "%s: physics.tensor must be %dx%d on a %dD mesh",
                                 c->physics_where, dim, dim, dim);
        goto fail;
      }
      for (int k = 0; k < dim * dim; k++)
        if ((status = field_from_value(&c->tensor.c[k], s, 0, "tensor", &f->aux[k]))) goto fail;
      break;
    }
  }
  /* source: one value per component for elasticity, else one value for all components (a user
   * form writes its own in f0) */
  const int n_source = f->user ? 0 : f->physics == FEINT_PW_ELASTICITY ? nc : 1;
  if (n_source == 1 && nc > 1 && c->source.n > 1) {
    status = feint_error_set(FEINT_ERR_INPUT, "%s: physics.source of %s is one value for all components",
                             c->physics_where, feint_physics_name(c->physics));
    goto fail;
  }
  if (!f->user && (status = check_components(&c->source, n_source, "physics.source", c->physics_where))) goto fail;
  for (int k = 0; k < n_source; k++) {
    const feint_value none = {0};
    const feint_value *v = c->source.n ? &c->source.c[k] : &none;
    if ((status = field_from_value(v, s, 0, "source", &f->aux[src + k]))) goto fail;
  }

  /* state u: interleaved nodal values */
  if ((status = check_components(&c->state_u, nc, "state.u", c->physics_where))) goto fail;
  if ((status = feint_calloc((size_t)s->n_dofs, sizeof(double), &f->u, "state u"))) goto fail;
  for (int k = 0; k < nc && c->state_u.n; k++) {
    feint_field uk;
    if ((status = field_from_value(&c->state_u.c[k], s, 0, "state.u", &uk))) goto fail;
    if (uk.kind == FEINT_FIELD_CELL || uk.kind == FEINT_FIELD_CELL_NODE) {
      field_release(&uk);
      status = feint_error_set(FEINT_ERR_INPUT, "%s: state.u must be given per node, not per cell",
                               c->state_u.c[k].where);
      goto fail;
    }
    for (int64_t i = 0; i < s->n_scalar_dofs; i++)
      f->u[i * nc + k] = uk.kind == FEINT_FIELD_CONSTANT ? uk.constant : uk.values[i];
    field_release(&uk);
  }

  if ((status = make_rules(c, s, f))) goto fail;
  *out = f;
  return FEINT_OK;
fail:
  feint_form_destroy(f);
  return status;
}

void feint_form_destroy(feint_form *f) {
  if (!f) return;
  for (int k = 0; f->aux && k < f->n_aux; k++) field_release(&f->aux[k]);
  free(f->aux);
  free(f->u);
  feint_quadrature_destroy(f->quadrature);
  free(f->basis);
  free(f->basis_grad);
  free(f->geometry_grad);
  free(f->geometry_value);
  feint_quadrature_destroy(f->matrix_quadrature);
  free(f->matrix_basis);
  free(f->matrix_basis_grad);
  free(f->matrix_geometry_grad);
  free(f->matrix_geometry_value);
  feint_user_form_destroy(f->user);
  for (int b = 0; b < FEINT_MESH_MAX_BLOCKS; b++) {
    rule_release(&f->block_rule[b]);
    rule_release(&f->block_matrix_rule[b]);
    rule_release(&f->straight_rule[b]);
    rule_release(&f->straight_matrix_rule[b]);
  }
  free(f);
}

static const char *field_kind_name(feint_field_kind k) {
  return k == FEINT_FIELD_CONSTANT ? "constant" : k == FEINT_FIELD_CELL ? "per cell"
         : k == FEINT_FIELD_NODE    ? "nodal"
                                    : "nodal per group";
}

int feint_form_same_layout(const feint_form *a, const feint_form *b, char *why, size_t why_size) {
  char none[1];
  if (!why || !why_size) why = none, why_size = sizeof none;
  if (a->physics != b->physics || a->dim != b->dim || a->nc != b->nc || a->n_aux != b->n_aux ||
      (a->user && (a->user->n_symbols != b->user->n_symbols || a->user->terms != b->user->terms))) {
    snprintf(why, why_size, "the physics or its components changed");
    return 0;
  }
  for (int k = 0; k < a->n_aux; k++)
    if (a->aux[k].kind != b->aux[k].kind) {
      snprintf(why, why_size, "coefficient field %d changed from %s to %s", k, field_kind_name(a->aux[k].kind),
               field_kind_name(b->aux[k].kind));
      return 0;
    }
  /* the rules follow from the degrees on the same space */
  int same_rules = a->quadrature_degree == b->quadrature_degree &&
                   a->matrix_quadrature_degree == b->matrix_quadrature_degree && a->n_blocks == b->n_blocks &&
                   !a->matrix_quadrature == !b->matrix_quadrature;
  for (int k = 0; k < a->n_blocks && same_rules; k++)
    same_rules = a->block_rule[k].degree == b->block_rule[k].degree &&
                 a->block_matrix_rule[k].degree == b->block_matrix_rule[k].degree;
  for (int k = 0; k < FEINT_MESH_MAX_BLOCKS && same_rules; k++)
    same_rules = a->straight_rule[k].degree == b->straight_rule[k].degree &&
                 a->straight_matrix_rule[k].degree == b->straight_matrix_rule[k].degree;
  if (!same_rules) {
    snprintf(why, why_size, "the quadrature degree changed (%d to %d)", a->quadrature_degree, b->quadrature_degree);
    return 0;
  }
  return 1;
}
