/* feint expressions: arithmetic in x, y, z for coefficients, sources and
 * states given as strings in the case file ("sin(pi*x)*y").
 *
 * Grammar: numbers, x y z, pi e, + - * / ^ (right-associative power, binds
 * tighter than unary minus: -x^2 == -(x^2)), parentheses, and the functions
 * sin cos tan exp log sqrt abs tanh (one argument), pow min max atan2 (two).
 * Parsed once into a small program, evaluated many times. */
#ifndef FEINT_EXPR_H
#define FEINT_EXPR_H

typedef struct feint_expr feint_expr;

/* Parse `text`. On a syntax error returns FEINT_ERR_INPUT with a message
 * "<where>: in expression "<text>": <what was expected> at character N"
 * (where = "case.yaml:12:9" or similar, may be NULL). */
int feint_expr_create(const char *text, const char *where, feint_expr **out);
void feint_expr_destroy(feint_expr *expr);

/* Value at the point (x, y, z). */
double feint_expr_eval(const feint_expr *expr, double x, double y, double z);

/* 1 if the expression uses none of x, y, z. */
int feint_expr_is_constant(const feint_expr *expr);

#endif
