/* Private to src/dist: the format of a part's message (dist.h), shared by
 * the two ways a part is made: packed by rank 0 from the whole
 * (feint_dist_part_pack, part.c) and built by its own rank from slabs of
 * the whole (feint_dist_part_build_start, slab.c). Both write the same bytes,
 * which feint_dist_part_unpack reads. */
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

/* The message's flags: local indices as int32; P1 on every node (no dof
 * map sent: dof = node); the cells' whole numbers and their groups as
 * runs; and, above PART_GEOMETRY_SHIFT, the curved cells' geometry nodes. */
enum { PART_NARROW = 1, PART_DOFS_ARE_NODES = 2, PART_NUMBERS_AS_RUNS = 4, PART_GROUPS_AS_RUNS = 8 };
enum { PART_GEOMETRY_SHIFT = 4 };

/* The message's head (magic, counts, blocks, groups, the mesh's path):
 * its bytes, and written. */
size_t part_head_bytes(const part_whole *w, const part_shape *ps);
void part_fill_head(part_filler *f, const part_whole *w, const part_shape *ps, int flags, int64_t n_nodes,
                    int64_t n_cells, int64_t n_dofs);

/* A per-cell column of a part, sent as runs where that is smaller: its
 * cells' whole numbers (step 1), or their groups (step 0), read from the
 * whole's groups (group[cells[i]]) or from the part's own (part_group[i]);
 * both NULL: -1. A run is its first value and length (two int64). */
typedef struct {
  const int64_t *cells;
  const int *group, *part_group;
  int step;
} part_column;
int64_t part_count_runs(const part_column *c, int64_t n);
void part_fill_runs(part_filler *f, const part_column *c, int64_t n, int64_t n_runs);

/* Local numbers of the whole numbers marked in map (map[i] == 0 marks
 * whole number first + i; the others -1): ascending, map[i] set to each
 * marked one's, and their list (*list, *n: the caller frees). In
 * parallel. */
int part_number_marked(int64_t *map, int64_t n_range, int64_t first, int64_t **list, int64_t *n, const char *what);

#endif
