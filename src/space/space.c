/* Dof map from mesh topology; see include/feint/space.h for the numbering. */
#include "feint/space.h"

#include <stdlib.h>
#include <string.h>

#include "feint/error.h"
#include "space/space_private.h"

/* Number the mesh edges of the region: edge_of[cell * ne + e] = edge id.
 * Edges are bucketed by their lower vertex; ids follow the sorted vertex
 * pair (lower vertex, then upper vertex, each bucket sorted), as space.h
 * documents, so the numbering does not depend on the cell order. The
 * buckets are returned compacted (edge_ptr, edge_upper: the edge (lo, hi)
 * has the id k with edge_ptr[lo] <= k < edge_ptr[lo + 1], edge_upper[k] ==
 * hi), the lookup feint_space_facet_dofs uses. */
int feint_space_number_edges(const feint_mesh *mesh, const int64_t *vdof, int64_t n_vertices,
                        int64_t **edge_of_out, int64_t *n_edges_out, int64_t **edge_ptr_out,
                        int64_t **edge_upper_out) {
  const int ne = feint_cell_num_edges(mesh->cell_type);
  const int64_t n_entries = mesh->n_cells * ne;
  int64_t *offset = NULL, *upper = NULL, *edge_of = NULL, *fill = NULL, *ptr = NULL, *cupper = NULL;
  int status = FEINT_OK;
  if ((status = feint_calloc((size_t)n_vertices + 1, sizeof *offset, &offset, "edge buckets")) ||
      (status = feint_malloc((size_t)n_entries, sizeof *upper, &upper, "edge buckets")) ||
      (status = feint_malloc((size_t)n_entries, sizeof *edge_of, &edge_of, "edge map")) ||
      (status = feint_calloc((size_t)n_vertices, sizeof *fill, &fill, "edge buckets")) ||
      (status = feint_calloc((size_t)n_vertices + 1, sizeof *ptr, &ptr, "edge lookup")))
    goto done;
  for (int64_t c = 0; c < mesh->n_cells; c++)
    for (int e = 0; e < ne; e++) {
      int ab[2];
      feint_cell_edge(mesh->cell_type, e, ab);
      int64_t va = vdof[mesh->cells[c * mesh->nv + ab[0]]], vb = vdof[mesh->cells[c * mesh->nv + ab[1]]];
      offset[(va < vb ? va : vb) + 1]++;
    }
  for (int64_t v = 0; v < n_vertices; v++) offset[v + 1] += offset[v];
  /* pass 1: collect the distinct upper vertices of each bucket (fill[v]:
   * entries bucket v holds so far) */
  for (int64_t c = 0; c < mesh->n_cells; c++)
    for (int e = 0; e < ne; e++) {
      int ab[2];
      feint_cell_edge(mesh->cell_type, e, ab);
      int64_t va = vdof[mesh->cells[c * mesh->nv + ab[0]]], vb = vdof[mesh->cells[c * mesh->nv + ab[1]]];
      int64_t lo = va < vb ? va : vb, hi = va < vb ? vb : va;
      int64_t begin = offset[lo], end = begin + fill[lo], k = begin;
      while (k < end && upper[k] != hi) k++;
      if (k == end) {
        upper[end] = hi;
        fill[lo]++;
      }
    }
  /* sort each bucket (a few entries: insertion sort); ids in order */
  int64_t n_edges = 0;
  for (int64_t v = 0; v < n_vertices; v++) {
    int64_t *u = upper + offset[v];
    for (int64_t i = 1; i < fill[v]; i++) {
      int64_t key = u[i], j = i - 1;
      while (j >= 0 && u[j] > key) {
        u[j + 1] = u[j];
        j--;
      }
      u[j + 1] = key;
    }
    n_edges += fill[v];
    ptr[v + 1] = n_edges;
  }
  if ((status = feint_malloc((size_t)n_edges, sizeof *cupper, &cupper, "edge lookup"))) goto done;
  for (int64_t v = 0; v < n_vertices; v++)
    memcpy(cupper + ptr[v], upper + offset[v], (size_t)fill[v] * sizeof *cupper);
  /* pass 2: look the cells' edges up */
  for (int64_t c = 0; c < mesh->n_cells; c++)
    for (int e = 0; e < ne; e++) {
      int ab[2];
      feint_cell_edge(mesh->cell_type, e, ab);
      int64_t va = vdof[mesh->cells[c * mesh->nv + ab[0]]], vb = vdof[mesh->cells[c * mesh->nv + ab[1]]];
      int64_t lo = va < vb ? va : vb, hi = va < vb ? vb : va;
      int64_t k = ptr[lo];
      while (cupper[k] != hi) k++;
      edge_of[c * ne + e] = k;
    }
  *edge_of_out = edge_of;
  *edge_ptr_out = ptr;
  *edge_upper_out = cupper;
  edge_of = ptr = cupper = NULL;
  *n_edges_out = n_edges;
done:
  free(offset);
  free(upper);
  free(fill);
  free(edge_of);
  free(ptr);
  free(cupper);
  return status;
}

int feint_space_create(const feint_mesh *mesh, int order, int components, feint_space **out) {
  *out = NULL;
  if (!feint_cell_is_simplex(mesh->cell_type)) return feint_space_tensor_create(mesh, order, components, out);
  if (order < 1 || (mesh->dim == 3 && order > 2) || order > 7)
    return feint_error_set(FEINT_ERR_INPUT,
                           "space.order %d is not supported on %ss in this version (orders 1..%d)",
                           order, feint_cell_name(mesh->cell_type), mesh->dim == 3 ? 2 : 7);
  if (components < 1 || components > 3)
    return feint_error_set(FEINT_ERR_INPUT, "space.components must be 1, 2 or 3, got %d", components);
  feint_space *s = NULL;
  FEINT_CALL(feint_calloc(1, sizeof *s, &s, "space"));
  int status = FEINT_OK;
  int64_t *vdof = NULL, *edge_of = NULL;
  s->mesh = mesh;
  s->order = order;
  s->components = components;
  if ((status = feint_element_create(mesh->cell_type, order, &s->element))) goto fail;
  s->nb = s->element->nb;
  s->nbc = s->nb * components;

  /* Vertex dofs: region vertices in mesh node order. */
  if ((status = feint_malloc((size_t)mesh->n_nodes, sizeof *vdof, &vdof, "vertex numbering")))
    goto fail;
  /* mark used nodes with 0, then number them in node order */
  for (int64_t i = 0; i < mesh->n_nodes; i++) vdof[i] = -1;
  for (int64_t k = 0; k < mesh->n_cells * mesh->nv; k++) vdof[mesh->cells[k]] = 0;
  int64_t n_vertices = 0;
  for (int64_t i = 0; i < mesh->n_nodes; i++)
    if (vdof[i] == 0) vdof[i] = n_vertices++;

  const int per_edge = order - 1, ne = feint_cell_num_edges(mesh->cell_type);
  const int nv = mesh->nv, n_interior = s->element->entity_dofs[3];
  int64_t n_edges = 0;
  if (per_edge > 0 && (status = feint_space_number_edges(mesh, vdof, n_vertices, &edge_of, &n_edges, &s->edge_ptr,
                                             &s->edge_upper)))
    goto fail;
  s->n_vertices = n_vertices;
  s->n_edges = n_edges;
  const int64_t edge_base = n_vertices, interior_base = n_vertices + n_edges * per_edge;
  s->n_scalar_dofs = interior_base + mesh->n_cells * n_interior;
  s->n_dofs = s->n_scalar_dofs * components;

  if ((status = feint_malloc((size_t)(mesh->n_cells * s->nb), sizeof(int64_t), &s->scalar_cell_dofs,
                             "cell dof map")) ||
      (status = feint_malloc((size_t)s->n_scalar_dofs * 3, sizeof(double), &s->coordinates,
                             "dof coordinates")))
    goto fail;
  const int dim = mesh->dim;
  for (int64_t c = 0; c < mesh->n_cells; c++) {
    int64_t *dofs = s->scalar_cell_dofs + c * s->nb;
    const int64_t *cv = mesh->cells + c * nv;
    for (int i = 0; i < nv; i++) dofs[i] = vdof[cv[i]];
    for (int e = 0; e < ne && per_edge > 0; e++) {
      int ab[2];
      feint_cell_edge(mesh->cell_type, e, ab);
      int forward = vdof[cv[ab[0]]] < vdof[cv[ab[1]]];
      for (int k = 0; k < per_edge; k++)
        dofs[nv + e * per_edge + k] =
            edge_base + edge_of[c * ne + e] * per_edge + (forward ? k : per_edge - 1 - k);
    }
    int first_interior = s->nb - n_interior;
    for (int k = 0; k < n_interior; k++) dofs[first_interior + k] = interior_base + c * n_interior + k;
    /* dof coordinates by the affine map x = v0 + sum_d (v_{d+1} - v0) xi_d */
    for (int i = 0; i < s->nb; i++) {
      const double *xi = s->element->nodes + i * dim;
      double p[3];
      const double *X[3] = {mesh->x, mesh->y, mesh->z};
      for (int a = 0; a < 3; a++) {
        p[a] = X[a][cv[0]];
        for (int d = 0; d < dim; d++) p[a] += (X[a][cv[d + 1]] - X[a][cv[0]]) * xi[d];
      }
      memcpy(s->coordinates + dofs[i] * 3, p, sizeof p);
    }
  }
  if ((status = feint_space_expand_components(s))) goto fail;
  s->vertex_dof = vdof;
  free(edge_of);
  *out = s;
  return FEINT_OK;
fail:
  free(vdof);
  free(edge_of);
  feint_space_destroy(s);
  return status;
}

int feint_space_expand_components(feint_space *s) {
  const int64_t n_cells = s->mesh->n_cells;
  const int nc = s->components;
  if (nc == 1) {
    s->cell_dofs = s->scalar_cell_dofs;
    return FEINT_OK;
  }
  FEINT_CALL(feint_malloc((size_t)(n_cells * s->nbc), sizeof(int64_t), &s->cell_dofs, "cell dof map"));
  for (int64_t c = 0; c < n_cells; c++)
    for (int i = 0; i < s->nb; i++)
      for (int k = 0; k < nc; k++)
        s->cell_dofs[(c * s->nb + i) * nc + k] = s->scalar_cell_dofs[c * s->nb + i] * nc + k;
  return FEINT_OK;
}

void feint_space_destroy(feint_space *s) {
  if (!s) return;
  if (s->cell_dofs != s->scalar_cell_dofs) free(s->cell_dofs);
  free(s->scalar_cell_dofs);
  free(s->coordinates);
  free(s->vertex_dof);
  free(s->edge_ptr);
  free(s->edge_upper);
  feint_element_destroy(s->element);
  free(s);
}

/* Edge id of the vertex dofs (a, b), -1 if the region has no such edge. */
static int64_t find_edge(const feint_space *s, int64_t a, int64_t b) {
  int64_t lo = a < b ? a : b, hi = a < b ? b : a;
  for (int64_t k = s->edge_ptr[lo]; k < s->edge_ptr[lo + 1]; k++)
    if (s->edge_upper[k] == hi) return k;
  return -1;
}

int feint_space_facet_dofs(const feint_space *s, const int64_t *nodes, int64_t *dofs) {
  const feint_mesh *m = s->mesh;
  const int nvf = m->dim, per_edge = s->order - 1;
  const feint_cell_type fc = m->dim == 3 ? FEINT_CELL_TRIANGLE : FEINT_CELL_SEGMENT;
  if (!s->vertex_dof) /* hexahedra: quadrilateral facets, dofs numbered by the BP map */
    return feint_error_set(FEINT_ERR_INPUT, "boundary conditions on %s meshes are not supported in this version",
                           feint_cell_name(m->cell_type));
  if (m->dim == 3 && s->order > 2) /* face-interior dofs: not numbered in this version */
    return feint_error_set(FEINT_ERR_INPUT, "facet dofs of P%d on tetrahedra are not supported", s->order);
  int64_t v[3];
  for (int i = 0; i < nvf; i++) {
    if (nodes[i] < 0 || nodes[i] >= m->n_nodes || s->vertex_dof[nodes[i]] < 0) return -1;
    v[i] = dofs[i] = s->vertex_dof[nodes[i]];
  }
  const int64_t edge_base = s->n_vertices;
  for (int e = 0; e < feint_cell_num_edges(fc) && per_edge > 0; e++) {
    int ab[2];
    feint_cell_edge(fc, e, ab);
    int64_t id = find_edge(s, v[ab[0]], v[ab[1]]);
    if (id < 0) return -1;
    int forward = v[ab[0]] < v[ab[1]];
    for (int k = 0; k < per_edge; k++)
      dofs[nvf + e * per_edge + k] = edge_base + id * per_edge + (forward ? k : per_edge - 1 - k);
  }
  return FEINT_OK;
}
