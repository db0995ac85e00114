/* Cell geometry, shared by the CPU reference and the kernels: the inverse
 * of a Jacobian, and the affine simplex map built on it. (Tensor-product
 * cells evaluate J per quadrature point from feint_cell_vertex_shape, fe.h,
 * and invert it with the same function.) */
#ifndef FEINT_GEOMETRY_H
#define FEINT_GEOMETRY_H

#include "feint/physics.h" /* FEINT_HOST_DEVICE */

/* J[a*dim + d] = dx_a / dxi_d (dim 2 or 3). Writes the inverse
 * invJ[d*dim + a] = d xi_d / d x_a and returns det J (signed; the volume
 * element is |det J|). */
FEINT_HOST_DEVICE static inline double feint_inverse_jacobian(int dim, const double *J, double *invJ) {
  if (dim == 2) {
    double det = J[0] * J[3] - J[1] * J[2];
    const double r = 1 / det;
    invJ[0] = J[3] * r;
    invJ[1] = -J[1] * r;
    invJ[2] = -J[2] * r;
    invJ[3] = J[0] * r;
    return det;
  }
  double c00 = J[4] * J[8] - J[5] * J[7], c01 = J[5] * J[6] - J[3] * J[8], c02 = J[3] * J[7] - J[4] * J[6];
  double det = J[0] * c00 + J[1] * c01 + J[2] * c02;
  const double r = 1 / det;
  invJ[0] = c00 * r;
  invJ[3] = c01 * r;
  invJ[6] = c02 * r;
  invJ[1] = (J[2] * J[7] - J[1] * J[8]) * r;
  invJ[4] = (J[0] * J[8] - J[2] * J[6]) * r;
  invJ[7] = (J[1] * J[6] - J[0] * J[7]) * r;
  invJ[2] = (J[1] * J[5] - J[2] * J[4]) * r;
  invJ[5] = (J[2] * J[3] - J[0] * J[5]) * r;
  invJ[8] = (J[0] * J[4] - J[1] * J[3]) * r;
  return det;
}

/* J[a*dim + d] = sum_k v[k*3 + a] dN[k*dim + d] at one point of a
 * multilinear cell (quadrilateral, hexahedron, prism): v the coordinates
 * of its nv vertices, dN their shape functions' reference gradients at
 * the point (feint_cell_vertex_shape). */
FEINT_HOST_DEVICE static inline void feint_multilinear_jacobian(int dim, int nv, const double *v, const double *dN,
                                                                double *J) {
  for (int k = 0; k < dim * dim; k++) J[k] = 0;
  for (int k = 0; k < nv; k++)
    for (int a = 0; a < dim; a++)
      for (int d = 0; d < dim; d++) J[a * dim + d] += v[k * 3 + a] * dN[k * dim + d];
}

/* v[k*3 + a]: coordinate a of vertex k (dim+1 vertices) of a simplex.
 * Writes the inverse Jacobian of its affine map as above and returns
 * det J. */
FEINT_HOST_DEVICE static inline double feint_affine_inverse_jacobian(int dim, const double *v, double *invJ) {
  double J[9];
  for (int a = 0; a < dim; a++)
    for (int d = 0; d < dim; d++) J[a * dim + d] = v[(d + 1) * 3 + a] - v[a];
  return feint_inverse_jacobian(dim, J, invJ);
}

#endif
