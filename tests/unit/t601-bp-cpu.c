/* BP operators on the CPU reference: 1^T M 1 = volume of the perturbed box,
 * stiffness annihilates constants, symmetry, stored and recomputed
 * geometric factors agree, and the sum-factorised action equals the
 * assembled CSR matrix (element matrices from the tabulated 3D basis) times
 * x, for BP1.0, BP3.5, BP3.0 (the volume and the constants for N = 1..15,
 * every order the BP operators take; the rest for N = 1..6). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "feint/bp.h"
#include "feint/error.h"

static double rnd(unsigned *s) {
  *s = *s * 1664525u + 1013904223u;
  return (*s >> 8) * (1.0 / 16777216.0) - 0.5;
}

static double dot(int64_t n, const double *a, const double *b) {
  double s = 0;
  for (int64_t i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}

int main(void) {
  unsigned seed = 12345;
  const double lx = 1.5, ly = 1.0, lz = 0.75;
  /* Volume and constants on a 4 x 3 x 3 perturbed box. */
  feint_hexmesh *m = NULL;
  CHECK_OK(feint_hexmesh_box(4, 3, 3, lx, ly, lz, 0.25, &m));
  for (int N = 1; N <= 15; N++) {
    feint_bp_dofmap *d = NULL;
    CHECK_OK(feint_bp_dofmap_box(m, N, &d));
    CHECK(d->n_dofs == (int64_t)(4 * N + 1) * (3 * N + 1) * (3 * N + 1), "dof count");
    double *one = malloc(sizeof(double) * d->n_dofs), *y = malloc(sizeof(double) * d->n_dofs);
    for (int64_t i = 0; i < d->n_dofs; i++) one[i] = 1;
    for (int k = 0; k < 3; k++) {
      feint_bp_op *op = NULL;
      CHECK_OK(feint_bp_op_create(m, d, (feint_bp_kind)k, FEINT_BP_GEO_STORED, 0.0, &op));
      CHECK_OK(feint_bp_apply(op, one, y));
      double s = 0, amax = 0;
      for (int64_t i = 0; i < d->n_dofs; i++) {
        s += y[i];
        amax = fmax(amax, fabs(y[i]));
      }
      if (k == FEINT_BP1_0) {
        CHECK_CLOSE(s, lx * ly * lz, 1e-12);
      } else {
        CHECK(amax < 1e-11, "N=%d %s: A 1 max %g (lambda 0)", N, feint_bp_name(op->kind), amax);
      }
      feint_bp_op_destroy(op);
      /* with lambda = 1 and exact-enough quadrature, 1^T A 1 = volume */
      CHECK_OK(feint_bp_op_create(m, d, (feint_bp_kind)k, FEINT_BP_GEO_RECOMPUTE, 1.0, &op));
      CHECK_OK(feint_bp_apply(op, one, y));
      s = 0;
      for (int64_t i = 0; i < d->n_dofs; i++) s += y[i];
      if (k != FEINT_BP3_5 || N >= 2) CHECK_CLOSE(s, lx * ly * lz, 1e-12);
      feint_bp_op_destroy(op);
    }
    free(one);
    free(y);
    feint_bp_dofmap_destroy(d);
  }
  feint_hexmesh_destroy(m);

  /* Action versus assembled CSR on a 2 x 2 x 2 box (one moved interior vertex)
   * and a 3 x 2 x 2 box for low orders. */
  double worst = 0;
  for (int N = 1; N <= 6; N++) {
    CHECK_OK(feint_hexmesh_box(N <= 3 ? 3 : 2, 2, 2, lx, ly, lz, 0.3, &m));
    feint_bp_dofmap *d = NULL;
    CHECK_OK(feint_bp_dofmap_box(m, N, &d));
    int64_t n = d->n_dofs;
    double *x = malloc(sizeof(double) * n), *x2 = malloc(sizeof(double) * n), *y = malloc(sizeof(double) * n),
           *y2 = malloc(sizeof(double) * n), *yc = malloc(sizeof(double) * n);
    for (int k = 0; k < 3; k++) {
      feint_bp_op *op = NULL, *opr = NULL;
      CHECK_OK(feint_bp_op_create(m, d, (feint_bp_kind)k, FEINT_BP_GEO_STORED, 0.7, &op));
      CHECK_OK(feint_bp_op_create(m, d, (feint_bp_kind)k, FEINT_BP_GEO_RECOMPUTE, 0.7, &opr));
      feint_bp_csr *A = NULL;
      CHECK_OK(feint_bp_assemble(op, &A));
      for (int64_t i = 0; i < n; i++) {
        x[i] = rnd(&seed);
        x2[i] = rnd(&seed);
      }
      CHECK_OK(feint_bp_apply(op, x, y));
      CHECK_OK(feint_bp_apply(opr, x, y2));
      feint_bp_csr_matvec(A, x, yc);
      double e1 = rel_diff(n, y, yc), e2 = rel_diff(n, y2, y);
      worst = fmax(worst, fmax(e1, e2));
      CHECK(e1 < 1e-12, "N=%d %s: action vs CSR %g", N, feint_bp_name(op->kind), e1);
      CHECK(e2 < 1e-13, "N=%d %s: recomputed vs stored %g", N, feint_bp_name(op->kind), e2);
      /* symmetry: x2^T A x = x^T A x2 */
      CHECK_OK(feint_bp_apply(op, x2, y2));
      double a = dot(n, x2, y), b = dot(n, x, y2);
      CHECK(fabs(a - b) <= 1e-12 * (fabs(a) + fabs(b) + 1e-300), "N=%d %s: not symmetric", N, feint_bp_name(op->kind));
      /* positive definite for lambda > 0 */
      CHECK(dot(n, x, y) > 0, "N=%d %s: x^T A x <= 0", N, feint_bp_name(op->kind));
      printf("N=%d %-5s dofs %5lld nnz %8lld  |Ax - A_csr x|/|A_csr x| = %.2e, recomputed %.2e\n", N,
             feint_bp_name(op->kind), (long long)n, (long long)A->nnz, e1, e2);
      feint_bp_csr_destroy(A);
      feint_bp_op_destroy(op);
      feint_bp_op_destroy(opr);
    }
    free(x);
    free(x2);
    free(y);
    free(y2);
    free(yc);
    feint_bp_dofmap_destroy(d);
    feint_hexmesh_destroy(m);
  }
  printf("worst relative difference %.2e\n", worst);
  return check_report("t601");
}
