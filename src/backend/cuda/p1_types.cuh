/* The device-side types of the fused backend's P1 kernels (kparams,
 * p1tab, cview, bview), the storage-type loads and the output modes:
 * what p1.cuh and the kernels read. Apart from fused.cuh (the host side)
 * because the run-time compiled user-form kernels (form_source.c) include
 * it too: NVRTC sees no system or toolkit header, so this file and what
 * it includes are self-contained (feint/physics.h, feint/field_kind.h),
 * with the few fixed-width types and the asynchronous copies NVRTC lacks
 * defined here. */
#ifndef FEINT_CUDA_P1_TYPES_CUH
#define FEINT_CUDA_P1_TYPES_CUH

#ifdef __CUDACC_RTC__
typedef long long int64_t;
typedef unsigned int uint32_t;
typedef unsigned short uint16_t;
#else
#include <stddef.h>
#include <stdint.h>

#include <cuda_pipeline.h>
#endif

#include "feint/field_kind.h"
#include "feint/physics.h"

/* An asynchronous copy of N = 4, 8 or 16 bytes global -> shared
 * (cp.async), its commit and the wait for all of them: cuda_pipeline.h's
 * primitives under nvcc, the same instructions written out for NVRTC. */
template <int N>
__device__ __forceinline__ void feint_cp_async(void *shared_dst, const void *global_src) {
  static_assert(N == 4 || N == 8 || N == 16, "cp.async copies 4, 8 or 16 bytes");
#ifdef __CUDACC_RTC__
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"((unsigned)__cvta_generic_to_shared(shared_dst)),
               "l"(global_src), "n"(N));
#else
  __pipeline_memcpy_async(shared_dst, global_src, N);
#endif
}
__device__ __forceinline__ void feint_cp_commit() {
#ifdef __CUDACC_RTC__
  asm volatile("cp.async.commit_group;\n" ::);
#else
  __pipeline_commit();
#endif
}
__device__ __forceinline__ void feint_cp_wait_all() {
#ifdef __CUDACC_RTC__
  asm volatile("cp.async.wait_group 0;\n" ::);
#else
  __pipeline_wait_prior(0);
#endif
}

#define FEINT_CUDA_MAX_AUX 16

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
  /* a user form's P1 kernels (p1_form.cuh): the state its Jacobian is
   * taken at (storage type S) and its parameters' values */
  const void *form_state;
  double form_par[FEINT_CUDA_MAX_AUX];
} kparams;

/* ------------------------------------------------- storage, output modes */

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

/* Output modes. */
enum { OUT_ATOMIC = 0, OUT_PLAIN = 1, OUT_BUFFER = 2 };

/* The P1 kernels' tables (kernels_p1.cu): the quadrature rule and the
 * reference basis at its points, and the sums the kernels use in place of
 * a quadrature loop where the form allows. */
#define FEINT_P1_MAXQ 24

typedef struct {
  int nq;
  double w[FEINT_P1_MAXQ];
  double phi[FEINT_P1_MAXQ][4];
  double gref[4][3]; /* reference gradients (constant for P1) */
  double wphi[4];    /* sum_q w_q phi_i(q) */
  double mass[4][4]; /* sum_q w_q phi_i(q) phi_j(q) */
  double wsum;       /* sum_q w_q */
  /* where a user form's f1 or f0 is affine in what varies over the cell
   * (p1_form.cuh), the rule's sums at one point: the mean point's basis
   * values wphi_i / wsum, and per basis function i the values
   * mass[i][j] / wphi_i */
  double pmean[4];
  double pmass[4][4];
  int std;           /* gref is the standard simplex's: phi_0 = 1 - sum xi, phi_d = xi_{d-1} */
  struct {
    float wphi[4], mass[4][4], wsum;
  } f; /* wphi, mass, wsum rounded to float (the lean kernels computing in float) */
} p1tab;

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

/* A block-local aggregation plan as the P1 block and lean kernels read it
 * (p1.cuh describes the chunks; setup.cu builds the plans). */
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

/* How the lean kernels reach a chunk's vertices (kernels_lean.cu). */
enum { LEAN_SHARED = 0, LEAN_GLOBAL = 1 };

/* Cells per chunk of the pipelined lean kernel (kernels_lean.cu). */
constexpr int PIPE_CB = 256;

#endif
