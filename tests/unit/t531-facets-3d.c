/* Neumann and Robin on hexahedra of high order (p = 9 and 15;
 * tests/cli/t52-boundary-3d.sh stops at p = 4): the facet sets that
 * feint_boundary_create builds on a twisted hexahedral mesh
 * (tests/data/twisted_hex_bc.geo, non-planar lateral faces), integrated on
 * the host. The load b of the linear flux g = 1 + x - 2y + 3z on "sides"
 * must sum to int g dA and give b . u(x_dofs) = int g u dA for the
 * quadratic u = x^2 - yz + 2xy (in the facet space), and so must the Robin
 * matrix of alpha = g (sum R, 1^T R u_I), both against a 20 x 20 Gauss
 * rule on each bilinear facet computed here. Reading a face in the
 * wrong orientation, or an equispaced facet basis on the GLL nodes, fails
 * the moment. */
#include "bc_case.h"
#include "feint/tensor.h"

static double flux(const double *x) { return 1 + x[0] - 2 * x[1] + 3 * x[2]; }
static double moment(const double *x) { return x[0] * x[0] - x[1] * x[2] + 2 * x[0] * x[1]; }

/* int g and int g u over the facets of group g (bilinear quadrilaterals). */
static void exact(const feint_mesh *m, int g, double *ig, double *igu) {
  enum { N = 20 };
  double t[N], w[N];
  CHECK_OK(feint_gauss_legendre(N, t, w));
  *ig = *igu = 0;
  for (int64_t f = m->facet_offsets[g]; f < m->facet_offsets[g + 1]; f++) {
    double X[4][3];
    for (int v = 0; v < 4; v++) {
      const int64_t n = m->facets[f * m->nv_facet + v];
      X[v][0] = m->x[n], X[v][1] = m->y[n], X[v][2] = m->z[n];
    }
    for (int a = 0; a < N; a++)
      for (int b = 0; b < N; b++) {
        const double s = 0.5 * (t[a] + 1), r = 0.5 * (t[b] + 1), W = 0.25 * w[a] * w[b];
        double x[3], ds[3], dr[3];
        for (int d = 0; d < 3; d++) {
          x[d] = (1 - s) * (1 - r) * X[0][d] + s * (1 - r) * X[1][d] + s * r * X[2][d] + (1 - s) * r * X[3][d];
          ds[d] = (1 - r) * (X[1][d] - X[0][d]) + r * (X[2][d] - X[3][d]);
          dr[d] = (1 - s) * (X[3][d] - X[0][d]) + s * (X[2][d] - X[1][d]);
        }
        const double c[3] = {ds[1] * dr[2] - ds[2] * dr[1], ds[2] * dr[0] - ds[0] * dr[2],
                             ds[0] * dr[1] - ds[1] * dr[0]};
        const double J = sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
        *ig += W * J * flux(x);
        *igu += W * J * flux(x) * moment(x);
      }
  }
}

/* The case: Neumann h = g on "sides", or Robin with alpha = g and G = 0. */
static void sides_case(int order, int robin, char *yaml, size_t size) {
  char cwd[4096];
  CHECK(getcwd(cwd, sizeof cwd) != NULL, "working directory");
  snprintf(yaml, size, "mesh: {file: %s/tests/data/twisted_hex_bc.geo}\nspace: {order: %d}\n"
           "physics: {kind: poisson}\nboundary:\n  - {group: sides, %s\"1 + x - 2*y + 3*z\"%s}\n", cwd, order,
           robin ? "robin: {alpha: " : "neumann: ", robin ? "}" : "");
}

/* Neumann (the load b) or Robin (the matrix R): sum b = sum R = int g,
 * b . u_I = 1^T R u_I = int g u. */
static void check_sides(int order, int robin) {
  char yaml[5120];
  sides_case(order, robin, yaml, sizeof yaml);
  bc_case b;
  bc_case_create(yaml, order, 0, &b);
  const feint_mesh *m = b.m;
  const feint_space *s = b.s;
  feint_boundary_conditions *bc = b.bc;
  CHECK(m->cell_type == FEINT_CELL_HEXAHEDRON && m->nv_facet == 4, "a hexahedral mesh");
  CHECK_OK(feint_boundary_integrate(bc, NULL));
  double sum = 0, mom = 0, ig, igu;
  if (robin)
    for (int64_t t = 0; t < bc->n_sites; t++) {
      sum += bc->site_values[t];
      mom += bc->site_values[t] * moment(s->coordinates + 3 * bc->site_cols[t]);
    }
  else
    for (int64_t k = 0; k < bc->n_load; k++) {
      sum += bc->load[k];
      mom += bc->load[k] * moment(s->coordinates + 3 * bc->load_dofs[k]);
    }
  exact(m, feint_mesh_find_group(m, "sides", 2), &ig, &igu);
  printf("Q%d %s on %lld twisted facets: sum %.15g (exact %.15g), moment %.15g (exact %.15g)\n", order,
         robin ? "Robin matrix" : "Neumann load", (long long)(bc->n_neumann_facets + bc->n_robin_facets), sum, ig, mom,
         igu);
  CHECK(bc->n_neumann_facets + bc->n_robin_facets == 36, "36 facets on the sides");
  CHECK_CLOSE(sum, ig, 1e-12);
  CHECK_CLOSE(mom, igu, 1e-12);
  bc_case_destroy(&b);
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  check_sides(2, 0);
  check_sides(9, 0);
  check_sides(15, 0);
  check_sides(2, 1);
  check_sides(9, 1); /* a varying alpha: facet rules of degree 3p + 1 */
  check_sides(15, 1); /* degree 46: the 24 x 24 Gauss rule, the largest on quadrilaterals */
  if (check_failures) return 1;
  printf("t531-facets-3d: ok\n");
  return 0;
}
