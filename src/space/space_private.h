/* Private to src/space: what space.c (simplices), tensor_space.c
 * (quadrilaterals, hexahedra, prisms) and mixed_space.c share. */
#ifndef FEINT_SPACE_PRIVATE_H
#define FEINT_SPACE_PRIVATE_H

#include "feint/space.h"

/* Number the region's mesh edges by their sorted vertex-dof pair
 * (space.h): edge_of[cell * ne + e] = edge id, and the lookup arrays
 * edge_ptr / edge_upper of feint_space. vdof: mesh node -> vertex dof. */
int feint_space_number_edges(const feint_mesh *mesh, const int64_t *vdof, int64_t n_vertices,
                             int64_t **edge_of_out, int64_t *n_edges_out, int64_t **edge_ptr_out,
                             int64_t **edge_upper_out);

/* s->cell_dofs from s->scalar_cell_dofs (interleaved components). */
int feint_space_expand_components(feint_space *s);

/* feint_space_create for quadrilateral, hexahedral and prism meshes. */
int feint_space_tensor_create(const feint_mesh *mesh, int order, int components, feint_space **out);

/* feint_space_create for mixed meshes (src/space/mixed_space.c). */
int feint_space_mixed_create(const feint_mesh *mesh, int order, int components, feint_space **out);

/* The blocks' elements of a mixed mesh's space s (mesh, order and
 * components set), of one node family; nb, nbc the widest's. */
int feint_space_mixed_elements(feint_space *s, feint_node_family family);

/* The end of creating s once its scalar_cell_dofs and n_scalar_dofs are
 * set (status: FEINT_OK so far, or the error met): the dof coordinates of
 * every block's cells from their first-order maps at the element nodes,
 * the component expansion, n_dofs; *out = s, or s destroyed on failure. */
int feint_space_finish(feint_space *s, int status, feint_space **out);

#endif
