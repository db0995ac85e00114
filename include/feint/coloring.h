/* feint coloring: the greedy colouring of cells, or of chunks of
 * consecutive cells, such that no two of one colour share a scalar dof.
 * The colored assembly strategy runs one colour at a time, each without
 * write conflicts. The CUDA backend colours chunks on the GPU for large
 * meshes (src/backend/cuda/cell_order.cu); its colours are these. */
#ifndef FEINT_COLORING_H
#define FEINT_COLORING_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The most colours the colourings take: a mesh needing more is an error
 * (the P1 block kernels' chunks need a few dozen). */
#define FEINT_MAX_COLOURS 512

/* Chunks of cb consecutive cells (cb = 1: the cells themselves) in the
 * order `order` (position -> cell, n_cells entries; NULL: mesh order),
 * the last chunk holding what is left: chunk b, in increasing b, takes the
 * smallest colour that no earlier chunk sharing a scalar dof with it has.
 * sdofs: the scalar cell dofs (n_cells x nb, each in [0, n_scalar_dofs)).
 * color: ceil(n_cells / cb) entries, written; *n_colors the colours used.
 * More than max_colours (<= FEINT_MAX_COLOURS) needed: FEINT_ERR_COMPUTE
 * "<phase>: more than N colours needed". */
int feint_colour_chunks(const int64_t *sdofs, int64_t n_cells, int nb, int64_t n_scalar_dofs, const int *order, int cb,
                        int max_colours, const char *phase, int *color, int *n_colors);

/* The same colouring from the chunks' conflict graph: each edge is
 * chunk << cbits | an earlier chunk sharing a dof with it, the edges
 * sorted by chunk (repeats allowed), n_edges of them, for n_chunks chunks
 * (< 2^cbits). The GPU colouring builds the graph on the device and
 * colours it here. Same outputs and errors as feint_colour_chunks. */
int feint_colour_graph(int64_t n_chunks, const uint64_t *edges, int64_t n_edges, int cbits, int max_colours,
                       const char *phase, int *color, int *n_colors);

#ifdef __cplusplus
}
#endif
#endif
