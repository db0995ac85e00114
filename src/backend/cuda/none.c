/* Built without nvcc: the CUDA backend reports that it is absent. */
#include "feint/backend.h"
#include "feint/error.h"

int feint_cuda_device_count(void) { return 0; }

int feint_backend_cuda_create(const feint_problem *p, int device_index, feint_backend **out) {
  (void)p;
  (void)device_index;
  *out = NULL;
  return feint_error_set(FEINT_ERR_INPUT, "this feint was built without CUDA (no nvcc found)");
}
