/* Generic YAML tree with positions: parsing (libyaml events) and emitting. */
#include "case/tree.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "feint/error.h"

enum { TREE_MAX_DEPTH = 64, TREE_MAX_NODES = 1000000 };

int tree_new(tree_kind kind, const char *origin, int from_override, int line, int col,
             tree_node **out) {
  tree_node *n;
  *out = NULL;
  FEINT_CALL(feint_calloc(1, sizeof *n, &n, "YAML node"));
  n->kind = kind;
  n->origin = origin;
  n->from_override = from_override;
  n->line = line;
  n->col = col;
  if (kind == TREE_SCALAR) {
    int s = feint_strdup("", &n->text);
    if (s) {
      free(n);
      return s;
    }
  }
  *out = n;
  return FEINT_OK;
}

void tree_free(tree_node *n) {
  if (!n) return;
  for (size_t i = 0; i < n->n; i++) {
    if (n->keys) tree_free(n->keys[i]);
    tree_free(n->items[i]);
  }
  free(n->keys);
  free(n->items);
  free(n->text);
  free(n);
}

int tree_append(tree_node *parent, tree_node *key, tree_node *value) {
  if (parent->n == parent->cap) {
    size_t cap = parent->cap ? 2 * parent->cap : 4;
    tree_node **items = realloc(parent->items, cap * sizeof *items);
    if (!items) goto oom;
    parent->items = items;
    if (parent->kind == TREE_MAP) {
      tree_node **keys = realloc(parent->keys, cap * sizeof *keys);
      if (!keys) goto oom;
      parent->keys = keys;
    }
    parent->cap = cap;
  }
  if (parent->kind == TREE_MAP) parent->keys[parent->n] = key;
  parent->items[parent->n] = value;
  parent->n++;
  return FEINT_OK;
oom:
  tree_free(key);
  tree_free(value);
  return feint_error_set(FEINT_ERR_COMPUTE, "out of memory growing a YAML node");
}

long tree_map_find(const tree_node *map, const char *key) {
  if (!map || map->kind != TREE_MAP) return -1;
  for (size_t i = 0; i < map->n; i++)
    if (!strcmp(map->keys[i]->text, key)) return (long)i;
  return -1;
}

tree_node *tree_map_get(const tree_node *map, const char *key) {
  long i = tree_map_find(map, key);
  return i < 0 ? NULL : map->items[i];
}

int tree_is_null(const tree_node *n) {
  if (!n || n->kind != TREE_SCALAR || n->quoted) return 0;
  const char *t = n->text;
  return !strcmp(t, "") || !strcmp(t, "~") || !strcmp(t, "null") || !strcmp(t, "Null") ||
         !strcmp(t, "NULL");
}

const char *tree_where(const tree_node *n, char *buf, size_t size) {
  int w;
  if (n->from_override)
    w = snprintf(buf, size, "%s %s", n->from_override == 2 ? "sweep value" : "--set", n->origin);
  else
    w = snprintf(buf, size, "%s:%d:%d", n->origin, n->line, n->col);
  if (w < 0 && size) buf[0] = '\0';
  if (w > 0 && (size_t)w >= size) buf[feint_utf8_cut(buf, size)] = '\0'; /* cut between characters */
  return buf;
}

/* ---------------------------------------------------------------- parsing */

typedef struct {
  char *name;
  tree_node *node; /* owned by the tree */
} anchor;

typedef struct {
  yaml_parser_t parser;
  const char *origin;
  int from_override;
  anchor *anchors;
  size_t n_anchors, cap_anchors;
  long n_nodes;
} parse_ctx;

static int parse_fail(parse_ctx *ctx, int line, int col, const char *fmt, const char *arg) {
  char msg[512];
  int w = snprintf(msg, sizeof msg, fmt, arg);
  if (w < 0) msg[0] = '\0';
  if (ctx->from_override)
    return feint_error_set(FEINT_ERR_INPUT, "%s %s: malformed YAML value: %s",
                           ctx->from_override == 2 ? "sweep value" : "--set", ctx->origin, msg);
  return feint_error_set(FEINT_ERR_INPUT, "%s:%d:%d: malformed YAML: %s", ctx->origin, line, col,
                         msg);
}

static int next_event(parse_ctx *ctx, yaml_event_t *ev) {
  if (yaml_parser_parse(&ctx->parser, ev)) return FEINT_OK;
  const yaml_parser_t *p = &ctx->parser;
  const char *problem = p->problem ? p->problem : "unknown error";
  if (p->error == YAML_MEMORY_ERROR)
    return feint_error_set(FEINT_ERR_COMPUTE, "out of memory parsing YAML");
  int line = (int)p->problem_mark.line + 1, col = (int)p->problem_mark.column + 1;
  if (p->context && !ctx->from_override) {
    char both[512];
    int w = snprintf(both, sizeof both, "%s %s started at %d:%d", problem, p->context,
                     (int)p->context_mark.line + 1, (int)p->context_mark.column + 1);
    if (w < 0) both[0] = '\0';
    return parse_fail(ctx, line, col, "%s", both);
  }
  return parse_fail(ctx, line, col, "%s", problem);
}

static int count_node(parse_ctx *ctx, const yaml_mark_t *m) {
  if (++ctx->n_nodes > TREE_MAX_NODES)
    return parse_fail(ctx, (int)m->line + 1, (int)m->column + 1, "%s",
                      "document too large (too many nodes; alias expansion?)");
  return FEINT_OK;
}

/* A deep copy of src; with a parse context, every node counts against the
 * document's node limit (alias expansion), m the alias's position. */
static int copy_node(parse_ctx *ctx, const tree_node *src, const yaml_mark_t *m, tree_node **out) {
  tree_node *n;
  *out = NULL;
  if (ctx) FEINT_CALL(count_node(ctx, m));
  FEINT_CALL(tree_new(src->kind, src->origin, src->from_override, src->line, src->col, &n));
  n->quoted = src->quoted;
  int s = FEINT_OK;
  if (src->kind == TREE_SCALAR) {
    free(n->text);
    n->text = NULL;
    s = feint_strdup(src->text, &n->text);
  }
  for (size_t i = 0; i < src->n && !s; i++) {
    tree_node *k = NULL, *v = NULL;
    if (src->kind == TREE_MAP) s = copy_node(ctx, src->keys[i], m, &k);
    if (!s) s = copy_node(ctx, src->items[i], m, &v);
    if (!s) s = tree_append(n, k, v);
    else {
      tree_free(k);
      tree_free(v);
    }
  }
  if (s) {
    tree_free(n);
    return s;
  }
  *out = n;
  return FEINT_OK;
}

int tree_clone(const tree_node *src, tree_node **out) { return copy_node(NULL, src, NULL, out); }

static int add_anchor(parse_ctx *ctx, const yaml_char_t *name, tree_node *node) {
  if (!name) return FEINT_OK;
  if (ctx->n_anchors == ctx->cap_anchors) {
    size_t cap = ctx->cap_anchors ? 2 * ctx->cap_anchors : 8;
    anchor *a = realloc(ctx->anchors, cap * sizeof *a);
    if (!a) return feint_error_set(FEINT_ERR_COMPUTE, "out of memory parsing YAML");
    ctx->anchors = a;
    ctx->cap_anchors = cap;
  }
  char *copy;
  FEINT_CALL(feint_strdup((const char *)name, &copy));
  ctx->anchors[ctx->n_anchors].name = copy;
  ctx->anchors[ctx->n_anchors].node = node;
  ctx->n_anchors++;
  return FEINT_OK;
}

/* Build the node that starts with *ev (consumed here). */
static int parse_node(parse_ctx *ctx, yaml_event_t *ev, int depth, tree_node **out) {
  int line = (int)ev->start_mark.line + 1, col = (int)ev->start_mark.column + 1;
  tree_node *n = NULL;
  int s = FEINT_OK;
  *out = NULL;
  if (depth > TREE_MAX_DEPTH) {
    yaml_event_delete(ev);
    return parse_fail(ctx, line, col, "%s", "nesting too deep");
  }
  s = count_node(ctx, &ev->start_mark);
  if (s) {
    yaml_event_delete(ev);
    return s;
  }
  switch (ev->type) {
  case YAML_ALIAS_EVENT: {
    const char *name = (const char *)ev->data.alias.anchor;
    for (size_t i = ctx->n_anchors; i-- > 0;)
      if (!strcmp(ctx->anchors[i].name, name)) {
        s = copy_node(ctx, ctx->anchors[i].node, &ev->start_mark, &n);
        yaml_event_delete(ev);
        if (s) return s;
        *out = n;
        return FEINT_OK;
      }
    s = parse_fail(ctx, line, col, "undefined alias '*%s'", name);
    yaml_event_delete(ev);
    return s;
  }
  case YAML_SCALAR_EVENT: {
    s = tree_new(TREE_SCALAR, ctx->origin, ctx->from_override, line, col, &n);
    if (!s) {
      free(n->text);
      n->text = NULL;
      size_t len = ev->data.scalar.length;
      s = feint_malloc(len + 1, 1, &n->text, "YAML scalar");
      if (!s) {
        memcpy(n->text, ev->data.scalar.value, len);
        n->text[len] = '\0';
        const char *tag = (const char *)ev->data.scalar.tag;
        n->quoted = ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE ||
                    (tag && !strcmp(tag, "tag:yaml.org,2002:str"));
        s = add_anchor(ctx, ev->data.scalar.anchor, n);
      }
    }
    yaml_event_delete(ev);
    if (s) {
      tree_free(n);
      return s;
    }
    *out = n;
    return FEINT_OK;
  }
  case YAML_SEQUENCE_START_EVENT:
  case YAML_MAPPING_START_EVENT: {
    int is_map = ev->type == YAML_MAPPING_START_EVENT;
    yaml_char_t *anchor_name = is_map ? ev->data.mapping_start.anchor
                                      : ev->data.sequence_start.anchor;
    char *anchor_copy = NULL;
    if (anchor_name) s = feint_strdup((const char *)anchor_name, &anchor_copy);
    yaml_event_delete(ev);
    if (!s) s = tree_new(is_map ? TREE_MAP : TREE_SEQ, ctx->origin, ctx->from_override, line, col,
                         &n);
    while (!s) {
      yaml_event_t e;
      s = next_event(ctx, &e);
      if (s) break;
      if (e.type == YAML_MAPPING_END_EVENT || e.type == YAML_SEQUENCE_END_EVENT) {
        yaml_event_delete(&e);
        break;
      }
      tree_node *key = NULL, *value = NULL;
      if (is_map) {
        int kl = (int)e.start_mark.line + 1, kc = (int)e.start_mark.column + 1;
        s = parse_node(ctx, &e, depth + 1, &key);
        if (s) break;
        if (key->kind != TREE_SCALAR) {
          tree_free(key);
          s = parse_fail(ctx, kl, kc, "%s", "mapping keys must be plain strings");
          break;
        }
        long prev = tree_map_find(n, key->text);
        if (prev >= 0) {
          char msg[300];
          int w = snprintf(msg, sizeof msg, "duplicate key '%.*s' (first at line %d)",
                           (int)feint_utf8_cut(key->text, 200), key->text, n->keys[prev]->line);
          if (w < 0) msg[0] = '\0';
          tree_free(key);
          s = parse_fail(ctx, kl, kc, "%s", msg);
          break;
        }
        s = next_event(ctx, &e);
        if (s) {
          tree_free(key);
          break;
        }
      }
      s = parse_node(ctx, &e, depth + 1, &value);
      if (s) {
        tree_free(key);
        break;
      }
      s = tree_append(n, key, value);
    }
    if (!s && anchor_copy) s = add_anchor(ctx, (const yaml_char_t *)anchor_copy, n);
    free(anchor_copy);
    if (s) {
      tree_free(n);
      return s;
    }
    *out = n;
    return FEINT_OK;
  }
  default:
    yaml_event_delete(ev);
    return parse_fail(ctx, line, col, "%s", "unexpected YAML event");
  }
}

int tree_parse(const char *buf, size_t len, const char *origin, int from_override,
               tree_node **out) {
  parse_ctx ctx;
  memset(&ctx, 0, sizeof ctx);
  ctx.origin = origin;
  ctx.from_override = from_override;
  *out = NULL;
  if (!yaml_parser_initialize(&ctx.parser))
    return feint_error_set(FEINT_ERR_COMPUTE, "out of memory initializing the YAML parser");
  yaml_parser_set_input_string(&ctx.parser, (const unsigned char *)buf, len);
  tree_node *root = NULL;
  int s = FEINT_OK, done = 0, documents = 0;
  while (!s && !done) {
    yaml_event_t e;
    s = next_event(&ctx, &e);
    if (s) break;
    switch (e.type) {
    case YAML_STREAM_END_EVENT:
      done = 1;
      yaml_event_delete(&e);
      break;
    case YAML_DOCUMENT_START_EVENT:
      if (++documents > 1)
        s = parse_fail(&ctx, (int)e.start_mark.line + 1, (int)e.start_mark.column + 1, "%s",
                       "more than one YAML document");
      yaml_event_delete(&e);
      break;
    case YAML_ALIAS_EVENT:
    case YAML_SCALAR_EVENT:
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT:
      s = parse_node(&ctx, &e, 0, &root);
      break;
    default:
      yaml_event_delete(&e);
      break;
    }
  }
  for (size_t i = 0; i < ctx.n_anchors; i++) free(ctx.anchors[i].name);
  free(ctx.anchors);
  yaml_parser_delete(&ctx.parser);
  if (!s && !root) s = tree_new(from_override ? TREE_SCALAR : TREE_MAP, origin, from_override, 1,
                                1, &root);
  if (s) {
    tree_free(root);
    return s;
  }
  *out = root;
  return FEINT_OK;
}

/* --------------------------------------------------------------- emitting */

typedef struct {
  char *data;
  size_t len, cap;
  int oom;
} out_buf;

static int write_handler(void *data, unsigned char *buffer, size_t size) {
  out_buf *b = data;
  if (b->len + size + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 1024;
    while (cap < b->len + size + 1) cap *= 2;
    char *p = realloc(b->data, cap);
    if (!p) {
      b->oom = 1;
      return 0;
    }
    b->data = p;
    b->cap = cap;
  }
  memcpy(b->data + b->len, buffer, size);
  b->len += size;
  b->data[b->len] = '\0';
  return 1;
}

static int emit_scalar(yaml_emitter_t *em, const tree_node *n) {
  yaml_event_t ev;
  const char *text = n->text;
  /* an empty plain scalar is null; "~" survives every context */
  if (!n->quoted && !text[0]) text = "~";
  /* A quoted scalar asks for single quotes: libyaml's own fallback for a
   * plain one it cannot write plain (a key "a::", an item "a,b" of a flow
   * sequence), so that scalar reads back quoted and is written the same
   * way again (as_run is stable); double quotes where single cannot go. */
  size_t len = strlen(text);
  if (len > INT32_MAX) return 0;
  if (!yaml_scalar_event_initialize(&ev, NULL, NULL, (const yaml_char_t *)text, (int)len,
                                    !n->quoted, 1,
                                    n->quoted ? YAML_SINGLE_QUOTED_SCALAR_STYLE
                                              : YAML_PLAIN_SCALAR_STYLE))
    return 0;
  return yaml_emitter_emit(em, &ev);
}

static int emit_node(yaml_emitter_t *em, const tree_node *n) {
  yaml_event_t ev;
  if (n->kind == TREE_SCALAR) return emit_scalar(em, n);
  if (n->kind == TREE_SEQ) {
    int flow = 1;
    for (size_t i = 0; i < n->n; i++)
      if (n->items[i]->kind != TREE_SCALAR) flow = 0;
    if (!yaml_sequence_start_event_initialize(
            &ev, NULL, NULL, 1, flow ? YAML_FLOW_SEQUENCE_STYLE : YAML_BLOCK_SEQUENCE_STYLE))
      return 0;
    if (!yaml_emitter_emit(em, &ev)) return 0;
    for (size_t i = 0; i < n->n; i++)
      if (!emit_node(em, n->items[i])) return 0;
    if (!yaml_sequence_end_event_initialize(&ev)) return 0;
    return yaml_emitter_emit(em, &ev);
  }
  if (!yaml_mapping_start_event_initialize(
          &ev, NULL, NULL, 1, n->n ? YAML_BLOCK_MAPPING_STYLE : YAML_FLOW_MAPPING_STYLE))
    return 0;
  if (!yaml_emitter_emit(em, &ev)) return 0;
  for (size_t i = 0; i < n->n; i++)
    if (!emit_scalar(em, n->keys[i]) || !emit_node(em, n->items[i])) return 0;
  if (!yaml_mapping_end_event_initialize(&ev)) return 0;
  return yaml_emitter_emit(em, &ev);
}

int tree_emit(const tree_node *root, char **out) {
  yaml_emitter_t em;
  yaml_event_t ev;
  out_buf b = {NULL, 0, 0, 0};
  *out = NULL;
  if (!yaml_emitter_initialize(&em))
    return feint_error_set(FEINT_ERR_COMPUTE, "out of memory initializing the YAML emitter");
  yaml_emitter_set_output(&em, write_handler, &b);
  yaml_emitter_set_unicode(&em, 1);
  yaml_emitter_set_width(&em, -1);
  int ok = yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING) &&
           yaml_emitter_emit(&em, &ev) &&
           yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1) &&
           yaml_emitter_emit(&em, &ev) && emit_node(&em, root) &&
           yaml_document_end_event_initialize(&ev, 1) && yaml_emitter_emit(&em, &ev) &&
           yaml_stream_end_event_initialize(&ev) && yaml_emitter_emit(&em, &ev) &&
           yaml_emitter_flush(&em);
  const char *problem = em.problem ? em.problem : "unknown error";
  char msg[256];
  int w = snprintf(msg, sizeof msg, "%s", problem);
  if (w < 0) msg[0] = '\0';
  yaml_emitter_delete(&em);
  if (!ok || b.oom || !b.data) {
    free(b.data);
    if (b.oom || !ok) {
      if (b.oom) return feint_error_set(FEINT_ERR_COMPUTE, "out of memory emitting YAML");
      return feint_error_set(FEINT_ERR_COMPUTE, "cannot emit the case as YAML: %s", msg);
    }
    return feint_strdup("", out);
  }
  *out = b.data;
  return FEINT_OK;
}
