/* Lagrange elements of order 1..7 on the reference segment, triangle and
 * tetrahedron (the quadrilateral and hexahedron: tensor_element.c).
 *
 * Nodes lie on the equispaced lattice {(i, j[, k]) / p}. They are ordered by
 * entity (see feint/fe.h):
 *   - the vertices;
 *   - for each reference edge (a, b), its p - 1 interior nodes
 *     v_a + (k / p)(v_b - v_a), k = 1 .. p - 1 (from a towards b);
 *   - tetrahedron only: for each reference face (a, b, c), its
 *     (p - 1)(p - 2) / 2 interior nodes
 *       ((p - i - j) v_a + i v_b + j v_c) / p,  i, j >= 1, i + j <= p - 1,
 *     with j in the outer loop and i in the inner loop (lattice order in the
 *     face's own frame anchored at its lowest vertex a);
 *   - (the segment has one edge, itself: vertices 0 and 1, then the p - 1
 *     nodes k / p; entity_dofs = {1, p - 1, 0, 0});
 *   - the cell interior in lattice order: the points (i, j) / p (triangle)
 *     or (i, j, k) / p (tetrahedron) with all indices >= 1 and sum <= p - 1,
 *     k outermost, then j, with i innermost (x varies fastest).
 *
 * The basis is the inverse of the Vandermonde matrix of the monomials
 * x^a y^b [z^c] of total degree <= p at the nodes, computed by LU
 * factorisation with partial pivoting: basis function i is
 *   phi_i = sum_j coeffs[i * nb + j] * monomial_j,
 * monomial_j = prod_d x_d^monomials[j * dim + d]. Orders <= 7 keep the
 * Vandermonde matrix well enough conditioned (Kronecker errors <= 5e-12 at
 * p = 7 on the tetrahedron). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fe/tensor_element.h"
#include "feint/error.h"
#include "feint/fe.h"

#define FEINT_ELEMENT_MAX_ORDER 7

static const int ref_vertices[2][4][3] = {
    {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 0}},
    {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}},
};

/* LU with partial pivoting of the n x n row-major matrix a, in place. */
static int lu_factor(int n, double *a, int *piv) {
  for (int k = 0; k < n; k++) {
    int best = k;
    for (int i = k + 1; i < n; i++)
      if (fabs(a[i * n + k]) > fabs(a[best * n + k])) best = i;
    piv[k] = best;
    if (a[best * n + k] == 0.0) return -1;
    if (best != k)
      for (int j = 0; j < n; j++) {
        double t = a[k * n + j];
        a[k * n + j] = a[best * n + j];
        a[best * n + j] = t;
      }
    double inv = 1.0 / a[k * n + k];
    for (int i = k + 1; i < n; i++) {
      double l = a[i * n + k] * inv;
      a[i * n + k] = l;
      if (l != 0.0)
        for (int j = k + 1; j < n; j++) a[i * n + j] -= l * a[k * n + j];
    }
  }
  return 0;
}

static void lu_solve(int n, const double *a, const int *piv, double *b) {
  for (int k = 0; k < n; k++) {
    if (piv[k] != k) {
      double t = b[k];
      b[k] = b[piv[k]];
      b[piv[k]] = t;
    }
  }
  for (int i = 1; i < n; i++)
    for (int j = 0; j < i; j++) b[i] -= a[i * n + j] * b[j];
  for (int i = n - 1; i >= 0; i--) {
    for (int j = i + 1; j < n; j++) b[i] -= a[i * n + j] * b[j];
    b[i] /= a[i * n + i];
  }
}

/* Append the lattice point with integer coordinates l (over p). */
static void put_node(feint_element *el, int *count, const int l[3]) {
  for (int d = 0; d < el->dim; d++) el->nodes[*count * el->dim + d] = (double)l[d] / el->order;
  (*count)++;
}

static void make_nodes(feint_element *el) {
  const int p = el->order, dim = el->dim, ci = el->cell == FEINT_CELL_TETRAHEDRON;
  if (dim == 1) {
    for (int k = 0; k <= p; k++) el->nodes[k] = k == 0 ? 0.0 : k == 1 ? 1.0 : (double)(k - 1) / p;
    return;
  }
  const int(*V)[3] = ref_vertices[ci];
  int count = 0, l[3];
  for (int v = 0; v < dim + 1; v++) {
    for (int d = 0; d < 3; d++) l[d] = p * V[v][d];
    put_node(el, &count, l);
  }
  for (int e = 0; e < feint_cell_num_edges(el->cell); e++) {
    int ab[2];
    feint_cell_edge(el->cell, e, ab);
    for (int k = 1; k < p; k++) {
      for (int d = 0; d < 3; d++) l[d] = (p - k) * V[ab[0]][d] + k * V[ab[1]][d];
      put_node(el, &count, l);
    }
  }
  if (dim == 3) {
    for (int f = 0; f < feint_cell_num_faces(el->cell); f++) {
      int abc[3];
      feint_cell_face(el->cell, f, abc);
      for (int j = 1; j < p; j++)
        for (int i = 1; i + j < p; i++) {
          for (int d = 0; d < 3; d++)
            l[d] = (p - i - j) * V[abc[0]][d] + i * V[abc[1]][d] + j * V[abc[2]][d];
          put_node(el, &count, l);
        }
    }
    for (int k = 1; k < p; k++)
      for (int j = 1; j + k < p; j++)
        for (int i = 1; i + j + k < p; i++) {
          l[0] = i;
          l[1] = j;
          l[2] = k;
          put_node(el, &count, l);
        }
  } else {
    for (int j = 1; j < p; j++)
      for (int i = 1; i + j < p; i++) {
        l[0] = i;
        l[1] = j;
        l[2] = 0;
        put_node(el, &count, l);
      }
  }
}

static void make_monomials(feint_element *el) {
  const int p = el->order;
  int count = 0;
  for (int deg = 0; deg <= p; deg++) {
    if (el->dim == 1) {
      el->monomials[count++] = deg;
    } else if (el->dim == 2) {
      for (int b = 0; b <= deg; b++) {
        el->monomials[2 * count + 0] = deg - b;
        el->monomials[2 * count + 1] = b;
        count++;
      }
    } else {
      for (int c = 0; c <= deg; c++)
        for (int b = 0; b + c <= deg; b++) {
          el->monomials[3 * count + 0] = deg - b - c;
          el->monomials[3 * count + 1] = b;
          el->monomials[3 * count + 2] = c;
          count++;
        }
    }
  }
}

/* Monomial values (and gradients, if mg) at one point. */
static void eval_monomials(const feint_element *el, const double *x, double *m, double *mg) {
  const int p = el->order, dim = el->dim, nb = el->nb;
  double pw[3][FEINT_ELEMENT_MAX_ORDER + 1];
  for (int d = 0; d < dim; d++) {
    pw[d][0] = 1.0;
    for (int k = 1; k <= p; k++) pw[d][k] = pw[d][k - 1] * x[d];
  }
  for (int j = 0; j < nb; j++) {
    const int *e = el->monomials + j * dim;
    double v = 1.0;
    for (int d = 0; d < dim; d++) v *= pw[d][e[d]];
    m[j] = v;
    if (mg)
      for (int d = 0; d < dim; d++) {
        double g = 0.0;
        if (e[d] > 0) {
          g = e[d] * pw[d][e[d] - 1];
          for (int d2 = 0; d2 < dim; d2++)
            if (d2 != d) g *= pw[d2][e[d2]];
        }
        mg[j * dim + d] = g;
      }
  }
}

int feint_element_create(feint_cell_type cell, int order, feint_element **out) {
  *out = NULL;
  if (cell == FEINT_CELL_QUADRILATERAL || cell == FEINT_CELL_HEXAHEDRON)
    return feint_tensor_element_create(cell, order, out);
  if (cell == FEINT_CELL_PRISM) return feint_prism_element_create(order, out);
  if (cell != FEINT_CELL_TRIANGLE && cell != FEINT_CELL_TETRAHEDRON && cell != FEINT_CELL_SEGMENT)
    return feint_error_set(FEINT_ERR_INPUT, "element: unknown cell type %d", (int)cell);
  if (order < 1 || order > FEINT_ELEMENT_MAX_ORDER)
    return feint_error_set(FEINT_ERR_INPUT,
                           "Lagrange element order %d on a %s is not supported (orders 1..%d)",
                           order, feint_cell_name(cell), FEINT_ELEMENT_MAX_ORDER);
  const int p = order, dim = feint_cell_dim(cell);
  const int nb = dim == 1 ? p + 1 : dim == 2 ? (p + 1) * (p + 2) / 2 : (p + 1) * (p + 2) * (p + 3) / 6;
  feint_element *el;
  FEINT_CALL(feint_calloc(1, sizeof *el, &el, "element"));
  el->cell = cell;
  el->order = p;
  el->dim = dim;
  el->nb = nb;
  el->entity_dofs[0] = 1;
  el->entity_dofs[1] = p - 1;
  el->entity_dofs[2] = dim == 1 ? 0 : (p - 1) * (p - 2) / 2;
  el->entity_dofs[3] = dim == 1   ? 0
                       : dim == 2 ? (p - 1) * (p - 2) / 2
                                  : (p - 1) * (p - 2) * (p - 3) / 6;

  double *vand = NULL;
  int *piv = NULL;
  int status;
  if ((status = feint_malloc((size_t)nb * dim, sizeof(double), &el->nodes, "element nodes")) ||
      (status = feint_malloc((size_t)nb * nb, sizeof(double), &el->coeffs, "element coefficients")) ||
      (status = feint_malloc((size_t)nb * dim, sizeof(int), &el->monomials, "element monomials")) ||
      (status = feint_malloc((size_t)nb * nb, sizeof(double), &vand, "Vandermonde matrix")) ||
      (status = feint_malloc((size_t)nb, sizeof(int), &piv, "pivots")))
    goto fail;
  make_nodes(el);
  make_monomials(el);
  for (int i = 0; i < nb; i++) eval_monomials(el, el->nodes + i * dim, vand + i * nb, NULL);
  if (lu_factor(nb, vand, piv)) {
    status = feint_error_set(FEINT_ERR_COMPUTE, "singular Vandermonde matrix for P%d on a %s", p,
                             feint_cell_name(cell));
    goto fail;
  }
  /* V[i][j] = m_j(node_i); phi_k(node_i) = sum_j V[i][j] c_kj = delta_ik, so row k of coeffs
   * solves V c_k = e_k. */
  for (int k = 0; k < nb; k++) {
    double *c = el->coeffs + k * nb;
    memset(c, 0, (size_t)nb * sizeof *c);
    c[k] = 1.0;
    lu_solve(nb, vand, piv, c);
  }
  free(vand);
  free(piv);
  *out = el;
  return FEINT_OK;
fail:
  free(vand);
  free(piv);
  feint_element_destroy(el);
  return status;
}

void feint_element_destroy(feint_element *el) {
  if (!el) return;
  free(el->nodes);
  free(el->coeffs);
  free(el->monomials);
  free(el->nodes1d);
  feint_element_destroy(el->factor[0]);
  feint_element_destroy(el->factor[1]);
  free(el);
}

void feint_element_tabulate(const feint_element *el, int npoints, const double *points,
                            double *values, double *grads) {
  if (el->nodes1d) {
    feint_tensor_element_tabulate(el, npoints, points, values, grads);
    return;
  }
  if (el->factor[0]) {
    feint_prism_element_tabulate(el, npoints, points, values, grads);
    return;
  }
  const int nb = el->nb, dim = el->dim;
  /* nb <= 120 for order 7 on the tetrahedron */
  double m[120], mg[120 * 3];
  for (int q = 0; q < npoints; q++) {
    eval_monomials(el, points + q * dim, m, grads ? mg : NULL);
    for (int i = 0; i < nb; i++) {
      const double *c = el->coeffs + i * nb;
      if (values) {
        double v = 0.0;
        for (int j = 0; j < nb; j++) v += c[j] * m[j];
        values[q * nb + i] = v;
      }
      if (grads) {
        double g[3] = {0.0, 0.0, 0.0};
        for (int j = 0; j < nb; j++)
          for (int d = 0; d < dim; d++) g[d] += c[j] * mg[j * dim + d];
        for (int d = 0; d < dim; d++) grads[(q * nb + i) * dim + d] = g[d];
      }
    }
  }
}
