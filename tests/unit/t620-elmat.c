/* High-order element matrices on tetrahedra, p = 1..7 (include/feint/elmat.h).
 * Host reference against independent truth:
 *  - g3 = I, g0 = 0 on the reference tetrahedron: stiffness rows sum to 0,
 *    symmetric; P1 equals the closed form (1/6) [[3,-1,-1,-1], [-1,1,0,0], ..];
 *  - g0 = 1, g3 = 0 on a random tetrahedron: entries sum to its volume;
 *  - random constant g0, g1, g2, g3 on a random tetrahedron and the nodal
 *    values u, w of linear functions a.x, b.x: w^T A u equals the exact
 *    integral of g0 (b.x)(a.x) + (b.x) g1.a + b.g2 (a.x) + b.g3.a (vertex
 *    moment formula), which fixes the orientation of g1, g2, g3;
 *  - Jacobian terms from the host equal the vertex path; bad input refused.
 * GPU against the host on fresh random inputs for every variant (data
 * registers/shared/tensor, geometry Jacobian/vertices, coefficients per point/per
 * cell, ncoef 10/16): max |A_gpu - A_host| / max |A_host| <= 1e-12. Without
 * a GPU the GPU part prints "skipped: no GPU" (fails when FEINT_GPU_TESTS=1). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "feint/backend.h"
#include "feint/elmat.h"
#include "feint/error.h"

static unsigned rng_state = 12345u;
static double urand(void) { /* [0, 1) */
  rng_state = rng_state * 1664525u + 1013904223u;
  return (rng_state >> 8) * (1.0 / 16777216.0);
}

static const double ref_tet[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};

/* The reference tetrahedron, each coordinate moved by up to +-0.2, then
 * scaled and shifted. */
static void random_tet(double *xv) {
  double s = 0.5 + urand(), sh[3] = {urand() - 0.5, urand() - 0.5, urand() - 0.5};
  for (int k = 0; k < 12; k++) xv[k] = s * (ref_tet[k] + 0.4 * (urand() - 0.5)) + sh[k % 3];
}

static double max_abs(size_t n, const double *a) {
  double m = 0;
  for (size_t k = 0; k < n; k++) m = fmax(m, fabs(a[k]));
  return m;
}

static double tet_volume(const double *xv) {
  double geo[10];
  return fabs(feint_elmat_tet_geometry(xv, geo)) / 6;
}

/* Nodal values of a . x at the element's nodes mapped onto the cell xv. */
static void linear_nodal(const feint_element *el, const double *xv, const double *a, double *u) {
  for (int i = 0; i < el->nb; i++) {
    double x[3];
    for (int d = 0; d < 3; d++) {
      x[d] = xv[d];
      for (int c = 0; c < 3; c++) x[d] += (xv[3 * (c + 1) + d] - xv[d]) * el->nodes[3 * i + c];
    }
    u[i] = a[0] * x[0] + a[1] * x[1] + a[2] * x[2];
  }
}

static void host_truths(int p) {
  feint_elmat_tables *t = NULL;
  CHECK_OK(feint_elmat_tables_create(FEINT_CELL_TETRAHEDRON, p, &t));
  const int nb = t->nb, nq = t->nq;
  double *A = malloc(sizeof(double) * nb * nb), *A2 = malloc(sizeof(double) * nb * nb);
  double *coef = calloc((size_t)nq * 16, sizeof(double));
  double *u = malloc(sizeof(double) * nb), *w = malloc(sizeof(double) * nb);

  /* Stiffness on the reference tetrahedron (per-point coefficients). */
  feint_elmat_variant v = {FEINT_ELMAT_DATA_SHARED, FEINT_ELMAT_GEO_VERTICES, FEINT_ELMAT_COEF_POINT, 10};
  for (int q = 0; q < nq; q++) coef[10 * q + 1] = coef[10 * q + 5] = coef[10 * q + 9] = 1;
  CHECK_OK(feint_elmat_compute(t, &v, 1, ref_tet, coef, A));
  double scale = max_abs((size_t)nb * nb, A), worst_row = 0, worst_sym = 0;
  for (int i = 0; i < nb; i++) {
    double s = 0;
    for (int j = 0; j < nb; j++) {
      s += A[i * nb + j];
      worst_sym = fmax(worst_sym, fabs(A[i * nb + j] - A[j * nb + i]));
    }
    worst_row = fmax(worst_row, fabs(s));
  }
  CHECK(worst_row <= 1e-12 * scale, "p=%d: stiffness row sum %g (scale %g)", p, worst_row, scale);
  CHECK(worst_sym <= 1e-12 * scale, "p=%d: stiffness asymmetry %g", p, worst_sym);
  if (p == 1) {
    static const double K1[16] = {3, -1, -1, -1, -1, 1, 0, 0, -1, 0, 1, 0, -1, 0, 0, 1};
    for (int k = 0; k < 16; k++) CHECK_CLOSE(A[k], K1[k] / 6, 1e-14);
  }

  /* Mass on a random tetrahedron: entries sum to the volume; the host
   * Jacobian terms give the same matrix as the vertex path. */
  double xv[12], geo[10];
  random_tet(xv);
  memset(coef, 0, sizeof(double) * nq * 16);
  for (int q = 0; q < nq; q++) coef[10 * q] = 1;
  CHECK_OK(feint_elmat_compute(t, &v, 1, xv, coef, A));
  /* The sum is sum_q w |J| (sum_i phi_i)^2: exact up to the partition of
   * unity of the basis, ~5e-13 at p = 7 (monomial coefficients, fe.h). */
  double sum = 0;
  for (int k = 0; k < nb * nb; k++) sum += A[k];
  const double vol_err = fabs(sum - tet_volume(xv)) / tet_volume(xv);
  CHECK(vol_err <= 1e-12, "p=%d: mass entries sum to %.17g, volume %.17g", p, sum, tet_volume(xv));
  CHECK_OK(feint_elmat_jacobian_terms(1, xv, geo));
  v.geo = FEINT_ELMAT_GEO_JACOBIAN;
  CHECK_OK(feint_elmat_compute(t, &v, 1, geo, coef, A2));
  for (int k = 0; k < nb * nb; k++) CHECK_CLOSE(A2[k], A[k], 1e-15);

  /* Linear functions with random constant coefficients (per cell, 16). */
  double g[16], a[3], b[3];
  for (int k = 0; k < 16; k++) g[k] = 2 * urand() - 1;
  for (int d = 0; d < 3; d++) a[d] = 2 * urand() - 1, b[d] = 2 * urand() - 1;
  feint_elmat_variant vc = {FEINT_ELMAT_DATA_SHARED, FEINT_ELMAT_GEO_VERTICES, FEINT_ELMAT_COEF_CELL, 16};
  CHECK_OK(feint_elmat_compute(t, &vc, 1, xv, g, A));
  linear_nodal(t->el, xv, a, u);
  linear_nodal(t->el, xv, b, w);
  double wAu = 0, wAu_abs = 0;
  for (int i = 0; i < nb; i++)
    for (int j = 0; j < nb; j++) wAu += w[i] * A[i * nb + j] * u[j], wAu_abs += fabs(w[i] * A[i * nb + j] * u[j]);
  double vol = tet_volume(xv), ax[4], bx[4], sab = 0, sa = 0, sb = 0;
  for (int vtx = 0; vtx < 4; vtx++) {
    ax[vtx] = a[0] * xv[3 * vtx] + a[1] * xv[3 * vtx + 1] + a[2] * xv[3 * vtx + 2];
    bx[vtx] = b[0] * xv[3 * vtx] + b[1] * xv[3 * vtx + 1] + b[2] * xv[3 * vtx + 2];
    sab += ax[vtx] * bx[vtx], sa += ax[vtx], sb += bx[vtx];
  }
  double int_ab = vol / 20 * (sab + sa * sb), int_a = vol * sa / 4, int_b = vol * sb / 4;
  double g1a = g[1] * a[0] + g[2] * a[1] + g[3] * a[2], bg2 = b[0] * g[4] + b[1] * g[5] + b[2] * g[6], bg3a = 0;
  for (int d = 0; d < 3; d++)
    for (int e = 0; e < 3; e++) bg3a += b[d] * g[7 + 3 * d + e] * a[e];
  double want = g[0] * int_ab + g1a * int_b + bg2 * int_a + bg3a * vol;
  const double lin_err = fabs(wAu - want) / wAu_abs;
  CHECK(lin_err <= 1e-13, "p=%d: w^T A u = %.17g, exact %.17g", p, wAu, want);
  printf("p=%d nb=%3d nq=%3d: relative errors: row sums %.1e, volume %.1e, linear forms %.1e\n", p,
         nb, nq, worst_row / scale, vol_err, lin_err);
  free(A);
  free(A2);
  free(coef);
  free(u);
  free(w);
  feint_elmat_tables_destroy(t);
}

static void bad_input(void) {
  feint_elmat_tables *t = NULL;
  CHECK(feint_elmat_tables_create(FEINT_CELL_TETRAHEDRON, 8, &t) == FEINT_ERR_INPUT && !t, "order 8 accepted");
  CHECK(strstr(feint_error_message(), "order 8"), "message: %s", feint_error_message());
  CHECK(feint_elmat_tables_create(FEINT_CELL_TRIANGLE, 2, &t) == FEINT_ERR_INPUT && !t, "triangle accepted");
  CHECK(strstr(feint_error_message(), "tetrahedra only"), "message: %s", feint_error_message());
  double xv[24], geo[20];
  memcpy(xv, ref_tet, sizeof ref_tet);
  memcpy(xv + 12, ref_tet, sizeof ref_tet);
  xv[21] = 1, xv[22] = 1, xv[23] = 0; /* cell 1: fourth vertex in the plane z = 0 */
  CHECK(feint_elmat_jacobian_terms(2, xv, geo) == FEINT_ERR_INPUT, "degenerate cell accepted");
  CHECK(strstr(feint_error_message(), "cell 1 is degenerate"), "message: %s", feint_error_message());
  CHECK_OK(feint_elmat_tables_create(FEINT_CELL_TETRAHEDRON, 1, &t));
  feint_elmat_variant v = {FEINT_ELMAT_DATA_SHARED, FEINT_ELMAT_GEO_VERTICES, FEINT_ELMAT_COEF_CELL, 11};
  double coef[16] = {0}, A[16];
  CHECK(feint_elmat_compute(t, &v, 1, xv, coef, A) == FEINT_ERR_INPUT, "ncoef 11 accepted");
  CHECK(strstr(feint_error_message(), "ncoef 11"), "message: %s", feint_error_message());
  feint_elmat_tables_destroy(t);
}

/* GPU against host for every variant on n random cells; returns the worst error. */
static double gpu_vs_host(int p, int64_t n) {
  feint_elmat_tables *t = NULL;
  CHECK_OK(feint_elmat_tables_create(FEINT_CELL_TETRAHEDRON, p, &t));
  feint_elmat_gpu *g = NULL;
  CHECK_OK(feint_elmat_gpu_create(t, 0, &g));
  const size_t nb2 = (size_t)t->nb * t->nb;
  double *xv = malloc(sizeof(double) * 12 * n), *geo = malloc(sizeof(double) * 10 * n);
  double *coef = malloc(sizeof(double) * 16 * t->nq * n);
  double *Ah = malloc(sizeof(double) * nb2 * n), *Ag = malloc(sizeof(double) * nb2 * n);
  double worst = 0;
  for (int coefk = 0; coefk < 2; coefk++)
    for (int nc = 10; nc <= 16; nc += 6)
      for (int geok = 0; geok < 2; geok++)
        for (int data = 0; data < (coefk == FEINT_ELMAT_COEF_CELL ? 1 : 3); data++) {
          feint_elmat_variant v = {(feint_elmat_data)data, (feint_elmat_geo)geok, (feint_elmat_coef)coefk, nc};
          for (int64_t e = 0; e < n; e++) random_tet(xv + 12 * e);
          CHECK_OK(feint_elmat_jacobian_terms(n, xv, geo));
          const size_t ncoef = (size_t)nc * n * (coefk == FEINT_ELMAT_COEF_CELL ? 1 : t->nq);
          for (size_t k = 0; k < ncoef; k++) coef[k] = 2 * urand() - 1;
          const double *geom = geok == FEINT_ELMAT_GEO_VERTICES ? xv : geo;
          for (size_t k = 0; k < nb2 * n; k++) Ag[k] = NAN; /* poison */
          CHECK_OK(feint_elmat_compute(t, &v, n, geom, coef, Ah));
          CHECK_OK(feint_elmat_gpu_compute(g, &v, n, geom, coef, Ag, NULL));
          double d = 0;
          for (size_t k = 0; k < nb2 * n; k++) d = fmax(d, isnan(Ag[k]) ? INFINITY : fabs(Ag[k] - Ah[k]));
          double err = d / max_abs(nb2 * n, Ah);
          char name[64];
          CHECK(err <= 1e-12, "p=%d %s: GPU vs host %g", p, feint_elmat_variant_name(&v, name, sizeof name), err);
          worst = fmax(worst, err);
        }
  printf("p=%d: %lld cells, 16 variants, worst GPU vs host %.2e\n", p, (long long)n, worst);
  free(xv);
  free(geo);
  free(coef);
  free(Ah);
  free(Ag);
  feint_elmat_gpu_destroy(g);
  feint_elmat_tables_destroy(t);
  return worst;
}

int main(void) {
  rng_state = (unsigned)time(NULL);
  printf("seed %u\n", rng_state);
  for (int p = 1; p <= FEINT_ELMAT_MAX_ORDER; p++) host_truths(p);
  bad_input();
  if (feint_cuda_device_count() <= 0) {
    const char *req = getenv("FEINT_GPU_TESTS");
    printf("skipped: no GPU (GPU against host not run)\n");
    if (req && !strcmp(req, "1")) {
      fprintf(stderr, "FEINT_GPU_TESTS=1 but no GPU is visible\n");
      return 1;
    }
    return check_report("t620");
  }
  char name[256];
  CHECK_OK(feint_elmat_gpu_device_name(0, name, sizeof name));
  printf("device: %s\n", name);
  double worst = 0;
  for (int p = 1; p <= FEINT_ELMAT_MAX_ORDER; p++) worst = fmax(worst, gpu_vs_host(p, p <= 3 ? 203 : (p == 4 ? 67 : 13)));
  printf("worst relative error GPU vs host: %.2e\n", worst);
  return check_report("t620");
}
