/* BP operators on hexahedra: box meshes, GLL dof maps, the CPU reference
 * action, element matrices, CSR assembly and the cost model
 * (include/feint/bp.h). */
#include "feint/bp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "feint/error.h"
#include "feint/fe.h"
#include "feint/tensor.h"

const char *feint_bp_name(feint_bp_kind kind) {
  switch (kind) {
    case FEINT_BP1_0: return "BP1.0";
    case FEINT_BP3_5: return "BP3.5";
    case FEINT_BP3_0: return "BP3.0";
  }
  return "?";
}

/* ------------------------------------------------------------------ mesh */

int feint_hexmesh_box(int nx, int ny, int nz, double lx, double ly, double lz, double perturb,
                      feint_hexmesh **out) {
  *out = NULL;
  if (nx < 1 || ny < 1 || nz < 1 || !(lx > 0) || !(ly > 0) || !(lz > 0) || !(perturb >= 0 && perturb <= 0.3))
    return feint_error_set(FEINT_ERR_INPUT, "box mesh: need nx, ny, nz >= 1, positive extents, perturb in [0, 0.3]");
  feint_hexmesh *m = NULL;
  FEINT_CALL(feint_calloc(1, sizeof *m, &m, "box mesh"));
  m->nx = nx;
  m->ny = ny;
  m->nz = nz;
  m->lx = lx;
  m->ly = ly;
  m->lz = lz;
  m->n_vertices = (int64_t)(nx + 1) * (ny + 1) * (nz + 1);
  m->n_cells = (int64_t)nx * ny * nz;
  if (feint_malloc((size_t)m->n_vertices * 3, sizeof(double), &m->vertices, "box mesh vertices") ||
      feint_malloc((size_t)m->n_cells * 8, sizeof(int64_t), &m->cells, "box mesh cells")) {
    feint_hexmesh_destroy(m);
    return FEINT_ERR_COMPUTE;
  }
  double hx = lx / nx, hy = ly / ny, hz = lz / nz;
  for (int c = 0; c <= nz; c++)
    for (int b = 0; b <= ny; b++)
      for (int a = 0; a <= nx; a++) {
        double X = (double)a / nx, Y = (double)b / ny, Z = (double)c / nz;
        double S = sin(M_PI * X) * sin(M_PI * Y) * sin(M_PI * Z);
        if (a == 0 || a == nx || b == 0 || b == ny || c == 0 || c == nz) S = 0; /* exactly */
        double *v = m->vertices + 3 * (a + (int64_t)(nx + 1) * (b + (int64_t)(ny + 1) * c));
        v[0] = X * lx + perturb * hx * S * (1 + 0.5 * sin(2 * M_PI * Y));
        v[1] = Y * ly + perturb * hy * S * (1 + 0.5 * cos(2 * M_PI * Z));
        v[2] = Z * lz + perturb * hz * S * (1 + 0.5 * sin(2 * M_PI * X));
      }
  for (int cz = 0; cz < nz; cz++)
    for (int cy = 0; cy < ny; cy++)
      for (int cx = 0; cx < nx; cx++) {
        int64_t *cell = m->cells + 8 * (cx + (int64_t)nx * (cy + (int64_t)ny * cz));
        for (int v = 0; v < 8; v++) {
          int a = cx + (v & 1), b = cy + ((v >> 1) & 1), c = cz + (v >> 2);
          cell[v] = a + (int64_t)(nx + 1) * (b + (int64_t)(ny + 1) * c);
        }
      }
  *out = m;
  return FEINT_OK;
}

void feint_hexmesh_destroy(feint_hexmesh *m) {
  if (!m) return;
  free(m->vertices);
  free(m->cells);
  free(m->geometry_nodes);
  free(m);
}

/* --------------------------------------------------------------- dof map */

int feint_bp_dofmap_box(const feint_hexmesh *m, int order, feint_bp_dofmap **out) {
  *out = NULL;
  if (order < 1 || order > FEINT_BP_MAX_ORDER)
    return feint_error_set(FEINT_ERR_INPUT, "BP dof map: order %d (1..%d supported)", order, FEINT_BP_MAX_ORDER);
  if (m->nx < 1 || m->ny < 1 || m->nz < 1 || (int64_t)m->nx * m->ny * m->nz != m->n_cells)
    return feint_error_set(FEINT_ERR_INPUT, "BP dof map: not a box mesh (use feint_bp_dofmap_create)");
  int64_t gx = (int64_t)order * m->nx + 1, gy = (int64_t)order * m->ny + 1, gz = (int64_t)order * m->nz + 1;
  if (gx * gy * gz > INT32_MAX)
    return feint_error_set(FEINT_ERR_INPUT, "BP dof map: %lld dofs do not fit in int32", (long long)(gx * gy * gz));
  feint_bp_dofmap *d = NULL;
  FEINT_CALL(feint_calloc(1, sizeof *d, &d, "BP dof map"));
  int P = order + 1;
  d->order = order;
  d->np = P * P * P;
  d->n_cells = m->n_cells;
  d->n_dofs = gx * gy * gz;
  if (feint_malloc((size_t)m->n_cells * d->np, sizeof(int32_t), &d->cell_dofs, "BP dof map")) {
    free(d);
    return FEINT_ERR_COMPUTE;
  }
  for (int64_t e = 0; e < m->n_cells; e++) {
    int64_t cx = e % m->nx, cy = (e / m->nx) % m->ny, cz = e / ((int64_t)m->nx * m->ny);
    int32_t *cd = d->cell_dofs + e * d->np;
    for (int k = 0; k < P; k++)
      for (int j = 0; j < P; j++)
        for (int i = 0; i < P; i++)
          cd[i + P * (j + P * k)] =
              (int32_t)((cx * order + i) + gx * ((cy * order + j) + gy * (cz * order + k)));
  }
  *out = d;
  return FEINT_OK;
}

void feint_bp_dofmap_destroy(feint_bp_dofmap *d) {
  if (!d) return;
  free(d->cell_dofs);
  free(d);
}

/* -------------------------------------------------------------- operator */

/* Geometric factors of cell e at all Q^3 points: g[c * Q^3 + p] for the
 * first ngeo components (ngeo = 1: w|J| only). */
static void cell_geometry(const feint_bp_op *op, int64_t e, double *g) {
  int Q = op->q, Q3 = Q * Q * Q;
  const double *xe = op->xe + 24 * e;
  for (int c = 0; c < Q; c++)
    for (int b = 0; b < Q; b++)
      for (int a = 0; a < Q; a++) {
        int p = a + Q * (b + Q * c);
        double g7[7];
        feint_bp_hex_geometry(xe, op->qpts[a], op->qpts[b], op->qpts[c], op->qwts[a] * op->qwts[b] * op->qwts[c], g7);
        if (op->ngeo == 1)
          g[p] = g7[6];
        else
          for (int k = 0; k < 7; k++) g[k * Q3 + p] = g7[k];
      }
}

/* A curved mesh's factors of every cell (op->geo): J at each point from
 * the cell's geometry nodes, their shape gradients tabulated once. */
static int curved_geometry(feint_bp_op *op) {
  const feint_hexmesh *m = op->mesh;
  const int Q = op->q, Q3 = Q * Q * Q, ng = m->n_geometry_nodes;
  feint_curved_geometry cg;
  feint_curved_geometry_init(&cg, FEINT_CELL_HEXAHEDRON, ng);
  double *grad = NULL; /* Q3 x ng x 3 */
  FEINT_CALL(feint_malloc((size_t)Q3 * (size_t)ng * 3, sizeof *grad, &grad, "BP curved geometry table"));
  for (int c = 0; c < Q; c++)
    for (int b = 0; b < Q; b++)
      for (int a = 0; a < Q; a++) {
        const double pt[3] = {op->qpts[a], op->qpts[b], op->qpts[c]};
        feint_curved_geometry_shape(&cg, 1, pt, NULL, grad + (size_t)(a + Q * (b + Q * c)) * ng * 3);
      }
  const size_t per = (size_t)op->ngeo * Q3;
  for (int64_t e = 0; e < op->n_cells; e++) {
    const double *X = m->geometry_nodes + (size_t)e * (size_t)ng * 3;
    double *g = op->geo + per * (size_t)e;
    for (int p = 0; p < Q3; p++) {
      const int a = p % Q, b = (p / Q) % Q, c = p / (Q * Q);
      const double *G = grad + (size_t)p * ng * 3;
      double J[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}}, g7[7];
      for (int n = 0; n < ng; n++)
        for (int d = 0; d < 3; d++)
          for (int r = 0; r < 3; r++) J[d][r] += X[3 * n + d] * G[3 * n + r];
      feint_bp_jacobian_factors(J, op->qwts[a] * op->qwts[b] * op->qwts[c], g7);
      if (op->ngeo == 1)
        g[p] = g7[6];
      else
        for (int k = 0; k < 7; k++) g[k * Q3 + p] = g7[k];
    }
  }
  free(grad);
  return FEINT_OK;
}

int feint_bp_op_create(const feint_hexmesh *m, const feint_bp_dofmap *d, feint_bp_kind kind,
                       feint_bp_geo_mode mode, double lambda, feint_bp_op **out) {
  *out = NULL;
  if (kind != FEINT_BP1_0 && kind != FEINT_BP3_5 && kind != FEINT_BP3_0)
    return feint_error_set(FEINT_ERR_INPUT, "BP operator: unknown kind %d", (int)kind);
  if (d->n_cells != m->n_cells) return feint_error_set(FEINT_ERR_INPUT, "BP operator: dof map does not fit the mesh");
  feint_bp_op *op = NULL;
  FEINT_CALL(feint_calloc(1, sizeof *op, &op, "BP operator"));
  op->kind = kind;
  op->geo_mode = mode;
  op->order = d->order;
  op->p = d->order + 1;
  op->q = kind == FEINT_BP3_5 ? op->p : op->p + 1;
  op->ngeo = kind == FEINT_BP1_0 ? 1 : 7;
  op->lambda = lambda;
  op->mesh = m;
  op->dofs = d;
  op->n_cells = m->n_cells;
  op->n_dofs = d->n_dofs;
  int P = op->p, Q = op->q;
  double gw[FEINT_BP_MAX_ORDER + 1];
  int st = feint_gauss_lobatto(P, op->gll, gw);
  if (!st) {
    if (kind == FEINT_BP3_5) {
      memcpy(op->qpts, op->gll, sizeof(double) * P);
      memcpy(op->qwts, gw, sizeof(double) * P);
    } else {
      st = feint_gauss_legendre(Q, op->qpts, op->qwts);
    }
  }
  if (!st) st = feint_lagrange_matrices(P, op->gll, Q, op->qpts, op->B, op->Bd);
  if (!st) st = feint_lagrange_matrices(Q, op->qpts, Q, op->qpts, NULL, op->Dq);
  if (!st) st = feint_malloc((size_t)op->n_cells * 24, sizeof(double), &op->xe, "BP cell coordinates");
  if (st) {
    feint_bp_op_destroy(op);
    return st;
  }
  for (int64_t e = 0; e < op->n_cells; e++)
    for (int v = 0; v < 8; v++)
      for (int k = 0; k < 3; k++) op->xe[24 * e + 3 * v + k] = m->vertices[3 * m->cells[8 * e + v] + k];
  if (m->geometry_nodes && mode != FEINT_BP_GEO_STORED) {
    feint_bp_op_destroy(op);
    return feint_error_set(FEINT_ERR_INPUT, "BP operator: curved hexahedra take stored geometric factors (the "
                           "recomputed ones come from the trilinear map of the vertices)");
  }
  if (mode == FEINT_BP_GEO_STORED) {
    size_t per = (size_t)op->ngeo * Q * Q * Q;
    st = feint_malloc((size_t)op->n_cells * per, sizeof(double), &op->geo, "BP geometric factors");
    if (!st && m->geometry_nodes) /* curved cells: each one's own map */
      st = curved_geometry(op);
    else if (!st)
      for (int64_t e = 0; e < op->n_cells; e++) cell_geometry(op, e, op->geo + per * e);
    if (st) {
      feint_bp_op_destroy(op);
      return st;
    }
  }
  *out = op;
  return FEINT_OK;
}

void feint_bp_op_destroy(feint_bp_op *op) {
  if (!op) return;
  free(op->xe);
  free(op->geo);
  free(op);
}

/* out = Mx applied along axis ax of in (dims n[3], index a + n0 (b + n1 c)),
 * Mx = M (rows x cols, axis size cols -> rows) or M^T (trans: rows -> cols).
 * n is updated to the output dims. */
static void contract(const double *M, int rows, int cols, int trans, int ax, int n[3], const double *in,
                     double *out) {
  int nin = trans ? rows : cols, nout = trans ? cols : rows;
  int m[3] = {n[0], n[1], n[2]};
  m[ax] = nout;
  for (int c = 0; c < m[2]; c++)
    for (int b = 0; b < m[1]; b++)
      for (int a = 0; a < m[0]; a++) {
        int o[3] = {a, b, c};
        double s = 0;
        for (int t = 0; t < nin; t++) {
          int ii[3] = {a, b, c};
          ii[ax] = t;
          double mv = trans ? M[t * cols + o[ax]] : M[o[ax] * cols + t];
          s += mv * in[ii[0] + n[0] * (ii[1] + n[1] * ii[2])];
        }
        out[a + m[0] * (b + m[1] * c)] = s;
      }
  n[0] = m[0];
  n[1] = m[1];
  n[2] = m[2];
}

int feint_bp_apply(const feint_bp_op *op, const double *x, double *y) {
  int P = op->p, Q = op->q, Q3 = Q * Q * Q, np = P * P * P;
  size_t per = (size_t)op->ngeo * Q3;
  double *buf = NULL;
  FEINT_CALL(feint_malloc(per + 9 * (size_t)Q3, sizeof(double), &buf, "BP apply scratch"));
  double *gs = buf, *u = buf + per, *t1 = u + Q3, *t2 = t1 + Q3, *gr[3] = {t2 + Q3, t2 + 2 * Q3, t2 + 3 * Q3};
  double *acc = t2 + 4 * Q3, *tmp = acc + Q3;
  int interp = op->kind != FEINT_BP3_5;
  memset(y, 0, sizeof(double) * op->n_dofs);
  for (int64_t e = 0; e < op->n_cells; e++) {
    const int32_t *cd = op->dofs->cell_dofs + e * np;
    const double *g = op->geo ? op->geo + per * e : gs;
    if (!op->geo) cell_geometry(op, e, gs);
    for (int i = 0; i < np; i++) t1[i] = x[cd[i]];
    int n[3] = {P, P, P};
    if (interp) {
      contract(op->B, Q, P, 0, 0, n, t1, t2);
      contract(op->B, Q, P, 0, 1, n, t2, t1);
      contract(op->B, Q, P, 0, 2, n, t1, u);
    } else {
      memcpy(u, t1, sizeof(double) * Q3);
    }
    if (op->kind == FEINT_BP1_0) {
      for (int p = 0; p < Q3; p++) acc[p] = g[p] * u[p];
    } else {
      for (int d = 0; d < 3; d++) {
        int nn[3] = {Q, Q, Q};
        contract(op->Dq, Q, Q, 0, d, nn, u, gr[d]);
      }
      for (int p = 0; p < Q3; p++) {
        double ur = gr[0][p], us = gr[1][p], ut = gr[2][p];
        const double *G = g + p;
        gr[0][p] = G[0] * ur + G[Q3] * us + G[2 * Q3] * ut;
        gr[1][p] = G[Q3] * ur + G[3 * Q3] * us + G[4 * Q3] * ut;
        gr[2][p] = G[2 * Q3] * ur + G[4 * Q3] * us + G[5 * Q3] * ut;
        acc[p] = op->lambda * G[6 * Q3] * u[p];
      }
      for (int d = 0; d < 3; d++) {
        int nn[3] = {Q, Q, Q};
        contract(op->Dq, Q, Q, 1, d, nn, gr[d], tmp);
        for (int p = 0; p < Q3; p++) acc[p] += tmp[p];
      }
    }
    n[0] = n[1] = n[2] = Q;
    if (interp) {
      contract(op->B, Q, P, 1, 2, n, acc, t1);
      contract(op->B, Q, P, 1, 1, n, t1, t2);
      contract(op->B, Q, P, 1, 0, n, t2, t1);
    } else {
      memcpy(t1, acc, sizeof(double) * Q3);
    }
    for (int i = 0; i < np; i++) y[cd[i]] += t1[i];
  }
  free(buf);
  return FEINT_OK;
}

int feint_bp_element_matrix(const feint_bp_op *op, int64_t e, double *Ae) {
  int P = op->p, Q = op->q, Q3 = Q * Q * Q, np = P * P * P;
  size_t per = (size_t)op->ngeo * Q3;
  double *g = NULL, *phi = NULL, *dphi = NULL, *T = NULL;
  int st = feint_malloc(per, sizeof(double), &g, "BP element matrix");
  if (!st) st = feint_malloc((size_t)np * Q3, sizeof(double), &phi, "BP element matrix");
  if (!st) st = feint_malloc((size_t)np * Q3 * 3, sizeof(double), &dphi, "BP element matrix");
  if (!st) st = feint_malloc((size_t)np * Q3 * 3, sizeof(double), &T, "BP element matrix");
  if (st) {
    free(g);
    free(phi);
    free(dphi);
    free(T);
    return st;
  }
  if (op->geo)
    memcpy(g, op->geo + per * e, sizeof(double) * per);
  else
    cell_geometry(op, e, g);
  for (int i = 0; i < np; i++) {
    int ia = i % P, ib = (i / P) % P, ic = i / (P * P);
    for (int q = 0; q < Q3; q++) {
      int qa = q % Q, qb = (q / Q) % Q, qc = q / (Q * Q);
      double Ba = op->B[qa * P + ia], Bb = op->B[qb * P + ib], Bc = op->B[qc * P + ic];
      double Da = op->Bd[qa * P + ia], Db = op->Bd[qb * P + ib], Dc = op->Bd[qc * P + ic];
      phi[(size_t)i * Q3 + q] = Ba * Bb * Bc;
      double *dp = dphi + ((size_t)i * Q3 + q) * 3;
      dp[0] = Da * Bb * Bc;
      dp[1] = Ba * Db * Bc;
      dp[2] = Ba * Bb * Dc;
      if (op->ngeo == 7) {
        const double *G = g + q;
        double *t = T + ((size_t)i * Q3 + q) * 3;
        t[0] = G[0] * dp[0] + G[Q3] * dp[1] + G[2 * Q3] * dp[2];
        t[1] = G[Q3] * dp[0] + G[3 * Q3] * dp[1] + G[4 * Q3] * dp[2];
        t[2] = G[2 * Q3] * dp[0] + G[4 * Q3] * dp[1] + G[5 * Q3] * dp[2];
      }
    }
  }
  const double *wJ = op->ngeo == 7 ? g + 6 * Q3 : g;
  double lam = op->kind == FEINT_BP1_0 ? 1.0 : op->lambda;
  for (int i = 0; i < np; i++)
    for (int j = 0; j < np; j++) {
      double s = 0;
      const double *pi = phi + (size_t)i * Q3, *pj = phi + (size_t)j * Q3;
      for (int q = 0; q < Q3; q++) s += lam * wJ[q] * pi[q] * pj[q];
      if (op->ngeo == 7) {
        const double *ti = T + (size_t)i * Q3 * 3, *dj = dphi + (size_t)j * Q3 * 3;
        for (int q = 0; q < 3 * Q3; q++) s += ti[q] * dj[q];
      }
      Ae[(size_t)i * np + j] = s;
    }
  free(g);
  free(phi);
  free(dphi);
  free(T);
  return FEINT_OK;
}

/* ------------------------------------------------------------------- CSR */

typedef struct {
  int64_t r, c;
  double v;
} triplet;

static int triplet_cmp(const void *a, const void *b) {
  const triplet *x = a, *y = b;
  if (x->r != y->r) return x->r < y->r ? -1 : 1;
  if (x->c != y->c) return x->c < y->c ? -1 : 1;
  return 0;
}

int feint_bp_assemble(const feint_bp_op *op, feint_bp_csr **out) {
  *out = NULL;
  int np = op->dofs->np;
  size_t nt = (size_t)op->n_cells * np * np;
  triplet *t = NULL;
  double *Ae = NULL;
  FEINT_CALL(feint_malloc(nt, sizeof *t, &t, "BP assembly triplets"));
  int st = feint_malloc((size_t)np * np, sizeof(double), &Ae, "BP element matrix");
  for (int64_t e = 0; !st && e < op->n_cells; e++) {
    st = feint_bp_element_matrix(op, e, Ae);
    const int32_t *cd = op->dofs->cell_dofs + e * np;
    for (int i = 0; !st && i < np; i++)
      for (int j = 0; j < np; j++) {
        triplet *q = t + ((size_t)e * np + i) * np + j;
        q->r = cd[i];
        q->c = cd[j];
        q->v = Ae[(size_t)i * np + j];
      }
  }
  free(Ae);
  feint_bp_csr *A = NULL;
  if (!st) st = feint_calloc(1, sizeof *A, &A, "BP CSR");
  if (st) {
    free(t);
    return st;
  }
  qsort(t, nt, sizeof *t, triplet_cmp);
  A->n = op->n_dofs;
  st = feint_calloc((size_t)A->n + 1, sizeof(int64_t), &A->rowptr, "BP CSR");
  if (!st) st = feint_malloc(nt ? nt : 1, sizeof(int64_t), &A->cols, "BP CSR");
  if (!st) st = feint_malloc(nt ? nt : 1, sizeof(double), &A->vals, "BP CSR");
  if (st) {
    free(t);
    feint_bp_csr_destroy(A);
    return st;
  }
  int64_t nnz = 0;
  for (size_t k = 0; k < nt; k++) {
    if (nnz > 0 && t[k].r == t[k - 1].r && t[k].c == t[k - 1].c) {
      A->vals[nnz - 1] += t[k].v; /* sorted: (r, c) repeats are adjacent */
      continue;
    }
    A->cols[nnz] = t[k].c;
    A->vals[nnz] = t[k].v;
    A->rowptr[t[k].r + 1]++;
    nnz++;
  }
  for (int64_t r = 0; r < A->n; r++) A->rowptr[r + 1] += A->rowptr[r];
  A->nnz = nnz;
  free(t);
  *out = A;
  return FEINT_OK;
}

void feint_bp_csr_matvec(const feint_bp_csr *A, const double *x, double *y) {
  for (int64_t r = 0; r < A->n; r++) {
    double s = 0;
    for (int64_t k = A->rowptr[r]; k < A->rowptr[r + 1]; k++) s += A->vals[k] * x[A->cols[k]];
    y[r] = s;
  }
}

void feint_bp_csr_destroy(feint_bp_csr *A) {
  if (!A) return;
  free(A->rowptr);
  free(A->cols);
  free(A->vals);
  free(A);
}

/* ------------------------------------------------------------ cost model */

double feint_bp_min_bytes(const feint_bp_op *op) {
  double Q3 = (double)op->q * op->q * op->q, np = op->dofs->np, ne = (double)op->n_cells;
  double geo = op->geo_mode == FEINT_BP_GEO_STORED ? 8.0 * op->ngeo * Q3 * ne : 8.0 * 24 * ne;
  return 16.0 * (double)op->n_dofs + 4.0 * np * ne + geo;
}

double feint_bp_flops(const feint_bp_op *op) {
  double P = op->p, Q = op->q, ne = (double)op->n_cells;
  double interp = 2 * (Q * P * P * P + Q * Q * P * P + Q * Q * Q * P); /* one pass B x B x B */
  double per;
  switch (op->kind) {
    case FEINT_BP1_0: per = 2 * interp + Q * Q * Q; break;
    case FEINT_BP3_5: per = 12 * P * P * P * P + 18 * P * P * P; break;
    default: per = 2 * interp + 12 * Q * Q * Q * Q + 18 * Q * Q * Q; break;
  }
  return per * ne;
}
