/* CSR pattern and slot map from the cell dof map.
 *
 * Rows are built from the dof -> cells adjacency (a transpose of the cell
 * dof map) with a marker array, so each row costs the sum of its cells'
 * sizes; columns are then sorted per row. */
#include "feint/plan.h"

#include <stdlib.h>

#include "feint/error.h"

static int compare_int32(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

static void sort_small(int32_t *v, int64_t n) {
  if (n > 32) {
    qsort(v, (size_t)n, sizeof *v, compare_int32);
    return;
  }
  for (int64_t i = 1; i < n; i++) {
    int32_t key = v[i];
    int64_t j = i - 1;
    while (j >= 0 && v[j] > key) {
      v[j + 1] = v[j];
      j--;
    }
    v[j + 1] = key;
  }
}

int feint_plan_create(const feint_space *s, feint_plan **out) {
  *out = NULL;
  const int64_t n = s->n_dofs, nc = s->mesh->n_cells;
  const int nbc = s->nbc;
  if (n >= INT32_MAX)
    return feint_error_set(FEINT_ERR_COMPUTE, "%lld dofs: more than 2^31 dofs are not supported yet",
                           (long long)n);
  feint_plan *p = NULL;
  FEINT_CALL(feint_calloc(1, sizeof *p, &p, "plan"));
  int64_t *cell_ptr = NULL, *cell_of = NULL;
  int32_t *marker = NULL;
  int status = FEINT_OK;
  p->n_rows = n;
  p->n_cells = nc;
  p->nbc = nbc;

  /* dof -> cells */
  if ((status = feint_calloc((size_t)n + 1, sizeof *cell_ptr, &cell_ptr, "dof-to-cell map")) ||
      (status = feint_malloc((size_t)(nc * nbc), sizeof *cell_of, &cell_of, "dof-to-cell map")) ||
      (status = feint_malloc((size_t)n, sizeof *marker, &marker, "pattern marker")) ||
      (status = feint_calloc((size_t)n + 1, sizeof *p->indptr, &p->indptr, "CSR row pointers")))
    goto fail;
  for (int64_t k = 0; k < nc * nbc; k++) cell_ptr[s->cell_dofs[k] + 1]++;
  for (int64_t i = 0; i < n; i++) cell_ptr[i + 1] += cell_ptr[i];
  for (int64_t c = 0; c < nc; c++)
    for (int i = 0; i < nbc; i++) cell_of[cell_ptr[s->cell_dofs[c * nbc + i]]++] = c;
  for (int64_t i = n; i > 0; i--) cell_ptr[i] = cell_ptr[i - 1];
  cell_ptr[0] = 0;

  /* two passes: count, then fill */
  for (int64_t i = 0; i < n; i++) marker[i] = -1;
  for (int64_t row = 0; row < n; row++) {
    int64_t count = 0;
    for (int64_t k = cell_ptr[row]; k < cell_ptr[row + 1]; k++) {
      const int64_t *dofs = s->cell_dofs + cell_of[k] * nbc;
      for (int j = 0; j < nbc; j++)
        if (marker[dofs[j]] != (int32_t)row) {
          marker[dofs[j]] = (int32_t)row;
          count++;
        }
    }
    p->indptr[row + 1] = p->indptr[row] + count;
  }
  p->nnz = p->indptr[n];
  if (p->nnz >= INT32_MAX) {
    status = feint_error_set(FEINT_ERR_COMPUTE, "%lld nonzeros: more than 2^31 are not supported yet",
                             (long long)p->nnz);
    goto fail;
  }
  if ((status = feint_malloc((size_t)p->nnz, sizeof *p->indices, &p->indices, "CSR column indices")))
    goto fail;
  for (int64_t i = 0; i < n; i++) marker[i] = -1;
  for (int64_t row = 0; row < n; row++) {
    int64_t at = p->indptr[row];
    for (int64_t k = cell_ptr[row]; k < cell_ptr[row + 1]; k++) {
      const int64_t *dofs = s->cell_dofs + cell_of[k] * nbc;
      for (int j = 0; j < nbc; j++)
        if (marker[dofs[j]] != (int32_t)row) {
          marker[dofs[j]] = (int32_t)row;
          p->indices[at++] = (int32_t)dofs[j];
        }
    }
    sort_small(p->indices + p->indptr[row], p->indptr[row + 1] - p->indptr[row]);
  }

  /* slot map: binary search once here so the numeric phase never does */
  if ((status = feint_malloc((size_t)(nc * nbc * nbc), sizeof *p->slots, &p->slots, "slot map")))
    goto fail;
  for (int64_t c = 0; c < nc; c++) {
    const int64_t *dofs = s->cell_dofs + c * nbc;
    for (int i = 0; i < nbc; i++) {
      const int32_t *row = p->indices + p->indptr[dofs[i]];
      int64_t len = p->indptr[dofs[i] + 1] - p->indptr[dofs[i]];
      for (int j = 0; j < nbc; j++) {
        int64_t lo = 0, hi = len - 1;
        const int32_t want = (int32_t)dofs[j];
        while (lo < hi) {
          int64_t mid = (lo + hi) / 2;
          if (row[mid] < want) lo = mid + 1; else hi = mid;
        }
        p->slots[(c * nbc + i) * nbc + j] = (int32_t)(p->indptr[dofs[i]] + lo);
      }
    }
  }
  free(cell_ptr);
  free(cell_of);
  free(marker);
  *out = p;
  return FEINT_OK;
fail:
  free(cell_ptr);
  free(cell_of);
  free(marker);
  feint_plan_destroy(p);
  return status;
}

void feint_plan_destroy(feint_plan *p) {
  if (!p) return;
  free(p->indptr);
  free(p->indices);
  free(p->slots);
  free(p);
}
