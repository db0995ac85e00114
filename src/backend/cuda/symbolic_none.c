/* Built without nvcc: the GPU symbolic phase reports that CUDA is absent. */
#include <string.h>

#include "feint/error.h"
#include "feint/plan.h"

int feint_plan_create_cuda_timed(const feint_space *space, int device_index, feint_plan **out,
                                 feint_plan_cuda_stats *stats) {
  (void)space;
  (void)device_index;
  *out = NULL;
  if (stats) memset(stats, 0, sizeof *stats);
  return feint_error_set(FEINT_ERR_INPUT, "this feint was built without CUDA (no nvcc found)");
}

int feint_plan_create_cuda(const feint_space *space, int device_index, feint_plan **out) {
  return feint_plan_create_cuda_timed(space, device_index, out, NULL);
}

/* The GPU plan for numeric assembly: absent too. */
#define NO_CUDA feint_error_set(FEINT_ERR_INPUT, "assembly on the GPU: built without CUDA")

int feint_plan_gpu_fits(const feint_plan *plan) {
  (void)plan;
  return NO_CUDA;
}

int feint_plan_gpu_create(const feint_plan *plan, feint_plan_gpu **out) {
  (void)plan;
  *out = NULL;
  return NO_CUDA;
}

int feint_plan_gpu_create_map(const int32_t *map, int64_t n_cells, int per_cell, int64_t n_targets,
                              feint_plan_gpu **out) {
  (void)map;
  (void)n_cells;
  (void)per_cell;
  (void)n_targets;
  *out = NULL;
  return NO_CUDA;
}

int feint_plan_gpu_begin(feint_plan_gpu *g) {
  (void)g;
  return NO_CUDA;
}

int feint_plan_gpu_add(feint_plan_gpu *g, int64_t n, const double *Ke_device) {
  (void)g;
  (void)n;
  (void)Ke_device;
  return NO_CUDA;
}

int feint_plan_gpu_values(feint_plan_gpu *g, double *values, double *gather_ms) {
  (void)g;
  (void)values;
  if (gather_ms) *gather_ms = 0;
  return NO_CUDA;
}

void feint_plan_gpu_destroy(feint_plan_gpu *g) { (void)g; }
