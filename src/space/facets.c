/* Facet dofs of any region for boundary conditions (space.h,
 * feint_space_facets): simplices and quadrilaterals through the topology
 * (feint_space_facet_dofs); hexahedra and prisms through the cell holding
 * the facet: the facet's nodes mapped into the cell's reference face pick
 * the cell's local nodes, whose dofs the cell's dof map holds, so the
 * facet sees the dofs in whatever orientation the dof map gave the face. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "feint/error.h"
#include "feint/space.h"
#include "feint/tensor.h"

enum { MAX_CELL_VERTICES = 8, PERM_KEYS = MAX_CELL_VERTICES * MAX_CELL_VERTICES * MAX_CELL_VERTICES };

struct feint_space_facets {
  const feint_space *s;
  int64_t *node_ptr, *node_cells;  /* mesh node -> the cells using it (CSR); NULL on the topology path */
  double vertex[MAX_CELL_VERTICES][3]; /* reference coordinates of the cell's vertices */
  double edge[FEINT_TENSOR_MAX_POINTS]; /* feint_space_edge_nodes */
  feint_element *triangle;         /* the triangle facet element (prisms) */
  /* facet node -> cell node, per facet shape (0 triangle, 1 quadrilateral)
   * and orientation key l0 nv^2 + l1 nv + l_last (the cell-local vertices
   * of facet vertices 0, 1 and the last); built on first use */
  int *perm[2][PERM_KEYS];
};

int feint_space_edge_nodes(const feint_space *s, double *t) {
  const int p = s->order;
  const feint_cell_type ct = s->mesh->cell_type;
  t[0] = 0.0;
  t[1] = 1.0;
  if (ct == FEINT_CELL_QUADRILATERAL || ct == FEINT_CELL_HEXAHEDRON) {
    double x[FEINT_TENSOR_MAX_POINTS], w[FEINT_TENSOR_MAX_POINTS];
    FEINT_CALL(feint_gauss_lobatto(p + 1, x, w));
    for (int i = 1; i < p; i++) t[i + 1] = 0.5 * (x[i] + 1.0);
  } else {
    for (int i = 1; i < p; i++) t[i + 1] = (double)i / p;
  }
  return FEINT_OK;
}

int feint_space_facet_nb(const feint_space *s, int nvf) {
  const int p = s->order;
  return nvf == 2 ? p + 1 : nvf == 3 ? (p + 1) * (p + 2) / 2 : (p + 1) * (p + 1);
}

/* Facet shapes the region's cells have: 1 if a facet of nvf vertices can
 * be one. */
static int shape_ok(const feint_mesh *m, int nvf) {
  switch (m->cell_type) {
    case FEINT_CELL_HEXAHEDRON: return nvf == 4;
    case FEINT_CELL_PRISM: return nvf == 3 || nvf == 4;
    default: return nvf == m->dim;
  }
}

int feint_space_facets_create(const feint_space *s, feint_space_facets **out) {
  *out = NULL;
  const feint_mesh *m = s->mesh;
  feint_space_facets *f = NULL;
  FEINT_CALL(feint_calloc(1, sizeof *f, &f, "facet lookup"));
  f->s = s;
  int status = feint_space_edge_nodes(s, f->edge);
  const int nv = m->nv, nb = s->nb;
  if (!status && (m->cell_type == FEINT_CELL_HEXAHEDRON || m->cell_type == FEINT_CELL_PRISM)) {
    /* the reference vertices: the element node where the vertex's shape function is 1 */
    double *N = NULL;
    status = feint_malloc((size_t)(nb * nv), sizeof *N, &N, "vertex shape table");
    if (!status) {
      feint_cell_vertex_shape(m->cell_type, nb, s->element->nodes, N, NULL);
      for (int v = 0; v < nv; v++) {
        int best = 0;
        for (int i = 1; i < nb; i++)
          if (N[i * nv + v] > N[best * nv + v]) best = i;
        for (int d = 0; d < 3; d++) f->vertex[v][d] = s->element->nodes[best * 3 + d];
      }
    }
    free(N);
    if (!status && m->cell_type == FEINT_CELL_PRISM)
      status = feint_element_create(FEINT_CELL_TRIANGLE, s->order, &f->triangle);
    if (!status) status = feint_calloc((size_t)m->n_nodes + 1, sizeof *f->node_ptr, &f->node_ptr, "node cells");
    if (!status)
      status = feint_malloc((size_t)(m->n_cells * nv) + 1, sizeof *f->node_cells, &f->node_cells, "node cells");
    if (!status) {
      for (int64_t k = 0; k < m->n_cells * nv; k++) f->node_ptr[m->cells[k] + 1]++;
      for (int64_t i = 0; i < m->n_nodes; i++) f->node_ptr[i + 1] += f->node_ptr[i];
      for (int64_t k = 0; k < m->n_cells * nv; k++) f->node_cells[f->node_ptr[m->cells[k]]++] = k / nv;
      for (int64_t i = m->n_nodes; i > 0; i--) f->node_ptr[i] = f->node_ptr[i - 1]; /* back to the starts */
      f->node_ptr[0] = 0;
    }
  }
  if (status) {
    feint_space_facets_destroy(f);
    return status;
  }
  *out = f;
  return FEINT_OK;
}

void feint_space_facets_destroy(feint_space_facets *f) {
  if (!f) return;
  for (int k = 0; k < 2; k++)
    for (int i = 0; i < PERM_KEYS; i++) free(f->perm[k][i]);
  free(f->node_ptr);
  free(f->node_cells);
  feint_element_destroy(f->triangle);
  free(f);
}

/* 1 when the cell-local vertices l[0..nvf-1] are a face of the cell, in
 * cyclic order for a quadrilateral. */
static int is_face(feint_cell_type ct, const int *l, int nvf) {
  const int n = nvf == 4 ? feint_cell_num_quad_faces(ct) : feint_cell_num_faces(ct);
  for (int k = 0; k < n; k++) {
    int fv[4], pos[4], found = 0;
    if (nvf == 4) feint_cell_quad_face(ct, k, fv);
    else feint_cell_face(ct, k, fv);
    for (int a = 0; a < nvf; a++)
      for (int b = 0; b < nvf; b++)
        if (l[a] == fv[b]) pos[a] = b, found++;
    if (found != nvf) continue;
    int cyclic = 1;
    for (int a = 0; nvf == 4 && a < 4; a++) cyclic &= (pos[(a + 1) % 4] - pos[a] + 4) % 4 % 2 == 1;
    return cyclic;
  }
  return 0;
}

/* The table facet node -> cell node for the cell-local facet vertices l:
 * each facet node's reference point (space.h order) mapped into the cell
 * through the face's corners l0, l1, l_last, matched to the cell's nodes. */
static int build_perm(const feint_space_facets *f, const int *l, int nvf, int **out) {
  const feint_space *s = f->s;
  const int p = s->order, n = p + 1, nbf = feint_space_facet_nb(s, nvf), nb = s->nb;
  const double *V0 = f->vertex[l[0]], *V1 = f->vertex[l[1]], *V2 = f->vertex[l[nvf - 1]];
  int *perm = NULL;
  FEINT_CALL(feint_malloc((size_t)nbf, sizeof *perm, &perm, "facet orientation"));
  for (int k = 0; k < nbf; k++) {
    const double a = nvf == 4 ? f->edge[k % n] : f->triangle->nodes[2 * k];
    const double b = nvf == 4 ? f->edge[k / n] : f->triangle->nodes[2 * k + 1];
    double X[3];
    for (int d = 0; d < 3; d++) X[d] = V0[d] + a * (V1[d] - V0[d]) + b * (V2[d] - V0[d]);
    perm[k] = -1;
    for (int i = 0; i < nb && perm[k] < 0; i++) {
      const double *y = s->element->nodes + 3 * i;
      if (fabs(y[0] - X[0]) + fabs(y[1] - X[1]) + fabs(y[2] - X[2]) < 1e-9) perm[k] = i;
    }
    if (perm[k] < 0) {
      free(perm);
      return feint_error_set(FEINT_ERR_COMPUTE, "internal: facet node %d has no %s node", k,
                             feint_cell_name(s->mesh->cell_type));
    }
  }
  *out = perm;
  return FEINT_OK;
}

int feint_space_facets_dofs(feint_space_facets *f, const int64_t *nodes, int nvf, int64_t *dofs) {
  const feint_space *s = f->s;
  const feint_mesh *m = s->mesh;
  if (!shape_ok(m, nvf))
    return feint_error_set(FEINT_ERR_INPUT, "a facet of %d vertices is no facet of a %s mesh", nvf,
                           feint_cell_name(m->cell_type));
  if (!f->node_ptr) return feint_space_facet_dofs(s, nodes, dofs);
  for (int a = 0; a < nvf; a++)
    if (nodes[a] < 0 || nodes[a] >= m->n_nodes) return -1;
  const int nv = m->nv;
  int holder = 0; /* a cell holds all the facet's vertices */
  for (int64_t k = f->node_ptr[nodes[0]]; k < f->node_ptr[nodes[0] + 1]; k++) {
    const int64_t c = f->node_cells[k], *cv = m->cells + c * nv;
    int l[4], found = 0;
    for (int a = 0; a < nvf; a++)
      for (int v = 0; v < nv; v++)
        if (cv[v] == nodes[a]) l[a] = v, found++;
    if (found != nvf) continue;
    holder = 1;
    if (!is_face(m->cell_type, l, nvf)) continue;
    int **perm = &f->perm[nvf == 4][(l[0] * nv + l[1]) * nv + l[nvf - 1]];
    if (!*perm) FEINT_CALL(build_perm(f, l, nvf, perm));
    const int64_t *cd = s->scalar_cell_dofs + c * s->nb;
    for (int i = 0; i < feint_space_facet_nb(s, nvf); i++) dofs[i] = cd[(*perm)[i]];
    return FEINT_OK;
  }
  if (!holder) return -1;
  return feint_error_set(FEINT_ERR_INPUT, "the %s facet at (%g, %g, %g) (its first vertex) is no face of the %s "
                         "holding its vertices (are they in cyclic order?)", nvf == 4 ? "quadrilateral" : "triangle",
                         m->x[nodes[0]], m->y[nodes[0]], m->z[nodes[0]], feint_cell_name(m->cell_type));
}
