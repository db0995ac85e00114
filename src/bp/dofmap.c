/* Unstructured hexahedral meshes for the BP operators: a feint_hexmesh from
 * a Gmsh mesh, the GLL dof map from mesh topology with edge and face
 * orientations resolved canonically, and the dof coordinates
 * (include/feint/bp.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "feint/bp.h"
#include "feint/error.h"
#include "feint/fe.h"
#include "feint/tensor.h"

int feint_hexmesh_from_mesh(const feint_mesh *mesh, feint_hexmesh **out) {
  static const int gmsh_of_lex[8] = {0, 1, 3, 2, 4, 5, 7, 6};
  *out = NULL;
  char shapes[128];
  if (mesh->cell_type != FEINT_CELL_HEXAHEDRON || mesh->nv != 8 || feint_mesh_is_mixed(mesh))
    return feint_error_set(FEINT_ERR_INPUT, "mesh %s has %s cells; the BP operators need hexahedra", mesh->path,
                           feint_mesh_shapes(mesh, shapes, sizeof shapes));
  feint_hexmesh *m = NULL;
  FEINT_CALL(feint_calloc(1, sizeof *m, &m, "hex mesh"));
  m->n_vertices = mesh->n_nodes;
  m->n_cells = mesh->n_cells;
  if (feint_malloc((size_t)m->n_vertices * 3 + 1, sizeof(double), &m->vertices, "hex mesh vertices") ||
      feint_malloc((size_t)m->n_cells * 8 + 1, sizeof(int64_t), &m->cells, "hex mesh cells")) {
    feint_hexmesh_destroy(m);
    return FEINT_ERR_COMPUTE;
  }
  double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
  for (int64_t i = 0; i < m->n_vertices; i++) {
    double p[3] = {mesh->x[i], mesh->y[i], mesh->z[i]};
    for (int k = 0; k < 3; k++) {
      m->vertices[3 * i + k] = p[k];
      if (i == 0 || p[k] < lo[k]) lo[k] = p[k];
      if (i == 0 || p[k] > hi[k]) hi[k] = p[k];
    }
  }
  m->lx = hi[0] - lo[0];
  m->ly = hi[1] - lo[1];
  m->lz = hi[2] - lo[2];
  for (int64_t e = 0; e < m->n_cells; e++)
    for (int v = 0; v < 8; v++) m->cells[8 * e + v] = mesh->cells[8 * e + gmsh_of_lex[v]];
  *out = m;
  return FEINT_OK;
}

int feint_hexmesh_take_geometry(feint_hexmesh *m, const feint_mesh *mesh) {
  if (!mesh->n_geometry_nodes || mesh->n_curved_cells == 0) return FEINT_OK; /* the trilinear map is the cells' own */
  const size_t n = (size_t)m->n_cells * (size_t)mesh->n_geometry_nodes * 3;
  FEINT_CALL(feint_malloc(n, sizeof(double), &m->geometry_nodes, "hex mesh geometry nodes"));
  memcpy(m->geometry_nodes, mesh->geometry_nodes, n * sizeof(double));
  m->n_geometry_nodes = mesh->n_geometry_nodes;
  return FEINT_OK;
}

/* ------------------------------------------------------------ topology */

/* Local entities of the lexicographic hexahedron (vertex a + 2b + 4c). */
static int edge_vertex(int d, int le, int end) {
  /* edge le (0..3) along axis d: the other two axes' bits are le's bits */
  int o1 = d == 0 ? 1 : 0, o2 = d == 2 ? 1 : 2;
  return (end << d) | ((le & 1) << o1) | (((le >> 1) & 1) << o2);
}

static void face_axes(int d, int *u, int *w) {
  *u = d == 0 ? 1 : 0;
  *w = d == 2 ? 1 : 2;
}

typedef struct {
  int64_t k[4];
  int64_t slot; /* cell * 12 + local edge, or cell * 6 + local face */
} key;

static int cmp_key2(const void *pa, const void *pb) {
  const key *a = pa, *b = pb;
  for (int i = 0; i < 2; i++)
    if (a->k[i] != b->k[i]) return a->k[i] < b->k[i] ? -1 : 1;
  return 0;
}

static int cmp_key4(const void *pa, const void *pb) {
  const key *a = pa, *b = pb;
  for (int i = 0; i < 4; i++)
    if (a->k[i] != b->k[i]) return a->k[i] < b->k[i] ? -1 : 1;
  return 0;
}

static void sort4(int64_t *v) {
  for (int i = 1; i < 4; i++)
    for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
      int64_t t = v[j];
      v[j] = v[j - 1];
      v[j - 1] = t;
    }
}

/* Entity ids: id[slot] for each (cell, local entity), from sorted keys.
 * Returns the number of distinct entities, or -1 when one is shared by more
 * than max_share cells. */
static int64_t number_entities(key *keys, size_t n, int width, int max_share, int64_t *id) {
  qsort(keys, n, sizeof *keys, width == 2 ? cmp_key2 : cmp_key4);
  int64_t count = 0;
  int share = 0;
  for (size_t i = 0; i < n; i++) {
    int same = i > 0 && (width == 2 ? cmp_key2 : cmp_key4)(&keys[i], &keys[i - 1]) == 0;
    if (!same) {
      count++;
      share = 0;
    }
    if (++share > max_share) return -1;
    id[keys[i].slot] = count - 1;
  }
  return count;
}

int feint_bp_dofmap_create(const feint_hexmesh *m, int order, feint_bp_dofmap **out) {
  *out = NULL;
  if (order < 1 || order > FEINT_BP_MAX_ORDER)
    return feint_error_set(FEINT_ERR_INPUT, "BP dof map: order %d (1..%d supported)", order, FEINT_BP_MAX_ORDER);
  const int64_t nc = m->n_cells;
  const int N = order, P = N + 1, n1 = N - 1;
  for (int64_t e = 0; e < nc; e++) {
    const int64_t *cv = m->cells + 8 * e;
    for (int a = 0; a < 8; a++) {
      if (cv[a] < 0 || cv[a] >= m->n_vertices)
        return feint_error_set(FEINT_ERR_INPUT, "BP dof map: cell %lld refers to vertex %lld of %lld", (long long)e,
                               (long long)cv[a], (long long)m->n_vertices);
      for (int b = 0; b < a; b++)
        if (cv[a] == cv[b])
          return feint_error_set(FEINT_ERR_INPUT, "BP dof map: cell %lld repeats vertex %lld (degenerate hexahedron)",
                                 (long long)e, (long long)cv[a]);
    }
  }
  key *keys = NULL;
  int64_t *edge_id = NULL, *face_id = NULL, *vbase = NULL, *ebase = NULL, *fbase = NULL;
  feint_bp_dofmap *d = NULL;
  int st = feint_malloc((size_t)nc * 12 + 1, sizeof *keys, &keys, "BP dof map keys");
  if (!st) st = feint_malloc((size_t)nc * 12 + 1, sizeof *edge_id, &edge_id, "BP dof map edges");
  if (!st) st = feint_malloc((size_t)nc * 6 + 1, sizeof *face_id, &face_id, "BP dof map faces");
  if (st) goto done;
  /* edges: keyed by (lower, higher) global vertex */
  for (int64_t e = 0; e < nc; e++)
    for (int le = 0; le < 12; le++) {
      int64_t a = m->cells[8 * e + edge_vertex(le / 4, le % 4, 0)], b = m->cells[8 * e + edge_vertex(le / 4, le % 4, 1)];
      key *k = &keys[12 * e + le];
      k->k[0] = a < b ? a : b;
      k->k[1] = a < b ? b : a;
      k->slot = 12 * e + le;
    }
  int64_t n_edges = number_entities(keys, (size_t)nc * 12, 2, 1 << 30, edge_id);
  /* faces: keyed by their sorted vertices; at most two cells each */
  for (int64_t e = 0; e < nc; e++)
    for (int lf = 0; lf < 6; lf++) {
      int dd = lf / 2, s = lf % 2, u, w;
      face_axes(dd, &u, &w);
      key *k = &keys[6 * e + lf];
      for (int c = 0; c < 4; c++) k->k[c] = m->cells[8 * e + ((s << dd) | ((c & 1) << u) | ((c >> 1) << w))];
      sort4(k->k);
      k->slot = 6 * e + lf;
    }
  int64_t n_faces = number_entities(keys, (size_t)nc * 6, 4, 2, face_id);
  if (n_faces < 0) {
    st = feint_error_set(FEINT_ERR_INPUT, "BP dof map: a face is shared by more than two cells (the mesh is not a "
                                          "conforming hexahedral mesh)");
    goto done;
  }
  int64_t n_vert_used = 0;
  if ((st = feint_malloc((size_t)m->n_vertices + 1, sizeof *vbase, &vbase, "BP dof map vertices"))) goto done;
  for (int64_t i = 0; i < m->n_vertices; i++) vbase[i] = -1;
  for (int64_t i = 0; i < nc * 8; i++)
    if (vbase[m->cells[i]] == -1) {
      vbase[m->cells[i]] = -2;
      n_vert_used++;
    }
  int64_t n_dofs = n_vert_used + n_edges * n1 + n_faces * n1 * n1 + nc * n1 * n1 * n1;
  if (n_dofs > INT32_MAX) {
    st = feint_error_set(FEINT_ERR_INPUT, "BP dof map: %lld dofs do not fit in int32", (long long)n_dofs);
    goto done;
  }
  if ((st = feint_malloc((size_t)n_edges + 1, sizeof *ebase, &ebase, "BP dof map edges")) ||
      (st = feint_malloc((size_t)n_faces + 1, sizeof *fbase, &fbase, "BP dof map faces")) ||
      (st = feint_calloc(1, sizeof *d, &d, "BP dof map")))
    goto done;
  for (int64_t i = 0; i < n_edges; i++) ebase[i] = -1;
  for (int64_t i = 0; i < n_faces; i++) fbase[i] = -1;
  d->order = N;
  d->np = P * P * P;
  d->n_cells = nc;
  d->n_dofs = n_dofs;
  if ((st = feint_malloc((size_t)nc * d->np + 1, sizeof(int32_t), &d->cell_dofs, "BP dof map"))) goto done;
  int64_t next = 0;
  for (int64_t e = 0; e < nc; e++) {
    const int64_t *cv = m->cells + 8 * e;
    int32_t *cd = d->cell_dofs + e * d->np;
    int64_t cbase = -1;
    for (int kk = 0; kk < P; kk++)
      for (int jj = 0; jj < P; jj++)
        for (int ii = 0; ii < P; ii++) {
          const int idx[3] = {ii, jj, kk};
          int bnd[3], nb = 0;
          for (int a = 0; a < 3; a++) nb += bnd[a] = idx[a] == 0 || idx[a] == N;
          int64_t dof;
          if (nb == 3) {
            int64_t *b = &vbase[cv[(ii / N) | ((jj / N) << 1) | ((kk / N) << 2)]];
            if (*b < 0) *b = next++;
            dof = *b;
          } else if (nb == 2) {
            int dd = !bnd[0] ? 0 : !bnd[1] ? 1 : 2, o1 = dd == 0 ? 1 : 0, o2 = dd == 2 ? 1 : 2;
            int le = idx[o1] / N + 2 * (idx[o2] / N);
            int64_t *b = &ebase[edge_id[12 * e + 4 * dd + le]];
            if (*b < 0) {
              *b = next;
              next += n1;
            }
            int64_t ga = cv[edge_vertex(dd, le, 0)], gb = cv[edge_vertex(dd, le, 1)];
            int t = idx[dd], s = ga < gb ? t : N - t;
            dof = *b + s - 1;
          } else if (nb == 1) {
            int dd = bnd[0] ? 0 : bnd[1] ? 1 : 2, side = idx[dd] / N, u, w;
            face_axes(dd, &u, &w);
            int64_t g[4]; /* corner (bu, bw) at g[bu + 2 bw] */
            for (int c = 0; c < 4; c++) g[c] = cv[(side << dd) | ((c & 1) << u) | ((c >> 1) << w)];
            int o = 0;
            for (int c = 1; c < 4; c++)
              if (g[c] < g[o]) o = c;
            int ou = o & 1, ow = o >> 1;
            int64_t gu = g[(1 - ou) + 2 * ow], gw = g[ou + 2 * (1 - ow)];
            int du = ou ? N - idx[u] : idx[u], dw = ow ? N - idx[w] : idx[w];
            int p = gu < gw ? du : dw, q = gu < gw ? dw : du;
            int64_t *b = &fbase[face_id[6 * e + 2 * dd + side]];
            if (*b < 0) {
              *b = next;
              next += (int64_t)n1 * n1;
            }
            dof = *b + (p - 1) + (int64_t)n1 * (q - 1);
          } else {
            if (cbase < 0) {
              cbase = next;
              next += (int64_t)n1 * n1 * n1;
            }
            dof = cbase + (ii - 1) + (int64_t)n1 * ((jj - 1) + (int64_t)n1 * (kk - 1));
          }
          cd[ii + P * (jj + P * kk)] = (int32_t)dof;
        }
  }
  if (next != n_dofs)
    st = feint_error_set(FEINT_ERR_COMPUTE, "internal: BP dof map numbered %lld of %lld dofs", (long long)next,
                         (long long)n_dofs);
done:
  free(keys);
  free(edge_id);
  free(face_id);
  free(vbase);
  free(ebase);
  free(fbase);
  if (st) {
    feint_bp_dofmap_destroy(d);
    return st;
  }
  *out = d;
  return FEINT_OK;
}

int feint_bp_dof_coordinates(const feint_hexmesh *m, const feint_bp_dofmap *d, double *xyz, double *mismatch) {
  const int P = d->order + 1;
  double gll[FEINT_BP_MAX_ORDER + 1], gw[FEINT_BP_MAX_ORDER + 1];
  FEINT_CALL(feint_gauss_lobatto(P, gll, gw));
  unsigned char *seen = NULL;
  FEINT_CALL(feint_calloc((size_t)d->n_dofs + 1, 1, &seen, "BP dof coordinates"));
  feint_curved_geometry cg;
  if (m->geometry_nodes) feint_curved_geometry_init(&cg, FEINT_CELL_HEXAHEDRON, m->n_geometry_nodes);
  double worst = 0;
  for (int64_t e = 0; e < d->n_cells; e++) {
    const int64_t *cv = m->cells + 8 * e;
    const int32_t *cd = d->cell_dofs + e * d->np;
    for (int kk = 0; kk < P; kk++)
      for (int jj = 0; jj < P; jj++)
        for (int ii = 0; ii < P; ii++) {
          double r = gll[ii], s = gll[jj], t = gll[kk], X[3] = {0, 0, 0};
          if (m->geometry_nodes) { /* a curved cell: its nodes' map */
            const double pt[3] = {r, s, t}, *G = m->geometry_nodes + (size_t)e * (size_t)m->n_geometry_nodes * 3;
            double N[FEINT_CELL_MAX_GEOMETRY_NODES];
            feint_curved_geometry_shape(&cg, 1, pt, N, NULL);
            for (int n = 0; n < m->n_geometry_nodes; n++)
              for (int c = 0; c < 3; c++) X[c] += N[n] * G[3 * n + c];
          }
          for (int v = 0; v < 8 && !m->geometry_nodes; v++) {
            double phi = 0.125 * (1 + ((v & 1) ? r : -r)) * (1 + ((v & 2) ? s : -s)) * (1 + ((v & 4) ? t : -t));
            for (int c = 0; c < 3; c++) X[c] += phi * m->vertices[3 * cv[v] + c];
          }
          int32_t g = cd[ii + P * (jj + P * kk)];
          double *x = xyz + 3 * (int64_t)g;
          if (seen[g]) {
            double dist = sqrt((x[0] - X[0]) * (x[0] - X[0]) + (x[1] - X[1]) * (x[1] - X[1]) + (x[2] - X[2]) * (x[2] - X[2]));
            if (dist > worst) worst = dist;
          } else {
            seen[g] = 1;
            memcpy(x, X, sizeof X);
          }
        }
  }
  free(seen);
  if (mismatch) *mismatch = worst;
  return FEINT_OK;
}
