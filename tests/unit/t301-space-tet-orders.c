/* Tetrahedral dof maps of orders 1..7 with face orientation. The mesh is
 * the jiggled Kuhn cube with every cell's vertex order randomly permuted,
 * so that the cells sharing a face see it in every one of the 6 relative
 * orientations (asserted). For each order:
 *   - every (cell, local node): the affine image of the reference node is
 *     at coordinates[dof], and distinct dofs sit at distinct points (so
 *     neighbours agree on every shared point);
 *   - dof count V + E(p-1) + F(p-1)(p-2)/2 + C(p-1)(p-2)(p-3)/6 with E and
 *     F counted by brute force;
 *   - a random global polynomial of degree p interpolated at the dofs is
 *     reproduced exactly inside every cell through the cell's basis;
 *   - feint_space_facet_dofs of every cell face, its vertices given in a
 *     random order, returns the dofs at the triangle element's nodes;
 *   - a map with one face's interior dofs rotated is caught by the checks. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "feint/error.h"
#include "feint/fe.h"
#include "feint/mesh.h"
#include "feint/space.h"
#include "testmesh.h"

static void shuffle(int *a, int n) {
  for (int i = n - 1; i > 0; i--) {
    int j = (int)(urand() * (i + 1)), t = a[i];
    a[i] = a[j];
    a[j] = t;
  }
}

/* The mesh cube with each cell's vertices in a random order. */
static feint_mesh *twisted_cube(int n) {
  feint_mesh *m = mesh_cube(n, 0.3);
  for (int64_t c = 0; c < m->n_cells; c++) {
    int perm[4] = {0, 1, 2, 3};
    shuffle(perm, 4);
    int64_t v[4];
    for (int i = 0; i < 4; i++) v[i] = m->cells[c * 4 + perm[i]];
    memcpy(m->cells + c * 4, v, sizeof v);
  }
  return m;
}

/* One (sorted node triple, cell, local face) entry of the brute-force face list. */
typedef struct {
  int64_t v[3], cell;
  int f;
} face_entry;

static int compare_face(const void *a, const void *b) {
  const face_entry *x = a, *y = b;
  for (int i = 0; i < 3; i++)
    if (x->v[i] != y->v[i]) return (x->v[i] > y->v[i]) - (x->v[i] < y->v[i]);
  return (x->cell > y->cell) - (x->cell < y->cell);
}

static int compare_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

static void sort3(int64_t *v) { qsort(v, 3, sizeof *v, compare_i64); }

/* Lexicographic order of three int64_t: the keys are 24 bytes, so not
 * compare_face (a face_entry is 40; it read past them: ASan) */
static int compare_triple(const void *a, const void *b) {
  const int64_t *x = a, *y = b;
  for (int i = 0; i < 3; i++)
    if (x[i] != y[i]) return (x[i] > y[i]) - (x[i] < y[i]);
  return 0;
}

/* Number of distinct k-vertex entities (k = 2 edges, 3 faces), by sorting. */
static int64_t count_entities(const feint_mesh *m, int k) {
  const int ne = k == 2 ? 6 : 4;
  int64_t *keys = malloc(sizeof(int64_t) * (size_t)(m->n_cells * ne * 3));
  for (int64_t c = 0; c < m->n_cells; c++)
    for (int e = 0; e < ne; e++) {
      int loc[3] = {0, 0, 0};
      if (k == 2) feint_cell_edge(m->cell_type, e, loc);
      else feint_cell_face(m->cell_type, e, loc);
      int64_t *v = keys + (c * ne + e) * 3;
      for (int i = 0; i < 3; i++) v[i] = i < k ? m->cells[c * 4 + loc[i]] : -1;
      sort3(v);
    }
  qsort(keys, (size_t)(m->n_cells * ne), 3 * sizeof(int64_t), compare_triple);
  int64_t n = 0;
  for (int64_t i = 0; i < m->n_cells * ne; i++) n += i == 0 || memcmp(keys + 3 * i, keys + 3 * (i - 1), 24) != 0;
  free(keys);
  return n;
}

/* Assert that interior faces occur in all 6 relative orientations: the
 * permutation taking one cell's local face vertex order (a, b, c) to the
 * other's. */
static void check_orientations(const feint_mesh *m) {
  const int64_t n = m->n_cells * 4;
  face_entry *list = malloc(sizeof *list * (size_t)n);
  for (int64_t c = 0; c < m->n_cells; c++)
    for (int f = 0; f < 4; f++) {
      int abc[3];
      feint_cell_face(m->cell_type, f, abc);
      face_entry *e = &list[c * 4 + f];
      for (int i = 0; i < 3; i++) e->v[i] = m->cells[c * 4 + abc[i]];
      sort3(e->v);
      e->cell = c;
      e->f = f;
    }
  qsort(list, (size_t)n, sizeof *list, compare_face);
  int seen[27] = {0}, shared = 0;
  for (int64_t i = 0; i + 1 < n; i++) {
    if (memcmp(list[i].v, list[i + 1].v, sizeof list[i].v) != 0) continue;
    int abc[3], def[3], code = 0;
    feint_cell_face(m->cell_type, list[i].f, abc);
    feint_cell_face(m->cell_type, list[i + 1].f, def);
    for (int t = 0; t < 3; t++) { /* where vertex t of the first sits in the second */
      int64_t v = m->cells[list[i].cell * 4 + abc[t]];
      int s = 0;
      while (m->cells[list[i + 1].cell * 4 + def[s]] != v) s++;
      code = code * 3 + s;
    }
    seen[code] = 1;
    shared++;
  }
  int distinct = 0;
  for (int k = 0; k < 27; k++) distinct += seen[k];
  CHECK(distinct == 6, "%d of 6 relative face orientations occur among %d shared faces", distinct, shared);
  printf("  %lld cells, %d shared faces, %d of 6 relative orientations\n", (long long)m->n_cells, shared,
         distinct);
  free(list);
}

/* Affine image of the reference point xi of cell c. */
static void cell_point(const feint_mesh *m, int64_t c, const double *xi, double *x) {
  const double *X[3] = {m->x, m->y, m->z};
  const int64_t *cv = m->cells + c * 4;
  for (int a = 0; a < 3; a++) {
    x[a] = X[a][cv[0]];
    for (int d = 0; d < 3; d++) x[a] += (X[a][cv[d + 1]] - X[a][cv[0]]) * xi[d];
  }
}

/* Local nodes not at their dof's coordinates (to 1e-12). */
static int64_t conformity_mismatches(const feint_space *s, const int64_t *map) {
  const feint_mesh *m = s->mesh;
  int64_t bad = 0;
  for (int64_t c = 0; c < m->n_cells; c++)
    for (int i = 0; i < s->nb; i++) {
      double x[3];
      cell_point(m, c, s->element->nodes + i * 3, x);
      const double *want = s->coordinates + 3 * map[c * s->nb + i];
      bad += fabs(x[0] - want[0]) > 1e-12 || fabs(x[1] - want[1]) > 1e-12 || fabs(x[2] - want[2]) > 1e-12;
    }
  return bad;
}

static int compare_point(const void *a, const void *b) {
  const double *x = a, *y = b;
  for (int i = 0; i < 3; i++)
    if (x[i] != y[i]) return (x[i] > y[i]) - (x[i] < y[i]);
  return 0;
}

/* Pairs of dofs at the same point (to 1e-12, after a lexicographic sort). */
static int64_t coincident_dofs(const feint_space *s) {
  double *pts = malloc(sizeof(double) * 3 * (size_t)s->n_scalar_dofs);
  for (int64_t i = 0; i < 3 * s->n_scalar_dofs; i++) pts[i] = round(s->coordinates[i] * 1e9) / 1e9;
  qsort(pts, (size_t)s->n_scalar_dofs, 3 * sizeof(double), compare_point);
  int64_t same = 0;
  for (int64_t i = 1; i < s->n_scalar_dofs; i++) same += compare_point(pts + 3 * i, pts + 3 * (i - 1)) == 0;
  free(pts);
  return same;
}

/* A random polynomial of total degree p in x, y, z: coefficients of x^a y^b z^c. */
typedef struct {
  int p;
  double coef[8][8][8];
} poly;

static double poly_eval(const poly *P, const double *x) {
  double v = 0;
  for (int a = 0; a <= P->p; a++)
    for (int b = 0; a + b <= P->p; b++)
      for (int c = 0; a + b + c <= P->p; c++) v += P->coef[a][b][c] * pow(x[0], a) * pow(x[1], b) * pow(x[2], c);
  return v;
}

/* Largest error of the interpolant of P through each cell's basis at random points. */
static double reproduction_error(const feint_space *s, const int64_t *map, const poly *P) {
  const feint_mesh *m = s->mesh;
  double *U = malloc(sizeof(double) * (size_t)s->n_scalar_dofs);
  for (int64_t d = 0; d < s->n_scalar_dofs; d++) U[d] = poly_eval(P, s->coordinates + 3 * d);
  enum { NP = 4 };
  double *phi = malloc(sizeof(double) * NP * (size_t)s->nb), worst = 0;
  for (int64_t c = 0; c < m->n_cells; c++) {
    double xi[NP * 3];
    for (int q = 0; q < NP; q++) { /* uniform in the reference tetrahedron */
      double r[3] = {urand(), urand(), urand()};
      while (r[0] + r[1] + r[2] > 1) r[0] = urand(), r[1] = urand(), r[2] = urand();
      memcpy(xi + 3 * q, r, sizeof r);
    }
    feint_element_tabulate(s->element, NP, xi, phi, NULL);
    for (int q = 0; q < NP; q++) {
      double x[3], uh = 0;
      cell_point(m, c, xi + 3 * q, x);
      for (int i = 0; i < s->nb; i++) uh += phi[q * s->nb + i] * U[map[c * s->nb + i]];
      worst = fmax(worst, fabs(uh - poly_eval(P, x)));
    }
  }
  free(phi);
  free(U);
  return worst;
}

/* facet dofs of every cell face with its vertices in a random order: the
 * largest distance between a returned dof's point and the triangle node. */
static double facet_dof_error(const feint_space *s, const feint_element *tri, int64_t *refused) {
  const feint_mesh *m = s->mesh;
  const double *X[3] = {m->x, m->y, m->z};
  double worst = 0;
  *refused = 0;
  for (int64_t c = 0; c < m->n_cells; c++)
    for (int f = 0; f < 4; f++) {
      int abc[3];
      feint_cell_face(m->cell_type, f, abc);
      shuffle(abc, 3);
      int64_t nodes[3], dofs[FEINT_SPACE_MAX_FACET_DOFS];
      for (int i = 0; i < 3; i++) nodes[i] = m->cells[c * 4 + abc[i]];
      if (feint_space_facet_dofs(s, nodes, dofs) != FEINT_OK) {
        (*refused)++;
        continue;
      }
      for (int i = 0; i < tri->nb; i++) {
        const double *xi = tri->nodes + 2 * i;
        for (int a = 0; a < 3; a++) {
          double want = X[a][nodes[0]] + (X[a][nodes[1]] - X[a][nodes[0]]) * xi[0] +
                        (X[a][nodes[2]] - X[a][nodes[0]]) * xi[1];
          worst = fmax(worst, fabs(s->coordinates[3 * dofs[i] + a] - want));
        }
      }
    }
  return worst;
}

static void check_order(const feint_mesh *m, int p, int64_t V, int64_t E, int64_t F) {
  feint_space *s = NULL;
  feint_element *tri = NULL;
  CHECK_OK(feint_space_create(m, p, 1, &s));
  CHECK_OK(feint_element_create(FEINT_CELL_TRIANGLE, p, &tri));
  const int64_t want = V + E * (p - 1) + F * (p - 1) * (p - 2) / 2 + m->n_cells * (p - 1) * (p - 2) * (p - 3) / 6;
  CHECK(s->n_scalar_dofs == want, "P%d: %lld dofs, want %lld", p, (long long)s->n_scalar_dofs, (long long)want);
  int64_t range = 0;
  for (int64_t k = 0; k < m->n_cells * s->nb; k++)
    range += s->scalar_cell_dofs[k] < 0 || s->scalar_cell_dofs[k] >= s->n_scalar_dofs;
  CHECK(range == 0, "P%d: %lld dofs out of range", p, (long long)range);
  if (range) exit(1);
  int64_t bad = conformity_mismatches(s, s->scalar_cell_dofs), same = coincident_dofs(s);
  CHECK(bad == 0, "P%d: %lld local nodes not at their dof's point", p, (long long)bad);
  CHECK(same == 0, "P%d: %lld dofs share a point with another", p, (long long)same);
  poly P = {.p = p};
  for (int a = 0; a <= p; a++)
    for (int b = 0; a + b <= p; b++)
      for (int c = 0; a + b + c <= p; c++) P.coef[a][b][c] = 2 * urand() - 1;
  double err = reproduction_error(s, s->scalar_cell_dofs, &P);
  CHECK(err < 1e-9, "P%d: degree-%d polynomial reproduced to %.3g", p, p, err);
  int64_t refused = 0;
  double ferr = facet_dof_error(s, tri, &refused);
  CHECK(refused == 0, "P%d: %lld cell faces refused by feint_space_facet_dofs", p, (long long)refused);
  CHECK(ferr < 1e-12, "P%d: facet dofs off their nodes by %.3g", p, ferr);

  /* the checks can fail: rotate the interior dofs of face 0 of cell 0 */
  const int per_face = (p - 1) * (p - 2) / 2;
  if (per_face >= 3) {
    int64_t *copy = malloc(sizeof(int64_t) * (size_t)(m->n_cells * s->nb));
    memcpy(copy, s->scalar_cell_dofs, sizeof(int64_t) * (size_t)(m->n_cells * s->nb));
    int64_t *fd = copy + 4 + 6 * (p - 1), t = fd[0];
    memmove(fd, fd + 1, sizeof(int64_t) * (size_t)(per_face - 1));
    fd[per_face - 1] = t;
    CHECK(conformity_mismatches(s, copy) > 0, "P%d: rotated face dofs pass the conformity check", p);
    CHECK(reproduction_error(s, copy, &P) > 1e-6, "P%d: rotated face dofs reproduce the polynomial", p);
    free(copy);
  }
  printf("  tetrahedron P%d: %lld dofs, polynomial error %.1e, facet dof error %.1e\n", p,
         (long long)s->n_scalar_dofs, err, ferr);
  feint_element_destroy(tri);
  feint_space_destroy(s);
}

int main(void) {
  feint_mesh *m = twisted_cube(3);
  check_orientations(m);
  const int64_t V = m->n_nodes, E = count_entities(m, 2), F = count_entities(m, 3);
  CHECK(V - E + F - m->n_cells == 1, "Euler characteristic of the cube: V %lld E %lld F %lld C %lld",
        (long long)V, (long long)E, (long long)F, (long long)m->n_cells);
  for (int p = 1; p <= 7; p++) check_order(m, p, V, E, F);
  mesh_free(m);
  return check_report("t301-space-tet-orders");
}
