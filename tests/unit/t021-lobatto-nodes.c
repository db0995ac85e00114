/* The Lobatto node family (fe.h, feint_element_create_family) on segments,
 * triangles, tetrahedra and prisms, p = 1..7:
 *  - edge nodes are the Gauss-Lobatto-Legendre points: p - 1 ascending
 *    points in (0, 1) where P_p'(2t - 1) = 0 (Legendre recurrence here), so
 *    exactly the GLL interior points, at every edge of every cell, running
 *    from vertex a to b;
 *  - triangles: the Blyth-Pozrikidis points for p <= 3 and within 0.03 of
 *    them above; the node set is invariant under the 6 vertex
 *    permutations; tetrahedron faces carry the Lobatto triangle's interior
 *    nodes in lattice order; prism nodes are Lobatto triangle x GLL;
 *  - the basis: Kronecker property, reproduction of a degree-p polynomial
 *    at random points and failure to reproduce a degree-(p+1) one (the
 *    control), mass summing to the reference volume, stiffness rows to 0;
 *  - the default family is unchanged (equispaced), and the tensor cells
 *    refuse equispaced nodes. */
#include <string.h>

#include "check.h"
#include "feint/error.h"
#include "feint/fe.h"

static uint64_t rng = 0x9E3779B97F4A7C15ULL;
static double urand(void) { return check_urand(&rng); }

/* A random point in the reference cell (prism: triangle x [0,1]). */
static void random_point(feint_cell_type cell, double *x) {
  const int dim = feint_cell_dim(cell), simplex_dim = cell == FEINT_CELL_PRISM ? 2 : dim;
  for (;;) {
    double s = 0;
    for (int d = 0; d < simplex_dim; d++) s += (x[d] = urand());
    if (s < 1) break;
  }
  if (cell == FEINT_CELL_PRISM) x[2] = urand();
}

/* x^a y^b z^c with a + b + c = deg (prism: a + b <= p, c <= p, so
 * degree p + 1 in z is outside its span too). */
static double poly(int deg, const double *x, int dim) {
  double y = dim > 1 ? x[1] : 0.4, z = dim > 2 ? x[2] : 0.3;
  return pow(0.7 + x[0] - 2 * y + 0.5 * z, deg) + pow(y - 0.2 * z + 0.1, deg - 1) * x[0] + pow(0.6 - z, deg) + 1;
}

/* P_n'(x) by the three-term recurrence. */
static double legendre_derivative(int n, double x) {
  double p0 = 1, p1 = x, d0 = 0, d1 = 1;
  if (n == 0) return 0;
  for (int k = 2; k <= n; k++) {
    double p2 = ((2 * k - 1) * x * p1 - (k - 1) * p0) / k, d2 = d0 + (2 * k - 1) * p1;
    p0 = p1, p1 = p2, d0 = d1, d1 = d2;
  }
  return d1;
}

/* The p - 1 interior nodes t[k] along an edge are the GLL points. */
static void check_gll_edge(const char *what, int p, const double *t) {
  for (int k = 0; k < p - 1; k++) {
    CHECK(t[k] > 0 && t[k] < 1 && (k == 0 || t[k] > t[k - 1] + 1e-3), "%s P%d: edge node %d at %.17g", what, p, k,
          t[k]);
    const double r = legendre_derivative(p, 2 * t[k] - 1) / legendre_derivative(p, 1.0);
    CHECK(fabs(r) < 1e-13, "%s P%d: edge node %d: P_p'/P_p'(1) = %.3g, not a GLL point", what, p, k, r);
  }
}

static const double tet_vertex[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};

static void check_simplex_layout(const feint_element *el, const feint_element *tri) {
  const int p = el->order, dim = el->dim, nv = dim + 1, ne = feint_cell_num_edges(el->cell);
  const char *name = feint_cell_name(el->cell);
  for (int v = 0; v < nv; v++)
    for (int d = 0; d < dim; d++)
      CHECK(el->nodes[v * dim + d] == (dim == 1 ? v : tet_vertex[v][d]), "%s P%d: vertex %d", name, p, v);
  for (int e = 0; e < ne; e++) {
    int ab[2] = {0, 1};
    if (dim > 1) feint_cell_edge(el->cell, e, ab);
    double t[8];
    for (int k = 0; k < p - 1; k++) {
      const double *x = el->nodes + (nv + e * (p - 1) + k) * dim;
      /* position along the edge, and distance off it */
      int axis = 0;
      double off = 0;
      for (int d = 0; d < dim; d++)
        if (fabs((dim == 1 ? ab[1] : tet_vertex[ab[1]][d]) - (dim == 1 ? ab[0] : tet_vertex[ab[0]][d])) > 0.5)
          axis = d;
      const double a = dim == 1 ? ab[0] : tet_vertex[ab[0]][axis], b = dim == 1 ? ab[1] : tet_vertex[ab[1]][axis];
      t[k] = (x[axis] - a) / (b - a);
      for (int d = 0; d < dim; d++) {
        const double va = dim == 1 ? ab[0] : tet_vertex[ab[0]][d], vb = dim == 1 ? ab[1] : tet_vertex[ab[1]][d];
        off = fmax(off, fabs(x[d] - (va + t[k] * (vb - va))));
      }
      CHECK(off < 1e-15, "%s P%d: edge %d node %d off its edge by %.3g", name, p, e, k, off);
    }
    check_gll_edge(name, p, t);
  }
  if (el->cell == FEINT_CELL_TRIANGLE) {
    /* Blyth-Pozrikidis: node (i, j, k), i + j + k = p, at x = (1 + 2 v_i - v_j - v_k) / 3, y likewise with j */
    const double *g = el->nodes; /* vertices 0, 1 then edge {0,1}: the GLL points along x */
    double v[8];
    v[0] = 0, v[p] = 1;
    for (int k = 1; k < p; k++) v[k] = g[2 * (3 + k - 1)];
    double worst = 0;
    for (int n = 0; n < el->nb; n++) {
      const double *x = el->nodes + 2 * n;
      double best = 1;
      for (int j = 0; j <= p; j++)
        for (int i = 0; i + j <= p; i++) {
          const int k = p - i - j;
          const double bx = (1 + 2 * v[i] - v[j] - v[k]) / 3, by = (1 + 2 * v[j] - v[i] - v[k]) / 3;
          best = fmin(best, fabs(x[0] - bx) + fabs(x[1] - by));
        }
      worst = fmax(worst, best);
    }
    CHECK(worst < (p <= 3 ? 1e-15 : 0.03), "triangle P%d: %.3g from the Blyth-Pozrikidis points", p, worst);
    /* invariant under the vertex permutations: barycentric (l0, l1, l2) permuted is a node */
    const int perm[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    double sym = 0;
    for (int n = 0; n < el->nb; n++) {
      const double l[3] = {1 - el->nodes[2 * n] - el->nodes[2 * n + 1], el->nodes[2 * n], el->nodes[2 * n + 1]};
      for (int q = 0; q < 6; q++) {
        double best = 1;
        for (int m = 0; m < el->nb; m++)
          best = fmin(best, fabs(el->nodes[2 * m] - l[perm[q][1]]) + fabs(el->nodes[2 * m + 1] - l[perm[q][2]]));
        sym = fmax(sym, best);
      }
    }
    CHECK(sym < 1e-14, "triangle P%d: node set not symmetric (%.3g)", p, sym);
    printf("triangle    P%d: %.1e from Blyth-Pozrikidis, symmetric to %.1e\n", p, worst, sym);
  }
  if (el->cell == FEINT_CELL_TETRAHEDRON && p >= 3) {
    /* face f = (a, b, c): interior node k at v_a + x (v_b - v_a) + y (v_c - v_a), (x, y) the Lobatto
     * triangle's interior node k */
    const int per_face = el->entity_dofs[2], tri_first = tri->nb - tri->entity_dofs[3];
    double worst = 0;
    for (int f = 0; f < 4; f++) {
      int abc[3];
      feint_cell_face(el->cell, f, abc);
      for (int k = 0; k < per_face; k++) {
        const double *x = el->nodes + 3 * (nv + ne * (p - 1) + f * per_face + k), *t = tri->nodes + 2 * (tri_first + k);
        for (int d = 0; d < 3; d++) {
          const double *A = tet_vertex[abc[0]], *B = tet_vertex[abc[1]], *C = tet_vertex[abc[2]];
          worst = fmax(worst, fabs(x[d] - (A[d] + t[0] * (B[d] - A[d]) + t[1] * (C[d] - A[d]))));
        }
      }
    }
    CHECK(worst < 1e-15, "tetrahedron P%d: face nodes %.3g from the Lobatto triangle's", p, worst);
  }
}

/* Prism nodes: node t + nt k at (triangle node t, z_k), z the segment's GLL nodes. */
static void check_prism_layout(const feint_element *el, const feint_element *tri, const feint_element *seg) {
  const int p = el->order, nt = tri->nb;
  double worst = 0;
  for (int k = 0; k <= p; k++)
    for (int t = 0; t < nt; t++) {
      const double *x = el->nodes + 3 * (t + nt * k);
      worst = fmax(worst, fabs(x[0] - tri->nodes[2 * t]) + fabs(x[1] - tri->nodes[2 * t + 1]) +
                              fabs(x[2] - seg->nodes[k]));
    }
  CHECK(worst < 1e-15, "prism P%d: nodes %.3g from Lobatto triangle x segment", p, worst);
}

/* Kronecker, reproduction (degree p exact, p + 1 not), mass and stiffness
 * sums, near round-off to P7 (the basis comes from an orthonormal one,
 * lagrange.c; the monomial Vandermonde matrix it replaced had Kronecker
 * errors of 4e-12, reproduction 3e-13, mass 3e-13 and rows 3e-12 at P7). */
#define KRONECKER_TOL 1e-14
#define REPRODUCE_TOL 1e-14
#define MASS_TOL 1e-14
#define ROWS_TOL 1e-13
static void check_basis(const feint_element *el) {
  const int p = el->order, nb = el->nb, dim = el->dim;
  const char *name = feint_cell_name(el->cell);
  double *v = malloc(sizeof(double) * nb * nb), *g = malloc(sizeof(double) * nb * dim);
  if (!v || !g) exit(2);
  feint_element_tabulate(el, nb, el->nodes, v, NULL);
  double kron = 0;
  for (int i = 0; i < nb; i++)
    for (int j = 0; j < nb; j++) kron = fmax(kron, fabs(v[i * nb + j] - (i == j)));
  CHECK(kron < KRONECKER_TOL, "%s P%d: Kronecker error %.3g", name, p, kron);
  /* reproduction error relative to the largest nodal value */
  double rep = 0, control = 0, fmax_nodes = 0;
  for (int i = 0; i < nb; i++) fmax_nodes = fmax(fmax_nodes, fabs(poly(p, el->nodes + i * dim, dim)));
  for (int t = 0; t < 30; t++) {
    double x[3];
    random_point(el->cell, x);
    feint_element_tabulate(el, 1, x, v, NULL);
    double f = 0, h = 0;
    for (int i = 0; i < nb; i++) {
      f += poly(p, el->nodes + i * dim, dim) * v[i];
      h += poly(p + 1, el->nodes + i * dim, dim) * v[i];
    }
    rep = fmax(rep, fabs(f - poly(p, x, dim)) / fmax_nodes);
    control = fmax(control, fabs(h - poly(p + 1, x, dim)) / fmax_nodes);
  }
  CHECK(rep < REPRODUCE_TOL, "%s P%d: degree-p reproduction error %.3g", name, p, rep);
  CHECK(control > 1e-6, "%s P%d: degree p+1 reproduced (%.3g): the check cannot fail", name, p, control);
  feint_quadrature *q;
  CHECK_OK(feint_quadrature_create(el->cell, 2 * p, &q));
  double *qv = malloc(sizeof(double) * q->n * nb), *qg = malloc(sizeof(double) * q->n * nb * dim);
  double *rows = calloc((size_t)nb, sizeof(double));
  if (!qv || !qg || !rows) exit(2);
  feint_element_tabulate(el, q->n, q->points, qv, qg);
  /* sum_ij M_ij = int (sum_i phi_i)^2, row i of the stiffness = int grad phi_i . sum_j grad phi_j (summed
   * per point, so the test adds no nb^2 round-off of its own) */
  double mass = 0, row = 0;
  for (int k = 0; k < q->n; k++) {
    double vs = 0, gs[3] = {0, 0, 0};
    for (int j = 0; j < nb; j++) {
      vs += qv[k * nb + j];
      for (int d = 0; d < dim; d++) gs[d] += qg[(k * nb + j) * dim + d];
    }
    mass += q->weights[k] * vs * vs;
    for (int i = 0; i < nb; i++)
      for (int d = 0; d < dim; d++) rows[i] += q->weights[k] * qg[(k * nb + i) * dim + d] * gs[d];
  }
  for (int i = 0; i < nb; i++) row = fmax(row, fabs(rows[i]));
  CHECK_CLOSE(mass, feint_cell_reference_volume(el->cell), MASS_TOL);
  CHECK(row < ROWS_TOL, "%s P%d: stiffness row sum %.3g", name, p, row);
  printf("%-11s P%d: nb %3d  kronecker %.1e  reproduce %.1e  degree p+1 error %.1e  mass %.15f  rows %.1e\n", name,
         p, nb, kron, rep, control, mass, row);
  free(rows);
  free(qv);
  free(qg);
  feint_quadrature_destroy(q);
  free(v);
  free(g);
}

int main(void) {
  for (int p = 1; p <= 7; p++) {
    feint_element *seg, *tri, *tet, *prism;
    CHECK_OK(feint_element_create_family(FEINT_CELL_SEGMENT, p, FEINT_NODES_LOBATTO, &seg));
    CHECK_OK(feint_element_create_family(FEINT_CELL_TRIANGLE, p, FEINT_NODES_LOBATTO, &tri));
    CHECK_OK(feint_element_create_family(FEINT_CELL_TETRAHEDRON, p, FEINT_NODES_LOBATTO, &tet));
    CHECK_OK(feint_element_create_family(FEINT_CELL_PRISM, p, FEINT_NODES_LOBATTO, &prism));
    if (!seg || !tri || !tet || !prism) return check_report("t021-lobatto-nodes");
    CHECK(seg->family == FEINT_NODES_LOBATTO && tri->family == FEINT_NODES_LOBATTO &&
              tet->family == FEINT_NODES_LOBATTO && prism->family == FEINT_NODES_LOBATTO,
          "P%d: family recorded", p);
    check_simplex_layout(seg, tri);
    check_simplex_layout(tri, tri);
    check_simplex_layout(tet, tri);
    check_prism_layout(prism, tri, seg);
    check_basis(seg);
    check_basis(tri);
    check_basis(tet);
    check_basis(prism);
    feint_element_destroy(seg);
    feint_element_destroy(tri);
    feint_element_destroy(tet);
    feint_element_destroy(prism);
  }
  /* the default family: equispaced on simplices and prisms, Lobatto on the tensor cells */
  feint_element *el = NULL;
  CHECK_OK(feint_element_create(FEINT_CELL_TRIANGLE, 4, &el));
  CHECK(el && el->family == FEINT_NODES_EQUISPACED && el->nodes[2 * 3] == 0.25, "triangle P4 default equispaced");
  feint_element_destroy(el);
  CHECK_OK(feint_element_create(FEINT_CELL_PRISM, 3, &el));
  CHECK(el && el->family == FEINT_NODES_EQUISPACED, "prism default equispaced");
  feint_element_destroy(el);
  CHECK_OK(feint_element_create(FEINT_CELL_HEXAHEDRON, 3, &el));
  CHECK(el && el->family == FEINT_NODES_LOBATTO, "hexahedron Lobatto");
  feint_element_destroy(el);
  el = NULL;
  CHECK(feint_element_create_family(FEINT_CELL_QUADRILATERAL, 3, FEINT_NODES_EQUISPACED, &el) == FEINT_ERR_INPUT &&
            !el,
        "equispaced quadrilateral refused");
  CHECK(feint_element_create_family(FEINT_CELL_TRIANGLE, 8, FEINT_NODES_LOBATTO, &el) == FEINT_ERR_INPUT && !el,
        "Lobatto triangle P8 refused");
  feint_error_clear();
  return check_report("t021-lobatto-nodes");
}
