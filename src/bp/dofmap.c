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
#include "feint/parallel.h"
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

/* Entity ids (edges: width 2, faces: width 4) of every (cell, local
 * entity): id[cell * n_ent + e]. An entity is its sorted global vertices;
 * the entries are put in buckets by their lowest vertex on every core,
 * each bucket sorted by the others (a few dozen entries) and numbered.
 * The ids only name entities: the dofs are numbered by first touch below,
 * so their values do not matter. (A qsort of every entry took most of a
 * Q2 hexahedral dof map.) */
typedef struct {
  int64_t k[3]; /* the vertices above the lowest (unused: 0) */
  int64_t slot;
} entry;

typedef struct {
  const feint_hexmesh *m;
  int width, n_ent, max_share;
  int64_t *offset, *fill, *distinct, *id;
  entry *bucket;
  int over_shared; /* an entity in more than max_share cells */
} entity_job;

static void sort4(int64_t *v) {
  for (int i = 1; i < 4; i++)
    for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
      int64_t t = v[j];
      v[j] = v[j - 1];
      v[j - 1] = t;
    }
}

/* Entity e of cell c: its lowest vertex and the others, sorted. */
static int64_t cell_entity(const entity_job *j, int64_t c, int e, int64_t rest[3]) {
  const int64_t *cv = j->m->cells + 8 * c;
  int64_t v[4] = {0, 0, 0, 0};
  if (j->width == 2) {
    v[0] = cv[edge_vertex(e / 4, e % 4, 0)];
    v[1] = cv[edge_vertex(e / 4, e % 4, 1)];
    if (v[0] > v[1]) {
      const int64_t t = v[0];
      v[0] = v[1];
      v[1] = t;
    }
  } else {
    int dd = e / 2, side = e % 2, u, w;
    face_axes(dd, &u, &w);
    for (int q = 0; q < 4; q++) v[q] = cv[(side << dd) | ((q & 1) << u) | ((q >> 1) << w)];
    sort4(v);
  }
  rest[0] = v[1];
  rest[1] = j->width == 4 ? v[2] : 0;
  rest[2] = j->width == 4 ? v[3] : 0;
  return v[0];
}

static void count_entries(int64_t c0, int64_t c1, void *arg) {
  entity_job *j = arg;
  int64_t rest[3];
  for (int64_t c = c0; c < c1; c++)
    for (int e = 0; e < j->n_ent; e++) __atomic_fetch_add(&j->offset[cell_entity(j, c, e, rest) + 1], 1, __ATOMIC_RELAXED);
}

static void fill_entries(int64_t c0, int64_t c1, void *arg) {
  entity_job *j = arg;
  for (int64_t c = c0; c < c1; c++)
    for (int e = 0; e < j->n_ent; e++) {
      entry x = {{0, 0, 0}, c * j->n_ent + e};
      const int64_t lo = cell_entity(j, c, e, x.k);
      j->bucket[j->offset[lo] + __atomic_fetch_add(&j->fill[lo], 1, __ATOMIC_RELAXED)] = x;
    }
}

static int entry_less(const entry *a, const entry *b) {
  for (int i = 0; i < 3; i++)
    if (a->k[i] != b->k[i]) return a->k[i] < b->k[i];
  return 0;
}

static int entry_same(const entry *a, const entry *b) {
  return a->k[0] == b->k[0] && a->k[1] == b->k[1] && a->k[2] == b->k[2];
}

/* each bucket sorted (insertion sort); distinct[v]: its entities */
static void sort_entries(int64_t v0, int64_t v1, void *arg) {
  entity_job *j = arg;
  for (int64_t v = v0; v < v1; v++) {
    entry *u = j->bucket + j->offset[v];
    const int64_t n = j->offset[v + 1] - j->offset[v];
    for (int64_t i = 1; i < n; i++) {
      const entry x = u[i];
      int64_t q = i - 1;
      for (; q >= 0 && entry_less(&x, &u[q]); q--) u[q + 1] = u[q];
      u[q + 1] = x;
    }
    int64_t d = 0, share = 0;
    for (int64_t i = 0; i < n; i++) {
      if (i == 0 || !entry_same(&u[i], &u[i - 1])) {
        d++;
        share = 0;
      }
      if (++share > j->max_share) __atomic_store_n(&j->over_shared, 1, __ATOMIC_RELAXED);
    }
    j->distinct[v] = d;
  }
}

/* ids: the bucket's first id (distinct[v], made a prefix sum) onwards */
static void number_entries(int64_t v0, int64_t v1, void *arg) {
  entity_job *j = arg;
  for (int64_t v = v0; v < v1; v++) {
    const entry *u = j->bucket + j->offset[v];
    int64_t id = j->distinct[v] - 1;
    for (int64_t i = 0; i < j->offset[v + 1] - j->offset[v]; i++) {
      if (i == 0 || !entry_same(&u[i], &u[i - 1])) id++;
      j->id[u[i].slot] = id;
    }
  }
}

/* The number of distinct entities, or -1 when one is shared by more than
 * max_share cells. */
static int number_entities(const feint_hexmesh *m, int width, int max_share, int64_t *id, int64_t *n_out) {
  entity_job j = {m, width, width == 2 ? 12 : 6, max_share, NULL, NULL, NULL, id, NULL, 0};
  const int64_t nv = m->n_vertices, grain = 1 << 14;
  int st = feint_calloc((size_t)nv + 1, sizeof *j.offset, &j.offset, "BP dof map buckets");
  if (!st) st = feint_calloc((size_t)nv + 1, sizeof *j.fill, &j.fill, "BP dof map buckets");
  if (!st) st = feint_malloc((size_t)nv + 1, sizeof *j.distinct, &j.distinct, "BP dof map buckets");
  if (!st) st = feint_malloc((size_t)(m->n_cells * j.n_ent) + 1, sizeof *j.bucket, &j.bucket, "BP dof map keys");
  if (!st) {
    feint_parallel_for(m->n_cells, grain, count_entries, &j);
    for (int64_t v = 0; v < nv; v++) j.offset[v + 1] += j.offset[v];
    feint_parallel_for(m->n_cells, grain, fill_entries, &j);
    feint_parallel_for(nv, grain, sort_entries, &j);
    int64_t n = 0;
    for (int64_t v = 0; v < nv; v++) {
      const int64_t d = j.distinct[v];
      j.distinct[v] = n;
      n += d;
    }
    feint_parallel_for(nv, grain, number_entries, &j);
    *n_out = j.over_shared ? -1 : n;
  }
  free(j.offset);
  free(j.fill);
  free(j.distinct);
  free(j.bucket);
  return st;
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
  int64_t *edge_id = NULL, *face_id = NULL, *vbase = NULL, *ebase = NULL, *fbase = NULL, n_edges = 0, n_faces = 0;
  feint_bp_dofmap *d = NULL;
  int st = feint_malloc((size_t)nc * 12 + 1, sizeof *edge_id, &edge_id, "BP dof map edges");
  if (!st) st = feint_malloc((size_t)nc * 6 + 1, sizeof *face_id, &face_id, "BP dof map faces");
  /* edges: (lower, higher) global vertex; faces: their sorted vertices, at most two cells each */
  if (!st) st = number_entities(m, 2, 1 << 30, edge_id, &n_edges);
  if (!st) st = number_entities(m, 4, 2, face_id, &n_faces);
  if (st) goto done;
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
