/* Boundary facet integrals shared by the host reference (boundary.c) and
 * the CUDA kernel (backend/cuda/facet.cu): one facet set per Neumann or
 * Robin entry, built once on the host (facets of the group on the region,
 * their vertex coordinates, the coefficients at the facet dofs, the
 * quadrature rule and the facet slot maps), and the per-facet integrand as
 * inline functions compiled for both. Private to the boundary module and
 * its CUDA twin.
 *
 * Targets are compact: `load` has one slot per boundary dof that a facet
 * touches (load_dofs), `sites` one per distinct Robin matrix entry
 * (site_rows, site_cols); boundary.c adds them into the global vectors and
 * the CSR values. Sites of component pairs without an alpha entry do not
 * exist (site_index -1). */
#ifndef FEINT_BOUNDARY_FACET_H
#define FEINT_BOUNDARY_FACET_H

#include <math.h>
#include <stdint.h>

#include "feint/boundary.h"

#ifdef __CUDACC__
#define FEINT_FACET_FN __host__ __device__ static inline
#else
#define FEINT_FACET_FN static inline
#endif

#define FEINT_FACET_MAX_NB FEINT_SPACE_MAX_FACET_DOFS /* facet dofs: quadrilaterals up to order 15 */

/* One Neumann or Robin entry's facets (pointers host or device). */
typedef struct feint_facet_view {
  int robin;            /* 0: Neumann load; 1: Robin matrix sites and load */
  int nv;               /* facet vertices: 2 (segment), 3 (triangle), 4 (bilinear quadrilateral) */
  int nc, nb, nq;       /* components, facet dofs, quadrature points */
  int ncoef;            /* coefficients per facet dof: Neumann nc (h); Robin nc*nc (alpha) + nc (G) */
  unsigned pairs;       /* Robin: bit c*nc+d set when alpha_cd is given */
  int64_t n_facets;
  const double *phi;    /* nq x nb: the facet basis at the points */
  const double *weights; /* nq (reference measure: 1 segment, 1/2 triangle, 1 quadrilateral) */
  const double *points; /* nq x 2: the points (s, t) in [0,1]^2 (quadrilaterals; NULL otherwise) */
  const double *x;      /* n_facets x nv x 3: vertex coordinates (quadrilaterals cyclic) */
  const double *coef;   /* n_facets x nb x ncoef */
  const int64_t *load_index; /* n_facets x nb x nc: load slot of (dof i, component c) */
  const int64_t *site_index; /* Robin: n_facets x (nb nc)^2 in ((i c), (j d)) row-major: site or -1 */
  const double *det;    /* n_facets x nq: a curved mesh's |J| at each point of the facet on its cell's map,
                           or a flux condition's q . n |J| (its facet value 1; boundary.c); NULL: |J| from x */
} feint_facet_view;

/* |J| of facet f at point q: the length (segment) or |e1 x e2| (triangle)
 * of an affine facet; on the quadrilateral x(s, t) = bilinear in its
 * cyclic vertices, |dx/ds x dx/dt| at the point (it varies over a face
 * that is no parallelogram, and is no polynomial on a non-planar one); a
 * curved facet's, given. */
FEINT_FACET_FN double feint_facet_det(const feint_facet_view *v, int64_t f, int q) {
  if (v->det) return v->det[f * v->nq + q];
  const double *X = v->x + f * v->nv * 3;
  double e1[3], e2[3];
  if (v->nv == 4) {
    const double s = v->points[2 * q], t = v->points[2 * q + 1];
    for (int a = 0; a < 3; a++) {
      e1[a] = (1 - t) * (X[3 + a] - X[a]) + t * (X[6 + a] - X[9 + a]);
      e2[a] = (1 - s) * (X[9 + a] - X[a]) + s * (X[6 + a] - X[3 + a]);
    }
  } else {
    for (int a = 0; a < 3; a++) {
      e1[a] = X[3 + a] - X[a];
      e2[a] = v->nv == 3 ? X[6 + a] - X[a] : 0.0;
    }
  }
  if (v->nv == 2) return sqrt(e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2]);
  const double cx = e1[1] * e2[2] - e1[2] * e2[1], cy = e1[2] * e2[0] - e1[0] * e2[2],
               cz = e1[0] * e2[1] - e1[1] * e2[0];
  return sqrt(cx * cx + cy * cy + cz * cz);
}

/* Coefficient k of facet f interpolated at point q. */
FEINT_FACET_FN double feint_facet_coef(const feint_facet_view *v, int64_t f, int q, int k) {
  const double *p = v->phi + q * v->nb, *cf = v->coef + f * v->nb * v->ncoef + k;
  double s = 0;
  for (int j = 0; j < v->nb; j++) s += p[j] * cf[j * v->ncoef];
  return s;
}

/* The load integrand of component c at point q (without phi_i and the
 * measure): Neumann h_c; Robin sum_d alpha_cd G_d (alpha, G interpolated). */
FEINT_FACET_FN double feint_facet_load_term(const feint_facet_view *v, int64_t f, int q, int c) {
  const int nc = v->nc;
  if (!v->robin) return feint_facet_coef(v, f, q, c);
  double h = 0;
  for (int d = 0; d < nc; d++)
    if (v->pairs >> (c * nc + d) & 1u)
      h += feint_facet_coef(v, f, q, c * nc + d) * feint_facet_coef(v, f, q, nc * nc + d);
  return h;
}

/* Load of (facet dof i, component c): int load_term_c phi_i. */
FEINT_FACET_FN double feint_facet_load(const feint_facet_view *v, int64_t f, int i, int c) {
  double s = 0;
  for (int q = 0; q < v->nq; q++)
    s += v->weights[q] * feint_facet_det(v, f, q) * feint_facet_load_term(v, f, q, c) * v->phi[q * v->nb + i];
  return s;
}

/* Robin matrix entry ((i c), (j d)): int alpha_cd phi_i phi_j. */
FEINT_FACET_FN double feint_facet_matrix(const feint_facet_view *v, int64_t f, int i, int c, int j, int d) {
  double s = 0;
  for (int q = 0; q < v->nq; q++) {
    const double *p = v->phi + q * v->nb;
    s += v->weights[q] * feint_facet_det(v, f, q) * feint_facet_coef(v, f, q, c * v->nc + d) * p[i] * p[j];
  }
  return s;
}

#ifdef __cplusplus
extern "C" {
#endif
/* The host loop over the sets (boundary.c), the reference: load (n_load)
 * and sites (n_sites) overwritten with the integrals. Per facet it caches
 * the measure w_q |J_q|, the load terms and alpha at the points (the same
 * functions as feint_facet_load / feint_facet_matrix, which recompute them
 * for every entry: on the GPU each thread's own row), so an entry costs nq
 * multiply-adds, not nq (nb + |J|). FEINT_ERR_COMPUTE when out of memory. */
int feint_facets_host(const feint_facet_view *const *sets, int n_sets, int64_t n_load, int64_t n_sites, double *load,
                       double *sites);

/* Facet set k of bc (NULL past the end), for tests that fill it with
 * random data. */
const feint_facet_view *feint_boundary_facet_view(const feint_boundary_conditions *bc, int k);

/* The CUDA twin of boundary.c's host loop (backend/cuda/facet.cu, built
 * with nvcc only; feint reaches it as the cuda backend's
 * integrate_facets): uploads the n_sets sets
 * (host views), integrates them on the current device (one thread per
 * facet and local row, atomics into the compact targets) and downloads
 * load (n_load) and sites (n_sites), both overwritten. stats may be NULL. */
int feint_facets_cuda(const feint_facet_view *const *sets, int n_sets, int64_t n_load, int64_t n_sites, double *load,
                      double *sites, feint_boundary_device_stats *stats);
#ifdef __cplusplus
}
#endif

#endif
