/* High-order element matrices on tetrahedra: reference tables, host
 * Jacobian terms, the CPU reference and the cost model (include/feint/elmat.h). */
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

int feint_elmat_geometry_size(feint_elmat_geo geo) { return geo == FEINT_ELMAT_GEO_VERTICES ? 12 : 10; }

void feint_elmat_tables_destroy(feint_elmat_tables *t) {
  if (!t) return;
  feint_element_destroy(t->el);
  feint_quadrature_destroy(t->quad);
  free(t->B);
  free(t->K);
  free(t);
}

int feint_elmat_tables_create(feint_cell_type cell, int order, feint_elmat_tables **out) {
  *out = NULL;
  if (cell != FEINT_CELL_TETRAHEDRON)
    return feint_error_set(FEINT_ERR_INPUT, "element matrices: %s cells (tetrahedra only)", feint_cell_name(cell));
  if (order < 1 || order > FEINT_ELMAT_MAX_ORDER)
    return feint_error_set(FEINT_ERR_INPUT, "element matrices: order %d (1..%d)", order, FEINT_ELMAT_MAX_ORDER);
  feint_elmat_tables *t = NULL;
  FEINT_CALL(feint_calloc(1, sizeof *t, &t, "element matrix tables"));
  int st = feint_element_create(cell, order, &t->el);
  if (!st) st = feint_quadrature_create(cell, 2 * order, &t->quad);
  if (st) {
    feint_elmat_tables_destroy(t);
    return st;
  }
  const int nb = t->el->nb, nq = t->quad->n;
  t->order = order, t->nb = nb, t->nq = nq;
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

int feint_elmat_jacobian_terms(int64_t n, const double *xv, double *geo) {
  for (int64_t e = 0; e < n; e++) {
    double det = feint_elmat_tet_geometry(xv + 12 * e, geo + 10 * e);
    if (!(fabs(det) > 0) || !isfinite(det))
      return feint_error_set(FEINT_ERR_INPUT, "element matrices: cell %lld is degenerate (det J = %g)",
                             (long long)e, det);
  }
  return FEINT_OK;
}

int feint_elmat_compute(const feint_elmat_tables *t, const feint_elmat_variant *v, int64_t n,
                        const double *geom, const double *coef, double *A) {
  FEINT_CALL(feint_elmat_variant_check(v));
  const int nb = t->nb, nq = t->nq, nc = v->ncoef;
  double *gx = NULL; /* physical gradients of all basis functions at one point */
  FEINT_CALL(feint_malloc((size_t)nb * 3, sizeof(double), &gx, "physical gradients"));
  for (int64_t e = 0; e < n; e++) {
    double geo[10];
    if (v->geo == FEINT_ELMAT_GEO_VERTICES) {
      double det = feint_elmat_tet_geometry(geom + 12 * e, geo);
      if (!(fabs(det) > 0)) {
        free(gx);
        return feint_error_set(FEINT_ERR_INPUT, "element matrices: cell %lld is degenerate", (long long)e);
      }
    } else {
      memcpy(geo, geom + 10 * e, sizeof geo);
    }
    double *Ae = A + (size_t)e * nb * nb;
    memset(Ae, 0, sizeof(double) * nb * nb);
    for (int q = 0; q < nq; q++) {
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
  double per_cell = (double)t->nb * t->nb + feint_elmat_geometry_size(v->geo) +
                    (double)v->ncoef * (v->coef == FEINT_ELMAT_COEF_CELL ? 1 : t->nq);
  return 8.0 * per_cell * (double)n;
}

double feint_elmat_flops(const feint_elmat_tables *t, const feint_elmat_variant *v, int64_t n) {
  const double nb2 = (double)t->nb * t->nb, nterms = v->ncoef == 16 ? 16 : 10;
  /* Jacobian terms from vertices: 9 differences, 9 cofactors (27), det (5), 10 scalings */
  const double geo = v->geo == FEINT_ELMAT_GEO_VERTICES ? 51 : 0;
  const double tensor = 2 * 27 + 10 + (v->ncoef == 16 ? 24 : 0); /* J^-1 g3 J^-T, scalings, g1, g2 */
  if (v->coef == FEINT_ELMAT_COEF_CELL) return (double)n * (geo + tensor + 2 * nterms * nb2);
  /* per point: the tensor, V = C B (2 nterms nb), A += B^T V (2 * 4 nb^2) */
  return (double)n * (geo + t->nq * (tensor + 2 * nterms * t->nb + 8 * nb2));
}
