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

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static double urand(void) { /* [0, 1) */
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (double)(rng_state >> 11) / 9007199254740992.0;
}

static feint_mesh *mesh_cube(int n) {
  feint_mesh *m = calloc(1, sizeof *m);
  m->dim = 3;
  m->cell_type = FEINT_CELL_TETRAHEDRON;
  m->nv = 4;
  const int64_t n1 = n + 1;
  m->n_nodes = n1 * n1 * n1;
  m->x = malloc(sizeof(double) * m->n_nodes);
  m->y = malloc(sizeof(double) * m->n_nodes);
  m->z = malloc(sizeof(double) * m->n_nodes);
  const double h = 1.0 / n;
  for (int k = 0; k <= n; k++)
    for (int j = 0; j <= n; j++)
      for (int i = 0; i <= n; i++) {
        int64_t v = (k * n1 + j) * n1 + i;
        int interior = i > 0 && i < n && j > 0 && j < n && k > 0 && k < n;
        m->x[v] = i * h + (interior ? 0.2 * h * (urand() - 0.5) : 0);
        m->y[v] = j * h + (interior ? 0.2 * h * (urand() - 0.5) : 0);
        m->z[v] = k * h + (interior ? 0.2 * h * (urand() - 0.5) : 0);
      }
  m->n_cells = 6LL * n * n * n;
  m->cells = malloc(sizeof(int64_t) * m->n_cells * 4);
  static const int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  const int64_t stride[3] = {1, n1, n1 * n1};
  int64_t c = 0;
  for (int k = 0; k < n; k++)
    for (int j = 0; j < n; j++)
      for (int i = 0; i < n; i++) {
        int64_t v0 = (k * n1 + j) * n1 + i;
        for (int p = 0; p < 6; p++) {
          int64_t *t = m->cells + 4 * c++;
          t[0] = v0;
          t[1] = t[0] + stride[perms[p][0]];
          t[2] = t[1] + stride[perms[p][1]];
          t[3] = t[2] + stride[perms[p][2]];
        }
      }
  return m;
}

static void mesh_free(feint_mesh *m) {
  free(m->x);
  free(m->y);
  free(m->z);
  free(m->cells);
  free(m);
}

/* Random field: kind cycles constant / per cell / nodal by `which`. */
static void random_field(feint_field *f, const feint_space *s, int kind, double lo, double hi) {
  f->kind = (feint_field_kind)kind;
  f->values = NULL;
  if (kind == FEINT_FIELD_CONSTANT) {
    f->constant = lo + (hi - lo) * urand();
    return;
  }
  int64_t n = kind == FEINT_FIELD_CELL ? s->mesh->n_cells : s->n_scalar_dofs;
  f->values = malloc(sizeof(double) * (size_t)n);
  for (int64_t i = 0; i < n; i++) f->values[i] = lo + (hi - lo) * urand();
}

static feint_form *make_form(int physics, const feint_space *s, int variant) {
  feint_form *f = calloc(1, sizeof *f);
  const int dim = s->mesh->dim, nc = s->components;
  f->physics = physics;
  f->dim = dim;
  f->nc = nc;
  f->n_aux = feint_physics_aux_count(physics, dim, nc);
  f->aux = calloc((size_t)f->n_aux, sizeof *f->aux);
  const int src = feint_physics_source_offset(physics, dim);
  int coef_nodal = 0;
  for (int k = 0; k < f->n_aux; k++) {
    /* coefficients: mostly nodal (the paper's data model), some per cell and constant */
    int kind = (k + variant) % 3 == 0 ? FEINT_FIELD_NODE : (k + variant) % 3 == 1 ? FEINT_FIELD_CELL : FEINT_FIELD_CONSTANT;
    if (k == 0) kind = FEINT_FIELD_NODE;
    double lo = 0.5, hi = 1.5;
    if (k >= src) lo = -1, hi = 1; /* source */
    if (physics == FEINT_PW_ADVECTION && k < dim) lo = -1, hi = 1;
    if (physics == FEINT_PW_DIFFUSION && k < dim * dim && k % (dim + 1) != 0) lo = -0.2, hi = 0.2;
    random_field(&f->aux[k], s, kind, lo, hi);
    if (kind == FEINT_FIELD_NODE && k < src) coef_nodal = 1;
  }
  f->u = malloc(sizeof(double) * (size_t)s->n_dofs);
  for (int64_t i = 0; i < s->n_dofs; i++) f->u[i] = 2 * urand() - 1;
  /* the form module's default: exact for the form on affine cells */
  {
    const int terms = feint_physics_jacobian_terms(physics), pdeg = s->order, cdeg = coef_nodal ? pdeg : 0;
    int deg = pdeg + cdeg;
    if ((terms & 1) && 2 * pdeg + cdeg > deg) deg = 2 * pdeg + cdeg;
    if ((terms & 6) && 2 * pdeg - 1 + cdeg > deg) deg = 2 * pdeg - 1 + cdeg;
    if ((terms & 8) && 2 * pdeg - 2 + cdeg > deg) deg = 2 * pdeg - 2 + cdeg;
    f->quadrature_degree = deg + (getenv("FEINT_TEST_EXTRA_DEGREE") ? atoi(getenv("FEINT_TEST_EXTRA_DEGREE")) : 0);
  }
  CHECK_OK(feint_quadrature_create(s->mesh->cell_type, f->quadrature_degree, &f->quadrature));
  const int nq = f->quadrature->n;
  f->basis = malloc(sizeof(double) * (size_t)(nq * s->nb));
  f->basis_grad = malloc(sizeof(double) * (size_t)(nq * s->nb * dim));
  feint_element_tabulate(s->element, nq, f->quadrature->points, f->basis, f->basis_grad);
  return f;
}


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
  feint_mesh *m = mesh_cube(n);
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
