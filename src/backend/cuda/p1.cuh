/* Device code the P1 one-thread-per-cell kernels share (kernels_p1.cu,
 * kernels_lean.cu, and the paper's benchmark kernel in paper.cu): a cell's
 * data in registers (p1cell, p1_load), the node records, and the chunk
 * machinery of the block-local aggregation (p1_chunk_begin, _gather,
 * _flush), described below. Inline device templates only; NVRTC compiles
 * this file too (the user-form P1 kernels, p1_form.cuh): no system header. */
#ifndef FEINT_CUDA_P1_CUH
#define FEINT_CUDA_P1_CUH

#include "backend/cuda/p1_types.cuh"
#include "feint/geometry.h"

/* The lean kernels' tables in their compute type R. */
template <typename R>
__device__ __forceinline__ R tab_wphi(const p1tab &T, int i) {
  if constexpr (sizeof(R) == 4) return T.f.wphi[i];
  else return T.wphi[i];
}
template <typename R>
__device__ __forceinline__ R tab_mass(const p1tab &T, int i, int j) {
  if constexpr (sizeof(R) == 4) return T.f.mass[i][j];
  else return T.mass[i][j];
}
template <typename R>
__device__ __forceinline__ R tab_wsum(const p1tab &T) {
  if constexpr (sizeof(R) == 4) return T.f.wsum;
  else return T.wsum;
}

template <int DIM, int NC, int NAUX>
struct p1cell {
  static constexpr int NB = DIM + 1, NBC = NB * NC;
  int sd[NB];
  double adet;
  double invJ[DIM * DIM]; /* d xi_d / d x_a at [d * DIM + a]; the basis gradients are never stored (registers) */
  double ue[NBC];
  double av[NAUX][NB]; /* nodal coefficient values */
  double ac[NAUX];     /* constant / per-cell coefficient values */
};

/* A node's packed record: x, y, z and the packed nodal coefficient
 * (P.wa): one 16-byte load in single, two in double (one 32-byte sector);
 * v4 in the compute type R. */
template <typename S, typename R>
__device__ __forceinline__ void p1_node(const void *xyzw, int node, R *v4) {
  if constexpr (sizeof(S) == 4) {
    const float4 a = __ldg((const float4 *)xyzw + node);
    v4[0] = a.x, v4[1] = a.y, v4[2] = a.z, v4[3] = a.w;
  } else {
    const double2 a = __ldg((const double2 *)xyzw + 2 * node), b = __ldg((const double2 *)xyzw + 2 * node + 1);
    v4[0] = a.x, v4[1] = a.y, v4[2] = b.x, v4[3] = b.y;
  }
}

template <int DIM>
__device__ __forceinline__ void p1_vertices(const cview &V, int c, int *vtx) {
  constexpr int NB = DIM + 1;
  if (DIM == 3) {
    const int4 q4 = __ldg((const int4 *)(V.cells) + c);
    vtx[0] = q4.x;
    vtx[1] = q4.y;
    vtx[2] = q4.z;
    vtx[NB - 1] = q4.w;
  } else {
#pragma unroll
    for (int i = 0; i < NB; i++) vtx[i] = __ldg(V.cells + (size_t)c * NB + i);
  }
}

/* The block kernels' shared gather (vectors): the chunk's
 * distinct vertices' node records, u and node ids in shared memory (records
 * and u in the type RT: double, float for the lean kernels computing in
 * float), and the cell's local vertex indices (4 x uint8); rec == NULL:
 * read the cell's vertices from global memory. */
template <typename RT>
struct p1shared_t {
  const RT *rec, *u;
  const int *node;
  uint32_t li;
};
typedef p1shared_t<double> p1shared;

/* Cell c's coefficient values into C: per-cell and constant ones (ac),
 * nodal ones at its vertices C.sd (av; the packed one, wa, from wv: the
 * vertices' records), and with CN (user forms) those given per cell's
 * nodes (FEINT_FIELD_CELL_NODE: a value per physical group, DIM + 1 a
 * cell in the view V) into av too. kind(k): coefficient k's kind
 * (P.aux_kind, or constants where a kernel is generated for them). */
template <int DIM, int NC, int NAUX, typename S, bool CN = false, typename W, typename Kind>
__device__ __forceinline__ void p1_load_coefficients(const kparams &P, const cview &V, int c, const W *wv, int wa,
                                                     Kind kind, p1cell<DIM, NC, NAUX> &C) {
#pragma unroll
  for (int k = 0; k < NAUX; k++) {
    const int kd = kind(k);
    C.ac[k] = kd == FEINT_FIELD_CELL ? rd<S>(V.caux[k], c) : P.aux_const[k];
#pragma unroll
    for (int i = 0; i < DIM + 1; i++)
      C.av[k][i] = CN && kd == FEINT_FIELD_CELL_NODE ? rd<S>(V.caux[k], (int64_t)c * (DIM + 1) + i)
                   : kd != FEINT_FIELD_NODE          ? 0.0
                   : k == wa                         ? (double)wv[i]
                                                     : rd<S>(P.aux_vals[k], C.sd[i]);
  }
}

/* Cell c's data into C (u where with_state), its vertices' coordinates
 * into v[k * 3 + a] (k < DIM + 1): from the shared gather G where it
 * holds them, else from global memory. */
template <int DIM, int NC, int NAUX, typename S, bool CN = false>
__device__ __forceinline__ void p1_load_vertices(const kparams &P, const p1tab &T, const cview &V, int c,
                                                 int with_state, const void *__restrict__ u,
                                                 p1cell<DIM, NC, NAUX> &C, double *v,
                                                 const p1shared &G = p1shared{}) {
  constexpr int NB = DIM + 1, NBC = NB * NC;
  double wv[NB];
  if (G.rec) { /* P.sd_cells and P.interleaved: the scalar dofs are the vertices */
#pragma unroll
    for (int k = 0; k < NB; k++) {
      const int l = (int)(G.li >> (8 * k) & 255);
      const double2 a = *(const double2 *)(G.rec + 4 * l), b = *(const double2 *)(G.rec + 4 * l + 2);
      v[k * 3 + 0] = a.x;
      v[k * 3 + 1] = a.y;
      v[k * 3 + 2] = DIM == 3 ? b.x : 0.0;
      wv[k] = b.y;
      C.sd[k] = G.node[l];
#pragma unroll
      for (int cc = 0; cc < NC; cc++) C.ue[k * NC + cc] = G.u[l * NC + cc];
    }
  } else {
    int vtx[NB];
    p1_vertices<DIM>(V, c, vtx);
#pragma unroll
    for (int k = 0; k < NB; k++) {
      double r[4];
      p1_node<S>(P.xyzw, vtx[k], r);
      v[k * 3 + 0] = r[0];
      v[k * 3 + 1] = r[1];
      v[k * 3 + 2] = DIM == 3 ? r[2] : 0.0;
      wv[k] = r[3];
    }
#pragma unroll
    for (int i = 0; i < NB; i++) C.sd[i] = P.sd_cells ? vtx[i] : __ldg(V.sdofs + (size_t)c * NB + i);
#pragma unroll
    for (int i = 0; i < NB; i++)
#pragma unroll
      for (int cc = 0; cc < NC; cc++)
        C.ue[i * NC + cc] = !with_state ? 0.0
                            : rd<S>(u, P.interleaved ? C.sd[i] * NC + cc
                                                     : __ldg(V.cdofs + (size_t)c * NBC + i * NC + cc));
  }
  p1_load_coefficients<DIM, NC, NAUX, S, CN>(P, V, c, wv, P.wa, [&](int k) { return P.aux_kind[k]; }, C);
  C.adet = fabs(feint_affine_inverse_jacobian(DIM, v, C.invJ));
}

template <int DIM, int NC, int NAUX, typename S>
__device__ __forceinline__ void p1_load(const kparams &P, const p1tab &T, const cview &V, int c, int with_state,
                                        const void *__restrict__ u, p1cell<DIM, NC, NAUX> &C,
                                        const p1shared &G = p1shared{}) {
  double v[4 * 3];
  p1_load_vertices<DIM, NC, NAUX, S>(P, T, V, c, with_state, u, C, v, G);
}

/* ------------------------------------------- P1: block-local aggregation
 *
 *
 * Cells are cut into chunks of cb contiguous cells (cb = threads per
 * block); a thread block takes one chunk, one thread per cell. Each thread
 * writes its element vector / matrix into shared memory (entry-major,
 * elem[e * cb + t]: conflict-free), then, after one barrier, one thread per
 * distinct target of the chunk (scalar dof for vectors, CSR slot for
 * matrices; sorted list built at setup) sums that target's entries in a
 * fixed order (the chunk's inverse map ient) and writes the sum once:
 *   OUT_ATOMIC - one global atomicAdd per distinct target and chunk;
 *   colored    - chunks are coloured so that no two chunks of a colour
 *                share a dof (one launch per colour); each target gets one
 *                add per colour (issued as an atomic: no read round trip,
 *                same bits as a plain add; deterministic);
 *   OUT_BUFFER - the chunk's partial sums to a buffer, then part_gather_
 *                kernel sums each target's partials in chunk order
 *                (deterministic).
 * Vectors: entries are (cell, vertex) with NC components each (interleaved
 * dofs, target * NC + component); matrices: (cell, i, j) entries, NC = 1.
 * Latency: what the flush reads does not depend on the cells' data, so it
 * is fetched before the cell's gather chain (cells -> node records ->
 * compute) instead of after the barrier: the chunk's inverse map goes to
 * shared memory by asynchronous copies (cp.async, no registers held) and
 * each thread loads its first target's index and entry range into
 * registers; later targets (matrices: ~6 per thread) are fetched one round
 * ahead in the flush loop (measured 12-20% faster than reading the plan
 * after the barrier).
 * Shared gather (vectors whose targets are the cells' vertices, at most
 * 256 per chunk; B.lidx != NULL): before the cells are computed, one thread
 * per distinct vertex of the chunk loads its node record and u into shared
 * memory (one load per vertex instead of one per (cell, vertex), ~6x
 * fewer scattered loads), and each cell reads its vertices there through
 * its 4 uint8 local indices; one more barrier. */

/* Target k of a chunk: its index and the range of its entries in ient. */
__device__ __forceinline__ void p1_target(const bview &B, int u0, int k, int &tg, int &j0, int &j1) {
  tg = __ldg(B.tgt + u0 + k);
  j0 = k ? __ldg(B.iend + u0 + k - 1) : 0;
  j1 = __ldg(B.iend + u0 + k);
}

/* A chunk's plan as one thread block sees it: the chunk's first target u0
 * and its distinct-target count nu, this thread's first target tg (entries
 * j0 .. j1 of the inverse map) and the inverse map in shared memory. */
typedef struct {
  int u0, nu, tg, j0, j1;
  uint16_t *sient;
} p1chunk;

/* Start chunk b (NE entries per cell, NO components per target; elem the
 * kernel's shared memory, entries of type E): the inverse map to shared
 * memory by asynchronous copies, the first target into registers. */
template <int NE, int NO, typename E>
__device__ __forceinline__ p1chunk p1_chunk_begin(const bview &B, int b, E *elem) {
  const int cb = B.cb, t = threadIdx.x;
  p1chunk K;
  const uint16_t *gient = B.ient + (size_t)b * cb * NE;
  K.sient = (uint16_t *)(elem + (size_t)cb * NE * NO);
  K.u0 = __ldg(B.uptr + b);
  K.nu = __ldg(B.uptr + b + 1) - K.u0;
  K.tg = K.j0 = K.j1 = 0;
  /* cb * NE uint16 = cb * NE / 4 pieces of 8 bytes (cb a multiple of 32) */
#pragma unroll
  for (int r = 0; r < (NE + 3) / 4; r++)
    if ((r * cb + t) * 4 < cb * NE) feint_cp_async<8>(K.sient + (r * cb + t) * 4, gient + (r * cb + t) * 4);
  feint_cp_commit();
  if (t < K.nu) p1_target(B, K.u0, t, K.tg, K.j0, K.j1);
  return K;
}

/* The shared gather: the chunk's distinct vertices' node records, u (NC
 * components, zero without state; type RT) and node ids into shared memory
 * (after the inverse map), one thread per vertex; G.li is the caller's.
 * Records of RW values of RT: x y z w, and with RW > 4 u inside the record
 * (at 4 + cc; p1_lean_rw), else u in its own array (G.u[l * NC + cc]). */
template <int NE, int NC, typename S, int RW = 4, typename RT>
__device__ __forceinline__ void p1_chunk_gather(const kparams &P, const bview &B, const p1chunk &K, int with_state,
                                                const void *__restrict__ u, p1shared_t<RT> &G) {
  const int cb = B.cb, t = threadIdx.x;
  RT *rec = (RT *)(K.sient + (size_t)cb * NE);
  RT *us = RW == 4 ? rec + 4 * 256 : rec + 4;
  int *node = (int *)(rec + RW * 256 + (RW == 4 ? 256 * NC : 0));
  for (int k = t; k < K.nu; k += cb) {
    const int nd = k == t ? K.tg : __ldg(B.tgt + K.u0 + k);
    RT r[4];
    p1_node<S>(P.xyzw, nd, r);
    if constexpr (sizeof(RT) == 4) {
      *(float4 *)(rec + 4 * k) = make_float4(r[0], r[1], r[2], r[3]);
    } else {
      *(double2 *)(rec + RW * k) = make_double2(r[0], r[1]);
      *(double2 *)(rec + RW * k + 2) = make_double2(r[2], r[3]);
    }
#pragma unroll
    for (int cc = 0; cc < NC; cc++)
      us[k * (RW == 4 ? NC : RW) + cc] = with_state ? rd<S, RT>(u, (int64_t)nd * NC + cc) : (RT)0;
    if constexpr (RW > 4 && NC % 2) us[k * RW + NC] = 0; /* the pad read by u's last 16-byte load */
    node[k] = nd;
  }
  G.rec = rec;
  G.u = us;
  G.node = node;
  __syncthreads();
}

/* One target's sum: its entries j0 .. j1 - 1 of the chunk's inverse map
 * ient, in that order (NO components, cstride apart in elem), written to
 * out[o * NO + cc] by the strategy's mode. */
template <int NO, typename S, typename E>
__device__ __forceinline__ void p1_put_target(const E *elem, int cstride, const uint16_t *ient, int j0, int j1,
                                              int64_t o, int mode, void *__restrict__ out) {
  E s[NO];
#pragma unroll
  for (int cc = 0; cc < NO; cc++) s[cc] = 0;
  for (int j = j0; j < j1; j++) {
    const int pos = ient[j];
#pragma unroll
    for (int cc = 0; cc < NO; cc++) s[cc] += elem[cc * cstride + pos];
  }
#pragma unroll
  for (int cc = 0; cc < NO; cc++) put<S>(out, o * NO + cc, s[cc], mode);
}

/* After the cells wrote their entries (elem[(cc * NE + e) * cb + t], type
 * E): one thread per distinct target sums its entries
 * in the inverse map's order (in E) and writes the sum once (see above for
 * the modes). */
template <int NE, int NO, typename S, typename E>
__device__ __forceinline__ void p1_chunk_flush(const bview &B, p1chunk &K, const E *elem, int mode,
                                               void *__restrict__ out) {
  feint_cp_wait_all();
  __syncthreads();
  const int cb = B.cb, cstride = NE * cb;
  for (int k = threadIdx.x; k < K.nu; k += cb) {
    int tgn = 0, j0n = 0, j1n = 0; /* the next round's target, fetched while this one is summed */
    if (k + cb < K.nu) p1_target(B, K.u0, k + cb, tgn, j0n, j1n);
    p1_put_target<NO, S>(elem, cstride, K.sient, K.j0, K.j1, mode == OUT_BUFFER ? K.u0 + k : K.tg, mode, out);
    K.tg = tgn, K.j0 = j0n, K.j1 = j1n;
  }
}

/* ------------------------------------------- P1: the cells' algebra
 *
 * For P1 (nb = dim + 1) the reference gradients are constant, so a cell's
 * whole computation fits in registers (every array indexed by constants
 * once unrolled). */

/* Physical gradients of the basis, gp[i][a] = sum_d gref[i][d] invJ[d][a]
 * (matrices: each is used NBC times). */
template <int DIM, int NC, int NAUX>
__device__ __forceinline__ void p1_gradients(const p1tab &T, const p1cell<DIM, NC, NAUX> &C, double (*gp)[DIM]) {
#pragma unroll
  for (int i = 0; i < DIM + 1; i++)
#pragma unroll
    for (int a = 0; a < DIM; a++) {
      double s = 0;
#pragma unroll
      for (int d = 0; d < DIM; d++) s += T.gref[i][d] * C.invJ[d * DIM + a];
      gp[i][a] = s;
    }
}

/* out = J^-1 v, or J^-T v with TRANSPOSE (invJ[d * DIM + a] = d xi_d / d x_a). */
template <int DIM, bool TRANSPOSE>
__device__ __forceinline__ void p1_inv_jacobian_times(const double *invJ, const double *v, double *out) {
#pragma unroll
  for (int r = 0; r < DIM; r++) {
    double s = 0;
#pragma unroll
    for (int k = 0; k < DIM; k++) s += (TRANSPOSE ? invJ[k * DIM + r] : invJ[r * DIM + k]) * v[k];
    out[r] = s;
  }
}

/* Vectors contract in reference directions instead (fewer live registers
 * and FP64 operations than the NB x DIM physical gradients): grad u =
 * J^-T (sum_i u_i gref_i), and sum_a gp[i][a] F[a] = gref_i . (J^-1 F). */
template <int DIM, int NC, int NAUX>
__device__ __forceinline__ void p1_grad_u(const p1tab &T, const p1cell<DIM, NC, NAUX> &C, double *gradu) {
#pragma unroll
  for (int cc = 0; cc < NC; cc++) {
    double gr[DIM];
#pragma unroll
    for (int d = 0; d < DIM; d++) {
      double s = 0;
#pragma unroll
      for (int i = 0; i < DIM + 1; i++) s += T.gref[i][d] * C.ue[i * NC + cc];
      gr[d] = s;
    }
    p1_inv_jacobian_times<DIM, true>(C.invJ, gr, gradu + cc * DIM);
  }
}

/* res[i * NC + cc] += sum_a gp[i][a] F[cc * DIM + a] */
template <int DIM, int NC, int NAUX>
__device__ __forceinline__ void p1_add_flux(const p1tab &T, const p1cell<DIM, NC, NAUX> &C, const double *F,
                                            double *res) {
#pragma unroll
  for (int cc = 0; cc < NC; cc++) {
    double h[DIM];
    p1_inv_jacobian_times<DIM, false>(C.invJ, F + cc * DIM, h);
#pragma unroll
    for (int i = 0; i < DIM + 1; i++) {
      double s = 0;
#pragma unroll
      for (int d = 0; d < DIM; d++) s += T.gref[i][d] * h[d];
      res[i * NC + cc] += s;
    }
  }
}

template <int NC, int MAT>
__host__ __device__ constexpr int p1_block_minb() {
  /* blocks of 256 per SM: caps registers at 128 / 64; measured best for the
   * 3D Poisson residual (3 blocks, 80 registers: +14%; 5 blocks, 48
   * registers and a 128-byte stack: +69%) */
  return NC > 1 ? 2 : 4;
}

/* The block-local aggregation kernel's body (above): chunk b's plan, the
 * shared gather for vectors, each thread's cell by cells.vector(c, G,
 * res[NBC]) or cells.matrix(c, Ke[NBC^2]) into shared memory, and the
 * flush. Cells: the built-in physics (kernels_p1.cu) or a user form
 * (p1_form.cuh). */
template <int DIM, int NC, int MAT, typename S, typename Cells>
__device__ __forceinline__ void p1_block(const kparams &P, const bview &B, const int *__restrict__ chunks, int mode,
                                         int with_state, const void *__restrict__ u, void *__restrict__ out,
                                         const Cells &cells) {
  constexpr int NB = DIM + 1, NBC = NB * NC;
  constexpr int NO = MAT ? 1 : NC;              /* components per target */
  constexpr int NE = MAT ? NBC * NBC : NB;      /* entries per cell */
  extern __shared__ double elem[];              /* cb * NE * NO entries, then the chunk's ient (cb * NE) */
  const int b = chunks ? __ldg(chunks + blockIdx.x) : (int)blockIdx.x;
  const int cb = B.cb, t = threadIdx.x;
  const int c = b * cb + t;
  p1shared G = {};
  const int sg = !MAT && B.lidx; /* shared gather */
  if (sg) G.li = c < P.n_cells ? __ldg(B.lidx + c) : 0;
  p1chunk K = p1_chunk_begin<NE, NO>(B, b, elem);
  if (sg) p1_chunk_gather<NE, NC, S>(P, B, K, with_state, u, G);
  if (c < P.n_cells) {
    if constexpr (MAT) {
      double Ke[NBC * NBC];
      cells.matrix(c, Ke);
#pragma unroll
      for (int e = 0; e < NBC * NBC; e++) elem[e * cb + t] = Ke[e];
    } else {
      double res[NBC];
      cells.vector(c, G, res);
#pragma unroll
      for (int i = 0; i < NB; i++)
#pragma unroll
        for (int cc = 0; cc < NC; cc++) elem[(cc * NB + i) * cb + t] = res[i * NC + cc];
    }
  }
  p1_chunk_flush<NE, NO, S>(B, K, elem, mode, out);
}

/* ------------------------------------- P1: a cell's element matrix, out
 *
 * The per-cell matrix kernels' writes, whatever computed the entries:
 * entry(i, fc, j, gc), the built-in physics' p1_entry or a user form's
 * form_p1_matrix (kernels_p1.cu, p1_form.cuh). */

/* Ke[(i NC + fc) NBC + j NC + gc] = entry(i, fc, j, gc) (the block kernel's cells). */
template <int DIM, int NC, typename Entry>
__device__ __forceinline__ void p1_cell_entries(const Entry &entry, double *Ke) {
  constexpr int NB = DIM + 1, NBC = NB * NC;
#pragma unroll
  for (int i = 0; i < NB; i++)
#pragma unroll
    for (int fc = 0; fc < NC; fc++)
#pragma unroll
      for (int j = 0; j < NB; j++)
#pragma unroll
        for (int gc = 0; gc < NC; gc++) Ke[(i * NC + fc) * NBC + j * NC + gc] = entry(i, fc, j, gc);
}

/* Cell c's element matrix into out: at c NBC^2 (mode OUT_BUFFER), else
 * added into the CSR values through its slots in view V (a row's slots by
 * 16-byte loads where NBC allows). */
template <int DIM, int NC, typename S, typename Entry>
__device__ __forceinline__ void p1_put_cell_matrix(const cview &V, int c, const Entry &entry, int mode,
                                                   void *__restrict__ out) {
  constexpr int NB = DIM + 1, NBC = NB * NC;
  const int *srow = V.slots + (size_t)c * NBC * NBC;
#pragma unroll
  for (int i = 0; i < NB; i++)
#pragma unroll
    for (int fc = 0; fc < NC; fc++) {
      int sl[NBC];
      if (NBC % 4 == 0) {
#pragma unroll
        for (int j4 = 0; j4 < NBC / 4; j4++) {
          const int4 q4 = __ldg((const int4 *)(srow + (i * NC + fc) * NBC) + j4);
          sl[4 * j4] = q4.x;
          sl[4 * j4 + 1] = q4.y;
          sl[4 * j4 + 2] = q4.z;
          sl[(4 * j4 + 3) % NBC] = q4.w;
        }
      } else {
#pragma unroll
        for (int j = 0; j < NBC; j++) sl[j] = __ldg(srow + (i * NC + fc) * NBC + j);
      }
#pragma unroll
      for (int j = 0; j < NB; j++)
#pragma unroll
        for (int gc = 0; gc < NC; gc++) {
          const double v = entry(i, fc, j, gc);
          put<S>(out, mode == OUT_BUFFER ? (int64_t)c * NBC * NBC + (i * NC + fc) * NBC + j * NC + gc
                                         : (int64_t)sl[j * NC + gc],
                 v, mode);
        }
    }
}

/* Vertex a's NC rows of cell c's element matrix added into the CSR values
 * (the gather by row: the thread of a's dof owns those rows). */
template <int DIM, int NC, typename S, typename Entry>
__device__ __forceinline__ void p1_put_cell_rows(const cview &V, int c, int a, const Entry &entry,
                                                 void *__restrict__ out) {
  constexpr int NB = DIM + 1, NBC = NB * NC;
#pragma unroll
  for (int i = 0; i < NB; i++)
    if (i == a)
#pragma unroll
      for (int fc = 0; fc < NC; fc++) {
        const int *srow = V.slots + (size_t)c * NBC * NBC + (i * NC + fc) * NBC;
#pragma unroll
        for (int j = 0; j < NB; j++)
#pragma unroll
          for (int gc = 0; gc < NC; gc++) put<S>(out, __ldg(srow + j * NC + gc), entry(i, fc, j, gc), OUT_PLAIN);
      }
}

#endif
