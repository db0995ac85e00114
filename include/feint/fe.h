/* feint reference elements and quadrature.
 *
 * Reference cells (vertex coordinates):
 *   segment     (0) (1)        (the facet of a triangle, for surface
 *                               quadrature on boundary edges)
 *   triangle    (0,0) (1,0) (0,1)
 *   tetrahedron (0,0,0) (1,0,0) (0,1,0) (0,0,1)
 * Vertex numbering is Gmsh's for first-order cells.
 * Reference edges are the vertex pairs (a, b), a < b, in lexicographic order:
 *   segment     {0,1} (the segment itself; its p-1 interior nodes are its
 *               interior: entity_dofs[1] = p-1, entity_dofs[3] = 0)
 *   triangle    {0,1} {0,2} {1,2}
 *   tetrahedron {0,1} {0,2} {0,3} {1,2} {1,3} {2,3}
 * Reference faces of the tetrahedron are the vertex triples (a, b, c),
 * a < b < c, in lexicographic order: {0,1,2} {0,1,3} {0,2,3} {1,2,3}.
 *
 * Lagrange nodes of order p are ordered by entity: the vertices, then for
 * each reference edge its p-1 interior nodes from vertex a towards b, then
 * each face's interior nodes, then the cell interior. Basis function i is 1
 * at node i and 0 at the others.
 *
 * Face and cell interiors are in lattice order: the interior nodes of the
 * tetrahedron's face (a, b, c) are ((p-i-j) v_a + i v_b + j v_c) / p for
 * i, j >= 1, i + j <= p - 1, j in the outer loop and i in the inner one; the
 * cell interior is (i, j) / p (triangle) or (i, j, k) / p (tetrahedron), all
 * indices >= 1 with sum <= p - 1, k outermost and i (x) fastest.
 *
 * Node families (feint_node_family): the positions above are the
 * equispaced family, what segments, triangles, tetrahedra and prisms get
 * by default. The Lobatto family keeps the lattice indices and the order
 * above but moves each lattice point (i, j[, k]) / p to the recursive
 * Gauss-Lobatto point of its multi-index (p - i - j [- k], i, j[, k])
 * (Isaac, SIAM J. Sci. Comput. 42, 2020; the Blyth-Pozrikidis triangle for
 * p <= 3, within 0.025 of it above): edge nodes are exactly the p+1
 * Gauss-Lobatto-Legendre points mapped to [0,1] (the quadrilateral's and
 * hexahedron's edge nodes), a tetrahedron's face nodes are the Lobatto
 * triangle's, and the set is invariant under vertex permutations. Mixed
 * meshes with quadrilaterals or hexahedra use it (space.h). */
#ifndef FEINT_FE_H
#define FEINT_FE_H

typedef enum {
  FEINT_NODES_EQUISPACED = 0, /* lattice points (i, j, k) / p (simplices, prisms) */
  FEINT_NODES_LOBATTO = 1     /* Gauss-Lobatto based (above; the only family of quadrilaterals, hexahedra) */
} feint_node_family;

typedef enum {
  FEINT_CELL_TRIANGLE = 0,
  FEINT_CELL_TETRAHEDRON = 1,
  FEINT_CELL_SEGMENT = 2,
  /* Quadrilaterals and hexahedra (Gmsh types 3 and 5, first-order
   * geometry): the tensor-product cells. Reference cell [-1,1]^d; vertex
   * order is Gmsh's: quadrilateral (-1,-1) (1,-1) (1,1) (-1,1); hexahedron
   * the bottom quadrilateral (z = -1) then the top one (z = 1).
   * Lexicographic order (vertex a + 2b + 4c at (2a-1, 2b-1, 2c-1), as
   * feint_hexmesh uses) is Gmsh's permuted by 0 1 3 2 (4 5 7 6). Edges are
   * Gmsh's: quadrilateral {0,1} {1,2} {2,3} {3,0}; hexahedron {0,1} {0,3}
   * {0,4} {1,2} {1,5} {2,3} {2,6} {3,7} {4,5} {4,7} {5,6} {6,7}
   * (edge[0] < edge[1] is not guaranteed for these). The geometry is the
   * multilinear map of the vertices (feint_cell_vertex_shape), so the
   * Jacobian varies inside a cell. */
  FEINT_CELL_QUADRILATERAL = 3,
  FEINT_CELL_HEXAHEDRON = 4,
  /* The prism (wedge, Gmsh type 6): the reference triangle x [0,1],
   * vertices (0,0,0) (1,0,0) (0,1,0) (0,0,1) (1,0,1) (0,1,1) (Gmsh's
   * order). Edges (feint's order): the bottom triangle's {0,1} {0,2} {1,2},
   * the top one's {3,4} {3,5} {4,5}, then the vertical {0,3} {1,4} {2,5}.
   * Faces: the triangles {0,1,2} and {3,4,5} (feint_cell_face) and the
   * quadrilaterals {0,1,4,3} {0,2,5,3} {1,2,5,4} (feint_cell_quad_face,
   * cyclic: the first edge along a bottom edge, the last one vertical).
   * Geometry: x = sum_v N_v x_v, N_v = (barycentric of the triangle) x
   * (1 - z or z), so J varies inside the cell. */
  FEINT_CELL_PRISM = 5
} feint_cell_type;

/* The most edges (hexahedron), triangular faces (tetrahedron) and
 * quadrilateral faces (hexahedron) of any cell: sizes for per-cell arrays
 * (src/fe/cell.c checks them against its tables). */
#define FEINT_CELL_MAX_EDGES 12
#define FEINT_CELL_MAX_FACES 4
#define FEINT_CELL_MAX_QUAD_FACES 6

int feint_cell_dim(feint_cell_type cell);
int feint_cell_num_vertices(feint_cell_type cell);
int feint_cell_num_edges(feint_cell_type cell);
/* Reference edge e as (a, b) with a < b: edge[0], edge[1]. */
void feint_cell_edge(feint_cell_type cell, int e, int edge[2]);
int feint_cell_num_faces(feint_cell_type cell); /* triangular 2-faces of 3D cells; 0 in 2D and
                                                  for the hexahedron (see bp.h); 2 for the prism */
void feint_cell_face(feint_cell_type cell, int f, int face[3]);
/* Quadrilateral 2-faces (prism: 3; hexahedron: 6, {0,1,2,3} {4,5,6,7}
 * {0,1,5,4} {1,2,6,5} {2,3,7,6} {3,0,4,7}; 0 for the other cells), as four
 * vertices in cyclic order. */
int feint_cell_num_quad_faces(feint_cell_type cell);
void feint_cell_quad_face(feint_cell_type cell, int f, int face[4]);
const char *feint_cell_name(feint_cell_type cell);
/* The plural, for messages ("tetrahedra"). */
const char *feint_cell_plural(feint_cell_type cell);
/* 1 for the segment, triangle and tetrahedron (affine geometry: one
 * Jacobian per cell), 0 for the tensor-product cells. */
int feint_cell_is_simplex(feint_cell_type cell);
/* 1 for the tensor-product cells (quadrilateral, hexahedron), else 0. */
int feint_cell_is_tensor(feint_cell_type cell);
/* Degree of |det J| of the first-order geometry in each reference
 * coordinate: 0 on simplices, 1 on quadrilaterals, 2 on hexahedra and
 * prisms (2 in z, 1 in x, y). Rules
 * for non-affine cells add it to the integrand's degree. */
int feint_cell_geometry_degree(feint_cell_type cell);
/* The first-order geometry: the shape functions N_v of the cell's vertices
 * (Gmsh order; x = sum_v N_v(xi) x_v) at npoints reference points:
 * values[q * nv + v], grads[(q * nv + v) * dim + d]; either may be NULL.
 * Barycentric on simplices, (bi/tri)linear on [-1,1]^d. */
/* Vertex v's reference coordinates (dim doubles): the origin and unit
 * vectors (simplices), signs on [-1,1]^d (quadrilateral, hexahedron), the
 * triangle's times z = 0 then 1 (prism). */
void feint_cell_vertex_reference(feint_cell_type cell, int v, double *xi);
void feint_cell_vertex_shape(feint_cell_type cell, int npoints, const double *points, double *values,
                             double *grads);
/* Curved cells: Gmsh's Lagrange cells of geometry order g > 1, in Gmsh's
 * node order, with feint's reference cells.
 * - Triangles and tetrahedra of order 2 and 3 (6 and 10 nodes; 10 and
 *   20): the vertices; then the edges (0,1) (1,2) (2,0) and on the
 *   tetrahedron (3,0) (3,2) (3,1), g - 1 nodes each from the edge's first
 *   vertex to its second; then (g = 3) a node at the centroid of each
 *   face: the triangle's own, the tetrahedron's (0,2,1) (0,1,3) (0,3,2)
 *   (3,1,2).
 * - Quadrilaterals, hexahedra and prisms of order 2, complete (9, 27, 18
 *   nodes) or incomplete (8, 20, 15: no face or interior nodes, shape
 *   functions of the serendipity spaces): the vertices, the edges'
 *   midpoints, then the faces' centres and the centre (Gmsh's
 *   MQuadrangle9, MHexahedron27, MPrism18); quadrilaterals and hexahedra
 *   of order 3 (16, 64 nodes: MQuadrangleN, MHexahedronN), the same
 *   entities' nodes at thirds, in Gmsh's order within each.
 * t205 checks them against libgmsh's reference coordinates. */
#define FEINT_CELL_MAX_GEOMETRY_NODES 64
#define FEINT_CELL_MAX_MONOMIAL_NODES 27 /* the incomplete cells and prisms (order 2) */
/* g for a curved cell of n_nodes nodes, else 0. */
int feint_cell_curved_order(feint_cell_type cell, int n_nodes);
/* 0 for the incomplete (serendipity) cells, else 1. */
int feint_cell_curved_is_complete(feint_cell_type cell, int n_nodes);
/* Node k's reference coordinates (dim doubles). */
void feint_cell_curved_node(feint_cell_type cell, int n_nodes, int k, double *xi);
/* A curved cell type's tables, made once and read for each of its cells:
 * the nodes' reference coordinates, the vertices' shape functions there,
 * and the shape functions' own coefficients (simplices: barycentric
 * indices, g l at the node; complete quadrilaterals and hexahedra: each
 * node's index along each axis, for products of 1D Lagrange functions;
 * the others: monomials and the inverse of their values at the nodes). A
 * value: no allocation, nothing to destroy. */
typedef struct {
  feint_cell_type cell;
  int n_nodes, dim, order;
  double ref[FEINT_CELL_MAX_GEOMETRY_NODES][3];
  double vertex_map[FEINT_CELL_MAX_GEOMETRY_NODES][8];
  int alpha[20][4];
  int axis_index[FEINT_CELL_MAX_GEOMETRY_NODES][3];
  int exps[FEINT_CELL_MAX_MONOMIAL_NODES][3];
  double inv[FEINT_CELL_MAX_MONOMIAL_NODES * FEINT_CELL_MAX_MONOMIAL_NODES];
} feint_curved_geometry;
void feint_curved_geometry_init(feint_curved_geometry *geo, feint_cell_type cell, int n_nodes);
/* The shape functions of the nodes (order g) and their reference
 * gradients at the points, as feint_cell_vertex_shape with n_nodes a
 * point. */
void feint_curved_geometry_shape(const feint_curved_geometry *geo, int npoints, const double *points, double *values,
                                 double *grads);
/* The same for a one-off call (makes the tables). */
void feint_cell_curved_shape(feint_cell_type cell, int n_nodes, int npoints, const double *points, double *values,
                             double *grads);
/* Whether the nodes (x y z each) make the vertices' map (affine on
 * simplices, multilinear on the others): each node within tol times the
 * longest distance between vertices of where that map takes its
 * reference coordinates. */
int feint_curved_geometry_is_affine(const feint_curved_geometry *geo, const double *nodes, double tol);
/* The geometry's nodes a cell: a mesh's n_geometry_nodes (curved cells),
 * else the cell's vertices. */
int feint_cell_geometry_nodes(feint_cell_type cell, int n_geometry_nodes);
/* The geometry's shape functions: a curved cell's with n_geometry_nodes
 * (feint_cell_curved_shape), else the vertices' (feint_cell_vertex_shape). */
void feint_cell_geometry_shape(feint_cell_type cell, int n_geometry_nodes, int npoints, const double *points,
                               double *values, double *grads);
double feint_cell_reference_volume(feint_cell_type cell); /* 1 (segment), 1/2, 1/6; 4, 8 for the
                                                             quadrilateral, hexahedron on [-1,1]^d;
                                                             1/2 for the prism */

/* A quadrature rule on a reference cell, exact for polynomials of total
 * degree <= degree. Points are n x dim (row-major), weights sum to the
 * reference volume. */
typedef struct {
  feint_cell_type cell;
  int dim;
  int degree;
  int n;
  double *points;
  double *weights;
} feint_quadrature;

#define FEINT_QUAD_MAX_DEGREE 40

/* Any degree from 0 to feint_quadrature_max_degree(cell): FEINT_QUAD_MAX_DEGREE
 * on triangles, tetrahedra and prisms, 2 FEINT_TENSOR_MAX_POINTS - 1 = 47
 * (tensor.h) on segments, quadrilaterals and hexahedra. On triangles and
 * tetrahedra degree 2 uses the symmetric rules with dim+1 points; other
 * degrees use collapsed (Stroud conical product) Gauss-Jacobi rules; the
 * segment uses the Gauss-Legendre rule of tensor.h on [0,1] with
 * ceil((degree + 1) / 2) points. Quadrilaterals and hexahedra use the
 * tensor Gauss-Legendre rule with n = ceil((degree + 1) / 2) points per
 * direction (exact for x^a y^b
 * z^c with every exponent <= 2n - 1, so for total degree <= degree), points
 * lexicographic (x fastest). The prism uses the triangle's rule of that
 * degree times the Gauss-Legendre rule of that degree on [0,1] (exact for
 * x^a y^b z^c with a + b <= degree and c <= degree), triangle points
 * fastest. All points lie strictly inside the cell and all weights are
 * positive. */
int feint_quadrature_create(feint_cell_type cell, int degree, feint_quadrature **out);
int feint_quadrature_max_degree(feint_cell_type cell);
void feint_quadrature_destroy(feint_quadrature *q);

/* A scalar Lagrange element on a reference cell: orders 1..7 on segments,
 * triangles and tetrahedra (nodes by entity, as above); orders 1..15 on
 * quadrilaterals and hexahedra, the tensor product of the 1D Lagrange basis
 * on the p+1 Gauss-Lobatto-Legendre points (tensor.h): node (i, j[, k]) at
 * (x_i, x_j[, x_k]) has index i + (p+1) j [+ (p+1)^2 k] (lexicographic, i
 * fastest; the BP operators' local order, bp.h), so vertex a + 2b + 4c is
 * node a p + b p (p+1) + c p (p+1)^2; orders 1..7 on prisms: the
 * triangle's P_p nodes times the segment's (both above, equispaced): node
 * t + nt k (nt = (p+1)(p+2)/2) is triangle node t at height z_k, z_0 = 0,
 * z_1 = 1, z_k = (k-1)/p (k >= 2); the span is x^a y^b z^c, a + b <= p,
 * c <= p. With Lobatto nodes (feint_element_create_family) the simplices'
 * nodes move as described above, and the prism takes the Lobatto triangle
 * and segment (z_k the GLL points on [0,1]), so its quadrilateral faces
 * carry the hexahedron's GLL x GLL nodes; the basis is the Lagrange basis
 * of the nodes either way. */
typedef struct feint_element feint_element;
struct feint_element {
  feint_cell_type cell;
  feint_node_family family;
  int order;
  int dim;
  int nb;        /* number of (scalar) basis functions */
  double *nodes; /* nb x dim reference coordinates, ordered as above */
  int entity_dofs[4]; /* dofs per vertex, per edge, per face ((p-1)(p-2)/2
                         on triangles, (p-1)^2 on quadrilaterals, also on the
                         2D cell itself; prisms: the triangular faces, the
                         quadrilateral ones hold (p-1)^2), and in the cell
                         interior (the 2D cell's own interior there) */
  double *coeffs;     /* private: nb x nb coefficients in the orthonormal basis (simplices, lagrange.c) */
  double *nodes1d;    /* private: the p+1 GLL points (tensor cells), else NULL */
  feint_element *factor[2]; /* private (prism): the triangle and segment elements */
};

/* The element with the cell's own node family (feint_cell_node_family:
 * Lobatto on quadrilaterals and hexahedra, equispaced on the others). */
int feint_element_create(feint_cell_type cell, int order, feint_element **out);
/* The element with the given node family: Lobatto on every cell,
 * equispaced on segments, triangles, tetrahedra and prisms. */
int feint_element_create_family(feint_cell_type cell, int order, feint_node_family family, feint_element **out);
feint_node_family feint_cell_node_family(feint_cell_type cell);
void feint_element_destroy(feint_element *el);

/* Values and reference gradients at npoints points (npoints x dim):
 * values[p * nb + i], grads[(p * nb + i) * dim + d]. Either output may be
 * NULL. */
void feint_element_tabulate(const feint_element *el, int npoints, const double *points,
                            double *values, double *grads);

#endif
