/* The CUDA backend's tuning, read in one place (tuning.c): every knob of
 * every kernel family, its default and the environment variable that
 * sets it (test and benchmark hooks, documented in feint(1)). A backend
 * reads it once when it is created and its kernels' choice reads only
 * this struct. Knobs that select kernels a default build does not hold
 * (the variants that lost at their configuration) are refused by name
 * unless feint was built with make EXPERIMENTS=1. */
#ifndef FEINT_CUDA_TUNING_H
#define FEINT_CUDA_TUNING_H

#include "feint/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  /* fused kernels: thread transposition (kernels_tt.cu), from the case
   * (backend.cuda.blocks_per_batch, batches_per_chunk) */
  int blocks_per_batch;  /* blocks of lcm(nq, nbc) cells a batch, 0 by shared memory */
  int batches_per_chunk; /* batches a block takes in turn (4) */
  /* fused kernels: the P1 block kernels (kernels_p1.cu, setup.cu) */
  int chunk_cells; /* FEINT_CUDA_CHUNK: cells per chunk, a multiple of 32 in 32..256 (256) */
  int cell_order;  /* FEINT_CUDA_ORDER: -1 the curve order where it makes chunks touch fewer
                      chunks (default), 0 the mesh order, 1 the curve order without comparing */
  /* the lean P1 tetrahedron residual kernels (kernels_lean.cu) */
  int lean;           /* FEINT_CUDA_LEAN=0: 0, the block kernel computes the residual (1) */
  int lean_gather;    /* FEINT_CUDA_LEAN_MODE: -1 by strategy (default), 0 shared, 1 global (experiments) */
  int lean_minb;      /* FEINT_CUDA_LEAN_MINB: 0 default blocks per SM; 3, 4, 6, 8 (experiments) */
  int lean_pack;      /* FEINT_CUDA_LEAN_PACK=0: 0, u in its own array (experiments); 1 default */
  int lean_real;      /* FEINT_CUDA_LEAN_REAL=double: 8, single storage computed in double
                         (experiments); 0 default (the storage's type) */
  int lean_prefetch;  /* FEINT_CUDA_LEAN_PF: chunks prefetched ahead, -1 default */
  int lean_pipe;      /* FEINT_CUDA_LEAN_PIPE=0: 0, no pipelined Poisson kernel (1) */
  int lean_pipe_grid; /* FEINT_CUDA_LEAN_PIPE_GRID: cap on its blocks, 0 none (tests) */
  /* a user form's P1 vector kernel (p1_form.cuh; run-time compiled, so a
   * value is another source, not another build) */
  int form_minb; /* FEINT_FORM_MINB: resident blocks of 256 per SM it is compiled for, 1..8; 0 default */
  /* its matrix kernel (form_source.h: FEINT_FORM_MATRIX_*) */
  int form_matrix; /* FEINT_FORM_MATRIX: thread, warp or block (1..3); 0 by the layout (default) */
  /* the element-matrix backend (elmat.cu, elmat_backend.c) */
  long long elmat_batch;  /* FEINT_ELMAT_BATCH: cells per batch, 0 default (about 256 MB) */
  int elmat_vector_cells; /* FEINT_ELMAT_VECTOR_CELLS: 1, 2, 4, 8 cells a block, 0 default */
  int elmat_times;        /* FEINT_ELMAT_TIMES=1: per-kernel device times to stderr */
  /* the BP operators (bp.cu) */
  int bp_split; /* FEINT_BP_NUMBERING: -1 default (split), 1 split, 0 own */
} feint_cuda_tuning;

/* The tuning of problem p (NULL: an operator or a benchmark, no case
 * keys): its case keys and the environment. FEINT_OK, or FEINT_ERR_INPUT
 * naming the variable, its value and what is expected (or that it needs
 * a make EXPERIMENTS=1 build). */
int feint_cuda_tuning_read(const feint_problem *p, feint_cuda_tuning *t);

/* 1 when this feint holds every kernel variant (make EXPERIMENTS=1). */
int feint_cuda_experiments_built(void);

#ifdef __cplusplus
}
#endif
#endif
