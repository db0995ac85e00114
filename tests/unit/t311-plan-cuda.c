/* GPU symbolic phase (issue 3): feint_plan_create_cuda against the CPU
 * plan of feint_plan_create, exactly (indptr, indices, slots), on
 * triangles and tetrahedra, P1/P2, scalar and 2/3 components. Without a
 * GPU prints "skipped: no GPU" and exits 0, unless FEINT_GPU_TESTS=1 (then
 * it fails). Run from the repository root. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cuda/cuda_timing.h"
#include "check.h"
#include "feint/backend.h"
#include "feint/error.h"
#include "feint/mesh.h"
#include "feint/plan.h"
#include "feint/space.h"

static void compare(const feint_mesh *m, int order, int nc) {
  const char *name = feint_cell_name(m->cell_type);
  feint_space *s = NULL;
  feint_plan *cpu = NULL, *gpu = NULL;
  feint_plan_cuda_stats st;
  CHECK_OK(feint_space_create(m, order, nc, &s));
  CHECK_OK(feint_plan_create(s, &cpu));
  CHECK_OK(feint_plan_create_cuda_timed(s, -1, &gpu, &st));
  CHECK(gpu->n_rows == cpu->n_rows && gpu->nnz == cpu->nnz && gpu->n_cells == cpu->n_cells &&
            gpu->nbc == cpu->nbc,
        "%s P%d x%d: sizes (rows %lld/%lld, nnz %lld/%lld)", name, order, nc, (long long)gpu->n_rows,
        (long long)cpu->n_rows, (long long)gpu->nnz, (long long)cpu->nnz);
  if (gpu->n_rows == cpu->n_rows && gpu->nnz == cpu->nnz && gpu->n_cells == cpu->n_cells && gpu->nbc == cpu->nbc) {
    int64_t bad_ptr = 0, bad_idx = 0, bad_slot = 0;
    for (int64_t r = 0; r <= cpu->n_rows; r++) bad_ptr += gpu->indptr[r] != cpu->indptr[r];
    for (int64_t k = 0; k < cpu->nnz; k++) bad_idx += gpu->indices[k] != cpu->indices[k];
    const int64_t ns = cpu->n_cells * cpu->nbc * cpu->nbc;
    CHECK(!gpu->device_slots || !gpu->slots, "%s: the GPU plan's slot map is downloaded only on demand", name);
    CHECK_OK(feint_plan_host_slots(gpu)); /* downloaded on demand */
    for (int64_t k = 0; k < ns; k++) bad_slot += gpu->slots[k] != cpu->slots[k];
    CHECK(bad_ptr == 0 && bad_idx == 0 && bad_slot == 0,
          "%s P%d x%d: %lld row pointers, %lld column indices, %lld slots differ", name, order, nc,
          (long long)bad_ptr, (long long)bad_idx, (long long)bad_slot);
  }
  printf("  %s P%d x%d: %lld dofs, nnz %lld, %lld entries, %d key bits: identical; "
         "GPU symbolic %.3f ms (sort %.3f), upload %.3f ms, download %.3f ms\n",
         name, order, nc, (long long)cpu->n_rows, (long long)cpu->nnz, (long long)st.entries, st.key_bits,
         st.symbolic_ms, st.sort_ms, st.upload_ms, st.download_ms);
  feint_plan_destroy(cpu);
  feint_plan_destroy(gpu);
  feint_space_destroy(s);
}

int main(void) {
  if (feint_cuda_device_count() <= 0) {
    feint_space *s = NULL;
    feint_plan *p = NULL;
    /* the entry point answers FEINT_ERR_INPUT without a device (or CUDA) */
    feint_mesh *m = NULL;
    CHECK_OK(feint_mesh_read("cases/square.geo", &(feint_mesh_options){.size = 0.5}, &m));
    CHECK_OK(feint_space_create(m, 1, 1, &s));
    CHECK(feint_plan_create_cuda(s, -1, &p) == FEINT_ERR_INPUT && p == NULL, "no GPU: FEINT_ERR_INPUT expected");
    printf("  without a GPU: %s\n", feint_error_message());
    feint_space_destroy(s);
    feint_mesh_destroy(m);
    return check_skip_without_gpu("t311-plan-cuda", NULL);
  }
  feint_mesh *tri = NULL, *tet = NULL;
  CHECK_OK(feint_mesh_read("cases/square.geo", &(feint_mesh_options){.size = 0.05}, &tri));
  CHECK_OK(feint_mesh_read("cases/cube.geo", &(feint_mesh_options){.size = 0.15}, &tet));
  /* warm-up (module loading) before the timings printed */
  {
    feint_space *s = NULL;
    feint_plan *p = NULL;
    CHECK_OK(feint_space_create(tri, 1, 1, &s));
    CHECK_OK(feint_plan_create_cuda(s, -1, &p));
    feint_plan_destroy(p);
    p = NULL;
    /* a device past the visible ones is refused by name (--device), no plan */
    CHECK(feint_plan_create_cuda(s, feint_cuda_device_count(), &p) == FEINT_ERR_INPUT && p == NULL,
          "device past the visible ones: FEINT_ERR_INPUT expected");
    CHECK(strstr(feint_error_message(), "--device") != NULL, "the message names --device: %s", feint_error_message());
    feint_space_destroy(s);
  }
  for (int order = 1; order <= 2; order++)
    for (int nc = 1; nc <= 3; nc++) {
      compare(tri, order, nc);
      compare(tet, order, nc);
    }
  /* tensor cells and prisms: the same builder on their dof maps */
  feint_mesh *hex = NULL, *quad = NULL, *prism = NULL;
  CHECK_OK(feint_mesh_read("cases/hexcube.geo", &(feint_mesh_options){.refine = 1}, &hex));
  CHECK_OK(feint_mesh_read("cases/quadsquare.geo", &(feint_mesh_options){.size = 0.1}, &quad));
  CHECK_OK(feint_mesh_read("cases/prismcube.geo", &(feint_mesh_options){.size = 0.3}, &prism));
  for (int order = 1; order <= 3; order++) {
    compare(hex, order, order == 2 ? 3 : 1);
    compare(quad, order, order == 1 ? 2 : 1);
    compare(prism, order, order == 3 ? 3 : 1);
  }
  feint_mesh_destroy(hex);
  feint_mesh_destroy(quad);
  feint_mesh_destroy(prism);
  feint_mesh_destroy(tri);
  feint_mesh_destroy(tet);
  return check_report("t311-plan-cuda");
}
