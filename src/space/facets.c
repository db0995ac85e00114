/* Facet dofs of any region for boundary conditions (space.h,
 * feint_space_facets): simplices and quadrilaterals through the topology
 * (feint_space_facet_dofs); hexahedra, prisms and 3D mixed meshes through
 * the cell holding the facet: the facet's nodes mapped into the reference
 * face of the cell (with its block's element) pick the cell's local nodes,
 * whose dofs the cell's dof map holds, so the facet sees the dofs in
 * whatever orientation the dof map gave the face. */
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
  double vertex[FEINT_MESH_MAX_BLOCKS][MAX_CELL_VERTICES][3]; /* per block: reference coordinates
                                                                 of the cell's vertices */
  double edge[FEINT_TENSOR_MAX_POINTS]; /* feint_space_edge_nodes */
  feint_element *triangle;         /* the triangle facet element (prisms, tetrahedra of mixed meshes) */
  /* facet node -> cell node, per block, facet shape (0 triangle, 1
   * quadrilateral) and orientation key l0 nv^2 + l1 nv + l_last (the
   * cell-local vertices of facet vertices 0, 1 and the last); built on
   * first use */
  int *perm[FEINT_MESH_MAX_BLOCKS][2][PERM_KEYS];
};

feint_node_family feint_space_node_family(const feint_space *s) { return s->blocks[0].element->family; }

int feint_space_edge_nodes(const feint_space *s, double *t) {
  const int p = s->order;
  t[0] = 0.0;
  t[1] = 1.0;
  if (feint_space_node_family(s) == FEINT_NODES_LOBATTO) {
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

/* 1 if a facet of nvf vertices can be a face of a cell of this shape. */
static int shape_ok(feint_cell_type ct, int dim, int nvf) {
  switch (ct) {
    case FEINT_CELL_HEXAHEDRON: return nvf == 4;
    case FEINT_CELL_PRISM: return nvf == 3 || nvf == 4;
    default: return nvf == dim;
  }
}

/* 1 if some block's cells have faces of nvf vertices. */
static int shape_met(const feint_mesh *m, int nvf) {
  for (int b = 0; b < m->n_blocks; b++)
    if (shape_ok(m->blocks[b].cell_type, m->dim, nvf)) return 1;
  return 0;
}

/* The reference coordinates of block b's vertices: the element node where
 * the vertex's shape function is 1. */
static int block_vertices(feint_space_facets *f, int b) {
  const feint_space *s = f->s;
  const feint_cell_type ct = s->mesh->blocks[b].cell_type;
  const int nv = s->mesh->blocks[b].nv, nb = s->blocks[b].nb;
  const double *nodes = s->blocks[b].element->nodes;
  double *N = NULL;
  FEINT_CALL(feint_malloc((size_t)(nb * nv), sizeof *N, &N, "vertex shape table"));
  feint_cell_vertex_shape(ct, nb, nodes, N, NULL);
  for (int v = 0; v < nv; v++) {
    int best = 0;
    for (int i = 1; i < nb; i++)
      if (N[i * nv + v] > N[best * nv + v]) best = i;
    for (int d = 0; d < 3; d++) f->vertex[b][v][d] = nodes[best * 3 + d];
  }
  free(N);
  return FEINT_OK;
}

int feint_space_facets_create(const feint_space *s, feint_space_facets **out) {
  *out = NULL;
  const feint_mesh *m = s->mesh;
  feint_space_facets *f = NULL;
  FEINT_CALL(feint_calloc(1, sizeof *f, &f, "facet lookup"));
  f->s = s;
  int status = feint_space_edge_nodes(s, f->edge);
  const int nv = m->nv;
  const int holder_path = m->cell_type == FEINT_CELL_HEXAHEDRON || m->cell_type == FEINT_CELL_PRISM ||
                          (m->dim == 3 && feint_mesh_is_mixed(m));
  if (!status && holder_path) {
    int triangles = 0;
    for (int b = 0; b < m->n_blocks && !status; b++) {
      status = block_vertices(f, b);
      triangles |= shape_ok(m->blocks[b].cell_type, 3, 3);
    }
    if (!status && triangles) status = feint_element_create_family(FEINT_CELL_TRIANGLE, s->order, feint_space_node_family(s), &f->triangle);
    if (!status) status = feint_calloc((size_t)m->n_nodes + 1, sizeof *f->node_ptr, &f->node_ptr, "node cells");
    if (!status)
      status = feint_malloc((size_t)(m->n_cells * nv) + 1, sizeof *f->node_cells, &f->node_cells, "node cells");
    if (!status) { /* rows of narrower blocks end with -1 (mesh.h) */
      for (int64_t k = 0; k < m->n_cells * nv; k++)
        if (m->cells[k] >= 0) f->node_ptr[m->cells[k] + 1]++;
      for (int64_t i = 0; i < m->n_nodes; i++) f->node_ptr[i + 1] += f->node_ptr[i];
      for (int64_t k = 0; k < m->n_cells * nv; k++)
        if (m->cells[k] >= 0) f->node_cells[f->node_ptr[m->cells[k]]++] = k / nv;
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
  for (int b = 0; b < FEINT_MESH_MAX_BLOCKS; b++)
    for (int k = 0; k < 2; k++)
      for (int i = 0; i < PERM_KEYS; i++) free(f->perm[b][k][i]);
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

/* The table facet node -> cell node for the cell-local facet vertices l of
 * a cell of block blk: each facet node's reference point (space.h order)
 * mapped into the cell through the face's corners l0, l1, l_last, matched
 * to the nodes of the block's element. */
static int build_perm(const feint_space_facets *f, int blk, const int *l, int nvf, int **out) {
  const feint_space *s = f->s;
  const int p = s->order, n = p + 1, nbf = feint_space_facet_nb(s, nvf), nb = s->blocks[blk].nb;
  const double *V0 = f->vertex[blk][l[0]], *V1 = f->vertex[blk][l[1]], *V2 = f->vertex[blk][l[nvf - 1]];
  int *perm = NULL;
  FEINT_CALL(feint_malloc((size_t)nbf, sizeof *perm, &perm, "facet orientation"));
  for (int k = 0; k < nbf; k++) {
    const double a = nvf == 4 ? f->edge[k % n] : f->triangle->nodes[2 * k];
    const double b = nvf == 4 ? f->edge[k / n] : f->triangle->nodes[2 * k + 1];
    double X[3];
    for (int d = 0; d < 3; d++) X[d] = V0[d] + a * (V1[d] - V0[d]) + b * (V2[d] - V0[d]);
    perm[k] = -1;
    for (int i = 0; i < nb && perm[k] < 0; i++) {
      const double *y = s->blocks[blk].element->nodes + 3 * i;
      if (fabs(y[0] - X[0]) + fabs(y[1] - X[1]) + fabs(y[2] - X[2]) < 1e-9) perm[k] = i;
    }
    if (perm[k] < 0) {
      free(perm);
      return feint_error_set(FEINT_ERR_COMPUTE, "internal: facet node %d has no %s node", k,
                             feint_cell_name(s->mesh->blocks[blk].cell_type));
    }
  }
  *out = perm;
  return FEINT_OK;
}

int feint_space_facets_dofs(feint_space_facets *f, const int64_t *nodes, int nvf, int64_t *dofs) {
  const feint_space *s = f->s;
  const feint_mesh *m = s->mesh;
  if (!shape_met(m, nvf)) {
    char shapes[128];
    return feint_error_set(FEINT_ERR_INPUT, "a facet of %d vertices is no facet of a mesh of %s", nvf,
                           feint_mesh_shapes(m, shapes, sizeof shapes));
  }
  if (!f->node_ptr) return feint_space_facet_dofs(s, nodes, dofs);
  for (int a = 0; a < nvf; a++)
    if (nodes[a] < 0 || nodes[a] >= m->n_nodes) return -1;
  const int nv = m->nv; /* row stride of m->cells */
  int holder = -1; /* the block of a cell holding all the facet's vertices */
  for (int64_t k = f->node_ptr[nodes[0]]; k < f->node_ptr[nodes[0] + 1]; k++) {
    const int64_t c = f->node_cells[k], *cv = m->cells + c * nv;
    const int b = feint_mesh_cell_block(m, c), nvb = m->blocks[b].nv;
    int l[4], found = 0;
    for (int a = 0; a < nvf; a++)
      for (int v = 0; v < nvb; v++)
        if (cv[v] == nodes[a]) l[a] = v, found++;
    if (found != nvf) continue;
    holder = b;
    if (!is_face(m->blocks[b].cell_type, l, nvf)) continue;
    int **perm = &f->perm[b][nvf == 4][(l[0] * nvb + l[1]) * nvb + l[nvf - 1]];
    if (!*perm) FEINT_CALL(build_perm(f, b, l, nvf, perm));
    const int64_t *cd = s->scalar_cell_dofs + c * s->nb;
    for (int i = 0; i < feint_space_facet_nb(s, nvf); i++) dofs[i] = cd[(*perm)[i]];
    return FEINT_OK;
  }
  if (holder < 0) return -1;
  return feint_error_set(FEINT_ERR_INPUT, "the %s facet at (%g, %g, %g) (its first vertex) is no face of the %s "
                         "holding its vertices (are they in cyclic order?)", nvf == 4 ? "quadrilateral" : "triangle",
                         m->x[nodes[0]], m->y[nodes[0]], m->z[nodes[0]],
                         feint_cell_name(m->blocks[holder].cell_type));
}
