/* feint element matrices of high order (1..7) on affine tetrahedra, after
 * Banas, Plaszewski, Maciol ("Numerical integration on GPUs for higher
 * order finite elements"): the CPU reference here (src/elmat/elmat.c) and
 * the CUDA kernels (src/backend/cuda/elmat.cu) with the variants the paper
 * compares.
 *
 * Formula. Per cell e, with phi_i the order-p Lagrange basis (fe.h), the
 * quadrature rule of degree 2p, gx = J^-T grad phi the physical gradient and
 * the coefficients given per quadrature point (PetscDS / physics.h layout,
 * test function i on the left):
 *   A_e[i][j] = sum_q w_q |det J| [ g0 phi_i phi_j + phi_i g1 . gx_j
 *                                   + gx_i . g2 phi_j + gx_i . g3 . gx_j ].
 * (For a symmetric g3 this equals the form with j on the left.)
 *
 * How the kernels evaluate it. With B[q][c][i] the reference table (c = 0
 * the value phi_i, c = 1..3 the reference gradient), the point tensor
 *   C_q[c][c'] = w_q |det J| [[g0, g1 J^-T], [J^-1 g2, J^-1 g3 J^-T]]
 * (feint_elmat_point_tensor, 4 x 4) turns the sum into
 *   A_e = sum_q B_q^T C_q B_q,
 * a small matrix product per cell: 8 nb^2 floating-point operations per
 * point (FLOP-bound from p = 3 on; see src/backend/cuda/ELMAT.md).
 * When the coefficients are constant in a cell, C_q = w_q Chat and
 *   A_e = sum_{c,c'} Chat[c][c'] K[c][c'],  K[c][c'] = sum_q w_q B_q[c]^T B_q[c'],
 * with the 16 (10 without g1, g2) reference matrices K precomputed once:
 * 2 x 10 (or 16) operations per entry, so writing A_e is the limit.
 *
 * Inputs (host or device arrays, cell-major):
 *   geometry  FEINT_ELMAT_GEO_JACOBIAN: 10 per cell, J^-1 row-major
 *             (Jinv[c][d] = d r_c / d x_d) then |det J|, precomputed on the
 *             host by feint_elmat_jacobian_terms;
 *             FEINT_ELMAT_GEO_VERTICES: 12 per cell, the 4 vertex
 *             coordinates xv[3 v + d] (Gmsh order), Jacobian terms computed
 *             in the kernel (feint_elmat_tet_geometry, the same source);
 *   coefficients, ncoef = 10: (g0, g3[3][3]) or 16: (g0, g1[3], g2[3],
 *             g3[3][3]) per point, coef[(e nq + q) ncoef + k]
 *             (FEINT_ELMAT_COEF_POINT) or per cell, coef[e ncoef + k]
 *             (FEINT_ELMAT_COEF_CELL, the reference-matrix fast path).
 * Output: A[(e nb + i) nb + j], nb x nb doubles per cell. */
#ifndef FEINT_ELMAT_H
#define FEINT_ELMAT_H

#include <stddef.h>
#include <stdint.h>

#include "feint/fe.h"
#include "feint/geometry.h" /* feint_affine_inverse_jacobian */
#include "feint/physics.h"  /* FEINT_HOST_DEVICE */

#define FEINT_ELMAT_MAX_ORDER 7

typedef enum { FEINT_ELMAT_DATA_REGISTERS = 0, FEINT_ELMAT_DATA_SHARED = 1, FEINT_ELMAT_DATA_TENSOR = 2 } feint_elmat_data;
typedef enum { FEINT_ELMAT_GEO_JACOBIAN = 0, FEINT_ELMAT_GEO_VERTICES = 1 } feint_elmat_geo;
typedef enum { FEINT_ELMAT_COEF_POINT = 0, FEINT_ELMAT_COEF_CELL = 1 } feint_elmat_coef;

/* Which kernel (the paper's variants). data: per-point coefficients only:
 *   REGISTERS  each thread reads the table entries of its rows and columns
 *              and the coefficients of each point itself (L1/L2-cached
 *              loads into registers, no shared memory, no barriers; the
 *              point tensor and B_q columns are recomputed per thread);
 *   SHARED     the block stages the table, the point tensors and C_q B_q
 *              for a chunk of points in shared memory, then every thread
 *              accumulates its tile of A_e from there;
 *   TENSOR     staged as SHARED, the products on the FP64 tensor cores
 *              (DMMA m8n8k4, not in the paper; columns padded to 8).
 * The CPU reference ignores data. */
typedef struct {
  feint_elmat_data data;
  feint_elmat_geo geo;
  feint_elmat_coef coef;
  int ncoef; /* 10 or 16 */
} feint_elmat_variant;

/* FEINT_ERR_INPUT unless ncoef is 10 or 16 and the enums are known. */
int feint_elmat_variant_check(const feint_elmat_variant *v);
const char *feint_elmat_variant_name(const feint_elmat_variant *v, char *buf, size_t size);
int feint_elmat_geometry_size(feint_elmat_geo geo); /* 10 or 12 doubles per cell */

/* Reference data of one order: the element, the degree-2p rule, B and K. */
typedef struct {
  int order, nb, nq;
  feint_element *el;
  feint_quadrature *quad;
  double *B; /* nq x 4 x nb: B[(q 4 + c) nb + i] */
  double *K; /* 16 x nb x nb: K[((c 4 + c') nb + i) nb + j] */
} feint_elmat_tables;

/* Tetrahedra only (FEINT_ERR_INPUT otherwise), order 1..7. */
int feint_elmat_tables_create(feint_cell_type cell, int order, feint_elmat_tables **out);
void feint_elmat_tables_destroy(feint_elmat_tables *t);

/* Host precomputation for FEINT_ELMAT_GEO_JACOBIAN: geo[10 e ..] from
 * xv[12 e ..]. FEINT_ERR_INPUT naming the cell when a cell is degenerate. */
int feint_elmat_jacobian_terms(int64_t n, const double *xv, double *geo);

/* CPU reference: A for n cells, computed point by point from physical
 * gradients (not through the point tensor). Checks v (ncoef, enums). */
int feint_elmat_compute(const feint_elmat_tables *t, const feint_elmat_variant *v, int64_t n,
                        const double *geom, const double *coef, double *A);

/* Cost model: the fewest bytes (inputs read once, A written once) and the
 * floating-point operations the kernels' algorithm needs (the SHARED
 * variant's count; REGISTERS recomputes point tensors per thread). */
double feint_elmat_min_bytes(const feint_elmat_tables *t, const feint_elmat_variant *v, int64_t n);
double feint_elmat_flops(const feint_elmat_tables *t, const feint_elmat_variant *v, int64_t n);

/* ------------------------------------------------------------------- GPU */
/* src/backend/cuda/elmat.cu; without nvcc every function returns
 * FEINT_ERR_INPUT "built without CUDA" (src/backend/cuda/elmat_none.c). */
typedef struct feint_elmat_gpu feint_elmat_gpu;
typedef struct {
  double setup_ms;    /* create: device tables padded and uploaded */
  double upload_ms;   /* host -> device: geometry and coefficients */
  double kernel_ms;   /* the kernel (bench: median of the repetitions) */
  double download_ms; /* device -> host: the element matrices */
} feint_elmat_gpu_timing;

/* Uploads the tables (t must outlive g). */
int feint_elmat_gpu_create(const feint_elmat_tables *t, int device_index, feint_elmat_gpu **out);
/* A (host) for n cells from host inputs: upload, kernel, download. tm may
 * be NULL. */
int feint_elmat_gpu_compute(feint_elmat_gpu *g, const feint_elmat_variant *v, int64_t n, const double *geom,
                            const double *coef, double *A, feint_elmat_gpu_timing *tm);
/* Benchmark on n cells: times one upload of inputs of the right size from
 * (pageable) host memory, fills the device inputs with random values from
 * seed (tetrahedra perturbed from the reference one, coefficients in
 * [0.5, 1.5)), runs the kernel once to warm up and reps times (median),
 * and times one download of A. */
int feint_elmat_gpu_bench(feint_elmat_gpu *g, const feint_elmat_variant *v, int64_t n, int reps,
                          unsigned seed, feint_elmat_gpu_timing *tm);
int feint_elmat_gpu_device_name(int device_index, char *name, size_t size);
void feint_elmat_gpu_destroy(feint_elmat_gpu *g);

/* ------------------------------------------------- shared point functions */
/* Jacobian terms of the affine tetrahedron xv[3 v + d]: geo[3 c + d] =
 * (J^-1)[c][d] = d r_c / d x_d, geo[9] = |det J|; returns det J (0:
 * degenerate, geo then holds no inverse). J[d][c] = x_{c+1}[d] - x_0[d]
 * (geometry.h). */
FEINT_HOST_DEVICE static inline double feint_elmat_tet_geometry(const double *xv, double *geo) {
  const double det = feint_affine_inverse_jacobian(3, xv, geo);
  geo[9] = det < 0 ? -det : det;
  return det;
}

/* Entry k = 4 c + c' of the 4 x 4 point tensor C above from the Jacobian
 * terms, the weight w and one point's coefficients (ncoef 10 or 16). */
FEINT_HOST_DEVICE static inline double feint_elmat_point_tensor_entry(const double *geo, double w, const double *coef,
                                                                      int ncoef, int k) {
  const int c = k / 4, c2 = k % 4;
  const double s = w * geo[9];
  if (c == 0 && c2 == 0) return s * coef[0];
  if (c == 0 || c2 == 0) { /* (g1 J^-T)[c2 - 1] or (J^-1 g2)[c - 1] */
    if (ncoef != 16) return 0;
    const double *r = geo + 3 * (c ? c - 1 : c2 - 1), *g = coef + (c ? 4 : 1);
    return s * (r[0] * g[0] + r[1] * g[1] + r[2] * g[2]);
  }
  const double *a = geo + 3 * (c - 1), *b = geo + 3 * (c2 - 1), *g3 = coef + (ncoef == 16 ? 7 : 1);
  double t = 0; /* (J^-1 g3 J^-T)[c - 1][c2 - 1] */
  for (int d = 0; d < 3; d++) t += a[d] * (g3[3 * d] * b[0] + g3[3 * d + 1] * b[1] + g3[3 * d + 2] * b[2]);
  return s * t;
}

/* The whole tensor, C[4 c + c']. */
FEINT_HOST_DEVICE static inline void feint_elmat_point_tensor(const double *geo, double w, const double *coef,
                                                              int ncoef, double *C) {
  for (int k = 0; k < 16; k++) C[k] = feint_elmat_point_tensor_entry(geo, w, coef, ncoef, k);
}

#endif
