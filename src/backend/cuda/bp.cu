/* BP operators on the GPU (include/feint/bp.h): y = A x on order-N GLL
 * hexahedra, after Swirydowicz, Chalmers, Karakus, Warburton.
 *
 * Three kernel families, selectable by feint_bp_gpu_set_variant (the
 * default picks per kind, order and geometry mode from the H100
 * measurements in docs/perf/bp-operators.md; a binary holds each
 * (kind, geometry, order)'s default only unless built with make
 * EXPERIMENTS=1):
 *  - layered kernels (variants 1, 2; described here),
 *  - staged kernels (3, 4; see "staged kernels" below),
 *  - the tiled BP1.0 (5; see "tiled BP1.0"),
 *  - line kernels, register-blocked (6, 7 with less shared memory, 8 and 9
 *    BP1.0 with w|J| from global memory, 9 in even-odd form; see "line
 *    kernels" and the line mass kernel's MODE).
 *
 * Thread structure of the layered kernels. A thread block takes NE cells
 * (NE = max(1, 256 / Q^2): one cell per block from N = 15 on (Q^2 >= 256
 * for BP1.0/BP3.0 from N = 14), several for small N so that a block
 * still has >= 128 threads), with Q x Q threads per cell (threadIdx.x = the
 * (a, b) position in a layer, threadIdx.y = the cell) that loop over the
 * third direction. Each thread keeps its column (the values at all c for
 * its (a, b)) in registers, so derivatives and interpolation along t are
 * register-only; along r and s the layer goes through shared memory (rows
 * padded to an odd stride against bank conflicts). The 1D matrices (B,
 * Dq) and the points/weights live in shared memory; every loop over a
 * direction is unrolled (N is a template parameter) so register arrays are
 * indexed by constants.
 *
 *   BP3.5 (collocated GLL, Q = P): per layer k two barriers: the layer of x
 *     into shared, r/s/t derivatives, G applied (stored: 7 coalesced loads
 *     per point; recomputed: feint_bp_hex_geometry from the 24 vertex
 *     coordinates in shared), G ur into a shared layer, the t part of Dq^T
 *     accumulated into the register column, then the r/s parts of Dq^T from
 *     the shared layers.
 *   BP1.0 (GL, Q = N + 2): x into shared (P^3), B along r (shared), along s
 *     (into registers), along t (registers), times w|J|, B^T along t
 *     (registers), B^T along s and r through shared. Three barriers.
 *   BP3.0: the interpolation of BP1.0, the BP3.5 layer loop on the Q^3 GL
 *     grid with the collocation derivative Dq, the transpose interpolation.
 *
 * Gather/scatter: each thread reads its column's P dof indices once into
 * registers, gathers x through them and adds its P results into y with
 * atomicAdd (double atomics resolve in L2, where the neighbouring cells'
 * shared dofs also hit), y zeroed first by cudaMemsetAsync. (Zeroing y
 * piece by piece, so that the zeroed lines were still in L2 when the
 * atomics came, measured slower at every order and kind and was removed:
 * docs/perf/bp-operators.md.)
 *
 * Split numbering (feint_bp_gpu_set_numbering, feint_bp_dofmap_split): the
 * device works in a numbering with the shared dofs (vertices, edges,
 * faces) first and each cell's own interior dofs as one contiguous run
 * after them; the line kernels then store into own dofs with plain stores
 * (y_add), so that only [0, n_shared) is zeroed and added into
 * atomically; the other kernels zero all of y and add as before.
 * feint_bp_gpu_apply permutes x in and y out (permute_kernel). */
#include <cuda_runtime.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <type_traits>
#include <vector>

extern "C" {
#include "feint/bp.h"
#include "feint/error.h"
}
#include "backend/cuda/common.cuh"
#include "backend/cuda/tuning.h"
#include "backend/cuda/families.h"
#include "backend/cuda/cuda_timing.h"

struct feint_bp_gpu {
  feint_bp_kind kind;
  feint_bp_geo_mode mode;
  int P, Q, ngeo, device;
  int variant; /* feint_bp_gpu_set_variant */
  double lambda;
  int64_t n_cells, n_dofs;
  int *dofs;
  double *xe, *geo, *tab, *x, *y;
  double *htab; /* host copy of tab: the staged kernels take it as a parameter */
  const feint_bp_dofmap *dofmap; /* the op's: the user's numbering */
  /* split numbering (feint_bp_gpu_set_numbering): dofs holds split's map,
   * perm (device) the user's dof of each internal one; x and y on the
   * device are in the internal numbering; NULL both: the user's */
  feint_bp_dofmap *split;
  int32_t *perm;
  int64_t n_shared; /* the line kernels store into dofs >= n_shared (n_dofs: none) */
};

/* Table layout in device memory (doubles): B (Q x P), Dq (Q x Q), points (Q),
 * weights (Q). */
static inline int tab_size(int P, int Q) { return Q * P + Q * Q + 2 * Q; }

template <int Q>
struct ne_of {
  static constexpr int value = (256 / (Q * Q)) > 1 ? 256 / (Q * Q) : 1;
};

/* Load tables and cell vertex coordinates into shared memory. */
__device__ inline void load_tables(const double *tab, double *s_tab, int n, int tid, int nthreads) {
  for (int k = tid; k < n; k += nthreads) s_tab[k] = tab[k];
}

/* The NG stored factors of one point: factor c at geo[at + c * STRIDE]
 * (zeros for a padding cell past the end). */
template <int NG, int STRIDE>
__device__ inline void stored_factors(const double *__restrict__ geo, int64_t at, bool live, double *g) {
#pragma unroll
  for (int c = 0; c < NG; c++) g[c] = live ? __ldg(geo + at + (int64_t)c * STRIDE) : 0.0;
}

/* The seven factors at point (a, b, c) of the tensor grid with points pts
 * and weights w, from the cell's vertex coordinates xe. */
__device__ inline void point_geometry(const double *xe, const double *pts, const double *w, int a, int b, int c,
                                      double *g) {
  feint_bp_hex_geometry(xe, pts[a], pts[b], pts[c], w[a] * w[b] * w[c], g);
}

/* w|J| at point (a, b, c), as above. */
__device__ inline double point_wJ(const double *xe, const double *pts, const double *w, int a, int b, int c) {
  double g[7];
  point_geometry(xe, pts, w, a, b, c, g);
  return g[6];
}

/* (Gr, Gs, Gt) = G (qr, qs, qt), G symmetric from g = (G00 G01 G02 G11 G12 G22). */
__device__ inline void apply_G(const double *g, double qr, double qs, double qt, double *Gr, double *Gs,
                               double *Gt) {
  *Gr = g[0] * qr + g[1] * qs + g[2] * qt;
  *Gs = g[1] * qr + g[3] * qs + g[4] * qt;
  *Gt = g[2] * qr + g[4] * qs + g[5] * qt;
}

/* A layer's reference derivatives along r and s at (a, b): the layer q
 * (row stride S) against the rows of Dq for a and b, da[m] and db[m]. */
template <int M>
__device__ __forceinline__ void layer_grad(const double *q, int S, int a, int b, const double *da, const double *db,
                                           double *qr, double *qs) {
  double r = 0, s = 0;
#pragma unroll
  for (int m = 0; m < M; m++) {
    r += da[m] * q[b * S + m];
    s += db[m] * q[m * S + a];
  }
  *qr = r;
  *qs = s;
}

/* Its transpose at (a, b): sum_m Dq[m][a] Gr[b][m] + Dq[m][b] Gs[m][a], the
 * columns of Dq at dta[m dts] and dtb[m dts]. */
template <int M>
__device__ __forceinline__ double layer_grad_t(const double *Gr, const double *Gs, int S, int a, int b,
                                               const double *dta, const double *dtb, int dts) {
  double acc = 0;
#pragma unroll
  for (int m = 0; m < M; m++) acc += dta[m * dts] * Gr[b * S + m] + dtb[m * dts] * Gs[m * S + a];
  return acc;
}

/* ------------------------------------------------------------ BP3.5 */

template <int P, bool RECOMPUTE, bool PREFETCH>
__global__ void __launch_bounds__(P * P * ne_of<P>::value)
bp35_kernel(int64_t n_cells, const int *__restrict__ dofs, const double *__restrict__ x,
            const double *__restrict__ geo, const double *__restrict__ xe, const double *__restrict__ tab,
            double lambda, double *__restrict__ y) {
  constexpr int NE = ne_of<P>::value, P2 = P * P, P3 = P2 * P, S = P + 1; /* padded stride */
  __shared__ double s_D[P * S], s_pts[P], s_w[P];
  __shared__ double s_q[NE][P * S], s_Gr[NE][P * S], s_Gs[NE][P * S], s_xe[NE][24];
  const int tid = threadIdx.x, el = threadIdx.y, nthr = P2 * NE, ltid = tid + P2 * el;
  for (int k = ltid; k < P * P; k += nthr) s_D[(k / P) * S + k % P] = tab[P * P + k];
  for (int k = ltid; k < P; k += nthr) {
    s_pts[k] = tab[2 * P * P + k];
    s_w[k] = tab[2 * P * P + P + k];
  }
  const int64_t e = (int64_t)blockIdx.x * NE + el;
  const bool live = e < n_cells;
  if (RECOMPUTE && live)
    for (int k = tid; k < 24; k += P2) s_xe[el][k] = xe[24 * e + k];
  const int i = tid % P, j = tid / P;
  int r_idx[P];
  double r_q[P], r_A[P];
#pragma unroll
  for (int k = 0; k < P; k++) {
    r_idx[k] = live ? dofs[e * P3 + k * P2 + tid] : 0;
    r_A[k] = 0;
  }
#pragma unroll
  for (int k = 0; k < P; k++) r_q[k] = live ? x[r_idx[k]] : 0;
  __syncthreads();
  /* The rows and columns of D this thread uses, in registers: only the
   * layer values then come from shared memory (the t direction's D[k][m] is
   * uniform over the block, a broadcast). */
  double Di[P], Dj[P], DTi[P], DTj[P];
#pragma unroll
  for (int m = 0; m < P; m++) {
    Di[m] = s_D[i * S + m];
    Dj[m] = s_D[j * S + m];
    DTi[m] = s_D[m * S + i];
    DTj[m] = s_D[m * S + j];
  }
  /* Stored factors with PREFETCH: layer k+1's seven loads are issued at the
   * top of layer k, so their latency hides behind its barriers and math. */
  double g_next[7];
  if (!RECOMPUTE && PREFETCH) stored_factors<7, P3>(geo, e * 7 * P3 + tid, live, g_next);
#pragma unroll
  for (int k = 0; k < P; k++) {
    double g[7];
    if (!RECOMPUTE && PREFETCH) {
#pragma unroll
      for (int c = 0; c < 7; c++) g[c] = g_next[c];
      if (k + 1 < P) stored_factors<7, P3>(geo, e * 7 * P3 + (k + 1) * P2 + tid, live, g_next);
    }
    s_q[el][j * S + i] = r_q[k];
    __syncthreads();
    double qr, qs, qt = 0;
    layer_grad<P>(s_q[el], S, i, j, Di, Dj, &qr, &qs);
#pragma unroll
    for (int m = 0; m < P; m++) qt += s_D[k * S + m] * r_q[m];
    if (RECOMPUTE)
      point_geometry(s_xe[el], s_pts, s_w, i, j, k, g);
    else if (!PREFETCH)
      stored_factors<7, P3>(geo, e * 7 * P3 + k * P2 + tid, live, g);
    double Gt;
    apply_G(g, qr, qs, qt, &s_Gr[el][j * S + i], &s_Gs[el][j * S + i], &Gt);
    r_A[k] += lambda * g[6] * r_q[k];
#pragma unroll
    for (int m = 0; m < P; m++) r_A[m] += s_D[k * S + m] * Gt;
    __syncthreads();
    r_A[k] += layer_grad_t<P>(s_Gr[el], s_Gs[el], S, i, j, DTi, DTj, 1);
  }
  if (live) {
#pragma unroll
    for (int k = 0; k < P; k++) atomicAdd(y + r_idx[k], r_A[k]);
  }
}

/* ------------------------------------------------- BP1.0 and BP3.0 */

/* Shared memory per cell (doubles) for the interpolating kernels. */
template <int P, int Q>
struct interp_smem {
  static constexpr int s1 = P * Q * Q, s2 = P * P * Q, layer = Q * (Q + 1);
  static constexpr int per_cell = s1 + s2 + 3 * layer + 24;
  static constexpr int tables = Q * P + Q * (Q + 1) + 2 * Q;
};

template <int P, int Q, bool STIFF, bool RECOMPUTE, bool PREFETCH>
__global__ void __launch_bounds__(Q * Q * ne_of<Q>::value)
interp_kernel(int64_t n_cells, const int *__restrict__ dofs, const double *__restrict__ x,
              const double *__restrict__ geo, const double *__restrict__ xe, const double *__restrict__ tab,
              double lambda, double *__restrict__ y) {
  constexpr int NE = ne_of<Q>::value, P2 = P * P, P3 = P2 * P, Q2 = Q * Q, Q3 = Q2 * Q, S = Q + 1;
  using SM = interp_smem<P, Q>;
  extern __shared__ double smem[];
  double *s_B = smem, *s_D = s_B + Q * P, *s_pts = s_D + Q * S, *s_w = s_pts + Q;
  const int tid = threadIdx.x, el = threadIdx.y, nthr = Q2 * NE, ltid = tid + Q2 * el;
  double *cell = smem + SM::tables + el * SM::per_cell;
  double *s1 = cell, *s2 = s1 + SM::s1, *s_q = s2 + SM::s2, *s_Gr = s_q + SM::layer, *s_Gs = s_Gr + SM::layer,
         *s_xe = s_Gs + SM::layer;
  for (int k = ltid; k < Q * P; k += nthr) s_B[k] = tab[k];
  for (int k = ltid; k < Q * Q; k += nthr) s_D[(k / Q) * S + k % Q] = tab[Q * P + k];
  for (int k = ltid; k < Q; k += nthr) {
    s_pts[k] = tab[Q * P + Q * Q + k];
    s_w[k] = tab[Q * P + Q * Q + Q + k];
  }
  const int64_t e = (int64_t)blockIdx.x * NE + el;
  const bool live = e < n_cells;
  if (RECOMPUTE && live)
    for (int k = tid; k < 24; k += Q2) s_xe[k] = xe[24 * e + k];
  const int a = tid % Q, b = tid / Q;
  const bool node = a < P && b < P; /* this thread also owns GLL column (a, b) */
  /* Rows/columns of B (and Dq) used by this thread go to registers where
   * the register budget allows (RB: B, RD: Dq), so that the inner products
   * read only the data from shared memory. */
  /* Measured on the H100 (NOTES in the report): B in registers did not pay
   * (BP1.0 flat, BP3.0 lost occupancy at N = 3..5); Dq in registers pays for
   * BP3.0 from N = 7 on. */
  constexpr bool RD = STIFF && Q >= 9, RB = false;
  double Ba[RB ? P : 1], Bb[RB ? P : 1], BTa[RB ? Q : 1], BTb[RB ? Q : 1];
  double Da[RD ? Q : 1], Db[RD ? Q : 1], DTa[RD ? Q : 1], DTb[RD ? Q : 1];
  /* Stored factors with PREFETCH: BP1.0 loads its Q w|J| values, BP3.0 the
   * first layer's seven, before the first barrier (latency hidden behind
   * the gather and the interpolation). */
  double g_next[STIFF ? 7 : Q];
  if (!RECOMPUTE && PREFETCH) {
    if (STIFF)
      stored_factors<7, Q3>(geo, e * 7 * Q3 + tid, live, g_next);
    else
      stored_factors<Q, Q2>(geo, e * Q3 + tid, live, g_next);
  }
  int r_idx[P];
#pragma unroll
  for (int k = 0; k < P; k++) r_idx[k] = (live && node) ? dofs[e * P3 + k * P2 + b * P + a] : 0;
  if (node) {
#pragma unroll
    for (int k = 0; k < P; k++) s1[k * P2 + b * P + a] = (live ? x[r_idx[k]] : 0.0);
  }
  __syncthreads();
  if (RB) {
#pragma unroll
    for (int m = 0; m < P; m++) {
      Ba[RB ? m : 0] = s_B[a * P + m];
      Bb[RB ? m : 0] = s_B[b * P + m];
    }
#pragma unroll
    for (int m = 0; m < Q; m++) {
      BTa[RB ? m : 0] = a < P ? s_B[m * P + a] : 0.0;
      BTb[RB ? m : 0] = b < P ? s_B[m * P + b] : 0.0;
    }
  }
  if (RD) {
#pragma unroll
    for (int m = 0; m < Q; m++) {
      Da[RD ? m : 0] = s_D[a * S + m];
      Db[RD ? m : 0] = s_D[b * S + m];
      DTa[RD ? m : 0] = s_D[m * S + a];
      DTb[RD ? m : 0] = s_D[m * S + b];
    }
  }
#define B_A(m) (RB ? Ba[RB ? (m) : 0] : s_B[a * P + (m)])
#define B_B(m) (RB ? Bb[RB ? (m) : 0] : s_B[b * P + (m)])
#define BT_A(m) (RB ? BTa[RB ? (m) : 0] : s_B[(m) * P + a])
#define BT_B(m) (RB ? BTb[RB ? (m) : 0] : s_B[(m) * P + b])
  /* along r: s2[k][j][qa] = sum_i B[qa][i] s1[k][j][i] */
  if (b < P) {
#pragma unroll
    for (int k = 0; k < P; k++) {
      double s = 0;
#pragma unroll
      for (int i = 0; i < P; i++) s += B_A(i) * s1[k * P2 + b * P + i];
      s2[(k * P + b) * Q + a] = s;
    }
  }
  __syncthreads();
  /* along s into registers, then along t */
  double r_t[P], r_u[Q];
#pragma unroll
  for (int k = 0; k < P; k++) {
    double s = 0;
#pragma unroll
    for (int jj = 0; jj < P; jj++) s += B_B(jj) * s2[(k * P + jj) * Q + a];
    r_t[k] = s;
  }
#pragma unroll
  for (int c = 0; c < Q; c++) {
    double s = 0;
#pragma unroll
    for (int k = 0; k < P; k++) s += s_B[c * P + k] * r_t[k];
    r_u[c] = s;
  }
  double r_A[Q];
  if (!STIFF) {
#pragma unroll
    for (int c = 0; c < Q; c++) {
      double wJ;
      if (RECOMPUTE) {
        wJ = point_wJ(s_xe, s_pts, s_w, a, b, c);
      } else if (PREFETCH) {
        wJ = g_next[STIFF ? 0 : c];
      } else {
        wJ = live ? geo[e * Q3 + c * Q2 + tid] : 0.0;
      }
      r_A[c] = wJ * r_u[c];
    }
  } else {
#pragma unroll
    for (int c = 0; c < Q; c++) r_A[c] = 0;
#pragma unroll
    for (int c = 0; c < Q; c++) {
      double g[7];
      if (!RECOMPUTE && PREFETCH) {
#pragma unroll
        for (int k = 0; k < 7; k++) g[k] = g_next[STIFF ? k : 0];
        if (c + 1 < Q) stored_factors<STIFF ? 7 : 1, Q3>(geo, e * 7 * Q3 + (c + 1) * Q2 + tid, live, g_next);
      }
      s_q[b * S + a] = r_u[c];
      __syncthreads();
      double qr, qs, qt = 0;
      layer_grad<Q>(s_q, S, a, b, RD ? Da : s_D + a * S, RD ? Db : s_D + b * S, &qr, &qs);
#pragma unroll
      for (int m = 0; m < Q; m++) qt += s_D[c * S + m] * r_u[m];
      if (RECOMPUTE)
        point_geometry(s_xe, s_pts, s_w, a, b, c, g);
      else if (!PREFETCH)
        stored_factors<7, Q3>(geo, e * 7 * Q3 + c * Q2 + tid, live, g);
      double Gt;
      apply_G(g, qr, qs, qt, &s_Gr[b * S + a], &s_Gs[b * S + a], &Gt);
      r_A[c] += lambda * g[6] * r_u[c];
#pragma unroll
      for (int m = 0; m < Q; m++) r_A[m] += s_D[c * S + m] * Gt;
      __syncthreads();
      r_A[c] += layer_grad_t<Q>(s_Gr, s_Gs, S, a, b, RD ? DTa : s_D + a, RD ? DTb : s_D + b, RD ? 1 : S);
    }
  }
  /* B^T along t (registers), into s1[k][qb][qa] (own column only) */
#pragma unroll
  for (int k = 0; k < P; k++) {
    double s = 0;
#pragma unroll
    for (int c = 0; c < Q; c++) s += s_B[c * P + k] * r_A[c];
    s1[(k * Q + b) * Q + a] = s;
  }
  __syncthreads();
  /* B^T along s: s2[k][j][qa] = sum_qb B[qb][j] s1[k][qb][qa] */
  if (b < P) {
#pragma unroll
    for (int k = 0; k < P; k++) {
      double s = 0;
#pragma unroll
      for (int qb = 0; qb < Q; qb++) s += BT_B(qb) * s1[(k * Q + qb) * Q + a];
      s2[(k * P + b) * Q + a] = s;
    }
  }
  __syncthreads();
  /* B^T along r and scatter */
  if (node && live) {
#pragma unroll
    for (int k = 0; k < P; k++) {
      double s = 0;
#pragma unroll
      for (int qa = 0; qa < Q; qa++) s += BT_A(qa) * s2[(k * P + b) * Q + qa];
      atomicAdd(y + r_idx[k], s);
    }
  }
#undef B_A
#undef B_B
#undef BT_A
#undef BT_B
}

/* ------------------------------------------- staged kernels (variant 3)
 *
 * One template for the three kinds, Q x Q threads per cell (NE cells per
 * block as above), thread (a, b) owning the column of points (a, b, 0..Q-1):
 *  - the 1D tables come as a kernel parameter (bp_tables): indexed by
 *    compile-time constants they are constant-bank operands of the FMAs, so
 *    every contraction along t (uniform over the block) reads no shared
 *    memory; the rows/columns a thread needs along r and s are loaded from
 *    shared into registers once per pass;
 *  - BP1.0/BP3.0 interpolate t first (register column), then r and s
 *    through two shared buffers laid out so that every load of a warp has
 *    at most Q distinct, conflict-free addresses (one wavefront), and back
 *    in the reverse order: four barriers per cell for BP1.0;
 *  - stored factors travel by cp.async into shared memory without holding
 *    registers: BP1.0's whole cell at the start, the seven factors of
 *    BP3.x through a ring of GEO_DEPTH layers (layer c + GEO_DEPTH issued
 *    while layer c is computed), each thread copying and reading only its
 *    own points (so cp.async.wait_group orders them, no barrier). */

template <int P, int Q>
struct bp_tables {
  double B[Q * P], D[Q * Q], pts[Q], w[Q];
};

constexpr int GEO_DEPTH = 3;

/* Interpolation of a GLL column along t (registers, constant tables):
 * out[c oc] = sum_k B[c][k] xk[k]. */
template <int P, int Q>
__device__ __forceinline__ void t_interp(const bp_tables<P, Q> &T, const double *xk, double *out, int oc) {
#pragma unroll
  for (int c = 0; c < Q; c++) {
    double s = 0;
#pragma unroll
    for (int k = 0; k < P; k++) s += T.B[c * P + k] * xk[k];
    out[c * oc] = s;
  }
}

/* 8-byte asynchronous copy global -> shared; zero-filled when !live. */
__device__ inline void async_copy8(double *dst, const double *src, bool live) {
  const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(d), "l"(src), "r"(live ? 8 : 0) : "memory");
}
__device__ inline void async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
__device__ inline void async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

constexpr int odd_stride(int n) { return n % 2 ? n : n + 1; }

/* Shared memory of a staged kernel (doubles). */
template <int P, int Q, int KIND, bool RECOMPUTE>
struct staged_smem {
  static constexpr bool INTERP = KIND != FEINT_BP3_5, STIFF = KIND != FEINT_BP1_0;
  static constexpr int NE = ne_of<Q>::value, SP = odd_stride(P), SQ = odd_stride(Q);
  static constexpr int regA = INTERP ? (Q * P * SP > Q * Q * Q ? Q * P * SP : Q * Q * Q) : 0;
  static constexpr int regB = INTERP ? Q * P * SQ : 0;
  static constexpr int layers = STIFF ? 3 * Q * SQ : 0;
  static constexpr int wJ = (!STIFF && !RECOMPUTE) ? Q * Q * Q : 0;
  static constexpr int per_cell = regA + regB + layers + wJ + (RECOMPUTE ? 24 : 0);
  static constexpr int tables = Q * P + Q * SQ + 2 * Q;
  static constexpr int ring = (STIFF && !RECOMPUTE) ? GEO_DEPTH * 7 * Q * Q * NE : 0;
  static constexpr int total = tables + NE * per_cell + ring;
};

/* Issue the cp.async copies of layer c's seven factors (one group). */
template <int Q>
__device__ inline void issue_layer(const double *__restrict__ geo, int64_t e, bool live, int c, int tid, double *slot,
                                   int nthr) {
  constexpr int Q2 = Q * Q, Q3 = Q2 * Q;
  if (c < Q) {
    const double *src = geo + (live ? e * 7 * Q3 + (int64_t)c * Q2 + tid : 0);
#pragma unroll
    for (int g = 0; g < 7; g++) async_copy8(slot + g * nthr, src + (live ? g * Q3 : 0), live);
  }
  async_commit();
}

/* A row (or column) of a table into registers: B[m] = r[m * stride]. */
template <int M>
__device__ __forceinline__ void load_row(const double *r, int stride, double *B) {
#pragma unroll
  for (int m = 0; m < M; m++) B[m] = r[m * stride];
}

/* One contraction pass through shared memory: for each c, with
 * v_m = in[c ic + m im], out0[c oc] = (f0[c Q^2] or 1) sum_m B0[m] v_m, and
 * out1 likewise from B1 (skipped without out1: the tiled kernel computes
 * two outputs per value read). c runs over 0..Q-1 (FULL, unrolled) or over
 * the half h of that range. */
template <int M, int Q, bool FULL>
__device__ __forceinline__ void contract_pass(const double *B0, const double *B1, const double *in, int ic, int im,
                                              double *out0, double *out1, int oc, const double *f0,
                                              const double *f1, int h) {
  constexpr int HC = (Q + 1) / 2;
  const int c0 = FULL ? 0 : h * HC, c1 = FULL ? Q : ((h + 1) * HC < Q ? (h + 1) * HC : Q);
#pragma unroll
  for (int c = c0; c < c1; c++) {
    double s0 = 0, s1 = 0;
#pragma unroll
    for (int m = 0; m < M; m++) {
      const double v = in[c * ic + m * im];
      s0 += B0[m] * v;
      if (out1) s1 += B1[m] * v;
    }
    out0[c * oc] = f0 ? s0 * f0[c * Q * Q] : s0;
    if (out1) out1[c * oc] = f1 ? s1 * f1[c * Q * Q] : s1;
  }
}

/* RD: the rows and columns of Dq a thread uses held in registers (4 Q
 * doubles: fewer shared loads, but fewer blocks per SM) rather than read
 * from shared memory at every use. */
template <int P, int Q, int KIND, bool RECOMPUTE, bool RD>
__global__ void __launch_bounds__(Q * Q * ne_of<Q>::value)
staged_kernel(int64_t n_cells, const int *__restrict__ dofs, const double *__restrict__ x,
              const double *__restrict__ geo, const double *__restrict__ xe, double lambda, double *__restrict__ y,
              const __grid_constant__ bp_tables<P, Q> T) {
  using SM = staged_smem<P, Q, KIND, RECOMPUTE>;
  constexpr bool INTERP = SM::INTERP, STIFF = SM::STIFF;
  constexpr int NE = SM::NE, SP = SM::SP, SQ = SM::SQ, P2 = P * P, P3 = P2 * P, Q2 = Q * Q, Q3 = Q2 * Q;
  extern __shared__ double smem[];
  double *s_B = smem, *s_D = s_B + Q * P, *s_pts = s_D + Q * SQ, *s_w = s_pts + Q; /* s_D rows padded */
  const int tid = threadIdx.x, el = threadIdx.y, nthr = Q2 * NE, ltid = tid + Q2 * el;
  double *cell = smem + SM::tables + el * SM::per_cell;
  double *regA = cell, *regB = regA + SM::regA, *s_q = regB + SM::regB, *s_Gr = s_q + Q * SQ,
         *s_Gs = s_Gr + Q * SQ, *s_wJ = s_q + SM::layers, *s_xe = s_wJ + SM::wJ;
  double *ring = smem + SM::tables + NE * SM::per_cell + ltid;
  const int64_t e = (int64_t)blockIdx.x * NE + el;
  const bool live = e < n_cells;
  /* the factors' copies first: they fly during the gather and interpolation */
  if (!RECOMPUTE && !STIFF) {
#pragma unroll
    for (int c = 0; c < Q; c++) async_copy8(s_wJ + c * Q2 + tid, geo + (live ? e * Q3 + c * Q2 + tid : 0), live);
    async_commit();
  }
  if (!RECOMPUTE && STIFF) {
#pragma unroll
    for (int c = 0; c < GEO_DEPTH; c++) issue_layer<Q>(geo, e, live, c, tid, ring + c * 7 * nthr, nthr);
  }
  for (int k = ltid; k < Q * P; k += nthr) s_B[k] = T.B[k];
  for (int k = ltid; k < Q * Q; k += nthr) s_D[(k / Q) * SQ + k % Q] = T.D[k];
  for (int k = ltid; k < Q; k += nthr) {
    s_pts[k] = T.pts[k];
    s_w[k] = T.w[k];
  }
  if (RECOMPUTE && live)
    for (int k = tid; k < 24; k += Q2) s_xe[k] = xe[24 * e + k];
  const int a = tid % Q, b = tid / Q;
  const bool node = a < P && b < P; /* thread (a, b) also owns GLL column (a, b) */
  int r_idx[P];
#pragma unroll
  for (int k = 0; k < P; k++) r_idx[k] = (live && node) ? dofs[e * P3 + k * P2 + b * P + a] : 0;
  double u[Q]; /* the column at the points */
  if (!INTERP) {
#pragma unroll
    for (int k = 0; k < P; k++) u[k] = live ? x[r_idx[k]] : 0.0;
  } else {
    double xk[P];
#pragma unroll
    for (int k = 0; k < P; k++) xk[k] = (live && node) ? x[r_idx[k]] : 0.0;
    if (node) t_interp<P, Q>(T, xk, regA + b * SP + a, P * SP); /* regA[c][j][i] */
  }
  __syncthreads(); /* tables, xe, and regA */
  if (INTERP) {
    /* along r: regB[c][j][a] = sum_i B[a][i] regA[c][j][i] */
    if (b < P) {
      double Ba[P];
      load_row<P>(s_B + a * P, 1, Ba);
      contract_pass<P, Q, true>(Ba, Ba, regA + b * SP, P * SP, 1, regB + b * SQ + a, nullptr, P * SQ, nullptr,
                                nullptr, 0);
    }
    __syncthreads();
    /* along s: u[c] = sum_j B[b][j] regB[c][j][a] */
    double Bb[P];
    load_row<P>(s_B + b * P, 1, Bb);
    contract_pass<P, Q, true>(Bb, Bb, regB + a, P * SQ, SQ, u, nullptr, 1, nullptr, nullptr, 0);
  }
  double r_A[Q];
  if (!STIFF) {
    if (!RECOMPUTE) async_wait<0>();
#pragma unroll
    for (int c = 0; c < Q; c++) r_A[c] = (RECOMPUTE ? point_wJ(s_xe, s_pts, s_w, a, b, c) : s_wJ[c * Q2 + tid]) * u[c];
  } else {
    constexpr int NR = RD ? Q : 1;
    double Da[NR], Db[NR], DTa[NR], DTb[NR];
#pragma unroll
    for (int m = 0; m < Q; m++) {
      if (RD) {
        Da[RD ? m : 0] = s_D[a * SQ + m];
        Db[RD ? m : 0] = s_D[b * SQ + m];
        DTa[RD ? m : 0] = s_D[m * SQ + a];
        DTb[RD ? m : 0] = s_D[m * SQ + b];
      }
      r_A[m] = 0;
    }
#pragma unroll
    for (int c = 0; c < Q; c++) {
      double g[7];
      if (!RECOMPUTE) async_wait<GEO_DEPTH - 1>(); /* this thread's copies of layer c landed */
      s_q[b * SQ + a] = u[c];
      __syncthreads();
      double qr, qs, qt = 0;
      layer_grad<Q>(s_q, SQ, a, b, RD ? Da : s_D + a * SQ, RD ? Db : s_D + b * SQ, &qr, &qs);
#pragma unroll
      for (int m = 0; m < Q; m++) qt += T.D[c * Q + m] * u[m];
      if (RECOMPUTE) {
        point_geometry(s_xe, s_pts, s_w, a, b, c, g);
      } else {
#pragma unroll
        for (int k = 0; k < 7; k++) g[k] = ring[((c % GEO_DEPTH) * 7 + k) * nthr];
      }
      double Gt;
      apply_G(g, qr, qs, qt, &s_Gr[b * SQ + a], &s_Gs[b * SQ + a], &Gt);
      r_A[c] += lambda * g[6] * u[c];
#pragma unroll
      for (int m = 0; m < Q; m++) r_A[m] += T.D[c * Q + m] * Gt;
      __syncthreads();
      if (!RECOMPUTE) /* slot c % GEO_DEPTH was read before the barrier */
        issue_layer<Q>(geo, e, live, c + GEO_DEPTH, tid, ring + (c % GEO_DEPTH) * 7 * nthr, nthr);
      r_A[c] += layer_grad_t<Q>(s_Gr, s_Gs, SQ, a, b, RD ? DTa : s_D + a, RD ? DTb : s_D + b, RD ? 1 : SQ);
    }
  }
  if (!INTERP) {
    if (live) {
#pragma unroll
      for (int k = 0; k < P; k++) atomicAdd(y + r_idx[k], r_A[k]);
    }
  } else {
    /* back: regA[c][b][a] = r_A[c] (regA's last readers passed the barrier
     * before the s pass) */
#pragma unroll
    for (int c = 0; c < Q; c++) regA[(c * Q + b) * Q + a] = r_A[c];
    __syncthreads();
    /* B^T along s: regB[c][j][a] = sum_qb B[qb][j] regA[c][qb][a] */
    if (b < P) {
      double BTj[Q];
      load_row<Q>(s_B + b, P, BTj);
      contract_pass<Q, Q, true>(BTj, BTj, regA + a, Q * Q, Q, regB + b * SQ + a, nullptr, P * SQ, nullptr, nullptr,
                                0);
    }
    __syncthreads();
    /* B^T along r, then along t (registers, constant tables), and scatter */
    if (node && live) {
      double BTi[Q], w[Q];
      load_row<Q>(s_B + a, P, BTi);
      contract_pass<Q, Q, true>(BTi, BTi, regB + b * SQ, P * SQ, 1, w, nullptr, 1, nullptr, nullptr, 0);
#pragma unroll
      for (int k = 0; k < P; k++) {
        double s = 0;
#pragma unroll
        for (int c = 0; c < Q; c++) s += T.B[c * P + k] * w[c];
        atomicAdd(y + r_idx[k], s);
      }
    }
  }
}

/* ------------------------------------------- tiled BP1.0 (variant 5)
 *
 * Shared memory returns one 32-bit register per thread and cycle (a double
 * costs a warp two wavefronts, whatever the addresses), so the staged BP1.0
 * is bound by the values its passes read from shared memory. Here the
 * passes along r and s and their transposes are tiled: a work item computes
 * two outputs (two rows of B in registers) from every value it reads, and
 * the c range is split in two halves so that the Q x Q threads still have
 * work. Gather and the contraction along t as in the staged kernel; the
 * last pass (B^T along r, then t) handles two GLL columns per item, with
 * their dof indices read again from the (cached) dof map. */

template <int P, int Q>
struct tiled_smem {
  static constexpr int NE = ne_of<Q>::value, SP = odd_stride(P), SQ = odd_stride(Q);
  static constexpr int regA = Q * P * SP > Q * Q * Q ? Q * P * SP : Q * Q * Q;
  static constexpr int regB = Q * P * SQ;
  static constexpr int per_cell = regA + regB + Q * Q * Q;
  static constexpr int tables = Q * P;
  static constexpr int total = tables + NE * per_cell;
};

template <int P, int Q>
__global__ void __launch_bounds__(Q * Q * ne_of<Q>::value)
tiled_mass_kernel(int64_t n_cells, const int *__restrict__ dofs, const double *__restrict__ x,
                  const double *__restrict__ geo, double *__restrict__ y, const __grid_constant__ bp_tables<P, Q> T) {
  using SM = tiled_smem<P, Q>;
  constexpr int NE = SM::NE, SP = SM::SP, SQ = SM::SQ, P2 = P * P, P3 = P2 * P, Q2 = Q * Q, Q3 = Q2 * Q;
  constexpr int HQ = (Q + 1) / 2, HP = (P + 1) / 2; /* pairs of outputs */
  extern __shared__ double smem[];
  double *s_B = smem;
  const int tid = threadIdx.x, el = threadIdx.y, nthr = Q2 * NE, ltid = tid + Q2 * el;
  double *regA = smem + SM::tables + el * SM::per_cell, *regB = regA + SM::regA, *s_wJ = regB + SM::regB;
  const int64_t e = (int64_t)blockIdx.x * NE + el;
  const bool live = e < n_cells;
#pragma unroll
  for (int c = 0; c < Q; c++) async_copy8(s_wJ + c * Q2 + tid, geo + (live ? e * Q3 + c * Q2 + tid : 0), live);
  async_commit();
  for (int k = ltid; k < Q * P; k += nthr) s_B[k] = T.B[k];
  {
    /* gather and along t (as staged): regA[c][j][i] */
    const int a = tid % Q, b = tid / Q;
    if (a < P && b < P) {
      double xk[P];
#pragma unroll
      for (int k = 0; k < P; k++) xk[k] = live ? x[dofs[e * P3 + k * P2 + b * P + a]] : 0.0;
      t_interp<P, Q>(T, xk, regA + b * SP + a, P * SP);
    }
  }
  __syncthreads();
  /* along r: regB[c][j][a] = sum_i B[a][i] regA[c][j][i], items (a pair, j, c half) */
  for (int it = tid; it < HQ * P * 2; it += Q2) {
    const int p = it % HQ, j = (it / HQ) % P, h = it / (HQ * P), a0 = 2 * p, a1 = a0 + 1;
    double B0[P], B1[P];
    load_row<P>(s_B + a0 * P, 1, B0);
    load_row<P>(s_B + (a1 < Q ? a1 : a0) * P, 1, B1); /* unused past the end */
    contract_pass<P, Q, false>(B0, B1, regA + j * SP, P * SP, 1, regB + j * SQ + a0,
                               a1 < Q ? regB + j * SQ + a1 : nullptr, P * SQ, nullptr, nullptr, h);
  }
  async_wait<0>(); /* w|J| of the cell: every thread's copies, visible after the barrier */
  __syncthreads();
  /* along s, times w|J|: regA[c][b][a] = wJ sum_j B[b][j] regB[c][j][a], items (b pair, a, c half) */
  for (int it = tid; it < HQ * Q * 2; it += Q2) {
    const int q = it % HQ, a = (it / HQ) % Q, h = it / (HQ * Q), b0 = 2 * q, b1 = b0 + 1;
    double B0[P], B1[P];
    load_row<P>(s_B + b0 * P, 1, B0);
    load_row<P>(s_B + (b1 < Q ? b1 : b0) * P, 1, B1);
    contract_pass<P, Q, false>(B0, B1, regB + a, P * SQ, SQ, regA + b0 * Q + a,
                               b1 < Q ? regA + b1 * Q + a : nullptr, Q2, s_wJ + b0 * Q + a,
                               s_wJ + (b1 < Q ? b1 : b0) * Q + a, h);
  }
  __syncthreads();
  /* B^T along s: regB[c][j][a] = sum_b B[b][j] regA[c][b][a], items (j pair, a, c half) */
  for (int it = tid; it < HP * Q * 2; it += Q2) {
    const int q = it % HP, a = (it / HP) % Q, h = it / (HP * Q), j0 = 2 * q, j1 = j0 + 1;
    double B0[Q], B1[Q];
    load_row<Q>(s_B + j0, P, B0);
    load_row<Q>(s_B + (j1 < P ? j1 : j0), P, B1);
    contract_pass<Q, Q, false>(B0, B1, regA + a, Q2, Q, regB + j0 * SQ + a,
                               j1 < P ? regB + j1 * SQ + a : nullptr, P * SQ, nullptr, nullptr, h);
  }
  __syncthreads();
  /* B^T along r, then along t (constant tables), scatter: items (i pair, j) */
  for (int it = tid; it < HP * P && live; it += Q2) {
    const int q = it % HP, j = it / HP, i0 = 2 * q, i1 = i0 + 1;
    double w0[Q], w1[Q];
    {
      double B0[Q], B1[Q];
      load_row<Q>(s_B + i0, P, B0);
      load_row<Q>(s_B + (i1 < P ? i1 : i0), P, B1);
      contract_pass<Q, Q, true>(B0, B1, regB + j * SQ, P * SQ, 1, w0, w1, 1, nullptr, nullptr, 0);
    }
    const int *d = dofs + e * P3 + j * P;
#pragma unroll
    for (int k = 0; k < P; k++) {
      double s0 = 0, s1 = 0;
#pragma unroll
      for (int c = 0; c < Q; c++) {
        s0 += T.B[c * P + k] * w0[c];
        s1 += T.B[c * P + k] * w1[c];
      }
      atomicAdd(y + __ldg(d + k * P2 + i0), s0);
      if (i1 < P) atomicAdd(y + __ldg(d + k * P2 + i1), s1);
    }
  }
}

/* ------------------------------------------- line kernels (variant 6)
 *
 * Register blocking of the contractions: every pass gives each thread a
 * whole line of points along the direction it contracts, read once from
 * shared memory (or from the gather) into registers, contracted there
 * against the constant tables (constant-bank FMA operands: indices known
 * at compile time) into all of the line's outputs, and written back once.
 * A value read from shared memory so feeds Q (or P) FMAs instead of one:
 * BP1.0 reads 2 (Q P^2 + Q^2 P) + Q^3 doubles per cell from shared memory
 * (N = 7: 3177), the staged kernel 2 (Q^2 P^2 + Q^3 P) (22032) plus
 * table rows (Nsight, N = 7: 115 against 909 shared loads per cell).
 *
 * Layouts: a buffer written by one set of lines and read by another keeps
 * the index both passes share fastest across the lanes, and the other
 * strides are padded (odd row strides, layer strides = P mod 16 doubles)
 * so that 16 consecutive lanes (one wavefront of 8-byte accesses) mostly
 * hit distinct banks.
 *
 * Interpolating kernels (BP1.0, BP3.0; Q x Q threads per cell, NE cells
 * per block), X(c, j, i) = X[c SX + j P + i], Y(c, b, i) = Y[c SY + b SP + i]:
 *  1 columns (i, j): gather x, interpolate along t        -> X(c, j, i)
 *  2 lines (c, i):   along s                              -> Y(c, b, i)
 *  3 lines (c, b):   along r; BP1.0: times w|J| (copied asynchronously
 *                    into W at the start) and B^T along r, in registers,
 *                    -> Y(c, b, i); BP3.0: -> U(c, b, a) and the middle below
 *  4 lines (c, i):   B^T along s                          -> X(c, j, i)
 *  5 columns (i, j): B^T along t, atomicAdd into y.
 * Stiffness middle (BP3.5 on the GLL grid after its gather, BP3.0 on the GL
 * grid), U(c, b, a) = U[c SC + b SR + a]: lines along r and s give u_r and
 * u_s (UR, US); columns take u_t in registers, G (factors by cp.async
 * through a ring, as in the staged kernels) and Dq^T along t, leaving G r
 * and G s in UR and US; lines apply Dq^T along r and s in place. */

/* pad16(n, r): the least m >= n with m = r (mod 16). */
constexpr int pad16(int n, int r) { return n + ((r - n) % 16 + 16) % 16; }

/* Blocks per SM the line kernels ask ptxas for (__launch_bounds__): as
 * many as leave it 128 registers a thread (left alone, it took 254 for
 * BP3.0 at N = 7, one block of 243 threads per SM). */
template <int Q>
struct line_blocks {
  static constexpr int threads = (Q * Q * ne_of<Q>::value + 31) / 32 * 32;
  static constexpr int value = 65536 / (128 * threads) > 1 ? 65536 / (128 * threads) : 1;
};

/* The line kernels' tables: NB copies of B (Q x P) and ND of Dq (Q x Q),
 * one for each pass that reads them, so that no table value is shared
 * between passes and every use stays a constant-bank operand of its FMA.
 * With one copy the compiler loaded each value once into a register kept
 * across the passes (BP3.5 at N = 7: 196 registers, BP3.0 254 and
 * spilling). */
template <int P, int Q, int NB, int ND>
struct line_tables {
  double B[NB > 0 ? NB : 1][Q * P], D[ND > 0 ? ND : 1][Q * Q];
};

/* out[r] = sum_k M[r][k] in[k], M an R x K row-major table (TRANS: M is
 * K x R and out[r] = sum_k M[k][r] in[k]). */
template <int R, int K, bool TRANS, int N>
__device__ __forceinline__ void line_matvec(const double (&M)[N], const double *in, double *out) {
#pragma unroll
  for (int r = 0; r < R; r++) {
    double s = 0;
#pragma unroll
    for (int k = 0; k < K; k++) s += (TRANS ? M[k * R + r] : M[r * K + k]) * in[k];
    out[r] = s;
  }
}

/* Interpolation along a line (B, Q x P), its transpose, and the collocation
 * derivative (Dq, Q x Q; TRANS: Dq^T). */
template <int P, int Q>
__device__ __forceinline__ void b_line(const double (&B)[Q * P], const double *in, double *out) {
  line_matvec<Q, P, false>(B, in, out);
}
template <int P, int Q>
__device__ __forceinline__ void bt_line(const double (&B)[Q * P], const double *in, double *out) {
  line_matvec<P, Q, true>(B, in, out);
}
template <int Q, bool TRANS>
__device__ __forceinline__ void d_line(const double (&D)[Q * Q], const double *in, double *out) {
  line_matvec<Q, Q, TRANS>(D, in, out);
}

/* Even-odd form of an R x K matrix M with M[R-1-r][K-1-k] = M[r][k] (B and
 * B^T: the GLL and GL points are symmetric about 0). With e_k = in[k] +
 * in[K-1-k] and o_k = in[k] - in[K-1-k] (k < K/2), and e_{K/2} the middle
 * value when K is odd, out[r] = E[r] + O[r] and out[R-1-r] = E[r] - O[r]
 * (the middle row, R odd: E alone), E[r] = sum_k E(r, k) e_k, O[r] =
 * sum_k O(r, k) o_k, where E(r, k) = (M[r][k] + M[r][K-1-k]) / 2 (the middle
 * column: M[r][K/2]) and O(r, k) = (M[r][k] - M[r][K-1-k]) / 2: about half
 * the multiplications of the plain product, plus K + R additions. */
template <int R, int K>
struct sym_table {
  static constexpr int HR = R / 2, HK = K / 2, KE = HK + K % 2, RE = HR + R % 2;
  double E[RE * KE], O[HR * HK];
};

template <int R, int K>
__device__ __forceinline__ void sym_matvec(const sym_table<R, K> &M, const double *in, double *out) {
  using S = sym_table<R, K>;
  double e[S::KE], o[S::HK];
#pragma unroll
  for (int k = 0; k < S::HK; k++) {
    e[k] = in[k] + in[K - 1 - k];
    o[k] = in[k] - in[K - 1 - k];
  }
  if (K % 2) e[S::KE - 1] = in[S::HK];
#pragma unroll
  for (int r = 0; r < S::RE; r++) {
    double E = 0, O = 0;
#pragma unroll
    for (int k = 0; k < S::KE; k++) E += M.E[r * S::KE + k] * e[k];
    if (r < S::HR) {
#pragma unroll
      for (int k = 0; k < S::HK; k++) O += M.O[r * S::HK + k] * o[k];
      out[r] = E + O;
      out[R - 1 - r] = E - O;
    } else {
      out[r] = E; /* the middle row */
    }
  }
}

/* The even-odd tables of M (R x K, row-major; TRANS: M is K x R and the
 * table is that of its transpose). */
template <int R, int K, bool TRANS>
static void fill_sym_table(const double *M, sym_table<R, K> *T) {
  using S = sym_table<R, K>;
  auto m = [&](int r, int k) { return TRANS ? M[k * R + r] : M[r * K + k]; };
  for (int r = 0; r < S::RE; r++) {
    for (int k = 0; k < S::HK; k++) T->E[r * S::KE + k] = 0.5 * (m(r, k) + m(r, K - 1 - k));
    if (K % 2) T->E[r * S::KE + S::HK] = m(r, S::HK);
  }
  for (int r = 0; r < S::HR; r++)
    for (int k = 0; k < S::HK; k++) T->O[r * S::HK + k] = 0.5 * (m(r, k) - m(r, K - 1 - k));
}

/* b_line and bt_line in even-odd form (B: Q x P, B^T: P x Q). */
template <int P, int Q>
__device__ __forceinline__ void b_line(const sym_table<Q, P> &B, const double *in, double *out) {
  sym_matvec<Q, P>(B, in, out);
}
template <int P, int Q>
__device__ __forceinline__ void bt_line(const sym_table<P, Q> &BT, const double *in, double *out) {
  sym_matvec<P, Q>(BT, in, out);
}

/* The line mass kernel's tables in even-odd form, one copy per pass as in
 * line_tables: B[k] for passes 1, 2, 3 (B), BT[k] for 3, 4, 5 (B^T). */
template <int P, int Q>
struct line_sym_tables {
  sym_table<Q, P> B[3];
  sym_table<P, Q> BT[3];
};

/* A line of M doubles (stride S) between shared memory and registers. */
template <int M, int S>
__device__ __forceinline__ void line_load(const double *p, double *v) {
#pragma unroll
  for (int m = 0; m < M; m++) v[m] = p[m * S];
}
template <int M, int S>
__device__ __forceinline__ void line_store(double *p, const double *v) {
#pragma unroll
  for (int m = 0; m < M; m++) p[m * S] = v[m];
}

/* Strides of the interpolating kernels' buffers X and Y (doubles). */
template <int P, int Q>
struct line_strides {
  static constexpr int SP = odd_stride(P), SX = pad16(P * P, P), SY = pad16(SP * Q, P);
  static constexpr int X = Q * SX, Y = Q * SY;
};

/* Passes 1 and 2 (then a barrier): the cell's x (dof map d) interpolated
 * along t into X (table B0), then along s into Y (B1). */
template <int P, int Q, class TB>
__device__ __forceinline__ void line_interp_ts(const TB &B0, const TB &B1, const int *__restrict__ d,
                                               const double *__restrict__ x, bool live, int tid, double *X,
                                               double *Y) {
  using L = line_strides<P, Q>;
  constexpr int P2 = P * P;
  if (tid < P2) { /* column (i, j) = tid */
    double xk[P], u[Q];
#pragma unroll
    for (int k = 0; k < P; k++) xk[k] = live ? x[__ldg(d + k * P2 + tid)] : 0.0;
    b_line<P, Q>(B0, xk, u);
    line_store<Q, L::SX>(X + tid, u);
  }
  __syncthreads();
  if (tid < Q * P) { /* line (c, i) */
    const int i = tid % P, c = tid / P;
    double v[P], u[Q];
    line_load<P, P>(X + c * L::SX + i, v);
    b_line<P, Q>(B1, v, u);
    line_store<Q, L::SP>(Y + c * L::SY + i, u);
  }
}

/* y[dof] += v for the line kernels: atomically into a shared dof; a
 * plain store into a dof >= n_shared, the cell's own under the split
 * numbering (feint_bp_dofmap_split: written by this cell alone, so y there
 * is neither zeroed nor read). n_shared = n_dofs: atomics only. */
__device__ __forceinline__ void y_add(double *__restrict__ y, int dof, int n_shared, double v) {
  if (dof < n_shared)
    atomicAdd(y + dof, v);
  else
    y[dof] = v;
}

/* Passes 4 and 5 (after a barrier): B^T along s (table BT0) from
 * Z(c, b, i) = Z[c ZC + b ZS + i] into X, barrier, B^T along t (BT1) and
 * added into y (y_add). */
template <int P, int Q, int ZC, int ZS, class TB>
__device__ __forceinline__ void line_scatter_ts(const TB &BT0, const TB &BT1, const int *__restrict__ d, bool live,
                                                int tid, const double *Z, double *X, double *__restrict__ y,
                                                int n_shared) {
  using L = line_strides<P, Q>;
  constexpr int P2 = P * P;
  if (tid < Q * P) { /* line (c, i) */
    const int i = tid % P, c = tid / P;
    double v[Q], w[P];
    line_load<Q, ZS>(Z + c * ZC + i, v);
    bt_line<P, Q>(BT0, v, w);
    line_store<P, P>(X + c * L::SX + i, w);
  }
  __syncthreads();
  if (tid < P2 && live) { /* column (i, j) = tid */
    double v[Q], w[P];
    line_load<Q, L::SX>(X + tid, v);
    bt_line<P, Q>(BT1, v, w);
#pragma unroll
    for (int k = 0; k < P; k++) y_add(y, __ldg(d + k * P2 + tid), n_shared, w[k]);
  }
}

/* The line mass kernel's options (MODE, a set of these bits; the variant
 * of each set in line_cfg):
 *  none (variant 6): the cell's w|J| copied into shared memory by cp.async
 *    at the start;
 *  MASS_WG (variant 8): w|J| read from global memory where pass 3 uses it
 *    (Q^3 doubles a cell less of shared memory), ptxas asked for 48
 *    registers a thread, so that a fifth block fits at N = 7;
 *  MASS_WG | MASS_SYM (variant 9): B and B^T applied in even-odd form
 *    (sym_matvec: 28-40% fewer floating-point instructions per line).
 * (A persistent grid whose blocks prefetched the next cells' dof map,
 * w|J| and x into L2 by cp.async.bulk.prefetch read 1.5x the DRAM bytes
 * and was slower at every N; variant 9 with the cell's own w|J|
 * prefetched into L2 before pass 1 was 0.5-2.5 points of copy slower at
 * N = 3..8; both removed: docs/perf/bp-operators.md.) */
enum { MASS_WG = 1, MASS_SYM = 2 };

template <int P, int Q, int MODE>
struct line_mass_smem {
  using L = line_strides<P, Q>;
  static constexpr bool WG = MODE & MASS_WG;
  static constexpr int NE = ne_of<Q>::value, per_cell = L::X + L::Y + (WG ? 0 : Q * Q * Q);
  static constexpr int total = NE * per_cell;
  static constexpr int threads = (Q * Q * NE + 31) / 32 * 32;
  static constexpr int blocks = WG && 65536 / (48 * threads) > line_blocks<Q>::value ? 65536 / (48 * threads)
                                                                                     : line_blocks<Q>::value;
};

/* The line mass kernel's tables: one copy per pass, plain or even-odd. */
template <int P, int Q, int MODE>
using mass_tables_t = typename std::conditional<(MODE & MASS_SYM) != 0, line_sym_tables<P, Q>,
                                                line_tables<P, Q, 6, 0>>::type;

/* Pass k's table (0-2 B, 3-5 B^T) of either layout. */
template <int K, int P, int Q, int NB, int ND>
__device__ __forceinline__ const auto &pass_table(const line_tables<P, Q, NB, ND> &T) {
  return T.B[K];
}
template <int K, int P, int Q>
__device__ __forceinline__ const auto &pass_table(const line_sym_tables<P, Q> &T) {
  if constexpr (K < 3)
    return T.B[K];
  else
    return T.BT[K - 3];
}

template <int P, int Q, int MODE>
__global__ void __launch_bounds__(Q * Q * ne_of<Q>::value, (line_mass_smem<P, Q, MODE>::blocks))
line_mass_kernel(int64_t n_cells, const int *__restrict__ dofs, const double *__restrict__ x,
                 const double *__restrict__ geo, double *__restrict__ y, int n_shared,
                 const __grid_constant__ mass_tables_t<P, Q, MODE> T) {
  using SM = line_mass_smem<P, Q, MODE>;
  using L = line_strides<P, Q>;
  constexpr int P3 = P * P * P, Q2 = Q * Q, Q3 = Q2 * Q;
  constexpr bool WG = SM::WG;
  extern __shared__ double smem[];
  const int tid = threadIdx.x;
  double *X = smem + threadIdx.y * SM::per_cell, *Y = X + L::X, *W = Y + L::Y;
  const int64_t e = (int64_t)blockIdx.x * SM::NE + threadIdx.y;
  const bool live = e < n_cells;
  if constexpr (!WG) {
#pragma unroll
    for (int c = 0; c < Q; c++) async_copy8(W + c * Q2 + tid, geo + (live ? e * Q3 + c * Q2 + tid : 0), live);
    async_commit();
  }
  const int *d = dofs + (live ? e * P3 : 0);
  line_interp_ts<P, Q>(pass_table<0>(T), pass_table<1>(T), d, x, live, tid, X, Y);
  if constexpr (!WG) async_wait<0>(); /* w|J|: every thread's copies, visible after the barrier */
  __syncthreads();
  { /* 3: line (c, b) along r, times w|J|, back */
    const int b = tid % Q, c = tid / Q;
    double v[P], u[Q];
    line_load<P, 1>(Y + c * L::SY + b * L::SP, v);
    b_line<P, Q>(pass_table<2>(T), v, u);
    const double *wj = geo + (live ? e * Q3 : 0) + c * Q2 + b * Q;
#pragma unroll
    for (int a = 0; a < Q; a++) u[a] *= WG ? (live ? __ldg(wj + a) : 0.0) : W[c * Q2 + b * Q + a];
    bt_line<P, Q>(pass_table<3>(T), u, v);
    line_store<P, 1>(Y + c * L::SY + b * L::SP, v);
  }
  __syncthreads();
  line_scatter_ts<P, Q, L::SY, L::SP>(pass_table<4>(T), pass_table<5>(T), d, live, tid, Y, X, y, n_shared);
}

/* The grid buffers of the stiffness middle: U(c, b, a) = U[c SC + b SR + a]. */
template <int Q>
struct grid_strides {
  static constexpr int SR = odd_stride(Q), SC = pad16(SR * Q, Q), G = Q * SC;
};

/* Ring depth (layers of stored factors in flight) of the line stiffness
 * kernels: LEAN ones keep two, to fit a third block per SM. */
template <bool LEAN>
struct line_depth {
  static constexpr int value = LEAN ? 2 : GEO_DEPTH;
};

/* The stiffness middle for the column (a, b) = (tid % Q, tid / Q), whose
 * values u[] at the Q points are in U too (stored before a barrier), with
 * the ring's first line_depth layers issued. On return (after a barrier),
 * acc[c] + UR[p] + US[p] at the column's points p = (c, b, a) is
 * (Dq^T G Dq + lambda w|J|) u there. LEAN (US == U): u_s overwrites u in
 * place, one pass after u_r (one more barrier, one grid buffer less). */
template <int P, int Q, int NB, bool LEAN>
__device__ __forceinline__ void line_stiff_middle(const line_tables<P, Q, NB, 6> &T, const double *__restrict__ geo,
                                                  int64_t e, bool live, double lambda, int tid, double *U,
                                                  double *UR, double *US, double *ring, int nthr, const double *u,
                                                  double *acc) {
  using G = grid_strides<Q>;
  constexpr int SR = G::SR, SC = G::SC, DEPTH = line_depth<LEAN>::value;
  const int a = tid % Q, b = tid / Q, col = a + SR * b;
  { /* lines: r-line (c, b') = (b, a), s-line (c, a') = (b, a) */
    double v[Q], w[Q];
    line_load<Q, 1>(U + b * SC + a * SR, v);
    d_line<Q, false>(T.D[0], v, w);
    line_store<Q, 1>(UR + b * SC + a * SR, w);
    if (LEAN) __syncthreads(); /* every r-line read U */
    line_load<Q, SR>(U + b * SC + a, v);
    d_line<Q, false>(T.D[1], v, w);
    line_store<Q, SR>(US + b * SC + a, w);
  }
  __syncthreads();
  { /* column (a, b): u_t, G, Dq^T along t (accumulated layer by layer) */
    double ut[Q];
    d_line<Q, false>(T.D[2], u, ut);
#pragma unroll
    for (int c = 0; c < Q; c++) acc[c] = 0;
#pragma unroll
    for (int c = 0; c < Q; c++) {
      async_wait<DEPTH - 1>(); /* this thread's copies of layer c landed */
      double g[7];
#pragma unroll
      for (int k = 0; k < 7; k++) g[k] = ring[((c % DEPTH) * 7 + k) * nthr];
      const int p = col + c * SC;
      double gt;
      apply_G(g, UR[p], US[p], ut[c], &UR[p], &US[p], &gt);
      acc[c] += lambda * g[6] * u[c];
#pragma unroll
      for (int m = 0; m < Q; m++) acc[m] += T.D[3][c * Q + m] * gt;
      /* refill slot c % DEPTH: its values were used above */
      issue_layer<Q>(geo, e, live, c + DEPTH, tid, ring + (c % DEPTH) * 7 * nthr, nthr);
    }
  }
  __syncthreads();
  { /* lines: Dq^T along r and s, in place */
    double v[Q], w[Q];
    line_load<Q, 1>(UR + b * SC + a * SR, v);
    d_line<Q, true>(T.D[4], v, w);
    line_store<Q, 1>(UR + b * SC + a * SR, w);
    line_load<Q, SR>(US + b * SC + a, v);
    d_line<Q, true>(T.D[5], v, w);
    line_store<Q, SR>(US + b * SC + a, w);
  }
  __syncthreads();
}

/* Shared memory of the line stiffness kernels: U, then the work area (BP3.0:
 * X and Y of the interpolation, later UR and US; LEAN: UR only), then the
 * ring. */
template <int P, int Q, bool LEAN>
struct line_stiff_smem {
  using G = grid_strides<Q>;
  using L = line_strides<P, Q>;
  static constexpr bool INTERP = P != Q;
  static constexpr int NE = ne_of<Q>::value, grids = LEAN ? 1 : 2;
  static constexpr int work = INTERP && L::X + L::Y > grids * G::G ? L::X + L::Y : grids * G::G;
  static constexpr int per_cell = G::G + work;
  static constexpr int ring = line_depth<LEAN>::value * 7 * Q * Q * NE;
  static constexpr int total = NE * per_cell + ring;
  /* blocks per SM for __launch_bounds__: LEAN as many as shared memory
   * holds, but at least 80 registers a thread */
  static constexpr int threads = (Q * Q * NE + 31) / 32 * 32;
  static constexpr int by_smem = (227 * 1024) / (8 * total + 1024), by_regs = 65536 / (80 * threads);
  static constexpr int lean_blocks = by_smem < by_regs ? by_smem : by_regs;
  static constexpr int blocks = LEAN && lean_blocks > line_blocks<Q>::value ? lean_blocks : line_blocks<Q>::value;
};

/* BP3.5 (P = Q: B is the identity, no interpolation) and BP3.0. */
template <int P, int Q, bool LEAN>
__global__ void __launch_bounds__(Q * Q * ne_of<Q>::value, (line_stiff_smem<P, Q, LEAN>::blocks))
line_stiff_kernel(int64_t n_cells, const int *__restrict__ dofs, const double *__restrict__ x,
                  const double *__restrict__ geo, double lambda, double *__restrict__ y, int n_shared,
                  const __grid_constant__ line_tables<P, Q, (P != Q) * 6, 6> T) {
  using SM = line_stiff_smem<P, Q, LEAN>;
  constexpr int DEPTH = line_depth<LEAN>::value;
  using G = grid_strides<Q>;
  using L = line_strides<P, Q>;
  constexpr int NE = SM::NE, SR = G::SR, SC = G::SC, P2 = P * P, P3 = P2 * P, Q2 = Q * Q;
  extern __shared__ double smem[];
  const int tid = threadIdx.x, nthr = Q2 * NE, ltid = tid + Q2 * threadIdx.y;
  double *U = smem + threadIdx.y * SM::per_cell, *UR = U + G::G, *US = LEAN ? U : UR + G::G, *X = UR,
         *Y = X + L::X;
  double *ring = smem + NE * SM::per_cell + ltid;
  const int64_t e = (int64_t)blockIdx.x * NE + threadIdx.y;
  const bool live = e < n_cells;
#pragma unroll
  for (int c = 0; c < DEPTH; c++) issue_layer<Q>(geo, e, live, c, tid, ring + c * 7 * nthr, nthr);
  const int a = tid % Q, b = tid / Q, col = a + SR * b;
  const int *d = dofs + (live ? e * P3 : 0);
  double u[Q], acc[Q];
  if constexpr (!SM::INTERP) {
#pragma unroll
    for (int k = 0; k < P; k++) u[k] = live ? x[__ldg(d + k * P2 + tid)] : 0.0;
    line_store<Q, SC>(U + col, u);
    __syncthreads();
  } else {
    line_interp_ts<P, Q>(T.B[0], T.B[1], d, x, live, tid, X, Y);
    __syncthreads();
    { /* line (c, b) along r -> U */
      const int bb = tid % Q, c = tid / Q;
      double v[P];
      line_load<P, 1>(Y + c * L::SY + bb * L::SP, v);
      b_line<P, Q>(T.B[2], v, u);
      line_store<Q, 1>(U + c * SC + bb * SR, u);
    }
    __syncthreads();
    line_load<Q, SC>(U + col, u);
  }
  line_stiff_middle<P, Q, (P != Q) * 6, LEAN>(T, geo, e, live, lambda, tid, U, UR, US, ring, nthr, u, acc);
  if constexpr (!SM::INTERP) {
    if (live) {
#pragma unroll
      for (int c = 0; c < Q; c++)
        y_add(y, __ldg(d + c * P2 + tid), n_shared, acc[c] + UR[col + c * SC] + US[col + c * SC]);
    }
  } else {
#pragma unroll
    for (int c = 0; c < Q; c++) acc[c] += UR[col + c * SC] + US[col + c * SC];
    line_store<Q, SC>(U + col, acc); /* U's other readers passed the middle's barriers */
    __syncthreads();
    { /* line (c, b): B^T along r, in place (the row's first P) */
      const int bb = tid % Q, c = tid / Q;
      double v[Q], w[P];
      line_load<Q, 1>(U + c * SC + bb * SR, v);
      bt_line<P, Q>(T.B[3], v, w);
      line_store<P, 1>(U + c * SC + bb * SR, w);
    }
    __syncthreads();
    line_scatter_ts<P, Q, SC, SR>(T.B[4], T.B[5], d, live, tid, U, X, y, n_shared);
  }
}

/* ---------------------------------------------------- geometry, misc */

__global__ void geo_kernel(int64_t n_cells, int Q, int ngeo, const double *__restrict__ xe,
                           const double *__restrict__ pts, const double *__restrict__ w, double *__restrict__ geo) {
  const int64_t Q3 = (int64_t)Q * Q * Q;
  for (int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; t < n_cells * Q3;
       t += (int64_t)gridDim.x * blockDim.x) {
    int64_t e = t / Q3;
    int p = (int)(t % Q3), a = p % Q, b = (p / Q) % Q, c = p / (Q * Q);
    double g[7];
    feint_bp_hex_geometry(xe + 24 * e, pts[a], pts[b], pts[c], w[a] * w[b] * w[c], g);
    if (ngeo == 1)
      geo[e * Q3 + p] = g[6];
    else
      for (int k = 0; k < 7; k++) geo[(e * 7 + k) * Q3 + p] = g[k];
  }
}

/* to[i] = from[perm[i]] (GATHER) or to[perm[i]] = from[i]: x into and y
 * out of the split numbering. */
template <bool GATHER>
__global__ void permute_kernel(int64_t n, const int32_t *__restrict__ perm, const double *__restrict__ from,
                               double *__restrict__ to) {
  for (int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; t < n; t += (int64_t)gridDim.x * blockDim.x) {
    if (GATHER)
      to[t] = from[perm[t]];
    else
      to[perm[t]] = from[t];
  }
}

__global__ void random_kernel(int64_t n, unsigned seed, double *x) {
  for (int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; t < n; t += (int64_t)gridDim.x * blockDim.x) {
    uint64_t h = (uint64_t)t * 0x9E3779B97F4A7C15ull + seed * 0xD1B54A32D192ED03ull + 1;
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 29;
    x[t] = (double)(h >> 11) * (1.0 / 9007199254740992.0) - 0.5;
  }
}

/* ------------------------------------------------------------ dispatch */

typedef void (*bp_kernel_t)(int64_t, const int *, const double *, const double *, const double *,
                            const double *, double, double *);

/* One launch's arguments. */
struct bp_args {
  int64_t n_cells;
  const int *dofs;
  const double *x, *geo, *xe, *tab, *htab;
  double lambda;
  double *y;
  int n_shared; /* line kernels: dofs >= n_shared are stored, not added (y_add) */
};

struct launch_cfg {
  bp_kernel_t fn;                                               /* layered kernels (variants 1, 2) */
  void (*staged)(const bp_args *, unsigned, dim3, size_t);      /* the kernels with table parameters */
  const void *kernel;                                           /* for the shared-memory attribute */
  bool stores; /* stores into a cell's own dofs (y_add): y zeroed below n_shared only */
  dim3 block;
  int ne;
  size_t smem;
};

/* The tables from the host copy (layout of tab: B, Dq, points, weights). */
template <int P, int Q>
static void fill_tables(const double *h, bp_tables<P, Q> *T) {
  std::copy(h, h + Q * P, T->B);
  std::copy(h + Q * P, h + Q * P + Q * Q, T->D);
  std::copy(h + Q * P + Q * Q, h + Q * P + Q * Q + Q, T->pts);
  std::copy(h + Q * P + Q * Q + Q, h + Q * P + Q * Q + 2 * Q, T->w);
}

template <int P, int Q, int KIND, bool RC, bool RD>
static void run_staged(const bp_args *g, unsigned blocks, dim3 block, size_t smem) {
  bp_tables<P, Q> T;
  fill_tables(g->htab, &T);
  staged_kernel<P, Q, KIND, RC, RD>
      <<<blocks, block, smem, 0>>>(g->n_cells, g->dofs, g->x, g->geo, g->xe, g->lambda, g->y, T);
}

/* rd (Dq in registers) only with stored factors. */
template <int P, int Q>
static void run_tiled(const bp_args *g, unsigned blocks, dim3 block, size_t smem) {
  bp_tables<P, Q> T;
  fill_tables(g->htab, &T);
  tiled_mass_kernel<P, Q><<<blocks, block, smem, 0>>>(g->n_cells, g->dofs, g->x, g->geo, g->y, T);
}

/* The line kernels' table copies from the host copy (layout of tab as above). */
template <int P, int Q, int NB, int ND>
static void fill_line_tables(const double *h, line_tables<P, Q, NB, ND> *T) {
  for (int k = 0; k < NB; k++) std::copy(h, h + Q * P, T->B[k]);
  for (int k = 0; k < ND; k++) std::copy(h + Q * P, h + Q * P + Q * Q, T->D[k]);
}

template <int P, int Q>
static void fill_line_tables(const double *h, line_sym_tables<P, Q> *T) {
  for (int k = 0; k < 3; k++) {
    fill_sym_table<Q, P, false>(h, &T->B[k]);
    fill_sym_table<P, Q, true>(h, &T->BT[k]);
  }
}

template <int P, int Q, int MODE>
static void run_line_mass(const bp_args *g, unsigned blocks, dim3 block, size_t smem) {
  mass_tables_t<P, Q, MODE> T;
  fill_line_tables(g->htab, &T);
  line_mass_kernel<P, Q, MODE>
      <<<blocks, block, smem, 0>>>(g->n_cells, g->dofs, g->x, g->geo, g->y, g->n_shared, T);
}

template <int P, int Q, bool LEAN>
static void run_line_stiff(const bp_args *g, unsigned blocks, dim3 block, size_t smem) {
  line_tables<P, Q, (P != Q) * 6, 6> T;
  fill_line_tables(g->htab, &T);
  line_stiff_kernel<P, Q, LEAN>
      <<<blocks, block, smem, 0>>>(g->n_cells, g->dofs, g->x, g->geo, g->lambda, g->y, g->n_shared, T);
}

/* The line mass kernel in mode MODE (MASS_*). */
template <int P, int Q, int MODE>
static void line_mass_cfg(launch_cfg *c) {
  c->staged = run_line_mass<P, Q, MODE>;
  c->kernel = (const void *)line_mass_kernel<P, Q, MODE>;
  c->smem = sizeof(double) * line_mass_smem<P, Q, MODE>::total;
}

/* The line kernels (stored factors; Q = P for BP3.5): variants 6, 7
 * (LEAN: less shared memory) for BP3.x; BP1.0 with the line mass kernel,
 * variant 6 in mode 0, 8 MASS_WG, 9 MASS_WG | MASS_SYM. */
template <int P, int Q, int KIND, int V>
static launch_cfg line_cfg() {
  launch_cfg c = {};
  c.stores = true;
  if constexpr (KIND == FEINT_BP1_0) {
    line_mass_cfg<P, Q, V == 8 ? MASS_WG : V == 9 ? (MASS_WG | MASS_SYM) : 0>(&c);
  } else {
    constexpr bool LEAN = V == 7;
    c.staged = run_line_stiff<P, Q, LEAN>;
    c.kernel = (const void *)line_stiff_kernel<P, Q, LEAN>;
    c.smem = sizeof(double) * line_stiff_smem<P, Q, LEAN>::total;
  }
  c.ne = ne_of<Q>::value;
  c.block = dim3(Q * Q, c.ne);
  return c;
}

/* The staged kernels: RC recomputed geometry, RD Dq in registers (stored
 * factors, BP3.x only). */
template <int P, int Q, int KIND, bool RC, bool RD>
static launch_cfg staged_cfg() {
  constexpr bool RDK = RD && !RC && KIND != FEINT_BP1_0;
  launch_cfg c = {};
  c.staged = run_staged<P, Q, KIND, RC, RDK>;
  c.kernel = (const void *)staged_kernel<P, Q, KIND, RC, RDK>;
  c.ne = ne_of<Q>::value;
  c.block = dim3(Q * Q, c.ne);
  c.smem = sizeof(double) * staged_smem<P, Q, KIND, RC>::total;
  return c;
}

/* The layered kernels (variants 1; 2 loads ahead, stored factors only). */
template <int P, int Q, int KIND, bool RC, bool PREFETCH>
static launch_cfg layered_cfg() {
  constexpr bool PF = PREFETCH && !RC;
  launch_cfg c = {};
  if constexpr (KIND == FEINT_BP3_5) {
    c.fn = bp35_kernel<P, RC, PF>;
    c.ne = ne_of<P>::value;
    c.block = dim3(P * P, c.ne);
    c.smem = 0;
  } else {
    c.fn = interp_kernel<P, Q, KIND == FEINT_BP3_0, RC, PF>;
    c.ne = ne_of<Q>::value;
    c.block = dim3(Q * Q, c.ne);
    c.smem = sizeof(double) * (interp_smem<P, Q>::tables + c.ne * interp_smem<P, Q>::per_cell);
  }
  c.kernel = (const void *)c.fn;
  return c;
}

/* Kernel variant V (1..9) for order N, kind KIND, geometry RC: 1, 2
 * layered; 3, 4 staged; 5 tiled BP1.0; 6..9 line kernels. With
 * recomputed geometry only the layered (1) and staged (3) kernels exist:
 * other numbers fall back to them as listed. */
template <int N, int KIND, bool RC, int V>
static launch_cfg variant_cfg() {
  constexpr int P = N + 1, Q = KIND == FEINT_BP3_5 ? N + 1 : N + 2;
  if constexpr (V == 5 && KIND == FEINT_BP1_0 && !RC) {
    launch_cfg c = {};
    c.staged = run_tiled<P, Q>;
    c.kernel = (const void *)tiled_mass_kernel<P, Q>;
    c.ne = ne_of<Q>::value;
    c.block = dim3(Q * Q, c.ne);
    c.smem = sizeof(double) * tiled_smem<P, Q>::total;
    return c;
  } else if constexpr (V >= 6 && !RC) {
    return line_cfg<P, Q, KIND, V>();
  } else if constexpr (V >= 3) {
    return staged_cfg<P, Q, KIND, RC, V == 4>();
  } else {
    return layered_cfg<P, Q, KIND, RC, V == 2>();
  }
}

/* The default kernel: the fastest per kind, order and geometry mode on
 * the H100's 10M-dof meshes (t69 over every variant; docs/perf/bp-operators.md),
 * as the digit at index N of the kind's string: with stored factors mostly
 * the line kernels (6-9), the staged ones (3, 4) where those were not
 * faster, the layered ones at N = 1, the tiled BP1.0 at N = 13; with
 * recomputed geometry the staged (3) or layered (1) kernels. */
static constexpr const char *bp_default_stored[3] = {"3668889996633535", "3747666667676477", "3177666667367743"};
static constexpr const char *bp_default_recomputed[3] = {"3133333333333333", "3331333333133111",
                                                         "3113131333331113"};
static constexpr int default_variant(int kind, bool recompute, int N) {
  return N < 1 || N > FEINT_BP_MAX_ORDER ? 3 : (recompute ? bp_default_recomputed : bp_default_stored)[kind][N] - '0';
}

/* Which kernels this binary holds: each (kind, geometry, order)'s default
 * only; every variant when built with make EXPERIMENTS=1 (the others lost
 * at that order and are kept for comparisons: tests/gpu/bp-variants.sh).
 * One order's dispatch instantiates what it can launch and nothing else,
 * which keeps bp.cu's compile time to a fraction of all variants'. */
#ifdef FEINT_EXPERIMENTS
static constexpr bool all_variants_built = true;
#else
static constexpr bool all_variants_built = false;
#endif

static bool variant_built(feint_bp_kind kind, feint_bp_geo_mode mode, int N, int v) {
  return v == 0 || all_variants_built || v == default_variant(kind, mode == FEINT_BP_GEO_RECOMPUTE, N);
}

template <int N, int KIND, bool RC>
static launch_cfg pick(int v) {
#ifdef FEINT_EXPERIMENTS
  switch (v) {
    case 1: return variant_cfg<N, KIND, RC, 1>();
    case 2: return variant_cfg<N, KIND, RC, 2>();
    case 3: return variant_cfg<N, KIND, RC, 3>();
    case 4: return variant_cfg<N, KIND, RC, 4>();
    case 5: return variant_cfg<N, KIND, RC, 5>();
    case 6: return variant_cfg<N, KIND, RC, 6>();
    case 7: return variant_cfg<N, KIND, RC, 7>();
    case 8: return variant_cfg<N, KIND, RC, 8>();
    default: return variant_cfg<N, KIND, RC, 9>();
  }
#else
  (void)v;
  return variant_cfg<N, KIND, RC, default_variant(KIND, RC, N)>();
#endif
}

template <int N>
static launch_cfg pick(feint_bp_kind kind, bool rc, int v) {
  switch (kind) {
    case FEINT_BP1_0: return rc ? pick<N, FEINT_BP1_0, true>(v) : pick<N, FEINT_BP1_0, false>(v);
    case FEINT_BP3_5: return rc ? pick<N, FEINT_BP3_5, true>(v) : pick<N, FEINT_BP3_5, false>(v);
    default: return rc ? pick<N, FEINT_BP3_0, true>(v) : pick<N, FEINT_BP3_0, false>(v);
  }
}

static int get_cfg(const feint_bp_gpu *g, launch_cfg *c) {
  const bool rc = g->mode == FEINT_BP_GEO_RECOMPUTE;
  const int v = g->variant ? g->variant : default_variant(g->kind, rc, g->P - 1);
  switch (g->P - 1) {
#define BP_CASE(n) \
  case n: *c = pick<n>(g->kind, rc, v); break;
    BP_CASE(1) BP_CASE(2) BP_CASE(3) BP_CASE(4) BP_CASE(5) BP_CASE(6) BP_CASE(7) BP_CASE(8)
    BP_CASE(9) BP_CASE(10) BP_CASE(11) BP_CASE(12) BP_CASE(13) BP_CASE(14) BP_CASE(15)
#undef BP_CASE
    default: return feint_error_set(FEINT_ERR_INPUT, "BP on the GPU: order %d (1..15 supported)", g->P - 1);
  }
  if (c->smem > 48 * 1024)
    FEINT_CUDA_CALL("BP kernel: shared memory limit",
                    cudaFuncSetAttribute(c->kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)c->smem));
  return FEINT_OK;
}

/* y = A x on the device arrays (legacy stream): zero y (with a kernel
 * that stores into own dofs, only [0, n_shared)), then all cells. */
static int launch(feint_bp_gpu *g) {
  launch_cfg c;
  FEINT_CALL(get_cfg(g, &c));
  const int64_t z1 = c.stores ? g->n_shared : g->n_dofs; /* own dofs are stored, not added */
  if (z1 > 0) FEINT_CUDA_CALL("BP apply: zero y", cudaMemsetAsync(g->y, 0, sizeof(double) * z1, 0));
  bp_args a = {g->n_cells, g->dofs, g->x, g->geo, g->xe, g->tab, g->htab, g->lambda, g->y, (int)g->n_shared};
  int64_t blocks = (a.n_cells + c.ne - 1) / c.ne;
  if (blocks > INT32_MAX) return feint_error_set(FEINT_ERR_INPUT, "BP apply: too many cells");
  if (c.staged)
    c.staged(&a, (unsigned)blocks, c.block, c.smem);
  else
    c.fn<<<(unsigned)blocks, c.block, c.smem, 0>>>(a.n_cells, a.dofs, a.x, a.geo, a.xe, a.tab, a.lambda, a.y);
  FEINT_CUDA_CALL("BP apply: kernel launch", cudaGetLastError());
  return FEINT_OK;
}

/* ------------------------------------------------------------ C interface */

extern "C" void feint_bp_gpu_destroy(feint_bp_gpu *g) {
  if (!g) return;
  cudaFree(g->dofs);
  cudaFree(g->xe);
  cudaFree(g->geo);
  cudaFree(g->tab);
  cudaFree(g->x);
  cudaFree(g->y);
  cudaFree(g->perm);
  feint_bp_dofmap_destroy(g->split);
  free(g->htab);
  free(g);
}

static int dalloc(void **p, size_t bytes, const char *what) {
  return feint_cuda_malloc(p, bytes, "BP on the GPU", what);
}

static int create(const feint_bp_op *op, int device_index, feint_bp_gpu *g) {
  FEINT_CUDA_CALL("BP on the GPU: set device", cudaSetDevice(device_index < 0 ? 0 : device_index));
  g->device = device_index < 0 ? 0 : device_index;
  size_t np = (size_t)op->dofs->np, nc = (size_t)op->n_cells, Q3 = (size_t)op->q * op->q * op->q;
  FEINT_CALL(dalloc((void **)&g->dofs, sizeof(int) * np * nc, "dof map"));
  FEINT_CALL(dalloc((void **)&g->xe, sizeof(double) * 24 * nc, "cell coordinates"));
  FEINT_CUDA_CALL("BP upload coordinates", feint_cuda_memcpy(g->xe, op->xe, sizeof(double) * 24 * nc, cudaMemcpyHostToDevice));
  int P = op->p, Q = op->q, nt = tab_size(P, Q);
  std::vector<double> tab(nt);
  std::copy(op->B, op->B + Q * P, tab.begin());
  std::copy(op->Dq, op->Dq + Q * Q, tab.begin() + Q * P);
  std::copy(op->qpts, op->qpts + Q, tab.begin() + Q * P + Q * Q);
  std::copy(op->qwts, op->qwts + Q, tab.begin() + Q * P + Q * Q + Q);
  FEINT_CALL(dalloc((void **)&g->tab, sizeof(double) * nt, "tables"));
  FEINT_CUDA_CALL("BP upload tables", feint_cuda_memcpy(g->tab, tab.data(), sizeof(double) * nt, cudaMemcpyHostToDevice));
  FEINT_CALL(feint_malloc((size_t)nt, sizeof(double), &g->htab, "BP tables"));
  std::copy(tab.begin(), tab.end(), g->htab);
  FEINT_CALL(dalloc((void **)&g->x, sizeof(double) * g->n_dofs, "x"));
  FEINT_CALL(dalloc((void **)&g->y, sizeof(double) * g->n_dofs, "y"));
  if (g->mode == FEINT_BP_GEO_STORED && op->mesh->geometry_nodes) { /* curved cells: the host's factors */
    FEINT_CALL(dalloc((void **)&g->geo, sizeof(double) * op->ngeo * Q3 * nc, "geometric factors"));
    FEINT_CUDA_CALL("BP upload geometric factors", feint_cuda_memcpy(g->geo, op->geo, sizeof(double) * op->ngeo * Q3 * nc,
                                                                     cudaMemcpyHostToDevice));
  } else if (g->mode == FEINT_BP_GEO_STORED) {
    FEINT_CALL(dalloc((void **)&g->geo, sizeof(double) * op->ngeo * Q3 * nc, "geometric factors"));
    geo_kernel<<<4096, 256>>>((int64_t)nc, Q, op->ngeo, g->xe, g->tab + Q * P + Q * Q, g->tab + Q * P + Q * Q + Q,
                              g->geo);
    FEINT_CUDA_CALL("BP geometric factors", cudaGetLastError());
    FEINT_CUDA_CALL("BP geometric factors", cudaDeviceSynchronize());
  }
  FEINT_CALL(feint_bp_gpu_set_numbering(g, -1));
  launch_cfg c;
  return get_cfg(g, &c);
}

extern "C" int feint_bp_gpu_create(const feint_bp_op *op, int device_index, feint_bp_gpu **out) {
  *out = NULL;
  if (op->order < 1 || op->order > FEINT_BP_MAX_ORDER)
    return feint_error_set(FEINT_ERR_INPUT, "BP on the GPU: order %d (1..15 supported)", op->order);
  feint_bp_gpu *g = (feint_bp_gpu *)calloc(1, sizeof *g);
  if (!g) return feint_error_set(FEINT_ERR_COMPUTE, "out of memory");
  g->kind = op->kind;
  g->mode = op->geo_mode;
  g->P = op->p;
  g->Q = op->q;
  g->ngeo = op->ngeo;
  g->lambda = op->lambda;
  g->n_cells = op->n_cells;
  g->n_dofs = op->n_dofs;
  g->dofmap = op->dofs;
  int st = create(op, device_index, g);
  if (st) {
    feint_bp_gpu_destroy(g);
    return st;
  }
  *out = g;
  return FEINT_OK;
}

/* With the split numbering x is uploaded into y and permuted into x, and
 * y is permuted out into x and downloaded from there (no extra buffer: x
 * is rewritten by every apply anyway). */
extern "C" int feint_bp_gpu_apply(feint_bp_gpu *g, const double *x, double *y) {
  const size_t bytes = sizeof(double) * g->n_dofs;
  FEINT_CUDA_CALL("BP apply: set device", cudaSetDevice(g->device));
  FEINT_CUDA_CALL("BP apply: upload x", feint_cuda_memcpy(g->perm ? g->y : g->x, x, bytes, cudaMemcpyHostToDevice));
  if (g->perm) {
    permute_kernel<true><<<4096, 256>>>(g->n_dofs, g->perm, g->y, g->x);
    FEINT_CUDA_CALL("BP apply: permute x", cudaGetLastError());
  }
  FEINT_CALL(launch(g));
  if (g->perm) {
    permute_kernel<false><<<4096, 256>>>(g->n_dofs, g->perm, g->y, g->x);
    FEINT_CUDA_CALL("BP apply: permute y", cudaGetLastError());
  }
  FEINT_CUDA_CALL("BP apply: kernel", cudaDeviceSynchronize());
  FEINT_CUDA_CALL("BP apply: download y", feint_cuda_memcpy(y, g->perm ? g->x : g->y, bytes, cudaMemcpyDeviceToHost));
  return FEINT_OK;
}

extern "C" int feint_bp_gpu_bench(feint_bp_gpu *g, int reps, unsigned seed, double *median_ms, double *min_ms) {
  *median_ms = *min_ms = 0;
  if (reps < 1) reps = 1;
  FEINT_CUDA_CALL("BP bench: set device", cudaSetDevice(g->device));
  random_kernel<<<4096, 256>>>(g->n_dofs, seed, g->x);
  FEINT_CUDA_CALL("BP bench: random x", cudaGetLastError());
  FEINT_CALL(launch(g)); /* warm-up */
  FEINT_CUDA_CALL("BP bench: warm-up", cudaDeviceSynchronize());
  feint_cuda_timer T = {};
  FEINT_CALL(feint_cuda_timer_create(&T, "BP bench: events"));
  std::vector<float> t(reps);
  int st = FEINT_OK;
  for (int r = 0; r < reps && !st; r++) {
    st = feint_cuda_timer_start(&T, "BP bench: event");
    if (!st) st = launch(g);
    if (!st) st = feint_cuda_timer_stop(&T, "BP bench: kernel", &t[r]);
  }
  feint_cuda_timer_destroy(&T);
  if (st) return st;
  std::sort(t.begin(), t.end());
  *median_ms = t[reps / 2];
  *min_ms = t[0];
  return FEINT_OK;
}

extern "C" int feint_bp_gpu_set_variant(feint_bp_gpu *g, int variant) {
  if (variant < 0 || variant > 9)
    return feint_error_set(FEINT_ERR_INPUT, "BP on the GPU: variant %d (0 to 9)", variant);
  if (!variant_built(g->kind, g->mode, g->P - 1, variant))
    return feint_error_set(FEINT_ERR_INPUT,
                           "BP on the GPU: variant %d of %s at order %d is built only with make EXPERIMENTS=1 "
                           "(this binary holds the default, variant %d)",
                           variant, feint_bp_name(g->kind), g->P - 1,
                           default_variant(g->kind, g->mode == FEINT_BP_GEO_RECOMPUTE, g->P - 1));
  g->variant = variant;
  launch_cfg c;
  return get_cfg(g, &c);
}

/* Default numbering: split. On the H100's 10M-dof meshes
 * it made the line kernels 1-14 points of the copy bandwidth faster
 * (BP1.0 N = 7 variant 8: 57.8 -> 67.1%, BP3.5 N = 8: 78.8 -> 86.0%) and
 * left the others within noise. */
static const int default_split = 1;

/* The tuning's numbering (FEINT_BP_NUMBERING), when set, overrides the default. */
static int tuned_split(int *split) {
  feint_cuda_tuning tune;
  FEINT_CALL(feint_cuda_tuning_read(NULL, &tune));
  *split = tune.bp_split >= 0 ? tune.bp_split : default_split;
  return FEINT_OK;
}

extern "C" int feint_bp_gpu_family(const feint_bp_gpu *g, int *variant) {
  const bool rc = g->mode == FEINT_BP_GEO_RECOMPUTE;
  const int v = g->variant ? g->variant : default_variant(g->kind, rc, g->P - 1);
  *variant = v;
  if (v <= 2) return FEINT_FAMILY_BP_LAYERED;
  if (v == 5 && g->kind == FEINT_BP1_0 && !rc) return FEINT_FAMILY_BP_TILED;
  return v >= 6 && !rc ? FEINT_FAMILY_BP_LINE : FEINT_FAMILY_BP_STAGED;
}

extern "C" int feint_bp_gpu_variant_built(feint_bp_kind kind, feint_bp_geo_mode mode, int order, int variant) {
  return variant >= 0 && variant <= 9 && variant_built(kind, mode, order, variant);
}

extern "C" int feint_bp_gpu_kernel_info(feint_bp_gpu *g, feint_bp_kernel_info *info) {
  memset(info, 0, sizeof *info);
  launch_cfg c;
  FEINT_CALL(get_cfg(g, &c));
  cudaFuncAttributes a;
  FEINT_CUDA_CALL("BP kernel info: attributes", cudaFuncGetAttributes(&a, c.kernel));
  info->threads = (int)(c.block.x * c.block.y);
  FEINT_CUDA_CALL("BP kernel info: occupancy",
                  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&info->blocks_per_sm, c.kernel, info->threads, c.smem));
  info->registers = a.numRegs;
  info->local_bytes = (int)a.localSizeBytes;
  info->shared_bytes = (int)(a.sharedSizeBytes + c.smem);
  info->cells_per_block = c.ne;
  return FEINT_OK;
}

extern "C" int feint_bp_gpu_set_numbering(feint_bp_gpu *g, int split) {
  if (split < 0) FEINT_CALL(tuned_split(&split));
  const size_t nv = (size_t)g->n_cells * g->dofmap->np;
  feint_bp_dofmap *sm = NULL;
  int32_t *perm = NULL;
  int64_t n_shared = g->n_dofs;
  if (split) FEINT_CALL(feint_bp_dofmap_split(g->dofmap, &sm, &perm, &n_shared));
  feint_bp_dofmap_destroy(g->split);
  g->split = sm;
  cudaFree(g->perm);
  g->perm = NULL;
  g->n_shared = n_shared;
  int st = FEINT_OK;
  cudaError_t e = feint_cuda_memcpy(g->dofs, sm ? sm->cell_dofs : g->dofmap->cell_dofs, sizeof(int) * nv, cudaMemcpyHostToDevice);
  if (e != cudaSuccess) st = FEINT_CUDA_FAIL(e, "BP upload dof map");
  if (!st && perm) st = dalloc((void **)&g->perm, sizeof(int32_t) * g->n_dofs, "dof permutation");
  if (!st && perm && (e = feint_cuda_memcpy(g->perm, perm, sizeof(int32_t) * g->n_dofs, cudaMemcpyHostToDevice)) != cudaSuccess)
    st = FEINT_CUDA_FAIL(e, "BP upload dof permutation");
  free(perm);
  if (st) { /* back to the user's numbering, consistently */
    feint_bp_dofmap_destroy(g->split);
    g->split = NULL;
    g->n_shared = g->n_dofs;
    cudaFree(g->perm);
    g->perm = NULL;
    feint_cuda_memcpy(g->dofs, g->dofmap->cell_dofs, sizeof(int) * nv, cudaMemcpyHostToDevice);
  }
  return st;
}

extern "C" int feint_bp_gpu_split(const feint_bp_gpu *g) { return g->split != NULL; }

extern "C" int feint_bp_gpu_device_name(int device_index, char *name, size_t size) {
  cudaDeviceProp p;
  if (size) name[0] = 0;
  FEINT_CUDA_CALL("BP device name", cudaGetDeviceProperties(&p, device_index < 0 ? 0 : device_index));
  snprintf(name, size, "%s", p.name);
  return FEINT_OK;
}
