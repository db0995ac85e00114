/* High-order element matrices on the GPU (include/feint/elmat.h), after
 * Banas, Plaszewski, Maciol.
 *
 * Per-point coefficients: A_e = sum_q B_q^T (C_q B_q), a product of an
 * nb x 4nq and a 4nq x nb matrix per cell. A block takes NE cells (several
 * for p <= 3 so that it has >= 200 threads), TX x TX threads per cell; a
 * thread accumulates a TILE x TILE tile of A_e in registers, rows
 * ty + TX a and columns tx + TX b (strided, so the tile loads of a warp
 * hit consecutive shared words and consecutive threads write consecutive
 * columns). TILE grows with p (tetrahedra 1, 2, 2, 3, 4, 6, 8) to keep
 * TILE^2 FMAs per 2 TILE operand loads while NT = TX^2 stays near 200
 * threads (prisms 1, 2, 3, 4, 7, 5, 4 with 36..576 threads: nb is 1.5-2.4x
 * the tetrahedron's, and TILE 7 at P5 keeps the 49 accumulators of 324
 * threads out of local memory).
 *   SHARED     chunks of QC points: the table chunk B (padded to NBP
 *              columns, zero rows past nq), the point tensors C_q (one
 *              entry per thread) and V = C_q B_q go to shared memory (four
 *              barriers per chunk, the next chunk's global loads issued
 *              into registers before this one's products: chunk_stager),
 *              then every thread runs its tile.
 *   TENSOR     the same staging, the products on the FP64 tensor cores
 *              (DMMA m8n8k4 through nvcuda::wmma; see elmat_point_mma_kernel).
 *   REGISTERS  no shared memory: per point each thread computes C_q from
 *              the coefficients (a warp-wide broadcast load) and reads its
 *              TILE rows and columns of B_q through the read-only cache;
 *              V is formed in registers for its own columns only.
 * Geometry: JACOBIAN loads the 10 host-precomputed terms, VERTICES computes
 * them from the 12 vertex coordinates (feint_elmat_tet_geometry, one thread
 * per cell in SHARED, every thread in REGISTERS). Prisms (template CELL):
 * J varies per point, so JACOBIAN loads 10 terms per point (with the
 * chunk's coefficients) and VERTICES computes them per point from the 18
 * coordinates and the reference point (feint_elmat_point_geometry: one
 * thread per point of the chunk in SHARED / TENSOR, every thread in
 * REGISTERS). Prisms P6, P7 (nb 196, 288) do not fit one block per cell:
 * A_e is split into SPLIT x SPLIT ranges of rows and columns, one block
 * each (shape::SPLIT; the blocks of a cell are consecutive).
 *
 * Per-cell coefficients (the reference-matrix fast path; prisms only when
 * affine, checked on the host, J then from their first 4 vertices): a thread owns one
 * entry t = (i, j) of A_e, holds K[.][t] (10 or 16 values) in registers and
 * writes that entry for EB = 64 cells whose tensors Chat the block first
 * puts in shared memory; consecutive threads write consecutive entries
 * (for nb^2 < 256 a block covers 256 / nb^2 cells at a time), so every
 * store is coalesced (and sector-aligned, see elmat_cell_kernel) and the
 * kernel is bound by writing A. Element vectors (the residual and load
 * vector of feint run) by thread transposition: element_vector_kernel.
 * Measurements: docs/perf/element-matrices.md. */
#include <cuda_runtime.h>
#include <mma.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <algorithm>
#include <vector>

extern "C" {
#include "feint/elmat.h"
#include "feint/error.h"
}
#include "backend/cuda/common.cuh"
#include "backend/cuda/tuning.h"

constexpr int QC = 4;  /* points per shared-memory chunk */
constexpr int EB = 64; /* cells per block of the per-cell kernel */
constexpr int TET = FEINT_CELL_TETRAHEDRON, PRISM = FEINT_CELL_PRISM;

__host__ __device__ constexpr int nb_of(int cell, int p) {
  return cell == PRISM ? (p + 1) * (p + 1) * (p + 2) / 2 : (p + 1) * (p + 2) * (p + 3) / 6;
}
__host__ __device__ constexpr int tile_of(int cell, int p) {
  return cell == PRISM ? (p <= 4 ? p : p == 5 ? 7 : p == 6 ? 5 : 4)
                       : (p == 1 ? 1 : p <= 3 ? 2 : p == 4 ? 3 : p == 5 ? 4 : p == 6 ? 6 : 8);
}
/* A_e in SPLIT x SPLIT blocks of its own where one block of TX^2 threads
 * cannot hold it (prisms P6: nb 196, P7: nb 288): a block computes rows
 * r0 + [0, NBP) and columns c0 + [0, NBP). */
__host__ __device__ constexpr int split_of(int cell, int p) { return cell == PRISM && p >= 6 ? p - 4 : 1; }
template <int CELL, int P>
struct shape {
  static constexpr int NB = nb_of(CELL, P), TILE = tile_of(CELL, P), SPLIT = split_of(CELL, P),
                       NBS = (NB + SPLIT - 1) / SPLIT, TX = (NBS + TILE - 1) / TILE, NBP = TX * TILE,
                       NBPF = SPLIT * NBP, NT = TX * TX, NE = NT >= 256 ? 1 : 256 / NT;
};
static int nbpf_of(int cell, int p) {
  const int s = split_of(cell, p), t = tile_of(cell, p), nbs = (nb_of(cell, p) + s - 1) / s;
  return s * ((nbs + t - 1) / t) * t;
}

/* What the coefficient kernel reads of an attached form (by value). */
struct form_coefficients {
  int physics, terms, ncoef;
  int nc;    /* components (the coefficient kernels write nc^2 pairs' blocks) */
  int n_aux; /* the fields the Jacobian reads (the coefficient kernels) */
  int n_all; /* every field, the source's too (the element vectors) */
  feint_field aux[FEINT_ELMAT_MAX_AUX]; /* values: device arrays */
};

/* The form's vector rule (residual, load vector) on the device: the
 * form's own tables (feint_form: the rule of f->quadrature), as the CPU
 * reference reads them. */
struct vector_rule {
  int nq;
  const double *B;  /* nq x 4 x nb: B[(q 4 + c) nb + i], value and reference gradient (basis phase) */
  const double *BT; /* 4 x nb x nq: BT[(c nb + i) nq + q], the same point-fastest (quadrature phase) */
  const double *w;  /* nq weights */
  const double *pts; /* nq x 3 reference points (prisms: J per point) */
};

struct feint_elmat_gpu {
  int vector_cells; /* tuning (FEINT_ELMAT_VECTOR_CELLS): cells a block of the vector kernel, 0 by the budget */
  const feint_elmat_tables *t;
  int device, nb, nq, nqp, sms; /* sms: the device's multiprocessors */
  double *tab;  /* nqp x 4 x nbpf_of, zero padded */
  double *tab8; /* the same padded to mma_nbpf_of columns (tensor-core variant) */
  double *phiT; /* nb x nq basis values, point fastest (the coefficient kernel) */
  double *w;   /* nqp weights, zero padded */
  double *pts; /* nqp x 3 reference points, zero padded (prisms: J per point) */
  double *K;   /* 16 x nb^2 reference tensors */
  double *geom, *coef, *A;
  double *Ab; /* vector forms: the nc^2 scalar blocks of a batch, block-major (elmat.h) */
  size_t cap_geom, cap_coef, cap_A, cap_Ab, cap_u, cap_F, cap_Fe; /* bytes allocated */
  double setup_ms;
  /* the attached form (feint_elmat_gpu_attach) */
  struct form_coefficients form;
  feint_elmat_variant fv;
  int64_t n_cells, n_dofs; /* n_dofs: of the (vector) space, nc per scalar dof */
  double *xv;     /* n_cells x 3 nv vertex coordinates */
  int64_t *cdofs; /* n_cells x nb scalar dofs */
  /* the element vectors (feint_elmat_gpu_form_vectors) */
  vector_rule vr;
  double *vB, *vBT, *vw, *vpts; /* vr's arrays */
  double *u;  /* n_dofs: the state */
  double *Fe; /* n_cells x nb nc element vectors */
  double *F;  /* n_dofs: the vector summed by atomics */
};

/* ------------------------------------------------- per-point coefficients */

/* The chunk pipeline of the SHARED and TENSOR kernels (NTC threads per
 * cell, NE cells per block; the table rows r0 + [0, NBP) into s_B and,
 * when A_e is split, the columns c0 + [0, NBP) into s_Bc). Per chunk of QC
 * points:
 *   barrier; commit: the registers loaded for this chunk (table rows: all
 *   threads of the block; raw coefficients and, for prisms with Jacobian
 *   terms, the points' terms: the threads of each cell) go to shared
 *   memory; barrier; load: the global loads of the next chunk are issued
 *   into registers (their latency then overlaps the rest of this chunk);
 *   finish: (prisms with vertices: the points' Jacobian terms, one point
 *   per thread, barrier), the 16 QC point-tensor entries, one per thread
 *   (feint_elmat_point_tensor_entry), barrier, V = C_q B_q, barrier;
 *   then the caller's products. Cell geometry in geo (shared): tetrahedra
 *   the 10 Jacobian terms, prisms with vertices the 18 coordinates; the
 *   prism's point terms in pg (QC x 10). */
template <int CELL, bool VERTS, int NBP, int SPLIT, int NTC, int NE>
struct chunk_stager {
  static constexpr int NTHR = NTC * NE, CH = QC * 4 * NBP, PER = (CH + NTHR - 1) / NTHR,
                       RPER = (QC * 16 + NTC - 1) / NTC, NBPF = SPLIT * NBP;
  static constexpr bool PG_LOAD = CELL == PRISM && !VERTS; /* point terms read from global memory */
  static constexpr int GPER = PG_LOAD ? (QC * 10 + NTC - 1) / NTC : 1;
  double rt[PER], rtc[SPLIT > 1 ? PER : 1], rc[RPER], rg[GPER];
  int lt, bt, nq, ncoef, r0, c0;
  bool live;
  int64_t e;

  /* The cell's geometry into geo (shared), the first chunk's loads. */
  __device__ void begin(int lt_, int bt_, int nq_, int ncoef_, bool live_, int64_t e_, int r0_, int c0_,
                        const double *__restrict__ geom, double *geo, const double *__restrict__ tab,
                        const double *__restrict__ coef) {
    lt = lt_, bt = bt_, nq = nq_, ncoef = ncoef_, live = live_, e = e_, r0 = r0_, c0 = c0_;
    if (live) {
      if (CELL == TET && VERTS && lt == 0) feint_elmat_tet_geometry(geom + 12 * e, geo);
      if (CELL == TET && !VERTS && lt < 10) geo[lt] = geom[10 * e + lt];
      if (CELL == PRISM && VERTS && lt < 18) geo[lt] = geom[18 * e + lt];
    }
    load(0, tab, coef, geom);
  }
  /* Chunk q0 into shared memory (C, V), the loads of the next one issued. */
  __device__ void stage(int q0, int nqp, const double *__restrict__ tab, const double *__restrict__ w,
                        const double *__restrict__ pts, const double *__restrict__ coef,
                        const double *__restrict__ geom, const double *geo, double *pg, double *raw, double (*C)[16],
                        double *s_B, double *s_Bc, double *V) {
    __syncthreads(); /* geometry ready; previous chunk consumed */
    commit(s_B, s_Bc, raw, pg);
    __syncthreads();
    if (q0 + QC < nqp) load(q0 + QC, tab, coef, geom);
    finish(q0, w, pts, geo, pg, raw, C, s_Bc, V);
  }
  __device__ static double table(const double *__restrict__ tab, int q0, int k, int off) {
    if (SPLIT == 1) return tab[(size_t)q0 * 4 * NBP + k];
    return tab[((size_t)q0 * 4 + k / NBP) * NBPF + off + k % NBP];
  }
  __device__ void load(int q0, const double *__restrict__ tab, const double *__restrict__ coef,
                       const double *__restrict__ geom) {
#pragma unroll
    for (int j = 0; j < PER; j++) {
      const int k = bt + j * NTHR;
      rt[j] = k < CH ? table(tab, q0, k, r0) : 0;
      if (SPLIT > 1) rtc[j] = k < CH ? table(tab, q0, k, c0) : 0;
    }
#pragma unroll
    for (int j = 0; j < RPER; j++) {
      const int k = lt + j * NTC; /* k = qq ncoef + component */
      rc[j] = live && k < QC * ncoef && q0 * ncoef + k < nq * ncoef ? coef[((size_t)e * nq + q0) * ncoef + k] : 0;
    }
    if (PG_LOAD)
#pragma unroll
      for (int j = 0; j < GPER; j++) {
        const int k = lt + j * NTC; /* k = qq 10 + term */
        rg[j] = live && k < QC * 10 && q0 * 10 + k < nq * 10 ? geom[((size_t)e * nq + q0) * 10 + k] : 0;
      }
  }
  __device__ void commit(double *s_B, double *s_Bc, double *raw, double *pg) const {
#pragma unroll
    for (int j = 0; j < PER; j++)
      if (bt + j * NTHR < CH) {
        s_B[bt + j * NTHR] = rt[j];
        if (SPLIT > 1) s_Bc[bt + j * NTHR] = rtc[j];
      }
#pragma unroll
    for (int j = 0; j < RPER; j++)
      if (lt + j * NTC < QC * 16) raw[lt + j * NTC] = rc[j];
    if (PG_LOAD)
#pragma unroll
      for (int j = 0; j < GPER; j++)
        if (lt + j * NTC < QC * 10) pg[lt + j * NTC] = rg[j];
  }
  __device__ void finish(int q0, const double *__restrict__ w, const double *__restrict__ pts, const double *geo,
                         double *pg, const double *raw, double (*C)[16], const double *s_Bc, double *V) const {
    if (CELL == PRISM && VERTS) {
      if (lt < QC && live && q0 + lt < nq)
        feint_elmat_point_geometry(FEINT_CELL_PRISM, geo, pts + 3 * (q0 + lt), pg + 10 * lt);
      __syncthreads();
    }
    for (int k = lt; k < QC * 16; k += NTC) {
      const int qq = k / 16, q = q0 + qq;
      const double *gq = CELL == PRISM ? pg + 10 * qq : geo;
      C[qq][k % 16] = live && q < nq ? feint_elmat_point_tensor_entry(gq, w[q], raw + qq * ncoef, ncoef, k % 16) : 0;
    }
    __syncthreads();
    if (live)
      for (int k = lt; k < QC * NBP; k += NTC) {
        const int qq = k / NBP, j = k % NBP;
        const double *b = s_Bc + qq * 4 * NBP + j, *Cq = C[qq];
        const double b0 = b[0], b1 = b[NBP], b2 = b[2 * NBP], b3 = b[3 * NBP];
#pragma unroll
        for (int c = 0; c < 4; c++)
          V[(qq * 4 + c) * NBP + j] = Cq[4 * c] * b0 + Cq[4 * c + 1] * b1 + Cq[4 * c + 2] * b2 + Cq[4 * c + 3] * b3;
      }
    __syncthreads();
  }
};

/* Shared memory of the cell geometry and the prism's point terms. */
__host__ __device__ constexpr int cell_geo_size(int cell) { return cell == PRISM ? 18 : 10; }
__host__ __device__ constexpr int point_geo_size(int cell) { return cell == PRISM ? QC * 10 : 1; }

template <int CELL, int P, bool SHARED, bool VERTS>
__global__ void __launch_bounds__(shape<CELL, P>::NT * shape<CELL, P>::NE)
elmat_point_kernel(int64_t n, int nq, int ncoef, const double *__restrict__ tab, const double *__restrict__ w,
                   const double *__restrict__ pts, const double *__restrict__ geom, const double *__restrict__ coef,
                   double *__restrict__ A) {
  using S = shape<CELL, P>;
  constexpr int NB = S::NB, NBP = S::NBP, NBPF = S::NBPF, TX = S::TX, TILE = S::TILE, NT = S::NT, NE = S::NE,
                SPLIT = S::SPLIT, GC = cell_geo_size(CELL);
  constexpr int CH = QC * 4 * NBP; /* doubles of one chunk of the table */
  __shared__ double s_geo[SHARED ? NE : 1][GC];
  __shared__ double s_pg[SHARED ? NE : 1][point_geo_size(CELL)];
  __shared__ double s_C[SHARED ? NE : 1][QC][16];
  __shared__ double s_raw[SHARED ? NE : 1][QC * 16];
  __shared__ double s_B[SHARED ? CH : 1];
  __shared__ double s_Bc[SHARED && SPLIT > 1 ? CH : 1];
  __shared__ double s_V[SHARED ? NE : 1][SHARED ? CH : 1];
  const int tid = threadIdx.x, el = threadIdx.y, tx = tid % TX, ty = tid / TX;
  const int sp = SPLIT > 1 ? (int)(blockIdx.x % (SPLIT * SPLIT)) : 0, r0 = (sp / SPLIT) * NBP, c0 = (sp % SPLIT) * NBP;
  const int64_t e = (int64_t)(blockIdx.x / (SPLIT * SPLIT)) * NE + el;
  const bool live = e < n;
  const int nqp = (nq + QC - 1) / QC * QC;
  double acc[TILE][TILE];
#pragma unroll
  for (int a = 0; a < TILE; a++)
#pragma unroll
    for (int b = 0; b < TILE; b++) acc[a][b] = 0;

  if (SHARED) {
    chunk_stager<CELL, VERTS, NBP, SPLIT, NT, NE> st;
    double *Bc = SPLIT > 1 ? s_Bc : s_B;
    st.begin(tid, tid + NT * el, nq, ncoef, live, e, r0, c0, geom, s_geo[el], tab, coef);
    for (int q0 = 0; q0 < nqp; q0 += QC) {
      st.stage(q0, nqp, tab, w, pts, coef, geom, s_geo[el], s_pg[el], s_raw[el], s_C[el], s_B, Bc, s_V[el]);
#pragma unroll
      for (int r = 0; r < 4 * QC; r++) { /* r = qq * 4 + c */
        double bi[TILE], vj[TILE];
#pragma unroll
        for (int a = 0; a < TILE; a++) {
          bi[a] = s_B[r * NBP + ty + TX * a];
          vj[a] = s_V[el][r * NBP + tx + TX * a];
        }
#pragma unroll
        for (int a = 0; a < TILE; a++)
#pragma unroll
          for (int b = 0; b < TILE; b++) acc[a][b] += bi[a] * vj[b];
      }
    }
  } else if (live) {
    double cg[GC]; /* tetrahedra: the Jacobian terms; prisms with vertices: the coordinates */
    if (CELL == TET && VERTS) feint_elmat_tet_geometry(geom + 12 * e, cg);
    if (CELL == TET && !VERTS)
      for (int k = 0; k < 10; k++) cg[k] = __ldg(geom + 10 * e + k);
    if (CELL == PRISM && VERTS)
      for (int k = 0; k < 18; k++) cg[k] = __ldg(geom + 18 * e + k);
    for (int q = 0; q < nq; q++) {
      double pgq[CELL == PRISM ? 10 : 1], C[16];
      if (CELL == PRISM && VERTS) feint_elmat_point_geometry(FEINT_CELL_PRISM, cg, pts + 3 * q, pgq);
      if (CELL == PRISM && !VERTS)
        for (int k = 0; k < 10; k++) pgq[k] = __ldg(geom + ((size_t)e * nq + q) * 10 + k);
      feint_elmat_point_tensor(CELL == PRISM ? pgq : cg, __ldg(w + q), coef + ((size_t)e * nq + q) * ncoef, ncoef, C);
      const double *Bq = tab + (size_t)q * 4 * NBPF;
      double vj[4][TILE]; /* V = C_q B_q for this thread's columns */
#pragma unroll
      for (int b = 0; b < TILE; b++) {
        const int j = c0 + tx + TX * b;
        const double b0 = __ldg(Bq + j), b1 = __ldg(Bq + NBPF + j), b2 = __ldg(Bq + 2 * NBPF + j),
                     b3 = __ldg(Bq + 3 * NBPF + j);
#pragma unroll
        for (int c = 0; c < 4; c++) vj[c][b] = C[4 * c] * b0 + C[4 * c + 1] * b1 + C[4 * c + 2] * b2 + C[4 * c + 3] * b3;
      }
#pragma unroll
      for (int c = 0; c < 4; c++) {
        double bi[TILE];
#pragma unroll
        for (int a = 0; a < TILE; a++) bi[a] = __ldg(Bq + c * NBPF + r0 + ty + TX * a);
#pragma unroll
        for (int a = 0; a < TILE; a++)
#pragma unroll
          for (int b = 0; b < TILE; b++) acc[a][b] += bi[a] * vj[c][b];
      }
    }
  }
  if (!live) return;
  double *Ae = A + (size_t)e * NB * NB;
#pragma unroll
  for (int a = 0; a < TILE; a++)
#pragma unroll
    for (int b = 0; b < TILE; b++) {
      const int i = r0 + ty + TX * a, j = c0 + tx + TX * b;
      if (i < NB && j < NB) Ae[i * NB + j] = acc[a][b];
    }
}

/* Tensor-core variant (FEINT_ELMAT_DATA_TENSOR): the chunks staged as in
 * SHARED (columns padded to NBP = 8 MTS per split range), the product on
 * the FP64 tensor cores (m8n8k4 DMMA, one point's 4 components per
 * k-step). The MTS x MTS tiles of 8 x 8 of a block's range are spread over
 * a WR x WR grid of warps per cell, a warp holding RT x RT tiles (rows
 * wr + WR a, columns wc + WR b) so that RT operand fragments of each kind
 * feed RT^2 products. Prisms P6, P7 split A_e in 3 x 3 ranges (shared
 * memory: 48 KB static). */
__host__ __device__ constexpr int mma_split_of(int cell, int p) { return cell == PRISM && p >= 6 ? 3 : 1; }
__host__ __device__ constexpr int mma_wr_of(int cell, int p) {
  return cell == PRISM ? (p <= 2 ? 1 : p == 3 ? 2 : p == 4 ? 3 : p == 5 ? 4 : p == 6 ? 3 : 4)
                       : (p <= 3 ? 1 : p <= 5 ? 2 : p == 6 ? 3 : 4);
}
template <int CELL, int P>
struct mma_shape {
  static constexpr int NB = nb_of(CELL, P), MT = (NB + 7) / 8, SPLIT = mma_split_of(CELL, P),
                       MTS = (MT + SPLIT - 1) / SPLIT, NBP = 8 * MTS, NBPF = SPLIT * NBP, WR = mma_wr_of(CELL, P),
                       RT = (MTS + WR - 1) / WR, NW = WR * WR, NE = NW >= 8 ? 1 : 8 / NW;
};
static int mma_nbpf_of(int cell, int p) {
  const int s = mma_split_of(cell, p), mt = (nb_of(cell, p) + 7) / 8;
  return s * 8 * ((mt + s - 1) / s);
}

template <int CELL, int P, bool VERTS>
__global__ void __launch_bounds__(32 * mma_shape<CELL, P>::NW * mma_shape<CELL, P>::NE)
elmat_point_mma_kernel(int64_t n, int nq, int ncoef, const double *__restrict__ tab, const double *__restrict__ w,
                       const double *__restrict__ pts, const double *__restrict__ geom,
                       const double *__restrict__ coef, double *__restrict__ A) {
  using namespace nvcuda;
  using M = mma_shape<CELL, P>;
  constexpr int NB = M::NB, MTS = M::MTS, NBP = M::NBP, WR = M::WR, RT = M::RT, NW = M::NW, NE = M::NE,
                SPLIT = M::SPLIT;
  constexpr int CH = QC * 4 * NBP, NT = 32 * NW;
  __shared__ double s_geo[NE][cell_geo_size(CELL)];
  __shared__ double s_pg[NE][point_geo_size(CELL)];
  __shared__ double s_C[NE][QC][16];
  __shared__ double s_raw[NE][QC * 16];
  __shared__ __align__(32) double s_B[CH];
  __shared__ __align__(32) double s_Bc[SPLIT > 1 ? CH : 1];
  __shared__ __align__(32) double s_V[NE][CH];
  __shared__ __align__(32) double s_out[NE][NW][64];
  const int tid = threadIdx.x, el = threadIdx.y, warp = tid / 32, lane = tid % 32, wr = warp / WR, wc = warp % WR;
  const int sp = SPLIT > 1 ? (int)(blockIdx.x % (SPLIT * SPLIT)) : 0, r0 = (sp / SPLIT) * NBP, c0 = (sp % SPLIT) * NBP;
  const int64_t e = (int64_t)(blockIdx.x / (SPLIT * SPLIT)) * NE + el;
  const bool live = e < n;
  const int nqp = (nq + QC - 1) / QC * QC;
  wmma::fragment<wmma::accumulator, 8, 8, 4, double> acc[RT][RT];
#pragma unroll
  for (int a = 0; a < RT; a++)
#pragma unroll
    for (int b = 0; b < RT; b++) wmma::fill_fragment(acc[a][b], 0.0);
  chunk_stager<CELL, VERTS, NBP, SPLIT, NT, NE> st;
  double *Bc = SPLIT > 1 ? s_Bc : s_B;
  st.begin(tid, tid + NT * el, nq, ncoef, live, e, r0, c0, geom, s_geo[el], tab, coef);
  for (int q0 = 0; q0 < nqp; q0 += QC) {
    st.stage(q0, nqp, tab, w, pts, coef, geom, s_geo[el], s_pg[el], s_raw[el], s_C[el], s_B, Bc, s_V[el]);
#pragma unroll
    for (int r = 0; r < 4 * QC; r += 4) {
      wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::col_major> fa[RT];
      wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::row_major> fb[RT];
#pragma unroll
      for (int a = 0; a < RT; a++) {
        if (wr + WR * a < MTS) wmma::load_matrix_sync(fa[a], s_B + r * NBP + 8 * (wr + WR * a), NBP);
        if (wc + WR * a < MTS) wmma::load_matrix_sync(fb[a], s_V[el] + r * NBP + 8 * (wc + WR * a), NBP);
      }
#pragma unroll
      for (int a = 0; a < RT; a++)
#pragma unroll
        for (int b = 0; b < RT; b++)
          if (wr + WR * a < MTS && wc + WR * b < MTS) wmma::mma_sync(acc[a][b], fa[a], fb[b], acc[a][b]);
    }
  }
  if (!live) return;
  double *Ae = A + (size_t)e * NB * NB, *o = s_out[el][warp];
#pragma unroll
  for (int a = 0; a < RT; a++)
#pragma unroll
    for (int b = 0; b < RT; b++) {
      const int ti = wr + WR * a, tj = wc + WR * b;
      if (ti >= MTS || tj >= MTS) continue;
      wmma::store_matrix_sync(o, acc[a][b], 8, wmma::mem_row_major);
      __syncwarp();
      for (int k = lane; k < 64; k += 32) {
        const int i = r0 + 8 * ti + k / 8, j = c0 + 8 * tj + k % 8;
        if (i < NB && j < NB) Ae[i * NB + j] = o[k];
      }
      __syncwarp();
    }
}

/* ---------------------------------------------------- per-cell coefficients */

/* The entries of C that are not zero without g1, g2: (0,0) and the 3 x 3 block. */
__host__ __device__ constexpr bool g03_entry(int c) { return c == 0 || (c / 4 >= 1 && c % 4 >= 1); }

template <bool G12, bool VERTS>
__global__ void __launch_bounds__(256)
elmat_cell_kernel(int64_t n, int nb2, int T, int S, int nchunks, int stride, int nx, const double *__restrict__ K,
                  const double *__restrict__ geom, const double *__restrict__ coef, double *__restrict__ A) {
  constexpr int NC = G12 ? 16 : 10;
  __shared__ double s_C[EB][16];
  const int tid = threadIdx.x;
  /* Block b takes entry chunk b % nchunks of the cells e_first + stride m,
   * m < EB. Consecutive blocks take the consecutive chunks of the same
   * cells, so a cell's row is written close together in time. When a row
   * (nb^2 doubles) is not a multiple of 32 bytes, stride = 4: the cells of
   * a block then start at the same offset in a 32-byte sector, and shifting
   * the entries by that offset makes every warp's 32 stores one aligned
   * 256-byte segment. */
  const int chunk = (int)(blockIdx.x % (unsigned)nchunks);
  const int64_t gr = blockIdx.x / (unsigned)nchunks; /* group * stride + residue */
  const int64_t e_first = (gr / stride) * stride * EB + gr % stride;
  const int shift = (int)((e_first * nb2) % 4);
  if (tid < EB && e_first + stride * tid < n) {
    const int64_t e = e_first + stride * tid;
    double geo[10];
    if (VERTS)
      feint_elmat_tet_geometry(geom + (size_t)nx * e, geo); /* an affine prism's J: its first 4 vertices */
    else
      for (int k = 0; k < 10; k++) geo[k] = geom[10 * e + k];
    feint_elmat_point_tensor(geo, 1.0, coef + (size_t)e * NC, NC, s_C[tid]);
  }
  const int t = chunk * T + tid % T - shift, sub = tid / T;
  const bool act = sub < S && t >= 0 && t < nb2;
  double k[16];
#pragma unroll
  for (int c = 0; c < 16; c++) k[c] = (act && (G12 || g03_entry(c))) ? K[(size_t)c * nb2 + t] : 0;
  __syncthreads();
  if (!act) return;
  for (int m = sub; m < EB && e_first + stride * m < n; m += S) {
    double a = 0;
#pragma unroll
    for (int c = 0; c < 16; c++)
      if (G12 || g03_entry(c)) a += s_C[m][c] * k[c];
    A[(size_t)(e_first + stride * m) * nb2 + t] = a;
  }
}

/* ------------------------------------------------------------ dispatch */

typedef void (*point_kernel_t)(int64_t, int, int, const double *, const double *, const double *, const double *,
                               const double *, double *);

/* Which point kernels a build holds: the default data placement with
 * vertex geometry per order (what the backend runs), or with make
 * EXPERIMENTS=1 every (data, geometry). */
#ifdef FEINT_EXPERIMENTS
static constexpr bool elmat_experiments = true;
#else
static constexpr bool elmat_experiments = false;
#endif

extern "C" int feint_elmat_gpu_variant_built(int order, const feint_elmat_variant *v) {
  return v->coef == FEINT_ELMAT_COEF_CELL || elmat_experiments ||
         (v->data == FEINT_ELMAT_DEFAULT_DATA(order) && v->geo == FEINT_ELMAT_GEO_VERTICES);
}

template <int CELL, int P>
static point_kernel_t pick_point(feint_elmat_data data, bool verts, dim3 *block, int *ne, int *ss) {
  if constexpr (!elmat_experiments) {
    if (data != FEINT_ELMAT_DEFAULT_DATA(P) || !verts) return NULL;
    if constexpr (FEINT_ELMAT_DEFAULT_DATA(P) == FEINT_ELMAT_DATA_TENSOR) {
      using M = mma_shape<CELL, P>;
      *block = dim3(32 * M::NW, M::NE);
      *ne = M::NE, *ss = M::SPLIT * M::SPLIT;
      return elmat_point_mma_kernel<CELL, P, true>;
    } else {
      using S = shape<CELL, P>;
      *block = dim3(S::NT, S::NE);
      *ne = S::NE, *ss = S::SPLIT * S::SPLIT;
      return elmat_point_kernel<CELL, P, true, true>;
    }
  } else {
    if (data == FEINT_ELMAT_DATA_TENSOR) {
      using M = mma_shape<CELL, P>;
      *block = dim3(32 * M::NW, M::NE);
      *ne = M::NE, *ss = M::SPLIT * M::SPLIT;
      return verts ? elmat_point_mma_kernel<CELL, P, true> : elmat_point_mma_kernel<CELL, P, false>;
    }
    using S = shape<CELL, P>;
    *block = dim3(S::NT, S::NE);
    *ne = S::NE, *ss = S::SPLIT * S::SPLIT;
    if (data == FEINT_ELMAT_DATA_SHARED)
      return verts ? elmat_point_kernel<CELL, P, true, true> : elmat_point_kernel<CELL, P, true, false>;
    return verts ? elmat_point_kernel<CELL, P, false, true> : elmat_point_kernel<CELL, P, false, false>;
  }
}

template <int CELL>
static point_kernel_t pick_order(int order, feint_elmat_data data, bool verts, dim3 *block, int *ne, int *ss) {
  switch (order) {
#define ELMAT_CASE(p) \
  case p: return pick_point<CELL, p>(data, verts, block, ne, ss);
    ELMAT_CASE(1) ELMAT_CASE(2) ELMAT_CASE(3) ELMAT_CASE(4) ELMAT_CASE(5) ELMAT_CASE(6) ELMAT_CASE(7)
#undef ELMAT_CASE
    default: return NULL;
  }
}

static int launch(feint_elmat_gpu *g, const feint_elmat_variant *v, int64_t n, const double *geom,
                  const double *coef, double *A) {
  if (n <= 0) return FEINT_OK;
  const bool verts = v->geo == FEINT_ELMAT_GEO_VERTICES;
  if (v->coef == FEINT_ELMAT_COEF_CELL) {
    const int nb2 = g->nb * g->nb, T = nb2 < 256 ? nb2 : 256, S = nb2 < 256 ? 256 / nb2 : 1;
    const int stride = nb2 % 4 ? 4 : 1, nchunks = (nb2 + (stride > 1 ? 3 : 0) + T - 1) / T;
    const int64_t blocks = (n + (int64_t)stride * EB - 1) / ((int64_t)stride * EB) * stride * nchunks;
    if (blocks > INT32_MAX) return feint_error_set(FEINT_ERR_INPUT, "element matrices on the GPU: too many cells");
    const unsigned grid = (unsigned)blocks;
    const int nx = 3 * g->t->nv;
    if (v->ncoef == 16)
      (verts ? elmat_cell_kernel<true, true> : elmat_cell_kernel<true, false>)<<<grid, 256>>>(
          n, nb2, T, S, nchunks, stride, nx, g->K, geom, coef, A);
    else
      (verts ? elmat_cell_kernel<false, true> : elmat_cell_kernel<false, false>)<<<grid, 256>>>(
          n, nb2, T, S, nchunks, stride, nx, g->K, geom, coef, A);
  } else {
    dim3 block;
    int ne = 1, ss = 1;
    point_kernel_t fn = g->t->cell == FEINT_CELL_PRISM ? pick_order<PRISM>(g->t->order, v->data, verts, &block, &ne, &ss)
                                                       : pick_order<TET>(g->t->order, v->data, verts, &block, &ne, &ss);
    if (!fn && !feint_elmat_gpu_variant_built(g->t->order, v)) {
      char name[64];
      return feint_error_set(FEINT_ERR_INPUT,
                             "element matrices on the GPU: variant %s at order %d is built only with make "
                             "EXPERIMENTS=1 (this feint holds the default, %s data with vertex geometry)",
                             feint_elmat_variant_name(v, name, sizeof name), g->t->order,
                             FEINT_ELMAT_DEFAULT_DATA(g->t->order) == FEINT_ELMAT_DATA_TENSOR ? "tensor-core" : "shared");
    }
    if (!fn) return feint_error_set(FEINT_ERR_INPUT, "element matrices on the GPU: order %d", g->t->order);
    const int64_t blocks = (n + ne - 1) / ne * ss;
    if (blocks > INT32_MAX) return feint_error_set(FEINT_ERR_INPUT, "element matrices on the GPU: too many cells");
    fn<<<(unsigned)blocks, block>>>(n, g->nq, v->ncoef, v->data == FEINT_ELMAT_DATA_TENSOR ? g->tab8 : g->tab, g->w,
                                    g->pts, geom, coef, A);
  }
  FEINT_CUDA_CALL("element matrices: kernel launch", cudaGetLastError());
  return FEINT_OK;
}

/* Grow a device buffer to at least bytes (contents not kept). */
static int reserve(double **p, size_t *cap, size_t bytes, const char *what) {
  if (*cap >= bytes && *p) return FEINT_OK;
  cudaFree(*p);
  *p = NULL;
  *cap = 0;
  FEINT_CALL(feint_cuda_malloc((void **)p, bytes, "element matrices", what));
  *cap = bytes;
  return FEINT_OK;
}

struct sizes {
  size_t geom, coef, A;
};
static sizes sizes_of(const feint_elmat_gpu *g, const feint_elmat_variant *v, int64_t n) {
  sizes s;
  s.geom = sizeof(double) * (size_t)n * feint_elmat_geometry_size(g->t, v);
  s.coef = sizeof(double) * (size_t)n * v->ncoef * (v->coef == FEINT_ELMAT_COEF_CELL ? 1 : g->nq);
  s.A = sizeof(double) * (size_t)n * g->nb * g->nb;
  return s;
}

static int reserve_all(feint_elmat_gpu *g, const sizes &s) {
  FEINT_CALL(reserve(&g->geom, &g->cap_geom, s.geom, "geometry"));
  FEINT_CALL(reserve(&g->coef, &g->cap_coef, s.coef, "coefficients"));
  FEINT_CALL(reserve(&g->A, &g->cap_A, s.A, "element matrices"));
  return FEINT_OK;
}

/* Events around one phase (feint_cuda_timer), in milliseconds as a double. */
static int timer_ms(feint_cuda_timer *t, double *ms) {
  float f = 0;
  FEINT_CALL(feint_cuda_timer_stop(t, "element matrices: event time", &f));
  *ms = f;
  return FEINT_OK;
}

/* ----------------------------------------------------- random inputs */

__device__ inline double hash_unit(uint64_t k, unsigned seed) {
  uint64_t h = k * 0x9E3779B97F4A7C15ull + seed * 0xD1B54A32D192ED03ull + 1;
  h ^= h >> 31;
  h *= 0xBF58476D1CE4E5B9ull;
  h ^= h >> 29;
  return (double)(h >> 11) * (1.0 / 9007199254740992.0); /* [0, 1) */
}

/* Cells perturbed by up to +-0.125 per coordinate from the reference one
 * (well shaped; prisms made affine, their top a translate of the bottom,
 * when affine is set), as vertices or as the Jacobian terms of their ng
 * geometry points pts. */
__global__ void random_geometry_kernel(int64_t n, unsigned seed, int cell, bool verts, bool affine, int ng,
                                       const double *pts, double *geom) {
  const double ref[18] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 0, 1, 1};
  const int nx = cell == PRISM ? 18 : 12;
  for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < n; e += (int64_t)gridDim.x * blockDim.x) {
    double xv[18];
    for (int k = 0; k < nx; k++) xv[k] = ref[k] + 0.25 * (hash_unit(nx * e + k, seed) - 0.5);
    if (cell == PRISM && affine)
      for (int k = 12; k < 18; k++) xv[k] = xv[k - 9] + xv[9 + k % 3] - xv[k % 3];
    if (verts)
      for (int k = 0; k < nx; k++) geom[nx * e + k] = xv[k];
    else
      for (int q = 0; q < ng; q++)
        feint_elmat_point_geometry((feint_cell_type)cell, xv, pts + 3 * q, geom + 10 * (e * ng + q));
  }
}

__global__ void random_coef_kernel(int64_t n, unsigned seed, double *x) {
  for (int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; t < n; t += (int64_t)gridDim.x * blockDim.x)
    x[t] = 0.5 + hash_unit(t, seed);
}

/* ------------------------------------------------------------ C interface */

extern "C" void feint_elmat_gpu_destroy(feint_elmat_gpu *g) {
  if (!g) return;
  cudaFree(g->tab);
  cudaFree(g->tab8);
  cudaFree(g->phiT);
  cudaFree(g->w);
  cudaFree(g->pts);
  cudaFree(g->K);
  cudaFree(g->geom);
  cudaFree(g->coef);
  cudaFree(g->A);
  cudaFree(g->Ab);
  cudaFree(g->xv);
  cudaFree(g->cdofs);
  cudaFree(g->vB);
  cudaFree(g->vBT);
  cudaFree(g->vw);
  cudaFree(g->vpts);
  cudaFree(g->u);
  cudaFree(g->Fe);
  cudaFree(g->F);
  for (int k = 0; k < g->form.n_all; k++)
    if (g->form.aux[k].kind != FEINT_FIELD_CONSTANT) cudaFree(g->form.aux[k].values);
  free(g);
}

/* B padded to nbp columns and nqp points (zeros), on the device. */
static int upload_padded(const feint_elmat_tables *t, int nqp, int nbp, double **out) {
  std::vector<double> tab((size_t)nqp * 4 * nbp, 0.0);
  for (int r = 0; r < 4 * t->nq; r++) /* r = q 4 + c */
    for (int i = 0; i < t->nb; i++) tab[(size_t)r * nbp + i] = t->B[(size_t)r * t->nb + i];
  FEINT_CALL(feint_cuda_malloc((void **)out, sizeof(double) * tab.size(), "element matrices", "tables"));
  FEINT_CUDA_CALL("element matrices: upload tables",
                  feint_cuda_memcpy(*out, tab.data(), sizeof(double) * tab.size(), cudaMemcpyHostToDevice));
  return FEINT_OK;
}

/* Host data to a new device array. */
static int upload(const std::vector<double> &h, double **out, const char *what) {
  FEINT_CALL(feint_cuda_malloc((void **)out, sizeof(double) * h.size(), "element matrices", what));
  cudaError_t e = feint_cuda_memcpy(*out, h.data(), sizeof(double) * h.size(), cudaMemcpyHostToDevice);
  if (e != cudaSuccess) return FEINT_CUDA_FAIL(e, what);
  return FEINT_OK;
}

static int upload_tables(feint_elmat_gpu *g) {
  const feint_elmat_tables *t = g->t;
  std::vector<double> w(g->nqp, 0.0), pts((size_t)g->nqp * 3, 0.0);
  for (int q = 0; q < t->nq; q++) w[q] = t->quad->weights[q];
  for (int k = 0; k < 3 * t->nq; k++) pts[k] = t->quad->points[k];
  FEINT_CALL(upload_padded(t, g->nqp, nbpf_of(t->cell, t->order), &g->tab));
  FEINT_CALL(upload_padded(t, g->nqp, mma_nbpf_of(t->cell, t->order), &g->tab8));
  std::vector<double> phiT((size_t)t->nb * t->nq);
  for (int q = 0; q < t->nq; q++)
    for (int i = 0; i < t->nb; i++) phiT[(size_t)i * t->nq + q] = t->B[(size_t)q * 4 * t->nb + i];
  FEINT_CALL(upload(phiT, &g->phiT, "element matrices: upload basis values"));
  FEINT_CALL(upload(w, &g->w, "element matrices: upload weights"));
  FEINT_CALL(upload(pts, &g->pts, "element matrices: upload points"));
  FEINT_CALL(upload(std::vector<double>(t->K, t->K + (size_t)16 * t->nb * t->nb), &g->K,
                    "element matrices: upload reference tensors"));
  return FEINT_OK;
}

extern "C" int feint_elmat_gpu_create(const feint_elmat_tables *t, int device_index, feint_elmat_gpu **out) {
  *out = NULL;
  if ((t->cell != FEINT_CELL_TETRAHEDRON && t->cell != FEINT_CELL_PRISM) || t->order < 1 ||
      t->order > FEINT_ELMAT_MAX_ORDER || t->nb != nb_of(t->cell, t->order))
    return feint_error_set(FEINT_ERR_INPUT,
                           "element matrices on the GPU: order %d %s cells (tetrahedra and prisms of order 1..%d)",
                           t->order, feint_cell_name(t->cell), FEINT_ELMAT_MAX_ORDER);
  FEINT_CUDA_CALL("element matrices: cudaSetDevice", cudaSetDevice(device_index));
  FEINT_CUDA_CALL("element matrices: context", cudaFree(0)); /* context creation is not setup of this module */
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  feint_cuda_tuning tune;
  FEINT_CALL(feint_cuda_tuning_read(NULL, &tune));
  feint_elmat_gpu *g = (feint_elmat_gpu *)calloc(1, sizeof *g);
  if (!g) return feint_error_set(FEINT_ERR_COMPUTE, "out of memory allocating the GPU element matrix state");
  g->t = t;
  g->vector_cells = tune.elmat_vector_cells;
  g->device = device_index;
  g->nb = t->nb;
  g->nq = t->nq;
  g->nqp = (t->nq + QC - 1) / QC * QC;
  int st = cudaDeviceGetAttribute(&g->sms, cudaDevAttrMultiProcessorCount, device_index) == cudaSuccess
               ? FEINT_OK : FEINT_CUDA_FAIL(cudaGetLastError(), "element matrices: device attributes");
  if (!st) st = upload_tables(g);
  if (st) {
    feint_elmat_gpu_destroy(g);
    return st;
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  g->setup_ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) * 1e-6;
  *out = g;
  return FEINT_OK;
}

extern "C" int feint_elmat_gpu_compute(feint_elmat_gpu *g, const feint_elmat_variant *v, int64_t n,
                                       const double *geom, const double *coef, double *A,
                                       feint_elmat_gpu_timing *tm) {
  FEINT_CALL(feint_elmat_variant_check(v));
  if (n < 0) return feint_error_set(FEINT_ERR_INPUT, "element matrices on the GPU: %lld cells", (long long)n);
  FEINT_CALL(feint_elmat_geometry_check(g->t, v, n, geom)); /* on the host: kernels cannot report a bad cell */
  FEINT_CUDA_CALL("element matrices: cudaSetDevice", cudaSetDevice(g->device));
  const sizes s = sizes_of(g, v, n);
  FEINT_CALL(reserve_all(g, s));
  feint_cuda_timer T = {};
  FEINT_CALL(feint_cuda_timer_create(&T, "element matrices: events"));
  feint_elmat_gpu_timing r = {g->setup_ms, 0, 0, 0, 0};
  int st = FEINT_OK;
#define ELMAT_STEP(expr) \
  if (!st) st = (expr)
  ELMAT_STEP(feint_cuda_timer_start(&T, "element matrices: event"));
  ELMAT_STEP(feint_cuda_memcpy(g->geom, geom, s.geom, cudaMemcpyHostToDevice) == cudaSuccess
                 ? FEINT_OK : FEINT_CUDA_FAIL(cudaGetLastError(), "element matrices: upload geometry"));
  ELMAT_STEP(feint_cuda_memcpy(g->coef, coef, s.coef, cudaMemcpyHostToDevice) == cudaSuccess
                 ? FEINT_OK : FEINT_CUDA_FAIL(cudaGetLastError(), "element matrices: upload coefficients"));
  ELMAT_STEP(timer_ms(&T, &r.upload_ms));
  ELMAT_STEP(feint_cuda_timer_start(&T, "element matrices: event"));
  ELMAT_STEP(launch(g, v, n, g->geom, g->coef, g->A));
  ELMAT_STEP(timer_ms(&T, &r.kernel_ms));
  ELMAT_STEP(feint_cuda_timer_start(&T, "element matrices: event"));
  ELMAT_STEP(feint_cuda_memcpy(A, g->A, s.A, cudaMemcpyDeviceToHost) == cudaSuccess
                 ? FEINT_OK : FEINT_CUDA_FAIL(cudaGetLastError(), "element matrices: download"));
  ELMAT_STEP(timer_ms(&T, &r.download_ms));
#undef ELMAT_STEP
  feint_cuda_timer_destroy(&T);
  if (!st && tm) *tm = r;
  return st;
}

extern "C" int feint_elmat_gpu_bench(feint_elmat_gpu *g, const feint_elmat_variant *v, int64_t n, int reps,
                                     unsigned seed, feint_elmat_gpu_timing *tm) {
  FEINT_CALL(feint_elmat_variant_check(v));
  if (n <= 0 || reps < 1)
    return feint_error_set(FEINT_ERR_INPUT, "element matrix bench: %lld cells, %d repetitions", (long long)n, reps);
  FEINT_CUDA_CALL("element matrices: cudaSetDevice", cudaSetDevice(g->device));
  const sizes s = sizes_of(g, v, n);
  FEINT_CALL(reserve_all(g, s));
  /* Pageable host buffers, touched first so that page faults are not timed. */
  char *hin = (char *)malloc(s.geom + s.coef), *hout = (char *)malloc(s.A);
  if (!hin || !hout) {
    free(hin);
    free(hout);
    return feint_error_set(FEINT_ERR_COMPUTE, "element matrix bench: out of host memory (%zu bytes)",
                           s.geom + s.coef + s.A);
  }
  memset(hin, 0, s.geom + s.coef);
  memset(hout, 0, s.A);
  feint_cuda_timer T = {};
  int st = feint_cuda_timer_create(&T, "element matrices: events");
  feint_elmat_gpu_timing r = {g->setup_ms, 0, 0, 0, 0};
  std::vector<double> ms;
#define ELMAT_STEP(expr) \
  if (!st) st = (expr)
#define ELMAT_CUDA(phase, call) \
  ELMAT_STEP((call) == cudaSuccess ? FEINT_OK : FEINT_CUDA_FAIL(cudaGetLastError(), phase))
  ELMAT_STEP(feint_cuda_timer_start(&T, "element matrices: event"));
  ELMAT_CUDA("element matrix bench: upload", feint_cuda_memcpy(g->geom, hin, s.geom, cudaMemcpyHostToDevice));
  ELMAT_CUDA("element matrix bench: upload", feint_cuda_memcpy(g->coef, hin + s.geom, s.coef, cudaMemcpyHostToDevice));
  ELMAT_STEP(timer_ms(&T, &r.upload_ms));
  if (!st) {
    random_geometry_kernel<<<4096, 256>>>(n, seed, g->t->cell, v->geo == FEINT_ELMAT_GEO_VERTICES,
                                          v->coef == FEINT_ELMAT_COEF_CELL, feint_elmat_geometry_points(g->t, v),
                                          g->pts, g->geom);
    random_coef_kernel<<<4096, 256>>>((int64_t)(s.coef / sizeof(double)), seed + 1, g->coef);
  }
  ELMAT_CUDA("element matrix bench: random inputs", cudaGetLastError());
  ELMAT_STEP(launch(g, v, n, g->geom, g->coef, g->A)); /* warm-up */
  for (int k = 0; k < reps && !st; k++) {
    double t = 0;
    ELMAT_STEP(feint_cuda_timer_start(&T, "element matrices: event"));
    ELMAT_STEP(launch(g, v, n, g->geom, g->coef, g->A));
    ELMAT_STEP(timer_ms(&T, &t));
    ms.push_back(t);
  }
  ELMAT_STEP(feint_cuda_timer_start(&T, "element matrices: event"));
  ELMAT_CUDA("element matrix bench: download", feint_cuda_memcpy(hout, g->A, s.A, cudaMemcpyDeviceToHost));
  ELMAT_STEP(timer_ms(&T, &r.download_ms));
#undef ELMAT_CUDA
#undef ELMAT_STEP
  feint_cuda_timer_destroy(&T);
  free(hin);
  free(hout);
  if (st) return st;
  std::sort(ms.begin(), ms.end());
  r.kernel_ms = ms[ms.size() / 2];
  *tm = r;
  return FEINT_OK;
}

/* ------------------------------------------- a form's cells on the device */

/* Component pair fg's coefficients of the pointwise physics from the
 * fields a at a point (feint_elmat_pair_coefficients, as on the host). */
__device__ inline void physics_coefficients(const form_coefficients &F, const double *a, int fg, double *out) {
  feint_elmat_pair_coefficients(F.physics, F.terms, F.nc, a, fg, F.ncoef, out);
}

/* Cell c's values of the nodal fields among the first n into shared
 * memory, s_nodal[k nb + i] (every thread of the block takes part). */
__device__ inline void stage_nodal_fields(const form_coefficients &F, int n, int64_t c, int nb,
                                          const int64_t *__restrict__ cdofs, double *s_nodal) {
  for (int k = 0; k < n; k++)
    if (F.aux[k].kind == FEINT_FIELD_NODE)
      for (int i = threadIdx.x; i < nb; i += blockDim.x) s_nodal[k * nb + i] = F.aux[k].values[cdofs[c * nb + i]];
}

/* The first n fields at point q of cell c into a[]: nodal ones
 * interpolated from s_nodal with the transposed basis values
 * phiT[i nq + q] (the sum of feint_field_at in the same order), the others
 * read. */
__device__ inline void fields_at_point(const form_coefficients &F, int n, int64_t c, int nq, int nb, int q,
                                       const double *__restrict__ phiT, const double *s_nodal, double *a) {
  for (int k = 0; k < n; k++) {
    if (F.aux[k].kind != FEINT_FIELD_NODE) {
      a[k] = feint_field_at(&F.aux[k], NULL, nb, c, NULL);
      continue;
    }
    const double *v = s_nodal + k * nb;
    double s = 0;
    for (int i = 0; i < nb; i++) s += phiT[(size_t)i * nq + q] * v[i];
    a[k] = s;
  }
}

/* The coefficient array (elmat.h layout) of cells c0 .. c0 + n - 1, once
 * per cell (the reference-matrix path: constant and P0 fields only), one
 * thread per cell: the fields by feint_field_at, then the physics; for
 * nc components one such array per pair fg, at coef + fg n ncoef. */
__global__ void cell_coefficients_kernel(form_coefficients F, int64_t c0, int64_t n, int nb,
                                         const double *__restrict__ tab, const int64_t *__restrict__ cdofs,
                                         double *__restrict__ coef) {
  for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < n; e += (int64_t)gridDim.x * blockDim.x) {
    const int64_t c = c0 + e;
    double a[FEINT_ELMAT_MAX_AUX];
    for (int k = 0; k < F.n_aux; k++) a[k] = feint_field_at(&F.aux[k], tab, nb, c, cdofs + c * nb);
    for (int fg = 0; fg < F.nc * F.nc; fg++) physics_coefficients(F, a, fg, coef + (fg * n + e) * F.ncoef);
  }
}

/* The same at the nq points of each cell, one block per cell so that its
 * loads coalesce: the cell's dof indices and nodal values are read once
 * into shared memory (s_nodal), thread q interpolates them with the
 * transposed basis values phiT[i nq + q] (consecutive threads, consecutive
 * points: the sum of feint_field_at in the same order), and the
 * coefficients of COEF_THREADS points are staged in shared memory
 * (s_out) and written as one contiguous run, pair by pair for nc
 * components (pair fg's array at coef + fg n nq ncoef). Dynamic shared
 * memory: (n_aux nb + COEF_THREADS ncoef) doubles. */
#define COEF_THREADS 128
__global__ void __launch_bounds__(COEF_THREADS)
point_coefficients_kernel(form_coefficients F, int64_t c0, int64_t n, int nq, int nb, const double *__restrict__ phiT,
                          const int64_t *__restrict__ cdofs, double *__restrict__ coef) {
  extern __shared__ double s_mem[];
  double *s_nodal = s_mem, *s_out = s_mem + F.n_aux * nb;
  for (int64_t e = blockIdx.x; e < n; e += gridDim.x) {
    const int64_t c = c0 + e;
    __syncthreads(); /* the last cell's s_nodal is read */
    stage_nodal_fields(F, F.n_aux, c, nb, cdofs, s_nodal);
    __syncthreads();
    for (int q0 = 0; q0 < nq; q0 += COEF_THREADS) {
      const int q = q0 + threadIdx.x;
      double a[FEINT_ELMAT_MAX_AUX];
      if (q < nq) fields_at_point(F, F.n_aux, c, nq, nb, q, phiT, s_nodal, a);
      for (int fg = 0; fg < F.nc * F.nc; fg++) {
        if (q < nq) physics_coefficients(F, a, fg, s_out + threadIdx.x * F.ncoef);
        __syncthreads();
        const int m = (nq - q0 < COEF_THREADS ? nq - q0 : COEF_THREADS) * F.ncoef;
        double *out = coef + (((size_t)fg * n + e) * nq + q0) * F.ncoef;
        for (int j = threadIdx.x; j < m; j += COEF_THREADS) out[j] = s_out[j];
        __syncthreads(); /* s_out is rewritten by the next pair or chunk */
      }
    }
  }
}

/* ------------------------------------------------------ element vectors */

/* The pointwise residual (with_state: f0, f1 of the physics at u, grad u)
 * or load (the source alone) at point q of the block's CB cells c0 + j
 * (past n: the last cell again, computed and not written), scaled by
 * w_q |det J| and pulled back to reference directions, per component
 * m < NC: f[4 m] = w |J| f0_m, f[4 m + 1 + c] = w |J| (J^-1 f1_m)_c, so
 * that the element vector is sum_q B_q^T f_q (grad phi_i . f1 =
 * (J^-T grad_r phi_i) . f1), into f + j fstride. Each table entry is
 * loaded once for the CB cells' u and grad u. Shared: s_cell (per cell
 * cstride doubles: u interleaved, nb NC, then the nodal field values),
 * s_x (vertices, NX per cell; prisms: J at the point), s_geo (a
 * tetrahedron's Jacobian terms, 10 per cell). */
template <int CELL, int CB, int NC>
__device__ inline void point_vector_terms(const form_coefficients &F, const vector_rule &R, int nb, int64_t c0,
                                          int64_t n, int q, const double *s_x, const double *s_geo,
                                          bool with_state, const double *s_cell, int cstride, double *f,
                                          int fstride) {
  constexpr int NX = CELL == PRISM ? 18 : 12;
  double uq[CB][NC], gr[CB][NC][3]; /* u and its reference gradient */
#pragma unroll
  for (int j = 0; j < CB; j++)
#pragma unroll
    for (int m = 0; m < NC; m++) uq[j][m] = gr[j][m][0] = gr[j][m][1] = gr[j][m][2] = 0;
  if (with_state) {
    const size_t plane = (size_t)nb * R.nq; /* BT's stride from one component c to the next */
    for (int i = 0; i < nb; i++) {
      const double *b = R.BT + (size_t)i * R.nq + q;
      const double b0 = b[0], b1 = b[plane], b2 = b[2 * plane], b3 = b[3 * plane];
#pragma unroll
      for (int j = 0; j < CB; j++)
#pragma unroll
        for (int m = 0; m < NC; m++) {
          const double v = s_cell[j * cstride + i * NC + m];
          uq[j][m] += b0 * v;
          gr[j][m][0] += b1 * v;
          gr[j][m][1] += b2 * v;
          gr[j][m][2] += b3 * v;
        }
    }
  }
#pragma unroll
  for (int j = 0; j < CB; j++) {
    const int64_t c = c0 + j < n ? c0 + j : n - 1;
    double pgeo[CELL == PRISM ? 10 : 1];
    const double *geo = s_geo + 10 * j;
    if (CELL == PRISM) {
      feint_elmat_point_geometry(FEINT_CELL_PRISM, s_x + NX * j, R.pts + 3 * q, pgeo);
      geo = pgeo;
    }
    double a[FEINT_ELMAT_MAX_AUX], gradu[3 * NC], f0[NC], f1[3 * NC];
    fields_at_point(F, F.n_all, c, R.nq, nb, q, R.BT, s_cell + j * cstride + nb * NC, a);
#pragma unroll
    for (int m = 0; m < NC; m++)
      for (int d = 0; d < 3; d++)
        gradu[3 * m + d] = gr[j][m][0] * geo[d] + gr[j][m][1] * geo[3 + d] + gr[j][m][2] * geo[6 + d];
    const feint_point pt = {3, NC, uq[j], gradu, a};
    for (int k = 0; k < 3 * NC; k++) f1[k] = 0;
    if (with_state) {
      feint_physics_f0(F.physics, &pt, f0);
      feint_physics_f1(F.physics, &pt, f1);
    } else {
      feint_physics_source(F.physics, &pt, f0);
    }
    const double s = R.w[q] * geo[9];
    double *fj = f + j * fstride;
#pragma unroll
    for (int m = 0; m < NC; m++) {
      const double *f1m = f1 + 3 * m;
      fj[4 * m] = s * f0[m];
      for (int k = 0; k < 3; k++)
        fj[4 * m + 1 + k] = s * (geo[3 * k] * f1m[0] + geo[3 * k + 1] * f1m[1] + geo[3 * k + 2] * f1m[2]);
    }
  }
}

/* Element vectors by thread transposition (Knepley, Rupp, Terrel; the
 * fused P1/P2 kernels of cuda.cu): a block of VEC_THREADS threads takes
 * CB cells at a time (grid-stride), their u, nodal field values and
 * vertices staged in shared memory; then per chunk of VEC_THREADS points
 * the quadrature phase, a thread per point (point_vector_terms into
 * s_f), a barrier, and the basis phase, a thread per basis function
 * summing the chunk's points in order from s_f. Every table entry a
 * thread loads serves the CB cells: the tables (nq x 4 x nb doubles each,
 * larger than L1, streamed per block) are what limits this kernel (see
 * docs/perf/element-matrices.md), not its arithmetic. Each entry is summed by one thread in a
 * fixed order whatever CB, so the element vectors are the same bits run
 * to run. With NC components (u interleaved, as the space's dofs) they
 * are written to out[(c nb + i) NC + m], or with atomic added into
 * out[dof NC + m] (atomicAdd). u NULL: the load vector. Dynamic shared
 * memory: CB (nb (NC + n_all) + 4 NC VEC_THREADS) doubles
 * (vector_cells_per_block). */
#define VEC_THREADS 128
constexpr int VEC_PER = (nb_of(PRISM, FEINT_ELMAT_MAX_ORDER) + VEC_THREADS - 1) / VEC_THREADS; /* i per thread */
template <int CELL, int CB, int NC>
__global__ void __launch_bounds__(VEC_THREADS)
element_vector_kernel(form_coefficients F, vector_rule R, int64_t n, int nb, const double *__restrict__ xv,
                      const int64_t *__restrict__ cdofs, const double *__restrict__ u, bool atomic,
                      double *__restrict__ out) {
  constexpr int NX = CELL == PRISM ? 18 : 12, FS = 4 * NC * VEC_THREADS;
  extern __shared__ double s_mem[];
  const int cstride = nb * (NC + F.n_all); /* per cell: u (interleaved), then the nodal field values */
  double *s_cell = s_mem, *s_f = s_mem + (size_t)CB * cstride;
  __shared__ double s_x[CB * NX], s_geo[CB * 10];
  const int tid = threadIdx.x, nq = R.nq;
  for (int64_t c0 = (int64_t)blockIdx.x * CB; c0 < n; c0 += (int64_t)gridDim.x * CB) {
    __syncthreads(); /* the last cells' shared data is read */
    for (int j = 0; j < CB; j++) {
      const int64_t c = c0 + j < n ? c0 + j : n - 1; /* past n: the last cell again, not written */
      double *s_u = s_cell + j * cstride;
      for (int k = tid; k < nb * NC; k += VEC_THREADS) s_u[k] = u ? u[cdofs[c * nb + k / NC] * NC + k % NC] : 0;
      stage_nodal_fields(F, F.n_all, c, nb, cdofs, s_u + nb * NC);
      if (tid < NX) s_x[j * NX + tid] = xv[c * NX + tid];
    }
    __syncthreads();
    if (CELL == TET && tid < CB) feint_elmat_tet_geometry(s_x + tid * NX, s_geo + tid * 10);
    __syncthreads();
    double acc[CB][VEC_PER][NC];
#pragma unroll
    for (int j = 0; j < CB; j++)
#pragma unroll
      for (int jj = 0; jj < VEC_PER; jj++)
#pragma unroll
        for (int m = 0; m < NC; m++) acc[j][jj][m] = 0;
    for (int q0 = 0; q0 < nq; q0 += VEC_THREADS) {
      if (q0 + tid < nq)
        point_vector_terms<CELL, CB, NC>(F, R, nb, c0, n, q0 + tid, s_x, s_geo, u != NULL, s_cell, cstride,
                                         s_f + 4 * NC * tid, FS);
      __syncthreads();
      const int m = nq - q0 < VEC_THREADS ? nq - q0 : VEC_THREADS;
#pragma unroll
      for (int jj = 0; jj < VEC_PER; jj++) {
        const int i = tid + jj * VEC_THREADS;
        if (i >= nb) break;
        const double *b = R.B + (size_t)q0 * 4 * nb + i;
        for (int k = 0; k < m; k++, b += 4 * nb) {
          const double b0 = b[0], b1 = b[nb], b2 = b[2 * nb], b3 = b[3 * nb];
#pragma unroll
          for (int j = 0; j < CB; j++)
#pragma unroll
            for (int cm = 0; cm < NC; cm++) { /* component cm (m: the chunk's points) */
              const double *fk = s_f + j * FS + 4 * (NC * k + cm);
              acc[j][jj][cm] += b0 * fk[0] + b1 * fk[1] + b2 * fk[2] + b3 * fk[3];
            }
        }
      }
      __syncthreads(); /* s_f is rewritten by the next chunk */
    }
#pragma unroll
    for (int j = 0; j < CB; j++) {
      if (c0 + j >= n) break;
#pragma unroll
      for (int jj = 0; jj < VEC_PER; jj++) {
        const int i = tid + jj * VEC_THREADS;
        if (i >= nb) break;
#pragma unroll
        for (int m = 0; m < NC; m++) {
          if (atomic)
            atomicAdd(out + cdofs[(c0 + j) * nb + i] * NC + m, acc[j][jj][m]);
          else
            out[((c0 + j) * nb + i) * NC + m] = acc[j][jj][m];
        }
      }
    }
  }
}

/* Cells per block of the element-vector kernel: the most of 4, 2 whose
 * staging fits VEC_SHARED_BUDGET of shared memory while the mesh gives
 * every SM a block, else 1. Measured on the H100 (docs/perf/element-matrices.md): more cells
 * per block cut the table traffic (P4 tetrahedra 0.32 -> 0.20 ms from 1
 * to 4), but every choice that staged more than 24 KB a block was slower
 * than the next smaller one (fewer blocks resident per SM: P4 8 cells
 * 42 KB, P7 tetrahedra 4 cells 32 KB, P7 prisms 2 cells 27 KB).
 * FEINT_ELMAT_VECTOR_CELLS (1, 2, 4 or 8; test and benchmark hook)
 * replaces the 4, the budget (then 48 KB, the static limit) and the block
 * count rule. */
#define VEC_SHARED_BUDGET (24 * 1024)
static int vector_cells_per_block(const feint_elmat_gpu *g, int *cb, size_t *shared) {
  const int nc = g->form.nc;
  const size_t per_cell = sizeof(double) * ((size_t)g->nb * (nc + g->form.n_all) + 4 * nc * VEC_THREADS);
  int most = 4, min_blocks = 1;
  size_t budget = VEC_SHARED_BUDGET;
  if (g->vector_cells) most = g->vector_cells, min_blocks = 0, budget = 48 * 1024;
  *cb = nc > 1 && most > 2 ? 2 : most; /* vector forms: kernels of 1 and 2 cells (a cell's s_f alone is 12 KB) */
  while (*cb > 1 && (*cb * per_cell > budget || g->n_cells < (int64_t)*cb * g->sms * min_blocks)) *cb /= 2;
  *shared = *cb * per_cell;
  if (*shared > 48 * 1024) /* 16 fields of P7 prisms take 43 KB for one cell */
    return feint_error_set(FEINT_ERR_INPUT,
                           "element vectors on the GPU: %d cells per block need %zu bytes of shared memory (48 KB)",
                           *cb, *shared);
  return FEINT_OK;
}

typedef void (*vector_kernel_t)(form_coefficients, vector_rule, int64_t, int, const double *, const int64_t *,
                                const double *, bool, double *);
template <int CELL>
static vector_kernel_t pick_vector(int cb, int nc) {
  if (nc == 2) return cb == 2 ? element_vector_kernel<CELL, 2, 2> : element_vector_kernel<CELL, 1, 2>;
  if (nc == 3) return cb == 2 ? element_vector_kernel<CELL, 2, 3> : element_vector_kernel<CELL, 1, 3>;
  return cb == 8 ? element_vector_kernel<CELL, 8, 1> : cb == 4 ? element_vector_kernel<CELL, 4, 1>
         : cb == 2 ? element_vector_kernel<CELL, 2, 1> : element_vector_kernel<CELL, 1, 1>;
}

/* Host data to a new device array of count elements. */
template <typename T>
static int upload_array(const T *h, size_t count, T **out, const char *what) {
  FEINT_CALL(feint_cuda_malloc((void **)out, sizeof(T) * count, "element matrices", what));
  cudaError_t e = count ? feint_cuda_memcpy(*out, h, sizeof(T) * count, cudaMemcpyHostToDevice) : cudaSuccess;
  if (e != cudaSuccess) return FEINT_CUDA_FAIL(e, what);
  return FEINT_OK;
}

/* The form's vector rule (the tables the CPU reference reads) and the
 * state, element-vector and vector buffers. */
static int upload_vector_rule(feint_elmat_gpu *g, const feint_form *f, const feint_space *s) {
  const int nb = g->nb, nq = f->quadrature->n;
  std::vector<double> B((size_t)nq * 4 * nb), BT((size_t)4 * nb * nq);
  for (int q = 0; q < nq; q++)
    for (int i = 0; i < nb; i++)
      for (int c = 0; c < 4; c++) {
        const double b = c ? f->basis_grad[((size_t)q * nb + i) * 3 + c - 1] : f->basis[(size_t)q * nb + i];
        B[((size_t)q * 4 + c) * nb + i] = b;
        BT[((size_t)c * nb + i) * nq + q] = b;
      }
  FEINT_CALL(upload(B, &g->vB, "element vectors: upload basis tables"));
  FEINT_CALL(upload(BT, &g->vBT, "element vectors: upload basis tables"));
  FEINT_CALL(upload_array(f->quadrature->weights, (size_t)nq, &g->vw, "element vectors: upload weights"));
  FEINT_CALL(upload_array(f->quadrature->points, (size_t)nq * 3, &g->vpts, "element vectors: upload points"));
  g->vr = {nq, g->vB, g->vBT, g->vw, g->vpts};
  g->n_dofs = s->n_dofs;
  FEINT_CALL(reserve(&g->u, &g->cap_u, sizeof(double) * (size_t)g->n_dofs, "state"));
  FEINT_CALL(reserve(&g->F, &g->cap_F, sizeof(double) * (size_t)g->n_dofs, "vector"));
  return reserve(&g->Fe, &g->cap_Fe, sizeof(double) * (size_t)(s->mesh->n_cells * nb * f->nc), "element vectors");
}

/* Values of a non-constant field: one per cell or per scalar dof. */
static int64_t field_count(const feint_field *fld, const feint_space *s) {
  return fld->kind == FEINT_FIELD_CELL ? s->mesh->n_cells : s->n_scalar_dofs;
}

/* The form's field values into the attached arrays (allocated by attach
 * for the fields' kinds): constants by value, the rest copied up. */
static int load_fields(feint_elmat_gpu *g, const feint_form *f, const feint_space *s) {
  form_coefficients *F = &g->form;
  for (int k = 0; k < F->n_all; k++) {
    if (f->aux[k].kind == FEINT_FIELD_CONSTANT) {
      F->aux[k].constant = f->aux[k].constant;
      continue;
    }
    FEINT_CUDA_CALL("element matrices: upload coefficient field",
                    feint_cuda_memcpy(F->aux[k].values, f->aux[k].values, sizeof(double) * (size_t)field_count(&f->aux[k], s),
                          cudaMemcpyHostToDevice));
  }
  return FEINT_OK;
}

extern "C" int feint_elmat_gpu_update_form(feint_elmat_gpu *g, const feint_form *f, const feint_space *s) {
  const form_coefficients *F = &g->form;
  int same = g->xv && f->physics == F->physics && f->nc == F->nc && f->n_aux == F->n_all;
  for (int k = 0; same && k < F->n_all; k++) same = f->aux[k].kind == F->aux[k].kind;
  if (!same)
    return feint_error_set(FEINT_ERR_INPUT, "element matrices on the GPU: the new form's physics, components or "
                           "field kinds differ from the attached one's");
  FEINT_CUDA_CALL("element matrices: cudaSetDevice", cudaSetDevice(g->device));
  return load_fields(g, f, s);
}

extern "C" int feint_elmat_gpu_attach(feint_elmat_gpu *g, const feint_elmat_variant *v, const feint_form *f,
                                      const feint_space *s) {
  FEINT_CALL(feint_elmat_variant_check(v));
  const feint_mesh *m = s->mesh;
  const int terms = feint_physics_jacobian_terms(f->physics), n_aux = feint_physics_source_offset(f->physics, f->dim);
  if (g->form.n_all || g->xv)
    return feint_error_set(FEINT_ERR_INPUT, "element matrices on the GPU: a form is already attached");
  int nodal = 0; /* per-cell coefficients cannot interpolate a nodal field */
  for (int k = 0; k < n_aux && k < f->n_aux; k++) nodal |= f->aux[k].kind == FEINT_FIELD_NODE;
  if (v->geo != FEINT_ELMAT_GEO_VERTICES || ((terms & 6) && v->ncoef != 16) || f->nc < 1 || f->nc > 3 ||
      f->nc != s->components ||
      m->cell_type != g->t->cell || s->nb != g->nb || m->nv != g->t->nv || f->n_aux > FEINT_ELMAT_MAX_AUX ||
      n_aux > f->n_aux || (nodal && v->coef == FEINT_ELMAT_COEF_CELL) || !f->quadrature || !f->basis)
    return feint_error_set(FEINT_ERR_INPUT,
                           "element matrices on the GPU: a form of 1..3 components on %s cells of order %d with "
                           "the cells' vertices, ncoef 16 for g1 / g2 terms, at most %d coefficient fields and "
                           "per-point coefficients for nodal fields",
                           feint_cell_name(g->t->cell), g->t->order, FEINT_ELMAT_MAX_AUX);
  FEINT_CUDA_CALL("element matrices: cudaSetDevice", cudaSetDevice(g->device));
  const int64_t n = m->n_cells, nx = 3 * (int64_t)m->nv;
  double *xv = NULL;
  FEINT_CALL(feint_malloc((size_t)(n * nx), sizeof(double), &xv, "cell vertices"));
  for (int64_t c = 0; c < n; c++)
    for (int k = 0; k < m->nv; k++) {
      const int64_t node = m->cells[c * m->nv + k];
      double *x = xv + c * nx + 3 * k;
      x[0] = m->x[node], x[1] = m->y[node], x[2] = m->z[node];
    }
  /* the checks of feint_elmat_gpu_compute, once: the kernels cannot report a bad cell */
  int st = feint_elmat_geometry_check(g->t, v, n, xv);
  if (!st) st = upload_array(xv, (size_t)(n * nx), &g->xv, "element matrices: upload cell vertices");
  free(xv);
  FEINT_CALL(st);
  FEINT_CALL(upload_array(s->scalar_cell_dofs, (size_t)(n * s->nb), &g->cdofs, "element matrices: upload dof map"));
  form_coefficients *F = &g->form;
  F->physics = f->physics, F->terms = terms, F->ncoef = v->ncoef, F->n_aux = n_aux, F->n_all = f->n_aux;
  F->nc = f->nc;
  for (int k = 0; k < F->n_all; k++) { /* device values NULL until uploaded: destroy frees what was */
    F->aux[k] = f->aux[k];
    if (f->aux[k].kind != FEINT_FIELD_CONSTANT) F->aux[k].values = NULL;
  }
  for (int k = 0; k < F->n_all; k++)
    if (f->aux[k].kind != FEINT_FIELD_CONSTANT)
      FEINT_CALL(feint_cuda_malloc((void **)&F->aux[k].values, sizeof(double) * (size_t)field_count(&f->aux[k], s),
                                   "element matrices", "coefficient field"));
  FEINT_CALL(load_fields(g, f, s));
  FEINT_CALL(upload_vector_rule(g, f, s));
  g->n_cells = n;
  g->fv = *v;
  return FEINT_OK;
}

/* A vector form's element matrices from its scalar blocks, entry k of A
 * from blocks[feint_elmat_block_entry(k)] (consecutive threads write
 * consecutive entries). */
__global__ void interleave_kernel(int64_t total, int64_t n, int nb, int nc, const double *__restrict__ blocks,
                                  double *__restrict__ A) {
  for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < total; k += (int64_t)gridDim.x * blockDim.x)
    A[k] = blocks[feint_elmat_block_entry(k, n, nb, nc)];
}

extern "C" int feint_elmat_gpu_form_matrices(feint_elmat_gpu *g, int64_t c0, int64_t n, const double **A,
                                             feint_elmat_gpu_timing *tm) {
  *A = NULL;
  if (!g->xv || c0 < 0 || n < 0 || c0 + n > g->n_cells)
    return feint_error_set(FEINT_ERR_INPUT,
                           "element matrices on the GPU: cells %lld .. %lld of an attached form of %lld cells",
                           (long long)c0, (long long)(c0 + n), (long long)g->n_cells);
  FEINT_CUDA_CALL("element matrices: cudaSetDevice", cudaSetDevice(g->device));
  const feint_elmat_variant *v = &g->fv;
  const int nc = g->form.nc, npairs = nc * nc;
  const sizes s = sizes_of(g, v, n); /* one scalar block's */
  FEINT_CALL(reserve(&g->coef, &g->cap_coef, s.coef * npairs, "coefficients"));
  FEINT_CALL(reserve(&g->A, &g->cap_A, s.A * npairs, "element matrices"));
  if (nc > 1) FEINT_CALL(reserve(&g->Ab, &g->cap_Ab, s.A * npairs, "element matrix blocks"));
  feint_cuda_timer T = {};
  FEINT_CALL(feint_cuda_timer_create(&T, "element matrices: events"));
  feint_elmat_gpu_timing r = {g->setup_ms, 0, 0, 0, 0};
  const int npts = v->coef == FEINT_ELMAT_COEF_CELL ? 1 : g->nq;
  int st = FEINT_OK;
#define ELMAT_STEP(expr) \
  if (!st) st = (expr)
  ELMAT_STEP(feint_cuda_timer_start(&T, "element matrices: event"));
  if (!st && n) {
    if (npts == 1) {
      const int64_t blocks = (n + 255) / 256;
      cell_coefficients_kernel<<<(unsigned)(blocks < 65536 ? blocks : 65536), 256>>>(g->form, c0, n, g->nb, g->tab,
                                                                                     g->cdofs, g->coef);
    } else { /* shared: up to 16 fields of P7 prisms (nb 288), 53 KB */
      const size_t shared = sizeof(double) * ((size_t)g->form.n_aux * g->nb + (size_t)COEF_THREADS * g->form.ncoef);
      const cudaError_t a = shared <= 48 * 1024 ? cudaSuccess /* else reported by cudaGetLastError below */
                            : cudaFuncSetAttribute(point_coefficients_kernel,
                                                   cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared);
      if (a == cudaSuccess)
        point_coefficients_kernel<<<(unsigned)(n < 65536 ? n : 65536), COEF_THREADS, shared>>>(
            g->form, c0, n, npts, g->nb, g->phiT, g->cdofs, g->coef);
    }
    const cudaError_t e = cudaGetLastError();
    st = e == cudaSuccess ? FEINT_OK : FEINT_CUDA_FAIL(e, "element matrices: coefficient kernel");
  }
  ELMAT_STEP(timer_ms(&T, &r.coef_ms));
  ELMAT_STEP(feint_cuda_timer_start(&T, "element matrices: event"));
  if (nc == 1) {
    ELMAT_STEP(launch(g, v, n, g->xv + c0 * 3 * g->t->nv, g->coef, g->A));
  } else { /* the pairs' scalar blocks, then interleaved (elmat.h) */
    const size_t coef_pair = s.coef / sizeof(double), A_pair = s.A / sizeof(double);
    for (int fg = 0; fg < npairs; fg++)
      ELMAT_STEP(launch(g, v, n, g->xv + c0 * 3 * g->t->nv, g->coef + fg * coef_pair, g->Ab + fg * A_pair));
    if (!st && n) {
      const int64_t total = (int64_t)A_pair * npairs, blocks = (total + 255) / 256;
      interleave_kernel<<<(unsigned)(blocks < 65536 ? blocks : 65536), 256>>>(total, n, g->nb, nc, g->Ab, g->A);
      const cudaError_t e = cudaGetLastError();
      st = e == cudaSuccess ? FEINT_OK : FEINT_CUDA_FAIL(e, "element matrices: interleave kernel");
    }
  }
  ELMAT_STEP(timer_ms(&T, &r.kernel_ms));
#undef ELMAT_STEP
  feint_cuda_timer_destroy(&T);
  if (st) return st;
  if (tm) *tm = r;
  *A = g->A;
  return FEINT_OK;
}

extern "C" int feint_elmat_gpu_form_vectors(feint_elmat_gpu *g, const double *u, int atomic, const double **out,
                                             double *kernel_ms) {
  *out = NULL;
  if (!g->xv) return feint_error_set(FEINT_ERR_INPUT, "element vectors on the GPU: no form attached");
  FEINT_CUDA_CALL("element vectors: cudaSetDevice", cudaSetDevice(g->device));
  if (u)
    FEINT_CUDA_CALL("element vectors: upload of u",
                    feint_cuda_memcpy(g->u, u, sizeof(double) * (size_t)g->n_dofs, cudaMemcpyHostToDevice));
  double *dst = atomic ? g->F : g->Fe;
  if (atomic) FEINT_CUDA_CALL("element vectors: zero", cudaMemsetAsync(g->F, 0, sizeof(double) * (size_t)g->n_dofs));
  int cb = 1;
  size_t shared = 0;
  FEINT_CALL(vector_cells_per_block(g, &cb, &shared));
  const int nc = g->form.nc;
  const vector_kernel_t k = g->t->cell == FEINT_CELL_PRISM ? pick_vector<PRISM>(cb, nc) : pick_vector<TET>(cb, nc);
  feint_cuda_timer T = {};
  FEINT_CALL(feint_cuda_timer_create(&T, "element matrices: events"));
  int st = feint_cuda_timer_start(&T, "element matrices: event");
  if (!st && g->n_cells) {
    const int64_t blocks = (g->n_cells + cb - 1) / cb;
    k<<<(unsigned)(blocks < 65536 ? blocks : 65536), VEC_THREADS, shared>>>(g->form, g->vr, g->n_cells, g->nb, g->xv,
                                                                          g->cdofs, u ? g->u : NULL, atomic != 0, dst);
    const cudaError_t e = cudaGetLastError();
    st = e == cudaSuccess ? FEINT_OK : FEINT_CUDA_FAIL(e, "element vectors: kernel launch");
  }
  double ms = 0;
  if (!st) st = timer_ms(&T, &ms);
  feint_cuda_timer_destroy(&T);
  if (st) return st;
  if (kernel_ms) *kernel_ms = ms;
  *out = dst;
  return FEINT_OK;
}

extern "C" int feint_elmat_gpu_download_vectors(feint_elmat_gpu *g, int atomic, double *out) {
  const size_t count = atomic ? (size_t)g->n_dofs : (size_t)(g->n_cells * g->nb * g->form.nc);
  FEINT_CUDA_CALL("element vectors: download", feint_cuda_memcpy(out, atomic ? g->F : g->Fe, sizeof(double) * count,
                                                     cudaMemcpyDeviceToHost));
  return FEINT_OK;
}

extern "C" int feint_elmat_gpu_download(feint_elmat_gpu *g, int64_t n, double *A) {
  const int nc = g->form.nc ? g->form.nc : 1; /* 0: no form attached, the scalar kernels' A */
  const size_t bytes = sizeof(double) * (size_t)n * g->nb * g->nb * nc * nc;
  if (n < 0 || bytes > g->cap_A)
    return feint_error_set(FEINT_ERR_INPUT, "element matrices on the GPU: %lld cells to download", (long long)n);
  FEINT_CUDA_CALL("element matrices: download", feint_cuda_memcpy(A, g->A, bytes, cudaMemcpyDeviceToHost));
  return FEINT_OK;
}

extern "C" int feint_elmat_gpu_device_name(int device_index, char *name, size_t size) {
  cudaDeviceProp p;
  FEINT_CUDA_CALL("element matrices: device properties", cudaGetDeviceProperties(&p, device_index));
  snprintf(name, size, "%s", p.name);
  return FEINT_OK;
}
