/* The shared-first dof numbering of the GPU operators (include/feint/bp.h,
 * "shared-first numbering"): dofs of several cells first, then each cell's
 * own dofs as one contiguous run, cell by cell. */
#include <stdlib.h>

#include "feint/bp.h"
#include "feint/error.h"

/* 1 when local node l of a P^3 cell is inside the cell (no face of it). */
static int interior_node(int l, int P) {
  const int N = P - 1, i = l % P, j = (l / P) % P, k = l / (P * P);
  return i > 0 && i < N && j > 0 && j < N && k > 0 && k < N;
}

int feint_bp_dofmap_split(const feint_bp_dofmap *d, feint_bp_dofmap **out, int32_t **perm, int64_t *n_shared) {
  *out = NULL;
  *perm = NULL;
  *n_shared = 0;
  const int64_t n = d->n_dofs, nv = d->n_cells * d->np;
  const int P = d->order + 1;
  /* seen[u]: 0 unused, 1 once at an interior node (owned), 2 otherwise */
  unsigned char *seen = NULL;
  int32_t *inner = NULL, *to_user = NULL;
  feint_bp_dofmap *s = NULL;
  int st = feint_calloc((size_t)n + 1, 1, &seen, "BP split numbering");
  if (!st) st = feint_malloc((size_t)n + 1, sizeof(int32_t), &inner, "BP split numbering");
  if (!st) st = feint_malloc((size_t)n + 1, sizeof(int32_t), &to_user, "BP split numbering");
  if (!st) st = feint_calloc(1, sizeof *s, &s, "BP split numbering");
  if (!st) st = feint_malloc((size_t)nv + 1, sizeof(int32_t), &s->cell_dofs, "BP split numbering");
  if (st) goto done;
  for (int64_t i = 0; i < nv; i++) {
    const int32_t u = d->cell_dofs[i];
    if (u < 0 || u >= n) {
      st = feint_error_set(FEINT_ERR_INPUT, "BP split numbering: cell %lld has dof %lld outside [0, %lld)",
                           (long long)(i / d->np), (long long)u, (long long)n);
      goto done;
    }
    seen[u] = seen[u] == 0 && interior_node((int)(i % d->np), P) ? 1 : 2;
  }
  /* shared (and unused) dofs keep their relative order; owned ones follow,
   * cell-major, local nodes lexicographic */
  int64_t next = 0;
  for (int64_t u = 0; u < n; u++)
    if (seen[u] != 1) inner[u] = (int32_t)next++;
  *n_shared = next;
  for (int64_t i = 0; i < nv; i++)
    if (seen[d->cell_dofs[i]] == 1) inner[d->cell_dofs[i]] = (int32_t)next++;
  for (int64_t u = 0; u < n; u++) to_user[inner[u]] = (int32_t)u;
  for (int64_t i = 0; i < nv; i++) s->cell_dofs[i] = inner[d->cell_dofs[i]];
  s->order = d->order;
  s->np = d->np;
  s->n_cells = d->n_cells;
  s->n_dofs = n;
done:
  free(seen);
  free(inner);
  if (st) {
    free(to_user);
    feint_bp_dofmap_destroy(s);
    *n_shared = 0;
    return st;
  }
  *out = s;
  *perm = to_user;
  return FEINT_OK;
}
