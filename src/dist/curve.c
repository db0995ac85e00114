/* The Morton curve's partition of the cells (dist.h): the cells ordered
 * along the curve of their centroids, in boxes of about two cells (ties in
 * cell order), cut into equal parts. A box's cells are counted, and a
 * cell's place on the curve is the count of the boxes before its own plus
 * that of the cells before it in its box: a counting sort, in linear time.
 * So the place needs only counts, which the ranks' shares of the cells
 * exchange (each share is a range of the cells, in rank order): each
 * rank places its own cells as the whole's partition would, without the
 * whole. */
#include <stdlib.h>
#include <string.h>

#include "dist/slab.h"
#include "feint/dist.h"
#include "feint/driver.h"
#include "feint/error.h"
#include "feint/morton.h"
#include "feint/parallel.h"

/* The nodes' extent, range by range (each its own box, joined in range order). */
typedef struct {
  const feint_mesh *m;
  double lo[FEINT_PARALLEL_MAX_RANGES][3], hi[FEINT_PARALLEL_MAX_RANGES][3];
} extent_job;

static void extent_range(int64_t begin, int64_t end, int t, void *arg) {
  extent_job *j = arg;
  const feint_mesh *m = j->m;
  for (int64_t v = begin; v < end; v++) {
    const double x[3] = {m->x[v], m->y[v], m->z[v]};
    for (int a = 0; a < 3; a++) {
      if (v == begin || x[a] < j->lo[t][a]) j->lo[t][a] = x[a];
      if (v == begin || x[a] > j->hi[t][a]) j->hi[t][a] = x[a];
    }
  }
}

void feint_dist_curve_of_extent(int dim, int64_t n_cells, const double lo[3], const double hi[3],
                                feint_dist_curve *curve) {
  memset(curve, 0, sizeof *curve);
  /* (the boxes stay below 2^30, int32 keys; a rank's counts are int32: feint_dist_curve_count) */
  curve->dim = dim;
  curve->n_cells = n_cells;
  /* boxes of about two cells: the curve orders the cells, not points within them */
  curve->bits = 1;
  while (curve->bits < FEINT_MORTON_MAX_BITS && ((int64_t)1 << (dim * (curve->bits + 1))) <= n_cells / 2)
    curve->bits++;
  curve->n_boxes = (int64_t)1 << (dim * curve->bits);
  memcpy(curve->lo, lo, sizeof curve->lo);
  memcpy(curve->hi, hi, sizeof curve->hi);
}

int feint_dist_curve_create(const feint_mesh *m, int64_t n_cells, feint_dist_curve *curve) {
  extent_job j;
  memset(&j, 0, sizeof j);
  j.m = m;
  double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
  const int ranges = m->n_nodes > 0 ? feint_parallel_for_indexed(m->n_nodes, 1 << 16, extent_range, &j) : 0;
  for (int t = 0; t < ranges; t++)
    for (int a = 0; a < 3; a++) {
      if (t == 0 || j.lo[t][a] < lo[a]) lo[a] = j.lo[t][a];
      if (t == 0 || j.hi[t][a] > hi[a]) hi[a] = j.hi[t][a];
    }
  feint_dist_curve_of_extent(m->dim, n_cells, lo, hi, curve);
  return FEINT_OK;
}

typedef struct {
  const feint_dist_curve *curve;
  const feint_mesh *m;
  const feint_dist_nodes *nodes;
  int32_t *key, *counts;
} curve_job;

/* each cell's box, counted (atomic adds: the counts are the same whatever the threads' order) */
static void curve_keys(int64_t begin, int64_t end, void *arg) {
  const curve_job *j = arg;
  const feint_mesh *m = j->m;
  const double *xs[3] = {m->x, m->y, m->z};
  for (int64_t c = begin; c < end; c++) {
    double sum[3] = {0, 0, 0};
    int nv = 0;
    for (; nv < m->nv && m->cells[c * m->nv + nv] >= 0; nv++) {
      const int64_t n = m->cells[c * m->nv + nv];
      double p[3];
      if (j->nodes) feint_dist_node_at(j->nodes, n, p);
      else p[0] = xs[0][n], p[1] = xs[1][n], p[2] = xs[2][n];
      for (int a = 0; a < m->dim; a++) sum[a] += p[a];
    }
    const int32_t key = feint_morton_key(m->dim, j->curve->bits, nv, sum, j->curve->lo, j->curve->hi);
    j->key[c] = key;
    __atomic_fetch_add(&j->counts[key], 1, __ATOMIC_RELAXED);
  }
}

int feint_dist_curve_count(const feint_dist_curve *curve, const feint_mesh *m, const feint_dist_nodes *nodes,
                           int32_t **keys, int32_t *counts) {
  *keys = NULL;
  /* a box's count of this mesh's (a share's) cells is an int32: the ranks' counts are summed in int64 */
  if (m->n_cells >= INT32_MAX)
    return feint_error_set(FEINT_ERR_INPUT, "%s: %lld cells on one rank to place on the curve, past 2^31 (run on more "
                           "ranks)", m->path, (long long)m->n_cells);
  curve_job j = {curve, m, nodes, NULL, counts};
  FEINT_CALL(feint_malloc((size_t)m->n_cells + 1, sizeof *j.key, &j.key, "the partition's curve"));
  memset(counts, 0, (size_t)curve->n_boxes * sizeof *counts);
  feint_parallel_for(m->n_cells, 1 << 14, curve_keys, &j);
  *keys = j.key;
  return FEINT_OK;
}

/* A share's cells placed on the curve: in each box, the share's cells take
 * the places after every cell of the boxes before it and the earlier
 * shares' cells in it (place[k], its first), in cell order. A box whose
 * cells here all fall in one part (part[k]; -1: it holds a cut) needs no
 * order, so only the few boxes holding a cut between parts are placed
 * cell by cell, in cell order. */
typedef struct {
  const feint_dist_curve *curve;
  const int32_t *const *counts;
  int rank, size, nparts;
  int64_t *place;   /* n_boxes */
  int *box_part;    /* n_boxes */
  int64_t before[FEINT_PARALLEL_MAX_RANGES + 1]; /* the cells in the boxes of the ranges before */
  const int32_t *keys;
  const int32_t *own; /* this rank's counts (the places made by the boxes' owners) */
  int *part;
  int64_t cut[FEINT_PARALLEL_MAX_RANGES]; /* cells in a box holding a cut, per range of cells */
} place_job;

static int64_t in_box(const place_job *j, int64_t k, int64_t *earlier) {
  int64_t all = 0;
  *earlier = 0;
  for (int q = 0; q < j->size; q++) {
    all += j->counts[q][k];
    if (q < j->rank) *earlier += j->counts[q][k];
  }
  return all;
}

static void boxes_sum(int64_t begin, int64_t end, int t, void *arg) {
  place_job *j = arg;
  int64_t sum = 0, earlier;
  for (int64_t k = begin; k < end; k++) sum += in_box(j, k, &earlier);
  j->before[t + 1] = sum;
}

static int part_of(const place_job *j, int64_t place) { return (int)(place * j->nparts / j->curve->n_cells); }

static void boxes_place(int64_t begin, int64_t end, int t, void *arg) {
  place_job *j = arg;
  int64_t before = j->before[t], earlier;
  for (int64_t k = begin; k < end; k++) {
    const int64_t all = in_box(j, k, &earlier), own = j->counts[j->rank][k];
    j->place[k] = before + earlier;
    const int first = part_of(j, j->place[k]);
    j->box_part[k] = own == 0 || part_of(j, j->place[k] + own - 1) == first ? first : -1;
    before += all;
  }
}

static void cells_part(int64_t begin, int64_t end, int t, void *arg) {
  place_job *j = arg;
  int64_t cut = 0;
  for (int64_t c = begin; c < end; c++) {
    j->part[c] = j->box_part[j->keys[c]];
    cut += j->part[c] < 0;
  }
  j->cut[t] = cut;
}

/* The cell at curve position q goes to part q * nparts / n: whole boxes at once (box_part), then, in cell order,
 * those in a box holding a cut (each taking its box's next place). */
static void cells_placed(place_job *j, int64_t n) {
  const int cell_ranges = n == 0 ? 0 : feint_parallel_for_indexed(n, 1 << 14, cells_part, j);
  for (int t = 0; t < cell_ranges; t++) {
    if (!j->cut[t]) continue;
    for (int64_t c = feint_parallel_range_start(n, cell_ranges, t); c < feint_parallel_range_start(n, cell_ranges, t + 1);
         c++)
      if (j->part[c] < 0) j->part[c] = part_of(j, j->place[j->keys[c]]++);
  }
}

static place_job place_job_of(const feint_dist_curve *curve, int rank, int size, int nparts, const int32_t *keys) {
  place_job j;
  memset(&j, 0, sizeof j);
  j.curve = curve;
  j.rank = rank;
  j.size = size;
  j.nparts = nparts;
  j.keys = keys;
  return j;
}

int feint_dist_curve_parts(const feint_dist_curve *curve, const int32_t *keys, int64_t n, const int32_t *const *counts,
                           int rank, int size, int nparts, int *part) {
  const int64_t n_boxes = curve->n_boxes;
  place_job j = place_job_of(curve, rank, size, nparts, keys);
  j.counts = counts;
  j.part = part;
  int status = feint_malloc((size_t)n_boxes + 1, sizeof *j.place, &j.place, "the partition's curve");
  if (!status) status = feint_malloc((size_t)n_boxes + 1, sizeof *j.box_part, &j.box_part, "the partition's curve");
  if (status) {
    free(j.place);
    return status;
  }
  /* each range of boxes' cells (every share's), then the places from their sums in range order */
  const int ranges = feint_parallel_for_indexed(n_boxes, 1 << 14, boxes_sum, &j);
  for (int t = 0; t < ranges; t++) j.before[t + 1] += j.before[t];
  if (j.before[ranges] != curve->n_cells)
    status = feint_error_set(FEINT_ERR_COMPUTE, "internal: the curve's counts hold %lld cells, not %lld",
                             (long long)j.before[ranges], (long long)curve->n_cells);
  if (!status) feint_parallel_for_indexed(n_boxes, 1 << 14, boxes_place, &j);
  if (!status) cells_placed(&j, n);
  free(j.place);
  free(j.box_part);
  return status;
}

int feint_dist_partition_curve(const feint_mesh *m, int nparts, int *part) {
  feint_dist_curve curve;
  FEINT_CALL(feint_dist_curve_create(m, m->n_cells, &curve));
  int32_t *keys = NULL, *counts = NULL;
  int status = feint_malloc((size_t)curve.n_boxes, sizeof *counts, &counts, "the partition's curve");
  if (!status) status = feint_dist_curve_count(&curve, m, NULL, &keys, counts);
  const int32_t *const all[1] = {counts};
  if (!status) status = feint_dist_curve_parts(&curve, keys, m->n_cells, all, 0, 1, nparts, part);
  free(keys);
  free(counts);
  return status;
}

/* ---- The places of a share's cells, the boxes owned in ranges ---- */

static int64_t box0(const feint_dist_curve *curve, int size, int o) { return curve->n_boxes * o / size; }

/* An owner's places, on every core: for each of its boxes k and each rank q, the boxes before k (every rank's
 * cells) and the ranks before q's cells in k, from its range's start (before). */
typedef struct {
  const int32_t *const *c; /* each rank's counts of the owner's boxes */
  int size;
  int64_t nb, before, *placed; /* size x nb */
  int64_t sums[FEINT_PARALLEL_MAX_RANGES + 1];
} owner_places;

static void owner_sum_range(int64_t a, int64_t b, int t, void *arg) {
  owner_places *o = arg;
  int64_t n = 0;
  for (int64_t k = a; k < b; k++)
    for (int q = 0; q < o->size; q++) n += o->c[q][k];
  o->sums[t + 1] = n;
}

static void owner_place_range(int64_t a, int64_t b, int t, void *arg) {
  owner_places *o = arg;
  int64_t run = o->before + o->sums[t];
  for (int64_t k = a; k < b; k++)
    for (int q = 0; q < o->size; q++) {
      o->placed[(size_t)q * (size_t)o->nb + (size_t)k] = run;
      run += o->c[q][k];
    }
}

/* Every box's first place for this rank's cells (*place, n_boxes; *placed the owner's answers, freed by the
 * caller): counts to the boxes' owners, the owners' sums to every rank, the places back. */
static int boxes_places(share_round *R, int status, const feint_dist_curve *curve, const int32_t *counts,
                        int64_t **place, int64_t **placed) {
  const int size = R->size, rank = R->rank;
  const int64_t b0 = status ? 0 : box0(curve, size, rank), nb = status ? 0 : box0(curve, size, rank + 1) - b0;
  const int64_t ok = 0;
  /* 1. each owner its boxes' counts */
  for (int o = 0; o < size && !status; o++) {
    const int64_t lo = box0(curve, size, o), hi = box0(curve, size, o + 1);
    R->out[o] = (feint_comm_message){{&ok, counts + lo}, {sizeof ok, (size_t)(hi - lo) * sizeof *counts}, 2};
  }
  FEINT_CALL(share_round_run(R, status));
  const int32_t **c = NULL;
  int local = feint_malloc((size_t)size, sizeof *c, &c, "the curve's counts");
  for (int q = 0; q < size && !local; q++) {
    if (q == rank) {
      c[q] = counts + b0;
    } else if (R->in_bytes[q] != sizeof ok + (size_t)nb * sizeof *counts) {
      local = feint_error_set(FEINT_ERR_COMPUTE, "internal: rank %d sent the curve's counts of %zu bytes, not %zu", q,
                              R->in_bytes[q], sizeof ok + (size_t)nb * sizeof *counts);
    } else {
      c[q] = (const int32_t *)(const void *)((const char *)R->in[q] + sizeof ok);
    }
  }
  owner_places op = {c, size, nb, 0, NULL, {0}};
  const int ranges = local || nb == 0 ? 0 : feint_parallel_for_indexed(nb, 1 << 12, owner_sum_range, &op);
  for (int t = 0; t < ranges; t++) op.sums[t + 1] += op.sums[t];
  int64_t mine[2] = {0, op.sums[ranges]}; /* 2. every owner's sum to every rank */
  for (int q = 0; q < size && !local; q++) R->out[q] = (feint_comm_message){{mine}, {sizeof mine}, 1};
  /* (the counts received stay until the places are made: c points into them) */
  void **kept = R->in;
  size_t *kept_bytes = R->in_bytes;
  int st = feint_calloc((size_t)size, sizeof *R->in, &R->in, "the curve's exchange");
  if (!st) st = feint_calloc((size_t)size, sizeof *R->in_bytes, &R->in_bytes, "the curve's exchange");
  if (st) { /* the others wait for this rank's sums: the run ends */
    feint_comm_abort(R->ctx, FEINT_ERR_COMPUTE);
    return FEINT_ERR_COMPUTE;
  }
  st = share_round_run(R, local);
  int64_t total = 0;
  for (int q = 0; q < size && !st; q++) {
    int64_t h[2] = {0, 0};
    if (q == rank) h[1] = mine[1];
    else if (R->in_bytes[q] == sizeof h) memcpy(h, R->in[q], sizeof h);
    else st = feint_error_set(FEINT_ERR_COMPUTE, "internal: rank %d's sum of the curve's boxes is malformed", q);
    if (q < rank) op.before += h[1];
    total += h[1];
  }
  if (!st && total != curve->n_cells)
    st = feint_error_set(FEINT_ERR_COMPUTE, "internal: the curve's counts hold %lld cells, not %lld", (long long)total,
                         (long long)curve->n_cells);
  local = st ? FEINT_OK : feint_malloc((size_t)size * (size_t)nb + 1, sizeof **placed, placed, "the curve's places");
  if (!st && !local) {
    op.placed = *placed;
    if (ranges) feint_parallel_for_indexed(nb, 1 << 12, owner_place_range, &op); /* the same ranges */
  }
  for (int q = 0; q < size && kept; q++) free(kept[q]);
  free(kept);
  free(kept_bytes);
  free(c);
  if (st) return st; /* every rank saw the same (a failed rank, or the sums) */
  /* 3. each rank its places, from every owner */
  for (int q = 0; q < size && !local; q++)
    R->out[q] = (feint_comm_message){{&ok, *placed + (size_t)q * (size_t)nb}, {sizeof ok, (size_t)nb * sizeof **placed}, 2};
  if (!local) local = feint_malloc((size_t)curve->n_boxes + 1, sizeof **place, place, "the curve's places");
  FEINT_CALL(share_round_run(R, local));
  for (int o = 0; o < size; o++) {
    const int64_t lo = box0(curve, size, o), n = box0(curve, size, o + 1) - lo;
    const void *from = o == rank ? (const void *)(*placed + (size_t)rank * (size_t)nb) : (const char *)R->in[o] + sizeof ok;
    if (o != rank && R->in_bytes[o] != sizeof ok + (size_t)n * sizeof **place)
      return feint_error_set(FEINT_ERR_COMPUTE, "internal: rank %d's places are malformed", o);
    if (n) memcpy(*place + lo, from, (size_t)n * sizeof **place);
  }
  return FEINT_OK;
}

/* Each box's part where all this rank's cells in it fall in one part, else -1 (from its place and own count). */
static void box_parts(int64_t begin, int64_t end, void *arg) {
  const place_job *j = arg;
  for (int64_t k = begin; k < end; k++) {
    const int64_t own = j->own[k];
    const int first = part_of(j, j->place[k]);
    j->box_part[k] = own == 0 || part_of(j, j->place[k] + own - 1) == first ? first : -1;
  }
}

int feint_dist_curve_parts_of_share(feint_comm *comm, int status_in, const feint_mesh *mesh,
                                    const feint_mesh_share *sh, int **parts, double seconds[3]) {
  const int size = feint_comm_size(comm), rank = feint_comm_rank(comm);
  double t = feint_now();
  *parts = NULL;
  feint_dist_curve curve;
  memset(&curve, 0, sizeof curve);
  int32_t *keys = NULL, *counts = NULL;
  /* the nodes this rank's cells use, the others' from their rows' owners, and the whole's extent (collective) */
  feint_dist_nodes nodes;
  int status = feint_dist_share_cell_nodes(comm, status_in, mesh, sh, &nodes);
  if (!status) feint_dist_curve_of_extent(mesh->dim, sh->whole_cells, nodes.lo, nodes.hi, &curve);
  if (!status) status = feint_malloc((size_t)curve.n_boxes, sizeof *counts, &counts, "the curve's counts");
  if (!status) status = feint_dist_curve_count(&curve, mesh, &nodes, &keys, counts);
  feint_dist_nodes_release(&nodes);
  const feint_mesh *share = mesh;
  /* the boxes are owned in ranges: each owner sums its boxes' counts over the ranks and answers each rank the places
   * of its cells in them (O(boxes) a rank, not every rank's counts on every rank) */
  share_round R;
  if (share_round_start(&R, share_comm_exchange, comm, rank, size)) {
    /* a rank that cannot even say so would leave the others waiting for it: the run ends */
    feint_comm_abort(comm, FEINT_ERR_COMPUTE);
    return FEINT_ERR_COMPUTE;
  }
  if (seconds) seconds[0] = feint_now() - t;
  t = feint_now();
  int64_t *place = NULL, *placed = NULL;
  status = boxes_places(&R, status, &curve, counts, &place, &placed);
  if (seconds) seconds[1] = feint_now() - t;
  t = feint_now();
  place_job j = place_job_of(&curve, rank, size, size, keys);
  j.place = place;
  j.own = counts;
  if (!status) status = feint_malloc((size_t)curve.n_boxes + 1, sizeof *j.box_part, &j.box_part, "the curve's boxes");
  if (!status) status = feint_malloc((size_t)share->n_cells + 1, sizeof **parts, parts, "the share's parts");
  if (!status) {
    j.part = *parts;
    feint_parallel_for(curve.n_boxes, 1 << 14, box_parts, &j);
    cells_placed(&j, share->n_cells);
  }
  if (seconds) seconds[2] = feint_now() - t;
  if (status) {
    free(*parts);
    *parts = NULL;
  }
  share_round_destroy(&R);
  free(place);
  free(placed);
  free(j.box_part);
  free(keys);
  free(counts);
  return status;
}
