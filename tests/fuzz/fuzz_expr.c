/* libFuzzer harness for the expression module (expr.h): each input is an
 * expression (cut at a NUL, as the case's strings are), parsed twice: in x,
 * y, z (feint_expr_create) and over a table of form symbols
 * (feint_expr_create_symbols). One that parses (into its folded postfix
 * program) is evaluated at a few points; one said to be constant must give
 * the same value at all of them. Over the symbols, its derivative in u and
 * in the symbol the input's length picks must be an expression (or a
 * "too deeply nested" / "too long" error), the constant 0 when the
 * expression does not read that symbol; the expression and its derivative
 * written as C (feint_expr_emit_c, the symbols' names as their C text) must
 * read back, bitwise the same at every point (or be refused as too deeply
 * nested by the parser). Any other outcome aborts, as a crash.
 * Built by `make fuzz-expr`; seeds in tests/fuzz/corpus/expr; crashes found
 * are kept in tests/fuzz/regress/expr, which t33-fuzz-regress.sh runs. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feint/error.h"
#include "feint/expr.h"

#define N_NAMES 6
static const char *const names[N_NAMES] = {"x", "y", "z", "u", "u_x", "k0"};
static const double points[][N_NAMES] = {{0, 0, 0, 0, 0, 0},
                                         {1, 1, 1, 1, 1, 1},
                                         {-0.5, 0.25, 2, 0.75, -3, 1.5},
                                         {1e300, -1e-300, 3, -0.0, 7, 1e-310},
                                         {NAN, INFINITY, -INFINITY, 2, NAN, -1}};
#define N_POINTS (int)(sizeof points / sizeof points[0])
/* derivatives longer than this are evaluated, not written as C */
#define MAX_EMITTED 100000

static int same(double a, double b) { return a == b || (isnan(a) && isnan(b)); }
static int same_bits(double a, double b) {
  return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0;
}

static void fail(const char *what, const char *text, const char *detail) {
  fprintf(stderr, "%s: \"%s\": %s\n", what, text, detail);
  abort();
}

/* A value at every point; a constant one the same at all. */
static void evaluate(const feint_expr *e, int legacy, const char *text) {
  double v0 = NAN;
  for (int i = 0; i < N_POINTS; i++) {
    const double *p = points[i];
    double v = legacy ? feint_expr_eval(e, p[0], p[1], p[2]) : feint_expr_eval_values(e, p);
    if (i == 0) v0 = v;
    if (feint_expr_is_constant(e) && !same(v, v0)) {
      char msg[128];
      snprintf(msg, sizeof msg, "%.17g at point 0, %.17g at point %d", v0, v, i);
      fail("constant expression varies", text, msg);
    }
  }
}

/* e as C, read back over the same symbols: the same bits everywhere. */
static void round_trip(const feint_expr *e, int legacy, const char *text) {
  size_t len;
  int s = feint_expr_emit_c(e, names, NULL, 0, &len);
  if (s == FEINT_ERR_INPUT && strstr(feint_error_message(), "too deeply nested")) return;
  if (s) fail("emit_c failed", text, feint_error_message());
  char *c = malloc(len + 1);
  if (!c) return;
  size_t len2;
  if (feint_expr_emit_c(e, names, c, len + 1, &len2) || len2 != len || strlen(c) != len)
    fail("emit_c wrote another length", text, c);
  feint_expr *back = NULL;
  s = legacy ? feint_expr_create(c, "C", &back)
             : feint_expr_create_symbols(c, "C", names, N_NAMES, &back);
  if (s == FEINT_ERR_INPUT && strstr(feint_error_message(), "too deeply nested")) {
    free(c);
    return;
  }
  if (s) fail("C text does not read back", text, feint_error_message());
  for (int i = 0; i < N_POINTS; i++) {
    const double *p = points[i];
    const double a = legacy ? feint_expr_eval(e, p[0], p[1], p[2]) : feint_expr_eval_values(e, p);
    const double b =
        legacy ? feint_expr_eval(back, p[0], p[1], p[2]) : feint_expr_eval_values(back, p);
    if (!same_bits(a, b)) {
      fprintf(stderr, "C text %s: %.17g, read back %.17g at point %d\n", c, a, b, i);
      fail("C text reads back another value", text, c);
    }
  }
  feint_expr_destroy(back);
  free(c);
}

static void derive(const feint_expr *e, int k, const char *text) {
  feint_expr *d = NULL;
  int s = feint_expr_derivative(e, k, &d);
  if (s == FEINT_ERR_INPUT && (strstr(feint_error_message(), "too deeply nested") ||
                               strstr(feint_error_message(), "too long"))) {
    if (d) fail("derivative: output on error", text, "");
    return;
  }
  if (s) fail("derivative failed", text, feint_error_message());
  evaluate(d, 0, text);
  if (!feint_expr_uses(e, k) &&
      (!feint_expr_is_constant(d) || feint_expr_eval_values(d, points[0]) != 0))
    fail("derivative in an unused symbol is not the constant 0", text, names[k]);
  if (feint_expr_length(d) <= MAX_EMITTED) round_trip(d, 0, text);
  feint_expr_destroy(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  feint_expr *e = NULL;
  if (feint_expr_create(text, "fuzz:1:1", &e) == FEINT_OK) {
    evaluate(e, 1, text);
    round_trip(e, 1, text);
    feint_expr_destroy(e);
  }
  if (feint_expr_create_symbols(text, "fuzz:1:1", names, N_NAMES, &e) == FEINT_OK) {
    evaluate(e, 0, text);
    round_trip(e, 0, text);
    derive(e, 3, text);
    derive(e, (int)(size % N_NAMES), text);
    feint_expr_destroy(e);
  }
  free(text);
  return 0;
}
