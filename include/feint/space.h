/* feint function space: Lagrange dofs numbered from the mesh topology.
 *
 * Scalar dofs: first the mesh vertices used by region cells (in mesh node
 * order), then one block of (order-1) dofs per mesh edge (edges numbered in
 * order of their sorted vertex pair, interior nodes running from the lower
 * to the higher numbered vertex, so neighbours agree), then cell interiors.
 * Vector spaces interleave components: dof = scalar_dof * components + c,
 * and a cell's local dof i*components + c is component c of scalar basis
 * function i. Orders 1..7 on triangles, 1..2 on tetrahedra (face dofs with
 * orientation come with the high-order work). */
#ifndef FEINT_SPACE_H
#define FEINT_SPACE_H

#include <stdint.h>

#include "feint/fe.h"
#include "feint/mesh.h"

typedef struct {
  const feint_mesh *mesh;    /* not owned */
  feint_element *element;    /* owned: the scalar reference element */
  int order;
  int components;
  int nb;                    /* scalar basis functions per cell */
  int nbc;                   /* nb * components: local dofs per cell */
  int64_t n_scalar_dofs;
  int64_t n_dofs;            /* n_scalar_dofs * components */
  int64_t *scalar_cell_dofs; /* n_cells x nb */
  int64_t *cell_dofs;        /* n_cells x nbc (points to scalar_cell_dofs when components == 1) */
  double *coordinates;       /* n_scalar_dofs x 3: where each scalar dof sits */
} feint_space;

int feint_space_create(const feint_mesh *mesh, int order, int components, feint_space **out);
void feint_space_destroy(feint_space *space);

#endif
