/* Operator backends: thin tables over the matrix-free BP operators, the
 * CPU reference (src/bp/bp.c) and the CUDA kernels (src/backend/cuda/bp.cu,
 * stubbed without nvcc), so the driver applies y = A x the same way on
 * either. */
#include <stdio.h>
#include <stdlib.h>

#include "feint/backend.h"
#include "feint/error.h"

static int cpu_apply(feint_backend *b, const double *x, double *y) { return feint_bp_apply(b->data, x, y); }

static void cpu_destroy(feint_backend *b) { free(b); }

int feint_backend_cpu_operator_create(const feint_bp_op *op, feint_backend **out) {
  feint_backend *b = NULL;
  FEINT_CALL(feint_calloc(1, sizeof *b, &b, "operator backend"));
  b->name = "cpu";
  snprintf(b->device, sizeof b->device, "CPU (reference backend, double precision)");
  b->data = (void *)op; /* not owned; bp_apply only reads it */
  b->apply = cpu_apply;
  b->destroy = cpu_destroy;
  *out = b;
  return FEINT_OK;
}

static int cuda_apply(feint_backend *b, const double *x, double *y) { return feint_bp_gpu_apply(b->data, x, y); }

static int cuda_apply_kernel_ms(feint_backend *b, int reps, double *median_ms) {
  double min_ms = 0;
  return feint_bp_gpu_bench(b->data, reps, 1u, median_ms, &min_ms);
}

static void cuda_destroy(feint_backend *b) {
  feint_bp_gpu_destroy(b->data);
  free(b);
}

int feint_backend_cuda_operator_create(const feint_bp_op *op, int device_index, feint_backend **out) {
  feint_backend *b = NULL;
  feint_bp_gpu *g = NULL;
  FEINT_CALL(feint_calloc(1, sizeof *b, &b, "operator backend"));
  int st = feint_bp_gpu_create(op, device_index, &g);
  if (!st) st = feint_bp_gpu_device_name(device_index, b->device, sizeof b->device);
  if (st) {
    feint_bp_gpu_destroy(g);
    free(b);
    return st;
  }
  b->name = "cuda";
  b->data = g;
  b->apply = cuda_apply;
  b->apply_kernel_ms = cuda_apply_kernel_ms;
  b->destroy = cuda_destroy;
  *out = b;
  return FEINT_OK;
}
