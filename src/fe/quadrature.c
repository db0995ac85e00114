/* Quadrature on the reference simplices: collapsed (Stroud conical
 * product) Gauss-Jacobi rules; on quadrilaterals and hexahedra the tensor
 * Gauss-Legendre rule (tensor.h).
 *
 * The triangle is the image of the unit square under
 *   (s, t) -> (x, y) = (s (1 - t), t),             Jacobian (1 - t),
 * and the tetrahedron the image of the unit cube under
 *   (s, t, r) -> (s (1 - t)(1 - r), t (1 - r), r),   Jacobian (1 - t)(1 - r)^2.
 * The Jacobian factors are absorbed into Gauss-Jacobi rules with weight
 * (1 - t)^1 and (1 - r)^2; s uses Gauss-Legendre. A polynomial of total
 * degree d pulls back to one of degree <= d in each of s, t, r, so
 * n = ceil((d + 1) / 2) points per direction (exact to degree 2n - 1) give
 * a rule exact for total degree d with n^dim points, all strictly inside the
 * cell, all weights positive.
 *
 * The segment [0, 1] uses the tensor module's Gauss-Legendre rule (up to
 * FEINT_TENSOR_MAX_POINTS points, as the quadrilateral and hexahedron),
 * n = ceil((d + 1) / 2) points, exact to degree 2n - 1.
 *
 * 1D Gauss-Jacobi nodes are the zeros of P_n^(alpha, beta), found by Newton
 * iteration on the three-term recurrence with deflation by the zeros
 * already found (Karniadakis & Sherwin, "Spectral/hp element methods",
 * appendix B), starting from Chebyshev points; the weights are
 *   w_k = C 2^(alpha+beta+1) / ((1 - x_k^2) P_n'(x_k)^2),
 *   C = Gamma(n+alpha+1) Gamma(n+beta+1) / (Gamma(n+alpha+beta+1) n!). */
#include <math.h>
#include <stdlib.h>

#include "feint/error.h"
#include "feint/fe.h"
#include "feint/tensor.h"

/* P_n^(a,b)(x) and its derivative. */
static void jacobi_eval(int n, double a, double b, double x, double *p, double *dp) {
  double p0 = 1.0, p1 = 0.5 * ((a - b) + (a + b + 2.0) * x);
  if (n == 0) {
    *p = 1.0;
    *dp = 0.0;
    return;
  }
  for (int k = 2; k <= n; k++) {
    double s = 2.0 * k + a + b;
    double a1 = 2.0 * k * (k + a + b) * (s - 2.0);
    double a2 = (s - 1.0) * (a * a - b * b);
    double a3 = (s - 2.0) * (s - 1.0) * s;
    double a4 = 2.0 * (k + a - 1.0) * (k + b - 1.0) * s;
    double p2 = ((a2 + a3 * x) * p1 - a4 * p0) / a1;
    p0 = p1;
    p1 = p2;
  }
  /* p1 = P_n, p0 = P_{n-1} */
  double s = 2.0 * n + a + b;
  *p = p1;
  *dp = (n * ((a - b) - s * x) * p1 + 2.0 * (n + a) * (n + b) * p0) / (s * (1.0 - x * x));
}

/* n Gauss-Jacobi nodes (ascending) and weights on [-1, 1] for the weight
 * (1 - x)^a (1 + x)^b. */
static void gauss_jacobi(int n, double a, double b, double *x, double *w) {
  const double pi = 3.14159265358979323846;
  for (int k = 0; k < n; k++) {
    double r = -cos((2.0 * k + 1.0) * pi / (2.0 * n));
    if (k > 0) r = 0.5 * (r + x[k - 1]);
    for (int it = 0; it < 100; it++) {
      double p, dp, sum = 0.0;
      jacobi_eval(n, a, b, r, &p, &dp);
      for (int j = 0; j < k; j++) sum += 1.0 / (r - x[j]);
      double delta = -p / (dp - sum * p);
      r += delta;
      if (fabs(delta) < 1e-16) break;
    }
    x[k] = r;
  }
  /* one undeflated Newton step to polish, then the weights */
  double c = exp(lgamma(n + a + 1.0) + lgamma(n + b + 1.0) - lgamma(n + a + b + 1.0) -
                 lgamma(n + 1.0)) *
             pow(2.0, a + b + 1.0);
  for (int k = 0; k < n; k++) {
    double p, dp;
    jacobi_eval(n, a, b, x[k], &p, &dp);
    x[k] -= p / dp;
    jacobi_eval(n, a, b, x[k], &p, &dp);
    w[k] = c / ((1.0 - x[k] * x[k]) * dp * dp);
  }
}

/* Nodes on [0, 1] and weights for the weight (1 - t)^a. */
static void gauss_jacobi01(int n, int a, double *t, double *w) {
  gauss_jacobi(n, (double)a, 0.0, t, w);
  double scale = pow(0.5, a + 1.0);
  for (int k = 0; k < n; k++) {
    t[k] = 0.5 * (1.0 + t[k]);
    w[k] *= scale;
  }
}

/* An empty rule of n points (points and weights allocated). */
static int quadrature_alloc(feint_cell_type cell, int dim, int degree, int n, feint_quadrature **out) {
  feint_quadrature *q;
  FEINT_CALL(feint_calloc(1, sizeof *q, &q, "quadrature"));
  int status = feint_malloc((size_t)n * dim, sizeof(double), &q->points, "quadrature points");
  if (!status) status = feint_malloc((size_t)n, sizeof(double), &q->weights, "quadrature weights");
  if (status) {
    feint_quadrature_destroy(q);
    return status;
  }
  q->cell = cell;
  q->dim = dim;
  q->degree = degree;
  q->n = n;
  *out = q;
  return FEINT_OK;
}

/* Degree 2 is the common case of P1 with a P1 coefficient or load: the
 * symmetric rules (3 points on triangles, 4 on tetrahedra; Strang & Fix,
 * Keast) need half the points of the collapsed rule (4 and 8). */
static int symmetric_degree2(feint_cell_type cell, int dim, feint_quadrature **out) {
  const int n = dim + 1;
  feint_quadrature *q;
  FEINT_CALL(quadrature_alloc(cell, dim, 2, n, &q));
  /* barycentric (a, b, b[, b]) and permutations */
  const double a = dim == 2 ? 2.0 / 3.0 : 0.58541019662496845446, b = dim == 2 ? 1.0 / 6.0 : 0.13819660112501051518;
  for (int k = 0; k < n; k++) {
    for (int d = 0; d < dim; d++) q->points[k * dim + d] = (k == d + 1) ? a : b;
    q->weights[k] = (dim == 2 ? 0.5 : 1.0 / 6.0) / n;
  }
  *out = q;
  return FEINT_OK;
}

int feint_quadrature_max_degree(feint_cell_type cell) {
  const int tensor = cell == FEINT_CELL_SEGMENT || cell == FEINT_CELL_QUADRILATERAL || cell == FEINT_CELL_HEXAHEDRON;
  return tensor ? 2 * FEINT_TENSOR_MAX_POINTS - 1 : FEINT_QUAD_MAX_DEGREE;
}

/* FEINT_ERR_INPUT unless 0 <= degree <= the cell's largest. */
static int check_degree(feint_cell_type cell, int degree) {
  const int max = feint_quadrature_max_degree(cell);
  if (degree < 0 || degree > max)
    return feint_error_set(FEINT_ERR_INPUT, "quadrature degree %d on a %s out of range 0..%d", degree,
                           feint_cell_name(cell), max);
  return FEINT_OK;
}

/* Segment: the Gauss-Legendre rule of tensor.h mapped to [0, 1]. */
static int segment_rule(int degree, feint_quadrature **out) {
  const int m = (degree + 2) / 2;
  feint_quadrature *q;
  FEINT_CALL(check_degree(FEINT_CELL_SEGMENT, degree));
  FEINT_CALL(quadrature_alloc(FEINT_CELL_SEGMENT, 1, degree, m, &q));
  int status = feint_gauss_legendre(m, q->points, q->weights);
  if (status) {
    feint_quadrature_destroy(q);
    return status;
  }
  for (int k = 0; k < m; k++) {
    q->points[k] = 0.5 * (q->points[k] + 1.0);
    q->weights[k] *= 0.5;
  }
  *out = q;
  return FEINT_OK;
}

/* Quadrilateral / hexahedron: the tensor Gauss-Legendre rule on [-1,1]^dim,
 * n = ceil((degree + 1) / 2) points per direction, x fastest. */
static int tensor_rule(feint_cell_type cell, int degree, feint_quadrature **out) {
  const int dim = feint_cell_dim(cell), m = (degree + 2) / 2;
  FEINT_CALL(check_degree(cell, degree));
  double x[FEINT_TENSOR_MAX_POINTS], w[FEINT_TENSOR_MAX_POINTS];
  FEINT_CALL(feint_gauss_legendre(m, x, w));
  const int n = dim == 2 ? m * m : m * m * m;
  feint_quadrature *q;
  FEINT_CALL(quadrature_alloc(cell, dim, degree, n, &q));
  for (int k = 0; k < n; k++) {
    q->weights[k] = 1;
    for (int d = 0, r = k; d < dim; d++, r /= m) {
      q->points[k * dim + d] = x[r % m];
      q->weights[k] *= w[r % m];
    }
  }
  *out = q;
  return FEINT_OK;
}

/* Prism: the triangle's rule times the segment's, triangle points fastest. */
static int prism_rule(int degree, feint_quadrature **out) {
  feint_quadrature *t = NULL, *s = NULL, *q = NULL;
  int status = feint_quadrature_create(FEINT_CELL_TRIANGLE, degree, &t);
  if (!status) status = feint_quadrature_create(FEINT_CELL_SEGMENT, degree, &s);
  if (!status) status = quadrature_alloc(FEINT_CELL_PRISM, 3, degree, t->n * s->n, &q);
  for (int k = 0; !status && k < s->n; k++)
    for (int i = 0; i < t->n; i++) {
      const int m = i + t->n * k;
      q->points[3 * m] = t->points[2 * i];
      q->points[3 * m + 1] = t->points[2 * i + 1];
      q->points[3 * m + 2] = s->points[k];
      q->weights[m] = t->weights[i] * s->weights[k];
    }
  feint_quadrature_destroy(t);
  feint_quadrature_destroy(s);
  *out = q;
  return status;
}

int feint_quadrature_create(feint_cell_type cell, int degree, feint_quadrature **out) {
  *out = NULL;
  if (cell == FEINT_CELL_QUADRILATERAL || cell == FEINT_CELL_HEXAHEDRON) return tensor_rule(cell, degree, out);
  if (cell == FEINT_CELL_PRISM) return prism_rule(degree, out);
  if (cell == FEINT_CELL_SEGMENT) return segment_rule(degree, out);
  if (cell != FEINT_CELL_TRIANGLE && cell != FEINT_CELL_TETRAHEDRON)
    return feint_error_set(FEINT_ERR_INPUT, "quadrature: unknown cell type %d", (int)cell);
  FEINT_CALL(check_degree(cell, degree));
  int dim = feint_cell_dim(cell);
  if (degree == 2) return symmetric_degree2(cell, dim, out);
  int m = (degree + 2) / 2; /* ceil((degree + 1) / 2) */
  int n = dim == 2 ? m * m : m * m * m;

  double ts[FEINT_QUAD_MAX_DEGREE], ws[FEINT_QUAD_MAX_DEGREE];
  double tt[FEINT_QUAD_MAX_DEGREE], wt[FEINT_QUAD_MAX_DEGREE];
  double tr[FEINT_QUAD_MAX_DEGREE], wr[FEINT_QUAD_MAX_DEGREE];
  gauss_jacobi01(m, 0, ts, ws);
  gauss_jacobi01(m, 1, tt, wt);
  if (dim == 3) gauss_jacobi01(m, 2, tr, wr);

  feint_quadrature *q;
  FEINT_CALL(quadrature_alloc(cell, dim, degree, n, &q));
  int k = 0;
  if (dim == 2) {
    for (int j = 0; j < m; j++)
      for (int i = 0; i < m; i++, k++) {
        q->points[2 * k + 0] = ts[i] * (1.0 - tt[j]);
        q->points[2 * k + 1] = tt[j];
        q->weights[k] = ws[i] * wt[j];
      }
  } else {
    for (int l = 0; l < m; l++)
      for (int j = 0; j < m; j++)
        for (int i = 0; i < m; i++, k++) {
          q->points[3 * k + 0] = ts[i] * (1.0 - tt[j]) * (1.0 - tr[l]);
          q->points[3 * k + 1] = tt[j] * (1.0 - tr[l]);
          q->points[3 * k + 2] = tr[l];
          q->weights[k] = ws[i] * wt[j] * wr[l];
        }
  }
  *out = q;
  return FEINT_OK;
}

void feint_quadrature_destroy(feint_quadrature *q) {
  if (!q) return;
  free(q->points);
  free(q->weights);
  free(q);
}
