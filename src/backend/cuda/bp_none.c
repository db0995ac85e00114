/* Built without nvcc: the CUDA BP operators report that they are absent. */
#include <string.h>

#include "feint/bp.h"
#include "feint/error.h"

#define NO_CUDA feint_error_set(FEINT_ERR_INPUT, "BP operators on the GPU: built without CUDA")

int feint_bp_gpu_create(const feint_bp_op *op, int device_index, feint_bp_gpu **out) {
  (void)op;
  (void)device_index;
  *out = NULL;
  return NO_CUDA;
}

int feint_bp_gpu_apply(feint_bp_gpu *g, const double *x, double *y) {
  (void)g;
  (void)x;
  (void)y;
  return NO_CUDA;
}

int feint_bp_gpu_bench(feint_bp_gpu *g, int reps, unsigned seed, double *median_ms, double *min_ms) {
  (void)g;
  (void)reps;
  (void)seed;
  *median_ms = *min_ms = 0;
  return NO_CUDA;
}

int feint_bp_gpu_device_name(int device_index, char *name, size_t size) {
  (void)device_index;
  if (size) name[0] = 0;
  return NO_CUDA;
}

void feint_bp_gpu_destroy(feint_bp_gpu *g) { (void)g; }

int feint_bp_gpu_set_variant(feint_bp_gpu *g, int variant) {
  (void)g;
  (void)variant;
  return NO_CUDA;
}

int feint_bp_gpu_kernel_info(feint_bp_gpu *g, feint_bp_kernel_info *info) {
  (void)g;
  memset(info, 0, sizeof *info);
  return NO_CUDA;
}

int feint_bp_gpu_set_numbering(feint_bp_gpu *g, int split) {
  (void)g;
  (void)split;
  return NO_CUDA;
}

int feint_bp_gpu_split(const feint_bp_gpu *g) {
  (void)g;
  return 0;
}

int feint_bp_gpu_variant_built(feint_bp_kind kind, feint_bp_geo_mode mode, int order, int variant) {
  (void)kind, (void)mode, (void)order, (void)variant;
  return 0;
}
