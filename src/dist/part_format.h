/* Private to src/dist: what a part is made of, shared by the two ways a
 * part is made: packed by rank 0 from the whole into a message
 * (feint_dist_part_pack, part.c; feint_dist_part_unpack reads it) and
 * built by its own rank from slabs of the whole (feint_dist_part_build_start,
 * slab.c). Both make the part's mesh and space through part_contents_make;
 * the slab's message is written and read with the same filler and reader. */
#ifndef FEINT_DIST_PART_FORMAT_H
#define FEINT_DIST_PART_FORMAT_H

#include <stdint.h>
#include <string.h>

#include "feint/mesh.h"
#include "feint/space.h"

/* Appends to a message sized in advance (its bytes are counted first). */
typedef struct {
  char *at;
} part_filler;
static inline void part_fill(part_filler *f, const void *p, size_t n) {
  if (n) memcpy(f->at, p, n);
  f->at += n;
}
static inline void part_fill_i32(part_filler *f, int32_t v) { part_fill(f, &v, sizeof v); }
static inline void part_fill_i64(part_filler *f, int64_t v) { part_fill(f, &v, sizeof v); }

/* A message read with its bounds checked: a read past its end marks it
 * failed and gives NULL (a copy: nothing copied). */
typedef struct {
  const char *data;
  size_t size, at;
  int failed;
} part_reader;
static inline const void *part_take(part_reader *r, size_t n) {
  if (r->failed || n > r->size - r->at) {
    r->failed = 1;
    return NULL;
  }
  const void *p = r->data + r->at;
  r->at += n;
  return p;
}
static inline void part_take_copy(part_reader *r, void *to, size_t n) {
  const void *p = part_take(r, n);
  if (p) memcpy(to, p, n);
}

/* What a part's message says of the whole mesh and space. */
typedef struct {
  int32_t cell_type, nv, ng, nb; /* ng: the block's geometry nodes (curved); nb: its scalar basis functions */
  int64_t first_cell, n_cells;
} part_block;
typedef struct {
  int dim, nv_facet, geometry_order, order, components, family, n_groups, n_blocks;
  const feint_mesh_group *groups; /* n_groups (not owned) */
  const char *path;               /* the mesh file's (not owned) */
  part_block blocks[FEINT_MESH_MAX_BLOCKS];
  int64_t n_cells, n_scalar_dofs; /* the whole's */
} part_whole;
void part_whole_of(const feint_space *s, part_whole *w);

/* A part's shape: the whole's blocks it has cells of (in_block[b] of
 * them), the widest of those blocks' vertices and basis functions. */
typedef struct {
  const int64_t *in_block;
  int n_blocks, nv, nb;
} part_shape;
part_shape part_shape_of(const part_whole *w, const int64_t *in_block);

/* A part's mesh head: the whole's blocks it has cells of (ps, first
 * cells counted from 0), the whole's groups and path copied, its counts;
 * no arrays yet, no facets (rank 0 integrates the boundary on the whole). */
int part_mesh_head(const part_whole *w, const part_shape *ps, int64_t n_nodes, int64_t n_cells, feint_mesh **out);

/* The mesh's nodes' coordinates interleaved (3 doubles a node: *xyz, the
 * caller frees), in parallel: where P1's dofs sit on every node. */
int part_node_coordinates(const feint_mesh *m, double **xyz);
/* n points' coordinates given per axis, interleaved the same way. */
int part_interleave(const double *x, const double *y, const double *z, int64_t n, double **xyz);

/* What a part is made of, read from its message (feint_dist_part_unpack)
 * or gathered by its build (slab.c): the mesh (head and arrays) and the
 * space's arrays, all taken over by part_contents_make. */
typedef struct {
  feint_mesh *mesh;
  int order, components, family, nb; /* nb: the part's widest row of scalar dofs */
  int64_t n_dofs;
  int64_t *sdofs;       /* n_cells x nb scalar dofs, or NULL: P1 on every node (the connectivity) */
  double *coordinates;  /* n_dofs x 3, or NULL with sdofs NULL: made from the nodes' */
  int64_t whole_cells, whole_dofs, *whole_cell, *whole_dof; /* the part's place in the whole */
} part_contents;
/* The part's mesh and space (both NULL on failure); what pc holds is
 * taken over (freed on failure). */
int part_contents_make(part_contents *pc, feint_mesh **mesh, feint_space **space);

/* Local numbers of the whole numbers marked in map (map[i] == 0 marks
 * whole number first + i; the others -1): ascending, map[i] set to each
 * marked one's, and their list (*list, *n: the caller frees). In
 * parallel. */
int part_number_marked(int64_t *map, int64_t n_range, int64_t first, int64_t **list, int64_t *n, const char *what);

#endif
