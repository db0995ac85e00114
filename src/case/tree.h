/* Internal to src/case: a small generic YAML tree (maps, sequences, scalars)
 * that remembers where each node came from (file line:column, or the
 * `--set` override that produced it), parsed with libyaml's event API and
 * emitted back as YAML with libyaml's emitter. */
#ifndef FEINT_CASE_TREE_H
#define FEINT_CASE_TREE_H

#include <stddef.h>

typedef enum { TREE_SCALAR = 0, TREE_MAP, TREE_SEQ } tree_kind;

typedef struct tree_node tree_node;
struct tree_node {
  tree_kind kind;
  int line, col;          /* 1-based position in the origin */
  const char *origin;     /* not owned: file display name, or the override text */
  int from_override;      /* 1: origin is an override "a.b=value" (--set), 2: a sweep member's value */
  char *text;             /* scalars (never NULL for scalars) */
  int quoted;             /* scalars: quoted (or !!str): always a string */
  size_t n, cap;          /* maps: entries; sequences: items */
  tree_node **keys;       /* maps: scalar key nodes */
  tree_node **items;      /* maps: values; sequences: items */
};

/* Parse one YAML document. An empty document yields an empty map (files) or
 * a null scalar (overrides). Errors (FEINT_ERR_INPUT):
 *   "<origin>:L:C: malformed YAML: <problem>"      (files)
 *   "--set <origin>: malformed YAML value: <problem>" (overrides) */
int tree_parse(const char *buf, size_t len, const char *origin, int from_override,
               tree_node **out);

void tree_free(tree_node *n);

/* A deep copy of `src` (origins shared, not owned, as in src). */
int tree_clone(const tree_node *src, tree_node **out);

/* New empty node of `kind` from the given origin (scalars get text ""). */
int tree_new(tree_kind kind, const char *origin, int from_override, int line, int col,
             tree_node **out);

/* Append a map entry (key, value) or a sequence item (key == NULL); takes
 * ownership of both nodes, also on failure. */
int tree_append(tree_node *parent, tree_node *key, tree_node *value);

/* Index of `key` in a map, or -1. */
long tree_map_find(const tree_node *map, const char *key);
/* Value of `key` in a map, or NULL. */
tree_node *tree_map_get(const tree_node *map, const char *key);

/* Plain "", "~", "null", "Null", "NULL". */
int tree_is_null(const tree_node *n);

/* "file:L:C" or "--set a.b=v" into buf; returns buf. */
const char *tree_where(const tree_node *n, char *buf, size_t size);

/* Emit the tree as one YAML document (block style; sequences of scalars in
 * flow style); *out is malloc'ed and NUL-terminated. */
int tree_emit(const tree_node *root, char **out);

#endif
