/* Expressions for user-written forms (issue 19): named symbols and the
 * nearest-name suggestion, the new functions, comparisons and conditionals,
 * exact derivatives (every rule against central differences, the issue's
 * nonlinear forms against hand-written derivatives, value and program
 * length, the simplifications by their text) and C source (read back by the
 * parser: bitwise the same values). */
#include <string.h>

#include "check.h"
#include "feint/error.h"
#include "feint/expr.h"

static const char *const names[] = {"x",   "y",   "z",   "u",  "v",    "w",
                                    "u_x", "u_y", "u_z", "k0", "beta", "lambda"};
enum { X, Y, Z, U, V, W, UX, UY, UZ, K0, BETA, LAMBDA, NS };

static feint_expr *parse(const char *text) {
  feint_expr *e;
  CHECK_OK(feint_expr_create_symbols(text, "test", names, NS, &e));
  return e;
}

static double ev(const char *text, const double *vals) {
  feint_expr *e = parse(text);
  double v = feint_expr_eval_values(e, vals);
  feint_expr_destroy(e);
  return v;
}

static feint_expr *derivative(const feint_expr *e, int k) {
  feint_expr *d;
  CHECK_OK(feint_expr_derivative(e, k, &d));
  return d;
}

/* The expression as C with the symbols' own names (static buffer). */
static const char *as_c(const feint_expr *e) {
  static char buf[4096];
  size_t len;
  CHECK_OK(feint_expr_emit_c(e, names, buf, sizeof buf, &len));
  CHECK(len < sizeof buf, "C text of %zu bytes", len);
  return buf;
}

/* d text / d names[k], written as C. */
static void derivative_is(const char *text, int k, const char *want) {
  feint_expr *e = parse(text), *d = derivative(e, k);
  const char *got = as_c(d);
  CHECK(strcmp(got, want) == 0, "d(%s)/d%s = %s, expected %s", text, names[k], got, want);
  printf("  d(%s)/d%s = %s\n", text, names[k], got);
  feint_expr_destroy(d);
  feint_expr_destroy(e);
}

/* Random values: u, v in [0.3, 1.3], gradients in [0.2, 1.2], the rest in
 * [-1, 1], parameters positive. */
static void random_point(double *vals, uint64_t *seed) {
  for (int i = 0; i < NS; i++) vals[i] = 2 * check_urand(seed) - 1;
  vals[U] = 0.3 + check_urand(seed);
  vals[V] = 0.3 + check_urand(seed);
  for (int i = UX; i <= UZ; i++) vals[i] = 0.2 + check_urand(seed);
  vals[K0] = 0.5 + check_urand(seed);
  vals[BETA] = 0.5 + check_urand(seed);
  vals[LAMBDA] = 0.5 + check_urand(seed);
}

/* Central difference of e in symbol k at vals. */
static double central(const feint_expr *e, double *vals, int k) {
  const double s = vals[k], h = 1e-5 * (fabs(s) > 1 ? fabs(s) : 1);
  vals[k] = s + h;
  const double fp = feint_expr_eval_values(e, vals), up = vals[k];
  vals[k] = s - h;
  const double fm = feint_expr_eval_values(e, vals), um = vals[k];
  vals[k] = s;
  return (fp - fm) / (up - um);
}

static double worst_fd = 0;

/* d e / d names[k] against central differences at 20 random points. */
static void check_rule(const char *text, int k, uint64_t *seed) {
  feint_expr *e = parse(text), *d = derivative(e, k);
  double vals[NS];
  for (int i = 0; i < 20; i++) {
    random_point(vals, seed);
    const double got = feint_expr_eval_values(d, vals), want = central(e, vals, k);
    const double err = fabs(got - want) / (fabs(want) > 1 ? fabs(want) : 1);
    if (err > worst_fd) worst_fd = err;
    CHECK(err <= 1e-7, "d(%s)/d%s at u=%.17g v=%.17g: %.17g, central difference %.17g", text,
          names[k], vals[U], vals[V], got, want);
  }
  feint_expr_destroy(d);
  feint_expr_destroy(e);
}

/* The derivative of text in names[k] against the hand-written one: the
 * same values (to rounding) at random points, and no longer a program. */
static void check_hand(const char *text, int k, const char *hand, uint64_t *seed) {
  feint_expr *e = parse(text), *d = derivative(e, k), *h = parse(hand);
  double vals[NS];
  for (int i = 0; i < 20; i++) {
    random_point(vals, seed);
    CHECK_CLOSE(feint_expr_eval_values(d, vals), feint_expr_eval_values(h, vals), 1e-14);
  }
  CHECK(feint_expr_length(d) <= feint_expr_length(h),
        "d(%s)/d%s = %s: %d instructions, the hand-written %s has %d", text, names[k], as_c(d),
        feint_expr_length(d), hand, feint_expr_length(h));
  printf("  d(%s)/d%s: %d instructions (hand-written %s: %d)\n", text, names[k],
         feint_expr_length(d), hand, feint_expr_length(h));
  feint_expr_destroy(h);
  feint_expr_destroy(d);
  feint_expr_destroy(e);
}

static int same_bits(double a, double b) {
  return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0;
}

/* text written as C with the symbols' names and read back: bitwise the
 * same values at random points and at special ones. */
static void check_round_trip(const feint_expr *e, const char *what, uint64_t *seed) {
  feint_expr *back;
  const char *c = as_c(e);
  CHECK_OK(feint_expr_create_symbols(c, "C text", names, NS, &back));
  double vals[NS];
  for (int i = 0; i < 30; i++) {
    random_point(vals, seed);
    if (i % 5 == 1)
      for (int k = 0; k < NS; k++) vals[k] = 0.0;
    if (i % 5 == 2) vals[U] = -vals[U];
    if (i % 5 == 3) vals[V] = vals[U];
    if (i % 5 == 4) vals[U] = (i % 2) ? INFINITY : NAN;
    const double a = feint_expr_eval_values(e, vals), b = feint_expr_eval_values(back, vals);
    CHECK(same_bits(a, b), "%s -> %s: %.17g, read back %.17g", what, c, a, b);
  }
  feint_expr_destroy(back);
}

static void bad_symbols(const char *text, const char *want) {
  feint_expr *e = (feint_expr *)0x1;
  int s = feint_expr_create_symbols(text, "case.yaml:7:9", names, NS, &e);
  CHECK(s == FEINT_ERR_INPUT && e == NULL, "\"%s\" should fail, got %d", text, s);
  CHECK(strcmp(feint_error_message(), want) == 0, "\"%s\": message\n  %s\nexpected\n  %s", text,
        feint_error_message(), want);
  printf("  %-14s -> %s\n", text, feint_error_message());
}

static const char *const rules[] = {
    "u + v", "u - v", "v - u", "-u", "u*v", "u/v", "v/u", "u^3", "u^-2", "u^v", "v^u", "u^u",
    "pow(u, 2.5)", "sin(u)", "cos(u)", "tan(u)", "exp(u)", "log(u)", "sqrt(u)", "abs(u - v)",
    "abs(v - u)*u", "tanh(u)", "sinh(u)", "cosh(u)", "floor(3*u)*u", "ceil(3*u)*u",
    "sign(u - v)*u^2", "min(u, v)", "max(u*u, v)", "min(v, 2*u)", "atan2(u, v)", "atan2(v, u)",
    "u < v ? u^2 : sin(u)", "if(u > v, exp(u), u*v)", "(u <= v) + (u >= v)*u + (u == v) + (u != v)*u",
    "2*u*3*v", "exp(sin(u*v))/(1 + u^2)", "--u", "-(-(u*v))", "0 - u*v", "u^1", "u^0*v",
    "w*u", "k0 + beta*u^2", "(u*v)^2/(sqrt(u) + v)", "-u*-v", "3/u", "-(2*u)*(-3*v)",
    "u > 0.8 ? 1 : u > 0.6 ? u^2 : sinh(u)", "log(cosh(u))*tanh(v*u)"};

int main(void) {
  uint64_t seed = 0x9E3779B97F4A7C15ull;
  double vals[NS];
  random_point(vals, &seed);

  /* symbols: the table's order is the values' order */
  vals[U] = 0.75, vals[UX] = 0.5, vals[K0] = 2, vals[BETA] = 3;
  CHECK(ev("(k0 + beta*u^2)*u_x", vals) == (2 + 3 * 0.75 * 0.75) * 0.5, "k(u) u_x");
  CHECK(ev("lambda", vals) == vals[LAMBDA], "last symbol");
  CHECK(ev("2*pi + e", vals) == 2 * 3.14159265358979323846 + 2.71828182845904523536, "pi, e");
  {
    feint_expr *e = parse("u*u_x + 1");
    CHECK(feint_expr_n_symbols(e) == NS, "n_symbols");
    CHECK(feint_expr_uses(e, U) && feint_expr_uses(e, UX) && !feint_expr_uses(e, V), "uses");
    CHECK(!feint_expr_is_constant(e), "not constant");
    feint_expr_destroy(e);
    e = parse("k0*0 + sin(pi)");
    CHECK(!feint_expr_is_constant(e) && feint_expr_uses(e, K0), "k0*0 reads k0");
    feint_expr_destroy(e);
    /* x, y, z are only symbols when listed; a table of up to 3 serves
     * feint_expr_eval */
    const char *const uv[] = {"u", "v"};
    CHECK(feint_expr_create_symbols("u + x", "case.yaml:2:3", uv, 2, &e) == FEINT_ERR_INPUT,
          "x not in the table");
    CHECK(strcmp(feint_error_message(),
                 "case.yaml:2:3: in expression \"u + x\": unknown symbol \"x\" at character 5") ==
              0,
          "%s", feint_error_message());
    CHECK_OK(feint_expr_create_symbols("u - 2*v", NULL, uv, 2, &e));
    CHECK(feint_expr_eval(e, 1, 3, 100) == -5, "eval on 2 symbols");
    feint_expr_destroy(e);
    e = parse("u");
    CHECK(isnan(feint_expr_eval(e, 1, 2, 3)), "eval on more than 3 symbols is nan");
    feint_expr_destroy(e);
    /* the legacy table is {x, y, z} */
    CHECK_OK(feint_expr_create("x > y ? z : -z", NULL, &e));
    CHECK(feint_expr_n_symbols(e) == 3 && feint_expr_eval(e, 2, 1, 5) == 5, "legacy ?:");
    feint_expr_destroy(e);
  }
  /* unknown symbols: where, position, nearest name */
  bad_symbols("k0*u_X",
              "case.yaml:7:9: in expression \"k0*u_X\": unknown symbol \"u_X\" at character 4 "
              "(did you mean \"u_x\"?)");
  bad_symbols("bta*u", "case.yaml:7:9: in expression \"bta*u\": unknown symbol \"bta\" at "
                       "character 1 (did you mean \"beta\"?)");
  bad_symbols("1 + lamda", "case.yaml:7:9: in expression \"1 + lamda\": unknown symbol \"lamda\" "
                           "at character 5 (did you mean \"lambda\"?)");
  bad_symbols("2*q", "case.yaml:7:9: in expression \"2*q\": unknown symbol \"q\" at character 3");
  bad_symbols("temperature",
              "case.yaml:7:9: in expression \"temperature\": unknown symbol \"temperature\" at "
              "character 1");
  bad_symbols("u(1)", "case.yaml:7:9: in expression \"u(1)\": unknown function 'u' (expected one "
                      "of sin cos tan exp log sqrt abs tanh sinh cosh floor ceil sign pow min max "
                      "atan2 if) at character 1");
  /* bad tables */
  {
    feint_expr *e;
    const char *const dup[] = {"u", "v", "u"}, *const pi[] = {"pi"}, *const digit[] = {"1u"},
                      *const dash[] = {"u-x"};
    CHECK(feint_expr_create_symbols("u", "f", dup, 3, &e) == FEINT_ERR_INPUT, "repeated name");
    CHECK(strstr(feint_error_message(), "f: symbol 2 \"u\"") != NULL, "%s", feint_error_message());
    CHECK(feint_expr_create_symbols("1", NULL, pi, 1, &e) == FEINT_ERR_INPUT, "pi");
    CHECK(feint_expr_create_symbols("1", NULL, digit, 1, &e) == FEINT_ERR_INPUT, "1u");
    CHECK(feint_expr_create_symbols("1", NULL, dash, 1, &e) == FEINT_ERR_INPUT, "u-x");
  }

  /* new functions */
  CHECK_CLOSE(ev("sinh(u) + cosh(v)", vals), sinh(vals[U]) + cosh(vals[V]), 1e-15);
  CHECK(ev("floor(-2.5) + 10*ceil(2.1) + 100*floor(3)", vals) == -3 + 30 + 300, "floor, ceil");
  CHECK(ev("sign(-3) + 10*sign(0.1) + 100*sign(0)", vals) == -1 + 10, "sign");
  CHECK(ev("sign(u - u + 0/0)", vals) == 0, "sign(nan) = 0");
  CHECK(ev("fabs(-2) + fmin(1, 2) + fmax(1, 2)", vals) == 5, "C's names");

  /* comparisons and conditionals: precedence and associativity */
  CHECK(ev("1 + 2 < 4", vals) == 1 && ev("1 + 2 < 3", vals) == 0, "+ before <");
  CHECK(ev("(2 <= 2) + 2*(3 >= 4) + 4*(1 > 0) + 8*(1 == 1) + 16*(1 != 1)", vals) == 13, "cmp");
  CHECK(ev("0 ? 1 : 0 ? 2 : 3", vals) == 3, "right-associative");
  CHECK(ev("1 ? 0 ? 5 : 6 : 7", vals) == 6, "nested in the middle");
  CHECK(ev("u < 1 ? 2 : 3", vals) == 2 && ev("u > 1 ? 2 : 3", vals) == 3, "conditional");
  CHECK(ev("1 + (u < 1 ? 2 : 3)*10", vals) == 21, "in parentheses");
  CHECK(ev("if(u < 1, 2, 3) + if(0, 1, 0)", vals) == 2, "if()");
  CHECK(ev("0/0 ? 1 : 2", vals) == 1, "nan is true, as in C");
  /* the branch not taken never leaks: log(0) = -inf, 1/0, 0/0 */
  vals[U] = 0;
  CHECK(ev("u > 0 ? log(u) : 0", vals) == 0, "x > 0 ? log(x) : 0 at 0");
  CHECK(ev("if(u != 0, 1/u, 5) + (u == 0 ? 1 : 0/u)", vals) == 6, "1/0, 0/0 not taken");
  vals[U] = 0.75;
  CHECK(ev("u > 0 ? log(u) : 0", vals) == log(0.75), "taken");
  bad_symbols("u < v < 1", "case.yaml:7:9: in expression \"u < v < 1\": comparisons do not chain "
                           "(write (a < b) == c) at character 7");
  bad_symbols("u = 1", "case.yaml:7:9: in expression \"u = 1\": expected '==' to compare, not "
                       "'=' at character 3");
  bad_symbols("u ? 1", "case.yaml:7:9: in expression \"u ? 1\": expected ':' (of a conditional c "
                       "? a : b) at character 6");
  bad_symbols("if(u, 1)", "case.yaml:7:9: in expression \"if(u, 1)\": expected ',' (if takes 3 "
                          "arguments) at character 8");

  /* every derivative rule against central differences, d/du and d/dv */
  for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
    check_rule(rules[i], U, &seed);
    check_rule(rules[i], V, &seed);
  }
  /* second derivatives: a derivative is an expression like any other */
  for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
    feint_expr *e = parse(rules[i]), *d = derivative(e, U);
    char text[4096];
    CHECK_OK(feint_expr_emit_c(d, names, text, sizeof text, NULL));
    check_rule(text, U, &seed);
    check_rule(text, V, &seed);
    feint_expr_destroy(d);
    feint_expr_destroy(e);
  }
  printf("  %zu rules, d/du, d/dv and second derivatives: worst relative difference from central "
         "differences %.2g\n",
         sizeof rules / sizeof rules[0], worst_fd);

  /* the nonlinear forms against hand-written derivatives */
  check_hand("(k0 + beta*u^2)*u_x", U, "2*beta*u*u_x", &seed);
  check_hand("(k0 + beta*u^2)*u_x", UX, "k0 + beta*u^2", &seed);
  check_hand("(k0 + beta*u^2)*u_x", UY, "0", &seed);
  check_hand("(k0 + beta*u^2)*u_y", U, "2*beta*u*u_y", &seed);
  /* p-Laplacian flux |grad u|^(p-2) u_x, p = 3 */
  const char *plap = "(u_x^2 + u_y^2 + u_z^2)^((3 - 2)/2)*u_x";
  check_hand(plap, UX, "(u_x^2 + u_y^2 + u_z^2)^0.5 + u_x^2*(u_x^2 + u_y^2 + u_z^2)^-0.5", &seed);
  check_hand(plap, UY, "u_x*u_y*(u_x^2 + u_y^2 + u_z^2)^-0.5", &seed);
  check_hand(plap, UZ, "u_x*u_z*(u_x^2 + u_y^2 + u_z^2)^-0.5", &seed);
  check_hand(plap, U, "0", &seed);
  /* Bratu: f0 = -lambda e^u */
  check_hand("exp(u)", U, "exp(u)", &seed);
  check_hand("-lambda*exp(u)", U, "-lambda*exp(u)", &seed);
  check_hand("u^3", U, "3*u^2", &seed);

  /* the simplifications, by the derivative's text */
  derivative_is("u*v", U, "v");
  derivative_is("3*u", U, "3.0");
  derivative_is("u^2", U, "(2.0 * u)");
  /* (the larger operand of * and + first: a shallower stack) */
  derivative_is("u^3", U, "((u * u) * 3.0)");
  derivative_is("v*u^3", U, "(((u * u) * v) * 3.0)");
  derivative_is("u^1 + u^0", U, "1.0");
  derivative_is("v - u", U, "(-1.0)");
  derivative_is("0 - u*v", U, "(-v)");
  derivative_is("-(-(u*v))", U, "v");
  derivative_is("-u*-v", U, "v");
  derivative_is("u*v + 0*u + v", U, "v");
  derivative_is("u/v", U, "(1.0 / v)");
  derivative_is("v/u", U, "((-v) / (u * u))");
  derivative_is("exp(u)", U, "exp(u)");
  derivative_is("exp(2*u)", U, "(exp((2.0 * u)) * 2.0)");
  derivative_is("sin(u)*v", V, "sin(u)");
  derivative_is("floor(u) + ceil(u) + sign(u) + (u < v)", U, "0.0");
  derivative_is("u > 0 ? u^2 : -u", U, "((u > 0.0) ? (2.0 * u) : (-1.0))");
  derivative_is("abs(u)", U, "((u > 0.0) ? 1.0 : ((u < 0.0) ? (-1.0) : 0.0))");
  derivative_is("min(u, v)", U, "((u <= v) ? 1.0 : 0.0)");
  derivative_is("k0 + beta*u^2", K0, "1.0");
  /* what does not depend on u has derivative 0, even inf or nan (the
   * fuzzer's "x/0") */
  derivative_is("v/0 + log(-1)*v + u", U, "1.0");
  {
    /* the derivative of a conditional does not leak the branch not taken */
    feint_expr *e = parse("u > 0 ? log(u) : 0"), *d = derivative(e, U);
    vals[U] = 0;
    CHECK(feint_expr_eval_values(d, vals) == 0, "d(u > 0 ? log(u) : 0) at 0");
    vals[U] = 2;
    CHECK(feint_expr_eval_values(d, vals) == 0.5, "d(u > 0 ? log(u) : 0) at 2");
    feint_expr_destroy(d);
    d = derivative(e, V);
    CHECK(feint_expr_is_constant(d) && feint_expr_eval_values(d, NULL) == 0, "d/dv = 0");
    feint_expr_destroy(d);
    feint_expr_destroy(e);
  }

  /* C source */
  {
    feint_expr *e = parse("k0*u_x + max(u, 0.1)*-3 + (u < v ? 1/3 : 1e300) + sign(v) + u^-1");
    const char *const lvalues[] = {"p->x[0]", "p->x[1]", "p->x[2]", "p->u[0]", "p->u[1]",
                                   "p->u[2]", "p->du[0]", "p->du[1]", "p->du[2]", "c[0]",
                                   "c[1]",    "c[2]"};
    char buf[1024];
    size_t len, len0;
    CHECK_OK(feint_expr_emit_c(e, lvalues, buf, sizeof buf, &len));
    const char *want =
        "(((((c[0] * p->du[0]) + (fmax(p->u[0], 0.10000000000000001) * (-3.0))) + ((p->u[0] < "
        "p->u[1]) ? 0.33333333333333331 : 1.0000000000000001e+300)) + ((p->u[1] > "
        "0.0) ? 1.0 : ((p->u[1] < 0.0) ? (-1.0) : 0.0))) + pow(p->u[0], (-1.0)))";
    CHECK(strcmp(buf, want) == 0 && len == strlen(want), "C text\n  %s\nexpected\n  %s", buf,
          want);
    printf("  C: %s\n", buf);
    /* snprintf's contract: size 0 measures, a short buffer is cut and ended */
    CHECK_OK(feint_expr_emit_c(e, lvalues, NULL, 0, &len0));
    CHECK(len0 == len, "measured %zu, wrote %zu", len0, len);
    char small[10];
    CHECK_OK(feint_expr_emit_c(e, lvalues, small, sizeof small, &len0));
    CHECK(len0 == len && strlen(small) == 9 && strncmp(small, want, 9) == 0, "cut: %s", small);
    feint_expr_destroy(e);
    /* a^2 of a symbol as the evaluator computes it (a * a), of anything
     * else as pow */
    e = parse("u_x^2 + 3^u + (u + v)^2");
    CHECK_OK(feint_expr_emit_c(e, names, buf, sizeof buf, &len));
    CHECK(strcmp(buf, "(((u_x * u_x) + pow(3.0, u)) + pow((u + v), 2.0))") == 0, "%s", buf);
    feint_expr_destroy(e);
    e = parse("(u - u + 1)/0 + 0*(1/0) + -0*u");
    CHECK_OK(feint_expr_emit_c(e, names, buf, sizeof buf, &len));
    CHECK(strstr(buf, "(0.0 / 0.0)") && strstr(buf, "(-0.0)"), "nan and -0: %s", buf);
    feint_expr_destroy(e);
  }
  /* round trip: every rule and its derivatives read back bitwise */
  const char *extra[] = {"1/3*u + 1e-320 - 4.9406564584124654e-324*v + 1.7976931348623157e308",
                         "-0*u + (-0.0)", "u/0 + v*(1/0) - (-1/0)*w", "0.1 + 0.2*u",
                         "u > 0 ? log(u) : 0", "if(u == v, 1, 2) + (u != v)",
                         "sign(u)*abs(v) + floor(u*7) - ceil(v*3)", "(u < 1) / (v < 1)"};
  for (size_t i = 0; i < sizeof rules / sizeof rules[0] + sizeof extra / sizeof extra[0]; i++) {
    const size_t n_rules = sizeof rules / sizeof rules[0];
    const char *text = i < n_rules ? rules[i] : extra[i - n_rules];
    feint_expr *e = parse(text);
    check_round_trip(e, text, &seed);
    for (int k = U; k <= V; k++) {
      feint_expr *d = derivative(e, k);
      check_round_trip(d, text, &seed);
      feint_expr_destroy(d);
    }
    feint_expr_destroy(e);
  }

  /* limits: deep trees are errors, not crashes */
  {
    feint_expr *e = parse("u"), *d = (feint_expr *)0x1;
    CHECK(feint_expr_derivative(e, NS, &d) == FEINT_ERR_INPUT && d == NULL, "symbol NS");
    CHECK(feint_expr_derivative(e, -1, &d) == FEINT_ERR_INPUT && d == NULL, "symbol -1");
    feint_expr_destroy(e);
  }
  {
    static char sum[16384];
    size_t k = 0;
    for (int i = 0; i < 1500; i++) sum[k++] = 'u', sum[k++] = '+';
    sum[k++] = 'v';
    sum[k] = '\0';
    feint_expr *e = parse(sum), *d = derivative(e, U);
    CHECK(feint_expr_eval_values(d, vals) == 1500, "d(1500 u + v)/du");
    feint_expr_destroy(d);
    feint_expr_destroy(e);
    for (int i = 0; i < 1000; i++) sum[k++] = '+', sum[k++] = 'u';
    sum[k] = '\0';
    e = parse(sum);
    CHECK(feint_expr_derivative(e, U, &d) == FEINT_ERR_INPUT && d == NULL, "2501 levels");
    CHECK(strstr(feint_error_message(), "too deeply nested") != NULL, "%s", feint_error_message());
    CHECK(feint_expr_emit_c(e, names, NULL, 0, &k) == FEINT_ERR_INPUT, "C of 2501 levels");
    feint_expr_destroy(e);
  }
  return check_report("t006-expr-forms");
}
