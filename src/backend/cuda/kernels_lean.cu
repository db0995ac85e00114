/* The lean P1 tetrahedron residual kernels (Poisson and elasticity, the
 * stiffness coefficients' kinds as template parameters) and the pipelined
 * persistent Poisson kernel, on the block kernels' chunks (p1.cuh); and
 * the choice among their instantiations (pick_lean, lean_pipe_kernel),
 * which reads the tuning variables FEINT_CUDA_LEAN*. */
#include <string.h>

#include <algorithm>

#include "backend/cuda/fused.cuh"
#include "backend/cuda/p1.cuh"

/* ------------------------------ P1 tetrahedra: the lean residual kernels
 *
 * The residual of P1 Poisson (nc 1) and P1 elasticity (nc 3) on
 * tetrahedra, with the coefficient kinds of the stiffness term (kappa;
 * lambda and mu) as template parameters: no run-time selects and no
 * load-vector path (the rhs keeps the block kernel). Storage type S
 * (double, or float in single precision) and compute type R: double in
 * double precision; in single precision float by default (R = float: the
 * node records, u and the element entries in shared memory are float too,
 * and the flush sums in float; FEINT_CUDA_LEAN_REAL=double computes in
 * double from the float storage instead; measured both ways: the
 * float path agrees with double to 2e-6 relative at 6M cells, as does the
 * double compute from float storage: each target sums at most a few dozen
 * entries, so no error grows with the mesh).
 * The chunk machinery is the block kernel's (plan prefetch, flush; the
 * vertices from the shared gather or from global memory, LEAN_SHARED /
 * LEAN_GLOBAL); only the cell's arithmetic differs, and it is the least
 * the form needs:
 *   J from the 4 vertices, its cofactors C (C = det J^-1), det;
 *   Gs = C^T (u_{d+1} - u_0)      (det times grad u);
 *   the stiffness coefficient integrated over the cell, sum_q w_q a(x_q) =
 *     sum_j wphi_j a_j for a nodal (P1) field, wsum a otherwise: exact for
 *     any rule, since grad phi is constant on the cell and the form is
 *     linear in the coefficients;
 *   res_{d+1} = (C flux(Gs))_d / |det|, res_0 = -sum_d res_{d+1}
 *     (flux = kappa Gs, or mu (Gs + Gs^T) + lambda tr(Gs) I), the standard
 *     simplex's gradients written out (checked at setup: T.std);
 *   the source as in p1_residual_cell (reference mass matrix for a nodal
 *     field, wphi otherwise), its kinds read at run time (uniform branches).
 * A nodal stiffness coefficient must be the one packed into the node
 * records (P.wa). Measured against the block kernel (H100, 6M tetrahedra,
 * double, atomic): Poisson 0.152 against 0.189 ms, elasticity 0.291 against
 * 0.407 ms; single precision computing in float is faster again. */
template <int K, typename S, typename R>
__device__ __forceinline__ R p1_lean_coef(const kparams &P, const p1tab &T, const cview &V, int c, int k,
                                          const R *w4) {
  if constexpr (K == FEINT_FIELD_NODE)
    return tab_wphi<R>(T, 0) * w4[0] + tab_wphi<R>(T, 1) * w4[1] + tab_wphi<R>(T, 2) * w4[2] +
           tab_wphi<R>(T, 3) * w4[3];
  else
    return tab_wsum<R>(T) * (K == FEINT_FIELD_CELL ? rd<S, R>(V.caux[k], c) : (R)P.aux_const[k]);
}

template <int NC, int KA, int KB, bool SG, int RW, typename S, typename R>
__device__ __forceinline__ void p1_lean_cell(const kparams &P, const p1tab &T, const cview &V, int c,
                                             const p1shared_t<R> &G, const int *vtx, const void *__restrict__ u,
                                             R *res) {
  R x[4][3], w4[4], ue[4][NC];
  int l[4]; /* local vertex indices (SG: the shared gather) or the node ids vtx */
#pragma unroll
  for (int k = 0; k < 4; k++) l[k] = SG ? (int)(G.li >> (8 * k) & 255) : vtx[k];
#pragma unroll
  for (int k = 0; k < 4; k++) {
    R r[4];
    if constexpr (SG && sizeof(R) == 4) {
      const float4 a = *(const float4 *)(G.rec + 4 * l[k]);
      r[0] = a.x, r[1] = a.y, r[2] = a.z, r[3] = a.w;
    } else if constexpr (SG) {
      const double2 a = *(const double2 *)(G.rec + RW * l[k]), b = *(const double2 *)(G.rec + RW * l[k] + 2);
      r[0] = a.x, r[1] = a.y, r[2] = b.x, r[3] = b.y;
    } else {
      p1_node<S>(P.xyzw, l[k], r);
    }
    x[k][0] = r[0], x[k][1] = r[1], x[k][2] = r[2], w4[k] = r[3];
    if constexpr (SG && RW > 4) { /* u inside the record: 16-byte loads */
      const double2 a = *(const double2 *)(G.rec + RW * l[k] + 4);
      ue[k][0] = a.x;
      if constexpr (NC == 3) {
        const double2 b = *(const double2 *)(G.rec + RW * l[k] + 6);
        ue[k][1] = a.y, ue[k][2] = b.x;
      }
    } else {
#pragma unroll
      for (int cc = 0; cc < NC; cc++) ue[k][cc] = SG ? G.u[l[k] * NC + cc] : rd<S, R>(u, (int64_t)l[k] * NC + cc);
    }
  }
  R J[9]; /* J[a * 3 + d] = d x_a / d xi_d */
#pragma unroll
  for (int a = 0; a < 3; a++)
#pragma unroll
    for (int d = 0; d < 3; d++) J[a * 3 + d] = x[d + 1][a] - x[0][a];
  R C[9]; /* C[d * 3 + a] = det J * d xi_d / d x_a */
  C[0] = J[4] * J[8] - J[5] * J[7];
  C[3] = J[5] * J[6] - J[3] * J[8];
  C[6] = J[3] * J[7] - J[4] * J[6];
  C[1] = J[2] * J[7] - J[1] * J[8];
  C[4] = J[0] * J[8] - J[2] * J[6];
  C[7] = J[1] * J[6] - J[0] * J[7];
  C[2] = J[1] * J[5] - J[2] * J[4];
  C[5] = J[2] * J[3] - J[0] * J[5];
  C[8] = J[0] * J[4] - J[1] * J[3];
  const R adet = fabs(J[0] * C[0] + J[1] * C[3] + J[2] * C[6]), rdet = (R)1 / adet;
  /* det grad u, then the flux (over |det|, with the coefficients), then C flux */
  R Gs[NC][3], Sg[NC][3];
#pragma unroll
  for (int cc = 0; cc < NC; cc++) {
    const R g0 = ue[1][cc] - ue[0][cc], g1 = ue[2][cc] - ue[0][cc], g2 = ue[3][cc] - ue[0][cc];
#pragma unroll
    for (int a = 0; a < 3; a++) Gs[cc][a] = C[a] * g0 + C[3 + a] * g1 + C[6 + a] * g2;
  }
  if constexpr (NC == 1) {
    const R kap = p1_lean_coef<KA, S, R>(P, T, V, c, 0, w4) * rdet;
#pragma unroll
    for (int a = 0; a < 3; a++) Sg[0][a] = kap * Gs[0][a];
  } else {
    const R lam = p1_lean_coef<KA, S, R>(P, T, V, c, 0, w4) * rdet,
            mu = p1_lean_coef<KB, S, R>(P, T, V, c, 1, w4) * rdet;
    const R ltr = lam * (Gs[0][0] + Gs[1][1] + Gs[2][2]);
#pragma unroll
    for (int cc = 0; cc < NC; cc++)
#pragma unroll
      for (int a = 0; a < 3; a++) Sg[cc][a] = mu * (Gs[cc][a] + Gs[a][cc]) + (a == cc ? ltr : (R)0);
  }
#pragma unroll
  for (int cc = 0; cc < NC; cc++) {
    R h0 = 0;
#pragma unroll
    for (int d = 0; d < 3; d++) {
      const R h = C[d * 3] * Sg[cc][0] + C[d * 3 + 1] * Sg[cc][1] + C[d * 3 + 2] * Sg[cc][2];
      res[(d + 1) * NC + cc] = h;
      h0 += h;
    }
    res[cc] = -h0;
  }
  /* the source: res_i = -|det| sum_q w_q phi_i(q) f(x_q) */
  const int so = feint_physics_source_offset(NC == 1 ? FEINT_PW_POISSON : FEINT_PW_ELASTICITY, 3);
#pragma unroll
  for (int cc = 0; cc < NC; cc++) {
    const int k = so + cc, kind = P.aux_kind[k];
    if (kind == FEINT_FIELD_NODE) {
      R f[4];
#pragma unroll
      for (int j = 0; j < 4; j++) f[j] = k == P.wa ? w4[j] : rd<S, R>(P.aux_vals[k], SG ? G.node[l[j]] : l[j]);
#pragma unroll
      for (int i = 0; i < 4; i++)
        res[i * NC + cc] -= adet * (tab_mass<R>(T, i, 0) * f[0] + tab_mass<R>(T, i, 1) * f[1] +
                                    tab_mass<R>(T, i, 2) * f[2] + tab_mass<R>(T, i, 3) * f[3]);
    } else {
      const R f = adet * (kind == FEINT_FIELD_CELL ? rd<S, R>(V.caux[k], c) : (R)P.aux_const[k]);
#pragma unroll
      for (int i = 0; i < 4; i++) res[i * NC + cc] -= tab_wphi<R>(T, i) * f;
    }
  }
}

/* How the lean kernel reaches the cells' vertices: the shared gather
 * (p1_chunk_gather), or each cell from global memory (one int4 of vertex
 * ids, two double2 per vertex record). Measured: for
 * Poisson global is 3-7% faster for the atomic and gather strategies (no
 * gather phase and barrier), the shared gather 5% faster for colored (a
 * colour's chunks are far apart, so their vertices miss in L1); for
 * double elasticity the shared gather with u inside the records
 * (p1_lean_rw) is faster for atomic (0.274 against 0.281 ms) and gather
 * (0.323 against 0.342) too, so it is its default for every strategy
 * (LEAN_SHARED, LEAN_GLOBAL: fused.cuh) */

/* Shared-gather record width (values of R) of the lean kernels: with PK
 * in double, u inside the record and the stride chosen so that a warp's
 * 16-byte record loads spread over all 8 bank quads (48 bytes: 12 words,
 * 12 l mod 32 takes 8 values 4 apart; 80 bytes for elasticity), instead of
 * 32-byte records (4 quads: 2-way conflicts) and a separate u; float
 * records are 16 bytes (8 quads already). */
template <int NC, typename R, bool PK>
__host__ __device__ constexpr int p1_lean_rw() {
  return PK && sizeof(R) == 8 ? (NC == 1 ? 6 : 10) : 4;
}

__device__ __forceinline__ void prefetch_l2(const void *p) {
  asm volatile("prefetch.global.L2 [%0];" ::"l"(__cvta_generic_to_global(p)));
}

/* The lean kernels' prefetch (B.pf_ahead > 0; by default in double): a chunk's first
 * reads (its cells' vertex ids, the plan's chunk pointer, targets, target
 * ends and entry map, the local indices of the shared gather) go to DRAM
 * one dependent round trip ahead of everything else (30% of the Poisson
 * kernel's stall samples in a profile), so each block asks L2 for those
 * lines of the chunk pf_ahead launches later (about one wave of resident
 * blocks ahead), one line per thread: no registers held, nothing waits on
 * it. Measured: Poisson -5% atomic, -10% gather; elasticity even; a
 * form that also prefetched the per-cell coefficients (into L2 and
 * the cell's own into L1) and the nodal fields into L1 was slower. */
template <bool SG>
__device__ __forceinline__ void p1_lean_prefetch(const kparams &P, const cview &V, const bview &B,
                                                 const int *chunks) {
  const int t = threadIdx.x, cb = B.cb;
  const int bn = (int)blockIdx.x + B.pf_ahead;
  if (chunks || bn >= B.n_chunks) return;
  const int64_t c0 = (int64_t)bn * cb;
  const int64_t nleft = P.n_cells - c0; /* cells of chunk bn */
  const int est = (int)((float)bn * B.tpc); /* its first target, about */
  if (t < 32) { /* vertex ids: 16 B per cell, 8 cells a line */
    if (t * 8 < nleft) prefetch_l2((const int4 *)V.cells + c0 + t * 8);
  } else if (t < 48) { /* entry map: 8 B per cell, 16 a line */
    const int r = t - 32;
    if (r * 16 < nleft) prefetch_l2(B.ient + c0 * 4 + r * 64);
  } else if (t < 56) { /* local indices: 4 B per cell */
    const int r = t - 48;
    if (SG && r * 32 < nleft) prefetch_l2(B.lidx + c0 + r * 32);
  } else if (t == 56) {
    prefetch_l2(B.uptr + bn);
  } else if (t < 66) { /* targets, 32 a line, from a line before the estimate */
    prefetch_l2(B.tgt + min(B.n_tgt - 1, max(0, est - 32 + (t - 57) * 32)));
  } else if (t < 72) { /* target ends, 64 a line */
    prefetch_l2(B.iend + min(B.n_tgt - 1, max(0, est - 64 + (t - 66) * 64)));
  }
}

/* Blocks of 256 per SM. Double: 4 (64 registers) for Poisson and for
 * elasticity too (a 16-32-byte spill there, measured 10% faster than 3
 * blocks at 80 registers and 25% faster than 2 at 96). Float:
 * 4 for Poisson (48 registers: 5 blocks fit), 8 for Poisson colored (32
 * registers, a small spill; a colour's launches are short, so more resident
 * blocks fill the machine: 0.143 against 0.164 ms), 6 for elasticity (40
 * registers, a 12-32-byte spill; 0.202 against 0.213 ms atomic, 0.260
 * against 0.309 colored). */
template <int NC, typename R>
constexpr int p1_lean_minb(bool colored) {
  return sizeof(R) == 8 ? 4 : NC > 1 ? 6 : colored ? 8 : 4;
}

template <int NC, int KA, int KB, int GATHER, int MINB, typename S, typename R, bool PK = false>
__global__ void __launch_bounds__(256, MINB) p1_lean_kernel(
    kparams P, p1tab T, cview V, bview B, const int *__restrict__ chunks, int mode, int with_state,
    const void *__restrict__ u, void *__restrict__ out) {
  constexpr int NE = 4;
  constexpr bool SG = GATHER == LEAN_SHARED;
  constexpr int RW = p1_lean_rw<NC, R, PK>();
  extern __shared__ double shm[]; /* as p1_block_kernel's, entries and records of type R */
  R *elem = (R *)shm;
  const int b = chunks ? __ldg(chunks + blockIdx.x) : (int)blockIdx.x;
  const int cb = B.cb, t = threadIdx.x;
  const int c = b * cb + t;
  int vtx[4] = {0, 0, 0, 0};
  p1shared_t<R> G = {};
  if (B.pf_ahead) p1_lean_prefetch<SG>(P, V, B, chunks);
  if (SG) G.li = c < P.n_cells ? __ldg(B.lidx + c) : 0;
  if (!SG && c < P.n_cells) p1_vertices<3>(V, c, vtx);
  p1chunk K = p1_chunk_begin<NE, NC>(B, b, elem);
  if (SG) p1_chunk_gather<NE, NC, S, RW>(P, B, K, with_state, u, G);
  if (c < P.n_cells) {
    R res[4 * NC];
    p1_lean_cell<NC, KA, KB, SG, RW, S, R>(P, T, V, c, G, vtx, u, res);
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
      for (int cc = 0; cc < NC; cc++) elem[(cc * 4 + i) * cb + t] = res[i * NC + cc];
  }
  p1_chunk_flush<NE, NC, S>(B, K, elem, mode, out);
}

/* The pipelined lean Poisson kernel (double precision, the atomic and
 * gather strategies: launches over all chunks in plan order; the default
 * there, FEINT_CUDA_LEAN_PIPE=0 turns it off): the lean kernel's cell
 * arithmetic and walk flush, with the shared gather, as a persistent,
 * software-pipelined loop. A block walks chunks b, b + G, b + 2G, ... (G
 * the grid) and, while it computes chunk b, the copy engine of the SM
 * fetches what the next chunks need by cp.async into shared memory (no
 * registers held): chunk b + G's node records and u (its distinct
 * vertices, from the plan already staged), and chunk b + 2G's plan (the
 * inverse map, local indices, targets, target ends) with chunk b + 3G's
 * plan pointers. So the dependent DRAM round trips (plan -> vertex ids ->
 * records) leave the chunk's critical path, which the one-chunk-per-block
 * kernel has to wait out (58% of its stall samples in a profile).
 * Stages: plan 3 (b, b + G, b + 2G), records 2 (b, b + G); 46 KB of shared
 * memory and 64 registers: 4 blocks per SM, the grid one wave of them.
 * Measured: the Gmsh cube 12-15% faster (atomic 0.197
 * against 0.231 ms, gather 0.222 against 0.252), the Kuhn cube 0-5%. */
constexpr int PIPE_NE = 4, PIPE_RW = 6; /* PIPE_CB: fused.cuh */
struct __align__(16) pipe_plan { /* one chunk's plan in shared memory */
  uint16_t ient[PIPE_CB * PIPE_NE];
  uint32_t lidx[PIPE_CB];
  int tgt[256];
  uint16_t iend[256 + 4]; /* from an aligned word: first at iend[ioff] */
  int u0, nu, ioff, next_u[2]; /* next_u: the plan pointers of chunk + G (uptr[b + G], uptr[b + G + 1]) */
};
struct pipe_shared {
  double elem[PIPE_CB * PIPE_NE];
  double rec[2][256 * PIPE_RW];
  pipe_plan plan[3];
};

__device__ __forceinline__ void cp_async4(void *dst, const void *src) { __pipeline_memcpy_async(dst, src, 4); }

/* Issue chunk b's plan into Pl (Pl.u0 and Pl.nu already set, from the
 * previous stage's next_u) and chunk b + G's plan pointers. */
__device__ __forceinline__ void pipe_issue_plan(const bview &B, int b, int G, pipe_plan &Pl) {
  const int t = threadIdx.x;
  const uint16_t *gient = B.ient + (size_t)b * PIPE_CB * PIPE_NE;
  if (t < PIPE_CB * PIPE_NE / 8) __pipeline_memcpy_async(Pl.ient + t * 8, gient + t * 8, 16);
  if (t < PIPE_CB / 4) __pipeline_memcpy_async(Pl.lidx + t * 4, B.lidx + (size_t)b * PIPE_CB + t * 4, 16);
  const int u0 = Pl.u0, nu = Pl.nu;
  if (t == 0) Pl.ioff = u0 & 1;
  if (t < nu) cp_async4(Pl.tgt + t, B.tgt + u0 + t);
  const int w0 = u0 >> 1, nw = ((u0 + nu + 1) >> 1) - w0; /* iend as aligned 4-byte words */
  if (t < nw) cp_async4(Pl.iend + 2 * t, B.iend + 2 * (w0 + t));
  const int bn = b + G;
  if (t == 0 && bn < B.n_chunks) {
    cp_async4(Pl.next_u + 0, B.uptr + bn);
    cp_async4(Pl.next_u + 1, B.uptr + bn + 1);
  }
}

/* Issue the node records and u of the chunk whose plan is Pl into rec. */
__device__ __forceinline__ void pipe_issue_records(const kparams &P, const pipe_plan &Pl, int with_state,
                                                   const void *u, double *rec) {
  const int t = threadIdx.x;
  if (t < Pl.nu) {
    const int nd = Pl.tgt[t];
    const double *x = (const double *)P.xyzw + (size_t)nd * 4;
    __pipeline_memcpy_async(rec + t * PIPE_RW, x, 16);
    __pipeline_memcpy_async(rec + t * PIPE_RW + 2, x + 2, 16);
    if (with_state)
      __pipeline_memcpy_async(rec + t * PIPE_RW + 4, (const double *)u + nd, 8);
    else
      rec[t * PIPE_RW + 4] = 0;
  }
}

template <int KA>
__global__ void __launch_bounds__(256, 4) p1_lean_pipe_kernel(kparams P, p1tab T, cview V, bview B,
                                                              const int *__restrict__ chunks, int mode,
                                                              int with_state, const void *__restrict__ u,
                                                              void *__restrict__ out) {
  (void)chunks;
  extern __shared__ double shm[];
  pipe_shared &S = *(pipe_shared *)shm;
  const int t = threadIdx.x, G = gridDim.x, b0 = blockIdx.x;
  /* prologue: plans of b0 and b0 + G, records of b0 */
  if (t == 0) {
    S.plan[0].u0 = __ldg(B.uptr + b0);
    S.plan[0].nu = __ldg(B.uptr + b0 + 1) - S.plan[0].u0;
  }
  __syncthreads();
  pipe_issue_plan(B, b0, G, S.plan[0]);
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
  if (b0 + G < B.n_chunks) {
    if (t == 0) {
      S.plan[1].u0 = S.plan[0].next_u[0];
      S.plan[1].nu = S.plan[0].next_u[1] - S.plan[0].next_u[0];
    }
  }
  __syncthreads();
  pipe_issue_records(P, S.plan[0], with_state, u, S.rec[0]);
  if (b0 + G < B.n_chunks) pipe_issue_plan(B, b0 + G, G, S.plan[1]);
  __pipeline_commit();
  int it = 0;
  for (int b = b0; b < B.n_chunks; b += G, it++) {
    const int ps = it % 3, rs = it & 1;
    pipe_plan &Pl = S.plan[ps];
    pipe_plan &Pn = S.plan[(it + 1) % 3];
    pipe_plan &Pnn = S.plan[(it + 2) % 3];
    __pipeline_wait_prior(0); /* records of b, plan of b + G (issued a chunk ago) */
    __syncthreads();
    const bool has_n = b + G < B.n_chunks, has_nn = b + 2 * G < B.n_chunks;
    if (has_nn && t == 0) { /* plan pointers of b + 2G, fetched with b + G's plan */
      Pnn.u0 = Pn.next_u[0];
      Pnn.nu = Pn.next_u[1] - Pn.next_u[0];
    }
    if (has_n) pipe_issue_records(P, Pn, with_state, u, S.rec[rs ^ 1]);
    __syncthreads(); /* Pnn.u0 / nu visible */
    if (has_nn) pipe_issue_plan(B, b + 2 * G, G, Pnn);
    __pipeline_commit();
    /* the chunk's cells */
    const int c = b * PIPE_CB + t;
    if (c < P.n_cells) {
      p1shared_t<double> Gs;
      Gs.rec = S.rec[rs];
      Gs.u = S.rec[rs] + 4;
      Gs.node = Pl.tgt;
      Gs.li = Pl.lidx[t];
      double res[4];
      p1_lean_cell<1, KA, 0, true, PIPE_RW, double, double>(P, T, V, c, Gs, NULL, u, res);
#pragma unroll
      for (int i = 0; i < 4; i++) S.elem[i * PIPE_CB + t] = res[i];
    }
    __syncthreads();
    /* the walk over the chunk's targets, as p1_chunk_flush */
    for (int k = t; k < Pl.nu; k += PIPE_CB) {
      const int j0 = k ? Pl.iend[Pl.ioff + k - 1] : 0, j1 = Pl.iend[Pl.ioff + k];
      p1_put_target<1, double>(S.elem, 0, Pl.ient, j0, j1, mode == OUT_BUFFER ? Pl.u0 + k : Pl.tgt[k], mode, out);
    }
    __syncthreads(); /* elem, this plan stage and these records are free again */
  }
}

/* The lean residual kernel for the form's stiffness coefficient kinds
 * (p1_lean_kernel): P1 tetrahedra, Poisson or elasticity, the standard
 * simplex, dofs = vertices (interleaved), a nodal stiffness coefficient
 * only as the packed one (P.wa); else NULL. Double precision computes in
 * double; single in float (*real = 4), or in double from the float storage
 * with FEINT_CUDA_LEAN_REAL=double (*real = 8). The vertex gather: shared
 * for colored and for elasticity in double, global otherwise, the shared
 * records with u inside in double (*rw, p1_lean_rw; FEINT_CUDA_LEAN_PACK=0:
 * u in its own array); blocks per SM p1_lean_minb. For tuning,
 * FEINT_CUDA_LEAN_MODE=0 (shared) or 1 (global) forces a gather, and
 * FEINT_CUDA_LEAN_MINB the blocks of 256 per SM of the benchmark's kinds
 * (nodal kappa; nodal lambda, per-cell mu): 3 in double (80 registers
 * instead of 64), 4, 6 or 8 computing in float (64 / 40 / 32 registers).
 * The kernels prefetch the plan and vertex ids *pf chunks ahead
 * (p1_lean_prefetch): in double one wave of resident blocks (4 x SMs) by
 * default, in single not by default (unmeasured there);
 * FEINT_CUDA_LEAN_PF=N sets the distance (0: off, for same-run comparisons). */
typedef struct {
  int gather, minb; /* LEAN_SHARED / LEAN_GLOBAL; FEINT_CUDA_LEAN_MINB (0: default) */
  bool colored, pack; /* strategy colored; shared records with u inside (p1_lean_rw) */
} lean_choice;
/* Which instances a build holds: by default the kernels the choice below
 * makes without tuning knobs (per configuration its gather, packing,
 * compute type and blocks per SM); with make EXPERIMENTS=1 also those the
 * FEINT_CUDA_LEAN_* knobs force (tuning.c refuses them otherwise). */
#ifdef FEINT_EXPERIMENTS
static constexpr bool lean_experiments = true;
#else
static constexpr bool lean_experiments = false;
#endif

template <int NC, int KA, int KB, int MINB, typename S, typename R>
static blk_kernel_t lean_gm(const lean_choice &L) {
  /* elasticity in double gathers through shared memory unless forced */
  constexpr bool GLOBAL_BUILT = lean_experiments || NC == 1 || sizeof(S) == 4;
  if constexpr (GLOBAL_BUILT)
    if (L.gather == LEAN_GLOBAL) return p1_lean_kernel<NC, KA, KB, LEAN_GLOBAL, MINB, S, R>;
  if constexpr (sizeof(R) == 8)
    if (L.pack || !lean_experiments) return p1_lean_kernel<NC, KA, KB, LEAN_SHARED, MINB, S, R, true>;
  if constexpr (sizeof(R) == 4 || lean_experiments) return p1_lean_kernel<NC, KA, KB, LEAN_SHARED, MINB, S, R>;
  return NULL;
}
template <int NC, int KA, int KB, typename S, typename R>
static blk_kernel_t lean_g(const lean_choice &L) {
  constexpr int N = FEINT_FIELD_NODE, C = FEINT_FIELD_CELL;
  constexpr bool bench = lean_experiments && KA == N && (NC == 1 || KB == C);
  if constexpr (bench && sizeof(R) == 8)
    if (L.minb == 3) return lean_gm<NC, KA, KB, 3, S, R>(L);
  if constexpr (bench && sizeof(R) == 4) {
    if (L.minb == 4) return lean_gm<NC, KA, KB, 4, S, R>(L);
    if (L.minb == 6) return lean_gm<NC, KA, KB, 6, S, R>(L);
    if (L.minb == 8) return lean_gm<NC, KA, KB, 8, S, R>(L);
  }
  if constexpr (p1_lean_minb<NC, R>(true) != p1_lean_minb<NC, R>(false))
    if (L.colored) return lean_gm<NC, KA, KB, p1_lean_minb<NC, R>(true), S, R>(L);
  return lean_gm<NC, KA, KB, p1_lean_minb<NC, R>(false), S, R>(L);
}
template <int NC, int KA, typename S, typename R>
static blk_kernel_t lean_kb(int kb, const lean_choice &L) {
  if constexpr (NC == 1)
    return lean_g<1, KA, 0, S, R>(L);
  else
    return kb == 0 ? lean_g<NC, KA, 0, S, R>(L) : kb == 1 ? lean_g<NC, KA, 1, S, R>(L) : lean_g<NC, KA, 2, S, R>(L);
}
template <int NC, typename S, typename R>
static blk_kernel_t lean_ka(int ka, int kb, const lean_choice &L) {
  return ka == 0 ? lean_kb<NC, 0, S, R>(kb, L) : ka == 1 ? lean_kb<NC, 1, S, R>(kb, L) : lean_kb<NC, 2, S, R>(kb, L);
}
template <int NC>
static blk_kernel_t lean_types(int single, int real, int ka, int kb, const lean_choice &L) {
  if (!single) return lean_ka<NC, double, double>(ka, kb, L);
  if constexpr (lean_experiments)
    if (real == 8) return lean_ka<NC, float, double>(ka, kb, L);
  return lean_ka<NC, float, float>(ka, kb, L);
}
blk_kernel_t pick_lean(const cuda_data *d, const feint_problem *p, int *gather, int *real, int *rw,
                              int *pf) {
  const kparams &P = d->P;
  const feint_form *f = p->form;
  const feint_cuda_tuning &tu = d->tune;
  *real = *pf = 0;
  if (!tu.lean || P.dim != 3 || !d->p1blk[0] || !d->T.std || !P.sd_cells || !P.interleaved || !P.xyzw)
    return NULL;
  const int poisson = P.physics == FEINT_PW_POISSON && P.nc == 1;
  if (!poisson && !(P.physics == FEINT_PW_ELASTICITY && P.nc == 3)) return NULL;
  const int ns = poisson ? 1 : 2; /* stiffness coefficients: kappa; lambda, mu */
  for (int k = 0; k < ns; k++)
    if (f->aux[k].kind == FEINT_FIELD_NODE && P.wa != k) return NULL;
  const int ka = (int)f->aux[0].kind, kb = poisson ? 0 : (int)f->aux[1].kind;
  lean_choice L;
  L.colored = p->strategy == FEINT_ASSEMBLY_COLORED;
  L.gather = L.colored || (!poisson && !d->single) ? LEAN_SHARED : LEAN_GLOBAL;
  if (tu.lean_gather >= 0) L.gather = tu.lean_gather;
  L.minb = tu.lean_minb;
  *real = d->single && tu.lean_real != 8 ? 4 : 8;
  L.pack = tu.lean_pack;
  *pf = tu.lean_prefetch >= 0 ? tu.lean_prefetch : d->single ? 0 : p1_lean_minb<1, double>(false) * d->sm_count;
  *gather = L.gather;
  *rw = L.gather != LEAN_SHARED ? 4
        : L.pack && *real == 8 ? (poisson ? p1_lean_rw<1, double, true>() : p1_lean_rw<3, double, true>())
                               : 4;
  return poisson ? lean_types<1>(d->single, *real, ka, 0, L) : lean_types<3>(d->single, *real, ka, kb, L);
}

/* The pipelined Poisson kernel for the kind of kappa (0 constant, 1 per
 * cell, 2 nodal) and its shared memory. */
blk_kernel_t lean_pipe_kernel(int ka) {
  return ka == 0 ? p1_lean_pipe_kernel<0> : ka == 1 ? p1_lean_pipe_kernel<1> : p1_lean_pipe_kernel<2>;
}

size_t lean_pipe_shmem(void) { return sizeof(pipe_shared); }
