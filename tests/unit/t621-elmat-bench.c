/* Element matrix benchmark (issue 4, after Banas et al.; a check only of
 * running): p = 1..7 tetrahedra, then p = 1..7 prisms (FEINT_BENCH_CELL=
 * tet or prism: only those), per variant one row with the cells of the
 * batch, the median kernel time, time per cell, GF/s (feint_elmat_flops),
 * GB/s of the minimum bytes (feint_elmat_min_bytes: inputs read once, the
 * nb^2 doubles per cell written once) and that over the device-to-device
 * copy bandwidth measured at the start of the same run; beside the kernel
 * the host-to-device upload of the inputs, the device-to-host download of
 * the matrices, and the setup (host tables + their upload; for the
 * Jacobian variants also the host Jacobian terms of the batch: per
 * point on prisms with per-point coefficients). The device fills the
 * inputs with random cells (general prisms, affine ones for per-cell
 * coefficients: elmat.h).
 * FEINT_BENCH=1: batches of FEINT_BENCH_GB (default 2.5) GB of minimum
 * bytes, FEINT_BENCH_REPS (default 5) repetitions; otherwise a smoke run
 * (small batches, 1 repetition). FEINT_BENCH_NCOEF=16 adds g1, g2. Without
 * a GPU: the host reference on a few cells, then "skipped: no GPU". */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "feint/backend.h"
#include "feint/elmat.h"
#include "feint/error.h"

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static double env_num(const char *k, double def) {
  const char *v = getenv(k);
  return v && *v ? atof(v) : def;
}

/* Vertices of n well-shaped cells (for the host Jacobian terms): the
 * reference cell perturbed; prisms affine (extruded) when affine is set. */
static double *make_vertices(feint_cell_type cell, int affine, int64_t n) {
  const int nx = 3 * feint_cell_num_vertices(cell);
  double *xv = NULL;
  CHECK_OK(feint_malloc((size_t)n * nx, sizeof(double), &xv, "vertices"));
  static const double ref[18] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 0, 1, 1};
  unsigned s = 99;
  for (int64_t k = 0; k < nx * n; k++) {
    s = s * 1664525u + 1013904223u;
    xv[k] = ref[k % nx] + 0.25 * ((s >> 8) * (1.0 / 16777216.0) - 0.5);
    if (affine && k % nx >= 12) xv[k] = xv[k - 9] + xv[k - k % nx + 9 + k % 3] - xv[k - k % nx + k % 3];
  }
  return xv;
}

static void host_smoke(feint_cell_type cell, int ncoef) {
  printf("host reference, %s (per-point coefficients, ncoef %d):\n%2s %4s %4s %12s %8s\n", feint_cell_name(cell),
         ncoef, "p", "nb", "nq", "us/cell", "GF/s");
  const int64_t n = cell == FEINT_CELL_PRISM ? 1 : 3;
  for (int p = 1; p <= FEINT_ELMAT_MAX_ORDER; p++) {
    feint_elmat_tables *t = NULL;
    CHECK_OK(feint_elmat_tables_create(cell, p, &t));
    feint_elmat_variant v = {FEINT_ELMAT_DATA_SHARED, FEINT_ELMAT_GEO_VERTICES, FEINT_ELMAT_COEF_POINT, ncoef};
    double *xv = make_vertices(cell, 0, n), *coef = NULL, *A = NULL;
    CHECK_OK(feint_malloc((size_t)n * t->nq * ncoef, sizeof(double), &coef, "coefficients"));
    CHECK_OK(feint_malloc((size_t)n * t->nb * t->nb, sizeof(double), &A, "matrices"));
    for (size_t k = 0; k < (size_t)n * t->nq * ncoef; k++) coef[k] = 1 + 0.001 * (double)(k % 7);
    double t0 = now_ms();
    CHECK_OK(feint_elmat_compute(t, &v, n, xv, coef, A));
    double ms = now_ms() - t0;
    printf("%2d %4d %4d %12.1f %8.2f\n", p, t->nb, t->nq, 1e3 * ms / n, feint_elmat_flops(t, &v, n) / ms * 1e-6);
    free(xv);
    free(coef);
    free(A);
    feint_elmat_tables_destroy(t);
  }
}

static const feint_cell_type cells[2] = {FEINT_CELL_TETRAHEDRON, FEINT_CELL_PRISM};

/* The GPU benchmark (with CUDA only: feint/elmat.h's GPU functions exist
 * there alone) on cells[c0..c1). */
#ifdef FEINT_HAVE_CUDA
static int gpu_bench(int c0, int c1, int ncoef) {
  const int full = getenv("FEINT_BENCH") && !strcmp(getenv("FEINT_BENCH"), "1");
  const int reps = full ? (int)env_num("FEINT_BENCH_REPS", 5) : 1;
  const double budget = full ? env_num("FEINT_BENCH_GB", 2.5) * 1e9 : 2e7;
  char dev[256];
  CHECK_OK(feint_elmat_gpu_device_name(0, dev, sizeof dev));
  double copy_gbs = 0;
  CHECK_OK(feint_backend_kind_find("cuda")->copy_bandwidth(0, (size_t)1 << 30, 20, &copy_gbs));
  printf("device: %s\ndevice-to-device copy: %.1f GB/s (read + write, 1 GiB)\n", dev, copy_gbs);
  printf("batches of %.2f GB minimum bytes, median of %d, ncoef %d\n", budget * 1e-9, reps, ncoef);
  printf("%-11s %2s %4s %4s %-26s %9s %9s %9s %8s %8s %6s %9s %9s %9s\n", "cell", "p", "nb", "nq", "variant", "cells",
         "kernel_ms", "ns/cell", "GF/s", "GB/s", "%copy", "h2d_ms", "d2h_ms", "setup_ms");
  static const feint_elmat_variant variants[] = {
      {FEINT_ELMAT_DATA_REGISTERS, FEINT_ELMAT_GEO_JACOBIAN, FEINT_ELMAT_COEF_POINT, 0},
      {FEINT_ELMAT_DATA_REGISTERS, FEINT_ELMAT_GEO_VERTICES, FEINT_ELMAT_COEF_POINT, 0},
      {FEINT_ELMAT_DATA_SHARED, FEINT_ELMAT_GEO_JACOBIAN, FEINT_ELMAT_COEF_POINT, 0},
      {FEINT_ELMAT_DATA_SHARED, FEINT_ELMAT_GEO_VERTICES, FEINT_ELMAT_COEF_POINT, 0},
      {FEINT_ELMAT_DATA_TENSOR, FEINT_ELMAT_GEO_JACOBIAN, FEINT_ELMAT_COEF_POINT, 0},
      {FEINT_ELMAT_DATA_TENSOR, FEINT_ELMAT_GEO_VERTICES, FEINT_ELMAT_COEF_POINT, 0},
      {FEINT_ELMAT_DATA_SHARED, FEINT_ELMAT_GEO_JACOBIAN, FEINT_ELMAT_COEF_CELL, 0},
      {FEINT_ELMAT_DATA_SHARED, FEINT_ELMAT_GEO_VERTICES, FEINT_ELMAT_COEF_CELL, 0},
  };
  unsigned seed = 2024;
  for (int cp = c0 * FEINT_ELMAT_MAX_ORDER; cp < c1 * FEINT_ELMAT_MAX_ORDER; cp++) {
    const feint_cell_type cell = cells[cp / FEINT_ELMAT_MAX_ORDER];
    const int p = 1 + cp % FEINT_ELMAT_MAX_ORDER;
    double t0 = now_ms();
    feint_elmat_tables *t = NULL;
    CHECK_OK(feint_elmat_tables_create(cell, p, &t));
    double tables_ms = now_ms() - t0;
    feint_elmat_gpu *g = NULL;
    CHECK_OK(feint_elmat_gpu_create(t, 0, &g));
    for (size_t k = 0; k < sizeof variants / sizeof variants[0]; k++) {
      feint_elmat_variant v = variants[k];
      v.ncoef = ncoef;
      if (!feint_elmat_gpu_variant_built(p, &v)) continue; /* lost at this order: make EXPERIMENTS=1 builds */
      const int64_t n = (int64_t)(budget / (feint_elmat_min_bytes(t, &v, 1)));
      feint_elmat_gpu_timing tm;
      CHECK_OK(feint_elmat_gpu_bench(g, &v, n, reps, seed++, &tm));
      double setup = tables_ms + tm.setup_ms;
      if (v.geo == FEINT_ELMAT_GEO_JACOBIAN) { /* the host's share of this variant */
        double *xv = make_vertices(cell, v.coef == FEINT_ELMAT_COEF_CELL, n), *geo = NULL;
        CHECK_OK(feint_malloc((size_t)n * feint_elmat_geometry_size(t, &v), sizeof(double), &geo, "Jacobian terms"));
        double t1 = now_ms();
        CHECK_OK(feint_elmat_jacobian_terms(t, &v, n, xv, geo));
        setup += now_ms() - t1;
        free(xv);
        free(geo);
      }
      char name[64];
      const double s = tm.kernel_ms * 1e-3;
      printf("%-11s %2d %4d %4d %-26s %9lld %9.3f %9.2f %8.0f %8.0f %6.1f %9.2f %9.2f %9.2f\n", feint_cell_name(cell), p, t->nb, t->nq,
             feint_elmat_variant_name(&v, name, sizeof name), (long long)n, tm.kernel_ms, 1e9 * s / n,
             feint_elmat_flops(t, &v, n) / s * 1e-9, feint_elmat_min_bytes(t, &v, n) / s * 1e-9,
             100 * feint_elmat_min_bytes(t, &v, n) / s * 1e-9 / copy_gbs, tm.upload_ms, tm.download_ms, setup);
      fflush(stdout);
    }
    feint_elmat_gpu_destroy(g);
    feint_elmat_tables_destroy(t);
  }
  return 0;
}
#endif

int main(void) {
  const int ncoef = (int)env_num("FEINT_BENCH_NCOEF", 10);
  const char *only = getenv("FEINT_BENCH_CELL");
  const int c0 = only && !strcmp(only, "prism") ? 1 : 0, c1 = only && !strcmp(only, "tet") ? 1 : 2;
#ifdef FEINT_HAVE_CUDA
  if (feint_backend_available("cuda", NULL, 0)) return gpu_bench(c0, c1, ncoef);
#endif
  for (int c = c0; c < c1; c++) host_smoke(cells[c], ncoef);
  printf("skipped: no GPU\n");
  return 0;
}
