/* The CUDA backend: the same integrals as the CPU reference (src/backend/
 * cpu/cpu.c), computed on the GPU, double precision.
 *
 * Data model. Everything the kernels read is uploaded once when the backend
 * is created: node coordinates (x, y, z arrays), the cell vertex lists, the
 * cell dof maps (as int32), the coefficient fields (constants are passed by
 * value; per-cell and nodal arrays live in device memory), the reference
 * basis tables and quadrature weights, the plan's CSR pattern and slot map,
 * and what the chosen assembly strategy needs (the cell colouring, or the
 * inverse maps for the gather). A call then moves only u in and the result
 * out.
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
 * Assembly strategies:
 *   atomic  - atomicAdd (native double atomics on sm_60+);
 *   colored - cells greedily coloured on the host so that no two cells of a
 *             colour share a dof; one launch per colour with plain adds
 *             (deterministic);
 *   gather  - element vectors / matrices go to a device buffer, then one
 *             thread per dof / nonzero sums its own contributions in cell
 *             order through the inverse of the dof map / slot map
 *             (deterministic, no atomics, same summation order as the CPU).
 */
#include <cuda_runtime.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "feint/backend.h"
#include "feint/error.h"
#include "feint/geometry.h"
#include "feint/physics.h"
}

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
  *ptr = NULL;
  cudaError_t e = cudaMalloc(ptr, bytes ? bytes : 1);
  if (e == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    size_t free_b = 0, total_b = 0;
    cudaMemGetInfo(&free_b, &total_b);
    return feint_error_set(FEINT_ERR_COMPUTE,
                           "%s: out of GPU memory allocating %zu bytes (%zu of %zu bytes free)", phase, bytes,
                           free_b, total_b);
  }
  if (e != cudaSuccess) return cuda_fail(e, phase);
  return FEINT_OK;
}

template <typename T>
static int upload(T **dst, const T *src, size_t count, const char *phase) {
  FEINT_CALL(dev_alloc((void **)dst, count * sizeof(T), phase));
  if (count) CUDA_CALL(phase, cudaMemcpy(*dst, src, count * sizeof(T), cudaMemcpyHostToDevice));
  return FEINT_OK;
}

/* int64 host index array -> int32 device array (all dof / node / slot
 * indices are < 2^31 in this version; checked). */
static int upload_index32(int **dst, const int64_t *src, size_t count, const char *phase) {
  int *tmp = NULL;
  FEINT_CALL(feint_malloc(count ? count : 1, sizeof *tmp, &tmp, phase));
  for (size_t k = 0; k < count; k++) {
    if (src[k] < 0 || src[k] > INT32_MAX) {
      free(tmp);
      return feint_error_set(FEINT_ERR_COMPUTE, "%s: index %lld does not fit in 32 bits", phase,
                             (long long)src[k]);
    }
    tmp[k] = (int)src[k];
  }
  int status = upload(dst, tmp, count, phase);
  free(tmp);
  return status;
}

/* ------------------------------------------------------------ parameters */

/* Everything a kernel needs, passed by value. */
typedef struct {
  int dim, nc, nb, nbc, nq, nv, physics, terms;
  int n_aux, n_nodal;
  int64_t n_cells;
  const double *x, *y, *z;
  const int *cells;     /* n_cells x nv */
  const int *cell_dofs; /* n_cells x nbc */
  const int *sdofs;     /* n_cells x nb */
  const double *basis, *basis_grad, *weights;
  int aux_kind[FEINT_CUDA_MAX_AUX];
  int aux_nodal[FEINT_CUDA_MAX_AUX]; /* index among the nodal fields, -1 if not nodal */
  double aux_const[FEINT_CUDA_MAX_AUX];
  const double *aux_vals[FEINT_CUDA_MAX_AUX];
  const int *slots;     /* n_cells x nbc x nbc */
  int batch;            /* cells per batch */
  int gq;               /* matrix: coefficient doubles per (cell, q) */
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

__device__ static inline int64_t cell_of(const int *list, int64_t k) { return list ? (int64_t)list[k] : k; }

/* Load tables into shared memory. */
__device__ static inline void load_tables(const kparams &P, double *sh) {
  const int nbq = P.nq * P.nb;
  for (int k = threadIdx.x; k < nbq; k += blockDim.x) sh[k] = P.basis[k];
  for (int k = threadIdx.x; k < nbq * P.dim; k += blockDim.x) sh[nbq + k] = P.basis_grad[k];
  for (int k = threadIdx.x; k < P.nq; k += blockDim.x) sh[nbq * (1 + P.dim) + k] = P.weights[k];
}

/* Phase 0: geometry of the batch's cells, and nodal coefficient values. */
template <int DIM>
__device__ static inline void load_geometry(const kparams &P, const int *list, int64_t base, int n_here,
                                            double *geo) {
  for (int t = threadIdx.x; t < n_here; t += blockDim.x) {
    const int64_t c = cell_of(list, base + t);
    double v[4 * 3];
    for (int k = 0; k <= DIM; k++) {
      const int node = P.cells[c * P.nv + k];
      v[k * 3 + 0] = P.x[node];
      v[k * 3 + 1] = P.y[node];
      v[k * 3 + 2] = P.z[node];
    }
    double invJ[DIM * DIM];
    const double det = feint_affine_inverse_jacobian(DIM, v, invJ);
    double *g = geo + t * (DIM * DIM + 1);
    for (int k = 0; k < DIM * DIM; k++) g[k] = invJ[k];
    g[DIM * DIM] = fabs(det);
  }
}

__device__ static inline void load_nodal(const kparams &P, const int *list, int64_t base, int n_here,
                                         double *auxe) {
  if (!P.n_nodal) return;
  for (int t = threadIdx.x; t < n_here * P.nb; t += blockDim.x) {
    const int lc = t / P.nb, i = t - lc * P.nb;
    const int64_t c = cell_of(list, base + lc);
    const int sd = P.sdofs[c * P.nb + i];
    for (int k = 0; k < P.n_aux; k++)
      if (P.aux_nodal[k] >= 0) auxe[(lc * P.n_nodal + P.aux_nodal[k]) * P.nb + i] = P.aux_vals[k][sd];
  }
}

/* Coefficients at quadrature point q of local cell lc (global cell c). */
__device__ static inline void aux_at(const kparams &P, int64_t c, const double *phi, const double *auxe_cell,
                                     double *a) {
  for (int k = 0; k < P.n_aux; k++) {
    const int kind = P.aux_kind[k];
    if (kind == 0) {
      a[k] = P.aux_const[k];
    } else if (kind == 1) {
      a[k] = P.aux_vals[k][c];
    } else {
      const double *v = auxe_cell + P.aux_nodal[k] * P.nb;
      double s = 0;
      for (int i = 0; i < P.nb; i++) s += phi[i] * v[i];
      a[k] = s;
    }
  }
}

/* Output modes. */
enum { OUT_ATOMIC = 0, OUT_PLAIN = 1, OUT_BUFFER = 2 };

template <int DIM, int NC>
__global__ void residual_kernel(kparams P, const int *list, int64_t n_list, int mode, int with_state,
                                const double *__restrict__ u, double *__restrict__ out) {
  extern __shared__ double sh[];
  const int nq = P.nq, nb = P.nb, nbc = P.nbc, B = P.batch;
  double *tab = sh, *basis = tab, *bgrad = tab + nq * nb, *wts = tab + nq * nb * (1 + DIM);
  double *geo = sh + tables_size(P);
  double *ue = geo + B * (DIM * DIM + 1);
  double *auxe = ue + B * nbc;
  double *fq = auxe + B * P.n_nodal * nb;
  const int FQ = NC * (1 + DIM); /* f0[NC], f1ref[NC][DIM] per (cell, q) */
  load_tables(P, sh);
  const int64_t n_batches = (n_list + B - 1) / B;
  for (int64_t batch = blockIdx.x; batch < n_batches; batch += gridDim.x) {
    const int64_t base = batch * B;
    const int n_here = (int)(n_list - base < B ? n_list - base : B);
    __syncthreads(); /* tables loaded / previous batch done with shared memory */
    load_geometry<DIM>(P, list, base, n_here, geo);
    if (with_state)
      for (int t = threadIdx.x; t < n_here * nbc; t += blockDim.x) {
        const int lc = t / nbc, k = t - lc * nbc;
        const int64_t c = cell_of(list, base + lc);
        ue[t] = u[P.cell_dofs[c * nbc + k]];
      }
    load_nodal(P, list, base, n_here, auxe);
    __syncthreads();
    /* phase 1: (cell, quadrature point) */
    for (int t = threadIdx.x; t < n_here * nq; t += blockDim.x) {
      const int lc = t / nq, q = t - lc * nq;
      const int64_t c = cell_of(list, base + lc);
      const double *g = geo + lc * (DIM * DIM + 1);
      const double wdet = wts[q] * g[DIM * DIM];
      const double *phi = basis + q * nb;
      double uq[NC], gref[NC * DIM], gradu[NC * DIM], a[FEINT_CUDA_MAX_AUX], f0[NC], f1[NC * DIM];
      for (int k = 0; k < NC; k++) uq[k] = 0;
      for (int k = 0; k < NC * DIM; k++) gref[k] = 0;
      if (with_state) {
        const double *uc = ue + lc * nbc;
        for (int i = 0; i < nb; i++) {
          const double p = phi[i];
          const double *G = bgrad + (q * nb + i) * DIM;
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
      aux_at(P, c, phi, auxe + lc * P.n_nodal * nb, a);
      const feint_point pt = {DIM, NC, uq, gradu, a};
      if (with_state) {
        feint_physics_f0(P.physics, &pt, f0);
        feint_physics_f1(P.physics, &pt, f1);
      } else {
        feint_physics_source(P.physics, &pt, f0);
        for (int k = 0; k < NC * DIM; k++) f1[k] = 0;
      }
      double *o = fq + (lc * nq + q) * FQ;
      for (int cc = 0; cc < NC; cc++) {
        o[cc] = wdet * f0[cc];
        for (int d = 0; d < DIM; d++) {
          double s = 0;
          for (int a2 = 0; a2 < DIM; a2++) s += g[d * DIM + a2] * f1[cc * DIM + a2];
          o[NC + cc * DIM + d] = wdet * s;
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
      if (mode == OUT_BUFFER) {
        out[c * nbc + k] = v;
      } else {
        const int dof = P.cell_dofs[c * nbc + k];
        if (mode == OUT_ATOMIC)
          atomicAdd(out + dof, v);
        else
          out[dof] += v;
      }
    }
  }
}

/* Matrix: per (cell, q) coefficient block, pulled back to reference
 * directions and scaled by w |det J|: [G0 (NC*NC)] [G1 (NC*NC*DIM)]
 * [G3 (NC*NC*DIM*DIM)], each present only when the physics has the term. */
template <int DIM, int NC>
__global__ void matrix_kernel(kparams P, const int *list, int64_t n_list, int mode, double *__restrict__ out) {
  extern __shared__ double sh[];
  const int nq = P.nq, nb = P.nb, nbc = P.nbc, B = P.batch, GQ = P.gq, terms = P.terms;
  const int n2 = nbc * nbc;
  const int o1 = (terms & 1) ? NC * NC : 0;
  const int o3 = o1 + ((terms & 2) ? NC * NC * DIM : 0);
  double *tab = sh, *basis = tab, *bgrad = tab + nq * nb, *wts = tab + nq * nb * (1 + DIM);
  double *geo = sh + tables_size(P);
  double *auxe = geo + B * (DIM * DIM + 1);
  double *gq = auxe + B * P.n_nodal * nb;
  load_tables(P, sh);
  const int64_t n_batches = (n_list + B - 1) / B;
  for (int64_t batch = blockIdx.x; batch < n_batches; batch += gridDim.x) {
    const int64_t base = batch * B;
    const int n_here = (int)(n_list - base < B ? n_list - base : B);
    __syncthreads();
    load_geometry<DIM>(P, list, base, n_here, geo);
    load_nodal(P, list, base, n_here, auxe);
    __syncthreads();
    for (int t = threadIdx.x; t < n_here * nq; t += blockDim.x) {
      const int lc = t / nq, q = t - lc * nq;
      const int64_t c = cell_of(list, base + lc);
      const double *g = geo + lc * (DIM * DIM + 1);
      const double wdet = wts[q] * g[DIM * DIM];
      const double *phi = basis + q * nb;
      double a[FEINT_CUDA_MAX_AUX], zero[NC * DIM];
      for (int k = 0; k < NC * DIM; k++) zero[k] = 0;
      aux_at(P, c, phi, auxe + lc * P.n_nodal * nb, a);
      const feint_point pt = {DIM, NC, zero, zero, a};
      double *o = gq + (lc * nq + q) * GQ;
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
      if (mode == OUT_BUFFER) {
        out[c * n2 + e] = v;
      } else {
        const int slot = P.slots[c * n2 + e];
        if (mode == OUT_ATOMIC)
          atomicAdd(out + slot, v);
        else
          out[slot] += v;
      }
    }
  }
}

/* Gather: out[r] = sum_k buf[ent[k]], k in ptr[r] .. ptr[r+1] (in order). */
__global__ void gather_kernel(int64_t n, const int64_t *__restrict__ ptr, const int64_t *__restrict__ ent,
                              const double *__restrict__ buf, double *__restrict__ out) {
  for (int64_t r = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; r < n; r += (int64_t)gridDim.x * blockDim.x) {
    double s = 0;
    for (int64_t k = ptr[r]; k < ptr[r + 1]; k++) s += buf[ent[k]];
    out[r] = s;
  }
}

/* ----------------------------------------------------------- host side */

typedef struct {
  int device;
  kparams P;
  /* owned device arrays */
  double *d_x, *d_y, *d_z, *d_basis, *d_bgrad, *d_w;
  int *d_cells, *d_cdofs, *d_sdofs, *d_slots, *d_indices;
  int64_t *d_indptr;
  double *d_aux[FEINT_CUDA_MAX_AUX];
  double *d_u, *d_F, *d_vals, *d_buf;
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
  cudaEvent_t ev0, ev1;
  float last_ms;
} cuda_data;

static void cuda_destroy(feint_backend *b) {
  cuda_data *d = (cuda_data *)b->data;
  if (d) {
    cudaSetDevice(d->device);
    void *ptrs[] = {d->d_x,     d->d_y,     d->d_z,     d->d_basis, d->d_bgrad,       d->d_w,    d->d_cells,
                    d->d_cdofs, d->d_sdofs, d->d_slots, d->d_indices, d->d_indptr,    d->d_u,    d->d_F,
                    d->d_vals,  d->d_buf,   d->d_color_cells,         d->d_vptr,      d->d_vent, d->d_mptr,
                    d->d_ment};
    for (size_t k = 0; k < sizeof ptrs / sizeof ptrs[0]; k++) cudaFree(ptrs[k]);
    for (int k = 0; k < FEINT_CUDA_MAX_AUX; k++) cudaFree(d->d_aux[k]);
    if (d->ev0) cudaEventDestroy(d->ev0);
    if (d->ev1) cudaEventDestroy(d->ev1);
    cudaGetLastError();
    free(d->color_ptr);
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

/* Greedy colouring: a cell takes the smallest colour none of its scalar
 * dofs has seen. Colours are tracked per scalar dof as a bit set. */
static int build_coloring(const feint_problem *p, cuda_data *d) {
  const feint_space *s = p->space;
  const int64_t nc = s->mesh->n_cells, nsd = s->n_scalar_dofs;
  const int nb = s->nb, W = 8; /* up to 512 colours */
  uint64_t *seen = NULL;
  int *color = NULL, *cells = NULL;
  int64_t *ptr = NULL;
  int status = FEINT_OK;
  if ((status = feint_calloc((size_t)(nsd * W), sizeof *seen, &seen, "cell colouring")) ||
      (status = feint_malloc((size_t)nc + 1, sizeof *color, &color, "cell colouring")) ||
      (status = feint_malloc((size_t)nc + 1, sizeof *cells, &cells, "cell colouring")))
    goto done;
  {
    int n_colors = 0;
    for (int64_t c = 0; c < nc; c++) {
      const int64_t *sd = s->scalar_cell_dofs + c * nb;
      int chosen = -1;
      for (int w = 0; w < W && chosen < 0; w++) {
        uint64_t used = 0;
        for (int i = 0; i < nb; i++) used |= seen[sd[i] * W + w];
        if (~used) chosen = w * 64 + __builtin_ctzll(~used);
      }
      if (chosen < 0) {
        status = feint_error_set(FEINT_ERR_COMPUTE, "cell colouring: more than %d colours needed", W * 64);
        goto done;
      }
      for (int i = 0; i < nb; i++) seen[sd[i] * W + chosen / 64] |= 1ull << (chosen % 64);
      color[c] = chosen;
      if (chosen + 1 > n_colors) n_colors = chosen + 1;
    }
    if ((status = feint_calloc((size_t)n_colors + 1, sizeof *ptr, &ptr, "cell colouring"))) goto done;
    for (int64_t c = 0; c < nc; c++) ptr[color[c] + 1]++;
    for (int k = 0; k < n_colors; k++) ptr[k + 1] += ptr[k];
    {
      int64_t *fill = NULL;
      if ((status = feint_calloc((size_t)n_colors + 1, sizeof *fill, &fill, "cell colouring"))) goto done;
      for (int64_t c = 0; c < nc; c++) cells[ptr[color[c]] + fill[color[c]]++] = (int)c;
      free(fill);
    }
    if ((status = upload(&d->d_color_cells, cells, (size_t)nc, "upload of the cell colouring"))) goto done;
    d->n_colors = n_colors;
    d->color_ptr = ptr;
    ptr = NULL;
  }
done:
  free(seen);
  free(color);
  free(cells);
  free(ptr);
  return status;
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

typedef void (*res_kernel_t)(kparams, const int *, int64_t, int, int, const double *, double *);
typedef void (*mat_kernel_t)(kparams, const int *, int64_t, int, double *);

static res_kernel_t pick_residual(int dim, int nc) {
  if (dim == 2) return nc == 1 ? residual_kernel<2, 1> : nc == 2 ? residual_kernel<2, 2> : residual_kernel<2, 3>;
  return nc == 1 ? residual_kernel<3, 1> : nc == 2 ? residual_kernel<3, 2> : residual_kernel<3, 3>;
}
static mat_kernel_t pick_matrix(int dim, int nc) {
  if (dim == 2) return nc == 1 ? matrix_kernel<2, 1> : nc == 2 ? matrix_kernel<2, 2> : matrix_kernel<2, 3>;
  return nc == 1 ? matrix_kernel<3, 1> : nc == 2 ? matrix_kernel<3, 2> : matrix_kernel<3, 3>;
}

static unsigned grid_for(const cuda_data *d, int64_t n_list, int batch) {
  const int64_t n_batches = (n_list + batch - 1) / batch;
  int64_t g = (n_batches + d->bpc - 1) / d->bpc;
  if (g < 1) g = 1;
  if (g > 2147483647LL) g = 2147483647LL;
  return (unsigned)g;
}

/* Integrate (and assemble) a vector into d->d_F (n_dofs), per strategy. */
static int launch_vector(feint_backend *b, int with_state) {
  cuda_data *d = (cuda_data *)b->data;
  const feint_problem *p = b->problem;
  kparams P = d->P;
  P.batch = d->res_batch;
  const size_t shmem = (size_t)(tables_size(P) + P.batch * res_cell_size(P)) * sizeof(double);
  res_kernel_t k = pick_residual(P.dim, P.nc);
  const int64_t n_dofs = p->space->n_dofs;
  const char *phase = with_state ? "residual kernel" : "rhs kernel";
  if (shmem > FEINT_CUDA_SHMEM)
    CUDA_CALL(phase, cudaFuncSetAttribute((const void *)k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shmem));
  CUDA_CALL(phase, cudaMemsetAsync(d->d_F, 0, sizeof(double) * (size_t)n_dofs));
  CUDA_CALL(phase, cudaEventRecord(d->ev0));
  if (p->strategy == FEINT_ASSEMBLY_ATOMIC) {
    k<<<grid_for(d, P.n_cells, P.batch), d->res_threads, shmem>>>(P, NULL, P.n_cells, OUT_ATOMIC, with_state,
                                                                   d->d_u, d->d_F);
    CUDA_LAUNCHED(phase);
  } else if (p->strategy == FEINT_ASSEMBLY_COLORED) {
    for (int col = 0; col < d->n_colors; col++) {
      const int64_t n = d->color_ptr[col + 1] - d->color_ptr[col];
      k<<<grid_for(d, n, P.batch), d->res_threads, shmem>>>(P, d->d_color_cells + d->color_ptr[col], n, OUT_PLAIN,
                                                            with_state, d->d_u, d->d_F);
      CUDA_LAUNCHED(phase);
    }
  } else {
    FEINT_CALL(ensure_buffer(d, sizeof(double) * (size_t)(P.n_cells * P.nbc), "element vector buffer"));
    k<<<grid_for(d, P.n_cells, P.batch), d->res_threads, shmem>>>(P, NULL, P.n_cells, OUT_BUFFER, with_state,
                                                                   d->d_u, d->d_buf);
    CUDA_LAUNCHED(phase);
    gather_kernel<<<(unsigned)((n_dofs + 255) / 256 > 0 ? (n_dofs + 255) / 256 : 1), 256>>>(n_dofs, d->d_vptr,
                                                                                           d->d_vent, d->d_buf,
                                                                                           d->d_F);
    CUDA_LAUNCHED("vector gather kernel");
  }
  CUDA_CALL(phase, cudaEventRecord(d->ev1));
  CUDA_CALL(phase, cudaEventSynchronize(d->ev1));
  CUDA_CALL(phase, cudaEventElapsedTime(&d->last_ms, d->ev0, d->ev1));
  return FEINT_OK;
}

static int cuda_residual(feint_backend *b, const double *u, double *F) {
  cuda_data *d = (cuda_data *)b->data;
  const size_t bytes = sizeof(double) * (size_t)b->problem->space->n_dofs;
  CUDA_CALL("residual: set device", cudaSetDevice(d->device));
  CUDA_CALL("residual: copy of u to the GPU", cudaMemcpy(d->d_u, u, bytes, cudaMemcpyHostToDevice));
  FEINT_CALL(launch_vector(b, 1));
  CUDA_CALL("residual: copy of F from the GPU", cudaMemcpy(F, d->d_F, bytes, cudaMemcpyDeviceToHost));
  return FEINT_OK;
}

static int cuda_rhs(feint_backend *b, double *rhs) {
  cuda_data *d = (cuda_data *)b->data;
  const size_t bytes = sizeof(double) * (size_t)b->problem->space->n_dofs;
  CUDA_CALL("rhs: set device", cudaSetDevice(d->device));
  FEINT_CALL(launch_vector(b, 0));
  CUDA_CALL("rhs: copy from the GPU", cudaMemcpy(rhs, d->d_F, bytes, cudaMemcpyDeviceToHost));
  return FEINT_OK;
}

static size_t mat_shmem(const kparams &P) {
  return (size_t)(tables_size(P) + P.batch * mat_cell_size(P)) * sizeof(double);
}

/* Allow more than 48 KiB of dynamic shared memory where the batch needs it. */
static int mat_attr(mat_kernel_t k, size_t shmem, const char *phase) {
  if (shmem > FEINT_CUDA_SHMEM)
    CUDA_CALL(phase, cudaFuncSetAttribute((const void *)k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shmem));
  return FEINT_OK;
}

static int cuda_element_matrices(feint_backend *b, double *Ke) {
  cuda_data *d = (cuda_data *)b->data;
  kparams P = d->P;
  P.batch = d->mat_batch;
  const size_t bytes = sizeof(double) * (size_t)P.n_cells * (size_t)P.nbc * (size_t)P.nbc;
  CUDA_CALL("element matrices: set device", cudaSetDevice(d->device));
  FEINT_CALL(ensure_buffer(d, bytes, "element matrix buffer"));
  FEINT_CALL(mat_attr(pick_matrix(P.dim, P.nc), mat_shmem(P), "element matrices kernel"));
  CUDA_CALL("element matrices kernel", cudaEventRecord(d->ev0));
  pick_matrix(P.dim, P.nc)<<<grid_for(d, P.n_cells, P.batch), d->mat_threads, mat_shmem(P)>>>(
      P, NULL, P.n_cells, OUT_BUFFER, d->d_buf);
  CUDA_LAUNCHED("element matrices kernel");
  CUDA_CALL("element matrices kernel", cudaEventRecord(d->ev1));
  CUDA_CALL("element matrices kernel", cudaEventSynchronize(d->ev1));
  CUDA_CALL("element matrices kernel", cudaEventElapsedTime(&d->last_ms, d->ev0, d->ev1));
  CUDA_CALL("element matrices: copy from the GPU", cudaMemcpy(Ke, d->d_buf, bytes, cudaMemcpyDeviceToHost));
  return FEINT_OK;
}

static int cuda_assemble_matrix(feint_backend *b, double *values) {
  cuda_data *d = (cuda_data *)b->data;
  const feint_problem *p = b->problem;
  if (!p->plan) return feint_error_set(FEINT_ERR_COMPUTE, "assembly needs a plan (CSR pattern)");
  kparams P = d->P;
  P.batch = d->mat_batch;
  const int64_t nnz = p->plan->nnz;
  const size_t shmem = mat_shmem(P);
  mat_kernel_t k = pick_matrix(P.dim, P.nc);
  const char *phase = "matrix assembly kernel";
  CUDA_CALL("matrix assembly: set device", cudaSetDevice(d->device));
  FEINT_CALL(mat_attr(k, shmem, phase));
  if (p->strategy == FEINT_ASSEMBLY_GATHER)
    FEINT_CALL(ensure_buffer(d, sizeof(double) * (size_t)P.n_cells * (size_t)P.nbc * (size_t)P.nbc,
                             "element matrix buffer (gather assembly)"));
  CUDA_CALL(phase, cudaMemsetAsync(d->d_vals, 0, sizeof(double) * (size_t)nnz));
  CUDA_CALL(phase, cudaEventRecord(d->ev0));
  if (p->strategy == FEINT_ASSEMBLY_ATOMIC) {
    k<<<grid_for(d, P.n_cells, P.batch), d->mat_threads, shmem>>>(P, NULL, P.n_cells, OUT_ATOMIC, d->d_vals);
    CUDA_LAUNCHED(phase);
  } else if (p->strategy == FEINT_ASSEMBLY_COLORED) {
    for (int col = 0; col < d->n_colors; col++) {
      const int64_t n = d->color_ptr[col + 1] - d->color_ptr[col];
      k<<<grid_for(d, n, P.batch), d->mat_threads, shmem>>>(P, d->d_color_cells + d->color_ptr[col], n, OUT_PLAIN,
                                                            d->d_vals);
      CUDA_LAUNCHED(phase);
    }
  } else {
    k<<<grid_for(d, P.n_cells, P.batch), d->mat_threads, shmem>>>(P, NULL, P.n_cells, OUT_BUFFER, d->d_buf);
    CUDA_LAUNCHED(phase);
    gather_kernel<<<(unsigned)((nnz + 255) / 256 > 0 ? (nnz + 255) / 256 : 1), 256>>>(nnz, d->d_mptr, d->d_ment,
                                                                                     d->d_buf, d->d_vals);
    CUDA_LAUNCHED("matrix gather kernel");
  }
  CUDA_CALL(phase, cudaEventRecord(d->ev1));
  CUDA_CALL(phase, cudaEventSynchronize(d->ev1));
  CUDA_CALL(phase, cudaEventElapsedTime(&d->last_ms, d->ev0, d->ev1));
  CUDA_CALL("matrix assembly: copy from the GPU",
            cudaMemcpy(values, d->d_vals, sizeof(double) * (size_t)nnz, cudaMemcpyDeviceToHost));
  return FEINT_OK;
}

extern "C" int feint_cuda_device_count(void) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError(); /* clear: no driver or no device is not an error here */
    return 0;
  }
  return n;
}

static int create_data(const feint_problem *p, int device_index, feint_backend *b, cuda_data *d) {
  const feint_space *s = p->space;
  const feint_mesh *m = s->mesh;
  const feint_form *f = p->form;
  const int n_dev = feint_cuda_device_count();
  if (n_dev <= 0) return feint_error_set(FEINT_ERR_INPUT, "no CUDA device is visible");
  const int dev = device_index < 0 ? 0 : device_index;
  if (dev >= n_dev)
    return feint_error_set(FEINT_ERR_INPUT, "--device %d: only %d CUDA device%s visible (0..%d)", dev, n_dev,
                           n_dev == 1 ? " is" : "s are", n_dev - 1);
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
  if (p->precision == FEINT_PRECISION_SINGLE)
    return feint_error_set(FEINT_ERR_INPUT, "single precision not implemented on cuda yet");
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
  const char *up = "upload of the mesh and space";
  FEINT_CALL(upload(&d->d_x, m->x, (size_t)m->n_nodes, up));
  FEINT_CALL(upload(&d->d_y, m->y, (size_t)m->n_nodes, up));
  FEINT_CALL(upload(&d->d_z, m->z, (size_t)m->n_nodes, up));
  FEINT_CALL(upload_index32(&d->d_cells, m->cells, (size_t)(nc * m->nv), up));
  FEINT_CALL(upload_index32(&d->d_cdofs, s->cell_dofs, (size_t)(nc * s->nbc), up));
  if (s->components == 1)
    d->d_sdofs = NULL;
  else
    FEINT_CALL(upload_index32(&d->d_sdofs, s->scalar_cell_dofs, (size_t)(nc * s->nb), up));
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
  for (int k = 0; k < f->n_aux; k++) {
    const feint_field *fld = &f->aux[k];
    P.aux_kind[k] = (int)fld->kind;
    P.aux_nodal[k] = -1;
    if (fld->kind == FEINT_FIELD_CONSTANT) {
      P.aux_const[k] = fld->constant;
    } else {
      const size_t n = fld->kind == FEINT_FIELD_CELL ? (size_t)nc : (size_t)s->n_scalar_dofs;
      FEINT_CALL(upload(&d->d_aux[k], fld->values, n, "upload of the coefficient fields"));
      P.aux_vals[k] = d->d_aux[k];
      if (fld->kind == FEINT_FIELD_NODE) P.aux_nodal[k] = P.n_nodal++;
    }
  }
  FEINT_CALL(dev_alloc((void **)&d->d_u, sizeof(double) * (size_t)s->n_dofs, "allocation of the state u"));
  FEINT_CALL(dev_alloc((void **)&d->d_F, sizeof(double) * (size_t)s->n_dofs, "allocation of the residual"));
  if (p->plan) {
    const feint_plan *pl = p->plan;
    const char *upl = "upload of the plan (CSR pattern and slot map)";
    FEINT_CALL(upload(&d->d_indptr, pl->indptr, (size_t)pl->n_rows + 1, upl));
    FEINT_CALL(upload(&d->d_indices, pl->indices, (size_t)pl->nnz, upl));
    FEINT_CALL(upload(&d->d_slots, pl->slots, (size_t)(pl->n_cells * pl->nbc * pl->nbc), upl));
    FEINT_CALL(dev_alloc((void **)&d->d_vals, sizeof(double) * (size_t)pl->nnz, "allocation of the CSR values"));
    P.slots = d->d_slots;
  }
  /* matrix coefficient block per (cell, q) */
  P.gq = ((P.terms & 1) ? P.nc * P.nc : 0) + ((P.terms & 2) ? P.nc * P.nc * P.dim : 0) +
         ((P.terms & 8) ? P.nc * P.nc * P.dim * P.dim : 0);
  if (P.gq == 0) P.gq = 1;
  d->bpc = p->batches_per_chunk > 0 ? p->batches_per_chunk : 4;
  const long optin = (long)prop.sharedMemPerBlockOptin;
  d->res_batch = choose_batch(P, res_cell_size(P), p->blocks_per_batch, 128, optin);
  d->mat_batch = choose_batch(P, mat_cell_size(P), p->blocks_per_batch, 64, optin);
  d->res_threads = 128;
  d->mat_threads = 256;
  if ((long)(tables_size(P) + res_cell_size(P)) * 8 > optin || (long)(tables_size(P) + mat_cell_size(P)) * 8 > optin)
    return feint_error_set(FEINT_ERR_INPUT,
                           "element too large for the CUDA kernels' shared memory (%d basis functions, %d "
                           "quadrature points)",
                           P.nbc, P.nq);
  /* strategy structures */
  if (p->strategy == FEINT_ASSEMBLY_COLORED) {
    FEINT_CALL(build_coloring(p, d));
  } else if (p->strategy == FEINT_ASSEMBLY_GATHER) {
    FEINT_CALL(build_inverse(s->cell_dofs, NULL, nc * s->nbc, s->n_dofs, &d->d_vptr, &d->d_vent,
                             "dof-to-cell map for the gather assembly"));
    if (p->plan)
      FEINT_CALL(build_inverse(NULL, p->plan->slots, nc * s->nbc * s->nbc, p->plan->nnz, &d->d_mptr, &d->d_ment,
                               "nonzero-to-cell map for the gather assembly"));
  }
  CUDA_CALL("upload", cudaDeviceSynchronize());
  return FEINT_OK;
}

extern "C" int feint_backend_cuda_create(const feint_problem *p, int device_index, feint_backend **out) {
  *out = NULL;
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
  if ((status = create_data(p, device_index, b, d))) {
    cuda_destroy(b);
    return status;
  }
  *out = b;
  return FEINT_OK;
}

/* ----------------------------------------------------------- timing API */

extern "C" int feint_cuda_info(const feint_backend *b, feint_cuda_stats *st) {
  memset(st, 0, sizeof *st);
  if (!b || !b->name || strcmp(b->name, "cuda")) return feint_error_set(FEINT_ERR_INPUT, "not a cuda backend");
  const cuda_data *d = (const cuda_data *)b->data;
  st->last_kernel_ms = d->last_ms;
  st->n_colors = d->n_colors;
  st->residual_batch = d->res_batch;
  st->matrix_batch = d->mat_batch;
  st->batches_per_chunk = d->bpc;
  return FEINT_OK;
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
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  cudaMemset(a, 1, bytes);
  float best = 1e30f;
  for (int r = 0; r < reps + 1; r++) {
    cudaEventRecord(e0);
    if (r % 2)
      cudaMemcpy(c, a, bytes, cudaMemcpyDeviceToDevice);
    else
      copy_kernel<<<4096, 256>>>((int64_t)(bytes / 16), (const double2 *)a, (double2 *)c);
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    if (r > 0 && ms < best) best = ms;
  }
  cudaError_t e = cudaGetLastError();
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  cudaFree(a);
  cudaFree(c);
  if (e != cudaSuccess) return cuda_fail(e, "copy bandwidth");
  *gbs = 2.0 * (double)bytes / (best * 1e-3) / 1e9;
  return FEINT_OK;
}
