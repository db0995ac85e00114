/* libFuzzer harness for the expression parser and evaluator (expr.h): each
 * input is an expression (cut at a NUL, as the case's strings are); one
 * that parses (into its folded postfix program) is evaluated at a few
 * points, and one said to be constant must give the same value at all of
 * them (abort otherwise, as a crash).
 * Built by `make fuzz-expr`; seeds in tests/fuzz/corpus/expr; crashes found
 * are kept in tests/fuzz/regress/expr, which t33-fuzz-regress.sh runs. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feint/error.h"
#include "feint/expr.h"

static const double points[][3] = {
    {0, 0, 0}, {1, 1, 1}, {-0.5, 0.25, 2}, {1e300, -1e-300, 3}, {NAN, INFINITY, -INFINITY}};

static int same(double a, double b) { return a == b || (isnan(a) && isnan(b)); }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  feint_expr *e = NULL;
  if (feint_expr_create(text, "fuzz:1:1", &e) == FEINT_OK) {
    const int n = (int)(sizeof points / sizeof points[0]);
    double v0 = feint_expr_eval(e, points[0][0], points[0][1], points[0][2]);
    for (int i = 1; i < n; i++) {
      double v = feint_expr_eval(e, points[i][0], points[i][1], points[i][2]);
      if (feint_expr_is_constant(e) && !same(v, v0)) {
        fprintf(stderr, "constant expression \"%s\" is %.17g at point 0, %.17g at point %d\n", text,
                v0, v, i);
        abort();
      }
    }
    feint_expr_destroy(e);
  }
  free(text);
  return 0;
}
