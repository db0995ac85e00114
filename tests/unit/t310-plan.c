/* Assembly plan: the CSR pattern against a brute-force dense build (for
 * each cell mark every (dof_i, dof_j)), row by row (same sorted columns,
 * no duplicates, same nnz), and the slot map (each (cell, i, j) slot lies in
 * row dof_i and holds column dof_j). P1/P2 triangles and tetrahedra, scalar
 * and 2/3 components, and P3 triangles. The 64-bit plan (the test hook
 * FEINT_WIDE_INDEX_LIMIT, feint/plan.h: 64-bit indices and slots, or 64-bit
 * slots only) holds the same values as the 32-bit one. The slot map's size
 * before a plan exists (feint_plan_slot_map_size, the driver's memory
 * check): the counted nonzeros equal the pattern's, and its width is the
 * one the builder then picks, on both sides of the limit (the hook at nnz
 * and nnz - 1; at 2^31 - 1 itself through feint_plan_slot_width, nothing
 * allocated). Run from the repository root. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "feint/error.h"
#include "feint/mesh.h"
#include "feint/plan.h"
#include "feint/space.h"

static void check_plan(const feint_mesh *m, int order, int nc) {
  const char *name = feint_cell_name(m->cell_type);
  feint_space *s = NULL;
  feint_plan *p = NULL;
  CHECK_OK(feint_space_create(m, order, nc, &s));
  CHECK_OK(feint_plan_create(s, &p));
  const int64_t n = s->n_dofs;
  const int nbc = s->nbc;
  CHECK(p->n_rows == n && p->n_cells == m->n_cells && p->nbc == nbc, "%s P%d x%d plan sizes", name,
        order, nc);

  /* brute force: dense boolean pattern */
  unsigned char *dense = calloc((size_t)(n * n), 1);
  for (int64_t c = 0; c < m->n_cells; c++) {
    const int64_t *d = s->cell_dofs + c * nbc;
    for (int i = 0; i < nbc; i++)
      for (int j = 0; j < nbc; j++) dense[d[i] * n + d[j]] = 1;
  }
  int64_t nnz = 0, bad_rows = 0, unsorted = 0;
  CHECK(p->indptr[0] == 0, "%s P%d x%d indptr[0]", name, order, nc);
  for (int64_t r = 0; r < n; r++) {
    const unsigned char *row = dense + r * n;
    int64_t begin = p->indptr[r], end = p->indptr[r + 1];
    if (end < begin) {
      bad_rows++;
      continue;
    }
    for (int64_t k = begin + 1; k < end; k++) unsorted += p->indices[k] <= p->indices[k - 1];
    /* walk the dense row and the CSR row together */
    int64_t k = begin, mismatch = 0;
    for (int64_t col = 0; col < n; col++)
      if (row[col]) {
        nnz++;
        if (k >= end || p->indices[k] != col) mismatch++;
        else k++;
      }
    if (mismatch || k != end) bad_rows++;
  }
  CHECK(unsorted == 0, "%s P%d x%d: %lld unsorted/duplicate columns", name, order, nc,
        (long long)unsorted);
  CHECK(bad_rows == 0, "%s P%d x%d: %lld rows differ from the brute-force pattern", name, order, nc,
        (long long)bad_rows);
  CHECK(p->nnz == nnz && p->indptr[n] == nnz, "%s P%d x%d: nnz %lld, want %lld", name, order, nc,
        (long long)p->nnz, (long long)nnz);

  /* slot map */
  int64_t bad_slots = 0;
  for (int64_t c = 0; c < m->n_cells; c++) {
    const int64_t *d = s->cell_dofs + c * nbc;
    for (int i = 0; i < nbc; i++)
      for (int j = 0; j < nbc; j++) {
        int64_t slot = p->slots[(c * nbc + i) * nbc + j];
        if (slot < p->indptr[d[i]] || slot >= p->indptr[d[i] + 1] || p->indices[slot] != d[j])
          bad_slots++;
      }
  }
  CHECK(bad_slots == 0, "%s P%d x%d: %lld wrong slots", name, order, nc, (long long)bad_slots);

  /* symmetric pattern: the transpose lookup finds every entry */
  int64_t asym = 0;
  for (int64_t r = 0; r < n; r++)
    for (int64_t k = p->indptr[r]; k < p->indptr[r + 1]; k++) asym += !dense[p->indices[k] * n + r];
  CHECK(asym == 0, "%s P%d x%d: %lld entries without a transpose", name, order, nc, (long long)asym);

  /* the 64-bit paths: all wide, then slots only (columns fit) */
  const char *limits[2] = {"0", NULL};
  char nbuf[32];
  snprintf(nbuf, sizeof nbuf, "%lld", (long long)n);
  limits[1] = nbuf;
  for (int w = 0; w < 2; w++) {
    feint_plan *q = NULL;
    setenv("FEINT_WIDE_INDEX_LIMIT", limits[w], 1);
    CHECK_OK(feint_plan_create(s, &q));
    unsetenv("FEINT_WIDE_INDEX_LIMIT");
    CHECK(q->slots64 && !q->slots && (w == 1 ? q->indices && !q->indices64 : q->indices64 && !q->indices),
          "%s P%d x%d: widths with limit %s", name, order, nc, limits[w]);
    int64_t diff = q->nnz != p->nnz;
    for (int64_t r = 0; r <= n && !diff; r++) diff += q->indptr[r] != p->indptr[r];
    for (int64_t k = 0; k < p->nnz && !diff; k++) diff += feint_plan_column(q, k) != p->indices[k];
    for (int64_t e = 0; e < m->n_cells * nbc * nbc && !diff; e++) diff += feint_plan_slot(q, e) != p->slots[e];
    CHECK(diff == 0, "%s P%d x%d: the 64-bit plan (limit %s) differs from the 32-bit one", name, order, nc,
          limits[w]);
    feint_plan_destroy(q);
  }

  /* the slot map's size before the plan exists: the nonzeros by the row-length pass, and the width on both
   * sides of the limit (the hook at nnz: 32-bit slots, at nnz - 1: 64-bit) as the builder then chooses it */
  int64_t counted = -1, entries = -1;
  CHECK_OK(feint_plan_count_nonzeros(s, &counted));
  CHECK(counted == nnz, "%s P%d x%d: counted %lld nonzeros, want %lld", name, order, nc, (long long)counted,
        (long long)nnz);
  int width = 0;
  CHECK_OK(feint_plan_slot_map_size(s, &entries, &width));
  CHECK(entries == m->n_cells * nbc * nbc && width == 4, "%s P%d x%d: slot map %lld x %d", name, order, nc,
        (long long)entries, width);
  for (int64_t limit = nnz - 1; limit <= nnz; limit++) {
    feint_plan *q = NULL;
    snprintf(nbuf, sizeof nbuf, "%lld", (long long)limit);
    setenv("FEINT_WIDE_INDEX_LIMIT", nbuf, 1);
    CHECK_OK(feint_plan_slot_map_size(s, &entries, &width));
    CHECK_OK(feint_plan_create(s, &q));
    unsetenv("FEINT_WIDE_INDEX_LIMIT");
    CHECK(width == (limit < nnz ? 8 : 4) && (width == 8) == (q->slots64 != NULL) && (width == 4) == (q->slots != NULL),
          "%s P%d x%d: limit %lld: width %d, the plan's slots %s-bit", name, order, nc, (long long)limit, width,
          q->slots64 ? "64" : "32");
    feint_plan_destroy(q);
  }

  printf("  %s P%d x%d: %lld dofs, nnz %lld (64-bit plans equal)\n", name, order, nc, (long long)n,
         (long long)p->nnz);
  free(dense);
  feint_plan_destroy(p);
  feint_space_destroy(s);
}

int main(void) {
  /* the width at the real limit, 2^31 - 1 nonzeros (no plan that large is built) */
  CHECK(feint_plan_narrow_limit() == INT32_MAX, "narrow limit %lld", (long long)feint_plan_narrow_limit());
  CHECK(feint_plan_slot_width(INT32_MAX) == 4 && feint_plan_slot_width((int64_t)INT32_MAX + 1) == 8,
        "slot widths at 2^31 - 1 and 2^31 nonzeros: %d, %d", feint_plan_slot_width(INT32_MAX),
        feint_plan_slot_width((int64_t)INT32_MAX + 1));
  feint_mesh *tri = NULL, *tet = NULL;
  feint_mesh_options o2 = {.size = 0.2}, o3 = {.size = 0.2};
  CHECK_OK(feint_mesh_read("cases/square.geo", &o2, &tri));
  CHECK_OK(feint_mesh_read("cases/cube.geo", &o3, &tet));
  for (int order = 1; order <= 2; order++)
    for (int nc = 1; nc <= 3; nc++) {
      check_plan(tri, order, nc);
      check_plan(tet, order, nc);
    }
  for (int nc = 1; nc <= 3; nc++) check_plan(tri, 3, nc);
  feint_mesh_destroy(tri);
  feint_mesh_destroy(tet);
  return check_report("t310-plan");
}
