/* Native Gmsh .msh reader (msh.h): MSH 4.1 and 2.x, ASCII and binary, into
 * a feint_msh model, with every count checked against the file's bytes.
 *
 * The whole file is in one buffer, terminated by a NUL the parser owns (so
 * strtod can run on it: it stops at the NUL). Text is read by tokens
 * (whitespace-separated, as Gmsh's fscanf does, so line breaks inside a
 * record are accepted); binary data by memcpy after a bounds check. Error
 * positions are computed only when an error is reported (the line of a
 * text position by counting newlines up to it). */
#include "feint/msh.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "feint/error.h"
#include "feint/parallel.h"

/* ------------------------------------------------------------------------ */
/* The MSH element type table (Gmsh's GmshDefines.h numbers; node counts and
 * names as MElement::getInfoMSH and gmshModelMeshGetElementProperties give
 * them). Types 76-78 and 138-139 are not MSH types Gmsh reads. */

typedef struct {
  signed char dim; /* 0..3; 0 with name == NULL: unknown */
  short nodes;     /* 0: no fixed node count (polygons, polyhedra) */
  const char *name;
} type_row;

#define N_TYPES 141
static const type_row type_table[N_TYPES] = {
    [1] = {1, 2, "Line 2"},
    [2] = {2, 3, "Triangle 3"},
    [3] = {2, 4, "Quadrilateral 4"},
    [4] = {3, 4, "Tetrahedron 4"},
    [5] = {3, 8, "Hexahedron 8"},
    [6] = {3, 6, "Prism 6"},
    [7] = {3, 5, "Pyramid 5"},
    [8] = {1, 3, "Line 3"},
    [9] = {2, 6, "Triangle 6"},
    [10] = {2, 9, "Quadrilateral 9"},
    [11] = {3, 10, "Tetrahedron 10"},
    [12] = {3, 27, "Hexahedron 27"},
    [13] = {3, 18, "Prism 18"},
    [14] = {3, 14, "Pyramid 14"},
    [15] = {0, 1, "Point"},
    [16] = {2, 8, "Quadrilateral 8"},
    [17] = {3, 20, "Hexahedron 20"},
    [18] = {3, 15, "Prism 15"},
    [19] = {3, 13, "Pyramid 13"},
    [20] = {2, 9, "Triangle 9"},
    [21] = {2, 10, "Triangle 10"},
    [22] = {2, 12, "Triangle 12"},
    [23] = {2, 15, "Triangle 15"},
    [24] = {2, 15, "Triangle 15I"},
    [25] = {2, 21, "Triangle 21"},
    [26] = {1, 4, "Line 4"},
    [27] = {1, 5, "Line 5"},
    [28] = {1, 6, "Line 6"},
    [29] = {3, 20, "Tetrahedron 20"},
    [30] = {3, 35, "Tetrahedron 35"},
    [31] = {3, 56, "Tetrahedron 56"},
    [32] = {3, 22, "Tetrahedron 22"},
    [33] = {3, 28, "Tetrahedron 28"},
    [34] = {2, 0, "Polygon"},
    [35] = {3, 0, "Polyhedron"},
    [36] = {2, 16, "Quadrilateral 16"},
    [37] = {2, 25, "Quadrilateral 25"},
    [38] = {2, 36, "Quadrilateral 36"},
    [39] = {2, 12, "Quadrilateral 12"},
    [40] = {2, 16, "Quadrilateral 16I"},
    [41] = {2, 20, "Quadrilateral 20"},
    [42] = {2, 28, "Triangle 28"},
    [43] = {2, 36, "Triangle 36"},
    [44] = {2, 45, "Triangle 45"},
    [45] = {2, 55, "Triangle 55"},
    [46] = {2, 66, "Triangle 66"},
    [47] = {2, 49, "Quadrilateral 49"},
    [48] = {2, 64, "Quadrilateral 64"},
    [49] = {2, 81, "Quadrilateral 81"},
    [50] = {2, 100, "Quadrilateral 100"},
    [51] = {2, 121, "Quadrilateral 121"},
    [52] = {2, 18, "Triangle 18"},
    [53] = {2, 21, "Triangle 21I"},
    [54] = {2, 24, "Triangle 24"},
    [55] = {2, 27, "Triangle 27"},
    [56] = {2, 30, "Triangle 30"},
    [57] = {2, 24, "Quadrilateral 24"},
    [58] = {2, 28, "Quadrilateral 28"},
    [59] = {2, 32, "Quadrilateral 32"},
    [60] = {2, 36, "Quadrilateral 36I"},
    [61] = {2, 40, "Quadrilateral 40"},
    [62] = {1, 7, "Line 7"},
    [63] = {1, 8, "Line 8"},
    [64] = {1, 9, "Line 9"},
    [65] = {1, 10, "Line 10"},
    [66] = {1, 11, "Line 11"},
    [67] = {1, 2, "Line Border"},
    [68] = {2, 3, "Triangle Border"},
    [69] = {2, 0, "Polygon Border"},
    [70] = {1, 2, "Line Child"},
    [71] = {3, 84, "Tetrahedron 84"},
    [72] = {3, 120, "Tetrahedron 120"},
    [73] = {3, 165, "Tetrahedron 165"},
    [74] = {3, 220, "Tetrahedron 220"},
    [75] = {3, 286, "Tetrahedron 286"},
    [79] = {3, 34, "Tetrahedron 34"},
    [80] = {3, 40, "Tetrahedron 40"},
    [81] = {3, 46, "Tetrahedron 46"},
    [82] = {3, 52, "Tetrahedron 52"},
    [83] = {3, 58, "Tetrahedron 58"},
    [84] = {1, 1, "Line 1"},
    [85] = {2, 1, "Triangle 1"},
    [86] = {2, 1, "Quadrilateral 1"},
    [87] = {3, 1, "Tetrahedron 1"},
    [88] = {3, 1, "Hexahedron 1"},
    [89] = {3, 1, "Prism 1"},
    [90] = {3, 40, "Prism 40"},
    [91] = {3, 75, "Prism 75"},
    [92] = {3, 64, "Hexahedron 64"},
    [93] = {3, 125, "Hexahedron 125"},
    [94] = {3, 216, "Hexahedron 216"},
    [95] = {3, 343, "Hexahedron 343"},
    [96] = {3, 512, "Hexahedron 512"},
    [97] = {3, 729, "Hexahedron 729"},
    [98] = {3, 1000, "Hexahedron 1000"},
    [99] = {3, 32, "Hexahedron 32"},
    [100] = {3, 44, "Hexahedron 44"},
    [101] = {3, 56, "Hexahedron 56"},
    [102] = {3, 68, "Hexahedron 68"},
    [103] = {3, 80, "Hexahedron 80"},
    [104] = {3, 92, "Hexahedron 92"},
    [105] = {3, 104, "Hexahedron 104"},
    [106] = {3, 126, "Prism 126"},
    [107] = {3, 196, "Prism 196"},
    [108] = {3, 288, "Prism 288"},
    [109] = {3, 405, "Prism 405"},
    [110] = {3, 550, "Prism 550"},
    [111] = {3, 24, "Prism 24"},
    [112] = {3, 33, "Prism 33"},
    [113] = {3, 42, "Prism 42"},
    [114] = {3, 51, "Prism 51"},
    [115] = {3, 60, "Prism 60"},
    [116] = {3, 69, "Prism 69"},
    [117] = {3, 78, "Prism 78"},
    [118] = {3, 30, "Pyramid 30"},
    [119] = {3, 55, "Pyramid 55"},
    [120] = {3, 91, "Pyramid 91"},
    [121] = {3, 140, "Pyramid 140"},
    [122] = {3, 204, "Pyramid 204"},
    [123] = {3, 285, "Pyramid 285"},
    [124] = {3, 385, "Pyramid 385"},
    [125] = {3, 21, "Pyramid 21"},
    [126] = {3, 29, "Pyramid 29"},
    [127] = {3, 37, "Pyramid 37"},
    [128] = {3, 45, "Pyramid 45"},
    [129] = {3, 53, "Pyramid 53"},
    [130] = {3, 61, "Pyramid 61"},
    [131] = {3, 69, "Pyramid 69"},
    [132] = {3, 1, "Pyramid 1"},
    [133] = {0, 1, "Point Xfem"},
    [134] = {1, 2, "Line Xfem"},
    [135] = {2, 3, "Triangle Xfem"},
    [136] = {3, 4, "Tetrahedron Xfem"},
    [137] = {3, 16, "Tetrahedron 16"},
    [140] = {3, 4, "Trihedron 4"},
};

static const type_row *type_get(int type) {
  if (type < 1 || type >= N_TYPES || !type_table[type].name) return NULL;
  return &type_table[type];
}

int feint_msh_type_nodes(int type) {
  const type_row *t = type_get(type);
  return t ? t->nodes : 0;
}

int feint_msh_type_dim(int type) {
  const type_row *t = type_get(type);
  return t ? t->dim : -1;
}

const char *feint_msh_type_name(int type) {
  const type_row *t = type_get(type);
  return t ? t->name : NULL;
}

/* Gmsh's order of element families on an entity (GVertex, GEdge, GFace and
 * GRegion list their elements family by family in this order). */
static int type_family(int type) {
  static const char *const families[] = {"Point", "Line", "Triangle", "Quadrilateral", "Polygon",
                                         "Tetrahedron", "Hexahedron", "Prism", "Pyramid",
                                         "Trihedron", "Polyhedron"};
  const char *name = feint_msh_type_name(type);
  if (!name) return 99;
  for (int f = 0; f < (int)(sizeof families / sizeof families[0]); f++) {
    size_t k = strlen(families[f]);
    if (strncmp(name, families[f], k) == 0 && (name[k] == ' ' || name[k] == '\0')) return f;
  }
  return 99;
}

/* ------------------------------------------------------------------------ */
/* Model building (shared with the libgmsh source) */

void feint_msh_destroy(feint_msh *m) {
  if (!m) return;
  for (size_t i = 0; i < m->n_names; i++) free(m->names[i].name);
  free(m->names);
  for (size_t i = 0; i < m->n_entities; i++) free(m->entities[i].physicals);
  free(m->entities);
  free(m->node_tags);
  free(m->xyz);
  free(m->node_blocks);
  for (size_t i = 0; i < m->n_blocks; i++) free(m->blocks[i].nodes);
  free(m->blocks);
  if (m->mapping) munmap(m->mapping, m->mapping_bytes);
  free(m);
}

/* Grow *a (of *cap items of size bytes) to hold n + 1 items. */
static int grow(void *a, size_t *cap, size_t n, size_t size, const char *what) {
  if (n < *cap) return FEINT_OK;
  size_t nc = *cap ? *cap : 8;
  while (nc <= n) {
    if (nc > SIZE_MAX / 2 / size) return feint_error_set(FEINT_ERR_COMPUTE, "out of memory allocating %s", what);
    nc *= 2;
  }
  void *p = realloc(*(void **)a, nc * size);
  if (!p) return feint_error_set(FEINT_ERR_COMPUTE, "out of memory allocating %s (%zu bytes)", what, nc * size);
  *(void **)a = p;
  *cap = nc;
  return FEINT_OK;
}

/* Capacities of the growing arrays, kept beside the model (not in it). */
typedef struct {
  feint_msh m;
  size_t cap_names, cap_entities, cap_blocks;
} model_box;

int feint_msh_add_block(feint_msh *m, int dim, int tag, int type, size_t n, int64_t *nodes) {
  model_box *b = (model_box *)m;
  int st = grow(&m->blocks, &b->cap_blocks, m->n_blocks, sizeof *m->blocks, "mesh element blocks");
  if (st) {
    free(nodes);
    return st;
  }
  feint_msh_block *B = &m->blocks[m->n_blocks++];
  B->dim = dim;
  B->tag = tag;
  B->type = type;
  B->nn = feint_msh_type_nodes(type);
  B->n = n;
  B->nodes = nodes;
  B->rows = NULL;
  return FEINT_OK;
}

int feint_msh_add_entity(feint_msh *m, int dim, int tag, size_t n_physicals, int *physicals) {
  model_box *b = (model_box *)m;
  int st = grow(&m->entities, &b->cap_entities, m->n_entities, sizeof *m->entities, "mesh entities");
  if (st) {
    free(physicals);
    return st;
  }
  feint_msh_entity *E = &m->entities[m->n_entities++];
  E->dim = dim;
  E->tag = tag;
  E->n_physicals = n_physicals;
  E->physicals = physicals;
  return FEINT_OK;
}

int feint_msh_add_name(feint_msh *m, int dim, int tag, const char *name) {
  model_box *b = (model_box *)m;
  FEINT_CALL(grow(&m->names, &b->cap_names, m->n_names, sizeof *m->names, "mesh physical names"));
  feint_msh_name *N = &m->names[m->n_names];
  N->dim = dim;
  N->tag = tag;
  FEINT_CALL(feint_strdup(name, &N->name));
  m->n_names++;
  return FEINT_OK;
}

int feint_msh_create(feint_msh **out) {
  model_box *b = NULL;
  FEINT_CALL(feint_calloc(1, sizeof *b, &b, "mesh model"));
  *out = &b->m;
  return FEINT_OK;
}

static int cmp_entity(const void *pa, const void *pb) {
  const feint_msh_entity *a = pa, *b = pb;
  if (a->dim != b->dim) return a->dim < b->dim ? -1 : 1;
  return (a->tag > b->tag) - (a->tag < b->tag);
}

typedef struct {
  int dim, tag, family, type;
  size_t index;
} block_key;

static int cmp_block_key(const void *pa, const void *pb) {
  const block_key *a = pa, *b = pb;
  if (a->dim != b->dim) return a->dim < b->dim ? -1 : 1;
  if (a->tag != b->tag) return a->tag < b->tag ? -1 : 1;
  if (a->family != b->family) return a->family < b->family ? -1 : 1;
  if (a->type != b->type) return a->type < b->type ? -1 : 1;
  return (a->index > b->index) - (a->index < b->index); /* stable: file order */
}

int feint_msh_finish(feint_msh *m, const char *path) {
  if (m->n_entities) qsort(m->entities, m->n_entities, sizeof *m->entities, cmp_entity);
  for (size_t i = 1; i < m->n_entities; i++)
    if (!cmp_entity(&m->entities[i - 1], &m->entities[i]))
      return feint_error_set(FEINT_ERR_INPUT, "%s: entity %d of dimension %d is defined twice", path,
                             m->entities[i].tag, m->entities[i].dim);
  /* entities that only the elements name (no $Entities, or MSH 2): added
   * without physical groups, as Gmsh adds discrete entities */
  size_t known = m->n_entities;
  for (size_t i = 0; i < m->n_blocks; i++) {
    feint_msh_entity key = {.dim = m->blocks[i].dim, .tag = m->blocks[i].tag};
    if (known && bsearch(&key, m->entities, known, sizeof key, cmp_entity)) continue;
    /* skip one added already for an earlier block (blocks of an entity are usually adjacent) */
    if (m->n_entities > known && !cmp_entity(&m->entities[m->n_entities - 1], &key)) continue;
    FEINT_CALL(feint_msh_add_entity(m, key.dim, key.tag, 0, NULL));
  }
  if (m->n_entities > known) {
    qsort(m->entities, m->n_entities, sizeof *m->entities, cmp_entity);
    size_t w = 1;
    for (size_t i = 1; i < m->n_entities; i++) {
      if (!cmp_entity(&m->entities[w - 1], &m->entities[i])) {
        free(m->entities[i].physicals);
        continue;
      }
      m->entities[w++] = m->entities[i];
    }
    m->n_entities = w;
  }
  if (m->n_blocks < 2) return FEINT_OK;
  block_key *keys = NULL;
  feint_msh_block *sorted = NULL;
  FEINT_CALL(feint_malloc(m->n_blocks, sizeof *keys, &keys, "mesh block order"));
  int st = feint_malloc(m->n_blocks, sizeof *sorted, &sorted, "mesh block order");
  if (st) {
    free(keys);
    return st;
  }
  for (size_t i = 0; i < m->n_blocks; i++) {
    const feint_msh_block *B = &m->blocks[i];
    keys[i] = (block_key){B->dim, B->tag, type_family(B->type), B->type, i};
  }
  qsort(keys, m->n_blocks, sizeof *keys, cmp_block_key);
  for (size_t i = 0; i < m->n_blocks; i++) sorted[i] = m->blocks[keys[i].index];
  memcpy(m->blocks, sorted, m->n_blocks * sizeof *sorted);
  free(sorted);
  free(keys);
  return FEINT_OK;
}

/* ------------------------------------------------------------------------ */
/* Parser state and errors */

typedef struct {
  const char *path;
  const char *buf, *p, *end; /* *end == '\0' */
  /* Binary data before `kept` may be given back (release_text: its pages
   * dropped once parsed, where the buffer is a mapping of its own); past
   * it, messages name bytes rather than lines (lines_unknown). */
  const char *kept;
  int releasable, lines_unknown;
  int lazy; /* feint_msh_read_shared: binary blocks of dimension 2 and 3 are left in the file */
  int binary, version;
  feint_msh *m;
  int seen_nodes, seen_elements, seen_entities, seen_names;
} parser;

static size_t line_of(const parser *P, const char *at) {
  size_t line = 1;
  for (const char *q = P->buf; q < at && q < P->end; q++) line += *q == '\n';
  return line;
}

/* "path:LINE: message" for text, "path: byte OFFSET: message" in binary data
 * (the error's location is the caller's). */
#define fail_at(...) fail_at_loc(__FILE__, __LINE__, __VA_ARGS__)
#define fail_byte(...) fail_byte_loc(__FILE__, __LINE__, __VA_ARGS__)
__attribute__((format(printf, 5, 6))) static int fail_at_loc(const char *file, int line, const parser *P,
                                                             const char *at, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (P->lines_unknown) /* lines past binary data given back: where it is, as in the data itself */
    return feint_error_set_loc(file, line, FEINT_ERR_INPUT, "%s: byte %zu: %s", P->path, (size_t)(at - P->buf), msg);
  return feint_error_set_loc(file, line, FEINT_ERR_INPUT, "%s:%zu: %s", P->path, line_of(P, at), msg);
}

__attribute__((format(printf, 5, 6))) static int fail_byte_loc(const char *file, int line, const parser *P,
                                                               const char *at, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return feint_error_set_loc(file, line, FEINT_ERR_INPUT, "%s: byte %zu: %s", P->path, (size_t)(at - P->buf), msg);
}

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

static void skip_space(parser *P) {
  while (P->p < P->end && is_space(*P->p)) P->p++;
}

/* The token at s, quoted for a message: 'abc', or "end of file". */
static const char *token_text(const parser *P, const char *s, char *buf, size_t len) {
  if (s >= P->end) return "end of file";
  size_t k = 0;
  buf[k++] = '\'';
  for (const char *q = s; q < P->end && !is_space(*q) && k + 5 < len; q++) {
    unsigned char c = (unsigned char)*q;
    buf[k++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
    if (k > 24) {
      buf[k++] = '.', buf[k++] = '.', buf[k++] = '.';
      break;
    }
  }
  buf[k++] = '\'';
  buf[k] = '\0';
  return buf;
}

static int expected(const parser *P, const char *what) {
  char tok[40];
  const char *at = P->p;
  while (at < P->end && is_space(*at)) at++; /* name the next token, on its line */
  return fail_at(P, at, "expected %s, got %s", what, token_text(P, at, tok, sizeof tok));
}

/* ------------------------------------------------------------------------ */
/* Text tokens */

static int read_i64(parser *P, int64_t *v, const char *what) {
  skip_space(P);
  const char *s = P->p;
  int neg = 0;
  if (s < P->end && (*s == '-' || *s == '+')) neg = *s++ == '-';
  const char *digits = s;
  uint64_t acc = 0;
  while (s < P->end && *s >= '0' && *s <= '9') {
    unsigned d = (unsigned)(*s - '0');
    if (acc > ((uint64_t)INT64_MAX - d) / 10) return fail_at(P, P->p, "%s is too large", what);
    acc = acc * 10 + d;
    s++;
  }
  if (s == digits || (s < P->end && !is_space(*s))) return expected(P, what);
  *v = neg ? -(int64_t)acc : (int64_t)acc;
  P->p = s;
  return FEINT_OK;
}

static int read_int(parser *P, int *v, const char *what) {
  const char *at = (skip_space(P), P->p);
  int64_t x;
  FEINT_CALL(read_i64(P, &x, what));
  if (x < INT_MIN || x > INT_MAX) return fail_at(P, at, "%s %lld is out of range", what, (long long)x);
  *v = (int)x;
  return FEINT_OK;
}

static int read_count(parser *P, size_t *v, const char *what) {
  const char *at = (skip_space(P), P->p);
  int64_t x;
  FEINT_CALL(read_i64(P, &x, what));
  if (x < 0) return fail_at(P, at, "%s is negative (%lld)", what, (long long)x);
  *v = (size_t)x;
  return FEINT_OK;
}

static int read_double(parser *P, double *v, const char *what) {
  skip_space(P);
  char *e = NULL;
  if (P->p >= P->end) return expected(P, what);
  *v = strtod(P->p, &e); /* as Gmsh's fscanf("%lf"): the same bits */
  if (e == P->p || e > P->end || (e < P->end && !is_space(*e))) return expected(P, what);
  P->p = e;
  return FEINT_OK;
}

/* The rest of the line must be blank; consumes its newline (before binary data). */
static int end_line(parser *P) {
  while (P->p < P->end && (*P->p == ' ' || *P->p == '\t' || *P->p == '\r')) P->p++;
  if (P->p >= P->end || *P->p != '\n') return expected(P, "the end of the line");
  P->p++;
  return FEINT_OK;
}

/* The word at p (up to whitespace) equals w. */
static int word_is(const parser *P, const char *w) {
  size_t k = strlen(w);
  return (size_t)(P->end - P->p) >= k && memcmp(P->p, w, k) == 0 &&
         (P->p + k == P->end || is_space(P->p[k]));
}

static int expect_word(parser *P, const char *w) {
  skip_space(P);
  if (!word_is(P, w)) {
    char what[64];
    snprintf(what, sizeof what, "\"%s\"", w);
    return expected(P, what);
  }
  P->p += strlen(w);
  return FEINT_OK;
}

/* ------------------------------------------------------------------------ */
/* Binary values */

static int need(const parser *P, size_t count, size_t size, const char *what) {
  size_t left = (size_t)(P->end - P->p);
  if (count > left / size)
    return fail_byte(P, P->p, "expected %s (%zu x %zu bytes), the file ends after %zu bytes", what, count,
                     size, left);
  return FEINT_OK;
}

static int get_int(parser *P, int *v, const char *what) {
  FEINT_CALL(need(P, 1, 4, what));
  memcpy(v, P->p, 4);
  P->p += 4;
  return FEINT_OK;
}

static int get_size(parser *P, size_t *v, const char *what) {
  uint64_t x;
  FEINT_CALL(need(P, 1, 8, what));
  memcpy(&x, P->p, 8);
  if (x > (uint64_t)INT64_MAX) return fail_byte(P, P->p, "%s %llu is out of range", what, (unsigned long long)x);
  P->p += 8;
  *v = (size_t)x;
  return FEINT_OK;
}

/* Values in either mode. */
static int num_int(parser *P, int *v, const char *what) {
  return P->binary ? get_int(P, v, what) : read_int(P, v, what);
}
static int num_count(parser *P, size_t *v, const char *what) {
  return P->binary ? get_size(P, v, what) : read_count(P, v, what);
}
static int num_double(parser *P, double *v, const char *what) {
  if (!P->binary) return read_double(P, v, what);
  FEINT_CALL(need(P, 1, 8, what));
  memcpy(v, P->p, 8);
  P->p += 8;
  return FEINT_OK;
}
/* A count of items of at least text_bytes (text) / bin_bytes (binary) each. */
static int num_items(parser *P, size_t *v, size_t text_bytes, size_t bin_bytes, const char *what) {
  if (!P->binary) skip_space(P);
  const char *at = P->p;
  FEINT_CALL(num_count(P, v, what));
  size_t left = (size_t)(P->end - P->p), per = P->binary ? bin_bytes : text_bytes;
  if (*v > left / per) {
    if (P->binary)
      return fail_byte(P, at, "%s %zu is more than the %zu bytes left in the file can hold", what, *v, left);
    return fail_at(P, at, "%s %zu is more than the %zu bytes left in the file can hold", what, *v, left);
  }
  return FEINT_OK;
}

/* ------------------------------------------------------------------------ */
/* Sections */

static int parse_format(parser *P) {
  skip_space(P);
  const char *at = P->p;
  if (word_is(P, "4.1")) P->version = 41;
  else if (word_is(P, "2.2") || word_is(P, "2.1") || word_is(P, "2.0") || word_is(P, "2")) P->version = 22;
  else if (P->p < P->end && (*P->p == '4' || *P->p == '3' || *P->p == '1')) {
    char tok[40];
    return fail_at(P, at, "MSH version %s is not supported (feint reads 4.1 and 2.2; convert with "
                   "`gmsh FILE -save -format msh41`)", token_text(P, at, tok, sizeof tok));
  } else
    return expected(P, "a format version (4.1 or 2.2)");
  while (P->p < P->end && !is_space(*P->p)) P->p++;
  int file_type, data_size;
  FEINT_CALL(read_int(P, &file_type, "a file type (0 ASCII, 1 binary)"));
  if (file_type != 0 && file_type != 1)
    return fail_at(P, P->p, "expected a file type (0 ASCII, 1 binary), got %d", file_type);
  const char *ds = (skip_space(P), P->p);
  FEINT_CALL(read_int(P, &data_size, "a data size"));
  if (data_size != 8)
    return fail_at(P, ds, "data size %d is not supported (feint reads 8-byte sizes and doubles)", data_size);
  P->binary = file_type;
  if (P->binary) {
    FEINT_CALL(end_line(P));
    int one;
    const char *o = P->p;
    FEINT_CALL(get_int(P, &one, "the binary format's check value 1"));
    if (one == 0x01000000)
      return fail_byte(P, o, "the binary mesh is big-endian (byte-swapped); feint reads little-endian files");
    if (one != 1) return fail_byte(P, o, "expected the binary format's check value 1, got %d", one);
  }
  P->m->version = P->version;
  P->m->binary = P->binary;
  P->m->repeats = P->version == 22;
  return expect_word(P, "$EndMeshFormat");
}

static int parse_names(parser *P) {
  size_t n;
  int was_binary = P->binary;
  P->binary = 0; /* always text */
  int st = num_items(P, &n, 6, 6, "the number of physical names");
  P->binary = was_binary;
  FEINT_CALL(st);
  for (size_t i = 0; i < n; i++) {
    int dim, tag;
    FEINT_CALL(read_int(P, &dim, "a physical name's dimension"));
    if (dim < 0 || dim > 3) return fail_at(P, P->p, "physical name dimension %d is not 0..3", dim);
    FEINT_CALL(read_int(P, &tag, "a physical tag"));
    while (P->p < P->end && (*P->p == ' ' || *P->p == '\t')) P->p++;
    if (P->p >= P->end || *P->p != '"') return expected(P, "a quoted physical name");
    const char *s = ++P->p;
    while (P->p < P->end && *P->p != '"' && *P->p != '\n') P->p++;
    if (P->p >= P->end || *P->p != '"') return fail_at(P, s, "the physical name has no closing quote");
    size_t len = (size_t)(P->p - s);
    P->p++;
    char *name = NULL;
    FEINT_CALL(feint_malloc(len + 1, 1, &name, "physical name"));
    memcpy(name, s, len);
    name[len] = '\0';
    if (memchr(name, '\0', len)) {
      free(name);
      return fail_at(P, s, "the physical name holds a NUL byte");
    }
    st = feint_msh_add_name(P->m, dim, tag, name);
    free(name);
    FEINT_CALL(st);
  }
  return expect_word(P, "$EndPhysicalNames");
}

/* MSH 4.1 $Entities: points, curves, surfaces, volumes with their
 * physical tags (bounding boxes and bounding entities are read and dropped). */
static int parse_entities(parser *P) {
  size_t counts[4];
  if (P->binary) FEINT_CALL(end_line(P));
  for (int d = 0; d < 4; d++)
    FEINT_CALL(num_items(P, &counts[d], d ? 16 : 10, d ? 68 : 36, "an entity count"));
  for (int d = 0; d < 4; d++) {
    for (size_t i = 0; i < counts[d]; i++) {
      int tag;
      double box;
      size_t np, nb;
      if (!P->binary) skip_space(P);
      FEINT_CALL(num_int(P, &tag, "an entity tag"));
      for (int k = 0; k < (d ? 6 : 3); k++) FEINT_CALL(num_double(P, &box, "a bounding box coordinate"));
      FEINT_CALL(num_items(P, &np, 2, 4, "the number of physical tags"));
      int *phys = NULL;
      FEINT_CALL(feint_malloc(np + 1, sizeof *phys, &phys, "entity physical tags"));
      for (size_t k = 0; k < np; k++) {
        int st = num_int(P, &phys[k], "a physical tag");
        if (st) {
          free(phys);
          return st;
        }
      }
      FEINT_CALL(feint_msh_add_entity(P->m, d, tag, np, phys));
      if (d == 0) continue;
      FEINT_CALL(num_items(P, &nb, 2, 4, "the number of bounding entities"));
      if (P->binary) {
        P->p += nb * 4; /* fits: checked by num_items */
      } else {
        for (size_t k = 0; k < nb; k++) {
          int b;
          FEINT_CALL(read_int(P, &b, "a bounding entity tag"));
        }
      }
    }
  }
  return expect_word(P, "$EndEntities");
}

static int check_node_tag(parser *P, const char *at, int64_t tag) {
  if (tag >= 1) return FEINT_OK;
  if (P->binary) return fail_byte(P, at, "node tag %lld: node tags start at 1", (long long)tag);
  return fail_at(P, at, "node tag %lld: node tags start at 1", (long long)tag);
}

static int alloc_nodes(parser *P, size_t n) {
  feint_msh *m = P->m;
  m->n_nodes = n;
  FEINT_CALL(feint_malloc(n + 1, sizeof *m->node_tags, &m->node_tags, "mesh node tags"));
  if (n > (SIZE_MAX / sizeof(double) - 1) / 3) return feint_error_set(FEINT_ERR_COMPUTE, "out of memory");
  return feint_malloc(3 * n + 1, sizeof *m->xyz, &m->xyz, "mesh node coordinates");
}

/* Copy n rows of row_bytes from src (rows src_stride apart) to dst (rows
 * dst_stride apart), on every core: a large mesh's bulk copies are bound
 * by memory bandwidth and by first touching the new arrays, which one
 * core does at a fraction of the host's rate. */
typedef struct {
  char *dst;
  const char *src;
  size_t dst_stride, src_stride, row_bytes;
} row_copy;

static void copy_rows_range(int64_t begin, int64_t end, void *ctx) {
  const row_copy *c = ctx;
  if (c->dst_stride == c->row_bytes && c->src_stride == c->row_bytes) {
    memcpy(c->dst + (size_t)begin * c->row_bytes, c->src + (size_t)begin * c->row_bytes,
           (size_t)(end - begin) * c->row_bytes);
    return;
  }
  for (int64_t i = begin; i < end; i++)
    memcpy(c->dst + (size_t)i * c->dst_stride, c->src + (size_t)i * c->src_stride, c->row_bytes);
}

static void copy_rows(void *dst, size_t dst_stride, const void *src, size_t src_stride, size_t n, size_t row_bytes) {
  row_copy c = {dst, src, dst_stride, src_stride, row_bytes};
  feint_parallel_for((int64_t)n, ((int64_t)1 << 20) / (int64_t)(row_bytes ? row_bytes : 1) + 1, copy_rows_range, &c);
}

/* ---- Text records on every core ----
 * A large block of a text file (a million elements, one per line, as Gmsh
 * writes them) is parsed line by line on every core: the block's lines are
 * found by counting newlines (side by side), split into ranges at line
 * starts, and each range's lines parsed by a line parser that sets no
 * error. Any line not of the expected shape (another layout, a bad token)
 * declines the whole block, which the token parser then reads from its
 * start, with its messages: both read the same values where both can. */
enum { LINES_MIN = 1 << 15, LINES_GRAIN = 1 << 20 };

/* Parse the line [s, e) (e at its '\n') as record i; 0 when it has the shape. */
typedef int (*line_fn)(const char *s, const char *e, size_t i, void *ctx);

typedef struct {
  const char *base;
  int64_t span;       /* the lines' bytes: base[span - 1] is the last '\n' */
  size_t count[FEINT_PARALLEL_MAX_RANGES];   /* lines starting in each range */
  size_t first[FEINT_PARALLEL_MAX_RANGES];   /* index of each range's first line */
  int failed[FEINT_PARALLEL_MAX_RANGES];
  line_fn fn;
  void *ctx;
} line_ranges;

static size_t count_newlines(const char *s, size_t n);

/* A line starts at `at` when at is the span's start or follows a '\n'. */
static void count_range(int64_t begin, int64_t end, int k, void *ctx) {
  line_ranges *L = ctx;
  L->count[k] = begin == 0 ? 1 + count_newlines(L->base, (size_t)(end - 1))
                           : count_newlines(L->base + begin - 1, (size_t)(end - begin));
}

static void parse_range(int64_t begin, int64_t end, int k, void *ctx) {
  line_ranges *L = ctx;
  const char *s = L->base + begin;
  if (begin > 0)
    while (s < L->base + end && s[-1] != '\n') s++; /* the first line starting in the range */
  size_t i = L->first[k];
  while (s < L->base + end) {
    const char *e = memchr(s, '\n', (size_t)(L->base + L->span - s)); /* a line may end past the range */
    if (!e || L->fn(s, e, i, L->ctx)) {
      L->failed[k] = 1;
      return;
    }
    s = e + 1;
    i++;
  }
}

/* Newlines in [s, s + n), eight bytes at a time: in x = word ^ "\n\n...", a
 * byte is zero exactly when the top bit of ~((x & 0x7f..) + 0x7f.. | x |
 * 0x7f..) is set in it (no carries between bytes). */
static size_t count_newlines(const char *s, size_t n) {
  size_t c = 0, i = 0;
  const uint64_t lo7 = 0x7f7f7f7f7f7f7f7full, nl = 0x0a0a0a0a0a0a0a0aull;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, s + i, 8);
    const uint64_t x = w ^ nl;
    c += (size_t)__builtin_popcountll(~(((x & lo7) + lo7) | x | lo7));
  }
  for (; i < n; i++) c += s[i] == '\n';
  return c;
}

typedef struct {
  const char *s;
  size_t count[FEINT_PARALLEL_MAX_RANGES];
} newline_count;

static void newline_count_range(int64_t begin, int64_t end, int k, void *ctx) {
  newline_count *c = ctx;
  c->count[k] = count_newlines(c->s + begin, (size_t)(end - begin));
}

/* The parsed binary data before `upto` given back to the system, whole
 * pages of it, once there are RELEASE_MIN bytes of them: what was read is
 * held in arrays now, and the file's bytes beside them had set the read's
 * peak (file and arrays both, about twice the file). Text files keep
 * theirs: their messages count lines from the start, and counting the
 * lines given back cost more time than the little memory it saved (the
 * parsed numbers are smaller than their text). */
enum { RELEASE_MIN = 8 << 20 };
static void release_text(parser *P, const char *upto) {
  if (!P->releasable || !P->binary || upto > P->end) return;
  const size_t page = (size_t)sysconf(_SC_PAGESIZE);
  const char *to = P->buf + (size_t)(upto - P->buf) / page * page;
  if (to <= P->kept || (size_t)(to - P->kept) < RELEASE_MIN) return;
  /* kept starts on a page: the buffer does, and every release ends on one */
  if (madvise((void *)(uintptr_t)P->kept, (size_t)(to - P->kept), MADV_DONTNEED) == 0) {
    P->kept = to;
    P->lines_unknown = 1;
  } else {
    P->releasable = 0;
  }
}

/* The end of the n-th line from s (past its '\n'), or NULL before `end`. */
static const char *nth_line_end(const char *s, const char *end, size_t n) {
  while (n > 0 && s < end) {
    const size_t window = (size_t)(end - s) < ((size_t)LINES_GRAIN << 4) ? (size_t)(end - s) : (size_t)LINES_GRAIN << 4;
    newline_count c = {.s = s};
    const int ranges = feint_parallel_for_indexed((int64_t)window, LINES_GRAIN, newline_count_range, &c);
    for (int k = 0; k < ranges; k++) {
      if (c.count[k] < n) {
        n -= c.count[k];
        continue;
      }
      const char *q = s + feint_parallel_range_start((int64_t)window, ranges, k);
      for (;; q++)
        if (*q == '\n' && --n == 0) return q + 1;
    }
    s += window;
  }
  return n == 0 ? s : NULL;
}

/* The next n lines (after the rest of the current line, which must be
 * blank) by fn on every core: 1 when parsed (P->p past them), 0 when
 * declined (P->p unchanged): few lines, one core, or a line not of fn's
 * shape. */
static int parse_lines(parser *P, size_t n, line_fn fn, void *ctx) {
  if (n < LINES_MIN || feint_parallel_ranges((int64_t)n, LINES_MIN / 2) < 2) return 0;
  const char *s = P->p;
  while (s < P->end && (*s == ' ' || *s == '\t' || *s == '\r')) s++;
  if (s >= P->end || *s != '\n') return 0;
  s++;
  const char *stop = nth_line_end(s, P->end, n);
  if (!stop) return 0;
  const int64_t span = stop - s;
  line_ranges L = {.base = s, .span = span, .fn = fn, .ctx = ctx};
  const int ranges = feint_parallel_for_indexed(span, LINES_GRAIN, count_range, &L);
  size_t total = 0;
  for (int k = 0; k < ranges; k++) {
    L.first[k] = total;
    total += L.count[k];
  }
  if (total != n) return 0;
  feint_parallel_for_indexed(span, LINES_GRAIN, parse_range, &L); /* the same ranges: same n, same grain */
  for (int k = 0; k < ranges; k++)
    if (L.failed[k]) return 0;
  P->p = stop;
  return 1;
}

/* read_i64's integer at *s (after blanks), setting no error: 0 when it is one. */
static int lean_i64(const char **s, const char *e, int64_t *v) {
  const char *q = *s;
  while (q < e && (*q == ' ' || *q == '\t')) q++;
  int neg = 0;
  if (q < e && (*q == '-' || *q == '+')) neg = *q++ == '-';
  const char *digits = q;
  uint64_t acc = 0;
  while (q < e && *q >= '0' && *q <= '9') {
    const unsigned d = (unsigned)(*q - '0');
    if (acc > ((uint64_t)INT64_MAX - d) / 10) return 1;
    acc = acc * 10 + d;
    q++;
  }
  if (q == digits || (q < e && !is_space(*q))) return 1;
  *v = neg ? -(int64_t)acc : (int64_t)acc;
  *s = q;
  return 0;
}

/* read_double's number at *s, setting no error. */
static int lean_double(const char **s, const char *e, double *v) {
  const char *q = *s;
  while (q < e && (*q == ' ' || *q == '\t')) q++;
  if (q >= e) return 1;
  char *after = NULL;
  *v = strtod(q, &after);
  if (after == q || after > e || (after < e && !is_space(*after))) return 1;
  *s = after;
  return 0;
}

/* Only blanks left on the line. */
static int lean_end(const char *s, const char *e) {
  while (s < e && (*s == ' ' || *s == '\t' || *s == '\r')) s++;
  return s != e;
}

/* An element line: its tag, then nn node tags. */
typedef struct {
  int64_t *nodes;
  int nn;
} element_lines;

static int element_line(const char *s, const char *e, size_t i, void *ctx) {
  const element_lines *c = ctx;
  int64_t tag, *row = c->nodes + i * (size_t)c->nn;
  if (lean_i64(&s, e, &tag)) return 1;
  for (int k = 0; k < c->nn; k++)
    if (lean_i64(&s, e, &row[k])) return 1;
  return lean_end(s, e);
}

/* A node tag line (tags >= 1, as check_node_tag wants). */
static int node_tag_line(const char *s, const char *e, size_t i, void *ctx) {
  int64_t *tags = ctx;
  return lean_i64(&s, e, &tags[i]) || tags[i] < 1 || lean_end(s, e);
}

/* A node coordinate line: x y z, then nc - 3 parametric coordinates. */
typedef struct {
  double *xyz;
  int nc;
} coordinate_lines;

static int coordinate_line(const char *s, const char *e, size_t i, void *ctx) {
  const coordinate_lines *c = ctx;
  double u;
  for (int k = 0; k < 3; k++)
    if (lean_double(&s, e, &c->xyz[3 * i + (size_t)k])) return 1;
  for (int k = 3; k < c->nc; k++)
    if (lean_double(&s, e, &u)) return 1;
  return lean_end(s, e);
}

static int parse_nodes41(parser *P) {
  feint_msh *m = P->m;
  size_t n_blocks, n, lo, hi, filled = 0;
  if (P->binary) FEINT_CALL(end_line(P));
  FEINT_CALL(num_items(P, &n_blocks, 8, 20, "the number of node blocks"));
  FEINT_CALL(num_items(P, &n, 8, 32, "the number of nodes"));
  FEINT_CALL(num_count(P, &lo, "the smallest node tag"));
  FEINT_CALL(num_count(P, &hi, "the largest node tag"));
  /* a shared read leaves binary nodes in the file: each process copies the range it takes (feint_msh_nodes) */
  const int left = P->lazy && P->binary;
  if (left) {
    m->n_nodes = n;
    FEINT_CALL(feint_calloc(n_blocks + 1, sizeof *m->node_blocks, &m->node_blocks, "mesh node blocks"));
  } else {
    FEINT_CALL(alloc_nodes(P, n));
  }
  for (size_t b = 0; b < n_blocks; b++) {
    int edim, etag, par;
    size_t nb;
    if (!P->binary) skip_space(P);
    const char *at = P->p;
    FEINT_CALL(num_int(P, &edim, "a node block's entity dimension"));
    FEINT_CALL(num_int(P, &etag, "a node block's entity tag"));
    FEINT_CALL(num_int(P, &par, "a node block's parametric flag"));
    if (edim < 0 || edim > 3 || par < 0 || par > 1)
      return P->binary ? fail_byte(P, at, "bad node block header (entity dimension %d, parametric %d)", edim, par)
                       : fail_at(P, at, "bad node block header (entity dimension %d, parametric %d)", edim, par);
    const char *nat = (P->binary ? 0 : (skip_space(P), 0), P->p);
    FEINT_CALL(num_count(P, &nb, "the number of nodes in the block"));
    if (nb > n - filled)
      return P->binary ? fail_byte(P, nat, "the node blocks hold more than the %zu nodes declared", n)
                       : fail_at(P, nat, "the node blocks hold more than the %zu nodes declared", n);
    const int nc = 3 + (par ? edim : 0);
    if (left) {
      FEINT_CALL(need(P, nb, 8, "node tags"));
      const char *tags = P->p;
      P->p += nb * 8;
      FEINT_CALL(need(P, nb, (size_t)nc * 8, "node coordinates"));
      m->node_blocks[m->n_node_blocks++] = (feint_msh_node_block){filled, nb, tags, P->p, nc};
      P->p += nb * (size_t)nc * 8;
      filled += nb;
      continue;
    }
    int64_t *tags = m->node_tags + filled;
    double *xyz = m->xyz + 3 * filled;
    if (P->binary) {
      FEINT_CALL(need(P, nb, 8, "node tags"));
      copy_rows(tags, 8, P->p, 8, nb, 8);
      for (size_t i = 0; i < nb; i++)
        if (tags[i] < 1) return check_node_tag(P, P->p + 8 * i, tags[i]);
      P->p += nb * 8;
      FEINT_CALL(need(P, nb, (size_t)nc * 8, "node coordinates"));
      copy_rows(xyz, 24, P->p, (size_t)nc * 8, nb, 24);
      P->p += nb * (size_t)nc * 8;
    } else {
      coordinate_lines cl = {xyz, nc};
      if (!parse_lines(P, nb, node_tag_line, tags))
        for (size_t i = 0; i < nb; i++) {
          skip_space(P);
          const char *t = P->p;
          FEINT_CALL(read_i64(P, &tags[i], "a node tag"));
          FEINT_CALL(check_node_tag(P, t, tags[i]));
        }
      if (!parse_lines(P, nb, coordinate_line, &cl))
        for (size_t i = 0; i < nb; i++) {
          double u;
          for (int k = 0; k < 3; k++) FEINT_CALL(read_double(P, &xyz[3 * i + (size_t)k], "a node coordinate"));
          for (int k = 3; k < nc; k++) FEINT_CALL(read_double(P, &u, "a node parametric coordinate"));
        }
    }
    filled += nb;
    release_text(P, P->p);
  }
  if (filled != n) return expected(P, "more node blocks (fewer nodes than declared)");
  return expect_word(P, "$EndNodes");
}

/* One block's element data; type checked against the entity's dimension. */
static int check_block_type(parser *P, const char *at, int edim, int type, int *nn) {
  const type_row *t = type_get(type);
  const char *why = NULL;
  char buf[160];
  if (!t) why = "unknown element type";
  else if (!t->nodes) why = "element type without a fixed node count";
  else if (t->dim != edim) {
    snprintf(buf, sizeof buf, "element type %d (%s, dimension %d) in a block of dimension %d", type,
             t->name, t->dim, edim);
    return P->binary ? fail_byte(P, at, "%s", buf) : fail_at(P, at, "%s", buf);
  }
  if (why) return P->binary ? fail_byte(P, at, "%s %d", why, type) : fail_at(P, at, "%s %d", why, type);
  *nn = t->nodes;
  return FEINT_OK;
}

static int parse_elements41(parser *P) {
  size_t n_blocks, n, lo, hi, total = 0;
  if (P->binary) FEINT_CALL(end_line(P));
  FEINT_CALL(num_items(P, &n_blocks, 8, 20, "the number of element blocks"));
  FEINT_CALL(num_items(P, &n, 4, 16, "the number of elements"));
  FEINT_CALL(num_count(P, &lo, "the smallest element tag"));
  FEINT_CALL(num_count(P, &hi, "the largest element tag"));
  for (size_t b = 0; b < n_blocks; b++) {
    int edim, etag, type, nn = 0;
    size_t ne;
    if (!P->binary) skip_space(P);
    const char *at = P->p;
    FEINT_CALL(num_int(P, &edim, "an element block's entity dimension"));
    FEINT_CALL(num_int(P, &etag, "an element block's entity tag"));
    if (!P->binary) skip_space(P);
    const char *tat = P->p;
    FEINT_CALL(num_int(P, &type, "an element type"));
    if (edim < 0 || edim > 3)
      return P->binary ? fail_byte(P, at, "entity dimension %d is not 0..3", edim)
                       : fail_at(P, at, "entity dimension %d is not 0..3", edim);
    FEINT_CALL(check_block_type(P, tat, edim, type, &nn));
    /* each element: its tag and nn node tags, 8 bytes each (binary) or at least 2 characters */
    FEINT_CALL(num_items(P, &ne, 2 * ((size_t)nn + 1), 8 * ((size_t)nn + 1), "the number of elements in the block"));
    if (ne > n - total)
      return P->binary ? fail_byte(P, at, "the element blocks hold more than the %zu elements declared", n)
                       : fail_at(P, at, "the element blocks hold more than the %zu elements declared", n);
    total += ne;
    if (ne == 0) continue;
    if (P->binary && P->lazy && edim >= 2) { /* left in the file: the builder reads the rows it uses */
      FEINT_CALL(feint_msh_add_block(P->m, edim, etag, type, ne, NULL));
      P->m->blocks[P->m->n_blocks - 1].rows = P->p;
      P->p += ne * ((size_t)nn + 1) * 8; /* fits: checked by num_items */
      release_text(P, P->p); /* its rows untouched yet: nothing of them is held */
      continue;
    }
    int64_t *nodes = NULL;
    FEINT_CALL(feint_malloc(ne * (size_t)nn, sizeof *nodes, &nodes, "mesh elements"));
    int st = FEINT_OK;
    if (P->binary) {
      /* fits: checked by num_items */
      const char *s = P->p;
      const size_t row = ((size_t)nn + 1) * 8, chunk = ((size_t)RELEASE_MIN) / row + 1;
      /* each row less its element tag, in chunks, each one's text given back once copied */
      for (size_t e = 0; e < ne; e += chunk) {
        const size_t k = ne - e < chunk ? ne - e : chunk;
        copy_rows(nodes + e * (size_t)nn, (size_t)nn * 8, s + e * row + 8, row, k, (size_t)nn * 8);
        release_text(P, s + (e + k) * row);
      }
      P->p += ne * row;
    } else if (!parse_lines(P, ne, element_line, &(element_lines){nodes, nn})) {
      int64_t tag;
      for (size_t e = 0; e < ne && !st; e++) {
        st = read_i64(P, &tag, "an element tag");
        for (int k = 0; k < nn && !st; k++) st = read_i64(P, &nodes[e * (size_t)nn + (size_t)k], "an element's node tag");
      }
    }
    if (!st) st = feint_msh_add_block(P->m, edim, etag, type, ne, nodes);
    else free(nodes);
    FEINT_CALL(st);
    release_text(P, P->p);
  }
  if (total != n) return expected(P, "more element blocks (fewer elements than declared)");
  return expect_word(P, "$EndElements");
}

static int parse_nodes22(parser *P) {
  feint_msh *m = P->m;
  size_t n;
  int was_binary = P->binary;
  P->binary = 0; /* the count is text */
  int st = num_items(P, &n, 8, 8, "the number of nodes");
  P->binary = was_binary;
  FEINT_CALL(st);
  FEINT_CALL(alloc_nodes(P, n));
  if (P->binary) {
    FEINT_CALL(end_line(P));
    FEINT_CALL(need(P, n, 28, "nodes (tag and x, y, z)"));
    for (size_t i = 0; i < n; i++) {
      int tag;
      memcpy(&tag, P->p, 4);
      if (tag < 1) return check_node_tag(P, P->p, tag);
      m->node_tags[i] = tag;
      memcpy(m->xyz + 3 * i, P->p + 4, 24);
      P->p += 28;
    }
  } else {
    for (size_t i = 0; i < n; i++) {
      skip_space(P);
      const char *t = P->p;
      FEINT_CALL(read_i64(P, &m->node_tags[i], "a node tag"));
      FEINT_CALL(check_node_tag(P, t, m->node_tags[i]));
      for (int k = 0; k < 3; k++) FEINT_CALL(read_double(P, &m->xyz[3 * i + (size_t)k], "a node coordinate"));
    }
  }
  return expect_word(P, "$EndNodes");
}

/* MSH 2 elements are gathered into blocks per (dimension, elementary tag,
 * type) through a hash table of those keys, and each entity's physical tags
 * through one of (dimension, elementary tag, physical tag). */
typedef struct {
  int k[3];
  size_t value;
} hslot;

typedef struct {
  hslot *s;
  size_t cap, n; /* cap a power of 2; slots with value SIZE_MAX are empty */
} htable;

static int hfind(htable *h, const int k[3], size_t fresh, size_t *value, int *added) {
  if (2 * (h->n + 1) > h->cap) {
    size_t nc = h->cap ? 2 * h->cap : 64;
    hslot *s = NULL;
    FEINT_CALL(feint_malloc(nc, sizeof *s, &s, "mesh element hash table"));
    for (size_t i = 0; i < nc; i++) s[i].value = SIZE_MAX;
    for (size_t i = 0; i < h->cap; i++) {
      if (h->s[i].value == SIZE_MAX) continue;
      uint64_t x = ((uint64_t)(unsigned)h->s[i].k[0] * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)(unsigned)h->s[i].k[1] * 0xC2B2AE3D27D4EB4Full) ^ ((uint64_t)(unsigned)h->s[i].k[2] * 0x165667B19E3779F9ull);
      size_t j = (size_t)(x ^ (x >> 31)) & (nc - 1);
      while (s[j].value != SIZE_MAX) j = (j + 1) & (nc - 1);
      s[j] = h->s[i];
    }
    free(h->s);
    h->s = s;
    h->cap = nc;
  }
  uint64_t x = ((uint64_t)(unsigned)k[0] * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)(unsigned)k[1] * 0xC2B2AE3D27D4EB4Full) ^ ((uint64_t)(unsigned)k[2] * 0x165667B19E3779F9ull);
  size_t j = (size_t)(x ^ (x >> 31)) & (h->cap - 1);
  while (h->s[j].value != SIZE_MAX) {
    if (!memcmp(h->s[j].k, k, sizeof h->s[j].k)) {
      *value = h->s[j].value;
      *added = 0;
      return FEINT_OK;
    }
    j = (j + 1) & (h->cap - 1);
  }
  memcpy(h->s[j].k, k, sizeof h->s[j].k);
  h->s[j].value = fresh;
  h->n++;
  *value = fresh;
  *added = 1;
  return FEINT_OK;
}

typedef struct {
  htable blocks, ents, phys;
  size_t *cap;     /* per block: capacity of its nodes (in elements) */
  size_t cap_cap;
  size_t *ecap;    /* per entity: capacity of its physicals */
  size_t ecap_cap;
} gather22;

static void gather22_free(gather22 *g) {
  free(g->blocks.s);
  free(g->ents.s);
  free(g->phys.s);
  free(g->cap);
  free(g->ecap);
}

/* Append one element (nodes[nn]) of type on elementary entity elem, physical phys. */
static int add22(parser *P, gather22 *g, int type, int nn, int elem, int phys, const int64_t *nodes) {
  feint_msh *m = P->m;
  const int dim = type_table[type].dim;
  int key[3] = {dim, elem, type}, added;
  size_t b;
  FEINT_CALL(hfind(&g->blocks, key, m->n_blocks, &b, &added));
  if (added) {
    FEINT_CALL(feint_msh_add_block(m, dim, elem, type, 0, NULL));
    FEINT_CALL(grow(&g->cap, &g->cap_cap, b, sizeof *g->cap, "mesh element blocks"));
    g->cap[b] = 0;
  }
  feint_msh_block *B = &m->blocks[b];
  FEINT_CALL(grow(&B->nodes, &g->cap[b], (B->n + 1) * (size_t)nn - 1, sizeof *B->nodes, "mesh elements"));
  memcpy(B->nodes + B->n * (size_t)nn, nodes, (size_t)nn * sizeof *nodes);
  B->n++;
  /* the entity, and its physical tag (0: none) */
  int ekey[3] = {dim, elem, 0};
  size_t e;
  FEINT_CALL(hfind(&g->ents, ekey, m->n_entities, &e, &added));
  if (added) {
    FEINT_CALL(feint_msh_add_entity(m, dim, elem, 0, NULL));
    FEINT_CALL(grow(&g->ecap, &g->ecap_cap, e, sizeof *g->ecap, "mesh entities"));
    g->ecap[e] = 0;
  }
  if (phys == 0) return FEINT_OK;
  int pkey[3] = {dim, elem, phys};
  size_t unused;
  FEINT_CALL(hfind(&g->phys, pkey, 0, &unused, &added));
  if (!added) return FEINT_OK;
  feint_msh_entity *E = &m->entities[e];
  FEINT_CALL(grow(&E->physicals, &g->ecap[e], E->n_physicals, sizeof *E->physicals, "entity physical tags"));
  E->physicals[E->n_physicals++] = phys;
  return FEINT_OK;
}

static int parse_elements22_body(parser *P, gather22 *g) {
  size_t n;
  int was_binary = P->binary;
  P->binary = 0;
  int st = num_items(P, &n, 8, 8, "the number of elements");
  P->binary = was_binary;
  FEINT_CALL(st);
  int64_t nodes[1000];
  if (!P->binary) {
    for (size_t i = 0; i < n; i++) {
      int64_t tag;
      int type, nn;
      size_t ntags;
      int elem = 0, phys = 0;
      FEINT_CALL(read_i64(P, &tag, "an element tag"));
      skip_space(P);
      const char *at = P->p;
      FEINT_CALL(read_int(P, &type, "an element type"));
      const type_row *t = type_get(type);
      if (!t || !t->nodes) return fail_at(P, at, "unknown element type %d", type);
      nn = t->nodes;
      FEINT_CALL(num_items(P, &ntags, 2, 2, "the number of element tags"));
      for (size_t k = 0; k < ntags; k++) {
        int v;
        FEINT_CALL(read_int(P, &v, "an element tag"));
        if (k == 0) phys = v;
        else if (k == 1) elem = v;
      }
      for (int k = 0; k < nn; k++) FEINT_CALL(read_i64(P, &nodes[k], "an element's node tag"));
      FEINT_CALL(add22(P, g, type, nn, elem, phys, nodes));
    }
  } else {
    FEINT_CALL(end_line(P));
    size_t done = 0;
    while (done < n) {
      int hdr[3];
      const char *at = P->p;
      FEINT_CALL(need(P, 3, 4, "an element block header (type, count, number of tags)"));
      memcpy(hdr, P->p, 12);
      P->p += 12;
      const type_row *t = type_get(hdr[0]);
      if (!t || !t->nodes) return fail_byte(P, at, "unknown element type %d", hdr[0]);
      if (hdr[1] < 1 || (size_t)hdr[1] > n - done)
        return fail_byte(P, at + 4, "element block count %d is not 1..%zu (the elements left)", hdr[1], n - done);
      if (hdr[2] < 0 || hdr[2] > 1000)
        return fail_byte(P, at + 8, "number of element tags %d is not 0..1000", hdr[2]);
      const int nn = t->nodes;
      const size_t row = (size_t)(1 + hdr[2] + nn);
      FEINT_CALL(need(P, (size_t)hdr[1], row * 4, "elements"));
      for (int e = 0; e < hdr[1]; e++) {
        int v[1 + 1000 + 1000];
        memcpy(v, P->p, row * 4);
        P->p += row * 4;
        int phys = hdr[2] > 0 ? v[1] : 0, elem = hdr[2] > 1 ? v[2] : 0;
        for (int k = 0; k < nn; k++) nodes[k] = v[1 + hdr[2] + k];
        FEINT_CALL(add22(P, g, hdr[0], nn, elem, phys, nodes));
      }
      done += (size_t)hdr[1];
    }
  }
  return expect_word(P, "$EndElements");
}

static int parse_elements22(parser *P) {
  gather22 g;
  memset(&g, 0, sizeof g);
  int st = parse_elements22_body(P, &g);
  gather22_free(&g);
  return st;
}

/* Skip an unknown section to its $End marker. */
static int skip_section(parser *P, const char *at, const char *name, size_t len) {
  char end[80];
  if (len > sizeof end - 8) return fail_at(P, at, "unknown section name is too long");
  snprintf(end, sizeof end, "$End%.*s", (int)len, name);
  size_t k = strlen(end);
  const char *q = P->p;
  for (;;) {
    while (q < P->end && !(*q == '$' && (size_t)(P->end - q) >= k && !memcmp(q, end, k))) {
      const char *d = memchr(q + 1, '$', (size_t)(P->end - q - 1));
      q = d ? d : P->end;
    }
    if (q >= P->end) return fail_at(P, at, "the $%.*s section has no %s", (int)len, name, end);
    if ((q == P->buf || q[-1] == '\n') && (q + k == P->end || is_space(q[k]))) break;
    q += k;
  }
  P->p = q + k;
  return FEINT_OK;
}

static int parse_sections(parser *P) {
  /* line 1: $MeshFormat */
  if (!word_is(P, "$MeshFormat"))
    return feint_error_set(FEINT_ERR_INPUT, "%s: not a Gmsh mesh (expected \"$MeshFormat\" on line 1)", P->path);
  P->p += strlen("$MeshFormat");
  FEINT_CALL(parse_format(P));
  for (;;) {
    skip_space(P);
    if (P->p >= P->end) break;
    const char *at = P->p;
    if (*P->p != '$') return expected(P, "a section ($Nodes, $Elements, ...)");
    const char *name = P->p + 1;
    size_t len = 0;
    while (name + len < P->end && !is_space(name[len])) len++;
    P->p = name + len;
#define IS(s) (len == strlen(s) && !memcmp(name, s, len))
    int *seen = IS("Nodes") ? &P->seen_nodes : IS("Elements") ? &P->seen_elements
                : IS("Entities") && P->version == 41 ? &P->seen_entities
                : IS("PhysicalNames") ? &P->seen_names : NULL;
    if (seen) {
      if (*seen) return fail_at(P, at, "a second $%.*s section", (int)len, name);
      *seen = 1;
    }
    if (IS("MeshFormat")) return fail_at(P, at, "a second $MeshFormat section");
    else if (IS("PartitionedEntities") || IS("GhostElements"))
      return fail_at(P, at, "partitioned meshes ($%.*s) are not supported; save the mesh unpartitioned",
                     (int)len, name);
    else if (IS("PhysicalNames")) FEINT_CALL(parse_names(P));
    else if (IS("Entities") && P->version == 41) FEINT_CALL(parse_entities(P));
    else if (IS("Nodes")) FEINT_CALL(P->version == 41 ? parse_nodes41(P) : parse_nodes22(P));
    else if (IS("Elements")) FEINT_CALL(P->version == 41 ? parse_elements41(P) : parse_elements22(P));
    else if (len >= 3 && !memcmp(name, "End", 3))
      return fail_at(P, at, "$%.*s without its section", (int)len, name);
    else FEINT_CALL(skip_section(P, at, name, len));
#undef IS
  }
  if (!P->seen_nodes) return feint_error_set(FEINT_ERR_INPUT, "%s: no $Nodes section", P->path);
  if (!P->seen_elements) return feint_error_set(FEINT_ERR_INPUT, "%s: no $Elements section", P->path);
  return feint_msh_finish(P->m, P->path);
}

/* A file's text: n bytes of a mapping of its own where that is large
 * enough for release_text to give parsed pages back (*mapped), else of
 * the heap. */
static int text_alloc(size_t n, char **buf, int *mapped) {
  *mapped = 0;
  if (n >= 2 * (size_t)RELEASE_MIN) {
    void *m = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m != MAP_FAILED) {
      *buf = m;
      *mapped = 1;
      return FEINT_OK;
    }
  }
  return feint_malloc(n, 1, buf, "mesh file buffer");
}

static void text_free(char *buf, size_t n, int mapped) {
  if (mapped) munmap(buf, n);
  else free(buf);
}

/* buf holds size bytes and a NUL after them; releasable: text_alloc mapped it. */
static int parse_buffer(const char *path, const char *buf, size_t size, int releasable, int lazy, feint_msh **out) {
  parser P;
  memset(&P, 0, sizeof P);
  P.path = path;
  P.buf = P.p = P.kept = buf;
  P.releasable = releasable;
  P.lazy = lazy;
  P.end = buf + size;
  FEINT_CALL(feint_msh_create(&P.m));
  int st = parse_sections(&P);
  if (st) {
    feint_msh_destroy(P.m);
    return st;
  }
  *out = P.m;
  return FEINT_OK;
}

int feint_msh_parse(const char *path, const char *data, size_t size, feint_msh **out) {
  *out = NULL;
  char *buf = NULL;
  int mapped = 0;
  if (size == SIZE_MAX) return feint_error_set(FEINT_ERR_COMPUTE, "out of memory");
  FEINT_CALL(text_alloc(size + 1, &buf, &mapped));
  memcpy(buf, data, size);
  buf[size] = '\0';
  int st = parse_buffer(path, buf, size, mapped, 0, out);
  text_free(buf, size + 1, mapped);
  return st;
}

static int read_fully(int fd, char *dst, size_t n, size_t *got) {
  *got = 0;
  while (*got < n) {
    ssize_t r = read(fd, dst + *got, n - *got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return -1;
    if (r == 0) break;
    *got += (size_t)r;
  }
  return 0;
}

/* n bytes at file offset `at` into dst, in ranges read side by side (one
 * core copies from the page cache at a fraction of the host's rate): *got
 * the bytes up to the first short range (the file ended there). */
typedef struct {
  int fd;
  char *dst;
  off_t at;
  size_t n;
  size_t got[FEINT_PARALLEL_MAX_RANGES];
  int err[FEINT_PARALLEL_MAX_RANGES];
} parallel_read;

static void read_range(int64_t begin, int64_t end, int k, void *ctx) {
  parallel_read *r = ctx;
  size_t got = 0;
  while (got < (size_t)(end - begin)) {
    ssize_t n = pread(r->fd, r->dst + begin + (int64_t)got, (size_t)(end - begin) - got, r->at + begin + (off_t)got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      r->err[k] = errno;
      break;
    }
    if (n == 0) break;
    got += (size_t)n;
  }
  r->got[k] = got;
}

static int read_parallel(int fd, char *dst, off_t at, size_t n, size_t *got) {
  *got = 0;
  parallel_read r = {.fd = fd, .dst = dst, .at = at, .n = n};
  const int64_t grain = (int64_t)8 << 20;
  const int ranges = feint_parallel_for_indexed((int64_t)n, grain, read_range, &r);
  for (int k = 0; k < ranges; k++) {
    if (r.err[k]) {
      errno = r.err[k];
      return -1;
    }
    *got += r.got[k];
    const int64_t len = feint_parallel_range_start((int64_t)n, ranges, k + 1) - feint_parallel_range_start((int64_t)n, ranges, k);
    if ((int64_t)r.got[k] < len) break; /* the file ends inside this range */
  }
  return 0;
}

/* The first bytes of a mesh file: "$MeshFormat", then a space or the end. */
static int starts_as_mesh(const char *head, size_t got) {
  const char *magic = "$MeshFormat";
  const size_t k = strlen(magic);
  return got >= k && !memcmp(head, magic, k) && (got == k || is_space(head[k]));
}

/* path opened for reading (*fd), a regular file of *size bytes (a hint: reads decide). */
static int open_regular(const char *path, int *fd, size_t *size) {
  *fd = open(path, O_RDONLY);
  if (*fd < 0) return feint_error_set(FEINT_ERR_INPUT, "mesh file '%s' cannot be read: %s", path, strerror(errno));
  struct stat sb;
  if (fstat(*fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
    int e = errno;
    close(*fd);
    *fd = -1;
    return feint_error_set(FEINT_ERR_INPUT, "mesh file '%s' cannot be read: %s", path,
                           S_ISDIR(sb.st_mode) ? strerror(EISDIR) : e ? strerror(e) : "not a regular file");
  }
  *size = (size_t)sb.st_size;
  return FEINT_OK;
}

int feint_msh_read(const char *path, feint_msh **out) {
  *out = NULL;
  int fd = -1;
  size_t file_size = 0;
  FEINT_CALL(open_regular(path, &fd, &file_size));
  /* the first line first: a file that is not a mesh is not read further */
  char head[16];
  size_t got = 0;
  if (read_fully(fd, head, sizeof head, &got) != 0) {
    int e = errno;
    close(fd);
    return feint_error_set(FEINT_ERR_INPUT, "mesh file '%s' cannot be read: %s", path, strerror(e));
  }
  if (!starts_as_mesh(head, got)) {
    close(fd);
    return feint_error_set(FEINT_ERR_INPUT, "%s: not a Gmsh mesh (expected \"$MeshFormat\" on line 1)", path);
  }
  /* then the whole file in one read (st_size is a hint: the read decides) */
  size_t size = file_size > got ? file_size : got;
  char *buf = NULL;
  int mapped = 0;
  int st = text_alloc(size + 1, &buf, &mapped);
  if (st) {
    close(fd);
    return st;
  }
  memcpy(buf, head, got);
  size_t more = 0;
  if (read_parallel(fd, buf + got, (off_t)got, size - got, &more) != 0) {
    int e = errno;
    close(fd);
    text_free(buf, size + 1, mapped);
    return feint_error_set(FEINT_ERR_INPUT, "mesh file '%s' cannot be read: %s", path, strerror(e));
  }
  close(fd);
  const size_t mapped_size = size + 1;
  size = got + more;
  buf[size] = '\0';
  st = parse_buffer(path, buf, size, mapped, 0, out);
  text_free(buf, mapped_size, mapped);
  return st;
}

int feint_msh_is_binary41(const char *path) {
  char head[65] = {0};
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  const size_t got = fread(head, 1, sizeof head - 1, f);
  fclose(f);
  char version[8] = "";
  int file_type = -1, data_size = -1;
  return starts_as_mesh(head, got) && sscanf(head + strlen("$MeshFormat"), "%7s %d %d", version, &file_type,
                                             &data_size) == 3 &&
         !strcmp(version, "4.1") && file_type == 1 && data_size == 8;
}

int feint_msh_read_shared(const char *path, feint_msh **out) {
  *out = NULL;
  int fd = -1;
  size_t size = 0;
  FEINT_CALL(open_regular(path, &fd, &size));
  /* the file mapped, a page of zeros after it: the parser's text ends at a NUL */
  const size_t page = (size_t)sysconf(_SC_PAGESIZE), bytes = (size / page + 1) * page;
  void *map = mmap(NULL, bytes, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  int e = map == MAP_FAILED ? errno : 0;
  if (!e && size && mmap(map, size, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0) == MAP_FAILED) e = errno;
  close(fd);
  if (e) {
    if (map != MAP_FAILED) munmap(map, bytes);
    return feint_error_set(FEINT_ERR_INPUT, "mesh file '%s' cannot be mapped: %s", path, strerror(e));
  }
  if (!starts_as_mesh(map, size < 16 ? size : 16)) {
    munmap(map, bytes);
    return feint_error_set(FEINT_ERR_INPUT, "%s: not a Gmsh mesh (expected \"$MeshFormat\" on line 1)", path);
  }
  /* releasable: parsed pages given back (a private mapping of a file: touched again, they come from the file) */
  int st = parse_buffer(path, map, size, 1, 1, out);
  if (st) {
    munmap(map, bytes);
    return st;
  }
  int left = (*out)->n_node_blocks > 0;
  for (size_t b = 0; b < (*out)->n_blocks; b++) left |= (*out)->blocks[b].rows != NULL;
  if (!left) { /* nothing was left in the file (a text file, MSH 2) */
    munmap(map, bytes);
    return FEINT_OK;
  }
  (*out)->mapping = map;
  (*out)->mapping_bytes = bytes;
  return FEINT_OK;
}

typedef struct {
  const feint_msh_block *B;
  size_t first;
  int width;
  int64_t *dst;
} block_rows_copy;

static void block_rows_range(int64_t begin, int64_t end, void *ctx) {
  const block_rows_copy *c = ctx;
  const size_t nn = (size_t)c->B->nn, w = (size_t)c->width * sizeof *c->dst;
  for (int64_t j = begin; j < end; j++) {
    const size_t row = c->first + (size_t)j;
    int64_t *d = c->dst + (size_t)j * (size_t)c->width;
    if (c->B->nodes) memcpy(d, c->B->nodes + row * nn, w);
    else memcpy(d, c->B->rows + (row * (nn + 1) + 1) * 8, w); /* past the element's tag */
  }
}

void feint_msh_block_rows(const feint_msh_block *B, size_t first, size_t count, int width, int64_t *dst) {
  const size_t row = 8 * ((size_t)B->nn + 1), page = (size_t)sysconf(_SC_PAGESIZE);
  const size_t chunk = B->nodes ? count : ((size_t)64 << 20) / row + 1;
  for (size_t at = 0; at < count; at += chunk) {
    const size_t k = count - at < chunk ? count - at : chunk;
    block_rows_copy c = {B, first + at, width, dst + at * (size_t)width};
    feint_parallel_for((int64_t)k, ((int64_t)1 << 20) / (int64_t)row + 1, block_rows_range, &c);
    if (B->nodes) continue;
    /* rows left in the file: their whole pages given back once copied, so that the process holds the copy only */
    const uintptr_t lo = (uintptr_t)(B->rows + (first + at) * row), hi = lo + k * row;
    const uintptr_t a = (lo + page - 1) / page * page, b = hi / page * page;
    if (b > a) madvise((void *)a, b - a, MADV_DONTNEED);
  }
}

/* ---- Nodes left in the file ---- */

typedef struct {
  const feint_msh_node_block *B;
  size_t from;          /* the block's first node copied */
  int64_t *tags;
  double *xyz;
  size_t bad[FEINT_PARALLEL_MAX_RANGES]; /* per range: the first node (of the range) whose tag is below 1, or SIZE_MAX */
} node_copy;

static void node_copy_range(int64_t begin, int64_t end, int range, void *ctx) {
  node_copy *c = ctx;
  const feint_msh_node_block *B = c->B;
  c->bad[range] = SIZE_MAX;
  for (int64_t i = begin; i < end; i++) {
    const size_t k = c->from + (size_t)i;
    int64_t t;
    memcpy(&t, B->tags + 8 * k, 8);
    c->tags[i] = t;
    memcpy(c->xyz + 3 * i, B->coordinates + k * (size_t)B->nc * 8, 24);
    if (t < 1 && c->bad[range] == SIZE_MAX) c->bad[range] = k;
  }
}

int feint_msh_nodes(const feint_msh *m, const char *path, size_t first, size_t count, int64_t *tags, double *xyz) {
  if (first > m->n_nodes || count > m->n_nodes - first)
    return feint_error_set(FEINT_ERR_COMPUTE, "internal: nodes %zu..%zu of %zu", first, first + count, m->n_nodes);
  if (m->node_tags) {
    copy_rows(tags, 8, m->node_tags + first, 8, count, 8);
    copy_rows(xyz, 24, m->xyz + 3 * first, 24, count, 24);
    return FEINT_OK;
  }
  const size_t page = (size_t)sysconf(_SC_PAGESIZE);
  for (size_t b = 0; b < m->n_node_blocks; b++) {
    const feint_msh_node_block *B = &m->node_blocks[b];
    const size_t lo = first > B->first ? first : B->first;
    const size_t hi = first + count < B->first + B->n ? first + count : B->first + B->n;
    if (lo >= hi) continue;
    node_copy c = {.B = B, .from = lo - B->first, .tags = tags + (lo - first), .xyz = xyz + 3 * (lo - first)};
    const int ranges = feint_parallel_for_indexed((int64_t)(hi - lo), 1 << 16, node_copy_range, &c);
    for (int k = 0; k < ranges; k++)
      if (c.bad[k] != SIZE_MAX) {
        int64_t t;
        memcpy(&t, B->tags + 8 * c.bad[k], 8);
        return feint_error_set(FEINT_ERR_INPUT, "%s: byte %zu: node tag %lld: node tags start at 1", path,
                               (size_t)(B->tags + 8 * c.bad[k] - (const char *)m->mapping), (long long)t);
      }
    /* the copied rows' whole pages given back (a private mapping of the file: touched again, they come from it) */
    const uintptr_t spans[2][2] = {{(uintptr_t)(B->tags + 8 * (lo - B->first)), (uintptr_t)(B->tags + 8 * (hi - B->first))},
                                   {(uintptr_t)(B->coordinates + (lo - B->first) * (size_t)B->nc * 8),
                                    (uintptr_t)(B->coordinates + (hi - B->first) * (size_t)B->nc * 8)}};
    for (int s = 0; s < 2; s++) {
      const uintptr_t a = (spans[s][0] + page - 1) / page * page, e = spans[s][1] / page * page;
      if (e > a) madvise((void *)a, e - a, MADV_DONTNEED);
    }
  }
  return FEINT_OK;
}

int feint_msh_load_nodes(feint_msh *m, const char *path) {
  if (m->node_tags) return FEINT_OK;
  int64_t *tags = NULL;
  double *xyz = NULL;
  int st = feint_malloc(m->n_nodes + 1, sizeof *tags, &tags, "mesh node tags");
  if (!st && m->n_nodes > (SIZE_MAX / sizeof(double) - 1) / 3) st = feint_error_set(FEINT_ERR_COMPUTE, "out of memory");
  if (!st) st = feint_malloc(3 * m->n_nodes + 1, sizeof *xyz, &xyz, "mesh node coordinates");
  if (!st) st = feint_msh_nodes(m, path, 0, m->n_nodes, tags, xyz);
  if (st) {
    free(tags);
    free(xyz);
    return st;
  }
  m->node_tags = tags;
  m->xyz = xyz;
  return FEINT_OK;
}
