/* The mesh read by every rank, each its share of the cells
 * (feint_mesh_read_share), rather than whole by rank 0: the ranks number
 * the nodes together, each reading its range of the file's nodes (below),
 * so that each numbers them as a whole read would and holds its rows'
 * range of their coordinates; and a rank's slab of the whole (slab.c) is
 * then its share as it lies, with no message from rank 0. */
#include <stdlib.h>
#include <string.h>

#include "dist/part_format.h"
#include "dist/slab.h"
#include "feint/error.h"
#include "feint/parallel.h"
#include "feint/space.h"

int feint_dist_slab_of_share(const feint_mesh *m, const feint_mesh_share *share, const int *part,
                             int components, feint_dist_slab **out) {
  *out = NULL;
  /* where the whole's P1 space is the connectivity (space.c: triangles or tetrahedra, every node a cell's);
   * other shapes number their dofs apart, and their slabs carry dof maps */
  if (share->nodes_in_cells != m->n_nodes || m->geometry_order != 1 || share->n_blocks != 1 ||
      !feint_cell_is_simplex(share->blocks[0].cell_type))
    return feint_error_set(FEINT_ERR_COMPUTE,
                           "internal: a slab of a share is P1 on every node of straight triangles or tetrahedra");
  feint_dist_slab *sl = NULL;
  FEINT_CALL(feint_calloc(1, sizeof *sl, &sl, "a slab of the mesh"));
  /* the whole's node family: its blocks' (a share's own blocks are its cells') */
  feint_mesh whole = *m;
  whole.n_blocks = share->n_blocks;
  memcpy(whole.blocks, share->blocks, sizeof whole.blocks);
  part_whole *w = &sl->whole;
  *w = (part_whole){.dim = m->dim, .nv_facet = m->nv_facet, .geometry_order = 1, .order = 1,
                    .components = components, .family = (int)feint_space_mesh_family(&whole),
                    .n_groups = m->n_groups, .n_blocks = share->n_blocks, .groups = m->groups, .path = m->path,
                    .n_cells = share->whole_cells, .n_scalar_dofs = m->n_nodes};
  int nb = 0;
  for (int b = 0; b < share->n_blocks; b++) {
    const feint_mesh_block *B = &share->blocks[b];
    w->blocks[b] = (part_block){(int32_t)B->cell_type, B->nv, 0, B->nv, B->first_cell, B->n_cells};
    nb = B->nv > nb ? B->nv : nb;
  }
  sl->size = share->size;
  sl->rank = share->rank;
  sl->nv = m->nv;
  sl->nb = nb;
  sl->whole_nodes = m->n_nodes;
  sl->cell0 = share->cell0;
  sl->n_cells = m->n_cells;
  sl->cells = m->cells;
  sl->groups = m->cell_group;
  sl->part = part;
  int64_t v1 = 0;
  const double *xyz[3];
  const int st = share_rows_view(m, share, &sl->node0, &v1, xyz);
  if (st) {
    free(sl);
    return st;
  }
  sl->n_nodes = v1 - sl->node0;
  sl->x = xyz[0];
  sl->y = xyz[1];
  sl->z = xyz[2];
  *out = sl;
  return FEINT_OK;
}

/* One share's rows of cells and groups copied to its range of the whole's, in parallel */
typedef struct {
  int nv;
  const int64_t *cells;
  const int *groups;
  int64_t *to_cells;
  int *to_groups;
} piece_job;

static void piece_range(int64_t a, int64_t b, void *arg) {
  const piece_job *j = arg;
  memcpy(j->to_cells + a * j->nv, j->cells + a * j->nv, (size_t)((b - a) * j->nv) * sizeof *j->to_cells);
  if (j->to_groups) memcpy(j->to_groups + a, j->groups + a, (size_t)(b - a) * sizeof *j->to_groups);
}

int feint_dist_whole_of_shares(feint_mesh *m, const feint_mesh_share *share, int size, feint_dist_share_piece piece,
                               void *ctx) {
  int64_t lo = 0, hi = 0;
  share->range(share->whole_cells, size, share->rank, &lo, &hi);
  if (share->rank != 0 || lo != 0 || hi != m->n_cells || share->n_blocks < 1)
    return feint_error_set(FEINT_ERR_COMPUTE, "internal: the whole gathered on a share other than rank 0's");
  int64_t *whole_cells = NULL;
  int *whole_groups = NULL;
  FEINT_CALL(feint_malloc((size_t)(share->whole_cells * m->nv) + 1, sizeof *whole_cells, &whole_cells, "the cells"));
  int status = m->cell_group ? feint_malloc((size_t)share->whole_cells + 1, sizeof *whole_groups, &whole_groups,
                                            "the cells' groups")
                             : FEINT_OK;
  /* rank 0's own rows, then each other share's as it comes (one piece held at a time) */
  for (int k = 0; k < size && !status; k++) {
    share->range(share->whole_cells, size, k, &lo, &hi);
    piece_job j = {m->nv, m->cells, m->cell_group, whole_cells + lo * m->nv, whole_groups ? whole_groups + lo : NULL};
    int64_t n = m->n_cells;
    if (k) status = piece(ctx, k, &j.cells, &j.groups, &n);
    if (!status && (n != hi - lo || (n > 0 && (!j.cells || (whole_groups && !j.groups)))))
      status = feint_error_set(FEINT_ERR_COMPUTE, "internal: rank %d's share holds %lld cells, not %lld", k,
                               (long long)n, (long long)(hi - lo));
    if (!status) feint_parallel_for(n, 1 << 16, piece_range, &j);
  }
  if (status) {
    free(whole_cells);
    free(whole_groups);
    return status;
  }
  free(m->cells);
  free(m->cell_group);
  m->cells = whole_cells;
  m->cell_group = whole_groups;
  m->n_cells = share->whole_cells;
  m->n_blocks = share->n_blocks;
  memcpy(m->blocks, share->blocks, sizeof m->blocks);
  m->cell_type = m->blocks[0].cell_type;
  return FEINT_OK;
}

/* The share's space's arrays: the identity (vertices, scalar dofs), the cells' whole numbers */
typedef struct {
  int64_t *vertex, *dof, *cell, cell0;
} share_space_job;

static void share_nodes_range(int64_t a, int64_t b, void *arg) {
  const share_space_job *j = arg;
  for (int64_t i = a; i < b; i++) j->vertex[i] = j->dof[i] = i;
}

static void share_cells_range(int64_t a, int64_t b, void *arg) {
  const share_space_job *j = arg;
  for (int64_t c = a; c < b; c++) j->cell[c] = j->cell0 + c;
}

int feint_dist_space_of_share(const feint_mesh *m, const feint_mesh_share *share, int components, feint_space **out) {
  *out = NULL;
  if (share->nodes_in_cells != m->n_nodes || feint_mesh_is_mixed(m) || !feint_cell_is_simplex(m->cell_type))
    return feint_error_set(FEINT_ERR_COMPUTE, "internal: P1's space of a share needs every node a cell's, simplices");
  if (share->node0 != 0 || share->held_nodes != m->n_nodes) /* its dofs are every node, at the nodes */
    return feint_error_set(FEINT_ERR_COMPUTE, "internal: P1's space of a share needs every node's coordinates");
  double *xyz = NULL;
  FEINT_CALL(part_node_coordinates(m, &xyz));
  /* P1 on every node: the dofs are the nodes, the dof map the share's cells (the connectivity) */
  FEINT_CALL(feint_space_create_from_map(m, 1, components, feint_space_mesh_family(m), m->n_nodes, NULL, xyz, out));
  feint_space *s = *out;
  /* as the whole's P1 space numbers its vertices (a facet's dofs are its nodes), and as a part is placed in the
   * whole (datasets given for the whole are read for the share's cells) */
  s->n_vertices = m->n_nodes;
  s->whole_cells = share->whole_cells;
  s->whole_scalar_dofs = m->n_nodes;
  int status = feint_malloc((size_t)m->n_nodes + 1, sizeof *s->vertex_dof, &s->vertex_dof, "vertex numbering");
  if (!status) status = feint_malloc((size_t)m->n_nodes + 1, sizeof *s->whole_scalar_dof, &s->whole_scalar_dof,
                                     "the dofs' numbers");
  if (!status)
    status = feint_malloc((size_t)m->n_cells + 1, sizeof *s->whole_cell, &s->whole_cell, "the cells' numbers");
  if (!status) {
    share_space_job j = {s->vertex_dof, s->whole_scalar_dof, s->whole_cell, share->cell0};
    feint_parallel_for(m->n_nodes, 1 << 15, share_nodes_range, &j);
    feint_parallel_for(m->n_cells, 1 << 15, share_cells_range, &j);
  }
  if (status) {
    feint_space_destroy(s);
    *out = NULL;
  }
  return status;
}
