/* feint msh: a native reader for Gmsh .msh files (no libgmsh).
 *
 * Reads MSH 4.1 and 2.x (2.0, 2.1, 2.2), ASCII or binary (little-endian,
 * 8-byte data size) into a plain model: physical names, entities with their
 * physical tags, nodes (tags and coordinates) and element blocks per
 * (entity dimension, entity tag, Gmsh element type). feint_mesh_read
 * (mesh.h) builds a feint_mesh from this model; the libgmsh path for .geo
 * files fills the same model, so one builder serves both.
 *
 * The file is read once into memory (one read after a first-line check: a
 * file that does not start with "$MeshFormat" is refused before the rest is
 * read) and parsed in one pass; the buffer is freed before return.
 *
 * Safety: the reader is meant for untrusted files. Every count is checked
 * against the bytes left in the file before anything is allocated for it
 * (no allocation exceeds a small multiple of the file's size), every size
 * product is checked for overflow, and every malformed input yields
 * FEINT_ERR_INPUT with a message naming the file, the line (text) or byte
 * offset (binary data) and what was expected, e.g.
 *   box.msh:12: expected a node count, got 'abc'
 *   box.msh: not a Gmsh mesh (expected "$MeshFormat" on line 1)
 *
 * Sections: $MeshFormat, $PhysicalNames, $Entities (4.1), $Nodes and
 * $Elements are read ($Nodes and $Elements are required, once each); other
 * sections ($Periodic, $NodeData, $ElementData, $Parametrizations,
 * $Comments, ...) are skipped to their $End marker; $PartitionedEntities
 * (partitioned meshes) and $GhostElements are refused. MSH 4.0 and 3.0 are
 * refused (convert with `gmsh FILE -save -format msh41`).
 *
 * Order, as libgmsh gives it (so both paths build identical meshes):
 * entities sorted by (dim, tag); element blocks sorted by entity, then by
 * element family in Gmsh's order (points; lines; triangles, quadrilaterals,
 * polygons; tetrahedra, hexahedra, prisms, pyramids, trihedra, polyhedra),
 * then type; elements within a block and blocks of one key in file order.
 * Nodes are in file order.
 *
 * MSH 2: entities are derived from the elements' tags (tag 1 elementary,
 * tag 0 physical; 0 = none); an element listed once per physical group is
 * kept as often as listed (repeats = 1; the builder removes the copies).
 *
 * Not checked here (the builder checks what it uses): that elements refer
 * to defined nodes, and that node tags are unique. */
#ifndef FEINT_MSH_H
#define FEINT_MSH_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
  int dim, tag;
  char *name;
} feint_msh_name;

typedef struct {
  int dim, tag;
  size_t n_physicals;
  int *physicals; /* physical tags, as listed (may be NULL when none) */
} feint_msh_entity;

typedef struct {
  int dim, tag;   /* the entity */
  int type;       /* Gmsh element type (1 = 2-node line, 4 = 4-node tetrahedron, ...) */
  int nn;         /* nodes per element */
  size_t n;       /* elements */
  int64_t *nodes; /* n x nn node tags (may be NULL when n == 0, or for a block left in the file) */
  /* A block left in the file (feint_msh_read_shared): NULL, or its n rows
   * in the file's mapping, each the element tag and nn node tags (8 bytes
   * each, as the binary file has them). feint_msh_block_rows reads either. */
  const char *rows;
} feint_msh_block;

/* A block of nodes left in the file (feint_msh_read_shared): its n tags
 * (8 bytes each) at tags, then their coordinates, nc values (8 bytes) a
 * node, the first three x, y, z (a parametric node's others after them);
 * the file's nodes [first, first + n). */
typedef struct {
  size_t first, n;
  const char *tags, *coordinates;
  int nc;
} feint_msh_node_block;

typedef struct {
  int version;    /* 41 or 22 (2.0 and 2.1 read as 22) */
  int binary;
  int repeats;    /* 1: elements may be listed once per physical group (MSH 2) */

  size_t n_names;
  feint_msh_name *names;       /* $PhysicalNames, as listed */

  size_t n_entities;
  feint_msh_entity *entities;  /* sorted by (dim, tag), unique */

  size_t n_nodes;
  int64_t *node_tags;          /* n_nodes, >= 1; NULL where the nodes are left in the file */
  double *xyz;                 /* 3 x n_nodes; likewise */
  /* feint_msh_read_shared, a binary MSH 4.1 file: the nodes left in the
   * file's mapping, block by block (node_tags and xyz NULL), so that each
   * process reads only the range it takes (feint_msh_nodes) */
  size_t n_node_blocks;
  feint_msh_node_block *node_blocks;

  size_t n_blocks;
  feint_msh_block *blocks;     /* order above; every block's entity is in entities */

  void *mapping;               /* feint_msh_read_shared: the file, mapped (the blocks left in it), or NULL */
  size_t mapping_bytes;
} feint_msh;

/* Read path. *out is NULL on error. Errors: FEINT_ERR_INPUT for anything in
 * the file (and an unreadable file), FEINT_ERR_COMPUTE for out of memory. */
int feint_msh_read(const char *path, feint_msh **out);
/* As feint_msh_read, for one of several processes that each use a share
 * of the elements (mpirun): the file is mapped rather than read, and in a
 * binary MSH 4.1 file the element blocks of dimension 2 and 3 are left in
 * it (blocks[b].rows), so that a process touches only the pages of the
 * rows it uses; so are its nodes (node_blocks), which each process reads
 * its range of. Other files are read as feint_msh_read reads them. */
int feint_msh_read_shared(const char *path, feint_msh **out);
/* 1 when path begins as a binary MSH 4.1 file ("$MeshFormat", "4.1 1 8"):
 * reads its first bytes only. The files feint_msh_read_shared leaves
 * element blocks in. */
int feint_msh_is_binary41(const char *path);
/* Rows [first, first + count) of block B, the first `width` (<= B->nn)
 * node tags of each, into dst (count x width), whether B holds them or
 * left them in the file; on every core. */
void feint_msh_block_rows(const feint_msh_block *B, size_t first, size_t count, int width, int64_t *dst);
/* The file's nodes [first, first + count): their tags into tags and
 * coordinates into xyz (3 a node), whether the model holds them or left
 * them in the file; on every core. FEINT_ERR_INPUT (the byte named) for a
 * tag below 1 among those left in the file (the parser checks the others). */
int feint_msh_nodes(const feint_msh *m, const char *path, size_t first, size_t count, int64_t *tags, double *xyz);
/* node_tags and xyz filled from the nodes left in the file (nothing where
 * the model holds them already). */
int feint_msh_load_nodes(feint_msh *m, const char *path);
/* As feint_msh_read from a buffer of size bytes (path names it in
 * messages); the buffer need not be terminated. For the fuzz harness. */
int feint_msh_parse(const char *path, const char *data, size_t size, feint_msh **out);
void feint_msh_destroy(feint_msh *msh);

/* Gmsh element types (the MSH type table, types 1..140). */
/* Nodes per element; 0 for an unknown type or one without a fixed count
 * (polygons, polyhedra). */
int feint_msh_type_nodes(int type);
/* Dimension of the element; -1 for an unknown type. */
int feint_msh_type_dim(int type);
/* Gmsh's name ("Tetrahedron 4", "Triangle 3", "Line 2", "Point"), as
 * gmshModelMeshGetElementProperties gives it; NULL for an unknown type. */
const char *feint_msh_type_name(int type);

/* An empty model, to be filled by the functions below. */
int feint_msh_create(feint_msh **out);
/* Add a block (takes nodes) / an entity (takes physicals) to a model being
 * built, and sort the model into the order above (stable). For sources
 * other than the parser (the libgmsh path for .geo files). */
int feint_msh_add_block(feint_msh *msh, int dim, int tag, int type, size_t n, int64_t *nodes);
int feint_msh_add_entity(feint_msh *msh, int dim, int tag, size_t n_physicals, int *physicals);
int feint_msh_add_name(feint_msh *msh, int dim, int tag, const char *name);
int feint_msh_finish(feint_msh *msh, const char *path);

#endif
