/* Built without nvcc: the GPU boundary integrals report that CUDA is absent. */
#include <string.h>

#include "boundary/facet.h"
#include "feint/error.h"

int feint_facets_cuda(const feint_facet_view *const *sets, int n_sets, int64_t n_load, int64_t n_sites, double *load,
                      double *sites, feint_boundary_device_stats *stats) {
  (void)sets;
  (void)n_sets;
  (void)n_load;
  (void)n_sites;
  (void)load;
  (void)sites;
  if (stats) memset(stats, 0, sizeof *stats);
  return feint_error_set(FEINT_ERR_INPUT, "this feint was built without CUDA (no nvcc found)");
}
