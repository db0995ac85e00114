/* feint cell order: the cells in the order of a Morton (Z-order) curve
 * through their centroids, so that a run of consecutive cells (a chunk of
 * the CUDA backend's P1 block kernels) is a compact piece of the mesh
 * whatever the file's cell order: fewer distinct nodes per chunk, so fewer
 * flush targets and atomics and more cache reuse. The results stay in the
 * user's numbering: only the order in which kernels visit cells changes.
 * The CUDA backend builds the same order on the GPU
 * (src/backend/cuda/cell_order.cu) from the same key (feint/morton.h). */
#ifndef FEINT_CELL_ORDER_H
#define FEINT_CELL_ORDER_H

#include <stdint.h>

#include "feint/mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The curve through a mesh: `bits` per axis over the box lo..hi. */
typedef struct {
  int dim, nv, bits;
  double lo[3], hi[3];
} feint_curve;

/* The mesh's curve: the box of all its nodes (z = 0 where the mesh has
 * none), and bits per axis such that the 2^(dim * bits) boxes hold 2 to 4
 * cells each on average (at least 1, at most FEINT_MORTON_MAX_BITS). */
void feint_curve_of_mesh(const feint_mesh *m, feint_curve *c);

/* order[position] = mesh cell (n_cells entries, caller's array): the cells
 * by increasing key (feint_morton_key of c), cells of one key in mesh
 * order. A counting sort over the boxes, the keys computed on every core:
 * O(cells + boxes), deterministic. FEINT_ERR_COMPUTE (naming phase) out of
 * memory or past 2^31 cells. */
int feint_curve_order(const feint_mesh *m, const feint_curve *c, int *order, const char *phase);

#ifdef __cplusplus
}
#endif
#endif
