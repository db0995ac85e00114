/* The mesh read in shares (feint_mesh_read_share, feint_dist_slab_of_share)
 * against the whole read by one process: P ranks (threads here, their
 * messages carried between them as feint_comm_exchange carries them under
 * mpirun) each read their share of a binary MSH 4.1 file and their range
 * of its nodes, number the nodes together (share_nodes_number, the
 * nodes' tag owners) and hold their rows' range of the coordinates; each
 * rank's slab is byte for byte the slab feint_dist_slab_create makes of
 * the whole for the rows partition (so the parts built from them are the
 * parts of today's build, t320): the same cells in the same whole
 * numbers, groups, nodes and coordinates. Every node's coordinates then
 * joined on every rank (share_all_nodes, for the curve and coefficients'
 * cell fields), and the share's P1 space refused without them.
 * On the rows partition and the Morton curve's (the share's slab given
 * its cells' parts). On tetrahedra, triangles, quadrilaterals, hexahedra, prisms, mixed 2D
 * and 3D meshes, two materials' groups, a region, Morton-reordered nodes
 * (every rank holds every node: the renumbering reads them),
 * a text MSH 4.1 file (parsed whole on every rank), more ranks than a
 * rank's cells; a node that only a facet uses (not P1 on every node,
 * said so); MSH 2, curved cells and .geo files left to the whole read;
 * rank 0's read (a share of every cell) the whole read's mesh, also when
 * another rank reads none (its file system lacks the file);
 * an element naming an undefined node in one rank's share: that rank
 * fails with its own message, every other with "rank p failed"; what only
 * a tag's owner finds (an undefined node below the largest tag, a node
 * defined twice) likewise from the owner; tags too sparse for the owners'
 * tables left to the whole read; a 2D mesh off its plane, said by every
 * rank. Needs gmsh (the command) to write the files. Run from the
 * repository root. */
#define _GNU_SOURCE /* memmem */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "dist/slab.h"
#include "feint/dist.h"
#include "feint/error.h"
#include "feint/morton.h"
#include "feint/mesh.h"
#include "feint/space.h"

enum { MAX_RANKS = 8 };

static char tmp[256];

/* The ranks' meeting place: each posts its messages to the others (box[from][to]), each takes its own. */
typedef struct {
  int size;
  pthread_barrier_t barrier;
  void *box[MAX_RANKS][MAX_RANKS];
  size_t bytes[MAX_RANKS][MAX_RANKS];
} world;

typedef struct {
  world *w;
  int rank;
  const char *path;
  feint_mesh_options opts;
  feint_mesh_share share;
  feint_mesh *mesh;
  int status;
  char error[512];
  int mode; /* SHARE, WHOLE (rank 0 under mpirun: every cell, read into memory), DECLINE (reads none) */
  int simplices_only;
} rank_run;
enum { SHARE, WHOLE, DECLINE };

static void whole_range(int64_t n, int size, int rank, int64_t *lo, int64_t *hi) {
  (void)size;
  (void)rank;
  *lo = 0;
  *hi = n;
}

/* feint_comm_exchange among threads: every rank's messages posted, then each takes those to it. */
static int thread_exchange(void *ctx, const feint_comm_message *out, void **in, size_t *in_bytes) {
  rank_run *r = ctx;
  world *w = r->w;
  for (int q = 0; q < w->size; q++) {
    if (q == r->rank) continue;
    size_t total = 0;
    for (int i = 0; i < out[q].n; i++) total += out[q].sizes[i];
    char *buf = malloc(total + 1);
    for (size_t i = 0, at = 0; (int)i < out[q].n; at += out[q].sizes[i], i++)
      if (out[q].sizes[i]) memcpy(buf + at, out[q].pieces[i], out[q].sizes[i]);
    w->box[r->rank][q] = buf;
    w->bytes[r->rank][q] = total;
  }
  pthread_barrier_wait(&w->barrier);
  for (int p = 0; p < w->size; p++) {
    in[p] = p == r->rank ? NULL : w->box[p][r->rank];
    in_bytes[p] = p == r->rank ? 0 : w->bytes[p][r->rank];
  }
  pthread_barrier_wait(&w->barrier); /* every rank has taken its messages before the next round's are posted */
  return FEINT_OK;
}

static int thread_nodes(void *ctx, int status, feint_mesh_share_nodes *job) {
  rank_run *r = ctx;
  return share_nodes_number(thread_exchange, r, r->rank, r->w->size, status, job);
}

static void *rank_main(void *arg) {
  rank_run *r = arg;
  r->share.rank = r->rank;
  r->share.size = r->w->size;
  r->share.range = feint_dist_rows_scalar_range;
  r->share.nodes = thread_nodes;
  r->share.ctx = r;
  r->share.simplices_only = r->simplices_only;
  if (r->mode == WHOLE) { /* as rank 0 under mpirun: every node's coordinates too */
    r->share.range = whole_range;
    r->share.eager = 1;
    r->share.all_nodes = 1;
  }
  if (r->mode == DECLINE) {
    r->status = thread_nodes(r, FEINT_OK, NULL) == FEINT_MESH_SHARE_DECLINED ? FEINT_OK : FEINT_ERR_COMPUTE;
    return NULL;
  }
  r->status = feint_mesh_read_share(r->path, &r->opts, &r->share, &r->mesh);
  if (r->status) snprintf(r->error, sizeof r->error, "%s", feint_error_message());
  return NULL;
}

/* Every rank's share read side by side: runs[k] (the caller destroys their meshes). */
static int simplices_only; /* read_shares_as's ranks: feint_mesh_share.simplices_only */

static void read_shares_as(const char *path, int size, int reorder, const int *modes, rank_run *runs) {
  world w = {.size = size};
  pthread_barrier_init(&w.barrier, NULL, (unsigned)size);
  pthread_t th[MAX_RANKS];
  for (int k = 0; k < size; k++) {
    runs[k] = (rank_run){.w = &w, .rank = k, .path = path, .mode = modes ? modes[k] : SHARE,
                         .simplices_only = simplices_only};
    runs[k].opts.reorder = reorder;
    pthread_create(&th[k], NULL, rank_main, &runs[k]);
  }
  for (int k = 0; k < size; k++) pthread_join(th[k], NULL);
  pthread_barrier_destroy(&w.barrier);
}

static void read_shares(const char *path, int size, int reorder, rank_run *runs) {
  read_shares_as(path, size, reorder, NULL, runs);
}

static void *rank_all_nodes(void *arg) {
  rank_run *r = arg;
  r->status = share_all_nodes(thread_exchange, r, r->rank, r->w->size, FEINT_OK, r->mesh, &r->share);
  if (r->status) snprintf(r->error, sizeof r->error, "%s", feint_error_message());
  return NULL;
}

typedef struct {
  rank_run *run;
  feint_dist_nodes *nodes;
} cell_nodes_run;

static void *rank_cell_nodes(void *arg) {
  cell_nodes_run *c = arg;
  rank_run *r = c->run;
  r->status = share_cell_nodes(thread_exchange, r, r->rank, r->w->size, FEINT_OK, r->mesh, &r->share, c->nodes);
  if (r->status) snprintf(r->error, sizeof r->error, "%s", feint_error_message());
  return NULL;
}

/* The nodes every rank's cells use (feint_dist_share_cell_nodes), side by side: nodes[k] (released by the caller). */
static void cell_nodes_on_shares(int size, rank_run *runs, feint_dist_nodes *nodes) {
  world w = {.size = size};
  pthread_barrier_init(&w.barrier, NULL, (unsigned)size);
  pthread_t th[MAX_RANKS];
  cell_nodes_run c[MAX_RANKS];
  for (int k = 0; k < size; k++) {
    runs[k].w = &w;
    c[k] = (cell_nodes_run){&runs[k], &nodes[k]};
    pthread_create(&th[k], NULL, rank_cell_nodes, &c[k]);
  }
  for (int k = 0; k < size; k++) pthread_join(th[k], NULL);
  pthread_barrier_destroy(&w.barrier);
}

/* Every rank's share made to hold every node (feint_dist_share_all_nodes), side by side. */
static void all_nodes_on_shares(int size, rank_run *runs) {
  world w = {.size = size};
  pthread_barrier_init(&w.barrier, NULL, (unsigned)size);
  pthread_t th[MAX_RANKS];
  for (int k = 0; k < size; k++) {
    runs[k].w = &w;
    pthread_create(&th[k], NULL, rank_all_nodes, &runs[k]);
  }
  for (int k = 0; k < size; k++) pthread_join(th[k], NULL);
  pthread_barrier_destroy(&w.barrier);
}

/* 1 when a and b are the same mesh: cells, groups, nodes, facets, blocks, type counts. */
static int same_mesh(const feint_mesh *a, const feint_mesh *b) {
  int same = a->n_cells == b->n_cells && a->nv == b->nv && a->n_nodes == b->n_nodes && a->n_groups == b->n_groups &&
             a->n_blocks == b->n_blocks && a->nv_facet == b->nv_facet && a->n_type_counts == b->n_type_counts;
  same = same && !memcmp(a->cells, b->cells, (size_t)(a->n_cells * a->nv) * 8) &&
         !memcmp(a->cell_group, b->cell_group, (size_t)a->n_cells * sizeof *a->cell_group) &&
         !memcmp(a->x, b->x, (size_t)a->n_nodes * 8) && !memcmp(a->y, b->y, (size_t)a->n_nodes * 8) &&
         !memcmp(a->z, b->z, (size_t)a->n_nodes * 8) && !memcmp(a->blocks, b->blocks, sizeof a->blocks) &&
         !memcmp(a->facet_offsets, b->facet_offsets, (size_t)(a->n_groups + 1) * 8) &&
         !memcmp(a->facets, b->facets, (size_t)(a->facet_offsets[a->n_groups] * a->nv_facet) * 8) &&
         !memcmp(a->type_counts, b->type_counts, (size_t)a->n_type_counts * 8);
  for (int g = 0; same && g < a->n_groups; g++)
    same = a->groups[g].dim == b->groups[g].dim && a->groups[g].tag == b->groups[g].tag &&
           a->groups[g].n_elements == b->groups[g].n_elements && !strcmp(a->groups[g].name, b->groups[g].name);
  return same;
}

/* Rank 0's read under mpirun (a share of every cell, read into memory)
 * beside the others', three ways: every rank reading its share; rank 1
 * reading none (its file system lacks the file); and (not_simplices)
 * with simplices_only, cells whose P1 slabs would not serve, which no
 * other rank reads. Rank 0 has the whole read's mesh each time, declined
 * where another rank read none; the others have their shares, or none
 * (unsuited), without an error. */
static void check_rank0(const char *path, int size, int not_simplices) {
  if (!path) return;
  feint_mesh *m = NULL;
  CHECK_OK(feint_mesh_read(path, &(feint_mesh_options){0}, &m));
  if (!m) return;
  int modes[MAX_RANKS] = {WHOLE};
  rank_run runs[MAX_RANKS];
  enum { ALL_READ, ONE_DECLINES, NOT_SIMPLICES };
  for (int way = not_simplices ? NOT_SIMPLICES : ALL_READ; way <= (not_simplices ? NOT_SIMPLICES : ONE_DECLINES);
       way++) {
    modes[1] = way == ONE_DECLINES ? DECLINE : SHARE;
    simplices_only = way == NOT_SIMPLICES;
    read_shares_as(path, size, 0, modes, runs);
    simplices_only = 0;
    const int declined = way != ALL_READ;
    CHECK(runs[0].status == FEINT_OK && runs[0].mesh && same_mesh(runs[0].mesh, m) &&
              runs[0].share.declined == declined,
          "%s: rank 0's share of every cell is the whole read's mesh (%s)%s", path, runs[0].error,
          declined ? ", the others declining" : "");
    for (int k = 1; k < size; k++) {
      if (way == ONE_DECLINES && k == 1) continue;
      const char *why = runs[k].share.unsuited;
      CHECK(runs[k].status == FEINT_OK &&
                (declined ? !runs[k].mesh && why &&
                                (way != NOT_SIMPLICES || strstr(why, "triangles or tetrahedra"))
                          : runs[k].mesh != NULL),
            "%s, rank %d: %s (%s)", path, k, declined ? "no share, no error, where a rank declined" : "its share",
            runs[k].error);
    }
    for (int k = 0; k < size; k++) feint_mesh_destroy(runs[k].mesh);
  }
  feint_mesh_destroy(m);
  printf("%s: rank 0's share of every cell is the whole read's mesh, %s\n", path,
         not_simplices ? "the others reading none of cells whose slabs would not serve" : "a rank declining or not");
}

/* A slab's message, its pieces back to back (the caller frees). */
static char *slab_bytes(const feint_dist_slab *slab, size_t *total) {
  feint_comm_message msg;
  void *head = NULL;
  *total = 0;
  if (feint_dist_slab_message(slab, &msg, &head)) return NULL;
  for (int i = 0; i < msg.n; i++) *total += msg.sizes[i];
  char *buf = malloc(*total + 1);
  for (size_t i = 0, at = 0; (int)i < msg.n; at += msg.sizes[i], i++)
    if (msg.sizes[i]) memcpy(buf + at, msg.pieces[i], msg.sizes[i]);
  free(head);
  return buf;
}

/* path (a .geo) written by gmsh as MSH 4.1 (binary unless text) into tmp; its name. */
static const char *write_msh(const char *geo, int dim, int text, char *out, size_t size) {
  const char *base = strrchr(geo, '/') ? strrchr(geo, '/') + 1 : geo;
  snprintf(out, size, "%s/%s%s.msh", tmp, base, text ? "-text" : "");
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "gmsh -%d '%s' -format %s %s -o '%s' >/dev/null 2>&1", dim, geo, text ? "msh41" : "msh41",
           text ? "" : "-bin", out);
  if (system(cmd) != 0) {
    CHECK(0, "gmsh failed: %s", cmd);
    return NULL;
  }
  return out;
}

/* The shares of path on `size` ranks against the whole: slabs byte for
 * byte, on the rows partition or (curve) the Morton curve's partition of
 * the cells, whose parts a share's slab is given. */
/* Share k's cells for the whole gathered on rank 0 (feint_dist_whole_of_shares), from the ranks' runs */
static int run_piece(void *ctx, int k, const int64_t **cells, const int **groups, int64_t *n) {
  const rank_run *runs = ctx;
  if (!runs[k].mesh) return feint_error_set(FEINT_ERR_COMPUTE, "rank %d read no share", k);
  *cells = runs[k].mesh->cells;
  *groups = runs[k].mesh->cell_group;
  *n = runs[k].mesh->n_cells;
  return FEINT_OK;
}

/* The Morton curve's partition made on the shares (each counting its cells' boxes, each placing its own cells from
 * every share's counts) is the whole's, cell for cell, and every share's curve is the whole's. */
static void check_curve_on_shares(const char *path, const feint_mesh *m, int size, const rank_run *runs,
                                  const feint_dist_nodes *nodes) {
  int *whole = malloc((size_t)m->n_cells * sizeof *whole + 1);
  feint_dist_curve wc;
  { /* past 2^31 cells in all: the boxes stop at 2^(dim 10), int32 keys; a rank's own cells past 2^31 are refused */
    feint_dist_curve big;
    CHECK_OK(feint_dist_curve_create(m, (int64_t)1 << 33, &big));
    CHECK(big.bits == FEINT_MORTON_MAX_BITS && big.n_boxes == (int64_t)1 << (m->dim * FEINT_MORTON_MAX_BITS),
          "%s: 2^33 cells' curve: %d bits, %lld boxes", path, big.bits, (long long)big.n_boxes);
    feint_mesh past = *m;
    past.n_cells = INT32_MAX;
    int32_t *keys = NULL;
    CHECK(feint_dist_curve_count(&big, &past, NULL, &keys, NULL) == FEINT_ERR_INPUT && !keys &&
              strstr(feint_error_message(), "past 2^31"),
          "%s: a rank's 2^31 cells refused: %s", path, feint_error_message());
    feint_error_clear();
  }
  CHECK_OK(feint_dist_curve_create(m, m->n_cells, &wc));
  CHECK_OK(feint_dist_partition_curve(m, size, whole));
  { /* the whole's partition against a plain counting sort of the cells by box (ties in cell order) */
    int32_t *keys = NULL, *counts = malloc((size_t)wc.n_boxes * sizeof *counts);
    int64_t *first = calloc((size_t)wc.n_boxes + 1, sizeof *first);
    CHECK_OK(feint_dist_curve_count(&wc, m, NULL, &keys, counts));
    for (int64_t k = 0; k < wc.n_boxes; k++) first[k + 1] = first[k] + counts[k];
    int same = 1;
    for (int64_t c = 0; c < m->n_cells; c++) same = same && whole[c] == (int)(first[keys[c]]++ * size / m->n_cells);
    CHECK(same, "%s: the curve's parts are those of the cells sorted by box into %d equal parts", path, size);
    free(keys);
    free(counts);
    free(first);
  }
  int32_t *keys[MAX_RANKS] = {0}, *counts[MAX_RANKS] = {0};
  for (int k = 0; k < size; k++) {
    feint_dist_curve c;
    if (!runs[k].mesh) continue;
    feint_dist_curve_of_extent(runs[k].mesh->dim, runs[k].share.whole_cells, nodes[k].lo, nodes[k].hi, &c);
    CHECK(!memcmp(&c, &wc, sizeof c), "%s, rank %d: the share's curve is the whole's", path, k);
    counts[k] = malloc((size_t)c.n_boxes * sizeof *counts[k]);
    CHECK_OK(feint_dist_curve_count(&c, runs[k].mesh, &nodes[k], &keys[k], counts[k]));
  }
  int same = 1;
  for (int k = 0; k < size && runs[k].mesh; k++) {
    const int64_t nc = runs[k].mesh->n_cells;
    int *part = malloc((size_t)nc * sizeof *part + 1);
    CHECK_OK(feint_dist_curve_parts(&wc, keys[k], nc, (const int32_t *const *)counts, k, size, size, part));
    same = same && !memcmp(part, whole + runs[k].share.cell0, (size_t)nc * sizeof *part);
    free(part);
  }
  CHECK(same, "%s on %d ranks: the curve's parts made on the shares are the whole's", path, size);
  for (int k = 0; k < size; k++) {
    free(keys[k]);
    free(counts[k]);
  }
  free(whole);
}

/* Whether cell row `cell` (nv nodes) holds every node of the facet (nvf nodes). */
static int holds_facet(const int64_t *cell, int nv, const int64_t *facet, int nvf) {
  int found = 0;
  for (int a = 0; a < nvf; a++)
    for (int v = 0; v < nv; v++) found += cell[v] == facet[a];
  return found == nvf;
}

/* The cells that may hold the facet groups' facets, gathered from the shares in rank order: each facet's first
 * holder among them is its lowest-numbered cell of the whole (which orients a flux's normal). */
static void check_holders(const char *path, const feint_mesh *m, int size, const rank_run *runs) {
  if (m->n_blocks != 1 || !feint_cell_is_simplex(m->cell_type)) return;
  int groups[64], n_groups = 0;
  for (int g = 0; g < m->n_groups && n_groups < 64; g++)
    if (m->facet_offsets[g + 1] > m->facet_offsets[g]) groups[n_groups++] = g;
  int64_t *all = NULL, n_all = 0;
  for (int k = 0; k < size; k++) {
    int64_t *rows = NULL, n = 0;
    if (!runs[k].mesh) continue;
    CHECK_OK(feint_mesh_facet_cells(runs[k].mesh, groups, n_groups, &rows, &n));
    all = realloc(all, (size_t)((n_all + n) * m->nv + 1) * sizeof *all);
    memcpy(all + n_all * m->nv, rows, (size_t)(n * m->nv) * sizeof *rows);
    n_all += n;
    free(rows);
  }
  int64_t facets = 0, wrong = 0;
  for (int k = 0; k < n_groups; k++)
    for (int64_t f = m->facet_offsets[groups[k]]; f < m->facet_offsets[groups[k] + 1]; f++) {
      const int64_t *facet = m->facets + f * m->nv_facet;
      int64_t whole = -1, gathered = -1;
      for (int64_t c = 0; c < m->n_cells && whole < 0; c++)
        if (holds_facet(m->cells + c * m->nv, m->nv, facet, m->nv_facet)) whole = c;
      for (int64_t c = 0; c < n_all && gathered < 0; c++)
        if (holds_facet(all + c * m->nv, m->nv, facet, m->nv_facet)) gathered = c;
      facets += whole >= 0;
      wrong += whole >= 0 && (gathered < 0 || memcmp(m->cells + whole * m->nv, all + gathered * m->nv,
                                                    (size_t)m->nv * sizeof *all));
    }
  CHECK(wrong == 0 && facets > 0, "%s on %d ranks: the facets' first cells gathered from the shares are the whole's "
        "(%lld of %lld facets wrong, %lld cells gathered)", path, size, (long long)wrong, (long long)facets,
        (long long)n_all);
  free(all);
}

static void check_shares(const char *path, int components, int size, int reorder, int curve) {
  if (!path) return;
  feint_mesh_options o = {0};
  o.reorder = reorder;
  feint_mesh *m = NULL;
  feint_space *s = NULL;
  CHECK_OK(feint_mesh_read(path, &o, &m));
  if (!m) return;
  CHECK_OK(feint_space_create(m, 1, components, &s));
  int *part = NULL;
  if (curve) {
    part = malloc((size_t)m->n_cells * sizeof *part + 1);
    CHECK_OK(feint_dist_partition_curve(m, size, part));
  }
  rank_run runs[MAX_RANKS];
  read_shares(path, size, reorder, runs);
  int64_t cells = 0, share_counts[MAX_RANKS] = {0}, whole_counts[MAX_RANKS] = {0};
  for (int k = 0; k < size && s; k++) {
    rank_run *r = &runs[k];
    CHECK(r->status == FEINT_OK && r->mesh, "%s, rank %d of %d: the share is read (%s)", path, k, size, r->error);
    if (!r->mesh) continue;
    CHECK(r->share.whole_cells == m->n_cells, "%s: the whole's cells counted (%lld, whole %lld)", path,
          (long long)r->share.whole_cells, (long long)m->n_cells);
    CHECK(r->share.cell0 == cells, "%s, rank %d: the shares follow each other", path, k);
    cells += r->mesh->n_cells;
    CHECK(r->mesh->n_nodes == m->n_nodes && r->share.nodes_in_cells == m->n_nodes,
          "%s: P1 on every node, the whole's nodes (%lld, %lld of %lld)", path, (long long)r->mesh->n_nodes,
          (long long)r->share.nodes_in_cells, (long long)m->n_nodes);
    CHECK(r->share.n_blocks == m->n_blocks && !memcmp(r->share.blocks, m->blocks, sizeof m->blocks),
          "%s: the whole's blocks", path);
    CHECK(r->mesh->facet_offsets[r->mesh->n_groups] == m->facet_offsets[m->n_groups] &&
              !memcmp(r->mesh->facets, m->facets, (size_t)(m->facet_offsets[m->n_groups] * m->nv_facet) * 8),
          "%s, rank %d: the whole's facets", path, k);
    const int64_t c0 = r->share.cell0, nc = r->mesh->n_cells, nn = m->n_nodes;
    CHECK(r->mesh->nv == m->nv && !memcmp(r->mesh->cells, m->cells + c0 * m->nv, (size_t)(nc * m->nv) * 8) &&
              !memcmp(r->mesh->cell_group, m->cell_group + c0, (size_t)nc * sizeof *m->cell_group),
          "%s, rank %d: its cells and their groups in the whole's numbers", path, k);
    /* its rows' range of the nodes (every node where the nodes were renumbered, which reads them all) */
    int64_t lo = 0, hi = nn;
    if (!reorder) feint_dist_rows_scalar_range(nn, size, k, &lo, &hi);
    const int64_t held = r->share.held_nodes;
    CHECK(r->share.node0 == lo && held == hi - lo && !memcmp(r->mesh->x, m->x + lo, (size_t)held * 8) &&
              !memcmp(r->mesh->y, m->y + lo, (size_t)held * 8) && !memcmp(r->mesh->z, m->z + lo, (size_t)held * 8),
          "%s, rank %d of %d: the whole's nodes %lld..%lld (holds %lld..%lld)", path, k, size, (long long)lo,
          (long long)hi, (long long)r->share.node0, (long long)(r->share.node0 + held));
    feint_dist_slab *mine = NULL, *theirs = NULL;
    if (!s->scalar_cell_dofs_borrowed) { /* the whole's dofs are not its nodes: no slab of a share */
      CHECK(feint_dist_slab_of_share(r->mesh, &r->share, NULL, components, &mine) != FEINT_OK,
            "%s: no slab of a share where P1's dofs are not the nodes", path);
      feint_error_clear();
      continue;
    }
    if (size > 1 && !reorder) { /* a share holding its rows' nodes only makes no space of every node */
      feint_space *ss = NULL;
      CHECK(feint_dist_space_of_share(r->mesh, &r->share, components, &ss) != FEINT_OK && !ss &&
                strstr(feint_error_message(), "every node"),
            "%s, rank %d: no P1 space of a share without every node (%s)", path, k, feint_error_message());
      feint_error_clear();
    }
    int64_t counts[MAX_RANKS]; /* the rows partition's balance, counted on the shares */
    CHECK_OK(feint_dist_rows_count_cells(r->mesh->cells, r->mesh->nv, nc, r->mesh->n_nodes, size, counts));
    for (int q = 0; q < size; q++) share_counts[q] += counts[q];
    CHECK_OK(feint_dist_slab_of_share(r->mesh, &r->share, part ? part + c0 : NULL, components, &mine));
    CHECK_OK(feint_dist_slab_create(s, part, k, size, &theirs));
    size_t a = 0, b = 0;
    char *got = mine ? slab_bytes(mine, &a) : NULL, *want = theirs ? slab_bytes(theirs, &b) : NULL;
    CHECK(got && want && a == b && !memcmp(got, want, a),
          "%s (%d components%s%s), rank %d of %d: the share's slab is the whole's (%zu bytes, whole %zu)", path,
          components, reorder ? ", reordered" : "", curve ? ", the curve's parts" : "", k, size, a, b);
    free(got);
    free(want);
    feint_dist_slab_destroy(mine);
    feint_dist_slab_destroy(theirs);
  }
  CHECK(cells == m->n_cells, "%s: the shares cover the cells once", path);
  /* the nodes each share's cells use, the others' asked of their rows' owners, and the whole's extent */
  feint_dist_nodes nodes[MAX_RANKS];
  memset(nodes, 0, sizeof nodes);
  if (runs[0].mesh) cell_nodes_on_shares(size, runs, nodes);
  feint_dist_curve whole_curve;
  CHECK_OK(feint_dist_curve_create(m, m->n_cells, &whole_curve));
  for (int k = 0; k < size && runs[0].mesh; k++) {
    const feint_mesh *sm = runs[k].mesh;
    int same = runs[k].status == FEINT_OK && sm && !memcmp(nodes[k].lo, whole_curve.lo, sizeof whole_curve.lo) &&
               !memcmp(nodes[k].hi, whole_curve.hi, sizeof whole_curve.hi);
    for (int64_t i = 0; same && i < sm->n_cells * sm->nv; i++) {
      const int64_t n = sm->cells[i];
      double p[3];
      if (n < 0) continue;
      feint_dist_node_at(&nodes[k], n, p);
      same = p[0] == m->x[n] && p[1] == m->y[n] && p[2] == m->z[n];
    }
    int64_t others = 0;
    if (nodes[k].before) others = nodes[k].before[(m->n_nodes >> 6) + 1];
    CHECK(same, "%s, rank %d of %d: its cells' nodes (%lld of others' asked) and the extent are the whole's (%s)", path,
          k, size, (long long)others, runs[k].error);
  }
  check_curve_on_shares(path, m, size, runs, nodes);
  for (int k = 0; k < size; k++) feint_dist_nodes_release(&nodes[k]);
  /* every node's coordinates joined on every share, from the others' rows' ranges */
  all_nodes_on_shares(size, runs);
  for (int k = 0; k < size; k++) {
    const rank_run *r = &runs[k];
    if (!r->mesh) continue;
    const int64_t nn = m->n_nodes;
    CHECK(r->status == FEINT_OK && r->share.node0 == 0 && r->share.held_nodes == nn &&
              !memcmp(r->mesh->x, m->x, (size_t)nn * 8) && !memcmp(r->mesh->y, m->y, (size_t)nn * 8) &&
              !memcmp(r->mesh->z, m->z, (size_t)nn * 8),
          "%s, rank %d of %d: every node's coordinates joined from the shares (%s)", path, k, size, r->error);
    if (!s || !s->scalar_cell_dofs_borrowed) continue;
    /* the whole's P1 space on the share (a rank holding its share only): the whole's dofs, its cells' rows */
    const int64_t c0 = r->share.cell0, nc = r->mesh->n_cells;
    feint_space *ss = NULL;
    CHECK_OK(feint_dist_space_of_share(r->mesh, &r->share, components, &ss));
    int same_space = ss && ss->n_scalar_dofs == s->n_scalar_dofs && ss->n_dofs == s->n_dofs && ss->nb == s->nb &&
                     ss->n_vertices == s->n_vertices && ss->scalar_cell_dofs_borrowed &&
                     !memcmp(ss->coordinates, s->coordinates, (size_t)s->n_scalar_dofs * 24) &&
                     !memcmp(ss->vertex_dof, s->vertex_dof, (size_t)m->n_nodes * 8) &&
                     !memcmp(ss->scalar_cell_dofs, s->scalar_cell_dofs + c0 * s->nb, (size_t)(nc * s->nb) * 8) &&
                     ss->whole_cells == m->n_cells &&
                     (nc == 0 || (ss->whole_cell[0] == c0 && ss->whole_cell[nc - 1] == c0 + nc - 1));
    CHECK(same_space, "%s, rank %d of %d: the share's P1 space is the whole's on its cells", path, k, size);
    feint_space_destroy(ss);
  }
  check_holders(path, m, size, runs);
  /* the whole gathered from the shares onto rank 0's (where rank 0 read its share only and needs the whole) */
  if (runs[0].mesh) {
    CHECK_OK(feint_dist_whole_of_shares(runs[0].mesh, &runs[0].share, size, run_piece, runs));
    CHECK(same_mesh(runs[0].mesh, m), "%s on %d ranks: the whole gathered from the shares is the whole read's", path,
          size);
  }
  if (s && s->scalar_cell_dofs_borrowed) {
    CHECK_OK(feint_dist_rows_part_cells(s, size, whole_counts));
    CHECK(!memcmp(share_counts, whole_counts, sizeof share_counts), "%s on %d ranks: the rows parts' cells counted on "
          "the shares (rank 0: %lld) are the whole's (%lld)", path, size, (long long)share_counts[0],
          (long long)whole_counts[0]);
  }
  free(part);
  printf("%s on %d ranks%s%s: %s\n", path, size, reorder ? " (reordered)" : "", curve ? " (the curve's parts)" : "",
         s && s->scalar_cell_dofs_borrowed ? "slabs equal" : "the whole's cells and nodes (P1 not the nodes: no slab)");
  for (int k = 0; k < size; k++) feint_mesh_destroy(runs[k].mesh);
  feint_space_destroy(s);
  feint_mesh_destroy(m);
}

/* Files the shares leave to the whole read: unsuited, the same on every rank, no mesh. */
static void check_unsuited(const char *path, const char *why) {
  if (!path) return;
  rank_run runs[MAX_RANKS];
  read_shares(path, 3, 0, runs);
  for (int k = 0; k < 3; k++) {
    CHECK(runs[k].status == FEINT_OK && !runs[k].mesh && runs[k].share.unsuited &&
              strstr(runs[k].share.unsuited, why),
          "%s, rank %d: left to the whole read for %s (%s; %s)", path, k, why,
          runs[k].share.unsuited ? runs[k].share.unsuited : "suited", runs[k].error);
    feint_mesh_destroy(runs[k].mesh);
  }
  printf("%s: read whole (%s)\n", path, why);
}

/* A text file (4 tetrahedra of a cube's corner, a facet group) as it is
 * (bad 0), or: 1, its last element names node 99, which is not defined
 * (past the largest tag); 2, its facet group holds a node no cell uses
 * (7); 3, that facet names node 7, which is not defined (below the
 * largest tag, 9: only the owner of the tag can tell); 4, node 3 is
 * defined twice (the second in another rank's range of the file's
 * nodes); 5, a node's tag is 5000000 (too sparse to number in ranges). */
enum { SMALL_OK, SMALL_NODE_99, SMALL_FACET_NODE, SMALL_GAP, SMALL_TWICE, SMALL_SPARSE };
static const char *write_small(int bad, char *out, size_t size) {
  snprintf(out, size, "%s/small-%d.msh", tmp, bad);
  FILE *f = fopen(out, "w");
  if (!f) return NULL;
  fprintf(f, "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n"
             "$PhysicalNames\n2\n2 1 \"wall\"\n3 2 \"body\"\n$EndPhysicalNames\n"
             "$Entities\n0 0 1 1\n1 0 0 0 1 1 1 1 1 0\n1 0 0 0 1 1 1 1 2 1 1\n$EndEntities\n"
             "$Nodes\n2 7 1 7\n3 1 0 6\n1\n2\n3\n4\n5\n6\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n1 1 0\n1 0 1\n"
             "2 1 0 1\n%d\n5 5 5\n$EndNodes\n"
             "$Elements\n2 5 1 5\n2 1 2 1\n1 1 2 %d\n3 1 4 4\n2 1 2 3 4\n3 2 5 3 4\n4 2 6 4 5\n5 2 3 4 %d\n"
             "$EndElements\n",
          bad == SMALL_GAP ? 9 : bad == SMALL_TWICE ? 3 : bad == SMALL_SPARSE ? 5000000 : 7,
          bad == SMALL_FACET_NODE || bad == SMALL_GAP ? 7 : bad == SMALL_SPARSE ? 5000000 : 3,
          bad == SMALL_NODE_99 ? 99 : 6);
  fclose(f);
  return out;
}

static void check_bad_node(void) {
  char path[300];
  if (!write_small(SMALL_NODE_99, path, sizeof path)) {
    CHECK(0, "cannot write %s", path);
    return;
  }
  rank_run runs[MAX_RANKS];
  read_shares(path, 3, 0, runs);
  /* 4 cells on 3 ranks: the last (node 99) is rank 2's */
  CHECK(runs[2].status && strstr(runs[2].error, "node 99") && strstr(runs[2].error, "does not define"),
        "the rank whose share names node 99 says so: %s", runs[2].error);
  for (int k = 0; k < 2; k++)
    CHECK(runs[k].status && strstr(runs[k].error, "rank 2 failed"), "rank %d hears rank 2 failed: %s", k,
          runs[k].error);
  for (int k = 0; k < 3; k++) CHECK(!runs[k].mesh, "no mesh on a failed rank");
  feint_mesh *m = NULL;
  CHECK(feint_mesh_read(path, &(feint_mesh_options){0}, &m) != FEINT_OK && strstr(feint_error_message(), "node 99"),
        "the whole read fails alike");
  feint_error_clear();
  printf("an undefined node in one rank's share: its message, the others' \"rank 2 failed\"\n");

  /* node 7 only in the facet group: the whole's numbering keeps it, P1 is not on every node */
  if (!write_small(SMALL_FACET_NODE, path, sizeof path)) return;
  read_shares(path, 2, 0, runs);
  CHECK_OK(feint_mesh_read(path, &(feint_mesh_options){0}, &m));
  for (int k = 0; k < 2 && m; k++) {
    CHECK(runs[k].status == FEINT_OK && runs[k].mesh, "rank %d reads its share (%s)", k, runs[k].error);
    if (!runs[k].mesh) continue;
    CHECK(runs[k].mesh->n_nodes == m->n_nodes && runs[k].share.nodes_in_cells == m->n_nodes - 1,
          "a facet's node numbered, not among the cells' (%lld nodes, %lld in cells)",
          (long long)runs[k].mesh->n_nodes, (long long)runs[k].share.nodes_in_cells);
    const int64_t node0 = runs[k].share.node0;
    CHECK(!memcmp(runs[k].mesh->x, m->x + node0, (size_t)runs[k].share.held_nodes * 8) &&
              !memcmp(runs[k].mesh->cells, m->cells + runs[k].share.cell0 * m->nv,
                      (size_t)(runs[k].mesh->n_cells * m->nv) * 8),
          "rank %d: the whole's nodes and its cells in the whole's numbers", k);
    feint_dist_slab *sl = NULL;
    CHECK(feint_dist_slab_of_share(runs[k].mesh, &runs[k].share, NULL, 1, &sl) != FEINT_OK, "no slab of P1 off a node");
    feint_error_clear();
    feint_mesh_destroy(runs[k].mesh);
  }
  feint_mesh_destroy(m);
  printf("a node of a facet only: numbered as the whole's, not P1 on every node\n");
}

/* What only the owner of a tag can find (its range of the tags): an element naming an undefined node below the
 * largest tag, a node defined twice; it says so, every other rank "rank p failed", and the whole read fails alike.
 * Tags too sparse for the owners' tables: left to the whole read, on every rank. */
static void check_owner_errors(void) {
  static const struct {
    int bad;
    const char *says;
  } errors[] = {{SMALL_GAP, "refers to node 7, which the mesh does not define"},
                {SMALL_TWICE, "node 3 is defined twice"}};
  char path[300];
  rank_run runs[MAX_RANKS];
  for (size_t i = 0; i < sizeof errors / sizeof *errors; i++) {
    if (!write_small(errors[i].bad, path, sizeof path)) {
      CHECK(0, "cannot write %s", path);
      return;
    }
    read_shares(path, 3, 0, runs);
    int owner = -1;
    for (int k = 0; k < 3; k++)
      if (runs[k].status && strstr(runs[k].error, errors[i].says)) owner = k;
    CHECK(owner >= 0, "a rank says \"%s\" (%s; %s; %s)", errors[i].says, runs[0].error, runs[1].error,
          runs[2].error);
    char failed[32];
    snprintf(failed, sizeof failed, "rank %d failed", owner);
    for (int k = 0; k < 3 && owner >= 0; k++)
      if (k != owner)
        CHECK(runs[k].status && strstr(runs[k].error, failed), "rank %d hears %s: %s", k, failed, runs[k].error);
    for (int k = 0; k < 3; k++) CHECK(!runs[k].mesh, "no mesh on a failed rank");
    feint_mesh *m = NULL;
    CHECK(feint_mesh_read(path, &(feint_mesh_options){0}, &m) != FEINT_OK &&
              strstr(feint_error_message(), errors[i].says),
          "the whole read fails alike: %s", feint_error_message());
    feint_mesh_destroy(m);
    feint_error_clear();
    printf("%s: rank %d says so, the others that it failed\n", errors[i].says, owner);
  }
  if (!write_small(SMALL_SPARSE, path, sizeof path)) return;
  read_shares(path, 3, 0, runs);
  for (int k = 0; k < 3; k++) {
    CHECK(runs[k].status == FEINT_OK && !runs[k].mesh && runs[k].share.unsuited &&
              strstr(runs[k].share.unsuited, "sparse"),
          "rank %d: tags too sparse left to the whole read (%s; %s)", k,
          runs[k].share.unsuited ? runs[k].share.unsuited : "suited", runs[k].error);
    feint_mesh_destroy(runs[k].mesh);
  }
  printf("node tags too sparse for ranges: read whole\n");
}

/* A binary file's node tag set to 0: the rank whose range of the file's nodes holds it (rank 0: the first node)
 * names the byte, as the whole read does; the other hears that rank 0 failed. */
static void check_bad_binary_tag(const char *path) {
  if (!path) return;
  FILE *f = fopen(path, "rb");
  char *buf = NULL;
  long size = 0;
  if (f && fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
      (buf = malloc((size_t)size)) && fread(buf, 1, (size_t)size, f) != (size_t)size) {
    free(buf);
    buf = NULL;
  }
  if (f) fclose(f);
  const char *nodes = buf ? memmem(buf, (size_t)size, "$Nodes\n", 7) : NULL;
  CHECK(nodes != NULL, "%s: a $Nodes section", path);
  if (!nodes) {
    free(buf);
    return;
  }
  /* the section's 4 counts, the first block's dimension, tag, parametric flag (int each) and count: its first tag */
  const size_t at = (size_t)(nodes - buf) + 7 + 4 * 8 + 3 * 4 + 8;
  memset(buf + at, 0, 8);
  char bad[400];
  snprintf(bad, sizeof bad, "%s/bad-tag.msh", tmp);
  f = fopen(bad, "wb");
  if (f) {
    fwrite(buf, 1, (size_t)size, f);
    fclose(f);
  }
  free(buf);
  rank_run runs[MAX_RANKS];
  read_shares(bad, 2, 0, runs);
  char want[80];
  snprintf(want, sizeof want, "byte %zu: node tag 0: node tags start at 1", at);
  CHECK(runs[0].status && strstr(runs[0].error, want), "rank 0 names the bad tag's byte (%s): %s", want, runs[0].error);
  CHECK(runs[1].status && strstr(runs[1].error, "rank 0 failed"), "rank 1 hears rank 0 failed: %s", runs[1].error);
  for (int k = 0; k < 2; k++) feint_mesh_destroy(runs[k].mesh);
  feint_mesh *m = NULL;
  CHECK(feint_mesh_read(bad, &(feint_mesh_options){0}, &m) != FEINT_OK && strstr(feint_error_message(), want),
        "the whole read names it alike: %s", feint_error_message());
  feint_error_clear();
  printf("a node tag 0 left in a binary file: the byte named by the rank reading it\n");
}

/* A 2D mesh off its plane (one node at z = 1): every rank says so, as the whole read does. */
static void check_not_planar(void) {
  char path[300];
  snprintf(path, sizeof path, "%s/tilted.msh", tmp);
  FILE *f = fopen(path, "w");
  if (!f) {
    CHECK(0, "cannot write %s", path);
    return;
  }
  fprintf(f, "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Entities\n0 0 1 0\n1 0 0 0 1 1 1 0 0\n$EndEntities\n"
             "$Nodes\n1 4 1 4\n2 1 0 4\n1\n2\n3\n4\n0 0 0\n1 0 0\n0 1 0\n1 1 1\n$EndNodes\n"
             "$Elements\n1 2 1 2\n2 1 2 2\n1 1 2 3\n2 2 4 3\n$EndElements\n");
  fclose(f);
  rank_run runs[MAX_RANKS];
  read_shares(path, 2, 0, runs);
  for (int k = 0; k < 2; k++) {
    CHECK(runs[k].status && strstr(runs[k].error, "not planar (z from 0 to 1)") && !runs[k].mesh,
          "rank %d: the 2D mesh is not planar: %s", k, runs[k].error);
    feint_mesh_destroy(runs[k].mesh);
  }
  feint_mesh *m = NULL;
  CHECK(feint_mesh_read(path, &(feint_mesh_options){0}, &m) != FEINT_OK &&
            strstr(feint_error_message(), "not planar (z from 0 to 1)"),
        "the whole read says so too: %s", feint_error_message());
  feint_mesh_destroy(m);
  feint_error_clear();
  printf("a 2D mesh off its plane: every rank says so\n");
}

int main(void) {
  snprintf(tmp, sizeof tmp, "/tmp/feint-t321-XXXXXX");
  if (!mkdtemp(tmp)) {
    perror("mkdtemp");
    return 1;
  }
  char a[400], b[400];
  check_shares(write_msh("cases/cube.geo", 3, 0, a, sizeof a), 1, 3, 0, 0);
  check_shares(a, 3, 4, 0, 0);
  check_shares(a, 1, 1, 0, 0);
  check_shares(a, 1, 5, 1, 0); /* Morton-reordered nodes */
  check_shares(a, 3, 3, 0, 1); /* the curve's parts */
  check_shares(write_msh("cases/two-materials.geo", 3, 0, a, sizeof a), 1, 2, 0, 0);
  check_shares(a, 1, 5, 0, 1);
  check_shares(write_msh("cases/square.geo", 2, 0, a, sizeof a), 2, 3, 0, 0);
  check_shares(write_msh("cases/square.geo", 2, 1, b, sizeof b), 1, 4, 0, 0); /* text: parsed whole on every rank */
  check_shares(write_msh("tests/data/split_cube.geo", 3, 0, a, sizeof a), 1, 5, 0, 0);
  check_shares(write_msh("cases/hexcube.geo", 3, 0, a, sizeof a), 3, 3, 0, 0);
  check_shares(write_msh("cases/prismcube.geo", 3, 0, a, sizeof a), 1, 3, 0, 0);
  check_shares(write_msh("cases/mixedsquare.geo", 2, 0, a, sizeof a), 1, 3, 0, 0);
  check_shares(write_msh("tests/data/tet_prism_hex_cube.geo", 3, 0, a, sizeof a), 1, 4, 0, 0);
  check_shares(write_small(SMALL_OK, a, sizeof a), 1, 3, 0, 0);
  check_shares(a, 1, 7, 0, 0); /* more ranks than cells: some read none */
  check_rank0(write_msh("tests/data/split_cube.geo", 3, 0, a, sizeof a), 3, 0);
  check_rank0(write_msh("tests/data/tet_prism_hex_cube.geo", 3, 0, a, sizeof a), 2, 0);
  check_rank0(a, 3, 1);
  check_rank0(write_msh("cases/hexcube.geo", 3, 0, a, sizeof a), 2, 1);
  check_unsuited("tests/data/msh/cube22.bin.msh", "MSH 2");
  check_unsuited(write_msh("tests/data/ball2.geo", 3, 0, a, sizeof a), "curved");
  check_unsuited("cases/cube.geo", "not a .msh");
  check_bad_node();
  check_owner_errors();
  check_not_planar();
  check_bad_binary_tag(write_msh("cases/cube.geo", 3, 0, a, sizeof a));
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmp);
  printf("%d failed\n", check_failures);
  return check_failures ? 1 : 0;
}
