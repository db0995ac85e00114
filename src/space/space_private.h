/* Private to src/space: what space.c (simplices) and tensor_space.c
 * (quadrilaterals, hexahedra) share. */
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

/* feint_space_create for quadrilateral and hexahedral meshes. */
int feint_space_tensor_create(const feint_mesh *mesh, int order, int components, feint_space **out);

#endif
