/* User forms (physics kind form): the case's expressions parsed once over
 * the form's symbols, the Jacobian blocks not given derived from f0/f1,
 * and their evaluation over batches of points (include/feint/userform.h). */
#include "feint/userform.h"

#include <stdio.h>
#include <stdlib.h>

#include "feint/error.h"

/* 1 if e is the constant 0 (a block entry that can be dropped). */
static int is_zero(const feint_expr *e) {
  return feint_expr_is_constant(e) && feint_expr_eval_values(e, NULL) == 0.0;
}

/* Parse a given expression into *out (NULL when it is not given or 0). */
static int parse(const feint_case_form *cf, const feint_case_expr *ce, feint_expr **out) {
  *out = NULL;
  if (!ce->text) return FEINT_OK;
  feint_expr *e = NULL;
  FEINT_CALL(feint_expr_create_symbols(ce->text, ce->where, (const char *const *)cf->symbols, cf->n_symbols, &e));
  if (is_zero(e))
    feint_expr_destroy(e);
  else
    *out = e;
  return FEINT_OK;
}

/* *out = d e / d symbol (NULL when e is NULL or the derivative is 0). The
 * message of a failure names the expression it came from. */
static int derive(const feint_expr *e, int symbol, const feint_case_expr *from, const char *key, const char *block,
                  const char *const *symbols, feint_expr **out) {
  *out = NULL;
  if (!e) return FEINT_OK;
  feint_expr *d = NULL;
  if (feint_expr_derivative(e, symbol, &d))
    return feint_error_set(FEINT_ERR_INPUT, "%s: deriving %s = d %s / d %s from \"%s\": %s", from->where, block, key,
                           symbols[symbol], from->text, feint_error_message());
  if (is_zero(d))
    feint_expr_destroy(d);
  else
    *out = d;
  return FEINT_OK;
}

/* A list of dim expressions, or none. */
static int check_count(const feint_case_expr *first, int n, int want, const char *key, int dim) {
  if (n == 0 || n == want) return FEINT_OK;
  return feint_error_set(FEINT_ERR_INPUT, "%s: physics.%s needs %d %s on this %dD mesh (one per direction), got %d",
                         first->where, key, want, want == 1 ? "expression" : "expressions", dim, n);
}

int feint_user_form_create(const feint_case *c, int dim, feint_user_form **out) {
  *out = NULL;
  const feint_case_form *cf = &c->form;
  const char *const *sym = (const char *const *)cf->symbols;
  FEINT_CALL(check_count(&cf->f1[0], cf->n_f1, dim, "f1", dim));
  FEINT_CALL(check_count(&cf->g1[0], cf->n_g1, dim, "g1", dim));
  FEINT_CALL(check_count(&cf->g2[0], cf->n_g2, dim, "g2", dim));
  if (cf->n_g3 && cf->n_g3 != dim)
    return feint_error_set(FEINT_ERR_INPUT, "%s: physics.g3 needs %d x %d expressions on this %dD mesh, got %d x %d",
                           cf->g3[0].where, dim, dim, dim, cf->n_g3, cf->n_g3);
  feint_user_form *uf = NULL;
  FEINT_CALL(feint_calloc(1, sizeof *uf, &uf, "user form"));
  uf->dim = dim;
  uf->n_symbols = cf->n_symbols;
  uf->n_coefficients = cf->n_coefficients;
  uf->n_parameters = cf->n_parameters;
  int s = feint_calloc((size_t)cf->n_parameters + 1, sizeof *uf->parameters, &uf->parameters, "form parameters");
  if (!s) s = feint_calloc((size_t)cf->n_symbols, 1, &uf->reads, "form symbols");
  for (int k = 0; !s && k < cf->n_parameters; k++) uf->parameters[k] = cf->parameters[k];
  if (!s) s = parse(cf, &cf->f0, &uf->f0);
  for (int d = 0; !s && d < dim; d++) s = parse(cf, &cf->f1[d], &uf->f1[d]);
  /* each block given replaces its derivation */
  const feint_case_expr none = {NULL, ""};
  if (!s) s = cf->g0.text ? parse(cf, &cf->g0, &uf->g0) : derive(uf->f0, FEINT_FORM_SYM_U, &cf->f0, "f0", "g0", sym, &uf->g0);
  for (int d = 0; !s && d < dim; d++) {
    char key[32], block[32];
    snprintf(key, sizeof key, "f1[%d]", d);
    snprintf(block, sizeof block, "g1[%d]", d);
    s = cf->n_g1 ? parse(cf, &cf->g1[d], &uf->g1[d])
                 : derive(uf->f0, FEINT_FORM_SYM_GRADU + d, &cf->f0, "f0", block, sym, &uf->g1[d]);
    snprintf(block, sizeof block, "g2[%d]", d);
    if (!s)
      s = cf->n_g2 ? parse(cf, &cf->g2[d], &uf->g2[d])
                   : derive(uf->f1[d], FEINT_FORM_SYM_U, cf->n_f1 ? &cf->f1[d] : &none, key, block, sym, &uf->g2[d]);
    for (int e = 0; !s && e < dim; e++) {
      snprintf(block, sizeof block, "g3[%d][%d]", d, e);
      s = cf->n_g3 ? parse(cf, &cf->g3[d * dim + e], &uf->g3[d * dim + e])
                   : derive(uf->f1[d], FEINT_FORM_SYM_GRADU + e, cf->n_f1 ? &cf->f1[d] : &none, key, block, sym,
                            &uf->g3[d * dim + e]);
    }
  }
  if (s) {
    feint_user_form_destroy(uf);
    return s;
  }
  /* which blocks are present, and which symbols the backend must fill */
  feint_expr *blocks[4][9] = {{uf->g0}, {NULL}, {NULL}, {NULL}};
  for (int k = 0; k < dim; k++) blocks[1][k] = uf->g1[k], blocks[2][k] = uf->g2[k];
  for (int k = 0; k < dim * dim; k++) blocks[3][k] = uf->g3[k];
  for (int b = 0; b < 4; b++)
    for (int k = 0; k < 9; k++) {
      const feint_expr *e = blocks[b][k];
      if (!e) continue;
      uf->terms |= 1 << b;
      for (int i = FEINT_FORM_SYM_U; i < FEINT_FORM_SYM_COEFFICIENTS; i++) uf->nonlinear |= feint_expr_uses(e, i);
    }
  const feint_expr *all[] = {uf->f0, uf->f1[0], uf->f1[1], uf->f1[2], uf->g0, uf->g1[0], uf->g1[1], uf->g1[2],
                             uf->g2[0], uf->g2[1], uf->g2[2], uf->g3[0], uf->g3[1], uf->g3[2], uf->g3[3],
                             uf->g3[4], uf->g3[5], uf->g3[6], uf->g3[7], uf->g3[8]};
  for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
    for (int i = 0; all[k] && i < uf->n_symbols; i++) uf->reads[i] |= (unsigned char)feint_expr_uses(all[k], i);
  *out = uf;
  return FEINT_OK;
}

void feint_user_form_destroy(feint_user_form *uf) {
  if (!uf) return;
  feint_expr_destroy(uf->f0);
  feint_expr_destroy(uf->g0);
  for (int k = 0; k < 3; k++) {
    feint_expr_destroy(uf->f1[k]);
    feint_expr_destroy(uf->g1[k]);
    feint_expr_destroy(uf->g2[k]);
  }
  for (int k = 0; k < 9; k++) feint_expr_destroy(uf->g3[k]);
  free(uf->parameters);
  free(uf->reads);
  free(uf);
}

/* out[q * stride] = e at the n points (0 where e is NULL): one expression
 * over the whole batch, so its program stays in the cache. */
static void eval_batch(const feint_expr *e, int n, const double *sym, int n_sym, double *out, int stride) {
  if (!e) {
    for (int q = 0; q < n; q++) out[q * stride] = 0;
    return;
  }
  for (int q = 0; q < n; q++) out[q * stride] = feint_expr_eval_values(e, sym + (size_t)q * n_sym);
}

void feint_user_form_residual(const feint_user_form *uf, int n, const double *sym, double *f0, double *f1) {
  const int dim = uf->dim, ns = uf->n_symbols;
  eval_batch(uf->f0, n, sym, ns, f0, 1);
  for (int d = 0; d < dim; d++) eval_batch(uf->f1[d], n, sym, ns, f1 + d, dim);
}

void feint_user_form_jacobian(const feint_user_form *uf, int n, const double *sym, double *g0, double *g1,
                              double *g2, double *g3) {
  const int dim = uf->dim, ns = uf->n_symbols;
  if (uf->terms & 1) eval_batch(uf->g0, n, sym, ns, g0, 1);
  for (int d = 0; d < dim; d++) {
    if (uf->terms & 2) eval_batch(uf->g1[d], n, sym, ns, g1 + d, dim);
    if (uf->terms & 4) eval_batch(uf->g2[d], n, sym, ns, g2 + d, dim);
    for (int e = 0; e < dim && (uf->terms & 8); e++) eval_batch(uf->g3[d * dim + e], n, sym, ns, g3 + d * dim + e, dim * dim);
  }
}
