/* The thread-transposition kernels under the case's tuning keys
 * (backend.cuda.blocks_per_batch, batches_per_chunk; issue 3): for P1 and
 * P2 triangles and tetrahedra, Poisson and elasticity, random u and
 * coefficients, several (blocks per batch, batches per chunk) pairs
 * including ones whose batches leave remainder cells (cells not a
 * multiple of the batch, chunks not a multiple of the batches), the
 * residual, load vector and assembled CSR values of the CUDA backend
 * forced onto those kernels (variant 1: no P1 per-cell or lean kernels)
 * agree with the CPU reference to 1e-12 relative, colored and gather, and
 * the backend reports the batches per chunk asked for. Without a GPU it
 * prints "skipped: no GPU" and exits 0 (1 when FEINT_GPU_TESTS=1). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cuda/cuda_timing.h"
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
    if (got[i] != got[i]) return INFINITY;
    num += (got[i] - want[i]) * (got[i] - want[i]);
    den += want[i] * want[i];
  }
  return den > 0 ? sqrt(num / den) : sqrt(num);
}

static double worst = 0;
static int remainder_batches = 0, remainder_chunks = 0;

static void agree(const char *what, const char *tag, const double *got, const double *want, int64_t n) {
  const double e = rel_err(got, want, n);
  if (e > worst) worst = e;
  CHECK(e <= 1e-12, "%s %s: relative error %.3e", tag, what, e);
}

/* One space and form against every tuning pair and strategy. */
static void check_space(feint_mesh *m, int order, int physics) {
  static const int pairs[][2] = {{1, 1}, {2, 3}, {3, 2}, {5, 7}};
  const int nc = physics == FEINT_PW_ELASTICITY ? m->dim : 1;
  feint_space *s = NULL;
  feint_plan *plan = NULL;
  CHECK_OK(feint_space_create(m, order, nc, &s));
  CHECK_OK(feint_plan_create(s, &plan));
  feint_form *f = make_form(physics, s, order);
  feint_problem p = {s, f, plan, FEINT_PRECISION_DOUBLE, FEINT_ASSEMBLY_COLORED, 0, 0, 0};
  feint_backend *cpu = NULL;
  CHECK_OK(feint_backend_cpu_create(&p, &cpu));
  const int64_t nd = s->n_dofs, nnz = plan->nnz;
  double *F = malloc(sizeof(double) * nd), *R = malloc(sizeof(double) * nd), *V = malloc(sizeof(double) * nnz);
  double *g = malloc(sizeof(double) * (size_t)(nnz > nd ? nnz : nd));
  CHECK(F && R && V && g, "out of memory");
  CHECK_OK(cpu->residual(cpu, f->u, F));
  CHECK_OK(cpu->rhs(cpu, R));
  CHECK_OK(cpu->assemble_matrix(cpu, V));
  for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++)
    for (int st = 0; st < 3; st += 2) { /* colored, gather */
      p.blocks_per_batch = pairs[k][0];
      p.batches_per_chunk = pairs[k][1];
      p.strategy = (feint_assembly_strategy)st;
      feint_backend *gpu = NULL;
      CHECK_OK(feint_backend_cuda_create(&p, -1, &gpu));
      if (!gpu) continue;
      CHECK_OK(feint_cuda_set_variant(gpu, 1));
      char tag[160];
      snprintf(tag, sizeof tag, "%s P%d %s, %d blocks/batch x %d batches/chunk, %s", m->dim == 2 ? "tri" : "tet",
               order, physics == FEINT_PW_ELASTICITY ? "elasticity" : "poisson", pairs[k][0], pairs[k][1],
               st ? "gather" : "colored");
      for (int64_t i = 0; i < nd; i++) g[i] = NAN;
      CHECK_OK(gpu->residual(gpu, f->u, g));
      agree("residual", tag, g, F, nd);
      for (int64_t i = 0; i < nd; i++) g[i] = NAN;
      CHECK_OK(gpu->rhs(gpu, g));
      agree("rhs", tag, g, R, nd);
      for (int64_t i = 0; i < nnz; i++) g[i] = NAN;
      CHECK_OK(gpu->assemble_matrix(gpu, g));
      agree("matrix", tag, g, V, nnz);
      feint_cuda_stats stats;
      CHECK_OK(feint_cuda_info(gpu, &stats));
      CHECK(stats.batches_per_chunk == pairs[k][1], "%s: batches per chunk %d", tag, stats.batches_per_chunk);
      CHECK(!stats.p1_residual && !stats.lean_residual, "%s: variant 1 ran the P1 kernels", tag);
      CHECK(stats.residual_batch > 0 && stats.matrix_batch > 0, "%s: batches %d, %d", tag, stats.residual_batch,
            stats.matrix_batch);
      const int64_t per_chunk = (int64_t)stats.residual_batch * stats.batches_per_chunk;
      remainder_batches += m->n_cells % stats.residual_batch != 0;
      remainder_chunks += m->n_cells % per_chunk != 0;
      if (st == 0)
        printf("  %s: %lld cells, residual batch %d, matrix batch %d cells\n", tag, (long long)m->n_cells,
               stats.residual_batch, stats.matrix_batch);
      feint_backend_destroy(gpu);
    }
  free(F);
  free(R);
  free(V);
  free(g);
  feint_backend_destroy(cpu);
  feint_plan_destroy(plan);
  feint_form_destroy(f);
  feint_space_destroy(s);
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (feint_cuda_device_count() <= 0) return check_skip_without_gpu("t505-cuda-tuning", NULL);
  seed_fresh("t505-cuda-tuning");
  /* odd sizes: 2 * 13^2 = 338 triangles, 6 * 5^3 = 750 tetrahedra */
  feint_mesh *meshes[2] = {mesh_square(13), mesh_cube(5, 0.2)};
  for (int c = 0; c < 2; c++) {
    for (int order = 1; order <= 2; order++) {
      check_space(meshes[c], order, FEINT_PW_POISSON);
      check_space(meshes[c], order, FEINT_PW_ELASTICITY);
    }
    mesh_free(meshes[c]);
  }
  CHECK(remainder_batches > 0 && remainder_chunks > 0, "no case left remainder cells (%d batches, %d chunks)",
        remainder_batches, remainder_chunks);
  printf("tuning pairs x strategies with remainder cells: %d (batch), %d (chunk); worst relative error %.3e\n",
         remainder_batches, remainder_chunks, worst);
  return check_report("t505-cuda-tuning");
}
