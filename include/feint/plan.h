/* feint plan: the symbolic phase of assembly, done once per (mesh, space).
 *
 * The CSR pattern of the global matrix (rows = dofs, sorted column indices)
 * and the slot map: for each cell and local entry (i, j) of its element
 * matrix, the position of A(dof_i, dof_j) in the CSR arrays, so numeric
 * assembly is values[slot] += Ke[i][j] with no search. */
#ifndef FEINT_PLAN_H
#define FEINT_PLAN_H

#include <stdint.h>

#include "feint/space.h"

typedef struct {
  int64_t n_rows;
  int64_t nnz;
  int64_t *indptr;   /* n_rows + 1 */
  int32_t *indices;  /* nnz (dofs < 2^31) */
  int64_t n_cells;
  int nbc;           /* local dofs per cell */
  int32_t *slots;    /* n_cells x nbc x nbc, row-major in (i, j) (nnz < 2^31) */
} feint_plan;

int feint_plan_create(const feint_space *space, feint_plan **out);
void feint_plan_destroy(feint_plan *plan);

#endif
