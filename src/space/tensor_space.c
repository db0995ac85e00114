/* Dof maps of the tensor-product Lagrange spaces (space.h): quadrilaterals
 * numbered like the simplices (vertices, then edges by their sorted vertex
 * pair, then cell interiors), hexahedra by the BP operators' GLL dof map
 * (src/bp/dofmap.c), so an assembled hexahedral operator and the BP one
 * share their dof numbers; prisms (triangle x segment) like the
 * quadrilaterals, then triangular and quadrilateral faces in canonical
 * frames, then interiors. Local dofs are in the element's order (fe.h);
 * dof coordinates come from the multilinear cell map (of any block:
 * feint_space_finish also serves mixed meshes). */
#include <stdlib.h>
#include <string.h>

#include "feint/bp.h"
#include "feint/error.h"
#include "feint/parallel.h"
#include "space/space_private.h"

/* Quadrilateral: the scalar dofs of cell c, local node (i, j) lexicographic. */
static void quad_cell_dofs(const feint_space *s, int64_t c, const int64_t *edge_of, int64_t *dofs) {
  static const int gmsh_of_corner[4] = {0, 1, 3, 2}; /* corner a + 2b at (2a-1, 2b-1) */
  const feint_mesh *m = s->mesh;
  const int p = s->order, n = p + 1, per_edge = p - 1;
  const int64_t *cv = m->cells + 4 * c;
  const int64_t edge_base = s->n_vertices, interior_base = s->n_vertices + s->n_edges * per_edge;
  for (int j = 0; j <= p; j++)
    for (int i = 0; i <= p; i++) {
      int64_t *d = dofs + i + n * j;
      int bi = i == 0 || i == p, bj = j == 0 || j == p;
      if (bi && bj) {
        *d = s->vertex_dof[cv[gmsh_of_corner[i / p + 2 * (j / p)]]];
      } else if (bi || bj) {
        /* Gmsh edge e runs from vertex ab[0] to ab[1]; t = steps from ab[0] */
        int e = j == 0 ? 0 : i == p ? 1 : j == p ? 2 : 3;
        int t = e == 0 ? i : e == 1 ? j : e == 2 ? p - i : p - j, ab[2];
        feint_cell_edge(FEINT_CELL_QUADRILATERAL, e, ab);
        int forward = s->vertex_dof[cv[ab[0]]] < s->vertex_dof[cv[ab[1]]];
        *d = edge_base + edge_of[4 * c + e] * per_edge + (forward ? t - 1 : per_edge - t);
      } else {
        *d = interior_base + c * per_edge * per_edge + (i - 1) + per_edge * (j - 1);
      }
    }
}

/* Vertex dofs (region vertices in mesh node order, as space.c) and, for
 * order > 1, the edge numbering (*edge_of: cell x local edge -> edge id). */
static int number_vertices_edges(feint_space *s, int64_t **edge_of) {
  const feint_mesh *m = s->mesh;
  FEINT_CALL(feint_malloc((size_t)m->n_nodes, sizeof *s->vertex_dof, &s->vertex_dof, "vertex numbering"));
  for (int64_t i = 0; i < m->n_nodes; i++) s->vertex_dof[i] = -1;
  for (int64_t k = 0; k < m->n_cells * m->nv; k++) s->vertex_dof[m->cells[k]] = 0;
  for (int64_t i = 0; i < m->n_nodes; i++)
    if (s->vertex_dof[i] == 0) s->vertex_dof[i] = s->n_vertices++;
  if (s->order > 1)
    FEINT_CALL(feint_space_number_edges(m, s->vertex_dof, s->n_vertices, edge_of, &s->n_edges, &s->edge_ptr,
                                        &s->edge_upper));
  return FEINT_OK;
}

static int quad_numbering(feint_space *s) {
  const feint_mesh *m = s->mesh;
  int64_t *edge_of = NULL;
  FEINT_CALL(number_vertices_edges(s, &edge_of));
  const int per_edge = s->order - 1;
  s->n_scalar_dofs = s->n_vertices + s->n_edges * per_edge + m->n_cells * per_edge * per_edge;
  int status = feint_malloc((size_t)(m->n_cells * s->nb), sizeof(int64_t), &s->scalar_cell_dofs, "cell dof map");
  for (int64_t c = 0; c < m->n_cells && !status; c++) quad_cell_dofs(s, c, edge_of, s->scalar_cell_dofs + c * s->nb);
  free(edge_of);
  return status;
}

static int hex_numbering(feint_space *s) {
  feint_hexmesh *hm = NULL;
  feint_bp_dofmap *d = NULL;
  int status = feint_hexmesh_from_mesh(s->mesh, &hm);
  if (!status) status = feint_bp_dofmap_create(hm, s->order, &d);
  if (!status) status = feint_malloc((size_t)(d->n_cells * d->np), sizeof(int64_t), &s->scalar_cell_dofs, "cell dof map");
  if (!status) {
    for (int64_t k = 0; k < d->n_cells * d->np; k++) s->scalar_cell_dofs[k] = d->cell_dofs[k];
    s->n_scalar_dofs = d->n_dofs;
  }
  feint_bp_dofmap_destroy(d);
  feint_hexmesh_destroy(hm);
  return status;
}

/* ----------------------------------------------------------------- prism */

/* A face key: its sorted vertex dofs (k[3] = -1 for a triangle). */
typedef struct {
  int64_t k[4];
  int64_t slot;
} face_key;

static int cmp_face(const void *pa, const void *pb) {
  const face_key *a = pa, *b = pb;
  for (int i = 0; i < 4; i++)
    if (a->k[i] != b->k[i]) return a->k[i] < b->k[i] ? -1 : 1;
  return 0;
}

/* Face ids id[slot] from n keys; returns the number of distinct faces. */
static int64_t number_faces(face_key *keys, int64_t n, int64_t *id) {
  qsort(keys, (size_t)n, sizeof *keys, cmp_face);
  int64_t count = 0;
  for (int64_t i = 0; i < n; i++) {
    if (i == 0 || cmp_face(&keys[i], &keys[i - 1])) count++;
    id[keys[i].slot] = count - 1;
  }
  return count;
}

/* The faces of every prism: ids of its 2 triangles (tri_id[2c + f]) and 3
 * quadrilaterals (quad_id[3c + f]). */
static int prism_faces(const feint_space *s, int64_t *tri_id, int64_t *quad_id, int64_t *n_tri, int64_t *n_quad) {
  const feint_mesh *m = s->mesh;
  face_key *keys = NULL;
  FEINT_CALL(feint_malloc((size_t)m->n_cells * 3 + 1, sizeof *keys, &keys, "prism faces"));
  for (int quad = 0; quad < 2; quad++) {
    const int nf = quad ? 3 : 2, nvf = quad ? 4 : 3;
    for (int64_t c = 0; c < m->n_cells; c++)
      for (int f = 0; f < nf; f++) {
        int fv[4];
        if (quad) feint_cell_quad_face(FEINT_CELL_PRISM, f, fv);
        else feint_cell_face(FEINT_CELL_PRISM, f, fv);
        face_key *k = &keys[c * nf + f];
        k->k[3] = -1;
        for (int i = 0; i < nvf; i++) k->k[i] = s->vertex_dof[m->cells[6 * c + fv[i]]];
        for (int i = 1; i < nvf; i++) /* insertion sort */
          for (int j = i; j > 0 && k->k[j] < k->k[j - 1]; j--) {
            int64_t t = k->k[j];
            k->k[j] = k->k[j - 1];
            k->k[j - 1] = t;
          }
        k->slot = c * nf + f;
      }
    *(quad ? n_quad : n_tri) = number_faces(keys, m->n_cells * nf, quad ? quad_id : tri_id);
  }
  free(keys);
  return FEINT_OK;
}

/* Index of the interior lattice point (i, j) of a triangle of order p,
 * i, j >= 1, i + j <= p - 1, in lattice order (j outer, i inner). */
static int tri_interior_index(int p, int i, int j) { return (j - 1) * (p - 1) - (j - 1) * j / 2 + (i - 1); }

/* The canonical number of a quadrilateral face dof at (u, w) (steps along
 * corners c0 -> c1 and c0 -> c3, corners cyclic with global dofs g): origin
 * at the lowest corner, first axis towards its lower neighbour (bp.h's
 * rule for hexahedra). */
static int quad_face_index(int p, const int64_t g[4], int u, int w) {
  static const int P[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
  int o = 0;
  for (int c = 1; c < 4; c++)
    if (g[c] < g[o]) o = c;
  int n1 = (o + 1) % 4, n2 = (o + 3) % 4;
  if (g[n1] > g[n2]) {
    int t = n1;
    n1 = n2;
    n2 = t;
  }
  const int du = u - p * P[o][0], dw = w - p * P[o][1];
  const int a = du * (P[n1][0] - P[o][0]) + dw * (P[n1][1] - P[o][1]);
  const int b = du * (P[n2][0] - P[o][0]) + dw * (P[n2][1] - P[o][1]);
  return (a - 1) + (p - 1) * (b - 1);
}

/* The scalar dofs of prism c. Local node t + nt k (fe.h) is triangle node t
 * (vertex, edge e at step st from its first vertex, or interior point (i, j))
 * at height k (0: bottom, 1: top, >= 2: step k - 1 up). */
static void prism_cell_dofs(const feint_space *s, int64_t c, const int64_t *edge_of, const int64_t *tri_id,
                            const int64_t *quad_id, int64_t n_tri, int64_t n_quad, int64_t *dofs) {
  const int p = s->order, pe = p - 1, nt = (p + 1) * (p + 2) / 2, nti = pe * (p - 2) / 2;
  const int64_t *cv = s->mesh->cells + 6 * c, *vd = s->vertex_dof;
  const int64_t edge_base = s->n_vertices, tri_base = edge_base + s->n_edges * pe;
  const int64_t quad_base = tri_base + n_tri * nti, interior_base = quad_base + n_quad * pe * pe;
  for (int k = 0; k <= p; k++) {
    int t = 0;
    for (; t < 3; t++) { /* vertices, vertical edges */
      int64_t *d = dofs + t + nt * k;
      if (k < 2) {
        *d = vd[cv[t + 3 * k]];
      } else {
        int forward = vd[cv[t]] < vd[cv[t + 3]];
        *d = edge_base + edge_of[9 * c + 6 + t] * pe + (forward ? k - 2 : p - k);
      }
    }
    for (int e = 0; e < 3; e++) /* triangle edges: horizontal edges, quadrilateral faces */
      for (int st = 1; st < p; st++, t++) {
        int64_t *d = dofs + t + nt * k;
        int ab[2];
        feint_cell_edge(FEINT_CELL_TRIANGLE, e, ab);
        if (k < 2) {
          int forward = vd[cv[ab[0] + 3 * k]] < vd[cv[ab[1] + 3 * k]];
          *d = edge_base + edge_of[9 * c + 3 * k + e] * pe + (forward ? st - 1 : pe - st);
        } else {
          int fv[4];
          int64_t g[4];
          feint_cell_quad_face(FEINT_CELL_PRISM, e, fv);
          for (int i = 0; i < 4; i++) g[i] = vd[cv[fv[i]]];
          *d = quad_base + quad_id[3 * c + e] * pe * pe + quad_face_index(p, g, st, k - 1);
        }
      }
    for (int j = 1; j < p; j++) /* triangle interior: triangular faces, cell interior */
      for (int i = 1; i + j < p; i++, t++) {
        int64_t *d = dofs + t + nt * k;
        if (k < 2) { /* weights (p-i-j, i, j) on the face's vertices, sorted by dof */
          int w[3] = {p - i - j, i, j}, o[3] = {0, 1, 2};
          for (int a = 1; a < 3; a++)
            for (int b = a; b > 0 && vd[cv[o[b] + 3 * k]] < vd[cv[o[b - 1] + 3 * k]]; b--) {
              int tmp = o[b];
              o[b] = o[b - 1];
              o[b - 1] = tmp;
            }
          *d = tri_base + tri_id[2 * c + k] * nti + tri_interior_index(p, w[o[1]], w[o[2]]);
        } else {
          *d = interior_base + c * nti * pe + tri_interior_index(p, i, j) + (int64_t)nti * (k - 2);
        }
      }
  }
}

static int prism_numbering(feint_space *s) {
  const feint_mesh *m = s->mesh;
  const int p = s->order, pe = p - 1;
  int64_t *edge_of = NULL, *tri_id = NULL, *quad_id = NULL, n_tri = 0, n_quad = 0;
  int status = number_vertices_edges(s, &edge_of);
  if (!status) status = feint_malloc((size_t)m->n_cells * 2 + 1, sizeof *tri_id, &tri_id, "prism faces");
  if (!status) status = feint_malloc((size_t)m->n_cells * 3 + 1, sizeof *quad_id, &quad_id, "prism faces");
  if (!status) status = prism_faces(s, tri_id, quad_id, &n_tri, &n_quad);
  if (!status) {
    const int nti = pe * (p - 2) / 2;
    s->n_scalar_dofs = s->n_vertices + s->n_edges * pe + n_tri * nti + n_quad * pe * pe +
                       m->n_cells * nti * pe;
    status = feint_malloc((size_t)(m->n_cells * s->nb), sizeof(int64_t), &s->scalar_cell_dofs, "cell dof map");
  }
  for (int64_t c = 0; c < m->n_cells && !status; c++)
    prism_cell_dofs(s, c, edge_of, tri_id, quad_id, n_tri, n_quad, s->scalar_cell_dofs + c * s->nb);
  free(edge_of);
  free(tri_id);
  free(quad_id);
  return status;
}

/* s->coordinates of the dofs of one block's cells (element el): the
 * cells' first-order maps at the element's nodes (a curved mesh's curved
 * cells: the map of their geometry nodes). */
/* Dof coordinates through each cell's map, on every core. A dof shared by
 * cells takes its coordinates from the highest-numbered of them (what a
 * loop over the cells in order leaves), so the file does not depend on
 * the threads: *owner (the dofs' cell) is made first, by atomic maxima. */
typedef struct {
  feint_space *s;
  const feint_mesh_block *block;
  int nb, nv, ng;
  const double *N, *Ng;
  int64_t *owner;
} coordinates_job;

static void claim_dofs(int64_t c0, int64_t c1, void *arg) {
  const coordinates_job *j = arg;
  const int64_t first = j->block->first_cell;
  for (int64_t c = first + c0; c < first + c1; c++) {
    const int64_t *dofs = j->s->scalar_cell_dofs + c * j->s->nb;
    for (int i = 0; i < j->nb; i++) {
      int64_t *o = &j->owner[dofs[i]], seen = __atomic_load_n(o, __ATOMIC_RELAXED);
      while (seen < c && !__atomic_compare_exchange_n(o, &seen, c, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
      }
    }
  }
}

static void owned_coordinates(int64_t c0, int64_t c1, void *arg) {
  const coordinates_job *j = arg;
  const feint_mesh *m = j->s->mesh;
  const double *X[3] = {m->x, m->y, m->z};
  const int64_t first = j->block->first_cell;
  for (int64_t c = first + c0; c < first + c1; c++) {
    const int64_t *cv = m->cells + c * m->nv, *dofs = j->s->scalar_cell_dofs + c * j->s->nb;
    const double *G =
        j->ng && m->curved_cells && m->curved_cells[c] ? feint_mesh_curved_nodes(m, c, j->ng) : NULL;
    for (int i = 0; i < j->nb; i++) {
      if (j->owner[dofs[i]] != c) continue;
      for (int a = 0; a < 3; a++) {
        double x = 0;
        if (G)
          for (int k = 0; k < j->ng; k++) x += j->Ng[i * j->ng + k] * G[3 * k + a];
        else
          for (int v = 0; v < j->nv; v++) x += j->N[i * j->nv + v] * X[a][cv[v]];
        j->s->coordinates[dofs[i] * 3 + a] = x;
      }
    }
  }
}

static int block_coordinates(feint_space *s, const feint_mesh_block *block, const feint_element *el, int64_t *owner) {
  const feint_mesh *m = s->mesh;
  const int nb = el->nb, nv = block->nv, ng = m->n_geometry_nodes ? block->n_geometry_nodes : 0;
  double *N = NULL, *Ng = NULL;
  FEINT_CALL(feint_malloc((size_t)(nb * nv), sizeof(double), &N, "vertex shape table"));
  feint_cell_vertex_shape(block->cell_type, nb, el->nodes, N, NULL);
  if (ng) {
    if (feint_malloc((size_t)(nb * ng), sizeof(double), &Ng, "geometry shape table")) {
      free(N);
      return FEINT_ERR_COMPUTE;
    }
    feint_cell_curved_shape(block->cell_type, ng, nb, el->nodes, Ng, NULL);
  }
  coordinates_job j = {s, block, nb, nv, ng, N, Ng, owner};
  feint_parallel_for(block->n_cells, 1 << 12, owned_coordinates, &j);
  free(N);
  free(Ng);
  return FEINT_OK;
}

int feint_space_finish(feint_space *s, int status, feint_space **out) {
  const feint_mesh *m = s->mesh;
  int64_t *owner = NULL;
  if (!status)
    status = feint_malloc((size_t)s->n_scalar_dofs * 3, sizeof(double), &s->coordinates, "dof coordinates");
  if (!status) status = feint_malloc((size_t)s->n_scalar_dofs + 1, sizeof *owner, &owner, "dof owners");
  if (!status) {
    for (int64_t i = 0; i < s->n_scalar_dofs; i++) owner[i] = -1;
    for (int b = 0; b < m->n_blocks; b++) {
      coordinates_job j = {s, &m->blocks[b], s->n_blocks > 1 ? s->blocks[b].element->nb : s->element->nb,
                           0, 0, NULL, NULL, owner};
      feint_parallel_for(m->blocks[b].n_cells, 1 << 12, claim_dofs, &j);
    }
  }
  for (int b = 0; b < m->n_blocks && !status; b++)
    status = block_coordinates(s, &m->blocks[b], s->n_blocks > 1 ? s->blocks[b].element : s->element, owner);
  free(owner);
  if (!status) status = feint_space_expand_components(s);
  if (status) {
    feint_space_destroy(s);
    return status;
  }
  s->n_dofs = s->n_scalar_dofs * s->components;
  *out = s;
  return FEINT_OK;
}

int feint_space_tensor_create(const feint_mesh *mesh, int order, int components, feint_space **out) {
  *out = NULL;
  feint_space *s = NULL;
  FEINT_CALL(feint_calloc(1, sizeof *s, &s, "space"));
  s->mesh = mesh;
  s->order = order;
  s->components = components;
  int status = feint_element_create(mesh->cell_type, order, &s->element);
  if (!status) {
    s->nb = s->element->nb;
    s->nbc = s->nb * components;
    status = mesh->cell_type == FEINT_CELL_HEXAHEDRON ? hex_numbering(s)
             : mesh->cell_type == FEINT_CELL_PRISM    ? prism_numbering(s)
                                                      : quad_numbering(s);
  }
  return feint_space_finish(s, status, out);
}
