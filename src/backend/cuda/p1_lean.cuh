/* The lean P1 tetrahedron residual kernels' machinery (kernels_lean.cu
 * describes them): the chunk walk of p1.cuh with a vertex gather from
 * global memory or the shared gather (records with u inside), an L2
 * prefetch of later chunks' plans, and the pipelined persistent walk; the
 * cell's arithmetic is the caller's (a Cell type with a static member
 * template compute<NC, SG, RW, S, R>(P, T, V, c, G, vtx, u, res)): the
 * built-in Poisson and elasticity cells (kernels_lean.cu) or a user form
 * (p1_form.cuh). Inline device templates only; NVRTC compiles this file
 * too: no system header. */
#ifndef FEINT_CUDA_P1_LEAN_CUH
#define FEINT_CUDA_P1_LEAN_CUH

#include "backend/cuda/p1.cuh"

/* A tetrahedron's vertices (x), packed nodal coefficient (w4) and u (ue,
 * NC components) in the compute type R, from the shared gather G (SG;
 * records of RW values, u inside where RW > 4) or from global memory (vtx
 * the node ids); l: the local vertex indices (SG) or the node ids. */
template <int NC, bool SG, int RW, typename S, typename R>
__device__ __forceinline__ void p1_lean_load(const kparams &P, const p1shared_t<R> &G, const int *vtx,
                                             const void *__restrict__ u, R (*x)[3], R *w4, R (*ue)[NC], int *l) {
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
}

/* The cofactors C[d * 3 + a] = det J * d xi_d / d x_a of the map from the
 * standard tetrahedron to the one with vertices x; returns det J (signed). */
template <typename R>
__device__ __forceinline__ R p1_lean_cofactors(const R (*x)[3], R *C) {
  R J[9]; /* J[a * 3 + d] = d x_a / d xi_d */
#pragma unroll
  for (int a = 0; a < 3; a++)
#pragma unroll
    for (int d = 0; d < 3; d++) J[a * 3 + d] = x[d + 1][a] - x[0][a];
  C[0] = J[4] * J[8] - J[5] * J[7];
  C[3] = J[5] * J[6] - J[3] * J[8];
  C[6] = J[3] * J[7] - J[4] * J[6];
  C[1] = J[2] * J[7] - J[1] * J[8];
  C[4] = J[0] * J[8] - J[2] * J[6];
  C[7] = J[1] * J[6] - J[0] * J[7];
  C[2] = J[1] * J[5] - J[2] * J[4];
  C[5] = J[2] * J[3] - J[0] * J[5];
  C[8] = J[0] * J[4] - J[1] * J[3];
  return J[0] * C[0] + J[1] * C[3] + J[2] * C[6];
}

/* The gradient of the P1 field with vertex values v0..v3, g = C^T (v1 -
 * v0, v2 - v0, v3 - v0) / det (C the cofactors, rdet = 1 / det). */
template <typename R>
__device__ __forceinline__ void p1_lean_gradient(const R *C, R rdet, R v0, R v1, R v2, R v3, R *g) {
  const R d0 = v1 - v0, d1 = v2 - v0, d2 = v3 - v0;
#pragma unroll
  for (int a = 0; a < 3; a++) g[a] = rdet * (C[a] * d0 + C[3 + a] * d1 + C[6 + a] * d2);
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
 * (LEAN_SHARED, LEAN_GLOBAL: p1_types.cuh) */

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
__host__ __device__ constexpr int p1_lean_minb(bool colored) {
  return sizeof(R) == 8 ? 4 : NC > 1 ? 6 : colored ? 8 : 4;
}


/* The lean kernel's body: chunk b's plan (and the shared gather where SG),
 * each thread's cell by Cell::compute into shared memory (entries of type
 * R), and the flush. */
template <int NC, bool SG, int RW, typename S, typename R, typename Cell>
__device__ __forceinline__ void p1_lean_block(const kparams &P, const p1tab &T, const cview &V, const bview &B,
                                              const int *__restrict__ chunks, int mode, int with_state,
                                              const void *__restrict__ u, void *__restrict__ out) {
  constexpr int NE = 4;
  extern __shared__ double shm[]; /* as p1_block's, entries and records of type R */
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
    Cell::template compute<NC, SG, RW, S, R>(P, T, V, c, G, vtx, u, res);
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
constexpr int PIPE_NE = 4, PIPE_RW = 6; /* PIPE_CB: p1_types.cuh */
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

/* Issue chunk b's plan into Pl (Pl.u0 and Pl.nu already set, from the
 * previous stage's next_u) and chunk b + G's plan pointers. */
__device__ __forceinline__ void pipe_issue_plan(const bview &B, int b, int G, pipe_plan &Pl) {
  const int t = threadIdx.x;
  const uint16_t *gient = B.ient + (size_t)b * PIPE_CB * PIPE_NE;
  if (t < PIPE_CB * PIPE_NE / 8) feint_cp_async<16>(Pl.ient + t * 8, gient + t * 8);
  if (t < PIPE_CB / 4) feint_cp_async<16>(Pl.lidx + t * 4, B.lidx + (size_t)b * PIPE_CB + t * 4);
  const int u0 = Pl.u0, nu = Pl.nu;
  if (t == 0) Pl.ioff = u0 & 1;
  if (t < nu) feint_cp_async<4>(Pl.tgt + t, B.tgt + u0 + t);
  const int w0 = u0 >> 1, nw = ((u0 + nu + 1) >> 1) - w0; /* iend as aligned 4-byte words */
  if (t < nw) feint_cp_async<4>(Pl.iend + 2 * t, B.iend + 2 * (w0 + t));
  const int bn = b + G;
  if (t == 0 && bn < B.n_chunks) {
    feint_cp_async<4>(Pl.next_u + 0, B.uptr + bn);
    feint_cp_async<4>(Pl.next_u + 1, B.uptr + bn + 1);
  }
}

/* Issue the node records and u of the chunk whose plan is Pl into rec. */
__device__ __forceinline__ void pipe_issue_records(const kparams &P, const pipe_plan &Pl, int with_state,
                                                   const void *u, double *rec) {
  const int t = threadIdx.x;
  if (t < Pl.nu) {
    const int nd = Pl.tgt[t];
    const double *x = (const double *)P.xyzw + (size_t)nd * 4;
    feint_cp_async<16>(rec + t * PIPE_RW, x);
    feint_cp_async<16>(rec + t * PIPE_RW + 2, x + 2);
    if (with_state)
      feint_cp_async<8>(rec + t * PIPE_RW + 4, (const double *)u + nd);
    else
      rec[t * PIPE_RW + 4] = 0;
  }
}

/* The pipelined kernel's body (launch_bounds (256, 4), PIPE_CB threads,
 * sizeof(pipe_shared) bytes of dynamic shared memory, one wave of
 * resident blocks). */
template <typename Cell>
__device__ __forceinline__ void p1_lean_pipe(const kparams &P, const p1tab &T, const cview &V, const bview &B,
                                             int mode, int with_state, const void *__restrict__ u,
                                             void *__restrict__ out) {
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
  feint_cp_commit();
  feint_cp_wait_all();
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
  feint_cp_commit();
  int it = 0;
  for (int b = b0; b < B.n_chunks; b += G, it++) {
    const int ps = it % 3, rs = it & 1;
    pipe_plan &Pl = S.plan[ps];
    pipe_plan &Pn = S.plan[(it + 1) % 3];
    pipe_plan &Pnn = S.plan[(it + 2) % 3];
    feint_cp_wait_all(); /* records of b, plan of b + G (issued a chunk ago) */
    __syncthreads();
    const bool has_n = b + G < B.n_chunks, has_nn = b + 2 * G < B.n_chunks;
    if (has_nn && t == 0) { /* plan pointers of b + 2G, fetched with b + G's plan */
      Pnn.u0 = Pn.next_u[0];
      Pnn.nu = Pn.next_u[1] - Pn.next_u[0];
    }
    if (has_n) pipe_issue_records(P, Pn, with_state, u, S.rec[rs ^ 1]);
    __syncthreads(); /* Pnn.u0 / nu visible */
    if (has_nn) pipe_issue_plan(B, b + 2 * G, G, Pnn);
    feint_cp_commit();
    /* the chunk's cells */
    const int c = b * PIPE_CB + t;
    if (c < P.n_cells) {
      p1shared_t<double> Gs;
      Gs.rec = S.rec[rs];
      Gs.u = S.rec[rs] + 4;
      Gs.node = Pl.tgt;
      Gs.li = Pl.lidx[t];
      double res[4];
      Cell::template compute<1, true, PIPE_RW, double, double>(P, T, V, c, Gs, nullptr, u, res);
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

#endif
