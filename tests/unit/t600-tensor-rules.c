/* 1D Gauss-Legendre and Gauss-Lobatto-Legendre rules (exact on monomials
 * to degree 2n-1 and 2n-3) and Lagrange interpolation / derivative
 * matrices (exact for polynomials of degree n-1). */
#include <math.h>

#include "check.h"
#include "feint/error.h"
#include "feint/tensor.h"

static double mono_integral(int d) { return d % 2 ? 0.0 : 2.0 / (d + 1); }

int main(void) {
  double x[24], w[24];
  for (int n = 1; n <= 24; n++) {
    CHECK_OK(feint_gauss_legendre(n, x, w));
    for (int d = 0; d <= 2 * n - 1; d++) {
      double s = 0;
      for (int i = 0; i < n; i++) s += w[i] * pow(x[i], d);
      CHECK_CLOSE(s, mono_integral(d), 1e-13);
    }
    for (int i = 1; i < n; i++) CHECK(x[i] > x[i - 1], "GL n=%d not increasing", n);
    if (n >= 2) {
      CHECK_OK(feint_gauss_lobatto(n, x, w));
      CHECK(x[0] == -1 && x[n - 1] == 1, "GLL n=%d ends", n);
      for (int d = 0; d <= 2 * n - 3; d++) {
        double s = 0;
        for (int i = 0; i < n; i++) s += w[i] * pow(x[i], d);
        CHECK_CLOSE(s, mono_integral(d), 1e-13);
      }
      /* interior nodes are the roots of P'_{n-1} */
      for (int i = 1; i < n - 1; i++) {
        double p, dp;
        feint_legendre(n - 1, x[i], &p, &dp);
        CHECK(fabs(dp) < 1e-10 * n * n, "GLL n=%d node %d: P' = %g", n, i, dp);
      }
    }
  }
  CHECK(feint_gauss_legendre(25, x, w) == FEINT_ERR_INPUT, "25 points refused");
  CHECK(feint_gauss_lobatto(1, x, w) == FEINT_ERR_INPUT, "1 GLL point refused");

  /* Interpolation from n GLL nodes to m GL points: exact for degree n-1. */
  double I[20 * 20], D[20 * 20], y[20], wy[20];
  for (int n = 2; n <= 16; n++) {
    int m = n + 1;
    CHECK_OK(feint_gauss_lobatto(n, x, w));
    CHECK_OK(feint_gauss_legendre(m, y, wy));
    CHECK_OK(feint_lagrange_matrices(n, x, m, y, I, D));
    for (int d = 0; d <= n - 1; d++) {
      double worst = 0;
      for (int q = 0; q < m; q++) {
        double s = 0, ds = 0;
        for (int i = 0; i < n; i++) {
          s += I[q * n + i] * pow(x[i], d);
          ds += D[q * n + i] * pow(x[i], d);
        }
        double want = pow(y[q], d), dwant = d ? d * pow(y[q], d - 1) : 0;
        worst = fmax(worst, fmax(fabs(s - want), fabs(ds - dwant) / (n * n)));
      }
      CHECK(worst < 1e-12, "n=%d degree %d: interpolation error %g", n, d, worst);
    }
    /* collocation: identity, derivative rows sum to zero */
    CHECK_OK(feint_lagrange_matrices(n, x, n, x, I, D));
    for (int q = 0; q < n; q++) {
      double rs = 0;
      for (int i = 0; i < n; i++) {
        CHECK(I[q * n + i] == (q == i ? 1.0 : 0.0), "identity");
        rs += D[q * n + i];
      }
      CHECK(fabs(rs) < 1e-11 * n * n, "n=%d derivative row sum %g", n, rs);
    }
  }
  printf("1D GL/GLL rules and Lagrange matrices checked\n");
  return check_report("t600");
}
