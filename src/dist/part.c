/* One rank's part of the mesh and the dof map as a message, and the part
 * made of it or of its build (dist.h, part_format.h).
 * Local numbers keep the global order (cells, nodes and dofs ascending),
 * so the part's cells meet their vertices and dofs in the same order and
 * orientation as in the whole mesh. */
#include <stdlib.h>
#include <string.h>

#include "feint/bp.h"
#include "feint/dist.h"
#include "feint/error.h"
#include "feint/parallel.h"
#include "dist/lower_bound.h"
#include "dist/part_format.h"

static const char MAGIC[8] = "feintP1";

/* The message's flags: local indices as int32; P1 on every node (no dof
 * map sent: dof = node); the cells' whole numbers and their groups as
 * runs; and, above PART_GEOMETRY_SHIFT, the curved cells' geometry nodes. */
enum { PART_NARROW = 1, PART_DOFS_ARE_NODES = 2, PART_NUMBERS_AS_RUNS = 4, PART_GROUPS_AS_RUNS = 8 };
enum { PART_GEOMETRY_SHIFT = 4 };

/* A per-cell column of a part, sent as runs where that is smaller: its
 * cells' whole numbers (step 1), or their groups (step 0, group[cells[i]];
 * NULL: -1). A run is its first value and length (two int64). */
typedef struct {
  const int64_t *cells;
  const int *group;
  int step;
} part_column;

void feint_dist_part_release(feint_dist_part *p) {
  free(p->cells);
  free(p->scalar_dofs);
  memset(p, 0, sizeof *p);
}

/* A message being read (part_reader: bounds-checked). */
static int32_t take_i32(part_reader *r) {
  int32_t v = 0;
  part_take_copy(r, &v, sizeof v);
  return v;
}
static int64_t take_i64(part_reader *r) {
  int64_t v = 0;
  part_take_copy(r, &v, sizeof v);
  return v;
}
typedef struct {
  const char *from;
  int64_t *to;
} widen_job;

static void widen_range(int64_t a, int64_t b, void *arg) {
  const widen_job *j = arg;
  for (int64_t i = a; i < b; i++) {
    int32_t v;
    memcpy(&v, j->from + 4 * i, 4);
    j->to[i] = v;
  }
}

/* n local indices (int32 when narrow, else int64) into a new int64 array */
static int take_indices(part_reader *r, int64_t n, int narrow, int64_t **out, const char *what) {
  *out = NULL;
  const size_t size = narrow ? 4 : 8;
  if (r->failed || n < 0 || (size_t)n > (r->size - r->at) / size) { /* (failed: an earlier take found it malformed) */
    r->failed = 1;
    return FEINT_OK;
  }
  FEINT_CALL(feint_malloc((size_t)n + 1, sizeof **out, out, what));
  const char *p = part_take(r, (size_t)n * size);
  if (!narrow) {
    memcpy(*out, p, (size_t)n * 8);
    return FEINT_OK;
  }
  widen_job j = {p, *out};
  feint_parallel_for(n, 1 << 16, widen_range, &j);
  return FEINT_OK;
}

/* n items of `size` bytes into a new array (count 0: a freeable empty one) */
static int take_array(part_reader *r, int64_t n, size_t size, void *out, const char *what) {
  *(void **)out = NULL;
  if (r->failed || n < 0 || (size_t)n > (r->size - r->at) / size) {
    r->failed = 1;
    return FEINT_OK;
  }
  void *a = NULL;
  FEINT_CALL(feint_malloc((size_t)n ? (size_t)n : 1, size, &a, what));
  memcpy(a, part_take(r, (size_t)n * size), (size_t)n * size);
  *(void **)out = a;
  return FEINT_OK;
}

/* The distinct entries of the rows row_ids of rows (x width, -1 = none)
 * in ascending order (*list, *n), and their local numbers in map (size
 * n_whole, filled here): marked, then numbered in one pass over the whole
 * range (no sort); each pass over every core. */
typedef struct {
  const int64_t *rows, *row_ids;
  int width;
  int64_t *map, *count, *list; /* count: per range of the whole, then where each range's numbers start */
  int64_t first;               /* map[i] is whole number first + i's */
} number_job;

static void unmark_range(int64_t a, int64_t b, void *arg) {
  const number_job *j = arg;
  for (int64_t g = a; g < b; g++) j->map[g] = -1;
}

static void mark_range(int64_t a, int64_t b, void *arg) {
  const number_job *j = arg;
  for (int64_t i = a; i < b; i++)
    for (int v = 0; v < j->width; v++) {
      const int64_t g = j->rows[j->row_ids[i] * j->width + v];
      if (g >= 0) __atomic_store_n(&j->map[g], 0, __ATOMIC_RELAXED); /* cells share entries: the same value */
    }
}

static void count_range(int64_t a, int64_t b, int t, void *arg) {
  const number_job *j = arg;
  int64_t n = 0;
  for (int64_t g = a; g < b; g++) n += j->map[g] == 0;
  j->count[t + 1] = n;
}

static void number_range(int64_t a, int64_t b, int t, void *arg) {
  const number_job *j = arg;
  int64_t k = j->count[t];
  for (int64_t g = a; g < b; g++)
    if (j->map[g] == 0) {
      j->list[k] = j->first + g;
      j->map[g] = k++;
    }
}

int part_number_marked(int64_t *map, int64_t n_range, int64_t first, int64_t **list, int64_t *n, const char *what) {
  enum { GRAIN = 1 << 16 };
  int64_t count[FEINT_PARALLEL_MAX_RANGES + 1] = {0};
  number_job j = {NULL, NULL, 0, map, count, NULL, first};
  const int ranges = feint_parallel_ranges(n_range, GRAIN);
  feint_parallel_for_indexed(n_range, GRAIN, count_range, &j);
  for (int t = 0; t < ranges; t++) count[t + 1] += count[t];
  FEINT_CALL(feint_malloc((size_t)count[ranges] + 1, sizeof **list, list, what));
  j.list = *list;
  feint_parallel_for_indexed(n_range, GRAIN, number_range, &j);
  *n = count[ranges];
  return FEINT_OK;
}

static int local_numbers(const int64_t *rows, const int64_t *row_ids, int64_t n_rows, int width, int64_t n_whole,
                         int64_t *map, int64_t **list, int64_t *n, const char *what) {
  number_job j = {rows, row_ids, width, map, NULL, NULL, 0};
  feint_parallel_for(n_whole, 1 << 16, unmark_range, &j);
  feint_parallel_for(n_rows, 1 << 14, mark_range, &j);
  return part_number_marked(map, n_whole, 0, list, n, what);
}

/* A packed part to the caller: the message (filled to its size, else an
 * internal error) and the part's place in the whole; the pointers given
 * over are cleared. */
static int hand_over(const part_filler *f, int rank, char **msg, size_t size, int64_t **cells, int64_t n_cells,
                     int64_t **dofs, int64_t n_dofs, void **buf, size_t *bytes, feint_dist_part *out) {
  if ((size_t)(f->at - *msg) != size)
    return feint_error_set(FEINT_ERR_COMPUTE, "internal: rank %d's part is %zu bytes, sized %zu", rank,
                           (size_t)(f->at - *msg), size);
  *buf = *msg;
  *bytes = size;
  *out = (feint_dist_part){n_cells, *cells, n_dofs, *dofs};
  *msg = NULL;
  *cells = *dofs = NULL;
  return FEINT_OK;
}

/* fill_remapped: the rows ids[] of rows (width wide), their first
 * `width_out` entries through map (-1 stays -1), as int32 (narrow) or
 * int64; fill_gathered: the items ids[] of x, `per` doubles each. Both
 * in parallel over the rows. */
typedef struct {
  const int64_t *rows, *ids, *map;
  const double *x;
  int width, width_out, narrow, per;
  char *at;
} rows_job;

static void remap_range(int64_t a, int64_t b, void *arg) {
  const rows_job *j = arg;
  const size_t size = j->narrow ? 4 : 8;
  for (int64_t i = a; i < b; i++)
    for (int v = 0; v < j->width_out; v++) {
      const int64_t g = j->rows[j->ids[i] * j->width + v], l = g < 0 ? -1 : j->map[g];
      const int32_t l32 = (int32_t)l;
      memcpy(j->at + ((size_t)i * j->width_out + v) * size, j->narrow ? (const void *)&l32 : (const void *)&l, size);
    }
}

static void fill_remapped(part_filler *f, const int64_t *rows, int width, int width_out, const int64_t *ids, int64_t n,
                          const int64_t *map, int narrow) {
  rows_job j = {rows, ids, map, NULL, width, width_out, narrow, 0, f->at};
  feint_parallel_for(n, 1 << 14, remap_range, &j);
  f->at += (size_t)n * width_out * (narrow ? 4 : 8);
}

static void gather_range(int64_t a, int64_t b, void *arg) {
  const rows_job *j = arg;
  const size_t size = (size_t)j->per * sizeof(double);
  for (int64_t i = a; i < b; i++) memcpy(j->at + (size_t)i * size, j->x + j->ids[i] * j->per, size);
}

static void fill_gathered(part_filler *f, const double *x, int per, const int64_t *ids, int64_t n) {
  rows_job j = {NULL, ids, NULL, x, 0, 0, 0, per, f->at};
  feint_parallel_for(n, 1 << 15, gather_range, &j);
  f->at += (size_t)n * per * sizeof(double);
}

/* ---- a per-cell column as runs ---- */

static inline int64_t column_value(const part_column *c, int64_t i) {
  return c->step ? c->cells[i] : c->group ? c->group[c->cells[i]] : -1;
}

static int64_t part_count_runs(const part_column *c, int64_t n) {
  int64_t runs = n > 0;
  for (int64_t i = 1; i < n; i++) runs += column_value(c, i) != column_value(c, i - 1) + c->step;
  return runs;
}

static void part_fill_runs(part_filler *f, const part_column *c, int64_t n, int64_t n_runs) {
  part_fill_i64(f, n_runs);
  for (int64_t i = 0, start = 0; i < n; i++)
    if (i + 1 == n || column_value(c, i + 1) != column_value(c, i) + c->step) {
      part_fill_i64(f, column_value(c, start));
      part_fill_i64(f, i + 1 - start);
      start = i + 1;
    }
}

/* n values (int64, or int when size is 4) from runs with the given step
 * into a new array; runs that do not cover exactly n values, or a value
 * out of an int's range, mark the message malformed. */
static int take_runs(part_reader *r, int64_t n, int step, size_t size, void *out, const char *what) {
  *(void **)out = NULL;
  const int64_t n_runs = take_i64(r);
  if (r->failed || n < 0 || n_runs < 0 || (size_t)n_runs > (r->size - r->at) / 16) {
    r->failed = 1;
    return FEINT_OK;
  }
  char *a = NULL;
  FEINT_CALL(feint_malloc((size_t)n + 1, size, &a, what));
  int64_t at = 0;
  for (int64_t k = 0; k < n_runs && !r->failed; k++) {
    const int64_t first = take_i64(r), length = take_i64(r);
    if (length < 1 || length > n - at || (size == 4 && (first < INT32_MIN || first + step * length > INT32_MAX))) {
      r->failed = 1;
      break;
    }
    for (int64_t i = 0; i < length; i++, at++) {
      const int64_t v = first + step * i;
      if (size == 4) ((int *)(void *)a)[at] = (int)v;
      else ((int64_t *)(void *)a)[at] = v;
    }
  }
  if (at != n) r->failed = 1;
  *(void **)out = a;
  return FEINT_OK;
}

/* ---- the rows partition: each rank the cells of its rows ---- */

/* Whether cell c has a scalar dof in [lo, hi). */
static inline int touches(const feint_space *s, int64_t c, int64_t lo, int64_t hi) {
  return feint_dist_touches(s->scalar_cell_dofs + c * s->nb, s->nb, lo, hi);
}

typedef struct {
  const int64_t *cell_dofs;
  int nb, size;
  const int64_t *start; /* size + 1: the ranks' first scalar dofs */
  int64_t *counts;      /* size: cells each rank holds */
} rows_count_job;

/* Each cell counted once for every rank owning one of its dofs: the
 * owners of its lowest and highest dof, and any rank between them that
 * owns one (rarely any: a cell's dofs are few and near). */
static void rows_count_range(int64_t a, int64_t b, void *arg) {
  const rows_count_job *j = arg;
  enum { KEPT = 64 }; /* counted here and added once at the end (up to KEPT ranks), else added one by one */
  int64_t kept[KEPT] = {0};
  for (int64_t c = a; c < b; c++) {
    const int64_t *dofs = j->cell_dofs + c * j->nb;
    int first, last;
    if (!feint_dist_cell_owners(dofs, j->nb, j->start, j->size, &first, &last)) continue;
    for (int q = first; q <= last; q++)
      if (q == first || q == last || feint_dist_touches(dofs, j->nb, j->start[q], j->start[q + 1])) {
        if (q < KEPT) kept[q]++;
        else __atomic_fetch_add(&j->counts[q], 1, __ATOMIC_RELAXED);
      }
  }
  for (int q = 0; q < KEPT && q < j->size; q++)
    if (kept[q]) __atomic_fetch_add(&j->counts[q], kept[q], __ATOMIC_RELAXED);
}

int feint_dist_rows_count_cells(const int64_t *cell_dofs, int nb, int64_t n_cells, int64_t n_scalar, int size,
                                int64_t *counts) {
  int64_t *start = NULL;
  FEINT_CALL(feint_malloc((size_t)size + 1, sizeof *start, &start, "the ranks' rows"));
  for (int q = 0; q <= size; q++) start[q] = q == size ? n_scalar : feint_dist_row_start(n_scalar, 1, size, q);
  memset(counts, 0, (size_t)size * sizeof *counts);
  rows_count_job j = {cell_dofs, nb, size, start, counts};
  feint_parallel_for(n_cells, 1 << 14, rows_count_range, &j);
  free(start);
  return FEINT_OK;
}

int feint_dist_rows_part_cells(const feint_space *s, int size, int64_t *counts) {
  return feint_dist_rows_count_cells(s->scalar_cell_dofs, s->nb, s->mesh->n_cells, s->n_scalar_dofs, size, counts);
}

/* The cells of a part: part[c] == rank, or (part NULL) the rows
 * partition's, every cell with a scalar dof of the rank's rows; each
 * range of the cells counts its own, then writes them at its place. */
typedef struct {
  const feint_space *s;
  const int *part;
  int rank;
  int64_t lo, hi;
  int64_t *count; /* per range, then where each range's cells start */
  int64_t *cells; /* NULL: counting */
} select_job;

static inline int selected(const select_job *j, int64_t c) {
  return j->part ? j->part[c] == j->rank : touches(j->s, c, j->lo, j->hi);
}

static void select_range(int64_t a, int64_t b, int t, void *arg) {
  const select_job *j = arg;
  if (!j->cells) {
    int64_t n = 0;
    for (int64_t c = a; c < b; c++) n += selected(j, c);
    j->count[t + 1] = n;
    return;
  }
  int64_t k = j->count[t];
  for (int64_t c = a; c < b; c++)
    if (selected(j, c)) j->cells[k++] = c;
}

static int part_cells(const feint_space *s, const int *part, int rank, int size, int64_t **cells, int64_t *n_cells) {
  enum { GRAIN = 1 << 15 };
  const int64_t n = s->mesh->n_cells;
  int64_t count[FEINT_PARALLEL_MAX_RANGES + 1] = {0};
  select_job j = {s, part, rank, 0, 0, count, NULL};
  if (!part) feint_dist_rows_scalar_range(s->n_scalar_dofs, size, rank, &j.lo, &j.hi);
  const int ranges = feint_parallel_ranges(n, GRAIN);
  feint_parallel_for_indexed(n, GRAIN, select_range, &j);
  for (int t = 0; t < ranges; t++) count[t + 1] += count[t];
  FEINT_CALL(feint_malloc((size_t)count[ranges] + 1, sizeof **cells, cells, "a part's cells"));
  j.cells = *cells;
  feint_parallel_for_indexed(n, GRAIN, select_range, &j);
  *n_cells = count[ranges];
  return FEINT_OK;
}

/* The cells' physical groups (-1 without groups), in parallel. */
typedef struct {
  const int *group;
  const int64_t *cells;
  char *at;
} groups_job;

static void groups_range(int64_t a, int64_t b, void *arg) {
  const groups_job *j = arg;
  for (int64_t i = a; i < b; i++) {
    const int32_t g = j->group ? j->group[j->cells[i]] : -1;
    memcpy(j->at + 4 * (size_t)i, &g, 4);
  }
}

static void fill_groups(part_filler *f, const int *group, const int64_t *cells, int64_t n) {
  groups_job j = {group, cells, f->at};
  feint_parallel_for(n, 1 << 16, groups_range, &j);
  f->at += (size_t)n * 4;
}

/* ---- the message's head (part_format.h) ---- */

void part_whole_of(const feint_space *s, part_whole *w) {
  const feint_mesh *m = s->mesh;
  *w = (part_whole){.dim = m->dim, .nv_facet = m->nv_facet, .geometry_order = m->geometry_order, .order = s->order,
                    .components = s->components, .family = (int)feint_space_node_family(s), .n_groups = m->n_groups,
                    .n_blocks = m->n_blocks, .groups = m->groups, .path = m->path, .n_cells = m->n_cells,
                    .n_scalar_dofs = s->n_scalar_dofs};
  for (int b = 0; b < m->n_blocks; b++)
    w->blocks[b] = (part_block){(int32_t)m->blocks[b].cell_type, m->blocks[b].nv, m->blocks[b].n_geometry_nodes,
                                s->blocks[b].nb, m->blocks[b].first_cell, m->blocks[b].n_cells};
}

part_shape part_shape_of(const part_whole *w, const int64_t *in_block) {
  part_shape ps = {in_block, 0, 0, 0};
  for (int b = 0; b < w->n_blocks; b++)
    if (in_block[b]) {
      ps.n_blocks++;
      if (w->blocks[b].nv > ps.nv) ps.nv = w->blocks[b].nv;
      if (w->blocks[b].nb > ps.nb) ps.nb = w->blocks[b].nb;
    }
  return ps;
}

/* The message's head (magic, counts, blocks, groups, the mesh's path): its bytes, and written. */
static size_t part_head_bytes(const part_whole *w, const part_shape *ps) {
  size_t size = sizeof MAGIC + 11 * 4 + 3 * 8 + (size_t)ps->n_blocks * 20 + 4 + strlen(w->path);
  for (int g = 0; g < w->n_groups; g++) size += 20 + strlen(w->groups[g].name);
  return size;
}

static void part_fill_head(part_filler *f, const part_whole *w, const part_shape *ps, int flags, int64_t n_nodes,
                    int64_t n_cells, int64_t n_dofs) {
  part_fill(f, MAGIC, sizeof MAGIC);
  const int32_t head[] = {w->dim,      ps->nv,        ps->n_blocks, w->nv_facet, w->geometry_order, w->order,
                          w->components, w->n_groups, ps->nb,       w->family,   flags};
  part_fill(f, head, sizeof head);
  part_fill_i64(f, n_nodes);
  part_fill_i64(f, n_cells);
  part_fill_i64(f, n_dofs);
  for (int b = 0; b < w->n_blocks; b++) {
    if (!ps->in_block[b]) continue;
    part_fill_i32(f, w->blocks[b].cell_type);
    part_fill_i32(f, w->blocks[b].nv);
    part_fill_i32(f, w->blocks[b].ng);
    part_fill_i64(f, ps->in_block[b]);
  }
  for (int g = 0; g < w->n_groups; g++) {
    const feint_mesh_group *gr = &w->groups[g];
    const int32_t len = (int32_t)strlen(gr->name);
    part_fill_i32(f, gr->dim);
    part_fill_i32(f, gr->tag);
    part_fill_i64(f, gr->n_elements);
    part_fill_i32(f, len);
    part_fill(f, gr->name, (size_t)len);
  }
  const int32_t path_len = (int32_t)strlen(w->path);
  part_fill_i32(f, path_len);
  part_fill(f, w->path, (size_t)path_len);
}

int feint_dist_part_pack(const feint_space *s, const int *part, int rank, int n_ranks, void **buf, size_t *bytes,
                         feint_dist_part *out) {
  const feint_mesh *m = s->mesh;
  *buf = NULL;
  *bytes = 0;
  memset(out, 0, sizeof *out);
  int64_t n_cells = 0;
  int64_t *cells = NULL, *node_map = NULL, *dof_map = NULL, *nodes = NULL, *dofs = NULL, n_nodes = 0, n_dofs = 0;
  char *msg = NULL;
  int status = part_cells(s, part, rank, n_ranks, &cells, &n_cells);
  if (!status) status = feint_malloc((size_t)m->n_nodes + 1, sizeof *node_map, &node_map, "a part's nodes");
  if (!status && !s->scalar_cell_dofs_borrowed)
    status = feint_malloc((size_t)s->n_scalar_dofs + 1, sizeof *dof_map, &dof_map, "a part's dofs");
  if (status) goto done;
  if ((status = local_numbers(m->cells, cells, n_cells, m->nv, m->n_nodes, node_map, &nodes, &n_nodes,
                              "a part's nodes")))
    goto done;
  if (s->scalar_cell_dofs_borrowed) { /* P1 on every node: the dofs are the nodes, numbered alike */
    if ((status = feint_malloc((size_t)n_nodes + 1, sizeof *dofs, &dofs, "a part's dofs"))) goto done;
    memcpy(dofs, nodes, (size_t)n_nodes * sizeof *dofs);
    n_dofs = n_nodes;
  } else if ((status = local_numbers(s->scalar_cell_dofs, cells, n_cells, s->nb, s->n_scalar_dofs, dof_map, &dofs,
                                     &n_dofs, "a part's dofs"))) {
    goto done;
  }

  /* the part's blocks are the shapes it has cells of; its rows as wide as the widest of them */
  part_whole w;
  part_whole_of(s, &w);
  int64_t in_block[FEINT_MESH_MAX_BLOCKS] = {0};
  for (int b = 0; b < m->n_blocks; b++) /* the cells ascend, and a block's cells are a range */
    in_block[b] = feint_dist_lower_bound(cells, n_cells, m->blocks[b].first_cell + m->blocks[b].n_cells) -
                  feint_dist_lower_bound(cells, n_cells, m->blocks[b].first_cell);
  const part_shape ps = part_shape_of(&w, in_block);
  const int nv = ps.nv, nb = ps.nb;
  /* the message's bulk, made smaller: local indices as int32 where they fit; P1 on
   * every node (a borrowed dof map: dof = node, sitting at it) sends no dof map */
  const int narrow = n_nodes < INT32_MAX && n_dofs < INT32_MAX;
  const int dofs_are_nodes = s->scalar_cell_dofs_borrowed;
  const size_t index = narrow ? 4 : 8;
  const part_column numbers = {cells, NULL, 1}, groups = {cells, m->cell_group, 0};
  const int64_t number_runs = part_count_runs(&numbers, n_cells), group_runs = part_count_runs(&groups, n_cells);
  const int numbers_as_runs = number_runs * 16 + 8 < n_cells * 8, groups_as_runs = group_runs * 16 + 8 < n_cells * 4;
  size_t size = part_head_bytes(&w, &ps);
  size += (size_t)n_nodes * 3 * 8 + (size_t)n_cells * nv * index + (size_t)n_dofs * 8 + 2 * 8;
  size += numbers_as_runs ? 8 + (size_t)number_runs * 16 : (size_t)n_cells * 8;
  size += groups_as_runs ? 8 + (size_t)group_runs * 16 : (size_t)n_cells * 4;
  if (!dofs_are_nodes) size += (size_t)n_cells * nb * index + (size_t)n_dofs * 3 * 8;
  const int ng = m->n_geometry_nodes; /* curved cells: their geometry's nodes */
  size += (size_t)n_cells * (size_t)ng * 3 * 8;
  if ((status = feint_malloc(size, 1, &msg, "a part's message"))) goto done;
  part_filler f = {msg};
  part_fill_head(&f, &w, &ps,
                 narrow * PART_NARROW | dofs_are_nodes * PART_DOFS_ARE_NODES | numbers_as_runs * PART_NUMBERS_AS_RUNS |
                     groups_as_runs * PART_GROUPS_AS_RUNS | ng << PART_GEOMETRY_SHIFT,
                 n_nodes, n_cells, n_dofs);
  /* the bulk: rows written in parallel, each at its place */
  const double *X[3] = {m->x, m->y, m->z};
  for (int a = 0; a < 3; a++) fill_gathered(&f, X[a], 1, nodes, n_nodes);
  fill_remapped(&f, m->cells, m->nv, nv, cells, n_cells, node_map, narrow);
  if (groups_as_runs) part_fill_runs(&f, &groups, n_cells, group_runs);
  else fill_groups(&f, m->cell_group, cells, n_cells);
  if (ng) fill_gathered(&f, m->geometry_nodes, ng * 3, cells, n_cells);
  if (!dofs_are_nodes) {
    fill_remapped(&f, s->scalar_cell_dofs, s->nb, nb, cells, n_cells, dof_map, narrow);
    fill_gathered(&f, s->coordinates, 3, dofs, n_dofs);
  }
  /* the part's place in the whole, for data given for the whole */
  part_fill_i64(&f, m->n_cells);
  part_fill_i64(&f, s->n_scalar_dofs);
  if (numbers_as_runs) part_fill_runs(&f, &numbers, n_cells, number_runs);
  else part_fill(&f, cells, (size_t)n_cells * sizeof *cells);
  part_fill(&f, dofs, (size_t)n_dofs * sizeof *dofs);
  status = hand_over(&f, rank, &msg, size, &cells, n_cells, &dofs, n_dofs, buf, bytes, out);
done:
  free(msg);
  free(cells);
  free(node_map);
  free(dof_map);
  free(nodes);
  free(dofs);
  return status;
}

int feint_dist_part_unpack(const void *buf, size_t bytes, feint_mesh **mesh_out, feint_space **space_out) {
  *mesh_out = NULL;
  *space_out = NULL;
  part_reader r = {buf, bytes, 0, 0};
  const char *magic = part_take(&r, sizeof MAGIC);
  if (!magic || memcmp(magic, MAGIC, sizeof MAGIC))
    return feint_error_set(FEINT_ERR_COMPUTE, "internal: a part's message from rank 0 is not one");
  int32_t head[11];
  for (int k = 0; k < 11; k++) head[k] = take_i32(&r);
  const int narrow = !!(head[10] & PART_NARROW), dofs_are_nodes = !!(head[10] & PART_DOFS_ARE_NODES);
  const int numbers_as_runs = !!(head[10] & PART_NUMBERS_AS_RUNS), groups_as_runs = !!(head[10] & PART_GROUPS_AS_RUNS);
  const int ng = head[10] >> PART_GEOMETRY_SHIFT;
  const int dim = head[0], nv = head[1], n_blocks = head[2], order = head[5], components = head[6];
  const int n_groups = head[7], nb = head[8];
  const feint_node_family family = (feint_node_family)head[9];
  if (!r.failed && n_blocks == 0) return FEINT_OK; /* a part without cells (more ranks than cells) */
  feint_mesh *m = NULL;
  int64_t *sdofs = NULL;
  double *coords = NULL;
  FEINT_CALL(feint_calloc(1, sizeof *m, &m, "a part's mesh"));
  m->dim = dim;
  m->nv = nv;
  m->n_blocks = n_blocks;
  m->nv_facet = head[3];
  m->geometry_order = head[4];
  m->n_nodes = take_i64(&r);
  m->n_cells = take_i64(&r);
  const int64_t n_dofs = take_i64(&r);
  int status = FEINT_OK;
  if (n_blocks < 1 || n_blocks > FEINT_MESH_MAX_BLOCKS || nv < 1 || nb < 1 || n_groups < 0) r.failed = 1;
  int64_t first = 0;
  for (int b = 0; b < n_blocks && !r.failed; b++) {
    m->blocks[b].cell_type = (feint_cell_type)take_i32(&r);
    m->blocks[b].nv = take_i32(&r);
    m->blocks[b].n_geometry_nodes = take_i32(&r);
    m->blocks[b].n_cells = take_i64(&r);
    m->blocks[b].first_cell = first;
    first += m->blocks[b].n_cells;
  }
  m->cell_type = m->blocks[0].cell_type;
  if (!r.failed)
    status = feint_calloc((size_t)n_groups + 1, sizeof *m->groups, &m->groups, "a part's physical groups");
  for (int g = 0; g < n_groups && !status && !r.failed; g++) {
    feint_mesh_group *gr = &m->groups[g];
    gr->dim = take_i32(&r);
    gr->tag = take_i32(&r);
    gr->n_elements = take_i64(&r);
    const int32_t len = take_i32(&r);
    const char *name = len >= 0 ? part_take(&r, (size_t)len) : NULL;
    if (!name) break;
    if (!(status = feint_malloc((size_t)len + 1, 1, &gr->name, "a group name"))) {
      memcpy(gr->name, name, (size_t)len);
      gr->name[len] = '\0';
      m->n_groups = g + 1;
    }
  }
  if (!status && !r.failed) {
    const int32_t len = take_i32(&r);
    const char *path = len >= 0 ? part_take(&r, (size_t)len) : NULL;
    if (path && !(status = feint_malloc((size_t)len + 1, 1, &m->path, "a mesh path"))) {
      memcpy(m->path, path, (size_t)len);
      m->path[len] = '\0';
    }
  }
  if (!status) status = take_array(&r, m->n_nodes, sizeof(double), &m->x, "a part's nodes");
  if (!status) status = take_array(&r, m->n_nodes, sizeof(double), &m->y, "a part's nodes");
  if (!status) status = take_array(&r, m->n_nodes, sizeof(double), &m->z, "a part's nodes");
  if (!status) status = take_indices(&r, m->n_cells * nv, narrow, &m->cells, "a part's cells");
  if (!status)
    status = groups_as_runs ? take_runs(&r, m->n_cells, 0, sizeof(int), &m->cell_group, "a part's cell groups")
                            : take_array(&r, m->n_cells, sizeof(int), &m->cell_group, "a part's cell groups");
  if (!status && ng > 0) {
    m->n_geometry_nodes = ng;
    status = take_array(&r, m->n_cells * ng * 3, sizeof(double), &m->geometry_nodes, "a part's cell geometry");
    if (!status) status = feint_mesh_classify_curved(m);
  }
  if (!status && !dofs_are_nodes) status = take_indices(&r, m->n_cells * nb, narrow, &sdofs, "a part's dof map");
  if (!status && !dofs_are_nodes)
    status = take_array(&r, n_dofs * 3, sizeof(double), &coords, "a part's dof coordinates");
  if (dofs_are_nodes && (n_dofs != m->n_nodes || nb != nv)) r.failed = 1; /* P1 on every node: the nodes */
  const int64_t whole_cells = take_i64(&r), whole_dofs = take_i64(&r);
  int64_t *whole_cell = NULL, *whole_dof = NULL;
  if (!status)
    status = numbers_as_runs ? take_runs(&r, m->n_cells, 1, sizeof(int64_t), &whole_cell, "a part's cell numbers")
                             : take_array(&r, m->n_cells, sizeof(int64_t), &whole_cell, "a part's cell numbers");
  if (!status) status = take_array(&r, n_dofs, sizeof(int64_t), &whole_dof, "a part's dof numbers");
  /* no facets: rank 0 integrates the boundary on the whole mesh */
  if (!status) status = feint_calloc((size_t)m->n_groups + 1, sizeof(int64_t), &m->facet_offsets, "facets");
  if (!status && (r.failed || r.at != r.size || first != m->n_cells || !m->path))
    status = feint_error_set(FEINT_ERR_COMPUTE, "internal: a part's message from rank 0 is cut short or malformed");
  if (status) {
    free(sdofs);
    free(coords);
    free(whole_cell);
    free(whole_dof);
    feint_mesh_destroy(m);
    return status;
  }
  part_contents pc = {m,     order, components, (int)family, nb,         n_dofs,
                      sdofs, coords, whole_cells, whole_dofs, whole_cell, whole_dof};
  return part_contents_make(&pc, mesh_out, space_out);
}

int part_mesh_head(const part_whole *w, const part_shape *ps, int64_t n_nodes, int64_t n_cells, feint_mesh **out) {
  *out = NULL;
  feint_mesh *m = NULL;
  FEINT_CALL(feint_calloc(1, sizeof *m, &m, "a part's mesh"));
  m->dim = w->dim;
  m->nv = ps->nv;
  m->nv_facet = w->nv_facet;
  m->geometry_order = w->geometry_order;
  m->n_nodes = n_nodes;
  m->n_cells = n_cells;
  int64_t first = 0;
  for (int b = 0; b < w->n_blocks; b++) {
    if (!ps->in_block[b]) continue;
    const part_block *wb = &w->blocks[b];
    m->blocks[m->n_blocks++] = (feint_mesh_block){.cell_type = (feint_cell_type)wb->cell_type, .nv = wb->nv,
                                                  .n_geometry_nodes = wb->ng, .first_cell = first,
                                                  .n_cells = ps->in_block[b]};
    first += ps->in_block[b];
  }
  m->cell_type = m->blocks[0].cell_type;
  int status = feint_calloc((size_t)w->n_groups + 1, sizeof *m->groups, &m->groups, "a part's physical groups");
  for (int g = 0; g < w->n_groups && !status; g++) {
    m->groups[g] = (feint_mesh_group){.dim = w->groups[g].dim, .tag = w->groups[g].tag,
                                      .n_elements = w->groups[g].n_elements};
    if (!(status = feint_strdup(w->groups[g].name, &m->groups[g].name))) m->n_groups = g + 1;
  }
  if (!status) status = feint_strdup(w->path, &m->path);
  if (!status) status = feint_calloc((size_t)w->n_groups + 1, sizeof(int64_t), &m->facet_offsets, "facets");
  if (!status && first != n_cells)
    status = feint_error_set(FEINT_ERR_COMPUTE, "internal: a part's blocks hold %lld cells, not %lld",
                             (long long)first, (long long)n_cells);
  if (status) {
    feint_mesh_destroy(m);
    return status;
  }
  *out = m;
  return FEINT_OK;
}

typedef struct {
  const double *x, *y, *z;
  double *xyz;
} node_xyz_job;

static void node_xyz_range(int64_t a, int64_t b, void *arg) {
  const node_xyz_job *j = arg;
  for (int64_t i = a; i < b; i++) {
    j->xyz[3 * i] = j->x[i];
    j->xyz[3 * i + 1] = j->y[i];
    j->xyz[3 * i + 2] = j->z[i];
  }
}

int part_interleave(const double *x, const double *y, const double *z, int64_t n, double **xyz) {
  FEINT_CALL(feint_malloc((size_t)n * 3 + 1, sizeof **xyz, xyz, "coordinates"));
  feint_parallel_for(n, 1 << 14, node_xyz_range, &(node_xyz_job){x, y, z, *xyz});
  return FEINT_OK;
}

int part_node_coordinates(const feint_mesh *m, double **xyz) {
  return part_interleave(m->x, m->y, m->z, m->n_nodes, xyz);
}

int part_contents_make(part_contents *pc, feint_mesh **mesh_out, feint_space **space_out) {
  *mesh_out = NULL;
  *space_out = NULL;
  feint_mesh *m = pc->mesh;
  int status = FEINT_OK;
  if (!pc->sdofs && !pc->coordinates) /* P1 on every node: the dofs sit at the nodes */
    status = part_node_coordinates(m, &pc->coordinates);
  if (!status)
    status = feint_space_create_from_map(m, pc->order, pc->components, (feint_node_family)pc->family, pc->n_dofs,
                                         pc->sdofs, pc->coordinates, space_out); /* takes them over */
  else
    free(pc->sdofs);
  pc->sdofs = NULL;
  pc->coordinates = NULL;
  if (!status) {
    feint_space *s = *space_out;
    s->whole_cells = pc->whole_cells;
    s->whole_scalar_dofs = pc->whole_dofs;
    s->whole_cell = pc->whole_cell;
    s->whole_scalar_dof = pc->whole_dof;
    pc->whole_cell = pc->whole_dof = NULL;
    if (s->nb != pc->nb) {
      status = feint_error_set(FEINT_ERR_COMPUTE, "internal: a part's dof map has rows of %d, its elements %d",
                               pc->nb, s->nb);
      feint_space_destroy(s);
      *space_out = NULL;
    }
  }
  free(pc->whole_cell);
  free(pc->whole_dof);
  pc->whole_cell = pc->whole_dof = NULL;
  pc->mesh = NULL;
  if (status) {
    feint_mesh_destroy(m);
    return status;
  }
  *mesh_out = m;
  return FEINT_OK;
}

/* ---- the operator section's parts: hexahedra, their GLL dof map and x ---- */

static const char HEX_MAGIC[8] = "feintH1";

int feint_dist_hex_part_pack(const feint_hexmesh *hm, const feint_bp_dofmap *d, const double *x, const int *part,
                             int rank, void **buf, size_t *bytes, feint_dist_part *out) {
  *buf = NULL;
  *bytes = 0;
  memset(out, 0, sizeof *out);
  const int np = d->np;
  int64_t n_cells = 0;
  for (int64_t e = 0; e < hm->n_cells; e++) n_cells += part[e] == rank;
  int64_t *cells = NULL, *rows = NULL, *vmap = NULL, *dmap = NULL, *verts = NULL, *dofs = NULL, nv = 0, nd = 0;
  char *msg = NULL;
  int status = feint_malloc((size_t)n_cells + 1, sizeof *cells, &cells, "a part's cells");
  if (!status) status = feint_malloc((size_t)(n_cells * np) + 1, sizeof *rows, &rows, "a part's dof map");
  if (!status) status = feint_malloc((size_t)hm->n_vertices + 1, sizeof *vmap, &vmap, "a part's vertices");
  if (!status) status = feint_malloc((size_t)d->n_dofs + 1, sizeof *dmap, &dmap, "a part's dofs");
  if (status) goto done;
  for (int64_t e = 0, k = 0; e < hm->n_cells; e++)
    if (part[e] == rank) {
      for (int j = 0; j < np; j++) rows[k * np + j] = d->cell_dofs[e * np + j];
      cells[k++] = e;
    }
  int64_t *ids = NULL; /* the part's rows in order: 0 .. n_cells-1 */
  if ((status = feint_malloc((size_t)n_cells + 1, sizeof *ids, &ids, "a part's rows"))) goto done;
  for (int64_t i = 0; i < n_cells; i++) ids[i] = i;
  status = local_numbers(hm->cells, cells, n_cells, 8, hm->n_vertices, vmap, &verts, &nv, "a part's vertices");
  if (!status) status = local_numbers(rows, ids, n_cells, np, d->n_dofs, dmap, &dofs, &nd, "a part's dofs");
  free(ids);
  if (status) goto done;
  const int ng = hm->n_geometry_nodes; /* curved cells: their geometry nodes too */
  const size_t size = sizeof HEX_MAGIC + 3 * 4 + 3 * 8 + (size_t)nv * 3 * 8 +
                      (size_t)n_cells * (8 * 8 + (size_t)np * 4 + (size_t)ng * 3 * 8) + (size_t)nd * 8;
  if ((status = feint_malloc(size, 1, &msg, "a part's message"))) goto done;
  part_filler f = {msg};
  part_fill(&f, HEX_MAGIC, sizeof HEX_MAGIC);
  part_fill_i32(&f, d->order);
  part_fill_i32(&f, np);
  part_fill_i32(&f, ng);
  part_fill_i64(&f, nv);
  part_fill_i64(&f, n_cells);
  part_fill_i64(&f, nd);
  for (int64_t i = 0; i < nv; i++) part_fill(&f, &hm->vertices[3 * verts[i]], 3 * sizeof(double));
  for (int64_t i = 0; i < n_cells; i++)
    for (int v = 0; v < 8; v++) part_fill_i64(&f, vmap[hm->cells[cells[i] * 8 + v]]);
  for (int64_t i = 0; i < n_cells && ng; i++)
    part_fill(&f, hm->geometry_nodes + (size_t)cells[i] * (size_t)ng * 3, (size_t)ng * 3 * sizeof(double));
  for (int64_t i = 0; i < n_cells * np; i++) part_fill_i32(&f, (int32_t)dmap[rows[i]]);
  for (int64_t i = 0; i < nd; i++) part_fill(&f, &x[dofs[i]], sizeof(double));
  status = hand_over(&f, rank, &msg, size, &cells, n_cells, &dofs, nd, buf, bytes, out);
done:
  free(msg);
  free(cells);
  free(rows);
  free(vmap);
  free(dmap);
  free(verts);
  free(dofs);
  return status;
}

int feint_dist_hex_part_unpack(const void *buf, size_t bytes, feint_hexmesh **hm_out, feint_bp_dofmap **d_out,
                               double **x_out) {
  *hm_out = NULL;
  *d_out = NULL;
  *x_out = NULL;
  part_reader r = {buf, bytes, 0, 0};
  const char *magic = part_take(&r, sizeof HEX_MAGIC);
  if (!magic || memcmp(magic, HEX_MAGIC, sizeof HEX_MAGIC))
    return feint_error_set(FEINT_ERR_COMPUTE, "internal: an operator part's message from rank 0 is not one");
  const int order = take_i32(&r), np = take_i32(&r), ng = take_i32(&r);
  const int64_t nv = take_i64(&r), n_cells = take_i64(&r), nd = take_i64(&r);
  feint_hexmesh *hm = NULL;
  feint_bp_dofmap *d = NULL;
  int status = feint_calloc(1, sizeof *hm, &hm, "a part's hexahedra");
  if (!status) status = feint_calloc(1, sizeof *d, &d, "a part's dof map");
  if (!status) {
    hm->n_vertices = nv;
    hm->n_cells = n_cells;
    d->order = order;
    d->np = np;
    d->n_cells = n_cells;
    d->n_dofs = nd;
    hm->n_geometry_nodes = ng;
    if (np < 8 || nv < 0 || n_cells < 0 || nd < 0 || ng < 0 || ng > FEINT_CELL_MAX_GEOMETRY_NODES) r.failed = 1;
  }
  if (!status) status = take_array(&r, nv * 3, sizeof(double), &hm->vertices, "a part's vertices");
  if (!status) status = take_indices(&r, n_cells * 8, 0, &hm->cells, "a part's hexahedra");
  if (!status && ng > 0 && !r.failed)
    status = take_array(&r, n_cells * ng * 3, sizeof(double), &hm->geometry_nodes, "a part's geometry nodes");
  if (!status) status = take_array(&r, n_cells * np, sizeof(int32_t), &d->cell_dofs, "a part's dof map");
  if (!status) status = take_array(&r, nd, sizeof(double), x_out, "a part's x");
  if (!status && (r.failed || r.at != r.size))
    status = feint_error_set(FEINT_ERR_COMPUTE, "internal: an operator part's message is cut short or malformed");
  if (!status && hm->n_vertices > 0) { /* the extents, as feint_hexmesh_from_mesh gives them */
    double lo[3], hi[3];
    for (int a = 0; a < 3; a++) lo[a] = hi[a] = hm->vertices[a];
    for (int64_t v = 0; v < nv; v++)
      for (int a = 0; a < 3; a++) {
        const double c = hm->vertices[3 * v + a];
        lo[a] = c < lo[a] ? c : lo[a];
        hi[a] = c > hi[a] ? c : hi[a];
      }
    hm->lx = hi[0] - lo[0];
    hm->ly = hi[1] - lo[1];
    hm->lz = hi[2] - lo[2];
  }
  if (status) {
    feint_hexmesh_destroy(hm);
    feint_bp_dofmap_destroy(d);
    free(*x_out);
    *x_out = NULL;
    return status;
  }
  *hm_out = hm;
  *d_out = d;
  return FEINT_OK;
}
