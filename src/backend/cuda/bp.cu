/* BP operators on the GPU (include/feint/bp.h): y = A x on order-N GLL
 * hexahedra, after Swirydowicz, Chalmers, Karakus, Warburton.
 *
 * Thread structure. A thread block takes NE cells (NE = max(1, 256 / Q^2):
 * one cell per block from N = 7 on, several for small N so that a block
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
 * atomicAdd (y zeroed first; double atomics resolve in L2, where the
 * neighbouring cells' shared dofs also hit). */
#include <cuda_runtime.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <vector>

extern "C" {
#include "feint/bp.h"
#include "feint/error.h"
}

static int bp_fail(cudaError_t e, const char *phase) {
  cudaGetLastError();
  return feint_error_set(FEINT_ERR_COMPUTE, "%s: %s", phase, cudaGetErrorString(e));
}

#define BP_CALL(phase, call)                                                   \
  do {                                                                         \
    cudaError_t bp_e_ = (call);                                                \
    if (bp_e_ != cudaSuccess) return bp_fail(bp_e_, phase);                    \
  } while (0)

struct feint_bp_gpu {
  feint_bp_kind kind;
  feint_bp_geo_mode mode;
  int P, Q, ngeo, device;
  int variant; /* stored factors: 0 prefetched where it pays (default), 1 never, 2 always */
  double lambda;
  int64_t n_cells, n_dofs;
  int *dofs;
  double *xe, *geo, *tab, *x, *y;
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
    double qr = 0, qs = 0, qt = 0;
#pragma unroll
    for (int m = 0; m < P; m++) {
      qr += Di[m] * s_q[el][j * S + m];
      qs += Dj[m] * s_q[el][m * S + i];
      qt += s_D[k * S + m] * r_q[m];
    }
    if (RECOMPUTE)
      feint_bp_hex_geometry(s_xe[el], s_pts[i], s_pts[j], s_pts[k], s_w[i] * s_w[j] * s_w[k], g);
    else if (!PREFETCH)
      stored_factors<7, P3>(geo, e * 7 * P3 + k * P2 + tid, live, g);
    s_Gr[el][j * S + i] = g[0] * qr + g[1] * qs + g[2] * qt;
    s_Gs[el][j * S + i] = g[1] * qr + g[3] * qs + g[4] * qt;
    const double Gt = g[2] * qr + g[4] * qs + g[5] * qt;
    r_A[k] += lambda * g[6] * r_q[k];
#pragma unroll
    for (int m = 0; m < P; m++) r_A[m] += s_D[k * S + m] * Gt;
    __syncthreads();
    double acc = 0;
#pragma unroll
    for (int m = 0; m < P; m++) acc += DTi[m] * s_Gr[el][j * S + m] + DTj[m] * s_Gs[el][m * S + i];
    r_A[k] += acc;
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
#define D_A(m) (RD ? Da[RD ? (m) : 0] : s_D[a * S + (m)])
#define D_B(m) (RD ? Db[RD ? (m) : 0] : s_D[b * S + (m)])
#define DT_A(m) (RD ? DTa[RD ? (m) : 0] : s_D[(m) * S + a])
#define DT_B(m) (RD ? DTb[RD ? (m) : 0] : s_D[(m) * S + b])
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
        double g[7];
        feint_bp_hex_geometry(s_xe, s_pts[a], s_pts[b], s_pts[c], s_w[a] * s_w[b] * s_w[c], g);
        wJ = g[6];
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
      double qr = 0, qs = 0, qt = 0;
#pragma unroll
      for (int m = 0; m < Q; m++) {
        qr += D_A(m) * s_q[b * S + m];
        qs += D_B(m) * s_q[m * S + a];
        qt += s_D[c * S + m] * r_u[m];
      }
      if (RECOMPUTE)
        feint_bp_hex_geometry(s_xe, s_pts[a], s_pts[b], s_pts[c], s_w[a] * s_w[b] * s_w[c], g);
      else if (!PREFETCH)
        stored_factors<7, Q3>(geo, e * 7 * Q3 + c * Q2 + tid, live, g);
      s_Gr[b * S + a] = g[0] * qr + g[1] * qs + g[2] * qt;
      s_Gs[b * S + a] = g[1] * qr + g[3] * qs + g[4] * qt;
      const double Gt = g[2] * qr + g[4] * qs + g[5] * qt;
      r_A[c] += lambda * g[6] * r_u[c];
#pragma unroll
      for (int m = 0; m < Q; m++) r_A[m] += s_D[c * S + m] * Gt;
      __syncthreads();
      double acc = 0;
#pragma unroll
      for (int m = 0; m < Q; m++) acc += DT_A(m) * s_Gr[b * S + m] + DT_B(m) * s_Gs[m * S + a];
      r_A[c] += acc;
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
#undef D_A
#undef D_B
#undef DT_A
#undef DT_B
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

struct launch_cfg {
  bp_kernel_t fn;
  dim3 block;
  int ne;
  size_t smem;
};

template <int N>
static launch_cfg pick(feint_bp_kind kind, bool recompute, bool prefetch) {
  constexpr int P = N + 1, Q = N + 2;
  launch_cfg c;
  if (kind == FEINT_BP3_5) {
    c.fn = recompute ? bp35_kernel<P, true, false>
                     : (prefetch ? bp35_kernel<P, false, true> : bp35_kernel<P, false, false>);
    c.ne = ne_of<P>::value;
    c.block = dim3(P * P, c.ne);
    c.smem = 0;
  } else {
    bool stiff = kind == FEINT_BP3_0;
    if (recompute)
      c.fn = stiff ? interp_kernel<P, Q, true, true, false> : interp_kernel<P, Q, false, true, false>;
    else if (prefetch)
      c.fn = stiff ? interp_kernel<P, Q, true, false, true> : interp_kernel<P, Q, false, false, true>;
    else
      c.fn = stiff ? interp_kernel<P, Q, true, false, false> : interp_kernel<P, Q, false, false, false>;
    c.ne = ne_of<Q>::value;
    c.block = dim3(Q * Q, c.ne);
    c.smem = sizeof(double) * (interp_smem<P, Q>::tables + c.ne * interp_smem<P, Q>::per_cell);
  }
  return c;
}

/* Whether issuing the stored factors' loads early pays, as measured on the
 * H100 (10M dofs, t69 with FEINT_BENCH_VARIANTS=1): from N = 6 on for
 * BP3.5 and BP3.0 (N = 8: 60% vs 37% and 39% vs 21% of copy), where
 * fewer cells per block leave less work to hide the loads behind; at
 * smaller N it costs occupancy (BP3.5 N = 3..5: 62-68% vs 68-76%). BP1.0
 * holds all Q values of w|J| ahead: pays only while Q is small (N <= 3). */
static bool prefetch_pays(feint_bp_kind kind, int N) { return kind == FEINT_BP1_0 ? N <= 3 : N >= 6; }

static int get_cfg(const feint_bp_gpu *g, launch_cfg *c) {
  bool rc = g->mode == FEINT_BP_GEO_RECOMPUTE;
  const bool prefetch = g->variant == 2 || (g->variant == 0 && prefetch_pays(g->kind, g->P - 1));
  switch (g->P - 1) {
#define BP_CASE(n) \
  case n: *c = pick<n>(g->kind, rc, prefetch); break;
    BP_CASE(1) BP_CASE(2) BP_CASE(3) BP_CASE(4) BP_CASE(5) BP_CASE(6) BP_CASE(7) BP_CASE(8)
    BP_CASE(9) BP_CASE(10) BP_CASE(11) BP_CASE(12) BP_CASE(13) BP_CASE(14) BP_CASE(15)
#undef BP_CASE
    default: return feint_error_set(FEINT_ERR_INPUT, "BP on the GPU: order %d (1..15 supported)", g->P - 1);
  }
  if (c->smem > 48 * 1024)
    BP_CALL("BP kernel: shared memory limit",
            cudaFuncSetAttribute((const void *)c->fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)c->smem));
  return FEINT_OK;
}

static int launch(feint_bp_gpu *g) {
  launch_cfg c;
  FEINT_CALL(get_cfg(g, &c));
  BP_CALL("BP apply: zero y", cudaMemsetAsync(g->y, 0, sizeof(double) * g->n_dofs));
  int64_t blocks = (g->n_cells + c.ne - 1) / c.ne;
  if (blocks > INT32_MAX) return feint_error_set(FEINT_ERR_INPUT, "BP apply: too many cells");
  c.fn<<<(unsigned)blocks, c.block, c.smem>>>(g->n_cells, g->dofs, g->x, g->geo, g->xe, g->tab, g->lambda, g->y);
  BP_CALL("BP apply: kernel launch", cudaGetLastError());
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
  free(g);
}

static int dalloc(void **p, size_t bytes, const char *what) {
  *p = NULL;
  cudaError_t e = cudaMalloc(p, bytes ? bytes : 1);
  if (e != cudaSuccess) {
    cudaGetLastError();
    return feint_error_set(FEINT_ERR_COMPUTE, "BP on the GPU: allocating %s (%zu bytes): %s", what, bytes,
                           cudaGetErrorString(e));
  }
  return FEINT_OK;
}

static int create(const feint_bp_op *op, int device_index, feint_bp_gpu *g) {
  BP_CALL("BP on the GPU: set device", cudaSetDevice(device_index < 0 ? 0 : device_index));
  g->device = device_index < 0 ? 0 : device_index;
  size_t np = (size_t)op->dofs->np, nc = (size_t)op->n_cells, Q3 = (size_t)op->q * op->q * op->q;
  FEINT_CALL(dalloc((void **)&g->dofs, sizeof(int) * np * nc, "dof map"));
  BP_CALL("BP upload dof map", cudaMemcpy(g->dofs, op->dofs->cell_dofs, sizeof(int) * np * nc, cudaMemcpyHostToDevice));
  FEINT_CALL(dalloc((void **)&g->xe, sizeof(double) * 24 * nc, "cell coordinates"));
  BP_CALL("BP upload coordinates", cudaMemcpy(g->xe, op->xe, sizeof(double) * 24 * nc, cudaMemcpyHostToDevice));
  int P = op->p, Q = op->q, nt = tab_size(P, Q);
  std::vector<double> tab(nt);
  std::copy(op->B, op->B + Q * P, tab.begin());
  std::copy(op->Dq, op->Dq + Q * Q, tab.begin() + Q * P);
  std::copy(op->qpts, op->qpts + Q, tab.begin() + Q * P + Q * Q);
  std::copy(op->qwts, op->qwts + Q, tab.begin() + Q * P + Q * Q + Q);
  FEINT_CALL(dalloc((void **)&g->tab, sizeof(double) * nt, "tables"));
  BP_CALL("BP upload tables", cudaMemcpy(g->tab, tab.data(), sizeof(double) * nt, cudaMemcpyHostToDevice));
  FEINT_CALL(dalloc((void **)&g->x, sizeof(double) * g->n_dofs, "x"));
  FEINT_CALL(dalloc((void **)&g->y, sizeof(double) * g->n_dofs, "y"));
  if (g->mode == FEINT_BP_GEO_STORED) {
    FEINT_CALL(dalloc((void **)&g->geo, sizeof(double) * op->ngeo * Q3 * nc, "geometric factors"));
    geo_kernel<<<4096, 256>>>((int64_t)nc, Q, op->ngeo, g->xe, g->tab + Q * P + Q * Q, g->tab + Q * P + Q * Q + Q,
                              g->geo);
    BP_CALL("BP geometric factors", cudaGetLastError());
    BP_CALL("BP geometric factors", cudaDeviceSynchronize());
  }
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
  int st = create(op, device_index, g);
  if (st) {
    feint_bp_gpu_destroy(g);
    return st;
  }
  *out = g;
  return FEINT_OK;
}

extern "C" int feint_bp_gpu_apply(feint_bp_gpu *g, const double *x, double *y) {
  BP_CALL("BP apply: set device", cudaSetDevice(g->device));
  BP_CALL("BP apply: upload x", cudaMemcpy(g->x, x, sizeof(double) * g->n_dofs, cudaMemcpyHostToDevice));
  FEINT_CALL(launch(g));
  BP_CALL("BP apply: kernel", cudaDeviceSynchronize());
  BP_CALL("BP apply: download y", cudaMemcpy(y, g->y, sizeof(double) * g->n_dofs, cudaMemcpyDeviceToHost));
  return FEINT_OK;
}

extern "C" int feint_bp_gpu_bench(feint_bp_gpu *g, int reps, unsigned seed, double *median_ms, double *min_ms) {
  *median_ms = *min_ms = 0;
  if (reps < 1) reps = 1;
  BP_CALL("BP bench: set device", cudaSetDevice(g->device));
  random_kernel<<<4096, 256>>>(g->n_dofs, seed, g->x);
  BP_CALL("BP bench: random x", cudaGetLastError());
  FEINT_CALL(launch(g)); /* warm-up */
  BP_CALL("BP bench: warm-up", cudaDeviceSynchronize());
  cudaEvent_t e0, e1;
  BP_CALL("BP bench: events", cudaEventCreate(&e0));
  BP_CALL("BP bench: events", cudaEventCreate(&e1));
  std::vector<float> t(reps);
  int st = FEINT_OK;
  for (int r = 0; r < reps && !st; r++) {
    cudaEventRecord(e0);
    st = launch(g);
    cudaEventRecord(e1);
    cudaError_t ce = cudaEventSynchronize(e1);
    if (!st && ce != cudaSuccess) st = bp_fail(ce, "BP bench: kernel");
    cudaEventElapsedTime(&t[r], e0, e1);
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  if (st) return st;
  std::sort(t.begin(), t.end());
  *median_ms = t[reps / 2];
  *min_ms = t[0];
  return FEINT_OK;
}

extern "C" int feint_bp_gpu_set_variant(feint_bp_gpu *g, int variant) {
  if (variant < 0 || variant > 2)
    return feint_error_set(FEINT_ERR_INPUT, "BP on the GPU: variant %d (0, 1 or 2)", variant);
  g->variant = variant;
  launch_cfg c;
  return get_cfg(g, &c);
}

extern "C" int feint_bp_gpu_device_name(int device_index, char *name, size_t size) {
  cudaDeviceProp p;
  if (size) name[0] = 0;
  BP_CALL("BP device name", cudaGetDeviceProperties(&p, device_index < 0 ? 0 : device_index));
  snprintf(name, size, "%s", p.name);
  return FEINT_OK;
}
