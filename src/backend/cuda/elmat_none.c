/* Built without nvcc: the GPU element matrices report that they are absent. */
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

int feint_elmat_gpu_attach(feint_elmat_gpu *g, const feint_elmat_variant *v, const feint_form *f,
                           const feint_space *s) {
  (void)g;
  (void)v;
  (void)f;
  (void)s;
  return NO_CUDA;
}

int feint_elmat_gpu_form_matrices(feint_elmat_gpu *g, int64_t c0, int64_t n, const double **A,
                                  feint_elmat_gpu_timing *tm) {
  (void)g;
  (void)c0;
  (void)n;
  (void)tm;
  *A = NULL;
  return NO_CUDA;
}

int feint_elmat_gpu_download(feint_elmat_gpu *g, int64_t n, double *A) {
  (void)g;
  (void)n;
  (void)A;
  return NO_CUDA;
}

int feint_elmat_gpu_update_form(feint_elmat_gpu *g, const feint_form *f, const feint_space *s) {
  (void)g;
  (void)f;
  (void)s;
  return NO_CUDA;
}

int feint_elmat_gpu_form_vectors(feint_elmat_gpu *g, const double *u, int atomic, const double **out,
                                 double *kernel_ms) {
  (void)g;
  (void)u;
  (void)atomic;
  (void)kernel_ms;
  *out = NULL;
  return NO_CUDA;
}

int feint_elmat_gpu_download_vectors(feint_elmat_gpu *g, int atomic, double *out) {
  (void)g;
  (void)atomic;
  (void)out;
  return NO_CUDA;
}

int feint_elmat_gpu_device_name(int device_index, char *name, size_t size) {
  (void)device_index;
  if (size) name[0] = 0;
  return NO_CUDA;
}

void feint_elmat_gpu_destroy(feint_elmat_gpu *g) { (void)g; }
