/* The CUDA backend: the same integrals as the CPU reference (src/backend/
 * cpu/cpu.c), computed on the GPU, in double or single precision (float storage).
 *
 * Data model. Everything the kernels read is uploaded once when the backend
 * is created: node coordinates (x, y, z arrays), the cell vertex lists, the
 * cell dof maps (as int32), the coefficient fields (constants are passed by
 * value; per-cell and nodal arrays live in device memory), the reference
 * basis tables and quadrature weights, the plan's CSR pattern and slot map,
 * and what the chosen assembly strategy needs (the cell colouring, or the
 * inverse maps for the gather). A call then moves only u in and the result
 * out. A sweep member that changes only the form's data keeps all of it:
 * update_form uploads the new coefficient values into the same arrays.
 *
 * Kernels (Knepley, Rupp, Terrel, "Finite element integration with
 * quadrature on the GPU": thread transposition). A thread block takes a
 * batch of B cells at a time (B = blocks_per_batch * lcm(N_q, N_bc) cells,
 * reduced to fit 48 KiB of shared memory) and walks batches_per_chunk
 * batches in turn (grid-stride). For each batch:
 *   0. threads map to cells: affine geometry (inverse Jacobian, |det J|)
 *      into shared memory; threads map to (cell, local dof): the cell's
 *      values of u and of the nodal coefficient fields into shared memory;
 *   1. threads map to (cell, quadrature point): u, grad u (reference
 *      gradients times J^-1), the coefficients, the pointwise physics
 *      (include/feint/physics.h, the same source the CPU evaluates), scaled
 *      by w_q |det J| and pulled back to reference directions, into shared
 *      memory (for matrices: the pulled-back g0, g1, g3 coefficients);
 *   barrier;
 *   2. threads map to (cell, basis function) (for matrices: (cell, i, j))
 *      and reduce over the quadrature points from shared memory; no
 *      cross-thread reduction. The result goes straight into the global
 *      vector / CSR values: integration and assembly are fused.
 * Storage type: float with backend.precision single, else double (see rd<S>).
 * For P1 the one-thread-per-cell kernels further down (p1_*) are used by
 * default (faster, see NOTES.md): block-local aggregation (p1_block_kernel:
 * chunks of 256 cells, the chunk's distinct vertices gathered once into
 * shared memory, element entries summed per distinct target in shared
 * memory, one global write per target), with the cells visited along a
 * space-filling curve where the mesh's own order is worse (build_cell_
 * order). Residuals of P1 Poisson and elasticity on tetrahedra run the
 * lean kernels (p1_lean_kernel: the same chunks, the cell's arithmetic
 * specialised on the stiffness coefficients' kinds, computing in float in
 * single precision; NOTES.md v7, v8). The per-cell P1 matrix kernels
 * serve elasticity and variant 2; the paper's pre-gathered data-model
 * kernel (paper_kernel) is a benchmark variant.
 * Assembly strategies (thread transposition and per-cell kernels; the
 * block kernels apply the same three to chunks, see p1_block_kernel):
 *   atomic  - atomicAdd (native double atomics on sm_60+);
 *   colored - cells greedily coloured on the host so that no two cells of a
 *             colour share a dof; one launch per colour with plain adds
 *             (deterministic);
 *   gather  - element vectors / matrices go to a device buffer, then one
 *             thread per dof / nonzero sums its own contributions in cell
 *             order through the inverse of the dof map / slot map
 *             (deterministic, no atomics, same summation order as the CPU).
 */
#include <cuda_pipeline.h>
#include <cuda_runtime.h>

#include <cub/block/block_discontinuity.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

extern "C" {
#include "feint/backend.h"
#include "feint/error.h"
#include "feint/geometry.h"
#include "feint/physics.h"
}

#include "backend/cuda/alloc.h"
#include "backend/cuda/cell_order.h"
#include "backend/cuda/cuda_timing.h"

#define FEINT_CUDA_MAX_AUX 16
#define FEINT_CUDA_SHMEM (48 * 1024)

/* ---------------------------------------------------------------- errors */

static int cuda_fail(cudaError_t e, const char *phase) {
  cudaGetLastError(); /* clear a sticky-free error */
  return feint_error_set(FEINT_ERR_COMPUTE, "%s: %s", phase, cudaGetErrorString(e));
}

#define CUDA_CALL(phase, call)                                                 \
  do {                                                                         \
    cudaError_t feint_cuda_e_ = (call);                                        \
    if (feint_cuda_e_ != cudaSuccess) return cuda_fail(feint_cuda_e_, phase);  \
  } while (0)

/* Launch check: the launch error, reported with the phase. */
#define CUDA_LAUNCHED(phase) CUDA_CALL(phase, cudaGetLastError())

static int dev_alloc(void **ptr, size_t bytes, const char *phase) {
  return feint_cuda_malloc(ptr, bytes, NULL, phase);
}

template <typename T>
static int upload(T **dst, const T *src, size_t count, const char *phase) {
  FEINT_CALL(dev_alloc((void **)dst, count * sizeof(T), phase));
  if (count) CUDA_CALL(phase, feint_cuda_memcpy(*dst, src, count * sizeof(T), cudaMemcpyHostToDevice));
  return FEINT_OK;
}

/* int64 host index array -> int32 device array (all dof / node / slot
 * indices are < 2^31 in this version; checked). */
static int upload_index32(int **dst, const int64_t *src, size_t count, const char *phase) {
  return feint_cuda_upload_index32(dst, src, count, phase);
}

/* ------------------------------------------------------------ parameters */

/* Everything a kernel needs, passed by value. */
typedef struct {
  int dim, nc, nb, nbc, nq, nv, physics, terms;
  int n_aux, n_nodal;
  int64_t n_cells;
  const void *x, *y, *z; /* storage type S (float or double) */
  const void *xyzw;      /* P1: packed node records (x, y, z, coefficient aux[wa]) or NULL */
  int wa;                /* the nodal coefficient packed into xyzw, -1 if none */
  const int *cells;     /* n_cells x nv */
  const int *cell_dofs; /* n_cells x nbc */
  const int *sdofs;     /* n_cells x nb */
  const double *basis, *basis_grad, *weights;
  int aux_kind[FEINT_CUDA_MAX_AUX];
  int aux_nodal[FEINT_CUDA_MAX_AUX]; /* index among the nodal fields, -1 if not nodal */
  double aux_const[FEINT_CUDA_MAX_AUX];
  const void *aux_vals[FEINT_CUDA_MAX_AUX]; /* storage type S */
  const int *slots;     /* n_cells x nbc x nbc */
  int batch;            /* cells per batch */
  int gq;               /* matrix: coefficient doubles per (cell, q) */
  int sd_cells;         /* scalar cell dofs == cell vertices (P1): read the vertex list only */
  int interleaved;      /* cell_dofs[c][i*nc+k] == nc*sdofs[c][i]+k: read the scalar dofs only */
} kparams;

/* Shared memory layout (doubles): tables, then per batch cell: geometry
 * (dim*dim + 1), local u (nbc), nodal coefficients (n_nodal * nb), then
 * per (cell, q) the pointwise results. */
static __host__ __device__ inline int tables_size(const kparams &P) {
  return P.nq * P.nb * (1 + P.dim) + P.nq;
}
static __host__ __device__ inline int geo_size(const kparams &P) { return P.dim * P.dim + 1; }
static __host__ __device__ inline int res_cell_size(const kparams &P) {
  return geo_size(P) + P.nbc + P.n_nodal * P.nb + P.nq * P.nc * (1 + P.dim);
}
static __host__ __device__ inline int mat_cell_size(const kparams &P) {
  return geo_size(P) + P.n_nodal * P.nb + P.nq * P.gq;
}

/* ---------------------------------------------------------------- kernels */

/* Storage type S (float for backend.precision single, else double): state,
 * coordinates, coefficients and outputs are stored as S; the kernels
 * compute in double (the pointwise physics in physics.h is double) and
 * round once when they store, except the lean P1 tetrahedron kernels,
 * which compute in R (float in single precision; rd<S, R>). */
template <typename S, typename R = double>
__device__ __forceinline__ R rd(const void *p, int64_t i) {
  return (R)__ldg((const S *)p + i);
}
template <typename S, typename V>
__device__ __forceinline__ void put(void *o, int64_t i, V v, int mode) {
  S *q = (S *)o + i;
  if (mode == 0 /* OUT_ATOMIC */)
    atomicAdd(q, (S)v);
  else if (mode == 1 /* OUT_PLAIN */)
    *q += (S)v;
  else
    *q = (S)v;
}

__device__ static inline int64_t cell_of(const int *list, int64_t k) { return list ? (int64_t)list[k] : k; }

/* Load tables into shared memory. */
__device__ static inline void load_tables(const kparams &P, double *sh) {
  const int nbq = P.nq * P.nb;
  for (int k = threadIdx.x; k < nbq; k += blockDim.x) sh[k] = P.basis[k];
  for (int k = threadIdx.x; k < nbq * P.dim; k += blockDim.x) sh[nbq + k] = P.basis_grad[k];
  for (int k = threadIdx.x; k < P.nq; k += blockDim.x) sh[nbq * (1 + P.dim) + k] = P.weights[k];
}

/* Phase 0: geometry of the batch's cells, and nodal coefficient values. */
template <int DIM, typename S>
__device__ static inline void load_geometry(const kparams &P, const int *list, int64_t base, int n_here,
                                            double *geo) {
  for (int t = threadIdx.x; t < n_here; t += blockDim.x) {
    const int64_t c = cell_of(list, base + t);
    double v[4 * 3];
    for (int k = 0; k <= DIM; k++) {
      const int node = P.cells[c * P.nv + k];
      v[k * 3 + 0] = rd<S>(P.x, node);
      v[k * 3 + 1] = rd<S>(P.y, node);
      v[k * 3 + 2] = rd<S>(P.z, node);
    }
    double invJ[DIM * DIM];
    const double det = feint_affine_inverse_jacobian(DIM, v, invJ);
    double *g = geo + t * (DIM * DIM + 1);
    for (int k = 0; k < DIM * DIM; k++) g[k] = invJ[k];
    g[DIM * DIM] = fabs(det);
  }
}

template <typename S>
__device__ static inline void load_nodal(const kparams &P, const int *list, int64_t base, int n_here,
                                         double *auxe) {
  if (!P.n_nodal) return;
  for (int t = threadIdx.x; t < n_here * P.nb; t += blockDim.x) {
    const int lc = t / P.nb, i = t - lc * P.nb;
    const int64_t c = cell_of(list, base + lc);
    const int sd = P.sdofs[c * P.nb + i];
    for (int k = 0; k < P.n_aux; k++)
      if (P.aux_nodal[k] >= 0) auxe[(lc * P.n_nodal + P.aux_nodal[k]) * P.nb + i] = rd<S>(P.aux_vals[k], sd);
  }
}

/* Coefficients at quadrature point q of local cell lc (global cell c). */
template <typename S>
__device__ static inline void aux_at(const kparams &P, int64_t c, const double *phi, const double *auxe_cell,
                                     double *a) {
  for (int k = 0; k < P.n_aux; k++) {
    const int kind = P.aux_kind[k];
    if (kind == 0) {
      a[k] = P.aux_const[k];
    } else if (kind == 1) {
      a[k] = rd<S>(P.aux_vals[k], c);
    } else {
      const double *v = auxe_cell + P.aux_nodal[k] * P.nb;
      double s = 0;
      for (int i = 0; i < P.nb; i++) s += phi[i] * v[i];
      a[k] = s;
    }
  }
}

/* Phase 0 of a batch: after the previous batch is done with shared memory,
 * the geometry and nodal coefficients of its cells (list positions *base
 * onwards); returns its cell count. The caller's own loads and a barrier
 * follow. */
template <int DIM, typename S>
__device__ static inline int begin_batch(const kparams &P, const int *list, int64_t n_list, int64_t batch,
                                         double *geo, double *auxe, int64_t *base) {
  const int B = P.batch;
  *base = batch * B;
  const int n_here = (int)(n_list - *base < B ? n_list - *base : B);
  __syncthreads(); /* tables loaded / previous batch done with shared memory */
  load_geometry<DIM, S>(P, list, *base, n_here, geo);
  load_nodal<S>(P, list, *base, n_here, auxe);
  return n_here;
}

/* Phase 1 item t of a batch: local cell lc and quadrature point q, the
 * global cell c, its geometry g (J^-1, |det J|), w_q |det J| and the basis
 * values phi at q (tab: the shared tables, load_tables). */
typedef struct {
  int lc, q;
  int64_t c;
  const double *g, *phi;
  double wdet;
} qitem;

template <int DIM>
__device__ static inline qitem qitem_at(const kparams &P, const int *list, int64_t base, int t, const double *geo,
                                        const double *tab) {
  qitem Q;
  Q.lc = t / P.nq;
  Q.q = t - Q.lc * P.nq;
  Q.c = cell_of(list, base + Q.lc);
  Q.g = geo + Q.lc * (DIM * DIM + 1);
  Q.wdet = tab[P.nq * P.nb * (1 + DIM) + Q.q] * Q.g[DIM * DIM];
  Q.phi = tab + Q.q * P.nb;
  return Q;
}

/* Output modes. */
enum { OUT_ATOMIC = 0, OUT_PLAIN = 1, OUT_BUFFER = 2 };

template <int DIM, int NC, typename S>
__global__ void residual_kernel(kparams P, const int *list, int64_t n_list, int mode, int with_state,
                                const void *__restrict__ u, void *__restrict__ out) {
  extern __shared__ double sh[];
  const int nq = P.nq, nb = P.nb, nbc = P.nbc, B = P.batch;
  double *tab = sh, *basis = tab, *bgrad = tab + nq * nb;
  double *geo = sh + tables_size(P);
  double *ue = geo + B * (DIM * DIM + 1);
  double *auxe = ue + B * nbc;
  double *fq = auxe + B * P.n_nodal * nb;
  const int FQ = NC * (1 + DIM); /* f0[NC], f1ref[NC][DIM] per (cell, q) */
  load_tables(P, sh);
  const int64_t n_batches = (n_list + B - 1) / B;
  for (int64_t batch = blockIdx.x; batch < n_batches; batch += gridDim.x) {
    int64_t base;
    const int n_here = begin_batch<DIM, S>(P, list, n_list, batch, geo, auxe, &base);
    if (with_state)
      for (int t = threadIdx.x; t < n_here * nbc; t += blockDim.x) {
        const int lc = t / nbc, k = t - lc * nbc;
        const int64_t c = cell_of(list, base + lc);
        ue[t] = rd<S>(u, P.cell_dofs[c * nbc + k]);
      }
    __syncthreads();
    /* phase 1: (cell, quadrature point) */
    for (int t = threadIdx.x; t < n_here * nq; t += blockDim.x) {
      const qitem Q = qitem_at<DIM>(P, list, base, t, geo, tab);
      const double *g = Q.g;
      double uq[NC], gref[NC * DIM], gradu[NC * DIM], a[FEINT_CUDA_MAX_AUX], f0[NC], f1[NC * DIM];
      for (int k = 0; k < NC; k++) uq[k] = 0;
      for (int k = 0; k < NC * DIM; k++) gref[k] = 0;
      if (with_state) {
        const double *uc = ue + Q.lc * nbc;
        for (int i = 0; i < nb; i++) {
          const double p = Q.phi[i];
          const double *G = bgrad + (Q.q * nb + i) * DIM;
          for (int cc = 0; cc < NC; cc++) {
            const double v = uc[i * NC + cc];
            uq[cc] += p * v;
            for (int d = 0; d < DIM; d++) gref[cc * DIM + d] += G[d] * v;
          }
        }
      }
      for (int cc = 0; cc < NC; cc++)
        for (int a2 = 0; a2 < DIM; a2++) {
          double s = 0;
          for (int d = 0; d < DIM; d++) s += gref[cc * DIM + d] * g[d * DIM + a2];
          gradu[cc * DIM + a2] = s;
        }
      aux_at<S>(P, Q.c, Q.phi, auxe + Q.lc * P.n_nodal * nb, a);
      const feint_point pt = {DIM, NC, uq, gradu, a};
      if (with_state) {
        feint_physics_f0(P.physics, &pt, f0);
        feint_physics_f1(P.physics, &pt, f1);
      } else {
        feint_physics_source(P.physics, &pt, f0);
        for (int k = 0; k < NC * DIM; k++) f1[k] = 0;
      }
      double *o = fq + (Q.lc * nq + Q.q) * FQ;
      for (int cc = 0; cc < NC; cc++) {
        o[cc] = Q.wdet * f0[cc];
        for (int d = 0; d < DIM; d++) {
          double s = 0;
          for (int a2 = 0; a2 < DIM; a2++) s += g[d * DIM + a2] * f1[cc * DIM + a2];
          o[NC + cc * DIM + d] = Q.wdet * s;
        }
      }
    }
    __syncthreads();
    /* phase 2: (cell, basis function), reduce over quadrature points */
    for (int t = threadIdx.x; t < n_here * nbc; t += blockDim.x) {
      const int lc = t / nbc, k = t - lc * nbc;
      const int i = k / NC, cc = k - i * NC;
      const int64_t c = cell_of(list, base + lc);
      double v = 0;
      for (int q = 0; q < nq; q++) {
        const double *o = fq + (lc * nq + q) * FQ;
        const double *G = bgrad + (q * nb + i) * DIM;
        double s = basis[q * nb + i] * o[cc];
        for (int d = 0; d < DIM; d++) s += G[d] * o[NC + cc * DIM + d];
        v += s;
      }
      put<S>(out, mode == OUT_BUFFER ? c * nbc + k : (int64_t)P.cell_dofs[c * nbc + k], v, mode);
    }
  }
}

/* Matrix: per (cell, q) coefficient block, pulled back to reference
 * directions and scaled by w |det J|: [G0 (NC*NC)] [G1 (NC*NC*DIM)]
 * [G3 (NC*NC*DIM*DIM)], each present only when the physics has the term. */
template <int DIM, int NC, typename S>
__global__ void matrix_kernel(kparams P, const int *list, int64_t n_list, int mode, void *__restrict__ out) {
  extern __shared__ double sh[];
  const int nq = P.nq, nb = P.nb, nbc = P.nbc, B = P.batch, GQ = P.gq, terms = P.terms;
  const int n2 = nbc * nbc;
  const int o1 = (terms & 1) ? NC * NC : 0;
  const int o3 = o1 + ((terms & 2) ? NC * NC * DIM : 0);
  double *tab = sh, *basis = tab, *bgrad = tab + nq * nb;
  double *geo = sh + tables_size(P);
  double *auxe = geo + B * (DIM * DIM + 1);
  double *gq = auxe + B * P.n_nodal * nb;
  load_tables(P, sh);
  const int64_t n_batches = (n_list + B - 1) / B;
  for (int64_t batch = blockIdx.x; batch < n_batches; batch += gridDim.x) {
    int64_t base;
    const int n_here = begin_batch<DIM, S>(P, list, n_list, batch, geo, auxe, &base);
    __syncthreads();
    for (int t = threadIdx.x; t < n_here * nq; t += blockDim.x) {
      const qitem Q = qitem_at<DIM>(P, list, base, t, geo, tab);
      const double *g = Q.g;
      const double wdet = Q.wdet;
      double a[FEINT_CUDA_MAX_AUX], zero[NC * DIM];
      for (int k = 0; k < NC * DIM; k++) zero[k] = 0;
      aux_at<S>(P, Q.c, Q.phi, auxe + Q.lc * P.n_nodal * nb, a);
      const feint_point pt = {DIM, NC, zero, zero, a};
      double *o = gq + (Q.lc * nq + Q.q) * GQ;
      if (terms & 1) {
        double g0[NC * NC];
        feint_physics_g0(P.physics, &pt, g0);
        for (int k = 0; k < NC * NC; k++) o[k] = wdet * g0[k];
      }
      if (terms & 2) {
        double g1[NC * NC * DIM];
        feint_physics_g1(P.physics, &pt, g1);
        for (int fg = 0; fg < NC * NC; fg++)
          for (int e = 0; e < DIM; e++) {
            double s = 0;
            for (int b2 = 0; b2 < DIM; b2++) s += g1[fg * DIM + b2] * g[e * DIM + b2];
            o[o1 + fg * DIM + e] = wdet * s;
          }
      }
      if (terms & 8) {
        double g3[NC * NC * DIM * DIM];
        feint_physics_g3(P.physics, &pt, g3);
        for (int fg = 0; fg < NC * NC; fg++) {
          double tmp[DIM * DIM]; /* tmp[a][e] = sum_b g3[a][b] invJ[e][b] */
          for (int a2 = 0; a2 < DIM; a2++)
            for (int e = 0; e < DIM; e++) {
              double s = 0;
              for (int b2 = 0; b2 < DIM; b2++) s += g3[(fg * DIM + a2) * DIM + b2] * g[e * DIM + b2];
              tmp[a2 * DIM + e] = s;
            }
          for (int d = 0; d < DIM; d++)
            for (int e = 0; e < DIM; e++) {
              double s = 0;
              for (int a2 = 0; a2 < DIM; a2++) s += g[d * DIM + a2] * tmp[a2 * DIM + e];
              o[o3 + (fg * DIM + d) * DIM + e] = wdet * s;
            }
        }
      }
    }
    __syncthreads();
    for (int t = threadIdx.x; t < n_here * n2; t += blockDim.x) {
      const int lc = t / n2, e = t - lc * n2;
      const int r = e / nbc, s = e - r * nbc;
      const int i = r / NC, fc = r - i * NC, j = s / NC, gc = s - j * NC, fg = fc * NC + gc;
      const int64_t c = cell_of(list, base + lc);
      double v = 0;
      for (int q = 0; q < nq; q++) {
        const double *o = gq + (lc * nq + q) * GQ;
        const double pi = basis[q * nb + i], pj = basis[q * nb + j];
        const double *Gi = bgrad + (q * nb + i) * DIM, *Gj = bgrad + (q * nb + j) * DIM;
        double acc = 0;
        if (terms & 1) acc += pi * o[fg] * pj;
        if (terms & 2)
          for (int d = 0; d < DIM; d++) acc += pi * o[o1 + fg * DIM + d] * Gj[d];
        if (terms & 8)
          for (int d = 0; d < DIM; d++) {
            double sd = 0;
            for (int d2 = 0; d2 < DIM; d2++) sd += o[o3 + (fg * DIM + d) * DIM + d2] * Gj[d2];
            acc += Gi[d] * sd;
          }
        v += acc;
      }
      put<S>(out, mode == OUT_BUFFER ? c * n2 + e : (int64_t)P.slots[c * n2 + e], v, mode);
    }
  }
}

/* Gather: out[r] = sum_k buf[ent[k]], k in ptr[r] .. ptr[r+1] (in order). */
template <typename S>
__global__ void gather_kernel(int64_t n, const int64_t *__restrict__ ptr, const int64_t *__restrict__ ent,
                              const S *__restrict__ buf, S *__restrict__ out) {
  for (int64_t r = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; r < n; r += (int64_t)gridDim.x * blockDim.x) {
    double s = 0;
    for (int64_t k = ptr[r]; k < ptr[r + 1]; k++) s += (double)buf[ent[k]];
    out[r] = (S)s;
  }
}


/* ------------------------------------------------- P1: one thread per cell
 *
 * For P1 (nb = dim + 1) the reference gradients are constant, so a cell's
 * whole computation fits in registers: the kernels below are specialised on
 * (DIM, NC, physics) at compile time (so every array is indexed by
 * constants: no local memory, no stack frame), take one thread per cell,
 * no shared memory, no barriers, no integer division. The quadrature loop
 * runs over the rule's points from the kernel's parameter bank (p1tab).
 * The pointwise physics is still the one source in physics.h. The thread-
 * transposition kernels above remain the general path (P2, other element
 * / physics combinations, and on request, feint_cuda_set_variant). */

#define FEINT_P1_MAXQ 24

typedef struct {
  int nq;
  double w[FEINT_P1_MAXQ];
  double phi[FEINT_P1_MAXQ][4];
  double gref[4][3]; /* reference gradients (constant for P1) */
  double wphi[4];    /* sum_q w_q phi_i(q) */
  double mass[4][4]; /* sum_q w_q phi_i(q) phi_j(q) */
  double wsum;       /* sum_q w_q */
  int std;           /* gref is the standard simplex's: phi_0 = 1 - sum xi, phi_d = xi_{d-1} */
  struct {
    float wphi[4], mass[4][4], wsum;
  } f; /* wphi, mass, wsum rounded to float (the lean kernels computing in float) */
} p1tab;

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

/* Where a kernel reads per-cell data: the mesh order, or the colour-sorted
 * copy (each colour a contiguous range). */
typedef struct {
  const int *cells, *sdofs, *cdofs, *slots;
  const void *caux[FEINT_CUDA_MAX_AUX]; /* per-cell (P0) coefficient arrays (storage type S) */
} cview;

__host__ __device__ constexpr int p1_naux(int kind, int dim, int nc) {
  return kind == FEINT_PW_POISSON ? 2 : kind == FEINT_PW_MASS ? 1 : kind == FEINT_PW_HELMHOLTZ ? 3
       : kind == FEINT_PW_ELASTICITY ? 2 + nc : kind == FEINT_PW_ADVECTION ? dim + 1 : dim * dim + 1;
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

template <int DIM, int NC, int NAUX, typename S>
__device__ __forceinline__ void p1_load(const kparams &P, const p1tab &T, const cview &V, int c, int with_state,
                                        const void *__restrict__ u, p1cell<DIM, NC, NAUX> &C,
                                        const p1shared &G = p1shared{}) {
  constexpr int NB = DIM + 1, NBC = NB * NC;
  double v[4 * 3], wv[NB];
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
#pragma unroll
  for (int k = 0; k < NAUX; k++) {
    const int kind = P.aux_kind[k];
    C.ac[k] = kind == FEINT_FIELD_CELL ? rd<S>(V.caux[k], c) : P.aux_const[k];
#pragma unroll
    for (int i = 0; i < NB; i++)
      C.av[k][i] = kind != FEINT_FIELD_NODE ? 0.0 : k == P.wa ? wv[i] : rd<S>(P.aux_vals[k], C.sd[i]);
  }
  C.adet = fabs(feint_affine_inverse_jacobian(DIM, v, C.invJ));
}

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

template <int DIM, int NC, int PHYS, typename S>
__global__ void __launch_bounds__(256) p1_matrix_kernel(kparams P, p1tab T, cview V, int first, int n, int mode,
                                                        void *__restrict__ out) {
  constexpr int NAUX = p1_naux(PHYS, DIM, NC), NB = DIM + 1, NBC = NB * NC;
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  const int c = first + t;
  p1cell<DIM, NC, NAUX> C;
  p1_load<DIM, NC, NAUX, S>(P, T, V, c, 0, NULL, C);
  double g3[NC * NC * DIM * DIM];
  p1_g3<DIM, NC, PHYS, NAUX>(P, T, C, g3);
  double gp[NB][DIM];
  p1_gradients<DIM, NC, NAUX>(T, C, gp);
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
          const double v = p1_entry<DIM, NC>(gp, g3, i, fc, j, gc);
          put<S>(out, mode == OUT_BUFFER ? (int64_t)c * NBC * NBC + (i * NC + fc) * NBC + j * NC + gc
                                         : (int64_t)sl[j * NC + gc],
                 v, mode);
        }
    }
}

/* Gather by row, no element-matrix buffer: one thread per scalar dof owns
 * its NC rows, walks its cells in increasing order, recomputes each cell
 * and adds its rows into the CSR values (no other thread writes them). */
template <int DIM, int NC, int PHYS, typename S>
__global__ void __launch_bounds__(256) p1_matrix_gather_kernel(kparams P, p1tab T, cview V, int n_nodes,
                                                               const int *__restrict__ vptr,
                                                               const int *__restrict__ vent,
                                                               void *__restrict__ out) {
  constexpr int NAUX = p1_naux(PHYS, DIM, NC), NB = DIM + 1, NBC = NB * NC;
  const int node = blockIdx.x * blockDim.x + threadIdx.x;
  if (node >= n_nodes) return;
  const int k0 = __ldg(vptr + node), k1 = __ldg(vptr + node + 1);
  for (int k = k0; k < k1; k++) {
    const int e = __ldg(vent + k);
    const int c = e >> 2, a = e & 3;
    p1cell<DIM, NC, NAUX> C;
    p1_load<DIM, NC, NAUX, S>(P, T, V, c, 0, NULL, C);
    double g3[NC * NC * DIM * DIM];
    p1_g3<DIM, NC, PHYS, NAUX>(P, T, C, g3);
    double gp[NB][DIM];
    p1_gradients<DIM, NC, NAUX>(T, C, gp);
#pragma unroll
    for (int i = 0; i < NB; i++)
      if (i == a)
#pragma unroll
        for (int fc = 0; fc < NC; fc++) {
          const int *srow = V.slots + (size_t)c * NBC * NBC + (i * NC + fc) * NBC;
#pragma unroll
          for (int j = 0; j < NB; j++)
#pragma unroll
            for (int gc = 0; gc < NC; gc++)
              put<S>(out, __ldg(srow + j * NC + gc), p1_entry<DIM, NC>(gp, g3, i, fc, j, gc), OUT_PLAIN);
        }
  }
}


/* ------------------------------------------- P1: block-local aggregation
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
 * after the barrier, NOTES.md v5).
 * Shared gather (vectors whose targets are the cells' vertices, at most
 * 256 per chunk; B.lidx != NULL): before the cells are computed, one thread
 * per distinct vertex of the chunk loads its node record and u into shared
 * memory (one load per vertex instead of one per (cell, vertex), ~6x
 * fewer scattered loads), and each cell reads its vertices there through
 * its 4 uint8 local indices; one more barrier. */
typedef struct {
  int cb, ne, n_chunks;
  const int *uptr;       /* n_chunks + 1: the chunk's distinct targets */
  const int *tgt;        /* distinct targets, chunk by chunk, increasing */
  const uint16_t *iend;  /* end of each target's entries in ient, relative to the chunk */
  const uint16_t *ient;  /* chunk b: cb * ne positions e * cb + t, grouped by target */
  const uint32_t *lidx;  /* vectors, shared gather (NULL: off): per cell, its vertices' uint8 indices among
                            the chunk's targets (which are its distinct vertices; <= 256 per chunk) */
  int pf_ahead;          /* lean kernels (FEINT_CUDA_LEAN_PF): prefetch into L2 the plan and vertex ids of
                            chunk b + pf_ahead (0: off; mesh-order launches only) */
  float tpc;             /* mean targets per chunk (where chunk b + pf_ahead's targets start, estimated) */
  int n_tgt;             /* distinct (chunk, target) pairs: the length of tgt and iend */
} bview;

template <int NC, int MAT>
__host__ __device__ constexpr int p1_block_minb() {
  /* blocks of 256 per SM: caps registers at 128 / 64; measured best for the
   * 3D Poisson residual (3 blocks, 80 registers: +14%; 5 blocks, 48
   * registers and a 128-byte stack: +69%; NOTES.md v6) */
  return NC > 1 ? 2 : 4;
}

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
    if ((r * cb + t) * 4 < cb * NE) __pipeline_memcpy_async(K.sient + (r * cb + t) * 4, gient + (r * cb + t) * 4, 8);
  __pipeline_commit();
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
  __pipeline_wait_prior(0);
  __syncthreads();
  const int cb = B.cb, cstride = NE * cb;
  for (int k = threadIdx.x; k < K.nu; k += cb) {
    int tgn = 0, j0n = 0, j1n = 0; /* the next round's target, fetched while this one is summed */
    if (k + cb < K.nu) p1_target(B, K.u0, k + cb, tgn, j0n, j1n);
    p1_put_target<NO, S>(elem, cstride, K.sient, K.j0, K.j1, mode == OUT_BUFFER ? K.u0 + k : K.tg, mode, out);
    K.tg = tgn, K.j0 = j0n, K.j1 = j1n;
  }
}

template <int DIM, int NC, int PHYS, int MAT, typename S>
__global__ void __launch_bounds__(256, (p1_block_minb<NC, MAT>())) p1_block_kernel(
    kparams P, p1tab T, cview V, bview B, const int *__restrict__ chunks, int mode, int with_state,
    const void *__restrict__ u, void *__restrict__ out) {
  constexpr int NAUX = p1_naux(PHYS, DIM, NC), NB = DIM + 1, NBC = NB * NC;
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
    p1cell<DIM, NC, NAUX> C;
    if constexpr (MAT) {
      p1_load<DIM, NC, NAUX, S>(P, T, V, c, 0, NULL, C);
      double g3[NC * NC * DIM * DIM];
      p1_g3<DIM, NC, PHYS, NAUX>(P, T, C, g3);
      double gp[NB][DIM];
      p1_gradients<DIM, NC, NAUX>(T, C, gp);
#pragma unroll
      for (int i = 0; i < NB; i++)
#pragma unroll
        for (int fc = 0; fc < NC; fc++)
#pragma unroll
          for (int j = 0; j < NB; j++)
#pragma unroll
            for (int gc = 0; gc < NC; gc++)
              elem[((i * NC + fc) * NBC + j * NC + gc) * cb + t] = p1_entry<DIM, NC>(gp, g3, i, fc, j, gc);
    } else {
      p1_load<DIM, NC, NAUX, S>(P, T, V, c, with_state, u, C, G);
      double res[NBC];
      p1_residual_cell<DIM, NC, PHYS, NAUX>(P, T, C, with_state, res);
#pragma unroll
      for (int i = 0; i < NB; i++)
#pragma unroll
        for (int cc = 0; cc < NC; cc++) elem[(cc * NB + i) * cb + t] = res[i * NC + cc];
    }
  }
  p1_chunk_flush<NE, NO, S>(B, K, elem, mode, out);
}

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
 * double from the float storage instead; NOTES.md v8 measures both: the
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
 * records (P.wa). Measured against the block kernel in NOTES.md (v7, v8). */
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
 * ids, two double2 per vertex record). Measured (NOTES.md v7, v8): for
 * Poisson global is 3-7% faster for the atomic and gather strategies (no
 * gather phase and barrier), the shared gather 5% faster for colored (a
 * colour's chunks are far apart, so their vertices miss in L1); for
 * double elasticity the shared gather with u inside the records
 * (p1_lean_rw) is faster for atomic (0.274 against 0.281 ms) and gather
 * (0.323 against 0.342) too, so it is its default for every strategy. */
enum { LEAN_SHARED = 0, LEAN_GLOBAL = 1 };

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
 * one dependent round trip ahead of everything else (NOTES.md v9: 30% of
 * the Poisson kernel's stall samples), so each block asks L2 for those
 * lines of the chunk pf_ahead launches later (about one wave of resident
 * blocks ahead), one line per thread: no registers held, nothing waits on
 * it. Measured (v10): Poisson -5% atomic, -10% gather; elasticity even;
 * the v9 form that also prefetched the per-cell coefficients (into L2 and
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
 * blocks at 80 registers and 25% faster than 2 at 96; NOTES.md v7). Float:
 * 4 for Poisson (48 registers: 5 blocks fit), 8 for Poisson colored (32
 * registers, a small spill; a colour's launches are short, so more resident
 * blocks fill the machine: 0.143 against 0.164 ms), 6 for elasticity (40
 * registers, a 12-32-byte spill; 0.202 against 0.213 ms atomic, 0.260
 * against 0.309 colored; NOTES.md v8). */
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
 * kernel has to wait out (NOTES.md v9/v10: 58% of its stall samples).
 * Stages: plan 3 (b, b + G, b + 2G), records 2 (b, b + G); 46 KB of shared
 * memory and 64 registers: 4 blocks per SM, the grid one wave of them.
 * Measured (NOTES.md v12): the Gmsh cube 12-15% faster (atomic 0.197
 * against 0.231 ms, gather 0.222 against 0.252), the Kuhn cube 0-5%. */
constexpr int PIPE_CB = 256, PIPE_NE = 4, PIPE_RW = 6;
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

/* out[r * nco + cc] = sum of part[ent[k] * nco + cc], k in ptr[r] .. ptr[r + 1]
 * (the chunks' partial sums of target r, in chunk order). */
template <int NCO, typename S>
__global__ void __launch_bounds__(256) part_gather_kernel(int n, const int *__restrict__ ptr,
                                                          const int *__restrict__ ent,
                                                          const S *__restrict__ part, S *__restrict__ out) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n) return;
  double s[NCO];
#pragma unroll
  for (int cc = 0; cc < NCO; cc++) s[cc] = 0;
  const int k1 = __ldg(ptr + r + 1);
  for (int k = __ldg(ptr + r); k < k1; k++) {
    const int e = __ldg(ent + k);
#pragma unroll
    for (int cc = 0; cc < NCO; cc++) s[cc] += (double)__ldg(part + (size_t)e * NCO + cc);
  }
#pragma unroll
  for (int cc = 0; cc < NCO; cc++) out[(size_t)r * NCO + cc] = (S)s[cc];
}

/* --------------------------------------- the paper's kernel (pre-gathered)
 *
 * Knepley, Rupp & Terrel's data model: per cell, contiguous and structure-
 * of-arrays, the geometry G = |det J| J^-1 J^-T (DIM*(DIM+1)/2 entries) and
 * |det J|, the coefficient kappa at the cell's vertices and the cell's u;
 * out: the element vectors (SoA). P1 Poisson, constant source f. */
template <int DIM>
struct paper_layout {
  static constexpr int NB = DIM + 1, NG = DIM * (DIM + 1) / 2;
  static constexpr int IN = NG + 1 + 2 * NB; /* G, |det|, kappa[NB], u[NB] */
};

template <int DIM>
__global__ void __launch_bounds__(256) paper_prep_kernel(kparams P, p1tab T, int n, const double *__restrict__ u,
                                                         double *__restrict__ in) {
  constexpr int NB = DIM + 1, NG = paper_layout<DIM>::NG, NAUX = 2;
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= n) return;
  cview V = {};
  V.cells = P.cells;
  V.sdofs = P.sdofs;
  V.cdofs = P.cell_dofs;
  V.caux[0] = P.aux_vals[0];
  V.caux[1] = P.aux_vals[1];
  p1cell<DIM, 1, NAUX> C;
  p1_load<DIM, 1, NAUX, double>(P, T, V, c, 1, u, C);
  double v[4 * 3], invJ[DIM * DIM];
#pragma unroll
  for (int i = 0; i < NB; i++) {
    const int node = __ldg(P.cells + (size_t)c * NB + i);
    v[i * 3 + 0] = rd<double>(P.x, node);
    v[i * 3 + 1] = rd<double>(P.y, node);
    v[i * 3 + 2] = DIM == 3 ? rd<double>(P.z, node) : 0.0;
  }
  feint_affine_inverse_jacobian(DIM, v, invJ);
  /* G in reference directions: G[d][e] = |det| sum_a invJ[d][a] invJ[e][a] */
  int k = 0;
#pragma unroll
  for (int d = 0; d < DIM; d++)
#pragma unroll
    for (int e = d; e < DIM; e++) {
      double s = 0;
#pragma unroll
      for (int a = 0; a < DIM; a++) s += invJ[d * DIM + a] * invJ[e * DIM + a];
      in[(size_t)(k++) * n + c] = C.adet * s;
    }
  in[(size_t)NG * n + c] = C.adet;
#pragma unroll
  for (int i = 0; i < NB; i++) {
    in[(size_t)(NG + 1 + i) * n + c] = P.aux_kind[0] == FEINT_FIELD_NODE ? C.av[0][i] : C.ac[0];
    in[(size_t)(NG + 1 + NB + i) * n + c] = C.ue[i];
  }
}

template <int DIM>
__global__ void __launch_bounds__(256) paper_kernel(p1tab T, int n, double f, const double *__restrict__ in,
                                                    double *__restrict__ out) {
  constexpr int NB = DIM + 1, NG = paper_layout<DIM>::NG;
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= n) return;
  double G[NG], kap[NB], ue[NB];
#pragma unroll
  for (int k = 0; k < NG; k++) G[k] = __ldg(in + (size_t)k * n + c);
  const double adet = __ldg(in + (size_t)NG * n + c);
#pragma unroll
  for (int i = 0; i < NB; i++) {
    kap[i] = __ldg(in + (size_t)(NG + 1 + i) * n + c);
    ue[i] = __ldg(in + (size_t)(NG + 1 + NB + i) * n + c);
  }
  /* reference gradient of u, then G times it */
  double gr[DIM], Gg[DIM];
#pragma unroll
  for (int d = 0; d < DIM; d++) {
    double s = 0;
#pragma unroll
    for (int i = 0; i < NB; i++) s += T.gref[i][d] * ue[i];
    gr[d] = s;
  }
#pragma unroll
  for (int d = 0; d < DIM; d++) {
    double s = 0;
#pragma unroll
    for (int e = 0; e < DIM; e++) {
      const int lo = d < e ? d : e, hi = d < e ? e : d;
      s += G[lo * DIM - lo * (lo - 1) / 2 + (hi - lo)] * gr[e];
    }
    Gg[d] = s;
  }
  /* quadrature: kappa at the points, f0 = -f, f1 = kappa grad u */
  double kw = 0, r[NB];
#pragma unroll
  for (int i = 0; i < NB; i++) r[i] = 0;
  for (int q = 0; q < T.nq; q++) {
    double kq = 0;
#pragma unroll
    for (int i = 0; i < NB; i++) kq += T.phi[q][i] * kap[i];
    kw += T.w[q] * kq;
#pragma unroll
    for (int i = 0; i < NB; i++) r[i] -= T.w[q] * T.phi[q][i] * f;
  }
#pragma unroll
  for (int i = 0; i < NB; i++) {
    double s = 0;
#pragma unroll
    for (int d = 0; d < DIM; d++) s += T.gref[i][d] * Gg[d];
    out[(size_t)i * n + c] = kw * s + adet * r[i];
  }
}

/* Verification only: element vectors (SoA) added into the global vector. */
template <int DIM>
__global__ void paper_scatter_kernel(kparams P, int n, const double *__restrict__ ev, double *__restrict__ F) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= n) return;
  for (int i = 0; i < DIM + 1; i++) atomicAdd(F + P.cell_dofs[(size_t)c * (DIM + 1) + i], ev[(size_t)i * n + c]);
}

/* Colour-sorted copies: dst[k * w + j] = src[list[k] * w + j]. */
template <typename T>
__global__ void permute_kernel(int n, int w, const int *__restrict__ list, const T *__restrict__ src,
                               T *__restrict__ dst) {
  const int64_t total = (int64_t)n * w;
  for (int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; t < total; t += (int64_t)gridDim.x * blockDim.x) {
    const int64_t k = t / w, j = t - k * w;
    dst[t] = src[(int64_t)list[k] * w + j];
  }
}

/* ----------------------------------------------------------- host side */

/* A block-local aggregation plan (see p1_block_kernel): 0 vectors, 1 matrices. */
typedef struct {
  int built;
  bview V;
  int ncomp;                /* components per target */
  int64_t n_u;              /* distinct (chunk, target) pairs */
  int *d_uptr, *d_tgt;
  uint16_t *d_iend, *d_ient;
  int n_colors;             /* colored: chunk colours */
  int *color_ptr;           /* host, n_colors + 1 */
  int *d_chunks;            /* chunks sorted by colour */
  int64_t n_targets;        /* gather: target -> partials */
  int *d_gptr, *d_gent;
  void *d_part;             /* storage type S */
  uint32_t *d_lidx;         /* vectors: per-cell local vertex indices (NULL: a chunk has > 256 targets) */
  double build_ms;          /* build (GPU or host + upload) */
  int on_gpu;               /* 1: the arrays were built on the GPU (build_bplan_gpu), 0: on the host */
} bplan;

/* Device copies of the per-cell data in another cell order (a cview's
 * arrays; NULL where the view shares the mesh-order array). */
typedef struct {
  int *cells, *sdofs, *cdofs, *slots;
  void *caux[FEINT_CUDA_MAX_AUX];
} view_arrays;

typedef void (*blk_kernel_t)(kparams, p1tab, cview, bview, const int *, int, int, const void *, void *);

typedef struct {
  int device;
  kparams P;
  /* owned device arrays */
  int single; /* backend.precision single: storage type float */
  size_t rs;  /* bytes per stored real (4 or 8) */
  void *d_x, *d_y, *d_z, *d_xyzw; /* storage type S */
  double *d_basis, *d_bgrad, *d_w;
  int *d_cells, *d_cdofs, *d_sdofs, *d_slots, *d_indices;
  int64_t *d_indptr;
  void *d_aux[FEINT_CUDA_MAX_AUX];
  void *d_u, *d_F, *d_vals, *d_buf; /* storage type S */
  size_t buf_bytes;
  /* colouring */
  int n_colors;
  int64_t *color_ptr; /* host, n_colors + 1 */
  int *d_color_cells;
  /* gather maps */
  int64_t *d_vptr, *d_vent, *d_mptr, *d_ment;
  /* launch shapes */
  int res_batch, res_threads, mat_batch, mat_threads, bpc;
  int sm_count;
  /* matrix rule (form->matrix_quadrature, lower degree) */
  kparams Pm;
  double *d_mbasis, *d_mbgrad, *d_mw;
  /* 0: P1 kernels where available, 1: thread transposition only, 2: P1
   * matrices without block-local aggregation, 3: vectors without the
   * shared gather (feint_cuda_set_variant) */
  int variant;
  p1tab T, Tm;
  /* Views of the per-cell data: mesh order; colour-sorted (per-cell matrix
   * kernels, colored); space-filling-curve order (block kernels and the
   * per-cell residual kernel; == Vo with FEINT_CUDA_ORDER=0) */
  cview Vo, Vc, Vs;
  view_arrays ac, as;
  int *h_order;         /* host copy of d_order (host_order: downloaded for the host builders) */
  int order_colors[2];  /* chunk colours in mesh / curve order (0: not compared) */
  int *d_order;
  int *d_nptr, *d_nent; /* scalar dof -> (cell * 4 + local vertex), cells increasing */
  /* P1 one-thread-per-cell kernels (NULL where not applicable) */
  void (*p1mat)(kparams, p1tab, cview, int, int, int, void *);
  void (*p1matg)(kparams, p1tab, cview, int, const int *, const int *, void *);
  blk_kernel_t p1blk[2]; /* block-local aggregation: vectors, matrices (NULL: not applicable) */
  blk_kernel_t p1lean;   /* the lean P1 tetrahedron residual (NULL: not applicable or FEINT_CUDA_LEAN=0) */
  int lean_gather;       /* p1lean's vertex gather (LEAN_SHARED or LEAN_GLOBAL) */
  int lean_real;         /* p1lean's compute type: 8 double, 4 float (single precision) */
  int lean_rw;           /* p1lean's shared-gather record width (p1_lean_rw; 4: u in its own array) */
  int lean_pf;           /* p1lean's prefetch distance in chunks (bview.pf_ahead; 0: off) */
  blk_kernel_t p1pipe;   /* p1_lean_pipe_kernel for the form's kappa kind (Poisson, double), or NULL */
  int lean_pipe;         /* atomic and gather residuals by p1pipe (default; FEINT_CUDA_LEAN_PIPE=0: off) */
  int pipe_last;         /* the last vector call ran p1pipe */
  int pipe_grid;         /* p1pipe's blocks: one wave of resident ones (FEINT_CUDA_LEAN_PIPE_GRID caps it) */
  int lean_last;         /* the last vector (residual / rhs) call ran p1lean */
  bplan bp[2];
  cudaEvent_t ev0, ev1;
  float last_ms;
  char setup_steps[400]; /* feint_cuda_stats.setup_steps */
  int cdofs_shared;      /* d_cdofs is d_cells or the plan's cell dofs (not freed as d_cdofs) */
  int sdofs_shared;      /* d_sdofs is d_cells or the plan's cell dofs (not freed as d_sdofs) */
  int cells_borrowed;    /* d_cells is the plan's (plan.h device_sdofs): not freed here */
  int slots_borrowed;    /* d_slots is the plan's (plan.h device_slots): not freed here */
  int pattern_borrowed;  /* d_indptr, d_indices are the plan's: not freed here */
  double step_t0;        /* when the current setup step began */
  int bplan_host;        /* test hook (feint_cuda_set_bplan_host): block plans by the host builder */
  int host_reference;    /* test hook (feint_cuda_set_host_reference): cell order and colourings on the host */
  int order_on_gpu, colouring_on_gpu; /* where the cell order and the chunk colourings were made */
  int *chunk_color;      /* host: the block plans' chunk colouring (chunk_colouring), NULL until computed */
  int64_t chunk_color_n; /* its chunks */
  int chunk_color_cb, chunk_colors; /* its cells per chunk and colours */
} cuda_data;

/* feint_cuda_set_host_reference: read by each backend as it is created */
static int host_reference_next = 0;

/* Host doubles <-> device storage type (float in single precision). */
static int to_device(const cuda_data *d, void *dst, const double *src, size_t n, const char *phase) {
  if (!n) return FEINT_OK;
  if (!d->single) {
    CUDA_CALL(phase, feint_cuda_memcpy(dst, src, n * sizeof(double), cudaMemcpyHostToDevice));
    return FEINT_OK;
  }
  float *tmp = NULL;
  FEINT_CALL(feint_malloc(n, sizeof *tmp, &tmp, phase));
  for (size_t k = 0; k < n; k++) tmp[k] = (float)src[k];
  const cudaError_t e = feint_cuda_memcpy(dst, tmp, n * sizeof(float), cudaMemcpyHostToDevice);
  free(tmp);
  if (e != cudaSuccess) return cuda_fail(e, phase);
  return FEINT_OK;
}

static int from_device(const cuda_data *d, double *dst, const void *src, size_t n, const char *phase) {
  if (!n) return FEINT_OK;
  if (!d->single) {
    CUDA_CALL(phase, feint_cuda_memcpy(dst, src, n * sizeof(double), cudaMemcpyDeviceToHost));
    return FEINT_OK;
  }
  float *tmp = NULL;
  FEINT_CALL(feint_malloc(n, sizeof *tmp, &tmp, phase));
  const cudaError_t e = feint_cuda_memcpy(tmp, src, n * sizeof(float), cudaMemcpyDeviceToHost);
  if (e == cudaSuccess)
    for (size_t k = 0; k < n; k++) dst[k] = (double)tmp[k];
  free(tmp);
  if (e != cudaSuccess) return cuda_fail(e, phase);
  return FEINT_OK;
}

static int upload_real(const cuda_data *d, void **dst, const double *src, size_t n, const char *phase) {
  FEINT_CALL(dev_alloc(dst, n * d->rs, phase));
  return to_device(d, *dst, src, n, phase);
}

static void view_arrays_free(view_arrays *a) {
  void *ptrs[] = {a->cells, a->sdofs, a->cdofs, a->slots};
  for (size_t k = 0; k < sizeof ptrs / sizeof ptrs[0]; k++) cudaFree(ptrs[k]);
  for (int k = 0; k < FEINT_CUDA_MAX_AUX; k++) cudaFree(a->caux[k]);
}

static void cuda_destroy(feint_backend *b) {
  cuda_data *d = (cuda_data *)b->data;
  if (d) {
    cudaSetDevice(d->device);
    /* what this backend borrows (the plan's arrays) or shares (one
     * array under two names) is not freed here */
    void *ptrs[] = {d->d_x, d->d_y, d->d_z, d->d_basis, d->d_bgrad, d->d_w,
                    d->cells_borrowed ? NULL : d->d_cells, d->cdofs_shared ? NULL : d->d_cdofs,
                    d->sdofs_shared ? NULL : d->d_sdofs, d->slots_borrowed ? NULL : d->d_slots,
                    d->pattern_borrowed ? NULL : d->d_indices, d->pattern_borrowed ? NULL : d->d_indptr, d->d_u, d->d_F,
                    d->d_vals,  d->d_buf,   d->d_color_cells,         d->d_vptr,      d->d_vent, d->d_mptr,
                    d->d_ment,  d->d_mbasis, d->d_mbgrad, d->d_mw, d->d_order, d->d_nptr, d->d_nent, d->d_xyzw};
    for (size_t k = 0; k < sizeof ptrs / sizeof ptrs[0]; k++) cudaFree(ptrs[k]);
    for (int k = 0; k < FEINT_CUDA_MAX_AUX; k++) cudaFree(d->d_aux[k]);
    view_arrays_free(&d->ac);
    view_arrays_free(&d->as);
    for (int k = 0; k < 2; k++) {
      bplan &B = d->bp[k];
      void *bptrs[] = {B.d_uptr, B.d_tgt, B.d_iend, B.d_ient, B.d_chunks, B.d_gptr, B.d_gent, B.d_part, B.d_lidx};
      for (size_t j = 0; j < sizeof bptrs / sizeof bptrs[0]; j++) cudaFree(bptrs[j]);
      free(B.color_ptr);
    }
    if (d->ev0) cudaEventDestroy(d->ev0);
    if (d->ev1) cudaEventDestroy(d->ev1);
    cudaGetLastError();
    free(d->color_ptr);
    free(d->h_order);
    free(d->chunk_color);
    free(d);
  }
  free(b);
}

static int gcd_int(int a, int b) {
  while (b) {
    int t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/* Cells per batch: blocks_per_batch blocks of lcm(nq, nbc) cells, reduced
 * (by halving) until the batch's shared memory fits. */
static int choose_batch(const kparams &P, int cell_doubles, int blocks_per_batch, int default_cells,
                        long shmem_optin) {
  const int L = P.nq / gcd_int(P.nq, P.nbc) * P.nbc;
  int bpb = blocks_per_batch > 0 ? blocks_per_batch : (default_cells / L > 0 ? default_cells / L : 1);
  long batch = (long)bpb * L;
  if (batch > 4096) batch = 4096;
  /* 48 KiB keeps several blocks per multiprocessor; elements whose one
   * cell does not fit there use the opt-in limit (227 KiB on sm_90). */
  long avail = FEINT_CUDA_SHMEM / 8 - tables_size(P);
  if (avail < cell_doubles) avail = shmem_optin / 8 - tables_size(P);
  while (batch > 1 && batch * cell_doubles > avail) batch = (batch + 1) / 2;
  return (int)batch;
}

enum { MAX_CHUNK_COLOURS = 512 };

/* Greedy colouring of the chunks of cb consecutive cells (cells in the
 * order ord, NULL: mesh order; cb = 1: the cells themselves): a chunk takes
 * the smallest colour that none of its scalar dofs has seen, so no two
 * chunks of a colour share a dof. Colours are tracked per scalar dof as a
 * bit set (up to 512). */
static int greedy_colors(const feint_space *s, const int *ord, int cb, std::vector<int> &color, int *n_colors,
                         const char *phase) {
  const int64_t n_cells = s->mesh->n_cells, n_chunks = (n_cells + cb - 1) / cb;
  const int nb = s->nb, W = MAX_CHUNK_COLOURS / 64;
  const int64_t *sd = s->scalar_cell_dofs;
  /* used colours, 64 per word, one array of words per 64 colours (word
   * major: the first word of every dof, the one nearly every chunk reads,
   * is 8 bytes a dof and stays in cache; a word array is allocated when a
   * colour in it is first taken) */
  std::vector<std::vector<uint64_t>> seen((size_t)W);
  color.assign((size_t)n_chunks, 0);
  *n_colors = 0;
  for (int64_t b = 0; b < n_chunks; b++) {
    const int64_t c0 = b * cb, c1 = std::min<int64_t>(c0 + cb, n_cells);
    int chosen = -1;
    for (int w = 0; w < W && chosen < 0; w++) {
      const std::vector<uint64_t> &word = seen[(size_t)w];
      uint64_t used = 0;
      if (!word.empty())
        for (int64_t c = c0; c < c1; c++)
          for (int i = 0; i < nb; i++) used |= word[(size_t)sd[(ord ? ord[c] : c) * nb + i]];
      if (~used) chosen = w * 64 + __builtin_ctzll(~used);
    }
    if (chosen < 0) return feint_error_set(FEINT_ERR_COMPUTE, "%s: more than %d colours needed", phase, W * 64);
    std::vector<uint64_t> &word = seen[(size_t)(chosen / 64)];
    if (word.empty()) word.assign((size_t)s->n_scalar_dofs, 0);
    for (int64_t c = c0; c < c1; c++)
      for (int i = 0; i < nb; i++) word[(size_t)sd[(ord ? ord[c] : c) * nb + i]] |= 1ull << (chosen % 64);
    color[(size_t)b] = chosen;
    *n_colors = std::max(*n_colors, chosen + 1);
  }
  return FEINT_OK;
}

/* The items (cells or chunks) sorted by colour: colour k is list[ptr[k] ..
 * ptr[k + 1]), items in increasing order; ptr (n_colors + 1) zeroed by the caller. */
template <typename IT>
static void sort_by_colour(const std::vector<int> &color, int n_colors, IT *ptr, std::vector<int> &list) {
  for (size_t b = 0; b < color.size(); b++) ptr[color[b] + 1]++;
  for (int k = 0; k < n_colors; k++) ptr[k + 1] += ptr[k];
  std::vector<IT> fill(ptr, ptr + n_colors);
  list.resize(color.size());
  for (size_t b = 0; b < color.size(); b++) list[(size_t)fill[(size_t)color[b]]++] = (int)b;
}

/* Cell colouring (strategy colored, thread-transposition and per-cell
 * kernels), built on first use: the P1 block kernels colour their chunks
 * instead, and a single run should not pay for a colouring nothing reads. */
static int build_coloring(const feint_problem *p, cuda_data *d) {
  if (d->color_ptr || p->strategy != FEINT_ASSEMBLY_COLORED) return FEINT_OK;
  const char *phase = "cell colouring";
  std::vector<int> color, list;
  int n_colors = 0;
  FEINT_CALL(greedy_colors(p->space, NULL, 1, color, &n_colors, phase));
  FEINT_CALL(feint_calloc((size_t)n_colors + 1, sizeof *d->color_ptr, &d->color_ptr, phase));
  sort_by_colour(color, n_colors, d->color_ptr, list);
  FEINT_CALL(upload(&d->d_color_cells, list.data(), list.size(), "upload of the cell colouring"));
  d->n_colors = n_colors;
  return FEINT_OK;
}

/* Inverse map: for each target r < n_targets, the entries e < n_entries
 * with target[e] == r, in increasing e (so in cell order). */
static int build_inverse(const int64_t *target64, const int32_t *target32, int64_t n_entries, int64_t n_targets,
                         int64_t **d_ptr, int64_t **d_ent, const char *phase) {
  int64_t *ptr = NULL, *ent = NULL, *fill = NULL;
  int status = FEINT_OK;
  if ((status = feint_calloc((size_t)n_targets + 1, sizeof *ptr, &ptr, phase)) ||
      (status = feint_malloc((size_t)n_entries + 1, sizeof *ent, &ent, phase)) ||
      (status = feint_calloc((size_t)n_targets + 1, sizeof *fill, &fill, phase)))
    goto done;
  for (int64_t e = 0; e < n_entries; e++) ptr[(target64 ? target64[e] : target32[e]) + 1]++;
  for (int64_t r = 0; r < n_targets; r++) ptr[r + 1] += ptr[r];
  for (int64_t e = 0; e < n_entries; e++) {
    int64_t r = target64 ? target64[e] : target32[e];
    ent[ptr[r] + fill[r]++] = e;
  }
  if ((status = upload(d_ptr, ptr, (size_t)n_targets + 1, phase)) ||
      (status = upload(d_ent, ent, (size_t)n_entries, phase)))
    goto done;
done:
  free(ptr);
  free(ent);
  free(fill);
  return status;
}

static int ensure_buffer(cuda_data *d, size_t bytes, const char *phase) {
  if (d->buf_bytes >= bytes) return FEINT_OK;
  cudaFree(d->d_buf);
  d->d_buf = NULL;
  d->buf_bytes = 0;
  FEINT_CALL(dev_alloc((void **)&d->d_buf, bytes, phase));
  d->buf_bytes = bytes;
  return FEINT_OK;
}

typedef void (*res_kernel_t)(kparams, const int *, int64_t, int, int, const void *, void *);
typedef void (*mat_kernel_t)(kparams, const int *, int64_t, int, void *);

template <typename S>
static res_kernel_t pick_residual_s(int dim, int nc) {
  if (dim == 2)
    return nc == 1 ? residual_kernel<2, 1, S> : nc == 2 ? residual_kernel<2, 2, S> : residual_kernel<2, 3, S>;
  return nc == 1 ? residual_kernel<3, 1, S> : nc == 2 ? residual_kernel<3, 2, S> : residual_kernel<3, 3, S>;
}
template <typename S>
static mat_kernel_t pick_matrix_s(int dim, int nc) {
  if (dim == 2) return nc == 1 ? matrix_kernel<2, 1, S> : nc == 2 ? matrix_kernel<2, 2, S> : matrix_kernel<2, 3, S>;
  return nc == 1 ? matrix_kernel<3, 1, S> : nc == 2 ? matrix_kernel<3, 2, S> : matrix_kernel<3, 3, S>;
}
static res_kernel_t pick_residual(const cuda_data *d, int dim, int nc) {
  return d->single ? pick_residual_s<float>(dim, nc) : pick_residual_s<double>(dim, nc);
}
static mat_kernel_t pick_matrix(const cuda_data *d, int dim, int nc) {
  return d->single ? pick_matrix_s<float>(dim, nc) : pick_matrix_s<double>(dim, nc);
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
template <int NC, int KA, int KB, int MINB, typename S, typename R>
static blk_kernel_t lean_gm(const lean_choice &L) {
  if (L.gather == LEAN_GLOBAL) return p1_lean_kernel<NC, KA, KB, LEAN_GLOBAL, MINB, S, R>;
  if constexpr (sizeof(R) == 8)
    if (L.pack) return p1_lean_kernel<NC, KA, KB, LEAN_SHARED, MINB, S, R, true>;
  return p1_lean_kernel<NC, KA, KB, LEAN_SHARED, MINB, S, R>;
}
template <int NC, int KA, int KB, typename S, typename R>
static blk_kernel_t lean_g(const lean_choice &L) {
  constexpr int N = FEINT_FIELD_NODE, C = FEINT_FIELD_CELL;
  constexpr bool bench = KA == N && (NC == 1 || KB == C);
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
  return real == 4 ? lean_ka<NC, float, float>(ka, kb, L) : lean_ka<NC, float, double>(ka, kb, L);
}
static blk_kernel_t pick_lean(const cuda_data *d, const feint_problem *p, int *gather, int *real, int *rw,
                              int *pf) {
  const kparams &P = d->P;
  const feint_form *f = p->form;
  const char *e = getenv("FEINT_CUDA_LEAN"), *mode = getenv("FEINT_CUDA_LEAN_MODE"),
             *mb = getenv("FEINT_CUDA_LEAN_MINB"), *re = getenv("FEINT_CUDA_LEAN_REAL"),
             *pk = getenv("FEINT_CUDA_LEAN_PACK"), *pfe = getenv("FEINT_CUDA_LEAN_PF");
  *real = *pf = 0;
  if ((e && !strcmp(e, "0")) || P.dim != 3 || !d->p1blk[0] || !d->T.std || !P.sd_cells || !P.interleaved ||
      !P.xyzw)
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
  if (mode && (!strcmp(mode, "0") || !strcmp(mode, "1"))) L.gather = atoi(mode);
  L.minb = mb ? atoi(mb) : 0;
  *real = d->single && !(re && !strcmp(re, "double")) ? 4 : 8;
  L.pack = !(pk && !strcmp(pk, "0"));
  *pf = pfe ? std::max(0, atoi(pfe)) : d->single ? 0 : p1_lean_minb<1, double>(false) * d->sm_count;
  *gather = L.gather;
  *rw = L.gather != LEAN_SHARED ? 4
        : L.pack && *real == 8 ? (poisson ? p1_lean_rw<1, double, true>() : p1_lean_rw<3, double, true>())
                               : 4;
  return poisson ? lean_types<1>(d->single, *real, ka, 0, L) : lean_types<3>(d->single, *real, ka, kb, L);
}

static int fill_p1tab(p1tab *T, int nq, int nb, int dim, const double *w, const double *basis, const double *bgrad) {
  memset(T, 0, sizeof *T);
  if (nq > FEINT_P1_MAXQ || nb != dim + 1) return 0;
  T->nq = nq;
  for (int q = 0; q < nq; q++) {
    T->w[q] = w[q];
    for (int i = 0; i < nb; i++) {
      T->phi[q][i] = basis[q * nb + i];
      T->wphi[i] += w[q] * basis[q * nb + i];
      for (int j = 0; j < nb; j++) T->mass[i][j] += w[q] * basis[q * nb + i] * basis[q * nb + j];
    }
  }
  T->std = 1;
  for (int i = 0; i < nb; i++) {
    T->wsum += T->wphi[i];
    T->f.wphi[i] = (float)T->wphi[i];
    for (int j = 0; j < nb; j++) T->f.mass[i][j] = (float)T->mass[i][j];
    for (int e = 0; e < dim; e++) {
      T->gref[i][e] = bgrad[i * dim + e];
      /* to rounding: the element's basis comes from an orthonormal basis
       * (fe.h), so its gradients are +-1 or 0 only within an ulp or two */
      T->std &= fabs(T->gref[i][e] - (i == 0 ? -1.0 : i == e + 1 ? 1.0 : 0.0)) <= 1e-14;
    }
  }
  T->f.wsum = (float)T->wsum;
  return 1;
}

/* Scalar dof -> (cell * 4 + local vertex), in increasing cell order (P1). */
static int build_node_map(const feint_space *s, cuda_data *d) {
  const int64_t nc = s->mesh->n_cells, nsd = s->n_scalar_dofs;
  const int nb = s->nb;
  const char *phase = "dof-to-cell map (P1 gather)";
  if (nc * 4 > INT32_MAX || nc * nb > INT32_MAX)
    return feint_error_set(FEINT_ERR_COMPUTE, "%s: too many cells for 32-bit indices", phase);
  int *ptr = NULL, *ent = NULL, *fill = NULL;
  int status = FEINT_OK;
  if ((status = feint_calloc((size_t)nsd + 1, sizeof *ptr, &ptr, phase)) ||
      (status = feint_malloc((size_t)(nc * nb) + 1, sizeof *ent, &ent, phase)) ||
      (status = feint_calloc((size_t)nsd + 1, sizeof *fill, &fill, phase)))
    goto done;
  for (int64_t e = 0; e < nc * nb; e++) ptr[s->scalar_cell_dofs[e] + 1]++;
  for (int64_t r = 0; r < nsd; r++) ptr[r + 1] += ptr[r];
  for (int64_t c = 0; c < nc; c++)
    for (int a = 0; a < nb; a++) {
      const int64_t r = s->scalar_cell_dofs[c * nb + a];
      ent[ptr[r] + fill[r]++] = (int)(c * 4 + a);
    }
  if ((status = upload(&d->d_nptr, ptr, (size_t)nsd + 1, phase)) ||
      (status = upload(&d->d_nent, ent, (size_t)(nc * nb), phase)))
    goto done;
done:
  free(ptr);
  free(ent);
  free(fill);
  return status;
}

/* dst[k] = src[list[k]] (w values each), dst allocated on first use (a
 * sweep member's new coefficients go into the old copy). */
template <typename T>
static int permuted(T **dst, const T *src, int w, const int *list, int64_t n, const char *phase) {
  if (!*dst) FEINT_CALL(dev_alloc((void **)dst, sizeof(T) * (size_t)(n * w), phase));
  permute_kernel<T><<<4096, 256>>>((int)n, w, list, src, *dst);
  CUDA_LAUNCHED(phase);
  return FEINT_OK;
}

/* A view's copies of the per-cell (P0) coefficient fields, in the order
 * `list`: at build, and again for a sweep member's new values. */
static int view_coefficients(const cuda_data *d, const int *list, const char *phase, view_arrays *a, cview *V) {
  const kparams &P = d->P;
  for (int k = 0; k < P.n_aux; k++)
    if (P.aux_kind[k] == FEINT_FIELD_CELL) {
      if (d->single)
        FEINT_CALL(permuted((float **)&a->caux[k], (const float *)P.aux_vals[k], 1, list, P.n_cells, phase));
      else
        FEINT_CALL(permuted((double **)&a->caux[k], (const double *)P.aux_vals[k], 1, list, P.n_cells, phase));
      V->caux[k] = a->caux[k];
    }
  return FEINT_OK;
}

/* A view of the per-cell data in the order `list` (device; position ->
 * mesh cell): copies of what the P1 kernels read per cell (the slot map
 * only with with_slots), so that consecutive threads read consecutive
 * entries. */
static int build_view(const cuda_data *d, const int *list, int with_slots, const char *phase, view_arrays *a,
                      cview *V) {
  const kparams &P = d->P;
  const int64_t n = P.n_cells;
  *V = d->Vo;
  FEINT_CALL(permuted(&a->cells, P.cells, P.nv, list, n, phase));
  V->cells = a->cells;
  if (!P.sd_cells) {
    FEINT_CALL(permuted(&a->sdofs, P.sdofs, P.nb, list, n, phase));
    V->sdofs = a->sdofs;
  }
  if (!P.interleaved) {
    FEINT_CALL(permuted(&a->cdofs, P.cell_dofs, P.nbc, list, n, phase));
    V->cdofs = a->cdofs;
  }
  if (with_slots) {
    FEINT_CALL(permuted(&a->slots, P.slots, P.nbc * P.nbc, list, n, phase));
    V->slots = a->slots;
  }
  return view_coefficients(d, list, phase, a, V);
}

/* Colour-sorted copies (per-cell matrix kernels, colored): each colour
 * reads a contiguous range. */
static int build_color_views(const feint_problem *p, cuda_data *d) {
  FEINT_CALL(build_coloring(p, d));
  return build_view(d, d->d_color_cells, p->plan && d->p1mat, "colour-sorted cell data", &d->ac, &d->Vc);
}

/* Cells per chunk of the block kernels: 256 (FEINT_CUDA_CHUNK: 32..256, a
 * multiple of 32, for tuning). */
static int chunk_cells(void) {
  const char *e = getenv("FEINT_CUDA_CHUNK");
  const int v = e ? atoi(e) : 0;
  return v >= 32 && v <= 256 && v % 32 == 0 ? v : 256;
}

/* Keep a chunk colouring (chunks of cb cells in the order the block plans
 * will use, d->d_order) for the block plans: both plans read the same one. */
static int keep_chunk_colouring(cuda_data *d, const std::vector<int> &color, int n_colors, int cb,
                                const char *phase) {
  free(d->chunk_color);
  d->chunk_color = NULL;
  FEINT_CALL(feint_malloc(color.size() ? color.size() : 1, sizeof *d->chunk_color, &d->chunk_color, phase));
  if (!color.empty()) memcpy(d->chunk_color, color.data(), sizeof(int) * color.size());
  d->chunk_color_n = (int64_t)color.size();
  d->chunk_color_cb = cb;
  d->chunk_colors = n_colors;
  return FEINT_OK;
}

/* Setup structures on the GPU (cell order, chunk colourings) where they
 * apply: double precision (the curve keys read the coordinates in double)
 * and not the host reference (feint_cuda_set_host_reference, tests). */
static int setup_on_gpu(const cuda_data *d) { return !d->host_reference && !d->single && d->P.sdofs; }

/* Host copy of the curve order (position -> mesh cell), for the host
 * builders; downloaded on first use (the GPU paths read d->d_order). */
static int host_order(const feint_space *s, cuda_data *d, const int **ord) {
  *ord = NULL;
  if (!d->d_order) return FEINT_OK;
  if (!d->h_order) {
    const size_t n = (size_t)s->mesh->n_cells;
    FEINT_CALL(feint_malloc(n ? n : 1, sizeof *d->h_order, &d->h_order, "cell order (host copy)"));
    CUDA_CALL("cell order (host copy)", feint_cuda_memcpy(d->h_order, d->d_order, n * sizeof(int), cudaMemcpyDeviceToHost));
  }
  *ord = d->h_order;
  return FEINT_OK;
}

/* The chunk colouring greedy_colors defines, for chunks of cb cells in the
 * order d_ord (device; NULL: mesh order): on the GPU where that applies
 * (the same colours: cell_order.h), else on the host. */
static int colour_chunks(const feint_space *s, cuda_data *d, const int *d_ord, int cb, std::vector<int> &color,
                         int *n_colors, const char *phase) {
  const int64_t n_cells = s->mesh->n_cells;
  if (setup_on_gpu(d) && n_cells * s->nb < INT32_MAX) {
    color.assign((size_t)((n_cells + cb - 1) / cb), 0);
    FEINT_CALL(feint_cuda_chunk_colouring(d->P.sdofs, n_cells, s->nb, s->n_scalar_dofs, d_ord, cb, MAX_CHUNK_COLOURS,
                                          color.data(), n_colors, phase));
    d->colouring_on_gpu = 1;
    return FEINT_OK;
  }
  if (!d_ord) return greedy_colors(s, NULL, cb, color, n_colors, phase);
  if (d_ord == d->d_order) {
    const int *ord = NULL;
    FEINT_CALL(host_order(s, d, &ord));
    return greedy_colors(s, ord, cb, color, n_colors, phase);
  }
  /* an order not chosen yet (build_cell_order compares it) */
  std::vector<int> ord((size_t)n_cells);
  CUDA_CALL(phase, feint_cuda_memcpy(ord.data(), d_ord, sizeof(int) * ord.size(), cudaMemcpyDeviceToHost));
  return greedy_colors(s, ord.data(), cb, color, n_colors, phase);
}

/* The block plans' chunk colouring (strategy colored) over chunks of cb
 * cells in the kernels' order (d->d_order). It reads the scalar cell dofs
 * and the order only, so it is the same for the vector and the matrix
 * plan: computed once (or left by build_cell_order, which computes it to
 * choose the order) and kept. */
static int chunk_colouring(const feint_space *s, cuda_data *d, int cb, const char *phase) {
  if (d->chunk_color && d->chunk_color_cb == cb) return FEINT_OK;
  std::vector<int> color;
  int n_colors = 0;
  FEINT_CALL(colour_chunks(s, d, d->d_order, cb, color, &n_colors, phase));
  return keep_chunk_colouring(d, color, n_colors, cb, phase);
}

/* Cells in the order of a Morton (Z-order) curve through their centroids,
 * so that a chunk of consecutive cells is a compact piece of the mesh
 * whatever the file's cell order (fewer distinct nodes per chunk: fewer
 * flush targets and atomics, more L1 / L2 reuse of node records).
 * Counting sort over 2^(dim*bits) boxes, 2-4 cells per box, cells in mesh
 * order within a box: O(n) and deterministic (on the GPU a stable radix
 * sort of the same keys: the same order). The results stay in the user's
 * numbering: only the order in which the kernels visit cells (and so the
 * summation order, to rounding) changes. Used (d->d_order: position ->
 * mesh cell, and the view d->Vs) when forced or when its chunks need fewer
 * colours than the mesh order's: a mesh written in a sweep order (a
 * structured grid) keeps it, since its long thin chunks flush faster than
 * compact ones. */
static int curve_order_host(const feint_mesh *m, int bits, const double lo[3], const double hi[3], int **d_order,
                            const char *phase) {
  const int64_t n = m->n_cells;
  const int nv = m->nv, dim = m->dim;
  const int64_t n_box = (int64_t)1 << (dim * bits);
  std::vector<int> key((size_t)n);
  std::vector<int64_t> start((size_t)n_box + 1, 0);
  /* the keys on every core (one pass over the cells each), counted after */
  const unsigned nth = std::max(1u, std::min(32u, std::thread::hardware_concurrency()));
  auto keys_of = [&](unsigned w) {
   for (int64_t c = n * w / nth; c < n * (w + 1) / nth; c++) {
    int q[3] = {0, 0, 0};
    for (int a = 0; a < dim; a++) {
      const double *xa = a == 0 ? m->x : a == 1 ? m->y : m->z;
      double s = 0;
      for (int i = 0; i < nv; i++) s += xa[m->cells[c * nv + i]];
      const double f = hi[a] > lo[a] ? (s / nv - lo[a]) / (hi[a] - lo[a]) : 0;
      q[a] = std::min((int)(f * (1 << bits)), (1 << bits) - 1);
    }
    int k = 0;
    for (int bit = bits - 1; bit >= 0; bit--)
      for (int a = 0; a < dim; a++) k = k << 1 | (q[a] >> bit & 1);
    key[(size_t)c] = k;
   }
  };
  {
    std::vector<std::thread> th;
    for (unsigned w = 1; w < nth; w++) th.emplace_back(keys_of, w);
    keys_of(0);
    for (auto &x : th) x.join();
  }
  for (int64_t c = 0; c < n; c++) start[(size_t)key[(size_t)c] + 1]++;
  for (int64_t k = 0; k < n_box; k++) start[(size_t)k + 1] += start[(size_t)k];
  std::vector<int> order((size_t)n);
  for (int64_t c = 0; c < n; c++) order[(size_t)start[(size_t)key[(size_t)c]]++] = (int)c;
  return upload(d_order, order.data(), (size_t)n, phase);
}

static int build_cell_order(const feint_space *s, int force, cuda_data *d) {
  const feint_mesh *m = s->mesh;
  const int64_t n = m->n_cells;
  const int dim = m->dim;
  const char *phase = "cell order (space-filling curve)";
  int bits = 1;
  while (bits < 10 && ((int64_t)1 << (dim * (bits + 1))) <= n / 2) bits++;
  double lo[3] = {m->x[0], m->y[0], m->z ? m->z[0] : 0}, hi[3] = {lo[0], lo[1], lo[2]};
  for (int64_t v = 0; v < m->n_nodes; v++) {
    const double x[3] = {m->x[v], m->y[v], m->z ? m->z[v] : 0};
    for (int a = 0; a < 3; a++) lo[a] = std::min(lo[a], x[a]), hi[a] = std::max(hi[a], x[a]);
  }
  int *order = NULL;
  if (setup_on_gpu(d) && n < INT32_MAX) {
    FEINT_CALL(feint_cuda_curve_order(n, m->nv, dim, bits, lo, hi, (const double *)d->d_x, (const double *)d->d_y,
                                      (const double *)d->d_z, d->d_cells, &order));
    d->order_on_gpu = 1;
  } else {
    FEINT_CALL(curve_order_host(m, bits, lo, hi, &order, phase));
  }
  if (!force) {
    /* keep the mesh order where it is as good: chunks that touch fewer
     * other chunks (fewer chunk colours) */
    std::vector<int> color, color2;
    int n_mesh = 0, n_curve = 0, st = FEINT_OK;
    if (!(st = colour_chunks(s, d, NULL, chunk_cells(), color2, &n_mesh, phase)))
      st = colour_chunks(s, d, order, chunk_cells(), color, &n_curve, phase);
    if (st) {
      cudaFree(order);
      return st;
    }
    d->order_colors[0] = n_mesh;
    d->order_colors[1] = n_curve;
    /* the chosen order's colouring is the block plans' (chunk_colouring) */
    st = keep_chunk_colouring(d, n_curve >= n_mesh ? color2 : color, n_curve >= n_mesh ? n_mesh : n_curve,
                              chunk_cells(), phase);
    if (st || n_curve >= n_mesh) {
      cudaFree(order);
      return st;
    }
  }
  d->d_order = order;
  return build_view(d, d->d_order, 0, phase, &d->as, &d->Vs);
}

static unsigned blocks_of(int64_t n) { return (unsigned)((n + 255) / 256 > 0 ? (n + 255) / 256 : 1); }

/* The thread-transposition gather's inverse maps, built on first use. */
static int ensure_generic_gather(const feint_problem *p, cuda_data *d, int matrix) {
  const feint_space *s = p->space;
  const int64_t nc = s->mesh->n_cells;
  if (!matrix && !d->d_vptr)
    FEINT_CALL(build_inverse(s->cell_dofs, NULL, nc * s->nbc, s->n_dofs, &d->d_vptr, &d->d_vent,
                             "dof-to-cell map for the gather assembly"));
  if (matrix && p->plan && !d->d_mptr) {
    FEINT_CALL(feint_plan_host_slots(p->plan));
    FEINT_CALL(build_inverse(NULL, p->plan->slots, nc * s->nbc * s->nbc, p->plan->nnz, &d->d_mptr, &d->d_ment,
                             "nonzero-to-cell map for the gather assembly"));
  }
  return FEINT_OK;
}

static unsigned grid_for(const cuda_data *d, int64_t n_list, int batch) {
  const int64_t n_batches = (n_list + batch - 1) / batch;
  int64_t g = (n_batches + d->bpc - 1) / d->bpc;
  if (g < 1) g = 1;
  if (g > 2147483647LL) g = 2147483647LL;
  return (unsigned)g;
}


/* ------------------------------------------ block-local aggregation plans */

/* A block-local aggregation plan `which` (0: vectors, targets the scalar
 * dofs of each (cell, vertex); 1: matrices, targets the CSR slots of each
 * (cell, i, j)) for chunks of cb consecutive cells (in the order
 * d->d_order): entry pos = e * cb + t of a chunk (its cell t, 0 <= t <
 * n_here, the chunk's cells; its e-th target, 0 <= e < ne) sorts by the key
 * target << 16 | pos, so that equal targets are adjacent and the order is
 * unique. Per chunk b: uptr[b] .. uptr[b + 1] its distinct targets, tgt
 * (ascending), iend (each one's end in the chunk's sorted entries; one pad
 * element after the last chunk), ient (the sorted entries' pos, cb * ne per
 * chunk, zero past n_here * ne); for vectors on the vertices lidx (per
 * cell position, byte e: the local index of its e-th target among the
 * chunk's distinct ones), unless a chunk has more than 256. Built on the
 * GPU (build_bplan_gpu) where it applies, else on the host
 * (build_bplan_host, the reference: the same arrays bit for bit). */

/* What the GPU builder reads: the targets tg[c * ne + e] of mesh cell c,
 * c = ord[b * cb + t] (ord NULL: b * cb + t), all in [0, nt). */
typedef struct {
  const int *tg;
  const int *ord;
  int64_t n_cells;
  int cb, ne, nt;
  int end_bit; /* the radix sort's key bits: 16 + the bits of nt */
} bpg_args;

#define BPG_THREADS 256
#define BPG_MAX_ENTRIES (BPG_THREADS * 16) /* entries per chunk the GPU builder takes (cb * ne) */

__device__ __forceinline__ int bpg_target(const bpg_args &A, int64_t c0, int pos) {
  const int e = pos / A.cb, t = pos - e * A.cb;
  const int64_t c = A.ord ? (int64_t)A.ord[c0 + t] : c0 + t;
  return A.tg[c * A.ne + e];
}

struct bpg_new_target { /* sorted keys: a new target starts */
  __device__ __forceinline__ bool operator()(const unsigned long long &a, const unsigned long long &b) const {
    return (a >> 16) != (b >> 16);
  }
};

struct bpg_differ {
  __device__ __forceinline__ bool operator()(const int &a, const int &b) const { return a != b; }
};

/* One block per chunk: sort its keys (pad keys ~0 after them), write ient
 * (zero past its m = n_here * ne entries), count[b + 1] = its distinct
 * targets; info[0] |= 1 where a target is outside [0, nt), info[1] = the
 * most distinct targets of a chunk. IT * BPG_THREADS >= cb * ne. */
template <int IT>
__global__ void __launch_bounds__(BPG_THREADS)
    bpg_sort_kernel(bpg_args A, uint16_t *__restrict__ ient, int *__restrict__ count, int *__restrict__ info) {
  typedef cub::BlockRadixSort<unsigned long long, BPG_THREADS, IT> Sort;
  typedef cub::BlockDiscontinuity<unsigned long long, BPG_THREADS> Disc;
  typedef cub::BlockReduce<int, BPG_THREADS> Red;
  __shared__ union {
    typename Sort::TempStorage sort;
    typename Disc::TempStorage disc;
    typename Red::TempStorage red;
  } sm;
  const int64_t b = blockIdx.x, c0 = b * A.cb;
  const int n_here = (int)(A.n_cells - c0 < A.cb ? A.n_cells - c0 : A.cb), n_ent = A.cb * A.ne, m = n_here * A.ne;
  unsigned long long key[IT];
  int bad = 0;
  for (int j = 0; j < IT; j++) {
    const int pos = j * BPG_THREADS + (int)threadIdx.x, e = pos / A.cb, t = pos - e * A.cb;
    key[j] = ~0ull;
    if (e < A.ne && t < n_here) {
      const int tg = bpg_target(A, c0, pos);
      if (tg < 0 || tg >= A.nt)
        bad = 1;
      else
        key[j] = (unsigned long long)tg << 16 | (unsigned long long)pos;
    }
  }
  if (bad) atomicOr(info, 1);
  Sort(sm.sort).Sort(key, 0, A.end_bit); /* blocked: thread i holds sorted positions i * IT .. */
  __syncthreads();
  int head[IT];
  Disc(sm.disc).FlagHeads(head, key, bpg_new_target());
  int nu = 0;
  for (int j = 0; j < IT; j++) {
    const int k = (int)threadIdx.x * IT + j;
    if (k < m) nu += head[j];
    if (k < n_ent) ient[b * n_ent + k] = k < m ? (uint16_t)(key[j] & 0xffff) : (uint16_t)0;
  }
  __syncthreads();
  nu = Red(sm.red).Sum(nu);
  if (threadIdx.x == 0) {
    count[b + 1] = nu;
    atomicMax(info + 1, nu);
  }
}

/* One block per chunk, from its sorted entries (ient) and its first
 * distinct target's index uptr[b]: tgt, iend and (lidx not NULL) the
 * local indices, or'ed into lidx (zeroed by the caller). */
template <int IT>
__global__ void __launch_bounds__(BPG_THREADS)
    bpg_emit_kernel(bpg_args A, const uint16_t *__restrict__ ient, const int *__restrict__ uptr,
                    int *__restrict__ tgt, uint16_t *__restrict__ iend, uint32_t *__restrict__ lidx) {
  typedef cub::BlockDiscontinuity<int, BPG_THREADS> Disc;
  typedef cub::BlockScan<int, BPG_THREADS> Scan;
  __shared__ union {
    typename Disc::TempStorage disc;
    typename Scan::TempStorage scan;
  } sm;
  const int64_t b = blockIdx.x, c0 = b * A.cb;
  const int n_here = (int)(A.n_cells - c0 < A.cb ? A.n_cells - c0 : A.cb), n_ent = A.cb * A.ne, m = n_here * A.ne;
  int pos[IT], tg[IT], head[IT], idx[IT];
  for (int j = 0; j < IT; j++) {
    const int k = (int)threadIdx.x * IT + j;
    pos[j] = k < m ? (int)ient[b * n_ent + k] : 0;
    tg[j] = k < m ? bpg_target(A, c0, pos[j]) : -1;
  }
  Disc(sm.disc).FlagHeads(head, tg, bpg_differ());
  for (int j = 0; j < IT; j++)
    if ((int)threadIdx.x * IT + j >= m) head[j] = 0;
  __syncthreads();
  Scan(sm.scan).InclusiveSum(head, idx); /* idx - 1: the entry's target among the chunk's distinct ones */
  const int u0 = uptr[b];
  for (int j = 0; j < IT; j++) {
    const int k = (int)threadIdx.x * IT + j;
    if (k >= m) continue;
    const int u = u0 + idx[j] - 1;
    if (head[j]) {
      tgt[u] = tg[j];
      if (k) iend[u - 1] = (uint16_t)k; /* the previous target ends here */
    }
    if (k == m - 1) iend[u] = (uint16_t)m;
    if (lidx) {
      const int e = pos[j] / A.cb, t = pos[j] - e * A.cb;
      atomicOr(lidx + c0 + t, (uint32_t)(idx[j] - 1) << (8 * e));
    }
  }
}

/* ptr[t + 1] += the occurrences of target t (the gather inverse's counts). */
__global__ void bpg_count_kernel(int64_t n, const int *__restrict__ tgt, int *__restrict__ cnt) {
  for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < n; k += (int64_t)gridDim.x * blockDim.x)
    atomicAdd(cnt + tgt[k] + 1, 1);
}

__global__ void bpg_iota_kernel(int64_t n, int *__restrict__ v) {
  for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < n; k += (int64_t)gridDim.x * blockDim.x)
    v[k] = (int)k;
}

/* Device buffers freed at scope exit unless kept (keep: the caller owns it). */
struct dev_scratch {
  std::vector<void *> p;
  ~dev_scratch() {
    for (void *x : p) cudaFree(x);
  }
  template <typename T>
  int alloc(T **ptr, size_t count, const char *phase) {
    *ptr = NULL;
    FEINT_CALL(dev_alloc((void **)ptr, sizeof(T) * (count ? count : 1), phase));
    p.push_back((void *)*ptr);
    return FEINT_OK;
  }
  template <typename T>
  T *keep(T *x) {
    p.erase(std::remove(p.begin(), p.end(), (void *)x), p.end());
    return x;
  }
};

static unsigned grid_capped(int64_t n) { return (unsigned)std::min<int64_t>(std::max<int64_t>((n + 255) / 256, 1), 65535); }

/* The plan on the GPU from the device's targets (d->d_slots, d->P.sdofs:
 * the int32 scalar cell dofs) and cell order (d->d_order); *done = 0 (and
 * nothing in B changed) where it does not apply: the test hook
 * (feint_cuda_set_bplan_host), more than BPG_MAX_ENTRIES entries per chunk,
 * sizes past 32 bits, a target outside [0, nt) (the host builder decides
 * what that gives). The gather strategy's inverse too (a stable radix sort
 * of tgt carrying the index: per target its entries in chunk order). */
static int build_bplan_gpu(const feint_problem *p, cuda_data *d, int which, int cb, int ne, int want_lidx, int *done) {
  *done = 0;
  const feint_space *s = p->space;
  const int64_t n_cells = s->mesh->n_cells, n_chunks = (n_cells + cb - 1) / cb;
  const int64_t nt = which ? p->plan->nnz : s->n_scalar_dofs;
  const int n_ent = cb * ne;
  const int *tg = which ? d->d_slots : d->P.sdofs;
  if (d->bplan_host || !tg || n_ent > BPG_MAX_ENTRIES || n_cells < 1 || n_chunks * n_ent >= INT32_MAX ||
      nt >= INT32_MAX)
    return FEINT_OK;
  bplan &B = d->bp[which];
  const char *phase = which ? "block aggregation plan on the GPU (matrix)" : "block aggregation plan on the GPU (vector)";
  bpg_args A;
  A.tg = tg;
  A.ord = d->d_order;
  A.n_cells = n_cells;
  A.cb = cb;
  A.ne = ne;
  A.nt = (int)nt;
  int tb = 1; /* targets < 2^tb */
  while (tb < 31 && ((int64_t)1 << tb) <= nt) tb++;
  A.end_bit = 16 + tb;
  dev_scratch S;
  int *d_count = NULL, *d_info = NULL, *d_uptr = NULL;
  uint16_t *d_ient = NULL;
  FEINT_CALL(S.alloc(&d_count, (size_t)n_chunks + 1, phase));
  FEINT_CALL(S.alloc(&d_info, 2, phase));
  FEINT_CALL(S.alloc(&d_uptr, (size_t)n_chunks + 1, phase));
  FEINT_CALL(S.alloc(&d_ient, (size_t)(n_chunks * n_ent), phase));
  CUDA_CALL(phase, cudaMemset(d_count, 0, sizeof(int) * ((size_t)n_chunks + 1)));
  CUDA_CALL(phase, cudaMemset(d_info, 0, sizeof(int) * 2));
  const int small = n_ent <= BPG_THREADS * 4;
  if (small)
    bpg_sort_kernel<4><<<(unsigned)n_chunks, BPG_THREADS>>>(A, d_ient, d_count, d_info);
  else
    bpg_sort_kernel<16><<<(unsigned)n_chunks, BPG_THREADS>>>(A, d_ient, d_count, d_info);
  CUDA_LAUNCHED(phase);
  {
    size_t tmp_bytes = 0;
    char *tmp = NULL;
    CUDA_CALL(phase, cub::DeviceScan::InclusiveSum(NULL, tmp_bytes, d_count, d_uptr, (int)n_chunks + 1));
    FEINT_CALL(S.alloc(&tmp, tmp_bytes, phase));
    CUDA_CALL(phase, cub::DeviceScan::InclusiveSum(tmp, tmp_bytes, d_count, d_uptr, (int)n_chunks + 1));
  }
  int info[2] = {0, 0}, n_u = 0;
  CUDA_CALL(phase, feint_cuda_memcpy(info, d_info, sizeof info, cudaMemcpyDeviceToHost));
  CUDA_CALL(phase, feint_cuda_memcpy(&n_u, d_uptr + n_chunks, sizeof n_u, cudaMemcpyDeviceToHost));
  if (info[0]) return FEINT_OK; /* a target outside [0, nt): the host builder */
  int *d_tgt = NULL;
  uint16_t *d_iend = NULL;
  uint32_t *d_lidx = NULL;
  FEINT_CALL(S.alloc(&d_tgt, (size_t)n_u, phase));
  FEINT_CALL(S.alloc(&d_iend, (size_t)n_u + 1, phase)); /* the pad: the pipelined kernel copies whole 4-byte words */
  CUDA_CALL(phase, cudaMemset(d_iend, 0, sizeof(uint16_t) * ((size_t)n_u + 1)));
  if (want_lidx && info[1] <= 256) {
    FEINT_CALL(S.alloc(&d_lidx, (size_t)(n_chunks * cb), phase));
    CUDA_CALL(phase, cudaMemset(d_lidx, 0, sizeof(uint32_t) * (size_t)(n_chunks * cb)));
  }
  if (small)
    bpg_emit_kernel<4><<<(unsigned)n_chunks, BPG_THREADS>>>(A, d_ient, d_uptr, d_tgt, d_iend, d_lidx);
  else
    bpg_emit_kernel<16><<<(unsigned)n_chunks, BPG_THREADS>>>(A, d_ient, d_uptr, d_tgt, d_iend, d_lidx);
  CUDA_LAUNCHED(phase);
  int *d_gptr = NULL, *d_gent = NULL;
  char *d_part = NULL;
  if (p->strategy == FEINT_ASSEMBLY_GATHER) {
    int *d_gcnt = NULL, *d_iota = NULL;
    unsigned *d_ksorted = NULL;
    FEINT_CALL(S.alloc(&d_gcnt, (size_t)nt + 1, phase));
    FEINT_CALL(S.alloc(&d_gptr, (size_t)nt + 1, phase));
    FEINT_CALL(S.alloc(&d_gent, (size_t)n_u, phase));
    FEINT_CALL(S.alloc(&d_iota, (size_t)n_u, phase));
    FEINT_CALL(S.alloc(&d_ksorted, (size_t)n_u, phase));
    CUDA_CALL(phase, cudaMemset(d_gcnt, 0, sizeof(int) * ((size_t)nt + 1)));
    bpg_count_kernel<<<grid_capped(n_u), 256>>>(n_u, d_tgt, d_gcnt);
    CUDA_LAUNCHED(phase);
    bpg_iota_kernel<<<grid_capped(n_u), 256>>>(n_u, d_iota);
    CUDA_LAUNCHED(phase);
    size_t scan_bytes = 0, sort_bytes = 0;
    CUDA_CALL(phase, cub::DeviceScan::InclusiveSum(NULL, scan_bytes, d_gcnt, d_gptr, (int)nt + 1));
    CUDA_CALL(phase, cub::DeviceRadixSort::SortPairs(NULL, sort_bytes, (const unsigned *)d_tgt, d_ksorted,
                                                     (const int *)d_iota, d_gent, n_u, 0, tb));
    char *tmp = NULL;
    FEINT_CALL(S.alloc(&tmp, std::max(scan_bytes, sort_bytes), phase));
    CUDA_CALL(phase, cub::DeviceScan::InclusiveSum(tmp, scan_bytes, d_gcnt, d_gptr, (int)nt + 1));
    /* stable: within a target, the entries stay in chunk order */
    CUDA_CALL(phase, cub::DeviceRadixSort::SortPairs(tmp, sort_bytes, (const unsigned *)d_tgt, d_ksorted,
                                                     (const int *)d_iota, d_gent, n_u, 0, tb));
    FEINT_CALL(S.alloc(&d_part, d->rs * (size_t)n_u * (which ? 1 : s->components), phase));
  }
  CUDA_CALL(phase, cudaDeviceSynchronize());
  B.d_uptr = S.keep(d_uptr);
  B.d_tgt = S.keep(d_tgt);
  B.d_iend = S.keep(d_iend);
  B.d_ient = S.keep(d_ient);
  B.d_lidx = d_lidx ? S.keep(d_lidx) : NULL;
  B.n_u = n_u;
  if (p->strategy == FEINT_ASSEMBLY_GATHER) {
    B.d_gptr = S.keep(d_gptr);
    B.d_gent = S.keep(d_gent);
    B.d_part = (void *)S.keep(d_part);
    B.n_targets = nt;
  }
  *done = 1;
  return FEINT_OK;
}

/* The plan on the host (the reference builder): chunks in parallel
 * threads, then the uploads; for the gather strategy the target ->
 * partials map. */
static int build_bplan_host(const feint_problem *p, cuda_data *d, int which, int cb, int ne, int want_lidx) {
  const feint_space *s = p->space;
  const int64_t n_cells = s->mesh->n_cells;
  const int nb = s->nb;
  bplan &B = d->bp[which];
  const char *phase = which ? "block aggregation plan (matrix)" : "block aggregation plan (vector)";
  const int64_t n_chunks = (n_cells + cb - 1) / cb;
  const int64_t *sd = s->scalar_cell_dofs;
  if (which) FEINT_CALL(feint_plan_host_slots(p->plan));
  const int32_t *slots = which ? p->plan->slots : NULL;
  std::vector<uint16_t> ient((size_t)(n_chunks * cb * ne));
  std::vector<int> ucount((size_t)n_chunks + 1, 0);
  unsigned nth = std::thread::hardware_concurrency();
  if (nth < 1) nth = 1;
  if (nth > 32) nth = 32;
  if ((int64_t)nth > n_chunks) nth = (unsigned)n_chunks;
  std::vector<std::vector<int>> tg_t(nth);
  std::vector<std::vector<uint16_t>> ie_t(nth);
  const int *ord = NULL; /* chunk position -> mesh cell (NULL: mesh order) */
  FEINT_CALL(host_order(s, d, &ord));
  std::vector<uint32_t> lidx(want_lidx ? (size_t)(n_chunks * cb) : 0, 0);
  std::vector<int> lidx_over(nth, 0);
  auto work = [&](unsigned w) {
    const int64_t b0 = n_chunks * w / nth, b1 = n_chunks * (w + 1) / nth;
    std::vector<uint64_t> keys((size_t)cb * ne);
    for (int64_t b = b0; b < b1; b++) {
      const int64_t c0 = b * cb;
      const int n_here = (int)std::min<int64_t>(cb, n_cells - c0);
      int m = 0;
      for (int e = 0; e < ne; e++)
        for (int t = 0; t < n_here; t++) {
          const int64_t c = ord ? ord[c0 + t] : c0 + t;
          const uint64_t tg = which ? (uint64_t)slots[c * ne + e] : (uint64_t)sd[c * nb + e];
          keys[m++] = tg << 16 | (uint64_t)(e * cb + t);
        }
      std::sort(keys.begin(), keys.begin() + m);
      uint16_t *ie = ient.data() + (size_t)b * cb * ne;
      int nu = 0;
      for (int k = 0; k < m; k++) {
        const int tg = (int)(keys[k] >> 16);
        if (k && tg != (int)(keys[k - 1] >> 16)) ie_t[w].push_back((uint16_t)k);
        if (!k || tg != (int)(keys[k - 1] >> 16)) {
          tg_t[w].push_back(tg);
          nu++;
        }
        ie[k] = (uint16_t)(keys[k] & 0xffff);
        if (want_lidx) {
          const int pos = (int)(keys[k] & 0xffff), e = pos / cb, t = pos - e * cb;
          if (nu > 256)
            lidx_over[w] = 1;
          else
            lidx[(size_t)(c0 + t)] |= (uint32_t)(nu - 1) << (8 * e);
        }
      }
      if (m) ie_t[w].push_back((uint16_t)m);
      ucount[(size_t)b + 1] = nu;
    }
  };
  {
    std::vector<std::thread> th;
    for (unsigned w = 1; w < nth; w++) th.emplace_back(work, w);
    work(0);
    for (auto &x : th) x.join();
  }
  for (int64_t b = 0; b < n_chunks; b++) ucount[(size_t)b + 1] += ucount[(size_t)b];
  const int64_t n_u = ucount[(size_t)n_chunks];
  if (n_u > INT32_MAX) return feint_error_set(FEINT_ERR_COMPUTE, "%s: too many targets", phase);
  std::vector<int> tgt;
  std::vector<uint16_t> iend;
  tgt.reserve((size_t)n_u);
  iend.reserve((size_t)n_u);
  for (unsigned w = 0; w < nth; w++) {
    tgt.insert(tgt.end(), tg_t[w].begin(), tg_t[w].end());
    iend.insert(iend.end(), ie_t[w].begin(), ie_t[w].end());
    std::vector<int>().swap(tg_t[w]);
    std::vector<uint16_t>().swap(ie_t[w]);
  }
  FEINT_CALL(upload(&B.d_uptr, ucount.data(), (size_t)n_chunks + 1, phase));
  FEINT_CALL(upload(&B.d_tgt, tgt.data(), (size_t)n_u, phase));
  iend.push_back(0); /* a pad: the pipelined kernel copies whole 4-byte words of iend */
  FEINT_CALL(upload(&B.d_iend, iend.data(), iend.size(), phase));
  FEINT_CALL(upload(&B.d_ient, ient.data(), ient.size(), phase));
  if (want_lidx && std::find(lidx_over.begin(), lidx_over.end(), 1) == lidx_over.end())
    FEINT_CALL(upload(&B.d_lidx, lidx.data(), lidx.size(), phase));
  B.n_u = n_u;
  std::vector<uint16_t>().swap(ient);
  if (p->strategy == FEINT_ASSEMBLY_GATHER) {
    const int64_t nt = which ? p->plan->nnz : s->n_scalar_dofs;
    std::vector<int> ptr((size_t)nt + 1, 0), ent((size_t)n_u);
    for (int64_t k = 0; k < n_u; k++) ptr[(size_t)tgt[(size_t)k] + 1]++;
    for (int64_t r = 0; r < nt; r++) ptr[(size_t)r + 1] += ptr[(size_t)r];
    {
      std::vector<int> fill(ptr.begin(), ptr.end() - 1);
      for (int64_t k = 0; k < n_u; k++) ent[(size_t)fill[(size_t)tgt[(size_t)k]]++] = (int)k; /* chunk order */
    }
    FEINT_CALL(upload(&B.d_gptr, ptr.data(), ptr.size(), phase));
    FEINT_CALL(upload(&B.d_gent, ent.data(), ent.size(), phase));
    FEINT_CALL(dev_alloc(&B.d_part, d->rs * (size_t)n_u * (which ? 1 : s->components), phase));
    B.n_targets = nt;
  }
  return FEINT_OK;
}

/* Build the block-local aggregation plan `which` on first use: its arrays
 * on the GPU where that applies, else on the host; then, strategy colored,
 * the chunks sorted by colour (the colouring shared by both plans). */
static int build_bplan(const feint_problem *p, cuda_data *d, int which) {
  const auto t0 = std::chrono::steady_clock::now();
  const feint_space *s = p->space;
  const int64_t n_cells = s->mesh->n_cells;
  const int nb = s->nb, nbc = s->nbc;
  const int ne = which ? nbc * nbc : nb;
  const int cb = chunk_cells();
  bplan &B = d->bp[which];
  const char *phase = which ? "block aggregation plan (matrix)" : "block aggregation plan (vector)";
  if ((int64_t)cb * ne >= 65536) return feint_error_set(FEINT_ERR_COMPUTE, "%s: %d entries per cell", phase, ne);
  const int64_t n_chunks = (n_cells + cb - 1) / cb;
  /* vectors whose targets are the vertices: each cell's local vertex indices (shared gather) */
  const int want_lidx = !which && ne <= 4 && d->P.sd_cells && d->P.interleaved;
  int on_gpu = 0;
  FEINT_CALL(build_bplan_gpu(p, d, which, cb, ne, want_lidx, &on_gpu));
  if (!on_gpu) FEINT_CALL(build_bplan_host(p, d, which, cb, ne, want_lidx));
  B.on_gpu = on_gpu;
  B.ncomp = which ? 1 : s->components;
  B.V.cb = cb;
  B.V.ne = ne;
  B.V.n_chunks = (int)n_chunks;
  B.V.uptr = B.d_uptr;
  B.V.tgt = B.d_tgt;
  B.V.iend = B.d_iend;
  B.V.ient = B.d_ient;
  if (p->strategy == FEINT_ASSEMBLY_COLORED) {
    FEINT_CALL(chunk_colouring(s, d, cb, phase));
    const std::vector<int> color(d->chunk_color, d->chunk_color + d->chunk_color_n);
    std::vector<int> list;
    const int n_colors = d->chunk_colors;
    FEINT_CALL(feint_calloc((size_t)n_colors + 1, sizeof *B.color_ptr, &B.color_ptr, phase));
    sort_by_colour(color, n_colors, B.color_ptr, list);
    FEINT_CALL(upload(&B.d_chunks, list.data(), list.size(), phase));
    B.n_colors = n_colors;
  }
  CUDA_CALL(phase, cudaDeviceSynchronize());
  B.build_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  B.built = 1;
  return FEINT_OK;
}

/* ------------------------------------------------------------- launches */

/* The device time of what `launch` enqueues (CUDA events around it; the
 * launches' errors checked once after it) goes to d->last_ms; memsets and
 * transfers stay outside. */
template <typename L>
static int timed(cuda_data *d, const char *phase, L &&launch) {
  CUDA_CALL(phase, cudaEventRecord(d->ev0));
  launch();
  CUDA_LAUNCHED(phase);
  CUDA_CALL(phase, cudaEventRecord(d->ev1));
  CUDA_CALL(phase, cudaEventSynchronize(d->ev1));
  CUDA_CALL(phase, cudaEventElapsedTime(&d->last_ms, d->ev0, d->ev1));
  return FEINT_OK;
}

/* One kernel family's launches for the problem's strategy: atomic over all
 * cells; colored one launch per colour (first, count), in colour order;
 * gather into a buffer, then the deterministic reduction. */
template <typename IT, typename A, typename C, typename G>
static int by_strategy(cuda_data *d, const feint_problem *p, const char *phase, int n_colors, const IT *color_ptr,
                       A &&atomic, C &&colour, G &&gather) {
  return timed(d, phase, [&] {
    if (p->strategy == FEINT_ASSEMBLY_ATOMIC)
      atomic();
    else if (p->strategy == FEINT_ASSEMBLY_COLORED)
      for (int col = 0; col < n_colors; col++)
        colour((int64_t)color_ptr[col], (int64_t)(color_ptr[col + 1] - color_ptr[col]));
    else
      gather();
  });
}

/* Allow more than 48 KiB of dynamic shared memory where a launch needs it. */
static int shmem_attr(const void *k, size_t shmem, const char *phase) {
  if (shmem > FEINT_CUDA_SHMEM)
    CUDA_CALL(phase, cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shmem));
  return FEINT_OK;
}

/* out[r] = sum of the element buffer's entries of r (thread transposition's gather). */
static void launch_gather(const cuda_data *d, int64_t n, const int64_t *ptr, const int64_t *ent, const void *buf,
                          void *out) {
  if (d->single)
    gather_kernel<float><<<blocks_of(n), 256>>>(n, ptr, ent, (const float *)buf, (float *)out);
  else
    gather_kernel<double><<<blocks_of(n), 256>>>(n, ptr, ent, (const double *)buf, (double *)out);
}

/* out = each target's chunk partial sums, in chunk order (block gather). */
template <typename S>
static void launch_part_gather(const bplan &B, void *out) {
  const int nt = (int)B.n_targets;
  const S *part = (const S *)B.d_part;
  if (B.ncomp == 1)
    part_gather_kernel<1, S><<<blocks_of(nt), 256>>>(nt, B.d_gptr, B.d_gent, part, (S *)out);
  else if (B.ncomp == 2)
    part_gather_kernel<2, S><<<blocks_of(nt), 256>>>(nt, B.d_gptr, B.d_gent, part, (S *)out);
  else
    part_gather_kernel<3, S><<<blocks_of(nt), 256>>>(nt, B.d_gptr, B.d_gent, part, (S *)out);
}

/* Run the block-aggregation kernel `which` into out (n targets * ncomp,
 * zeroed by the caller), per strategy. */
static int launch_block(feint_backend *b, int which, int with_state, void *out, const char *phase) {
  cuda_data *d = (cuda_data *)b->data;
  const feint_problem *p = b->problem;
  if (!d->bp[which].built) FEINT_CALL(build_bplan(p, d, which));
  const bplan &B = d->bp[which];
  const kparams &P = which ? d->Pm : d->P;
  const p1tab &T = which ? d->Tm : d->T;
  bview V = B.V;
  V.lidx = d->variant == 3 ? NULL : B.d_lidx; /* the shared gather (off in variant 3) */
  /* residuals by the lean kernel where it applies (it needs the shared gather) */
  const int lean = !which && with_state && d->p1lean && V.lidx && d->variant == 0;
  if (!which) d->lean_last = lean;
  const blk_kernel_t k = lean ? d->p1lean : d->p1blk[which];
  if (lean && d->lean_pf > 0) { /* p1_lean_prefetch */
    V.pf_ahead = d->lean_pf;
    V.tpc = (float)((double)B.n_u / B.V.n_chunks);
    V.n_tgt = (int)B.n_u;
  }
  const size_t n_ent = (size_t)B.V.cb * B.V.ne;
  /* the pipelined Poisson kernel (launches over all chunks: not colored) */
  const int pipe = lean && d->lean_pipe && d->p1pipe && p->strategy != FEINT_ASSEMBLY_COLORED && B.V.cb == PIPE_CB;
  if (!which) d->pipe_last = pipe;
  if (pipe) {
    const size_t psh = sizeof(pipe_shared);
    const unsigned grid = (unsigned)std::min<int64_t>(B.V.n_chunks, d->pipe_grid);
    V.pf_ahead = 0;
    const blk_kernel_t k = d->p1pipe;
    return by_strategy(
        d, p, phase, 0, (const int *)NULL,
        [&] { k<<<grid, PIPE_CB, psh>>>(P, T, d->Vs, V, NULL, OUT_ATOMIC, with_state, d->d_u, out); },
        [&](int64_t, int64_t) {},
        [&] {
          k<<<grid, PIPE_CB, psh>>>(P, T, d->Vs, V, NULL, OUT_BUFFER, with_state, d->d_u, B.d_part);
          launch_part_gather<double>(B, out);
        });
  }
  /* entries, inverse map, and for the shared gather 256 vertices' records, u and node ids (entries,
   * records and u in the kernel's compute type) */
  const int sg = V.lidx && !(lean && d->lean_gather == LEAN_GLOBAL);
  const size_t rsz = lean ? (size_t)d->lean_real : sizeof(double);
  const size_t rw = lean ? (size_t)d->lean_rw : 4; /* records: rw values, u inside where rw > 4 */
  const size_t shmem = rsz * n_ent * B.ncomp + sizeof(uint16_t) * n_ent +
                       (sg ? 256 * (rsz * (rw + (rw == 4 ? B.ncomp : 0)) + sizeof(int)) : 0);
  const unsigned n_chunks = (unsigned)B.V.n_chunks, cb = (unsigned)B.V.cb;
  FEINT_CALL(shmem_attr((const void *)k, shmem, phase));
  return by_strategy(
      d, p, phase, B.n_colors, B.color_ptr,
      [&] { k<<<n_chunks, cb, shmem>>>(P, T, d->Vs, V, NULL, OUT_ATOMIC, with_state, d->d_u, out); },
      [&](int64_t first, int64_t n) {
        /* within a colour each target gets exactly one add, and colours run
         * in order: a fire-and-forget atomic (no load round trip) gives the
         * same bits as a plain add, so the result stays deterministic */
        k<<<(unsigned)n, cb, shmem>>>(P, T, d->Vs, V, B.d_chunks + first, OUT_ATOMIC, with_state, d->d_u,
                                      out);
      },
      [&] {
        k<<<n_chunks, cb, shmem>>>(P, T, d->Vs, V, NULL, OUT_BUFFER, with_state, d->d_u, B.d_part);
        d->single ? launch_part_gather<float>(B, out) : launch_part_gather<double>(B, out);
      });
}

/* Which kernels serve a call (which: 0 vectors, 1 matrices): block-local
 * aggregation (P1 default), for matrices without a block kernel
 * (elasticity) or in variant 2 the per-cell P1 matrix kernels, else thread
 * transposition. */
static int use_block(const cuda_data *d, const feint_problem *p, int which) {
  if (!d->p1blk[which] || d->variant == 1) return 0;
  return which ? p->plan && d->variant != 2 : d->P.interleaved;
}

static int use_percell_matrix(const cuda_data *d, const feint_problem *p) {
  return d->variant != 1 && !use_block(d, p, 1) && d->p1mat;
}

/* Integrate (and assemble) a vector into d->d_F (n_dofs), per strategy. */
static int launch_vector(feint_backend *b, int with_state) {
  cuda_data *d = (cuda_data *)b->data;
  const feint_problem *p = b->problem;
  const int64_t n_dofs = p->space->n_dofs;
  const char *phase = with_state ? "residual kernel" : "rhs kernel";
  d->lean_last = 0;
  CUDA_CALL(phase, cudaMemsetAsync(d->d_F, 0, d->rs * (size_t)n_dofs));
  if (use_block(d, p, 0)) return launch_block(b, 0, with_state, d->d_F, phase);
  kparams P = d->P;
  P.batch = d->res_batch;
  const size_t shmem = (size_t)(tables_size(P) + P.batch * res_cell_size(P)) * sizeof(double);
  const res_kernel_t k = pick_residual(d, P.dim, P.nc);
  const unsigned th = (unsigned)d->res_threads;
  FEINT_CALL(shmem_attr((const void *)k, shmem, phase));
  FEINT_CALL(build_coloring(p, d));
  if (p->strategy == FEINT_ASSEMBLY_GATHER) {
    FEINT_CALL(ensure_generic_gather(p, d, 0));
    FEINT_CALL(ensure_buffer(d, d->rs * (size_t)(P.n_cells * P.nbc), "element vector buffer"));
  }
  return by_strategy(
      d, p, phase, d->n_colors, d->color_ptr,
      [&] {
        k<<<grid_for(d, P.n_cells, P.batch), th, shmem>>>(P, NULL, P.n_cells, OUT_ATOMIC, with_state, d->d_u, d->d_F);
      },
      [&](int64_t first, int64_t n) {
        k<<<grid_for(d, n, P.batch), th, shmem>>>(P, d->d_color_cells + first, n, OUT_PLAIN, with_state, d->d_u,
                                                  d->d_F);
      },
      [&] {
        k<<<grid_for(d, P.n_cells, P.batch), th, shmem>>>(P, NULL, P.n_cells, OUT_BUFFER, with_state, d->d_u,
                                                          d->d_buf);
        launch_gather(d, n_dofs, d->d_vptr, d->d_vent, d->d_buf, d->d_F);
      });
}

static int cuda_residual(feint_backend *b, const double *u, double *F) {
  cuda_data *d = (cuda_data *)b->data;
  const size_t n = (size_t)b->problem->space->n_dofs;
  CUDA_CALL("residual: set device", cudaSetDevice(d->device));
  FEINT_CALL(to_device(d, d->d_u, u, n, "residual: copy of u to the GPU"));
  FEINT_CALL(launch_vector(b, 1));
  FEINT_CALL(from_device(d, F, d->d_F, n, "residual: copy of F from the GPU"));
  return FEINT_OK;
}

static int cuda_rhs(feint_backend *b, double *rhs) {
  cuda_data *d = (cuda_data *)b->data;
  const size_t n = (size_t)b->problem->space->n_dofs;
  CUDA_CALL("rhs: set device", cudaSetDevice(d->device));
  FEINT_CALL(launch_vector(b, 0));
  FEINT_CALL(from_device(d, rhs, d->d_F, n, "rhs: copy from the GPU"));
  return FEINT_OK;
}

static size_t mat_shmem(const kparams &P) {
  return (size_t)(tables_size(P) + P.batch * mat_cell_size(P)) * sizeof(double);
}

static int cuda_element_matrices(feint_backend *b, double *Ke) {
  cuda_data *d = (cuda_data *)b->data;
  kparams P = d->Pm;
  P.batch = d->mat_batch;
  const size_t nke = (size_t)P.n_cells * (size_t)P.nbc * (size_t)P.nbc;
  const char *phase = "element matrices kernel";
  CUDA_CALL("element matrices: set device", cudaSetDevice(d->device));
  FEINT_CALL(ensure_buffer(d, d->rs * nke, "element matrix buffer"));
  if (d->p1mat && d->variant != 1) {
    FEINT_CALL(timed(d, phase, [&] {
      d->p1mat<<<blocks_of(P.n_cells), 256>>>(P, d->Tm, d->Vo, 0, (int)P.n_cells, OUT_BUFFER, d->d_buf);
    }));
  } else {
    const mat_kernel_t k = pick_matrix(d, P.dim, P.nc);
    FEINT_CALL(shmem_attr((const void *)k, mat_shmem(P), phase));
    FEINT_CALL(timed(d, phase, [&] {
      k<<<grid_for(d, P.n_cells, P.batch), d->mat_threads, mat_shmem(P)>>>(P, NULL, P.n_cells, OUT_BUFFER, d->d_buf);
    }));
  }
  return from_device(d, Ke, d->d_buf, nke, "element matrices: copy from the GPU");
}

/* Assemble the CSR values into d->d_vals, per strategy. */
static int launch_matrix(feint_backend *b, const char *phase) {
  cuda_data *d = (cuda_data *)b->data;
  const feint_problem *p = b->problem;
  const int64_t nnz = p->plan->nnz;
  CUDA_CALL(phase, cudaMemsetAsync(d->d_vals, 0, d->rs * (size_t)nnz));
  if (use_block(d, p, 1)) return launch_block(b, 1, 0, d->d_vals, phase);
  kparams P = d->Pm;
  P.batch = d->mat_batch;
  FEINT_CALL(build_coloring(p, d));
  if (use_percell_matrix(d, p)) {
    const int n = (int)P.n_cells, nsd = (int)p->space->n_scalar_dofs;
    if (p->strategy == FEINT_ASSEMBLY_COLORED && !d->Vc.cells) FEINT_CALL(build_color_views(p, d));
    if (p->strategy == FEINT_ASSEMBLY_GATHER && !d->d_nptr) FEINT_CALL(build_node_map(p->space, d));
    return by_strategy(
        d, p, phase, d->n_colors, d->color_ptr,
        [&] { d->p1mat<<<blocks_of(n), 256>>>(P, d->Tm, d->Vo, 0, n, OUT_ATOMIC, d->d_vals); },
        [&](int64_t first, int64_t cnt) {
          d->p1mat<<<blocks_of(cnt), 256>>>(P, d->Tm, d->Vc, (int)first, (int)cnt, OUT_PLAIN, d->d_vals);
        },
        [&] { d->p1matg<<<blocks_of(nsd), 256>>>(P, d->Tm, d->Vo, nsd, d->d_nptr, d->d_nent, d->d_vals); });
  }
  const mat_kernel_t k = pick_matrix(d, P.dim, P.nc);
  const size_t shmem = mat_shmem(P);
  const unsigned th = (unsigned)d->mat_threads;
  FEINT_CALL(shmem_attr((const void *)k, shmem, phase));
  if (p->strategy == FEINT_ASSEMBLY_GATHER) {
    FEINT_CALL(ensure_generic_gather(p, d, 1));
    FEINT_CALL(ensure_buffer(d, d->rs * (size_t)P.n_cells * (size_t)P.nbc * (size_t)P.nbc,
                             "element matrix buffer (gather assembly)"));
  }
  return by_strategy(
      d, p, phase, d->n_colors, d->color_ptr,
      [&] { k<<<grid_for(d, P.n_cells, P.batch), th, shmem>>>(P, NULL, P.n_cells, OUT_ATOMIC, d->d_vals); },
      [&](int64_t first, int64_t n) {
        k<<<grid_for(d, n, P.batch), th, shmem>>>(P, d->d_color_cells + first, n, OUT_PLAIN, d->d_vals);
      },
      [&] {
        k<<<grid_for(d, P.n_cells, P.batch), th, shmem>>>(P, NULL, P.n_cells, OUT_BUFFER, d->d_buf);
        launch_gather(d, nnz, d->d_mptr, d->d_ment, d->d_buf, d->d_vals);
      });
}

static int cuda_assemble_matrix(feint_backend *b, double *values) {
  cuda_data *d = (cuda_data *)b->data;
  const feint_problem *p = b->problem;
  if (!p->plan) return feint_error_set(FEINT_ERR_COMPUTE, "assembly needs a plan (CSR pattern)");
  CUDA_CALL("matrix assembly: set device", cudaSetDevice(d->device));
  FEINT_CALL(launch_matrix(b, "matrix assembly kernel"));
  return from_device(d, values, d->d_vals, (size_t)p->plan->nnz, "matrix assembly: copy from the GPU");
}

extern "C" int feint_cuda_device_count(void) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError(); /* clear: no driver or no device is not an error here */
    return 0;
  }
  return n;
}

/* The form's coefficient fields: constants into the kernel parameters
 * d->P, per-cell and nodal values into the device arrays d_aux (allocated
 * on first use: a sweep member's values go into the old ones). */
static int load_coefficients(cuda_data *d, const feint_space *s, const feint_form *f) {
  kparams &P = d->P;
  P.n_nodal = 0;
  for (int k = 0; k < f->n_aux; k++) {
    const feint_field *fld = &f->aux[k];
    P.aux_kind[k] = (int)fld->kind;
    P.aux_nodal[k] = -1;
    if (fld->kind == FEINT_FIELD_CONSTANT) {
      P.aux_const[k] = fld->constant;
      continue;
    }
    const char *phase = "upload of the coefficient fields";
    const size_t n = fld->kind == FEINT_FIELD_CELL ? (size_t)s->mesh->n_cells : (size_t)s->n_scalar_dofs;
    if (!d->d_aux[k]) FEINT_CALL(dev_alloc(&d->d_aux[k], n * d->rs, phase));
    FEINT_CALL(to_device(d, d->d_aux[k], fld->values, n, phase));
    P.aux_vals[k] = d->d_aux[k];
    if (fld->kind == FEINT_FIELD_NODE) P.aux_nodal[k] = P.n_nodal++;
  }
  return FEINT_OK;
}

/* P1: the packed node records (x, y, z, the nodal coefficient d->P.wa or
 * 0), one 32-byte sector (double) or 16-byte vector (single) per vertex
 * (the same speed as separate arrays, NOTES.md v4, with half the loads);
 * allocated on first use. */
/* The vector cell dof map from the scalar one, components interleaved
 * (feint_space_expand_components' layout). */
__global__ void expand_components_kernel(int64_t n_entries, int nc, const int *__restrict__ sdofs,
                                         int *__restrict__ cdofs) {
  for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < n_entries;
       e += (int64_t)gridDim.x * blockDim.x)
    for (int k = 0; k < nc; k++) cdofs[e * nc + k] = sdofs[e] < 0 ? -1 : sdofs[e] * nc + k;
}

template <typename S>
__global__ void pack_node_records_kernel(int64_t nn, const S *__restrict__ x, const S *__restrict__ y,
                                         const S *__restrict__ z, const S *__restrict__ w, int64_t nw,
                                         S *__restrict__ rec) {
  for (int64_t v = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; v < nn; v += (int64_t)gridDim.x * blockDim.x) {
    rec[4 * v] = x[v];
    rec[4 * v + 1] = y[v];
    rec[4 * v + 2] = z ? z[v] : (S)0;
    rec[4 * v + 3] = w && v < nw ? w[v] : (S)0;
  }
}

/* Packed on the device from the coordinates and the coefficient already
 * there (the host loop and its upload took 19 ms of a 1M-node setup). */
static int load_node_records(cuda_data *d, const feint_space *s) {
  const char *phase = "packed node records";
  const int64_t nn = s->mesh->n_nodes;
  const int wa = d->P.wa;
  if (!d->d_xyzw) FEINT_CALL(dev_alloc(&d->d_xyzw, 4 * (size_t)nn * d->rs, phase));
  const void *w = wa >= 0 ? d->d_aux[wa] : NULL;
  const int64_t nw = wa >= 0 ? s->n_scalar_dofs : 0;
  const unsigned grid = (unsigned)std::min<int64_t>((nn + 255) / 256 > 0 ? (nn + 255) / 256 : 1, 1 << 20);
  if (d->single)
    pack_node_records_kernel<float><<<grid, 256>>>(nn, (const float *)d->d_x, (const float *)d->d_y,
                                                   (const float *)d->d_z, (const float *)w, nw, (float *)d->d_xyzw);
  else
    pack_node_records_kernel<double><<<grid, 256>>>(nn, (const double *)d->d_x, (const double *)d->d_y,
                                                    (const double *)d->d_z, (const double *)w, nw,
                                                    (double *)d->d_xyzw);
  CUDA_CALL(phase, cudaGetLastError());
  return FEINT_OK;
}

/* update_form: a sweep member's form of the same layout (checked by
 * feint_backend_update_form) on the same space, plan and settings. Its
 * values go where create_data put the old ones: constants into the kernel
 * parameters of both rules, per-cell and nodal fields into d_aux and into
 * their copies (the packed node records, the curve-ordered and
 * colour-sorted views). The mesh, dof maps, plan, colourings, block plans,
 * tables and buffers stay; the kernels chosen stay right, as they depend on
 * the fields' kinds only. */
static int cuda_update_form(feint_backend *b, const feint_form *f) {
  cuda_data *d = (cuda_data *)b->data;
  const feint_space *s = b->problem->space;
  CUDA_CALL("update of the form: set device", cudaSetDevice(d->device));
  FEINT_CALL(load_coefficients(d, s, f));
  memcpy(d->Pm.aux_const, d->P.aux_const, sizeof d->P.aux_const);
  if (d->d_xyzw) FEINT_CALL(load_node_records(d, s));
  if (d->d_order) FEINT_CALL(view_coefficients(d, d->d_order, "update of the curve-ordered cell data", &d->as, &d->Vs));
  if (d->Vc.cells)
    FEINT_CALL(view_coefficients(d, d->d_color_cells, "update of the colour-sorted cell data", &d->ac, &d->Vc));
  CUDA_CALL("update of the form", cudaDeviceSynchronize());
  return FEINT_OK;
}

/* Close the setup step that began at d->step_t0 under `name` (after a
 * device synchronisation, so that uploads count where they are made). */
static void setup_step(cuda_data *d, const char *name) {
  cudaDeviceSynchronize();
  const double t = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  if (d->step_t0 > 0) {
    const size_t used = strlen(d->setup_steps);
    snprintf(d->setup_steps + used, sizeof d->setup_steps - used, "%s%s %.1f ms", used ? ", " : "", name,
             1e3 * (t - d->step_t0));
  }
  d->step_t0 = t;
}

static int create_data(const feint_problem *p, int device_index, feint_backend *b, cuda_data *d) {
  const feint_space *s = p->space;
  const feint_mesh *m = s->mesh;
  const feint_form *f = p->form;
  int dev;
  setup_step(d, "start");
  d->host_reference = host_reference_next;
  FEINT_CALL(feint_cuda_device_select(device_index, &dev));
  d->device = dev;
  CUDA_CALL("CUDA device selection", cudaSetDevice(dev));
  cudaDeviceProp prop;
  CUDA_CALL("CUDA device properties", cudaGetDeviceProperties(&prop, dev));
  {
    char name[160];
    snprintf(name, sizeof name, "%.150s", prop.name);
    snprintf(b->device, sizeof b->device, "%s (CUDA device %d, sm_%d%d, %.1f GiB)", name, dev % 1000,
             prop.major % 100, prop.minor % 100, (double)prop.totalGlobalMem / (1024.0 * 1024.0 * 1024.0));
  }
  d->sm_count = prop.multiProcessorCount;
  d->single = p->precision == FEINT_PRECISION_SINGLE;
  d->rs = d->single ? sizeof(float) : sizeof(double);
  if (f->n_aux > FEINT_CUDA_MAX_AUX)
    return feint_error_set(FEINT_ERR_INPUT, "%d coefficient fields exceed the CUDA backend's limit of %d",
                           f->n_aux, FEINT_CUDA_MAX_AUX);
  if (m->dim != 2 && m->dim != 3)
    return feint_error_set(FEINT_ERR_INPUT, "the CUDA backend supports 2D and 3D meshes, not %dD", m->dim);
  if (s->components < 1 || s->components > 3)
    return feint_error_set(FEINT_ERR_INPUT, "the CUDA backend supports 1..3 components, not %d", s->components);
  CUDA_CALL("CUDA events", cudaEventCreate(&d->ev0));
  CUDA_CALL("CUDA events", cudaEventCreate(&d->ev1));

  kparams &P = d->P;
  memset(&P, 0, sizeof P);
  P.wa = -1;
  P.dim = m->dim;
  P.nc = s->components;
  P.nb = s->nb;
  P.nbc = s->nbc;
  P.nq = f->quadrature->n;
  P.nv = m->nv;
  P.physics = f->physics;
  P.terms = feint_physics_jacobian_terms(f->physics);
  P.n_aux = f->n_aux;
  P.n_cells = m->n_cells;
  const int64_t nc = m->n_cells;
  setup_step(d, "device");
  const char *up = "upload of the mesh and space";
  FEINT_CALL(upload_real(d, &d->d_x, m->x, (size_t)m->n_nodes, up));
  FEINT_CALL(upload_real(d, &d->d_y, m->y, (size_t)m->n_nodes, up));
  FEINT_CALL(upload_real(d, &d->d_z, m->z, (size_t)m->n_nodes, up));
  /* a plan built on this device holds the scalar cell dofs there already
   * (plan.h device_sdofs): read in place, the plan frees them */
  int here = -1;
  CUDA_CALL("CUDA device", cudaGetDevice(&here));
  const feint_plan *pl = p->plan;
  const int *plan_sdofs = pl && pl->device == here ? (const int *)pl->device_sdofs : NULL;
  if (plan_sdofs && s->scalar_cell_dofs == m->cells)
    d->d_cells = (int *)plan_sdofs, d->cells_borrowed = 1;
  else
    FEINT_CALL(upload_index32(&d->d_cells, m->cells, (size_t)(nc * m->nv), up));
  if (s->components == 1)
    d->d_sdofs = NULL;
  else if (s->scalar_cell_dofs == m->cells)
    d->d_sdofs = d->d_cells, d->sdofs_shared = 1;
  else if (plan_sdofs)
    d->d_sdofs = (int *)plan_sdofs, d->sdofs_shared = 1;
  else
    FEINT_CALL(upload_index32(&d->d_sdofs, s->scalar_cell_dofs, (size_t)(nc * s->nb), up));
  if (s->cell_dofs == m->cells) { /* P1 scalar on the connectivity: one array on the device */
    d->d_cdofs = d->d_cells, d->cdofs_shared = 1;
  } else if (s->cell_dofs == s->scalar_cell_dofs && plan_sdofs) {
    d->d_cdofs = (int *)plan_sdofs, d->cdofs_shared = 1;
  } else if (s->components > 1 && s->components_interleaved && s->n_dofs < INT32_MAX) {
    /* dof * components + k from the scalar map already there (a vector
     * map uploaded took 120 ms of a 6M-cell elasticity setup) */
    const int64_t ne = nc * s->nb;
    FEINT_CALL(dev_alloc((void **)&d->d_cdofs, sizeof(int) * (size_t)(ne * s->components), up));
    expand_components_kernel<<<blocks_of(ne), 256>>>(ne, s->components, d->d_sdofs, d->d_cdofs);
    CUDA_CALL(up, cudaGetLastError());
  } else {
    FEINT_CALL(upload_index32(&d->d_cdofs, s->cell_dofs, (size_t)(nc * s->nbc), up));
  }
  P.x = d->d_x;
  P.y = d->d_y;
  P.z = d->d_z;
  P.cells = d->d_cells;
  P.cell_dofs = d->d_cdofs;
  P.sdofs = s->components == 1 ? d->d_cdofs : d->d_sdofs;
  const char *uf = "upload of the form";
  const int nqb = P.nq * P.nb;
  FEINT_CALL(upload(&d->d_basis, f->basis, (size_t)nqb, uf));
  FEINT_CALL(upload(&d->d_bgrad, f->basis_grad, (size_t)(nqb * P.dim), uf));
  FEINT_CALL(upload(&d->d_w, f->quadrature->weights, (size_t)P.nq, uf));
  P.basis = d->d_basis;
  P.basis_grad = d->d_bgrad;
  P.weights = d->d_w;
  FEINT_CALL(load_coefficients(d, s, f));
  setup_step(d, "mesh, space and form upload");
  FEINT_CALL(dev_alloc(&d->d_u, d->rs * (size_t)s->n_dofs, "allocation of the state u"));
  FEINT_CALL(dev_alloc(&d->d_F, d->rs * (size_t)s->n_dofs, "allocation of the residual"));
  if (pl) {
    const char *upl = "upload of the plan (CSR pattern and slot map)";
    if (pl->device_indptr && pl->device_indices && pl->device == here) { /* built here: read in place */
      d->d_indptr = (int64_t *)pl->device_indptr;
      d->d_indices = (int *)pl->device_indices;
      d->pattern_borrowed = 1;
    } else {
      FEINT_CALL(upload(&d->d_indptr, pl->indptr, (size_t)pl->n_rows + 1, upl));
      FEINT_CALL(upload(&d->d_indices, pl->indices, (size_t)pl->nnz, upl));
    }
    if (pl->device_slots && pl->device == here) { /* built here: read in place (the plan frees it) */
      d->d_slots = (int *)pl->device_slots;
      d->slots_borrowed = 1;
    } else {
      FEINT_CALL(feint_plan_host_slots(pl));
      FEINT_CALL(upload(&d->d_slots, pl->slots, (size_t)(pl->n_cells * pl->nbc * pl->nbc), upl));
    }
    FEINT_CALL(dev_alloc(&d->d_vals, d->rs * (size_t)pl->nnz, "allocation of the CSR values"));
    P.slots = d->d_slots;
  }
  d->Pm.slots = P.slots;
  d->Vo.slots = P.slots;
  setup_step(d, "plan upload");
  /* layout flags: P1 scalar dofs are often the vertices themselves, and
   * vector dofs interleaved; then the kernels read the vertex list only */
  {
    /* (a P1 space that borrows the connectivity is the same array: no pass) */
    int sdc = s->nb == m->nv, il = 1;
    if (s->scalar_cell_dofs != m->cells)
      for (int64_t k = 0; sdc && k < nc * s->nb; k++) sdc = s->scalar_cell_dofs[k] == m->cells[k];
    for (int64_t c = 0; il && s->components > 1 && !s->components_interleaved && c < nc; c++)
      for (int i = 0; i < s->nb && il; i++)
        for (int cc = 0; cc < s->components; cc++)
          il &= s->cell_dofs[c * s->nbc + i * s->components + cc] ==
                s->components * s->scalar_cell_dofs[c * s->nb + i] + cc;
    P.sd_cells = sdc;
    P.interleaved = il;
  }
  /* the matrix rule (lower degree than the vectors' where the form says so) */
  d->Pm = P;
  if (f->matrix_quadrature) {
    const int mq = f->matrix_quadrature->n;
    FEINT_CALL(upload(&d->d_mbasis, f->matrix_basis, (size_t)(mq * P.nb), uf));
    FEINT_CALL(upload(&d->d_mbgrad, f->matrix_basis_grad, (size_t)(mq * P.nb * P.dim), uf));
    FEINT_CALL(upload(&d->d_mw, f->matrix_quadrature->weights, (size_t)mq, uf));
    d->Pm.nq = mq;
    d->Pm.basis = d->d_mbasis;
    d->Pm.basis_grad = d->d_mbgrad;
    d->Pm.weights = d->d_mw;
  }
  /* P1 one-thread-per-cell kernels */
  if (s->nb == P.dim + 1 && P.nv == P.dim + 1 && (P.dim != 3 || P.nv == 4) &&
      fill_p1tab(&d->T, P.nq, P.nb, P.dim, f->quadrature->weights, f->basis, f->basis_grad) &&
      fill_p1tab(&d->Tm, d->Pm.nq, P.nb, P.dim, f->matrix_quadrature ? f->matrix_quadrature->weights : f->quadrature->weights,
                 f->matrix_quadrature ? f->matrix_basis : f->basis,
                 f->matrix_quadrature ? f->matrix_basis_grad : f->basis_grad) &&
      f->n_aux == p1_naux(P.physics, P.dim, P.nc) && nc * 4 < INT32_MAX && nc * P.nbc * P.nbc < INT32_MAX) {
    if (P.dim == 2)
      d->single ? pick_p1_dim<2, float>(d, P.nc, P.physics) : pick_p1_dim<2, double>(d, P.nc, P.physics);
    else
      d->single ? pick_p1_dim<3, float>(d, P.nc, P.physics) : pick_p1_dim<3, double>(d, P.nc, P.physics);
  }
  setup_step(d, "layout check");
  /* P1: packed node records (x, y, z, first nodal coefficient) */
  P.wa = -1;
  {
    if (d->p1blk[0]) {
      for (int k = 0; k < f->n_aux && P.wa < 0; k++)
        if (f->aux[k].kind == FEINT_FIELD_NODE && P.sd_cells) P.wa = k;
      FEINT_CALL(load_node_records(d, s));
      P.xyzw = d->d_xyzw;
    }
    d->Pm.xyzw = P.xyzw;
    d->Pm.wa = P.wa;
  }
  d->p1lean = pick_lean(d, p, &d->lean_gather, &d->lean_real, &d->lean_rw, &d->lean_pf);
  {
    const char *pe = getenv("FEINT_CUDA_LEAN_PIPE");
    d->lean_pipe = !(pe && !strcmp(pe, "0"));
    d->p1pipe = NULL;
    if (d->p1lean && !d->single && P.physics == FEINT_PW_POISSON && P.nc == 1) {
      const int ka = (int)p->form->aux[0].kind;
      d->p1pipe = ka == 0 ? p1_lean_pipe_kernel<0> : ka == 1 ? p1_lean_pipe_kernel<1> : p1_lean_pipe_kernel<2>;
      const char *phase = "pipelined residual kernel";
      FEINT_CALL(shmem_attr((const void *)d->p1pipe, sizeof(pipe_shared), phase));
      int per_sm = 0;
      CUDA_CALL(phase, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, d->p1pipe, PIPE_CB, sizeof(pipe_shared)));
      d->pipe_grid = std::max(1, per_sm) * d->sm_count;
      const char *pg = getenv("FEINT_CUDA_LEAN_PIPE_GRID"); /* tests: fewer blocks, each looping over more chunks */
      if (pg && atoi(pg) > 0) d->pipe_grid = std::min(d->pipe_grid, atoi(pg));
    }
  }
  d->Vo.cells = P.cells;
  d->Vo.sdofs = P.sdofs;
  d->Vo.cdofs = P.cell_dofs;
  d->Vo.slots = P.slots;
  for (int k = 0; k < f->n_aux; k++) d->Vo.caux[k] = P.aux_vals[k];
  d->Vs = d->Vo;
  /* matrix coefficient block per (cell, q) */
  P.gq = ((P.terms & 1) ? P.nc * P.nc : 0) + ((P.terms & 2) ? P.nc * P.nc * P.dim : 0) +
         ((P.terms & 8) ? P.nc * P.nc * P.dim * P.dim : 0);
  if (P.gq == 0) P.gq = 1;
  d->bpc = p->batches_per_chunk > 0 ? p->batches_per_chunk : 4;
  const long optin = (long)prop.sharedMemPerBlockOptin;
  d->res_batch = choose_batch(P, res_cell_size(P), p->blocks_per_batch, 128, optin);
  d->Pm.gq = P.gq;
  d->mat_batch = choose_batch(d->Pm, mat_cell_size(d->Pm), p->blocks_per_batch, 64, optin);
  d->res_threads = 128;
  d->mat_threads = 256;
  if ((long)(tables_size(P) + res_cell_size(P)) * 8 > optin ||
      (long)(tables_size(d->Pm) + mat_cell_size(d->Pm)) * 8 > optin)
    return feint_error_set(FEINT_ERR_INPUT,
                           "element too large for the CUDA kernels' shared memory (%d basis functions, %d "
                           "quadrature points)",
                           P.nbc, P.nq);
  /* strategy structures (the gather maps and the colour-sorted views are
   * built on first use) */
  setup_step(d, "node records and kernel choice");
  /* P1 kernels visit the cells along a space-filling curve where that
   * order is the better one (FEINT_CUDA_ORDER=0: mesh order, 1: curve
   * order, for comparisons) */
  {
    const char *ord = getenv("FEINT_CUDA_ORDER");
    if (d->p1blk[0] && !(ord && !strcmp(ord, "0"))) FEINT_CALL(build_cell_order(s, ord && !strcmp(ord, "1"), d));
  }
  CUDA_CALL("upload", cudaDeviceSynchronize());
  setup_step(d, "cell order");
  return FEINT_OK;
}

static double cuda_last_kernel_ms(feint_backend *b) { return ((const cuda_data *)b->data)->last_ms; }

extern "C" int feint_backend_cuda_create(const feint_problem *p, int device_index, feint_backend **out) {
  *out = NULL;
  FEINT_CALL(feint_backend_cuda_check_cells(p)); /* quadrilaterals, hexahedra, tets above order 2: cpu only */
  feint_backend *b = NULL;
  cuda_data *d = NULL;
  FEINT_CALL(feint_calloc(1, sizeof *b, &b, "backend"));
  int status = feint_calloc(1, sizeof *d, &d, "backend");
  if (status) {
    free(b);
    return status;
  }
  b->data = d;
  b->destroy = cuda_destroy;
  b->name = "cuda";
  b->problem = p;
  b->residual = cuda_residual;
  b->rhs = cuda_rhs;
  b->element_matrices = cuda_element_matrices;
  b->assemble_matrix = cuda_assemble_matrix;
  b->last_kernel_ms = cuda_last_kernel_ms;
  b->update_form = cuda_update_form;
  if ((status = create_data(p, device_index, b, d))) {
    cuda_destroy(b);
    return status;
  }
  *out = b;
  return FEINT_OK;
}

/* ----------------------------------------------------------- timing API */

/* The hooks below read this backend's own state: not the element-matrix
 * backend's, which is also named "cuda" (src/backend/elmat_backend.c). */
static int check_fused(const feint_backend *b) {
  if (!b || b->destroy != cuda_destroy)
    return feint_error_set(FEINT_ERR_INPUT, "not the cuda backend's fused kernels");
  return FEINT_OK;
}

extern "C" int feint_cuda_info(const feint_backend *b, feint_cuda_stats *st) {
  memset(st, 0, sizeof *st);
  FEINT_CALL(check_fused(b));
  const cuda_data *d = (const cuda_data *)b->data;
  st->last_kernel_ms = d->last_ms;
  /* the colouring that ran: of cells, else of the block kernels' chunks */
  st->n_colors = d->n_colors ? d->n_colors : std::max(d->bp[0].n_colors, d->bp[1].n_colors);
  st->residual_batch = d->res_batch;
  st->matrix_batch = d->mat_batch;
  st->batches_per_chunk = d->bpc;
  st->block_vector = use_block(d, b->problem, 0);
  st->block_matrix = use_block(d, b->problem, 1);
  st->p1_residual = st->block_vector;
  st->p1_matrix = st->block_matrix || use_percell_matrix(d, b->problem);
  st->curve_order = d->d_order != NULL;
  st->order_on_gpu = d->order_on_gpu;
  st->colouring_on_gpu = d->colouring_on_gpu;
  st->order_colors[0] = d->order_colors[0];
  st->order_colors[1] = d->order_colors[1];
  for (int k = 0; k < 2; k++)
    st->block_targets[k] = d->bp[k].built ? (double)d->bp[k].n_u / d->bp[k].V.n_chunks : 0;
  st->block_cells = d->bp[0].built ? d->bp[0].V.cb : d->bp[1].V.cb;
  st->block_colors_vector = d->bp[0].n_colors;
  st->block_colors_matrix = d->bp[1].n_colors;
  st->block_build_ms = d->bp[0].build_ms + d->bp[1].build_ms;
  st->lean_residual = d->lean_last;
  st->lean_real = d->lean_last ? d->lean_real : 0;
  st->lean_prefetch = d->lean_last && !d->pipe_last ? d->lean_pf : 0; /* the pipelined kernel fetches its own */
  st->lean_pipe = d->lean_last && d->pipe_last;
  snprintf(st->setup_steps, sizeof st->setup_steps, "%s", d->setup_steps);
  return FEINT_OK;
}

extern "C" int feint_cuda_set_variant(feint_backend *b, int variant) {
  FEINT_CALL(check_fused(b));
  if (variant < 0 || variant > 3) return feint_error_set(FEINT_ERR_INPUT, "CUDA kernel variant %d (0..3)", variant);
  ((cuda_data *)b->data)->variant = variant;
  return FEINT_OK;
}

extern "C" void feint_cuda_set_host_reference(int host) { host_reference_next = host != 0; }

extern "C" int feint_cuda_set_bplan_host(feint_backend *b, int host) {
  FEINT_CALL(check_fused(b));
  ((cuda_data *)b->data)->bplan_host = host != 0;
  return FEINT_OK;
}

template <typename T>
static int download_copy(T **dst, const T *src, size_t n, const char *phase) {
  *dst = NULL;
  if (!src) return FEINT_OK;
  FEINT_CALL(feint_malloc(n ? n : 1, sizeof(T), dst, phase));
  if (n) CUDA_CALL(phase, feint_cuda_memcpy(*dst, src, n * sizeof(T), cudaMemcpyDeviceToHost));
  return FEINT_OK;
}

extern "C" void feint_cuda_bplan_free(feint_cuda_bplan *pl) {
  void *ptrs[] = {pl->uptr, pl->tgt, pl->iend, pl->ient, pl->lidx, pl->color_ptr, pl->chunks, pl->gptr, pl->gent};
  for (size_t k = 0; k < sizeof ptrs / sizeof ptrs[0]; k++) free(ptrs[k]);
  memset(pl, 0, sizeof *pl);
}

extern "C" int feint_cuda_bplan_get(feint_backend *b, int which, feint_cuda_bplan *out) {
  memset(out, 0, sizeof *out);
  FEINT_CALL(check_fused(b));
  cuda_data *d = (cuda_data *)b->data;
  const feint_problem *p = b->problem;
  const char *phase = "block plan download (test hook)";
  if (which < 0 || which > 1 || !d->p1blk[which] || (which && !p->plan))
    return feint_error_set(FEINT_ERR_INPUT, "%s: no block kernel for the %s", phase, which ? "matrix" : "vectors");
  CUDA_CALL(phase, cudaSetDevice(d->device));
  if (!d->bp[which].built) FEINT_CALL(build_bplan(p, d, which));
  const bplan &B = d->bp[which];
  out->built_on_gpu = B.on_gpu;
  out->cb = B.V.cb;
  out->ne = B.V.ne;
  out->n_chunks = B.V.n_chunks;
  out->ncomp = B.ncomp;
  out->n_u = B.n_u;
  out->n_colors = B.n_colors;
  out->n_targets = B.n_targets;
  out->build_ms = B.build_ms;
  const size_t nch = (size_t)B.V.n_chunks, nu = (size_t)B.n_u;
  int st = FEINT_OK;
  if ((st = download_copy(&out->uptr, B.d_uptr, nch + 1, phase)) ||
      (st = download_copy(&out->tgt, B.d_tgt, nu, phase)) ||
      (st = download_copy(&out->iend, B.d_iend, nu + 1, phase)) ||
      (st = download_copy(&out->ient, B.d_ient, nch * B.V.cb * B.V.ne, phase)) ||
      (st = download_copy(&out->lidx, B.d_lidx, nch * B.V.cb, phase)) ||
      (st = download_copy(&out->chunks, B.d_chunks, B.d_chunks ? nch : 0, phase)) ||
      (st = download_copy(&out->gptr, B.d_gptr, (size_t)B.n_targets + 1, phase)) ||
      (st = download_copy(&out->gent, B.d_gent, nu, phase))) {
    feint_cuda_bplan_free(out);
    return st;
  }
  if (B.color_ptr) {
    if ((st = feint_malloc((size_t)B.n_colors + 1, sizeof(int), &out->color_ptr, phase))) {
      feint_cuda_bplan_free(out);
      return st;
    }
    memcpy(out->color_ptr, B.color_ptr, sizeof(int) * ((size_t)B.n_colors + 1));
  }
  return FEINT_OK;
}

static int cmp_float(const void *a, const void *b) {
  const float x = *(const float *)a, y = *(const float *)b;
  return (x > y) - (x < y);
}

/* The paper's kernel on pre-gathered per-cell arrays (P1 Poisson, constant
 * source): builds the arrays on the GPU from u (timed: prep_ms), runs the
 * kernel `reps` times (median: kernel_ms), then, for checking only, adds
 * the element vectors into F (atomics, untimed) and copies F back. */
extern "C" int feint_cuda_paper_residual(feint_backend *b, const double *u, double *F, int reps,
                                         feint_cuda_paper_stats *st) {
  memset(st, 0, sizeof *st);
  FEINT_CALL(check_fused(b));
  cuda_data *d = (cuda_data *)b->data;
  const feint_problem *p = b->problem;
  const kparams &P = d->P;
  if (d->single) return feint_error_set(FEINT_ERR_INPUT, "the paper kernel is double precision only");
  if (P.physics != FEINT_PW_POISSON || P.nc != 1 || !d->p1blk[0] || p->form->aux[1].kind != FEINT_FIELD_CONSTANT)
    return feint_error_set(FEINT_ERR_INPUT, "the paper kernel needs P1 Poisson with a constant source");
  const int n = (int)P.n_cells, dim = P.dim, nb = dim + 1;
  const int in_w = dim == 3 ? paper_layout<3>::IN : paper_layout<2>::IN;
  const char *phase = "paper kernel";
  double *in = NULL, *ev = NULL;
  CUDA_CALL(phase, cudaSetDevice(d->device));
  FEINT_CALL(dev_alloc((void **)&in, sizeof(double) * (size_t)n * in_w, phase));
  int status = dev_alloc((void **)&ev, sizeof(double) * (size_t)n * nb, phase);
  float t[64];
  if (reps > 64) reps = 64;
  if (reps < 1) reps = 1;
  if (status) goto done;
#define PAPER_TRY(call)                                   \
  do {                                                    \
    cudaError_t e_ = (call);                              \
    if (e_ != cudaSuccess) {                              \
      status = cuda_fail(e_, phase);                      \
      goto done;                                          \
    }                                                     \
  } while (0)
  PAPER_TRY(feint_cuda_memcpy(d->d_u, u, sizeof(double) * (size_t)p->space->n_dofs, cudaMemcpyHostToDevice));
  for (int r = 0; r < 2; r++) { /* first: warm-up */
    PAPER_TRY(cudaEventRecord(d->ev0));
    if (dim == 3)
      paper_prep_kernel<3><<<blocks_of(n), 256>>>(P, d->T, n, (const double *)d->d_u, in);
    else
      paper_prep_kernel<2><<<blocks_of(n), 256>>>(P, d->T, n, (const double *)d->d_u, in);
    PAPER_TRY(cudaGetLastError());
    PAPER_TRY(cudaEventRecord(d->ev1));
    PAPER_TRY(cudaEventSynchronize(d->ev1));
    PAPER_TRY(cudaEventElapsedTime(&t[0], d->ev0, d->ev1));
  }
  st->prep_ms = t[0];
  for (int r = 0; r <= reps; r++) {
    PAPER_TRY(cudaEventRecord(d->ev0));
    if (dim == 3)
      paper_kernel<3><<<blocks_of(n), 256>>>(d->T, n, p->form->aux[1].constant, in, ev);
    else
      paper_kernel<2><<<blocks_of(n), 256>>>(d->T, n, p->form->aux[1].constant, in, ev);
    PAPER_TRY(cudaGetLastError());
    PAPER_TRY(cudaEventRecord(d->ev1));
    PAPER_TRY(cudaEventSynchronize(d->ev1));
    PAPER_TRY(cudaEventElapsedTime(&t[r > 0 ? r - 1 : 0], d->ev0, d->ev1));
  }
  qsort(t, (size_t)reps, sizeof(float), cmp_float);
  st->kernel_ms = t[reps / 2];
  st->kernel_bytes = 8.0 * (double)n * (in_w + nb);
  st->prep_bytes = 8.0 * (double)n * in_w;
  PAPER_TRY(cudaMemset(d->d_F, 0, sizeof(double) * (size_t)p->space->n_dofs));
  if (dim == 3)
    paper_scatter_kernel<3><<<blocks_of(n), 256>>>(P, n, ev, (double *)d->d_F);
  else
    paper_scatter_kernel<2><<<blocks_of(n), 256>>>(P, n, ev, (double *)d->d_F);
  PAPER_TRY(cudaGetLastError());
  PAPER_TRY(feint_cuda_memcpy(F, d->d_F, sizeof(double) * (size_t)p->space->n_dofs, cudaMemcpyDeviceToHost));
#undef PAPER_TRY
done:
  cudaFree(in);
  cudaFree(ev);
  return status;
}

__global__ void copy_kernel(int64_t n, const double2 *__restrict__ a, double2 *__restrict__ b) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    b[i] = a[i];
}

/* Device-to-device copy bandwidth (bytes read + written per second), the
 * roofline the kernels are measured against: cudaMemcpy D2D and a plain
 * copy kernel, best of `reps`, the larger of the two. */
extern "C" int feint_cuda_copy_bandwidth(int device_index, size_t bytes, int reps, double *gbs) {
  *gbs = 0;
  CUDA_CALL("copy bandwidth: set device", cudaSetDevice(device_index < 0 ? 0 : device_index));
  void *a = NULL, *c = NULL;
  FEINT_CALL(dev_alloc(&a, bytes, "copy bandwidth"));
  int status = dev_alloc(&c, bytes, "copy bandwidth");
  if (status) {
    cudaFree(a);
    return status;
  }
  /* every call checked: the first failure ends the measurement */
  cudaEvent_t e0 = NULL, e1 = NULL;
  cudaError_t e = cudaEventCreate(&e0);
  if (e == cudaSuccess) e = cudaEventCreate(&e1);
  if (e == cudaSuccess) e = cudaMemset(a, 1, bytes); /* not zeros */
  float best = 1e30f;
  for (int r = 0; r < reps + 1 && e == cudaSuccess; r++) {
    e = cudaEventRecord(e0);
    if (e == cudaSuccess && r % 2) e = cudaMemcpy(c, a, bytes, cudaMemcpyDeviceToDevice);
    if (e == cudaSuccess && !(r % 2)) {
      copy_kernel<<<4096, 256>>>((int64_t)(bytes / 16), (const double2 *)a, (double2 *)c);
      e = cudaGetLastError();
    }
    if (e == cudaSuccess) e = cudaEventRecord(e1);
    if (e == cudaSuccess) e = cudaEventSynchronize(e1);
    float ms = 0;
    if (e == cudaSuccess) e = cudaEventElapsedTime(&ms, e0, e1);
    if (e == cudaSuccess && r > 0 && ms < best) best = ms;
  }
  if (e0) cudaEventDestroy(e0);
  if (e1) cudaEventDestroy(e1);
  cudaFree(a);
  cudaFree(c);
  if (e != cudaSuccess) return cuda_fail(e, "copy bandwidth");
  *gbs = 2.0 * (double)bytes / (best * 1e-3) / 1e9;
  return FEINT_OK;
}
