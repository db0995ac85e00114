/* Expressions: precedence, associativity, functions, constants, errors. */
#include <string.h>

#include "check.h"
#include "feint/error.h"
#include "feint/expr.h"

static double ev(const char *text, double x, double y, double z) {
  feint_expr *e;
  CHECK_OK(feint_expr_create(text, "test", &e));
  double v = feint_expr_eval(e, x, y, z);
  feint_expr_destroy(e);
  return v;
}

static int is_const(const char *text) {
  feint_expr *e;
  CHECK_OK(feint_expr_create(text, NULL, &e));
  int c = feint_expr_is_constant(e);
  feint_expr_destroy(e);
  return c;
}

/* Expect a syntax error whose message contains `what` and "at character N". */
static void bad(const char *text, const char *what, int pos) {
  feint_expr *e = (feint_expr *)0x1;
  int s = feint_expr_create(text, "case.yaml:3:7", &e);
  CHECK(s == FEINT_ERR_INPUT, "\"%s\" should fail with FEINT_ERR_INPUT, got %d", text, s);
  CHECK(e == NULL, "\"%s\": output not NULL on error", text);
  const char *msg = feint_error_message();
  char want[64];
  snprintf(want, sizeof want, "at character %d", pos);
  CHECK(strstr(msg, want) != NULL, "\"%s\": message \"%s\" lacks \"%s\"", text, msg, want);
  CHECK(strstr(msg, what) != NULL, "\"%s\": message \"%s\" lacks \"%s\"", text, msg, what);
  CHECK(strncmp(msg, "case.yaml:3:7: in expression \"", 30) == 0, "prefix of \"%s\"", msg);
  CHECK(strstr(msg, text) != NULL, "message \"%s\" lacks the text", msg);
  printf("  %-14s -> %s\n", text, msg);
}

int main(void) {
  const double pi = 3.14159265358979323846, tol = 1e-15;
  double x = 0.3, y = -1.7, z = 2.25;

  /* numbers and precedence */
  CHECK_CLOSE(ev("1", 0, 0, 0), 1, tol);
  CHECK_CLOSE(ev("  2.5e1 ", 0, 0, 0), 25, tol);
  CHECK_CLOSE(ev(".5+1.", 0, 0, 0), 1.5, tol);
  CHECK_CLOSE(ev("1E-3", 0, 0, 0), 1e-3, tol);
  CHECK_CLOSE(ev("1+2*3", 0, 0, 0), 7, tol);
  CHECK_CLOSE(ev("(1+2)*3", 0, 0, 0), 9, tol);
  CHECK_CLOSE(ev("10-4-3", 0, 0, 0), 3, tol);
  CHECK_CLOSE(ev("64/4/2", 0, 0, 0), 8, tol);
  CHECK_CLOSE(ev("2*3^2", 0, 0, 0), 18, tol);
  CHECK_CLOSE(ev("2^3^2", 0, 0, 0), 512, tol);
  CHECK_CLOSE(ev("(2^3)^2", 0, 0, 0), 64, tol);
  CHECK_CLOSE(ev("2^-1", 0, 0, 0), 0.5, tol);
  CHECK_CLOSE(ev("-2^2", 0, 0, 0), -4, tol);
  CHECK_CLOSE(ev("(-2)^2", 0, 0, 0), 4, tol);
  CHECK_CLOSE(ev("--3", 0, 0, 0), 3, tol);
  CHECK_CLOSE(ev("+3 - -3", 0, 0, 0), 6, tol);
  CHECK_CLOSE(ev("-x^2", x, y, z), -(x * x), tol);
  CHECK_CLOSE(ev("-x^2", -3, 0, 0), -9, tol);
  CHECK_CLOSE(ev("1 - x*y/z + z^x", x, y, z), 1 - x * y / z + pow(z, x), tol);
  CHECK_CLOSE(ev("x*-y", x, y, z), -x * y, tol);
  CHECK_CLOSE(ev("2*x^3-4*y^2+z", x, y, z), 2 * x * x * x - 4 * y * y + z, tol);

  /* constants and functions */
  CHECK_CLOSE(ev("pi", 0, 0, 0), pi, tol);
  CHECK_CLOSE(ev("e", 0, 0, 0), exp(1.0), tol);
  CHECK_CLOSE(ev("sin(pi*x)*y", x, y, z), sin(pi * x) * y, tol);
  CHECK_CLOSE(ev("cos(x)+tan(y)+exp(z)", x, y, z), cos(x) + tan(y) + exp(z), tol);
  CHECK_CLOSE(ev("log(z)*sqrt(z)-abs(y)+tanh(x)", x, y, z),
              log(z) * sqrt(z) - fabs(y) + tanh(x), tol);
  CHECK_CLOSE(ev("pow(z, 1.5)", x, y, z), pow(z, 1.5), tol);
  CHECK_CLOSE(ev("min(x, y) + max(x,y)", x, y, z), y + x, tol);
  CHECK_CLOSE(ev("atan2(y, x)", x, y, z), atan2(y, x), tol);
  CHECK_CLOSE(ev("max(min(x, 0.1), sin(exp(-(x-y)^2)))", x, y, z),
              fmax(fmin(x, 0.1), sin(exp(-(x - y) * (x - y)))), tol);
  CHECK_CLOSE(ev("exp(-((x-0.5)^2+(y-0.5)^2)/0.01)", 0.52, 0.47, 0),
              exp(-(0.02 * 0.02 + 0.03 * 0.03) / 0.01), tol);
  /* deep but legal nesting */
  CHECK_CLOSE(ev("((((((((((x))))))))))+1", x, y, z), x + 1, tol);
  CHECK_CLOSE(ev("1+(2+(3+(4+(5+(6+(7+(8+x)))))))", x, y, z), 36 + x, tol);

  /* constant detection */
  CHECK(is_const("1+2*pi"), "1+2*pi is constant");
  CHECK(is_const("sin(e)^2 + cos(e)^2"), "trig identity is constant");
  CHECK(!is_const("x"), "x not constant");
  CHECK(!is_const("0*y"), "0*y not constant (uses y)");
  CHECK(!is_const("1+z"), "1+z not constant");
  CHECK_CLOSE(ev("sin(e)^2 + cos(e)^2", 0, 0, 0), 1, tol);

  /* syntax errors, positions counted from 1 */
  bad("", "expected a number", 1);
  bad("1+", "expected a number", 3);
  bad("(1+x", "expected ')'", 5);
  bad("1+x)", "unbalanced ')'", 4);
  bad("sin(x", "expected ')'", 6);
  bad("foo(x)", "unknown function 'foo'", 1);
  bad("2*w", "unknown name 'w'", 3);
  bad("x y", "expected an operator", 3);
  bad("1.5.2", "expected an operator", 4);
  bad("2x", "expected an operator", 2);
  bad("sin(x, y)", "sin takes 1 argument", 6);
  bad("pow(x)", "expected ','", 6);
  bad("x * * y", "expected a number", 5);
  bad("sin x", "expected '('", 5);
  bad("x#", "expected an operator", 2);
  bad("()", "expected a number", 2);

  /* where may be NULL */
  feint_expr *e;
  CHECK(feint_expr_create("1+", NULL, &e) == FEINT_ERR_INPUT, "NULL where");
  CHECK(strncmp(feint_error_message(), "in expression \"1+\": ", 20) == 0, "NULL where: %s",
        feint_error_message());

  /* nesting beyond the fixed stack is an error, not a crash */
  char deep[4096];
  size_t k = 0;
  for (int i = 0; i < 1000; i++) deep[k++] = '(';
  deep[k++] = 'x';
  for (int i = 0; i < 1000; i++) deep[k++] = ')';
  deep[k] = '\0';
  CHECK(feint_expr_create(deep, NULL, &e) == FEINT_ERR_INPUT, "too deep");
  k = 0;
  for (int i = 0; i < 300; i++) {
    deep[k++] = 'x';
    deep[k++] = '+';
    deep[k++] = '(';
  }
  deep[k++] = 'x';
  for (int i = 0; i < 300; i++) deep[k++] = ')';
  deep[k] = '\0';
  CHECK(feint_expr_create(deep, NULL, &e) == FEINT_ERR_INPUT, "stack too deep");
  /* long flat sums need a stack of 2 */
  k = 0;
  for (int i = 0; i < 1000; i++) {
    deep[k++] = 'x';
    deep[k++] = '+';
  }
  deep[k++] = '1';
  deep[k] = '\0';
  CHECK_CLOSE(ev(deep, 0.5, 0, 0), 501, tol);

  return check_report("t005-expr");
}
