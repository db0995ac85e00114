/* feint expressions: a recursive-descent parser that emits a postfix
 * program (one instruction per operand or operator) and a stack evaluator.
 *
 * Grammar (lowest to highest precedence):
 *   expr    := term (('+' | '-') term)*
 *   term    := unary (('*' | '/') unary)*
 *   unary   := ('-' | '+') unary | power
 *   power   := primary ('^' unary)?          right-associative; the exponent
 *                                            may carry a sign: 2^-1
 *   primary := number | x | y | z | pi | e | name '(' expr (',' expr)? ')'
 *            | '(' expr ')'
 * so -x^2 == -(x^2) and 2^3^2 == 2^9.
 *
 * Numbers are decimal: digits, an optional fraction and an optional exponent
 * (1, 1.5, .5, 2e-3); "inf", "nan" and hexadecimal are not accepted.
 * Operations whose operands are all constants are folded at parse time, so
 * "2*pi" costs one instruction. The stack depth the program needs is computed
 * while emitting; programs that would need more than FEINT_EXPR_MAX_STACK
 * slots (absurdly nested input) are rejected, so evaluation uses a fixed
 * local stack and is reentrant (feint_expr_eval may run on many threads).
 *
 * Error positions ("at character N") count from 1, in bytes of `text`. */
#include "feint/expr.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feint/error.h"

#define FEINT_EXPR_MAX_STACK 128
#define FEINT_EXPR_MAX_NESTING 200

typedef enum {
  OP_CONST,
  OP_X,
  OP_Y,
  OP_Z,
  OP_ADD,
  OP_SUB,
  OP_MUL,
  OP_DIV,
  OP_POW,
  OP_NEG,
  /* one-argument functions */
  OP_SIN,
  OP_COS,
  OP_TAN,
  OP_EXP,
  OP_LOG,
  OP_SQRT,
  OP_ABS,
  OP_TANH,
  /* two-argument functions (OP_POW above doubles as pow()) */
  OP_MIN,
  OP_MAX,
  OP_ATAN2
} op_code;

typedef struct {
  int op;
  double value; /* OP_CONST only */
} instr;

struct feint_expr {
  int n;
  int max_depth;
  int constant;
  instr *code;
};

typedef struct {
  const char *name;
  int nargs;
  int op;
} function_def;

static const function_def functions[] = {
    {"sin", 1, OP_SIN},   {"cos", 1, OP_COS},   {"tan", 1, OP_TAN},     {"exp", 1, OP_EXP},
    {"log", 1, OP_LOG},   {"sqrt", 1, OP_SQRT}, {"abs", 1, OP_ABS},     {"tanh", 1, OP_TANH},
    {"pow", 2, OP_POW},   {"min", 2, OP_MIN},   {"max", 2, OP_MAX},     {"atan2", 2, OP_ATAN2},
};

typedef struct {
  const char *text;
  const char *where;
  size_t pos;
  instr *code;
  int n, cap;
  int depth, max_depth;
  int nesting;
} parser;

static double apply_unary(int op, double a) {
  switch (op) {
  case OP_NEG: return -a;
  case OP_SIN: return sin(a);
  case OP_COS: return cos(a);
  case OP_TAN: return tan(a);
  case OP_EXP: return exp(a);
  case OP_LOG: return log(a);
  case OP_SQRT: return sqrt(a);
  case OP_ABS: return fabs(a);
  case OP_TANH: return tanh(a);
  default: return NAN;
  }
}

static double apply_binary(int op, double a, double b) {
  switch (op) {
  case OP_ADD: return a + b;
  case OP_SUB: return a - b;
  case OP_MUL: return a * b;
  case OP_DIV: return a / b;
  case OP_POW: return pow(a, b);
  case OP_MIN: return fmin(a, b);
  case OP_MAX: return fmax(a, b);
  case OP_ATAN2: return atan2(a, b);
  default: return NAN;
  }
}

/* The character at s (all its UTF-8 bytes: a message never shows half of one). */
static void one_char(const char *s, char got[8]) {
  const unsigned char c = (unsigned char)*s;
  size_t n = feint_utf8_cut(s, c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1);
  if (n == 0) n = 1; /* a broken sequence: its first byte */
  memcpy(got, s, n);
  got[n] = '\0';
}

static int syntax_error(parser *p, size_t pos, const char *fmt, const char *arg) {
  char what[256];
  snprintf(what, sizeof what, fmt, arg ? arg : "");
  if (p->where)
    return feint_error_set(FEINT_ERR_INPUT, "%s: in expression \"%s\": %s at character %zu",
                           p->where, p->text, what, pos + 1);
  return feint_error_set(FEINT_ERR_INPUT, "in expression \"%s\": %s at character %zu", p->text,
                         what, pos + 1);
}

static int emit(parser *p, int op, double value) {
  if (p->n == p->cap) {
    int cap = p->cap ? 2 * p->cap : 16;
    instr *code = realloc(p->code, (size_t)cap * sizeof *code);
    if (!code)
      return feint_error_set(FEINT_ERR_COMPUTE, "out of memory allocating expression program");
    p->code = code;
    p->cap = cap;
  }
  p->code[p->n].op = op;
  p->code[p->n].value = value;
  p->n++;
  return FEINT_OK;
}

/* Emit an operand (pushes one value). */
static int emit_push(parser *p, int op, double value) {
  FEINT_CALL(emit(p, op, value));
  p->depth++;
  if (p->depth > p->max_depth) p->max_depth = p->depth;
  if (p->max_depth > FEINT_EXPR_MAX_STACK)
    return syntax_error(p, p->pos, "expression too deeply nested%s", "");
  return FEINT_OK;
}

/* Emit an operator taking nargs values and pushing one, folding constants. */
static int emit_op(parser *p, int op, int nargs) {
  if (nargs == 1 && p->n >= 1 && p->code[p->n - 1].op == OP_CONST) {
    p->code[p->n - 1].value = apply_unary(op, p->code[p->n - 1].value);
    return FEINT_OK;
  }
  if (nargs == 2 && p->n >= 2 && p->code[p->n - 1].op == OP_CONST &&
      p->code[p->n - 2].op == OP_CONST) {
    p->code[p->n - 2].value = apply_binary(op, p->code[p->n - 2].value, p->code[p->n - 1].value);
    p->n--;
    p->depth--;
    return FEINT_OK;
  }
  FEINT_CALL(emit(p, op, 0.0));
  p->depth -= nargs - 1;
  return FEINT_OK;
}

static void skip_space(parser *p) {
  while (p->text[p->pos] == ' ' || p->text[p->pos] == '\t' || p->text[p->pos] == '\n' ||
         p->text[p->pos] == '\r')
    p->pos++;
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }
static int is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }

static int parse_expr(parser *p);
static int parse_unary(parser *p);

static int parse_number(parser *p) {
  const char *s = p->text + p->pos;
  size_t len = 0;
  while (is_digit(s[len])) len++;
  if (s[len] == '.') {
    len++;
    while (is_digit(s[len])) len++;
  }
  if (len == 1 && s[0] == '.') return syntax_error(p, p->pos, "expected a digit after '.'%s", "");
  if (s[len] == 'e' || s[len] == 'E') {
    size_t k = len + 1;
    if (s[k] == '+' || s[k] == '-') k++;
    if (is_digit(s[k])) {
      while (is_digit(s[k])) k++;
      len = k;
    }
  }
  char buf[128];
  if (len >= sizeof buf) return syntax_error(p, p->pos, "number too long%s", "");
  memcpy(buf, s, len);
  buf[len] = '\0';
  double v = strtod(buf, NULL);
  p->pos += len;
  return emit_push(p, OP_CONST, v);
}

static int parse_primary(parser *p) {
  skip_space(p);
  char c = p->text[p->pos];
  if (is_digit(c) || (c == '.' && is_digit(p->text[p->pos + 1]))) return parse_number(p);
  if (c == '(') {
    p->pos++;
    FEINT_CALL(parse_expr(p));
    skip_space(p);
    if (p->text[p->pos] != ')') return syntax_error(p, p->pos, "expected ')'%s", "");
    p->pos++;
    return FEINT_OK;
  }
  if (is_alpha(c)) {
    size_t start = p->pos, len = 0;
    while (is_alpha(p->text[start + len]) || is_digit(p->text[start + len])) len++;
    char name[64];
    if (len >= sizeof name) return syntax_error(p, start, "name too long%s", "");
    memcpy(name, p->text + start, len);
    name[len] = '\0';
    p->pos = start + len;
    skip_space(p);
    if (p->text[p->pos] == '(') {
      const function_def *f = NULL;
      for (size_t i = 0; i < sizeof functions / sizeof functions[0]; i++)
        if (strcmp(functions[i].name, name) == 0) f = &functions[i];
      if (!f)
        return syntax_error(p, start,
                            "unknown function '%s' (expected one of sin cos tan exp log sqrt "
                            "abs tanh pow min max atan2)",
                            name);
      p->pos++;
      if (++p->nesting > FEINT_EXPR_MAX_NESTING)
        return syntax_error(p, p->pos, "expression too deeply nested%s", "");
      for (int a = 0; a < f->nargs; a++) {
        if (a > 0) {
          skip_space(p);
          if (p->text[p->pos] != ',') {
            char msg[96];
            snprintf(msg, sizeof msg, "expected ',' (%s takes 2 arguments)", f->name);
            return syntax_error(p, p->pos, "%s", msg);
          }
          p->pos++;
        }
        FEINT_CALL(parse_expr(p));
      }
      p->nesting--;
      skip_space(p);
      if (p->text[p->pos] != ')') {
        char msg[96];
        if (p->text[p->pos] == ',')
          snprintf(msg, sizeof msg, "expected ')' (%s takes %d argument%s)", f->name, f->nargs,
                   f->nargs == 1 ? "" : "s");
        else
          snprintf(msg, sizeof msg, "expected ')'");
        return syntax_error(p, p->pos, "%s", msg);
      }
      p->pos++;
      return emit_op(p, f->op, f->nargs);
    }
    if (strcmp(name, "x") == 0) return emit_push(p, OP_X, 0.0);
    if (strcmp(name, "y") == 0) return emit_push(p, OP_Y, 0.0);
    if (strcmp(name, "z") == 0) return emit_push(p, OP_Z, 0.0);
    if (strcmp(name, "pi") == 0) return emit_push(p, OP_CONST, 3.14159265358979323846);
    if (strcmp(name, "e") == 0) return emit_push(p, OP_CONST, 2.71828182845904523536);
    for (size_t i = 0; i < sizeof functions / sizeof functions[0]; i++)
      if (strcmp(functions[i].name, name) == 0)
        return syntax_error(p, p->pos, "expected '(' after function name%s", "");
    return syntax_error(p, start, "unknown name '%s' (expected x, y, z, pi or e)", name);
  }
  if (c == '\0')
    return syntax_error(p, p->pos,
                        "expected a number, a variable, a function or '(' before the end%s", "");
  char got[8];
  one_char(p->text + p->pos, got);
  return syntax_error(p, p->pos, "expected a number, a variable, a function or '(', not '%s'",
                      got);
}

static int parse_power(parser *p) {
  FEINT_CALL(parse_primary(p));
  skip_space(p);
  if (p->text[p->pos] == '^') {
    p->pos++;
    FEINT_CALL(parse_unary(p));
    FEINT_CALL(emit_op(p, OP_POW, 2));
  }
  return FEINT_OK;
}

static int parse_unary(parser *p) {
  skip_space(p);
  char c = p->text[p->pos];
  if (c == '-' || c == '+') {
    p->pos++;
    if (++p->nesting > FEINT_EXPR_MAX_NESTING)
      return syntax_error(p, p->pos, "expression too deeply nested%s", "");
    FEINT_CALL(parse_unary(p));
    p->nesting--;
    if (c == '-') FEINT_CALL(emit_op(p, OP_NEG, 1));
    return FEINT_OK;
  }
  return parse_power(p);
}

static int parse_term(parser *p) {
  FEINT_CALL(parse_unary(p));
  for (;;) {
    skip_space(p);
    char c = p->text[p->pos];
    if (c != '*' && c != '/') return FEINT_OK;
    p->pos++;
    FEINT_CALL(parse_unary(p));
    FEINT_CALL(emit_op(p, c == '*' ? OP_MUL : OP_DIV, 2));
  }
}

static int parse_expr(parser *p) {
  if (++p->nesting > FEINT_EXPR_MAX_NESTING)
    return syntax_error(p, p->pos, "expression too deeply nested%s", "");
  FEINT_CALL(parse_term(p));
  for (;;) {
    skip_space(p);
    char c = p->text[p->pos];
    if (c != '+' && c != '-') break;
    p->pos++;
    FEINT_CALL(parse_term(p));
    FEINT_CALL(emit_op(p, c == '+' ? OP_ADD : OP_SUB, 2));
  }
  p->nesting--;
  return FEINT_OK;
}

static int parse_all(parser *p) {
  FEINT_CALL(parse_expr(p));
  skip_space(p);
  char c = p->text[p->pos];
  if (c == ')') return syntax_error(p, p->pos, "unbalanced ')'%s", "");
  if (c != '\0') {
    char got[8];
    one_char(p->text + p->pos, got);
    return syntax_error(p, p->pos, "expected an operator or the end of the expression, not '%s'",
                        got);
  }
  return FEINT_OK;
}

int feint_expr_create(const char *text, const char *where, feint_expr **out) {
  *out = NULL;
  if (!text) text = "";
  parser p = {.text = text, .where = where};
  int status = parse_all(&p);
  if (status) {
    free(p.code);
    return status;
  }
  feint_expr *e;
  status = feint_calloc(1, sizeof *e, &e, "expression");
  if (status) {
    free(p.code);
    return status;
  }
  e->n = p.n;
  e->max_depth = p.max_depth;
  e->code = p.code;
  e->constant = 1;
  for (int i = 0; i < p.n; i++)
    if (p.code[i].op == OP_X || p.code[i].op == OP_Y || p.code[i].op == OP_Z) e->constant = 0;
  *out = e;
  return FEINT_OK;
}

void feint_expr_destroy(feint_expr *expr) {
  if (!expr) return;
  free(expr->code);
  free(expr);
}

double feint_expr_eval(const feint_expr *expr, double x, double y, double z) {
  const instr *code = expr->code;
  const int n = expr->n;
  if (n == 1) {
    switch (code[0].op) {
    case OP_CONST: return code[0].value;
    case OP_X: return x;
    case OP_Y: return y;
    default: return z;
    }
  }
  double stack[FEINT_EXPR_MAX_STACK];
  int top = -1; /* index of the top value */
  for (int i = 0; i < n; i++) {
    switch (code[i].op) {
    case OP_CONST: stack[++top] = code[i].value; break;
    case OP_X: stack[++top] = x; break;
    case OP_Y: stack[++top] = y; break;
    case OP_Z: stack[++top] = z; break;
    case OP_ADD: top--; stack[top] += stack[top + 1]; break;
    case OP_SUB: top--; stack[top] -= stack[top + 1]; break;
    case OP_MUL: top--; stack[top] *= stack[top + 1]; break;
    case OP_DIV: top--; stack[top] /= stack[top + 1]; break;
    case OP_POW: {
      top--;
      double b = stack[top + 1];
      if (b == 2.0)
        stack[top] *= stack[top];
      else
        stack[top] = pow(stack[top], b);
      break;
    }
    case OP_MIN: top--; stack[top] = fmin(stack[top], stack[top + 1]); break;
    case OP_MAX: top--; stack[top] = fmax(stack[top], stack[top + 1]); break;
    case OP_ATAN2: top--; stack[top] = atan2(stack[top], stack[top + 1]); break;
    case OP_NEG: stack[top] = -stack[top]; break;
    case OP_SIN: stack[top] = sin(stack[top]); break;
    case OP_COS: stack[top] = cos(stack[top]); break;
    case OP_TAN: stack[top] = tan(stack[top]); break;
    case OP_EXP: stack[top] = exp(stack[top]); break;
    case OP_LOG: stack[top] = log(stack[top]); break;
    case OP_SQRT: stack[top] = sqrt(stack[top]); break;
    case OP_ABS: stack[top] = fabs(stack[top]); break;
    case OP_TANH: stack[top] = tanh(stack[top]); break;
    default: break;
    }
  }
  return stack[0];
}

int feint_expr_is_constant(const feint_expr *expr) { return expr->constant; }
