/* Built without nvcc: the GPU symbolic phase reports that CUDA is absent. */
#include <string.h>

#include "feint/error.h"
#include "feint/plan.h"

int feint_plan_create_cuda_timed(const feint_space *space, feint_plan **out, feint_plan_cuda_stats *stats) {
  (void)space;
  *out = NULL;
  if (stats) memset(stats, 0, sizeof *stats);
  return feint_error_set(FEINT_ERR_INPUT, "this feint was built without CUDA (no nvcc found)");
}

int feint_plan_create_cuda(const feint_space *space, feint_plan **out) {
  return feint_plan_create_cuda_timed(space, out, NULL);
}
