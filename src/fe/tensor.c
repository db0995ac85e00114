/* 1D Gauss-Legendre / Gauss-Lobatto-Legendre rules and Lagrange matrices
 * (include/feint/tensor.h). */
#include "feint/tensor.h"

#include <math.h>

#include "feint/error.h"

void feint_legendre(int n, double x, double *p, double *dp) {
  double p0 = 1, p1 = x;
  if (n == 0) {
    *p = 1;
    *dp = 0;
    return;
  }
  for (int k = 2; k <= n; k++) {
    double p2 = ((2 * k - 1) * x * p1 - (k - 1) * p0) / k;
    p0 = p1;
    p1 = p2;
  }
  *p = p1;
  /* P_n' = n (x P_n - P_{n-1}) / (x^2 - 1), away from the ends. */
  if (fabs(fabs(x) - 1) < 1e-14)
    *dp = (x > 0 ? 1.0 : (n % 2 ? 1.0 : -1.0)) * 0.5 * n * (n + 1);
  else
    *dp = n * (x * p1 - p0) / (x * x - 1);
}

int feint_gauss_legendre(int n, double *x, double *w) {
  if (n < 1 || n > FEINT_TENSOR_MAX_POINTS)
    return feint_error_set(FEINT_ERR_INPUT, "Gauss-Legendre rule: %d points (1..%d supported)", n,
                           FEINT_TENSOR_MAX_POINTS);
  for (int i = 0; i < (n + 1) / 2; i++) {
    double z = cos(M_PI * (i + 0.75) / (n + 0.5)), p, dp;
    for (int it = 0; it < 100; it++) {
      feint_legendre(n, z, &p, &dp);
      double dz = p / dp;
      z -= dz;
      if (fabs(dz) < 1e-16) break;
    }
    feint_legendre(n, z, &p, &dp);
    double wi = 2 / ((1 - z * z) * dp * dp);
    x[i] = -z;
    x[n - 1 - i] = z;
    w[i] = w[n - 1 - i] = wi;
  }
  if (n % 2) x[n / 2] = 0;
  return FEINT_OK;
}

int feint_gauss_lobatto(int n, double *x, double *w) {
  if (n < 2 || n > FEINT_TENSOR_MAX_POINTS)
    return feint_error_set(FEINT_ERR_INPUT, "Gauss-Lobatto-Legendre rule: %d points (2..%d supported)", n,
                           FEINT_TENSOR_MAX_POINTS);
  int N = n - 1;
  for (int i = 0; i <= N / 2; i++) {
    /* Chebyshev-Gauss-Lobatto start, Newton on (1 - z^2) P_N'(z)
     * (the update of von Winckel's lglnodes: z -= (z P_N - P_{N-1}) / (n P_N)). */
    double z = cos(M_PI * i / N);
    if (i > 0) {
      for (int it = 0; it < 100; it++) {
        double pN, dpN, pM, dpM;
        feint_legendre(N, z, &pN, &dpN);
        feint_legendre(N - 1, z, &pM, &dpM);
        double dz = (z * pN - pM) / (n * pN);
        z -= dz;
        if (fabs(dz) < 1e-16) break;
      }
    }
    double p, dp;
    feint_legendre(N, z, &p, &dp);
    double wi = 2.0 / (N * (N + 1) * p * p);
    x[i] = -z;
    x[N - i] = z;
    w[i] = w[N - i] = wi;
  }
  if (n % 2) x[N / 2] = 0;
  return FEINT_OK;
}

int feint_lagrange_matrices(int n, const double *nodes, int m, const double *points, double *I, double *D) {
  if (n < 1 || n > FEINT_TENSOR_MAX_POINTS || m < 1)
    return feint_error_set(FEINT_ERR_INPUT, "Lagrange matrices: %d nodes, %d points", n, m);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < i; j++)
      if (nodes[i] == nodes[j]) return feint_error_set(FEINT_ERR_INPUT, "Lagrange matrices: coincident nodes");
  for (int q = 0; q < m; q++) {
    double y = points[q];
    for (int i = 0; i < n; i++) {
      if (I) {
        double l = 1;
        for (int j = 0; j < n; j++)
          if (j != i) l *= (y - nodes[j]) / (nodes[i] - nodes[j]);
        I[q * n + i] = l;
      }
      if (D) {
        double d = 0;
        for (int k = 0; k < n; k++) {
          if (k == i) continue;
          double t = 1 / (nodes[i] - nodes[k]);
          for (int j = 0; j < n; j++)
            if (j != i && j != k) t *= (y - nodes[j]) / (nodes[i] - nodes[j]);
          d += t;
        }
        D[q * n + i] = d;
      }
    }
  }
  return FEINT_OK;
}
