/* Dof maps of mixed meshes (space.h): cells of several shapes, one block
 * each.
 *
 * A node of a cell's element lies on the mesh entity spanned by the cell
 * vertices whose first-order shape functions do not vanish there: one
 * vertex, an edge's two, a face's three or four, or all of the cell's
 * vertices (the interior). The values of those shape functions at the node
 * (its weights on the entity's vertices) place it within the entity
 * independently of the cell, so (sorted vertex dofs, weights in that
 * order) identify the dof whichever block the cell belongs to and however
 * it is oriented, wherever neighbouring shapes put their nodes at the same
 * points. They do because every block takes one node family (fe.h):
 * equispaced when no block is made of quadrilaterals or hexahedra
 * (tetrahedra + prisms), else Lobatto, whose triangles have the GLL points
 * on their edges and whose prisms have the hexahedron's GLL x GLL nodes on
 * their quadrilateral faces; both families are symmetric under vertex
 * permutations, so shared faces match in every orientation. Sorting these
 * keys by entity size, vertices, then weights gives the numbering of
 * space.h (edges by sorted vertex pair, each from the lower to the higher
 * vertex, then faces); interiors follow, cell by cell. */
#include <stdlib.h>
#include <string.h>

#include "feint/error.h"
#include "feint/parallel.h"
#include "space/space_private.h"

enum { MAX_NB = 512 }; /* the order 7 hexahedron (mixed meshes stop at order 7) */

/* The entity a node of a shape's element lies on: its local vertices
 * (n = 1 vertex, 2..4 edge or face), or n = 0 for the cell interior, and
 * the node's weights on them. */
typedef struct {
  int n;
  int v[4];
  double w[4];
} node_support;

static int node_supports(const feint_mesh_block *B, const feint_element *el, node_support *sup) {
  double *N = NULL;
  FEINT_CALL(feint_malloc((size_t)(el->nb * B->nv), sizeof *N, &N, "vertex shape table"));
  feint_cell_vertex_shape(B->cell_type, el->nb, el->nodes, N, NULL);
  for (int i = 0; i < el->nb; i++) {
    int n = 0, v[8];
    for (int k = 0; k < B->nv; k++)
      if (N[i * B->nv + k] > 1e-12 || N[i * B->nv + k] < -1e-12) v[n++] = k;
    sup[i].n = n == B->nv ? 0 : n; /* every vertex: the interior (faces have at most 4) */
    for (int k = 0; k < 4 && k < n && n < B->nv; k++) {
      sup[i].v[k] = v[k];
      sup[i].w[k] = N[i * B->nv + v[k]];
    }
  }
  free(N);
  return FEINT_OK;
}

/* An entity node of one cell: its sorted vertex dofs (n of them), its
 * weights on them (same order) and where its dof goes in
 * scalar_cell_dofs. */
typedef struct {
  int n;
  int64_t k[4];
  double w[4];
  int64_t slot;
} entity_key;

static int cmp_entity(const entity_key *a, const entity_key *b) {
  if (a->n != b->n) return a->n < b->n ? -1 : 1;
  for (int i = 0; i < a->n; i++)
    if (a->k[i] != b->k[i]) return a->k[i] < b->k[i] ? -1 : 1;
  return 0;
}

/* Entity, then the weights on its last vertices first (ascending): an
 * edge's nodes run from the lower to the higher vertex, a triangle's come
 * in lattice order (space.h). Weights of one point agree to round-off;
 * distinct nodes differ by far more than the tolerance. */
static int cmp_key(const void *pa, const void *pb) {
  const entity_key *a = pa, *b = pb;
  const int c = cmp_entity(a, b);
  if (c) return c;
  for (int i = a->n - 1; i > 0; i--)
    if (a->w[i] < b->w[i] - 1e-9 || a->w[i] > b->w[i] + 1e-9) return a->w[i] < b->w[i] ? -1 : 1;
  return 0;
}

/* The keys in cmp_key's order, on every core: a counting sort by
 * (entity size, lowest vertex dof), the buckets cmp_key orders first,
 * then each bucket (the few nodes on the entities of one lowest vertex)
 * sorted in place. The same order as one qsort of all keys, which took
 * most of a mixed mesh's dof map on one core. */
typedef struct {
  entity_key *sorted;
  const int64_t *start; /* bucket b: sorted[start[b] .. start[b + 1]) */
} bucket_sort;

static void sort_buckets(int64_t b0, int64_t b1, void *ctx) {
  const bucket_sort *j = ctx;
  for (int64_t b = b0; b < b1; b++) {
    entity_key *a = j->sorted + j->start[b];
    const int64_t n = j->start[b + 1] - j->start[b];
    for (int64_t i = 1; i < n; i++) { /* insertion sort: stable, and buckets are short */
      const entity_key k = a[i];
      int64_t q = i;
      for (; q > 0 && cmp_key(&a[q - 1], &k) > 0; q--) a[q] = a[q - 1];
      a[q] = k;
    }
  }
}

static int sort_keys(const feint_space *s, entity_key **keys, int64_t n_keys) {
  const int64_t nv = s->n_vertices, n_buckets = 3 * nv; /* entities of 2, 3 or 4 vertices */
  int64_t *start = NULL;
  entity_key *sorted = NULL;
  int status = feint_calloc((size_t)n_buckets + 2, sizeof *start, &start, "entity buckets");
  if (!status) status = feint_malloc((size_t)n_keys + 1, sizeof *sorted, &sorted, "entity keys");
  if (status) {
    free(start);
    return status;
  }
  const entity_key *k = *keys;
  for (int64_t i = 0; i < n_keys; i++) start[(k[i].n - 2) * nv + k[i].k[0] + 2]++;
  for (int64_t b = 2; b <= n_buckets + 1; b++) start[b] += start[b - 1];
  for (int64_t i = 0; i < n_keys; i++) sorted[start[(k[i].n - 2) * nv + k[i].k[0] + 1]++] = k[i];
  bucket_sort j = {sorted, start};
  feint_parallel_for(n_buckets, 1 << 14, sort_buckets, &j);
  free(start);
  free(*keys);
  *keys = sorted;
  return FEINT_OK;
}

/* Number the sorted keys (dofs first + distinct rank) and build the edge
 * lookup of feint_space from the edges (n == 2) among them. */
static int number_keys(feint_space *s, const entity_key *keys, int64_t n_keys) {
  int64_t n_nodes = 0, n_edges = 0;
  for (int64_t i = 0; i < n_keys; i++) {
    n_nodes += i == 0 || cmp_key(&keys[i], &keys[i - 1]);
    n_edges += keys[i].n == 2 && (i == 0 || cmp_entity(&keys[i], &keys[i - 1]));
    s->scalar_cell_dofs[keys[i].slot] = s->n_vertices + n_nodes - 1;
  }
  s->n_edges = n_edges;
  s->n_scalar_dofs = s->n_vertices + n_nodes;
  if (s->order == 1) return FEINT_OK;
  FEINT_CALL(feint_calloc((size_t)s->n_vertices + 1, sizeof *s->edge_ptr, &s->edge_ptr, "edge lookup"));
  FEINT_CALL(feint_malloc((size_t)n_edges + 1, sizeof *s->edge_upper, &s->edge_upper, "edge lookup"));
  int64_t e = 0;
  for (int64_t i = 0; i < n_keys && keys[i].n == 2; i++)
    if (i == 0 || cmp_entity(&keys[i], &keys[i - 1])) {
      s->edge_ptr[keys[i].k[0] + 1]++;
      s->edge_upper[e++] = keys[i].k[1];
    }
  for (int64_t v = 0; v < s->n_vertices; v++) s->edge_ptr[v + 1] += s->edge_ptr[v];
  return FEINT_OK;
}

/* One block's cells' vertex dofs and entity keys, on every core: a cell's
 * keys sit at its place in the block's run of keys (per_cell a cell). */
typedef struct {
  feint_space *s;
  const feint_mesh_block *B;
  const node_support *sup;
  int nb, per_cell;
  entity_key *keys; /* the block's first */
} cell_keys;

static void cell_keys_range(int64_t c0, int64_t c1, void *ctx) {
  const cell_keys *j = ctx;
  feint_space *s = j->s;
  const feint_mesh *m = s->mesh;
  for (int64_t c = j->B->first_cell + c0; c < j->B->first_cell + c1; c++) {
    const int64_t *cv = m->cells + c * m->nv;
    int64_t *dofs = s->scalar_cell_dofs + c * s->nb;
    entity_key *K = j->keys + (c - j->B->first_cell) * j->per_cell;
    for (int i = 0; i < s->nb; i++) dofs[i] = -1;
    for (int i = 0; i < j->nb; i++) {
      const node_support *S = &j->sup[i];
      if (S->n == 1) dofs[i] = s->vertex_dof[cv[S->v[0]]];
      if (S->n < 2) continue;
      K->n = S->n;
      K->slot = c * s->nb + i;
      for (int a = 0; a < S->n; a++) { /* insertion sort of the vertex dofs, weights alongside */
        int64_t g = s->vertex_dof[cv[S->v[a]]];
        int q = a;
        for (; q > 0 && K->k[q - 1] > g; q--) {
          K->k[q] = K->k[q - 1];
          K->w[q] = K->w[q - 1];
        }
        K->k[q] = g;
        K->w[q] = S->w[a];
      }
      K++;
    }
  }
}

/* Vertex dofs (region vertices in mesh node order), entity keys of every
 * cell's edge and face nodes, then the numbering. */
static int number_dofs(feint_space *s, node_support sup[][MAX_NB]) {
  const feint_mesh *m = s->mesh;
  FEINT_CALL(feint_malloc((size_t)m->n_nodes, sizeof *s->vertex_dof, &s->vertex_dof, "vertex numbering"));
  for (int64_t i = 0; i < m->n_nodes; i++) s->vertex_dof[i] = -1;
  for (int64_t k = 0; k < m->n_cells * m->nv; k++)
    if (m->cells[k] >= 0) s->vertex_dof[m->cells[k]] = 0;
  for (int64_t i = 0; i < m->n_nodes; i++)
    if (s->vertex_dof[i] == 0) s->vertex_dof[i] = s->n_vertices++;
  int64_t n_keys = 0;
  for (int b = 0; b < m->n_blocks; b++)
    for (int i = 0; i < s->blocks[b].nb; i++) n_keys += sup[b][i].n >= 2 ? m->blocks[b].n_cells : 0;
  entity_key *keys = NULL;
  FEINT_CALL(feint_malloc((size_t)n_keys + 1, sizeof *keys, &keys, "entity keys"));
  int64_t at = 0;
  for (int b = 0; b < m->n_blocks; b++) {
    cell_keys j = {s, &m->blocks[b], sup[b], s->blocks[b].nb, 0, keys + at};
    for (int i = 0; i < j.nb; i++) j.per_cell += sup[b][i].n >= 2;
    feint_parallel_for(m->blocks[b].n_cells, 1 << 12, cell_keys_range, &j);
    at += (int64_t)j.per_cell * m->blocks[b].n_cells;
  }
  int status = sort_keys(s, &keys, n_keys);
  if (!status) status = number_keys(s, keys, n_keys);
  free(keys);
  FEINT_CALL(status);
  /* interiors, cell by cell in local node order */
  for (int b = 0; b < m->n_blocks; b++)
    for (int64_t c = m->blocks[b].first_cell; c < m->blocks[b].first_cell + m->blocks[b].n_cells; c++)
      for (int i = 0; i < s->blocks[b].nb; i++)
        if (sup[b][i].n == 0) s->scalar_cell_dofs[c * s->nb + i] = s->n_scalar_dofs++;
  return FEINT_OK;
}

feint_node_family feint_space_mesh_family(const feint_mesh *mesh) {
  /* one node family for all blocks: the tensor cells' Lobatto one when they are present */
  feint_node_family family = FEINT_NODES_EQUISPACED;
  for (int b = 0; b < mesh->n_blocks; b++)
    if (feint_cell_node_family(mesh->blocks[b].cell_type) == FEINT_NODES_LOBATTO) family = FEINT_NODES_LOBATTO;
  return family;
}

int feint_space_mixed_elements(feint_space *s, feint_node_family family) {
  const feint_mesh *mesh = s->mesh;
  s->n_blocks = mesh->n_blocks;
  for (int b = 0; b < mesh->n_blocks; b++) {
    feint_space_block *sb = &s->blocks[b];
    FEINT_CALL(feint_element_create_family(mesh->blocks[b].cell_type, s->order, family, &sb->element));
    sb->nb = sb->element->nb;
    sb->nbc = sb->nb * s->components;
    if (sb->nb > s->nb) s->nb = sb->nb;
  }
  s->nbc = s->nb * s->components;
  return FEINT_OK;
}

int feint_space_mixed_create(const feint_mesh *mesh, int order, int components, feint_space **out) {
  *out = NULL;
  char shapes[128];
  if (order < 1 || order > 7) /* every mix holds triangles, tetrahedra or prisms, whose elements stop at 7 */
    return feint_error_set(FEINT_ERR_INPUT,
                           "space.order %d is not supported on mixed meshes of %s cells (%s; orders 1..7, as on "
                           "triangles, tetrahedra and prisms)",
                           order, feint_mesh_shapes(mesh, shapes, sizeof shapes), mesh->path);
  feint_space *s = NULL;
  FEINT_CALL(feint_calloc(1, sizeof *s, &s, "space"));
  s->mesh = mesh;
  s->order = order;
  s->components = components;
  node_support sup[FEINT_MESH_MAX_BLOCKS][MAX_NB];
  int status = feint_space_mixed_elements(s, feint_space_mesh_family(mesh));
  for (int b = 0; b < mesh->n_blocks && !status; b++) {
    const feint_space_block *sb = &s->blocks[b];
    if (sb->element->nb > MAX_NB)
      status = feint_error_set(FEINT_ERR_COMPUTE, "internal: %d nodes on a mixed mesh's %s (at most %d)",
                               sb->element->nb, feint_cell_name(mesh->blocks[b].cell_type), MAX_NB);
    if (!status) status = node_supports(&mesh->blocks[b], sb->element, sup[b]);
  }
  if (!status)
    status = feint_malloc((size_t)(mesh->n_cells * s->nb), sizeof(int64_t), &s->scalar_cell_dofs, "cell dof map");
  if (!status) status = number_dofs(s, sup);
  return feint_space_finish(s, status, out);
}
