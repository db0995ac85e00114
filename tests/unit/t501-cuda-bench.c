/* CUDA backend benchmark (issue 3): P1 tetrahedra of a Kuhn-split cube,
 * Poisson with a nodal (same space as u) coefficient and P1 elasticity.
 * Reports kernel times (CUDA events, transfers excluded), the minimum
 * unique bytes each kernel must move, GB/s and the fraction of the
 * device-to-device copy bandwidth measured in the same run, the assembly
 * strategies, and a blocks-per-batch x batches-per-chunk sweep.
 * FEINT_BENCH_N (default 100: 6 million cells) sets the cube's divisions;
 * FEINT_BENCH_QUICK=1 times the default kernels only.
 * Exits 0 printing "skipped: no GPU" without a GPU. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <math.h>

#include "backend/cuda/cuda_timing.h"
#include "check.h"
#include "feint/backend.h"
#include "feint/error.h"
#include "feint/form.h"
#include "feint/physics.h"
#include "feint/plan.h"
#include "feint/space.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

#include "testmesh.h"

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Median kernel ms of `reps` calls of what (0 residual, 1 matrix). */
static double time_calls(feint_backend *b, int what, const double *u, double *out, int reps) {
  double t[32];
  feint_cuda_stats st;
  for (int r = 0; r < reps + 1; r++) {
    if (what == 0)
      CHECK_OK(b->residual(b, u, out));
    else
      CHECK_OK(b->assemble_matrix(b, out));
    feint_cuda_info(b, &st);
    if (r > 0) t[r - 1] = st.last_kernel_ms;
  }
  qsort(t, (size_t)reps, sizeof(double), cmp_double);
  return t[reps / 2];
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (feint_cuda_device_count() <= 0) {
    printf("skipped: no GPU\n");
    return 0;
  }
  const int n = getenv("FEINT_BENCH_N") ? atoi(getenv("FEINT_BENCH_N")) : 100;
  /* FEINT_BENCH_QUICK=1: the default kernels only (no previous-version,
   * thread-transposition or sweep timings) */
  const int quick = getenv("FEINT_BENCH_QUICK") && atoi(getenv("FEINT_BENCH_QUICK"));
  double t0 = now();
  feint_mesh *m = mesh_cube(n, 0.2);
  double t_mesh = now() - t0;
  double copy_gbs = 0;
  CHECK_OK(feint_cuda_copy_bandwidth(-1, (size_t)1 << 30, 10, &copy_gbs));
  printf("mesh: %lld tetrahedra, %lld nodes (built in %.2f s)\n", (long long)m->n_cells, (long long)m->n_nodes, t_mesh);
  printf("device-to-device copy: %.1f GB/s (read + write)\n", copy_gbs);
  for (int physics = 0; physics < 2; physics++) {
    const int phys = physics == 0 ? FEINT_PW_POISSON : FEINT_PW_ELASTICITY;
    const int nc = phys == FEINT_PW_ELASTICITY ? 3 : 1;
    feint_space *s = NULL;
    feint_plan *plan = NULL;
    t0 = now();
    CHECK_OK(feint_space_create(m, 1, nc, &s));
    double t_space = now() - t0;
    t0 = now();
    CHECK_OK(feint_plan_create(s, &plan));
    double t_plan = now() - t0;
    feint_form *f = make_form(phys, s, 0);
    /* the paper's Poisson: kappa nodal, source constant */
    if (phys == FEINT_PW_POISSON && f->aux[1].kind != FEINT_FIELD_CONSTANT) {
      free(f->aux[1].values);
      f->aux[1].values = NULL;
      f->aux[1].kind = FEINT_FIELD_CONSTANT;
      f->aux[1].constant = 1;
    }
    const char *name = phys == FEINT_PW_POISSON ? "P1 Poisson (nodal kappa)" : "P1 elasticity";
    printf("\n== %s: %lld dofs, nnz %lld, nq %d; host space %.2f s, host plan (symbolic) %.2f s\n", name,
           (long long)s->n_dofs, (long long)plan->nnz, f->quadrature->n, t_space, t_plan);
    const int64_t nd = s->n_dofs, ncell = m->n_cells;
    double *F = malloc(sizeof(double) * nd), *Fref = malloc(sizeof(double) * nd), *V = malloc(sizeof(double) * plan->nnz);
    /* minimum unique bytes of the end-to-end residual: coordinates, cell
     * vertices (int32), cell dofs (int32, when not the vertices), u, nodal
     * coefficients, F written */
    int n_nodal = 0;
    for (int k = 0; k < f->n_aux; k++) n_nodal += f->aux[k].kind == FEINT_FIELD_NODE;
    double cell_bytes = 0;
    for (int k = 0; k < f->n_aux; k++) cell_bytes += f->aux[k].kind == FEINT_FIELD_CELL ? 8.0 * ncell : 0;
    const double res_bytes = 24.0 * m->n_nodes + 16.0 * ncell + 8.0 * nd * 2 + 8.0 * s->n_scalar_dofs * n_nodal +
                             cell_bytes;
    /* single precision: the same with 4-byte reals (indices stay int32) */
    const double res_bytes_s = 12.0 * m->n_nodes + 16.0 * ncell + 4.0 * nd * 2 + 4.0 * s->n_scalar_dofs * n_nodal +
                               cell_bytes / 2;
    const double mat_bytes = 24.0 * m->n_nodes + 16.0 * ncell + 8.0 * s->n_scalar_dofs * n_nodal + cell_bytes +
                             8.0 * plan->nnz + 4.0 * ncell * s->nbc * s->nbc;
    for (int sti = 0; sti < 3; sti++) {
      const int st = sti == 0 ? FEINT_ASSEMBLY_ATOMIC : sti == 1 ? FEINT_ASSEMBLY_COLORED : FEINT_ASSEMBLY_GATHER;
      static const char *sn[] = {"colored", "atomic", "gather"};
      feint_problem p = {s, f, plan, FEINT_PRECISION_DOUBLE, (feint_assembly_strategy)st, 0, 0};
      feint_backend *b = NULL;
      t0 = now();
      int status = feint_backend_cuda_create(&p, -1, &b);
      double t_setup = now() - t0;
      if (status) {
        printf("%s: create failed: %s\n", sn[st], feint_error_message());
        continue;
      }
      feint_cuda_stats info;
      feint_cuda_info(b, &info);
      double wall0 = now();
      CHECK_OK(b->residual(b, f->u, F));
      double wall = now() - wall0;
      double tr = time_calls(b, 0, f->u, F, 7);
      double tm = time_calls(b, 1, NULL, V, 7);
      printf("%-7s setup+upload %.3f s (colours %d); P1 one-thread-per-cell kernels (%d/%d): residual %.3f ms = "
             "%.1f GB/s (%.0f%% of copy), call with transfers %.1f ms; matrix assembly %.3f ms = %.1f GB/s (%.0f%%)\n",
             sn[st], t_setup, info.n_colors, info.p1_residual, info.p1_matrix, tr, res_bytes / tr / 1e6,
             100 * res_bytes / tr / 1e6 / copy_gbs, 1e3 * wall, tm, mat_bytes / tm / 1e6,
             100 * mat_bytes / tm / 1e6 / copy_gbs);
      if (st == FEINT_ASSEMBLY_ATOMIC) {
        memcpy(Fref, F, sizeof(double) * nd);
        if (phys == FEINT_PW_POISSON) {
          feint_cuda_paper_stats ps;
          double *Fp = malloc(sizeof(double) * nd);
          CHECK_OK(feint_cuda_paper_residual(b, f->u, Fp, 15, &ps));
          double num = 0, den = 0;
          for (int64_t i = 0; i < nd; i++) num += (Fp[i] - F[i]) * (Fp[i] - F[i]), den += F[i] * F[i];
          CHECK(sqrt(num / den) <= 1e-12, "paper kernel residual differs: %.3e", sqrt(num / den));
          printf("paper kernel (pre-gathered SoA G, |det|, kappa, u per cell): %.3f ms, %.0f MB = %.1f GB/s "
                 "(%.0f%% of copy); GPU preprocessing (gather + geometry) %.3f ms; assembled rel. diff %.1e\n",
                 ps.kernel_ms, ps.kernel_bytes / 1e6, ps.kernel_bytes / ps.kernel_ms / 1e6,
                 100 * ps.kernel_bytes / ps.kernel_ms / 1e6 / copy_gbs, ps.prep_ms, sqrt(num / den));
          free(Fp);
        }
      } else {
        double num = 0, den = 0;
        for (int64_t i = 0; i < nd; i++) num += (Fref[i] - F[i]) * (Fref[i] - F[i]), den += F[i] * F[i];
        CHECK(sqrt(num / den) <= 1e-12, "%s residual differs from atomic: %.3e", sn[st], sqrt(num / den));
      }
      if (st == FEINT_ASSEMBLY_ATOMIC) {
        /* same run: the local-index / shared-atomic flush instead of the sorted inverse map */
        setenv("FEINT_CUDA_LIDX", "1", 1);
        double t_old = time_calls(b, 0, f->u, F, 7);
        unsetenv("FEINT_CUDA_LIDX");
        printf("        residual with the local-index shared-atomic flush (FEINT_CUDA_LIDX=1): %.3f ms (%.0f%% of "
               "copy)\n",
               t_old, 100 * res_bytes / t_old / 1e6 / copy_gbs);
        /* same run: node coordinates and coefficient in separate arrays */
        setenv("FEINT_CUDA_PACK", "0", 1);
        feint_backend *b2 = NULL;
        if (!feint_backend_cuda_create(&p, -1, &b2)) {
          double t_np = time_calls(b2, 0, f->u, F, 7);
          printf("        residual without packed node records (FEINT_CUDA_PACK=0): %.3f ms (%.0f%% of copy)\n", t_np,
                 100 * res_bytes / t_np / 1e6 / copy_gbs);
          feint_backend_destroy(b2);
        }
        unsetenv("FEINT_CUDA_PACK");
        CHECK_OK(b->residual(b, f->u, F)); /* F back to this backend's result */
      }
      /* single precision (float storage, double compute), against the double result */
      {
        feint_problem ps = p;
        ps.precision = FEINT_PRECISION_SINGLE;
        feint_backend *bs = NULL;
        if (feint_backend_cuda_create(&ps, -1, &bs)) {
          printf("        single: create failed: %s\n", feint_error_message());
        } else {
          double *Fs = malloc(sizeof(double) * nd);
          double ts = time_calls(bs, 0, f->u, Fs, 7);
          double tms = time_calls(bs, 1, NULL, V, 7);
          double num = 0, den = 0;
          for (int64_t i = 0; i < nd; i++) num += (Fs[i] - F[i]) * (Fs[i] - F[i]), den += F[i] * F[i];
          CHECK(sqrt(num / den) <= 1e-5, "%s single residual differs from double: %.3e", sn[st], sqrt(num / den));
          printf("        single precision: residual %.3f ms = %.1f GB/s on %.0f MB (%.0f%% of copy), rel. diff %.1e; "
                 "matrix assembly %.3f ms\n",
                 ts, res_bytes_s / ts / 1e6, res_bytes_s / 1e6, 100 * res_bytes_s / ts / 1e6 / copy_gbs,
                 sqrt(num / den), tms);
          free(Fs);
          feint_backend_destroy(bs);
        }
      }
      feint_cuda_info(b, &info);
      printf("        block-local aggregation (vector %d, matrix %d): %d cells per chunk, chunk colours %d/%d, "
             "plan build (host, lazy) %.0f ms\n",
             info.block_vector, info.block_matrix, info.block_cells, info.block_colors_vector,
             info.block_colors_matrix, info.block_build_ms);
      if (quick) {
        feint_backend_destroy(b);
        continue;
      }
      CHECK_OK(feint_cuda_set_variant(b, 2));
      tr = time_calls(b, 0, f->u, F, 5);
      tm = time_calls(b, 1, NULL, V, 5);
      printf("        previous P1 kernels (no aggregation): residual %.3f ms (%.0f%% of copy); matrix assembly %.3f ms\n",
             tr, 100 * res_bytes / tr / 1e6 / copy_gbs, tm);
      CHECK_OK(feint_cuda_set_variant(b, 1));
      tr = time_calls(b, 0, f->u, F, 5);
      printf("        thread transposition (batch %d cells): residual %.3f ms (%.0f%% of copy)", info.residual_batch,
             tr, 100 * res_bytes / tr / 1e6 / copy_gbs);
      if (st == FEINT_ASSEMBLY_ATOMIC) {
        tm = time_calls(b, 1, NULL, V, 5);
        printf("; matrix assembly %.3f ms", tm);
      }
      printf("\n");
      feint_backend_destroy(b);
    }
    if (phys == FEINT_PW_POISSON && !quick) {
      printf("sweep (thread transposition, atomic residual kernel ms / %% of copy): rows blocks_per_batch, columns batches_per_chunk 1 4 16 64\n");
      const int bpbs[] = {1, 2, 4, 8, 16, 32}, bpcs[] = {1, 4, 16, 64};
      for (int i = 0; i < 6; i++) {
        printf("  bpb %2d:", bpbs[i]);
        for (int j = 0; j < 4; j++) {
          feint_problem p = {s, f, NULL, FEINT_PRECISION_DOUBLE, FEINT_ASSEMBLY_ATOMIC, bpbs[i], bpcs[j]};
          feint_backend *b = NULL;
          if (feint_backend_cuda_create(&p, -1, &b)) {
            printf("  (%s)", feint_error_message());
            continue;
          }
          CHECK_OK(feint_cuda_set_variant(b, 1));
          double tr = time_calls(b, 0, f->u, F, 5);
          printf("  %7.3f/%3.0f%%", tr, 100 * res_bytes / tr / 1e6 / copy_gbs);
          feint_backend_destroy(b);
        }
        printf("\n");
      }
    }
    free(F);
    free(Fref);
    free(V);
    feint_form_destroy(f);
    feint_plan_destroy(plan);
    feint_space_destroy(s);
  }
  mesh_free(m);
  return check_report("t501-cuda-bench");
}
