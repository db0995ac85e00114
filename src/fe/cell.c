/* Reference cells: dimensions, vertices, edges and faces (see feint/fe.h). */
#include <math.h>
#include <stddef.h>

#include "feint/fe.h"

static const int tri_edges[3][2] = {{0, 1}, {0, 2}, {1, 2}};
static const int tet_edges[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
static const int tet_faces[4][3] = {{0, 1, 2}, {0, 1, 3}, {0, 2, 3}, {1, 2, 3}};

static const int seg_edges[1][2] = {{0, 1}};
/* Gmsh's edge order for first-order quadrilaterals and hexahedra */
static const int quad_edges[4][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 0}};
static const int prism_edges[9][2] = {{0, 1}, {0, 2}, {1, 2}, {3, 4}, {3, 5}, {4, 5}, {0, 3}, {1, 4}, {2, 5}};
static const int prism_faces[2][3] = {{0, 1, 2}, {3, 4, 5}};
static const int prism_quad_faces[3][4] = {{0, 1, 4, 3}, {0, 2, 5, 3}, {1, 2, 5, 4}};
static const int hex_quad_faces[6][4] = {{0, 1, 2, 3}, {4, 5, 6, 7}, {0, 1, 5, 4},
                                         {1, 2, 6, 5}, {2, 3, 7, 6}, {3, 0, 4, 7}};
static const int hex_edges[12][2] = {{0, 1}, {0, 3}, {0, 4}, {1, 2}, {1, 5}, {2, 3},
                                     {2, 6}, {3, 7}, {4, 5}, {4, 7}, {5, 6}, {6, 7}};

#define ROWS(t) (sizeof t / sizeof t[0])
_Static_assert(ROWS(hex_edges) == FEINT_CELL_MAX_EDGES && ROWS(prism_edges) <= FEINT_CELL_MAX_EDGES &&
                   ROWS(tet_edges) <= FEINT_CELL_MAX_EDGES,
               "FEINT_CELL_MAX_EDGES is the most edges of a cell");
_Static_assert(ROWS(tet_faces) == FEINT_CELL_MAX_FACES && ROWS(prism_faces) <= FEINT_CELL_MAX_FACES,
               "FEINT_CELL_MAX_FACES is the most triangular faces of a cell");
_Static_assert(ROWS(hex_quad_faces) == FEINT_CELL_MAX_QUAD_FACES && ROWS(prism_quad_faces) <= FEINT_CELL_MAX_QUAD_FACES,
               "FEINT_CELL_MAX_QUAD_FACES is the most quadrilateral faces of a cell");

int feint_cell_dim(feint_cell_type cell) {
  switch (cell) {
    case FEINT_CELL_TETRAHEDRON:
    case FEINT_CELL_PRISM:
    case FEINT_CELL_HEXAHEDRON: return 3;
    case FEINT_CELL_SEGMENT: return 1;
    default: return 2;
  }
}

int feint_cell_num_vertices(feint_cell_type cell) {
  switch (cell) {
    case FEINT_CELL_TETRAHEDRON: return 4;
    case FEINT_CELL_SEGMENT: return 2;
    case FEINT_CELL_QUADRILATERAL: return 4;
    case FEINT_CELL_HEXAHEDRON: return 8;
    case FEINT_CELL_PRISM: return 6;
    default: return 3;
  }
}

int feint_cell_num_edges(feint_cell_type cell) {
  switch (cell) {
    case FEINT_CELL_TETRAHEDRON: return 6;
    case FEINT_CELL_SEGMENT: return 1;
    case FEINT_CELL_QUADRILATERAL: return 4;
    case FEINT_CELL_HEXAHEDRON: return 12;
    case FEINT_CELL_PRISM: return 9;
    default: return 3;
  }
}

void feint_cell_edge(feint_cell_type cell, int e, int edge[2]) {
  const int *v = cell == FEINT_CELL_TETRAHEDRON     ? tet_edges[e]
                 : cell == FEINT_CELL_SEGMENT       ? seg_edges[e]
                 : cell == FEINT_CELL_QUADRILATERAL ? quad_edges[e]
                 : cell == FEINT_CELL_HEXAHEDRON    ? hex_edges[e]
                 : cell == FEINT_CELL_PRISM         ? prism_edges[e]
                                                    : tri_edges[e];
  edge[0] = v[0];
  edge[1] = v[1];
}

int feint_cell_num_faces(feint_cell_type cell) {
  return cell == FEINT_CELL_TETRAHEDRON ? 4 : cell == FEINT_CELL_PRISM ? 2 : 0;
}

void feint_cell_face(feint_cell_type cell, int f, int face[3]) {
  const int *v = cell == FEINT_CELL_TETRAHEDRON ? tet_faces[f] : cell == FEINT_CELL_PRISM ? prism_faces[f] : NULL;
  for (int k = 0; k < 3; k++) face[k] = v ? v[k] : -1;
}

int feint_cell_num_quad_faces(feint_cell_type cell) {
  return cell == FEINT_CELL_PRISM ? 3 : cell == FEINT_CELL_HEXAHEDRON ? 6 : 0;
}

void feint_cell_quad_face(feint_cell_type cell, int f, int face[4]) {
  const int *v = cell == FEINT_CELL_PRISM         ? prism_quad_faces[f]
                 : cell == FEINT_CELL_HEXAHEDRON ? hex_quad_faces[f]
                                                 : NULL;
  for (int k = 0; k < 4; k++) face[k] = v ? v[k] : -1;
}

const char *feint_cell_name(feint_cell_type cell) {
  switch (cell) {
    case FEINT_CELL_TETRAHEDRON: return "tetrahedron";
    case FEINT_CELL_SEGMENT: return "segment";
    case FEINT_CELL_QUADRILATERAL: return "quadrilateral";
    case FEINT_CELL_HEXAHEDRON: return "hexahedron";
    case FEINT_CELL_PRISM: return "prism";
    default: return "triangle";
  }
}

const char *feint_cell_plural(feint_cell_type cell) {
  switch (cell) {
    case FEINT_CELL_TETRAHEDRON: return "tetrahedra";
    case FEINT_CELL_HEXAHEDRON: return "hexahedra";
    case FEINT_CELL_SEGMENT: return "segments";
    case FEINT_CELL_QUADRILATERAL: return "quadrilaterals";
    case FEINT_CELL_PRISM: return "prisms";
    default: return "triangles";
  }
}

double feint_cell_reference_volume(feint_cell_type cell) {
  switch (cell) {
    case FEINT_CELL_TETRAHEDRON: return 1.0 / 6.0;
    case FEINT_CELL_SEGMENT: return 1.0;
    case FEINT_CELL_QUADRILATERAL: return 4.0;
    case FEINT_CELL_HEXAHEDRON: return 8.0;
    default: return 0.5; /* triangle, prism */
  }
}

int feint_cell_is_simplex(feint_cell_type cell) {
  return cell == FEINT_CELL_SEGMENT || cell == FEINT_CELL_TRIANGLE || cell == FEINT_CELL_TETRAHEDRON;
}

int feint_cell_is_tensor(feint_cell_type cell) {
  return cell == FEINT_CELL_QUADRILATERAL || cell == FEINT_CELL_HEXAHEDRON;
}

int feint_cell_geometry_degree(feint_cell_type cell) {
  return cell == FEINT_CELL_QUADRILATERAL ? 1 : cell == FEINT_CELL_HEXAHEDRON || cell == FEINT_CELL_PRISM ? 2 : 0;
}

/* Reference coordinates of the Gmsh vertices of the tensor cells, as signs
 * on [-1,1]^d. */
static const double quad_vertex_sign[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
static const double hex_vertex_sign[8][3] = {{-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1},
                                             {-1, -1, 1},  {1, -1, 1},  {1, 1, 1},  {-1, 1, 1}};

void feint_cell_vertex_shape(feint_cell_type cell, int npoints, const double *points, double *values,
                             double *grads) {
  const int dim = feint_cell_dim(cell), nv = feint_cell_num_vertices(cell);
  for (int q = 0; q < npoints; q++) {
    const double *x = points + q * dim;
    for (int v = 0; v < nv; v++) {
      double val, g[3] = {0, 0, 0};
      if (cell == FEINT_CELL_PRISM) { /* barycentric of (x, y) times 1 - z (v < 3) or z */
        const int t = v % 3, top = v >= 3;
        const double lam = t == 0 ? 1 - x[0] - x[1] : x[t - 1], h = top ? x[2] : 1 - x[2];
        val = lam * h;
        g[0] = (t == 0 ? -1 : t == 1 ? 1 : 0) * h;
        g[1] = (t == 0 ? -1 : t == 2 ? 1 : 0) * h;
        g[2] = top ? lam : -lam;
      } else if (feint_cell_is_simplex(cell)) { /* N_0 = 1 - sum x, N_v = x_{v-1} */
        val = 1;
        for (int d = 0; d < dim; d++) val -= x[d];
        if (v > 0) val = x[v - 1];
        for (int d = 0; d < dim; d++) g[d] = v == 0 ? -1 : d == v - 1 ? 1 : 0;
      } else { /* prod_d (1 + s_d x_d) / 2 */
        const double *sg = dim == 2 ? quad_vertex_sign[v] : hex_vertex_sign[v];
        double f[3];
        val = 1;
        for (int d = 0; d < dim; d++) val *= f[d] = 0.5 * (1 + sg[d] * x[d]);
        for (int d = 0; d < dim; d++) {
          g[d] = 0.5 * sg[d];
          for (int e = 0; e < dim; e++)
            if (e != d) g[d] *= f[e];
        }
      }
      if (values) values[q * nv + v] = val;
      if (grads)
        for (int d = 0; d < dim; d++) grads[(q * nv + v) * dim + d] = g[d];
    }
  }
}

/* Gmsh's edges and faces of its complete triangles and tetrahedra
 * (MTriangleN, MTetrahedronN): the order of their edge and face nodes. */
static const int gmsh_edges[6][2] = {{0, 1}, {1, 2}, {2, 0}, {3, 0}, {3, 2}, {3, 1}};
static const int gmsh_tet_faces[4][3] = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {3, 1, 2}};

int feint_cell_curved_order(feint_cell_type cell, int n_nodes) {
  if (cell == FEINT_CELL_TRIANGLE) return n_nodes == 6 ? 2 : n_nodes == 10 ? 3 : 0;
  if (cell == FEINT_CELL_TETRAHEDRON) return n_nodes == 10 ? 2 : n_nodes == 20 ? 3 : 0;
  return 0;
}

/* Vertex v's reference coordinates (the origin, then the unit vectors). */
static void simplex_vertex(int dim, int v, double *xi) {
  for (int d = 0; d < dim; d++) xi[d] = v == d + 1 ? 1.0 : 0.0;
}

void feint_cell_curved_node(feint_cell_type cell, int n_nodes, int k, double *xi) {
  const int dim = feint_cell_dim(cell), nv = dim + 1, g = feint_cell_curved_order(cell, n_nodes);
  const int ne = dim == 2 ? 3 : 6, per_edge = g - 1;
  double a[3], b[3], c[3];
  if (k < nv) {
    simplex_vertex(dim, k, xi);
  } else if (k < nv + ne * per_edge) { /* edge (a, b), node i of g - 1 from a to b */
    const int e = (k - nv) / per_edge, i = (k - nv) % per_edge + 1;
    simplex_vertex(dim, gmsh_edges[e][0], a);
    simplex_vertex(dim, gmsh_edges[e][1], b);
    for (int d = 0; d < dim; d++) xi[d] = a[d] + (b[d] - a[d]) * i / g;
  } else { /* g = 3: a face's centroid (the triangle's own) */
    const int f = k - nv - ne * per_edge;
    const int *face = dim == 2 ? (const int[]){0, 1, 2} : gmsh_tet_faces[f];
    simplex_vertex(dim, face[0], a);
    simplex_vertex(dim, face[1], b);
    simplex_vertex(dim, face[2], c);
    for (int d = 0; d < dim; d++) xi[d] = (a[d] + b[d] + c[d]) / 3;
  }
}

/* P_m(t) = prod_{j < m} (g t - j) / (j + 1) (the Lagrange factor of a
 * barycentric index m) and its derivative. */
static void lagrange_factor(int g, int m, double t, double *p, double *dp) {
  *p = 1;
  *dp = 0;
  for (int j = 0; j < m; j++) {
    const double f = (g * t - j) / (j + 1), df = (double)g / (j + 1);
    *dp = *dp * f + *p * df;
    *p *= f;
  }
}

void feint_curved_geometry_init(feint_curved_geometry *geo, feint_cell_type cell, int n_nodes) {
  geo->cell = cell;
  geo->n_nodes = n_nodes;
  geo->dim = feint_cell_dim(cell);
  geo->order = feint_cell_curved_order(cell, n_nodes);
  for (int k = 0; k < n_nodes; k++) {
    double *xi = geo->ref[k], l0 = 1;
    feint_cell_curved_node(cell, n_nodes, k, xi);
    for (int d = 0; d < geo->dim; d++) {
      geo->alpha[k][d + 1] = (int)lround(geo->order * xi[d]);
      l0 -= xi[d];
    }
    geo->alpha[k][0] = (int)lround(geo->order * l0);
  }
}

void feint_curved_geometry_shape(const feint_curved_geometry *geo, int npoints, const double *points, double *values,
                                 double *grads) {
  const int dim = geo->dim, nv = dim + 1, g = geo->order, n_nodes = geo->n_nodes;
  for (int q = 0; q < npoints; q++) {
    const double *x = points + q * dim;
    double l[4];
    l[0] = 1;
    for (int d = 0; d < dim; d++) {
      l[0] -= x[d];
      l[d + 1] = x[d];
    }
    for (int k = 0; k < n_nodes; k++) {
      double p[4], dp[4], val = 1;
      for (int i = 0; i < nv; i++) {
        lagrange_factor(g, geo->alpha[k][i], l[i], &p[i], &dp[i]);
        val *= p[i];
      }
      if (values) values[q * n_nodes + k] = val;
      if (!grads) continue;
      double dl[4]; /* d N / d l_i */
      for (int i = 0; i < nv; i++) {
        dl[i] = dp[i];
        for (int j = 0; j < nv; j++)
          if (j != i) dl[i] *= p[j];
      }
      for (int d = 0; d < dim; d++) grads[(q * n_nodes + k) * dim + d] = dl[d + 1] - dl[0]; /* l_0 = 1 - sum xi */
    }
  }
}

void feint_cell_curved_shape(feint_cell_type cell, int n_nodes, int npoints, const double *points, double *values,
                             double *grads) {
  feint_curved_geometry geo;
  feint_curved_geometry_init(&geo, cell, n_nodes);
  feint_curved_geometry_shape(&geo, npoints, points, values, grads);
}

int feint_curved_geometry_is_affine(const feint_curved_geometry *geo, const double *nodes, double tol) {
  const int dim = geo->dim, nv = dim + 1;
  double h2 = 0; /* the longest edge, squared */
  for (int a = 0; a < nv; a++)
    for (int b = a + 1; b < nv; b++) {
      double l = 0;
      for (int d = 0; d < 3; d++) l += (nodes[3 * b + d] - nodes[3 * a + d]) * (nodes[3 * b + d] - nodes[3 * a + d]);
      if (l > h2) h2 = l;
    }
  for (int k = nv; k < geo->n_nodes; k++) {
    const double *xi = geo->ref[k];
    double off = 0;
    for (int a = 0; a < 3; a++) {
      double x = nodes[a]; /* the affine map of the vertices at xi */
      for (int d = 0; d < dim; d++) x += xi[d] * (nodes[3 * (d + 1) + a] - nodes[a]);
      off += (nodes[3 * k + a] - x) * (nodes[3 * k + a] - x);
    }
    if (!(off <= tol * tol * h2)) return 0; /* NaN: not affine */
  }
  return 1;
}

int feint_cell_geometry_nodes(feint_cell_type cell, int n_geometry_nodes) {
  return n_geometry_nodes > 0 ? n_geometry_nodes : feint_cell_num_vertices(cell);
}

void feint_cell_geometry_shape(feint_cell_type cell, int n_geometry_nodes, int npoints, const double *points,
                               double *values, double *grads) {
  if (n_geometry_nodes > 0) feint_cell_curved_shape(cell, n_geometry_nodes, npoints, points, values, grads);
  else feint_cell_vertex_shape(cell, npoints, points, values, grads);
}
