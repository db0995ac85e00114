/* Pieces for zeroing and accumulating y piece by piece (src/bp/pieces.c,
 * issue 4; the GPU's use of them is checked by t602):
 *  - on a perturbed box with the lattice numbering (feint_bp_dofmap_box),
 *    the first-appearance numbering (feint_bp_dofmap_create) and a random
 *    permutation of it, for several piece sizes down to one cell a piece:
 *    zeroing each piece's range just before adding its cells' random
 *    contributions (a CPU replay of the GPU's order, y poisoned with NaN
 *    first) gives exactly the sum over all cells; the ranges partition
 *    [0, n_dofs) and the pieces the cells;
 *  - with the two structured numberings a piece's window is a small part of
 *    y; the permuted numbering's window is nearly all of y, so a window
 *    limit of half of y falls back to one piece;
 *  - piece size 0, or >= the size of y: one piece; a dof number out of
 *    range is refused. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "feint/bp.h"
#include "feint/error.h"

/* The replay: y from the plan (zero a range, add a piece) against the plain
 * sum; 0 when bitwise equal (same order of additions). */
static int replay(const feint_bp_dofmap *d, const feint_bp_pieces *p, const double *v, double *y, double *ref) {
  for (int64_t i = 0; i < d->n_dofs; i++) {
    y[i] = NAN;
    ref[i] = 0;
  }
  for (int64_t i = 0; i < d->n_cells * d->np; i++) ref[d->cell_dofs[i]] += v[i];
  for (int64_t k = 0; k < p->n_pieces; k++) {
    for (int64_t i = p->dof_start[k]; i < p->dof_start[k + 1]; i++) y[i] = 0;
    for (int64_t i = p->cell_start[k] * d->np; i < p->cell_start[k + 1] * d->np; i++) y[d->cell_dofs[i]] += v[i];
  }
  int bad = 0;
  for (int64_t i = 0; i < d->n_dofs; i++) bad += !(y[i] == ref[i]);
  return bad;
}

/* Ranges and pieces in order, covering dofs and cells. */
static void check_layout(const feint_bp_dofmap *d, const feint_bp_pieces *p, const char *what) {
  CHECK(p->cell_start[0] == 0 && p->cell_start[p->n_pieces] == d->n_cells, "%s: cells covered", what);
  CHECK(p->dof_start[0] == 0 && p->dof_start[p->n_pieces] == d->n_dofs, "%s: dofs covered", what);
  for (int64_t k = 0; k < p->n_pieces; k++) {
    CHECK(p->cell_start[k + 1] > p->cell_start[k], "%s: piece %lld empty", what, (long long)k);
    CHECK(p->dof_start[k + 1] >= p->dof_start[k], "%s: range %lld reversed", what, (long long)k);
  }
}

int main(void) {
  feint_hexmesh *m = NULL;
  CHECK_OK(feint_hexmesh_box(6, 5, 7, 1.0, 0.9, 1.1, 0.2, &m));
  uint64_t rs = 12345;
  for (int N = 1; N <= 4; N++) {
    feint_bp_dofmap *maps[3] = {NULL, NULL, NULL};
    CHECK_OK(feint_bp_dofmap_box(m, N, &maps[0]));
    CHECK_OK(feint_bp_dofmap_create(m, N, &maps[1]));
    CHECK_OK(feint_bp_dofmap_create(m, N, &maps[2]));
    const char *names[3] = {"lattice", "first appearance", "permuted"};
    const int64_t n = maps[1]->n_dofs, nv = maps[1]->n_cells * maps[1]->np;
    CHECK(maps[0]->n_dofs == n, "N=%d: both numberings count %lld dofs", N, (long long)n);
    /* a random permutation of the first-appearance numbers */
    int32_t *perm = malloc(sizeof(int32_t) * n);
    check_permutation(perm, n, &rs);
    for (int64_t i = 0; i < nv; i++) maps[2]->cell_dofs[i] = perm[maps[2]->cell_dofs[i]];
    double *v = malloc(sizeof(double) * nv), *y = malloc(sizeof(double) * n), *ref = malloc(sizeof(double) * n);
    for (int64_t i = 0; i < nv; i++) v[i] = check_urand(&rs) - 0.5;
    const double y_bytes = 8.0 * (double)n;
    for (int mi = 0; mi < 3; mi++) {
      const feint_bp_dofmap *d = maps[mi];
      /* about 2, 7 and 30 pieces, and one cell a piece */
      const double sizes[4] = {y_bytes / 2, y_bytes / 7, y_bytes / 30, 1};
      for (int si = 0; si < 4; si++) {
        feint_bp_pieces *p = NULL;
        CHECK_OK(feint_bp_pieces_plan(d, sizes[si], 1e30, &p));
        char what[96];
        snprintf(what, sizeof what, "N=%d %s, %lld pieces", N, names[mi], (long long)p->n_pieces);
        CHECK(p->n_pieces > 1 && p->n_pieces <= d->n_cells, "%s: expected several", what);
        if (si == 3) CHECK(p->n_pieces == d->n_cells, "%s: one cell a piece", what);
        check_layout(d, p, what);
        int bad = replay(d, p, v, y, ref);
        CHECK(bad == 0, "%s: %d dofs differ from the plain sum", what, bad);
        if (si == 1) {
          /* 7 pieces: a structured numbering keeps each window well under
           * half of y; the permuted one spreads it over nearly all of y */
          if (mi < 2)
            CHECK(p->window < n / 2, "%s: window %lld of %lld dofs", what, (long long)p->window, (long long)n);
          else
            CHECK(p->window > 0.9 * (double)n, "%s: window %lld of %lld dofs", what, (long long)p->window,
                  (long long)n);
          feint_bp_pieces *q = NULL;
          CHECK_OK(feint_bp_pieces_plan(d, sizes[si], y_bytes / 2, &q));
          CHECK(q->n_pieces == (mi < 2 ? p->n_pieces : 1), "%s: %lld pieces under a window limit of y/2", what,
                (long long)q->n_pieces);
          feint_bp_pieces_destroy(q);
        }
        feint_bp_pieces_destroy(p);
      }
      const double whole[2] = {0, y_bytes};
      for (int wi = 0; wi < 2; wi++) {
        feint_bp_pieces *p = NULL;
        CHECK_OK(feint_bp_pieces_plan(d, whole[wi], 1e30, &p));
        CHECK(p->n_pieces == 1, "N=%d %s piece bytes %g: %lld pieces, expected 1", N, names[mi], whole[wi],
              (long long)p->n_pieces);
        check_layout(d, p, "one piece");
        CHECK(replay(d, p, v, y, ref) == 0, "N=%d %s: one piece differs", N, names[mi]);
        feint_bp_pieces_destroy(p);
      }
    }
    printf("N=%d: %lld cells, %lld dofs: pieces replay the plain sum on three numberings\n", N,
           (long long)m->n_cells, (long long)n);
    /* a dof number out of range */
    maps[1]->cell_dofs[5] = (int32_t)n;
    feint_bp_pieces *p = NULL;
    CHECK(feint_bp_pieces_plan(maps[1], y_bytes / 7, 1e30, &p) == FEINT_ERR_INPUT && p == NULL,
          "a dof out of range is refused");
    CHECK(strstr(feint_error_message(), "outside") != NULL, "message: %s", feint_error_message());
    free(perm);
    free(v);
    free(y);
    free(ref);
    for (int mi = 0; mi < 3; mi++) feint_bp_dofmap_destroy(maps[mi]);
  }
  feint_hexmesh_destroy(m);
  return check_report("t612");
}
