/* feint case: load the YAML case file, apply `--set` overrides, validate
 * against the schema of shared/case-format.md and fill a feint_case.
 *
 * Conventions (beyond case-format.md):
 *  - A null value (`key:`, `key: ~`, `--set key=null`) is the same as the key
 *    being absent, so an override can unset an optional key. An empty
 *    --set value (`--set key=`) is refused: mostly an unset shell variable.
 *  - Relative paths (mesh.file, output.file, dataset files) are resolved
 *    against the case file's directory, also when they come from --set, so a
 *    case and its as_run text mean the same files wherever feint is run from.
 *  - Integers must be written as integers (`order: 2`, not `2.0`).
 *  - A dataset value {file, dataset, on} needs all three keys.
 *  - A boundary entry needs `group` and at least one of dirichlet/neumann/
 *    flux/robin (flux, a vector q of the value q . n, not beside neumann);
 *    in their lists a null item is a free component (kind
 *    FEINT_VALUE_NONE). robin is {alpha, value}: alpha required (a value,
 *    a list per component or a list of lists = a tensor), value optional
 *    (0; a value or a list per component).
 *  - Numeric path components in --set index sequences: boundary.0.neumann=2
 *    (an entry that exists; a list is made or grown by setting it whole).
 *  - Physics keys the kind does not read are accepted with a warning
 *    (feint_case.warnings), so one case can sweep over kinds. */
#include "feint/case.h"

#include <errno.h>
#include <unistd.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case/tree.h"
#include "feint/error.h"
#include "feint/expr.h"
#include "feint/fe.h"
#include "feint/sha256.h"

typedef struct {
  const char *display; /* the case file's name in messages */
  char *dir;           /* directory for relative paths; "" = current directory */
  feint_case *c;
} loader;

/* ------------------------------------------------------------- messages */

/* "<where node n is (tree_where)>: message" (the error's location is the
 * caller's) */
#define fail_at(...) fail_at_loc(__FILE__, __LINE__, __VA_ARGS__)
static int fail_at_loc(const char *file, int line, const tree_node *n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail_at_loc(const char *file, int line, const tree_node *n, const char *fmt, ...) {
  char where[512];
  va_list ap;
  va_start(ap, fmt);
  int s = feint_error_set_at_loc(file, line, FEINT_ERR_INPUT, tree_where(n, where, sizeof where), fmt, ap);
  va_end(ap);
  return s;
}

static void set_where(char dst[256], const tree_node *n) {
  char buf[512];
  tree_where(n, buf, sizeof buf);
  size_t len = feint_utf8_cut(buf, 255);
  memcpy(dst, buf, len);
  dst[len] = '\0';
}

/* "a sequence", "the string 'x'", ... for "got ..." messages. */
static const char *describe(const tree_node *n, char *buf, size_t size) {
  int w = 0;
  if (n->kind == TREE_MAP)
    w = snprintf(buf, size, n->n ? "a mapping" : "an empty mapping");
  else if (n->kind == TREE_SEQ)
    w = snprintf(buf, size, n->n ? "a sequence" : "an empty sequence");
  else if (tree_is_null(n))
    w = snprintf(buf, size, "null");
  else {
    /* at most 60 bytes of the value, cut between characters */
    const int cut = (int)feint_utf8_cut(n->text, 60);
    const char *more = n->text[cut] ? "..." : "";
    w = n->quoted ? snprintf(buf, size, "the string \"%.*s%s\"", cut, n->text, more)
                  : snprintf(buf, size, "'%.*s%s'", cut, n->text, more);
  }
  if (w < 0 && size) buf[0] = '\0';
  return buf;
}

static int wrong_type(const tree_node *n, const char *name, const char *expected) {
  char got[128];
  return fail_at(n, "%s: expected %s, got %s", name, expected, describe(n, got, sizeof got));
}

static size_t levenshtein(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  if (la > 64 || lb > 64) return la > lb ? la : lb;
  size_t row[65];
  for (size_t j = 0; j <= lb; j++) row[j] = j;
  for (size_t i = 1; i <= la; i++) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= lb; j++) {
      size_t up = row[j];
      size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      size_t best = diag + cost;
      if (row[j] + 1 < best) best = row[j] + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      row[j] = best;
      diag = up;
    }
  }
  return row[lb];
}

/* Every key of `map` must be in `keys`; section is "physics" etc., or NULL
 * for the top level. */
static int check_keys(const tree_node *map, const char *const *keys, const char *section) {
  for (size_t i = 0; i < map->n; i++) {
    const tree_node *k = map->keys[i];
    int known = 0;
    for (const char *const *p = keys; *p; p++)
      if (!strcmp(*p, k->text)) known = 1;
    if (known) continue;
    const char *best = NULL;
    size_t best_d = (size_t)-1;
    for (const char *const *p = keys; *p; p++) {
      size_t d = levenshtein(k->text, *p);
      if (d < best_d) {
        best_d = d;
        best = *p;
      }
    }
    char in[160];
    in[0] = '\0';
    if (section && snprintf(in, sizeof in, " in %s", section) < 0) in[0] = '\0';
    const int cut = (int)feint_utf8_cut(k->text, 100);
    if (best && best_d <= 2 && best_d < strlen(k->text))
      return fail_at(k, "unknown %skey '%.*s'%s; did you mean '%s'?", section ? "" : "top-level ", cut,
                     k->text, in, best);
    char list[512] = "";
    size_t used = 0;
    for (const char *const *p = keys; *p; p++) {
      int m = snprintf(list + used, sizeof list - used, "%s%s", p == keys ? "" : ", ", *p);
      if (m < 0 || (size_t)m >= sizeof list - used) break;
      used += (size_t)m;
    }
    return fail_at(k, "unknown %skey '%.*s'%s (valid keys: %s)", section ? "" : "top-level ", cut,
                   k->text, in, list);
  }
  return FEINT_OK;
}

/* ------------------------------------------------------------ accessors */

/* The value of `key` in `map`, NULL when absent or null. */
static const tree_node *field(const tree_node *map, const char *key) {
  const tree_node *v = map ? tree_map_get(map, key) : NULL;
  return v && !tree_is_null(v) ? v : NULL;
}

static int missing(const loader *L, const tree_node *anchor, const char *name) {
  if (anchor) return fail_at(anchor, "missing required key %s", name);
  return feint_error_set(FEINT_ERR_INPUT, "%s:1:1: missing required key %s", L->display, name);
}

/* Section `name` of the root: *map = its mapping (NULL if absent/null),
 * *key = its key node (NULL if absent). */
static int section(const tree_node *root, const char *name, const char *const *keys,
                   const tree_node **map, const tree_node **key) {
  long i = tree_map_find(root, name);
  *map = NULL;
  *key = i >= 0 ? root->keys[i] : NULL;
  if (i < 0 || tree_is_null(root->items[i])) return FEINT_OK;
  const tree_node *v = root->items[i];
  if (v->kind != TREE_MAP) return wrong_type(v, name, "a mapping");
  FEINT_CALL(check_keys(v, keys, name));
  *map = v;
  return FEINT_OK;
}

static int parse_double(const tree_node *n, double *out) {
  if (n->kind != TREE_SCALAR || n->quoted || !n->text[0]) return 0;
  char *end;
  errno = 0;
  double v = strtod(n->text, &end);
  if (*end || errno == ERANGE || !isfinite(v)) return 0;
  *out = v;
  return 1;
}

static int get_number(const tree_node *n, const char *name, double *out) {
  if (!parse_double(n, out)) return wrong_type(n, name, "a number");
  return FEINT_OK;
}

static int get_int(const tree_node *n, const char *name, long lo, long hi, int *out) {
  char *end;
  if (n->kind != TREE_SCALAR || n->quoted || !n->text[0]) return wrong_type(n, name, "an integer");
  errno = 0;
  long v = strtol(n->text, &end, 10);
  if (*end || errno == ERANGE) return wrong_type(n, name, "an integer");
  if (v < lo || v > hi) return fail_at(n, "%s: %ld is out of range %ld..%ld", name, v, lo, hi);
  *out = (int)v;
  return FEINT_OK;
}

static int get_bool(const tree_node *n, const char *name, int *out) {
  if (n->kind == TREE_SCALAR && !n->quoted) {
    const char *t = n->text;
    if (!strcmp(t, "true") || !strcmp(t, "True") || !strcmp(t, "TRUE") || !strcmp(t, "yes") ||
        !strcmp(t, "Yes") || !strcmp(t, "YES")) {
      *out = 1;
      return FEINT_OK;
    }
    if (!strcmp(t, "false") || !strcmp(t, "False") || !strcmp(t, "FALSE") || !strcmp(t, "no") ||
        !strcmp(t, "No") || !strcmp(t, "NO")) {
      *out = 0;
      return FEINT_OK;
    }
  }
  return wrong_type(n, name, "true or false");
}

static int get_string(const tree_node *n, const char *name, char **out) {
  if (n->kind != TREE_SCALAR) return wrong_type(n, name, "a string");
  return feint_strdup(n->text, out);
}

static int get_enum(const tree_node *n, const char *name, const char *const *choices, int *out) {
  char expected[256] = "one of ";
  size_t used = strlen(expected);
  for (int i = 0; choices[i]; i++) {
    if (n->kind == TREE_SCALAR && !strcmp(n->text, choices[i])) {
      *out = i;
      return FEINT_OK;
    }
    int m = snprintf(expected + used, sizeof expected - used, "%s%s", i ? ", " : "", choices[i]);
    if (m > 0 && (size_t)m < sizeof expected - used) used += (size_t)m;
  }
  return wrong_type(n, name, expected);
}

static int resolve_path(const loader *L, const char *p, char **out) {
  if (p[0] == '/' || !L->dir[0]) return feint_strdup(p, out);
  size_t ld = strlen(L->dir), lp = strlen(p);
  int slash = L->dir[ld - 1] != '/';
  FEINT_CALL(feint_malloc(ld + lp + 2, 1, out, "path"));
  memcpy(*out, L->dir, ld);
  if (slash) (*out)[ld] = '/';
  memcpy(*out + ld + slash, p, lp + 1);
  return FEINT_OK;
}

static const char *const value_expected =
    "a number, an expression string, {file, dataset, on} or {groups, default}";

static int get_value(const loader *L, const tree_node *n, const char *name, feint_value *v);

/* One group's (or the default's) value: any value but groups again. */
static int get_group_value(const loader *L, const tree_node *item, const char *sub, feint_value *v) {
  if (item->kind == TREE_MAP && tree_map_find(item, "groups") >= 0)
    return fail_at(item, "%s: groups inside groups: a group's value is a number, an expression or a dataset", sub);
  return get_value(L, item, sub, v);
}

/* {groups: {name: value, ...}, default: value}, each value a number, an
 * expression or a dataset (checked here, where it is written); names are
 * checked against the mesh's cell groups when the form is made (form.c),
 * as the mesh is not read yet. */
static int get_groups(const loader *L, const tree_node *n, const char *name, feint_value *v) {
  static const char *const keys[] = {"groups", "default", NULL};
  FEINT_CALL(check_keys(n, keys, name));
  char sub[200];
  int w = snprintf(sub, sizeof sub, "%s.groups", name);
  if (w < 0) sub[0] = '\0';
  const tree_node *g = tree_map_get(n, "groups"), *d = field(n, "default");
  if (g->kind != TREE_MAP || g->n == 0) return wrong_type(g, sub, "a mapping {group name: value, ...}");
  v->kind = FEINT_VALUE_GROUPS;
  snprintf(v->key, sizeof v->key, "%s", name);
  FEINT_CALL(feint_calloc(g->n, sizeof *v->group_names, &v->group_names, "per-group values"));
  FEINT_CALL(feint_calloc(g->n, sizeof *v->group_value, &v->group_value, "per-group values"));
  FEINT_CALL(feint_calloc(g->n, sizeof *v->group_where, &v->group_where, "per-group values"));
  for (size_t i = 0; i < g->n; i++) {
    const tree_node *k = g->keys[i], *item = g->items[i];
    w = snprintf(sub, sizeof sub, "%s.groups.%.60s", name, k->text);
    if (w < 0) sub[0] = '\0';
    FEINT_CALL(feint_strdup(k->text, &v->group_names[i]));
    v->n_groups = (int)i + 1;
    set_where(v->group_where[i], k);
    FEINT_CALL(get_group_value(L, item, sub, &v->group_value[i]));
  }
  if (d) {
    w = snprintf(sub, sizeof sub, "%s.default", name);
    if (w < 0) sub[0] = '\0';
    FEINT_CALL(feint_calloc(1, sizeof *v->group_default, &v->group_default, "per-group values"));
    FEINT_CALL(get_group_value(L, d, sub, v->group_default));
  }
  return FEINT_OK;
}

static int get_value(const loader *L, const tree_node *n, const char *name, feint_value *v) {
  static const char *const dataset_keys[] = {"file", "dataset", "on", NULL};
  static const char *const on_choices[] = {"cell", "node", NULL};
  set_where(v->where, n);
  if (n->kind == TREE_SCALAR) {
    if (parse_double(n, &v->constant)) {
      v->kind = FEINT_VALUE_CONSTANT;
      return FEINT_OK;
    }
    if (tree_is_null(n) || !n->text[0]) return wrong_type(n, name, value_expected);
    v->kind = FEINT_VALUE_EXPRESSION;
    /* parsed here too, so that a bad expression (in any sweep member) is
     * found before anything is computed */
    feint_expr *e = NULL;
    FEINT_CALL(feint_expr_create(n->text, v->where, &e));
    feint_expr_destroy(e);
    return feint_strdup(n->text, &v->expression);
  }
  if (n->kind != TREE_MAP) return wrong_type(n, name, value_expected);
  if (tree_map_find(n, "groups") >= 0) return get_groups(L, n, name, v);
  FEINT_CALL(check_keys(n, dataset_keys, name));
  char sub[200];
  const tree_node *file = field(n, "file"), *dataset = field(n, "dataset"), *on = field(n, "on");
  const char *need = !file ? "file" : !dataset ? "dataset" : !on ? "on" : NULL;
  if (need) {
    int w = snprintf(sub, sizeof sub, "%s.%s", name, need);
    if (w < 0) sub[0] = '\0';
    return fail_at(n, "missing required key %s", sub);
  }
  v->kind = FEINT_VALUE_DATASET;
  int w = snprintf(sub, sizeof sub, "%s.file", name);
  if (w < 0) sub[0] = '\0';
  if (file->kind != TREE_SCALAR) return wrong_type(file, sub, "a string");
  FEINT_CALL(resolve_path(L, file->text, &v->file));
  const tree_node *file_node = file;
  w = snprintf(sub, sizeof sub, "%s.dataset", name);
  if (w < 0) sub[0] = '\0';
  FEINT_CALL(get_string(dataset, sub, &v->dataset));
  w = snprintf(sub, sizeof sub, "%s.on", name);
  if (w < 0) sub[0] = '\0';
  int which;
  FEINT_CALL(get_enum(on, sub, on_choices, &which));
  v->on_cells = which == 0;
  /* readable now, so that a sweep member's missing file stops the sweep
   * before anything is computed (its contents are read with the mesh) */
  if (access(v->file, R_OK) != 0) {
    w = snprintf(sub, sizeof sub, "%s.file", name);
    if (w < 0) sub[0] = '\0';
    return fail_at(file_node, "%s: cannot read HDF5 file '%s': %s", sub, v->file, strerror(errno));
  }
  return FEINT_OK;
}

/* A value, or a sequence of 1..max values. require_seq: only a sequence.
 * allow_null: a null item of the sequence is FEINT_VALUE_NONE. */
static int get_value_list_null(const loader *L, const tree_node *n, const char *name, int max,
                               int require_seq, int allow_null, feint_value_list *out) {
  char expected[160], sub[200];
  int w = snprintf(expected, sizeof expected, "%s1 to %d values (%s)",
                   require_seq ? "a list of " : "a value or a list of ", max, value_expected);
  if (w < 0) expected[0] = '\0';
  if (n->kind != TREE_SEQ) {
    if (require_seq) return wrong_type(n, name, expected);
    out->n = 1;
    return get_value(L, n, name, &out->c[0]);
  }
  if (n->n < 1 || n->n > (size_t)max) return wrong_type(n, name, expected);
  for (size_t i = 0; i < n->n; i++) {
    w = snprintf(sub, sizeof sub, "%s[%zu]", name, i);
    if (w < 0) sub[0] = '\0';
    out->n = (int)i + 1;
    if (allow_null && tree_is_null(n->items[i])) {
      out->c[i].kind = FEINT_VALUE_NONE;
      set_where(out->c[i].where, n->items[i]);
      continue;
    }
    FEINT_CALL(get_value(L, n->items[i], sub, &out->c[i]));
  }
  return FEINT_OK;
}

static int get_value_list(const loader *L, const tree_node *n, const char *name, int max,
                          int require_seq, feint_value_list *out) {
  return get_value_list_null(L, n, name, max, require_seq, 0, out);
}

static int get_tensor(const loader *L, const tree_node *n, const char *name,
                      feint_value_list *out) {
  const char *expected = "a 2x2 or 3x3 list of lists of values";
  if (n->kind != TREE_SEQ || (n->n != 2 && n->n != 3)) return wrong_type(n, name, expected);
  size_t d = n->n;
  for (size_t i = 0; i < d; i++) {
    const tree_node *row = n->items[i];
    char sub[200];
    int w = snprintf(sub, sizeof sub, "%s[%zu]", name, i);
    if (w < 0) sub[0] = '\0';
    if (row->kind != TREE_SEQ || row->n != d) {
      char what[64];
      w = snprintf(what, sizeof what, "a row of %zu values", d);
      if (w < 0) what[0] = '\0';
      return wrong_type(row, sub, what);
    }
    for (size_t j = 0; j < d; j++) {
      w = snprintf(sub, sizeof sub, "%s[%zu][%zu]", name, i, j);
      if (w < 0) sub[0] = '\0';
      out->n = (int)(i * d + j + 1);
      FEINT_CALL(get_value(L, row->items[j], sub, &out->c[i * d + j]));
    }
  }
  return FEINT_OK;
}

/* ------------------------------------------------------------- sections */

static int fill_mesh(const loader *L, const tree_node *root) {
  static const char *const keys[] = {"file", "size", "refine", "region", "reorder", "partition", "curved_nodes", NULL};
  static const char *const curved_nodes[] = {"file", "blend", NULL};
  static const char *const reorders[] = {"none", "morton", NULL};
  static const char *const partitions[] = {"auto", "rows", "morton", "metis", NULL}; /* feint_partition_kind */
  feint_case *c = L->c;
  const tree_node *m, *k, *v;
  FEINT_CALL(section(root, "mesh", keys, &m, &k));
  if (!(v = field(m, "file"))) return missing(L, k, "mesh.file");
  if (v->kind != TREE_SCALAR) return wrong_type(v, "mesh.file", "a file name");
  set_where(c->mesh_where, v);
  FEINT_CALL(resolve_path(L, v->text, &c->mesh_file));
  if ((v = field(m, "size"))) {
    FEINT_CALL(get_number(v, "mesh.size", &c->mesh_size));
    if (!(c->mesh_size > 0)) return fail_at(v, "mesh.size: must be > 0, got %s", v->text);
  }
  if ((v = field(m, "refine"))) FEINT_CALL(get_int(v, "mesh.refine", 0, 8, &c->mesh_refine));
  if ((v = field(m, "reorder"))) FEINT_CALL(get_enum(v, "mesh.reorder", reorders, &c->mesh_reorder));
  if ((v = field(m, "curved_nodes")))
    FEINT_CALL(get_enum(v, "mesh.curved_nodes", curved_nodes, &c->mesh_curved_nodes));
  if ((v = field(m, "partition"))) FEINT_CALL(get_enum(v, "mesh.partition", partitions, &c->mesh_partition));
  if ((v = field(m, "region"))) {
    const char *expected = "a group name or a list of group names";
    set_where(c->region_where, v);
    if (v->kind == TREE_SCALAR) {
      FEINT_CALL(feint_calloc(1, sizeof *c->region, &c->region, "mesh regions"));
      c->n_region = 1;
      FEINT_CALL(feint_strdup(v->text, &c->region[0]));
    } else if (v->kind == TREE_SEQ) {
      FEINT_CALL(feint_calloc(v->n, sizeof *c->region, &c->region, "mesh regions"));
      for (size_t i = 0; i < v->n; i++) {
        const tree_node *it = v->items[i];
        if (it->kind != TREE_SCALAR || tree_is_null(it)) return wrong_type(it, "mesh.region", expected);
        c->n_region = (int)i + 1;
        FEINT_CALL(feint_strdup(it->text, &c->region[i]));
      }
    } else {
      return wrong_type(v, "mesh.region", expected);
    }
  }
  return FEINT_OK;
}

static int fill_space_quadrature(const loader *L, const tree_node *root, int *components_given) {
  static const char *const skeys[] = {"order", "components", NULL};
  static const char *const qkeys[] = {"degree", NULL};
  feint_case *c = L->c;
  const tree_node *m, *k, *v;
  FEINT_CALL(section(root, "space", skeys, &m, &k));
  if (k) set_where(c->space_where, k);
  memcpy(c->order_where, c->space_where, sizeof c->order_where);
  if ((v = field(m, "order"))) {
    FEINT_CALL(get_int(v, "space.order", 1, 15, &c->order));
    set_where(c->order_where, v);
  }
  if ((v = field(m, "components"))) {
    FEINT_CALL(get_int(v, "space.components", 1, 3, &c->components));
    *components_given = 1;
  }
  FEINT_CALL(section(root, "quadrature", qkeys, &m, &k));
  if ((v = field(m, "degree"))) {
    /* the largest any cell's rules reach (hexahedra's); the form checks the mesh's cells */
    FEINT_CALL(get_int(v, "quadrature.degree", 0, feint_quadrature_max_degree(FEINT_CELL_HEXAHEDRON),
                       &c->quadrature_degree));
    set_where(c->quadrature_where, v);
  }
  return FEINT_OK;
}

static void default_one(feint_value *v) {
  if (v->kind != FEINT_VALUE_NONE) return;
  v->kind = FEINT_VALUE_CONSTANT;
  v->constant = 1.0;
  snprintf(v->where, sizeof v->where, "(default)");
}

/* Keys of `physics` its kind does not read (kind and source every kind
 * reads): accepted, so that one case can sweep over kinds, but warned
 * about, since a typo of the kind (or a key under the wrong kind) would
 * otherwise pass unnoticed. */
static int warn_unused_physics_keys(feint_case *c, const tree_node *m) {
  static const char *const used[][10] = {
      [FEINT_PHYSICS_POISSON] = {"source", "kappa", NULL},
      [FEINT_PHYSICS_MASS] = {"source", NULL},
      [FEINT_PHYSICS_HELMHOLTZ] = {"source", "kappa", "lambda", NULL},
      [FEINT_PHYSICS_ELASTICITY] = {"source", "E", "nu", "lame_lambda", "lame_mu", NULL},
      [FEINT_PHYSICS_ADVECTION] = {"source", "velocity", NULL},
      [FEINT_PHYSICS_DIFFUSION] = {"source", "tensor", NULL},
      [FEINT_PHYSICS_FORM] = {"parameters", "coefficients", "f0", "f1", "g0", "g1", "g2", "g3", NULL},
  };
  const char *const *u = used[c->physics];
  char uses[96] = "kind";
  for (int k = 0; u[k]; k++) snprintf(uses + strlen(uses), sizeof uses - strlen(uses), ", %s", u[k]);
  for (size_t i = 0; i < m->n; i++) {
    const char *key = m->keys[i]->text;
    int is_used = !strcmp(key, "kind") || tree_is_null(m->items[i]);
    for (int k = 0; u[k] && !is_used; k++) is_used = !strcmp(key, u[k]);
    if (is_used || c->n_warnings == FEINT_CASE_MAX_WARNINGS) continue;
    set_where(c->warnings[c->n_warnings].where, m->keys[i]);
    snprintf(c->warnings[c->n_warnings].what, sizeof c->warnings[0].what,
             "key '%s' is not used by physics '%s' (it reads %s)", key, feint_physics_name(c->physics), uses);
    c->n_warnings++;
  }
  return FEINT_OK;
}

/* ----------------------------------------------------- kind: form keys */

/* One expression of a form: a number or a string, parsed later over the
 * form's symbols. */
static int get_form_expr(const tree_node *n, const char *name, feint_case_expr *e) {
  if (n->kind != TREE_SCALAR || tree_is_null(n) || !n->text[0])
    return wrong_type(n, name, "an expression (a number or a string)");
  set_where(e->where, n);
  return feint_strdup(n->text, &e->text);
}

/* A list of 1..3 expressions (one per direction). */
static int get_form_exprs(const tree_node *n, const char *name, feint_case_expr *out, int *count) {
  if (n->kind != TREE_SEQ || n->n < 1 || n->n > 3)
    return wrong_type(n, name, "a list of 1 to 3 expressions (one per direction x, y, z)");
  for (size_t i = 0; i < n->n; i++) {
    char sub[64];
    snprintf(sub, sizeof sub, "%s[%zu]", name, i);
    *count = (int)i + 1;
    FEINT_CALL(get_form_expr(n->items[i], sub, &out[i]));
  }
  return FEINT_OK;
}

/* Add `name` (given at node n) to the form's symbol table: an identifier
 * the expression module accepts, not pi or e, and not taken. A name the
 * user gives is shorter than 60 bytes, so that a coefficient's gradients
 * (<name>_x) stay within the module's 64. */
static int add_form_symbol(feint_case_form *f, const tree_node *n, const char *what, const char *name) {
  int ok = (name[0] < '0' || name[0] > '9') && name[0] && strlen(name) < 64;
  for (const char *p = name; *p && ok; p++)
    ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_';
  if (!ok || !strcmp(name, "pi") || !strcmp(name, "e"))
    return fail_at(n, "%s: '%s' is not a symbol name (letters, digits and _, not starting with a digit; not pi "
                      "or e)", what, name);
  for (int i = 0; i < f->n_symbols; i++)
    if (!strcmp(f->symbols[i], name))
      return fail_at(n, "%s: the symbol '%s' is taken (x, y, z, u, u_x, u_y, u_z (u0, u0_x, ... for several "
                        "components) and each coefficient's <name>_x, <name>_y, <name>_z are the form's too)",
                     what, name);
  return feint_strdup(name, &f->symbols[f->n_symbols++]);
}

/* parameters: {name: number}; coefficients: {name: value}; the symbol
 * table they make with x, y, z, u and the gradients. */
static int fill_form_symbols(const loader *L, const tree_node *m) {
  feint_case_form *f = &L->c->form;
  const tree_node *pm = field(m, "parameters"), *cm = field(m, "coefficients");
  if (pm && pm->kind != TREE_MAP) return wrong_type(pm, "physics.parameters", "a mapping {name: number}");
  if (cm && cm->kind != TREE_MAP) return wrong_type(cm, "physics.coefficients", "a mapping {name: value}");
  const size_t np = pm ? pm->n : 0, nk = cm ? cm->n : 0;
  const int nc = L->c->components;
  f->nc = nc;
  f->first_coefficient = FEINT_FORM_SYM_U + 4 * nc;
  FEINT_CALL(feint_calloc((size_t)f->first_coefficient + 4 * nk + np, sizeof *f->symbols, &f->symbols, "form symbols"));
  FEINT_CALL(feint_calloc(nk + 1, sizeof *f->coefficient_names, &f->coefficient_names, "form coefficients"));
  FEINT_CALL(feint_calloc(nk + 1, sizeof *f->coefficients, &f->coefficients, "form coefficients"));
  FEINT_CALL(feint_calloc(np + 1, sizeof *f->parameter_names, &f->parameter_names, "form parameters"));
  FEINT_CALL(feint_calloc(np + 1, sizeof *f->parameters, &f->parameters, "form parameters"));
  static const char *const xyz[] = {"x", "y", "z"};
  for (int i = 0; i < 3; i++) FEINT_CALL(feint_strdup(xyz[i], &f->symbols[f->n_symbols++]));
  char name[200];
  for (int c = 0; c < nc; c++) { /* u or u0, u1, u2, each with its gradient */
    char u[8];
    snprintf(u, sizeof u, nc == 1 ? "u" : "u%d", c);
    FEINT_CALL(feint_strdup(u, &f->symbols[f->n_symbols++]));
    for (int d = 0; d < 3; d++) {
      snprintf(name, sizeof name, "%s_%c", u, "xyz"[d]);
      FEINT_CALL(feint_strdup(name, &f->symbols[f->n_symbols++]));
    }
  }
  for (size_t i = 0; i < nk; i++) {
    const char *key = cm->keys[i]->text;
    snprintf(name, sizeof name, "physics.coefficients.%.60s", key);
    if (strlen(key) >= 60) return fail_at(cm->keys[i], "%s: names are at most 59 bytes long", name);
    FEINT_CALL(add_form_symbol(f, cm->keys[i], name, key));
    for (int d = 0; d < 3; d++) {
      char grad[80];
      snprintf(grad, sizeof grad, "%.60s_%c", key, "xyz"[d]);
      FEINT_CALL(add_form_symbol(f, cm->keys[i], name, grad));
    }
    f->n_coefficients = (int)i + 1;
    FEINT_CALL(feint_strdup(key, &f->coefficient_names[i]));
    if (tree_is_null(cm->items[i])) return wrong_type(cm->items[i], name, value_expected);
    FEINT_CALL(get_value(L, cm->items[i], name, &f->coefficients[i]));
  }
  for (size_t i = 0; i < np; i++) {
    const char *key = pm->keys[i]->text;
    snprintf(name, sizeof name, "physics.parameters.%.60s", key);
    if (strlen(key) >= 60) return fail_at(pm->keys[i], "%s: names are at most 59 bytes long", name);
    FEINT_CALL(add_form_symbol(f, pm->keys[i], name, key));
    f->n_parameters = (int)i + 1;
    FEINT_CALL(feint_strdup(key, &f->parameter_names[i]));
    FEINT_CALL(get_number(pm->items[i], name, &f->parameters[i]));
  }
  return FEINT_OK;
}

/* Parse one expression of the form over its symbols (errors name the key's
 * file:line:column and the position in the expression). */
static int check_form_expr(const feint_case_form *f, const feint_case_expr *e) {
  if (!e->text) return FEINT_OK;
  feint_expr *x = NULL;
  FEINT_CALL(feint_expr_create_symbols(e->text, e->where, (const char *const *)f->symbols, f->n_symbols, &x));
  feint_expr_destroy(x);
  return FEINT_OK;
}

/* The keys of kind form: symbols, then f0, f1 and the Jacobian blocks,
 * each expression parsed here so that any error (of any sweep member)
 * stops the run before the mesh is read. */
static int fill_form(const loader *L, const tree_node *m, const tree_node *at) {
  feint_case_form *f = &L->c->form;
  const tree_node *v;
  FEINT_CALL(fill_form_symbols(L, m));
  if ((v = field(m, "f0")) && f->nc == 1) {
    f->n_f0 = 1;
    FEINT_CALL(get_form_expr(v, "physics.f0", &f->f0[0]));
  } else if (v) {
    char expected[96];
    snprintf(expected, sizeof expected, "a list of %d expressions (one per component: space.components is %d)",
             f->nc, f->nc);
    if (v->kind != TREE_SEQ || (int)v->n != f->nc) return wrong_type(v, "physics.f0", expected);
    FEINT_CALL(get_form_exprs(v, "physics.f0", f->f0, &f->n_f0));
  }
  if ((v = field(m, "f1")) && f->nc == 1) {
    FEINT_CALL(get_form_exprs(v, "physics.f1", f->f1, &f->n_f1));
  } else if (v) {
    char expected[160];
    snprintf(expected, sizeof expected,
             "a list of %d rows (one per component: space.components is %d) of one expression per direction",
             f->nc, f->nc);
    if (v->kind != TREE_SEQ || (int)v->n != f->nc) return wrong_type(v, "physics.f1", expected);
    for (size_t c = 0; c < v->n; c++) {
      char sub[64];
      int n = 0;
      snprintf(sub, sizeof sub, "physics.f1[%zu]", c);
      FEINT_CALL(get_form_exprs(v->items[c], sub, f->f1 + 3 * c, &n));
      if (c && n != f->n_f1) return wrong_type(v->items[c], sub, "a row as long as the first one");
      f->n_f1 = n;
    }
  }
  if (!f->n_f0 && !f->n_f1)
    return fail_at(at, "physics: kind form needs f0 or f1 (its residual is int v f0 + grad v . f1)");
  static const char *const blocks[] = {"g0", "g1", "g2", "g3"};
  for (int b = 0; b < 4 && f->nc > 1; b++)
    if ((v = field(m, blocks[b])))
      return fail_at(v, "physics.%s: Jacobian blocks are written for scalar fields in this version; for %d "
                        "components they are derived from f0 and f1 (drop the key)",
                     blocks[b], f->nc);
  if ((v = field(m, "g0"))) FEINT_CALL(get_form_expr(v, "physics.g0", &f->g0));
  if ((v = field(m, "g1"))) FEINT_CALL(get_form_exprs(v, "physics.g1", f->g1, &f->n_g1));
  if ((v = field(m, "g2"))) FEINT_CALL(get_form_exprs(v, "physics.g2", f->g2, &f->n_g2));
  if ((v = field(m, "g3"))) {
    const char *expected = "a 1x1, 2x2 or 3x3 list of lists of expressions (g3[i][j] = df1[i]/du_j)";
    if (v->kind != TREE_SEQ || v->n < 1 || v->n > 3) return wrong_type(v, "physics.g3", expected);
    f->n_g3 = (int)v->n;
    for (size_t i = 0; i < v->n; i++) {
      char sub[64];
      int n = 0;
      snprintf(sub, sizeof sub, "physics.g3[%zu]", i);
      const tree_node *row = v->items[i];
      if (row->kind != TREE_SEQ || row->n != v->n) return wrong_type(row, sub, expected);
      FEINT_CALL(get_form_exprs(row, sub, f->g3 + i * v->n, &n));
    }
  }
  FEINT_CALL(check_form_expr(f, &f->g0));
  for (int i = 0; i < 3; i++) {
    FEINT_CALL(check_form_expr(f, &f->f0[i]));
    FEINT_CALL(check_form_expr(f, &f->g1[i]));
    FEINT_CALL(check_form_expr(f, &f->g2[i]));
  }
  for (int i = 0; i < 9; i++) {
    FEINT_CALL(check_form_expr(f, &f->f1[i]));
    FEINT_CALL(check_form_expr(f, &f->g3[i]));
  }
  return FEINT_OK;
}

static void value_free(feint_value *v);

static void form_free(feint_case_form *f) {
  free(f->g0.text);
  for (int i = 0; i < 3; i++) {
    free(f->f0[i].text);
    free(f->g1[i].text);
    free(f->g2[i].text);
  }
  for (int i = 0; i < 9; i++) {
    free(f->f1[i].text);
    free(f->g3[i].text);
  }
  for (int i = 0; i < f->n_coefficients; i++) {
    free(f->coefficient_names[i]);
    value_free(&f->coefficients[i]);
  }
  free(f->coefficient_names);
  free(f->coefficients);
  for (int i = 0; i < f->n_parameters; i++) free(f->parameter_names[i]);
  free(f->parameter_names);
  free(f->parameters);
  for (int i = 0; i < f->n_symbols; i++) free(f->symbols[i]);
  free(f->symbols);
}

static int fill_physics(const loader *L, const tree_node *root) {
  static const char *const keys[] = {"kind",     "kappa",  "lambda", "E",          "nu",           "lame_lambda",
                                     "lame_mu",  "velocity", "tensor", "source",     "parameters",   "coefficients",
                                     "f0",       "f1",       "g0",     "g1",         "g2",           "g3",
                                     NULL};
  static const char *const kinds[] = {"poisson",   "mass",      "helmholtz", "elasticity",
                                      "advection", "diffusion", "form",      NULL};
  static const struct {
    const char *key;
    size_t offset;
  } scalars[] = {{"kappa", offsetof(feint_case, kappa)},
                 {"lambda", offsetof(feint_case, lambda)},
                 {"E", offsetof(feint_case, E)},
                 {"nu", offsetof(feint_case, nu)},
                 {"lame_lambda", offsetof(feint_case, lame_lambda)},
                 {"lame_mu", offsetof(feint_case, lame_mu)}};
  feint_case *c = L->c;
  const tree_node *m, *k, *v;
  char name[64];
  FEINT_CALL(section(root, "physics", keys, &m, &k));
  if (!(v = field(m, "kind"))) return missing(L, k, "physics.kind");
  int kind;
  FEINT_CALL(get_enum(v, "physics.kind", kinds, &kind));
  c->physics = (feint_physics_kind)kind;
  set_where(c->physics_where, v);
  for (size_t i = 0; i < sizeof scalars / sizeof scalars[0]; i++) {
    if (!(v = field(m, scalars[i].key))) continue;
    snprintf(name, sizeof name, "physics.%s", scalars[i].key);
    FEINT_CALL(get_value(L, v, name, (feint_value *)((char *)c + scalars[i].offset)));
  }
  if ((v = field(m, "velocity")))
    FEINT_CALL(get_value_list(L, v, "physics.velocity", 3, 1, &c->velocity));
  if ((v = field(m, "tensor"))) FEINT_CALL(get_tensor(L, v, "physics.tensor", &c->tensor));
  if ((v = field(m, "source")))
    FEINT_CALL(get_value_list(L, v, "physics.source", 3, 0, &c->source));
  default_one(&c->kappa);
  default_one(&c->lambda);

  FEINT_CALL(warn_unused_physics_keys(c, m));
  const tree_node *at = field(m, "kind");
  switch (c->physics) {
  case FEINT_PHYSICS_ELASTICITY: {
    int young = c->E.kind != FEINT_VALUE_NONE || c->nu.kind != FEINT_VALUE_NONE;
    int lame = c->lame_lambda.kind != FEINT_VALUE_NONE || c->lame_mu.kind != FEINT_VALUE_NONE;
    int young_full = c->E.kind != FEINT_VALUE_NONE && c->nu.kind != FEINT_VALUE_NONE;
    int lame_full =
        c->lame_lambda.kind != FEINT_VALUE_NONE && c->lame_mu.kind != FEINT_VALUE_NONE;
    if (young && lame)
      return fail_at(at, "physics: elasticity takes E and nu, or lame_lambda and lame_mu, "
                         "not both");
    if (!young_full && !lame_full)
      return fail_at(at, "physics: elasticity needs E and nu, or lame_lambda and lame_mu");
    break;
  }
  case FEINT_PHYSICS_ADVECTION:
    if (!c->velocity.n) return fail_at(at, "physics: advection needs velocity");
    break;
  case FEINT_PHYSICS_DIFFUSION:
    if (!c->tensor.n) return fail_at(at, "physics: diffusion needs tensor");
    break;
  case FEINT_PHYSICS_FORM:
    FEINT_CALL(fill_form(L, m, at));
    break;
  default:
    break;
  }
  return FEINT_OK;
}

static int fill_state_boundary(const loader *L, const tree_node *root) {
  static const char *const skeys[] = {"u", NULL};
  static const char *const bkeys[] = {"group", "dirichlet", "neumann", "flux", "robin", NULL};
  static const char *const rkeys[] = {"alpha", "value", NULL};
  feint_case *c = L->c;
  const tree_node *m, *k, *v;
  FEINT_CALL(section(root, "state", skeys, &m, &k));
  if ((v = field(m, "u"))) FEINT_CALL(get_value_list(L, v, "state.u", 3, 0, &c->state_u));

  if (!(v = field(root, "boundary"))) return FEINT_OK;
  if (v->kind != TREE_SEQ)
    return wrong_type(v, "boundary", "a list of {group, dirichlet, neumann, robin}");
  FEINT_CALL(feint_calloc(v->n, sizeof *c->boundary, &c->boundary, "boundary conditions"));
  for (size_t i = 0; i < v->n; i++) {
    const tree_node *e = v->items[i], *g;
    char name[64], sub[96];
    snprintf(name, sizeof name, "boundary[%zu]", i);
    if (e->kind != TREE_MAP) return wrong_type(e, name, "a mapping {group, dirichlet, neumann, robin}");
    FEINT_CALL(check_keys(e, bkeys, name));
    feint_boundary *b = &c->boundary[i];
    c->n_boundary = (int)i + 1;
    set_where(b->where, e);
    snprintf(sub, sizeof sub, "%s.group", name);
    if (!(g = field(e, "group"))) return missing(L, e, sub);
    if (g->kind != TREE_SCALAR) return wrong_type(g, sub, "a physical group name");
    FEINT_CALL(feint_strdup(g->text, &b->group));
    const tree_node *d = field(e, "dirichlet"), *n = field(e, "neumann"), *q = field(e, "flux");
    const tree_node *r = field(e, "robin");
    if (!d && !n && !r && !q) return fail_at(e, "%s: give dirichlet or neumann (or flux, robin)", name);
    if (n && q) return fail_at(q, "%s: give neumann (the value) or flux (a vector q: the value q . n), not both", name);
    snprintf(sub, sizeof sub, "%s.flux", name);
    if (q) FEINT_CALL(get_value_list(L, q, sub, 3, 1, &b->flux));
    snprintf(sub, sizeof sub, "%s.dirichlet", name);
    if (d) FEINT_CALL(get_value_list_null(L, d, sub, 3, 0, 1, &b->dirichlet));
    snprintf(sub, sizeof sub, "%s.neumann", name);
    if (n) FEINT_CALL(get_value_list_null(L, n, sub, 3, 0, 1, &b->neumann));
    if (r) {
      snprintf(sub, sizeof sub, "%s.robin", name);
      if (r->kind != TREE_MAP) return wrong_type(r, sub, "a mapping {alpha, value}");
      FEINT_CALL(check_keys(r, rkeys, sub));
      const tree_node *ra = field(r, "alpha"), *rv = field(r, "value");
      snprintf(sub, sizeof sub, "%s.robin.alpha", name);
      if (!ra) return fail_at(r, "missing required key %s (the Robin coefficient in kappa du/dn + alpha u "
                              "= alpha value)", sub);
      /* a list of lists is a tensor (like physics.tensor), a list one value per component */
      b->robin_alpha_tensor = ra->kind == TREE_SEQ && ra->n && ra->items[0]->kind == TREE_SEQ;
      if (b->robin_alpha_tensor) FEINT_CALL(get_tensor(L, ra, sub, &b->robin_alpha));
      else FEINT_CALL(get_value_list_null(L, ra, sub, 3, 0, 1, &b->robin_alpha));
      snprintf(sub, sizeof sub, "%s.robin.value", name);
      if (rv) FEINT_CALL(get_value_list_null(L, rv, sub, 3, 0, 1, &b->robin_value));
      b->has_robin = 1;
    }
  }
  return FEINT_OK;
}

static int default_output(const loader *L, char **out) {
  const char *p = L->c->path;
  if (!strcmp(p, "-")) return feint_strdup("feint-out.h5", out);
  const char *base = strrchr(p, '/');
  base = base ? base + 1 : p;
  const char *dot = strrchr(base, '.');
  size_t keep = dot && dot != base ? (size_t)(dot - p) : strlen(p);
  FEINT_CALL(feint_malloc(keep + 4, 1, out, "output file name"));
  memcpy(*out, p, keep);
  memcpy(*out + keep, ".h5", 4);
  return FEINT_OK;
}

static int fill_output_backend(const loader *L, const tree_node *root) {
  static const char *const okeys[] = {"file", "residual", "matrix", "rhs", "element_matrices",
                                      "matrix_market", "near_null_space", "cell_dofs", "xdmf", NULL};
  static const char *const bkeys[] = {"device", "precision", "cache", "cuda", NULL};
  static const char *const ckeys[] = {"blocks_per_batch", "batches_per_chunk", NULL};
  static const char *const akeys[] = {"strategy", "dirichlet", NULL};
  static const char *const dirichlet_modes[] = {"rows", "symmetric", NULL};
  static const char *const devices[] = {"auto", "cpu", "cuda", NULL};
  static const char *const precisions[] = {"double", "single", NULL};
  static const char *const strategies[] = {"colored", "atomic", "gather", NULL};
  feint_case *c = L->c;
  const tree_node *m, *k, *v;
  int e;
  FEINT_CALL(section(root, "output", okeys, &m, &k));
  if ((v = field(m, "file"))) {
    if (v->kind != TREE_SCALAR) return wrong_type(v, "output.file", "a file name");
    FEINT_CALL(resolve_path(L, v->text, &c->output_file));
  } else {
    FEINT_CALL(default_output(L, &c->output_file));
  }
  if ((v = field(m, "residual"))) FEINT_CALL(get_bool(v, "output.residual", &c->write_residual));
  if ((v = field(m, "matrix"))) FEINT_CALL(get_bool(v, "output.matrix", &c->write_matrix));
  if ((v = field(m, "rhs"))) FEINT_CALL(get_bool(v, "output.rhs", &c->write_rhs));
  if ((v = field(m, "element_matrices")))
    FEINT_CALL(get_bool(v, "output.element_matrices", &c->write_element_matrices));
  if ((v = field(m, "near_null_space"))) FEINT_CALL(get_bool(v, "output.near_null_space", &c->write_near_null_space));
  if ((v = field(m, "cell_dofs"))) FEINT_CALL(get_bool(v, "output.cell_dofs", &c->write_cell_dofs));
  if ((v = field(m, "xdmf"))) FEINT_CALL(get_bool(v, "output.xdmf", &c->write_xdmf));
  if ((v = field(m, "matrix_market"))) {
    if (v->kind != TREE_SCALAR) return wrong_type(v, "output.matrix_market", "a file name (.mtx)");
    FEINT_CALL(resolve_path(L, v->text, &c->matrix_market_file));
    if (!c->write_matrix) return fail_at(v, "output.matrix_market needs output.matrix: true");
  }

  FEINT_CALL(section(root, "backend", bkeys, &m, &k));
  if ((v = field(m, "device"))) {
    FEINT_CALL(get_enum(v, "backend.device", devices, &e));
    c->device = (feint_device_kind)e;
  }
  if ((v = field(m, "precision"))) {
    FEINT_CALL(get_enum(v, "backend.precision", precisions, &e));
    c->precision = (feint_precision)e;
  }
  if ((v = field(m, "cache"))) FEINT_CALL(get_bool(v, "backend.cache", &c->cache));
  if ((v = field(m, "cuda"))) {
    if (v->kind != TREE_MAP) return wrong_type(v, "backend.cuda", "a mapping");
    FEINT_CALL(check_keys(v, ckeys, "backend.cuda"));
    const tree_node *t;
    if ((t = field(v, "blocks_per_batch")))
      FEINT_CALL(get_int(t, "backend.cuda.blocks_per_batch", 1, 1 << 20, &c->blocks_per_batch));
    if ((t = field(v, "batches_per_chunk")))
      FEINT_CALL(
          get_int(t, "backend.cuda.batches_per_chunk", 1, 1 << 20, &c->batches_per_chunk));
  }

  FEINT_CALL(section(root, "assembly", akeys, &m, &k));
  if ((v = field(m, "strategy"))) {
    FEINT_CALL(get_enum(v, "assembly.strategy", strategies, &e));
    c->strategy = (feint_assembly_strategy)e;
  }
  if ((v = field(m, "dirichlet"))) {
    FEINT_CALL(get_enum(v, "assembly.dirichlet", dirichlet_modes, &e));
    c->dirichlet = (feint_dirichlet_mode)e;
  }
  return FEINT_OK;
}

/* A node as one line of flow YAML (for sweep overrides "key=value"). */
static int flow_append(const tree_node *n, char **buf, size_t *len, size_t *cap);

static int flow_put(const char *t, char **buf, size_t *len, size_t *cap) {
  size_t k = strlen(t);
  while (*len + k + 1 > *cap) {
    size_t nc = *cap ? 2 * *cap : 64;
    char *nb = realloc(*buf, nc);
    if (!nb) return feint_error_set(FEINT_ERR_COMPUTE, "out of memory building a sweep override");
    *buf = nb;
    *cap = nc;
  }
  memcpy(*buf + *len, t, k + 1);
  *len += k;
  return FEINT_OK;
}

static int flow_append(const tree_node *n, char **buf, size_t *len, size_t *cap) {
  if (n->kind == TREE_SCALAR) {
    if (!n->quoted) return flow_put(n->text, buf, len, cap);
    FEINT_CALL(flow_put("\"", buf, len, cap));
    for (const char *t = n->text; *t; t++) {
      char one[3] = {*t, 0, 0};
      if (*t == '"' || *t == '\\') {
        one[0] = '\\';
        one[1] = *t;
      }
      FEINT_CALL(flow_put(one, buf, len, cap));
    }
    return flow_put("\"", buf, len, cap);
  }
  FEINT_CALL(flow_put(n->kind == TREE_SEQ ? "[" : "{", buf, len, cap));
  for (size_t i = 0; i < n->n; i++) {
    if (i) FEINT_CALL(flow_put(", ", buf, len, cap));
    if (n->kind == TREE_MAP) {
      FEINT_CALL(flow_append(n->keys[i], buf, len, cap));
      FEINT_CALL(flow_put(": ", buf, len, cap));
    }
    FEINT_CALL(flow_append(n->items[i], buf, len, cap));
  }
  return flow_put(n->kind == TREE_SEQ ? "]" : "}", buf, len, cap);
}

/* "key=<flow YAML of value>" */
static int make_override(const tree_node *key, const tree_node *value, char **out) {
  char *buf = NULL;
  size_t len = 0, cap = 0;
  int s = flow_put(key->text, &buf, &len, &cap);
  if (!s) s = flow_put("=", &buf, &len, &cap);
  if (!s) s = flow_append(value, &buf, &len, &cap);
  if (s) {
    free(buf);
    return s;
  }
  *out = buf;
  return FEINT_OK;
}

static int sweep_key_ok(const tree_node *key) {
  if (key->kind != TREE_SCALAR || !key->text[0]) return wrong_type(key, "sweep key", "a key path such as physics.kappa");
  if (!strncmp(key->text, "sweep", 5) && (key->text[5] == '\0' || key->text[5] == '.'))
    return fail_at(key, "sweep: a sweep cannot set sweep keys");
  return FEINT_OK;
}

/* sweep: {product: {key: [values]}, list: [{key: value}], output, layout} */
static int fill_sweep(const loader *L, const tree_node *root) {
  static const char *const keys[] = {"product", "list", "output", "layout", NULL};
  static const char *const layouts[] = {"files", "groups", NULL};
  feint_case *c = L->c;
  const tree_node *m, *k, *v;
  FEINT_CALL(section(root, "sweep", keys, &m, &k));
  if (!m) return FEINT_OK;
  set_where(c->sweep_where, k);
  const tree_node *product = field(m, "product"), *list = field(m, "list");
  if (!!product == !!list) return fail_at(k, "sweep: give exactly one of product or list");
  if ((v = field(m, "output"))) {
    if (v->kind != TREE_SCALAR) return wrong_type(v, "sweep.output", "a file name template with {index}");
    if (!strstr(v->text, "{index}")) return fail_at(v, "sweep.output: the template needs {index}");
    FEINT_CALL(resolve_path(L, v->text, &c->sweep_output));
  }
  if ((v = field(m, "layout"))) FEINT_CALL(get_enum(v, "sweep.layout", layouts, &c->sweep_groups));
  if (product) {
    if (product->kind != TREE_MAP) return wrong_type(product, "sweep.product", "a mapping {key.path: [values]}");
    if (product->n == 0)
      return fail_at(product, "sweep.product is empty: give at least one key.path: [values] (e.g. "
                              "physics.kappa: [1, 10])");
    long total = 1;
    for (size_t i = 0; i < product->n; i++) {
      FEINT_CALL(sweep_key_ok(product->keys[i]));
      const tree_node *vals = product->items[i];
      if (vals->kind != TREE_SEQ) return wrong_type(vals, "sweep.product values", "a non-empty list of values");
      if (vals->n == 0)
        return fail_at(vals, "sweep.product: the list of values of %s is empty", product->keys[i]->text);
      total *= (long)vals->n;
      if (total > FEINT_SWEEP_MAX_MEMBERS)
        return fail_at(product->keys[i], "sweep.product: at least %ld members, above the most a sweep may have (%d)",
                       total, FEINT_SWEEP_MAX_MEMBERS);
    }
    FEINT_CALL(feint_calloc((size_t)total, sizeof *c->sweep, &c->sweep, "sweep"));
    c->n_sweep = (int)total;
    for (long mbr = 0; mbr < total; mbr++) {
      feint_sweep_member *sm = &c->sweep[mbr];
      FEINT_CALL(feint_calloc(product->n, sizeof *sm->overrides, &sm->overrides, "sweep member"));
      /* the first key varies slowest */
      long rest = mbr, stride = total;
      for (size_t i = 0; i < product->n; i++) {
        const tree_node *vals = product->items[i];
        stride /= (long)vals->n;
        FEINT_CALL(make_override(product->keys[i], vals->items[rest / stride], &sm->overrides[i]));
        sm->n = (int)i + 1;
        rest %= stride;
      }
    }
  } else {
    if (list->kind != TREE_SEQ)
      return wrong_type(list, "sweep.list", "a non-empty list of {key.path: value} mappings");
    if (list->n == 0) return fail_at(list, "sweep.list is empty: give at least one {key.path: value}");
    if (list->n > FEINT_SWEEP_MAX_MEMBERS)
      return fail_at(list, "sweep.list: %zu members, above the most a sweep may have (%d)", list->n,
                     FEINT_SWEEP_MAX_MEMBERS);
    FEINT_CALL(feint_calloc(list->n, sizeof *c->sweep, &c->sweep, "sweep"));
    c->n_sweep = (int)list->n;
    for (size_t mbr = 0; mbr < list->n; mbr++) {
      const tree_node *e = list->items[mbr];
      if (e->kind != TREE_MAP) return wrong_type(e, "sweep.list item", "a mapping {key.path: value}");
      feint_sweep_member *sm = &c->sweep[mbr];
      FEINT_CALL(feint_calloc(e->n + 1, sizeof *sm->overrides, &sm->overrides, "sweep member"));
      for (size_t i = 0; i < e->n; i++) {
        FEINT_CALL(sweep_key_ok(e->keys[i]));
        FEINT_CALL(make_override(e->keys[i], e->items[i], &sm->overrides[i]));
        sm->n = (int)i + 1;
      }
    }
  }
  return FEINT_OK;
}

/* operator: {kind: bp1.0 | bp3.5 | bp3.0, lambda: 1, geometry: stored |
 * recompute}, and what it rules out elsewhere in the case. */
static int fill_operator(const loader *L, const tree_node *root) {
  static const char *const keys[] = {"kind", "lambda", "geometry", NULL};
  static const char *const kinds[] = {"bp1.0", "bp3.5", "bp3.0", NULL};
  static const char *const geos[] = {"stored", "recompute", NULL};
  static const char *const outputs[] = {"residual", "matrix", "rhs", "element_matrices", "near_null_space", NULL};
  feint_case *c = L->c;
  const tree_node *m, *k, *v;
  FEINT_CALL(section(root, "operator", keys, &m, &k));
  if (!m) return FEINT_OK;
  set_where(c->operator_where, k);
  if (!(v = field(m, "kind"))) return missing(L, k, "operator.kind");
  FEINT_CALL(get_enum(v, "operator.kind", kinds, &c->operator_kind));
  c->operator_lambda = 1.0;
  if ((v = field(m, "lambda"))) {
    FEINT_CALL(get_number(v, "operator.lambda", &c->operator_lambda));
    set_where(c->operator_lambda_where, v);
    if (!(c->operator_lambda >= 0)) return fail_at(v, "operator.lambda: must be >= 0, got %s", v->text);
  }
  if ((v = field(m, "geometry"))) FEINT_CALL(get_enum(v, "operator.geometry", geos, &c->operator_geometry));
  /* what the operator run does not produce in this version */
  const tree_node *out = field(root, "output");
  for (int i = 0; outputs[i] && out && out->kind == TREE_MAP; i++) {
    int on = 0;
    if ((v = field(out, outputs[i])) && !get_bool(v, outputs[i], &on) && on)
      return fail_at(v, "output.%s: not available with an operator section in this version (it writes "
                        "/operator/y = A x; drop the operator section for the assembled outputs)",
                     outputs[i]);
  }
  c->write_residual = c->write_matrix = c->write_rhs = c->write_element_matrices = c->write_near_null_space = 0;
  if (c->matrix_market_file && out && (v = field(out, "matrix_market")))
    return fail_at(v, "output.matrix_market: not available with an operator section in this version");
  if ((v = field(root, "boundary")))
    return fail_at(v, "boundary: not available with an operator section in this version (the operator "
                      "acts on all dofs)");
  const tree_node *q = field(root, "quadrature");
  if (q && (v = field(q, "degree")))
    return fail_at(v, "quadrature.degree: the operator's quadrature is fixed by its kind (bp1.0, bp3.0: "
                      "N + 2 Gauss points; bp3.5: N + 1 GLL points)");
  if (c->components > 1) return fail_at(k, "operator: the BP operators act on scalar fields (space.components 1)");
  if (c->state_u.n > 1) return fail_at(k, "operator: state.u must be one scalar value (x = u at the dofs)");
  return FEINT_OK;
}

static int fill(const loader *L, const tree_node *root) {
  static const char *const top[] = {"mesh",     "space",  "quadrature", "physics",  "state",
                                    "boundary", "output", "backend",    "assembly", "sweep",
                                    "operator", NULL};
  feint_case *c = L->c;
  FEINT_CALL(check_keys(root, top, NULL));
  c->order = 1;
  c->components = 1;
  c->quadrature_degree = -1;
  c->write_residual = c->write_matrix = c->write_rhs = 1;
  c->write_element_matrices = 0;
  c->write_cell_dofs = -1;
  c->device = FEINT_DEVICE_AUTO;
  c->precision = FEINT_PRECISION_DOUBLE;
  c->cache = 1;
  c->strategy = FEINT_ASSEMBLY_COLORED;
  c->dirichlet = FEINT_DIRICHLET_ROWS;
  snprintf(c->space_where, sizeof c->space_where, "%.*s:1:1", (int)feint_utf8_cut(L->display, 240), L->display);
  int components_given = 0;
  c->has_operator = field(root, "operator") != NULL;
  FEINT_CALL(fill_mesh(L, root));
  FEINT_CALL(fill_space_quadrature(L, root, &components_given));
  if (c->has_operator && !field(root, "physics"))
    c->physics = FEINT_PHYSICS_MASS; /* physics is optional beside an operator */
  else
    FEINT_CALL(fill_physics(L, root));
  if (c->physics == FEINT_PHYSICS_ELASTICITY && !components_given) c->components = 0;
  FEINT_CALL(fill_state_boundary(L, root));
  FEINT_CALL(fill_output_backend(L, root));
  FEINT_CALL(fill_operator(L, root));
  FEINT_CALL(fill_sweep(L, root));
  return FEINT_OK;
}

/* ------------------------------------------------------------ overrides */

static int is_index(const char *s, size_t *out) {
  if (!*s) return 0;
  size_t v = 0;
  for (; *s; s++) {
    if (*s < '0' || *s > '9' || v > 100000000) return 0;
    v = 10 * v + (size_t)(*s - '0');
  }
  *out = v;
  return 1;
}

/* Apply `key.path=value`: source 1 for --set, 2 for a sweep member's
 * value (messages name it as the user wrote it). */
static int apply_override(tree_node *root, const char *ov, int source) {
  const char *by = source == 2 ? "sweep value" : "--set";
  const char *eq = strchr(ov, '=');
  if (!eq) return feint_error_set(FEINT_ERR_INPUT, "%s %s: expected key.path=value", by, ov);
  /* most often an unset shell variable (--set kappa=$K): refused, not read as null */
  if (source == 1 && !eq[1])
    return feint_error_set(FEINT_ERR_INPUT, "%s %s: empty value (to unset the key, write %.*s=null)", by, ov,
                           (int)(eq - ov), ov);
  size_t klen = (size_t)(eq - ov);
  char *path;
  FEINT_CALL(feint_malloc(klen + 1, 1, &path, "override key"));
  memcpy(path, ov, klen);
  path[klen] = '\0';
  /* split into components in place */
  int s = FEINT_OK;
  size_t ncomp = 1;
  for (size_t i = 0; i < klen; i++)
    if (path[i] == '.') {
      path[i] = '\0';
      ncomp++;
    }
  const char *comp = path;
  for (size_t i = 0; i < ncomp; i++, comp += strlen(comp) + 1)
    if (!comp[0]) {
      free(path);
      return feint_error_set(FEINT_ERR_INPUT, "%s %s: empty component in key path", by, ov);
    }
  tree_node *value = NULL;
  s = tree_parse(eq + 1, strlen(eq + 1), ov, source, &value);
  if (s) {
    free(path);
    return s;
  }
  tree_node *node = root;
  comp = path;
  char sofar[256] = "";
  size_t used = 0;
  for (size_t i = 0; i < ncomp && !s; i++, comp += strlen(comp) + 1) {
    int last = i + 1 == ncomp;
    tree_node **slot = NULL;
    /* an index below a key the case does not have (or has null): no list to
     * index, where a new mapping would only fail later as "expected a list" */
    const char *next = last ? NULL : comp + strlen(comp) + 1;
    size_t next_j;
    const int no_list = next && is_index(next, &next_j) &&
                        (node->kind != TREE_MAP || tree_map_find(node, comp) < 0 ||
                         tree_is_null(node->items[tree_map_find(node, comp)]));
    if (no_list && node->kind == TREE_MAP) {
      s = feint_error_set(FEINT_ERR_INPUT,
                          "%s %s: the case has no list %s%s%s to index with %s; set the whole list "
                          "instead (%s%s%s=[...])",
                          by, ov, sofar, i ? "." : "", comp, next, sofar, i ? "." : "", comp);
      break;
    }
    if (node->kind == TREE_MAP) {
      long j = tree_map_find(node, comp);
      if (j >= 0) {
        slot = &node->items[j];
      } else {
        tree_node *key = NULL, *child = NULL;
        s = tree_new(TREE_SCALAR, ov, source, 1, 1, &key);
        if (!s) {
          free(key->text);
          key->text = NULL;
          s = feint_strdup(comp, &key->text);
        }
        if (!s) s = tree_new(TREE_MAP, ov, source, 1, 1, &child);
        if (s) {
          tree_free(key);
          tree_free(child);
          break;
        }
        s = tree_append(node, key, child);
        if (s) break;
        slot = &node->items[node->n - 1];
      }
    } else if (node->kind == TREE_SEQ) {
      size_t j;
      if (!is_index(comp, &j)) {
        s = feint_error_set(FEINT_ERR_INPUT,
                            "%s %s: %s is a list of %zu entr%s: address an entry by its index (0..%zu), "
                            "not '%s'", by, ov, sofar, node->n, node->n == 1 ? "y" : "ies",
                            node->n ? node->n - 1 : 0, comp);
        break;
      }
      if (j >= node->n) {
        char indices[64] = "";
        if (node->n) snprintf(indices, sizeof indices, ", indices 0..%zu", node->n - 1);
        s = feint_error_set(FEINT_ERR_INPUT,
                            "%s %s: index %zu is past the end of %s (a list of %zu entr%s%s); to add "
                            "entries, set the whole list (%s=[...])",
                            by, ov, j, sofar, node->n, node->n == 1 ? "y" : "ies", indices, sofar);
        break;
      }
      slot = &node->items[j];
    } else {
      s = feint_error_set(FEINT_ERR_INPUT, "%s %s: '%s' is not a mapping", by, ov, sofar);
      break;
    }
    if (last) {
      tree_free(*slot);
      *slot = value;
      value = NULL;
    } else if (tree_is_null(*slot)) {
      tree_node *child;
      s = tree_new(TREE_MAP, ov, source, 1, 1, &child);
      if (s) break;
      tree_free(*slot);
      *slot = child;
    }
    node = *slot;
    int w = snprintf(sofar + used, sizeof sofar - used, "%s%s", i ? "." : "", comp);
    if (w > 0 && (size_t)w < sizeof sofar - used) used += (size_t)w;
  }
  tree_free(value);
  free(path);
  return s;
}

/* ----------------------------------------------------------------- load */

static int read_all(const char *path, char **buf, size_t *len) {
  int is_stdin = !strcmp(path, "-");
  FILE *f = is_stdin ? stdin : fopen(path, "rb");
  *buf = NULL;
  *len = 0;
  if (!f) return feint_error_set(FEINT_ERR_INPUT, "%s: cannot open: %s", path, strerror(errno));
  size_t cap = 4096, n = 0;
  char *b = malloc(cap);
  int s = FEINT_OK;
  if (!b) s = feint_error_set(FEINT_ERR_COMPUTE, "out of memory reading %s", path);
  while (!s) {
    if (n == cap) {
      char *nb = cap < ((size_t)1 << 40) ? realloc(b, 2 * cap) : NULL;
      if (!nb) {
        s = feint_error_set(FEINT_ERR_COMPUTE, "out of memory reading %s", path);
        break;
      }
      b = nb;
      cap *= 2;
    }
    size_t got = fread(b + n, 1, cap - n, f);
    n += got;
    if (got == 0) {
      if (ferror(f))
        s = feint_error_set(FEINT_ERR_INPUT, "%s: read error: %s", is_stdin ? "<stdin>" : path,
                            strerror(errno));
      break;
    }
  }
  if (!is_stdin) fclose(f);
  if (s) {
    free(b);
    return s;
  }
  *buf = b;
  *len = n;
  return FEINT_OK;
}

/* Where the case came from: display name for messages, directory for
 * relative paths. */
static int loader_init(feint_case *c, const char *path, loader *L) {
  FEINT_CALL(feint_strdup(path, &c->path));
  int is_stdin = !strcmp(path, "-");
  L->display = is_stdin ? "<stdin>" : path;
  L->c = c;
  const char *slash = is_stdin ? NULL : strrchr(path, '/');
  size_t dlen = slash ? (size_t)(slash - path) + (slash == path) : 0;
  FEINT_CALL(feint_malloc(dlen + 1, 1, &L->dir, "directory"));
  memcpy(L->dir, path, dlen);
  L->dir[dlen] = '\0';
  return FEINT_OK;
}

/* Drop the sweep entry of a case tree: a member is a single run. */
static void drop_sweep(tree_node *root) {
  long k = tree_map_find(root, "sweep");
  if (k < 0) return;
  tree_free(root->keys[k]);
  tree_free(root->items[k]);
  for (size_t j = (size_t)k + 1; j < root->n; j++) {
    root->keys[j - 1] = root->keys[j];
    root->items[j - 1] = root->items[j];
  }
  root->n--;
}

/* Parse c->text, apply the overrides, validate and fill. */
static int parse_fill(feint_case *c, loader *L, tree_node **root) {
  FEINT_CALL(tree_parse(c->text, c->text_len, L->display, 0, root));
  if (tree_is_null(*root)) {
    tree_node *empty;
    FEINT_CALL(tree_new(TREE_MAP, L->display, 0, 1, 1, &empty));
    tree_free(*root);
    *root = empty;
  }
  if ((*root)->kind != TREE_MAP) return wrong_type(*root, "case", "a mapping of sections");
  for (int i = 0; i < c->n_overrides; i++) FEINT_CALL(apply_override(*root, c->overrides[i], 1));
  FEINT_CALL(fill(L, *root));
  FEINT_CALL(tree_emit(*root, &c->as_run));
  return FEINT_OK;
}

static int keep_overrides(feint_case *c, int n, const char *const *ov) {
  FEINT_CALL(feint_calloc((size_t)n + 1, sizeof *c->overrides, &c->overrides, "overrides"));
  for (int i = 0; i < n; i++) {
    FEINT_CALL(feint_strdup(ov[i], &c->overrides[i]));
    c->n_overrides = i + 1;
  }
  return FEINT_OK;
}

/* text NULL: read the file `path`; else `len` bytes of text, copied */
static int load(feint_case *c, const char *path, const char *text, size_t len, int n_overrides,
                const char *const *overrides, tree_node **root, loader *L) {
  FEINT_CALL(loader_init(c, path, L));
  if (text) {
    FEINT_CALL(feint_malloc(len + 1, 1, &c->text, "case text"));
    memcpy(c->text, text, len);
    c->text[len] = '\0';
    c->text_len = len;
  } else {
    FEINT_CALL(read_all(path, &c->text, &c->text_len));
  }
  feint_sha256 h;
  feint_sha256_init(&h);
  feint_sha256_update(&h, c->text, c->text_len);
  feint_sha256_final(&h, c->sha256);
  FEINT_CALL(keep_overrides(c, n_overrides, overrides));
  return parse_fill(c, L, root);
}

static int load_case(const char *path, const char *text, size_t len, int n_overrides,
                     const char *const *overrides, feint_case **out) {
  feint_case *c;
  *out = NULL;
  FEINT_CALL(feint_calloc(1, sizeof *c, &c, "case"));
  tree_node *root = NULL;
  loader L = {NULL, NULL, NULL};
  int s = load(c, path, text, len, n_overrides, overrides, &root, &L);
  if (!s && c->n_sweep > 0) { /* the members' starting point */
    tree_node *t = NULL;
    s = tree_clone(root, &t);
    if (!s) drop_sweep(t);
    c->member_template = t;
  }
  tree_free(root);
  free(L.dir);
  if (s) {
    feint_case_destroy(c);
    return s;
  }
  *out = c;
  return FEINT_OK;
}

int feint_case_load(const char *path, int n_overrides, const char *const *overrides,
                    feint_case **out) {
  return load_case(path, NULL, 0, n_overrides, overrides, out);
}

int feint_case_load_text(const char *path, const char *text, size_t len, int n_overrides,
                         const char *const *overrides, feint_case **out) {
  return load_case(path, text, len, n_overrides, overrides, out);
}

int feint_case_load_member(const feint_case *base, int member, feint_case **out) {
  *out = NULL;
  if (member < 0 || member >= base->n_sweep)
    return feint_error_set(FEINT_ERR_INPUT, "sweep member %d does not exist (%d members)", member, base->n_sweep);
  feint_case *c;
  FEINT_CALL(feint_calloc(1, sizeof *c, &c, "case"));
  tree_node *root = NULL;
  loader L = {NULL, NULL, NULL};
  int s = loader_init(c, base->path, &L);
  if (!s) {
    memcpy(c->sha256, base->sha256, sizeof c->sha256);
    s = keep_overrides(c, base->n_overrides, (const char *const *)base->overrides);
  }
  /* the base's tree (its overrides applied, no sweep section), then the member's values */
  if (!s) s = tree_clone(base->member_template, &root);
  const feint_sweep_member *mem = &base->sweep[member];
  for (int i = 0; i < mem->n && !s; i++) s = apply_override(root, mem->overrides[i], 2);
  if (!s) s = fill(&L, root);
  if (!s) s = tree_emit(root, &c->as_run);
  tree_free(root);
  free(L.dir);
  if (s) {
    feint_error_set(s, "%s: sweep member %d: %s", base->sweep_where, member, feint_error_message());
    feint_case_destroy(c);
    return s;
  }
  *out = c;
  return FEINT_OK;
}

static void value_free(feint_value *v) {
  free(v->expression);
  free(v->file);
  free(v->dataset);
  for (int i = 0; i < v->n_groups; i++) {
    free(v->group_names[i]);
    value_free(&v->group_value[i]);
  }
  free(v->group_names);
  free(v->group_value);
  free(v->group_where);
  if (v->group_default) value_free(v->group_default);
  free(v->group_default);
}

static void list_free(feint_value_list *l) {
  for (int i = 0; i < 9; i++) value_free(&l->c[i]);
}

void feint_case_destroy(feint_case *c) {
  if (!c) return;
  free(c->path);
  free(c->text);
  tree_free(c->member_template);
  for (int i = 0; i < c->n_overrides; i++) free(c->overrides[i]);
  free(c->overrides);
  for (int m = 0; m < c->n_sweep; m++) {
    for (int i = 0; i < c->sweep[m].n; i++) free(c->sweep[m].overrides[i]);
    free(c->sweep[m].overrides);
  }
  free(c->sweep);
  free(c->sweep_output);
  free(c->as_run);
  free(c->mesh_file);
  for (int i = 0; i < c->n_region; i++) free(c->region[i]);
  free(c->region);
  value_free(&c->kappa);
  value_free(&c->lambda);
  value_free(&c->E);
  value_free(&c->nu);
  value_free(&c->lame_lambda);
  value_free(&c->lame_mu);
  list_free(&c->velocity);
  list_free(&c->tensor);
  list_free(&c->source);
  list_free(&c->state_u);
  form_free(&c->form);
  for (int i = 0; i < c->n_boundary; i++) {
    free(c->boundary[i].group);
    list_free(&c->boundary[i].dirichlet);
    list_free(&c->boundary[i].neumann);
    list_free(&c->boundary[i].flux);
    list_free(&c->boundary[i].robin_alpha);
    list_free(&c->boundary[i].robin_value);
  }
  free(c->boundary);
  free(c->output_file);
  free(c->matrix_market_file);
  free(c);
}

const char *feint_physics_name(feint_physics_kind kind) {
  switch (kind) {
  case FEINT_PHYSICS_POISSON: return "poisson";
  case FEINT_PHYSICS_MASS: return "mass";
  case FEINT_PHYSICS_HELMHOLTZ: return "helmholtz";
  case FEINT_PHYSICS_ELASTICITY: return "elasticity";
  case FEINT_PHYSICS_ADVECTION: return "advection";
  case FEINT_PHYSICS_DIFFUSION: return "diffusion";
  case FEINT_PHYSICS_FORM: return "form";
  }
  return "unknown";
}
