/* Tensor-product cells in the assembled path (issue 4):
 *  - the tensor Gauss-Legendre rules on the quadrilateral and hexahedron
 *    integrate every monomial x^a y^b z^c with total degree <= the rule's
 *    degree exactly (closed form prod 2/(e+1) for even e), and miss
 *    x^(2n) (so the test would notice a too-strong claim);
 *  - the GLL tensor Lagrange elements (quadrilateral orders 1..15,
 *    hexahedron 1..8): Kronecker property at the nodes, vertices where
 *    fe.h says, and exact reproduction (values and gradients) of x^a y^b z^c
 *    with every exponent <= p at random points;
 *  - the vertex shape functions (the multilinear map): Kronecker at the
 *    vertices, partition of unity, gradients against finite differences;
 *  - the quadrilateral dof map on a perturbed grid whose cells list their
 *    vertices in a random one of the square's 8 symmetries: every cell
 *    computes the same coordinates for shared dofs, the dof count is
 *    vertices + (p-1) edges + (p-1)^2 cells, and on an affine grid a global
 *    polynomial of degree p in x and y interpolated at the dofs is
 *    reproduced inside every cell (so neighbours agree on edge dofs);
 *  - the hexahedral space of a Gmsh mesh uses the BP dof map's numbers;
 *  - prisms: the triangle x Gauss-Legendre rules integrate x^a y^b z^c,
 *    a + b <= degree, c <= degree, exactly (a! b! / (a+b+2)! / (c+1));
 *    the P_p x P_p elements (p = 1..7) are Kronecker at their nodes, have
 *    the vertices where fe.h says and reproduce x^a y^b z^c (a + b <= p,
 *    c <= p) with gradients;
 *  - the prism dof map on Gmsh meshes (an extruded triangulation, and a
 *    twisted one), p = 1..7: shared dofs get the same coordinates from
 *    every cell (edge, triangle and quadrilateral face orientations), every
 *    dof is used, and on the extruded (affine) mesh x^a y^b z^c with
 *    a + b <= p, c <= p interpolated at the dofs is reproduced inside
 *    every cell. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "feint/bp.h"
#include "feint/error.h"
#include "feint/fe.h"
#include "feint/mesh.h"
#include "feint/space.h"

static unsigned rnd_state = 77;
static double rnd(void) { /* [-1, 1) */
  rnd_state = rnd_state * 1664525u + 1013904223u;
  return (rnd_state >> 8) * (2.0 / 16777216.0) - 1.0;
}

static double exact1d(int e) { return e % 2 ? 0.0 : 2.0 / (e + 1); }

static void check_rules(feint_cell_type cell, int max_degree) {
  const int dim = feint_cell_dim(cell);
  for (int deg = 0; deg <= max_degree; deg++) {
    feint_quadrature *q;
    CHECK_OK(feint_quadrature_create(cell, deg, &q));
    double worst = 0, wsum = 0;
    int positive = 1;
    for (int k = 0; k < q->n; k++) {
      wsum += q->weights[k];
      positive &= q->weights[k] > 0;
    }
    for (int a = 0; a <= deg; a++)
      for (int b = 0; a + b <= deg; b++)
        for (int c = 0; a + b + c <= deg && (dim == 3 || c == 0); c++) {
          const int e[3] = {a, b, c};
          double s = 0, want = 1;
          for (int k = 0; k < q->n; k++) {
            double v = q->weights[k];
            for (int d = 0; d < dim; d++) v *= pow(q->points[k * dim + d], e[d]);
            s += v;
          }
          for (int d = 0; d < dim; d++) want *= exact1d(e[d]);
          if (fabs(s - want) > worst) worst = fabs(s - want);
        }
    /* one degree beyond the points' reach: x^(2m), m points per direction */
    const int m = (deg + 2) / 2;
    double s = 0;
    for (int k = 0; k < q->n; k++) s += q->weights[k] * pow(q->points[k * dim], 2 * m);
    CHECK(worst < 1e-13, "%s degree %d: monomial error %g", feint_cell_name(cell), deg, worst);
    CHECK(positive, "%s degree %d: non-positive weight", feint_cell_name(cell), deg);
    CHECK_CLOSE(wsum, feint_cell_reference_volume(cell), 1e-14);
    /* the m-point error for x^(2m) is 2^(2m+1) (m!)^4 / ((2m+1) ((2m)!)^2) (times the other
     * directions' volume): 1.5e-14 at m = 23, so compare with half of it */
    double lg = (2 * m + 1) * log(2.0) + 4 * lgamma(m + 1.0) - log(2 * m + 1.0) - 2 * lgamma(2 * m + 1.0);
    CHECK(fabs(s - pow(2, dim - 1) * exact1d(2 * m)) > 0.5 * pow(2, dim - 1) * exp(lg),
          "%s degree %d: x^%d exact with %d points", feint_cell_name(cell), deg, 2 * m, m);
    feint_quadrature_destroy(q);
  }
  printf("%s rules: degrees 0..%d exact on all monomials\n", feint_cell_name(cell), max_degree);
}

static void check_element(feint_cell_type cell, int p) {
  const int dim = feint_cell_dim(cell), n = p + 1;
  feint_element *el;
  CHECK_OK(feint_element_create(cell, p, &el));
  const int nb = el->nb;
  CHECK(nb == (dim == 2 ? n * n : n * n * n), "nb %d", nb);
  double *v = malloc(sizeof(double) * nb * nb);
  feint_element_tabulate(el, nb, el->nodes, v, NULL);
  double kron = 0;
  for (int i = 0; i < nb; i++)
    for (int j = 0; j < nb; j++) kron = fmax(kron, fabs(v[i * nb + j] - (i == j)));
  CHECK(kron < 1e-12, "%s p%d: Kronecker error %g", feint_cell_name(cell), p, kron);
  for (int corner = 0; corner < (1 << dim); corner++) {
    int node = 0;
    for (int d = 0, stride = 1; d < dim; d++, stride *= n) node += ((corner >> d) & 1) * p * stride;
    for (int d = 0; d < dim; d++)
      CHECK(el->nodes[node * dim + d] == ((corner >> d) & 1 ? 1.0 : -1.0), "vertex %d of %s p%d", corner,
            feint_cell_name(cell), p);
  }
  /* reproduction of x^a y^b z^c, exponents <= p, at random points */
  enum { NP = 7 };
  double pts[NP * 3], *val = malloc(sizeof(double) * NP * nb), *grd = malloc(sizeof(double) * NP * nb * dim);
  for (int k = 0; k < NP * dim; k++) pts[k] = rnd();
  feint_element_tabulate(el, NP, pts, val, grd);
  double err = 0;
  for (int trial = 0; trial < 6; trial++) {
    int e[3] = {trial == 0 ? p : rand() % n, trial == 0 ? p : rand() % n, trial == 0 ? p : rand() % n};
    for (int q = 0; q < NP; q++) {
      double u = 0, g[3] = {0, 0, 0}, want = 1, wg[3];
      for (int i = 0; i < nb; i++) {
        double ui = 1;
        for (int d = 0; d < dim; d++) ui *= pow(el->nodes[i * dim + d], e[d]);
        u += ui * val[q * nb + i];
        for (int d = 0; d < dim; d++) g[d] += ui * grd[(q * nb + i) * dim + d];
      }
      for (int d = 0; d < dim; d++) {
        want *= pow(pts[q * dim + d], e[d]);
        wg[d] = e[d] ? e[d] * pow(pts[q * dim + d], e[d] - 1) : 0;
        for (int o = 0; o < dim; o++)
          if (o != d) wg[d] *= pow(pts[q * dim + o], e[o]);
      }
      err = fmax(err, fabs(u - want));
      for (int d = 0; d < dim; d++) err = fmax(err, fabs(g[d] - wg[d]) / (1 + p * p));
    }
  }
  CHECK(err < 1e-11, "%s p%d: reproduction error %g", feint_cell_name(cell), p, err);
  free(v);
  free(val);
  free(grd);
  feint_element_destroy(el);
}

static double factorial(int n) { return n <= 1 ? 1 : n * factorial(n - 1); }

static void check_prism_rules(int max_degree) {
  for (int deg = 0; deg <= max_degree; deg++) {
    feint_quadrature *q;
    CHECK_OK(feint_quadrature_create(FEINT_CELL_PRISM, deg, &q));
    double worst = 0;
    for (int a = 0; a <= deg; a++)
      for (int b = 0; a + b <= deg; b++)
        for (int c = 0; c <= deg; c++) {
          double sum = 0, want = factorial(a) * factorial(b) / factorial(a + b + 2) / (c + 1);
          for (int k = 0; k < q->n; k++)
            sum += q->weights[k] * pow(q->points[3 * k], a) * pow(q->points[3 * k + 1], b) * pow(q->points[3 * k + 2], c);
          worst = fmax(worst, fabs(sum - want));
        }
    CHECK(worst < 1e-14, "prism degree %d: monomial error %g", deg, worst);
    feint_quadrature_destroy(q);
  }
  printf("prism rules: degrees 0..%d exact on x^a y^b z^c, a + b, c <= degree\n", max_degree);
}

static void check_prism_element(int p) {
  feint_element *el;
  CHECK_OK(feint_element_create(FEINT_CELL_PRISM, p, &el));
  const int nb = el->nb;
  CHECK(nb == (p + 1) * (p + 1) * (p + 2) / 2, "prism nb %d", nb);
  static const double vtx[6][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {0, 1, 1}};
  const int nt = (p + 1) * (p + 2) / 2; /* vertex v is node v % 3 + nt (v / 3) */
  for (int v = 0; v < 6; v++)
    for (int d = 0; d < 3; d++)
      CHECK(el->nodes[3 * (v % 3 + nt * (v / 3)) + d] == vtx[v][d], "prism p%d vertex %d", p, v);
  double *val = malloc(sizeof(double) * nb * nb), *grd = malloc(sizeof(double) * nb * 3), err = 0;
  feint_element_tabulate(el, nb, el->nodes, val, NULL);
  for (int i = 0; i < nb; i++)
    for (int j = 0; j < nb; j++) err = fmax(err, fabs(val[i * nb + j] - (i == j)));
  CHECK(err < 1e-11, "prism p%d: Kronecker error %g", p, err);
  for (int trial = 0; trial < 8; trial++) {
    int a = rand() % (p + 1), b = rand() % (p + 1 - a), c = trial ? rand() % (p + 1) : p;
    double x[3] = {0.3 + 0.2 * rnd(), 0.2 + 0.1 * rnd(), 0.5 + 0.5 * rnd()}, u = 0, g[3] = {0, 0, 0};
    feint_element_tabulate(el, 1, x, val, grd);
    for (int i = 0; i < nb; i++) {
      const double *n = el->nodes + 3 * i;
      double ui = pow(n[0], a) * pow(n[1], b) * pow(n[2], c);
      u += ui * val[i];
      for (int d = 0; d < 3; d++) g[d] += ui * grd[3 * i + d];
    }
    double want[4] = {pow(x[0], a) * pow(x[1], b) * pow(x[2], c), a ? a * pow(x[0], a - 1) * pow(x[1], b) * pow(x[2], c) : 0,
                      b ? b * pow(x[0], a) * pow(x[1], b - 1) * pow(x[2], c) : 0,
                      c ? c * pow(x[0], a) * pow(x[1], b) * pow(x[2], c - 1) : 0};
    err = fmax(err, fabs(u - want[0]));
    for (int d = 0; d < 3; d++) err = fmax(err, fabs(g[d] - want[d + 1]) / (1 + p));
  }
  CHECK(err < 1e-10, "prism p%d: reproduction error %g", p, err);
  free(val);
  free(grd);
  feint_element_destroy(el);
}

static void check_vertex_shape(feint_cell_type cell) {
  const int dim = feint_cell_dim(cell), nv = feint_cell_num_vertices(cell);
  /* vertex coordinates: the P1 / Q1 element's vertex nodes */
  double X[8 * 3];
  if (feint_cell_is_simplex(cell)) {
    for (int v = 0; v < nv; v++)
      for (int d = 0; d < dim; d++) X[v * dim + d] = v == d + 1;
  } else if (cell == FEINT_CELL_PRISM) {
    for (int v = 0; v < nv; v++)
      for (int d = 0; d < dim; d++) X[v * dim + d] = d < 2 ? v % 3 == d + 1 : v >= 3;
  } else {
    static const int q[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
    for (int v = 0; v < nv; v++)
      for (int d = 0; d < dim; d++) X[v * dim + d] = d < 2 ? q[v % 4][d] : (v < 4 ? -1 : 1);
  }
  double N[64], G[64 * 3], err = 0;
  feint_cell_vertex_shape(cell, nv, X, N, NULL);
  for (int a = 0; a < nv; a++)
    for (int b = 0; b < nv; b++) err = fmax(err, fabs(N[a * nv + b] - (a == b)));
  double x[3] = {0.21 * rnd(), 0.2 + 0.1 * rnd(), 0.3}, h = 1e-6, sum = 0;
  feint_cell_vertex_shape(cell, 1, x, N, G);
  for (int v = 0; v < nv; v++) sum += N[v];
  err = fmax(err, fabs(sum - 1));
  for (int d = 0; d < dim; d++) {
    double xp[3] = {x[0], x[1], x[2]}, xm[3] = {x[0], x[1], x[2]}, Np[8], Nm[8];
    xp[d] += h;
    xm[d] -= h;
    feint_cell_vertex_shape(cell, 1, xp, Np, NULL);
    feint_cell_vertex_shape(cell, 1, xm, Nm, NULL);
    for (int v = 0; v < nv; v++) err = fmax(err, fabs((Np[v] - Nm[v]) / (2 * h) - G[v * dim + d]) * 1e-3);
  }
  CHECK(err < 1e-9, "%s vertex shape error %g", feint_cell_name(cell), err);
}

/* An n x n grid on [0,1]^2 (interior vertices moved by up to `perturb` of
 * h), each cell's vertex list in a random symmetry of the square. */
static feint_mesh *quad_grid(int n, double perturb) {
  feint_mesh *m = calloc(1, sizeof *m);
  m->dim = 2;
  m->cell_type = FEINT_CELL_QUADRILATERAL;
  m->nv = 4;
  m->n_nodes = (int64_t)(n + 1) * (n + 1);
  m->x = malloc(sizeof(double) * m->n_nodes);
  m->y = malloc(sizeof(double) * m->n_nodes);
  m->z = calloc((size_t)m->n_nodes, sizeof(double));
  for (int j = 0; j <= n; j++)
    for (int i = 0; i <= n; i++) {
      int in = i > 0 && i < n && j > 0 && j < n;
      m->x[j * (n + 1) + i] = (i + (in ? perturb * rnd() : 0)) / n;
      m->y[j * (n + 1) + i] = (j + (in ? perturb * rnd() : 0)) / n;
    }
  m->n_cells = (int64_t)n * n;
  m->n_blocks = 1;
  m->blocks[0] = (feint_mesh_block){FEINT_CELL_QUADRILATERAL, 4, 0, m->n_cells, 0, 0};
  m->cells = malloc(sizeof(int64_t) * 4 * m->n_cells);
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) {
      int64_t ring[4] = {j * (n + 1) + i, j * (n + 1) + i + 1, (j + 1) * (n + 1) + i + 1, (j + 1) * (n + 1) + i};
      int rot = (int)((rnd() + 1) * 4) % 4, flip = rnd() > 0;
      for (int v = 0; v < 4; v++) m->cells[4 * (j * n + i) + v] = ring[(flip ? 4 - v + rot : v + rot) % 4];
    }
  return m;
}

static void free_mesh(feint_mesh *m) {
  free(m->x);
  free(m->y);
  free(m->z);
  free(m->cells);
  free(m);
}

/* Largest distance between a dof's stored coordinates and those its cells
 * compute from their own multilinear maps. */
static double coordinate_mismatch(const feint_space *s) {
  const feint_mesh *m = s->mesh;
  const int nb = s->nb, nv = m->nv;
  double *N = malloc(sizeof(double) * nb * nv), worst = 0;
  feint_cell_vertex_shape(m->cell_type, nb, s->element->nodes, N, NULL);
  const double *X[3] = {m->x, m->y, m->z};
  for (int64_t c = 0; c < m->n_cells; c++)
    for (int i = 0; i < nb; i++) {
      const int64_t dof = s->scalar_cell_dofs[c * nb + i];
      for (int a = 0; a < 3; a++) {
        double x = 0;
        for (int v = 0; v < nv; v++) x += N[i * nv + v] * X[a][m->cells[c * nv + v]];
        worst = fmax(worst, fabs(x - s->coordinates[3 * dof + a]));
      }
    }
  free(N);
  return worst;
}

static void check_quad_space(int p) {
  for (int affine = 0; affine < 2; affine++) {
    feint_mesh *m = quad_grid(5, affine ? 0 : 0.3);
    feint_space *s;
    CHECK_OK(feint_space_create(m, p, 2, &s));
    const int64_t nv = 36, ne = 60;
    CHECK(s->n_scalar_dofs == nv + ne * (p - 1) + 25 * (p - 1) * (p - 1), "p%d: %lld dofs", p,
          (long long)s->n_scalar_dofs);
    CHECK(s->n_dofs == 2 * s->n_scalar_dofs && s->cell_dofs[1] == 2 * s->scalar_cell_dofs[0] + 1, "components");
    double mis = coordinate_mismatch(s);
    CHECK(mis < 1e-14, "p%d quad dof coordinates disagree between cells by %g", p, mis);
    if (affine) { /* u = x^p y^p + x y^(p-1) at the dofs, reproduced inside each cell */
      double *u = malloc(sizeof(double) * s->n_scalar_dofs), err = 0;
      for (int64_t i = 0; i < s->n_scalar_dofs; i++) {
        double x = s->coordinates[3 * i], y = s->coordinates[3 * i + 1];
        u[i] = pow(x, p) * pow(y, p) + x * pow(y, p - 1);
      }
      double xi[2] = {0.3 * rnd(), 0.5 * rnd()}, phi[256], Nv[4];
      feint_element_tabulate(s->element, 1, xi, phi, NULL);
      feint_cell_vertex_shape(FEINT_CELL_QUADRILATERAL, 1, xi, Nv, NULL);
      for (int64_t c = 0; c < m->n_cells; c++) {
        double x = 0, y = 0, uh = 0;
        for (int v = 0; v < 4; v++) {
          x += Nv[v] * m->x[m->cells[4 * c + v]];
          y += Nv[v] * m->y[m->cells[4 * c + v]];
        }
        for (int i = 0; i < s->nb; i++) uh += phi[i] * u[s->scalar_cell_dofs[c * s->nb + i]];
        err = fmax(err, fabs(uh - pow(x, p) * pow(y, p) - x * pow(y, p - 1)));
      }
      CHECK(err < 1e-12, "p%d: global polynomial not reproduced (error %g)", p, err);
      free(u);
    }
    feint_space_destroy(s);
    free_mesh(m);
  }
}

static void check_hex_space(void) {
  feint_mesh_options mo = {0};
  mo.refine = 1;
  feint_mesh *m;
  CHECK_OK(feint_mesh_read("cases/hexcube.geo", &mo, &m));
  for (int p = 1; p <= 4; p++) {
    feint_space *s;
    feint_hexmesh *hm;
    feint_bp_dofmap *d;
    CHECK_OK(feint_space_create(m, p, 1, &s));
    CHECK_OK(feint_hexmesh_from_mesh(m, &hm));
    CHECK_OK(feint_bp_dofmap_create(hm, p, &d));
    int same = d->n_dofs == s->n_scalar_dofs && s->n_scalar_dofs == (int64_t)(6 * p + 1) * (6 * p + 1) * (6 * p + 1);
    for (int64_t k = 0; k < d->n_cells * d->np && same; k++) same = d->cell_dofs[k] == s->scalar_cell_dofs[k];
    CHECK(same, "hex p%d: the space's dofs are not the BP map's", p);
    double mis = coordinate_mismatch(s);
    CHECK(mis < 1e-14, "hex p%d: coordinates disagree by %g", p, mis);
    CHECK(feint_space_facet_dofs(s, m->facets, NULL) == FEINT_ERR_INPUT, "hex facets refused");
    feint_bp_dofmap_destroy(d);
    feint_hexmesh_destroy(hm);
    feint_space_destroy(s);
  }
  feint_mesh_destroy(m);
  printf("hexahedral space = BP dof map, p = 1..4\n");
}

static void check_prism_space(const char *path, int affine) {
  feint_mesh_options mo = {0};
  feint_mesh *m;
  CHECK_OK(feint_mesh_read(path, &mo, &m));
  CHECK(m->cell_type == FEINT_CELL_PRISM && m->nv == 6, "%s: prisms", path);
  for (int p = 1; p <= 7; p++) {
    feint_space *s;
    CHECK_OK(feint_space_create(m, p, 1, &s));
    double mis = coordinate_mismatch(s);
    CHECK(mis < 1e-14, "%s p%d: prism dof coordinates disagree by %g", path, p, mis);
    char *used = calloc((size_t)s->n_scalar_dofs, 1);
    int64_t n_used = 0;
    for (int64_t k = 0; k < m->n_cells * s->nb; k++)
      if (!used[s->scalar_cell_dofs[k]]++) n_used++;
    CHECK(n_used == s->n_scalar_dofs, "%s p%d: %lld of %lld dofs used", path, p, (long long)n_used,
          (long long)s->n_scalar_dofs);
    free(used);
    if (affine) {
      const int a = p / 2, b = p - a, c = p;
      double *u = malloc(sizeof(double) * s->n_scalar_dofs), err = 0;
      for (int64_t i = 0; i < s->n_scalar_dofs; i++) {
        const double *x = s->coordinates + 3 * i;
        u[i] = pow(x[0], a) * pow(x[1], b) * pow(x[2], c) + x[0] * x[2];
      }
      double xi[3] = {0.2, 0.3, 0.7}, *phi = malloc(sizeof(double) * s->nb), Nv[6];
      feint_element_tabulate(s->element, 1, xi, phi, NULL);
      feint_cell_vertex_shape(FEINT_CELL_PRISM, 1, xi, Nv, NULL);
      for (int64_t e = 0; e < m->n_cells; e++) {
        double x[3] = {0, 0, 0}, uh = 0;
        for (int v = 0; v < 6; v++) {
          const int64_t n = m->cells[6 * e + v];
          x[0] += Nv[v] * m->x[n];
          x[1] += Nv[v] * m->y[n];
          x[2] += Nv[v] * m->z[n];
        }
        for (int i = 0; i < s->nb; i++) uh += phi[i] * u[s->scalar_cell_dofs[e * s->nb + i]];
        err = fmax(err, fabs(uh - pow(x[0], a) * pow(x[1], b) * pow(x[2], c) - x[0] * x[2]));
      }
      /* equispaced P7 on the triangle: Kronecker errors ~5e-12 (lagrange.c) */
      CHECK(err < (p < 6 ? 1e-12 : 2e-11), "%s p%d: global polynomial not reproduced (error %g)", path, p, err);
      free(u);
      free(phi);
    }
    feint_space_destroy(s);
  }
  feint_mesh_destroy(m);
  printf("prism dof map on %s, p = 1..7\n", path);
}

int main(void) {
  check_rules(FEINT_CELL_QUADRILATERAL, 47);
  check_rules(FEINT_CELL_HEXAHEDRON, 21);
  feint_quadrature *q = NULL;
  CHECK(feint_quadrature_create(FEINT_CELL_QUADRILATERAL, 48, &q) == FEINT_ERR_INPUT && !q, "degree 48 refused");
  for (int p = 1; p <= 15; p++) check_element(FEINT_CELL_QUADRILATERAL, p);
  for (int p = 1; p <= 8; p++) check_element(FEINT_CELL_HEXAHEDRON, p);
  feint_element *el = NULL;
  CHECK(feint_element_create(FEINT_CELL_HEXAHEDRON, 16, &el) == FEINT_ERR_INPUT && !el, "order 16 refused");
  printf("tensor elements: quadrilateral p = 1..15, hexahedron p = 1..8\n");
  check_prism_rules(14);
  for (int p = 1; p <= 7; p++) check_prism_element(p);
  printf("prism elements p = 1..7\n");
  for (int c = 0; c <= 5; c++)
    if (c != FEINT_CELL_SEGMENT) check_vertex_shape((feint_cell_type)c);
  printf("vertex shape functions\n");
  for (int p = 1; p <= 6; p++) check_quad_space(p);
  printf("quadrilateral dof map, p = 1..6, every vertex order\n");
  check_hex_space();
  check_prism_space("tests/data/prism_cube.geo", 1);
  check_prism_space("tests/data/twisted_prism.geo", 0);
  return check_report("t030-tensor-cells");
}
