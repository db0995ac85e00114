/* feint element matrices of high order (1..7) on tetrahedra and prisms
 * (Gmsh wedges, first-order geometry), after Banas, Plaszewski, Maciol
 * ("Numerical integration on GPUs for higher order finite elements"): the
 * CPU reference here (src/elmat/elmat.c) and the CUDA kernels
 * (src/backend/cuda/elmat.cu) with the variants the paper compares.
 *
 * Formula. Per cell e, with phi_i the order-p Lagrange basis (fe.h: the
 * tetrahedron's P_p, the prism's triangle P_p x segment P_p), the
 * quadrature rule of degree 2p + feint_cell_geometry_degree (2p on
 * tetrahedra; 2p + 2 on prisms, whose |det J| has degree 2 in z: the mass
 * matrix is then exact), gx = J^-T grad phi the physical gradient and the
 * coefficients given per quadrature point (PetscDS / physics.h layout,
 * test function i on the left):
 *   A_e[i][j] = sum_q w_q |det J_q| [ g0 phi_i phi_j + phi_i g1 . gx_j
 *                                     + gx_i . g2 phi_j + gx_i . g3 . gx_j ].
 * (For a symmetric g3 this equals the form with j on the left.) On a
 * tetrahedron J is constant; on a prism J_q varies from point to point
 * (the map of its 6 vertices, linear on the triangle times linear in z:
 * feint_elmat_prism_jacobian).
 *
 * How the kernels evaluate it. With B[q][c][i] the reference table (c = 0
 * the value phi_i, c = 1..3 the reference gradient), the point tensor
 *   C_q[c][c'] = w_q |det J_q| [[g0, g1 J_q^-T], [J_q^-1 g2, J_q^-1 g3 J_q^-T]]
 * (feint_elmat_point_tensor, 4 x 4) turns the sum into
 *   A_e = sum_q B_q^T C_q B_q,
 * a small matrix product per cell: 8 nb^2 floating-point operations per
 * point (FLOP-bound from p = 3 on tetrahedra, p = 2 on prisms; see
 * docs/perf/element-matrices.md).
 * When the coefficients AND J are constant in a cell, C_q = w_q Chat and
 *   A_e = sum_{c,c'} Chat[c][c'] K[c][c'],  K[c][c'] = sum_q w_q B_q[c]^T B_q[c'],
 * with the 16 (10 without g1, g2) reference matrices K precomputed once:
 * 2 x 10 (or 16) operations per entry, so writing A_e is the limit. On
 * prisms J is constant only when the prism is affine: its top triangle a
 * translate of the bottom one (x_{v+3} - x_v the same for v = 0, 1, 2, as
 * in meshes extruded from a triangle mesh). Per-cell coefficients on
 * prisms are therefore accepted for affine prisms only (FEINT_ERR_INPUT
 * naming the first other cell, from the host and the GPU paths alike):
 * on any other prism C_q is not w_q Chat, and no reference-matrix sum
 * gives A_e (constant coefficients on a general prism are per-point
 * coefficients with equal values).
 *
 * Inputs (host or device arrays, cell-major; nv = 4 or 6 vertices):
 *   geometry  FEINT_ELMAT_GEO_JACOBIAN: 10 doubles per geometry point,
 *             J^-1 row-major (Jinv[c][d] = d r_c / d x_d) then |det J|,
 *             precomputed on the host by feint_elmat_jacobian_terms; one
 *             geometry point per cell where J is constant (tetrahedra;
 *             prisms with per-cell coefficients), else nq (prisms,
 *             geom[(e nq + q) 10 + k]): feint_elmat_geometry_points;
 *             FEINT_ELMAT_GEO_VERTICES: 3 nv per cell, the vertex
 *             coordinates xv[3 v + d] (Gmsh order), Jacobian terms
 *             computed in the kernel point by point
 *             (feint_elmat_point_geometry, the same source);
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
#include "feint/form.h"     /* feint_elmat_gpu_attach */
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

/* The data placement feint runs per order with per-point coefficients,
 * the one measured fastest (docs/perf/element-matrices.md): FP64 tensor
 * cores except at P4 and P6, where the 8 x 8 tiles pad nb and the
 * shared-memory kernel wins. A constant expression (the GPU kernels'
 * instantiation reads it). */
#define FEINT_ELMAT_DEFAULT_DATA(order) ((order) == 4 || (order) == 6 ? FEINT_ELMAT_DATA_SHARED : FEINT_ELMAT_DATA_TENSOR)

/* FEINT_ERR_INPUT unless ncoef is 10 or 16 and the enums are known. */
int feint_elmat_variant_check(const feint_elmat_variant *v);
const char *feint_elmat_variant_name(const feint_elmat_variant *v, char *buf, size_t size);

/* Reference data of one cell type and order: the element, the rule of
 * degree 2p + geometry degree, B and K. */
typedef struct {
  feint_cell_type cell;
  int order, nb, nq, nv; /* nv: vertices per cell (4, 6) */
  feint_element *el;
  feint_quadrature *quad;
  double *B; /* nq x 4 x nb: B[(q 4 + c) nb + i] */
  double *K; /* 16 x nb x nb: K[((c 4 + c') nb + i) nb + j] */
} feint_elmat_tables;

/* Tetrahedra and prisms (FEINT_ERR_INPUT otherwise), order 1..7. */
int feint_elmat_tables_create(feint_cell_type cell, int order, feint_elmat_tables **out);
/* The same on the rule of the given degree (>= 0; < 0: the default): the
 * backend uses the form's matrix rule, so its matrices are the CPU
 * reference's to round-off. */
int feint_elmat_tables_create_degree(feint_cell_type cell, int order, int degree, feint_elmat_tables **out);
void feint_elmat_tables_destroy(feint_elmat_tables *t);

/* Geometry points per cell of FEINT_ELMAT_GEO_JACOBIAN: 1 where J is
 * constant (tetrahedra, prisms with per-cell coefficients), else nq. */
int feint_elmat_geometry_points(const feint_elmat_tables *t, const feint_elmat_variant *v);
/* Doubles of geometry per cell: 10 x geometry points, or 3 nv. */
int feint_elmat_geometry_size(const feint_elmat_tables *t, const feint_elmat_variant *v);

/* Host precomputation for FEINT_ELMAT_GEO_JACOBIAN: the Jacobian terms of
 * v's geometry points (v->geo is ignored) from the vertices xv[3 nv e ..].
 * FEINT_ERR_INPUT naming the cell when a cell is degenerate (det J = 0 at
 * a point) or, with per-cell coefficients, a prism is not affine. */
int feint_elmat_jacobian_terms(const feint_elmat_tables *t, const feint_elmat_variant *v, int64_t n,
                               const double *xv, double *geo);
/* The checks above on v's geometry input (vertices only; Jacobian terms
 * were checked when computed): the CPU reference and the GPU path run it
 * before computing. */
int feint_elmat_geometry_check(const feint_elmat_tables *t, const feint_elmat_variant *v, int64_t n,
                               const double *geom);

/* CPU reference: A for n cells, computed point by point from physical
 * gradients (not through the point tensor). Checks v (ncoef, enums) and
 * the geometry (feint_elmat_geometry_check). */
int feint_elmat_compute(const feint_elmat_tables *t, const feint_elmat_variant *v, int64_t n,
                        const double *geom, const double *coef, double *A);

/* Cost model: the fewest bytes (inputs read once, A written once) and the
 * floating-point operations the kernels' algorithm needs (the SHARED
 * variant's count; REGISTERS recomputes point tensors per thread). */
double feint_elmat_min_bytes(const feint_elmat_tables *t, const feint_elmat_variant *v, int64_t n);
double feint_elmat_flops(const feint_elmat_tables *t, const feint_elmat_variant *v, int64_t n);

/* ------------------------------------------------------------------- GPU */
/* src/backend/cuda/elmat.cu, built with nvcc only: a build without it has
 * none of these functions (feint reaches the GPU through the registry,
 * feint/backend.h; feint_backend_available says whether it can). */
typedef struct feint_elmat_gpu feint_elmat_gpu;
typedef struct {
  double setup_ms;    /* create: device tables padded and uploaded */
  double upload_ms;   /* host -> device: geometry and coefficients */
  double kernel_ms;   /* the kernel (bench: median of the repetitions) */
  double download_ms; /* device -> host: the element matrices */
  double coef_ms;     /* feint_elmat_gpu_form_matrices: the coefficients on the device */
} feint_elmat_gpu_timing;

/* Uploads the tables (t must outlive g; tetrahedra or prisms). */
int feint_elmat_gpu_create(const feint_elmat_tables *t, int device_index, feint_elmat_gpu **out);
/* 1 when this binary holds the GPU kernel of variant v at order: per-cell
 * coefficients always; per-point ones, the default data placement with
 * vertex geometry (what the backend runs) unless built with make
 * EXPERIMENTS=1, which holds every variant (the others lost at every
 * order: comparisons only). feint_elmat_gpu_compute refuses the rest. */
int feint_elmat_gpu_variant_built(int order, const feint_elmat_variant *v);
/* A (host) for n cells from host inputs: upload, kernel, download. tm may
 * be NULL. */
int feint_elmat_gpu_compute(feint_elmat_gpu *g, const feint_elmat_variant *v, int64_t n, const double *geom,
                            const double *coef, double *A, feint_elmat_gpu_timing *tm);
/* Benchmark on n cells: times one upload of inputs of the right size from
 * (pageable) host memory, fills the device inputs with random values from
 * seed (cells perturbed from the reference one: general prisms with
 * per-point coefficients, affine ones with per-cell coefficients;
 * coefficients in [0.5, 1.5)), runs the kernel once to warm up and reps
 * times (median), and times one download of A. */
int feint_elmat_gpu_bench(feint_elmat_gpu *g, const feint_elmat_variant *v, int64_t n, int reps,
                          unsigned seed, feint_elmat_gpu_timing *tm);
int feint_elmat_gpu_device_name(int device_index, char *name, size_t size);

/* A form's cells on the device (the cuda backend of `feint run`,
 * src/backend/elmat_backend.c). attach uploads once the cells' vertex
 * coordinates (checked as by feint_elmat_geometry_check), the scalar cell
 * dof map, the form's coefficient fields (P0 and nodal arrays;
 * constants by value; the source's too) and its vector rule (below), for
 * the variant v (geometry from vertices; ncoef 16 when the physics has g1
 * or g2; at most FEINT_ELMAT_MAX_AUX fields; 1..3 components, nc; FEINT_ERR_INPUT
 * otherwise). form_matrices then computes, for cells
 * c0 .. c0 + n - 1, the coefficient array on the device (one block per
 * cell, a thread per point, the cell's nodal values staged in shared
 * memory; one thread per cell with FEINT_ELMAT_COEF_CELL: the fields as
 * feint_field_at gives them, nodal ones interpolated with the basis at
 * the point, then g0, g1, g3 by the pointwise physics: the sources the
 * CPU reference runs) and v's kernel, leaving the element matrices in
 * device memory at *A (n x nb x nb, valid until the next call on g; a
 * form of nc > 1 components: one coefficient array and one kernel run
 * per component pair, then the blocks interleaved, n x nbc x nbc in the
 * layout above); tm (may be NULL): coef_ms and kernel_ms (the interleave
 * included), timed apart. download copies the last call's first n
 * matrices to the host. */
#define FEINT_ELMAT_MAX_AUX 16
int feint_elmat_gpu_attach(feint_elmat_gpu *g, const feint_elmat_variant *v, const feint_form *f,
                           const feint_space *s);
int feint_elmat_gpu_form_matrices(feint_elmat_gpu *g, int64_t c0, int64_t n, const double **A,
                                  feint_elmat_gpu_timing *tm);
int feint_elmat_gpu_download(feint_elmat_gpu *g, int64_t n, double *A);
/* A sweep member's form in place of the attached one (the backend's
 * update_form, after feint_form_same_layout): its constants taken by
 * value and its per-cell and nodal fields (the source's too) copied into
 * the device arrays attach made; the cells, dof map, tables and buffers
 * stay. FEINT_ERR_INPUT when its physics, components or field kinds
 * differ from the attached form's. */
int feint_elmat_gpu_update_form(feint_elmat_gpu *g, const feint_form *f, const feint_space *s);
/* The element vectors of the attached form on its vector rule (attach
 * uploads the form's own tables of f->quadrature, the rule the CPU
 * reference integrates vectors with, and every coefficient field, the
 * source's too): the residual's at the state u (host, n_dofs values,
 * components interleaved as the space's dofs; f0 and f1 of the pointwise physics at u and grad u) or, with u
 * NULL, the load vector's (the source alone), every cell at once by
 * thread transposition (a block per 1..8 cells: per point u, grad u, the
 * fields and the physics; after a barrier per basis function the sum over
 * the points, in a fixed order; FEINT_ELMAT_VECTOR_CELLS sets the cells
 * per block, a test and benchmark hook). With atomic 0 they stay in device memory at
 * *out, n_cells x nbc (entry c nbc + i nc + m: the cell's local dof
 * i nc + m; bitwise the same run to run), for a deterministic sum by the
 * dof map (plan.h: feint_plan_gpu_create_map); with atomic 1 they are
 * added into the vector by atomicAdd, *out then n_dofs values (the order of the
 * additions varies). Valid until the next call on g; kernel_ms (may be
 * NULL): the kernel's device time (CUDA events; u's upload excluded).
 * download_vectors copies the last call's *out (either size) to the host. */
int feint_elmat_gpu_form_vectors(feint_elmat_gpu *g, const double *u, int atomic, const double **out,
                                 double *kernel_ms);
int feint_elmat_gpu_download_vectors(feint_elmat_gpu *g, int atomic, double *out);
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

/* J[a 3 + c] = d x_a / d r_c of the prism xv[3 v + d] (Gmsh order, fe.h)
 * at the reference point r: x = sum_v lambda_v(r0, r1) ((1 - r2) x_v +
 * r2 x_{v+3}), lambda = (1 - r0 - r1, r0, r1). */
FEINT_HOST_DEVICE static inline void feint_elmat_prism_jacobian(const double *xv, const double *r, double *J) {
  const double lam[3] = {1 - r[0] - r[1], r[0], r[1]};
  for (int a = 0; a < 3; a++) {
    const double b0 = xv[a], b1 = xv[3 + a], b2 = xv[6 + a], t0 = xv[9 + a], t1 = xv[12 + a], t2 = xv[15 + a];
    J[3 * a] = (1 - r[2]) * (b1 - b0) + r[2] * (t1 - t0);
    J[3 * a + 1] = (1 - r[2]) * (b2 - b0) + r[2] * (t2 - t0);
    J[3 * a + 2] = lam[0] * (t0 - b0) + lam[1] * (t1 - b1) + lam[2] * (t2 - b2);
  }
}

/* Jacobian terms (as feint_elmat_tet_geometry) of the cell xv at the
 * reference point r: the tetrahedron ignores r (affine). Returns det J. */
FEINT_HOST_DEVICE static inline double feint_elmat_point_geometry(feint_cell_type cell, const double *xv,
                                                                 const double *r, double *geo) {
  if (cell != FEINT_CELL_PRISM) return feint_elmat_tet_geometry(xv, geo);
  double J[9];
  feint_elmat_prism_jacobian(xv, r, J);
  const double det = feint_inverse_jacobian(3, J, geo);
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

/* Vector forms (nc = 1..3 components, interleaved as in feint/space.h:
 * local dof i nc + c is component c of basis function i). The element
 * matrix of a form with nc components is nc^2 scalar blocks: block
 * fg = fc nc + gc (test component fc, trial component gc) is the scalar
 * formula above with the coefficients of that component pair, g0[fg],
 * g1[fg 3 ..], g2[fg 3 ..], g3[fg 9 ..] of physics.h's layouts (whose
 * test-before-trial order is the one above). The GPU path computes every
 * block by the scalar kernels (the blocks of n cells block-major,
 * blocks[((fg n + e) nb + i) nb + j]) and then interleaves them into the
 * space's layout, A[(e nbc + i nc + fc) nbc + j nc + gc], nbc = nb nc. */

/* Pair fg's coefficients (ncoef 10 or 16, layout above) from the fields a
 * at a point (physics.h aux layout): g0, g1 and g3 of the pointwise physics
 * with nc components, as `terms` (feint_physics_jacobian_terms) asks;
 * g2 stays zero (no physics has it). */
FEINT_HOST_DEVICE static inline void feint_elmat_pair_coefficients(int physics, int terms, int nc, const double *a,
                                                                   int fg, int ncoef, double *out) {
  const double zero[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
  const feint_point pt = {3, nc, zero, zero, a};
  double g[81];
  for (int k = 0; k < ncoef; k++) out[k] = 0;
  if (terms & 1) feint_physics_g0(physics, &pt, g), out[0] = g[fg];
  if (terms & 2) {
    feint_physics_g1(physics, &pt, g);
    for (int k = 0; k < 3; k++) out[1 + k] = g[3 * fg + k];
  }
  if (terms & 8) {
    feint_physics_g3(physics, &pt, g);
    for (int k = 0; k < 9; k++) out[(ncoef == 16 ? 7 : 1) + k] = g[9 * fg + k];
  }
}

/* Where entry k of the interleaved element matrices of n cells (k = (e nbc
 * + i nc + fc) nbc + j nc + gc) lies in the block-major array above. */
FEINT_HOST_DEVICE static inline int64_t feint_elmat_block_entry(int64_t k, int64_t n, int nb, int nc) {
  const int nbc = nb * nc;
  const int64_t e = k / ((int64_t)nbc * nbc);
  const int r = (int)(k / nbc % nbc), col = (int)(k % nbc);
  const int fg = (r % nc) * nc + col % nc;
  return (((int64_t)fg * n + e) * nb + r / nc) * nb + col / nc;
}

/* Host reference of that interleave: A (n x nbc x nbc) from blocks. */
void feint_elmat_interleave(int64_t n, int nb, int nc, const double *blocks, double *A);

/* The whole tensor, C[4 c + c']. */
FEINT_HOST_DEVICE static inline void feint_elmat_point_tensor(const double *geo, double w, const double *coef,
                                                              int ncoef, double *C) {
  for (int k = 0; k < 16; k++) C[k] = feint_elmat_point_tensor_entry(geo, w, coef, ncoef, k);
}

#endif
