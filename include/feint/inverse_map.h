/* feint inverse map: a many-to-one map turned around. A map sends each
 * source e < n_sources (a cell entry: cell * per_cell + local, or a
 * chunk's partial sum, or a cell) to a target (a dof, a CSR slot, a
 * colour); its inverse lists, for each target, the sources that name it,
 * in increasing source order. The gathers sum each target's contributions
 * in that order, so they add the same numbers in the same order as a
 * sequential scatter over the sources would (bitwise the same result, no
 * atomics); the colourings list each colour's cells or chunks this way.
 * One type for all of them (the GPU backend uploads its arrays). */
#ifndef FEINT_INVERSE_MAP_H
#define FEINT_INVERSE_MAP_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* CSR-like: target r's sources are entries[offsets[r] .. offsets[r + 1]),
 * increasing. Sources whose target is negative (-1: a mixed mesh's
 * padding, feint/space.h) are in no list, so n_entries may be below the
 * map's n_sources. The map owns both arrays. */
typedef struct feint_inverse_map {
  int64_t n_targets;
  int64_t n_entries;
  int64_t *offsets; /* n_targets + 1 */
  int64_t *entries; /* n_entries (at least one element allocated) */
} feint_inverse_map;

/* The inverse of the map source e -> target[e], e < n_sources, given as
 * 64-bit (target64) or 32-bit (target32, when target64 is NULL) targets,
 * each below n_targets or negative: a counting sort, O(n_sources +
 * n_targets). A target >= n_targets (or below -1) is FEINT_ERR_COMPUTE
 * naming `what`, the source and its target; out of memory likewise. *out
 * is NULL on failure; release it with feint_inverse_map_destroy. */
int feint_inverse_map_create(int64_t n_sources, const int64_t *target64, const int32_t *target32, int64_t n_targets,
                             const char *what, feint_inverse_map **out);
void feint_inverse_map_destroy(feint_inverse_map *m);

#ifdef __cplusplus
}
#endif
#endif
