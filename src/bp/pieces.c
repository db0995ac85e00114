/* Pieces of cells for zeroing and accumulating y piece by piece on the GPU
 * (include/feint/bp.h, "accumulation in pieces"). */
#include <math.h>
#include <stdlib.h>

#include "feint/bp.h"
#include "feint/error.h"

void feint_bp_pieces_destroy(feint_bp_pieces *p) {
  if (!p) return;
  free(p->cell_start);
  free(p->dof_start);
  free(p);
}

static int pieces_alloc(int64_t n, feint_bp_pieces **out) {
  feint_bp_pieces *p = NULL;
  FEINT_CALL(feint_calloc(1, sizeof *p, &p, "BP pieces"));
  p->n_pieces = n;
  if (feint_malloc((size_t)n + 1, sizeof(int64_t), &p->cell_start, "BP pieces") ||
      feint_malloc((size_t)n + 1, sizeof(int64_t), &p->dof_start, "BP pieces")) {
    feint_bp_pieces_destroy(p);
    return FEINT_ERR_COMPUTE;
  }
  *out = p;
  return FEINT_OK;
}

/* Cut d's cells into n pieces of equal cell counts and fill dof_start and
 * window (see bp.h). */
static int pieces_cut(const feint_bp_dofmap *d, int64_t n, feint_bp_pieces **out) {
  feint_bp_pieces *p = NULL;
  FEINT_CALL(pieces_alloc(n, &p));
  const int64_t per = (d->n_cells + n - 1) / n;
  int64_t hi = -1; /* largest dof touched so far */
  p->cell_start[0] = p->dof_start[0] = 0;
  p->window = 0;
  for (int64_t k = 0; k < n; k++) {
    int64_t c0 = k * per, c1 = c0 + per < d->n_cells ? c0 + per : d->n_cells, lo = d->n_dofs;
    for (int64_t i = c0 * d->np; i < c1 * d->np; i++) {
      int64_t dof = d->cell_dofs[i];
      if (dof < 0 || dof >= d->n_dofs) {
        feint_bp_pieces_destroy(p);
        return feint_error_set(FEINT_ERR_INPUT, "BP pieces: cell %lld has dof %lld outside [0, %lld)",
                               (long long)(i / d->np), (long long)dof, (long long)d->n_dofs);
      }
      if (dof < lo) lo = dof;
      if (dof > hi) hi = dof;
    }
    p->cell_start[k + 1] = c1;
    p->dof_start[k + 1] = k + 1 < n ? hi + 1 : d->n_dofs; /* untouched dofs: zeroed by the last */
    if (c1 > c0 && p->dof_start[k + 1] - lo > p->window) p->window = p->dof_start[k + 1] - lo;
  }
  *out = p;
  return FEINT_OK;
}

int feint_bp_pieces_plan(const feint_bp_dofmap *d, double piece_bytes, double window_bytes, feint_bp_pieces **out) {
  *out = NULL;
  const double y_bytes = 8.0 * (double)d->n_dofs;
  int64_t n = piece_bytes > 0 ? (int64_t)ceil(y_bytes / piece_bytes) : 1;
  if (n > d->n_cells) n = d->n_cells;
  if (n > 1) {
    const int64_t per = (d->n_cells + n - 1) / n;
    n = (d->n_cells + per - 1) / per; /* no empty piece at the end */
  }
  if (n < 1) n = 1;
  feint_bp_pieces *p = NULL;
  FEINT_CALL(pieces_cut(d, n, &p));
  if (n > 1 && 8.0 * (double)p->window > window_bytes) {
    feint_bp_pieces_destroy(p);
    FEINT_CALL(pieces_cut(d, 1, &p));
  }
  *out = p;
  return FEINT_OK;
}
