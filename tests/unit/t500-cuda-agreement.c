/* CUDA backend against the CPU reference, on fresh random inputs.
 *
 * Meshes are built in code (no Gmsh): a structured triangulation of the
 * unit square and a Kuhn (6-tetrahedra) split of the unit cube, with the
 * interior nodes jiggled so cells differ. For P1 and P2, triangles and
 * tetrahedra, every physics and every assembly strategy: residual, rhs,
 * element matrices and assembled CSR values agree with the CPU to a
 * relative (2-norm) error <= 1e-12 (1e-5 with backend.precision single,
 * against the same double CPU reference), and colored and gather results
 * are bitwise identical across two runs. Coefficients are random nodal, per
 * cell and constant fields; u is random. The lean P1 tetrahedron residual
 * kernels (Poisson, elasticity; one per stiffness coefficient kind) are
 * checked for every kind of kappa / lambda and mu and of the source, in
 * double, in single computing in float and in single computing in double,
 * and the test checks that they are the kernels that ran, in that type.
 *
 * Without a GPU (or without CUDA: then the GPU part is not even built) the
 * CPU-side scaffolding is checked (F = A u - b on the CPU for every case)
 * and the test prints "skipped: no GPU" and exits 0, unless
 * FEINT_GPU_TESTS=1 demands a GPU. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cuda/cuda_timing.h"
#include "backend/cuda/tuning.h"
#include "check.h"
#include "feint/backend.h"
#include "feint/error.h"
#include "feint/form.h"
#include "feint/physics.h"
#include "feint/plan.h"
#include "feint/space.h"

#include "testmesh.h"

static double rel_err(const double *got, const double *want, int64_t n) {
  double num = 0, den = 0;
  for (int64_t i = 0; i < n; i++) {
    double dlt = got[i] - want[i];
    if (got[i] != got[i]) return INFINITY;
    num += dlt * dlt;
    den += want[i] * want[i];
  }
  return den > 0 ? sqrt(num / den) : sqrt(num);
}

static const char *phys_name[] = {"poisson", "mass", "helmholtz", "elasticity", "advection", "diffusion"};
static double worst = 0, worst_single = 0;

/* The GPU part: built with CUDA only (it drives the fused kernels through
 * their own entry points, cuda_timing.h), run where a GPU is visible. */
#ifdef FEINT_HAVE_CUDA
static const char *strat_name[] = {"colored", "atomic", "gather"};
static int single_prec = 0; /* the backend runs in single precision: tolerance 1e-5 */
static double *worst_also = NULL; /* a second worst-error record (the lean kernels' per precision) */

static void compare(const char *what, const char *tag, const double *got, const double *want, int64_t n) {
  double e = rel_err(got, want, n);
  double *w = single_prec ? &worst_single : &worst;
  if (e > *w) *w = e;
  if (worst_also && e > *worst_also) *worst_also = e;
  CHECK(e <= (single_prec ? 1e-5 : 1e-12), "%s %s: relative error %.3e", tag, what, e);
}

static void poison(double *v, int64_t n) {
  for (int64_t i = 0; i < n; i++) v[i] = NAN;
}

/* The residual against F (poisoned outputs), and bitwise equal on a second
 * call where the strategy is deterministic. */
static void check_vectors(feint_backend *gpu, const char *tag, const double *u, const double *F, double *g,
                          double *g2, int64_t nd, int deterministic) {
  poison(g, nd);
  CHECK_OK(gpu->residual(gpu, u, g));
  compare("residual", tag, g, F, nd);
  if (deterministic) {
    poison(g2, nd);
    CHECK_OK(gpu->residual(gpu, u, g2));
    CHECK(!memcmp(g, g2, sizeof(double) * nd), "%s residual not bitwise reproducible", tag);
  }
}

/* The assembled CSR values against V, likewise. */
static void check_matrix(feint_backend *gpu, const char *tag, const double *V, double *g, double *g2, int64_t nnz,
                         int deterministic) {
  poison(g, nnz);
  CHECK_OK(gpu->assemble_matrix(gpu, g));
  compare("matrix", tag, g, V, nnz);
  if (deterministic) {
    poison(g2, nnz);
    CHECK_OK(gpu->assemble_matrix(gpu, g2));
    CHECK(!memcmp(g, g2, sizeof(double) * nnz), "%s matrix not bitwise reproducible", tag);
  }
}

/* Every coefficient-kind combination of the lean residual kernels (P1
 * tetrahedra): Poisson kappa x source, elasticity lambda x mu (the sources
 * cycling through the kinds), each strategy against the double CPU, and
 * the lean kernel in use wherever it applies (a second nodal stiffness
 * coefficient, elasticity's lambda and mu both nodal, is not packed: the
 * block kernel serves it), in its compute type. Three precisions: double;
 * single computing in float (the default, <= 1e-5); single computing in
 * double (FEINT_CUDA_LEAN_REAL=double). Each combination with both vertex
 * gathers (FEINT_CUDA_LEAN_MODE 0 shared, 1 global; the default depends on
 * the strategy), computing in double the shared gather also with u in its
 * own array (FEINT_CUDA_LEAN_PACK=0), the benchmark's kinds (nodal kappa;
 * nodal lambda, per-cell mu) also with their other register budgets
 * (FEINT_CUDA_LEAN_MINB: 3 blocks per SM in double, 4, 6 and 8 in float);
 * the L2 prefetch of the plan and vertex ids also 1 and 3 chunks ahead
 * (FEINT_CUDA_LEAN_PF; the default distance in double, a wave of resident
 * blocks, is beyond this mesh's chunks, so those runs reach its last chunks'
 * bounds) and off in double, 1 ahead in single (off by default there). */
#ifdef FEINT_EXPERIMENTS
static const int experiments = 1; /* every lean kernel variant is built */
#else
static const int experiments = 0;
#endif

/* Without the gather mode, variant v of a list {mode, minb, pack,
 * prefetch, pipe} repeats an earlier one. */
static int duplicate_run(const int (*vars)[5], int v) {
  for (int u = 0; u < v; u++)
    if (!vars[u][1] && vars[u][2] && vars[u][3] == vars[v][3] && vars[u][4] == vars[v][4]) return 1;
  return 0;
}

static void check_lean_kinds(feint_mesh *m) {
  int n_lean[3] = {0, 0, 0}, n_pipe = 0;
  double worst_lean[3] = {0, 0, 0};
  static const char *prec_name[3] = {"double", "single/float", "single/double"};
  /* variants {gather mode, minb, pack, prefetch, pipe}: both gathers, the unpacked shared records (double
   * compute), the prefetch distance (-1: the default), the pipelined Poisson kernel (0 and missing: the
   * default, on; -1 off; 2 on a grid of 2 blocks, so that each loops over several chunks), the benchmark
   * kinds' other register budgets (both gathers each) */
  static const int vars[3][10][5] = {
      {{0, 0, 1, -1}, {1, 0, 1, -1}, {0, 0, 0, -1}, {0, 0, 1, 1}, {1, 0, 1, 3}, {1, 0, 1, 0}, {0, 0, 1, -1, -1},
       {0, 0, 1, -1, 2}, {0, 3, 1, -1}, {1, 3, 1, -1}},
      {{0, 0, 1, -1}, {1, 0, 1, -1}, {1, 0, 1, 1}, {0, 4, 1, -1}, {1, 4, 1, -1}, {0, 6, 1, -1}, {1, 6, 1, -1},
       {0, 8, 1, -1}, {1, 8, 1, -1}},
      {{0, 0, 1, -1}, {1, 0, 1, -1}, {0, 0, 0, -1}, {1, 0, 1, 1}, {0, 3, 1, -1}, {1, 3, 1, -1}}};
  static const int n_vars[3][2] = {{8, 10}, {3, 9}, {4, 6}}; /* [prec][bench] */
  for (int physics = 0; physics < 2; physics++) {
    const int phys = physics ? FEINT_PW_ELASTICITY : FEINT_PW_POISSON, nc = physics ? 3 : 1;
    feint_space *s = NULL;
    feint_plan *plan = NULL;
    CHECK_OK(feint_space_create(m, 1, nc, &s));
    CHECK_OK(feint_plan_create(s, &plan));
    const int64_t nd = s->n_dofs;
    double *F = malloc(sizeof(double) * nd), *g = malloc(sizeof(double) * nd), *g2 = malloc(sizeof(double) * nd);
    for (int combo = 0; combo < 9; combo++) {
      const int ka = combo / 3, kb = combo % 3; /* FEINT_FIELD_CONSTANT, _CELL, _NODE */
      feint_form *f = make_form(phys, s, 0);
      for (int k = 0; k < f->n_aux; k++) {
        /* Poisson [kappa, f]: ka, kb; elasticity [lambda, mu, f0..f2]: ka, kb, then the sources' kinds cycle */
        const int kind = k == 0 ? ka : k == 1 ? kb : (combo + k) % 3;
        free(f->aux[k].values);
        random_field(&f->aux[k], s, kind, k < feint_physics_source_offset(phys, 3) ? 0.5 : -1,
                     k < feint_physics_source_offset(phys, 3) ? 1.5 : 1);
      }
      const int kinds_lean = !(physics && ka == FEINT_FIELD_NODE && kb == FEINT_FIELD_NODE);
      const int bench = ka == FEINT_FIELD_NODE && (!physics || kb == FEINT_FIELD_CELL);
      feint_problem p = {s, f, plan, FEINT_PRECISION_DOUBLE, FEINT_ASSEMBLY_COLORED, 0, 0, 0};
      feint_backend *cpu = NULL;
      CHECK_OK(feint_backend_cpu_create(&p, &cpu));
      CHECK_OK(cpu->residual(cpu, f->u, F));
      for (int prec = 0; prec < 3; prec++) {
        single_prec = prec > 0;
        p.precision = single_prec ? FEINT_PRECISION_SINGLE : FEINT_PRECISION_DOUBLE;
        if (prec == 2 && !experiments) continue; /* FEINT_CUDA_LEAN_REAL: make EXPERIMENTS=1 builds only */
        if (prec == 2) setenv("FEINT_CUDA_LEAN_REAL", "double", 1);
        const int want_real = prec == 1 ? 4 : 8;
        worst_also = &worst_lean[prec];
        for (int var = 0; var < n_vars[prec][bench]; var++) {
          char mode[8], minb[8], pack[8], pf[8];
          /* pipe: 0 the default (on), -1 off, 2 on a grid of 2 blocks */
          const int pfv = vars[prec][var][3], pipe = vars[prec][var][4] >= 0;
          /* without make EXPERIMENTS=1 the gather is the strategy's and the
           * register budgets and the unpacked records are not built: the
           * runs left differ in prefetch and pipelining */
          if (!experiments && (vars[prec][var][1] || !vars[prec][var][2] || duplicate_run(vars[prec], var)))
            continue;
          snprintf(mode, sizeof mode, "%d", vars[prec][var][0]);
          snprintf(minb, sizeof minb, "%d", vars[prec][var][1]);
          snprintf(pack, sizeof pack, "%d", vars[prec][var][2]);
          snprintf(pf, sizeof pf, "%d", pfv);
          if (experiments) {
            setenv("FEINT_CUDA_LEAN_MODE", mode, 1);
            setenv("FEINT_CUDA_LEAN_MINB", minb, 1);
            setenv("FEINT_CUDA_LEAN_PACK", pack, 1);
          }
          if (pfv >= 0) setenv("FEINT_CUDA_LEAN_PF", pf, 1);
          if (!pipe) setenv("FEINT_CUDA_LEAN_PIPE", "0", 1);
          if (vars[prec][var][4] == 2) setenv("FEINT_CUDA_LEAN_PIPE_GRID", "2", 1); /* each block: ~5 chunks */
          for (int st = 0; st < 3; st++) {
            p.strategy = (feint_assembly_strategy)st;
            feint_backend *gpu = NULL;
            char tag[192];
            snprintf(tag, sizeof tag, "lean tet P1 %s %s, stiffness kinds %d/%d, mode %s minb %s pack %s pf %s [%s]",
                     phys_name[phys], prec_name[prec], ka, kb, mode, minb, pack, pf, strat_name[st]);
            if (feint_backend_cuda_create(&p, -1, &gpu)) {
              CHECK(0, "%s: cuda create: %s", tag, feint_error_message());
              continue;
            }
            check_vectors(gpu, tag, f->u, F, g, g2, nd, st != FEINT_ASSEMBLY_ATOMIC);
            feint_cuda_stats stats;
            feint_cuda_info(gpu, &stats);
            /* wherever the P1 block kernels serve the residual (not with rules
             * of more than their 24 points, e.g. FEINT_TEST_EXTRA_DEGREE=2) */
            const int want_lean = kinds_lean && stats.block_vector;
            CHECK(stats.lean_residual == want_lean, "%s: lean kernel %s", tag, want_lean ? "not used" : "used");
            CHECK(!want_lean || stats.lean_real == want_real, "%s: lean kernel computes in %d-byte reals", tag,
                  stats.lean_real);
            /* the pipelined kernel serves Poisson in double, atomic and gather */
            const int want_pipe = want_lean && pipe && !physics && !prec && st != FEINT_ASSEMBLY_COLORED;
            /* the distance asked for; by default a wave of resident blocks in double, none in single; none
             * where the pipelined kernel ran (it fetches its next chunks itself) */
            CHECK(!want_lean || (want_pipe  ? stats.lean_prefetch == 0
                                 : pfv >= 0 ? stats.lean_prefetch == pfv
                                 : prec     ? stats.lean_prefetch == 0
                                            : stats.lean_prefetch > 0),
                  "%s: prefetch distance %d", tag, stats.lean_prefetch);
            CHECK(stats.lean_pipe == want_pipe, "%s: pipelined kernel %s", tag, want_pipe ? "not used" : "used");
            n_pipe += stats.lean_pipe;
            n_lean[prec] += stats.lean_residual;
            feint_backend_destroy(gpu);
          }
          unsetenv("FEINT_CUDA_LEAN_MODE");
          unsetenv("FEINT_CUDA_LEAN_MINB");
          unsetenv("FEINT_CUDA_LEAN_PACK");
          unsetenv("FEINT_CUDA_LEAN_PF");
          unsetenv("FEINT_CUDA_LEAN_PIPE");
          unsetenv("FEINT_CUDA_LEAN_PIPE_GRID");
        }
        unsetenv("FEINT_CUDA_LEAN_REAL");
      }
      single_prec = 0;
      worst_also = NULL;
      feint_backend_destroy(cpu);
      feint_form_destroy(f);
    }
    free(F);
    free(g);
    free(g2);
    feint_plan_destroy(plan);
    feint_space_destroy(s);
  }
  printf("lean P1 tetrahedron kernels: %d / %d / %d residuals (double / single in float / single in double; kind "
         "combinations x variants x strategies) agree; worst relative error %.3e / %.3e / %.3e\n",
         n_lean[0], n_lean[1], n_lean[2], worst_lean[0], worst_lean[1], worst_lean[2]);
  printf("pipelined lean Poisson kernel: %d residuals agree\n", n_pipe);
  for (int prec = 0; prec < (experiments ? 3 : 2); prec++)
    CHECK(n_lean[prec] > 0 || getenv("FEINT_TEST_EXTRA_DEGREE"), "no %s residual ran the lean kernels",
          prec_name[prec]);
#ifdef FEINT_HAVE_CUDA
  /* a knob selecting a kernel that is not built is refused by name */
  if (!experiments) {
    feint_cuda_tuning t;
    setenv("FEINT_CUDA_LEAN_MINB", "3", 1);
    CHECK(feint_cuda_tuning_read(NULL, &t) == FEINT_ERR_INPUT && strstr(feint_error_message(), "EXPERIMENTS=1"),
          "FEINT_CUDA_LEAN_MINB=3 accepted without the experiments' kernels: %s", feint_error_message());
    unsetenv("FEINT_CUDA_LEAN_MINB");
    CHECK_OK(feint_cuda_tuning_read(NULL, &t));
  }
#endif
  CHECK(n_pipe > 0 || getenv("FEINT_TEST_EXTRA_DEGREE"), "no residual ran the pipelined kernel");
}

/* The cuda backend against the CPU reference of p: its residual F, load
 * vector R, CSR values V and element matrices K, for every strategy in
 * double and in single precision, with the kernel variants and cell
 * orders; g, g2: scratch of the largest of those sizes. */
static void gpu_agreement(feint_problem p, const char *tag, const double *F, const double *R, const double *V,
                          const double *K, double *g, double *g2) {
  const int64_t nd = p.space->n_dofs, nnz = p.plan->nnz;
  const int64_t nke = p.space->mesh->n_cells * p.space->nbc * p.space->nbc;
  double ke_err = -1;
  for (int pst = 0; pst < 6; pst++) {
    const int st = pst % 3;
    single_prec = pst >= 3;
    p.strategy = (feint_assembly_strategy)st;
    p.precision = single_prec ? FEINT_PRECISION_SINGLE : FEINT_PRECISION_DOUBLE;
    feint_backend *gpu = NULL;
    int status = feint_backend_cuda_create(&p, -1, &gpu);
    if (status) {
      CHECK(0, "%s: cuda create (%s): %s", tag, strat_name[st], feint_error_message());
      continue;
    }
    char t2[192];
    snprintf(t2, sizeof t2, "%s [%s%s]", tag, strat_name[st], single_prec ? ", single" : "");
    check_vectors(gpu, t2, p.form->u, F, g, g2, nd, st != FEINT_ASSEMBLY_ATOMIC);
    poison(g, nd);
    CHECK_OK(gpu->rhs(gpu, g));
    compare("rhs", t2, g, R, nd);
    check_matrix(gpu, t2, V, g, g2, nnz, st != FEINT_ASSEMBLY_ATOMIC);
    if (st == 0) {
      poison(g, nke);
      CHECK_OK(gpu->element_matrices(gpu, g));
      compare("element matrices", t2, g, K, nke);
      if (!single_prec) ke_err = rel_err(g, K, nke);
    }
    feint_cuda_stats stats;
    feint_cuda_info(gpu, &stats);
    if (stats.block_vector || stats.block_matrix) {
      /* variants 2 (per-cell P1 matrix kernels, no block-local
       * aggregation) and 3 (vectors without the shared gather) */
      for (int var = 2; var <= 3; var++) {
        char t3[224];
        snprintf(t3, sizeof t3, "%s (variant %d)", t2, var);
        CHECK_OK(feint_cuda_set_variant(gpu, var));
        check_vectors(gpu, t3, p.form->u, F, g, g2, nd, st != FEINT_ASSEMBLY_ATOMIC);
        check_matrix(gpu, t3, V, g, g2, nnz, st != FEINT_ASSEMBLY_ATOMIC);
      }
      CHECK_OK(feint_cuda_set_variant(gpu, 0));
    }
    for (int ord = 0; ord < 2 && stats.p1_residual; ord++) {
      /* the P1 kernels visiting the cells in mesh order and along
       * the space-filling curve, whichever the default chose */
      char t3[224];
      snprintf(t3, sizeof t3, "%s (%s order)", t2, ord ? "curve" : "mesh");
      setenv("FEINT_CUDA_ORDER", ord ? "1" : "0", 1);
      feint_backend *g0 = NULL;
      CHECK_OK(feint_backend_cuda_create(&p, -1, &g0));
      unsetenv("FEINT_CUDA_ORDER");
      if (g0) {
        feint_cuda_stats s0;
        feint_cuda_info(g0, &s0);
        CHECK(s0.curve_order == ord, "%s: FEINT_CUDA_ORDER=%d ignored", t3, ord);
        check_vectors(g0, t3, p.form->u, F, g, g2, nd, st != FEINT_ASSEMBLY_ATOMIC);
        check_matrix(g0, t3, V, g, g2, nnz, st != FEINT_ASSEMBLY_ATOMIC);
        feint_backend_destroy(g0);
      }
    }
    if (st == 0 && !single_prec)
      printf("%s: colours %d, batch %d/%d cells, Ke err %.2e; block aggregation %d/%d, chunk colours %d/%d\n",
             tag, stats.n_colors, stats.residual_batch, stats.matrix_batch, ke_err, stats.block_vector,
             stats.block_matrix, stats.block_colors_vector, stats.block_colors_matrix);
    feint_backend_destroy(gpu);
  }
  single_prec = 0;
}
#endif

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  seed_fresh("t500-cuda-agreement");
  const int have_gpu = feint_backend_available("cuda", NULL, 0);
  const int quick = !have_gpu;
  int n_cases = 0;
  for (int cell = 0; cell < 2; cell++) {
    feint_mesh *m = cell == 0 ? mesh_square(quick ? 6 : 20) : mesh_cube(quick ? 3 : 7, 0.2);
    for (int order = 1; order <= 2; order++)
      for (int physics = 0; physics < 6; physics++) {
        const int nc = physics == FEINT_PW_ELASTICITY ? m->dim : 1;
        feint_space *s = NULL;
        feint_plan *plan = NULL;
        CHECK_OK(feint_space_create(m, order, nc, &s));
        CHECK_OK(feint_plan_create(s, &plan));
        feint_form *f = make_form(physics, s, physics + order);
        char tag[128];
        snprintf(tag, sizeof tag, "%s P%d %s (%lld cells, %lld dofs, nq %d)", cell ? "tet" : "tri", order,
                 phys_name[physics], (long long)m->n_cells, (long long)s->n_dofs, f->quadrature->n);
        feint_problem p = {s, f, plan, FEINT_PRECISION_DOUBLE, FEINT_ASSEMBLY_COLORED, 0, 0, 0};
        feint_backend *cpu = NULL;
        CHECK_OK(feint_backend_cpu_create(&p, &cpu));
        const int64_t nd = s->n_dofs, nnz = plan->nnz, nke = m->n_cells * s->nbc * s->nbc;
        double *F = malloc(sizeof(double) * nd), *R = malloc(sizeof(double) * nd);
        double *V = malloc(sizeof(double) * nnz), *K = malloc(sizeof(double) * nke);
        double *g = malloc(sizeof(double) * (size_t)(nke > nnz ? (nke > nd ? nke : nd) : (nnz > nd ? nnz : nd)));
        double *g2 = malloc(sizeof(double) * (size_t)(nnz > nd ? nnz : nd));
        CHECK_OK(cpu->residual(cpu, f->u, F));
        CHECK_OK(cpu->rhs(cpu, R));
        CHECK_OK(cpu->assemble_matrix(cpu, V));
        CHECK_OK(cpu->element_matrices(cpu, K));
        /* CPU-side sanity: F = A u - b for these linear physics. */
        {
          double *Au = calloc((size_t)nd, sizeof(double));
          for (int64_t r = 0; r < nd; r++)
            for (int64_t k = plan->indptr[r]; k < plan->indptr[r + 1]; k++) Au[r] += V[k] * f->u[plan->indices[k]];
          for (int64_t r = 0; r < nd; r++) Au[r] -= R[r];
          double e = rel_err(Au, F, nd);
          CHECK(e <= 1e-12, "%s: CPU F != A u - b (relative %.3e)", tag, e);
          free(Au);
        }
#ifdef FEINT_HAVE_CUDA
        if (have_gpu) gpu_agreement(p, tag, F, R, V, K, g, g2);
#endif
        n_cases++;
        free(F);
        free(R);
        free(V);
        free(K);
        free(g);
        free(g2);
        feint_backend_destroy(cpu);
        feint_plan_destroy(plan);
        feint_form_destroy(f);
        feint_space_destroy(s);
      }
#ifdef FEINT_HAVE_CUDA
    if (cell == 1 && have_gpu) check_lean_kinds(m);
#endif
    mesh_free(m);
  }
  if (!have_gpu) {
    printf("CPU sanity: %d cases built, F = A u - b on the CPU\n", n_cases);
    return check_skip_without_gpu("t500-cuda-agreement", NULL);
  }
  printf("%d cases x 3 strategies; worst relative error %.3e (double), %.3e (single, vs the double CPU)\n", n_cases,
         worst, worst_single);
  return check_report("t500-cuda-agreement");
}
