/* The second-order geometry of curved triangles and tetrahedra
 * (feint_cell_p2_geometry_shape, fe.h) against Gmsh's own reference
 * elements: at the reference coordinates libgmsh gives for the nodes of a
 * 6-node triangle and a 10-node tetrahedron
 * (gmshModelMeshGetElementProperties), the shape functions are the
 * identity, so feint's node order is Gmsh's. At random points they sum to
 * 1, their gradients sum to 0 and agree with central differences, and
 * they interpolate a quadratic exactly. A curved disc read by feint keeps
 * its boundary's edge nodes on the circle. */
#include <gmshc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "feint/fe.h"
#include "feint/mesh.h"

static double rnd(void) { return rand() / (RAND_MAX + 1.0); }

static void against_gmsh(int gmsh_type, feint_cell_type cell, int n) {
  char *name = NULL;
  int dim = 0, order = 0, nodes = 0, primary = 0, ierr = 0;
  double *ref = NULL;
  size_t n_ref = 0;
  gmshModelMeshGetElementProperties(gmsh_type, &name, &dim, &order, &nodes, &ref, &n_ref, &primary, &ierr);
  CHECK(ierr == 0 && nodes == n && order == 2 && dim == feint_cell_dim(cell), "Gmsh type %d: %d nodes, order %d",
        gmsh_type, nodes, order);
  if (ierr || nodes != n) return;
  double N[10 * 10];
  /* Gmsh's reference coordinates are 3 a node; feint's dim */
  double pts[10 * 3];
  for (int j = 0; j < n; j++)
    for (int d = 0; d < dim; d++) pts[j * dim + d] = ref[j * (n_ref / (size_t)n) + (size_t)d];
  feint_cell_p2_geometry_shape(cell, n, pts, N, NULL);
  double worst = 0;
  for (int j = 0; j < n; j++)
    for (int k = 0; k < n; k++) worst = fmax(worst, fabs(N[j * n + k] - (j == k)));
  CHECK(worst < 1e-14, "%s: N_k(node j) differs from the identity by %g", name, worst);
  printf("ok %s (Gmsh type %d): the shape functions at libgmsh's reference nodes are the identity (%.1e)\n", name,
         gmsh_type, worst);
  /* random points: partition of unity, gradients by differences, a quadratic exact */
  double err_sum = 0, err_grad = 0, err_quad = 0;
  for (int t = 0; t < 50; t++) {
    double x[3] = {rnd(), rnd(), rnd()};
    double s = 0;
    for (int d = 0; d < dim; d++) s += x[d];
    if (s > 1)
      for (int d = 0; d < dim; d++) x[d] /= 1.5 * s;
    double v[10], g[30];
    feint_cell_p2_geometry_shape(cell, 1, x, v, g);
    double sum = 0, gsum[3] = {0, 0, 0}, q = 0;
    for (int k = 0; k < n; k++) {
      sum += v[k];
      for (int d = 0; d < dim; d++) gsum[d] += g[k * dim + d];
      const double *p = pts + k * dim; /* f = 1 + p0 + 2 p1 p0 - p1^2 (+ p2 p0) at the nodes */
      q += v[k] * (1 + p[0] + 2 * p[1] * p[0] - p[1] * p[1] + (dim == 3 ? p[2] * p[0] : 0));
    }
    err_sum = fmax(err_sum, fabs(sum - 1));
    for (int d = 0; d < dim; d++) err_sum = fmax(err_sum, fabs(gsum[d]));
    err_quad = fmax(err_quad, fabs(q - (1 + x[0] + 2 * x[1] * x[0] - x[1] * x[1] + (dim == 3 ? x[2] * x[0] : 0))));
    for (int d = 0; d < dim; d++) {
      const double h = 1e-6;
      double xp[3] = {x[0], x[1], x[2]}, xm[3] = {x[0], x[1], x[2]}, vp[10], vm[10];
      xp[d] += h;
      xm[d] -= h;
      feint_cell_p2_geometry_shape(cell, 1, xp, vp, NULL);
      feint_cell_p2_geometry_shape(cell, 1, xm, vm, NULL);
      for (int k = 0; k < n; k++) err_grad = fmax(err_grad, fabs((vp[k] - vm[k]) / (2 * h) - g[k * dim + d]));
    }
  }
  CHECK(err_sum < 1e-14 && err_grad < 1e-8 && err_quad < 1e-14, "%s: sum %g, gradients %g, quadratic %g", name,
        err_sum, err_grad, err_quad);
  printf("ok %s: partition of unity (%.1e), gradients (%.1e against differences), quadratics exact (%.1e)\n",
         name, err_sum, err_grad, err_quad);
  gmshFree(name);
  gmshFree(ref);
}

int main(void) {
  int ierr = 0;
  gmshInitialize(0, NULL, 0, &ierr);
  CHECK(ierr == 0, "gmshInitialize: %d", ierr);
  against_gmsh(9, FEINT_CELL_TRIANGLE, 6);
  against_gmsh(11, FEINT_CELL_TETRAHEDRON, 10);
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
