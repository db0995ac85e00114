/* The split (shared-first) numbering of the GPU operators
 * (feint_bp_dofmap_split, src/bp/split.c; the GPU's use of it is checked by
 * t602). On a perturbed 5 x 4 x 3 box, N = 1..6, with the lattice
 * numbering, the first-appearance numbering and a random permutation of
 * it:
 *  - perm is a bijection and maps the new map back to the old one;
 *  - n_shared is the box's count of vertex, edge and face dofs,
 *    (N nx + 1)(N ny + 1)(N nz + 1) - nx ny nz (N-1)^3;
 *  - the shared dofs keep their relative order, and no interior local node
 *    refers to one;
 *  - cell e's interior node t (lexicographic over 1..N-1) is dof
 *    n_shared + e (N-1)^3 + t: one contiguous run per cell, cell-major;
 *  - the GPU's scatter replayed on the CPU (zero [0, n_shared), add there,
 *    store above; NaN poison above) equals the plain sum bitwise;
 *  - the CPU operator (BP3.0, BP1.0) on the new map applied to x permuted
 *    in equals the old map's y permuted (relative 1e-13).
 * A map in which two cells share an interior dof (not conforming): that dof
 * and the orphaned one count as shared (n_shared + 2), the replay still
 * holds. A dof number out of range is refused. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "feint/bp.h"
#include "feint/error.h"

static int interior(int l, int P) {
  int N = P - 1, i = l % P, j = (l / P) % P, k = l / (P * P);
  return i > 0 && i < N && j > 0 && j < N && k > 0 && k < N;
}

/* The GPU's accumulation replayed (y_add in bp.cu); dofs that differ from
 * the plain sum. */
static int replay(const feint_bp_dofmap *s, int64_t ns, const double *v, double *y, double *ref) {
  for (int64_t i = 0; i < s->n_dofs; i++) {
    y[i] = i < ns ? 0 : NAN;
    ref[i] = 0;
  }
  for (int64_t i = 0; i < s->n_cells * s->np; i++) {
    int32_t u = s->cell_dofs[i];
    ref[u] += v[i];
    if (u < ns)
      y[u] += v[i];
    else
      y[u] = v[i];
  }
  int bad = 0;
  for (int64_t i = 0; i < s->n_dofs; i++) bad += !(y[i] == ref[i]);
  return bad;
}

/* The structural checks of the header comment for d and its split s (the
 * per-cell runs only for a conforming map). */
static void check_split(const feint_bp_dofmap *d, const feint_bp_dofmap *s, const int32_t *perm, int64_t ns,
                        int64_t ns_expect, int conforming, const char *what) {
  const int64_t n = d->n_dofs, nv = d->n_cells * d->np;
  const int P = d->order + 1, n1 = d->order - 1;
  CHECK(s->n_dofs == n && s->n_cells == d->n_cells && s->np == d->np, "%s: sizes", what);
  CHECK(ns == ns_expect, "%s: n_shared %lld, expected %lld", what, (long long)ns, (long long)ns_expect);
  unsigned char *hit = calloc((size_t)n + 1, 1);
  int bad = 0;
  for (int64_t i = 0; i < n; i++) {
    if (perm[i] < 0 || perm[i] >= n || hit[perm[i]]) bad++;
    else hit[perm[i]] = 1;
  }
  CHECK(bad == 0, "%s: perm is no bijection (%d bad entries)", what, bad);
  bad = 0;
  for (int64_t i = 0; i < nv; i++) bad += perm[s->cell_dofs[i]] != d->cell_dofs[i];
  CHECK(bad == 0, "%s: perm does not map %d entries back", what, bad);
  bad = 0;
  for (int64_t i = 1; i < ns; i++) bad += perm[i] <= perm[i - 1];
  CHECK(bad == 0, "%s: shared dofs out of their order %d times", what, bad);
  int own_bad = 0, shared_bad = 0;
  for (int64_t e = 0; e < d->n_cells; e++)
    for (int l = 0, t = 0; l < d->np; l++) {
      int32_t u = s->cell_dofs[e * d->np + l];
      if (interior(l, P))
        own_bad += u != ns + e * n1 * n1 * n1 + t++;
      else
        shared_bad += u >= ns;
    }
  if (conforming) {
    CHECK(own_bad == 0, "%s: %d interior nodes off their cell's run", what, own_bad);
    CHECK(shared_bad == 0, "%s: %d boundary nodes on own dofs", what, shared_bad);
  }
  free(hit);
}

int main(void) {
  const int nx = 5, ny = 4, nz = 3;
  feint_hexmesh *m = NULL;
  CHECK_OK(feint_hexmesh_box(nx, ny, nz, 1.0, 0.9, 1.1, 0.2, &m));
  uint64_t rs = 4242;
  for (int N = 1; N <= 6; N++) {
    feint_bp_dofmap *maps[3] = {NULL, NULL, NULL};
    CHECK_OK(feint_bp_dofmap_box(m, N, &maps[0]));
    CHECK_OK(feint_bp_dofmap_create(m, N, &maps[1]));
    CHECK_OK(feint_bp_dofmap_create(m, N, &maps[2]));
    const char *names[3] = {"lattice", "first appearance", "permuted"};
    const int64_t n = maps[0]->n_dofs, nv = m->n_cells * maps[0]->np, n1 = N - 1;
    const int64_t ns_box = (int64_t)(N * nx + 1) * (N * ny + 1) * (N * nz + 1) - m->n_cells * n1 * n1 * n1;
    int32_t *shuffle = malloc(sizeof(int32_t) * n);
    check_permutation(shuffle, n, &rs);
    for (int64_t i = 0; i < nv; i++) maps[2]->cell_dofs[i] = shuffle[maps[2]->cell_dofs[i]];
    double *v = malloc(sizeof(double) * nv), *y = malloc(sizeof(double) * n), *ref = malloc(sizeof(double) * n);
    double *x = malloc(sizeof(double) * n), *xs = malloc(sizeof(double) * n), *ys = malloc(sizeof(double) * n);
    for (int64_t i = 0; i < nv; i++) v[i] = check_urand(&rs) - 0.5;
    for (int mi = 0; mi < 3; mi++) {
      const feint_bp_dofmap *d = maps[mi];
      feint_bp_dofmap *s = NULL;
      int32_t *perm = NULL;
      int64_t ns = -1;
      char what[64];
      snprintf(what, sizeof what, "N=%d %s", N, names[mi]);
      CHECK_OK(feint_bp_dofmap_split(d, &s, &perm, &ns));
      check_split(d, s, perm, ns, ns_box, 1, what);
      CHECK(replay(s, ns, v, y, ref) == 0, "%s: the store/atomic replay differs from the plain sum", what);
      for (int k = 0; k < 3; k += 2) { /* BP1.0, BP3.0 */
        feint_bp_op *op = NULL, *ops = NULL;
        CHECK_OK(feint_bp_op_create(m, d, (feint_bp_kind)k, FEINT_BP_GEO_STORED, 0.7, &op));
        CHECK_OK(feint_bp_op_create(m, s, (feint_bp_kind)k, FEINT_BP_GEO_STORED, 0.7, &ops));
        for (int64_t i = 0; i < n; i++) x[i] = check_urand(&rs) - 0.5;
        for (int64_t i = 0; i < n; i++) xs[i] = x[perm[i]];
        CHECK_OK(feint_bp_apply(op, x, y));
        CHECK_OK(feint_bp_apply(ops, xs, ys));
        for (int64_t i = 0; i < n; i++) ref[i] = y[perm[i]];
        double e = rel_diff(n, ys, ref);
        CHECK(e < 1e-13, "%s %s: split operator vs permuted one %g", what, feint_bp_name(op->kind), e);
        feint_bp_op_destroy(op);
        feint_bp_op_destroy(ops);
      }
      free(perm);
      feint_bp_dofmap_destroy(s);
    }
    printf("N=%d: %lld cells, %lld dofs, %lld shared: split numbering checked on three numberings\n", N,
           (long long)m->n_cells, (long long)n, (long long)ns_box);
    if (N >= 3) {
      /* cell 1 refers to cell 0's first interior dof instead of its own */
      feint_bp_dofmap *d = maps[1], *s = NULL;
      const int P = N + 1, l = 1 + P + P * P;
      const int32_t orphan = d->cell_dofs[d->np + l];
      d->cell_dofs[d->np + l] = d->cell_dofs[l];
      int32_t *perm = NULL;
      int64_t ns = -1;
      CHECK_OK(feint_bp_dofmap_split(d, &s, &perm, &ns));
      check_split(d, s, perm, ns, ns_box + 2, 0, "shared interior dof");
      CHECK(replay(s, ns, v, y, ref) == 0, "N=%d shared interior dof: the replay differs", N);
      free(perm);
      feint_bp_dofmap_destroy(s);
      d->cell_dofs[d->np + l] = orphan;
      /* a dof number out of range */
      d->cell_dofs[7] = (int32_t)n;
      CHECK(feint_bp_dofmap_split(d, &s, &perm, &ns) == FEINT_ERR_INPUT && !s && !perm,
            "a dof out of range is refused");
      CHECK(strstr(feint_error_message(), "outside") != NULL, "message: %s", feint_error_message());
    }
    free(shuffle);
    free(v);
    free(y);
    free(ref);
    free(x);
    free(xs);
    free(ys);
    for (int mi = 0; mi < 3; mi++) feint_bp_dofmap_destroy(maps[mi]);
  }
  feint_hexmesh_destroy(m);
  return check_report("t613");
}
