/* Node numbering along a Morton (Z-order) curve (feint_mesh_reorder_nodes):
 * nodes close in space get close numbers, so the vertices a block of
 * neighbouring cells reads lie in few memory sectors (the GPU kernels
 * gather them per chunk of cells), whatever order the mesh generator
 * left them in (Gmsh's refinement appends each level's new nodes). */
#include <stdint.h>
#include <stdlib.h>

#include "feint/error.h"
#include "feint/mesh.h"
#include "feint/morton.h"

typedef struct {
  uint64_t key;
  int64_t node;
} keyed_node;

static int by_key(const void *a, const void *b) {
  const keyed_node *p = a, *q = b;
  if (p->key != q->key) return p->key < q->key ? -1 : 1;
  return (p->node > q->node) - (p->node < q->node); /* ties in node order: deterministic */
}

/* Coordinate c of each node quantized to 21 bits over the bounding box. */
static uint64_t quantize(double v, double lo, double span) {
  if (!(span > 0)) return 0;
  const double t = (v - lo) / span * 2097151.0;
  return t <= 0 ? 0 : t >= 2097151.0 ? 2097151u : (uint64_t)t;
}

int feint_mesh_reorder_nodes(feint_mesh *m) {
  const int64_t n = m->n_nodes;
  if (n < 2) return FEINT_OK;
  double lo[3] = {m->x[0], m->y[0], m->z[0]}, hi[3] = {m->x[0], m->y[0], m->z[0]};
  for (int64_t i = 0; i < n; i++) {
    const double p[3] = {m->x[i], m->y[i], m->z[i]};
    for (int d = 0; d < 3; d++) {
      if (p[d] < lo[d]) lo[d] = p[d];
      if (p[d] > hi[d]) hi[d] = p[d];
    }
  }
  keyed_node *order = NULL;
  int64_t *new_of_old = NULL;
  double *xyz = NULL;
  int st = feint_malloc((size_t)n, sizeof *order, &order, "node order");
  if (!st) st = feint_malloc((size_t)n, sizeof *new_of_old, &new_of_old, "node order");
  if (!st) st = feint_malloc((size_t)n * 3, sizeof *xyz, &xyz, "node order");
  if (st) goto done;
  for (int64_t i = 0; i < n; i++) {
    const uint64_t qx = quantize(m->x[i], lo[0], hi[0] - lo[0]), qy = quantize(m->y[i], lo[1], hi[1] - lo[1]),
                   qz = quantize(m->z[i], lo[2], hi[2] - lo[2]);
    order[i] = (keyed_node){feint_morton_interleave(3, qz, qy, qx), i}; /* z's bit highest of a level */
  }
  qsort(order, (size_t)n, sizeof *order, by_key);
  for (int64_t k = 0; k < n; k++) {
    const int64_t old = order[k].node;
    new_of_old[old] = k;
    xyz[3 * k] = m->x[old];
    xyz[3 * k + 1] = m->y[old];
    xyz[3 * k + 2] = m->z[old];
  }
  for (int64_t k = 0; k < n; k++) {
    m->x[k] = xyz[3 * k];
    m->y[k] = xyz[3 * k + 1];
    m->z[k] = xyz[3 * k + 2];
  }
  for (int64_t k = 0; k < m->n_cells * m->nv; k++)
    if (m->cells[k] >= 0) m->cells[k] = new_of_old[m->cells[k]];
  const int64_t n_facet_entries = m->facet_offsets ? m->facet_offsets[m->n_groups] * m->nv_facet : 0;
  for (int64_t k = 0; k < n_facet_entries; k++)
    if (m->facets[k] >= 0) m->facets[k] = new_of_old[m->facets[k]];
done:
  free(order);
  free(new_of_old);
  free(xyz);
  return st;
}
