/* The dist module's binary search over ascending int64 arrays (whole row
 * numbers, whole cell numbers). Internal to src/dist. */
#ifndef FEINT_DIST_LOWER_BOUND_H
#define FEINT_DIST_LOWER_BOUND_H

#include <stdint.h>

/* The first index i < n with a[i] >= v (n if none); a ascending. */
static inline int64_t feint_dist_lower_bound(const int64_t *a, int64_t n, int64_t v) {
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (a[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

#endif
