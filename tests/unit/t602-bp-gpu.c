/* BP operators on the GPU against the CPU reference: fresh random x for
 * every (N, kind, geometry mode, kernel variant), relative 2-norm
 * difference <= 1e-12; N = 1..15 on a small perturbed box. Without a GPU prints
 * "skipped: no GPU" (fails when FEINT_GPU_TESTS=1). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "feint/backend.h"
#include "feint/bp.h"
#include "feint/error.h"

int main(void) {
  if (feint_cuda_device_count() <= 0) {
    const char *req = getenv("FEINT_GPU_TESTS");
    printf("skipped: no GPU\n");
    if (req && !strcmp(req, "1")) {
      fprintf(stderr, "FEINT_GPU_TESTS=1 but no GPU is visible\n");
      return 1;
    }
    return 0;
  }
  char name[256];
  CHECK_OK(feint_bp_gpu_device_name(0, name, sizeof name));
  printf("device: %s\n", name);
  unsigned seed = (unsigned)time(NULL);
  double worst = 0;
  for (int N = 1; N <= 15; N++) {
    feint_hexmesh *m = NULL;
    int nx = N <= 4 ? 5 : (N <= 9 ? 3 : 2);
    CHECK_OK(feint_hexmesh_box(nx, nx - 1, nx, 1.0, 0.8, 1.2, 0.25, &m));
    feint_bp_dofmap *d = NULL;
    CHECK_OK(feint_bp_dofmap_box(m, N, &d));
    int64_t n = d->n_dofs;
    double *x = malloc(sizeof(double) * n), *y = malloc(sizeof(double) * n), *yg = malloc(sizeof(double) * n);
    for (int k = 0; k < 3; k++)
      for (int mode = 0; mode < 2; mode++) {
        feint_bp_op *op = NULL;
        CHECK_OK(feint_bp_op_create(m, d, (feint_bp_kind)k, (feint_bp_geo_mode)mode, 0.9, &op));
        feint_bp_gpu *g = NULL;
        CHECK_OK(feint_bp_gpu_create(op, 0, &g));
        /* 0 the default; 1, 2 layered kernels (2 = loads ahead); 3, 4
         * staged kernels (4 = Dq in registers); 5 tiled BP1.0; 6, 7 line
         * kernels (register-blocked; 7 with less shared memory); 2, 4, 5,
         * 6 and 7 stored only */
        for (int v = 0; v <= 7; v++) {
          if (v != 1 && v != 3 && mode == FEINT_BP_GEO_RECOMPUTE) continue;
          CHECK_OK(feint_bp_gpu_set_variant(g, v));
          for (int64_t i = 0; i < n; i++) {
            seed = seed * 1664525u + 1013904223u;
            x[i] = (seed >> 8) * (1.0 / 16777216.0) - 0.5;
            yg[i] = NAN; /* poison */
          }
          CHECK_OK(feint_bp_apply(op, x, y));
          CHECK_OK(feint_bp_gpu_apply(g, x, yg));
          double e = rel_diff(n, yg, y);
          if (!(e <= 1e-12)) e = isnan(e) ? INFINITY : e;
          worst = fmax(worst, e);
          CHECK(e <= 1e-12, "N=%d %s %s variant %d: GPU vs CPU %g", N, feint_bp_name(op->kind),
                mode ? "recomputed" : "stored", v, e);
        }
        if (mode == 0 && k == 0) printf("N=%2d cells %d dofs %lld\n", N, (int)m->n_cells, (long long)n);
        feint_bp_gpu_destroy(g);
        feint_bp_op_destroy(op);
      }
    free(x);
    free(y);
    free(yg);
    feint_bp_dofmap_destroy(d);
    feint_hexmesh_destroy(m);
  }
  printf("worst relative error GPU vs CPU: %.2e\n", worst);
  return check_report("t602");
}
