/* `feint run` with an operator section (issue 4), through the driver on the
 * CPU backend: on cases/hexcube.geo (refined once), for N = 1..4, BP1.0,
 * BP3.5 and BP3.0, stored and recomputed geometry, /operator/x is state.u
 * at the dofs and /operator/y equals the assembled CSR matrix of the bp
 * module (element matrices from the tabulated 3D basis) times x. Where a
 * GPU is visible (tests/gpu/t611-operator-csr.sh: FEINT_GPU_TESTS=1 demands
 * one) the same through --backend cuda: the GPU's y against the CSR matrix
 * directly. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "feint/backend.h"
#include "feint/bp.h"
#include "feint/driver.h"
#include "feint/error.h"
#include "feint/expr.h"
#include "feint/h5.h"
#include "feint/mesh.h"

static const char *const u_expr = "sin(2*x) + x*y - z^2 + 0.5";

int main(void) {
  char dir[] = "/tmp/feint-t611-XXXXXX", cwd[1024], case_path[1200], out_path[1200];
  CHECK(mkdtemp(dir) != NULL, "mkdtemp");
  CHECK(getcwd(cwd, sizeof cwd) != NULL, "getcwd");
  snprintf(case_path, sizeof case_path, "%s/op.yaml", dir);
  snprintf(out_path, sizeof out_path, "%s/op.h5", dir);
  FILE *f = fopen(case_path, "w");
  fprintf(f, "mesh: {file: %s/cases/hexcube.geo, refine: 1}\nspace: {order: 1}\n"
             "operator: {kind: bp1.0, lambda: 0.5}\nstate: {u: \"%s\"}\n",
          cwd, u_expr);
  fclose(f);

  /* the same mesh, read independently */
  feint_mesh *gm = NULL;
  char mesh_path[1200];
  snprintf(mesh_path, sizeof mesh_path, "%s/cases/hexcube.geo", cwd);
  feint_mesh_options mo = {0};
  mo.refine = 1;
  CHECK_OK(feint_mesh_read(mesh_path, &mo, &gm));
  feint_hexmesh *hm = NULL;
  CHECK_OK(feint_hexmesh_from_mesh(gm, &hm));
  feint_expr *ex = NULL;
  CHECK_OK(feint_expr_create(u_expr, "test", &ex));

  static const char *const kinds[] = {"bp1.0", "bp3.5", "bp3.0"};
  char no_gpu[512];
  const int n_backends = feint_backend_available("cuda", no_gpu, sizeof no_gpu) ? 2 : 1; /* cpu, then cuda */
  const char *want_gpu = getenv("FEINT_GPU_TESTS");
  CHECK(n_backends == 2 || !want_gpu || strcmp(want_gpu, "1"), "FEINT_GPU_TESTS=1 but %s", no_gpu);
  double worst[2] = {0, 0};
  for (int N = 1; N <= 4; N++) {
    feint_bp_dofmap *d = NULL;
    CHECK_OK(feint_bp_dofmap_create(hm, N, &d));
    int64_t n = d->n_dofs;
    double *xyz = malloc(sizeof(double) * 3 * n), *yc = malloc(sizeof(double) * n);
    CHECK_OK(feint_bp_dof_coordinates(hm, d, xyz, NULL));
    for (int k = 0; k < 3; k++) {
      feint_bp_op *op = NULL;
      feint_bp_csr *A = NULL;
      CHECK_OK(feint_bp_op_create(hm, d, (feint_bp_kind)k, FEINT_BP_GEO_STORED, 0.5, &op));
      CHECK_OK(feint_bp_assemble(op, &A));
      for (int gb = 0; gb < 2 * n_backends; gb++) {
        const int g = gb % 2, be = gb / 2;
        char s1[64], s2[64], s3[64];
        snprintf(s1, sizeof s1, "space.order=%d", N);
        snprintf(s2, sizeof s2, "operator.kind=%s", kinds[k]);
        snprintf(s3, sizeof s3, "operator.geometry=%s", g ? "recompute" : "stored");
        const char *sets[] = {s1, s2, s3};
        feint_run_options o;
        memset(&o, 0, sizeof o);
        o.case_path = case_path;
        o.n_overrides = 3;
        o.overrides = sets;
        o.output = out_path;
        o.backend_set = 1;
        o.backend = be ? FEINT_DEVICE_CUDA : FEINT_DEVICE_CPU;
        o.device_index = -1;
        o.quiet = 1;
        feint_run_report rep;
        CHECK_OK(feint_driver_run(&o, &rep));
        CHECK(rep.n_dofs == n, "N=%d: driver %lld dofs, expected %lld", N, (long long)rep.n_dofs, (long long)n);
        double *x = NULL, *y = NULL;
        CHECK_OK(feint_h5_read_doubles(out_path, "/operator/x", n, "test", &x));
        CHECK_OK(feint_h5_read_doubles(out_path, "/operator/y", n, "test", &y));
        double xe = 0;
        for (int64_t i = 0; i < n; i++)
          xe = fmax(xe, fabs(x[i] - feint_expr_eval(ex, xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2])));
        CHECK(xe < 1e-14, "N=%d: x differs from state.u at the dofs by %g", N, xe);
        feint_bp_csr_matvec(A, x, yc);
        double num = 0, den = 0;
        for (int64_t i = 0; i < n; i++) {
          num += (y[i] - yc[i]) * (y[i] - yc[i]);
          den += yc[i] * yc[i];
        }
        double r = sqrt(num / (den > 0 ? den : 1));
        worst[be] = fmax(worst[be], r);
        CHECK(r < 1e-12, "N=%d %s %s %s: y vs CSR x: %g", N, kinds[k], g ? "recompute" : "stored",
              be ? "cuda" : "cpu", r);
        free(x);
        free(y);
      }
      feint_bp_csr_destroy(A);
      feint_bp_op_destroy(op);
    }
    free(xyz);
    free(yc);
    feint_bp_dofmap_destroy(d);
  }
  printf("feint run operator: y vs assembled CSR x, worst relative difference %.2e on the cpu backend (N = 1..4)\n",
         worst[0]);
  if (n_backends == 2)
    printf("feint run operator: y vs assembled CSR x, worst relative difference %.2e on the cuda backend "
           "(N = 1..4)\n",
           worst[1]);
  feint_expr_destroy(ex);
  feint_hexmesh_destroy(hm);
  feint_mesh_destroy(gm);
  remove(out_path);
  remove(case_path);
  rmdir(dir);
  return check_failures ? 1 : 0;
}
