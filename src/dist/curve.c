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
#include "feint/error.h"
#include "feint/morton.h"
#include "feint/parallel.h"

int feint_dist_curve_create(const feint_mesh *m, int64_t n_cells, feint_dist_curve *curve) {
  memset(curve, 0, sizeof *curve);
  if (n_cells >= INT32_MAX) return feint_error_set(FEINT_ERR_INPUT, "%s: more than 2^31 cells to partition", m->path);
  curve->dim = m->dim;
  curve->n_cells = n_cells;
  /* boxes of about two cells: the curve orders the cells, not points within them */
  curve->bits = 1;
  while (curve->bits < FEINT_MORTON_MAX_BITS && ((int64_t)1 << (m->dim * (curve->bits + 1))) <= n_cells / 2)
    curve->bits++;
  curve->n_boxes = (int64_t)1 << (m->dim * curve->bits);
  for (int64_t v = 0; v < m->n_nodes; v++) {
    const double x[3] = {m->x[v], m->y[v], m->z[v]};
    for (int a = 0; a < 3; a++) {
      if (v == 0 || x[a] < curve->lo[a]) curve->lo[a] = x[a];
      if (v == 0 || x[a] > curve->hi[a]) curve->hi[a] = x[a];
    }
  }
  return FEINT_OK;
}

typedef struct {
  const feint_dist_curve *curve;
  const feint_mesh *m;
  int32_t *key;
} curve_job;

static void curve_keys(int64_t begin, int64_t end, void *arg) {
  const curve_job *j = arg;
  const feint_mesh *m = j->m;
  const double *xs[3] = {m->x, m->y, m->z};
  for (int64_t c = begin; c < end; c++) {
    double sum[3] = {0, 0, 0};
    int nv = 0;
    for (; nv < m->nv && m->cells[c * m->nv + nv] >= 0; nv++)
      for (int a = 0; a < m->dim; a++) sum[a] += xs[a][m->cells[c * m->nv + nv]];
    j->key[c] = feint_morton_key(m->dim, j->curve->bits, nv, sum, j->curve->lo, j->curve->hi);
  }
}

int feint_dist_curve_count(const feint_dist_curve *curve, const feint_mesh *m, int32_t **keys, int32_t *counts) {
  *keys = NULL;
  curve_job j = {curve, m, NULL};
  FEINT_CALL(feint_malloc((size_t)m->n_cells + 1, sizeof *j.key, &j.key, "the partition's curve"));
  feint_parallel_for(m->n_cells, 1 << 14, curve_keys, &j);
  memset(counts, 0, (size_t)curve->n_boxes * sizeof *counts);
  for (int64_t c = 0; c < m->n_cells; c++) counts[j.key[c]]++;
  *keys = j.key;
  return FEINT_OK;
}

int feint_dist_curve_parts(const feint_dist_curve *curve, const int32_t *keys, int64_t n, const int32_t *const *counts,
                           int rank, int size, int nparts, int *part) {
  const int64_t n_boxes = curve->n_boxes, n_cells = curve->n_cells;
  int64_t *place = NULL;
  FEINT_CALL(feint_malloc((size_t)n_boxes + 1, sizeof *place, &place, "the partition's curve"));
  /* the first place of this share's cells in each box: every share's cells in the boxes before it, and the
   * earlier shares' (earlier cells) in it */
  int64_t before = 0;
  for (int64_t k = 0; k < n_boxes; k++) {
    int64_t in_box = 0, earlier = 0;
    for (int q = 0; q < size; q++) {
      in_box += counts[q][k];
      if (q < rank) earlier += counts[q][k];
    }
    place[k] = before + earlier;
    before += in_box;
  }
  int status = FEINT_OK;
  if (before != n_cells)
    status = feint_error_set(FEINT_ERR_COMPUTE, "internal: the curve's counts hold %lld cells, not %lld",
                             (long long)before, (long long)n_cells);
  /* the cell at curve position q goes to part q * nparts / n */
  for (int64_t c = 0; !status && c < n; c++) part[c] = (int)(place[keys[c]]++ * nparts / n_cells);
  free(place);
  return status;
}

int feint_dist_partition_curve(const feint_mesh *m, int nparts, int *part) {
  feint_dist_curve curve;
  FEINT_CALL(feint_dist_curve_create(m, m->n_cells, &curve));
  int32_t *keys = NULL, *counts = NULL;
  int status = feint_malloc((size_t)curve.n_boxes, sizeof *counts, &counts, "the partition's curve");
  if (!status) status = feint_dist_curve_count(&curve, m, &keys, counts);
  const int32_t *const all[1] = {counts};
  if (!status) status = feint_dist_curve_parts(&curve, keys, m->n_cells, all, 0, 1, nparts, part);
  free(keys);
  free(counts);
  return status;
}

int feint_dist_curve_parts_of_share(feint_comm *comm, int status_in, const feint_mesh *share, int64_t whole_cells,
                                    int **parts) {
  const int size = feint_comm_size(comm), rank = feint_comm_rank(comm);
  *parts = NULL;
  feint_dist_curve curve;
  memset(&curve, 0, sizeof curve);
  int32_t *keys = NULL, *counts = NULL;
  int status = status_in;
  if (!status) status = feint_dist_curve_create(share, whole_cells, &curve);
  if (!status) status = feint_malloc((size_t)curve.n_boxes, sizeof *counts, &counts, "the curve's counts");
  if (!status) status = feint_dist_curve_count(&curve, share, &keys, counts);
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
  const int exchanged = feint_comm_exchange(comm, out, in, in_bytes);
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
