/* feint_colour_chunks, feint_colour_graph: see feint/coloring.h. */
#include "feint/coloring.h"

#include <stdlib.h>

#include "feint/error.h"

static int too_many(const char *phase, int max_colours) {
  return feint_error_set(FEINT_ERR_COMPUTE, "%s: more than %d colours needed", phase, max_colours);
}

int feint_colour_chunks(const int64_t *sdofs, int64_t n_cells, int nb, int64_t n_scalar_dofs, const int *order, int cb,
                        int max_colours, const char *phase, int *color, int *n_colors) {
  enum { W = FEINT_MAX_COLOURS / 64 };
  const int64_t n_chunks = (n_cells + cb - 1) / cb;
  if (max_colours > FEINT_MAX_COLOURS) max_colours = FEINT_MAX_COLOURS;
  *n_colors = 0;
  /* the colours each dof has seen, a bit set of 64 per word, one array of
   * words per 64 colours (word major: the first word of every dof, the one
   * nearly every chunk reads, is 8 bytes a dof and stays in cache); an
   * array is allocated when a colour in it is first taken */
  uint64_t *seen[W] = {NULL};
  int status = FEINT_OK;
  for (int64_t b = 0; b < n_chunks && !status; b++) {
    const int64_t c0 = b * cb, c1 = c0 + cb < n_cells ? c0 + cb : n_cells;
    int chosen = -1;
    for (int w = 0; w < W && chosen < 0; w++) {
      uint64_t used = 0;
      if (seen[w])
        for (int64_t c = c0; c < c1; c++)
          for (int i = 0; i < nb; i++) used |= seen[w][sdofs[(order ? order[c] : c) * nb + i]];
      if (~used) chosen = w * 64 + __builtin_ctzll(~used);
    }
    if (chosen < 0 || chosen >= max_colours) {
      status = too_many(phase, max_colours);
      break;
    }
    uint64_t **word = &seen[chosen / 64];
    if (!*word && (status = feint_calloc(n_scalar_dofs > 0 ? (size_t)n_scalar_dofs : 1, sizeof **word, word, phase)))
      break;
    for (int64_t c = c0; c < c1; c++)
      for (int i = 0; i < nb; i++) (*word)[sdofs[(order ? order[c] : c) * nb + i]] |= 1ull << (chosen % 64);
    color[b] = chosen;
    if (chosen + 1 > *n_colors) *n_colors = chosen + 1;
  }
  for (int w = 0; w < W; w++) free(seen[w]);
  return status;
}

int feint_colour_graph(int64_t n_chunks, const uint64_t *edges, int64_t n_edges, int cbits, int max_colours,
                       const char *phase, int *color, int *n_colors) {
  *n_colors = 0;
  if (n_chunks <= 0) return FEINT_OK;
  if (max_colours > FEINT_MAX_COLOURS) max_colours = FEINT_MAX_COLOURS;
  /* seen_by[k] == c: colour k is taken by a neighbour of chunk c (no
   * clearing between chunks) */
  int64_t seen_by[FEINT_MAX_COLOURS];
  for (int k = 0; k < max_colours; k++) seen_by[k] = -1;
  const uint64_t mask = ((uint64_t)1 << cbits) - 1;
  int64_t e = 0;
  for (int64_t c = 0; c < n_chunks; c++) {
    for (; e < n_edges && (int64_t)(edges[e] >> cbits) == c; e++) seen_by[color[edges[e] & mask]] = c;
    int k = 0;
    while (k < max_colours && seen_by[k] == c) k++;
    if (k == max_colours) return too_many(phase, max_colours);
    color[c] = k;
    if (k + 1 > *n_colors) *n_colors = k + 1;
  }
  return FEINT_OK;
}
