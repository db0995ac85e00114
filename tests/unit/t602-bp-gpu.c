/* BP operators on the GPU against the CPU reference: fresh random x for
 * every (N, kind, geometry mode, kernel variant), relative 2-norm
 * difference <= 1e-12; N = 1..15 on a small perturbed box with the lattice
 * numbering, N = 2, 5, 8, 11, 14 with the first-appearance numbering
 * (feint_bp_dofmap_create). Every case is applied twice in a row with
 * different x (no stale accumulation); FEINT_BP_NUMBERING is read (a bad
 * value refused). Every case runs in
 * the dof map's own numbering and in the split numbering (the default;
 * feint_bp_gpu_set_numbering, feint_bp_dofmap_split: the line kernels
 * store into the cells' own dofs, zero and add atomically only the shared
 * ones; apply permutes x in and y out). Without a GPU prints "skipped: no
 * GPU" (fails when FEINT_GPU_TESTS=1). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/cuda/cuda_timing.h"
#include "check.h"
#include "feint/backend.h"
#include "feint/bp.h"
#include "feint/error.h"

static unsigned seed;
static double worst = 0;
static int n_checked[10]; /* applies checked per variant (0: the default) */

/* Kernel variant v of g against op, two fresh random x. */
static void check_variant(const feint_bp_op *op, feint_bp_gpu *g, int v, const char *numbering, double *x,
                          double *y, double *yg) {
  const int64_t n = op->n_dofs;
  CHECK_OK(feint_bp_gpu_set_variant(g, v));
  for (int rep = 0; rep < 2; rep++) {
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
    CHECK(e <= 1e-12, "N=%d %s %s %s variant %d, apply %d: GPU vs CPU %g", op->order, numbering,
          feint_bp_name(op->kind), op->geo_mode ? "recomputed" : "stored", v, rep + 1, e);
  }
}

/* Every kind, geometry mode and (all = 1) kernel variant on mesh m with
 * dof map d. */
static void check_mesh(const feint_hexmesh *m, const feint_bp_dofmap *d, const char *numbering, int all) {
  int64_t n = d->n_dofs;
  double *x = malloc(sizeof(double) * n), *y = malloc(sizeof(double) * n), *yg = malloc(sizeof(double) * n);
  for (int k = 0; k < 3; k++)
    for (int mode = 0; mode < 2; mode++) {
      feint_bp_op *op = NULL;
      CHECK_OK(feint_bp_op_create(m, d, (feint_bp_kind)k, (feint_bp_geo_mode)mode, 0.9, &op));
      feint_bp_gpu *g = NULL;
      CHECK_OK(feint_bp_gpu_create(op, 0, &g));
      CHECK(feint_bp_gpu_split(g) == 1, "N=%d %s: the default numbering is not the split one", d->order, numbering);
      /* 0 the default; 1, 2 layered kernels (2 = loads ahead); 3, 4
       * staged kernels (4 = Dq in registers); 5 tiled BP1.0; 6, 7, 8 line
       * kernels (register-blocked; 7 with less shared memory, 8 BP1.0's
       * w|J| from global memory, 9 that in even-odd form); 2 and 4-9
       * stored only */
      for (int split = 0; split <= 1; split++) {
        CHECK_OK(feint_bp_gpu_set_numbering(g, split));
        CHECK(feint_bp_gpu_split(g) == split, "set_numbering(%d) not applied", split);
        char what[64];
        snprintf(what, sizeof what, "%s%s", numbering, split ? " (split)" : "");
        for (int v = 0; v <= (all ? 9 : 0); v++) {
          if (v != 1 && v != 3 && mode == FEINT_BP_GEO_RECOMPUTE) continue;
          if (!feint_bp_gpu_variant_built((feint_bp_kind)k, (feint_bp_geo_mode)mode, d->order, v)) {
            CHECK(feint_bp_gpu_set_variant(g, v) == FEINT_ERR_INPUT &&
                      strstr(feint_error_message(), "EXPERIMENTS=1") != NULL,
                  "N=%d variant %d: not built, yet not refused by name (%s)", d->order, v, feint_error_message());
            continue;
          }
          check_variant(op, g, v, what, x, y, yg);
          n_checked[v]++;
        }
      }
      if (mode == 0 && k == 0)
        printf("N=%2d %s: cells %d dofs %lld\n", d->order, numbering, (int)m->n_cells, (long long)n);
      feint_bp_gpu_destroy(g);
      feint_bp_op_destroy(op);
    }
  free(x);
  free(y);
  free(yg);
}

int main(void) {
  if (feint_cuda_device_count() <= 0) return check_skip_without_gpu("t602", NULL);
  char name[256];
  CHECK_OK(feint_bp_gpu_device_name(0, name, sizeof name));
  printf("device: %s\n", name);
  seed = (unsigned)time(NULL);
  unsetenv("FEINT_BP_NUMBERING"); /* the default numbering is checked below */
  for (int N = 1; N <= 15; N++) {
    feint_hexmesh *m = NULL;
    int nx = N <= 4 ? 5 : (N <= 9 ? 3 : 2);
    CHECK_OK(feint_hexmesh_box(nx, nx - 1, nx, 1.0, 0.8, 1.2, 0.25, &m));
    feint_bp_dofmap *d = NULL;
    CHECK_OK(feint_bp_dofmap_box(m, N, &d));
    check_mesh(m, d, "lattice", 1);
    feint_bp_dofmap_destroy(d);
    if (N % 3 == 2) {
      CHECK_OK(feint_bp_dofmap_create(m, N, &d));
      check_mesh(m, d, "first appearance", 0);
      feint_bp_dofmap_destroy(d);
    }
    feint_hexmesh_destroy(m);
  }
  /* FEINT_BP_NUMBERING: split or own, anything else refused by name */
  {
    feint_hexmesh *m = NULL;
    feint_bp_dofmap *d = NULL;
    feint_bp_op *op = NULL;
    feint_bp_gpu *g = NULL;
    CHECK_OK(feint_hexmesh_box(4, 4, 4, 1, 1, 1, 0.1, &m));
    CHECK_OK(feint_bp_dofmap_box(m, 3, &d));
    CHECK_OK(feint_bp_op_create(m, d, FEINT_BP1_0, FEINT_BP_GEO_STORED, 0, &op));
    setenv("FEINT_BP_NUMBERING", "splat", 1);
    CHECK(feint_bp_gpu_create(op, 0, &g) == FEINT_ERR_INPUT && !g, "FEINT_BP_NUMBERING=splat accepted");
    CHECK(strstr(feint_error_message(), "FEINT_BP_NUMBERING=splat") != NULL, "message: %s", feint_error_message());
    setenv("FEINT_BP_NUMBERING", "split", 1);
    CHECK_OK(feint_bp_gpu_create(op, 0, &g));
    CHECK(feint_bp_gpu_split(g) == 1, "FEINT_BP_NUMBERING=split not applied");
    CHECK(feint_bp_gpu_set_variant(g, 10) == FEINT_ERR_INPUT, "variant 10 accepted");
    feint_bp_gpu_destroy(g);
    setenv("FEINT_BP_NUMBERING", "own", 1);
    CHECK_OK(feint_bp_gpu_create(op, 0, &g));
    CHECK(feint_bp_gpu_split(g) == 0, "FEINT_BP_NUMBERING=own not applied");
    feint_bp_gpu_destroy(g);
    unsetenv("FEINT_BP_NUMBERING");
    feint_bp_op_destroy(op);
    feint_bp_dofmap_destroy(d);
    feint_hexmesh_destroy(m);
  }
  printf("worst relative error GPU vs CPU: %.2e\nchecked (kind, geometry, order, numbering) per variant:", worst);
  for (int v = 0; v <= 9; v++) printf(" %d:%d", v, n_checked[v]);
  printf("%s\n", n_checked[2] ? " (an EXPERIMENTS=1 build: every variant)" : " (each order's default)");
  CHECK(n_checked[0] > 0, "no default kernel checked");
  return check_report("t602");
}
