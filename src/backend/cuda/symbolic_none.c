/* Built without nvcc: the GPU symbolic phase the tests call directly
 * reports that CUDA is absent. */
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
