/* A rank's part built by the rank itself (dist.h, feint_dist_part_build_start),
 * so that rank 0 packs nothing: it hands every rank a slab of the whole
 * (an equal range of its cells, and the nodes of the rank's rows with
 * their coordinates) as it lies in memory; the ranks send each cell to the
 * owners of its rows, ask the owners of the nodes they lack for their
 * coordinates, and each makes its part's mesh and space as
 * feint_dist_part_unpack makes them of feint_dist_part_pack's message
 * (part_format.h's part_contents), with no message between. A cell goes to the
 * ranks whose rows it touches (the rows partition) or to its part (a
 * partition of the cells, sent with the slab), with its nodes, its scalar
 * dofs and a curved cell's geometry. A node's coordinates are kept by the
 * rank whose even share of the nodes holds it, a dof's by its row's owner
 * (P1 on every node: a node is a scalar dof, one numbering serves both).
 * The steps are slab.h's. */
#include <stdatomic.h>
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
enum { N_INTS = 16, N_COUNTS = 10 }; /* the int32 and int64 of a slab's head (even counts: it stays 8-aligned) */
_Static_assert(sizeof(part_block) == 32, "a slab's head holds each block in 32 bytes");

/* One numbering of the part's ids (its nodes, or its scalar dofs): the
 * ids its cells use, numbered in whole order over the range they span,
 * each owned by the rank whose range holds it (start), which answers for
 * its coordinates (own: 3 doubles an id, copied from the slab). */
typedef struct {
  int64_t *start;            /* size + 1: the ranks' first ids */
  int64_t own0, n_own;       /* this rank's ids and their coordinates */
  double *own;
  int64_t lo, n_range, *map; /* the whole ids [lo, lo + n_range) -> local number (-1: unused) */
  int64_t n_list, *list;     /* the part's ids, ascending */
  int64_t *list_start;       /* size + 1: where each owner's ids start in list */
} numbering;

struct slab_build {
  int size, rank;
  void **out;
  size_t *out_bytes;
  /* what the build keeps of the slab after the first step (the slab, and the whole it views, may go then) */
  part_whole whole;         /* its groups' table, names and path copied into text */
  char *text;
  int nv, nb, ng;           /* a cell's nodes, scalar dofs and geometry nodes (the whole's widest) */
  int dofs_are_nodes;       /* P1 on every node: one numbering serves both */
  int wide;                 /* ids routed as int64 (else int32) */
  numbering nodes, dofs;
  /* the part, as it arrives */
  void **cells_in;          /* size: the routed cells received from each rank (until the part is made of them) */
  int64_t *cells_first;     /* size + 1: where each rank's cells start in the part */
  int64_t n_part, *ids;     /* the part's cells, whole numbers ascending */
  int *part_groups;         /* their groups */
};

/* ---- the slab, and its message from rank 0 ---- */

int feint_dist_slab_create(const feint_space *s, const int *part, int rank, int size, feint_dist_slab **out) {
  *out = NULL;
  const feint_mesh *m = s->mesh;
  feint_dist_slab *sl = NULL;
  FEINT_CALL(feint_calloc(1, sizeof *sl, &sl, "a slab of the mesh"));
  part_whole_of(s, &sl->whole);
  sl->size = size;
  sl->rank = rank;
  sl->nv = m->nv;
  sl->nb = s->nb;
  sl->ng = m->n_geometry_nodes;
  sl->whole_nodes = m->n_nodes;
  int64_t c1 = 0, v1 = 0, d1 = 0;
  feint_dist_rows_scalar_range(m->n_cells, size, rank, &sl->cell0, &c1); /* an even share of each */
  feint_dist_rows_scalar_range(m->n_nodes, size, rank, &sl->node0, &v1);
  sl->n_cells = c1 - sl->cell0;
  sl->n_nodes = v1 - sl->node0;
  sl->cells = m->cells + sl->cell0 * m->nv;
  sl->groups = m->cell_group ? m->cell_group + sl->cell0 : NULL;
  sl->part = part ? part + sl->cell0 : NULL;
  sl->geometry = sl->ng ? m->geometry_nodes + sl->cell0 * sl->ng * 3 : NULL;
  sl->x = m->x + sl->node0;
  sl->y = m->y + sl->node0;
  sl->z = m->z + sl->node0;
  if (!s->scalar_cell_dofs_borrowed) { /* else P1 on every node: the dofs are the nodes */
    feint_dist_rows_scalar_range(s->n_scalar_dofs, size, rank, &sl->dof0, &d1);
    sl->n_dofs = d1 - sl->dof0;
    sl->dofs = s->scalar_cell_dofs + sl->cell0 * s->nb;
    sl->dof_xyz = s->coordinates + sl->dof0 * 3;
  }
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
  size_t n = sizeof SLAB_MAGIC + N_INTS * 4 + N_COUNTS * 8 + (size_t)w->n_blocks * 32 + 8 +
             padded(strlen(w->path) + 1);
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
  const int32_t ints[N_INTS] = {w->dim,      w->nv_facet, w->geometry_order, w->order,    w->components, w->family,
                                w->n_groups, w->n_blocks, sl->nv,            sl->groups != NULL, sl->size, sl->rank,
                                sl->part != NULL, sl->nb, sl->dofs != NULL,  sl->ng};
  part_fill(&f, ints, sizeof ints);
  const int64_t counts[N_COUNTS] = {w->n_cells, w->n_scalar_dofs, sl->cell0, sl->n_cells, sl->node0,
                                    sl->n_nodes, sl->whole_nodes, sl->dof0, sl->n_dofs, 0 /* pad */};
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
  /* the bulk as it lies in the whole: the 8-byte arrays first, the int32 ones last */
  const size_t n_cells = (size_t)sl->n_cells, nodes = (size_t)sl->n_nodes * sizeof(double);
  *msg = (feint_comm_message){
      {h, sl->cells, sl->x, sl->y, sl->z, sl->dofs, sl->dof_xyz, sl->geometry, sl->groups, sl->part},
      {size, n_cells * (size_t)sl->nv * 8, nodes, nodes, nodes, sl->dofs ? n_cells * (size_t)sl->nb * 8 : 0,
       sl->dofs ? (size_t)sl->n_dofs * 24 : 0, n_cells * (size_t)sl->ng * 24, sl->groups ? n_cells * 4 : 0,
       sl->part ? n_cells * 4 : 0},
      10};
  *head = h;
  return FEINT_OK;
}

/* n items of `size` bytes in place (a count past what is left fails) */
static const void *take_items(part_reader *r, int64_t n, size_t size) {
  if (n < 0 || (size && (size_t)n > (r->size - r->at) / size)) {
    r->failed = 1;
    return NULL;
  }
  return part_take(r, (size_t)n * size);
}

/* A NUL-ended text of the head, in place */
static const char *take_text(part_reader *r) {
  int64_t len = 0;
  part_take_copy(r, &len, sizeof len);
  const char *t = len > 0 && len % 8 == 0 ? part_take(r, (size_t)len) : NULL;
  if (!t || t[len - 1] != '\0') r->failed = 1;
  return r->failed ? "" : t;
}

int feint_dist_slab_read(const void *buf, size_t bytes, feint_dist_slab **out) {
  *out = NULL;
  part_reader r = {buf, bytes, 0, 0};
  const char *magic = part_take(&r, sizeof SLAB_MAGIC);
  if (!magic || memcmp(magic, SLAB_MAGIC, sizeof SLAB_MAGIC))
    return feint_error_set(FEINT_ERR_COMPUTE, "internal: a slab's message from rank 0 is not one");
  feint_dist_slab *sl = NULL;
  FEINT_CALL(feint_calloc(1, sizeof *sl, &sl, "a slab of the mesh"));
  part_whole *w = &sl->whole;
  int32_t ints[N_INTS] = {0};
  int64_t counts[N_COUNTS] = {0};
  part_take_copy(&r, ints, sizeof ints);
  part_take_copy(&r, counts, sizeof counts);
  *w = (part_whole){.dim = ints[0], .nv_facet = ints[1], .geometry_order = ints[2], .order = ints[3],
                    .components = ints[4], .family = ints[5], .n_groups = ints[6], .n_blocks = ints[7],
                    .n_cells = counts[0], .n_scalar_dofs = counts[1]};
  sl->nv = ints[8];
  const int has_groups = ints[9], has_part = ints[12], has_dofs = ints[14];
  sl->size = ints[10];
  sl->rank = ints[11];
  sl->nb = ints[13];
  sl->ng = ints[15];
  sl->cell0 = counts[2];
  sl->n_cells = counts[3];
  sl->node0 = counts[4];
  sl->n_nodes = counts[5];
  sl->whole_nodes = counts[6];
  sl->dof0 = counts[7];
  sl->n_dofs = counts[8];
  if (w->n_blocks < 1 || w->n_blocks > FEINT_MESH_MAX_BLOCKS || w->n_groups < 0 || sl->nv < 1 || sl->nb < 1 ||
      sl->ng < 0 || sl->size < 1)
    r.failed = 1;
  for (int b = 0; b < w->n_blocks && !r.failed; b++) part_take_copy(&r, &w->blocks[b], sizeof w->blocks[b]);
  int status = r.failed ? FEINT_OK
                        : feint_calloc((size_t)w->n_groups + 1, sizeof *sl->groups_read, &sl->groups_read,
                                       "a slab's physical groups");
  for (int g = 0; g < w->n_groups && !status && !r.failed; g++) {
    feint_mesh_group *gr = &sl->groups_read[g];
    int32_t dt[2] = {0, 0};
    part_take_copy(&r, dt, sizeof dt);
    part_take_copy(&r, &gr->n_elements, sizeof gr->n_elements);
    gr->dim = dt[0];
    gr->tag = dt[1];
    gr->name = (char *)take_text(&r); /* in the message, which outlives the slab */
  }
  w->groups = sl->groups_read;
  w->path = take_text(&r);
  if (!r.failed && (sl->n_cells < 0 || (size_t)sl->n_cells > (r.size - r.at) / 8 / (size_t)sl->nv)) r.failed = 1;
  sl->cells = take_items(&r, sl->n_cells * sl->nv, 8);
  sl->x = take_items(&r, sl->n_nodes, 8);
  sl->y = take_items(&r, sl->n_nodes, 8);
  sl->z = take_items(&r, sl->n_nodes, 8);
  if (has_dofs && !r.failed && (size_t)sl->n_cells > (r.size - r.at) / 8 / (size_t)sl->nb) r.failed = 1;
  sl->dofs = has_dofs ? take_items(&r, sl->n_cells * sl->nb, 8) : NULL;
  sl->dof_xyz = has_dofs ? take_items(&r, sl->n_dofs, 24) : NULL;
  if (sl->ng && !r.failed && (size_t)sl->n_cells > (r.size - r.at) / 24 / (size_t)sl->ng) r.failed = 1;
  sl->geometry = sl->ng ? take_items(&r, sl->n_cells * sl->ng, 24) : NULL;
  sl->groups = has_groups ? take_items(&r, sl->n_cells, 4) : NULL;
  sl->part = has_part ? take_items(&r, sl->n_cells, 4) : NULL;
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
  if (!status) status = feint_calloc((size_t)size, sizeof *b->cells_in, &b->cells_in, "a part's build");
  if (!status) status = feint_calloc((size_t)size + 1, sizeof *b->cells_first, &b->cells_first, "a part's build");
  numbering *nm[2] = {&b->nodes, &b->dofs};
  for (int k = 0; k < 2 && !status; k++) {
    status = feint_calloc((size_t)size + 1, sizeof *nm[k]->start, &nm[k]->start, "a part's build");
    if (!status) status = feint_calloc((size_t)size + 1, sizeof *nm[k]->list_start, &nm[k]->list_start, "a part's build");
  }
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

static void numbering_release(numbering *nm) {
  free(nm->start);
  free(nm->own);
  free(nm->map);
  free(nm->list);
  free(nm->list_start);
}

void slab_build_destroy(slab_build *b) {
  if (!b) return;
  if (b->out) free_out(b);
  for (int p = 0; b->cells_in && p < b->size; p++) free(b->cells_in[p]);
  numbering_release(&b->nodes);
  numbering_release(&b->dofs);
  free(b->text);
  free(b->out);
  free(b->out_bytes);
  free(b->cells_in);
  free(b->cells_first);
  free(b->ids);
  free(b->part_groups);
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
 * else each one's count of items (*n, per rank): `extra` bytes, then n
 * items of item_bytes, checked against the message's size. */
static int read_in(const slab_build *b, int status, void **in, const size_t *in_bytes, size_t extra,
                   size_t item_bytes, int64_t *n) {
  for (int p = 0; p < b->size; p++) {
    int64_t head[2] = {1, 0};
    if (in[p] && in_bytes[p] >= HEAD) memcpy(head, in[p], sizeof head);
    n[p] = head[1];
    if (!status && head[0]) status = feint_dist_peer_failed(p);
    if (!status && (head[1] < 0 || in_bytes[p] < HEAD + extra ||
                    (size_t)head[1] > (in_bytes[p] - HEAD - extra) / item_bytes ||
                    in_bytes[p] != HEAD + extra + (size_t)head[1] * item_bytes))
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

/* Id i of a routed message's rows (int32 or int64) */
static inline int64_t id_at(const void *ids, int wide, int64_t i) {
  if (wide) return ((const int64_t *)ids)[i];
  return ((const int32_t *)ids)[i];
}

/* The owners' ranges of n ids among the ranks (even shares) */
static void numbering_start(numbering *nm, int64_t n, int size) {
  for (int q = 0; q <= size; q++) nm->start[q] = q == size ? n : feint_dist_row_start(n, 1, size, q);
}

/* What the build keeps of the slab: the whole's description (its texts
 * copied), the coordinates of this rank's nodes and dofs (3 doubles an
 * id) */
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
  b->nb = s->nb;
  b->ng = s->ng;
  b->dofs_are_nodes = s->dofs == NULL;
  /* int32 where they fit (the plan's rule and test hook) */
  b->wide = s->whole_nodes > feint_plan_narrow_limit() || w->n_scalar_dofs > feint_plan_narrow_limit();
  numbering_start(&b->nodes, s->whole_nodes, b->size);
  numbering_start(&b->dofs, w->n_scalar_dofs, b->size);
  b->nodes.own0 = s->node0;
  b->nodes.n_own = s->n_nodes;
  FEINT_CALL(part_interleave(s->x, s->y, s->z, s->n_nodes, &b->nodes.own));
  if (b->dofs_are_nodes) return FEINT_OK;
  b->dofs.own0 = s->dof0;
  b->dofs.n_own = s->n_dofs;
  FEINT_CALL(feint_malloc((size_t)s->n_dofs * 3 + 1, sizeof *b->dofs.own, &b->dofs.own, "a part's build"));
  memcpy(b->dofs.own, s->dof_xyz, (size_t)s->n_dofs * 24);
  return FEINT_OK;
}

/* A routed message's arrays for its n cells, in this order: whole cell
 * numbers (int64), geometry nodes (ng x 3 doubles), nodes (nv ids), dofs
 * (nb ids, unless they are the nodes), groups (int32) */
typedef struct {
  int64_t *ids;
  double *geometry;
  char *nodes, *dofs;
  int32_t *groups;
} routed;

static size_t id_bytes(const slab_build *b) { return b->wide ? 8 : 4; }

static size_t cell_bytes(const slab_build *b) {
  return 8 + (size_t)b->ng * 24 + (size_t)b->nv * id_bytes(b) +
         (b->dofs_are_nodes ? 0 : (size_t)b->nb * id_bytes(b)) + 4;
}

static routed routed_at(const slab_build *b, char *body, int64_t n) {
  routed r;
  r.ids = (int64_t *)(void *)body;
  r.geometry = (double *)(void *)(body + (size_t)n * 8);
  r.nodes = body + (size_t)n * (8 + (size_t)b->ng * 24);
  r.dofs = r.nodes + (size_t)n * (size_t)b->nv * id_bytes(b);
  r.groups = (int32_t *)(void *)(r.dofs + (b->dofs_are_nodes ? 0 : (size_t)n * (size_t)b->nb * id_bytes(b)));
  return r;
}

static routed routed_from(const slab_build *b, int p) {
  return routed_at(b, (char *)b->cells_in[p] + HEAD, b->cells_first[p + 1] - b->cells_first[p]);
}

static void put_ids(char *to, const int64_t *from, int n, int wide) {
  if (wide) {
    memcpy(to, from, (size_t)n * 8);
    return;
  }
  int32_t *t = (int32_t *)(void *)to;
  for (int v = 0; v < n; v++) t[v] = (int32_t)from[v];
}

/* 1. route: each cell of the slab to every rank whose rows it touches (or
 * to its part), counted per range of cells, then written at each range's
 * place */
typedef struct {
  const slab_build *b;
  const feint_dist_slab *s;
  int64_t *count;          /* ranges x size: cells range t sends rank q, then where they go */
  routed *to;              /* size: each message's arrays; NULL: counting */
  int bad;                 /* an id out of the whole's range, or a part out of the ranks' */
} route_job;

/* A range's counters kept on its own stack while it runs: the ranges'
 * counters lie side by side, a few ranges to a cache line, and counting
 * in place cost 50 ms of 12M cells' 16 threads (2 H200 ranks) */
enum { ROUTE_LOCAL_RANKS = 64 };

static void route_cells(route_job *j, int64_t a, int64_t c1, int64_t *count);

static void route_range(int64_t a, int64_t c1, int t, void *arg) {
  route_job *j = arg;
  const int size = j->b->size;
  int64_t *shared = j->count + (size_t)t * (size_t)size, local[ROUTE_LOCAL_RANKS];
  if (size > ROUTE_LOCAL_RANKS) {
    route_cells(j, a, c1, shared);
    return;
  }
  memcpy(local, shared, (size_t)size * sizeof *local);
  route_cells(j, a, c1, local);
  memcpy(shared, local, (size_t)size * sizeof *local);
}

static void route_cells(route_job *j, int64_t a, int64_t c1, int64_t *count) {
  const feint_dist_slab *s = j->s;
  const slab_build *b = j->b;
  const int size = b->size, nv = s->nv, nb = s->nb;
  for (int64_t i = a; i < c1; i++) {
    const int64_t *nodes = s->cells + i * nv, *dofs = s->dofs ? s->dofs + i * nb : nodes;
    const int width = s->dofs ? nb : nv;
    int first, last;
    if (!j->to) {
      for (int v = 0; v < nv; v++)
        if (nodes[v] < -1 || nodes[v] >= s->whole_nodes) {
          __atomic_store_n(&j->bad, 1, __ATOMIC_RELAXED);
          return;
        }
      for (int v = 0; s->dofs && v < nb; v++)
        if (dofs[v] < -1 || dofs[v] >= s->whole.n_scalar_dofs) {
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
    } else if (!feint_dist_cell_owners(dofs, width, b->dofs.start, size, &first, &last)) {
      continue;
    }
    for (int q = first; q <= last; q++) {
      if (q != first && q != last && !feint_dist_touches(dofs, width, b->dofs.start[q], b->dofs.start[q + 1]))
        continue;
      if (!j->to) {
        count[q]++;
        continue;
      }
      const int64_t k = count[q]++;
      const routed *r = &j->to[q];
      r->ids[k] = s->cell0 + i;
      if (s->ng) memcpy(r->geometry + k * s->ng * 3, s->geometry + i * s->ng * 3, (size_t)s->ng * 24);
      put_ids(r->nodes + (size_t)k * nv * id_bytes(b), nodes, nv, b->wide);
      if (s->dofs) put_ids(r->dofs + (size_t)k * nb * id_bytes(b), dofs, nb, b->wide);
      r->groups[k] = s->groups ? s->groups[i] : -1;
    }
  }
}

int slab_route(slab_build *b, const feint_dist_slab *s, int status) {
  const int size = b->size;
  if (!status) status = keep_slab(b, s);
  if (status) return fail_all(b, status);
  feint_dist_timeline("build: slab kept");
  const int ranges = feint_parallel_ranges(s->n_cells, GRAIN);
  route_job j = {b, s, NULL, NULL, 0};
  routed *to = NULL;
  status = feint_calloc((size_t)ranges * (size_t)size + 1, sizeof *j.count, &j.count, "the cells' owners");
  if (!status) status = feint_calloc((size_t)size, sizeof *to, &to, "the cells' owners");
  if (!status) feint_parallel_for_indexed(s->n_cells, GRAIN, route_range, &j); /* counting */
  feint_dist_timeline("build: cells counted");
  if (!status && j.bad)
    status = feint_error_set(FEINT_ERR_COMPUTE,
                             "internal: a slab's cell refers to a node or dof past the mesh's, or a part past %d ranks",
                             size);
  for (int q = 0; q < size && !status; q++) { /* each range's first slot in each message */
    int64_t n = 0;
    for (int t = 0; t < ranges; t++) {
      const int64_t c = j.count[(size_t)t * (size_t)size + q];
      j.count[(size_t)t * (size_t)size + q] = n;
      n += c;
    }
    char *at = NULL;
    status = message(b, q, 0, n, (size_t)n * cell_bytes(b), &at);
    if (!status) to[q] = routed_at(b, at, n);
  }
  j.to = to;
  feint_dist_timeline("build: messages made");
  if (!status) feint_parallel_for_indexed(s->n_cells, GRAIN, route_range, &j);
  free(j.count);
  free(to);
  return status ? fail_all(b, status) : FEINT_OK;
}

/* 2. the part: its cells in whole order (the ranks' slabs ascend), their
 * nodes and dofs numbered, and the ones other ranks own asked of them */
typedef struct {
  const void *ids; /* a message's cells' ids */
  int width, wide;
  int64_t lo, *map;
  int64_t *least, *most; /* per range (the bounds pass) */
} ids_job;

static void bounds_range(int64_t a, int64_t e, int t, void *arg) {
  ids_job *j = arg;
  int64_t least = INT64_MAX, most = -1;
  for (int64_t i = a * j->width; i < e * j->width; i++) {
    const int64_t g = id_at(j->ids, j->wide, i);
    if (g < 0) continue;
    least = g < least ? g : least;
    most = g > most ? g : most;
  }
  j->least[t] = least;
  j->most[t] = most;
}

static void unmark_range(int64_t a, int64_t e, void *arg) {
  const ids_job *j = arg;
  for (int64_t i = a; i < e; i++) j->map[i] = -1;
}

static void mark_range(int64_t a, int64_t e, void *arg) {
  const ids_job *j = arg;
  for (int64_t i = a * j->width; i < e * j->width; i++) {
    const int64_t g = id_at(j->ids, j->wide, i);
    if (g >= 0) __atomic_store_n(&j->map[g - j->lo], 0, __ATOMIC_RELAXED);
  }
}

/* The part's ids of one kind (nodes: 0, dofs: 1), numbered in whole order */
static int number_part(slab_build *b, int dofs, numbering *nm) {
  const int width = dofs ? b->nb : b->nv;
  int64_t least = INT64_MAX, most = -1;
  for (int p = 0; p < b->size; p++) {
    const routed r = routed_from(b, p);
    int64_t lows[FEINT_PARALLEL_MAX_RANGES], highs[FEINT_PARALLEL_MAX_RANGES];
    for (int t = 0; t < FEINT_PARALLEL_MAX_RANGES; t++) lows[t] = INT64_MAX, highs[t] = -1; /* ranges left empty */
    ids_job j = {dofs ? r.dofs : r.nodes, width, b->wide, 0, NULL, lows, highs};
    const int ranges = feint_parallel_for_indexed(b->cells_first[p + 1] - b->cells_first[p], GRAIN, bounds_range, &j);
    for (int t = 0; t < ranges; t++) {
      least = lows[t] < least ? lows[t] : least;
      most = highs[t] > most ? highs[t] : most;
    }
  }
  if (most < 0) return feint_error_set(FEINT_ERR_COMPUTE, "internal: a part's cells have no %s", dofs ? "dofs" : "nodes");
  /* over the range they span: a layer past the rank's own where the ids follow space */
  nm->lo = least;
  nm->n_range = most - least + 1;
  FEINT_CALL(feint_malloc((size_t)nm->n_range, sizeof *nm->map, &nm->map, "a part's nodes"));
  ids_job j = {NULL, width, b->wide, nm->lo, nm->map, NULL, NULL};
  feint_parallel_for(nm->n_range, 1 << 16, unmark_range, &j);
  for (int p = 0; p < b->size; p++) {
    const routed r = routed_from(b, p);
    j.ids = dofs ? r.dofs : r.nodes;
    feint_parallel_for(b->cells_first[p + 1] - b->cells_first[p], GRAIN, mark_range, &j);
  }
  FEINT_CALL(part_number_marked(nm->map, nm->n_range, nm->lo, &nm->list, &nm->n_list, "a part's nodes"));
  for (int q = 0; q <= b->size; q++) nm->list_start[q] = feint_dist_lower_bound(nm->list, nm->n_list, nm->start[q]);
  return FEINT_OK;
}

/* The cells' whole numbers and groups, in whole order (each sender's
 * ascend, and the senders' slabs do), on every core: one core faulting
 * the fresh pages ran at 1.2-1.9 GB/s, the longest step of the part's
 * numbering at 12M cells a rank (large ones are in huge pages too). */
typedef struct {
  const int64_t *ids;
  const int32_t *groups;
  int64_t *ids_to;
  int32_t *groups_to;
  atomic_int disordered;
} copy_job;

static void copy_range(int64_t a, int64_t e, void *arg) {
  copy_job *j = arg;
  memcpy(j->ids_to + a, j->ids + a, (size_t)(e - a) * 8);
  memcpy(j->groups_to + a, j->groups + a, (size_t)(e - a) * 4);
  for (int64_t i = a > 0 ? a : 1; i < e; i++)
    if (j->ids[i] <= j->ids[i - 1]) atomic_store_explicit(&j->disordered, 1, memory_order_relaxed);
}

static int copy_part_cells(slab_build *b) {
  FEINT_CALL(feint_malloc((size_t)b->n_part, sizeof *b->ids, &b->ids, "a part's cells"));
  FEINT_CALL(feint_malloc((size_t)b->n_part, sizeof *b->part_groups, &b->part_groups, "a part's cells"));
  int disordered = 0;
  for (int p = 0; p < b->size; p++) {
    const int64_t k = b->cells_first[p], m = b->cells_first[p + 1] - k;
    const routed r = routed_from(b, p);
    copy_job j = {r.ids, r.groups, b->ids + k, b->part_groups + k, 0};
    feint_parallel_for(m, GRAIN, copy_range, &j);
    disordered |= atomic_load(&j.disordered) || (k > 0 && m > 0 && b->ids[k] <= b->ids[k - 1]);
  }
  if (disordered) return feint_error_set(FEINT_ERR_COMPUTE, "internal: a part's cells arrive out of order");
  return FEINT_OK;
}

/* What rank q is asked of one numbering: its ids the part uses (none of this rank's own) */
static int64_t asked_of(const slab_build *b, const numbering *nm, int q) {
  return q == b->rank ? 0 : nm->list_start[q + 1] - nm->list_start[q];
}

int slab_request(slab_build *b, int status, void **in, size_t *in_bytes) {
  const int size = b->size;
  int64_t *n = NULL;
  if (feint_calloc((size_t)size, sizeof *n, &n, "a part's build")) {
    free_in(size, in);
    return fail_all(b, FEINT_ERR_COMPUTE);
  }
  status = read_in(b, status, in, in_bytes, 0, cell_bytes(b), n);
  for (int p = 0; p < size; p++) { /* kept: their ids are read again when the part is written */
    b->cells_in[p] = in[p];
    in[p] = NULL;
    b->cells_first[p + 1] = b->cells_first[p] + (status ? 0 : n[p]);
  }
  free(n);
  b->n_part = b->cells_first[size];
  if (!status && b->n_part == 0)
    status = feint_error_set(FEINT_ERR_INPUT, "%s: the partition left rank %d without cells (run on fewer ranks)",
                             b->whole.path, b->rank);
  if (!status) status = copy_part_cells(b);
  feint_dist_timeline("build: cells copied");
  if (!status) status = number_part(b, 0, &b->nodes);
  if (!status && !b->dofs_are_nodes) status = number_part(b, 1, &b->dofs);
  if (status) return fail_all(b, status);
  /* to each owner: how many of its nodes are asked, those nodes, then its dofs */
  for (int q = 0; q < size && !status; q++) {
    const int64_t n_nodes = asked_of(b, &b->nodes, q), n_dofs = b->dofs_are_nodes ? 0 : asked_of(b, &b->dofs, q);
    char *at = NULL;
    status = message(b, q, 0, n_nodes + n_dofs, 8 + (size_t)(n_nodes + n_dofs) * 8, &at);
    if (status) break;
    memcpy(at, &n_nodes, 8);
    memcpy(at + 8, b->nodes.list + b->nodes.list_start[q], (size_t)n_nodes * 8);
    if (n_dofs) memcpy(at + 8 + (size_t)n_nodes * 8, b->dofs.list + b->dofs.list_start[q], (size_t)n_dofs * 8);
  }
  return status ? fail_all(b, status) : FEINT_OK;
}

/* 3. the coordinates of this rank's nodes and dofs that the others asked for */
static int answer(const numbering *nm, const int64_t *asked, int64_t n, double *xyz, int p, int rank,
                  const char *what) {
  for (int64_t i = 0; i < n; i++) {
    const int64_t v = asked[i] - nm->own0;
    if (v < 0 || v >= nm->n_own)
      return feint_error_set(FEINT_ERR_COMPUTE, "internal: rank %d asked rank %d for %s %lld, not its own", p, rank,
                             what, (long long)asked[i]);
    memcpy(xyz + 3 * i, nm->own + 3 * v, 24);
  }
  return FEINT_OK;
}

int slab_answer(slab_build *b, int status, void **in, size_t *in_bytes) {
  const int size = b->size;
  int64_t *n = NULL;
  if (feint_calloc((size_t)size, sizeof *n, &n, "a part's build")) {
    free_in(size, in);
    return fail_all(b, FEINT_ERR_COMPUTE);
  }
  status = read_in(b, status, in, in_bytes, 8, 8, n);
  for (int p = 0; p < size && !status; p++) {
    const char *body = (const char *)in[p] + HEAD;
    int64_t n_nodes = 0;
    memcpy(&n_nodes, body, 8);
    if (n_nodes < 0 || n_nodes > n[p] || (b->dofs_are_nodes && n_nodes != n[p])) {
      status = feint_error_set(FEINT_ERR_COMPUTE, "internal: rank %d's request is malformed", p);
      break;
    }
    const int64_t *asked = (const int64_t *)(const void *)(body + 8);
    char *at = NULL;
    status = message(b, p, 0, n[p], 8 + (size_t)n[p] * 24, &at);
    if (status) break;
    memcpy(at, &n_nodes, 8);
    double *xyz = (double *)(void *)(at + 8);
    status = answer(&b->nodes, asked, n_nodes, xyz, p, b->rank, "node");
    if (!status) status = answer(&b->dofs, asked + n_nodes, n[p] - n_nodes, xyz + 3 * n_nodes, p, b->rank, "dof");
  }
  free(n);
  free_in(size, in);
  return status ? fail_all(b, status) : FEINT_OK;
}

/* 4. the part's mesh and space, as feint_dist_part_unpack makes them from rank 0's packing */
typedef struct {
  const void *ids;
  const int64_t *map;
  int64_t lo;
  int width, width_out, wide;
  int64_t *at; /* the part's rows of this rank's routed cells */
} remap_job;

static void remap_range(int64_t a, int64_t e, void *arg) {
  const remap_job *j = arg;
  for (int64_t i = a; i < e; i++)
    for (int v = 0; v < j->width_out; v++) {
      const int64_t g = id_at(j->ids, j->wide, i * j->width + v);
      j->at[i * j->width_out + v] = g < 0 ? -1 : j->map[g - j->lo];
    }
}

/* The cells' rows of one kind (nodes: 0, dofs: 1) in local numbers, width_out wide */
static int part_rows(const slab_build *b, int dofs, int width_out, int64_t **out) {
  const numbering *nm = dofs ? &b->dofs : &b->nodes;
  FEINT_CALL(feint_malloc((size_t)b->n_part * (size_t)width_out + 1, sizeof **out, out, "a part's cells"));
  for (int p = 0; p < b->size; p++) {
    const routed r = routed_from(b, p);
    remap_job j = {dofs ? r.dofs : r.nodes, nm->map, nm->lo, dofs ? b->nb : b->nv, width_out, b->wide,
                   *out + b->cells_first[p] * width_out};
    feint_parallel_for(b->cells_first[p + 1] - b->cells_first[p], GRAIN, remap_range, &j);
  }
  return FEINT_OK;
}

/* The coordinates of the part's ids of one kind, from this rank's own and the owners' answers (xyz[q]: rank q's
 * answer for this kind, 3 doubles an id): per axis (axes[a], nodes) or interleaved (axes[0], dofs) */
typedef struct {
  const slab_build *b;
  const numbering *nm;
  const double *from; /* this owner's (q) answer, or this rank's own coordinates */
  int64_t k0, own;    /* the owner's first id in the list; own: 1 where q is this rank */
  double *const *axes;
  int interleaved;
} gather_job;

static void gather_range(int64_t a, int64_t e, void *arg) {
  const gather_job *j = arg;
  for (int64_t k = j->k0 + a; k < j->k0 + e; k++) {
    const double *c = j->own ? j->from + 3 * (j->nm->list[k] - j->nm->own0) : j->from + 3 * (k - j->k0);
    if (j->interleaved) {
      memcpy(j->axes[0] + 3 * k, c, 24);
      continue;
    }
    for (int x = 0; x < 3; x++) j->axes[x][k] = c[x];
  }
}

static void gather_coordinates(const slab_build *b, const numbering *nm, const double *const *xyz,
                               double *const *axes, int interleaved) {
  for (int q = 0; q < b->size; q++) {
    const int64_t k0 = nm->list_start[q], k1 = nm->list_start[q + 1];
    gather_job j = {b, nm, q == b->rank ? nm->own : xyz[q], k0, q == b->rank, axes, interleaved};
    feint_parallel_for(k1 - k0, GRAIN, gather_range, &j);
  }
}

/* Every rank's answer (*node_xyz[q], *dof_xyz[q]: into in[q]) checked against what this rank asked of it */
static int read_answers(const slab_build *b, int status, void **in, const size_t *in_bytes, const double **node_xyz,
                        const double **dof_xyz) {
  int64_t *n = NULL;
  if (feint_calloc((size_t)b->size, sizeof *n, &n, "a part's build")) return FEINT_ERR_COMPUTE;
  status = read_in(b, status, in, in_bytes, 8, 24, n);
  for (int q = 0; q < b->size && !status; q++) {
    const char *body = (const char *)in[q] + HEAD;
    int64_t n_nodes = 0;
    memcpy(&n_nodes, body, 8);
    const int64_t want_nodes = asked_of(b, &b->nodes, q), want_dofs = b->dofs_are_nodes ? 0 : asked_of(b, &b->dofs, q);
    if (n_nodes != want_nodes || n[q] != want_nodes + want_dofs)
      status = feint_error_set(FEINT_ERR_COMPUTE, "internal: rank %d answered %lld coordinates, not %lld", q,
                               (long long)n[q], (long long)(want_nodes + want_dofs));
    node_xyz[q] = (const double *)(const void *)(body + 8);
    dof_xyz[q] = node_xyz[q] + 3 * n_nodes;
  }
  free(n);
  return status;
}

/* The mesh's arrays and the space's, gathered from the routed cells and the answers */
static int gather_part(slab_build *b, const double **node_xyz, const double **dof_xyz, feint_mesh **mesh,
                       feint_space **space) {
  const part_whole *w = &b->whole;
  int64_t in_block[FEINT_MESH_MAX_BLOCKS] = {0};
  for (int k = 0; k < w->n_blocks; k++)
    in_block[k] = feint_dist_lower_bound(b->ids, b->n_part, w->blocks[k].first_cell + w->blocks[k].n_cells) -
                  feint_dist_lower_bound(b->ids, b->n_part, w->blocks[k].first_cell);
  const part_shape ps = part_shape_of(w, in_block);
  const int dan = b->dofs_are_nodes;
  const int64_t n_cells = b->n_part, n_nodes = b->nodes.n_list, n_dofs = dan ? n_nodes : b->dofs.n_list;
  part_contents pc = {NULL, w->order, w->components, w->family, ps.nb, n_dofs, NULL, NULL,
                      w->n_cells, w->n_scalar_dofs, NULL, NULL};
  FEINT_CALL(part_mesh_head(w, &ps, n_nodes, n_cells, &pc.mesh));
  feint_mesh *m = pc.mesh;
  /* first what is read from the routed cells, which then go: they never sit beside the coordinates */
  int status = part_rows(b, 0, ps.nv, &m->cells);
  if (!status && b->ng) {
    m->n_geometry_nodes = b->ng;
    status = feint_malloc((size_t)n_cells * (size_t)b->ng * 3 + 1, sizeof(double), &m->geometry_nodes,
                          "a part's cell geometry");
    for (int p = 0; p < b->size && !status; p++)
      memcpy(m->geometry_nodes + b->cells_first[p] * b->ng * 3, routed_from(b, p).geometry,
             (size_t)(b->cells_first[p + 1] - b->cells_first[p]) * (size_t)b->ng * 24);
  }
  if (!status && !dan) status = part_rows(b, 1, ps.nb, &pc.sdofs);
  for (int p = 0; p < b->size; p++) {
    free(b->cells_in[p]);
    b->cells_in[p] = NULL;
  }
  if (!status) status = feint_malloc((size_t)n_nodes + 1, sizeof *m->x, &m->x, "a part's nodes");
  if (!status) status = feint_malloc((size_t)n_nodes + 1, sizeof *m->y, &m->y, "a part's nodes");
  if (!status) status = feint_malloc((size_t)n_nodes + 1, sizeof *m->z, &m->z, "a part's nodes");
  if (!status) gather_coordinates(b, &b->nodes, node_xyz, (double *const[3]){m->x, m->y, m->z}, 0);
  if (!status) { /* taken over: the build needs them no more */
    m->cell_group = b->part_groups;
    b->part_groups = NULL;
  }
  if (!status && b->ng) status = feint_mesh_classify_curved(m);
  if (!status && !dan) status = feint_malloc((size_t)n_dofs * 3 + 1, sizeof *pc.coordinates, &pc.coordinates,
                                             "a part's dof coordinates");
  if (!status && !dan) gather_coordinates(b, &b->dofs, dof_xyz, (double *const[1]){pc.coordinates}, 1);
  pc.whole_cell = b->ids;
  b->ids = NULL;
  numbering *listed = dan ? &b->nodes : &b->dofs;
  pc.whole_dof = listed->list;
  listed->list = NULL;
  if (status) {
    free(pc.sdofs);
    free(pc.coordinates);
    free(pc.whole_cell);
    free(pc.whole_dof);
    feint_mesh_destroy(m);
    return status;
  }
  return part_contents_make(&pc, mesh, space);
}

int slab_finish(slab_build *b, int status, void **in, size_t *in_bytes, feint_mesh **mesh, feint_space **space) {
  *mesh = NULL;
  *space = NULL;
  const double **node_xyz = NULL, **dof_xyz = NULL;
  if (feint_calloc((size_t)b->size, sizeof *node_xyz, &node_xyz, "a part's build") ||
      feint_calloc((size_t)b->size, sizeof *dof_xyz, &dof_xyz, "a part's build")) {
    free(node_xyz);
    free_in(b->size, in);
    return FEINT_ERR_COMPUTE;
  }
  status = read_answers(b, status, in, in_bytes, node_xyz, dof_xyz);
  if (!status) status = gather_part(b, node_xyz, dof_xyz, mesh, space);
  free(node_xyz);
  free(dof_xyz);
  free_in(b->size, in);
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
  feint_dist_slab none = {.nv = 1, .nb = 1}; /* a rank that failed before it had a slab */
  if (!s) {
    s = &none;
    if (!status) status = feint_error_set(FEINT_ERR_COMPUTE, "internal: a part's build without a slab");
  }
  if (!status && (s->size != size || s->rank != rank))
    status = feint_error_set(FEINT_ERR_COMPUTE, "internal: rank %d given rank %d's slab of %d", rank, s->rank, s->size);
  double t0 = seconds_now();
  feint_dist_timeline("build: start");
  pb->status = slab_route(pb->b, s, status);
  feint_dist_timeline("build: cells routed");
  const int carried = carry(pb->b, comm, pb->in, pb->in_bytes);
  feint_dist_timeline("build: cells carried");
  pb->seconds[0] = seconds_now() - t0;
  *out = pb;
  return carried ? carried : pb->status;
}

int feint_dist_part_build_finish(feint_dist_part_builder *pb, int status, feint_mesh **mesh, feint_space **space,
                                 double seconds[4]) {
  *mesh = NULL;
  *space = NULL;
  slab_build *b = pb->b;
  if (!status) status = pb->status;
  double t0 = seconds_now();
  feint_dist_timeline("build: finish");
  status = slab_request(b, status, pb->in, pb->in_bytes);
  feint_dist_timeline("build: nodes numbered");
  int carried = carry(b, pb->comm, pb->in, pb->in_bytes);
  feint_dist_timeline("build: nodes asked");
  pb->seconds[1] = seconds_now() - t0;
  t0 = seconds_now();
  if (!carried) status = slab_answer(b, status, pb->in, pb->in_bytes);
  feint_dist_timeline("build: answers made");
  if (!carried) carried = carry(b, pb->comm, pb->in, pb->in_bytes);
  feint_dist_timeline("build: coordinates carried");
  pb->seconds[2] = seconds_now() - t0;
  t0 = seconds_now();
  if (!carried) status = slab_finish(b, status, pb->in, pb->in_bytes, mesh, space);
  feint_dist_timeline("build: mesh and space");
  pb->seconds[3] = seconds_now() - t0;
  if (seconds) memcpy(seconds, pb->seconds, sizeof pb->seconds);
  builder_destroy(pb);
  return carried ? carried : status;
}
