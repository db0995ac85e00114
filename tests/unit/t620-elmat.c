/* High-order element matrices on tetrahedra and prisms, p = 1..7
 * (include/feint/elmat.h). Host reference against independent truth, on
 * each cell type:
 *  - g3 = I, g0 = 0 on a random cell (prisms: not affine, so J varies per
 *    point): stiffness rows sum to 0, symmetric; P1 on the reference
 *    tetrahedron equals the closed form (1/6) [[3,-1,-1,-1], [-1,1,0,0], ..];
 *  - g0 = 1, g3 = 0 on a random cell: entries sum to its volume;
 *  - random constant g0, g1, g2, g3 and the nodal values u, w of linear
 *    functions a.x, b.x: w^T A u equals the exact integral of
 *    g0 (b.x)(a.x) + (b.x) g1.a + b.g2 (a.x) + b.g3.a, which fixes the
 *    orientation of g1, g2, g3; as per-point coefficients on a random cell
 *    and as per-cell ones on a random affine cell. The integrals come from
 *    the vertex moment formula (tetrahedra) or from this test's own rule
 *    (prisms: collapsed Gauss-Legendre on the triangle x Gauss-Legendre in
 *    z, with its own vertex shape functions and determinant);
 *  - vector forms: elasticity as 9 scalar blocks, interleaved (elmat.h),
 *    against the exact integral for vector linear functions, the rigid
 *    motions in its kernel, symmetry (vector_elasticity);
 *  - Jacobian terms from the host equal the vertex path; bad input refused
 *    (prisms that are not affine with per-cell coefficients included, on
 *    the GPU path too, with the output left unwritten).
 * GPU against the host on fresh random inputs for every variant (data
 * registers/shared/tensor, geometry Jacobian/vertices, coefficients per point/per
 * cell, ncoef 10/16) and both cell types (per-point coefficients on random
 * non-affine prisms, per-cell ones on random affine prisms):
 * max |A_gpu - A_host| / max |A_host| <= 1e-12. Without a GPU the GPU part
 * prints "skipped: no GPU" (fails when FEINT_GPU_TESTS=1). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "feint/backend.h"
#include "feint/elmat.h"
#include "feint/error.h"

static unsigned rng_state = 12345u;
static double urand(void) { /* [0, 1) */
  rng_state = rng_state * 1664525u + 1013904223u;
  return (rng_state >> 8) * (1.0 / 16777216.0);
}

static const double ref_tet[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
static const double ref_prism[18] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 0, 1, 1};

/* The reference cell, each coordinate moved by up to +-amp / 2, then
 * scaled and shifted (a general prism: not affine). */
static void random_cell(feint_cell_type cell, double *xv) {
  const int nx = cell == FEINT_CELL_PRISM ? 18 : 12;
  const double *ref = cell == FEINT_CELL_PRISM ? ref_prism : ref_tet, amp = cell == FEINT_CELL_PRISM ? 0.3 : 0.4;
  double s = 0.5 + urand(), sh[3] = {urand() - 0.5, urand() - 0.5, urand() - 0.5};
  for (int k = 0; k < nx; k++) xv[k] = s * (ref[k] + amp * (urand() - 0.5)) + sh[k % 3];
}

/* A random cell with constant Jacobian: a tetrahedron, or the prism over a
 * random tetrahedron's first three vertices, extruded along its fourth
 * edge (top face a translate of the bottom one). */
static void random_affine_cell(feint_cell_type cell, double *xv) {
  random_cell(FEINT_CELL_TETRAHEDRON, xv);
  if (cell == FEINT_CELL_PRISM)
    for (int k = 12; k < 18; k++) xv[k] = xv[k - 9] + xv[9 + k % 3] - xv[k % 3];
}

static double max_abs(size_t n, const double *a) {
  double m = 0;
  for (size_t k = 0; k < n; k++) m = fmax(m, fabs(a[k]));
  return m;
}

/* This test's own geometry: vertex shape functions N_v and gradients at the
 * reference point r (tetrahedron: barycentric; prism: triangle barycentric
 * times 1 - r2 or r2), x = sum N_v x_v and det(dx/dr). */
static double map_point(feint_cell_type cell, const double *xv, const double *r, double *x) {
  double N[6], dN[6][3];
  int nv = 4;
  if (cell == FEINT_CELL_PRISM) {
    const double lam[3] = {1 - r[0] - r[1], r[0], r[1]}, dl[3][2] = {{-1, -1}, {1, 0}, {0, 1}};
    nv = 6;
    for (int v = 0; v < 6; v++) {
      const int a = v % 3;
      const double h = v < 3 ? 1 - r[2] : r[2], dh = v < 3 ? -1 : 1;
      N[v] = lam[a] * h;
      dN[v][0] = dl[a][0] * h, dN[v][1] = dl[a][1] * h, dN[v][2] = lam[a] * dh;
    }
  } else {
    static const double g[4][3] = {{-1, -1, -1}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    N[0] = 1 - r[0] - r[1] - r[2], N[1] = r[0], N[2] = r[1], N[3] = r[2];
    memcpy(dN, g, sizeof g);
  }
  double J[3][3] = {{0}};
  for (int d = 0; d < 3; d++) {
    x[d] = 0;
    for (int v = 0; v < nv; v++) {
      x[d] += N[v] * xv[3 * v + d];
      for (int c = 0; c < 3; c++) J[d][c] += dN[v][c] * xv[3 * v + d];
    }
  }
  return J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) - J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
         J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
}

/* m[0] = volume, m[1] = int a.x, m[2] = int b.x, m[3] = int (a.x)(b.x) over
 * the cell xv: tetrahedra by the vertex moment formula; prisms by the rule
 * (r0, r1) = (u, v (1 - u)), weight (1 - u), times z, 4 Gauss-Legendre
 * points each (exact: the integrands have degree <= 4 in each variable). */
static void cell_moments(feint_cell_type cell, const double *xv, const double *a, const double *b, double *m) {
  if (cell == FEINT_CELL_TETRAHEDRON) {
    double geo[10], ax[4], bx[4], sab = 0, sa = 0, sb = 0;
    const double vol = fabs(feint_elmat_tet_geometry(xv, geo)) / 6;
    for (int v = 0; v < 4; v++) {
      ax[v] = a[0] * xv[3 * v] + a[1] * xv[3 * v + 1] + a[2] * xv[3 * v + 2];
      bx[v] = b[0] * xv[3 * v] + b[1] * xv[3 * v + 1] + b[2] * xv[3 * v + 2];
      sab += ax[v] * bx[v], sa += ax[v], sb += bx[v];
    }
    m[0] = vol, m[1] = vol * sa / 4, m[2] = vol * sb / 4, m[3] = vol / 20 * (sab + sa * sb);
    return;
  }
  feint_quadrature *g = NULL;
  CHECK_OK(feint_quadrature_create(FEINT_CELL_SEGMENT, 7, &g));
  CHECK(g->n == 4, "segment rule of degree 7: %d points", g->n);
  memset(m, 0, 4 * sizeof(double));
  for (int i = 0; i < g->n; i++)
    for (int j = 0; j < g->n; j++)
      for (int k = 0; k < g->n; k++) {
        const double u = g->points[i], r[3] = {u, g->points[j] * (1 - u), g->points[k]};
        double x[3];
        const double w = g->weights[i] * g->weights[j] * g->weights[k] * (1 - u) * fabs(map_point(cell, xv, r, x));
        const double ax = a[0] * x[0] + a[1] * x[1] + a[2] * x[2], bx = b[0] * x[0] + b[1] * x[1] + b[2] * x[2];
        m[0] += w, m[1] += w * ax, m[2] += w * bx, m[3] += w * ax * bx;
      }
  feint_quadrature_destroy(g);
}

/* Nodal values of a . x at the element's nodes mapped onto the cell xv. */
static void linear_nodal(const feint_element *el, const double *xv, const double *a, double *u) {
  for (int i = 0; i < el->nb; i++) {
    double x[3];
    map_point(el->cell, xv, el->nodes + 3 * i, x);
    u[i] = a[0] * x[0] + a[1] * x[1] + a[2] * x[2];
  }
}

/* w^T A u for the linear functions a.x, b.x and random constant
 * coefficients g (16) on the cell xv against the exact integral; per-cell
 * coefficients, or the same per point. Returns the relative error. */
static double linear_forms(const feint_elmat_tables *t, feint_elmat_coef coefk, const double *xv) {
  const int nb = t->nb, nq = t->nq;
  double g[16], a[3], b[3], m[4];
  for (int k = 0; k < 16; k++) g[k] = 2 * urand() - 1;
  for (int d = 0; d < 3; d++) a[d] = 2 * urand() - 1, b[d] = 2 * urand() - 1;
  double *coef = malloc(sizeof(double) * 16 * nq), *A = malloc(sizeof(double) * nb * nb);
  double *u = malloc(sizeof(double) * nb), *w = malloc(sizeof(double) * nb);
  for (int q = 0; q < (coefk == FEINT_ELMAT_COEF_CELL ? 1 : nq); q++) memcpy(coef + 16 * q, g, sizeof g);
  feint_elmat_variant v = {FEINT_ELMAT_DATA_SHARED, FEINT_ELMAT_GEO_VERTICES, coefk, 16};
  CHECK_OK(feint_elmat_compute(t, &v, 1, xv, coef, A));
  linear_nodal(t->el, xv, a, u);
  linear_nodal(t->el, xv, b, w);
  double wAu = 0, wAu_abs = 0;
  for (int i = 0; i < nb; i++)
    for (int j = 0; j < nb; j++) wAu += w[i] * A[i * nb + j] * u[j], wAu_abs += fabs(w[i] * A[i * nb + j] * u[j]);
  cell_moments(t->cell, xv, a, b, m);
  double g1a = g[1] * a[0] + g[2] * a[1] + g[3] * a[2], bg2 = b[0] * g[4] + b[1] * g[5] + b[2] * g[6], bg3a = 0;
  for (int d = 0; d < 3; d++)
    for (int e = 0; e < 3; e++) bg3a += b[d] * g[7 + 3 * d + e] * a[e];
  const double want = g[0] * m[3] + g1a * m[2] + bg2 * m[1] + bg3a * m[0], err = fabs(wAu - want) / wAu_abs;
  CHECK(err <= 1e-13, "%s p=%d coefficients per %s: w^T A u = %.17g, exact %.17g", feint_cell_name(t->cell),
        t->order, coefk == FEINT_ELMAT_COEF_CELL ? "cell" : "point", wAu, want);
  free(coef);
  free(A);
  free(u);
  free(w);
  return err;
}

static void host_truths(feint_cell_type cell, int p) {
  feint_elmat_tables *t = NULL;
  CHECK_OK(feint_elmat_tables_create(cell, p, &t));
  const int nb = t->nb, nq = t->nq;
  double *A = malloc(sizeof(double) * nb * nb), *A2 = malloc(sizeof(double) * nb * nb);
  double *coef = calloc((size_t)nq * 16, sizeof(double)), *geo = malloc(sizeof(double) * 10 * nq);
  double xv[18];

  /* Stiffness on a random cell (per-point coefficients). */
  feint_elmat_variant v = {FEINT_ELMAT_DATA_SHARED, FEINT_ELMAT_GEO_VERTICES, FEINT_ELMAT_COEF_POINT, 10};
  for (int q = 0; q < nq; q++) coef[10 * q + 1] = coef[10 * q + 5] = coef[10 * q + 9] = 1;
  random_cell(cell, xv);
  CHECK_OK(feint_elmat_compute(t, &v, 1, xv, coef, A));
  double scale = max_abs((size_t)nb * nb, A), worst_row = 0, worst_sym = 0;
  for (int i = 0; i < nb; i++) {
    double s = 0;
    for (int j = 0; j < nb; j++) {
      s += A[i * nb + j];
      worst_sym = fmax(worst_sym, fabs(A[i * nb + j] - A[j * nb + i]));
    }
    worst_row = fmax(worst_row, fabs(s));
  }
  CHECK(worst_row <= 1e-12 * scale, "%s p=%d: stiffness row sum %g (scale %g)", feint_cell_name(cell), p, worst_row,
        scale);
  CHECK(worst_sym <= 1e-12 * scale, "%s p=%d: stiffness asymmetry %g", feint_cell_name(cell), p, worst_sym);
  if (cell == FEINT_CELL_TETRAHEDRON && p == 1) {
    static const double K1[16] = {3, -1, -1, -1, -1, 1, 0, 0, -1, 0, 1, 0, -1, 0, 0, 1};
    CHECK_OK(feint_elmat_compute(t, &v, 1, ref_tet, coef, A));
    for (int k = 0; k < 16; k++) CHECK_CLOSE(A[k], K1[k] / 6, 1e-14);
  }

  /* Mass on a random cell: entries sum to the volume; the host Jacobian
   * terms give the same matrix as the vertex path. */
  random_cell(cell, xv);
  memset(coef, 0, sizeof(double) * nq * 16);
  for (int q = 0; q < nq; q++) coef[10 * q] = 1;
  CHECK_OK(feint_elmat_compute(t, &v, 1, xv, coef, A));
  /* The sum is sum_q w |J| (sum_i phi_i)^2: exact up to the partition of
   * unity of the basis, ~5e-13 at p = 7 on tetrahedra, ~1.2e-12 on prisms
   * (monomial coefficients of both factors, fe.h). */
  double sum = 0, m[4], ab[3] = {0, 0, 0};
  for (int k = 0; k < nb * nb; k++) sum += A[k];
  cell_moments(cell, xv, ab, ab, m);
  const double vol_err = fabs(sum - m[0]) / m[0];
  CHECK(vol_err <= (cell == FEINT_CELL_PRISM ? 4e-12 : 1e-12), "%s p=%d: mass entries sum to %.17g, volume %.17g", feint_cell_name(cell), p, sum, m[0]);
  CHECK_OK(feint_elmat_jacobian_terms(t, &v, 1, xv, geo));
  v.geo = FEINT_ELMAT_GEO_JACOBIAN;
  CHECK_OK(feint_elmat_compute(t, &v, 1, geo, coef, A2));
  for (int k = 0; k < nb * nb; k++) CHECK_CLOSE(A2[k], A[k], 1e-15);

  /* Linear functions, constant coefficients per point on a random cell and
   * per cell on a random affine one. */
  random_cell(cell, xv);
  double lin_err = linear_forms(t, FEINT_ELMAT_COEF_POINT, xv);
  random_affine_cell(cell, xv);
  lin_err = fmax(lin_err, linear_forms(t, FEINT_ELMAT_COEF_CELL, xv));
  printf("%-11s p=%d nb=%3d nq=%3d: relative errors: row sums %.1e, volume %.1e, linear forms %.1e\n",
         feint_cell_name(cell), p, nb, nq, worst_row / scale, vol_err, lin_err);
  free(A);
  free(A2);
  free(coef);
  free(geo);
  feint_elmat_tables_destroy(t);
}

/* Vector forms (elmat.h): linear elasticity with random constant lambda,
 * mu on two random cells, its element matrices as the 9 scalar blocks of
 * feint_elmat_pair_coefficients (per point) interleaved by
 * feint_elmat_interleave, against the exact integral for vector linear
 * functions U = B x, W = D x (constant gradients): W^T A U = vol
 * (lambda tr B tr D + mu (B + B^T) : D), which fixes the pair order and
 * the dof layout i nc + c; a rigid motion (B skew) is in the kernel
 * (A U = 0); A is symmetric; and the interleave is a permutation. Returns
 * the worst relative error. */
static double vector_elasticity(feint_cell_type cell, int p) {
  enum { NCELL = 2, NC = 3 };
  feint_elmat_tables *t = NULL;
  CHECK_OK(feint_elmat_tables_create(cell, p, &t));
  const int nb = t->nb, nq = t->nq, nbc = nb * NC, terms = feint_physics_jacobian_terms(FEINT_PW_ELASTICITY);
  const size_t n2 = (size_t)nbc * nbc;
  double xv[NCELL * 18], a[NCELL][5];
  double *coef = malloc(sizeof(double) * 10 * nq), *blocks = malloc(sizeof(double) * NCELL * n2);
  double *A = malloc(sizeof(double) * NCELL * n2), *u = malloc(sizeof(double) * nbc), *w = malloc(sizeof(double) * nbc);
  double *s = malloc(sizeof(double) * nb), *Au = malloc(sizeof(double) * nbc);
  char *seen = calloc(NCELL * n2, 1);
  const int nx = 3 * t->nv;
  feint_elmat_variant v = {FEINT_ELMAT_DATA_SHARED, FEINT_ELMAT_GEO_VERTICES, FEINT_ELMAT_COEF_POINT, 10};
  for (int e = 0; e < NCELL; e++) {
    random_cell(cell, xv + nx * e);
    a[e][0] = 0.5 + urand(), a[e][1] = 0.5 + urand(), a[e][2] = a[e][3] = a[e][4] = 0;
  }
  for (int fg = 0; fg < NC * NC; fg++)
    for (int e = 0; e < NCELL; e++) {
      for (int q = 0; q < nq; q++)
        feint_elmat_pair_coefficients(FEINT_PW_ELASTICITY, terms, NC, a[e], fg, 10, coef + 10 * q);
      CHECK_OK(feint_elmat_compute(t, &v, 1, xv + nx * e, coef, blocks + ((size_t)fg * NCELL + e) * nb * nb));
    }
  feint_elmat_interleave(NCELL, nb, NC, blocks, A);
  for (size_t k = 0; k < NCELL * n2; k++) {
    const int64_t src = feint_elmat_block_entry((int64_t)k, NCELL, nb, NC);
    CHECK(src >= 0 && src < (int64_t)(NCELL * n2) && !seen[src], "interleave: entry %zu from %lld twice", k,
          (long long)src);
    if (src >= 0 && src < (int64_t)(NCELL * n2)) seen[src] = 1;
  }
  double worst = 0;
  for (int e = 0; e < NCELL; e++) {
    const double *Ae = A + e * n2, scale = max_abs(n2, Ae);
    double B[9], D[9], m[4], zero[3] = {0, 0, 0};
    for (int k = 0; k < 9; k++) B[k] = 2 * urand() - 1, D[k] = 2 * urand() - 1;
    for (int c = 0; c < NC; c++) { /* nodal values of U_c = B[c] . x, W_c = D[c] . x */
      linear_nodal(t->el, xv + nx * e, B + 3 * c, s);
      for (int i = 0; i < nb; i++) u[i * NC + c] = s[i];
      linear_nodal(t->el, xv + nx * e, D + 3 * c, s);
      for (int i = 0; i < nb; i++) w[i * NC + c] = s[i];
    }
    double wAu = 0, wAu_abs = 0, asym = 0;
    for (int r = 0; r < nbc; r++)
      for (int c = 0; c < nbc; c++) {
        wAu += w[r] * Ae[r * nbc + c] * u[c], wAu_abs += fabs(w[r] * Ae[r * nbc + c] * u[c]);
        asym = fmax(asym, fabs(Ae[r * nbc + c] - Ae[c * nbc + r]));
      }
    cell_moments(cell, xv + nx * e, zero, zero, m);
    double trB = B[0] + B[4] + B[8], trD = D[0] + D[4] + D[8], sym = 0;
    for (int c = 0; c < 3; c++)
      for (int d = 0; d < 3; d++) sym += (B[3 * c + d] + B[3 * d + c]) * D[3 * c + d];
    const double want = m[0] * (a[e][0] * trB * trD + a[e][1] * sym), err = fabs(wAu - want) / wAu_abs;
    CHECK(err <= 1e-12, "%s p=%d elasticity cell %d: W^T A U = %.17g, exact %.17g", feint_cell_name(cell), p, e, wAu,
          want);
    CHECK(asym <= 1e-12 * scale, "%s p=%d elasticity cell %d: asymmetry %g", feint_cell_name(cell), p, e, asym);
    /* a rigid rotation: B skew */
    const double om[3] = {2 * urand() - 1, 2 * urand() - 1, 2 * urand() - 1};
    const double R[9] = {0, -om[2], om[1], om[2], 0, -om[0], -om[1], om[0], 0};
    for (int c = 0; c < NC; c++) {
      linear_nodal(t->el, xv + nx * e, R + 3 * c, s);
      for (int i = 0; i < nb; i++) u[i * NC + c] = s[i];
    }
    double rigid = 0, unorm = max_abs((size_t)nbc, u);
    for (int r = 0; r < nbc; r++) {
      Au[r] = 0;
      for (int c = 0; c < nbc; c++) Au[r] += Ae[r * nbc + c] * u[c];
      rigid = fmax(rigid, fabs(Au[r]));
    }
    CHECK(rigid <= 1e-11 * scale * unorm, "%s p=%d elasticity cell %d: |A u| = %g at a rigid rotation",
          feint_cell_name(cell), p, e, rigid);
    worst = fmax(worst, fmax(err, rigid / (scale * unorm)));
  }
  free(coef);
  free(blocks);
  free(A);
  free(u);
  free(w);
  free(s);
  free(Au);
  free(seen);
  feint_elmat_tables_destroy(t);
  return worst;
}

/* The interleave of feint_elmat_block_entry is a permutation for every
 * component count and a few cell counts and element sizes, and keeps
 * each entry's cell (the scalar case: the identity). */
static void interleave_permutations(void) {
  for (int nc = 1; nc <= 3; nc++)
    for (int nb = 1; nb <= 20; nb += 19)
      for (int64_t n = 1; n <= 3; n++) {
        const int nbc = nb * nc;
        const int64_t total = n * nbc * nbc, per_block = (int64_t)nb * nb;
        char *seen = calloc((size_t)total, 1);
        for (int64_t k = 0; k < total; k++) {
          const int64_t src = feint_elmat_block_entry(k, n, nb, nc);
          CHECK(src >= 0 && src < total && !seen[src], "nc %d nb %d n %lld: entry %lld from %lld twice or outside", nc,
                nb, (long long)n, (long long)k, (long long)src);
          if (src < 0 || src >= total) continue;
          seen[src] = 1;
          CHECK(src / per_block % n == k / ((int64_t)nbc * nbc), "nc %d: entry %lld from another cell", nc,
                (long long)k);
          if (nc == 1) CHECK(src == k, "scalar interleave moved entry %lld", (long long)k);
        }
        free(seen);
      }
}

static void bad_input(void) {
  feint_elmat_tables *t = NULL;
  CHECK(feint_elmat_tables_create(FEINT_CELL_TETRAHEDRON, 8, &t) == FEINT_ERR_INPUT && !t, "order 8 accepted");
  CHECK(strstr(feint_error_message(), "order 8"), "message: %s", feint_error_message());
  CHECK(feint_elmat_tables_create(FEINT_CELL_TRIANGLE, 2, &t) == FEINT_ERR_INPUT && !t, "triangle accepted");
  CHECK(strstr(feint_error_message(), "tetrahedra and prisms only"), "message: %s", feint_error_message());
  double xv[36], geo[20];
  memcpy(xv, ref_tet, sizeof ref_tet);
  memcpy(xv + 12, ref_tet, sizeof ref_tet);
  xv[21] = 1, xv[22] = 1, xv[23] = 0; /* cell 1: fourth vertex in the plane z = 0 */
  CHECK_OK(feint_elmat_tables_create(FEINT_CELL_TETRAHEDRON, 1, &t));
  feint_elmat_variant v = {FEINT_ELMAT_DATA_SHARED, FEINT_ELMAT_GEO_VERTICES, FEINT_ELMAT_COEF_CELL, 11};
  CHECK(feint_elmat_jacobian_terms(t, &v, 2, xv, geo) == FEINT_ERR_INPUT, "degenerate cell accepted");
  CHECK(strstr(feint_error_message(), "cell 1 is degenerate"), "message: %s", feint_error_message());
  double coef[16] = {0}, A[72];
  CHECK(feint_elmat_compute(t, &v, 1, xv, coef, A) == FEINT_ERR_INPUT, "ncoef 11 accepted");
  CHECK(strstr(feint_error_message(), "ncoef 11"), "message: %s", feint_error_message());
  feint_elmat_tables_destroy(t);
  /* Prisms: per-cell coefficients on a prism that is not affine (cell 1's
   * top vertex 5 moved up) are refused by both geometry inputs. */
  CHECK_OK(feint_elmat_tables_create(FEINT_CELL_PRISM, 1, &t));
  memcpy(xv, ref_prism, sizeof ref_prism);
  memcpy(xv + 18, ref_prism, sizeof ref_prism);
  xv[35] = 1.25;
  v.ncoef = 10;
  CHECK(feint_elmat_compute(t, &v, 2, xv, coef, A) == FEINT_ERR_INPUT, "non-affine prism with per-cell coefficients");
  CHECK(strstr(feint_error_message(), "prism 1 is not affine"), "message: %s", feint_error_message());
  CHECK(feint_elmat_jacobian_terms(t, &v, 2, xv, geo) == FEINT_ERR_INPUT, "non-affine prism Jacobian terms");
  CHECK(strstr(feint_error_message(), "prism 1 is not affine"), "message: %s", feint_error_message());
  v.coef = FEINT_ELMAT_COEF_POINT; /* the same prism with per-point coefficients is fine */
  double *pc = calloc((size_t)2 * t->nq * 10, sizeof(double));
  CHECK_OK(feint_elmat_compute(t, &v, 2, xv, pc, A));
  free(pc);
  feint_elmat_tables_destroy(t);
}

/* The GPU part: built with CUDA only (feint/elmat.h's GPU functions exist
 * there alone), run where a GPU is visible. */
#ifdef FEINT_HAVE_CUDA
/* GPU against host for every variant on n random cells; returns the worst error. */
static double gpu_vs_host(feint_cell_type cell, int p, int64_t n) {
  feint_elmat_tables *t = NULL;
  CHECK_OK(feint_elmat_tables_create(cell, p, &t));
  feint_elmat_gpu *g = NULL;
  CHECK_OK(feint_elmat_gpu_create(t, 0, &g));
  const size_t nb2 = (size_t)t->nb * t->nb;
  const int nx = 3 * t->nv;
  double *xv = malloc(sizeof(double) * nx * n), *geo = malloc(sizeof(double) * 10 * t->nq * n);
  double *coef = malloc(sizeof(double) * 16 * t->nq * n);
  double *Ah = malloc(sizeof(double) * nb2 * n), *Ag = malloc(sizeof(double) * nb2 * n);
  double worst = 0;
  int n_variants = 0;
  for (int coefk = 0; coefk < 2; coefk++)
    for (int nc = 10; nc <= 16; nc += 6)
      for (int geok = 0; geok < 2; geok++)
        for (int data = 0; data < (coefk == FEINT_ELMAT_COEF_CELL ? 1 : 3); data++) {
          feint_elmat_variant v = {(feint_elmat_data)data, (feint_elmat_geo)geok, (feint_elmat_coef)coefk, nc};
          for (int64_t e = 0; e < n; e++)
            (coefk == FEINT_ELMAT_COEF_CELL ? random_affine_cell : random_cell)(cell, xv + nx * e);
          CHECK_OK(feint_elmat_jacobian_terms(t, &v, n, xv, geo));
          const size_t ncoef = (size_t)nc * n * (coefk == FEINT_ELMAT_COEF_CELL ? 1 : t->nq);
          for (size_t k = 0; k < ncoef; k++) coef[k] = 2 * urand() - 1;
          const double *geom = geok == FEINT_ELMAT_GEO_VERTICES ? xv : geo;
          for (size_t k = 0; k < nb2 * n; k++) Ag[k] = NAN; /* poison */
          if (!feint_elmat_gpu_variant_built(p, &v)) { /* make EXPERIMENTS=1 builds only: refused by name */
            CHECK(feint_elmat_gpu_compute(g, &v, n, geom, coef, Ag, NULL) == FEINT_ERR_INPUT &&
                      strstr(feint_error_message(), "EXPERIMENTS=1"),
                  "%s p=%d: a variant not built was not refused by name: %s", feint_cell_name(cell), p,
                  feint_error_message());
            continue;
          }
          n_variants++;
          CHECK_OK(feint_elmat_compute(t, &v, n, geom, coef, Ah));
          CHECK_OK(feint_elmat_gpu_compute(g, &v, n, geom, coef, Ag, NULL));
          double d = 0;
          for (size_t k = 0; k < nb2 * n; k++) d = fmax(d, isnan(Ag[k]) ? INFINITY : fabs(Ag[k] - Ah[k]));
          double err = d / max_abs(nb2 * n, Ah);
          char name[64];
          CHECK(err <= 1e-12, "%s p=%d %s: GPU vs host %g", feint_cell_name(cell), p,
                feint_elmat_variant_name(&v, name, sizeof name), err);
          worst = fmax(worst, err);
        }
  printf("%-11s p=%d: %lld cells, %d variants, worst GPU vs host %.2e\n", feint_cell_name(cell), p, (long long)n,
         n_variants, worst);
#ifdef FEINT_EXPERIMENTS
  const int built = 16; /* every variant */
#else
  const int built = 6; /* per-cell coefficients (4), and the default data with vertex geometry (2) */
#endif
  CHECK(n_variants == built, "%s p=%d: %d variants checked, %d built", feint_cell_name(cell), p, n_variants, built);
  free(xv);
  free(geo);
  free(coef);
  free(Ah);
  free(Ag);
  feint_elmat_gpu_destroy(g);
  feint_elmat_tables_destroy(t);
  return worst;
}

/* The GPU path refuses per-cell coefficients on a prism that is not affine
 * before touching the device or the output. */
static void gpu_bad_input(void) {
  feint_elmat_tables *t = NULL;
  feint_elmat_gpu *g = NULL;
  CHECK_OK(feint_elmat_tables_create(FEINT_CELL_PRISM, 1, &t));
  CHECK_OK(feint_elmat_gpu_create(t, 0, &g));
  double xv[36], coef[20], A[72];
  memcpy(xv, ref_prism, sizeof ref_prism);
  memcpy(xv + 18, ref_prism, sizeof ref_prism);
  xv[35] = 1.25; /* cell 1: top vertex 5 moved up */
  for (int k = 0; k < 20; k++) coef[k] = 1;
  for (int k = 0; k < 72; k++) A[k] = NAN;
  feint_elmat_variant v = {FEINT_ELMAT_DATA_SHARED, FEINT_ELMAT_GEO_VERTICES, FEINT_ELMAT_COEF_CELL, 10};
  CHECK(feint_elmat_gpu_compute(g, &v, 2, xv, coef, A, NULL) == FEINT_ERR_INPUT, "GPU: non-affine prism accepted");
  CHECK(strstr(feint_error_message(), "prism 1 is not affine"), "message: %s", feint_error_message());
  for (int k = 0; k < 72; k++) CHECK(isnan(A[k]), "GPU: output written for refused input (entry %d)", k);
  feint_elmat_gpu_destroy(g);
  feint_elmat_tables_destroy(t);
}

static int gpu_checks(void) {
  char name[256];
  CHECK_OK(feint_elmat_gpu_device_name(0, name, sizeof name));
  printf("device: %s\n", name);
  gpu_bad_input();
  double worst = 0;
  static const int64_t tet_cells[8] = {0, 203, 203, 203, 67, 13, 13, 13}, prism_cells[8] = {0, 203, 203, 67, 23, 9, 5, 3};
  for (int p = 1; p <= FEINT_ELMAT_MAX_ORDER; p++) {
    worst = fmax(worst, gpu_vs_host(FEINT_CELL_TETRAHEDRON, p, tet_cells[p]));
    worst = fmax(worst, gpu_vs_host(FEINT_CELL_PRISM, p, prism_cells[p]));
  }
  printf("worst relative error GPU vs host: %.2e\n", worst);
  return check_report("t620");
}
#endif

int main(void) {
  rng_state = (unsigned)time(NULL);
  printf("seed %u\n", rng_state);
  for (int p = 1; p <= FEINT_ELMAT_MAX_ORDER; p++) {
    host_truths(FEINT_CELL_TETRAHEDRON, p);
    host_truths(FEINT_CELL_PRISM, p);
  }
  double vworst = 0;
  for (int p = 1; p <= 4; p++) {
    vworst = fmax(vworst, vector_elasticity(FEINT_CELL_TETRAHEDRON, p));
    vworst = fmax(vworst, vector_elasticity(FEINT_CELL_PRISM, p));
  }
  interleave_permutations();
  printf("elasticity (3 components) as 9 interleaved blocks, p = 1..4: worst relative error %.1e\n", vworst);
  bad_input();
#ifdef FEINT_HAVE_CUDA
  if (feint_backend_available("cuda", NULL, 0)) return gpu_checks();
#endif
  return check_skip_without_gpu("t620", "(GPU against host not run)");
}
