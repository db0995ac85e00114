/* Private to src/fe: the tensor-product Lagrange elements behind
 * feint_element_create / feint_element_tabulate for quadrilaterals and
 * hexahedra, and prisms (see include/feint/fe.h). */
#ifndef FEINT_FE_TENSOR_ELEMENT_H
#define FEINT_FE_TENSOR_ELEMENT_H

#include "feint/fe.h"

#define FEINT_TENSOR_ELEMENT_MAX_ORDER 15

int feint_tensor_element_create(feint_cell_type cell, int order, feint_element **out);
void feint_tensor_element_tabulate(const feint_element *el, int npoints, const double *points, double *values,
                                   double *grads);
/* The prism element: triangle P_p x segment P_p of the node family, orders 1..7. */
int feint_prism_element_create(int order, feint_node_family family, feint_element **out);
void feint_prism_element_tabulate(const feint_element *el, int npoints, const double *points, double *values,
                                  double *grads);

#endif
