/* The CUDA backend's own entry points (private to feint: not part of the
 * public include/ contract): the pieces of the cuda kind (kind.c,
 * backend_cuda.c), and introspection for tests and benchmarks. The driver
 * reaches none of them but through the registry (feint/backend.h). Only
 * the three predicates below (kind.c) exist in every build; the rest are
 * built with nvcc alone, so code calling them is built with CUDA only (the
 * GPU tests: Makefile). */
#ifndef FEINT_CUDA_TIMING_H
#define FEINT_CUDA_TIMING_H

#include <stddef.h>
#include <stdint.h>

#include "feint/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the kernels accept (kind.c, every build): 1, or 0 with why. The
 * fused kernels: triangles and tetrahedra of orders 1..2 (not a mixed
 * mesh). The element-matrix backend: applies to tetrahedra of order 3 and
 * up and to prisms, and supports those of orders up to 7 with forms of 1
 * to 3 components. */
int feint_cuda_cells_supported(const feint_problem *p, char *why, size_t why_size);
int feint_backend_elmat_applies(const feint_problem *p);
int feint_backend_elmat_supported(const feint_problem *p, char *why, size_t why_size);

/* The cuda kind's entries (backend_cuda.c; feint/backend.h says what each
 * does). */
int feint_cuda_kind_open(int device_index, char *why, size_t why_size);
int feint_cuda_kind_create(const feint_problem *p, int device_index, feint_backend **out);
int feint_cuda_kind_create_operator(const feint_bp_op *op, int device_index, feint_operator **out);
int feint_cuda_kind_create_plan(const feint_space *s, int device_index, feint_plan **out, char *steps,
                                size_t steps_size);

/* Number of usable CUDA devices (0 when none is found). */
int feint_cuda_device_count(void);
/* The visible CUDA device to use for device_index (< 0: the first), in
 * *dev; FEINT_ERR_INPUT when none is visible or the index is out of range. */
int feint_cuda_device_select(int device_index, int *dev);
/* Make the CUDA context of device_index (< 0: the first) on a thread of
 * its own, beside what the host does meanwhile (the mesh read); nothing
 * without a device, errors left to the first real use. Wait joins the
 * thread (before the process ends). */
void feint_cuda_warm_up_start(int device_index, int local_rank);
void feint_cuda_warm_up_wait(void);

/* The two implementations behind the kind: the fused kernels (cuda.cu)
 * and the element-matrix backend for high-order tetrahedra (orders 3..7)
 * and prisms (1..7) (elmat_backend.c): element matrices by the kernels of
 * feint/elmat.h from coefficients evaluated on the device, the CSR matrix
 * summed from them on the device (feint_plan_gpu, plan.h), and residual
 * and load vector on the device too. */
int feint_backend_cuda_create(const feint_problem *p, int device_index, feint_backend **out);
int feint_backend_elmat_create(const feint_problem *p, int device_index, feint_backend **out);
/* The third, for user forms (form_backend.cu, family form-jit), and what
 * it takes (kind.c, every build: up to FEINT_FORM_CUDA_MAX_NBC dofs a
 * cell of each cell shape, 1..3 components, 32-bit slots). */
int feint_backend_form_create(const feint_problem *p, int device_index, feint_backend **out);
int feint_backend_form_supported(const feint_problem *p, char *why, size_t why_size);
/* 1 when p's built-in kind runs on the cuda backend as the user form it
 * is (feint/physics_form.h): quadrilaterals and hexahedra, or a
 * coefficient given per cell's nodes, which only the user-form kernels
 * take; P2 triangles and tetrahedra in double with
 * FEINT_CUDA_BUILTIN_FORMS=1, where they take the problem (kind.c, every
 * build). */
int feint_backend_builtin_as_form(const feint_problem *p);
/* 1 when the fused kernels take p's user form (cuda.cu): P1 triangles or
 * tetrahedra, components interleaved, at most 16 parameters and 16
 * coefficients, at most 24 quadrature points; its pointwise functions are
 * then compiled into the P1 kernel templates (p1_form.cuh). Other user
 * forms go to the form backend. */
int feint_cuda_p1_form_applies(const feint_problem *p);
/* FEINT_OK when the fused kernels can assemble p's cells, else
 * FEINT_ERR_INPUT saying why (feint_cuda_cells_supported). */
int feint_backend_cuda_check_cells(const feint_problem *p);

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
  double block_build_ms;  /* build (GPU, or host + upload) of the aggregation plans so far */
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
  int order_on_gpu;       /* 1: the curve order was made on the GPU (cell_order.h), 0: on the host or none */
  int colouring_on_gpu;   /* 1: chunk colourings were made on the GPU (cell_order.h) */
  int user_form;          /* 1: the P1 kernels run a user form's run-time compiled pointwise functions */
  int jit_cache_hit;      /* user_form: its code came from the disk cache (nothing compiled) */
  double jit_compile_ms, jit_load_ms; /* user_form: NVRTC's compile (0 on a cache hit); lookup + load */
  char jit_key[65];       /* user_form: the cache key */
  char jit_warning[256];  /* user_form: why the cache was not written, "" */
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

/* The BP operator's kernel: its family (feint_cuda_family, families.h)
 * and variant (bp.h: feint_bp_gpu_set_variant). */
int feint_bp_gpu_family(const feint_bp_gpu *g, int *variant);

/* Test hook: host != 0 makes this backend build its block-aggregation
 * plans (the P1 block kernels' chunk structures) with the host builder,
 * the reference; 0 (the default) builds them on the GPU where that
 * applies. Takes effect for plans not yet built (before the first
 * residual / matrix, or feint_cuda_bplan_get). */
int feint_cuda_set_bplan_host(feint_backend *b, int host);

/* Test hook: backends created while host != 0 make their curve order and
 * chunk colourings with the host code, the reference the GPU builders
 * (cell_order.h) must equal; 0 (the default) uses the GPU where that
 * applies. */
void feint_cuda_set_host_reference(int host);

/* Host copies of a block-aggregation plan (which: 0 vectors, 1 matrices),
 * built first if need be; for tests comparing the two builders. Arrays
 * not in the plan are NULL. Free with feint_cuda_bplan_free. */
typedef struct {
  int built_on_gpu;  /* 1: by the GPU builder, 0: by the host one */
  int cb, ne;        /* cells per chunk, entries per cell */
  int n_chunks, ncomp;
  int64_t n_u;       /* distinct (chunk, target) pairs */
  int *uptr;         /* n_chunks + 1: chunk -> its first distinct target */
  int *tgt;          /* n_u: the distinct targets, chunk by chunk, each chunk's ascending */
  uint16_t *iend;    /* n_u + 1: each target's end in its chunk's sorted entries, then a pad (0) */
  uint16_t *ient;    /* n_chunks * cb * ne: the sorted entries' positions e * cb + t (0 past a chunk's cells) */
  uint32_t *lidx;    /* n_chunks * cb: per cell position, byte e its e-th target's index in its chunk; or NULL */
  int n_colors;      /* colored: chunk colours */
  int *color_ptr;    /* n_colors + 1 (colored) */
  int *chunks;       /* n_chunks: chunks sorted by colour (colored) */
  int64_t n_targets; /* gather: targets */
  int *gptr;         /* n_targets + 1 (gather) */
  int *gent;         /* n_u: per target its entries in chunk order (gather) */
  double build_ms;   /* the plan's build time */
} feint_cuda_bplan;

int feint_cuda_bplan_get(feint_backend *b, int which, feint_cuda_bplan *out);
void feint_cuda_bplan_free(feint_cuda_bplan *pl);

/* Wall time (seconds) of every host-to-device and device-to-host copy of
 * the CUDA modules since the process started (feint_cuda_memcpy); a
 * phase's transfers are the difference across it. */
void feint_cuda_transfer_seconds(double *h2d, double *d2h);

/* Device-to-device copy bandwidth in GB/s (bytes read + written). */
int feint_cuda_copy_bandwidth(int device_index, size_t bytes, int reps, double *gbs);

#ifdef __cplusplus
}
#endif

#endif
