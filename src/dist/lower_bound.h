/* The dist module's binary searches over ascending int64 arrays (whole
 * row numbers, whole cell numbers), and the rows partition's owners of a
 * cell. Internal to src/dist. */
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

/* The rank owning scalar dof d among size ranks whose first scalar dofs
 * are start[0..size): the last one starting at or before it. */
static inline int feint_dist_owner_of(const int64_t *start, int size, int64_t d) {
  int lo = 0, hi = size;
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    if (start[mid] <= d) lo = mid;
    else hi = mid;
  }
  return lo;
}

/* Whether a cell's nb scalar dofs d (-1: none) have one in [lo, hi). */
static inline int feint_dist_touches(const int64_t *d, int nb, int64_t lo, int64_t hi) {
  for (int k = 0; k < nb; k++)
    if (d[k] >= lo && d[k] < hi) return 1;
  return 0;
}

/* The ranks whose rows a cell's nb scalar dofs d touch lie in
 * [*first, *last] (start as feint_dist_owner_of); 0 for a cell without
 * dofs. Ranks strictly between them may own none of its dofs
 * (feint_dist_touches says). */
static inline int feint_dist_cell_owners(const int64_t *d, int nb, const int64_t *start, int size, int *first,
                                         int *last) {
  int64_t least = INT64_MAX, most = -1;
  for (int k = 0; k < nb; k++)
    if (d[k] >= 0) {
      if (d[k] < least) least = d[k];
      if (d[k] > most) most = d[k];
    }
  if (most < 0) return 0;
  *first = feint_dist_owner_of(start, size, least);
  *last = feint_dist_owner_of(start, size, most);
  return 1;
}

#endif
