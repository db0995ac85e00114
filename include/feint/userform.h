/* feint user forms (issue 19, physics kind form): the case's pointwise
 * expressions f0, f1 and the Jacobian blocks g0..g3 of a field of 1..3
 * components,
 * parsed once (with the blocks not given derived exactly by
 * feint_expr_derivative) and evaluated by the host over batches of points.
 *
 * This is the host's evaluator beside physics.h's built-in switch: a
 * backend that runs a user form (the cpu backend) fills, for each point of
 * a batch, one row of symbol values in the order of feint_case_form's
 * table (x y z, each component's value and gradient, per coefficient its
 * value and gradient, the parameters: FEINT_FORM_SYM_*) and calls
 * feint_user_form_residual or feint_user_form_jacobian for the whole
 * batch, expression by expression. Output layouts are physics.h's per
 * point, the points one after the other: f0[q*nc + c], f1[q*nc*dim +
 * c*dim + d], g0[q*nc*nc + fc*nc + gc], g1 and g2 [q*nc*nc*dim + (fc*nc +
 * gc)*dim + d], g3[q*nc*nc*dim*dim + ((fc*nc + gc)*dim + d)*dim + e]. */
#ifndef FEINT_USERFORM_H
#define FEINT_USERFORM_H

#include "feint/case.h"
#include "feint/expr.h"

typedef struct feint_user_form {
  int dim, nc;
  int n_symbols, n_coefficients, n_parameters;
  int first_coefficient; /* symbol of the first coefficient's value */
  double *parameters;   /* n_parameters values (copied from the case) */
  feint_expr *f0[3];    /* f0[c], NULL = 0 */
  feint_expr *f1[9];    /* f1[c*dim + d], NULL = 0 */
  /* NULL = identically 0; layouts as the outputs' for one point */
  feint_expr *g0[9], *g1[27], *g2[27], *g3[81];
  int terms;            /* bit k: block gk has a nonzero entry (feint_physics_jacobian_terms' bits) */
  int nonlinear;        /* a block reads u or grad u */
  unsigned char *reads; /* n_symbols: 1 if some expression reads the symbol */
} feint_user_form;

/* Parse the form of case c (physics kind form) for a mesh of dimension
 * dim: each row of f1 must have dim entries, given g1/g2 dim and g3 dim x
 * dim. Errors (FEINT_ERR_INPUT) name the key's file:line:column. */
int feint_user_form_create(const feint_case *c, int dim, feint_user_form **out);
void feint_user_form_destroy(feint_user_form *uf);

/* Symbol index of coefficient k's value (its gradient follows) and of
 * the first parameter. */
static inline int feint_user_form_coefficient_symbol(const feint_user_form *uf, int k) {
  return uf->first_coefficient + 4 * k;
}
static inline int feint_user_form_parameter_symbol(const feint_user_form *uf) {
  return uf->first_coefficient + 4 * uf->n_coefficients;
}

/* f0 and f1 at n points; sym holds n rows of n_symbols values. */
void feint_user_form_residual(const feint_user_form *uf, int n, const double *sym, double *f0, double *f1);

/* The blocks of uf->terms at n points (an absent entry of a present block
 * is 0; absent blocks are not written). */
void feint_user_form_jacobian(const feint_user_form *uf, int n, const double *sym, double *g0, double *g1,
                              double *g2, double *g3);

#endif
