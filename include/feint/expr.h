/* feint expressions: arithmetic in x, y, z for coefficients, sources and
 * states given as strings in the case file ("sin(pi*x)*y"), and over a
 * caller's table of named symbols for user-written weak forms (issue 19:
 * "(k0 + beta*u^2)*u_x"), with exact symbolic derivatives and C source for
 * the GPU's run-time compiler.
 *
 * Grammar, lowest to highest precedence (docs/expressions.md has it all):
 *   c ? a : b                conditional, right-associative: a?b:c?d:e is
 *                            a?b:(c?d:e); true when c != 0 (so nan is true)
 *   < <= > >= == !=          comparisons, 1 or 0; they do not chain
 *   + -                      left-associative
 *   * /                      left-associative
 *   -a +a                    unary
 *   ^                        power, right-associative, binds tighter than
 *                            unary minus: -x^2 == -(x^2), 2^3^2 == 2^9
 * and numbers, symbols, pi e, parentheses, and the functions
 * sin cos tan exp log sqrt abs tanh sinh cosh floor ceil sign (one
 * argument), pow min max atan2 (two), if(c, a, b) (== c ? a : b); fabs fmin
 * fmax are accepted for abs min max. sign(a) is 1, -1 or 0 (0 for nan).
 * Both branches of a conditional are evaluated and one is chosen, so a
 * nan or inf in the other one never reaches the result: "x > 0 ? log(x) :
 * 0" is 0 at x = 0.
 *
 * Parsed once into a small program, evaluated many times; evaluation is
 * reentrant (many threads may evaluate one expression). */
#ifndef FEINT_EXPR_H
#define FEINT_EXPR_H

#include <stddef.h>

typedef struct feint_expr feint_expr;

/* Parse `text` in the symbols x, y, z. On a syntax error returns
 * FEINT_ERR_INPUT with a message
 * "<where>: in expression "<text>": <what was expected> at character N"
 * (where = "case.yaml:12:9" or similar, may be NULL). */
int feint_expr_create(const char *text, const char *where, feint_expr **out);
void feint_expr_destroy(feint_expr *expr);

/* Value at the point (x, y, z). For an expression from
 * feint_expr_create_symbols its symbols 0, 1, 2 get x, y, z (nan if it has
 * more than 3 symbols). */
double feint_expr_eval(const feint_expr *expr, double x, double y, double z);

/* 1 if the expression uses none of its symbols (x, y, z). */
int feint_expr_is_constant(const feint_expr *expr);

/* Parse `text` over the symbols names[0 .. n_names): symbol i is the i-th
 * name. x, y, z are symbols only if they are in the table (a form lists
 * them; an expression over u alone need not); pi and e stay constants and
 * may not be names. A name is letters, digits and '_', not starting with a
 * digit, shorter than 64 bytes, and given once; otherwise FEINT_ERR_INPUT.
 * An unknown name is an error that suggests the nearest symbol:
 *   case.yaml:7:9: in expression "k0*u_X": unknown symbol "u_X" at
 *   character 4 (did you mean "u_x"?)
 * The table is not kept; names may be freed after the call. */
int feint_expr_create_symbols(const char *text, const char *where, const char *const *names,
                              int n_names, feint_expr **out);

/* Value with symbol i = values[i] (values may be NULL for a constant). */
double feint_expr_eval_values(const feint_expr *expr, const double *values);

/* The number of symbols of the table (3 for feint_expr_create). */
int feint_expr_n_symbols(const feint_expr *expr);

/* 1 if the expression reads symbol `symbol`. */
int feint_expr_uses(const feint_expr *expr, int symbol);

/* The number of instructions of the program (its cost; tests compare the
 * derivatives' with written-out ones). */
int feint_expr_length(const feint_expr *expr);

/* d expr / d symbol, exact, as a new expression over the same symbols,
 * simplified (constants folded, 0 and 1 of + - * / ^ dropped, constant
 * factors collected). abs, sign, floor, ceil, min, max, comparisons and
 * conditionals are differentiated piecewise: d abs(a) = sign(a)*a',
 * d min(a, b) = (a <= b ? a' : b'), d (c ? a : b) = (c ? a' : b'), floor,
 * ceil, sign and comparisons 0. FEINT_ERR_INPUT for a symbol outside the
 * table and when the derivative would be too large to evaluate (more than
 * 128 stack slots, 2000 levels or 10^6 instructions); the original is left
 * as it was. */
int feint_expr_derivative(const feint_expr *expr, int symbol, feint_expr **out);

/* The expression as one C expression (C99 <math.h>, double), every
 * operation parenthesised, symbol i written as symbols[i] (a C lvalue such
 * as "p->u[0]"), constants as %.17g double literals (inf and nan as 1.0/0.0
 * and 0.0/0.0), comparisons as ((a < b) ? 1.0 : 0.0), a^2 of a symbol or
 * constant as (a * a) (as evaluated here); the text reads back into this
 * language with the same values, bitwise. Written like snprintf: at most size bytes with the terminating NUL; *length (may be
 * NULL) gets the full length without it, so a call with size 0 measures.
 * FEINT_ERR_INPUT only when the expression is nested more than 2000 levels
 * deep; FEINT_ERR_COMPUTE when out of memory. */
int feint_expr_emit_c(const feint_expr *expr, const char *const *symbols, char *buf, size_t size,
                      size_t *length);

#endif
