/* CUDA backend benchmark (issue 3): P1 tetrahedra of a Kuhn-split cube,
 * Poisson with a nodal (same space as u) coefficient and P1 elasticity.
 * Reports kernel times (CUDA events, transfers excluded), the minimum
 * unique bytes each kernel must move, GB/s and the fraction of the
 * device-to-device copy bandwidth measured in the same run, the assembly
 * strategies, and a blocks-per-batch x batches-per-chunk sweep.
 * FEINT_BENCH_N (default 100: 6 million cells) sets the cube's divisions;
 * FEINT_BENCH_MESH=file.geo|.msh (with FEINT_BENCH_SIZE, FEINT_BENCH_REFINE)
 * reads a Gmsh mesh instead (e.g. cases/cube.geo at 0.036 refined twice:
 * bench-6m.yaml's 6.36M cells); FEINT_BENCH_PHYSICS=poisson|elasticity
 * times one physics, FEINT_BENCH_STRATEGY=atomic|colored|gather one
 * strategy; FEINT_BENCH_QUICK=1 leaves out the thread-
 * transposition timings and the sweep. Every run also times, on the same
 * device, the kernels' variants: no shared gather (variant 3), the per-cell
 * matrix kernels without aggregation (variant 2), each with the cells in mesh
 * order and along the space-filling curve (FEINT_CUDA_ORDER=0 / 1), and
 * with each tuning setting listed in FEINT_BENCH_ENV ("NAME=value ...";
 * "s:NAME=value" times it in single precision, "A=1,B=2" sets both;
 * FEINT_BENCH_ENV_MATRIX=0 times only their residuals);
 * FEINT_BENCH_VARIANTS=0
 * leaves out the variants and cell orders (shorter runs). The full run ends
 * with the same sweep for P2 Poisson (the thread-transposition kernels'
 * own family) beside the defaults; FEINT_BENCH_P2_SWEEP=1 runs only that.
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
#include "feint/mesh.h"
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

/* Residual and matrix times of b's default kernels, the residual without
 * the shared gather (variant 3) and the matrix by the per-cell kernels
 * without aggregation (variant 2), with the block
 * plans' distinct targets per chunk and chunk colours. */
static void compare_variants(feint_backend *b, const char *label, const double *u, double *F, double *V,
                             double res_bytes, double copy_gbs) {
  double t[3][2] = {{0}};
  const int variants[3] = {0, 3, 2};
  for (int k = 0; k < 3; k++) {
    CHECK_OK(feint_cuda_set_variant(b, variants[k]));
    if (k < 2) t[k][0] = time_calls(b, 0, u, F, 7);
    if (k != 1) t[k][1] = time_calls(b, 1, NULL, V, 7);
  }
  CHECK_OK(feint_cuda_set_variant(b, 0));
  feint_cuda_stats st;
  feint_cuda_info(b, &st);
  printf("        %s: residual %.3f ms (%.0f%%) / no shared gather %.3f; matrix %.3f / per-cell %.3f ms; targets per "
         "chunk %.0f / %.0f, chunk colours %d / %d, plans %.0f ms\n",
         label, t[0][0], 100 * res_bytes / t[0][0] / 1e6 / copy_gbs, t[1][0], t[0][1], t[2][1],
         st.block_targets[0], st.block_targets[1], st.block_colors_vector, st.block_colors_matrix,
         st.block_build_ms);
}

/* The thread-transposition tuning on its own kernel family (P2
 * tetrahedra, Poisson, atomic residual): blocks per batch x batches per
 * chunk, and the defaults (about 128 cells a batch, 4 batches a chunk)
 * beside them, so that the defaults are measured ones. */
static void sweep_p2(feint_mesh *m) {
  feint_space *s = NULL;
  CHECK_OK(feint_space_create(m, 2, 1, &s));
  if (!s) return;
  feint_form *f = make_form(FEINT_PW_POISSON, s, 0);
  double *F = malloc(sizeof(double) * s->n_dofs);
  printf("\nP2 sweep (thread transposition, P2 Poisson, %lld cells, %lld dofs, nq %d, atomic residual ms): rows "
         "blocks_per_batch, columns batches_per_chunk 1 4 16 64\n",
         (long long)m->n_cells, (long long)s->n_dofs, f->quadrature->n);
  const int bpbs[] = {1, 2, 4, 8}, bpcs[] = {1, 4, 16, 64};
  double best = 1e30;
  int best_i = 0, best_j = 0;
  for (int i = 0; i <= 4; i++) {
    if (i < 4)
      printf("  bpb %2d:", bpbs[i]);
    else
      printf("  default:");
    for (int j = 0; j < (i < 4 ? 4 : 1); j++) {
      feint_problem p = {s, f, NULL, FEINT_PRECISION_DOUBLE, FEINT_ASSEMBLY_ATOMIC, i < 4 ? bpbs[i] : 0,
                         i < 4 ? bpcs[j] : 0, 0};
      feint_backend *b = NULL;
      if (feint_backend_cuda_create(&p, -1, &b)) {
        printf("  (%s)", feint_error_message());
        continue;
      }
      CHECK_OK(feint_cuda_set_variant(b, 1));
      const double tr = time_calls(b, 0, f->u, F, 5);
      feint_cuda_stats st;
      feint_cuda_info(b, &st);
      if (i < 4) {
        printf("  %7.3f", tr);
        if (tr < best) best = tr, best_i = i, best_j = j;
      } else {
        printf("  %7.3f (batch %d cells; %.0f%% above the sweep's best, bpb %d x %d)", tr, st.residual_batch,
               100 * (tr / best - 1), bpbs[best_i], bpcs[best_j]);
      }
      feint_backend_destroy(b);
    }
    printf("\n");
  }
  free(F);
  feint_form_destroy(f);
  feint_space_destroy(s);
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
  const char *mesh_file = getenv("FEINT_BENCH_MESH");
  const char *only = getenv("FEINT_BENCH_PHYSICS");
  double t0 = now();
  feint_mesh *m = NULL;
  if (mesh_file) {
    feint_mesh_options mo = {0};
    mo.size = getenv("FEINT_BENCH_SIZE") ? atof(getenv("FEINT_BENCH_SIZE")) : 0;
    mo.refine = getenv("FEINT_BENCH_REFINE") ? atoi(getenv("FEINT_BENCH_REFINE")) : 0;
    CHECK_OK(feint_mesh_read(mesh_file, &mo, &m));
    if (!m) return check_report("t501-cuda-bench");
  } else {
    m = mesh_cube(n, 0.2);
  }
  double t_mesh = now() - t0;
  double copy_gbs = 0;
  CHECK_OK(feint_cuda_copy_bandwidth(-1, (size_t)1 << 30, 10, &copy_gbs));
  printf("mesh: %lld cells, %lld nodes (%s, %.2f s)\n", (long long)m->n_cells, (long long)m->n_nodes,
         mesh_file ? mesh_file : "Kuhn cube", t_mesh);
  printf("device-to-device copy: %.1f GB/s (read + write)\n", copy_gbs);
  if (getenv("FEINT_BENCH_P2_SWEEP") && atoi(getenv("FEINT_BENCH_P2_SWEEP"))) { /* the P2 sweep alone */
    sweep_p2(m);
    only = "none";
  }
  for (int physics = 0; physics < 2; physics++) {
    const int phys = physics == 0 ? FEINT_PW_POISSON : FEINT_PW_ELASTICITY;
    if (only && strcmp(only, physics == 0 ? "poisson" : "elasticity")) continue;
    const int nc = phys == FEINT_PW_ELASTICITY ? m->dim : 1;
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
    int have_ref = 0; /* Fref holds the atomic residual */
    for (int sti = 0; sti < 3; sti++) {
      const int st = sti == 0 ? FEINT_ASSEMBLY_ATOMIC : sti == 1 ? FEINT_ASSEMBLY_COLORED : FEINT_ASSEMBLY_GATHER;
      static const char *sn[] = {"colored", "atomic", "gather"};
      const char *only_st = getenv("FEINT_BENCH_STRATEGY");
      if (only_st && strcmp(only_st, sn[st])) continue;
      feint_problem p = {s, f, plan, FEINT_PRECISION_DOUBLE, (feint_assembly_strategy)st, 0, 0, 0};
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
        have_ref = 1;
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
      } else if (have_ref) {
        double num = 0, den = 0;
        for (int64_t i = 0; i < nd; i++) num += (Fref[i] - F[i]) * (Fref[i] - F[i]), den += F[i] * F[i];
        CHECK(sqrt(num / den) <= 1e-12, "%s residual differs from atomic: %.3e", sn[st], sqrt(num / den));
      }
      /* same run: the variants (no shared gather; per-cell matrix kernels
       * without aggregation) in both cell orders */
      feint_cuda_info(b, &info);
      printf("        default cell order: %s (chunk colours mesh %d, curve %d)\n", info.curve_order ? "curve" : "mesh",
             info.order_colors[0], info.order_colors[1]);
      const int variants = !getenv("FEINT_BENCH_VARIANTS") || atoi(getenv("FEINT_BENCH_VARIANTS"));
      for (int ord = 0; ord < 2 && variants; ord++) {
        setenv("FEINT_CUDA_ORDER", ord ? "1" : "0", 1);
        feint_backend *b0 = NULL;
        if (feint_backend_cuda_create(&p, -1, &b0)) {
          printf("        order %d: create failed: %s\n", ord, feint_error_message());
        } else {
          compare_variants(b0, ord ? "curve order" : "mesh order ", f->u, F, V, res_bytes, copy_gbs);
          feint_backend_destroy(b0);
        }
        unsetenv("FEINT_CUDA_ORDER");
      }
      CHECK_OK(b->residual(b, f->u, F)); /* F back to this backend's default result */
      /* FEINT_BENCH_ENV="NAME=value ...": the default kernels again with each
       * setting of the backend's tuning variables (e.g. FEINT_CUDA_CHUNK=128),
       * each result checked against this backend's (1e-12; "s:NAME=value":
       * in single precision, 1e-5) */
      const char *envs = getenv("FEINT_BENCH_ENV");
      for (const char *q = envs; q && *q;) {
        while (*q == ' ') q++;
        const size_t len = strcspn(q, " ");
        char kv0[128], set[128];
        if (!len || len >= sizeof kv0) break;
        memcpy(kv0, q, len);
        kv0[len] = '\0';
        q += len;
        const int sgl = !strncmp(kv0, "s:", 2);
        char *kv = kv0 + (sgl ? 2 : 0);
        snprintf(set, sizeof set, "%s", kv); /* the settings as given, for the report */
        int ok = 1;
        for (char *a = kv; a && *a; a = strchr(a, ',') ? strchr(a, ',') + 1 : NULL) {
          char name[64], *eq = strchr(a, '=');
          const size_t nl = eq ? (size_t)(eq - a) : 0, vl = eq ? strcspn(eq + 1, ",") : 0;
          char val[64];
          if (!eq || nl >= sizeof name || vl >= sizeof val) {
            ok = 0;
            break;
          }
          memcpy(name, a, nl);
          name[nl] = '\0';
          memcpy(val, eq + 1, vl);
          val[vl] = '\0';
          setenv(name, val, 1);
        }
        if (!ok) break;
        feint_problem pe = p;
        pe.precision = sgl ? FEINT_PRECISION_SINGLE : FEINT_PRECISION_DOUBLE;
        feint_backend *b0 = NULL;
        if (feint_backend_cuda_create(&pe, -1, &b0)) {
          printf("        %s: create failed: %s\n", set, feint_error_message());
        } else {
          double *Fe = malloc(sizeof(double) * nd);
          const int env_matrix = !getenv("FEINT_BENCH_ENV_MATRIX") || atoi(getenv("FEINT_BENCH_ENV_MATRIX"));
          const double te = time_calls(b0, 0, f->u, Fe, 7), tme = env_matrix ? time_calls(b0, 1, NULL, V, 7) : 0;
          feint_cuda_stats se;
          feint_cuda_info(b0, &se);
          double num = 0, den = 0;
          for (int64_t i = 0; i < nd; i++) num += (Fe[i] - F[i]) * (Fe[i] - F[i]), den += F[i] * F[i];
          CHECK(sqrt(num / den) <= (sgl ? 1e-5 : 1e-12), "%s residual differs: %.3e", set, sqrt(num / den));
          printf("        %s%s: residual %.3f ms (%.0f%% of copy; lean %d, real %d, prefetch %d, pipelined %d, rel. "
                 "diff %.1e), matrix %.3f ms\n",
                 sgl ? "single " : "", set, te, 100 * (sgl ? res_bytes_s : res_bytes) / te / 1e6 / copy_gbs,
                 se.lean_residual, se.lean_real, se.lean_prefetch, se.lean_pipe, sqrt(num / den), tme);
          free(Fe);
          feint_backend_destroy(b0);
        }
        for (char *a = kv; a && *a; a = strchr(a, ',') ? strchr(a, ',') + 1 : NULL) {
          char name[64];
          const size_t nl = strcspn(a, "=");
          if (nl >= sizeof name) break;
          memcpy(name, a, nl);
          name[nl] = '\0';
          unsetenv(name);
        }
      }
      /* single precision (float storage; the lean kernels compute in float), against the double result */
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
          feint_cuda_stats ss;
          feint_cuda_info(bs, &ss);
          printf("        single precision: residual %.3f ms = %.1f GB/s on %.0f MB (%.0f%% of copy), rel. diff %.1e "
                 "(lean %d, real %d); matrix assembly %.3f ms\n",
                 ts, res_bytes_s / ts / 1e6, res_bytes_s / 1e6, 100 * res_bytes_s / ts / 1e6 / copy_gbs,
                 sqrt(num / den), ss.lean_residual, ss.lean_real, tms);
          free(Fs);
          feint_backend_destroy(bs);
        }
      }
      if (quick) {
        feint_backend_destroy(b);
        continue;
      }
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
    if (phys == FEINT_PW_POISSON && !quick && !mesh_file) {
      printf("sweep (thread transposition, atomic residual kernel ms / %% of copy): rows blocks_per_batch, columns batches_per_chunk 1 4 16 64\n");
      const int bpbs[] = {1, 2, 4, 8, 16, 32}, bpcs[] = {1, 4, 16, 64};
      for (int i = 0; i < 6; i++) {
        printf("  bpb %2d:", bpbs[i]);
        for (int j = 0; j < 4; j++) {
          feint_problem p = {s, f, NULL, FEINT_PRECISION_DOUBLE, FEINT_ASSEMBLY_ATOMIC, bpbs[i], bpcs[j], 0};
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
  if (!quick && !mesh_file && !only) sweep_p2(m);
  if (mesh_file)
    feint_mesh_destroy(m);
  else
    mesh_free(m);
  return check_report("t501-cuda-bench");
}
