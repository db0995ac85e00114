/* The geometry of curved triangles and tetrahedra of order 2 and 3, and
 * of quadrilaterals, hexahedra and prisms of order 2, complete and
 * incomplete (feint_cell_curved_shape, fe.h), against Gmsh's own
 * reference elements: feint's reference coordinates of the nodes
 * (feint_cell_curved_node) are those libgmsh gives for the 6- and 10-node
 * triangles, the 10- and 20-node tetrahedra, the 9-, 8- and 16-node
 * quadrilaterals, the 27-, 20- and 64-node hexahedra and the 18- and
 * 15-node prisms (gmshModelMeshGetElementProperties; the prism's z mapped from
 * [-1, 1] to [0, 1]), and the shape functions there are the identity
 * (exactly, on the cells other than simplices), so feint's node order is
 * Gmsh's. At random points they sum to 1, their gradients sum to 0 and
 * agree with central differences, and they interpolate a polynomial of
 * their order exactly (one in the incomplete cells' spaces). A curved disc read by feint keeps
 * its boundary's edge nodes on the circle. */
#include <gmshc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "feint/fe.h"
#include "feint/mesh.h"

/* libgmsh 4.8 frees an operator new[] block with delete in its prism
 * closures (ClosureGen::getFaceClosurePrism, reached by the prisms'
 * gmshModelMeshGetElementProperties): not feint's memory, so this test
 * turns AddressSanitizer's mismatch check off (read only under ASan). */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "alloc_dealloc_mismatch=0"; }

static double rnd(void) { return rand() / (RAND_MAX + 1.0); }

static void against_gmsh(int gmsh_type, feint_cell_type cell, int n, int g) {
  char *name = NULL;
  int dim = 0, order = 0, nodes = 0, primary = 0, ierr = 0;
  double *ref = NULL;
  size_t n_ref = 0;
  gmshModelMeshGetElementProperties(gmsh_type, &name, &dim, &order, &nodes, &ref, &n_ref, &primary, &ierr);
  CHECK(ierr == 0 && nodes == n && order == g && dim == feint_cell_dim(cell) && feint_cell_curved_order(cell, n) == g,
        "Gmsh type %d: %d nodes, order %d", gmsh_type, nodes, order);
  if (ierr || nodes != n) return;
  double N[64 * 64];
  /* Gmsh's reference coordinates are 3 a node, feint's dim; Gmsh's prism
   * has z on [-1, 1], feint's on [0, 1] */
  double pts[64 * 3], node_err = 0;
  for (int j = 0; j < n; j++) {
    double xi[3];
    feint_cell_curved_node(cell, n, j, xi);
    for (int d = 0; d < dim; d++) {
      pts[j * dim + d] = ref[j * (n_ref / (size_t)n) + (size_t)d];
      if (cell == FEINT_CELL_PRISM && d == 2) pts[j * dim + d] = (pts[j * dim + d] + 1) / 2;
      node_err = fmax(node_err, fabs(xi[d] - pts[j * dim + d]));
    }
  }
  CHECK(node_err < 1e-14, "%s: feint's reference nodes differ from Gmsh's by %g", name, node_err);
  feint_cell_curved_shape(cell, n, n, pts, N, NULL);
  double worst = 0;
  for (int j = 0; j < n; j++)
    for (int k = 0; k < n; k++) worst = fmax(worst, fabs(N[j * n + k] - (j == k)));
  CHECK(worst < 1e-14 && (feint_cell_is_simplex(cell) || worst == 0),
        "%s: N_k(node j) differs from the identity by %g", name, worst);
  printf("ok %s (Gmsh type %d): the shape functions at libgmsh's reference nodes are the identity (%.1e)\n", name,
         gmsh_type, worst);
  /* random points: partition of unity, gradients by differences, a quadratic exact */
  double err_sum = 0, err_grad = 0, err_quad = 0;
  for (int t = 0; t < 50; t++) {
    double x[3] = {rnd(), rnd(), rnd()};
    double s = 0;
    for (int d = 0; d < (cell == FEINT_CELL_PRISM ? 2 : dim); d++) s += x[d];
    if (feint_cell_is_tensor(cell))
      for (int d = 0; d < dim; d++) x[d] = 2 * x[d] - 1;
    else if (s > 1)
      for (int d = 0; d < (cell == FEINT_CELL_PRISM ? 2 : dim); d++) x[d] /= 1.5 * s;
    double v[64], gr[192];
    feint_cell_curved_shape(cell, n, 1, x, v, gr);
    double sum = 0, gsum[3] = {0, 0, 0}, q = 0;
    for (int k = 0; k < n; k++) {
      sum += v[k];
      for (int d = 0; d < dim; d++) gsum[d] += gr[k * dim + d];
      const double *p = pts + k * dim; /* f = 1 + p0 + 2 p1 p0 - p1^2 (+ p2 p0) (+ p0^2 p1 - 3 p2^3) at the nodes */
      q += v[k] * (1 + p[0] + 2 * p[1] * p[0] - p[1] * p[1] + (dim == 3 ? p[2] * p[0] : 0) +
                   (g == 3 ? p[0] * p[0] * p[1] - (dim == 3 ? 3 * p[2] * p[2] * p[2] : 0) : 0));
    }
    err_sum = fmax(err_sum, fabs(sum - 1));
    for (int d = 0; d < dim; d++) err_sum = fmax(err_sum, fabs(gsum[d]));
    err_quad = fmax(err_quad, fabs(q - (1 + x[0] + 2 * x[1] * x[0] - x[1] * x[1] + (dim == 3 ? x[2] * x[0] : 0) +
                                       (g == 3 ? x[0] * x[0] * x[1] - (dim == 3 ? 3 * x[2] * x[2] * x[2] : 0) : 0))));
    for (int d = 0; d < dim; d++) {
      const double h = 1e-6;
      double xp[3] = {x[0], x[1], x[2]}, xm[3] = {x[0], x[1], x[2]}, vp[64], vm[64];
      xp[d] += h;
      xm[d] -= h;
      feint_cell_curved_shape(cell, n, 1, xp, vp, NULL);
      feint_cell_curved_shape(cell, n, 1, xm, vm, NULL);
      for (int k = 0; k < n; k++) err_grad = fmax(err_grad, fabs((vp[k] - vm[k]) / (2 * h) - gr[k * dim + d]));
    }
  }
  CHECK(err_sum < 1e-13 && err_grad < 1e-7 && err_quad < 1e-13, "%s: sum %g, gradients %g, polynomial %g", name,
        err_sum, err_grad, err_quad);
  /* and Gmsh's own Lagrange functions at random points (its coordinates) */
  double local[3 * 20], mine[20 * 64], err_gmsh = 0;
  for (int t = 0; t < 20; t++) {
    double x[3] = {rnd(), rnd(), rnd()}, s = x[0] + x[1] + (dim == 3 && feint_cell_is_simplex(cell) ? x[2] : 0);
    if (s > 1 && !feint_cell_is_tensor(cell)) x[0] /= 1.5 * s, x[1] /= 1.5 * s, x[2] /= cell == FEINT_CELL_PRISM ? 1 : 1.5 * s;
    for (int d = 0; d < 3; d++) {
      const int tensor_axis = feint_cell_is_tensor(cell) || (cell == FEINT_CELL_PRISM && d == 2);
      local[3 * t + d] = d < dim ? (tensor_axis ? 2 * x[d] - 1 : x[d]) : 0; /* Gmsh's */
      if (d < dim) x[d] = cell == FEINT_CELL_PRISM && d == 2 ? x[d] : local[3 * t + d];
    }
    feint_cell_curved_shape(cell, n, 1, x, mine + t * n, NULL);
  }
  int comps = 0, orients = 0;
  double *theirs = NULL;
  size_t n_theirs = 0;
  gmshModelMeshGetBasisFunctions(gmsh_type, local, 60, "Lagrange", &comps, &theirs, &n_theirs, &orients, NULL, 0, &ierr);
  CHECK(ierr == 0 && n_theirs == (size_t)(20 * n), "%s: Gmsh's basis functions (%zu values)", name, n_theirs);
  for (size_t k = 0; !ierr && k < n_theirs && k < (size_t)(20 * n); k++) err_gmsh = fmax(err_gmsh, fabs(theirs[k] - mine[k]));
  CHECK(err_gmsh < 1e-13, "%s: Gmsh's Lagrange functions differ from feint's by %g", name, err_gmsh);
  printf("ok %s: equal to Gmsh's Lagrange functions at 20 random points (%.1e)\n", name, err_gmsh);
  gmshFree(theirs);
  printf("ok %s: partition of unity (%.1e), gradients (%.1e against differences), degree %d exact (%.1e)\n",
         name, err_sum, err_grad, g, err_quad);
  gmshFree(name);
  gmshFree(ref);
}

int main(void) {
  int ierr = 0;
  gmshInitialize(0, NULL, 0, &ierr);
  CHECK(ierr == 0, "gmshInitialize: %d", ierr);
  static const struct {
    int gmsh_type;
    feint_cell_type cell;
    int nodes, order;
  } types[] = {{9, FEINT_CELL_TRIANGLE, 6, 2},        {11, FEINT_CELL_TETRAHEDRON, 10, 2},
               {21, FEINT_CELL_TRIANGLE, 10, 3},      {29, FEINT_CELL_TETRAHEDRON, 20, 3},
               {10, FEINT_CELL_QUADRILATERAL, 9, 2},  {16, FEINT_CELL_QUADRILATERAL, 8, 2},
               {12, FEINT_CELL_HEXAHEDRON, 27, 2},    {17, FEINT_CELL_HEXAHEDRON, 20, 2},
               {13, FEINT_CELL_PRISM, 18, 2},         {18, FEINT_CELL_PRISM, 15, 2},
               {36, FEINT_CELL_QUADRILATERAL, 16, 3}, {92, FEINT_CELL_HEXAHEDRON, 64, 3}};
  for (size_t k = 0; k < sizeof types / sizeof types[0]; k++)
    against_gmsh(types[k].gmsh_type, types[k].cell, types[k].nodes, types[k].order);
  /* the curved disc: every geometry node within the disc, the boundary's on the circle */
  feint_mesh *m = NULL;
  CHECK(feint_mesh_read("tests/data/disc2.geo", NULL, &m) == 0, "disc2.geo");
  if (m) {
    int64_t on = 0;
    double out = 0;
    for (int64_t k = 0; k < m->n_cells * m->n_geometry_nodes; k++) {
      const double *p = m->geometry_nodes + 3 * k, r = hypot(p[0], p[1]);
      out = fmax(out, r - 1);
      on += fabs(r - 1) < 1e-12;
    }
    CHECK(m->n_geometry_nodes == 6 && out < 1e-12 && on > 0, "disc2.geo: %d nodes a cell, %lld on the circle, %g out",
          m->n_geometry_nodes, (long long)on, out);
    printf("ok disc2.geo: %lld cells of 6 nodes, %lld node entries on the circle, none outside (%.1e)\n",
           (long long)m->n_cells, (long long)on, out);
    feint_mesh_destroy(m);
  }
  return check_report("t205-curved-geometry");
}
