/* Geometry summaries of a feint mesh (for `feint info`). */
#include <math.h>
#include <string.h>

#include "feint/mesh.h"

static double norm3(const double a[3]) { return sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]); }

static void cross3(const double a[3], const double b[3], double c[3]) {
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

static double dist3(const double a[3], const double b[3]) {
  double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
  return norm3(d);
}

/* Signed area and quality 2 r_in / r_circ of a triangle in the x-y plane. */
static double triangle(const double p[3][3], double *quality) {
  double det = (p[1][0] - p[0][0]) * (p[2][1] - p[0][1]) - (p[2][0] - p[0][0]) * (p[1][1] - p[0][1]);
  double area = 0.5 * fabs(det);
  double a = dist3(p[1], p[2]), b = dist3(p[0], p[2]), c = dist3(p[0], p[1]);
  /* r_in = 2A / (a+b+c), r_circ = abc / (4A): 2 r_in / r_circ = 16 A^2 / ((a+b+c) abc) */
  double den = (a + b + c) * a * b * c;
  *quality = den > 0 ? 16.0 * area * area / den : 0.0;
  return 0.5 * det;
}

/* Signed volume and quality 3 r_in / r_circ of a tetrahedron. */
static double tetrahedron(const double p[4][3], double *quality) {
  double e1[3], e2[3], e3[3], c[3];
  for (int k = 0; k < 3; k++) {
    e1[k] = p[1][k] - p[0][k];
    e2[k] = p[2][k] - p[0][k];
    e3[k] = p[3][k] - p[0][k];
  }
  cross3(e1, e2, c);
  double det = c[0] * e3[0] + c[1] * e3[1] + c[2] * e3[2];
  double vol = fabs(det) / 6.0;
  /* face areas */
  static const int faces[4][3] = {{0, 1, 2}, {0, 1, 3}, {0, 2, 3}, {1, 2, 3}};
  double sa = 0;
  for (int f = 0; f < 4; f++) {
    double u[3], v[3], w[3];
    for (int k = 0; k < 3; k++) {
      u[k] = p[faces[f][1]][k] - p[faces[f][0]][k];
      v[k] = p[faces[f][2]][k] - p[faces[f][0]][k];
    }
    cross3(u, v, w);
    sa += 0.5 * norm3(w);
  }
  /* circumradius: 24 V R = sqrt((aA+bB+cC)(aA+bB-cC)(aA-bB+cC)(-aA+bB+cC)) with
   * a, A (b, B; c, C) the lengths of opposite edges */
  double aA = dist3(p[0], p[1]) * dist3(p[2], p[3]);
  double bB = dist3(p[0], p[2]) * dist3(p[1], p[3]);
  double cC = dist3(p[0], p[3]) * dist3(p[1], p[2]);
  double q = (aA + bB + cC) * (aA + bB - cC) * (aA - bB + cC) * (-aA + bB + cC);
  double s = q > 0 ? sqrt(q) : 0;
  /* r_in = 3V / sa, R = s / (24 V): 3 r_in / R = 216 V^2 / (sa s) */
  *quality = (sa > 0 && s > 0) ? 216.0 * vol * vol / (sa * s) : 0.0;
  if (*quality > 1) *quality = 1; /* rounding */
  return det / 6.0;
}

/* Quality from the smallest and largest corner Jacobian determinants; an
 * inverted (mirrored) cell (vol < 0) is measured on its mirror. */
static double corner_quality(double vol, double jmin, double jmax) {
  if (vol < 0) {
    double t = jmin;
    jmin = -jmax;
    jmax = -t;
  }
  return jmax > 0 ? jmin / jmax : 0;
}

/* Signed volume of a trilinear hexahedron (Gmsh vertex order): the 2x2x2
 * Gauss rule integrates det J exactly. Quality: the smallest over the
 * largest corner Jacobian determinant (1 for a parallelepiped; <= 0 when
 * the cell is folded or inverted). */
static double hexahedron(const double p[8][3], double *quality) {
  static const int lex[8] = {0, 1, 3, 2, 4, 5, 7, 6};
  const double g = 0.57735026918962576451;
  double vol = 0, jmin = 0, jmax = 0;
  for (int q = 0; q < 16; q++) { /* 8 Gauss points, then the 8 corners */
    double r = q < 8 ? ((q & 1) ? g : -g) : ((q & 1) ? 1 : -1);
    double s = q < 8 ? ((q & 2) ? g : -g) : ((q & 2) ? 1 : -1);
    double t = q < 8 ? ((q & 4) ? g : -g) : ((q & 4) ? 1 : -1);
    double J[3][3] = {{0}};
    for (int v = 0; v < 8; v++) {
      double sa = (v & 1) ? 1 : -1, sb = (v & 2) ? 1 : -1, sc = (v & 4) ? 1 : -1;
      double d[3] = {0.125 * sa * (1 + sb * s) * (1 + sc * t), 0.125 * sb * (1 + sa * r) * (1 + sc * t),
                     0.125 * sc * (1 + sa * r) * (1 + sb * s)};
      for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++) J[i][k] += p[lex[v]][i] * d[k];
    }
    double det = J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) -
                 J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
                 J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
    if (q < 8) {
      vol += det;
    } else {
      if (q == 8 || det < jmin) jmin = det;
      if (q == 8 || det > jmax) jmax = det;
    }
  }
  *quality = corner_quality(vol, jmin, jmax);
  return vol;
}

/* Signed volume of a prism (Gmsh vertex order) from its geometry map:
 * det J has degree 1 in x, y and 2 in z, so the centroid of the triangle
 * times the 2-point Gauss rule in z is exact. Quality as for the
 * hexahedron, from det J at the 6 vertices. */
static double prism(const double p[6][3], double *quality) {
  const double g = 0.5 / 1.7320508075688772935;
  const double pts[8][3] = {{1.0 / 3, 1.0 / 3, 0.5 - g}, {1.0 / 3, 1.0 / 3, 0.5 + g}, {0, 0, 0}, {1, 0, 0},
                            {0, 1, 0},                   {0, 0, 1},                   {1, 0, 1}, {0, 1, 1}};
  double vol = 0, jmin = 0, jmax = 0;
  for (int q = 0; q < 8; q++) {
    double dN[6 * 3], J[3][3] = {{0}};
    feint_cell_vertex_shape(FEINT_CELL_PRISM, 1, pts[q], NULL, dN);
    for (int v = 0; v < 6; v++)
      for (int a = 0; a < 3; a++)
        for (int d = 0; d < 3; d++) J[a][d] += p[v][a] * dN[3 * v + d];
    double det = J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) - J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
                 J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
    if (q < 2) {
      vol += 0.25 * det; /* triangle area 1/2 times Gauss weight 1/2 */
    } else {
      if (q == 2 || det < jmin) jmin = det;
      if (q == 2 || det > jmax) jmax = det;
    }
  }
  *quality = corner_quality(vol, jmin, jmax);
  return vol;
}

/* Signed area of a bilinear quadrilateral in the x-y plane (shoelace);
 * quality as for the hexahedron, from the corner Jacobians. */
static double quadrilateral(const double p[4][3], double *quality) {
  double area = 0, jmin = 0, jmax = 0;
  for (int i = 0; i < 4; i++) {
    const double *a = p[i], *b = p[(i + 1) % 4], *c = p[(i + 3) % 4];
    area += 0.5 * (a[0] * b[1] - b[0] * a[1]);
    double det = (b[0] - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (b[1] - a[1]);
    if (i == 0 || det < jmin) jmin = det;
    if (i == 0 || det > jmax) jmax = det;
  }
  *quality = corner_quality(area, jmin, jmax);
  return area;
}

void feint_mesh_compute_stats(const feint_mesh *m, feint_mesh_stats *st) {
  memset(st, 0, sizeof *st);
  st->worst_cell = -1;
  st->worst_quality = 1.0;
  if (!m) return;
  if (m->n_nodes > 0) {
    for (int k = 0; k < 3; k++) {
      const double *c = k == 0 ? m->x : k == 1 ? m->y : m->z;
      double lo = c[0], hi = c[0];
      for (int64_t i = 1; i < m->n_nodes; i++) {
        if (c[i] < lo) lo = c[i];
        if (c[i] > hi) hi = c[i];
      }
      st->bbox_min[k] = lo;
      st->bbox_max[k] = hi;
    }
  }
  double p[8][3];
  for (int b = 0; b < m->n_blocks; b++) {
    const feint_mesh_block *B = &m->blocks[b];
    for (int64_t e = B->first_cell; e < B->first_cell + B->n_cells; e++) {
      const int64_t *v = m->cells + e * m->nv;
      for (int i = 0; i < B->nv; i++) {
        p[i][0] = m->x[v[i]];
        p[i][1] = m->y[v[i]];
        p[i][2] = m->z[v[i]];
      }
      double q, vol;
      if (B->cell_type == FEINT_CELL_HEXAHEDRON)
        vol = hexahedron((const double(*)[3])p, &q);
      else if (B->cell_type == FEINT_CELL_PRISM)
        vol = prism((const double(*)[3])p, &q);
      else if (B->cell_type == FEINT_CELL_QUADRILATERAL)
        vol = quadrilateral((const double(*)[3])p, &q);
      else if (B->cell_type == FEINT_CELL_TETRAHEDRON)
        vol = tetrahedron((const double(*)[3])p, &q);
      else
        vol = triangle((const double(*)[3])p, &q);
      st->volume += fabs(vol);
      if (vol < 0) st->n_inverted++;
      if (st->worst_cell < 0 || q < st->worst_quality) {
        st->worst_quality = q;
        st->worst_cell = e;
      }
    }
  }
  if (m->n_cells == 0) st->worst_quality = 0;
}
