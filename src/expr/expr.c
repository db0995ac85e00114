/* feint expressions: a recursive-descent parser that emits a postfix
 * program (one instruction per operand or operator), a stack evaluator,
 * and, for user-written forms (issue 19), a small expression tree that the
 * program is converted to for exact derivatives and C source.
 *
 * Grammar (lowest to highest precedence):
 *   expr    := compare ('?' expr ':' expr)?     right-associative
 *   compare := sum (('<' | '<=' | '>' | '>=' | '==' | '!=') sum)?
 *   sum     := term (('+' | '-') term)*
 *   term    := unary (('*' | '/') unary)*
 *   unary   := ('-' | '+') unary | power
 *   power   := primary ('^' unary)?          right-associative; the exponent
 *                                            may carry a sign: 2^-1
 *   primary := number | symbol | pi | e | name '(' expr (',' expr)* ')'
 *            | '(' expr ')'
 * so -x^2 == -(x^2), 2^3^2 == 2^9, and a < b < c is an error (comparisons
 * do not chain). A conditional is one instruction, OP_SELECT, after its
 * three operands: both branches are evaluated and the chosen one kept, so
 * a nan or inf in the other never reaches the result.
 *
 * Symbols: feint_expr_create parses over the table {x, y, z} (its messages
 * are those of the first version: "unknown name 'w' (expected x, y, z, pi
 * or e)"); feint_expr_create_symbols over the caller's table, where an
 * unknown name suggests the nearest symbol by edit distance. OP_SYM reads
 * values[sym].
 *
 * Numbers are decimal: digits, an optional fraction and an optional exponent
 * (1, 1.5, .5, 2e-3); "inf", "nan" and hexadecimal are not accepted.
 * Operations whose operands are all constants are folded at parse time, so
 * "2*pi" costs one instruction. The stack depth the program needs is computed
 * while emitting; programs that would need more than FEINT_EXPR_MAX_STACK
 * slots (absurdly nested input) are rejected, so evaluation uses a fixed
 * local stack and is reentrant (feint_expr_eval may run on many threads).
 *
 * Derivatives and C source go through a tree (an array of nodes, children
 * by index): the program is read into it, differentiated by the usual rules
 * with simplifying constructors (simplify(): folding, the 0 and 1 of
 * + - * / ^, --a, constant factors pulled to the left and multiplied), and
 * written out again as a program (the larger operand of + and * first, so
 * the stack stays shallow) or as C text. A derivative refers to subtrees of
 * the original more than once (d(a*b) = a'*b + a*b'), so the tree is a DAG;
 * its program is the DAG written out as a tree, and its size is bounded.
 *
 * Error positions ("at character N") count from 1, in bytes of `text`. */
#include "feint/expr.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feint/error.h"

#define FEINT_EXPR_MAX_STACK 128
#define FEINT_EXPR_MAX_NESTING 200
/* tree levels (the recursion of the derivative and the C writer) and the
 * length of a derivative's program */
#define FEINT_EXPR_MAX_HEIGHT 2000
#define FEINT_EXPR_MAX_LENGTH 1000000
#define FEINT_EXPR_MAX_NAME 64

typedef enum {
  OP_CONST,
  OP_SYM, /* values[sym] */
  OP_ADD,
  OP_SUB,
  OP_MUL,
  OP_DIV,
  OP_POW,
  /* comparisons: 1 or 0 */
  OP_LT,
  OP_LE,
  OP_GT,
  OP_GE,
  OP_EQ,
  OP_NE,
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
  OP_SINH,
  OP_COSH,
  OP_FLOOR,
  OP_CEIL,
  OP_SIGN,
  /* two-argument functions (OP_POW above doubles as pow()) */
  OP_MIN,
  OP_MAX,
  OP_ATAN2,
  OP_SELECT, /* c a b -> c != 0 ? a : b */
  OP_COUNT
} op_code;

/* How each operation is written in C: an infix operator, a comparison (an
 * infix operator whose int result is made a double), a function call, or
 * its own form (OP_NEG, OP_SIGN, OP_SELECT, leaves). */
enum { C_LEAF, C_INFIX, C_COMPARE, C_CALL, C_OWN };

typedef struct {
  int nargs;
  int c_form;
  const char *c_text; /* " + ", " < ", "sin", ... */
} op_def;

static const op_def ops[OP_COUNT] = {
    [OP_CONST] = {0, C_LEAF, NULL},    [OP_SYM] = {0, C_LEAF, NULL},
    [OP_ADD] = {2, C_INFIX, " + "},    [OP_SUB] = {2, C_INFIX, " - "},
    [OP_MUL] = {2, C_INFIX, " * "},    [OP_DIV] = {2, C_INFIX, " / "},
    [OP_POW] = {2, C_CALL, "pow"},     [OP_LT] = {2, C_COMPARE, " < "},
    [OP_LE] = {2, C_COMPARE, " <= "},  [OP_GT] = {2, C_COMPARE, " > "},
    [OP_GE] = {2, C_COMPARE, " >= "},  [OP_EQ] = {2, C_COMPARE, " == "},
    [OP_NE] = {2, C_COMPARE, " != "},  [OP_NEG] = {1, C_OWN, NULL},
    [OP_SIN] = {1, C_CALL, "sin"},     [OP_COS] = {1, C_CALL, "cos"},
    [OP_TAN] = {1, C_CALL, "tan"},     [OP_EXP] = {1, C_CALL, "exp"},
    [OP_LOG] = {1, C_CALL, "log"},     [OP_SQRT] = {1, C_CALL, "sqrt"},
    [OP_ABS] = {1, C_CALL, "fabs"},    [OP_TANH] = {1, C_CALL, "tanh"},
    [OP_SINH] = {1, C_CALL, "sinh"},   [OP_COSH] = {1, C_CALL, "cosh"},
    [OP_FLOOR] = {1, C_CALL, "floor"}, [OP_CEIL] = {1, C_CALL, "ceil"},
    [OP_SIGN] = {1, C_OWN, NULL},      [OP_MIN] = {2, C_CALL, "fmin"},
    [OP_MAX] = {2, C_CALL, "fmax"},    [OP_ATAN2] = {2, C_CALL, "atan2"},
    [OP_SELECT] = {3, C_OWN, NULL},
};

typedef struct {
  int op;
  int sym;      /* OP_SYM only */
  double value; /* OP_CONST only */
} instr;

struct feint_expr {
  int n;
  int max_depth;
  int constant;
  int n_sym;
  instr *code;
};

typedef struct {
  const char *name;
  int nargs;
  int op;
  int alias; /* accepted, not listed in messages (C's names) */
} function_def;

static const function_def functions[] = {
    {"sin", 1, OP_SIN, 0},     {"cos", 1, OP_COS, 0},   {"tan", 1, OP_TAN, 0},
    {"exp", 1, OP_EXP, 0},     {"log", 1, OP_LOG, 0},   {"sqrt", 1, OP_SQRT, 0},
    {"abs", 1, OP_ABS, 0},     {"tanh", 1, OP_TANH, 0}, {"sinh", 1, OP_SINH, 0},
    {"cosh", 1, OP_COSH, 0},   {"floor", 1, OP_FLOOR, 0}, {"ceil", 1, OP_CEIL, 0},
    {"sign", 1, OP_SIGN, 0},   {"pow", 2, OP_POW, 0},   {"min", 2, OP_MIN, 0},
    {"max", 2, OP_MAX, 0},     {"atan2", 2, OP_ATAN2, 0}, {"if", 3, OP_SELECT, 0},
    {"fabs", 1, OP_ABS, 1},    {"fmin", 2, OP_MIN, 1},  {"fmax", 2, OP_MAX, 1},
};

static const char *const xyz[3] = {"x", "y", "z"};

typedef struct {
  const char *text;
  const char *where;
  const char *const *names;
  int n_names;
  int legacy; /* feint_expr_create: x, y, z and its messages */
  size_t pos;
  instr *code;
  int n, cap;
  int depth, max_depth;
  int nesting;
} parser;

/* The value of an operation on constants (folding) and of the operations
 * the evaluator does not write out inline. */
static inline double apply(int op, double a, double b, double c) {
  switch (op) {
  case OP_ADD: return a + b;
  case OP_SUB: return a - b;
  case OP_MUL: return a * b;
  case OP_DIV: return a / b;
  case OP_POW: return pow(a, b);
  case OP_LT: return a < b;
  case OP_LE: return a <= b;
  case OP_GT: return a > b;
  case OP_GE: return a >= b;
  case OP_EQ: return a == b;
  case OP_NE: return a != b;
  case OP_NEG: return -a;
  case OP_SIN: return sin(a);
  case OP_COS: return cos(a);
  case OP_TAN: return tan(a);
  case OP_EXP: return exp(a);
  case OP_LOG: return log(a);
  case OP_SQRT: return sqrt(a);
  case OP_ABS: return fabs(a);
  case OP_TANH: return tanh(a);
  case OP_SINH: return sinh(a);
  case OP_COSH: return cosh(a);
  case OP_FLOOR: return floor(a);
  case OP_CEIL: return ceil(a);
  case OP_SIGN: return a > 0 ? 1.0 : a < 0 ? -1.0 : 0.0;
  case OP_MIN: return fmin(a, b);
  case OP_MAX: return fmax(a, b);
  case OP_ATAN2: return atan2(a, b);
  case OP_SELECT: return a != 0 ? b : c;
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

/* "<where>: in expression "<text>": <what> at character N<hint>" */
static int syntax_error_hint(parser *p, size_t pos, const char *what, const char *hint) {
  if (p->where)
    return feint_error_set(FEINT_ERR_INPUT, "%s: in expression \"%s\": %s at character %zu%s",
                           p->where, p->text, what, pos + 1, hint);
  return feint_error_set(FEINT_ERR_INPUT, "in expression \"%s\": %s at character %zu%s", p->text,
                         what, pos + 1, hint);
}

static int syntax_error(parser *p, size_t pos, const char *fmt, const char *arg) {
  char what[256];
  snprintf(what, sizeof what, fmt, arg ? arg : "");
  return syntax_error_hint(p, pos, what, "");
}

static int emit(parser *p, int op, int sym, double value) {
  if (p->n == p->cap) {
    int cap = p->cap ? 2 * p->cap : 16;
    instr *code = realloc(p->code, (size_t)cap * sizeof *code);
    if (!code)
      return feint_error_set(FEINT_ERR_COMPUTE, "out of memory allocating expression program");
    p->code = code;
    p->cap = cap;
  }
  p->code[p->n].op = op;
  p->code[p->n].sym = sym;
  p->code[p->n].value = value;
  p->n++;
  return FEINT_OK;
}

/* Emit an operand (pushes one value). */
static int emit_push(parser *p, int op, int sym, double value) {
  FEINT_CALL(emit(p, op, sym, value));
  p->depth++;
  if (p->depth > p->max_depth) p->max_depth = p->depth;
  if (p->max_depth > FEINT_EXPR_MAX_STACK)
    return syntax_error(p, p->pos, "expression too deeply nested%s", "");
  return FEINT_OK;
}

/* Emit an operator taking its operands and pushing one value, folding
 * constants: when the last nargs instructions are constants they are its
 * operands (each one whole). */
static int emit_op(parser *p, int op) {
  const int nargs = ops[op].nargs;
  int fold = p->n >= nargs;
  for (int k = 1; fold && k <= nargs; k++) fold = p->code[p->n - k].op == OP_CONST;
  if (fold) {
    double v[3] = {0, 0, 0};
    for (int k = 0; k < nargs; k++) v[k] = p->code[p->n - nargs + k].value;
    p->n -= nargs - 1;
    p->depth -= nargs - 1;
    p->code[p->n - 1].value = apply(op, v[0], v[1], v[2]);
    return FEINT_OK;
  }
  FEINT_CALL(emit(p, op, 0, 0.0));
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
  return emit_push(p, OP_CONST, 0, v);
}

/* Levenshtein distance of a and b, both shorter than FEINT_EXPR_MAX_NAME. */
static int edit_distance(const char *a, const char *b) {
  int row[FEINT_EXPR_MAX_NAME + 1];
  const int la = (int)strlen(a), lb = (int)strlen(b);
  for (int j = 0; j <= lb; j++) row[j] = j;
  for (int i = 1; i <= la; i++) {
    int diag = row[0];
    row[0] = i;
    for (int j = 1; j <= lb; j++) {
      const int up = row[j];
      int best = diag + (a[i - 1] != b[j - 1]);
      if (up + 1 < best) best = up + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      row[j] = best;
      diag = up;
    }
  }
  return row[lb];
}

/* "unknown symbol "name" at character N", with the nearest symbol when one
 * is within 2 edits (1 for a 2-letter name, none for one letter). */
static int unknown_symbol(parser *p, size_t start, const char *name) {
  const int len = (int)strlen(name);
  int best = -1, best_d = INT_MAX;
  for (int i = 0; i < p->n_names; i++) {
    const int d = edit_distance(name, p->names[i]);
    if (d < best_d) best_d = d, best = i;
  }
  char what[FEINT_EXPR_MAX_NAME + 32], hint[FEINT_EXPR_MAX_NAME + 32] = "";
  snprintf(what, sizeof what, "unknown symbol \"%s\"", name);
  if (best >= 0 && best_d <= 2 && best_d < len)
    snprintf(hint, sizeof hint, " (did you mean \"%s\"?)", p->names[best]);
  return syntax_error_hint(p, start, what, hint);
}

static const function_def *find_function(const char *name) {
  for (size_t i = 0; i < sizeof functions / sizeof functions[0]; i++)
    if (strcmp(functions[i].name, name) == 0) return &functions[i];
  return NULL;
}

static int parse_call(parser *p, const function_def *f) {
  p->pos++; /* '(' */
  if (++p->nesting > FEINT_EXPR_MAX_NESTING)
    return syntax_error(p, p->pos, "expression too deeply nested%s", "");
  for (int a = 0; a < f->nargs; a++) {
    if (a > 0) {
      skip_space(p);
      if (p->text[p->pos] != ',') {
        char msg[96];
        snprintf(msg, sizeof msg, "expected ',' (%s takes %d arguments)", f->name, f->nargs);
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
  return emit_op(p, f->op);
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
    char name[FEINT_EXPR_MAX_NAME];
    if (len >= sizeof name) return syntax_error(p, start, "name too long%s", "");
    memcpy(name, p->text + start, len);
    name[len] = '\0';
    p->pos = start + len;
    skip_space(p);
    const function_def *f = find_function(name);
    if (p->text[p->pos] == '(') {
      if (!f)
        return syntax_error(p, start,
                            "unknown function '%s' (expected one of sin cos tan exp log sqrt "
                            "abs tanh sinh cosh floor ceil sign pow min max atan2 if)",
                            name);
      return parse_call(p, f);
    }
    for (int i = 0; i < p->n_names; i++)
      if (strcmp(p->names[i], name) == 0) return emit_push(p, OP_SYM, i, 0.0);
    if (strcmp(name, "pi") == 0) return emit_push(p, OP_CONST, 0, 3.14159265358979323846);
    if (strcmp(name, "e") == 0) return emit_push(p, OP_CONST, 0, 2.71828182845904523536);
    if (f) return syntax_error(p, p->pos, "expected '(' after function name%s", "");
    if (p->legacy)
      return syntax_error(p, start, "unknown name '%s' (expected x, y, z, pi or e)", name);
    return unknown_symbol(p, start, name);
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
    FEINT_CALL(emit_op(p, OP_POW));
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
    if (c == '-') FEINT_CALL(emit_op(p, OP_NEG));
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
    FEINT_CALL(emit_op(p, c == '*' ? OP_MUL : OP_DIV));
  }
}

static int parse_sum(parser *p) {
  FEINT_CALL(parse_term(p));
  for (;;) {
    skip_space(p);
    char c = p->text[p->pos];
    if (c != '+' && c != '-') return FEINT_OK;
    p->pos++;
    FEINT_CALL(parse_term(p));
    FEINT_CALL(emit_op(p, c == '+' ? OP_ADD : OP_SUB));
  }
}

/* The comparison operator at the parser's position (its length in *len),
 * or -1. */
static int comparison_at(const parser *p, size_t *len) {
  const char c = p->text[p->pos], d = c ? p->text[p->pos + 1] : '\0';
  *len = d == '=' ? 2 : 1;
  if (c == '<') return d == '=' ? OP_LE : OP_LT;
  if (c == '>') return d == '=' ? OP_GE : OP_GT;
  if (c == '=' && d == '=') return OP_EQ;
  if (c == '!' && d == '=') return OP_NE;
  return -1;
}

static int parse_compare(parser *p) {
  FEINT_CALL(parse_sum(p));
  skip_space(p);
  size_t len;
  const int op = comparison_at(p, &len);
  if (op < 0) {
    if (p->text[p->pos] == '=')
      return syntax_error(p, p->pos, "expected '==' to compare, not '='%s", "");
    return FEINT_OK;
  }
  p->pos += len;
  FEINT_CALL(parse_sum(p));
  FEINT_CALL(emit_op(p, op));
  skip_space(p);
  if (comparison_at(p, &len) >= 0)
    return syntax_error(p, p->pos, "comparisons do not chain (write (a < b) == c)%s", "");
  return FEINT_OK;
}

static int parse_expr(parser *p) {
  if (++p->nesting > FEINT_EXPR_MAX_NESTING)
    return syntax_error(p, p->pos, "expression too deeply nested%s", "");
  FEINT_CALL(parse_compare(p));
  skip_space(p);
  if (p->text[p->pos] == '?') {
    p->pos++;
    FEINT_CALL(parse_expr(p));
    skip_space(p);
    if (p->text[p->pos] != ':')
      return syntax_error(p, p->pos, "expected ':' (of a conditional c ? a : b)%s", "");
    p->pos++;
    FEINT_CALL(parse_expr(p));
    FEINT_CALL(emit_op(p, OP_SELECT));
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

/* The program of p as an expression over n_sym symbols (takes p->code). */
static int finish(parser *p, int n_sym, feint_expr **out) {
  feint_expr *e;
  int status = feint_calloc(1, sizeof *e, &e, "expression");
  if (status) {
    free(p->code);
    return status;
  }
  e->n = p->n;
  e->max_depth = p->max_depth;
  e->code = p->code;
  e->n_sym = n_sym;
  e->constant = 1;
  for (int i = 0; i < p->n; i++)
    if (p->code[i].op == OP_SYM) e->constant = 0;
  *out = e;
  return FEINT_OK;
}

static int parse_text(parser *p, int n_sym, feint_expr **out) {
  int status = parse_all(p);
  if (status) {
    free(p->code);
    return status;
  }
  return finish(p, n_sym, out);
}

int feint_expr_create(const char *text, const char *where, feint_expr **out) {
  *out = NULL;
  if (!text) text = "";
  parser p = {.text = text, .where = where, .names = xyz, .n_names = 3, .legacy = 1};
  return parse_text(&p, 3, out);
}

/* A table name: an identifier shorter than FEINT_EXPR_MAX_NAME, not pi, e
 * or an earlier name. */
static int check_name(const char *const *names, int i, const char *where) {
  const char *s = names[i];
  int ok = s && is_alpha(s[0]) && strlen(s) < FEINT_EXPR_MAX_NAME && strcmp(s, "pi") != 0 &&
           strcmp(s, "e") != 0;
  for (size_t k = 0; ok && s[k]; k++) ok = is_alpha(s[k]) || is_digit(s[k]);
  for (int j = 0; ok && j < i; j++) ok = strcmp(names[j], s) != 0;
  if (ok) return FEINT_OK;
  return feint_error_set(FEINT_ERR_INPUT,
                         "%s%ssymbol %d \"%s\": expected a name of letters, digits and '_' "
                         "(not pi or e, at most %d bytes, each name once)",
                         where ? where : "", where ? ": " : "", i, s ? s : "(null)",
                         FEINT_EXPR_MAX_NAME - 1);
}

int feint_expr_create_symbols(const char *text, const char *where, const char *const *names,
                              int n_names, feint_expr **out) {
  *out = NULL;
  if (!text) text = "";
  if (n_names < 0) n_names = 0;
  for (int i = 0; i < n_names; i++) FEINT_CALL(check_name(names, i, where));
  parser p = {.text = text, .where = where, .names = names, .n_names = n_names};
  return parse_text(&p, n_names, out);
}

void feint_expr_destroy(feint_expr *expr) {
  if (!expr) return;
  free(expr->code);
  free(expr);
}

/* The evaluator: each operation a case of its own (apply() with a
 * constant op inlines to the operation alone), so the loop stays one
 * jump per instruction. */
#define EVAL_UNARY(op) \
  case op: stack[top] = apply(op, stack[top], 0.0, 0.0); break
#define EVAL_BINARY(op) \
  case op: top--; stack[top] = apply(op, stack[top], stack[top + 1], 0.0); break
/* inlined into both entry points: feint_expr_eval's x, y, z stay local */
static inline __attribute__((always_inline)) double run(const feint_expr *expr,
                                                        const double *values) {
  const instr *code = expr->code;
  const int n = expr->n;
  if (n == 1) return code[0].op == OP_CONST ? code[0].value : values[code[0].sym];
  double stack[FEINT_EXPR_MAX_STACK];
  int top = -1; /* index of the top value */
  for (int i = 0; i < n; i++) {
    switch (code[i].op) {
    case OP_CONST: stack[++top] = code[i].value; break;
    case OP_SYM: stack[++top] = values[code[i].sym]; break;
    case OP_POW: {
      top--;
      double b = stack[top + 1];
      if (b == 2.0)
        stack[top] *= stack[top];
      else
        stack[top] = pow(stack[top], b);
      break;
    }
    case OP_SELECT: top -= 2; stack[top] = apply(OP_SELECT, stack[top], stack[top + 1], stack[top + 2]); break;
    EVAL_BINARY(OP_ADD); EVAL_BINARY(OP_SUB); EVAL_BINARY(OP_MUL); EVAL_BINARY(OP_DIV);
    EVAL_BINARY(OP_LT); EVAL_BINARY(OP_LE); EVAL_BINARY(OP_GT); EVAL_BINARY(OP_GE);
    EVAL_BINARY(OP_EQ); EVAL_BINARY(OP_NE); EVAL_BINARY(OP_MIN); EVAL_BINARY(OP_MAX);
    EVAL_BINARY(OP_ATAN2);
    EVAL_UNARY(OP_NEG); EVAL_UNARY(OP_SIN); EVAL_UNARY(OP_COS); EVAL_UNARY(OP_TAN);
    EVAL_UNARY(OP_EXP); EVAL_UNARY(OP_LOG); EVAL_UNARY(OP_SQRT); EVAL_UNARY(OP_ABS);
    EVAL_UNARY(OP_TANH); EVAL_UNARY(OP_SINH); EVAL_UNARY(OP_COSH); EVAL_UNARY(OP_FLOOR);
    EVAL_UNARY(OP_CEIL); EVAL_UNARY(OP_SIGN);
    default: break;
    }
  }
  return stack[0];
}

double feint_expr_eval_values(const feint_expr *expr, const double *values) {
  return run(expr, values);
}

double feint_expr_eval(const feint_expr *expr, double x, double y, double z) {
  if (expr->n_sym > 3) return NAN;
  const double values[3] = {x, y, z};
  return run(expr, values);
}

int feint_expr_is_constant(const feint_expr *expr) { return expr->constant; }

int feint_expr_n_symbols(const feint_expr *expr) { return expr->n_sym; }

int feint_expr_length(const feint_expr *expr) { return expr->n; }

int feint_expr_uses(const feint_expr *expr, int symbol) {
  for (int i = 0; i < expr->n; i++)
    if (expr->code[i].op == OP_SYM && expr->code[i].sym == symbol) return 1;
  return 0;
}

/* ---- the expression tree: derivatives and C source ---- */

typedef struct {
  int op, sym;
  double value;
  int arg[3];
  int height; /* levels, this node's included */
  int need;   /* stack slots of its program (written by put_program) */
  int size;   /* instructions of its program (saturates at INT_MAX / 2) */
} node;

/* Nodes are made by make() and simplify(); the first failure is kept in
 * status and every later call returns -1, so the rules below read as
 * formulas and are checked once at the end. */
typedef struct {
  node *v;
  int n, cap;
  int status;
} tree;

static int commutes(int op) { return op == OP_ADD || op == OP_MUL; }

static int make(tree *t, int op, int sym, double value, int a, int b, int c) {
  const int nargs = ops[op].nargs, arg[3] = {a, b, c};
  if (t->status) return -1;
  if (t->n == t->cap) {
    int cap = t->cap ? 2 * t->cap : 64;
    node *v = realloc(t->v, (size_t)cap * sizeof *v);
    if (!v) {
      t->status = feint_error_set(FEINT_ERR_COMPUTE, "out of memory allocating expression tree");
      return -1;
    }
    t->v = v;
    t->cap = cap;
  }
  node *nd = &t->v[t->n];
  *nd = (node){.op = op, .sym = sym, .value = value, .arg = {-1, -1, -1}, .height = 1,
               .need = 1, .size = 1};
  int need[3] = {0, 0, 0};
  for (int k = 0; k < nargs; k++) {
    const node *child = &t->v[arg[k]];
    nd->arg[k] = arg[k];
    if (child->height + 1 > nd->height) nd->height = child->height + 1;
    nd->size = nd->size + child->size > INT_MAX / 2 ? INT_MAX / 2 : nd->size + child->size;
    need[k] = child->need;
  }
  if (commutes(op) && need[1] > need[0]) { /* put_program writes it first */
    const int s = need[0];
    need[0] = need[1];
    need[1] = s;
  }
  for (int k = 0; k < nargs; k++)
    if (need[k] + k > nd->need) nd->need = need[k] + k;
  if (nd->height > FEINT_EXPR_MAX_HEIGHT) {
    t->status = feint_error_set(FEINT_ERR_INPUT,
                                "expression too deeply nested to differentiate or write as C "
                                "(more than %d levels)",
                                FEINT_EXPR_MAX_HEIGHT);
    return -1;
  }
  return t->n++;
}

static int constant(tree *t, double v) { return make(t, OP_CONST, 0, v, -1, -1, -1); }

static int is_value(const tree *t, int i, double v) {
  return t->v[i].op == OP_CONST && t->v[i].value == v;
}

static int is_const(const tree *t, int i) { return t->v[i].op == OP_CONST; }

/* A product c * rest with a constant c (*rest = its other factor). */
static int const_factor(const tree *t, int i, int *rest) {
  if (t->v[i].op != OP_MUL || !is_const(t, t->v[i].arg[0])) return 0;
  *rest = t->v[i].arg[1];
  return 1;
}

/* The node op(a, b, c), simplified: constants folded; a + 0, a - 0, 0 - a,
 * a * 0, a * 1, a * -1, 0 / a, a / 1, a ^ 1, a ^ 0, --a dropped; a + -b is
 * a - b; constant factors of a product pulled to its left and multiplied;
 * a conditional with a constant condition or equal branches is one branch.
 * a * 0 = 0 assumes a finite (the derivatives are meant for finite values). */
static int simplify(tree *t, int op, int a, int b, int c) {
  const int nargs = ops[op].nargs, arg[3] = {a, b, c};
  if (t->status) return -1;
  int all_const = 1;
  for (int k = 0; k < nargs; k++) all_const = all_const && is_const(t, arg[k]);
  if (all_const)
    return constant(t, apply(op, nargs > 0 ? t->v[a].value : 0, nargs > 1 ? t->v[b].value : 0,
                             nargs > 2 ? t->v[c].value : 0));
  int r;
  switch (op) {
  case OP_ADD:
    if (is_value(t, a, 0)) return b;
    if (is_value(t, b, 0)) return a;
    if (t->v[b].op == OP_NEG) return simplify(t, OP_SUB, a, t->v[b].arg[0], -1);
    if (t->v[a].op == OP_NEG) return simplify(t, OP_SUB, b, t->v[a].arg[0], -1);
    break;
  case OP_SUB:
    if (is_value(t, b, 0)) return a;
    if (is_value(t, a, 0)) return simplify(t, OP_NEG, b, -1, -1);
    if (t->v[b].op == OP_NEG) return simplify(t, OP_ADD, a, t->v[b].arg[0], -1);
    break;
  case OP_NEG:
    if (t->v[a].op == OP_NEG) return t->v[a].arg[0];
    if (const_factor(t, a, &r))
      return simplify(t, OP_MUL, constant(t, -t->v[t->v[a].arg[0]].value), r, -1);
    break;
  case OP_MUL:
    if (is_value(t, a, 0) || is_value(t, b, 0)) return constant(t, 0.0);
    if (is_value(t, a, 1)) return b;
    if (is_value(t, b, 1)) return a;
    if (is_value(t, a, -1)) return simplify(t, OP_NEG, b, -1, -1);
    if (is_value(t, b, -1)) return simplify(t, OP_NEG, a, -1, -1);
    if (is_const(t, b)) return simplify(t, OP_MUL, b, a, -1);
    if (t->v[a].op == OP_NEG)
      return simplify(t, OP_NEG, simplify(t, OP_MUL, t->v[a].arg[0], b, -1), -1, -1);
    if (t->v[b].op == OP_NEG)
      return simplify(t, OP_NEG, simplify(t, OP_MUL, a, t->v[b].arg[0], -1), -1, -1);
    if (is_const(t, a) && const_factor(t, b, &r))
      return simplify(t, OP_MUL, simplify(t, OP_MUL, a, t->v[b].arg[0], -1), r, -1);
    if (!is_const(t, a) && const_factor(t, a, &r))
      return simplify(t, OP_MUL, t->v[a].arg[0], simplify(t, OP_MUL, r, b, -1), -1);
    if (!is_const(t, a) && const_factor(t, b, &r))
      return simplify(t, OP_MUL, t->v[b].arg[0], simplify(t, OP_MUL, a, r, -1), -1);
    break;
  case OP_DIV:
    if (is_value(t, a, 0)) return constant(t, 0.0);
    if (is_value(t, b, 1)) return a;
    if (is_value(t, b, -1)) return simplify(t, OP_NEG, a, -1, -1);
    break;
  case OP_POW:
    if (is_value(t, b, 1)) return a;
    if (is_value(t, b, 0)) return constant(t, 1.0);
    break;
  case OP_SELECT:
    if (is_const(t, a)) return t->v[a].value != 0 ? b : c;
    if (b == c || (is_const(t, b) && is_const(t, c) && t->v[b].value == t->v[c].value)) return b;
    break;
  default: break;
  }
  return make(t, op, 0, 0.0, a, b, c);
}

static int mul(tree *t, int a, int b) { return simplify(t, OP_MUL, a, b, -1); }
static int divide(tree *t, int a, int b) { return simplify(t, OP_DIV, a, b, -1); }
static int add(tree *t, int a, int b) { return simplify(t, OP_ADD, a, b, -1); }
static int sub(tree *t, int a, int b) { return simplify(t, OP_SUB, a, b, -1); }
static int fn(tree *t, int op, int a) { return simplify(t, op, a, -1, -1); }
static int square(tree *t, int a) { return simplify(t, OP_POW, a, constant(t, 2.0), -1); }

/* The program of e as a tree, unsimplified (*root: its last node). */
static int read_program(tree *t, const feint_expr *e, int *root) {
  int stack[FEINT_EXPR_MAX_STACK];
  int top = -1;
  for (int i = 0; i < e->n; i++) {
    const instr *in = &e->code[i];
    const int k = ops[in->op].nargs;
    top -= k;
    const int a = k > 0 ? stack[top + 1] : -1, b = k > 1 ? stack[top + 2] : -1,
              c = k > 2 ? stack[top + 3] : -1;
    stack[++top] = make(t, in->op, in->sym, in->value, a, b, c);
    if (t->status) return t->status;
  }
  *root = stack[0];
  return FEINT_OK;
}

/* d node i / d symbol k. */
static int derive(tree *t, int i, int k) {
  if (t->status) return -1;
  const node nd = t->v[i]; /* a copy: make() may move the array */
  const int a = nd.arg[0], b = nd.arg[1];
  const int nargs = ops[nd.op].nargs;
  int dv[3] = {-1, -1, -1}, depends = 0;
  for (int j = 0; j < nargs; j++) {
    dv[j] = derive(t, nd.arg[j], k);
    if (t->status) return -1;
    depends = depends || !is_value(t, dv[j], 0);
  }
  /* what does not depend on symbol k has derivative 0, even where it is
   * inf or nan (x/0) */
  if (nargs > 0 && !depends) return constant(t, 0.0);
  const int da = dv[0], db = dv[1];
  switch (nd.op) {
  case OP_SYM: return constant(t, nd.sym == k ? 1.0 : 0.0);
  case OP_ADD: return add(t, da, db);
  case OP_SUB: return sub(t, da, db);
  case OP_NEG: return fn(t, OP_NEG, da);
  case OP_MUL: return add(t, mul(t, da, b), mul(t, a, db));
  case OP_DIV:
    if (is_value(t, db, 0)) return divide(t, da, b);
    return divide(t, sub(t, mul(t, da, b), mul(t, a, db)), square(t, b));
  case OP_POW:
    if (is_value(t, db, 0)) /* b a^(b-1) a' */
      return mul(t, mul(t, b, simplify(t, OP_POW, a, sub(t, b, constant(t, 1.0)), -1)), da);
    /* a^b (b' log a + b a' / a) */
    return mul(t, i, add(t, mul(t, db, fn(t, OP_LOG, a)), divide(t, mul(t, b, da), a)));
  case OP_SIN: return mul(t, fn(t, OP_COS, a), da);
  case OP_COS: return fn(t, OP_NEG, mul(t, fn(t, OP_SIN, a), da));
  case OP_TAN: return divide(t, da, square(t, fn(t, OP_COS, a)));
  case OP_EXP: return mul(t, i, da);
  case OP_LOG: return divide(t, da, a);
  case OP_SQRT: return divide(t, da, mul(t, constant(t, 2.0), i));
  case OP_ABS: return mul(t, fn(t, OP_SIGN, a), da);
  case OP_TANH: return mul(t, sub(t, constant(t, 1.0), square(t, i)), da);
  case OP_SINH: return mul(t, fn(t, OP_COSH, a), da);
  case OP_COSH: return mul(t, fn(t, OP_SINH, a), da);
  case OP_MIN: return simplify(t, OP_SELECT, simplify(t, OP_LE, a, b, -1), da, db);
  case OP_MAX: return simplify(t, OP_SELECT, simplify(t, OP_GE, a, b, -1), da, db);
  case OP_ATAN2: /* d atan2(a, b) = (b a' - a b') / (a^2 + b^2) */
    return divide(t, sub(t, mul(t, b, da), mul(t, a, db)), add(t, square(t, a), square(t, b)));
  case OP_SELECT: return simplify(t, OP_SELECT, a, db, dv[2]);
  default: return constant(t, 0.0); /* constants, floor, ceil, sign, comparisons */
  }
}

/* Write node i's program at code + *n (operands of + and * larger first). */
static void put_program(const tree *t, int i, instr *code, int *n) {
  const node *nd = &t->v[i];
  const int nargs = ops[nd->op].nargs;
  if (commutes(nd->op) && t->v[nd->arg[1]].need > t->v[nd->arg[0]].need) {
    put_program(t, nd->arg[1], code, n);
    put_program(t, nd->arg[0], code, n);
  } else {
    for (int k = 0; k < nargs; k++) put_program(t, nd->arg[k], code, n);
  }
  code[*n] = (instr){.op = nd->op, .sym = nd->sym, .value = nd->value};
  (*n)++;
}

int feint_expr_derivative(const feint_expr *expr, int symbol, feint_expr **out) {
  *out = NULL;
  if (symbol < 0 || symbol >= expr->n_sym)
    return feint_error_set(FEINT_ERR_INPUT,
                           "derivative in symbol %d of an expression of %d symbols", symbol,
                           expr->n_sym);
  tree t = {0};
  int root, status = read_program(&t, expr, &root);
  if (!status) {
    const int d = derive(&t, root, symbol);
    status = t.status;
    if (!status && t.v[d].need > FEINT_EXPR_MAX_STACK)
      status = feint_error_set(FEINT_ERR_INPUT,
                               "derivative too deeply nested to evaluate (%d stack slots, at most "
                               "%d)",
                               t.v[d].need, FEINT_EXPR_MAX_STACK);
    if (!status && t.v[d].size > FEINT_EXPR_MAX_LENGTH)
      status = feint_error_set(FEINT_ERR_INPUT,
                               "derivative too long (more than %d instructions)",
                               FEINT_EXPR_MAX_LENGTH);
    parser p = {0};
    if (!status) status = feint_malloc((size_t)t.v[d].size, sizeof *p.code, &p.code, "derivative");
    if (!status) {
      put_program(&t, d, p.code, &p.n);
      p.max_depth = t.v[d].need;
      status = finish(&p, expr->n_sym, out);
    }
  }
  free(t.v);
  return status;
}

/* ---- C source ---- */

typedef struct {
  char *buf;
  size_t size, len; /* len: what the whole text needs */
} writer;

static void put(writer *w, const char *s) {
  const size_t n = strlen(s);
  if (w->len + 1 < w->size) {
    const size_t room = w->size - 1 - w->len;
    memcpy(w->buf + w->len, s, n < room ? n : room);
  }
  w->len += n;
}

/* A double literal that reads back as v (in C and in this parser). */
static void put_constant(writer *w, double v) {
  char s[48];
  if (isnan(v)) {
    put(w, "(0.0 / 0.0)");
    return;
  }
  if (isinf(v)) {
    put(w, v > 0 ? "(1.0 / 0.0)" : "(-1.0 / 0.0)");
    return;
  }
  snprintf(s, sizeof s - 4, "%.17g", v);
  if (!strpbrk(s, ".e")) strcat(s, ".0");
  if (s[0] == '-') put(w, "(");
  put(w, s);
  if (s[0] == '-') put(w, ")");
}

static void put_c(writer *w, const tree *t, int i, const char *const *symbols) {
  const node *nd = &t->v[i];
  const int *arg = nd->arg;
  switch (ops[nd->op].c_form) {
  case C_LEAF:
    if (nd->op == OP_CONST)
      put_constant(w, nd->value);
    else
      put(w, symbols[nd->sym]);
    return;
  case C_INFIX:
  case C_COMPARE:
    put(w, ops[nd->op].c_form == C_COMPARE ? "((" : "(");
    put_c(w, t, arg[0], symbols);
    put(w, ops[nd->op].c_text);
    put_c(w, t, arg[1], symbols);
    put(w, ops[nd->op].c_form == C_COMPARE ? ") ? 1.0 : 0.0)" : ")");
    return;
  case C_CALL:
    if (nd->op == OP_POW && is_value(t, arg[1], 2.0) && ops[t->v[arg[0]].op].c_form == C_LEAF) {
      /* a^2 of a symbol or constant as the evaluator computes it */
      put(w, "(");
      put_c(w, t, arg[0], symbols);
      put(w, " * ");
      put_c(w, t, arg[0], symbols);
      put(w, ")");
      return;
    }
    put(w, ops[nd->op].c_text);
    put(w, "(");
    for (int k = 0; k < ops[nd->op].nargs; k++) {
      if (k) put(w, ", ");
      put_c(w, t, arg[k], symbols);
    }
    put(w, ")");
    return;
  default: break;
  }
  if (nd->op == OP_NEG) {
    put(w, "(-");
    put_c(w, t, arg[0], symbols);
    put(w, ")");
  } else if (nd->op == OP_SIGN) { /* a > 0 ? 1 : a < 0 ? -1 : 0, as apply() */
    put(w, "((");
    put_c(w, t, arg[0], symbols);
    put(w, " > 0.0) ? 1.0 : ((");
    put_c(w, t, arg[0], symbols);
    put(w, " < 0.0) ? (-1.0) : 0.0))");
  } else { /* OP_SELECT; a comparison as its condition needs no 1.0 : 0.0 */
    const node *cond = &t->v[arg[0]];
    put(w, "(");
    if (ops[cond->op].c_form == C_COMPARE) {
      put(w, "(");
      put_c(w, t, cond->arg[0], symbols);
      put(w, ops[cond->op].c_text);
      put_c(w, t, cond->arg[1], symbols);
      put(w, ")");
    } else {
      put_c(w, t, arg[0], symbols);
    }
    put(w, " ? ");
    put_c(w, t, arg[1], symbols);
    put(w, " : ");
    put_c(w, t, arg[2], symbols);
    put(w, ")");
  }
}

int feint_expr_emit_c(const feint_expr *expr, const char *const *symbols, char *buf, size_t size,
                      size_t *length) {
  writer w = {.buf = buf, .size = size};
  tree t = {0};
  int root, status = read_program(&t, expr, &root);
  if (!status) put_c(&w, &t, root, symbols);
  free(t.v);
  if (size > 0) buf[w.len < size ? w.len : size - 1] = '\0';
  if (length) *length = status ? 0 : w.len;
  return status;
}
