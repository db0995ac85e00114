/* feint mesh: a Gmsh mesh.
 *
 * Reads .msh (2.2 and 4.1, ASCII and binary) natively (msh.h: the file is
 * never given to Gmsh; malformed files are input errors naming the line or
 * byte), or has libgmsh run and mesh a .geo file (a .geo is a program: only
 * give feint .geo files you trust); `refine` on a .msh reads it natively
 * first, then lets libgmsh refine it. Files of other extensions are
 * refused unless their first line is "$MeshFormat". Both sources fill the
 * same model (feint_msh) and one builder makes the feint_mesh, so a mesh
 * reads the same either way. Keeps
 * the nodes (structure-of-arrays, 0-based, compact: only nodes of
 * top-dimensional and physical-group elements), the cells of the region
 * (triangles and quadrilaterals in 2D, tetrahedra, hexahedra and prisms in
 * 3D; first-order geometry), the physical groups, and for each physical
 * group of dimension dim-1 its facets (as vertex lists; on prism and 3D
 * mixed meshes triangles and quadrilaterals, see facets below).
 *
 * Blocks: the region's cells are grouped by shape, one block per cell type
 * present (a mixed mesh has several: triangles + quadrilaterals, or
 * tetrahedra / hexahedra / prisms), in the order triangles, quadrilaterals;
 * tetrahedra, hexahedra, prisms. Cells are numbered globally block after
 * block: block b holds cells first_cell .. first_cell + n_cells - 1.
 * Every mesh has at least one block; cell_type is blocks[0]'s and nv the
 * widest block's, so a single-shape mesh reads as before. On a mixed mesh
 * the rows of cells are padded with -1 beyond the block's own vertices;
 * modules that handle one shape only check feint_mesh_is_mixed and refuse. */
#ifndef FEINT_MESH_H
#define FEINT_MESH_H

#include <stddef.h>
#include <stdint.h>

#include "feint/fe.h"

typedef struct {
  int dim;       /* 0..3 */
  int tag;       /* Gmsh physical tag */
  char *name;    /* "" if unnamed */
  int64_t n_elements; /* elements of dimension dim in the group */
} feint_mesh_group;

/* Most blocks: one per 3D cell type. */
#define FEINT_MESH_MAX_BLOCKS 3

typedef struct {
  feint_cell_type cell_type;
  int nv;                  /* vertices of this shape */
  int64_t first_cell;      /* global number of the block's first cell */
  int64_t n_cells;
  int n_geometry_nodes;    /* a curved mesh's: nodes of this shape's curved cells; 0 on straight meshes */
  int64_t n_curved_cells;  /* a curved mesh's: those of its cells that are not affine (curved_cells) */
} feint_mesh_block;

typedef struct {
  char *path;
  int dim;                 /* dimension of the region cells (2 or 3) */

  int64_t n_nodes;
  double *x, *y, *z;       /* n_nodes each; z == 0 in 2D */

  feint_cell_type cell_type; /* blocks[0].cell_type */
  int nv;                  /* vertices per cell (the widest block's) */
  int64_t n_cells;
  int64_t *cells;          /* n_cells x nv node indices (Gmsh vertex order; for
                              hexahedra see fe.h, feint_hexmesh_from_mesh in
                              bp.h permutes to lexicographic order); -1 past
                              the cell's block's nv */
  int n_blocks;            /* 1 .. FEINT_MESH_MAX_BLOCKS */
  feint_mesh_block blocks[FEINT_MESH_MAX_BLOCKS];
  int *cell_group;         /* n_cells: index into groups of the cell's physical group (of lowest tag when
                              its entity is in several), -1 if none; per-group values (form.c) read it */

  int n_groups;
  feint_mesh_group *groups;

  /* Facets of each (dim-1)-dimensional physical group: facet_offsets[g] ..
   * facet_offsets[g+1] index rows of facets (n x nv_facet node indices).
   * nv_facet is the row width: 2 (segments, 2D), 3 (triangles, tetrahedral
   * meshes) or 4 (quadrilaterals, cyclic: hexahedral meshes; prism meshes
   * and 3D mixed meshes with prisms or hexahedra, whose facets may mix
   * triangles and quadrilaterals: a triangle's row ends with -1; the facet
   * types allowed are the faces of the blocks' shapes).
   * feint_mesh_facet_nv gives a row's vertex count. */
  int64_t *facet_offsets;  /* n_groups + 1 */
  int nv_facet;
  int64_t *facets;

  /* Seconds libgmsh itself spent opening (and, for .geo, meshing;
   * refining) the file; 0 when the native reader read a .msh (msh.h). */
  double gmsh_seconds;

  /* 1: straight-sided cells; 2 or more: the file's cells are curved (of
   * that order). Curved cells keep their geometry: geometry_nodes holds,
   * for each cell, the coordinates (x, y, z) of its nodes in Gmsh's order
   * (the vertices first: Gmsh's reference element), and cells and nodes
   * hold the vertices as for straight cells. Each block's cells have
   * blocks[b].n_geometry_nodes nodes (a tetrahedron 10, a prism 18);
   * n_geometry_nodes is the rows' width, the widest block's, and a
   * narrower block's rows are padded with zeros (as cells are with -1).
   * Every cell of a curved mesh is curved and of one geometry order. With
   * feint_mesh_options.curved_ok other curved cells are read by their
   * vertices; without it they are refused. */
  int geometry_order;
  int n_geometry_nodes;    /* 0: straight cells; else the widest block's nodes a cell */
  double *geometry_nodes;  /* n_cells x n_geometry_nodes x 3, or NULL */
  /* Which of them are truly curved (feint_mesh_classify_curved): 1 where
   * an edge node lies off its edge's midpoint by more than
   * FEINT_MESH_AFFINE_TOL of the edge's length. The others (a curved
   * mesh's interior cells, typically) have an affine map, and the
   * backends integrate them as straight cells: J once a cell, the
   * straight cell's rule. NULL on straight meshes. */
  unsigned char *curved_cells;
  int64_t n_curved_cells;

  /* Element counts of the whole file by Gmsh element type name, for `info`. */
  int n_type_counts;
  char **type_names;
  int64_t *type_counts;
} feint_mesh;

typedef struct {
  double size;     /* .geo only: Mesh.MeshSizeMax when > 0 */
  int refine;      /* uniform refinements by Gmsh (gmshModelMeshRefine) */
  int n_region;    /* physical group names selecting the cells; 0 = all */
  const char *const *region;
  const char *where; /* "case.yaml:3:9" of the mesh/region key, for messages; may be NULL */
  int reorder;       /* 1: number the nodes along a Morton curve (feint_mesh_reorder_nodes) */
  int curved_ok;     /* 1 (feint info): cells and facets of higher geometry order (a 10-node
                        tetrahedron) are read by their vertices, as straight-sided cells,
                        geometry_order telling; 0: an input error (curved cells are not
                        supported yet) */
  int blend;         /* 1: feint_mesh_blend_curved_nodes on the mesh read (mesh.curved_nodes: blend) */
} feint_mesh_options;

/* Errors (FEINT_ERR_INPUT): missing/unreadable file, malformed .msh (the
 * native reader's message: file, line or byte offset, what was expected),
 * .geo errors (with Gmsh's message, which names the line where it can), unsupported
 * element types in the region (named, e.g. "9-node triangle"), unknown
 * physical group (listing the valid names), empty region. */
int feint_mesh_read(const char *path, const feint_mesh_options *opts, feint_mesh **out);
/* A process's share of a mesh that several processes read together
 * (mpirun), each its own range of the cells: every share reads the file's
 * headers and group facets, its range of the region's cells and its range
 * of the file's nodes (a binary MSH 4.1 file is mapped, and only the pages
 * of those rows are touched; a text file is parsed whole on every share).
 * The shares number the nodes together (the nodes callback) as
 * feint_mesh_read numbers them, so that a share's mesh holds the whole's
 * facets and groups with the whole's cells [cell0, cell0 + n_cells) in
 * the whole's node numbers: mesh->n_cells counts the share's cells, its
 * blocks are the share's (the whole's are here), mesh->n_nodes counts the
 * whole's nodes, and mesh->x, y, z hold the coordinates of the nodes
 * [node0, node0 + held_nodes) only: its rows' range of them
 * (feint_dist_rows_scalar_range), or, with all_nodes, every node. */
typedef struct feint_mesh_share_nodes feint_mesh_share_nodes;
typedef struct {
  int rank, size;
  /* The share's range of the whole's n cells (the same function on every share). */
  void (*range)(int64_t n, int size, int rank, int64_t *lo, int64_t *hi);
  /* Collective: called once on every share, with its status so far (an
   * error set where it is not FEINT_OK) and its nodes to number (below);
   * job NULL with FEINT_OK: this share reads none (a process that cannot
   * read the file, or a file unsuited). Returns FEINT_OK when every
   * share's status was (job's results filled), an error (set) when one
   * failed, FEINT_MESH_SHARE_DECLINED when one read none (every share is
   * then unsuited, left to the whole read), FEINT_MESH_SHARE_SPARSE when
   * the node tags are too sparse to number in ranges (likewise). */
  int (*nodes)(void *ctx, int status, feint_mesh_share_nodes *job);
  void *ctx;
  /* 1: the file read into memory and parsed whole (as feint_mesh_read
   * reads it), for a share that takes every cell (its range the whole:
   * the process that holds the whole mesh); 0: mapped */
  int eager;
  /* 1: a region of other cells than first-order triangles or tetrahedra
   * of one shape (whose P1 dofs are not their nodes) is read whole by the
   * share that holds every cell, and not at all by the others (unsuited;
   * their nodes callback declines) */
  int simplices_only;
  /* 1: this share's mesh holds every node's coordinates (the process that
   * writes the whole's node datasets); 0: its rows' range only */
  int all_nodes;
  /* out */
  const char *unsuited;   /* not read as a share (*out NULL, FEINT_OK), and why: the same on every share */
  int declined;           /* another share read none, this one holding every cell read the whole mesh */
  int64_t cell0, whole_cells;
  int n_blocks;           /* the whole's blocks */
  feint_mesh_block blocks[FEINT_MESH_MAX_BLOCKS];
  int64_t nodes_in_cells; /* the whole's nodes that its cells use (n_nodes: P1 is on every node) */
  int64_t node0, held_nodes; /* mesh->x[i] is node node0 + i's, i < held_nodes */
} feint_mesh_share;
/* The nodes of one share, numbered by the shares together: the file's
 * n_file nodes, of which this share read [first, first + count) (in file
 * order, each share the next range); the entries of its cells and facets
 * that name nodes by tag (-1: padding) are marked used and renumbered in
 * place; the coordinates it holds come back in x, y, z (malloc'd, the
 * caller's). */
struct feint_mesh_share_nodes {
  const char *path, *pre; /* for messages: the file, and "where: " or "" */
  int64_t n_file, first, count;
  const int64_t *tags;    /* count */
  const double *xyz;      /* 3 count */
  int64_t *entries[2];    /* the cells', the facets' */
  int64_t n_entries[2];
  int dim;                /* 2: the nodes must lie in a plane z = const, stored 0 */
  int all_nodes;
  /* out */
  int64_t n_nodes, nodes_in_cells, node0, held;
  double *x, *y, *z;
};
#define FEINT_MESH_SHARE_DECLINED 100
#define FEINT_MESH_SHARE_SPARSE 101
/* Curved cells, MSH 2 files, .geo files and refinements are unsuited
 * (share->unsuited): read them whole. Errors as feint_mesh_read's; each
 * share finds those in its own range of the cells. */
int feint_mesh_read_share(const char *path, const feint_mesh_options *opts, feint_mesh_share *share,
                          feint_mesh **out);
/* 1 when feint_mesh_read(path, opts) runs libgmsh in a forked child (a
 * .geo, or a refinement): the caller's other threads must not be inside
 * the allocator then (a sanitizer's allocator has no fork handlers and
 * the child would wait on its lock forever), so wait for them first. */
int feint_mesh_read_forks(const char *path, const feint_mesh_options *opts);
/* Renumber the nodes along a Morton (Z-order) curve of their coordinates
 * (ties kept in node order), remapping the cells and facets: neighbouring
 * nodes get neighbouring numbers, which the GPU kernels' vertex gathers
 * read in fewer memory sectors. The cells keep their order (per-cell data
 * stays valid); node-numbered data (dof numbering, node datasets) follows
 * the new order. Deterministic. */
int feint_mesh_reorder_nodes(feint_mesh *mesh);
/* An edge node within this fraction of its edge's length of the midpoint
 * leaves its cell affine: far below any discretisation error, and above
 * the rounding of midpoints written in full precision. */
#define FEINT_MESH_AFFINE_TOL 1e-10
/* Move the face nodes of third-order triangles and tetrahedra (the
 * node inside a 10-node triangle, the four face nodes of a 20-node
 * tetrahedron) to where their face's vertices and edge nodes put them:
 * 1/4 of the six edge nodes minus 1/6 of the three vertices, the
 * quadratic through them at the face's centroid. Gmsh leaves them where
 * the straight face would have them, which costs P3 an order of
 * convergence on a curved domain (src/mesh/blend.c). Other cells keep
 * their nodes. Before feint_mesh_classify_curved. */
void feint_mesh_blend_curved_nodes(feint_mesh *m);
/* Fill m->curved_cells and n_curved_cells from m->geometry_nodes (nothing
 * on a straight mesh). The readers and the parts of mpirun call it. */
int feint_mesh_classify_curved(feint_mesh *m);

void feint_mesh_destroy(feint_mesh *mesh);

/* Vertices of facet f: nv_facet, or 3 for a triangle in rows of 4 (prism and 3D mixed meshes). */
static inline int feint_mesh_facet_nv(const feint_mesh *mesh, int64_t f) {
  return mesh->nv_facet == 4 && mesh->facets[f * 4 + 3] < 0 ? 3 : mesh->nv_facet;
}

/* Cell c's geometry nodes (x, y, z each) when it is integrated by nv
 * nodes: its row of geometry_nodes when nv exceeds the mesh's vertices a
 * cell (a curved cell's nodes are always more than any shape's vertices),
 * else NULL (a straight cell, or an affine cell of a curved mesh: read its
 * vertices). */
static inline const double *feint_mesh_curved_nodes(const feint_mesh *m, int64_t c, int nv) {
  return m->geometry_nodes && nv > m->nv ? m->geometry_nodes + (size_t)c * (size_t)m->n_geometry_nodes * 3 : NULL;
}

/* The geometry's nodes a cell of block b: its curved nodes on a curved
 * mesh, else the shape's vertices. */
static inline int feint_mesh_block_geometry_nodes(const feint_mesh *m, int b) {
  return m->n_geometry_nodes ? m->blocks[b].n_geometry_nodes : m->blocks[b].nv;
}

/* The block holding cell c. */
static inline int feint_mesh_cell_block(const feint_mesh *m, int64_t c) {
  int b = 0;
  while (b + 1 < m->n_blocks && c >= m->blocks[b + 1].first_cell) b++;
  return b;
}

/* 1 when the region holds cells of more than one shape. */
static inline int feint_mesh_is_mixed(const feint_mesh *mesh) { return mesh->n_blocks > 1; }

/* "triangles + quadrilaterals": the shapes of the blocks, for messages. */
const char *feint_mesh_shapes(const feint_mesh *mesh, char *buf, size_t size);

/* Index of the physical group with this name and dimension, -1 if none. */
int feint_mesh_find_group(const feint_mesh *mesh, const char *name, int dim);
/* The cells of a straight mesh of triangles or tetrahedra (one shape)
 * that may hold a facet of the facet groups groups[0..n_groups) (-1 or
 * past the groups: none): those with a facet's worth of vertices on the
 * groups' facets, among them every cell holding one of those facets. *n
 * rows of the mesh's nv node numbers (*rows, freed by the caller), in
 * cell order. A facet's lowest-numbered cell is the first of them that
 * holds it; on shares of the mesh (each rank a range of the cells, dist.h)
 * gathered in rank order they are the whole's, in the whole's order. */
int feint_mesh_facet_cells(const feint_mesh *mesh, const int *groups, int n_groups, int64_t **rows, int64_t *n);
/* A view of a mesh of one shape (its nodes, facets and groups) with n
 * other cells of that shape (rows of its nv nodes, such as
 * feint_mesh_facet_cells gives) in place of its own, without their
 * groups: read while mesh and cells live, never destroyed. */
feint_mesh feint_mesh_cells_view(const feint_mesh *mesh, const int64_t *cells, int64_t n);
/* Each cell's physical group's Gmsh tag into tags[0..n_cells) (-1: none). */
void feint_mesh_cell_group_tags(const feint_mesh *mesh, int64_t *tags);
/* "a, b, c": the named physical groups of dimension dim, for the messages
 * of keys that name groups ("" when there are none); returns buf. */
const char *feint_mesh_group_names(const feint_mesh *mesh, int dim, char *buf, size_t len);
/* The index of the group `name` of dimension dim in *out, or an input
 * error "<where>: <key>: unknown physical group 'x' (groups of dimension
 * d: a, b)", or, when the name is a group of another dimension, one saying
 * that <needs> need a group of dimension dim (boundary conditions, ...). */
int feint_mesh_need_group(const feint_mesh *mesh, const char *name, int dim, const char *where, const char *key,
                          const char *needs, int *out);

/* Geometry summaries for `feint info`. Quality is the normalised
 * inscribed-over-circumscribed radius ratio (1 for the equilateral cell,
 * 0 for a degenerate one); worst = minimum over cells. */
typedef struct {
  double bbox_min[3], bbox_max[3];
  double volume;          /* sum of |cell volume| of the region */
  double worst_quality;
  int64_t worst_cell;
  int64_t n_inverted;     /* cells with negative orientation (Jacobian) */
} feint_mesh_stats;
void feint_mesh_compute_stats(const feint_mesh *mesh, feint_mesh_stats *stats);

#endif
