/* A rank's part built by the rank itself (dist.h, feint_dist_part_build_start),
 * so that rank 0 packs nothing: it hands every rank a slab of the whole
 * (an equal range of its cells, and the nodes of the rank's rows with
 * their coordinates) as it lies in memory; the ranks send each cell to the
 * owners of its rows, ask the owners of the nodes they lack for their
 * coordinates, and each writes its part's message byte for byte as
 * feint_dist_part_pack would have (part_format.h). A cell goes to the
 * ranks whose rows it touches (the rows partition) or to its part (a
 * partition of the cells, sent with the slab). P1 on every node of
 * straight cells: there a node is a scalar dof, and its owner is its
 * row's. The steps are slab.h's. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dist/lower_bound.h"
#include "dist/slab.h"
#include "feint/error.h"
#include "feint/parallel.h"
#include "feint/plan.h"

static const char SLAB_MAGIC[8] = "feintS1";
enum { HEAD = 16 };       /* every step's message: failed flag, item count (two int64) */
enum { GRAIN = 1 << 14 }; /* cells a core takes at least */
enum { N_INTS = 14 };     /* the int32 of a slab's head (an even count: the head stays 8-aligned) */
_Static_assert(sizeof(part_block) == 32, "a slab's head holds each block in 32 bytes");

struct slab_build {
  int size, rank;
  void **out;
  size_t *out_bytes;
  /* what the build keeps of the slab after the first step (the slab, and the whole it views, may go then) */
  part_whole whole;         /* its groups' table, names and path copied into text */
  char *text;
  int nv, wide;             /* the cells' row width; their nodes sent as int64 (wide) or int32 */
  int64_t node0, n_nodes;   /* this rank's nodes, and their coordinates (copied) */
  double *xyz[3];
  int64_t *start;           /* size + 1: the ranks' first scalar dofs (= nodes) */
  /* the part, as it arrives */
  void **cells_in;          /* size: the routed cells received from each rank (kept to the end) */
  int64_t *cells_first;     /* size + 1: where each rank's cells start in the part */
  int64_t n_part, *ids;     /* the part's cells, whole numbers ascending */
  int *part_groups;         /* their groups */
  int64_t lo, n_range, *map; /* the whole nodes [lo, lo + n_range) -> local number (-1: unused) */
  int64_t n_list, *list;     /* the part's nodes, whole numbers ascending */
  int64_t *list_start;       /* size + 1: where each owner's nodes start in list */
};

/* ---- the slab, and its message from rank 0 ---- */

int feint_dist_slab_applies(const feint_space *s) {
  return s->order == 1 && s->scalar_cell_dofs_borrowed && s->mesh->n_geometry_nodes == 0;
}

int feint_dist_slab_create(const feint_space *s, const int *part, int rank, int size, feint_dist_slab **out) {
  *out = NULL;
  const feint_mesh *m = s->mesh;
  if (!feint_dist_slab_applies(s))
    return feint_error_set(FEINT_ERR_COMPUTE, "internal: a slab of a space that is not P1 on every node");
  feint_dist_slab *sl = NULL;
  FEINT_CALL(feint_calloc(1, sizeof *sl, &sl, "a slab of the mesh"));
  part_whole_of(s, &sl->whole);
  sl->size = size;
  sl->rank = rank;
  sl->nv = m->nv;
  int64_t c1 = 0, v1 = 0;
  feint_dist_rows_scalar_range(m->n_cells, size, rank, &sl->cell0, &c1); /* an even share of the cells */
  feint_dist_rows_scalar_range(s->n_scalar_dofs, size, rank, &sl->node0, &v1);
  sl->n_cells = c1 - sl->cell0;
  sl->n_nodes = v1 - sl->node0;
  sl->cells = m->cells + sl->cell0 * m->nv;
  sl->groups = m->cell_group ? m->cell_group + sl->cell0 : NULL;
  sl->part = part ? part + sl->cell0 : NULL;
  sl->x = m->x + sl->node0;
  sl->y = m->y + sl->node0;
  sl->z = m->z + sl->node0;
  *out = sl;
  return FEINT_OK;
}

void feint_dist_slab_destroy(feint_dist_slab *sl) {
  if (!sl) return;
  free(sl->groups_read);
  free(sl);
}

static size_t padded(size_t n) { return (n + 7) / 8 * 8; }

/* The message's head (all of it 8-aligned, so that the arrays after it are) */
static size_t head_bytes(const feint_dist_slab *sl) {
  const part_whole *w = &sl->whole;
  size_t n = sizeof SLAB_MAGIC + N_INTS * 4 + 6 * 8 + (size_t)w->n_blocks * 32 + 8 + padded(strlen(w->path) + 1);
  for (int g = 0; g < w->n_groups; g++) n += 24 + padded(strlen(w->groups[g].name) + 1);
  return n;
}

static void fill_text(part_filler *f, const char *text) {
  const size_t len = padded(strlen(text) + 1);
  part_fill_i64(f, (int64_t)len);
  memset(f->at, 0, len);
  memcpy(f->at, text, strlen(text));
  f->at += len;
}

int feint_dist_slab_message(const feint_dist_slab *sl, feint_comm_message *msg, void **head) {
  const part_whole *w = &sl->whole;
  const size_t size = head_bytes(sl);
  char *h = NULL;
  FEINT_CALL(feint_malloc(size, 1, &h, "a slab's head"));
  part_filler f = {h};
  part_fill(&f, SLAB_MAGIC, sizeof SLAB_MAGIC);
  const int32_t ints[N_INTS] = {w->dim,      w->nv_facet, w->geometry_order, w->order,   w->components,
                                w->family,   w->n_groups, w->n_blocks,       sl->nv,     sl->groups != NULL,
                                sl->size,    sl->rank,    sl->part != NULL,  0 /* pad */};
  part_fill(&f, ints, sizeof ints);
  const int64_t counts[6] = {w->n_cells, w->n_scalar_dofs, sl->cell0, sl->n_cells, sl->node0, sl->n_nodes};
  part_fill(&f, counts, sizeof counts);
  for (int b = 0; b < w->n_blocks; b++) part_fill(&f, &w->blocks[b], sizeof w->blocks[b]);
  for (int g = 0; g < w->n_groups; g++) {
    part_fill_i32(&f, w->groups[g].dim);
    part_fill_i32(&f, w->groups[g].tag);
    part_fill_i64(&f, w->groups[g].n_elements);
    fill_text(&f, w->groups[g].name);
  }
  fill_text(&f, w->path);
  if ((size_t)(f.at - h) != size) {
    free(h);
    return feint_error_set(FEINT_ERR_COMPUTE, "internal: a slab's head is %zu bytes, sized %zu", (size_t)(f.at - h),
                           size);
  }
  const size_t nodes = (size_t)sl->n_nodes * sizeof(double);
  *msg = (feint_comm_message){{h, sl->cells, sl->x, sl->y, sl->z, sl->groups, sl->part},
                              {size, (size_t)(sl->n_cells * sl->nv) * 8, nodes, nodes, nodes,
                               sl->groups ? (size_t)sl->n_cells * 4 : 0, sl->part ? (size_t)sl->n_cells * 4 : 0},
                              7};
  *head = h;
  return FEINT_OK;
}

/* A bounds-checked walk through a slab's message. */
typedef struct {
  const char *data;
  size_t size, at;
  int failed;
} walk;

static const void *take(walk *r, size_t n) {
  if (r->failed || n > r->size - r->at) {
    r->failed = 1;
    return NULL;
  }
  const void *p = r->data + r->at;
  r->at += n;
  return p;
}

static void take_copy(walk *r, void *to, size_t n) {
  const void *p = take(r, n);
  if (p) memcpy(to, p, n);
}

/* A NUL-ended text of the head, in place */
static const char *take_text(walk *r) {
  int64_t len = 0;
  take_copy(r, &len, sizeof len);
  const char *t = len > 0 && len % 8 == 0 ? take(r, (size_t)len) : NULL;
  if (!t || t[len - 1] != '\0') r->failed = 1;
  return r->failed ? "" : t;
}

int feint_dist_slab_read(const void *buf, size_t bytes, feint_dist_slab **out) {
  *out = NULL;
  walk r = {buf, bytes, 0, 0};
  const char *magic = take(&r, sizeof SLAB_MAGIC);
  if (!magic || memcmp(magic, SLAB_MAGIC, sizeof SLAB_MAGIC))
    return feint_error_set(FEINT_ERR_COMPUTE, "internal: a slab's message from rank 0 is not one");
  feint_dist_slab *sl = NULL;
  FEINT_CALL(feint_calloc(1, sizeof *sl, &sl, "a slab of the mesh"));
  part_whole *w = &sl->whole;
  int32_t ints[N_INTS] = {0};
  int64_t counts[6] = {0};
  take_copy(&r, ints, sizeof ints);
  take_copy(&r, counts, sizeof counts);
  *w = (part_whole){.dim = ints[0], .nv_facet = ints[1], .geometry_order = ints[2], .order = ints[3],
                    .components = ints[4], .family = ints[5], .n_groups = ints[6], .n_blocks = ints[7],
                    .n_cells = counts[0], .n_scalar_dofs = counts[1]};
  sl->nv = ints[8];
  const int has_groups = ints[9];
  sl->size = ints[10];
  sl->rank = ints[11];
  const int has_part = ints[12];
  sl->cell0 = counts[2];
  sl->n_cells = counts[3];
  sl->node0 = counts[4];
  sl->n_nodes = counts[5];
  if (w->n_blocks < 1 || w->n_blocks > FEINT_MESH_MAX_BLOCKS || w->n_groups < 0 || sl->nv < 1 || sl->n_cells < 0 ||
      sl->n_nodes < 0 || sl->size < 1)
    r.failed = 1;
  for (int b = 0; b < w->n_blocks && !r.failed; b++) take_copy(&r, &w->blocks[b], sizeof w->blocks[b]);
  int status = r.failed ? FEINT_OK
                        : feint_calloc((size_t)w->n_groups + 1, sizeof *sl->groups_read, &sl->groups_read,
                                       "a slab's physical groups");
  for (int g = 0; g < w->n_groups && !status && !r.failed; g++) {
    feint_mesh_group *gr = &sl->groups_read[g];
    int32_t dt[2] = {0, 0};
    take_copy(&r, dt, sizeof dt);
    take_copy(&r, &gr->n_elements, sizeof gr->n_elements);
    gr->dim = dt[0];
    gr->tag = dt[1];
    gr->name = (char *)take_text(&r); /* in the message, which outlives the slab */
  }
  w->groups = sl->groups_read;
  w->path = take_text(&r);
  const size_t n_cells = (size_t)sl->n_cells, n_nodes = (size_t)sl->n_nodes;
  if (!r.failed && (n_cells > (r.size - r.at) / 8 / (size_t)sl->nv || n_nodes > (r.size - r.at) / 24)) r.failed = 1;
  sl->cells = take(&r, n_cells * (size_t)sl->nv * 8);
  sl->x = take(&r, n_nodes * 8);
  sl->y = take(&r, n_nodes * 8);
  sl->z = take(&r, n_nodes * 8);
  sl->groups = has_groups ? take(&r, n_cells * 4) : NULL;
  sl->part = has_part ? take(&r, n_cells * 4) : NULL;
  if (!status && (r.failed || r.at != r.size))
    status = feint_error_set(FEINT_ERR_COMPUTE, "internal: a slab's message from rank 0 is cut short or malformed");
  if (status) {
    feint_dist_slab_destroy(sl);
    return status;
  }
  *out = sl;
  return FEINT_OK;
}

/* ---- the steps ---- */

int slab_build_create(int size, int rank, slab_build **out) {
  *out = NULL;
  slab_build *b = NULL;
  FEINT_CALL(feint_calloc(1, sizeof *b, &b, "a part's build"));
  b->size = size;
  b->rank = rank;
  int status = feint_calloc((size_t)size, sizeof *b->out, &b->out, "a part's build");
  if (!status) status = feint_calloc((size_t)size, sizeof *b->out_bytes, &b->out_bytes, "a part's build");
  if (!status) status = feint_calloc((size_t)size + 1, sizeof *b->start, &b->start, "a part's build");
  if (!status) status = feint_calloc((size_t)size, sizeof *b->cells_in, &b->cells_in, "a part's build");
  if (!status) status = feint_calloc((size_t)size + 1, sizeof *b->cells_first, &b->cells_first, "a part's build");
  if (!status) status = feint_calloc((size_t)size + 1, sizeof *b->list_start, &b->list_start, "a part's build");
  if (status) {
    slab_build_destroy(b);
    return status;
  }
  *out = b;
  return FEINT_OK;
}

static void free_out(slab_build *b) {
  for (int q = 0; q < b->size; q++) {
    free(b->out[q]);
    b->out[q] = NULL;
    b->out_bytes[q] = 0;
  }
}

void slab_build_destroy(slab_build *b) {
  if (!b) return;
  if (b->out) free_out(b);
  for (int p = 0; b->cells_in && p < b->size; p++) free(b->cells_in[p]);
  for (int a = 0; a < 3; a++) free(b->xyz[a]);
  free(b->text);
  free(b->out);
  free(b->out_bytes);
  free(b->start);
  free(b->cells_in);
  free(b->cells_first);
  free(b->ids);
  free(b->part_groups);
  free(b->map);
  free(b->list);
  free(b->list_start);
  free(b);
}

void **slab_build_out(slab_build *b, size_t **out_bytes) {
  *out_bytes = b->out_bytes;
  return b->out;
}

/* Rank q's message of this step: the head, then `body` bytes (at *at) */
static int message(slab_build *b, int q, int failed, int64_t n, size_t body, char **at) {
  char *m = NULL;
  FEINT_CALL(feint_malloc(HEAD + body, 1, &m, "a part's build message"));
  const int64_t head[2] = {failed, n};
  memcpy(m, head, sizeof head);
  b->out[q] = m;
  b->out_bytes[q] = HEAD + body;
  if (at) *at = m + HEAD;
  return FEINT_OK;
}

/* A failed rank's messages: its failure only. Every rank gets one. */
static int fail_all(slab_build *b, int status) {
  free_out(b);
  for (int q = 0; q < b->size; q++)
    if (message(b, q, 1, 0, 0, NULL)) {
      free_out(b); /* cannot even say so: the others would wait for this rank */
      return FEINT_ERR_COMPUTE;
    }
  return status;
}

/* What each rank sent: a failed one (its failure, if none here first),
 * else each one's count of items of item_bytes (*n, per rank), checked
 * against the message's size. */
static int read_in(const slab_build *b, int status, void **in, const size_t *in_bytes, size_t item_bytes,
                   int64_t *n) {
  for (int p = 0; p < b->size; p++) {
    int64_t head[2] = {1, 0};
    if (in[p] && in_bytes[p] >= HEAD) memcpy(head, in[p], sizeof head);
    n[p] = head[1];
    if (!status && head[0]) status = feint_dist_peer_failed(p);
    if (!status && (head[1] < 0 || (size_t)head[1] > (in_bytes[p] - HEAD) / item_bytes ||
                    in_bytes[p] != HEAD + (size_t)head[1] * item_bytes))
      status = feint_error_set(FEINT_ERR_COMPUTE, "internal: rank %d's part of the build is malformed", p);
  }
  return status;
}

static void free_in(int size, void **in) {
  for (int p = 0; p < size; p++) {
    free(in[p]);
    in[p] = NULL;
  }
}

/* Node i of a routed message's rows (int32 or int64) */
static inline int64_t node_at(const void *nodes, int wide, int64_t i) {
  if (wide) return ((const int64_t *)nodes)[i];
  return ((const int32_t *)nodes)[i];
}

/* What the build keeps of the slab: the whole's description (its texts
 * copied), this rank's nodes' coordinates */
static int keep_slab(slab_build *b, const feint_dist_slab *s) {
  const part_whole *w = &s->whole;
  size_t text = strlen(w->path) + 1 + (size_t)w->n_groups * sizeof(feint_mesh_group) + sizeof(feint_mesh_group);
  for (int g = 0; g < w->n_groups; g++) text += strlen(w->groups[g].name) + 1;
  FEINT_CALL(feint_malloc(text, 1, &b->text, "a part's build"));
  b->whole = *w;
  feint_mesh_group *groups = (feint_mesh_group *)(void *)b->text; /* the table first: aligned */
  char *at = b->text + ((size_t)w->n_groups + 1) * sizeof *groups;
  for (int g = 0; g < w->n_groups; g++) {
    groups[g] = w->groups[g];
    groups[g].name = strcpy(at, w->groups[g].name);
    at += strlen(at) + 1;
  }
  b->whole.groups = groups;
  b->whole.path = strcpy(at, w->path);
  b->nv = s->nv;
  b->wide = w->n_scalar_dofs > feint_plan_narrow_limit(); /* int32 where they fit (the plan's rule and test hook) */
  b->node0 = s->node0;
  b->n_nodes = s->n_nodes;
  const double *xyz[3] = {s->x, s->y, s->z};
  for (int a = 0; a < 3; a++) {
    FEINT_CALL(feint_malloc((size_t)s->n_nodes + 1, sizeof *b->xyz[a], &b->xyz[a], "a part's build"));
    memcpy(b->xyz[a], xyz[a], (size_t)s->n_nodes * sizeof(double));
  }
  return FEINT_OK;
}

/* 1. route: each cell of the slab to every rank whose rows it touches,
 * counted per range of cells, then written at each range's place */
typedef struct {
  const slab_build *b;
  const feint_dist_slab *s;
  int64_t *count;          /* ranges x size: cells range t sends rank q, then where they go */
  int64_t **ids;           /* size: each message's arrays */
  char **nodes;
  int32_t **groups;
  int bad;                 /* a node out of the whole's range, or a part out of the ranks' */
} route_job;

static void route_range(int64_t a, int64_t c1, int t, void *arg) {
  route_job *j = arg;
  const feint_dist_slab *s = j->s;
  const int size = j->b->size, nv = s->nv, wide = j->b->wide;
  int64_t *count = j->count + (size_t)t * (size_t)size;
  for (int64_t i = a; i < c1; i++) {
    const int64_t *d = s->cells + i * nv;
    int first, last;
    if (!j->ids) {
      for (int v = 0; v < nv; v++)
        if (d[v] < -1 || d[v] >= s->whole.n_scalar_dofs) {
          __atomic_store_n(&j->bad, 1, __ATOMIC_RELAXED);
          return;
        }
    }
    if (s->part) { /* a partition of the cells: the cell's part only */
      first = last = s->part[i];
      if (first < 0 || first >= size) {
        __atomic_store_n(&j->bad, 1, __ATOMIC_RELAXED);
        return;
      }
    } else if (!feint_dist_cell_owners(d, nv, j->b->start, size, &first, &last)) {
      continue;
    }
    for (int q = first; q <= last; q++) {
      if (q != first && q != last && !feint_dist_touches(d, nv, j->b->start[q], j->b->start[q + 1])) continue;
      if (!j->ids) {
        count[q]++;
        continue;
      }
      const int64_t k = count[q]++;
      j->ids[q][k] = s->cell0 + i;
      if (wide) {
        memcpy(j->nodes[q] + (size_t)k * nv * 8, d, (size_t)nv * 8);
      } else {
        int32_t *to = (int32_t *)(void *)(j->nodes[q] + (size_t)k * nv * 4);
        for (int v = 0; v < nv; v++) to[v] = (int32_t)d[v];
      }
      j->groups[q][k] = s->groups ? s->groups[i] : -1;
    }
  }
}

int slab_route(slab_build *b, const feint_dist_slab *s, int status) {
  const int size = b->size;
  if (!status) status = keep_slab(b, s);
  if (status) return fail_all(b, status);
  for (int q = 0; q <= size; q++)
    b->start[q] = q == size ? s->whole.n_scalar_dofs : feint_dist_row_start(s->whole.n_scalar_dofs, 1, size, q);
  const int ranges = feint_parallel_ranges(s->n_cells, GRAIN);
  const size_t node_bytes = b->wide ? 8 : 4;
  route_job j = {b, s, NULL, NULL, NULL, NULL, 0};
  status = feint_calloc((size_t)ranges * (size_t)size + 1, sizeof *j.count, &j.count, "the cells' owners");
  if (!status) status = feint_calloc((size_t)size, sizeof *j.ids, &j.ids, "the cells' owners");
  if (!status) status = feint_calloc((size_t)size, sizeof *j.nodes, &j.nodes, "the cells' owners");
  if (!status) status = feint_calloc((size_t)size, sizeof *j.groups, &j.groups, "the cells' owners");
  int64_t **ids = j.ids;
  j.ids = NULL; /* counting */
  if (!status) feint_parallel_for_indexed(s->n_cells, GRAIN, route_range, &j);
  if (!status && j.bad)
    status = feint_error_set(FEINT_ERR_COMPUTE,
                             "internal: a slab's cell refers to a node past the mesh's %lld or a part past %d ranks",
                             (long long)s->whole.n_scalar_dofs, size);
  for (int q = 0; q < size && !status; q++) { /* each range's first slot in each message */
    int64_t n = 0;
    for (int t = 0; t < ranges; t++) {
      const int64_t c = j.count[(size_t)t * (size_t)size + q];
      j.count[(size_t)t * (size_t)size + q] = n;
      n += c;
    }
    char *at = NULL;
    status = message(b, q, 0, n, (size_t)n * (8 + (size_t)s->nv * node_bytes + 4), &at);
    if (!status) {
      ids[q] = (int64_t *)(void *)at;
      j.nodes[q] = at + (size_t)n * 8;
      j.groups[q] = (int32_t *)(void *)(j.nodes[q] + (size_t)n * s->nv * node_bytes);
    }
  }
  j.ids = ids;
  if (!status) feint_parallel_for_indexed(s->n_cells, GRAIN, route_range, &j);
  free(j.count);
  free(ids);
  free(j.nodes);
  free(j.groups);
  return status ? fail_all(b, status) : FEINT_OK;
}

/* 2. the part: its cells in whole order (the ranks' slabs ascend), their
 * nodes numbered, and the nodes other ranks own asked of them */
typedef struct {
  const void *nodes; /* a message's cells' nodes */
  int nv, wide;
  int64_t lo, *map;
  int64_t *least, *most; /* per range (the bounds pass) */
} nodes_job;

static void bounds_range(int64_t a, int64_t e, int t, void *arg) {
  nodes_job *j = arg;
  int64_t least = INT64_MAX, most = -1;
  for (int64_t i = a * j->nv; i < e * j->nv; i++) {
    const int64_t g = node_at(j->nodes, j->wide, i);
    if (g < 0) continue;
    least = g < least ? g : least;
    most = g > most ? g : most;
  }
  j->least[t] = least;
  j->most[t] = most;
}

static void unmark_range(int64_t a, int64_t e, void *arg) {
  const nodes_job *j = arg;
  for (int64_t i = a; i < e; i++) j->map[i] = -1;
}

static void mark_range(int64_t a, int64_t e, void *arg) {
  const nodes_job *j = arg;
  for (int64_t i = a * j->nv; i < e * j->nv; i++) {
    const int64_t g = node_at(j->nodes, j->wide, i);
    if (g >= 0) __atomic_store_n(&j->map[g - j->lo], 0, __ATOMIC_RELAXED);
  }
}

static const void *routed_nodes(const slab_build *b, int p) {
  return (const char *)b->cells_in[p] + HEAD + (size_t)(b->cells_first[p + 1] - b->cells_first[p]) * 8;
}

int slab_request(slab_build *b, int status, void **in, size_t *in_bytes) {
  const int size = b->size, nv = b->nv;
  const size_t node_bytes = b->wide ? 8 : 4;
  int64_t *n = NULL;
  if (feint_calloc((size_t)size, sizeof *n, &n, "a part's build")) {
    free_in(size, in);
    return fail_all(b, FEINT_ERR_COMPUTE);
  }
  status = read_in(b, status, in, in_bytes, 8 + (size_t)nv * node_bytes + 4, n);
  for (int p = 0; p < size; p++) { /* kept: their nodes are read again when the part is written */
    b->cells_in[p] = in[p];
    in[p] = NULL;
    b->cells_first[p + 1] = b->cells_first[p] + (status ? 0 : n[p]);
  }
  free(n);
  b->n_part = b->cells_first[size];
  if (!status && b->n_part == 0)
    status = feint_error_set(FEINT_ERR_INPUT, "%s: the partition left rank %d without cells (run on fewer ranks)",
                             b->whole.path, b->rank);
  if (!status) status = feint_malloc((size_t)b->n_part, sizeof *b->ids, &b->ids, "a part's cells");
  if (!status) status = feint_malloc((size_t)b->n_part, sizeof *b->part_groups, &b->part_groups, "a part's cells");
  /* the cells' whole numbers and groups, in whole order; the nodes' bounds */
  int64_t least = INT64_MAX, most = -1;
  for (int p = 0; p < size && !status; p++) {
    const int64_t k = b->cells_first[p], m = b->cells_first[p + 1] - k;
    const char *body = (const char *)b->cells_in[p] + HEAD;
    memcpy(b->ids + k, body, (size_t)m * 8);
    memcpy(b->part_groups + k, body + (size_t)m * (8 + (size_t)nv * node_bytes), (size_t)m * 4);
    int64_t lows[FEINT_PARALLEL_MAX_RANGES], highs[FEINT_PARALLEL_MAX_RANGES];
    for (int t = 0; t < FEINT_PARALLEL_MAX_RANGES; t++) lows[t] = INT64_MAX, highs[t] = -1; /* ranges left empty */
    nodes_job j = {routed_nodes(b, p), nv, b->wide, 0, NULL, lows, highs};
    const int ranges = feint_parallel_for_indexed(m, GRAIN, bounds_range, &j);
    for (int t = 0; t < ranges; t++) {
      least = lows[t] < least ? lows[t] : least;
      most = highs[t] > most ? highs[t] : most;
    }
  }
  for (int64_t i = 1; i < b->n_part && !status; i++)
    if (b->ids[i] <= b->ids[i - 1])
      status = feint_error_set(FEINT_ERR_COMPUTE, "internal: a part's cells arrive out of order");
  /* the part's nodes, numbered in whole order over the range they span (a layer past the rank's own in a
   * mesh numbered in space) */
  if (!status && most < 0) status = feint_error_set(FEINT_ERR_COMPUTE, "internal: a part's cells have no nodes");
  if (!status) {
    b->lo = least;
    b->n_range = most - least + 1;
    status = feint_malloc((size_t)b->n_range, sizeof *b->map, &b->map, "a part's nodes");
  }
  if (!status) {
    nodes_job j = {NULL, nv, b->wide, b->lo, b->map, NULL, NULL};
    feint_parallel_for(b->n_range, 1 << 16, unmark_range, &j);
    for (int p = 0; p < size; p++) {
      j.nodes = routed_nodes(b, p);
      feint_parallel_for(b->cells_first[p + 1] - b->cells_first[p], GRAIN, mark_range, &j);
    }
    status = part_number_marked(b->map, b->n_range, b->lo, &b->list, &b->n_list, "a part's nodes");
  }
  if (status) return fail_all(b, status);
  for (int q = 0; q <= size; q++) b->list_start[q] = feint_dist_lower_bound(b->list, b->n_list, b->start[q]);
  for (int q = 0; q < size && !status; q++) { /* its own nodes asked of none */
    const int64_t k = b->list_start[q], m = q == b->rank ? 0 : b->list_start[q + 1] - k;
    char *at = NULL;
    status = message(b, q, 0, m, (size_t)m * 8, &at);
    if (!status) memcpy(at, b->list + k, (size_t)m * 8);
  }
  return status ? fail_all(b, status) : FEINT_OK;
}

/* 3. the coordinates of this rank's nodes that the others asked for */
int slab_answer(slab_build *b, int status, void **in, size_t *in_bytes) {
  const int size = b->size;
  int64_t *n = NULL;
  if (feint_calloc((size_t)size, sizeof *n, &n, "a part's build")) {
    free_in(size, in);
    return fail_all(b, FEINT_ERR_COMPUTE);
  }
  status = read_in(b, status, in, in_bytes, 8, n);
  for (int p = 0; p < size && !status; p++) {
    const int64_t *asked = (const int64_t *)(const void *)((const char *)in[p] + HEAD);
    char *at = NULL;
    status = message(b, p, 0, n[p], (size_t)n[p] * 24, &at);
    double *xyz = (double *)(void *)at;
    for (int64_t i = 0; i < n[p] && !status; i++) {
      const int64_t v = asked[i] - b->node0;
      if (v < 0 || v >= b->n_nodes) {
        status = feint_error_set(FEINT_ERR_COMPUTE, "internal: rank %d asked rank %d for node %lld, not its own", p,
                                 b->rank, (long long)asked[i]);
        break;
      }
      for (int a = 0; a < 3; a++) xyz[3 * i + a] = b->xyz[a][v];
    }
  }
  free(n);
  free_in(size, in);
  return status ? fail_all(b, status) : FEINT_OK;
}

/* 4. the part's message, as feint_dist_part_pack writes it */
typedef struct {
  const void *nodes;
  const int64_t *map;
  int64_t lo;
  int nv, nv_out, narrow, wide;
  char *at; /* the message's cells of this rank's routed ones */
} remap_job;

static void remap_range(int64_t a, int64_t e, void *arg) {
  const remap_job *j = arg;
  for (int64_t i = a; i < e; i++)
    for (int v = 0; v < j->nv_out; v++) {
      const int64_t g = node_at(j->nodes, j->wide, i * j->nv + v), l = g < 0 ? -1 : j->map[g - j->lo];
      if (j->narrow) {
        const int32_t l32 = (int32_t)l;
        memcpy(j->at + ((size_t)i * j->nv_out + v) * 4, &l32, 4);
      } else {
        memcpy(j->at + ((size_t)i * j->nv_out + v) * 8, &l, 8);
      }
    }
}

int slab_finish(slab_build *b, int status, void **in, size_t *in_bytes, void **msg, size_t *bytes) {
  *msg = NULL;
  *bytes = 0;
  const int size = b->size;
  int64_t *n = NULL;
  if (feint_calloc((size_t)size, sizeof *n, &n, "a part's build")) {
    free_in(size, in);
    return FEINT_ERR_COMPUTE;
  }
  status = read_in(b, status, in, in_bytes, 24, n);
  for (int q = 0; q < size && !status; q++)
    if (q != b->rank && n[q] != b->list_start[q + 1] - b->list_start[q])
      status = feint_error_set(FEINT_ERR_COMPUTE, "internal: rank %d answered %lld coordinates, not %lld", q,
                               (long long)n[q], (long long)(b->list_start[q + 1] - b->list_start[q]));
  free(n);
  char *m = NULL;
  if (!status) {
    const part_whole *w = &b->whole;
    int64_t in_block[FEINT_MESH_MAX_BLOCKS] = {0};
    for (int k = 0; k < w->n_blocks; k++)
      in_block[k] = feint_dist_lower_bound(b->ids, b->n_part, w->blocks[k].first_cell + w->blocks[k].n_cells) -
                    feint_dist_lower_bound(b->ids, b->n_part, w->blocks[k].first_cell);
    const part_shape ps = part_shape_of(w, in_block);
    const int64_t n_cells = b->n_part, n_nodes = b->n_list;
    const int narrow = n_nodes < INT32_MAX;
    const size_t index = narrow ? 4 : 8;
    const part_column numbers = {b->ids, NULL, NULL, 1}, groups = {b->ids, NULL, b->part_groups, 0};
    const int64_t number_runs = part_count_runs(&numbers, n_cells), group_runs = part_count_runs(&groups, n_cells);
    const int numbers_as_runs = number_runs * 16 + 8 < n_cells * 8, groups_as_runs = group_runs * 16 + 8 < n_cells * 4;
    size_t total = part_head_bytes(w, &ps) + (size_t)n_nodes * 3 * 8 + (size_t)n_cells * ps.nv * index +
                   (size_t)n_nodes * 8 + 2 * 8;
    total += numbers_as_runs ? 8 + (size_t)number_runs * 16 : (size_t)n_cells * 8;
    total += groups_as_runs ? 8 + (size_t)group_runs * 16 : (size_t)n_cells * 4;
    status = feint_malloc(total, 1, &m, "a part's message");
    if (!status) {
      part_filler f = {m};
      part_fill_head(&f, w, &ps,
                     narrow * PART_NARROW | PART_DOFS_ARE_NODES | numbers_as_runs * PART_NUMBERS_AS_RUNS |
                         groups_as_runs * PART_GROUPS_AS_RUNS,
                     n_nodes, n_cells, n_nodes);
      /* the nodes' coordinates, axis by axis: the rank's own, the others' from their answers (the message's
       * bulk is not aligned: its head holds texts) */
      for (int a = 0; a < 3; a++)
        for (int q = 0; q < size; q++) {
          const int64_t k0 = b->list_start[q], k1 = b->list_start[q + 1];
          const double *xyz = q == b->rank ? NULL : (const double *)(const void *)((const char *)in[q] + HEAD);
          for (int64_t k = k0; k < k1; k++) {
            const double x = xyz ? xyz[3 * (k - k0) + a] : b->xyz[a][b->list[k] - b->node0];
            part_fill(&f, &x, sizeof x);
          }
        }
      for (int p = 0; p < size; p++) {
        remap_job j = {routed_nodes(b, p), b->map, b->lo, b->nv, ps.nv, narrow, b->wide,
                       f.at + (size_t)b->cells_first[p] * ps.nv * index};
        feint_parallel_for(b->cells_first[p + 1] - b->cells_first[p], GRAIN, remap_range, &j);
      }
      f.at += (size_t)n_cells * ps.nv * index;
      if (groups_as_runs) part_fill_runs(&f, &groups, n_cells, group_runs);
      else part_fill(&f, b->part_groups, (size_t)n_cells * 4);
      part_fill_i64(&f, w->n_cells);
      part_fill_i64(&f, w->n_scalar_dofs);
      if (numbers_as_runs) part_fill_runs(&f, &numbers, n_cells, number_runs);
      else part_fill(&f, b->ids, (size_t)n_cells * 8);
      part_fill(&f, b->list, (size_t)n_nodes * 8);
      if ((size_t)(f.at - m) != total)
        status = feint_error_set(FEINT_ERR_COMPUTE, "internal: rank %d's part is %zu bytes, sized %zu", b->rank,
                                 (size_t)(f.at - m), total);
    }
    if (!status) {
      *msg = m;
      *bytes = total;
      m = NULL;
    }
  }
  free(m);
  free_in(size, in);
  return status;
}

/* ---- the build, collective ---- */

static double seconds_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

struct feint_dist_part_builder {
  feint_comm *comm;
  slab_build *b;
  void **in;
  size_t *in_bytes;
  int status;     /* this rank's, carried from the first half to the second */
  double seconds[4];
};

/* The step's messages carried: each rank's to it, this rank's own kept (in[rank]) */
static int carry(slab_build *b, feint_comm *comm, void **in, size_t *in_bytes) {
  feint_comm_message *out = NULL;
  int status = feint_calloc((size_t)b->size, sizeof *out, &out, "a part's build");
  for (int q = 0; q < b->size && !status; q++)
    out[q] = (feint_comm_message){{b->out[q]}, {b->out_bytes[q]}, b->out[q] != NULL};
  if (!status) status = feint_comm_exchange(comm, out, in, in_bytes);
  free(out);
  if (status) feint_comm_abort(comm, status); /* a rank that cannot send or receive cannot say so */
  in[b->rank] = b->out[b->rank];
  in_bytes[b->rank] = b->out_bytes[b->rank];
  b->out[b->rank] = NULL;
  free_out(b);
  return status;
}

static void builder_destroy(feint_dist_part_builder *pb) {
  if (!pb) return;
  if (pb->in) free_in(pb->b ? pb->b->size : 0, pb->in);
  free(pb->in);
  free(pb->in_bytes);
  slab_build_destroy(pb->b);
  free(pb);
}

int feint_dist_part_build_start(feint_comm *comm, int status, const feint_dist_slab *s,
                                feint_dist_part_builder **out) {
  *out = NULL;
  const int size = feint_comm_size(comm), rank = feint_comm_rank(comm);
  feint_dist_part_builder *pb = NULL;
  if (feint_calloc(1, sizeof *pb, &pb, "a part's build") || slab_build_create(size, rank, &pb->b) ||
      feint_calloc((size_t)size, sizeof *pb->in, &pb->in, "a part's build") ||
      feint_calloc((size_t)size, sizeof *pb->in_bytes, &pb->in_bytes, "a part's build")) {
    builder_destroy(pb);
    feint_comm_abort(comm, FEINT_ERR_COMPUTE); /* cannot take part: the others would wait */
    return FEINT_ERR_COMPUTE;
  }
  pb->comm = comm;
  feint_dist_slab none = {.nv = 1}; /* a rank that failed before it had a slab */
  if (!s) {
    s = &none;
    if (!status) status = feint_error_set(FEINT_ERR_COMPUTE, "internal: a part's build without a slab");
  }
  if (!status && (s->size != size || s->rank != rank))
    status = feint_error_set(FEINT_ERR_COMPUTE, "internal: rank %d given rank %d's slab of %d", rank, s->rank, s->size);
  double t0 = seconds_now();
  pb->status = slab_route(pb->b, s, status);
  const int carried = carry(pb->b, comm, pb->in, pb->in_bytes);
  pb->seconds[0] = seconds_now() - t0;
  *out = pb;
  return carried ? carried : pb->status;
}

int feint_dist_part_build_finish(feint_dist_part_builder *pb, int status, void **msg, size_t *bytes,
                                 double seconds[4]) {
  *msg = NULL;
  *bytes = 0;
  slab_build *b = pb->b;
  if (!status) status = pb->status;
  double t0 = seconds_now();
  status = slab_request(b, status, pb->in, pb->in_bytes);
  int carried = carry(b, pb->comm, pb->in, pb->in_bytes);
  pb->seconds[1] = seconds_now() - t0;
  t0 = seconds_now();
  if (!carried) status = slab_answer(b, status, pb->in, pb->in_bytes);
  if (!carried) carried = carry(b, pb->comm, pb->in, pb->in_bytes);
  pb->seconds[2] = seconds_now() - t0;
  t0 = seconds_now();
  if (!carried) status = slab_finish(b, status, pb->in, pb->in_bytes, msg, bytes);
  pb->seconds[3] = seconds_now() - t0;
  if (seconds) memcpy(seconds, pb->seconds, sizeof pb->seconds);
  builder_destroy(pb);
  return carried ? carried : status;
}
