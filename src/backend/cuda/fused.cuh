/* The fused-kernel CUDA backend's shared declarations (C++/CUDA only):
 * what its files (cuda.cu and the kernel families, see cuda.cu) all read.
 * The kernel parameters passed by value (kparams), the storage-type loads
 * and the output modes every kernel uses, the P1 tables (p1tab), the
 * per-cell views (cview) and block plans (bview) the P1 kernels read, the
 * backend's state (cuda_data), and the host functions one file calls in
 * another. Kernel templates are instantiated in their family's file, which
 * hands out pointers to them (pick_residual, pick_p1, pick_lean, ...):
 * no template is instantiated in two files. */
#ifndef FEINT_CUDA_FUSED_CUH
#define FEINT_CUDA_FUSED_CUH

#include <cuda_runtime.h>

#include <stddef.h>
#include <stdint.h>

#include <vector>

extern "C" {
#include "feint/backend.h"
#include "feint/error.h"
#include "feint/geometry.h"
#include "feint/physics.h"
}

#include "backend/cuda/cell_order.h"
#include "backend/cuda/jit.h"
#include "backend/cuda/p1_types.cuh"
#include "backend/cuda/tuning.h"
#include "backend/cuda/common.cuh"
#include "backend/cuda/cuda_timing.h"

#define FEINT_CUDA_SHMEM (48 * 1024)

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

/* Kernel pointers as the families hand them out. */
typedef void (*res_kernel_t)(kparams, const int *, int64_t, int, int, const void *, void *);
typedef void (*mat_kernel_t)(kparams, const int *, int64_t, int, void *);
typedef void (*blk_kernel_t)(kparams, p1tab, cview, bview, const int *, int, int, const void *, void *);

/* ----------------------------------------------------------- host side */

/* A block-local aggregation plan (p1.cuh, setup.cu): 0 vectors, 1 matrices. */
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
  feint_cuda_timer timer; /* the kernels' device time of each call (last_ms) */
  float last_ms;
  char setup_steps[400]; /* feint_cuda_stats.setup_steps */
  int cdofs_shared;      /* d_cdofs is d_cells or the plan's cell dofs (not freed as d_cdofs) */
  int sdofs_shared;      /* d_sdofs is d_cells or the plan's cell dofs (not freed as d_sdofs) */
  int cells_borrowed;    /* d_cells is the plan's (plan.h device_sdofs): not freed here */
  int slots_borrowed;    /* d_slots is the plan's (plan.h device_slots): not freed here */
  int pattern_borrowed;  /* d_indptr, d_indices are the plan's: not freed here */
  double step_t0;        /* when the current setup step began */
  int bplan_host;        /* test hook (feint_cuda_set_bplan_host): block plans by the host builder */
  feint_cuda_tuning tune; /* the knobs (tuning.h), read once at creation */
  int host_reference;    /* test hook (feint_cuda_set_host_reference): cell order and colourings on the host */
  int order_on_gpu, colouring_on_gpu; /* where the cell order and the chunk colourings were made */
  int *chunk_color;      /* host: the block plans' chunk colouring (chunk_colouring), NULL until computed */
  int64_t chunk_color_n; /* its chunks */
  int chunk_color_cb, chunk_colors; /* its cells per chunk and colours */
  /* a user form (p1_form.cuh): its generated source, the loaded library
   * (cudaLibrary_t) its four kernels come from, what compiling it did,
   * and its state u on the device (storage type S) */
  char *form_source;
  void *form_library;
  feint_jit_stats form_jit;
  char form_cache_warning[256]; /* feint_cache_warning after the compile, "" */
  void *d_form_state;
} cuda_data;

static inline unsigned blocks_of(int64_t n) { return (unsigned)((n + 255) / 256 > 0 ? (n + 255) / 256 : 1); }

/* ------------------------------------------- functions across the files */

/* cuda.cu: FEINT_OK when b is this backend (not the element-matrix one,
 * which is also named "cuda"), else FEINT_ERR_INPUT. */
int check_fused(const feint_backend *b);

/* kernels_tt.cu: the thread-transposition kernels for (dim, nc) in the
 * backend's storage type. */
res_kernel_t pick_residual(const cuda_data *d, int dim, int nc);
mat_kernel_t pick_matrix(const cuda_data *d, int dim, int nc);

/* kernels_p1.cu: the P1 kernels (per-cell matrix, its gather, block
 * vector and matrix) for (dim, nc, physics) into d->p1mat, d->p1matg,
 * d->p1blk where instantiated (left NULL elsewhere). */
void pick_p1(cuda_data *d, int dim, int nc, int phys);

/* kernels_lean.cu: the lean residual kernel for the problem (or NULL) and
 * its settings; the pipelined Poisson kernel for the kind of kappa and its
 * shared memory. */
blk_kernel_t pick_lean(const cuda_data *d, const feint_problem *p, int *gather, int *real, int *rw, int *pf);
blk_kernel_t lean_pipe_kernel(int kappa_kind);
size_t lean_pipe_shmem(void);

/* kernels_gather.cu: the deterministic reductions of the gather strategy. */
void launch_gather(const cuda_data *d, int64_t n, const int64_t *ptr, const int64_t *ent, const void *buf,
                   void *out);
template <typename S>
void launch_part_gather(const bplan &B, void *out);

/* setup.cu: what the strategies and the P1 kernels read, built once. */
int fill_p1tab(p1tab *T, int nq, int nb, int dim, const double *w, const double *basis, const double *bgrad);
int build_coloring(const feint_problem *p, cuda_data *d);
int build_color_views(const feint_problem *p, cuda_data *d);
int build_node_map(const feint_space *s, cuda_data *d);
int view_coefficients(const cuda_data *d, const int *list, const char *phase, view_arrays *a, cview *V);
int build_cell_order(const feint_space *s, int force, cuda_data *d);
int ensure_generic_gather(const feint_problem *p, cuda_data *d, int matrix);
int build_bplan(const feint_problem *p, cuda_data *d, int which);

#endif
