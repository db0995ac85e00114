/* feint_inverse_map: see feint/inverse_map.h. */
#include "feint/inverse_map.h"

#include <stdlib.h>

#include "feint/error.h"

void feint_inverse_map_destroy(feint_inverse_map *m) {
  if (!m) return;
  free(m->offsets);
  free(m->entries);
  free(m);
}

static inline int64_t target_of(const int64_t *t64, const int32_t *t32, int64_t e) {
  return t64 ? t64[e] : (int64_t)t32[e];
}

int feint_inverse_map_create(int64_t n_sources, const int64_t *target64, const int32_t *target32, int64_t n_targets,
                             const char *what, feint_inverse_map **out) {
  *out = NULL;
  if (n_sources < 0 || n_targets < 0 || (n_sources > 0 && !target64 && !target32))
    return feint_error_set(FEINT_ERR_COMPUTE, "%s: %lld sources onto %lld targets: no such map", what,
                           (long long)n_sources, (long long)n_targets);
  feint_inverse_map *m = NULL;
  FEINT_CALL(feint_calloc(1, sizeof *m, &m, what));
  m->n_targets = n_targets;
  /* offsets[r + 1] counts target r; after the prefix sum offsets[r] is
   * r's start, used below as its insertion cursor (no second array) */
  int status = feint_calloc((size_t)n_targets + 1, sizeof *m->offsets, &m->offsets, what);
  for (int64_t e = 0; !status && e < n_sources; e++) {
    const int64_t r = target_of(target64, target32, e);
    if (r >= n_targets || r < -1)
      status = feint_error_set(FEINT_ERR_COMPUTE, "%s: source %lld has target %lld, not in -1 .. %lld", what,
                               (long long)e, (long long)r, (long long)n_targets - 1);
    else if (r >= 0)
      m->offsets[r + 1]++;
  }
  if (!status) {
    for (int64_t r = 0; r < n_targets; r++) m->offsets[r + 1] += m->offsets[r];
    m->n_entries = m->offsets[n_targets];
    status = feint_malloc((size_t)m->n_entries + 1, sizeof *m->entries, &m->entries, what);
  }
  if (status) {
    feint_inverse_map_destroy(m);
    return status;
  }
  /* sources in increasing order: each target's list comes out increasing
   * (a stable counting sort); each cursor ends at its target's end, the
   * next one's start, so one shift restores the starts */
  for (int64_t e = 0; e < n_sources; e++) {
    const int64_t r = target_of(target64, target32, e);
    if (r >= 0) m->entries[m->offsets[r]++] = e;
  }
  for (int64_t r = n_targets; r > 0; r--) m->offsets[r] = m->offsets[r - 1];
  m->offsets[0] = 0;
  *out = m;
  return FEINT_OK;
}
