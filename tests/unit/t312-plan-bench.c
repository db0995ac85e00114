/* Symbolic phase benchmark (issue 3: "the symbolic phase under 100 ms" for
 * 6 million P1 tetrahedra): the CPU plan (feint_plan_create) against the
 * GPU plan (feint_plan_create_cuda_timed) on a Kuhn-split n^3 cube built in
 * code (6 n^3 tetrahedra; FEINT_BENCH_N, default 100: 6,000,000 cells),
 * P1 scalar and P1 elasticity (3 components), P2 scalar with
 * FEINT_BENCH_P2=1. Checks that both plans are identical and prints a
 * table: CPU wall time, GPU device time of the symbolic phase (CUDA events,
 * transfers apart; a warm second call), upload, download, wall time.
 * Exits 0 printing "skipped: no GPU" without a GPU. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/cuda/cuda_timing.h"
#include "check.h"
#include "feint/backend.h"
#include "feint/error.h"
#include "feint/mesh.h"
#include "feint/plan.h"
#include "feint/space.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

#include "testmesh.h"

static int same_plan(const feint_plan *a, const feint_plan *b) {
  if (a->n_rows != b->n_rows || a->nnz != b->nnz || a->n_cells != b->n_cells || a->nbc != b->nbc) return 0;
  return !memcmp(a->indptr, b->indptr, sizeof *a->indptr * (size_t)(a->n_rows + 1)) &&
         !memcmp(a->indices, b->indices, sizeof *a->indices * (size_t)a->nnz) &&
         !memcmp(a->slots, b->slots, sizeof *a->slots * (size_t)(a->n_cells * a->nbc * a->nbc));
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (feint_cuda_device_count() <= 0) {
    printf("skipped: no GPU\n");
    return 0;
  }
  const int n = getenv("FEINT_BENCH_N") ? atoi(getenv("FEINT_BENCH_N")) : 100;
  const int p2 = getenv("FEINT_BENCH_P2") && atoi(getenv("FEINT_BENCH_P2"));
  double t0 = now();
  feint_mesh *m = mesh_cube(n, 0);
  printf("mesh: %lld tetrahedra (Kuhn split of a %d^3 grid), %lld nodes, built in %.2f s\n",
         (long long)m->n_cells, n, (long long)m->n_nodes, now() - t0);
  static const int cfg[3][2] = {{1, 1}, {1, 3}, {2, 1}};
  char rows[3][256];
  int n_rows = 0;
  char device[128] = "";
  for (int q = 0; q < (p2 ? 3 : 2); q++) {
    const int order = cfg[q][0], nc = cfg[q][1];
    feint_space *s = NULL;
    feint_plan *cpu = NULL, *gpu = NULL;
    CHECK_OK(feint_space_create(m, order, nc, &s));
    t0 = now();
    CHECK_OK(feint_plan_create(s, &cpu));
    const double t_cpu = now() - t0;
    feint_plan_cuda_stats cold, st;
    CHECK_OK(feint_plan_create_cuda_timed(s, -1, &gpu, &cold));
    const int same_cold = same_plan(cpu, gpu);
    feint_plan_destroy(gpu);
    CHECK_OK(feint_plan_create_cuda_timed(s, -1, &gpu, &st));
    const int same = same_plan(cpu, gpu);
    CHECK(same && same_cold, "P%d x%d: the GPU plan differs from the CPU plan", order, nc);
    snprintf(device, sizeof device, "%s", st.device);
    printf("P%d x%d: %lld dofs, nnz %lld, %lld entries sorted (%d key bits), GPU peak memory %.2f GB; "
           "cold call: symbolic %.2f ms, wall %.1f ms; plans %s\n",
           order, nc, (long long)cpu->n_rows, (long long)cpu->nnz, (long long)st.entries, st.key_bits,
           st.device_bytes / 1e9, cold.symbolic_ms, cold.total_ms, same ? "identical" : "DIFFER");
    snprintf(rows[n_rows++], sizeof rows[0], "| P%d x%d | %lld | %lld | %.3f s | %.2f ms | %.2f ms | %.2f ms | %.2f ms | %.1f ms |",
             order, nc, (long long)cpu->n_rows, (long long)cpu->nnz, t_cpu, st.symbolic_ms, st.sort_ms, st.upload_ms,
             st.download_ms, st.total_ms);
    feint_plan_destroy(cpu);
    feint_plan_destroy(gpu);
    feint_space_destroy(s);
  }
  printf("\n%lld tetrahedra, GPU: %s\n", (long long)m->n_cells, device);
  printf("| space | dofs | nnz | CPU plan | GPU symbolic | of which sort | upload | download | GPU call wall |\n");
  printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
  for (int r = 0; r < n_rows; r++) printf("%s\n", rows[r]);
  mesh_free(m);
  return check_report("t312-plan-bench");
}
