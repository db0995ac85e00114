/* feint function space: Lagrange dofs numbered from the mesh topology.
 *
 * Scalar dofs, in blocks:
 *   1. the mesh vertices used by region cells (in mesh node order);
 *   2. one block of (order-1) dofs per mesh edge, edges numbered in order of
 *      their sorted vertex pair, interior nodes running from the lower to
 *      the higher numbered vertex;
 *   3. (tetrahedra, order >= 3) one block of (order-1)(order-2)/2 dofs per
 *      mesh triangle, triangles numbered in order of their sorted vertex
 *      triple (g0 < g1 < g2, vertex dofs), the block in the lattice order of
 *      fe.h in the canonical frame (a, b, c) = (g0, g1, g2): dof (i, j) sits
 *      at ((p-i-j) x_g0 + i x_g1 + j x_g2) / p, j outer, i inner. A cell
 *      maps its local face lattice (anchored at its local face vertices) to
 *      this frame through the permutation of the three vertices, so the
 *      cells sharing a face agree in all 6 relative orientations;
 *   4. the cell interiors, cell by cell in the element's node order.
 * The numbering depends only on the mesh (not on the order cells are
 * visited), and needs memory linear in the mesh.
 * Vector spaces interleave components: dof = scalar_dof * components + c,
 * and a cell's local dof i*components + c is component c of scalar basis
 * function i. Orders 1..7 on triangles and tetrahedra.
 *
 * Quadrilaterals and hexahedra (orders 1..15, the GLL tensor element of
 * fe.h, local dofs lexicographic; src/space/tensor_space.c): quadrilaterals
 * are numbered as above (vertices, edges, interiors; facet dofs work);
 * hexahedra take the BP operators' GLL dof map (bp.h,
 * feint_bp_dofmap_create: order of first appearance, faces in a canonical
 * frame), so an assembled hexahedral operator and the matrix-free one
 * share dof numbers. On hexahedra vertex_dof and the edge lookup are NULL
 * and feint_space_facet_dofs refuses: their facets go through
 * feint_space_facets (below).
 *
 * Prisms (orders 1..7, triangle x segment element of fe.h): vertices and
 * edges as above, then the (p-1)(p-2)/2 dofs of each triangular face in
 * lattice order of the face's vertices sorted by dof (weights (w0, w1, w2)
 * on them, numbered by (w1, w2) with w2 outer), then the (p-1)^2 dofs of
 * each quadrilateral face in the canonical frame of bp.h (origin at its
 * lowest vertex dof, first axis towards the lower of its two neighbours),
 * then cell interiors. Facet dofs through feint_space_facets (below).
 * Coordinates come from the cells' first-order maps (multilinear).
 *
 * Mixed meshes (several blocks, mesh.h; src/space/mixed_space.c): one
 * numbering for all blocks, so cells of different shapes share the dofs of
 * their common vertices, edges and faces, in every orientation: vertices
 * as above, then the (order-1) dofs of each edge in order of its sorted
 * vertex pair, from the lower to the higher vertex, then the dofs of each
 * triangular face (sorted vertex triple; lattice order in that frame, as
 * above), then of each quadrilateral face (sorted vertex dofs; nodes by
 * their weights on the last vertices), then the cell interiors cell by
 * cell. Each block has its own element (blocks[b]); nb and nbc are the
 * widest block's, and a cell of a narrower block has its nb_b dofs first
 * in its row of scalar_cell_dofs / cell_dofs, then -1. Orders 1..7 (the
 * simplices' and prisms' limit). All blocks take one node family (fe.h):
 * equispaced when no block is made of quadrilaterals or hexahedra
 * (tetrahedra + prisms), else Lobatto (triangles, tetrahedra and prisms
 * with the GLL points on their edges and GLL x GLL nodes on prism sides),
 * so shapes put their nodes at the same points on shared edges and faces;
 * with Lobatto nodes the dofs of a triangular face follow their weights
 * (w0, w1, w2) on its sorted vertices, ascending in w2 then w1 (not the
 * lattice order). Boundary conditions work on 2D mixed meshes (vertex and edge
 * dofs of the boundary lines: edge_ptr / edge_upper as above, no face
 * lookup) and on 3D mixed meshes, whose triangle and quadrilateral facets
 * feint_space_facets reads from the cell holding them (below). */
#ifndef FEINT_SPACE_H
#define FEINT_SPACE_H

#include <stdint.h>

#include "feint/fe.h"
#include "feint/mesh.h"

/* The element of one mesh block (blocks[b] serves mesh->blocks[b]). */
typedef struct {
  feint_element *element;    /* the block's scalar reference element */
  int nb, nbc;               /* its basis functions, times components */
} feint_space_block;

typedef struct {
  const feint_mesh *mesh;    /* not owned */
  feint_element *element;    /* owned: the scalar reference element (single-shape meshes; NULL on mixed ones) */
  int order;
  int components;
  int nb;                    /* scalar basis functions per cell (the widest block's) */
  int nbc;                   /* nb * components: local dofs per cell (row stride of cell_dofs) */
  int n_blocks;              /* mesh->n_blocks */
  feint_space_block blocks[FEINT_MESH_MAX_BLOCKS]; /* owned on mixed meshes; blocks[0].element == element
                                                      on single-shape ones */
  int64_t n_scalar_dofs;
  int64_t n_dofs;            /* n_scalar_dofs * components */
  int64_t *scalar_cell_dofs; /* n_cells x nb (-1 past a narrower block's nb); for P1 on a mesh whose
                                nodes are all vertices of its cells, mesh->cells itself (then
                                scalar_cell_dofs_borrowed: not freed), read-only either way */
  int scalar_cell_dofs_borrowed;
  int components_interleaved; /* 1: cell_dofs[(c nb + i) nc + k] = scalar dof * nc + k everywhere (by construction,
                                 feint_space_expand_components), so readers need not check */
  int64_t *cell_dofs;        /* n_cells x nbc (points to scalar_cell_dofs when components == 1; -1 as above) */
  double *coordinates;       /* n_scalar_dofs x 3: where each scalar dof sits */
  /* Topology kept for facet dofs (feint_space_facet_dofs): */
  int64_t n_vertices;        /* vertex dofs are the scalar dofs 0 .. n_vertices-1 */
  int64_t *vertex_dof;       /* mesh->n_nodes: mesh node -> vertex dof, -1 if no region cell uses it */
  int64_t n_edges;           /* edges of the region (0 and no lookup for order 1) */
  int64_t *edge_ptr;         /* n_vertices + 1 (order > 1, else NULL): the edges whose lower vertex
                                dof is v are ids edge_ptr[v] .. edge_ptr[v+1]-1, ... */
  int64_t *edge_upper;       /* n_edges: ... with higher vertex dof edge_upper[id] (sorted); edge id's
                                dofs are n_vertices + id * (order-1) + k, from lower to higher */
  int64_t n_faces;           /* triangles of a tetrahedral region (0 unless order >= 3) */
  int64_t *face_ptr;         /* n_vertices + 1 (or NULL): the faces whose lowest vertex dof is v are
                                ids face_ptr[v] .. face_ptr[v+1]-1, ... */
  int64_t *face_key;         /* n_faces: ... with the other two g1 < g2 as face_key[id] ==
                                g1 * n_vertices + g2 (sorted) */
  int *face_perm;            /* 9 x (order-1)(order-2)/2 (or NULL): face_perm[o * n + k] is the
                                canonical position of local face node k for the orientation code
                                o = rank(a) * 3 + rank(b) of the local face vertices (a, b, c) */
  /* A rank's part under mpirun (dist.h): the whole mesh's counts of cells
   * and scalar dofs, and each of the part's cells and scalar dofs by its
   * number in the whole (ascending), so that data given for the whole
   * (coefficient datasets) are read right; 0 and NULL (not a part)
   * otherwise. Owned. */
  int64_t whole_cells, whole_scalar_dofs;
  int64_t *whole_cell, *whole_scalar_dof;
} feint_space;

int feint_space_create(const feint_mesh *mesh, int order, int components, feint_space **out);
void feint_space_destroy(feint_space *space);
/* A space whose dof map is given (an MPI rank's part, dist.h): elements
 * of the node family of the whole mesh's space (feint_space_node_family:
 * a part may lack the cells that chose it), n_scalar_dofs dofs,
 * scalar_cell_dofs (n_cells x nb) and coordinates (n_scalar_dofs x 3)
 * taken over (freed with the space, or on failure); scalar_cell_dofs
 * NULL: P1 whose dofs are the mesh's nodes (the connectivity, borrowed).
 * No facet lookups
 * (vertex_dof, edges, faces): boundary conditions need the whole mesh's
 * space. */
int feint_space_create_from_map(const feint_mesh *mesh, int order, int components, feint_node_family family,
                                int64_t n_scalar_dofs, int64_t *scalar_cell_dofs, double *coordinates,
                                feint_space **out);

/* Most scalar dofs of one facet: the order-15 quadrilateral's 256. */
#define FEINT_SPACE_MAX_FACET_DOFS 256

/* The scalar dofs of a mesh facet (a (dim-1)-simplex given by its mesh
 * node indices: 2 in 2D, 3 in 3D, as in mesh->facets), in the node order of
 * the facet's own Lagrange element of the space's order (a segment in 2D, a
 * triangle in 3D; see fe.h): its vertices in the given order, then the
 * order-1 dofs of each facet edge (a, b) running from facet vertex a to b,
 * then (3D, order >= 3) the triangle's interior dofs in lattice order
 * anchored at the given vertex order. dofs holds the facet element's nb
 * entries (order+1 in 2D, (order+1)(order+2)/2 in 3D; at most
 * FEINT_SPACE_MAX_FACET_DOFS). Returns FEINT_OK, or -1 (no message) when
 * the facet is not made of vertices, edges and faces of the region's
 * cells. */
int feint_space_facet_dofs(const feint_space *space, const int64_t *nodes, int64_t *dofs);

/* Facet dofs on every region (what boundary conditions use). A facet is
 * given by its nvf mesh nodes: 2 (segment, 2D meshes), 3 (triangle:
 * tetrahedra, prism tops and bottoms) or 4 (quadrilateral in cyclic order:
 * hexahedra, prism sides). Its dofs come in the node order of the facet's
 * own Lagrange basis:
 *   segment   the p+1 edge nodes t_k (feint_space_edge_nodes) from vertex
 *             0 to 1: vertices first, then the interior ones;
 *   triangle  the P_p triangle element of fe.h (the space's node family)
 *             anchored at the given vertex order (vertices, edges from a
 *             to b, interior lattice);
 *   quadrilateral  node (a, b) at index a + (p+1) b, at (t_a, t_b) in
 *             [0,1]^2, s running from vertex 0 to 1 and t from 0 to 3: the
 *             tensor basis on the edge nodes (GLL on hexahedra and mixed
 *             meshes with them, equispaced on prism-only and tetrahedron +
 *             prism meshes).
 * Simplices and quadrilaterals take the topology (feint_space_facet_dofs,
 * nothing built); hexahedra, prisms and 3D mixed meshes the cell holding
 * the facet, with the element and face tables of that cell's block: create
 * builds a node -> cells map (the region's cells x vertices entries), and
 * each facet orientation met (the cell-local vertices of facet vertices 0,
 * 1 and the last) a table facet node -> cell node, made by mapping the
 * facet nodes into the cell's reference face; the facet's dofs are then
 * those the cell's dof map holds there, so they follow the orientation the
 * dof map gave the face (on hexahedra the BP map's, bp.h).
 * feint_space_facets_dofs returns FEINT_OK, -1 (no message) when no region
 * cell holds the facet's vertices, FEINT_ERR_INPUT for a shape the region's
 * cells have no facet of, or vertices that are no face of the cell holding
 * them (a quadrilateral not in cyclic order). */
typedef struct feint_space_facets feint_space_facets;
int feint_space_facets_create(const feint_space *space, feint_space_facets **out);
void feint_space_facets_destroy(feint_space_facets *facets);
int feint_space_facets_dofs(feint_space_facets *facets, const int64_t *nodes, int nvf, int64_t *dofs);
/* Dofs of a facet of nvf vertices: p+1, (p+1)(p+2)/2 or (p+1)^2. */
int feint_space_facet_nb(const feint_space *space, int nvf);
/* The node family of the space's elements (fe.h): Lobatto on
 * quadrilaterals, hexahedra and mixed meshes holding them, else
 * equispaced. */
feint_node_family feint_space_node_family(const feint_space *space);
/* The node family a space on mesh takes, whatever its order: Lobatto where
 * its blocks hold quadrilaterals or hexahedra, else equispaced. */
feint_node_family feint_space_mesh_family(const feint_mesh *mesh);
/* The p+1 nodes t[] of the cells' edges on [0,1] in facet order (0, 1,
 * then the interior ones ascending): Gauss-Lobatto-Legendre with Lobatto
 * nodes, equispaced otherwise. */
int feint_space_edge_nodes(const feint_space *space, double *t);

#endif
