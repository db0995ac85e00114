/* Tensor-product Lagrange elements of order 1..15 on the reference
 * quadrilateral [-1,1]^2 and hexahedron [-1,1]^3: the product of the 1D
 * Lagrange bases on the p+1 Gauss-Lobatto-Legendre points, nodes in
 * lexicographic order (include/feint/fe.h). Values and gradients come
 * from the 1D basis and its derivative in each direction (tensor.h), so no
 * Vandermonde matrix is formed and high orders stay exact to round-off. */
#include "fe/tensor_element.h"

#include <stdlib.h>

#include "feint/error.h"
#include "feint/tensor.h"

int feint_tensor_element_create(feint_cell_type cell, int order, feint_element **out) {
  *out = NULL;
  if (order < 1 || order > FEINT_TENSOR_ELEMENT_MAX_ORDER)
    return feint_error_set(FEINT_ERR_INPUT, "Lagrange element order %d on a %s is not supported (orders 1..%d)",
                           order, feint_cell_name(cell), FEINT_TENSOR_ELEMENT_MAX_ORDER);
  const int p = order, n = p + 1, dim = feint_cell_dim(cell);
  feint_element *el;
  FEINT_CALL(feint_calloc(1, sizeof *el, &el, "element"));
  el->cell = cell;
  el->family = FEINT_NODES_LOBATTO;
  el->order = p;
  el->dim = dim;
  el->nb = dim == 2 ? n * n : n * n * n;
  el->entity_dofs[0] = 1;
  el->entity_dofs[1] = p - 1;
  el->entity_dofs[2] = (p - 1) * (p - 1);
  el->entity_dofs[3] = dim == 2 ? (p - 1) * (p - 1) : (p - 1) * (p - 1) * (p - 1);
  double w[FEINT_TENSOR_MAX_POINTS];
  int status;
  if ((status = feint_malloc((size_t)n, sizeof(double), &el->nodes1d, "element GLL points")) ||
      (status = feint_gauss_lobatto(n, el->nodes1d, w)) ||
      (status = feint_malloc((size_t)el->nb * dim, sizeof(double), &el->nodes, "element nodes"))) {
    feint_element_destroy(el);
    return status;
  }
  for (int i = 0; i < el->nb; i++)
    for (int d = 0, r = i; d < dim; d++, r /= n) el->nodes[i * dim + d] = el->nodes1d[r % n];
  *out = el;
  return FEINT_OK;
}

void feint_tensor_element_tabulate(const feint_element *el, int npoints, const double *points, double *values,
                                   double *grads) {
  const int n = el->order + 1, dim = el->dim, nb = el->nb;
  double I[3][FEINT_TENSOR_MAX_POINTS], D[3][FEINT_TENSOR_MAX_POINTS];
  for (int q = 0; q < npoints; q++) {
    /* the nodes are distinct and n is in range: this cannot fail */
    for (int d = 0; d < dim; d++) (void)feint_lagrange_matrices(n, el->nodes1d, 1, points + q * dim + d, I[d], D[d]);
    for (int i = 0; i < nb; i++) {
      int idx[3] = {i % n, (i / n) % n, i / (n * n)};
      if (values) {
        double v = 1;
        for (int d = 0; d < dim; d++) v *= I[d][idx[d]];
        values[q * nb + i] = v;
      }
      if (grads)
        for (int d = 0; d < dim; d++) {
          double g = 1;
          for (int e = 0; e < dim; e++) g *= e == d ? D[e][idx[e]] : I[e][idx[e]];
          grads[(q * nb + i) * dim + d] = g;
        }
    }
  }
}

/* ---------------------------------------------------------------- prism
 * The product of the triangle's and the segment's Lagrange elements of the
 * same order and node family: basis function t + nt k is T_t(x, y) S_k(z).
 * Lobatto factors put GLL x GLL nodes on the quadrilateral faces, as on a
 * hexahedron's. */
int feint_prism_element_create(int order, feint_node_family family, feint_element **out) {
  *out = NULL;
  if (order < 1 || order > 7)
    return feint_error_set(FEINT_ERR_INPUT, "Lagrange element order %d on a prism is not supported (orders 1..7)",
                           order);
  feint_element *el;
  FEINT_CALL(feint_calloc(1, sizeof *el, &el, "element"));
  int status = feint_element_create_family(FEINT_CELL_TRIANGLE, order, family, &el->factor[0]);
  if (!status) status = feint_element_create_family(FEINT_CELL_SEGMENT, order, family, &el->factor[1]);
  if (status) {
    feint_element_destroy(el);
    return status;
  }
  const feint_element *T = el->factor[0], *S = el->factor[1];
  const int p = order, nt = T->nb;
  el->cell = FEINT_CELL_PRISM;
  el->family = family;
  el->order = p;
  el->dim = 3;
  el->nb = nt * S->nb;
  el->entity_dofs[0] = 1;
  el->entity_dofs[1] = p - 1;
  el->entity_dofs[2] = T->entity_dofs[3]; /* triangular faces; quadrilateral ones hold (p-1)^2 */
  el->entity_dofs[3] = T->entity_dofs[3] * (p - 1);
  if ((status = feint_malloc((size_t)el->nb * 3, sizeof(double), &el->nodes, "element nodes"))) {
    feint_element_destroy(el);
    return status;
  }
  for (int k = 0; k < S->nb; k++)
    for (int t = 0; t < nt; t++) {
      double *x = el->nodes + 3 * (t + nt * k);
      x[0] = T->nodes[2 * t];
      x[1] = T->nodes[2 * t + 1];
      x[2] = S->nodes[k];
    }
  *out = el;
  return FEINT_OK;
}

void feint_prism_element_tabulate(const feint_element *el, int npoints, const double *points, double *values,
                                  double *grads) {
  const feint_element *T = el->factor[0], *S = el->factor[1];
  const int nt = T->nb, ns = S->nb;
  double tv[36], tg[72], sv[8], sg[8]; /* order <= 7: nt <= 36, ns <= 8 */
  for (int q = 0; q < npoints; q++) {
    const double *x = points + 3 * q;
    feint_element_tabulate(T, 1, x, tv, tg);
    feint_element_tabulate(S, 1, x + 2, sv, sg);
    for (int k = 0; k < ns; k++)
      for (int t = 0; t < nt; t++) {
        const int i = t + nt * k;
        if (values) values[q * el->nb + i] = tv[t] * sv[k];
        if (grads) {
          double *g = grads + (q * el->nb + i) * 3;
          g[0] = tg[2 * t] * sv[k];
          g[1] = tg[2 * t + 1] * sv[k];
          g[2] = tv[t] * sg[k];
        }
      }
  }
}
