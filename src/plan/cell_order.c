/* feint_curve_of_mesh, feint_curve_order: see feint/cell_order.h. */
#include "feint/cell_order.h"

#include <stdlib.h>

#include "feint/error.h"
#include "feint/morton.h"
#include "feint/parallel.h"

void feint_curve_of_mesh(const feint_mesh *m, feint_curve *c) {
  const int64_t n = m->n_cells;
  c->dim = m->dim;
  c->nv = m->nv;
  c->bits = 1;
  while (c->bits < FEINT_MORTON_MAX_BITS && ((int64_t)1 << (c->dim * (c->bits + 1))) <= n / 2) c->bits++;
  for (int a = 0; a < 3; a++) c->lo[a] = c->hi[a] = 0;
  for (int64_t v = 0; v < m->n_nodes; v++) {
    const double x[3] = {m->x[v], m->y[v], m->z ? m->z[v] : 0};
    for (int a = 0; a < 3; a++) {
      if (v == 0 || x[a] < c->lo[a]) c->lo[a] = x[a];
      if (v == 0 || x[a] > c->hi[a]) c->hi[a] = x[a];
    }
  }
}

typedef struct {
  const feint_mesh *m;
  const feint_curve *c;
  int *key;
} key_job;

static void keys_range(int64_t begin, int64_t end, void *ctx) {
  const key_job *j = ctx;
  const feint_mesh *m = j->m;
  const feint_curve *c = j->c;
  const double *xs[3] = {m->x, m->y, m->z};
  for (int64_t cell = begin; cell < end; cell++) {
    double sum[3] = {0, 0, 0};
    for (int a = 0; a < c->dim; a++)
      for (int i = 0; i < c->nv; i++) sum[a] = FEINT_DADD(sum[a], xs[a][m->cells[cell * c->nv + i]]);
    j->key[cell] = feint_morton_key(c->dim, c->bits, c->nv, sum, c->lo, c->hi);
  }
}

int feint_curve_order(const feint_mesh *m, const feint_curve *c, int *order, const char *phase) {
  const int64_t n = m->n_cells, n_box = (int64_t)1 << (c->dim * c->bits);
  if (n >= INT32_MAX) return feint_error_set(FEINT_ERR_COMPUTE, "%s: more than 2^31 cells", phase);
  int *key = NULL;
  int64_t *start = NULL;
  int status;
  if ((status = feint_malloc(n > 0 ? (size_t)n : 1, sizeof *key, &key, phase)) ||
      (status = feint_calloc((size_t)n_box + 1, sizeof *start, &start, phase))) {
    free(key);
    return status;
  }
  key_job j = {m, c, key};
  feint_parallel_for(n, 1 << 14, keys_range, &j);
  /* counting sort: start[k] the first position of box k, cells in mesh
   * order within a box (the GPU's stable radix sort gives the same) */
  for (int64_t cell = 0; cell < n; cell++) start[key[cell] + 1]++;
  for (int64_t k = 0; k < n_box; k++) start[k + 1] += start[k];
  for (int64_t cell = 0; cell < n; cell++) order[start[key[cell]]++] = (int)cell;
  free(key);
  free(start);
  return FEINT_OK;
}
