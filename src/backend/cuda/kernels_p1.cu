/* The P1 one-thread-per-cell kernels: the per-cell matrix kernel and its
 * gather by row, and the block-local aggregation kernel (vectors and
 * matrices; the chunks are described in p1.cuh). Instantiated here for the
 * (dim, components, physics) they serve (pick_p1). */
#include "backend/cuda/fused.cuh"
#include "backend/cuda/p1.cuh"

/* ------------------------------------------------- P1: one thread per cell
 *
 * For P1 (nb = dim + 1) the reference gradients are constant, so a cell's
 * whole computation fits in registers: the kernels below are specialised on
 * (DIM, NC, physics) at compile time (so every array is indexed by
 * constants: no local memory, no stack frame), take one thread per cell,
 * no shared memory, no barriers, no integer division. The quadrature loop
 * runs over the rule's points from the kernel's parameter bank (p1tab).
 * The pointwise physics is still the one source in physics.h. The thread-
 * transposition kernels (kernels_tt.cu) remain the general path (P2,
 * other element / physics combinations, and on request,
 * feint_cuda_set_variant). */

/* Coefficients at quadrature point q (nodal fields interpolated). */
template <int DIM, int NC, int NAUX>
__device__ __forceinline__ void p1_aux(const kparams &P, const p1tab &T, int q, const p1cell<DIM, NC, NAUX> &C,
                                       double *a) {
  constexpr int NB = DIM + 1;
#pragma unroll
  for (int k = 0; k < NAUX; k++) {
    if (P.aux_kind[k] == FEINT_FIELD_NODE) {
      double s = 0;
#pragma unroll
      for (int i = 0; i < NB; i++) s += T.phi[q][i] * C.av[k][i];
      a[k] = s;
    } else {
      a[k] = C.ac[k];
    }
  }
}

/* The coefficients integrated over the cell, a[k] = |det J| sum_q w_q a_k(x_q)
 * (nodal fields through sum_q w_q phi_i(q)). */
template <int DIM, int NC, int NAUX>
__device__ __forceinline__ void p1_weighted_coef(const kparams &P, const p1tab &T, const p1cell<DIM, NC, NAUX> &C,
                                                 double *a) {
  constexpr int NB = DIM + 1;
  const double wsum = T.wsum;
#pragma unroll
  for (int k = 0; k < NAUX; k++) {
    if (P.aux_kind[k] == FEINT_FIELD_NODE) {
      double s = 0;
#pragma unroll
      for (int i = 0; i < NB; i++) s += T.wphi[i] * C.av[k][i];
      a[k] = s * C.adet;
    } else {
      a[k] = wsum * C.ac[k] * C.adet;
    }
  }
}

/* Physics whose f0 is minus the source (linear in the coefficients, no u)
 * and whose f1 is linear in the coefficients at fixed grad u: Poisson,
 * elasticity, anisotropic diffusion. */
template <int PHYS>
__host__ __device__ constexpr bool p1_linear_coef() {
  return PHYS == FEINT_PW_POISSON || PHYS == FEINT_PW_ELASTICITY || PHYS == FEINT_PW_DIFFUSION;
}

/* Residual (or load vector) of one cell: res[NBC]. */
template <int DIM, int NC, int PHYS, int NAUX>
__device__ __forceinline__ void p1_residual_cell(const kparams &P, const p1tab &T, const p1cell<DIM, NC, NAUX> &C,
                                                 int with_state, double *res) {
  constexpr int NB = DIM + 1, NBC = NB * NC;
  double gradu[NC * DIM], F1[NC * DIM];
  if constexpr (p1_linear_coef<PHYS>()) {
    /* Quadrature collapsed exactly (linearity, constant P1 gradients):
     *   sum_q w_q |det| f1(a(x_q)) = f1(a_w),  a_w = |det| sum_q w_q a(x_q);
     *   sum_q w_q |det| phi_i(q) f0(a(x_q)) = f0(a_i),
     *     a_i = |det| sum_j M_ij a_j (M the reference mass matrix);
     * one f1 and NB f0 evaluations per cell instead of nq of each, and no
     * per-point interpolation (the FP64 work per cell drops ~2-3x). */
    p1_grad_u<DIM, NC, NAUX>(T, C, gradu);
    double uz[NC], a[NAUX], f0[NC], f1[NC * DIM];
#pragma unroll
    for (int cc = 0; cc < NC; cc++) uz[cc] = 0;
#pragma unroll
    for (int i = 0; i < NB; i++) {
#pragma unroll
      for (int k = 0; k < NAUX; k++) {
        if (P.aux_kind[k] == FEINT_FIELD_NODE) {
          double s = 0;
#pragma unroll
          for (int j = 0; j < NB; j++) s += T.mass[i][j] * C.av[k][j];
          a[k] = s * C.adet;
        } else {
          a[k] = T.wphi[i] * C.ac[k] * C.adet;
        }
      }
      const feint_point pt = {DIM, NC, uz, gradu, a};
      if (with_state)
        feint_physics_f0(PHYS, &pt, f0);
      else
        feint_physics_source(PHYS, &pt, f0);
#pragma unroll
      for (int cc = 0; cc < NC; cc++) res[i * NC + cc] = f0[cc];
    }
    if (!with_state) return;
    p1_weighted_coef<DIM, NC, NAUX>(P, T, C, a);
    const feint_point pt = {DIM, NC, uz, gradu, a};
    feint_physics_f1(PHYS, &pt, f1);
    p1_add_flux<DIM, NC, NAUX>(T, C, f1, res);
  } else {
  p1_grad_u<DIM, NC, NAUX>(T, C, gradu);
#pragma unroll
  for (int k = 0; k < NC * DIM; k++) F1[k] = 0;
#pragma unroll
  for (int k = 0; k < NBC; k++) res[k] = 0;
  for (int q = 0; q < T.nq; q++) {
    const double wdet = T.w[q] * C.adet;
    double uq[NC], a[NAUX], f0[NC], f1[NC * DIM];
#pragma unroll
    for (int cc = 0; cc < NC; cc++) {
      double s = 0;
#pragma unroll
      for (int i = 0; i < NB; i++) s += T.phi[q][i] * C.ue[i * NC + cc];
      uq[cc] = s;
    }
    p1_aux<DIM, NC, NAUX>(P, T, q, C, a);
    const feint_point pt = {DIM, NC, uq, gradu, a};
    if (with_state) {
      feint_physics_f0(PHYS, &pt, f0);
      feint_physics_f1(PHYS, &pt, f1);
    } else {
      feint_physics_source(PHYS, &pt, f0);
#pragma unroll
      for (int k = 0; k < NC * DIM; k++) f1[k] = 0;
    }
#pragma unroll
    for (int i = 0; i < NB; i++)
#pragma unroll
      for (int cc = 0; cc < NC; cc++) res[i * NC + cc] += wdet * T.phi[q][i] * f0[cc];
#pragma unroll
    for (int k = 0; k < NC * DIM; k++) F1[k] += wdet * f1[k];
  }
  p1_add_flux<DIM, NC, NAUX>(T, C, F1, res);
  }
}

/* Matrix of one cell for physics whose Jacobian is g3 only and linear in
 * the coefficients (Poisson, elasticity, anisotropic diffusion): with
 * constant P1 gradients, sum_q w_q g3(a(x_q)) = g3(sum_q w_q a(x_q)), so
 * the physics is evaluated once per cell, at the weighted coefficients. */
template <int PHYS>
__host__ __device__ constexpr bool p1_matrix_fast() {
  return PHYS == FEINT_PW_POISSON || PHYS == FEINT_PW_ELASTICITY || PHYS == FEINT_PW_DIFFUSION;
}

template <int DIM, int NC, int PHYS, int NAUX>
__device__ __forceinline__ void p1_g3(const kparams &P, const p1tab &T, const p1cell<DIM, NC, NAUX> &C,
                                      double *g3) {
  double a[NAUX], zero[NC * DIM];
  p1_weighted_coef<DIM, NC, NAUX>(P, T, C, a);
#pragma unroll
  for (int k = 0; k < NC * DIM; k++) zero[k] = 0;
  const feint_point pt = {DIM, NC, zero, zero, a};
  feint_physics_g3(PHYS, &pt, g3);
}

/* Entry (i, fc; j, gc) of the cell matrix (gp: p1_gradients). */
template <int DIM, int NC>
__device__ __forceinline__ double p1_entry(const double (*gp)[DIM], const double *g3, int i, int fc, int j, int gc) {
  double v = 0;
#pragma unroll
  for (int d = 0; d < DIM; d++) {
    double s = 0;
#pragma unroll
    for (int e = 0; e < DIM; e++) s += g3[((fc * NC + gc) * DIM + d) * DIM + e] * gp[j][e];
    v += gp[i][d] * s;
  }
  return v;
}

/* What every P1 matrix kernel computes of cell c before its entries: the
 * pointwise g3 block and the basis gradients (p1_entry's inputs). */
template <int DIM, int NC, int PHYS, int NAUX, typename S>
__device__ __forceinline__ void p1_matrix_cell(const kparams &P, const p1tab &T, const cview &V, int c,
                                               double *g3, double (*gp)[DIM]) {
  p1cell<DIM, NC, NAUX> C;
  p1_load<DIM, NC, NAUX, S>(P, T, V, c, 0, NULL, C);
  p1_g3<DIM, NC, PHYS, NAUX>(P, T, C, g3);
  p1_gradients<DIM, NC, NAUX>(T, C, gp);
}

template <int DIM, int NC, int PHYS, typename S>
__global__ void __launch_bounds__(256) p1_matrix_kernel(kparams P, p1tab T, cview V, int first, int n, int mode,
                                                        void *__restrict__ out) {
  constexpr int NAUX = p1_naux(PHYS, DIM, NC), NB = DIM + 1;
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  const int c = first + t;
  double g3[NC * NC * DIM * DIM], gp[NB][DIM];
  p1_matrix_cell<DIM, NC, PHYS, NAUX, S>(P, T, V, c, g3, gp);
  p1_put_cell_matrix<DIM, NC, S>(
      V, c, [&](int i, int fc, int j, int gc) { return p1_entry<DIM, NC>(gp, g3, i, fc, j, gc); }, mode, out);
}

/* Gather by row, no element-matrix buffer: one thread per scalar dof owns
 * its NC rows, walks its cells in increasing order, recomputes each cell
 * and adds its rows into the CSR values (no other thread writes them). */
template <int DIM, int NC, int PHYS, typename S>
__global__ void __launch_bounds__(256) p1_matrix_gather_kernel(kparams P, p1tab T, cview V, int n_nodes,
                                                               const int *__restrict__ vptr,
                                                               const int *__restrict__ vent,
                                                               void *__restrict__ out) {
  constexpr int NAUX = p1_naux(PHYS, DIM, NC), NB = DIM + 1;
  const int node = blockIdx.x * blockDim.x + threadIdx.x;
  if (node >= n_nodes) return;
  const int k0 = __ldg(vptr + node), k1 = __ldg(vptr + node + 1);
  for (int k = k0; k < k1; k++) {
    const int e = __ldg(vent + k);
    const int c = e >> 2, a = e & 3;
    double g3[NC * NC * DIM * DIM], gp[NB][DIM];
    p1_matrix_cell<DIM, NC, PHYS, NAUX, S>(P, T, V, c, g3, gp);
    p1_put_cell_rows<DIM, NC, S>(
        V, c, a, [&](int i, int fc, int j, int gc) { return p1_entry<DIM, NC>(gp, g3, i, fc, j, gc); }, out);
  }
}

/* The built-in physics' cells for p1_block. */
template <int DIM, int NC, int PHYS, typename S>
struct p1_physics_cells {
  static constexpr int NAUX = p1_naux(PHYS, DIM, NC), NB = DIM + 1, NBC = NB * NC;
  const kparams &P;
  const p1tab &T;
  const cview &V;
  int with_state;
  const void *u;
  __device__ __forceinline__ void vector(int c, const p1shared &G, double *res) const {
    p1cell<DIM, NC, NAUX> C;
    p1_load<DIM, NC, NAUX, S>(P, T, V, c, with_state, u, C, G);
    p1_residual_cell<DIM, NC, PHYS, NAUX>(P, T, C, with_state, res);
  }
  __device__ __forceinline__ void matrix(int c, double *Ke) const {
    double g3[NC * NC * DIM * DIM], gp[NB][DIM];
    p1_matrix_cell<DIM, NC, PHYS, NAUX, S>(P, T, V, c, g3, gp);
    p1_cell_entries<DIM, NC>([&](int i, int fc, int j, int gc) { return p1_entry<DIM, NC>(gp, g3, i, fc, j, gc); },
                             Ke);
  }
};

template <int DIM, int NC, int PHYS, int MAT, typename S>
__global__ void __launch_bounds__(256, (p1_block_minb<NC, MAT>())) p1_block_kernel(
    kparams P, p1tab T, cview V, bview B, const int *__restrict__ chunks, int mode, int with_state,
    const void *__restrict__ u, void *__restrict__ out) {
  p1_block<DIM, NC, MAT, S>(P, B, chunks, mode, with_state, u, out,
                            p1_physics_cells<DIM, NC, PHYS, S>{P, T, V, with_state, u});
}

/* P1 kernels for (dim, nc, physics), where instantiated. */
template <int DIM, int NC, int PHYS, typename S>
static void set_p1(cuda_data *d) {
  if (p1_matrix_fast<PHYS>()) {
    d->p1mat = p1_matrix_kernel<DIM, NC, PHYS, S>;
    d->p1matg = p1_matrix_gather_kernel<DIM, NC, PHYS, S>;
  }
  d->p1blk[0] = p1_block_kernel<DIM, NC, PHYS, 0, S>;
  /* matrices of scalar physics only: elasticity's 144 entries per cell
   * would need tiny chunks (shared memory) and a 1.7 GB host inverse map */
  if constexpr (p1_matrix_fast<PHYS>() && NC == 1) d->p1blk[1] = p1_block_kernel<DIM, NC, PHYS, 1, S>;
}

template <int DIM, typename S>
static void pick_p1_dim(cuda_data *d, int nc, int phys) {
  if (phys == FEINT_PW_ELASTICITY) {
    if (nc == DIM) set_p1<DIM, DIM, FEINT_PW_ELASTICITY, S>(d);
    return;
  }
  if (nc != 1) return;
  switch (phys) {
    case FEINT_PW_POISSON: set_p1<DIM, 1, FEINT_PW_POISSON, S>(d); break;
    case FEINT_PW_MASS: set_p1<DIM, 1, FEINT_PW_MASS, S>(d); break;
    case FEINT_PW_HELMHOLTZ: set_p1<DIM, 1, FEINT_PW_HELMHOLTZ, S>(d); break;
    case FEINT_PW_ADVECTION: set_p1<DIM, 1, FEINT_PW_ADVECTION, S>(d); break;
    case FEINT_PW_DIFFUSION: set_p1<DIM, 1, FEINT_PW_DIFFUSION, S>(d); break;
    default: break;
  }
}

void pick_p1(cuda_data *d, int dim, int nc, int phys) {
  if (dim == 2)
    d->single ? pick_p1_dim<2, float>(d, nc, phys) : pick_p1_dim<2, double>(d, nc, phys);
  else
    d->single ? pick_p1_dim<3, float>(d, nc, phys) : pick_p1_dim<3, double>(d, nc, phys);
}
