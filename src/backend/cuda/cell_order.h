/* The P1 block kernels' cell order and chunk colouring, built on the GPU
 * (private to the CUDA backend). Both give exactly what the host
 * reference in src/plan/ gives (feint_curve_order's counting sort over
 * the same feint_morton_key, feint_colour_chunks), so the kernels sum in
 * the same order and the results are bitwise the same; t503-bplan-gpu
 * compares them. */
#ifndef FEINT_CUDA_CELL_ORDER_H
#define FEINT_CUDA_CELL_ORDER_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The cells sorted by the Morton key of their centroid: `bits` bits per
 * axis over the box lo..hi, cells of one key in mesh order (a stable radix
 * sort). Coordinates in double on the device (n_nodes each; z NULL in
 * 2D), cells int32 (n_cells x nv). *d_order: a new device array of
 * n_cells cell indices, position -> mesh cell (cudaFree it). */
int feint_cuda_curve_order(int64_t n_cells, int nv, int dim, int bits, const double lo[3], const double hi[3],
                           const double *d_x, const double *d_y, const double *d_z, const int *d_cells,
                           int **d_order);

/* The greedy colouring of the chunks of cb consecutive cells (in the
 * order d_order, NULL: mesh order): chunk b, in increasing b, takes the
 * smallest colour that no earlier chunk sharing a scalar dof with it has.
 * Its adjacency is built on the GPU (the (dof, chunk) pairs sorted, the
 * chunks of each dof paired, the pairs sorted and made unique), the
 * colouring itself on the host over that small graph. d_sdofs: int32
 * scalar cell dofs (n_cells x nb) in [0, n_scalar_dofs). color: n_chunks
 * = ceil(n_cells / cb) entries. More than max_colours colours:
 * FEINT_ERR_COMPUTE "<phase>: more than N colours needed". */
int feint_cuda_chunk_colouring(const int *d_sdofs, int64_t n_cells, int nb, int64_t n_scalar_dofs,
                               const int *d_order, int cb, int max_colours, int *color, int *n_colors,
                               const char *phase);

#ifdef __cplusplus
}
#endif
#endif
