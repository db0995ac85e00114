/* Built without nvcc: what the GPU tests call directly reports that CUDA
 * is absent (the driver reaches the backend only through the registry,
 * whose cuda kind says so itself: kind.c). */
#include <stdlib.h>
#include <string.h>

#include "backend/cuda/cuda_timing.h"
#include "feint/backend.h"
#include "feint/error.h"

int feint_cuda_device_count(void) { return 0; }

int feint_backend_cuda_create(const feint_problem *p, int device_index, feint_backend **out) {
  (void)p;
  (void)device_index;
  *out = NULL;
  return feint_error_set(FEINT_ERR_INPUT, "this feint was built without CUDA (no nvcc found)");
}

int feint_cuda_info(const feint_backend *b, feint_cuda_stats *st) {
  (void)b;
  memset(st, 0, sizeof *st);
  return feint_error_set(FEINT_ERR_INPUT, "this feint was built without CUDA (no nvcc found)");
}

int feint_cuda_copy_bandwidth(int device_index, size_t bytes, int reps, double *gbs) {
  (void)device_index;
  (void)bytes;
  (void)reps;
  *gbs = 0;
  return feint_error_set(FEINT_ERR_INPUT, "this feint was built without CUDA (no nvcc found)");
}

int feint_cuda_set_variant(feint_backend *b, int variant) {
  (void)b;
  (void)variant;
  return feint_error_set(FEINT_ERR_INPUT, "this feint was built without CUDA (no nvcc found)");
}

int feint_cuda_paper_residual(feint_backend *b, const double *u, double *F, int reps, feint_cuda_paper_stats *st) {
  (void)b;
  (void)u;
  (void)F;
  (void)reps;
  memset(st, 0, sizeof *st);
  return feint_error_set(FEINT_ERR_INPUT, "this feint was built without CUDA (no nvcc found)");
}

void feint_cuda_set_host_reference(int host) { (void)host; }

int feint_cuda_set_bplan_host(feint_backend *b, int host) {
  (void)b;
  (void)host;
  return feint_error_set(FEINT_ERR_INPUT, "this feint was built without CUDA (no nvcc found)");
}

int feint_cuda_bplan_get(feint_backend *b, int which, feint_cuda_bplan *out) {
  (void)b;
  (void)which;
  memset(out, 0, sizeof *out);
  return feint_error_set(FEINT_ERR_INPUT, "this feint was built without CUDA (no nvcc found)");
}

void feint_cuda_bplan_free(feint_cuda_bplan *pl) {
  void *ptrs[] = {pl->uptr, pl->tgt, pl->iend, pl->ient, pl->lidx, pl->color_ptr, pl->chunks, pl->gptr, pl->gent};
  for (size_t k = 0; k < sizeof ptrs / sizeof ptrs[0]; k++) free(ptrs[k]);
  memset(pl, 0, sizeof *pl);
}
