/* High-order element matrices on tetrahedra and prisms: reference tables,
 * host Jacobian terms, the CPU reference and the cost model
 * (include/feint/elmat.h). */
#include "feint/elmat.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feint/error.h"

int feint_elmat_variant_check(const feint_elmat_variant *v) {
  if (v->ncoef != 10 && v->ncoef != 16)
    return feint_error_set(FEINT_ERR_INPUT, "element matrices: ncoef %d (10: g0, g3; 16: g0, g1, g2, g3)",
                           v->ncoef);
  if ((unsigned)v->data > FEINT_ELMAT_DATA_TENSOR || (unsigned)v->geo > FEINT_ELMAT_GEO_VERTICES ||
      (unsigned)v->coef > FEINT_ELMAT_COEF_CELL)
    return feint_error_set(FEINT_ERR_INPUT, "element matrices: unknown variant (data %d, geo %d, coef %d)",
                           (int)v->data, (int)v->geo, (int)v->coef);
  return FEINT_OK;
}

const char *feint_elmat_variant_name(const feint_elmat_variant *v, char *buf, size_t size) {
  static const char *const data_names[] = {"registers", "shared", "tensor"};
  snprintf(buf, size, "%s/%s/%s/g%s", v->coef == FEINT_ELMAT_COEF_CELL ? "cell" : "point",
           v->coef == FEINT_ELMAT_COEF_CELL ? "ref" : data_names[v->data],
           v->geo == FEINT_ELMAT_GEO_VERTICES ? "vertices" : "jacobian", v->ncoef == 16 ? "0123" : "03");
  return buf;
}

/* J is constant in the cell: tetrahedra, and the (affine) prisms that
 * per-cell coefficients require. */
static int constant_jacobian(const feint_elmat_tables *t, const feint_elmat_variant *v) {
  return t->cell != FEINT_CELL_PRISM || v->coef == FEINT_ELMAT_COEF_CELL;
}

int feint_elmat_geometry_points(const feint_elmat_tables *t, const feint_elmat_variant *v) {
  return constant_jacobian(t, v) ? 1 : t->nq;
}

int feint_elmat_geometry_size(const feint_elmat_tables *t, const feint_elmat_variant *v) {
  return v->geo == FEINT_ELMAT_GEO_VERTICES ? 3 * t->nv : 10 * feint_elmat_geometry_points(t, v);
}

/* A prism is affine when its three vertical edges are the same vector, up
 * to 1e-12 of the cell's size plus the rounding of coordinates far from
 * the origin (extruded meshes: x_v + h). */
static int prism_is_affine(const double *xv) {
  double scale = 0, mag = 0, dev = 0;
  for (int k = 0; k < 18; k++) scale = fmax(scale, fabs(xv[k] - xv[k % 3])), mag = fmax(mag, fabs(xv[k]));
  for (int v = 1; v < 3; v++)
    for (int d = 0; d < 3; d++) dev = fmax(dev, fabs((xv[9 + 3 * v + d] - xv[3 * v + d]) - (xv[9 + d] - xv[d])));
  return dev <= 1e-12 * scale + 1e-14 * mag;
}

/* Cell e's Jacobian terms at geometry point q from its vertices xv; 0 or an
 * error naming the cell. */
static int vertex_geometry(const feint_elmat_tables *t, const feint_elmat_variant *v, int64_t e, int q,
                           const double *xv, double *geo) {
  if (q == 0 && t->cell == FEINT_CELL_PRISM && v->coef == FEINT_ELMAT_COEF_CELL && !prism_is_affine(xv))
    return feint_error_set(FEINT_ERR_INPUT,
                           "element matrices: prism %lld is not affine (its top face is not a translate of the "
                           "bottom one); per-cell coefficients need a Jacobian constant in the cell",
                           (long long)e);
  const double det = feint_elmat_point_geometry(t->cell, xv, t->quad->points + 3 * q, geo);
  if (!(fabs(det) > 0) || !isfinite(det))
    return feint_error_set(FEINT_ERR_INPUT, "element matrices: cell %lld is degenerate (det J = %g at point %d)",
                           (long long)e, det, q);
  return FEINT_OK;
}

void feint_elmat_tables_destroy(feint_elmat_tables *t) {
  if (!t) return;
  feint_element_destroy(t->el);
  feint_quadrature_destroy(t->quad);
  free(t->B);
  free(t->K);
  free(t);
}

int feint_elmat_tables_create(feint_cell_type cell, int order, feint_elmat_tables **out) {
  return feint_elmat_tables_create_degree(cell, order, -1, out);
}

int feint_elmat_tables_create_degree(feint_cell_type cell, int order, int degree, feint_elmat_tables **out) {
  *out = NULL;
  if (cell != FEINT_CELL_TETRAHEDRON && cell != FEINT_CELL_PRISM)
    return feint_error_set(FEINT_ERR_INPUT, "element matrices: %s cells (tetrahedra and prisms only)",
                           feint_cell_name(cell));
  if (order < 1 || order > FEINT_ELMAT_MAX_ORDER)
    return feint_error_set(FEINT_ERR_INPUT, "element matrices: order %d (1..%d)", order, FEINT_ELMAT_MAX_ORDER);
  feint_elmat_tables *t = NULL;
  FEINT_CALL(feint_calloc(1, sizeof *t, &t, "element matrix tables"));
  int st = feint_element_create(cell, order, &t->el);
  if (degree < 0) degree = 2 * order + feint_cell_geometry_degree(cell);
  if (!st) st = feint_quadrature_create(cell, degree, &t->quad);
  if (st) {
    feint_elmat_tables_destroy(t);
    return st;
  }
  const int nb = t->el->nb, nq = t->quad->n;
  t->cell = cell, t->order = order, t->nb = nb, t->nq = nq, t->nv = feint_cell_num_vertices(cell);
  double *val = NULL, *grad = NULL;
  st = feint_malloc((size_t)nq * 4 * nb, sizeof(double), &t->B, "element matrix table B");
  if (!st) st = feint_calloc((size_t)16 * nb * nb, sizeof(double), &t->K, "element matrix reference tensors");
  if (!st) st = feint_malloc((size_t)nq * nb, sizeof(double), &val, "tabulated values");
  if (!st) st = feint_malloc((size_t)nq * nb * 3, sizeof(double), &grad, "tabulated gradients");
  if (st) {
    free(val);
    free(grad);
    feint_elmat_tables_destroy(t);
    return st;
  }
  feint_element_tabulate(t->el, nq, t->quad->points, val, grad);
  for (int q = 0; q < nq; q++)
    for (int i = 0; i < nb; i++) {
      t->B[(q * 4) * nb + i] = val[q * nb + i];
      for (int d = 0; d < 3; d++) t->B[(q * 4 + 1 + d) * nb + i] = grad[(q * nb + i) * 3 + d];
    }
  free(val);
  free(grad);
  for (int q = 0; q < nq; q++) {
    const double w = t->quad->weights[q], *Bq = t->B + (size_t)q * 4 * nb;
    for (int cc = 0; cc < 16; cc++) {
      const double *b1 = Bq + (cc / 4) * nb, *b2 = Bq + (cc % 4) * nb;
      double *K = t->K + (size_t)cc * nb * nb;
      for (int i = 0; i < nb; i++)
        for (int j = 0; j < nb; j++) K[i * nb + j] += w * b1[i] * b2[j];
    }
  }
  *out = t;
  return FEINT_OK;
}

int feint_elmat_jacobian_terms(const feint_elmat_tables *t, const feint_elmat_variant *v, int64_t n,
                               const double *xv, double *geo) {
  const int ng = feint_elmat_geometry_points(t, v), nx = 3 * t->nv;
  for (int64_t e = 0; e < n; e++)
    for (int q = 0; q < ng; q++) FEINT_CALL(vertex_geometry(t, v, e, q, xv + nx * e, geo + 10 * (e * ng + q)));
  return FEINT_OK;
}

int feint_elmat_geometry_check(const feint_elmat_tables *t, const feint_elmat_variant *v, int64_t n,
                               const double *geom) {
  if (v->geo != FEINT_ELMAT_GEO_VERTICES) return FEINT_OK;
  const int ng = feint_elmat_geometry_points(t, v), nx = 3 * t->nv;
  for (int64_t e = 0; e < n; e++)
    for (int q = 0; q < ng; q++) {
      double geo[10];
      FEINT_CALL(vertex_geometry(t, v, e, q, geom + nx * e, geo));
    }
  return FEINT_OK;
}

int feint_elmat_compute(const feint_elmat_tables *t, const feint_elmat_variant *v, int64_t n,
                        const double *geom, const double *coef, double *A) {
  FEINT_CALL(feint_elmat_variant_check(v));
  FEINT_CALL(feint_elmat_geometry_check(t, v, n, geom));
  const int nb = t->nb, nq = t->nq, nc = v->ncoef, ng = feint_elmat_geometry_points(t, v),
            ngeo = feint_elmat_geometry_size(t, v);
  double *gx = NULL; /* physical gradients of all basis functions at one point */
  FEINT_CALL(feint_malloc((size_t)nb * 3, sizeof(double), &gx, "physical gradients"));
  for (int64_t e = 0; e < n; e++) {
    const double *ge = geom + (size_t)e * ngeo;
    double *Ae = A + (size_t)e * nb * nb;
    memset(Ae, 0, sizeof(double) * nb * nb);
    for (int q = 0; q < nq; q++) {
      double geo[10];
      if (v->geo == FEINT_ELMAT_GEO_VERTICES)
        feint_elmat_point_geometry(t->cell, ge, t->quad->points + 3 * q, geo);
      else
        memcpy(geo, ge + 10 * (ng > 1 ? q : 0), sizeof geo);
      const double *g = v->coef == FEINT_ELMAT_COEF_CELL ? coef + (size_t)e * nc : coef + ((size_t)e * nq + q) * nc;
      const double g0 = g[0], *g1 = nc == 16 ? g + 1 : NULL, *g2 = nc == 16 ? g + 4 : NULL,
                   *g3 = g + (nc == 16 ? 7 : 1);
      const double s = t->quad->weights[q] * geo[9], *Bq = t->B + (size_t)q * 4 * nb;
      for (int i = 0; i < nb; i++)
        for (int d = 0; d < 3; d++) /* gx[d] = sum_c J^-1[c][d] ghat[c] */
          gx[3 * i + d] = geo[d] * Bq[nb + i] + geo[3 + d] * Bq[2 * nb + i] + geo[6 + d] * Bq[3 * nb + i];
      for (int i = 0; i < nb; i++) {
        const double pi = Bq[i], *gi = gx + 3 * i;
        double g3gi[3] = {0, 0, 0}, g2gi = 0; /* gx_i . g3 and gx_i . g2 */
        for (int d = 0; d < 3; d++) {
          for (int k = 0; k < 3; k++) g3gi[k] += gi[d] * g3[3 * d + k];
          if (g2) g2gi += gi[d] * g2[d];
        }
        for (int j = 0; j < nb; j++) {
          const double pj = Bq[j], *gj = gx + 3 * j;
          double a = g0 * pi * pj + g3gi[0] * gj[0] + g3gi[1] * gj[1] + g3gi[2] * gj[2];
          if (g1) a += pi * (g1[0] * gj[0] + g1[1] * gj[1] + g1[2] * gj[2]) + g2gi * pj;
          Ae[i * nb + j] += s * a;
        }
      }
    }
  }
  free(gx);
  return FEINT_OK;
}

double feint_elmat_min_bytes(const feint_elmat_tables *t, const feint_elmat_variant *v, int64_t n) {
  double per_cell = (double)t->nb * t->nb + feint_elmat_geometry_size(t, v) +
                    (double)v->ncoef * (v->coef == FEINT_ELMAT_COEF_CELL ? 1 : t->nq);
  return 8.0 * per_cell * (double)n;
}

double feint_elmat_flops(const feint_elmat_tables *t, const feint_elmat_variant *v, int64_t n) {
  const double nb2 = (double)t->nb * t->nb, nterms = v->ncoef == 16 ? 16 : 10;
  /* Jacobian terms from vertices: 9 differences, 9 cofactors (27), det (5),
   * 10 scalings; on a prism per point, plus the blend of its 9 entries from
   * the bottom and top edges (3 each) */
  const int per_point = !constant_jacobian(t, v);
  const double geo = v->geo == FEINT_ELMAT_GEO_VERTICES ? 51 + (per_point ? 27 : 0) : 0;
  const double tensor = 2 * 27 + 10 + (v->ncoef == 16 ? 24 : 0); /* J^-1 g3 J^-T, scalings, g1, g2 */
  if (v->coef == FEINT_ELMAT_COEF_CELL) return (double)n * (geo + tensor + 2 * nterms * nb2);
  /* per point: the tensor, V = C B (2 nterms nb), A += B^T V (2 * 4 nb^2) */
  return (double)n * ((per_point ? 0 : geo) + t->nq * ((per_point ? geo : 0) + tensor + 2 * nterms * t->nb + 8 * nb2));
}

void feint_elmat_interleave(int64_t n, int nb, int nc, const double *blocks, double *A) {
  const int64_t total = n * nb * nc * nb * nc;
  for (int64_t k = 0; k < total; k++) A[k] = blocks[feint_elmat_block_entry(k, n, nb, nc)];
}
