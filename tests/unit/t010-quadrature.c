/* Quadrature: every monomial of total degree <= degree is integrated
 * exactly on the reference triangle and tetrahedron (closed form
 * a! b! c! / (a + b + c + dim)!), weights positive and summing to the
 * reference volume, points strictly inside; and a rule is NOT exact one
 * degree beyond what it claims when it has the minimal number of points. */
#include <string.h>

#include "check.h"
#include "feint/error.h"
#include "feint/fe.h"

static double fact(int n) {
  double f = 1;
  for (int i = 2; i <= n; i++) f *= i;
  return f;
}

static double exact(int dim, int a, int b, int c) {
  return fact(a) * fact(b) * fact(c) / fact(a + b + c + dim);
}

static double integrate(const feint_quadrature *q, int a, int b, int c) {
  double s = 0;
  for (int k = 0; k < q->n; k++) {
    const double *p = q->points + k * q->dim;
    double v = pow(p[0], a) * pow(p[1], b);
    if (q->dim == 3) v *= pow(p[2], c);
    s += q->weights[k] * v;
  }
  return s;
}

/* Largest relative error over the monomials of total degree exactly d. */
static double max_error(const feint_quadrature *q, int d) {
  double worst = 0;
  int cmax = q->dim == 3 ? d : 0;
  for (int c = 0; c <= cmax; c++)
    for (int b = 0; b + c <= d; b++) {
      int a = d - b - c;
      if (q->dim == 2 && c) continue;
      double want = exact(q->dim, a, b, c);
      double err = fabs(integrate(q, a, b, c) - want) / want;
      if (err > worst) worst = err;
    }
  return worst;
}

int main(void) {
  feint_cell_type cells[2] = {FEINT_CELL_TRIANGLE, FEINT_CELL_TETRAHEDRON};
  for (int ci = 0; ci < 2; ci++) {
    feint_cell_type cell = cells[ci];
    int dim = feint_cell_dim(cell);
    double vol = feint_cell_reference_volume(cell);
    double worst_all = 0;
    for (int degree = 0; degree <= 40; degree++) {
      feint_quadrature *q;
      CHECK_OK(feint_quadrature_create(cell, degree, &q));
      int m = (degree + 2) / 2; /* collapsed rule; degree 2 uses the symmetric dim+1 point rule */
      CHECK(q->n == (degree == 2 ? dim + 1 : dim == 2 ? m * m : m * m * m), "%s degree %d: n = %d", feint_cell_name(cell),
            degree, q->n);
      CHECK(q->dim == dim && q->degree == degree && q->cell == cell, "header fields");
      double sum = 0;
      for (int k = 0; k < q->n; k++) {
        const double *p = q->points + k * dim;
        double s = 0;
        int inside = 1;
        for (int d = 0; d < dim; d++) {
          s += p[d];
          if (!(p[d] > 0)) inside = 0;
        }
        if (!(s < 1)) inside = 0;
        CHECK(inside, "%s degree %d: point %d not strictly inside", feint_cell_name(cell),
              degree, k);
        CHECK(q->weights[k] > 0, "%s degree %d: weight %d = %g", feint_cell_name(cell), degree,
              k, q->weights[k]);
        sum += q->weights[k];
      }
      CHECK_CLOSE(sum, vol, 1e-14);
      if (degree <= 20) {
        for (int d = 0; d <= degree; d++) {
          double err = max_error(q, d);
          if (err > worst_all) worst_all = err;
          CHECK(err <= 1e-13, "%s degree %d: monomials of degree %d off by %.3g",
                feint_cell_name(cell), degree, d, err);
        }
        /* odd degree => minimal n = (degree + 1) / 2: degree + 1 must fail */
        if (degree % 2 == 1) {
          double err = max_error(q, degree + 1);
          CHECK(err > 1e-10, "%s degree %d: unexpectedly exact at degree %d (%.3g)",
                feint_cell_name(cell), degree, degree + 1, err);
        }
      } else {
        /* high degrees: spot-check the top-degree monomials */
        double err = max_error(q, degree);
        if (err > worst_all) worst_all = err;
        CHECK(err <= 1e-12, "%s degree %d: top monomials off by %.3g", feint_cell_name(cell),
              degree, err);
      }
      feint_quadrature_destroy(q);
    }
    printf("%s: degrees 0..40, worst relative monomial error %.3g\n", feint_cell_name(cell),
           worst_all);
  }
  /* the segment [0, 1]: Gauss-Legendre, ceil((degree + 1) / 2) points,
   * exact for x^k, k <= degree (integral 1 / (k + 1)), not one beyond when
   * the degree is odd */
  {
    double worst = 0;
    CHECK(feint_cell_dim(FEINT_CELL_SEGMENT) == 1 && feint_cell_num_vertices(FEINT_CELL_SEGMENT) == 2 &&
              feint_cell_num_edges(FEINT_CELL_SEGMENT) == 1 && feint_cell_num_faces(FEINT_CELL_SEGMENT) == 0,
          "segment tables");
    CHECK_CLOSE(feint_cell_reference_volume(FEINT_CELL_SEGMENT), 1.0, 0);
    CHECK(feint_quadrature_max_degree(FEINT_CELL_SEGMENT) == 47, "segment rules to degree 47 (24 points)");
    for (int degree = 0; degree <= 47; degree++) {
      feint_quadrature *q;
      CHECK_OK(feint_quadrature_create(FEINT_CELL_SEGMENT, degree, &q));
      CHECK(q->n == (degree + 2) / 2 && q->dim == 1 && q->cell == FEINT_CELL_SEGMENT && q->degree == degree,
            "segment degree %d: n = %d", degree, q->n);
      double sum = 0;
      for (int k = 0; k < q->n; k++) {
        CHECK(q->points[k] > 0 && q->points[k] < 1 && q->weights[k] > 0, "segment degree %d: point %d",
              degree, k);
        sum += q->weights[k];
      }
      CHECK_CLOSE(sum, 1.0, 1e-14);
      for (int d = 0; d <= degree + 1; d++) {
        double s = 0;
        for (int k = 0; k < q->n; k++) s += q->weights[k] * pow(q->points[k], d);
        double err = fabs(s - 1.0 / (d + 1)) * (d + 1);
        if (d <= degree) {
          if (err > worst) worst = err;
          CHECK(err <= 1e-13, "segment degree %d: x^%d off by %.3g", degree, d, err);
        } else if (degree % 2 == 1 && degree <= 15) { /* beyond, the first inexact error is tiny */
          CHECK(err > 1e-10, "segment degree %d: unexpectedly exact at degree %d", degree, d);
        }
      }
      feint_quadrature_destroy(q);
    }
    printf("segment: degrees 0..47, worst relative monomial error %.3g\n", worst);
  }

  feint_quadrature *q;
  CHECK(feint_quadrature_create(FEINT_CELL_TRIANGLE, 41, &q) == FEINT_ERR_INPUT, "degree 41");
  CHECK(feint_quadrature_create(FEINT_CELL_SEGMENT, 48, &q) == FEINT_ERR_INPUT, "segment degree 48");
  CHECK(strstr(feint_error_message(), "quadrature degree 48 on a segment out of range 0..47") != NULL, "message: %s",
        feint_error_message());
  CHECK(feint_quadrature_create(FEINT_CELL_TETRAHEDRON, -1, &q) == FEINT_ERR_INPUT, "degree -1");

  /* reference cell tables */
  int e[2], f[3];
  CHECK(feint_cell_num_edges(FEINT_CELL_TETRAHEDRON) == 6, "tet edges");
  feint_cell_edge(FEINT_CELL_TETRAHEDRON, 4, e);
  CHECK(e[0] == 1 && e[1] == 3, "tet edge 4 = {1,3}");
  feint_cell_edge(FEINT_CELL_TRIANGLE, 2, e);
  CHECK(e[0] == 1 && e[1] == 2, "tri edge 2 = {1,2}");
  feint_cell_face(FEINT_CELL_TETRAHEDRON, 2, f);
  CHECK(f[0] == 0 && f[1] == 2 && f[2] == 3, "tet face 2 = {0,2,3}");
  CHECK(feint_cell_num_faces(FEINT_CELL_TRIANGLE) == 0, "triangle faces");
  return check_report("t010-quadrature");
}
