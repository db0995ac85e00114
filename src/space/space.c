/* Dof map from mesh topology; see include/feint/space.h for the numbering. */
#include "feint/space.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "feint/error.h"
#include "feint/parallel.h"
#include "space/space_private.h"

/* The region's mesh edges (k = 2) or triangular faces (k = 3) are numbered
 * by their sorted vertex dofs (lo, [mid,] hi): bucketed by lo, each bucket
 * sorted by the key hi (edges) or mid * n_vertices + hi (faces), so ids
 * follow the lexicographic order of the sorted tuples (space.h) and do not
 * depend on the cell order. */
static inline void entity_lo_key(const int64_t *v, int k, int64_t n_vertices, int64_t *lo, int64_t *key) {
  if (k == 2) {
    *lo = v[0] < v[1] ? v[0] : v[1];
    *key = v[0] < v[1] ? v[1] : v[0];
    return;
  }
  int64_t a = v[0], b = v[1], c = v[2], t;
  if (a > b) t = a, a = b, b = t;
  if (b > c) t = b, b = c, c = t;
  if (a > b) t = a, a = b, b = t;
  *lo = a;
  *key = b * n_vertices + c;
}

/* lo and key of the entity of cell c with the cell-local vertices loc[0..k-1]. */
static inline void cell_entity(const feint_mesh *m, const int64_t *vdof, int64_t c, const int *loc, int k,
                               int64_t n_vertices, int64_t *lo, int64_t *key) {
  const int64_t *cv = m->cells + c * m->nv;
  const int64_t v[3] = {vdof[cv[loc[0]]], vdof[cv[loc[1]]], k == 3 ? vdof[cv[loc[2]]] : 0};
  entity_lo_key(v, k, n_vertices, lo, key);
}

/* Number the k-vertex entities of the cells: entity_of[cell * n_ent + e] =
 * id, n_ent the edges (k = 2) or faces (k = 3) of the cell type. The buckets
 * are returned compacted (ptr, keys: the entity (lo, key) has the id i with
 * ptr[lo] <= i < ptr[lo + 1], keys[i] == key), the lookup
 * feint_space_facet_dofs uses. Every pass runs on every core (a 6M-cell P2
 * dof map took 1.6 s on one): the buckets are filled with every cell's
 * entry in whatever order the threads reach them, then each is sorted and
 * made unique, which gives the same ids whatever that order was. */
typedef struct {
  const feint_mesh *mesh;
  const int64_t *vdof;
  int64_t n_vertices;
  int k, n_ent;
  int local[FEINT_CELL_MAX_EDGES][3];
  int64_t *offset, *fill, *bucket, *ptr, *keys, *entity_of;
} entity_job;

static void count_entities(int64_t c0, int64_t c1, void *arg) {
  entity_job *j = arg;
  for (int64_t c = c0; c < c1; c++)
    for (int e = 0; e < j->n_ent; e++) {
      int64_t lo, key;
      cell_entity(j->mesh, j->vdof, c, j->local[e], j->k, j->n_vertices, &lo, &key);
      __atomic_fetch_add(&j->offset[lo + 1], 1, __ATOMIC_RELAXED);
    }
}

static void fill_buckets(int64_t c0, int64_t c1, void *arg) {
  entity_job *j = arg;
  for (int64_t c = c0; c < c1; c++)
    for (int e = 0; e < j->n_ent; e++) {
      int64_t lo, key;
      cell_entity(j->mesh, j->vdof, c, j->local[e], j->k, j->n_vertices, &lo, &key);
      j->bucket[j->offset[lo] + __atomic_fetch_add(&j->fill[lo], 1, __ATOMIC_RELAXED)] = key;
    }
}

/* each bucket sorted (a few dozen entries: insertion sort) and made
 * unique in place; fill[v] becomes its distinct count */
static void sort_buckets(int64_t v0, int64_t v1, void *arg) {
  entity_job *j = arg;
  for (int64_t v = v0; v < v1; v++) {
    int64_t *u = j->bucket + j->offset[v];
    const int64_t m = j->offset[v + 1] - j->offset[v];
    for (int64_t i = 1; i < m; i++) {
      int64_t key = u[i], q = i - 1;
      while (q >= 0 && u[q] > key) {
        u[q + 1] = u[q];
        q--;
      }
      u[q + 1] = key;
    }
    int64_t d = 0;
    for (int64_t i = 0; i < m; i++)
      if (i == 0 || u[i] != u[d - 1]) u[d++] = u[i];
    j->fill[v] = d;
  }
}

static void copy_keys(int64_t v0, int64_t v1, void *arg) {
  entity_job *j = arg;
  for (int64_t v = v0; v < v1; v++)
    memcpy(j->keys + j->ptr[v], j->bucket + j->offset[v], (size_t)j->fill[v] * sizeof *j->keys);
}

static void look_up_entities(int64_t c0, int64_t c1, void *arg) {
  entity_job *j = arg;
  for (int64_t c = c0; c < c1; c++)
    for (int e = 0; e < j->n_ent; e++) {
      int64_t lo, key;
      cell_entity(j->mesh, j->vdof, c, j->local[e], j->k, j->n_vertices, &lo, &key);
      int64_t i = j->ptr[lo];
      while (j->keys[i] != key) i++;
      j->entity_of[c * j->n_ent + e] = i;
    }
}

static int number_entities(const feint_mesh *mesh, const int64_t *vdof, int64_t n_vertices, int k,
                           int64_t **entity_of_out, int64_t *n_out, int64_t **ptr_out, int64_t **keys_out) {
  const feint_cell_type ct = mesh->cell_type;
  entity_job j = {.mesh = mesh, .vdof = vdof, .n_vertices = n_vertices, .k = k};
  j.n_ent = k == 2 ? feint_cell_num_edges(ct) : feint_cell_num_faces(ct);
  /* the entities' cell-local vertices: up to 9 edges on a prism, 12 on a
   * hexahedron */
  _Static_assert(FEINT_CELL_MAX_FACES <= FEINT_CELL_MAX_EDGES, "local holds the faces too");
  for (int e = 0; e < j.n_ent; e++) {
    if (k == 2) feint_cell_edge(ct, e, j.local[e]);
    else feint_cell_face(ct, e, j.local[e]);
  }
  const int64_t n_entries = mesh->n_cells * j.n_ent, grain = 1 << 14;
  int status = FEINT_OK;
  if ((status = feint_calloc((size_t)n_vertices + 1, sizeof *j.offset, &j.offset, "entity buckets")) ||
      (status = feint_malloc((size_t)n_entries + 1, sizeof *j.bucket, &j.bucket, "entity buckets")) ||
      (status = feint_malloc((size_t)n_entries + 1, sizeof *j.entity_of, &j.entity_of, "entity map")) ||
      (status = feint_calloc((size_t)n_vertices + 1, sizeof *j.fill, &j.fill, "entity buckets")) ||
      (status = feint_calloc((size_t)n_vertices + 1, sizeof *j.ptr, &j.ptr, "entity lookup")))
    goto done;
  feint_parallel_for(mesh->n_cells, grain, count_entities, &j);
  for (int64_t v = 0; v < n_vertices; v++) j.offset[v + 1] += j.offset[v];
  feint_parallel_for(mesh->n_cells, grain, fill_buckets, &j);
  feint_parallel_for(n_vertices, grain, sort_buckets, &j);
  int64_t n = 0;
  for (int64_t v = 0; v < n_vertices; v++) {
    n += j.fill[v];
    j.ptr[v + 1] = n;
  }
  if ((status = feint_malloc((size_t)n + 1, sizeof *j.keys, &j.keys, "entity lookup"))) goto done;
  feint_parallel_for(n_vertices, grain, copy_keys, &j);
  feint_parallel_for(mesh->n_cells, grain, look_up_entities, &j);
  *entity_of_out = j.entity_of;
  *ptr_out = j.ptr;
  *keys_out = j.keys;
  j.entity_of = j.ptr = j.keys = NULL;
  *n_out = n;
done:
  free(j.offset);
  free(j.bucket);
  free(j.fill);
  free(j.entity_of);
  free(j.ptr);
  free(j.keys);
  return status;
}

int feint_space_number_edges(const feint_mesh *mesh, const int64_t *vdof, int64_t n_vertices,
                             int64_t **edge_of_out, int64_t *n_edges_out, int64_t **edge_ptr_out,
                             int64_t **edge_upper_out) {
  return number_entities(mesh, vdof, n_vertices, 2, edge_of_out, n_edges_out, edge_ptr_out, edge_upper_out);
}

/* Id of the entity with vertex dofs v[0..k-1] (any order), -1 if the
 * region has none. */
static int64_t find_entity(const int64_t *ptr, const int64_t *keys, const int64_t *v, int k,
                           int64_t n_vertices) {
  int64_t lo, key;
  entity_lo_key(v, k, n_vertices, &lo, &key);
  for (int64_t i = ptr[lo]; i < ptr[lo + 1]; i++)
    if (keys[i] == key) return i;
  return -1;
}

/* Face-interior lattice position of (i, j), i, j >= 1, i + j <= p - 1, j
 * outer and i inner (fe.h). */
static inline int face_lattice_index(int p, int i, int j) { return (j - 1) * (p - 1) - (j - 1) * j / 2 + i - 1; }

/* Orientation code of a face whose vertices, in the local frame (a, b, c),
 * have the vertex dofs g[3]: rank(a) * 3 + rank(b), ranks in sorted order. */
static inline int face_orientation(const int64_t *g) {
  const int ra = (g[0] > g[1]) + (g[0] > g[2]), rb = (g[1] > g[0]) + (g[1] > g[2]);
  return ra * 3 + rb;
}

/* face_perm[o * per_face + k]: canonical position of the local face node k
 * for orientation code o. Local node k has the barycentric weights
 * (p-i-j, i, j) on (a, b, c); in the canonical frame (the face's vertices
 * by increasing dof) the same point has weights W with W[rank(a)] = p-i-j,
 * W[rank(b)] = i, W[rank(c)] = j, and sits at lattice position (W[1], W[2]). */
static void build_face_perm(int p, int *face_perm) {
  const int per_face = (p - 1) * (p - 2) / 2;
  for (int ra = 0; ra < 3; ra++)
    for (int rb = 0; rb < 3; rb++) {
      if (ra == rb) continue;
      const int rc = 3 - ra - rb, o = ra * 3 + rb;
      for (int j = 1; j < p; j++)
        for (int i = 1; i + j < p; i++) {
          int W[3];
          W[ra] = p - i - j;
          W[rb] = i;
          W[rc] = j;
          face_perm[o * per_face + face_lattice_index(p, i, j)] = face_lattice_index(p, W[1], W[2]);
        }
    }
}

/* feint_space_create for triangle and tetrahedron meshes. */
/* Vertex numbering: the nodes that some cell uses, numbered in node
 * order (vdof[node] = its vertex dof, -1 for a node no cell uses). The
 * marking pass runs on every core (a 6M-cell mesh's 24M cell entries took
 * most of a P1 dof map on one); a node marked twice gets the same mark. */
typedef struct {
  const feint_mesh *mesh;
  _Atomic unsigned char *used;
} mark_job;

static void mark_used(int64_t a, int64_t b, void *arg) {
  const mark_job *j = arg;
  for (int64_t k = a; k < b; k++) atomic_store_explicit(&j->used[j->mesh->cells[k]], 1, memory_order_relaxed);
}

static int number_vertices(const feint_mesh *mesh, int64_t *vdof, int64_t *n_vertices) {
  _Atomic unsigned char *used = NULL;
  FEINT_CALL(feint_calloc((size_t)mesh->n_nodes + 1, sizeof *used, &used, "vertex numbering"));
  mark_job j = {mesh, used};
  feint_parallel_for(mesh->n_cells * mesh->nv, 1 << 18, mark_used, &j);
  int64_t n = 0;
  for (int64_t i = 0; i < mesh->n_nodes; i++)
    vdof[i] = atomic_load_explicit(&used[i], memory_order_relaxed) ? n++ : -1;
  free(used);
  *n_vertices = n;
  return FEINT_OK;
}

typedef struct {
  const feint_mesh *mesh;
  const int64_t *vdof;
  double *coordinates;
} vertex_coordinates_job;

static void vertex_coordinates(int64_t a, int64_t b, void *arg) {
  const vertex_coordinates_job *j = arg;
  for (int64_t i = a; i < b; i++)
    if (j->vdof[i] >= 0) {
      double *p = j->coordinates + 3 * j->vdof[i];
      p[0] = j->mesh->x[i], p[1] = j->mesh->y[i], p[2] = j->mesh->z[i];
    }
}

/* The cell dof map of the cells [c0, c1) (vertex, edge, face, interior
 * dofs), each cell its own row; owner[dof] = the last cell holding each of
 * its non-vertex dofs. */
typedef struct {
  feint_space *s;
  const int64_t *vdof, *edge_of, *face_of;
  const int *face_perm;
  int64_t *owner;
  int per_edge, per_face, n_interior;
  int64_t edge_base, face_base, interior_base;
  feint_curved_geometry geo; /* a curved mesh's */
} cell_dofs_job;

static void cell_dofs_range(int64_t c0, int64_t c1, void *arg) {
  const cell_dofs_job *j = arg;
  const feint_space *s = j->s;
  const feint_mesh *mesh = s->mesh;
  const int nv = mesh->nv, ne = feint_cell_num_edges(mesh->cell_type), nf = feint_cell_num_faces(mesh->cell_type);
  const int per_edge = j->per_edge, per_face = j->per_face, n_interior = j->n_interior;
  const int first_face = nv + ne * per_edge, first_interior = s->nb - n_interior;
  for (int64_t c = c0; c < c1; c++) {
    int64_t *dofs = s->scalar_cell_dofs + c * s->nb;
    const int64_t *cv = mesh->cells + c * nv;
    for (int i = 0; i < nv; i++) dofs[i] = j->vdof[cv[i]];
    for (int e = 0; e < ne && per_edge > 0; e++) {
      int ab[2];
      feint_cell_edge(mesh->cell_type, e, ab);
      int forward = j->vdof[cv[ab[0]]] < j->vdof[cv[ab[1]]];
      for (int k = 0; k < per_edge; k++)
        dofs[nv + e * per_edge + k] =
            j->edge_base + j->edge_of[c * ne + e] * per_edge + (forward ? k : per_edge - 1 - k);
    }
    for (int f = 0; f < nf && per_face > 0; f++) {
      int abc[3];
      feint_cell_face(mesh->cell_type, f, abc);
      const int64_t g[3] = {dofs[abc[0]], dofs[abc[1]], dofs[abc[2]]};
      const int *perm = j->face_perm + face_orientation(g) * per_face;
      const int64_t base = j->face_base + j->face_of[c * nf + f] * per_face;
      for (int k = 0; k < per_face; k++) dofs[first_face + f * per_face + k] = base + perm[k];
    }
    for (int k = 0; k < n_interior; k++) dofs[first_interior + k] = j->interior_base + c * n_interior + k;
    for (int i = nv; i < first_interior; i++) {
      int64_t *o = &j->owner[dofs[i]], cur = __atomic_load_n(o, __ATOMIC_RELAXED);
      while (cur < c && !__atomic_compare_exchange_n(o, &cur, c, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
      }
    }
  }
}

/* The non-vertex dofs' coordinates by the affine map x = v0 + sum_d
 * (v_{d+1} - v0) xi_d of their owner cell (a curved cell's: its
 * second-order map; a curved mesh's affine cells take the affine map, as
 * the backends do). */
static void cell_coordinates_range(int64_t c0, int64_t c1, void *arg) {
  const cell_dofs_job *j = arg;
  const feint_space *s = j->s;
  const feint_mesh *mesh = s->mesh;
  const int nv = mesh->nv, dim = mesh->dim, first_interior = s->nb - j->n_interior;
  const double *X[3] = {mesh->x, mesh->y, mesh->z};
  for (int64_t c = c0; c < c1; c++) {
    const int64_t *dofs = s->scalar_cell_dofs + c * s->nb, *cv = mesh->cells + c * nv;
    for (int i = nv; i < s->nb; i++) {
      if (i < first_interior && j->owner[dofs[i]] != c) continue;
      const double *xi = s->element->nodes + i * dim;
      double p[3];
      if (mesh->curved_cells && mesh->curved_cells[c]) { /* a curved cell: the dof where its map takes it */
        double N[FEINT_CELL_MAX_GEOMETRY_NODES];
        const int ng = mesh->n_geometry_nodes;
        const double *g = mesh->geometry_nodes + (size_t)c * (size_t)ng * 3;
        feint_curved_geometry_shape(&j->geo, 1, xi, N, NULL);
        for (int a = 0; a < 3; a++) {
          p[a] = 0;
          for (int k = 0; k < ng; k++) p[a] += N[k] * g[3 * k + a];
        }
        memcpy(s->coordinates + dofs[i] * 3, p, sizeof p);
        continue;
      }
      for (int a = 0; a < 3; a++) {
        p[a] = X[a][cv[0]];
        for (int d = 0; d < dim; d++) p[a] += (X[a][cv[d + 1]] - X[a][cv[0]]) * xi[d];
      }
      memcpy(s->coordinates + dofs[i] * 3, p, sizeof p);
    }
  }
}

static int simplex_create(const feint_mesh *mesh, int order, int components, feint_space **out) {
  if (order < 1 || order > 7)
    return feint_error_set(FEINT_ERR_INPUT, "space.order %d is not supported on %s (orders 1..7)", order,
                           feint_cell_plural(mesh->cell_type));
  feint_space *s = NULL;
  FEINT_CALL(feint_calloc(1, sizeof *s, &s, "space"));
  int status = FEINT_OK;
  int64_t *vdof = NULL, *edge_of = NULL, *face_of = NULL;
  int *face_perm = NULL;
  s->mesh = mesh;
  s->order = order;
  s->components = components;
  if ((status = feint_element_create(mesh->cell_type, order, &s->element))) goto fail;
  s->nb = s->element->nb;
  s->nbc = s->nb * components;

  /* Vertex dofs: region vertices in mesh node order. */
  if ((status = feint_malloc((size_t)mesh->n_nodes, sizeof *vdof, &vdof, "vertex numbering")))
    goto fail;
  /* mark used nodes, then number them in node order */
  int64_t n_vertices = 0;
  if ((status = number_vertices(mesh, vdof, &n_vertices))) goto fail;

  const int per_edge = order - 1;
  const int nf = feint_cell_num_faces(mesh->cell_type), per_face = nf ? s->element->entity_dofs[2] : 0;
  const int n_interior = s->element->entity_dofs[3];
  s->n_vertices = n_vertices;
  if (per_edge > 0 && (status = number_entities(mesh, vdof, n_vertices, 2, &edge_of, &s->n_edges, &s->edge_ptr,
                                                &s->edge_upper)))
    goto fail;
  if (per_face > 0 &&
      ((status = number_entities(mesh, vdof, n_vertices, 3, &face_of, &s->n_faces, &s->face_ptr, &s->face_key)) ||
       (status = feint_malloc(9 * (size_t)per_face, sizeof *face_perm, &face_perm, "face orientations"))))
    goto fail;
  if (face_perm) build_face_perm(order, face_perm);
  const int64_t edge_base = n_vertices, face_base = edge_base + s->n_edges * per_edge;
  const int64_t interior_base = face_base + s->n_faces * per_face;
  s->n_scalar_dofs = interior_base + mesh->n_cells * n_interior;
  s->n_dofs = s->n_scalar_dofs * components;

  /* P1 where every node is a vertex: the dof map is the connectivity (no copy) */
  const int p1_is_mesh = order == 1 && n_vertices == mesh->n_nodes;
  if (p1_is_mesh) {
    s->scalar_cell_dofs = mesh->cells;
  } else if ((status = feint_malloc((size_t)(mesh->n_cells * s->nb), sizeof(int64_t), &s->scalar_cell_dofs,
                                    "cell dof map"))) {
    goto fail;
  }
  s->scalar_cell_dofs_borrowed = p1_is_mesh;
  if ((status = feint_malloc((size_t)s->n_scalar_dofs * 3, sizeof(double), &s->coordinates, "dof coordinates")))
    goto fail;
  /* vertex dofs sit at their nodes (exactly: not through the affine map) */
  vertex_coordinates_job vc = {mesh, vdof, s->coordinates};
  feint_parallel_for(mesh->n_nodes, 1 << 16, vertex_coordinates, &vc);
  if (!p1_is_mesh) {
    cell_dofs_job cj = {s, vdof, edge_of, face_of, face_perm, NULL, per_edge, per_face, n_interior,
                        edge_base, face_base, interior_base, {0}};
    if (mesh->n_geometry_nodes) feint_curved_geometry_init(&cj.geo, mesh->cell_type, mesh->n_geometry_nodes);
    /* a dof shared by cells gets its coordinates from the last of them (the
     * affine maps of two cells may differ in the last bit): owner[dof] */
    if ((status = feint_malloc((size_t)s->n_scalar_dofs + 1, sizeof *cj.owner, &cj.owner, "dof coordinates")))
      goto fail;
    for (int64_t q = 0; q < s->n_scalar_dofs; q++) cj.owner[q] = -1;
    feint_parallel_for(mesh->n_cells, 1 << 14, cell_dofs_range, &cj);
    feint_parallel_for(mesh->n_cells, 1 << 14, cell_coordinates_range, &cj);
    free(cj.owner);
  }
  if ((status = feint_space_expand_components(s))) goto fail;
  s->vertex_dof = vdof;
  s->face_perm = face_perm;
  free(edge_of);
  free(face_of);
  *out = s;
  return FEINT_OK;
fail:
  free(vdof);
  free(edge_of);
  free(face_of);
  free(face_perm);
  feint_space_destroy(s);
  return status;
}

int feint_space_create(const feint_mesh *mesh, int order, int components, feint_space **out) {
  *out = NULL;
  if (components < 1 || components > 3)
    return feint_error_set(FEINT_ERR_INPUT, "space.components must be 1, 2 or 3, got %d", components);
  if (feint_mesh_is_mixed(mesh)) return feint_space_mixed_create(mesh, order, components, out);
  FEINT_CALL(feint_cell_is_simplex(mesh->cell_type) ? simplex_create(mesh, order, components, out)
                                                    : feint_space_tensor_create(mesh, order, components, out));
  feint_space *s = *out;
  s->n_blocks = 1;
  s->blocks[0] = (feint_space_block){s->element, s->nb, s->nbc};
  return FEINT_OK;
}

int feint_space_create_from_map(const feint_mesh *mesh, int order, int components, feint_node_family family,
                                int64_t n_scalar_dofs, int64_t *scalar_cell_dofs, double *coordinates,
                                feint_space **out) {
  *out = NULL;
  feint_space *s = calloc(1, sizeof *s);
  if (!s) {
    free(scalar_cell_dofs);
    free(coordinates);
    return feint_error_set(FEINT_ERR_COMPUTE, "out of memory for a space");
  }
  s->mesh = mesh;
  s->order = order;
  s->components = components;
  s->n_scalar_dofs = n_scalar_dofs;
  s->scalar_cell_dofs = scalar_cell_dofs ? scalar_cell_dofs : mesh->cells;
  s->scalar_cell_dofs_borrowed = !scalar_cell_dofs; /* NULL: the connectivity, not freed with the space */
  s->coordinates = coordinates;
  int status;
  if (feint_mesh_is_mixed(mesh)) {
    status = feint_space_mixed_elements(s, family);
  } else {
    status = feint_element_create_family(mesh->cell_type, order, family, &s->element);
    if (!status) {
      s->nb = s->element->nb;
      s->nbc = s->nb * components;
      s->n_blocks = 1;
      s->blocks[0] = (feint_space_block){s->element, s->nb, s->nbc};
    }
  }
  /* P1 on every node: the map is the connectivity, as feint_space_create makes it (one device array) */
  if (!status && !scalar_cell_dofs && (order != 1 || n_scalar_dofs != mesh->n_nodes || s->nb != mesh->nv))
    status = feint_error_set(FEINT_ERR_COMPUTE, "internal: a space of order %d given the connectivity as dof map",
                             order);
  if (!status && order == 1 && n_scalar_dofs == mesh->n_nodes && s->nb == mesh->nv &&
      (!scalar_cell_dofs ||
       !memcmp(scalar_cell_dofs, mesh->cells, (size_t)(mesh->n_cells * mesh->nv) * sizeof *mesh->cells))) {
    if (s->scalar_cell_dofs != mesh->cells) free(s->scalar_cell_dofs);
    s->scalar_cell_dofs = mesh->cells;
    s->scalar_cell_dofs_borrowed = 1;
  }
  if (!status) status = feint_space_expand_components(s);
  if (status) {
    feint_space_destroy(s);
    return status;
  }
  s->n_dofs = n_scalar_dofs * components;
  *out = s;
  return FEINT_OK;
}

/* Scalar entries [a, b) of the cell dof map expanded by components
 * (interleaved: dof * components + k; -1 stays -1). */
static void expand_range(int64_t a, int64_t b, void *arg) {
  feint_space *s = arg;
  const int nc = s->components;
  for (int64_t e = a; e < b; e++)
    for (int k = 0; k < nc; k++) s->cell_dofs[e * nc + k] = s->scalar_cell_dofs[e] < 0 ? -1 : s->scalar_cell_dofs[e] * nc + k;
}

int feint_space_expand_components(feint_space *s) {
  const int64_t n_cells = s->mesh->n_cells;
  const int nc = s->components;
  s->components_interleaved = 1;
  if (nc == 1) {
    s->cell_dofs = s->scalar_cell_dofs;
    return FEINT_OK;
  }
  FEINT_CALL(feint_malloc((size_t)(n_cells * s->nbc), sizeof(int64_t), &s->cell_dofs, "cell dof map"));
  feint_parallel_for(n_cells * s->nb, 1 << 18, expand_range, s);
  return FEINT_OK;
}

void feint_space_destroy(feint_space *s) {
  if (!s) return;
  if (s->cell_dofs != s->scalar_cell_dofs) free(s->cell_dofs);
  if (!s->scalar_cell_dofs_borrowed) free(s->scalar_cell_dofs);
  free(s->coordinates);
  free(s->vertex_dof);
  free(s->edge_ptr);
  free(s->edge_upper);
  free(s->face_ptr);
  free(s->face_key);
  free(s->face_perm);
  free(s->whole_cell);
  free(s->whole_scalar_dof);
  if (s->n_blocks > 1) /* mixed: the blocks own their elements */
    for (int b = 0; b < s->n_blocks; b++) feint_element_destroy(s->blocks[b].element);
  else
    feint_element_destroy(s->element);
  free(s);
}

int feint_space_facet_dofs(const feint_space *s, const int64_t *nodes, int64_t *dofs) {
  const feint_mesh *m = s->mesh;
  const int nvf = m->dim, per_edge = s->order - 1;
  const feint_cell_type fc = m->dim == 3 ? FEINT_CELL_TRIANGLE : FEINT_CELL_SEGMENT;
  if (feint_mesh_is_mixed(m) && m->dim == 3) /* feint_space_facets looks them up through their cells */
    return feint_error_set(FEINT_ERR_COMPUTE, "internal: facet dofs of a 3D mixed mesh need feint_space_facets");
  if (!s->vertex_dof) /* hexahedra: quadrilateral facets, dofs numbered by the BP map */
    return feint_error_set(FEINT_ERR_INPUT, "boundary conditions on %s meshes are not supported in this version",
                           feint_cell_name(m->cell_type));
  int64_t v[3];
  for (int i = 0; i < nvf; i++) {
    if (nodes[i] < 0 || nodes[i] >= m->n_nodes || s->vertex_dof[nodes[i]] < 0) return -1;
    v[i] = dofs[i] = s->vertex_dof[nodes[i]];
  }
  const int64_t edge_base = s->n_vertices;
  const int n_edges = feint_cell_num_edges(fc);
  for (int e = 0; e < n_edges && per_edge > 0; e++) {
    int ab[2];
    feint_cell_edge(fc, e, ab);
    const int64_t pair[2] = {v[ab[0]], v[ab[1]]};
    int64_t id = find_entity(s->edge_ptr, s->edge_upper, pair, 2, s->n_vertices);
    if (id < 0) return -1;
    int forward = v[ab[0]] < v[ab[1]];
    for (int k = 0; k < per_edge; k++)
      dofs[nvf + e * per_edge + k] = edge_base + id * per_edge + (forward ? k : per_edge - 1 - k);
  }
  /* the triangle element's interior nodes are in the same lattice order as
   * a tetrahedron's face nodes, anchored at the facet's first vertex */
  const int per_face = m->dim == 3 ? (s->order - 1) * (s->order - 2) / 2 : 0;
  if (per_face > 0) {
    int64_t id = find_entity(s->face_ptr, s->face_key, v, 3, s->n_vertices);
    if (id < 0) return -1;
    const int *perm = s->face_perm + face_orientation(v) * per_face;
    const int64_t base = s->n_vertices + s->n_edges * per_edge + id * per_face;
    for (int k = 0; k < per_face; k++) dofs[nvf + n_edges * per_edge + k] = base + perm[k];
  }
  return FEINT_OK;
}
