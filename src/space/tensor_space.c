/* Dof maps of the tensor-product Lagrange spaces (space.h): quadrilaterals
 * numbered like the simplices (vertices, then edges by their sorted vertex
 * pair, then cell interiors), hexahedra by the BP operators' GLL dof map
 * (src/bp/dofmap.c), so an assembled hexahedral operator and the BP one
 * share their dof numbers. Local dofs are in the element's lexicographic
 * order (fe.h); dof coordinates come from the multilinear cell map. */
#include <stdlib.h>
#include <string.h>

#include "feint/bp.h"
#include "feint/error.h"
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

static int quad_numbering(feint_space *s) {
  const feint_mesh *m = s->mesh;
  int64_t *edge_of = NULL;
  FEINT_CALL(feint_malloc((size_t)m->n_nodes, sizeof *s->vertex_dof, &s->vertex_dof, "vertex numbering"));
  for (int64_t i = 0; i < m->n_nodes; i++) s->vertex_dof[i] = -1;
  for (int64_t k = 0; k < m->n_cells * m->nv; k++) s->vertex_dof[m->cells[k]] = 0;
  for (int64_t i = 0; i < m->n_nodes; i++)
    if (s->vertex_dof[i] == 0) s->vertex_dof[i] = s->n_vertices++;
  if (s->order > 1)
    FEINT_CALL(feint_space_number_edges(m, s->vertex_dof, s->n_vertices, &edge_of, &s->n_edges, &s->edge_ptr,
                                        &s->edge_upper));
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

/* Dof coordinates: the multilinear map of each cell at its element nodes. */
static int dof_coordinates(feint_space *s) {
  const feint_mesh *m = s->mesh;
  const int nb = s->nb, nv = m->nv;
  double *N = NULL;
  FEINT_CALL(feint_malloc((size_t)s->n_scalar_dofs * 3, sizeof(double), &s->coordinates, "dof coordinates"));
  FEINT_CALL(feint_malloc((size_t)(nb * nv), sizeof(double), &N, "vertex shape table"));
  feint_cell_vertex_shape(m->cell_type, nb, s->element->nodes, N, NULL);
  const double *X[3] = {m->x, m->y, m->z};
  for (int64_t c = 0; c < m->n_cells; c++) {
    const int64_t *cv = m->cells + c * nv, *dofs = s->scalar_cell_dofs + c * nb;
    for (int i = 0; i < nb; i++)
      for (int a = 0; a < 3; a++) {
        double x = 0;
        for (int v = 0; v < nv; v++) x += N[i * nv + v] * X[a][cv[v]];
        s->coordinates[dofs[i] * 3 + a] = x;
      }
  }
  free(N);
  return FEINT_OK;
}

int feint_space_tensor_create(const feint_mesh *mesh, int order, int components, feint_space **out) {
  *out = NULL;
  if (components < 1 || components > 3)
    return feint_error_set(FEINT_ERR_INPUT, "space.components must be 1, 2 or 3, got %d", components);
  feint_space *s = NULL;
  FEINT_CALL(feint_calloc(1, sizeof *s, &s, "space"));
  s->mesh = mesh;
  s->order = order;
  s->components = components;
  int status = feint_element_create(mesh->cell_type, order, &s->element);
  if (!status) {
    s->nb = s->element->nb;
    s->nbc = s->nb * components;
    status = mesh->cell_type == FEINT_CELL_HEXAHEDRON ? hex_numbering(s) : quad_numbering(s);
  }
  if (!status) status = dof_coordinates(s);
  if (!status) status = feint_space_expand_components(s);
  if (status) {
    feint_space_destroy(s);
    return status;
  }
  s->n_dofs = s->n_scalar_dofs * components;
  *out = s;
  return FEINT_OK;
}
