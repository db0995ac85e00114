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

/* The symbol of component c's value (d < 0) or of its derivative along d. */
static int field_symbol(int c, int d) { return FEINT_FORM_SYM_U + 4 * c + 1 + d; }

int feint_user_form_create(const feint_case *c, int dim, feint_user_form **out) {
  *out = NULL;
  const feint_case_form *cf = &c->form;
  const char *const *sym = (const char *const *)cf->symbols;
  const int nc = cf->nc;
  FEINT_CALL(check_count(&cf->f1[0], cf->n_f1, dim, "f1", dim));
  FEINT_CALL(check_count(&cf->g1[0], cf->n_g1, dim, "g1", dim));
  FEINT_CALL(check_count(&cf->g2[0], cf->n_g2, dim, "g2", dim));
  if (cf->n_g3 && cf->n_g3 != dim)
    return feint_error_set(FEINT_ERR_INPUT, "%s: physics.g3 needs %d x %d expressions on this %dD mesh, got %d x %d",
                           cf->g3[0].where, dim, dim, dim, cf->n_g3, cf->n_g3);
  feint_user_form *uf = NULL;
  FEINT_CALL(feint_calloc(1, sizeof *uf, &uf, "user form"));
  uf->dim = dim;
  uf->nc = nc;
  uf->n_symbols = cf->n_symbols;
  uf->n_coefficients = cf->n_coefficients;
  uf->n_parameters = cf->n_parameters;
  uf->first_coefficient = cf->first_coefficient;
  int s = feint_calloc((size_t)cf->n_parameters + 1, sizeof *uf->parameters, &uf->parameters, "form parameters");
  if (!s) s = feint_calloc((size_t)cf->n_symbols, 1, &uf->reads, "form symbols");
  for (int k = 0; !s && k < cf->n_parameters; k++) uf->parameters[k] = cf->parameters[k];
  for (int fc = 0; !s && fc < nc; fc++) {
    s = parse(cf, &cf->f0[fc], &uf->f0[fc]);
    for (int d = 0; !s && d < dim; d++) s = parse(cf, &cf->f1[fc * 3 + d], &uf->f1[fc * dim + d]);
  }
  /* each block given (scalar fields) replaces its derivation */
  const feint_case_expr none = {NULL, ""};
  for (int fc = 0; !s && fc < nc; fc++) {
    char f0key[16];
    snprintf(f0key, sizeof f0key, nc == 1 ? "f0" : "f0[%d]", fc);
    const feint_case_expr *f0text = cf->n_f0 ? &cf->f0[fc] : &none;
    for (int gc = 0; !s && gc < nc; gc++) {
      const int fg = fc * nc + gc;
      char block[48], key[32];
      snprintf(block, sizeof block, nc == 1 ? "g0" : "g0[%d][%d]", fc, gc);
      s = cf->g0.text ? parse(cf, &cf->g0, &uf->g0[fg])
                      : derive(uf->f0[fc], field_symbol(gc, -1), f0text, f0key, block, sym, &uf->g0[fg]);
      for (int d = 0; !s && d < dim; d++) {
        const int k = fg * dim + d;
        const feint_case_expr *f1text = cf->n_f1 ? &cf->f1[fc * 3 + d] : &none;
        snprintf(key, sizeof key, nc == 1 ? "f1[%d]" : "f1[%d][%d]", nc == 1 ? d : fc, d);
        snprintf(block, sizeof block, "g1[%d]", k);
        s = cf->n_g1 ? parse(cf, &cf->g1[d], &uf->g1[k])
                     : derive(uf->f0[fc], field_symbol(gc, d), f0text, f0key, block, sym, &uf->g1[k]);
        snprintf(block, sizeof block, "g2[%d]", k);
        if (!s)
          s = cf->n_g2 ? parse(cf, &cf->g2[d], &uf->g2[k])
                       : derive(uf->f1[fc * dim + d], field_symbol(gc, -1), f1text, key, block, sym, &uf->g2[k]);
        for (int e = 0; !s && e < dim; e++) {
          snprintf(block, sizeof block, "g3[%d]", k * dim + e);
          s = cf->n_g3 ? parse(cf, &cf->g3[d * dim + e], &uf->g3[k * dim + e])
                       : derive(uf->f1[fc * dim + d], field_symbol(gc, e), f1text, key, block, sym,
                                &uf->g3[k * dim + e]);
        }
      }
    }
  }
  if (s) {
    feint_user_form_destroy(uf);
    return s;
  }
  /* which blocks are present, and which symbols the backend must fill */
  feint_expr *const *blocks[4] = {uf->g0, uf->g1, uf->g2, uf->g3};
  const int sizes[4] = {9, 27, 27, 81};
  for (int b = 0; b < 4; b++)
    for (int k = 0; k < sizes[b]; k++) {
      const feint_expr *e = blocks[b][k];
      if (!e) continue;
      uf->terms |= 1 << b;
      for (int i = FEINT_FORM_SYM_U; i < uf->first_coefficient; i++) uf->nonlinear |= feint_expr_uses(e, i);
      for (int i = 0; i < uf->n_symbols; i++) uf->reads[i] |= (unsigned char)feint_expr_uses(e, i);
    }
  for (int k = 0; k < 9; k++)
    for (int i = 0; i < uf->n_symbols; i++) {
      if (k < 3 && uf->f0[k]) uf->reads[i] |= (unsigned char)feint_expr_uses(uf->f0[k], i);
      if (uf->f1[k]) uf->reads[i] |= (unsigned char)feint_expr_uses(uf->f1[k], i);
    }
  *out = uf;
  return FEINT_OK;
}

void feint_user_form_destroy(feint_user_form *uf) {
  if (!uf) return;
  for (int k = 0; k < 81; k++) {
    if (k < 3) feint_expr_destroy(uf->f0[k]);
    if (k < 9) feint_expr_destroy(uf->f1[k]);
    if (k < 9) feint_expr_destroy(uf->g0[k]);
    if (k < 27) feint_expr_destroy(uf->g1[k]);
    if (k < 27) feint_expr_destroy(uf->g2[k]);
    feint_expr_destroy(uf->g3[k]);
  }
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

/* Every entry of one block (n per point) at the n points. */
static void eval_block(feint_expr *const *block, int size, int n, const double *sym, int n_sym, double *out) {
  for (int k = 0; k < size; k++) eval_batch(block[k], n, sym, n_sym, out + k, size);
}

void feint_user_form_residual(const feint_user_form *uf, int n, const double *sym, double *f0, double *f1) {
  const int dim = uf->dim, nc = uf->nc, ns = uf->n_symbols;
  eval_block(uf->f0, nc, n, sym, ns, f0);
  eval_block(uf->f1, nc * dim, n, sym, ns, f1);
}

void feint_user_form_jacobian(const feint_user_form *uf, int n, const double *sym, double *g0, double *g1,
                              double *g2, double *g3) {
  const int dim = uf->dim, nn = uf->nc * uf->nc, ns = uf->n_symbols;
  if (uf->terms & 1) eval_block(uf->g0, nn, n, sym, ns, g0);
  if (uf->terms & 2) eval_block(uf->g1, nn * dim, n, sym, ns, g1);
  if (uf->terms & 4) eval_block(uf->g2, nn * dim, n, sym, ns, g2);
  if (uf->terms & 8) eval_block(uf->g3, nn * dim * dim, n, sym, ns, g3);
}
