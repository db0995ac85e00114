/* A varying Robin alpha on quadrilateral meshes of order 14 and 15 (the
 * segment facet rule of degree 3p = 42, 45; tests/cli/t51-robin.sh stops
 * at low orders): the Robin matrix R that feint_boundary_create builds on
 * two trapezoidal cells (tests/data/trapezoid2.geo, not parallelograms),
 * integrated on the host, with alpha = g = c^p prod_k (x - 1 - r_k) (r_k
 * the roots of the Legendre polynomial P_p, so g = P_p(x - 1) up to
 * round-off on the bottom edge, x in [0, 2]). Checked against a 24-point
 * Gauss rule on each straight edge computed here:
 *   sum R = int g ds,   v^T R u = int g u v ds
 * for u = P_p(x - 1), v = P_q(x - 1), q = p or p - 1 so that the degree
 * 2p + q of g u v is even (its top Legendre component does not cancel on
 * the symmetric bottom edge). Control: the same integral by the Gauss rule
 * of one point fewer than the facet rule has (exact to degree 3p - 2 or
 * 3p - 3) differs from the exact one by far more than the tolerance, so
 * a facet rule of too low a degree fails the moment. */
#include "bc_case.h"
#include "feint/tensor.h"

/* alpha: g(x) = prod_k c (x - a_k), a_k = 1 + r_k */
typedef struct {
  int p;
  double c, a[FEINT_TENSOR_MAX_POINTS];
} alpha_poly;

static void alpha_make(int p, alpha_poly *g) {
  double r[FEINT_TENSOR_MAX_POINTS], w[FEINT_TENSOR_MAX_POINTS], at2, d, prod = 1;
  CHECK_OK(feint_gauss_legendre(p, r, w));
  g->p = p;
  for (int k = 0; k < p; k++) {
    g->a[k] = 1 + r[k];
    prod *= 1 - r[k];
  }
  feint_legendre(p, 1.0, &at2, &d); /* P_p(1) = 1 = lead * prod (1 - r_k) */
  g->c = pow(at2 / prod, 1.0 / p);
}

static double alpha_at(const alpha_poly *g, double x) {
  double v = 1;
  for (int k = 0; k < g->p; k++) v *= g->c * (x - g->a[k]);
  return v;
}

static double legendre_at(int n, double x) {
  double v, d;
  feint_legendre(n, x - 1, &v, &d);
  return v;
}

/* int g, int g u v and int |g u v| over the straight edges of group gr by
 * the n-point Gauss rule on each. */
static void edge_integrals(const feint_mesh *m, int gr, const alpha_poly *g, int q, int n, double *ig, double *iguv,
                           double *iabs) {
  double t[FEINT_TENSOR_MAX_POINTS], w[FEINT_TENSOR_MAX_POINTS];
  CHECK_OK(feint_gauss_legendre(n, t, w));
  *ig = *iguv = *iabs = 0;
  for (int64_t f = m->facet_offsets[gr]; f < m->facet_offsets[gr + 1]; f++) {
    const int64_t n0 = m->facets[f * m->nv_facet], n1 = m->facets[f * m->nv_facet + 1];
    const double L = hypot(m->x[n1] - m->x[n0], m->y[n1] - m->y[n0]);
    for (int k = 0; k < n; k++) {
      const double s = 0.5 * (t[k] + 1), W = 0.5 * w[k] * L, x = (1 - s) * m->x[n0] + s * m->x[n1];
      const double ga = alpha_at(g, x), uv = legendre_at(g->p, x) * legendre_at(q, x);
      *ig += W * ga;
      *iguv += W * ga * uv;
      *iabs += W * fabs(ga * uv);
    }
  }
}

static void check_order(int p) {
  alpha_poly g;
  alpha_make(p, &g);
  char cwd[4096], expr[2048], yaml[8192];
  CHECK(getcwd(cwd, sizeof cwd) != NULL, "working directory");
  size_t used = 0;
  for (int k = 0; k < p; k++)
    used += (size_t)snprintf(expr + used, sizeof expr - used, "%s(%.17g*(x - %.17g))", k ? "*" : "", g.c, g.a[k]);
  CHECK(used < sizeof expr, "alpha expression fits");
  snprintf(yaml, sizeof yaml, "mesh: {file: %s/tests/data/trapezoid2.geo}\nspace: {order: %d}\n"
           "physics: {kind: poisson}\nboundary:\n  - {group: boundary, robin: {alpha: \"%s\"}}\n", cwd, p, expr);
  bc_case b;
  bc_case_create(yaml, p, 0, &b);
  const feint_mesh *m = b.m;
  const feint_space *s = b.s;
  feint_boundary_conditions *bc = b.bc;
  CHECK(m->cell_type == FEINT_CELL_QUADRILATERAL && m->nv_facet == 2 && m->n_cells == 2, "two quadrilaterals");
  CHECK_OK(feint_boundary_integrate(bc, NULL));
  const int q = p - p % 2; /* 2p + q even */
  double sum = 0, mom = 0;
  for (int64_t t = 0; t < bc->n_sites; t++) {
    const double *xr = s->coordinates + 3 * bc->site_rows[t], *xc = s->coordinates + 3 * bc->site_cols[t];
    sum += bc->site_values[t];
    mom += bc->site_values[t] * legendre_at(q, xr[0]) * legendre_at(p, xc[0]);
  }
  const int gr = feint_mesh_find_group(m, "boundary", 1);
  double ig, iguv, iabs, lg, lguv, labs;
  edge_integrals(m, gr, &g, q, FEINT_TENSOR_MAX_POINTS, &ig, &iguv, &iabs);
  const int n_low = (3 * p + 2) / 2 - 1; /* one point fewer than the rule of degree 3p */
  edge_integrals(m, gr, &g, q, n_low, &lg, &lguv, &labs);
  const double tol = 1e-13;
  printf("Q%d Robin matrix, alpha = P_%d(x - 1) on %lld edges of twisted cells: sum %.15g (exact %.15g), "
         "v^T R u %.15g (exact %.15g, |g u v| %.3g): relative %.2e; %d-point control off by %.2e\n", p, p,
         (long long)bc->n_robin_facets, sum, ig, mom, iguv, iabs, fabs(mom - iguv) / iabs, n_low,
         fabs(lguv - iguv) / iabs);
  CHECK(bc->n_robin_facets == 6, "6 boundary edges");
  CHECK(fabs(sum - ig) <= tol * fabs(ig), "Q%d sum %.17g, exact %.17g", p, sum, ig);
  CHECK(fabs(mom - iguv) <= tol * iabs, "Q%d moment %.17g, exact %.17g", p, mom, iguv);
  CHECK(fabs(lguv - iguv) > 1e3 * tol * iabs, "Q%d: the %d-point control is exact too (%.3g): the moment does not "
        "test the rule's degree", p, n_low, fabs(lguv - iguv));
  bc_case_destroy(&b);
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  check_order(14);
  check_order(15);
  return check_report("t532-facets-quad");
}
