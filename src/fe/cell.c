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

void feint_cell_vertex_reference(feint_cell_type cell, int v, double *xi) {
  const int dim = feint_cell_dim(cell);
  for (int d = 0; d < dim; d++)
    xi[d] = cell == FEINT_CELL_QUADRILATERAL ? quad_vertex_sign[v][d]
            : cell == FEINT_CELL_HEXAHEDRON  ? hex_vertex_sign[v][d]
            : cell == FEINT_CELL_PRISM       ? (d == 2 ? v >= 3 : v % 3 == d + 1)
                                             : v == d + 1;
}

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

/* Gmsh's second-order quadrilateral, hexahedron and prism nodes on
 * feint's reference cells ([-1,1]^d; the prism's z on [0,1] where Gmsh's
 * is on [-1,1]): the vertices, the edges' midpoints, the faces' centres,
 * the centre. The incomplete (serendipity) 8-, 20- and 15-node cells are
 * the first nodes of these. t205 checks them against libgmsh. */
static const double quad9_nodes[9][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}, {0, -1},
                                         {1, 0},   {0, 1},  {-1, 0}, {0, 0}};
static const double hex27_nodes[27][3] = {
    {-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1}, {-1, -1, 1}, {1, -1, 1}, {1, 1, 1},  {-1, 1, 1},  {0, -1, -1},
    {-1, 0, -1},  {-1, -1, 0}, {1, 0, -1}, {1, -1, 0},  {0, 1, -1},  {1, 1, 0},  {-1, 1, 0}, {0, -1, 1},  {-1, 0, 1},
    {1, 0, 1},    {0, 1, 1},   {0, 0, -1}, {0, -1, 0},  {-1, 0, 0},  {1, 0, 0},  {0, 1, 0},  {0, 0, 1},   {0, 0, 0}};
static const double prism18_nodes[18][3] = {{0, 0, 0},     {1, 0, 0},   {0, 1, 0},     {0, 0, 1},     {1, 0, 1},
                                            {0, 1, 1},     {.5, 0, 0},  {0, .5, 0},    {0, 0, .5},    {.5, .5, 0},
                                            {1, 0, .5},    {0, 1, .5},  {.5, 0, 1},    {0, .5, 1},    {.5, .5, 1},
                                            {.5, 0, .5},   {0, .5, .5}, {.5, .5, .5}};

/* ... and of order 3, in thirds (-3, -1, 1, 3 for -1, -1/3, 1/3, 1). */
static const signed char quad16_nodes[16][2] = {{-3, -3}, {3, -3}, {3, 3},  {-3, 3}, {-1, -3}, {1, -3},
                                                {3, -1},  {3, 1},  {1, 3},  {-1, 3}, {-3, 1},  {-3, -1},
                                                {-1, -1}, {1, -1}, {1, 1},  {-1, 1}};
static const signed char hex64_nodes[64][3] = {
    {-3, -3, -3}, {3, -3, -3}, {3, 3, -3},  {-3, 3, -3}, {-3, -3, 3}, {3, -3, 3},  {3, 3, 3},   {-3, 3, 3},
    {-1, -3, -3}, {1, -3, -3}, {-3, -1, -3}, {-3, 1, -3}, {-3, -3, -1}, {-3, -3, 1}, {3, -1, -3}, {3, 1, -3},
    {3, -3, -1},  {3, -3, 1},  {1, 3, -3},  {-1, 3, -3}, {3, 3, -1},  {3, 3, 1},   {-3, 3, -1}, {-3, 3, 1},
    {-1, -3, 3},  {1, -3, 3},  {-3, -1, 3}, {-3, 1, 3},  {3, -1, 3},  {3, 1, 3},   {1, 3, 3},   {-1, 3, 3},
    {-1, -1, -3}, {-1, 1, -3}, {1, 1, -3},  {1, -1, -3}, {-1, -3, -1}, {1, -3, -1}, {1, -3, 1},  {-1, -3, 1},
    {-3, -1, -1}, {-3, -1, 1}, {-3, 1, 1},  {-3, 1, -1}, {3, -1, -1},  {3, 1, -1},  {3, 1, 1},   {3, -1, 1},
    {1, 3, -1},   {-1, 3, -1}, {-1, 3, 1},  {1, 3, 1},   {-1, -1, 3},  {1, -1, 3},  {1, 1, 3},   {-1, 1, 3},
    {-1, -1, -1}, {1, -1, -1}, {1, 1, -1},  {-1, 1, -1}, {-1, -1, 1},  {1, -1, 1},  {1, 1, 1},   {-1, 1, 1}};

int feint_cell_curved_order(feint_cell_type cell, int n_nodes) {
  switch (cell) {
    case FEINT_CELL_TRIANGLE: return n_nodes == 6 ? 2 : n_nodes == 10 ? 3 : 0;
    case FEINT_CELL_TETRAHEDRON: return n_nodes == 10 ? 2 : n_nodes == 20 ? 3 : 0;
    case FEINT_CELL_QUADRILATERAL: return n_nodes == 9 || n_nodes == 8 ? 2 : n_nodes == 16 ? 3 : 0;
    case FEINT_CELL_HEXAHEDRON: return n_nodes == 27 || n_nodes == 20 ? 2 : n_nodes == 64 ? 3 : 0;
    case FEINT_CELL_PRISM: return n_nodes == 18 || n_nodes == 15 ? 2 : 0;
    default: return 0;
  }
}

int feint_cell_curved_is_complete(feint_cell_type cell, int n_nodes) {
  return !(cell == FEINT_CELL_QUADRILATERAL && n_nodes == 8) && !(cell == FEINT_CELL_HEXAHEDRON && n_nodes == 20) &&
         !(cell == FEINT_CELL_PRISM && n_nodes == 15);
}

void feint_cell_curved_node(feint_cell_type cell, int n_nodes, int k, double *xi) {
  const int dim = feint_cell_dim(cell), nv = dim + 1, g = feint_cell_curved_order(cell, n_nodes);
  if (g == 3 && feint_cell_is_tensor(cell)) {
    const signed char *t = cell == FEINT_CELL_QUADRILATERAL ? quad16_nodes[k] : hex64_nodes[k];
    for (int d = 0; d < dim; d++) xi[d] = t[d] / 3.0;
    return;
  }
  if (!feint_cell_is_simplex(cell)) {
    const double *t = cell == FEINT_CELL_QUADRILATERAL ? quad9_nodes[k]
                      : cell == FEINT_CELL_HEXAHEDRON  ? hex27_nodes[k]
                                                       : prism18_nodes[k];
    for (int d = 0; d < dim; d++) xi[d] = t[d];
    return;
  }
  const int ne = dim == 2 ? 3 : 6, per_edge = g - 1;
  double a[3], b[3], c[3];
  if (k < nv) {
    feint_cell_vertex_reference(cell, k, xi);
  } else if (k < nv + ne * per_edge) { /* edge (a, b), node i of g - 1 from a to b */
    const int e = (k - nv) / per_edge, i = (k - nv) % per_edge + 1;
    feint_cell_vertex_reference(cell, gmsh_edges[e][0], a);
    feint_cell_vertex_reference(cell, gmsh_edges[e][1], b);
    for (int d = 0; d < dim; d++) xi[d] = a[d] + (b[d] - a[d]) * i / g;
  } else { /* g = 3: a face's centroid (the triangle's own) */
    const int f = k - nv - ne * per_edge;
    const int *face = dim == 2 ? (const int[]){0, 1, 2} : gmsh_tet_faces[f];
    feint_cell_vertex_reference(cell, face[0], a);
    feint_cell_vertex_reference(cell, face[1], b);
    feint_cell_vertex_reference(cell, face[2], c);
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

/* The monomials x^a y^b z^c spanning a quadrilateral's, hexahedron's or
 * prism's second-order shape functions: exponents up to 2 (a + b up to 2
 * on the prism's triangle); the incomplete cells drop those with two
 * squares (x^2 y^2 ...), and the prism's those with z^2 beyond linear
 * in x, y. Their count is the cell's. */
static int geometry_monomials(feint_cell_type cell, int complete, int exps[][3]) {
  const int dim = feint_cell_dim(cell);
  int n = 0;
  for (int a = 0; a <= 2; a++)
    for (int b = 0; b <= 2; b++)
      for (int c = 0; c <= (dim == 3 ? 2 : 0); c++) {
        int keep;
        if (cell == FEINT_CELL_PRISM) keep = a + b <= 2 && (complete || c <= 1 || a + b <= 1);
        else keep = complete || (a == 2) + (b == 2) + (c == 2) <= 1;
        if (!keep) continue;
        exps[n][0] = a, exps[n][1] = b, exps[n][2] = c;
        n++;
      }
  return n;
}

/* inv = V^-1 by Gauss-Jordan with partial pivoting (V n x n, row-major,
 * overwritten); 0 when singular. */
static int invert(int n, double *V, double *inv) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) inv[i * n + j] = i == j;
  for (int col = 0; col < n; col++) {
    int piv = col;
    for (int r = col + 1; r < n; r++)
      if (fabs(V[r * n + col]) > fabs(V[piv * n + col])) piv = r;
    if (V[piv * n + col] == 0) return 0;
    for (int j = 0; j < n; j++) {
      double t = V[col * n + j];
      V[col * n + j] = V[piv * n + j], V[piv * n + j] = t;
      t = inv[col * n + j];
      inv[col * n + j] = inv[piv * n + j], inv[piv * n + j] = t;
    }
    const double d = V[col * n + col];
    for (int j = 0; j < n; j++) V[col * n + j] /= d, inv[col * n + j] /= d;
    for (int r = 0; r < n; r++) {
      const double f = V[r * n + col];
      if (r == col || f == 0) continue;
      for (int j = 0; j < n; j++) V[r * n + j] -= f * V[col * n + j], inv[r * n + j] -= f * inv[col * n + j];
    }
  }
  return 1;
}

static double ipow(double x, int e) { return e == 0 ? 1 : e == 1 ? x : x * x; }

void feint_curved_geometry_init(feint_curved_geometry *geo, feint_cell_type cell, int n_nodes) {
  geo->cell = cell;
  geo->n_nodes = n_nodes;
  geo->dim = feint_cell_dim(cell);
  geo->order = feint_cell_curved_order(cell, n_nodes);
  for (int k = 0; k < n_nodes; k++) {
    double *xi = geo->ref[k], l0 = 1;
    feint_cell_curved_node(cell, n_nodes, k, xi);
    feint_cell_vertex_shape(cell, 1, xi, geo->vertex_map[k], NULL);
    if (!feint_cell_is_simplex(cell)) continue;
    for (int d = 0; d < geo->dim; d++) {
      geo->alpha[k][d + 1] = (int)lround(geo->order * xi[d]);
      l0 -= xi[d];
    }
    geo->alpha[k][0] = (int)lround(geo->order * l0);
  }
  if (feint_cell_is_simplex(cell)) return;
  if (feint_cell_is_tensor(cell) && feint_cell_curved_is_complete(cell, n_nodes)) {
    for (int k = 0; k < n_nodes; k++) /* node k's 1D node along each axis: -1 + 2 i / g */
      for (int d = 0; d < geo->dim; d++) geo->axis_index[k][d] = (int)lround((geo->ref[k][d] + 1) * geo->order / 2);
    return;
  }
  /* the shape functions N = m(x)^T V^-1, V[j][k] = m_k(node j): the
   * nodes' Vandermonde matrix, well conditioned on nodes at -1, 0, 1 */
  double V[FEINT_CELL_MAX_MONOMIAL_NODES * FEINT_CELL_MAX_MONOMIAL_NODES];
  const int n = geometry_monomials(cell, feint_cell_curved_is_complete(cell, n_nodes), geo->exps);
  for (int j = 0; j < n_nodes; j++)
    for (int k = 0; k < n; k++) {
      double v = 1;
      for (int d = 0; d < geo->dim; d++) v *= ipow(geo->ref[j][d], geo->exps[k][d]);
      V[j * n + k] = v;
    }
  invert(n, V, geo->inv);
  /* on these nodes (-1, 0, 1; the prism's z 0, 1/2, 1) the exact inverse
   * is in multiples of 1/16: rounded to them, the functions are exactly 1
   * and 0 at the nodes (a vertex's dof sits on its node) */
  for (int k = 0; k < n * n; k++) geo->inv[k] = round(geo->inv[k] * 4096) / 4096;
}

/* Simplices: products of Lagrange factors of the barycentric coordinates. */
static void simplex_shape(const feint_curved_geometry *geo, const double *x, double *values, double *grads) {
  const int dim = geo->dim, nv = dim + 1, g = geo->order, n_nodes = geo->n_nodes;
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
    if (values) values[k] = val;
    if (!grads) continue;
    double dl[4]; /* d N / d l_i */
    for (int i = 0; i < nv; i++) {
      dl[i] = dp[i];
      for (int j = 0; j < nv; j++)
        if (j != i) dl[i] *= p[j];
    }
    for (int d = 0; d < dim; d++) grads[k * dim + d] = dl[d + 1] - dl[0]; /* l_0 = 1 - sum xi */
  }
}

/* Complete quadrilaterals and hexahedra: products of the 1D Lagrange
 * functions on the g + 1 equispaced points of [-1, 1] (each factor
 * exactly 0 or 1 at the points). */
static void tensor_shape(const feint_curved_geometry *geo, const double *x, double *values, double *grads) {
  const int dim = geo->dim, g = geo->order;
  double L[3][4], dL[3][4];
  for (int d = 0; d < dim; d++)
    for (int i = 0; i <= g; i++) {
      const double xi = -1 + 2.0 * i / g;
      double v = 1, dv = 0;
      for (int j = 0; j <= g; j++) {
        if (j == i) continue;
        const double xj = -1 + 2.0 * j / g, f = (x[d] - xj) / (xi - xj);
        dv = dv * f + v / (xi - xj);
        v *= f;
      }
      L[d][i] = v;
      dL[d][i] = dv;
    }
  for (int k = 0; k < geo->n_nodes; k++) {
    const int *a = geo->axis_index[k];
    double v = 1;
    for (int d = 0; d < dim; d++) v *= L[d][a[d]];
    if (values) values[k] = v;
    for (int d = 0; grads && d < dim; d++) {
      double gd = dL[d][a[d]];
      for (int o = 0; o < dim; o++)
        if (o != d) gd *= L[o][a[o]];
      grads[k * dim + d] = gd;
    }
  }
}

/* The others: the monomials at x times V^-1. */
static void monomial_shape(const feint_curved_geometry *geo, const double *x, double *values, double *grads) {
  const int dim = geo->dim, n = geo->n_nodes;
  double m[FEINT_CELL_MAX_MONOMIAL_NODES], dm[FEINT_CELL_MAX_MONOMIAL_NODES][3];
  for (int k = 0; k < n; k++) {
    const int *e = geo->exps[k];
    m[k] = 1;
    for (int d = 0; d < dim; d++) m[k] *= ipow(x[d], e[d]);
    for (int d = 0; d < dim; d++) {
      dm[k][d] = e[d] == 0 ? 0 : e[d] == 1 ? 1 : 2 * x[d];
      for (int o = 0; o < dim; o++)
        if (o != d) dm[k][d] *= ipow(x[o], e[o]);
    }
  }
  for (int j = 0; j < n; j++) {
    double v = 0, gr[3] = {0, 0, 0};
    for (int k = 0; k < n; k++) {
      const double c = geo->inv[k * n + j];
      v += m[k] * c;
      for (int d = 0; d < dim; d++) gr[d] += dm[k][d] * c;
    }
    if (values) values[j] = v;
    if (grads)
      for (int d = 0; d < dim; d++) grads[j * dim + d] = gr[d];
  }
}

void feint_curved_geometry_shape(const feint_curved_geometry *geo, int npoints, const double *points, double *values,
                                 double *grads) {
  const int n = geo->n_nodes, dim = geo->dim, simplex = feint_cell_is_simplex(geo->cell);
  const int tensor = feint_cell_is_tensor(geo->cell) && feint_cell_curved_is_complete(geo->cell, n);
  for (int q = 0; q < npoints; q++) {
    double *v = values ? values + q * n : NULL, *g = grads ? grads + q * n * dim : NULL;
    if (simplex) simplex_shape(geo, points + q * dim, v, g);
    else if (tensor) tensor_shape(geo, points + q * dim, v, g);
    else monomial_shape(geo, points + q * dim, v, g);
  }
}

void feint_cell_curved_shape(feint_cell_type cell, int n_nodes, int npoints, const double *points, double *values,
                             double *grads) {
  feint_curved_geometry geo;
  feint_curved_geometry_init(&geo, cell, n_nodes);
  feint_curved_geometry_shape(&geo, npoints, points, values, grads);
}

int feint_curved_geometry_is_affine(const feint_curved_geometry *geo, const double *nodes, double tol) {
  const int nv = feint_cell_num_vertices(geo->cell);
  double h2 = 0; /* the longest distance between vertices, squared */
  for (int a = 0; a < nv; a++)
    for (int b = a + 1; b < nv; b++) {
      double l = 0;
      for (int d = 0; d < 3; d++) l += (nodes[3 * b + d] - nodes[3 * a + d]) * (nodes[3 * b + d] - nodes[3 * a + d]);
      if (l > h2) h2 = l;
    }
  for (int k = nv; k < geo->n_nodes; k++) {
    double off = 0;
    for (int a = 0; a < 3; a++) {
      double x = 0; /* the vertices' map at the node */
      for (int v = 0; v < nv; v++) x += geo->vertex_map[k][v] * nodes[3 * v + a];
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
