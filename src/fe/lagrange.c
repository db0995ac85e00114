/* Lagrange elements of order 1..7 on the reference segment, triangle and
 * tetrahedron (the quadrilateral and hexahedron: tensor_element.c).
 *
 * Nodes lie on the equispaced lattice {(i, j[, k]) / p}, or with the
 * Lobatto family at the recursive Gauss-Lobatto point of each lattice
 * index (lobatto_point below). They are ordered by entity (see
 * feint/fe.h), positions given here for the equispaced family:
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
 * The basis is the inverse of the Vandermonde matrix of an orthonormal
 * basis psi_j of the polynomials of total degree <= p (Legendre on the
 * segment, Dubiner on the triangle and tetrahedron: eval_orthonormal) at
 * the nodes, computed by LU factorisation with partial pivoting: basis
 * function i is phi_i = sum_j coeffs[i * nb + j] psi_j. Both node families
 * use it; at p = 7 the Kronecker errors are ~1e-15 (a monomial
 * Vandermonde matrix lost three more digits). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fe/tensor_element.h"
#include "feint/error.h"
#include "feint/fe.h"
#include "feint/tensor.h"

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

/* The Lobatto point of the lattice multi-index alpha (d + 1 entries summing
 * to n) on the d-simplex, as barycentric coordinates b[0..d]: Isaac's
 * recursive construction on the GLL points (SIAM J. Sci. Comput. 42, 2020):
 * on a segment b = (g_n(alpha_0), g_n(alpha_1)), g_n the n+1 GLL points on
 * [0,1] (gll[n]); above, the average of the facets' points
 * x(alpha without entry i), placed on facet i, weighted by
 * g_n(n - alpha_i). A facet's nodes are the lower-dimensional family, so
 * a triangle's edge nodes are the GLL points and a tetrahedron's face
 * nodes the triangle's; the family is symmetric under vertex permutations.
 * (The Blyth-Pozrikidis triangle, equal to this one up to p = 3, has no
 * tetrahedral extension whose faces are its triangles; this family nests,
 * so tetrahedra meet prisms on mixed meshes with hexahedra.) Depth <= 3,
 * so the recursion is cheap. */
static void lobatto_point(const double gll[][FEINT_ELEMENT_MAX_ORDER + 1], int d, const int *alpha,
                          double *b) {
  int n = 0;
  for (int i = 0; i <= d; i++) n += alpha[i];
  if (d == 1) {
    b[0] = gll[n][alpha[0]];
    b[1] = gll[n][alpha[1]];
    return;
  }
  double weight = 0.0;
  for (int i = 0; i <= d; i++) b[i] = 0.0;
  for (int i = 0; i <= d; i++) {
    if (alpha[i] == n) continue; /* the facet opposite a vertex node: weight g_n(0) = 0 */
    int sub[3];
    double bs[3];
    for (int j = 0, k = 0; j <= d; j++)
      if (j != i) sub[k++] = alpha[j];
    lobatto_point(gll, d - 1, sub, bs);
    const double w = gll[n][n - alpha[i]];
    for (int j = 0, k = 0; j <= d; j++)
      if (j != i) b[j] += w * bs[k++];
    weight += w;
  }
  for (int i = 0; i <= d; i++) b[i] /= weight;
}

/* gll[n][k]: the n+1 GLL points on [0,1], n = 1..p (lobatto_point). */
static int gll_tables(int p, double gll[][FEINT_ELEMENT_MAX_ORDER + 1]) {
  double x[FEINT_ELEMENT_MAX_ORDER + 1], w[FEINT_ELEMENT_MAX_ORDER + 1];
  for (int n = 1; n <= p; n++) {
    FEINT_CALL(feint_gauss_lobatto(n + 1, x, w));
    for (int k = 0; k <= n; k++) gll[n][k] = 0.5 * (x[k] + 1.0);
    gll[n][0] = 0.0; /* exact ends and symmetry: edge nodes of neighbours agree bit for bit */
    gll[n][n] = 1.0;
    for (int k = 0; k < n - k; k++) gll[n][n - k] = 1.0 - gll[n][k];
  }
  return FEINT_OK;
}

/* Append the node of lattice point l (integer coordinates, over p):
 * l / p (equispaced) or the Lobatto point of the multi-index
 * (p - sum l, l). */
static void put_node(feint_element *el, const double gll[][FEINT_ELEMENT_MAX_ORDER + 1], int *count,
                     const int l[3]) {
  const int dim = el->dim;
  double *x = el->nodes + *count * dim;
  (*count)++;
  if (el->family == FEINT_NODES_EQUISPACED) {
    for (int d = 0; d < dim; d++) x[d] = (double)l[d] / el->order;
    return;
  }
  int alpha[4] = {el->order, 0, 0, 0};
  double b[4];
  for (int d = 0; d < dim; d++) alpha[0] -= alpha[d + 1] = l[d];
  lobatto_point(gll, dim, alpha, b);
  for (int d = 0; d < dim; d++) x[d] = b[d + 1];
}

static int make_nodes(feint_element *el) {
  const int p = el->order, dim = el->dim, ci = el->cell == FEINT_CELL_TETRAHEDRON;
  double gll[FEINT_ELEMENT_MAX_ORDER + 1][FEINT_ELEMENT_MAX_ORDER + 1];
  if (el->family == FEINT_NODES_LOBATTO) FEINT_CALL(gll_tables(p, gll));
  int count = 0, l[3] = {0, 0, 0};
  if (dim == 1) { /* vertices 0 and 1, then the interior from 0 towards 1 */
    for (int k = 0; k <= p; k++) {
      l[0] = k == 0 ? 0 : k == 1 ? p : k - 1;
      put_node(el, gll, &count, l);
    }
    return FEINT_OK;
  }
  const int(*V)[3] = ref_vertices[ci];
  for (int v = 0; v < dim + 1; v++) {
    for (int d = 0; d < 3; d++) l[d] = p * V[v][d];
    put_node(el, gll, &count, l);
  }
  for (int e = 0; e < feint_cell_num_edges(el->cell); e++) {
    int ab[2];
    feint_cell_edge(el->cell, e, ab);
    for (int k = 1; k < p; k++) {
      for (int d = 0; d < 3; d++) l[d] = (p - k) * V[ab[0]][d] + k * V[ab[1]][d];
      put_node(el, gll, &count, l);
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
          put_node(el, gll, &count, l);
        }
    }
    for (int k = 1; k < p; k++)
      for (int j = 1; j + k < p; j++)
        for (int i = 1; i + j + k < p; i++) {
          l[0] = i;
          l[1] = j;
          l[2] = k;
          put_node(el, gll, &count, l);
        }
  } else {
    for (int j = 1; j < p; j++)
      for (int i = 1; i + j < p; i++) {
        l[0] = i;
        l[1] = j;
        l[2] = 0;
        put_node(el, gll, &count, l);
      }
  }
  return FEINT_OK;
}

/* The orthonormal basis the nodal basis is built from (its Vandermonde
 * matrix at well-spread nodes is well conditioned, unlike the monomials':
 * Kronecker errors 1e-15 instead of 4e-12 at p = 7). Evaluated in the
 * biunit coordinates X = 2 x - 1 of the reference cell, by the
 * singularity-free recurrences of the collapsed-coordinate (Dubiner /
 * Proriol-Koornwinder) polynomials (Kirby, ACM TOMS 37, 2010, as in FIAT):
 * each step multiplies earlier members by linear or quadratic factors, so
 * the gradients follow by the product rule and hold at the collapsed
 * vertex too. Segments: the Legendre polynomials (tensor.h). */
typedef struct {
  double v, d[3]; /* value and gradient in X */
} jet;

static jet jet_linear(const double *X, double c, double cx, double cy, double cz) {
  jet r = {c + cx * X[0] + cy * X[1] + cz * X[2], {cx, cy, cz}};
  return r;
}

static jet jet_mul(jet a, jet b) {
  jet r = {a.v * b.v, {0, 0, 0}};
  for (int d = 0; d < 3; d++) r.d[d] = a.d[d] * b.v + a.v * b.d[d];
  return r;
}

/* s a + t b */
static jet jet_comb(double s, jet a, double t, jet b) {
  jet r = {s * a.v + t * b.v, {0, 0, 0}};
  for (int d = 0; d < 3; d++) r.d[d] = s * a.d[d] + t * b.d[d];
  return r;
}

/* The Jacobi recurrence P_{n+1}^(a,0) = (an X + bn) P_n - cn P_{n-1}, n >= 1. */
static void jacobi_recurrence(int a, int n, double *an, double *bn, double *cn) {
  *an = (2.0 * n + 1 + a) * (2.0 * n + 2 + a) / (2.0 * (n + 1) * (n + 1 + a));
  *bn = (double)a * a * (2.0 * n + 1 + a) / (2.0 * (n + 1) * (2.0 * n + a) * (n + 1 + a));
  *cn = (double)(n + a) * n * (2.0 * n + 2 + a) / ((n + 1.0) * (n + 1 + a) * (2.0 * n + a));
}

enum { ORTHO_N = FEINT_ELEMENT_MAX_ORDER + 1 };

/* Triangle: R[p][q], p + q <= n, at the biunit point X (X[2] = 0). */
static void dubiner_triangle(int n, const double *X, jet R[ORTHO_N][ORTHO_N]) {
  const jet f1 = jet_linear(X, 0.5, 1, 0.5, 0), f2 = jet_linear(X, 0.5, 0, -0.5, 0), f3 = jet_mul(f2, f2);
  R[0][0] = jet_linear(X, 1, 0, 0, 0);
  if (n > 0) R[1][0] = f1;
  for (int p = 1; p < n; p++)
    R[p + 1][0] = jet_comb((2.0 * p + 1) / (p + 1), jet_mul(f1, R[p][0]), -(double)p / (p + 1), jet_mul(f3, R[p - 1][0]));
  for (int p = 0; p < n; p++) R[p][1] = jet_mul(jet_linear(X, 0.5 * (1 + 2 * p), 0, 0.5 * (3 + 2 * p), 0), R[p][0]);
  for (int p = 0; p + 1 < n; p++)
    for (int q = 1; q < n - p; q++) {
      double a, b, c;
      jacobi_recurrence(2 * p + 1, q, &a, &b, &c);
      R[p][q + 1] = jet_comb(1, jet_mul(jet_linear(X, b, 0, a, 0), R[p][q]), -c, R[p][q - 1]);
    }
}

/* Tetrahedron: R[p][q][r], p + q + r <= n, at the biunit point X. */
static void dubiner_tetrahedron(int n, const double *X, jet R[ORTHO_N][ORTHO_N][ORTHO_N]) {
  const jet f1 = jet_linear(X, 1, 1, 0.5, 0.5), g = jet_linear(X, 0, 0, 0.5, 0.5), f2 = jet_mul(g, g);
  const jet f3 = jet_linear(X, 0.5, 0, 1, 0.5), f4 = jet_linear(X, 0.5, 0, 0, -0.5), f5 = jet_mul(f4, f4);
  R[0][0][0] = jet_linear(X, 1, 0, 0, 0);
  if (n > 0) R[1][0][0] = f1;
  for (int p = 1; p < n; p++)
    R[p + 1][0][0] = jet_comb((2.0 * p + 1) / (p + 1), jet_mul(f1, R[p][0][0]), -(double)p / (p + 1),
                              jet_mul(f2, R[p - 1][0][0]));
  for (int p = 0; p < n; p++) R[p][1][0] = jet_mul(R[p][0][0], jet_linear(X, p + 1, 0, p + 1.5, 0.5));
  for (int p = 0; p + 1 < n; p++)
    for (int q = 1; q < n - p; q++) {
      double a, b, c;
      jacobi_recurrence(2 * p + 1, q, &a, &b, &c);
      R[p][q + 1][0] = jet_comb(1, jet_mul(jet_comb(a, f3, b, f4), R[p][q][0]), -c, jet_mul(f5, R[p][q - 1][0]));
    }
  for (int p = 0; p < n; p++)
    for (int q = 0; p + q < n; q++) R[p][q][1] = jet_mul(R[p][q][0], jet_linear(X, 1 + p + q, 0, 0, 2 + p + q));
  for (int p = 0; p + 1 < n; p++)
    for (int q = 0; p + q + 1 < n; q++)
      for (int r = 1; r < n - p - q; r++) {
        double a, b, c;
        jacobi_recurrence(2 * p + 2 * q + 2, r, &a, &b, &c);
        R[p][q][r + 1] = jet_comb(1, jet_mul(jet_linear(X, b, 0, 0, a), R[p][q][r]), -c, R[p][q][r - 1]);
      }
}

/* The nb orthonormal polynomials of degree <= p (and their gradients in x,
 * if mg) at the reference point x, graded by degree. */
static void eval_orthonormal(const feint_element *el, const double *x, double *m, double *mg) {
  const int p = el->order, dim = el->dim;
  double X[3] = {0, 0, 0};
  for (int d = 0; d < dim; d++) X[d] = 2 * x[d] - 1;
  int j = 0;
  if (dim == 1) {
    for (int k = 0; k <= p; k++, j++) {
      double v, dv;
      feint_legendre(k, X[0], &v, &dv);
      m[j] = sqrt(k + 0.5) * v;
      if (mg) mg[j] = 2 * sqrt(k + 0.5) * dv;
    }
    return;
  }
  jet T[ORTHO_N][ORTHO_N], R[ORTHO_N][ORTHO_N][ORTHO_N];
  if (dim == 2) dubiner_triangle(p, X, T);
  else dubiner_tetrahedron(p, X, R);
  for (int deg = 0; deg <= p; deg++)
    for (int c = 0; c <= (dim == 3 ? deg : 0); c++)
      for (int b = 0; b + c <= deg; b++, j++) {
        const int a = deg - b - c;
        const jet *f = dim == 2 ? &T[a][b] : &R[a][b][c];
        const double scale = dim == 2 ? sqrt((a + 0.5) * (a + b + 1)) : sqrt((a + 0.5) * (a + b + 1) * (a + b + c + 1.5));
        m[j] = scale * f->v;
        if (mg)
          for (int d = 0; d < dim; d++) mg[j * dim + d] = 2 * scale * f->d[d];
      }
}

feint_node_family feint_cell_node_family(feint_cell_type cell) {
  return cell == FEINT_CELL_QUADRILATERAL || cell == FEINT_CELL_HEXAHEDRON ? FEINT_NODES_LOBATTO
                                                                          : FEINT_NODES_EQUISPACED;
}

int feint_element_create(feint_cell_type cell, int order, feint_element **out) {
  return feint_element_create_family(cell, order, feint_cell_node_family(cell), out);
}

int feint_element_create_family(feint_cell_type cell, int order, feint_node_family family, feint_element **out) {
  *out = NULL;
  if (family != FEINT_NODES_EQUISPACED && family != FEINT_NODES_LOBATTO)
    return feint_error_set(FEINT_ERR_INPUT, "element: unknown node family %d", (int)family);
  if (cell == FEINT_CELL_QUADRILATERAL || cell == FEINT_CELL_HEXAHEDRON) {
    if (family != FEINT_NODES_LOBATTO)
      return feint_error_set(FEINT_ERR_INPUT, "element: %s have Gauss-Lobatto nodes only", feint_cell_plural(cell));
    return feint_tensor_element_create(cell, order, out);
  }
  if (cell == FEINT_CELL_PRISM) return feint_prism_element_create(order, family, out);
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
  el->family = family;
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
      (status = feint_malloc((size_t)nb * nb, sizeof(double), &vand, "Vandermonde matrix")) ||
      (status = feint_malloc((size_t)nb, sizeof(int), &piv, "pivots")))
    goto fail;
  if ((status = make_nodes(el))) goto fail;
  for (int i = 0; i < nb; i++) eval_orthonormal(el, el->nodes + i * dim, vand + i * nb, NULL);
  if (lu_factor(nb, vand, piv)) {
    status = feint_error_set(FEINT_ERR_COMPUTE, "singular Vandermonde matrix for P%d on a %s", p,
                             feint_cell_name(cell));
    goto fail;
  }
  /* V[i][j] = psi_j(node_i); phi_k(node_i) = sum_j V[i][j] c_kj = delta_ik, so row k of coeffs
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
    eval_orthonormal(el, points + q * dim, m, grads ? mg : NULL);
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
