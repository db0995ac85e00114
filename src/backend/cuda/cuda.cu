/* The CUDA backend (kernels land with the GPU issue): device discovery and
 * the backend table. */
#include <cuda_runtime.h>

extern "C" {
#include "feint/backend.h"
#include "feint/error.h"
}

extern "C" int feint_cuda_device_count(void) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError(); /* clear: no driver or no device is not an error here */
    return 0;
  }
  return n;
}

extern "C" int feint_backend_cuda_create(const feint_problem *p, int device_index, feint_backend **out) {
  (void)p;
  (void)device_index;
  *out = NULL;
  return feint_error_set(FEINT_ERR_INPUT, "the CUDA backend has no kernels yet");
}
