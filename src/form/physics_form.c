/* The built-in physics kinds as user forms (feint/physics_form.h): each
 * kind's f0 and f1 as expression texts in the order of physics.h's sums
 * (f0 from -f, the kind's terms added left to right; a sum that starts
 * at 0 in physics.h starts at its first term here, which rounds alike),
 * parsed by the user-form parser. */
#include "feint/physics_form.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feint/error.h"

#define MAX_NAMES (3 + 4 * 3 + 4 * 10) /* x y z, 3 components, up to 10 coefficients (3D diffusion) */
#define NAME_LEN 32
#define TEXT_LEN 160

typedef struct {
  char names[MAX_NAMES][NAME_LEN];
  char *symbols[MAX_NAMES];
  char f0[3][TEXT_LEN], f1[9][TEXT_LEN];
  int n;
} form_texts;

/* The next symbol's name: a followed by suffix b (names are short: the
 * copy stops at NAME_LEN - 1 characters). */
static void name(form_texts *t, const char *a, const char *b) {
  char *out = t->names[t->n];
  size_t n = 0;
  for (const char *p = a; *p && n + 1 < NAME_LEN; p++) out[n++] = *p;
  for (const char *p = b; *p && n + 1 < NAME_LEN; p++) out[n++] = *p;
  out[n] = 0;
  t->symbols[t->n] = out;
  t->n++;
}

/* u's component c, and its derivative along axis d (d < 0: the value). */
static void field(int nc, int c, int d, char *out) {
  static const char *const axis[3] = {"x", "y", "z"};
  char base[16];
  snprintf(base, sizeof base, nc == 1 ? "u" : "u%d", c);
  if (d < 0)
    snprintf(out, NAME_LEN, "%s", base);
  else
    snprintf(out, NAME_LEN, "%s_%s", base, axis[d]);
}

int feint_physics_user_form(int physics, int dim, int nc, feint_user_form **out) {
  *out = NULL;
  if (dim < 2 || dim > 3 || nc < 1 || nc > 3 || (physics == FEINT_PW_ELASTICITY && nc != dim))
    return feint_error_set(FEINT_ERR_INPUT, "built-in physics %d as a form: dimension %d, %d components", physics,
                           dim, nc);
  static const char *const axis[3] = {"x", "y", "z"};
  form_texts *t = NULL;
  FEINT_CALL(feint_calloc(1, sizeof *t, &t, "built-in form"));
  for (int a = 0; a < 3; a++) name(t, axis[a], "");
  for (int c = 0; c < nc; c++)
    for (int d = -1; d < 3; d++) {
      char f[NAME_LEN];
      field(nc, c, d, f);
      name(t, f, "");
    }
  /* the coefficients in the kind's aux order (physics.h) */
  char coef[10][NAME_LEN];
  int n_coef = 0;
  switch (physics) {
    case FEINT_PW_POISSON: snprintf(coef[n_coef++], NAME_LEN, "kappa"); break;
    case FEINT_PW_HELMHOLTZ:
      snprintf(coef[n_coef++], NAME_LEN, "kappa");
      snprintf(coef[n_coef++], NAME_LEN, "lambda");
      break;
    case FEINT_PW_ELASTICITY:
      snprintf(coef[n_coef++], NAME_LEN, "lam");
      snprintf(coef[n_coef++], NAME_LEN, "mu");
      break;
    case FEINT_PW_ADVECTION:
      for (int d = 0; d < dim; d++) snprintf(coef[n_coef++], NAME_LEN, "b%d", d);
      break;
    case FEINT_PW_DIFFUSION:
      for (int d = 0; d < dim; d++)
        for (int e = 0; e < dim; e++) snprintf(coef[n_coef++], NAME_LEN, "K%d%d", d, e);
      break;
    default: break;
  }
  const int source = n_coef; /* feint_physics_source_offset */
  if (physics == FEINT_PW_ELASTICITY)
    for (int c = 0; c < nc; c++) snprintf(coef[n_coef++], NAME_LEN, "f%s", axis[c]);
  else
    snprintf(coef[n_coef++], NAME_LEN, "f");
  const int first_coefficient = t->n;
  for (int k = 0; k < n_coef; k++)
    for (int d = -1; d < 3; d++) name(t, coef[k], d < 0 ? "" : d == 0 ? "_x" : d == 1 ? "_y" : "_z");
  /* f0: -f, then the kind's terms */
  for (int c = 0; c < nc; c++) {
    char *s = t->f0[c], u[NAME_LEN];
    snprintf(s, TEXT_LEN, "-%.30s", coef[source + (physics == FEINT_PW_ELASTICITY ? c : 0)]);
    field(nc, c, -1, u);
    if (physics == FEINT_PW_MASS) snprintf(s + strlen(s), TEXT_LEN - strlen(s), " + %s", u);
    if (physics == FEINT_PW_HELMHOLTZ) snprintf(s + strlen(s), TEXT_LEN - strlen(s), " + lambda*%s", u);
    if (physics == FEINT_PW_ADVECTION)
      for (int d = 0; d < dim; d++) {
        char g[NAME_LEN];
        field(nc, c, d, g);
        snprintf(s + strlen(s), TEXT_LEN - strlen(s), " + b%d*%s", d, g);
      }
  }
  /* f1 */
  int has_f1 = 0;
  for (int c = 0; c < nc; c++)
    for (int d = 0; d < dim; d++) {
      char *s = t->f1[c * 3 + d], g[NAME_LEN], h[NAME_LEN];
      field(nc, c, d, g);
      if (physics == FEINT_PW_POISSON || physics == FEINT_PW_HELMHOLTZ) {
        snprintf(s, TEXT_LEN, "kappa*%s", g);
      } else if (physics == FEINT_PW_DIFFUSION) {
        for (int e = 0; e < dim; e++) {
          field(nc, c, e, h);
          snprintf(s + strlen(s), TEXT_LEN - strlen(s), "%sK%d%d*%s", e ? " + " : "", d, e, h);
        }
      } else if (physics == FEINT_PW_ELASTICITY) {
        field(nc, d, c, h); /* grad u transposed: d u_d / d x_c */
        snprintf(s, TEXT_LEN, "mu*(%s + %s)", g, h);
        if (c == d) {
          snprintf(s + strlen(s), TEXT_LEN - strlen(s), " + lam*(");
          for (int e = 0; e < dim; e++) {
            field(nc, e, e, h);
            snprintf(s + strlen(s), TEXT_LEN - strlen(s), "%s%s", e ? " + " : "", h);
          }
          snprintf(s + strlen(s), TEXT_LEN - strlen(s), ")");
        }
      }
      has_f1 |= s[0] != 0;
    }
  feint_case *c = NULL;
  int status = feint_calloc(1, sizeof *c, &c, "built-in form");
  if (!status) {
    feint_case_form *cf = &c->form;
    cf->nc = nc;
    cf->n_f0 = nc;
    cf->n_f1 = has_f1 ? dim : 0;
    for (int k = 0; k < nc; k++) {
      cf->f0[k].text = t->f0[k];
      snprintf(cf->f0[k].where, sizeof cf->f0[k].where, "built-in physics %d: f0", physics);
      for (int d = 0; has_f1 && d < dim; d++) {
        cf->f1[k * 3 + d].text = t->f1[k * 3 + d];
        snprintf(cf->f1[k * 3 + d].where, sizeof cf->f1[k * 3 + d].where, "built-in physics %d: f1", physics);
      }
    }
    cf->n_coefficients = n_coef;
    cf->first_coefficient = first_coefficient;
    cf->n_symbols = t->n;
    cf->symbols = t->symbols;
    status = feint_user_form_create(c, dim, out);
    free(c);
  }
  free(t);
  return status;
}

/* The geometry's shape values of cell at the n points (*out malloc'd):
 * the vertices' (n_geometry_nodes 0), or a curved cell's n_geometry_nodes. */
static int vertex_values(int n_geometry_nodes, feint_cell_type cell, const feint_quadrature *q, double **out) {
  const int ng = feint_cell_geometry_nodes(cell, n_geometry_nodes);
  FEINT_CALL(feint_malloc((size_t)q->n * (size_t)ng, sizeof(double), out, "geometry table"));
  feint_cell_geometry_shape(cell, n_geometry_nodes, q->n, q->points, *out, NULL);
  return FEINT_OK;
}

int feint_physics_form_view(const feint_form *f, const feint_mesh *m, feint_form **out) {
  *out = NULL;
  feint_form *v = NULL;
  FEINT_CALL(feint_calloc(1, sizeof *v, &v, "built-in form as a user form"));
  *v = *f;
  v->user = NULL;
  v->geometry_value = v->matrix_geometry_value = NULL;
  for (int b = 0; b < FEINT_MESH_MAX_BLOCKS; b++) { /* each block's rules (a mixed or curved mesh), made here */
    v->block_rule[b].geometry_value = v->block_matrix_rule[b].geometry_value = NULL;
    v->straight_rule[b].geometry_value = v->straight_matrix_rule[b].geometry_value = NULL;
  }
  const int ng = m->blocks[0].n_geometry_nodes;
  int status = feint_physics_user_form(f->physics, f->dim, f->nc, &v->user);
  if (!status && f->quadrature) status = vertex_values(ng, m->cell_type, f->quadrature, &v->geometry_value);
  if (!status && f->matrix_quadrature)
    status = vertex_values(ng, m->cell_type, f->matrix_quadrature, &v->matrix_geometry_value);
  for (int b = 0; b < f->n_blocks && !status; b++) {
    const int bng = m->blocks[b].n_geometry_nodes;
    status = vertex_values(bng, m->blocks[b].cell_type, f->block_rule[b].quadrature, &v->block_rule[b].geometry_value);
    if (!status)
      status = vertex_values(bng, m->blocks[b].cell_type, f->block_matrix_rule[b].quadrature,
                             &v->block_matrix_rule[b].geometry_value);
  }
  for (int b = 0; b < m->n_blocks && !status; b++) { /* a curved mesh's affine cells: the vertices' */
    if (f->straight_rule[b].quadrature)
      status = vertex_values(0, m->blocks[b].cell_type, f->straight_rule[b].quadrature,
                             &v->straight_rule[b].geometry_value);
    if (!status && f->straight_matrix_rule[b].quadrature)
      status = vertex_values(0, m->blocks[b].cell_type, f->straight_matrix_rule[b].quadrature,
                             &v->straight_matrix_rule[b].geometry_value);
  }
  if (status) {
    feint_physics_form_view_destroy(v);
    return status;
  }
  v->physics = FEINT_PHYSICS_FORM;
  *out = v;
  return FEINT_OK;
}

void feint_physics_form_view_destroy(feint_form *v) {
  if (!v) return;
  feint_user_form_destroy(v->user);
  free(v->geometry_value);
  free(v->matrix_geometry_value);
  for (int b = 0; b < FEINT_MESH_MAX_BLOCKS; b++) {
    free(v->block_rule[b].geometry_value);
    free(v->block_matrix_rule[b].geometry_value);
    free(v->straight_rule[b].geometry_value);
    free(v->straight_matrix_rule[b].geometry_value);
  }
  free(v);
}
