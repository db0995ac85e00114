/* Lagrange basis: node layout, Kronecker property, partition of unity,
 * polynomial reproduction, gradients against finite differences, and
 * closed-form reference mass and stiffness matrices. */
#include <string.h>

#include "check.h"
#include "feint/error.h"
#include "feint/fe.h"

static uint64_t rng = 88172645463325252ULL;
static double urand(void) { return check_urand(&rng); }

/* A random point inside the reference cell. */
static void random_point(int dim, double *x) {
  for (;;) {
    double s = 0;
    for (int d = 0; d < dim; d++) s += (x[d] = urand());
    if (s < 1) return;
  }
}

/* A polynomial of total degree p for the reproduction check. */
static double poly(int p, const double *x, int dim) {
  double z = dim == 3 ? x[2] : 0.3;
  return pow(0.7 + x[0] - 2 * x[1] + 0.5 * z, p) + pow(x[1] - 0.2 * z, p - 1) * x[0] + 1;
}

/* Element mass and stiffness matrices on the reference cell (nb x nb). */
static void matrices(const feint_element *el, double *mass, double *stiff) {
  feint_quadrature *q;
  CHECK_OK(feint_quadrature_create(el->cell, 2 * el->order, &q));
  int nb = el->nb, dim = el->dim;
  double *v = malloc(sizeof(double) * q->n * nb), *g = malloc(sizeof(double) * q->n * nb * dim);
  if (!v || !g) exit(2);
  feint_element_tabulate(el, q->n, q->points, v, g);
  memset(mass, 0, sizeof(double) * nb * nb);
  memset(stiff, 0, sizeof(double) * nb * nb);
  for (int k = 0; k < q->n; k++)
    for (int i = 0; i < nb; i++)
      for (int j = 0; j < nb; j++) {
        mass[i * nb + j] += q->weights[k] * v[k * nb + i] * v[k * nb + j];
        double s = 0;
        for (int d = 0; d < dim; d++) s += g[(k * nb + i) * dim + d] * g[(k * nb + j) * dim + d];
        stiff[i * nb + j] += q->weights[k] * s;
      }
  free(v);
  free(g);
  feint_quadrature_destroy(q);
}

static void check_basis(feint_cell_type cell, int p) {
  feint_element *el;
  CHECK_OK(feint_element_create(cell, p, &el));
  const int dim = el->dim, nb = el->nb;
  const char *name = feint_cell_name(cell);
  int nv = feint_cell_num_vertices(cell), ne = feint_cell_num_edges(cell);
  int nf = feint_cell_num_faces(cell);
  int want_nb = dim == 2 ? (p + 1) * (p + 2) / 2 : (p + 1) * (p + 2) * (p + 3) / 6;
  CHECK(nb == want_nb, "%s P%d: nb = %d", name, p, nb);
  CHECK(el->entity_dofs[0] == 1 && el->entity_dofs[1] == p - 1 &&
            el->entity_dofs[2] == (p - 1) * (p - 2) / 2,
        "%s P%d: entity_dofs", name, p);
  CHECK(nv * el->entity_dofs[0] + ne * el->entity_dofs[1] + nf * el->entity_dofs[2] +
                el->entity_dofs[3] ==
            nb,
        "%s P%d: entity_dofs do not add up to nb", name, p);

  /* node layout: vertices, then edge nodes from a to b, all on the lattice */
  for (int v = 0; v < nv; v++)
    for (int d = 0; d < dim; d++)
      CHECK(el->nodes[v * dim + d] == (v == d + 1 ? 1.0 : 0.0), "%s P%d: vertex %d", name, p, v);
  for (int e = 0; e < ne; e++) {
    int ab[2];
    feint_cell_edge(cell, e, ab);
    for (int k = 1; k < p; k++) {
      const double *x = el->nodes + (nv + e * (p - 1) + k - 1) * dim;
      for (int d = 0; d < dim; d++) {
        double va = ab[0] == d + 1, vb = ab[1] == d + 1;
        CHECK_CLOSE(x[d], va + (double)k / p * (vb - va), 1e-15);
      }
    }
  }
  for (int i = 0; i < nb; i++) {
    double s = 0;
    for (int d = 0; d < dim; d++) {
      double l = el->nodes[i * dim + d] * p;
      CHECK(fabs(l - round(l)) < 1e-12 && l > -1e-12, "%s P%d: node %d off lattice", name, p, i);
      s += l;
    }
    CHECK(s < p + 1e-12, "%s P%d: node %d outside", name, p, i);
    /* interior nodes (after vertices and edges, faces) are strictly inside */
    if (i >= nb - el->entity_dofs[3])
      for (int d = 0; d < dim; d++)
        CHECK(el->nodes[i * dim + d] > 0 && s < p - 0.5, "%s P%d: interior node %d", name, p, i);
    for (int j = 0; j < i; j++) {
      double dist = 0;
      for (int d = 0; d < dim; d++) dist += fabs(el->nodes[i * dim + d] - el->nodes[j * dim + d]);
      CHECK(dist > 1e-12, "%s P%d: nodes %d and %d coincide", name, p, i, j);
    }
  }
  if (dim == 3 && p >= 3) {
    /* face interior nodes lie on their face: the sum of the coordinates of
     * the missing vertex (barycentric) is zero */
    int base = nv + ne * (p - 1);
    for (int f = 0; f < nf; f++) {
      int abc[3];
      feint_cell_face(cell, f, abc);
      int missing = 6 - abc[0] - abc[1] - abc[2];
      for (int k = 0; k < el->entity_dofs[2]; k++) {
        const double *x = el->nodes + (base + f * el->entity_dofs[2] + k) * dim;
        double lam = missing == 0 ? 1 - x[0] - x[1] - x[2] : x[missing - 1];
        CHECK(fabs(lam) < 1e-14, "%s P%d: face %d node %d not on its face", name, p, f, k);
      }
    }
  }

  /* Kronecker property at the nodes */
  double *v = malloc(sizeof(double) * nb * nb), *g = malloc(sizeof(double) * nb * dim);
  double *vp = malloc(sizeof(double) * nb), *vm = malloc(sizeof(double) * nb);
  double *fdiff = malloc(sizeof(double) * nb);
  if (!v || !g || !vp || !vm || !fdiff) exit(2);
  feint_element_tabulate(el, nb, el->nodes, v, NULL);
  double kron = 0;
  for (int i = 0; i < nb; i++)
    for (int j = 0; j < nb; j++) kron = fmax(kron, fabs(v[i * nb + j] - (i == j)));
  CHECK(kron < 1e-10, "%s P%d: Kronecker error %.3g", name, p, kron);

  /* random points: partition of unity, zero gradient sum, reproduction of
   * degree-p polynomials, gradients against central differences */
  double pu = 0, gs = 0, rep = 0, fd = 0;
  for (int t = 0; t < 20; t++) {
    double x[3], xp[3], xm[3];
    random_point(dim, x);
    feint_element_tabulate(el, 1, x, v, g);
    double s = 0, gsum[3] = {0, 0, 0}, f = 0;
    for (int i = 0; i < nb; i++) {
      s += v[i];
      for (int d = 0; d < dim; d++) gsum[d] += g[i * dim + d];
      f += poly(p, el->nodes + i * dim, dim) * v[i];
    }
    pu = fmax(pu, fabs(s - 1));
    for (int d = 0; d < dim; d++) gs = fmax(gs, fabs(gsum[d]));
    rep = fmax(rep, fabs(f - poly(p, x, dim)));
    /* fourth-order central differences (the basis is a polynomial, so
     * points slightly outside the cell are fine) */
    const double h = 1e-4;
    for (int d = 0; d < dim; d++) {
      memcpy(xp, x, sizeof x);
      memcpy(xm, x, sizeof x);
      xp[d] += h;
      xm[d] -= h;
      feint_element_tabulate(el, 1, xp, vp, NULL);
      feint_element_tabulate(el, 1, xm, vm, NULL);
      for (int i = 0; i < nb; i++) fdiff[i] = 8 * (vp[i] - vm[i]);
      xp[d] += h;
      xm[d] -= h;
      feint_element_tabulate(el, 1, xp, vp, NULL);
      feint_element_tabulate(el, 1, xm, vm, NULL);
      for (int i = 0; i < nb; i++) {
        double want = (fdiff[i] - (vp[i] - vm[i])) / (12 * h), got = g[i * dim + d];
        fd = fmax(fd, fabs(got - want) / fmax(1, fabs(want)));
      }
    }
  }
  CHECK(pu < 1e-11, "%s P%d: partition of unity error %.3g", name, p, pu);
  CHECK(gs < 1e-9, "%s P%d: gradient sum %.3g", name, p, gs);
  CHECK(rep < 1e-10, "%s P%d: polynomial reproduction error %.3g", name, p, rep);
  CHECK(fd < 1e-6, "%s P%d: finite-difference gradient error %.3g", name, p, fd);
  printf("%-11s P%d: nb %3d  kronecker %.1e  unity %.1e  grad-sum %.1e  reproduce %.1e  fd %.1e\n",
         name, p, nb, kron, pu, gs, rep, fd);

  /* mass matrix sums to the volume; stiffness rows sum to zero */
  double *mass = malloc(sizeof(double) * nb * nb), *stiff = malloc(sizeof(double) * nb * nb);
  if (!mass || !stiff) exit(2);
  matrices(el, mass, stiff);
  double total = 0, rows = 0;
  for (int i = 0; i < nb; i++) {
    double r = 0;
    for (int j = 0; j < nb; j++) {
      total += mass[i * nb + j];
      r += stiff[i * nb + j];
      CHECK(fabs(mass[i * nb + j] - mass[j * nb + i]) < 1e-14, "mass symmetric");
    }
    rows = fmax(rows, fabs(r));
  }
  CHECK_CLOSE(total, feint_cell_reference_volume(cell), 1e-12);
  CHECK(rows < 1e-9, "%s P%d: stiffness row sum %.3g", name, p, rows);
  free(mass);
  free(stiff);
  free(v);
  free(g);
  free(vp);
  free(vm);
  free(fdiff);
  feint_element_destroy(el);
}

static void check_matrix(const char *what, int nb, const double *got, const double *want,
                         double scale) {
  double err = 0;
  for (int i = 0; i < nb * nb; i++) err = fmax(err, fabs(got[i] - scale * want[i]));
  CHECK(err < 1e-14, "%s: max error %.3g", what, err);
  printf("%s: max error %.1e\n", what, err);
}

/* The segment element: nodes 0, 1, then (k / p) k = 1..p-1; Kronecker
 * property, partition of unity, reproduction of x^p, gradients against
 * finite differences. */
static void check_segment(int p) {
  feint_element *el;
  CHECK_OK(feint_element_create(FEINT_CELL_SEGMENT, p, &el));
  CHECK(el->nb == p + 1 && el->dim == 1 && el->entity_dofs[0] == 1 && el->entity_dofs[1] == p - 1 &&
            el->entity_dofs[2] == 0 && el->entity_dofs[3] == 0,
        "segment P%d layout", p);
  const int nb = el->nb;
  for (int i = 0; i < nb; i++) {
    double want = i == 0 ? 0.0 : i == 1 ? 1.0 : (double)(i - 1) / p;
    CHECK_CLOSE(el->nodes[i], want, 1e-15);
  }
  double v[64], g[64], vp[8], vm[8];
  feint_element_tabulate(el, nb, el->nodes, v, NULL);
  double kron = 0;
  for (int i = 0; i < nb; i++)
    for (int j = 0; j < nb; j++) kron = fmax(kron, fabs(v[i * nb + j] - (i == j)));
  CHECK(kron < 1e-11, "segment P%d: Kronecker error %.3g", p, kron);
  for (int t = 0; t < 5; t++) {
    double x = urand(), h = 1e-6, xp = x + h, xm = x - h;
    feint_element_tabulate(el, 1, &x, v, g);
    feint_element_tabulate(el, 1, &xp, vp, NULL);
    feint_element_tabulate(el, 1, &xm, vm, NULL);
    double unity = 0, interp = 0, dsum = 0;
    for (int i = 0; i < nb; i++) {
      unity += v[i];
      dsum += g[i];
      interp += v[i] * pow(0.3 + el->nodes[i], p);
      CHECK(fabs(g[i] - (vp[i] - vm[i]) / (2 * h)) < 1e-6 * (1 + fabs(g[i])), "segment P%d: gradient %d", p, i);
    }
    CHECK_CLOSE(unity, 1.0, 1e-11);
    CHECK_CLOSE(dsum, 0.0, 1e-9);
    CHECK_CLOSE(interp, pow(0.3 + x, p), 1e-11);
  }
  feint_element_destroy(el);
}

int main(void) {
  for (int p = 1; p <= 7; p++) check_segment(p);
  for (int p = 1; p <= 7; p++) check_basis(FEINT_CELL_TRIANGLE, p);
  for (int p = 1; p <= 7; p++) check_basis(FEINT_CELL_TETRAHEDRON, p);

  feint_element *el;
  double mass[100], stiff[100];
  /* P1 triangle */
  CHECK_OK(feint_element_create(FEINT_CELL_TRIANGLE, 1, &el));
  matrices(el, mass, stiff);
  const double m1[9] = {2, 1, 1, 1, 2, 1, 1, 1, 2};
  const double k1[9] = {2, -1, -1, -1, 1, 0, -1, 0, 1};
  check_matrix("P1 triangle mass", 3, mass, m1, 1.0 / 24);
  check_matrix("P1 triangle stiffness", 3, stiff, k1, 0.5);
  feint_element_destroy(el);

  /* P1 tetrahedron: mass (1/120)(I + ones); stiffness from the gradients
   * (-1,-1,-1), e1, e2, e3 times the volume 1/6 */
  CHECK_OK(feint_element_create(FEINT_CELL_TETRAHEDRON, 1, &el));
  matrices(el, mass, stiff);
  double mt[16], kt[16];
  const double gr[4][3] = {{-1, -1, -1}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++) {
      mt[i * 4 + j] = 1.0 + (i == j);
      kt[i * 4 + j] = gr[i][0] * gr[j][0] + gr[i][1] * gr[j][1] + gr[i][2] * gr[j][2];
    }
  check_matrix("P1 tetrahedron mass", 4, mass, mt, 1.0 / 120);
  check_matrix("P1 tetrahedron stiffness", 4, stiff, kt, 1.0 / 6);
  feint_element_destroy(el);

  /* P2 triangle mass = area / 180 * M with nodes v0 v1 v2 m01 m02 m12:
   * vertex-vertex 6 / -1, vertex-edge 0 on an incident edge and -4 on the
   * opposite edge, edge-edge 32 / 16 */
  CHECK_OK(feint_element_create(FEINT_CELL_TRIANGLE, 2, &el));
  matrices(el, mass, stiff);
  const double m2[36] = {6,  -1, -1, 0,  0,  -4, /* v0: opposite edge {1,2} = node 5 */
                         -1, 6,  -1, 0,  -4, 0,  /* v1: opposite edge {0,2} = node 4 */
                         -1, -1, 6,  -4, 0,  0,  /* v2: opposite edge {0,1} = node 3 */
                         0,  0,  -4, 32, 16, 16, /* */
                         0,  -4, 0,  16, 32, 16, /* */
                         -4, 0,  0,  16, 16, 32};
  check_matrix("P2 triangle mass", 6, mass, m2, 0.5 / 180);
  /* P2 triangle stiffness on the reference (right) triangle, known closed
   * form: (1/6) * [[6,1,1,-4,-4,0],[1,3,0,-4,0,0],[1,0,3,0,-4,0],
   * [-4,-4,0,16,0,-8],[-4,0,-4,0,16,-8],[0,0,0,-8,-8,16]] with nodes
   * v0 v1 v2 m01 m02 m12 */
  const double k2[36] = {6,  1,  1, -4, -4, 0,  1,  3, 0,  -4, 0,  0,
                         1,  0,  3, 0,  -4, 0,  -4, -4, 0, 16, 0,  -8,
                         -4, 0,  -4, 0, 16, -8, 0,  0, 0,  -8, -8, 16};
  check_matrix("P2 triangle stiffness", 6, stiff, k2, 1.0 / 6);
  feint_element_destroy(el);

  /* P1 and P2 segment mass and stiffness (nodes v0 v1 m) */
  CHECK_OK(feint_element_create(FEINT_CELL_SEGMENT, 1, &el));
  matrices(el, mass, stiff);
  const double ms1[4] = {2, 1, 1, 2}, ks1[4] = {1, -1, -1, 1};
  check_matrix("P1 segment mass", 2, mass, ms1, 1.0 / 6);
  check_matrix("P1 segment stiffness", 2, stiff, ks1, 1.0);
  feint_element_destroy(el);
  CHECK_OK(feint_element_create(FEINT_CELL_SEGMENT, 2, &el));
  matrices(el, mass, stiff);
  const double ms2[9] = {4, -1, 2, -1, 4, 2, 2, 2, 16}, ks2[9] = {7, 1, -8, 1, 7, -8, -8, -8, 16};
  check_matrix("P2 segment mass", 3, mass, ms2, 1.0 / 30);
  check_matrix("P2 segment stiffness", 3, stiff, ks2, 1.0 / 3);
  feint_element_destroy(el);

  /* bad input */
  CHECK(feint_element_create(FEINT_CELL_TRIANGLE, 0, &el) == FEINT_ERR_INPUT, "order 0");
  CHECK(feint_element_create(FEINT_CELL_TETRAHEDRON, 8, &el) == FEINT_ERR_INPUT, "order 8");
  return check_report("t020-basis");
}
