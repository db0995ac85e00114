/* Introspection of the CUDA backend for tests and benchmarks (private to
 * feint: not part of the public include/ contract). Without nvcc these
 * return FEINT_ERR_INPUT (src/backend/cuda/none.c). */
#ifndef FEINT_CUDA_TIMING_H
#define FEINT_CUDA_TIMING_H

#include <stddef.h>

#include "feint/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  double last_kernel_ms;  /* device time of the last call's kernels (events), no transfers */
  int n_colors;           /* colours of the cell colouring (strategy colored), else 0 */
  int residual_batch;     /* cells per batch of the residual kernel */
  int matrix_batch;       /* cells per batch of the matrix kernel */
  int batches_per_chunk;
} feint_cuda_stats;

int feint_cuda_info(const feint_backend *b, feint_cuda_stats *st);

/* Device-to-device copy bandwidth in GB/s (bytes read + written). */
int feint_cuda_copy_bandwidth(int device_index, size_t bytes, int reps, double *gbs);

#ifdef __cplusplus
}
#endif

#endif
