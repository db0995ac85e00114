/* Sum-factorised cell kernels of the CPU backend for the tensor-product
 * cells (quadrilaterals and hexahedra, fe.h): element vectors and element
 * matrices from the 1D basis tables of the block's element at the 1D
 * Gauss points of its tensor rule, never the (p+1)^dim x Q^dim tables (a
 * hexahedron of order 15 has 4096 basis functions and, with the default
 * rule, 4913 points: 161 MB per table).
 *
 * With n = p + 1 basis functions and m points per direction:
 *  - element vector (residual, load): u and its reference gradient at the
 *    points by contractions along x, y, z, then the pointwise physics (a
 *    user form: its expressions over all the cell's points at once),
 *    then the transposed contractions: O(n^4 + m^4) per component in 3D
 *    (O(n^2 m^2) in 2D) where the tabulated loop is O(n^3 m^3);
 *  - element matrix: the coefficients g0..g3 mapped to the reference cell
 *    (a (dim+1) x (dim+1) matrix C per point: value and reference
 *    derivatives of the test function against those of the trial one),
 *    contracted along z, then y (terms that share their factors along x
 *    summed), then x: O(m^3 n^2 + m^2 n^4 + m n^6) per component pair
 *    where the tabulated loop is O(m^3 n^6); each entry is written once.
 * The geometry is the cell's multilinear map (a curved cell's: the map of
 * its geometry nodes), its Jacobian evaluated at every point as in the
 * tabulated kernels; coefficient fields on the nodes
 * are interpolated to the points by the same contractions. */
#ifndef FEINT_CPU_TENSOR_CELLS_H
#define FEINT_CPU_TENSOR_CELLS_H

#include <stdint.h>

#include "feint/backend.h"

typedef struct cpu_tensor cpu_tensor;

/* Tables and work arrays for mesh block `block` of p (a quadrilateral or
 * hexahedral block), allocated once; FEINT_ERR_COMPUTE when out of memory
 * (the message names the array and bytes). On a curved mesh, its curved
 * cells (the geometry nodes' map, the form's rules), or with straight its
 * straight cells (the vertices' map, the form's straight rules). */
int cpu_tensor_create(const feint_problem *p, int block, int straight, cpu_tensor **out);
void cpu_tensor_destroy(cpu_tensor *t);
/* Read the rules of form f (the same degrees as the form t was created
 * with: its 1D tables stay) instead: a sweep member's new form. */
void cpu_tensor_use_form(cpu_tensor *t, const feint_form *f);

/* Element vector of cell c (nb * nc values, interleaved components): the
 * residual at the state u_global (n_dofs), or the load vector when
 * u_global is NULL. */
void cpu_tensor_element_vector(cpu_tensor *t, int64_t c, const double *u_global, double *Fe);

/* Element matrix of cell c: nbc x nbc, row-major (row = test dof), every
 * entry written. */
void cpu_tensor_element_matrix(cpu_tensor *t, int64_t c, double *Ke);

#endif
