/* Introspection of the CUDA backend for tests and benchmarks (private to
 * feint: not part of the public include/ contract). Without nvcc these
 * return FEINT_ERR_INPUT (src/backend/cuda/none.c). */
#ifndef FEINT_CUDA_TIMING_H
#define FEINT_CUDA_TIMING_H

#include <stddef.h>

#include "feint/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  double last_kernel_ms;  /* device time of the last call's kernels (events), no transfers */
  int n_colors;           /* colours of the cell colouring (strategy colored), else 0 */
  int residual_batch;     /* cells per batch of the residual kernel */
  int matrix_batch;       /* cells per batch of the matrix kernel */
  int batches_per_chunk;
  int p1_residual;        /* 1: vectors by the P1 one-thread-per-cell kernels, 0: thread transposition */
  int p1_matrix;          /* 1: matrices by the P1 one-thread-per-cell kernels */
  int block_vector;       /* 1: vectors with block-local aggregation (chunks of cells) */
  int block_matrix;       /* 1: matrices with block-local aggregation */
  int block_cells;        /* cells per chunk (0 until a plan is built) */
  int block_colors_vector, block_colors_matrix; /* chunk colours (colored) */
  double block_build_ms;  /* host build + upload of the aggregation plans so far */
  double block_targets[2]; /* distinct targets per chunk (mean; vector, matrix plans), 0 until built */
  int curve_order;        /* 1: P1 kernels visit cells along a space-filling curve (FEINT_CUDA_ORDER=0: mesh
                             order, 1: curve order; unset: the curve where its chunks need fewer colours) */
  int order_colors[2];    /* chunk colours of the mesh and the curve order (0: not compared) */
  int lean_residual;      /* 1: the last vector call (residual) ran the lean P1 tetrahedron kernel (Poisson
                             or elasticity; FEINT_CUDA_LEAN=0 turns it off) */
  int lean_real;          /* its compute type: 8 double, 4 float (single precision; FEINT_CUDA_LEAN_REAL=double
                             computes in double from the float storage), 0 when it did not run */
  int lean_prefetch;      /* its L2 prefetch distance in chunks (by default a wave of resident blocks in double,
                             none in single; FEINT_CUDA_LEAN_PF=N, 0: off), 0 when it did not run or did not
                             prefetch */
  char setup_steps[400];  /* the backend's creation step by step: "name ms, ..." (host wall times, uploads
                             included; first-use structures such as the block plans in block_build_ms) */
  int lean_pipe;          /* 1: it ran as the pipelined persistent kernel (Poisson in double, atomic and gather;
                             FEINT_CUDA_LEAN_PIPE=0 turns it off) */
} feint_cuda_stats;

typedef struct {
  double prep_ms;      /* building the pre-gathered per-cell arrays on the GPU */
  double kernel_ms;    /* the kernel on them (median) */
  double kernel_bytes; /* bytes the kernel must move (arrays in + element vectors out) */
  double prep_bytes;   /* bytes the pre-gathered arrays occupy */
} feint_cuda_paper_stats;

/* 0: P1 one-thread-per-cell kernels with block-local aggregation where
 * available, residuals of P1 tetrahedral Poisson / elasticity by the lean
 * kernels (default); 1: the thread-transposition kernels only; 2:
 * matrices by the P1 per-cell kernels without block-local aggregation
 * (vectors as in 0); 3: block-local aggregation of vectors without the
 * shared gather (vectors: each cell loads its own vertices
 * instead of each of a chunk's distinct vertices loaded once into shared
 * memory; the block kernel, not the lean one). */
int feint_cuda_set_variant(feint_backend *b, int variant);

/* The paper's kernel on pre-gathered per-cell data (P1 Poisson with a
 * constant source); F receives the assembled residual, for checking. */
int feint_cuda_paper_residual(feint_backend *b, const double *u, double *F, int reps, feint_cuda_paper_stats *st);

int feint_cuda_info(const feint_backend *b, feint_cuda_stats *st);

/* Wall time (seconds) of every host-to-device and device-to-host copy of
 * the CUDA modules since the process started (feint_cuda_memcpy); a
 * phase's transfers are the difference across it. Zeros without CUDA. */
void feint_cuda_transfer_seconds(double *h2d, double *d2h);

/* Device-to-device copy bandwidth in GB/s (bytes read + written). */
int feint_cuda_copy_bandwidth(int device_index, size_t bytes, int reps, double *gbs);

#ifdef __cplusplus
}
#endif

#endif
