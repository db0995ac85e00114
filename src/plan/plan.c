/* CSR pattern and slot map from the cell dof map, in O(nnz + cells x nb^2)
 * with no sort and no search.
 *
 * 1. The pattern is built for the scalar dof map (nb scalar dofs per cell);
 *    a space of nc components (dof = s * nc + k, local dof i * nc + k, see
 *    feint/space.h) then expands each scalar nonzero (s, t) into the nc x nc
 *    block (s*nc + k, t*nc + l): rows stay sorted, and row s*nc + k starts at
 *    nc^2 * sindptr[s] + k * nc * len(s).
 * 2. dof -> cell entries (c * nb + i for each cell c whose local dof i is
 *    the dof): a counting sort of the cell dof map.
 * 3. Row lengths: for each dof r, a marker over the dofs of r's cells.
 * 4. Columns, sorted for free: the pattern is symmetric, so visiting the
 *    dofs r in increasing order and appending r to the row of each distinct
 *    neighbour yields every row in increasing column order (a CSR
 *    transpose).
 * 5. Slot map, row by row: scatter pos[col] = position over row r, then for
 *    each (cell c, local i) with dof_i = r, slots[c][i][j] = pos[dof_j]
 *    (contiguous writes of one row of the element matrix).
 * Mixed meshes: a cell of a narrower block has -1 past its own dofs
 * (feint/space.h); those entries are skipped and their slots are -1.
 * Widths (feint/plan.h): 32-bit indices and slots while they fit, 64-bit
 * beyond (or beyond FEINT_WIDE_INDEX_LIMIT, the test hook); the positions
 * are computed in 64 bits either way and stored by put_index / put_slot.
 * The large arrays are asked for in transparent huge pages where the
 * system offers them: the passes are scattered over arrays of tens to
 * hundreds of MB, where 4 KiB pages cost a TLB miss and a page fault each. */
#include "feint/plan.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "feint/error.h"

int64_t feint_plan_narrow_limit(void) {
  const char *hook = getenv("FEINT_WIDE_INDEX_LIMIT");
  if (hook && *hook) {
    char *end;
    errno = 0;
    const long long v = strtoll(hook, &end, 10);
    if (!errno && !*end && v >= 0 && v < INT32_MAX) return v;
  }
  return INT32_MAX;
}

static inline void put_index(feint_plan *p, int64_t k, int64_t column) {
  if (p->indices64) p->indices64[k] = column;
  else p->indices[k] = (int32_t)column;
}

static inline void put_slot(feint_plan *p, int64_t e, int64_t position) {
  if (p->slots64) p->slots64[e] = position;
  else p->slots[e] = (int32_t)position;
}

int feint_plan_slot_width(int64_t nnz) { return nnz > feint_plan_narrow_limit() ? 8 : 4; }

/* Steps 2 and 3 (the scalar pattern's row lengths) and the arrays they
 * leave for the later steps. */
typedef struct {
  int32_t *cd;      /* ncell x nb: the scalar cell dof map, 32-bit */
  int32_t *adj_ptr; /* ns + 2: dof -> cell entries, CSR (adj_ptr[d] .. adj_ptr[d + 1]) */
  int32_t *adj;     /* ncell x nb */
  int32_t *marker;  /* ns */
  int64_t *sindptr; /* ns + 1: the scalar pattern's row pointers */
} scalar_rows;

static void scalar_rows_release(scalar_rows *w) {
  free(w->cd);
  free(w->adj_ptr);
  free(w->adj);
  free(w->marker);
  free(w->sindptr);
  memset(w, 0, sizeof *w);
}

static int scalar_rows_create(const feint_space *s, scalar_rows *w) {
  const int64_t ns = s->n_scalar_dofs, ncell = s->mesh->n_cells;
  const int nb = s->nb;
  memset(w, 0, sizeof *w);
  /* the scalar dof map stays 32-bit in here (a vector space may still pass 2^31 rows) */
  if (ns >= INT32_MAX)
    return feint_error_set(FEINT_ERR_COMPUTE, "%lld scalar dofs: the CSR pattern builder handles up to 2^31 - 1",
                           (long long)ns);
  if (ncell * nb >= INT32_MAX)
    return feint_error_set(FEINT_ERR_COMPUTE,
                           "%lld cells x %d dofs: the CSR pattern builder handles up to 2^31 - 1 cell entries",
                           (long long)ncell, nb);
  int status;
  if ((status = feint_malloc_large_touched((size_t)(ncell * nb), sizeof *w->cd, &w->cd, "cell dof map (32-bit)")) ||
      (status = feint_calloc((size_t)ns + 2, sizeof *w->adj_ptr, &w->adj_ptr, "dof-to-cell map")) ||
      (status = feint_malloc_large_touched((size_t)(ncell * nb), sizeof *w->adj, &w->adj, "dof-to-cell map")) ||
      (status = feint_malloc((size_t)ns, sizeof *w->marker, &w->marker, "pattern marker")) ||
      (status = feint_calloc((size_t)ns + 1, sizeof *w->sindptr, &w->sindptr, "CSR row pointers"))) {
    scalar_rows_release(w);
    return status;
  }
  int32_t *cd = w->cd, *adj_ptr = w->adj_ptr, *adj = w->adj, *marker = w->marker;
  /* 32-bit scalar cell dofs (half the bytes on every scattered read) and
   * dof -> (cell, local index) entries by a counting sort */
  for (int64_t k = 0; k < ncell * nb; k++) {
    cd[k] = (int32_t)s->scalar_cell_dofs[k];
    if (cd[k] >= 0) adj_ptr[cd[k] + 2]++;
  }
  for (int64_t i = 0; i < ns; i++) adj_ptr[i + 2] += adj_ptr[i + 1];
  /* adj_ptr[d + 1] is the insertion cursor of dof d; afterwards it is the end */
  for (int64_t k = 0; k < ncell * nb; k++)
    if (cd[k] >= 0) adj[adj_ptr[cd[k] + 1]++] = (int32_t)k;

  /* row lengths of the scalar pattern */
  for (int64_t i = 0; i < ns; i++) marker[i] = -1;
  for (int64_t r = 0; r < ns; r++) {
    int32_t count = 0;
    for (int32_t e = adj_ptr[r]; e < adj_ptr[r + 1]; e++) {
      const int32_t *dofs = cd + (adj[e] / nb) * nb;
      for (int i = 0; i < nb; i++)
        if (dofs[i] >= 0 && marker[dofs[i]] != (int32_t)r) {
          marker[dofs[i]] = (int32_t)r;
          count++;
        }
    }
    w->sindptr[r + 1] = w->sindptr[r] + count;
  }
  return FEINT_OK;
}

int feint_plan_count_nonzeros(const feint_space *s, int64_t *nnz) {
  scalar_rows w;
  FEINT_CALL(scalar_rows_create(s, &w));
  *nnz = w.sindptr[s->n_scalar_dofs] * s->components * s->components;
  scalar_rows_release(&w);
  return FEINT_OK;
}

int feint_plan_slot_map_size(const feint_space *s, int64_t *entries, int *width) {
  int64_t nnz = *entries = s->mesh->n_cells * s->nbc * s->nbc;
  if (feint_plan_slot_width(nnz) == 8) FEINT_CALL(feint_plan_count_nonzeros(s, &nnz));
  *width = feint_plan_slot_width(nnz);
  return FEINT_OK;
}

int feint_plan_create(const feint_space *s, feint_plan **out) {
  *out = NULL;
  const int64_t n = s->n_dofs, ns = s->n_scalar_dofs, ncell = s->mesh->n_cells;
  const int nbc = s->nbc, nb = s->nb, nc = s->components;
  scalar_rows w;
  FEINT_CALL(scalar_rows_create(s, &w));
  const int32_t *cd = w.cd, *adj_ptr = w.adj_ptr, *adj = w.adj;
  int32_t *marker = w.marker;
  const int64_t *sindptr = w.sindptr;
  feint_plan *p = NULL;
  int64_t *cursor = NULL;
  int32_t *sidx = NULL;
  int status = FEINT_OK;
  if ((status = feint_calloc(1, sizeof *p, &p, "plan")) ||
      (status = feint_malloc((size_t)ns, sizeof *cursor, &cursor, "pattern cursor")) ||
      (status = feint_malloc((size_t)n + 1, sizeof *p->indptr, &p->indptr, "CSR row pointers")))
    goto fail;
  p->n_rows = n;
  p->n_cells = ncell;
  p->nbc = nbc;
  const int64_t snnz = sindptr[ns];
  p->nnz = snnz * nc * nc;
  /* 64-bit where 32 bits would not hold the values (n - 1 columns, nnz - 1 positions) */
  const int wide_indices = n > feint_plan_narrow_limit(), wide_slots = feint_plan_slot_width(p->nnz) == 8;
  const size_t n_slots = (size_t)(ncell * nbc * nbc);
  if ((status = wide_indices
                    ? feint_malloc_large_touched((size_t)p->nnz, sizeof *p->indices64, &p->indices64, "CSR column indices (64-bit)")
                    : feint_malloc_large_touched((size_t)p->nnz, sizeof *p->indices, &p->indices, "CSR column indices")) ||
      (status = wide_slots ? feint_malloc_large_touched(n_slots, sizeof *p->slots64, &p->slots64, "slot map (64-bit)")
                           : feint_malloc_large_touched(n_slots, sizeof *p->slots, &p->slots, "slot map")))
    goto fail;
  if (nc == 1 && !wide_indices) {
    sidx = p->indices;
  } else if ((status = feint_malloc_large_touched((size_t)snnz, sizeof *sidx, &sidx, "scalar CSR column indices"))) {
    goto fail;
  }

  /* columns, sorted by construction (the transpose of a symmetric pattern) */
  for (int64_t i = 0; i < ns; i++) {
    marker[i] = -1;
    cursor[i] = sindptr[i];
  }
  for (int64_t r = 0; r < ns; r++)
    for (int32_t e = adj_ptr[r]; e < adj_ptr[r + 1]; e++) {
      const int32_t *dofs = cd + (adj[e] / nb) * nb;
      for (int i = 0; i < nb; i++) {
        const int32_t d = dofs[i];
        if (d >= 0 && marker[d] != (int32_t)r) {
          marker[d] = (int32_t)r;
          sidx[cursor[d]++] = (int32_t)r;
        }
      }
    }

  /* slots, row r at a time; marker now holds the position of each column
   * within the current row (padding: -1, rows never visited included) */
  if (feint_mesh_is_mixed(s->mesh))
    for (size_t e = 0; e < n_slots; e++) put_slot(p, (int64_t)e, -1);
  for (int64_t r = 0; r < ns; r++) {
    const int64_t b = sindptr[r];
    const int32_t len = (int32_t)(sindptr[r + 1] - b);
    for (int32_t q = 0; q < len; q++) marker[sidx[b + q]] = q;
    for (int32_t e = adj_ptr[r]; e < adj_ptr[r + 1]; e++) {
      const int32_t k = adj[e]; /* cell k / nb, local dof k % nb */
      const int32_t *dofs = cd + (k / nb) * nb;
      if (nc == 1) {
        const int64_t slot = (int64_t)k * nb;
        for (int j = 0; j < nb; j++) put_slot(p, slot + j, dofs[j] < 0 ? -1 : b + marker[dofs[j]]);
      } else {
        /* rows (r*nc + kk, dof_j*nc + l) at nc^2 b + kk nc len + marker[dof_j] nc + l */
        int64_t slot = (int64_t)k * nc * nbc;
        for (int kk = 0; kk < nc; kk++) {
          const int64_t base = nc * nc * b + (int64_t)kk * nc * len;
          for (int j = 0; j < nb && dofs[j] >= 0; j++) { /* padding is at the end */
            const int64_t at = base + (int64_t)marker[dofs[j]] * nc;
            for (int l = 0; l < nc; l++) put_slot(p, slot + j * nc + l, at + l);
          }
          slot += nbc;
        }
      }
    }
  }

  /* expand the scalar pattern by components (nc = 1 with 64-bit indices: a copy) */
  if (sidx == p->indices) {
    for (int64_t r = 0; r <= n; r++) p->indptr[r] = sindptr[r];
  } else {
    for (int64_t sr = 0; sr < ns; sr++) {
      const int64_t b = sindptr[sr], len = sindptr[sr + 1] - b;
      for (int k = 0; k < nc; k++) {
        const int64_t start = nc * nc * b + k * nc * len;
        p->indptr[sr * nc + k] = start;
        for (int64_t q = 0; q < len; q++)
          for (int l = 0; l < nc; l++) put_index(p, start + q * nc + l, (int64_t)sidx[b + q] * nc + l);
      }
    }
    p->indptr[n] = p->nnz;
    free(sidx);
  }
  sidx = NULL;
  scalar_rows_release(&w);
  free(cursor);
  *out = p;
  return FEINT_OK;
fail:
  if (!p || sidx != p->indices) free(sidx);
  scalar_rows_release(&w);
  free(cursor);
  feint_plan_destroy(p);
  return status;
}

int feint_plan_host_slots(const feint_plan *plan) {
  if (!plan || plan->slots || plan->slots64) return FEINT_OK;
  if (!plan->fetch_slots) return feint_error_set(FEINT_ERR_COMPUTE, "internal: a plan without a slot map");
  return plan->fetch_slots((feint_plan *)plan);
}

void feint_plan_destroy(feint_plan *p) {
  if (!p) return;
  if (p->release_device) p->release_device(p);
  free(p->indptr);
  free(p->indices);
  free(p->indices64);
  free(p->slots);
  free(p->slots64);
  free(p);
}
