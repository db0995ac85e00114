/* The paper's kernel (Knepley, Rupp & Terrel's data model: pre-gathered
 * per-cell arrays), a benchmark only: tests/unit/t501-cuda-bench.c compares
 * it with the fused kernels (feint_cuda_paper_residual, cuda_timing.h).
 * Nothing in feint itself calls it, so in the static library this file's
 * object is linked into that benchmark only. */
#include <stdlib.h>
#include <string.h>

#include "backend/cuda/fused.cuh"
#include "backend/cuda/p1.cuh"

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
  FEINT_CUDA_CALL(phase, cudaSetDevice(d->device));
  feint_cuda_scratch S; /* in and ev, freed on return */
  FEINT_CALL(S.alloc(&in, (size_t)n * in_w, phase));
  FEINT_CALL(S.alloc(&ev, (size_t)n * nb, phase));
  float t[64];
  if (reps > 64) reps = 64;
  if (reps < 1) reps = 1;
  FEINT_CUDA_CALL(phase, feint_cuda_memcpy(d->d_u, u, sizeof(double) * (size_t)p->space->n_dofs, cudaMemcpyHostToDevice));
  for (int r = 0; r < 2; r++) { /* first: warm-up */
    FEINT_CALL(feint_cuda_timer_start(&d->timer, phase));
    if (dim == 3)
      paper_prep_kernel<3><<<blocks_of(n), 256>>>(P, d->T, n, (const double *)d->d_u, in);
    else
      paper_prep_kernel<2><<<blocks_of(n), 256>>>(P, d->T, n, (const double *)d->d_u, in);
    FEINT_CUDA_CALL(phase, cudaGetLastError());
    FEINT_CALL(feint_cuda_timer_stop(&d->timer, phase, &t[0]));
  }
  st->prep_ms = t[0];
  for (int r = 0; r <= reps; r++) {
    FEINT_CALL(feint_cuda_timer_start(&d->timer, phase));
    if (dim == 3)
      paper_kernel<3><<<blocks_of(n), 256>>>(d->T, n, p->form->aux[1].constant, in, ev);
    else
      paper_kernel<2><<<blocks_of(n), 256>>>(d->T, n, p->form->aux[1].constant, in, ev);
    FEINT_CUDA_CALL(phase, cudaGetLastError());
    FEINT_CALL(feint_cuda_timer_stop(&d->timer, phase, &t[r > 0 ? r - 1 : 0]));
  }
  qsort(t, (size_t)reps, sizeof(float), cmp_float);
  st->kernel_ms = t[reps / 2];
  st->kernel_bytes = 8.0 * (double)n * (in_w + nb);
  st->prep_bytes = 8.0 * (double)n * in_w;
  FEINT_CUDA_CALL(phase, cudaMemset(d->d_F, 0, sizeof(double) * (size_t)p->space->n_dofs));
  if (dim == 3)
    paper_scatter_kernel<3><<<blocks_of(n), 256>>>(P, n, ev, (double *)d->d_F);
  else
    paper_scatter_kernel<2><<<blocks_of(n), 256>>>(P, n, ev, (double *)d->d_F);
  FEINT_CUDA_CALL(phase, cudaGetLastError());
  FEINT_CUDA_CALL(phase, feint_cuda_memcpy(F, d->d_F, sizeof(double) * (size_t)p->space->n_dofs, cudaMemcpyDeviceToHost));
  return FEINT_OK;
}

