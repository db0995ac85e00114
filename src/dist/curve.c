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

int feint_dist_curve_parts(const feint_dist_curve *curve, const int32_t *keys, int64_t n, const int32_t *const *counts,
                           int rank, int size, int nparts, int *part) {
  const int64_t n_boxes = curve->n_boxes;
  place_job j;
  memset(&j, 0, sizeof j);
  j.curve = curve;
  j.counts = counts;
  j.rank = rank;
  j.size = size;
  j.nparts = nparts;
  j.keys = keys;
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
  /* the cell at curve position q goes to part q * nparts / n: whole boxes at once, then those holding a cut */
  const int cell_ranges = status || n == 0 ? 0 : feint_parallel_for_indexed(n, 1 << 14, cells_part, &j);
  for (int t = 0; t < cell_ranges; t++) {
    if (!j.cut[t]) continue;
    for (int64_t c = feint_parallel_range_start(n, cell_ranges, t); c < feint_parallel_range_start(n, cell_ranges, t + 1); c++)
      if (part[c] < 0) part[c] = part_of(&j, j.place[keys[c]]++);
  }
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
  /* every rank's counts to every other (a failed rank's head says so, and it sends none) */
  feint_comm_message *out = NULL;
  void **in = NULL;
  size_t *in_bytes = NULL;
  const int32_t **all = NULL;
  if (feint_calloc((size_t)size, sizeof *out, &out, "the curve's exchange") ||
      feint_calloc((size_t)size, sizeof *in, &in, "the curve's exchange") ||
      feint_calloc((size_t)size, sizeof *in_bytes, &in_bytes, "the curve's exchange") ||
      feint_calloc((size_t)size, sizeof *all, &all, "the curve's exchange")) {
    /* a rank that cannot even say so would leave the others waiting for it: the run ends */
    feint_comm_abort(comm, FEINT_ERR_COMPUTE);
    return FEINT_ERR_COMPUTE;
  }
  const int64_t failed = status != FEINT_OK;
  const size_t count_bytes = (size_t)curve.n_boxes * sizeof *counts;
  for (int q = 0; q < size; q++) out[q] = (feint_comm_message){{&failed, counts}, {sizeof failed, failed ? 0 : count_bytes}, 2};
  if (seconds) seconds[0] = feint_now() - t;
  t = feint_now();
  const int exchanged = feint_comm_exchange(comm, out, in, in_bytes);
  if (seconds) seconds[1] = feint_now() - t;
  t = feint_now();
  if (!status) status = exchanged;
  all[rank] = counts;
  for (int q = 0; q < size && !status; q++) {
    if (q == rank) continue;
    int64_t theirs = 1;
    if (in_bytes[q] >= sizeof theirs) memcpy(&theirs, in[q], sizeof theirs);
    if (theirs) status = feint_dist_peer_failed(q);
    else if (in_bytes[q] != sizeof theirs + count_bytes)
      status = feint_error_set(FEINT_ERR_COMPUTE, "internal: rank %d sent the curve's counts of %zu bytes, not %zu", q,
                               in_bytes[q] - sizeof theirs, count_bytes);
    else
      all[q] = (const int32_t *)(const void *)((const char *)in[q] + sizeof theirs);
  }
  if (!status) status = feint_malloc((size_t)share->n_cells + 1, sizeof **parts, parts, "the share's parts");
  if (!status) status = feint_dist_curve_parts(&curve, keys, share->n_cells, all, rank, size, size, *parts);
  if (seconds) seconds[2] = feint_now() - t;
  if (status) {
    free(*parts);
    *parts = NULL;
  }
  for (int q = 0; q < size; q++) free(in[q]);
  free(in);
  free(in_bytes);
  free(out);
  free(all);
  free(keys);
  free(counts);
  return status;
}
