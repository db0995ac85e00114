/* Built without nvcc: the GPU element-matrix kernels the tests call
 * directly report that they are absent. */
#include "feint/elmat.h"
#include "feint/error.h"

#define NO_CUDA feint_error_set(FEINT_ERR_INPUT, "element matrices on the GPU: built without CUDA")

int feint_elmat_gpu_create(const feint_elmat_tables *t, int device_index, feint_elmat_gpu **out) {
  (void)t;
  (void)device_index;
  *out = NULL;
  return NO_CUDA;
}

int feint_elmat_gpu_compute(feint_elmat_gpu *g, const feint_elmat_variant *v, int64_t n, const double *geom,
                            const double *coef, double *A, feint_elmat_gpu_timing *tm) {
  (void)g;
  (void)v;
  (void)n;
  (void)geom;
  (void)coef;
  (void)A;
  (void)tm;
  return NO_CUDA;
}

int feint_elmat_gpu_bench(feint_elmat_gpu *g, const feint_elmat_variant *v, int64_t n, int reps, unsigned seed,
                          feint_elmat_gpu_timing *tm) {
  (void)g;
  (void)v;
  (void)n;
  (void)reps;
  (void)seed;
  (void)tm;
  return NO_CUDA;
}

int feint_elmat_gpu_device_name(int device_index, char *name, size_t size) {
  (void)device_index;
  if (size) name[0] = 0;
  return NO_CUDA;
}

void feint_elmat_gpu_destroy(feint_elmat_gpu *g) { (void)g; }
