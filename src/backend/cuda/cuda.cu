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
 * quadrature on the GPU": thread transposition; kernels_tt.cu). A thread
 * block takes a batch of B cells at a time (B = blocks_per_batch *
 * lcm(N_q, N_bc) cells, reduced to fit 48 KiB of shared memory) and walks
 * batches_per_chunk batches in turn (grid-stride). For each batch:
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
 * For P1 the one-thread-per-cell kernels (p1_*: kernels_p1.cu,
 * kernels_lean.cu) are used by default (faster than thread transposition
 * on every P1 case measured): block-local aggregation (p1_block_kernel:
 * chunks of 256 cells, the chunk's distinct vertices gathered once into
 * shared memory, element entries summed per distinct target in shared
 * memory, one global write per target), with the cells visited along a
 * space-filling curve where the mesh's own order is worse (build_cell_
 * order). Residuals of P1 Poisson and elasticity on tetrahedra run the
 * lean kernels (p1_lean_kernel: the same chunks, the cell's arithmetic
 * specialised on the stiffness coefficients' kinds, computing in float in
 * single precision; on 6M tetrahedra on an H100, 20-30% faster than the
 * block kernel: Poisson 0.152 against 0.189 ms, elasticity 0.291 against
 * 0.407 ms, atomic, double). The per-cell P1 matrix kernels
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
 *
 * The files of the backend (docs/backends.md lists them too):
 *   cuda.cu           this file: creation, the kernel choice, the launches
 *                     per strategy, the backend table's entries, the
 *                     introspection hooks, the copy bandwidth;
 *   fused.cuh         what the files share (kernel parameters, state);
 *   kernels_tt.cu     the thread-transposition kernels;
 *   p1.cuh            device code of the P1 kernels (a cell in registers,
 *                     the chunks of block-local aggregation);
 *   kernels_p1.cu     the P1 per-cell and block kernels;
 *   kernels_lean.cu   the lean P1 tetrahedron residual kernels;
 *   kernels_gather.cu the gather strategy's reductions;
 *   setup.cu          colourings, inverse maps, cell order, block plans;
 *   paper.cu          the paper's pre-gathered kernel (benchmark only);
 *   common.cuh        the CUDA check and the copies every CUDA file uses.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "backend/cuda/fused.cuh"
#include "backend/cuda/jit_headers.h"
extern "C" {
#include "backend/cuda/form_source.h"
}

/* feint_cuda_set_host_reference: read by each backend as it is created */
static int host_reference_next = 0;

/* Host doubles <-> device storage type (float in single precision). */
static int to_device(const cuda_data *d, void *dst, const double *src, size_t n, const char *phase) {
  if (!n) return FEINT_OK;
  if (!d->single) {
    FEINT_CUDA_CALL(phase, feint_cuda_memcpy(dst, src, n * sizeof(double), cudaMemcpyHostToDevice));
    return FEINT_OK;
  }
  float *tmp = NULL;
  FEINT_CALL(feint_malloc(n, sizeof *tmp, &tmp, phase));
  for (size_t k = 0; k < n; k++) tmp[k] = (float)src[k];
  const cudaError_t e = feint_cuda_memcpy(dst, tmp, n * sizeof(float), cudaMemcpyHostToDevice);
  free(tmp);
  if (e != cudaSuccess) return FEINT_CUDA_FAIL(e, phase);
  return FEINT_OK;
}

static int from_device(const cuda_data *d, double *dst, const void *src, size_t n, const char *phase) {
  if (!n) return FEINT_OK;
  if (!d->single) {
    FEINT_CUDA_CALL(phase, feint_cuda_memcpy(dst, src, n * sizeof(double), cudaMemcpyDeviceToHost));
    return FEINT_OK;
  }
  float *tmp = NULL;
  FEINT_CALL(feint_malloc(n, sizeof *tmp, &tmp, phase));
  const cudaError_t e = feint_cuda_memcpy(tmp, src, n * sizeof(float), cudaMemcpyDeviceToHost);
  if (e == cudaSuccess)
    for (size_t k = 0; k < n; k++) dst[k] = (double)tmp[k];
  free(tmp);
  if (e != cudaSuccess) return FEINT_CUDA_FAIL(e, phase);
  return FEINT_OK;
}

static int upload_real(const cuda_data *d, void **dst, const double *src, size_t n, const char *phase) {
  FEINT_CALL(feint_cuda_alloc(dst, n * d->rs, phase));
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
    feint_cuda_timer_destroy(&d->timer);
    cudaFree(d->d_form_state);
    if (d->form_library) cudaLibraryUnload((cudaLibrary_t)d->form_library);
    free(d->form_source);
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

static int ensure_buffer(cuda_data *d, size_t bytes, const char *phase) {
  if (d->buf_bytes >= bytes) return FEINT_OK;
  cudaFree(d->d_buf);
  d->d_buf = NULL;
  d->buf_bytes = 0;
  FEINT_CALL(feint_cuda_alloc((void **)&d->d_buf, bytes, phase));
  d->buf_bytes = bytes;
  return FEINT_OK;
}

static unsigned grid_for(const cuda_data *d, int64_t n_list, int batch) {
  const int64_t n_batches = (n_list + batch - 1) / batch;
  int64_t g = (n_batches + d->bpc - 1) / d->bpc;
  if (g < 1) g = 1;
  if (g > 2147483647LL) g = 2147483647LL;
  return (unsigned)g;
}

/* ------------------------------------------------------------- launches */

/* The device time of what `launch` enqueues (CUDA events around it; the
 * launches' errors checked once after it) goes to d->last_ms; memsets and
 * transfers stay outside. */
template <typename L>
static int timed(cuda_data *d, const char *phase, L &&launch) {
  FEINT_CALL(feint_cuda_timer_start(&d->timer, phase));
  launch();
  FEINT_CUDA_CALL(phase, cudaGetLastError());
  return feint_cuda_timer_stop(&d->timer, phase, &d->last_ms);
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
    FEINT_CUDA_CALL(phase, cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shmem));
  return FEINT_OK;
}

/* The P1 kernels are launched by cudaLaunchKernel rather than <<<>>>: a
 * user form's (p1_form.cuh) are run-time compiled cudaKernel_t handles,
 * which the runtime launches from that call only. */
static void launch_blk(blk_kernel_t k, unsigned grid, unsigned block, size_t shmem, kparams P, p1tab T, cview V,
                       bview B, const int *chunks, int mode, int with_state, const void *u, void *out) {
  void *args[] = {&P, &T, &V, &B, &chunks, &mode, &with_state, &u, &out};
  cudaLaunchKernel((const void *)k, dim3(grid), dim3(block), args, shmem, 0);
}

typedef void (*p1mat_kernel_t)(kparams, p1tab, cview, int, int, int, void *);
typedef void (*p1matg_kernel_t)(kparams, p1tab, cview, int, const int *, const int *, void *);

static void launch_p1mat(p1mat_kernel_t k, unsigned grid, kparams P, p1tab T, cview V, int first, int n, int mode,
                         void *out) {
  void *args[] = {&P, &T, &V, &first, &n, &mode, &out};
  cudaLaunchKernel((const void *)k, dim3(grid), dim3(256), args, 0, 0);
}

static void launch_p1matg(p1matg_kernel_t k, unsigned grid, kparams P, p1tab T, cview V, int n_nodes,
                          const int *vptr, const int *vent, void *out) {
  void *args[] = {&P, &T, &V, &n_nodes, &vptr, &vent, &out};
  cudaLaunchKernel((const void *)k, dim3(grid), dim3(256), args, 0, 0);
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
    const size_t psh = lean_pipe_shmem();
    const unsigned grid = (unsigned)std::min<int64_t>(B.V.n_chunks, d->pipe_grid);
    V.pf_ahead = 0;
    const blk_kernel_t k = d->p1pipe;
    return by_strategy(
        d, p, phase, 0, (const int *)NULL,
        [&] { launch_blk(k, grid, PIPE_CB, psh, P, T, d->Vs, V, NULL, OUT_ATOMIC, with_state, d->d_u, out); },
        [&](int64_t, int64_t) {},
        [&] {
          launch_blk(k, grid, PIPE_CB, psh, P, T, d->Vs, V, NULL, OUT_BUFFER, with_state, d->d_u, B.d_part);
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
      [&] { launch_blk(k, n_chunks, cb, shmem, P, T, d->Vs, V, NULL, OUT_ATOMIC, with_state, d->d_u, out); },
      [&](int64_t first, int64_t n) {
        /* within a colour each target gets exactly one add, and colours run
         * in order: a fire-and-forget atomic (no load round trip) gives the
         * same bits as a plain add, so the result stays deterministic */
        launch_blk(k, (unsigned)n, cb, shmem, P, T, d->Vs, V, B.d_chunks + first, OUT_ATOMIC, with_state, d->d_u,
                   out);
      },
      [&] {
        launch_blk(k, n_chunks, cb, shmem, P, T, d->Vs, V, NULL, OUT_BUFFER, with_state, d->d_u, B.d_part);
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
  FEINT_CUDA_CALL(phase, cudaMemsetAsync(d->d_F, 0, d->rs * (size_t)n_dofs));
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
  FEINT_CUDA_CALL("residual: set device", cudaSetDevice(d->device));
  FEINT_CALL(to_device(d, d->d_u, u, n, "residual: copy of u to the GPU"));
  FEINT_CALL(launch_vector(b, 1));
  FEINT_CALL(from_device(d, F, d->d_F, n, "residual: copy of F from the GPU"));
  return FEINT_OK;
}

static int cuda_rhs(feint_backend *b, double *rhs) {
  cuda_data *d = (cuda_data *)b->data;
  const size_t n = (size_t)b->problem->space->n_dofs;
  FEINT_CUDA_CALL("rhs: set device", cudaSetDevice(d->device));
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
  FEINT_CUDA_CALL("element matrices: set device", cudaSetDevice(d->device));
  FEINT_CALL(ensure_buffer(d, d->rs * nke, "element matrix buffer"));
  if (d->p1mat && d->variant != 1) {
    FEINT_CALL(timed(d, phase, [&] {
      launch_p1mat(d->p1mat, blocks_of(P.n_cells), P, d->Tm, d->Vo, 0, (int)P.n_cells, OUT_BUFFER, d->d_buf);
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
  FEINT_CUDA_CALL(phase, cudaMemsetAsync(d->d_vals, 0, d->rs * (size_t)nnz));
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
        [&] { launch_p1mat(d->p1mat, blocks_of(n), P, d->Tm, d->Vo, 0, n, OUT_ATOMIC, d->d_vals); },
        [&](int64_t first, int64_t cnt) {
          launch_p1mat(d->p1mat, blocks_of(cnt), P, d->Tm, d->Vc, (int)first, (int)cnt, OUT_PLAIN, d->d_vals);
        },
        [&] { launch_p1matg(d->p1matg, blocks_of(nsd), P, d->Tm, d->Vo, nsd, d->d_nptr, d->d_nent, d->d_vals); });
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
  FEINT_CUDA_CALL("matrix assembly: set device", cudaSetDevice(d->device));
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
    const size_t n = (size_t)feint_field_size(fld->kind, s); /* per cell's nodes: a user form's only (kind.c) */
    if (!d->d_aux[k]) FEINT_CALL(feint_cuda_alloc(&d->d_aux[k], n * d->rs, phase));
    FEINT_CALL(to_device(d, d->d_aux[k], fld->values, n, phase));
    P.aux_vals[k] = d->d_aux[k];
    if (fld->kind == FEINT_FIELD_NODE) P.aux_nodal[k] = P.n_nodal++;
  }
  return FEINT_OK;
}

/* ------------------------------------------------------------ user forms */

extern "C" int feint_cuda_p1_form_applies(const feint_problem *p) {
  const feint_form *f = p->form;
  const feint_space *s = p->space;
  const feint_mesh *m = s->mesh;
  /* a mixed mesh's rules are its blocks' (form.h); curved cells need J at every point */
  if (!f->user || feint_mesh_is_mixed(m) || m->n_geometry_nodes) return 0;
  const int dim = m->dim, nq_matrix = f->matrix_quadrature ? f->matrix_quadrature->n : f->quadrature->n;
  return feint_cell_is_simplex(m->cell_type) && (dim == 2 || dim == 3) &&
         m->nv == dim + 1 && s->nb == dim + 1 && (s->components == 1 || s->components_interleaved) &&
         f->user->n_parameters <= FEINT_CUDA_MAX_AUX && f->n_aux <= FEINT_CUDA_MAX_AUX &&
         f->quadrature->n <= FEINT_P1_MAXQ && nq_matrix <= FEINT_P1_MAXQ &&
         (int64_t)m->n_cells * s->nbc * s->nbc < INT32_MAX && s->n_dofs < INT32_MAX;
}

/* The user form's state (the Jacobian's u) and parameters into the
 * kernels' parameters. */
static int load_form_values(cuda_data *d, const feint_space *s, const feint_form *f) {
  const char *phase = "upload of the form's state";
  if (!d->d_form_state) FEINT_CALL(feint_cuda_alloc(&d->d_form_state, (size_t)s->n_dofs * d->rs, phase));
  FEINT_CALL(to_device(d, d->d_form_state, f->u, (size_t)s->n_dofs, phase));
  for (kparams *P : {&d->P, &d->Pm}) {
    P->form_state = d->d_form_state;
    for (int k = 0; k < f->user->n_parameters; k++) P->form_par[k] = f->user->parameters[k];
  }
  return FEINT_OK;
}

/* The lean residual kernels of a user form: generated where the built-in
 * lean kernels would run (pick_lean: the tuning switch, tetrahedra of the
 * standard simplex, dofs = vertices interleaved; double precision, 1 or 3
 * components), with their choices: the shared gather for colored and for
 * three components (records with u inside), else from global memory; the
 * pipelined kernel for one component where a strategy walks all chunks.
 * Colored takes them for forms whose sums collapse only (f0 and f1
 * affine, feint_form_cuda_p1_affine): a form summed point by point ran
 * 8% slower there than in the block kernel (the k(u) form on the H200,
 * 0.284 against 0.263 ms), and 9-14% faster in the pipelined walk. */
static int form_lean_choice(const cuda_data *d, const feint_problem *p, feint_form_p1_lean *out) {
  const feint_cuda_tuning &tu = d->tune;
  const kparams &P = d->P;
  feint_form_p1_lean L = {};
  *out = L;
  if (!tu.lean || d->single || P.dim != 3 || !d->T.std || !P.sd_cells || !P.interleaved || (P.nc != 1 && P.nc != 3))
    return FEINT_OK;
  const int colored = p->strategy == FEINT_ASSEMBLY_COLORED;
  if (colored) {
    const feint_form_cuda_layout layout = feint_form_cuda_layout_of(p->form, p->space);
    int f0_affine = 0, f1_affine = 0;
    FEINT_CALL(feint_form_cuda_p1_affine(p->form->user, &layout, &f0_affine, &f1_affine));
    if (!f0_affine || !f1_affine) return FEINT_OK;
  }
  L.on = 1;
  L.gather = colored || P.nc == 3 ? LEAN_SHARED : LEAN_GLOBAL;
  if (tu.lean_gather >= 0) L.gather = tu.lean_gather;
  L.rw = L.gather == LEAN_SHARED && tu.lean_pack ? (P.nc == 1 ? 6 : 10) : 4;
  L.minb = 4; /* p1_lean_minb in double */
  L.pipe = P.nc == 1 && tu.lean_pipe && !colored;
  *out = L;
  return FEINT_OK;
}

/* A user form's P1 kernels (p1_form.cuh) in place of the built-in
 * physics' (same launches, plans and strategies): its source for this
 * layout and storage type, compiled by NVRTC behind the disk cache (a hit
 * compiles nothing) and loaded as a library whose kernels cudaLaunchKernel
 * takes as they are. */
static int load_user_form(cuda_data *d, const feint_problem *p) {
  const feint_form *f = p->form;
  const feint_space *s = p->space;
  const feint_form_cuda_layout L = feint_form_cuda_layout_of(f, s);
  feint_form_p1_lean lean;
  FEINT_CALL(form_lean_choice(d, p, &lean));
  FEINT_CALL(feint_form_cuda_p1_source(f->user, &L, d->single, d->tune.form_minb, &lean, &d->form_source));
  char arch[16];
  FEINT_CALL(feint_jit_device_arch(d->device, arch, sizeof arch));
  feint_cache *cache = NULL;
  FEINT_CALL(feint_cache_open(NULL, !p->no_cache, &cache));
  feint_jit_source src = {};
  src.source = d->form_source;
  src.label = "physics kind form (its P1 kernels' generated CUDA code)";
  src.name = "feint_p1_form.cu";
  src.options = feint_form_p1_options;
  src.n_options = FEINT_FORM_P1_OPTIONS;
  src.header_names = feint_jit_header_names;
  src.header_texts = feint_jit_header_texts;
  src.n_headers = feint_jit_header_count;
  void *cubin = NULL;
  size_t size = 0;
  const int status = feint_jit_compile(&src, arch, cache, &cubin, &size, &d->form_jit);
  snprintf(d->form_cache_warning, sizeof d->form_cache_warning, "%s", feint_cache_warning(cache));
  feint_cache_close(cache);
  if (status) return status;
  const auto t0 = std::chrono::steady_clock::now();
  cudaLibrary_t lib = NULL;
  const cudaError_t e = cudaLibraryLoadData(&lib, cubin, NULL, NULL, 0, NULL, NULL, 0);
  free(cubin);
  if (e != cudaSuccess) return FEINT_CUDA_FAIL(e, "loading the user form's compiled kernels");
  d->form_library = lib;
  void *k[FEINT_FORM_P1_KERNELS] = {};
  for (int i = 0; i < FEINT_FORM_P1_KERNELS; i++) {
    if ((i == FEINT_FORM_P1_BLOCK_MATRIX && s->components != 1) || (i == FEINT_FORM_P1_LEAN && !lean.on) ||
        (i == FEINT_FORM_P1_LEAN_PIPE && !lean.pipe))
      continue; /* not generated */
    cudaKernel_t h = NULL;
    FEINT_CUDA_CALL("the user form's compiled kernels", cudaLibraryGetKernel(&h, lib, feint_form_p1_kernels[i]));
    k[i] = reinterpret_cast<void *>(h);
  }
  d->form_jit.load_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  d->p1blk[0] = reinterpret_cast<blk_kernel_t>(k[FEINT_FORM_P1_VECTOR]);
  d->p1blk[1] = reinterpret_cast<blk_kernel_t>(k[FEINT_FORM_P1_BLOCK_MATRIX]);
  d->p1mat = reinterpret_cast<p1mat_kernel_t>(k[FEINT_FORM_P1_MATRIX]);
  d->p1matg = reinterpret_cast<p1matg_kernel_t>(k[FEINT_FORM_P1_MATRIX_GATHER]);
  d->p1lean = reinterpret_cast<blk_kernel_t>(k[FEINT_FORM_P1_LEAN]);
  d->p1pipe = reinterpret_cast<blk_kernel_t>(k[FEINT_FORM_P1_LEAN_PIPE]);
  if (lean.on) {
    d->lean_gather = lean.gather;
    d->lean_real = 8;
    d->lean_rw = lean.rw;
    d->lean_pf = d->tune.lean_prefetch >= 0 ? d->tune.lean_prefetch : lean.minb * d->sm_count;
  }
  return load_form_values(d, s, f);
}

/* P1: the packed node records (x, y, z, the nodal coefficient d->P.wa or
 * 0), one 32-byte sector (double) or 16-byte vector (single) per vertex
 * (the same speed as separate arrays, with half the loads);
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
  if (!d->d_xyzw) FEINT_CALL(feint_cuda_alloc(&d->d_xyzw, 4 * (size_t)nn * d->rs, phase));
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
  FEINT_CUDA_CALL(phase, cudaGetLastError());
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
  FEINT_CUDA_CALL("update of the form: set device", cudaSetDevice(d->device));
  if (d->form_source) { /* a user form: the same expressions, other values */
    const feint_form_cuda_layout L = feint_form_cuda_layout_of(f, s);
    char *src = NULL;
    feint_form_p1_lean lean;
    FEINT_CALL(form_lean_choice(d, b->problem, &lean));
    FEINT_CALL(feint_form_cuda_p1_source(f->user, &L, d->single, d->tune.form_minb, &lean, &src));
    const int same = !strcmp(src, d->form_source);
    free(src);
    if (!same)
      return feint_error_set(FEINT_BACKEND_CANNOT_REUSE,
                             "the user form's expressions changed: its GPU code is compiled again");
    FEINT_CALL(load_form_values(d, s, f));
  }
  FEINT_CALL(load_coefficients(d, s, f));
  memcpy(d->Pm.aux_const, d->P.aux_const, sizeof d->P.aux_const);
  if (d->d_xyzw) FEINT_CALL(load_node_records(d, s));
  if (d->d_order) FEINT_CALL(view_coefficients(d, d->d_order, "update of the curve-ordered cell data", &d->as, &d->Vs));
  if (d->Vc.cells)
    FEINT_CALL(view_coefficients(d, d->d_color_cells, "update of the colour-sorted cell data", &d->ac, &d->Vc));
  FEINT_CUDA_CALL("update of the form", cudaDeviceSynchronize());
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
  FEINT_CALL(feint_cuda_tuning_read(p, &d->tune));
  FEINT_CALL(feint_cuda_device_select(device_index, &dev));
  d->device = dev;
  FEINT_CUDA_CALL("CUDA device selection", cudaSetDevice(dev));
  cudaDeviceProp prop;
  FEINT_CUDA_CALL("CUDA device properties", cudaGetDeviceProperties(&prop, dev));
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
  FEINT_CALL(feint_cuda_timer_create(&d->timer, "CUDA events"));

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
  FEINT_CUDA_CALL("CUDA device", cudaGetDevice(&here));
  const feint_plan *pl = p->plan;
  const int *plan_sdofs = pl && pl->device == here ? (const int *)pl->device_sdofs : NULL;
  if (plan_sdofs && s->scalar_cell_dofs == m->cells)
    d->d_cells = (int *)plan_sdofs, d->cells_borrowed = 1;
  else
    FEINT_CALL(feint_cuda_upload_index32(&d->d_cells, m->cells, (size_t)(nc * m->nv), up));
  if (s->components == 1)
    d->d_sdofs = NULL;
  else if (s->scalar_cell_dofs == m->cells)
    d->d_sdofs = d->d_cells, d->sdofs_shared = 1;
  else if (plan_sdofs)
    d->d_sdofs = (int *)plan_sdofs, d->sdofs_shared = 1;
  else
    FEINT_CALL(feint_cuda_upload_index32(&d->d_sdofs, s->scalar_cell_dofs, (size_t)(nc * s->nb), up));
  if (s->cell_dofs == m->cells) { /* P1 scalar on the connectivity: one array on the device */
    d->d_cdofs = d->d_cells, d->cdofs_shared = 1;
  } else if (s->cell_dofs == s->scalar_cell_dofs && plan_sdofs) {
    d->d_cdofs = (int *)plan_sdofs, d->cdofs_shared = 1;
  } else if (s->components > 1 && s->components_interleaved && s->n_dofs < INT32_MAX) {
    /* dof * components + k from the scalar map already there (a vector
     * map uploaded took 120 ms of a 6M-cell elasticity setup) */
    const int64_t ne = nc * s->nb;
    FEINT_CALL(feint_cuda_alloc((void **)&d->d_cdofs, sizeof(int) * (size_t)(ne * s->components), up));
    expand_components_kernel<<<blocks_of(ne), 256>>>(ne, s->components, d->d_sdofs, d->d_cdofs);
    FEINT_CUDA_CALL(up, cudaGetLastError());
  } else {
    FEINT_CALL(feint_cuda_upload_index32(&d->d_cdofs, s->cell_dofs, (size_t)(nc * s->nbc), up));
  }
  P.x = d->d_x;
  P.y = d->d_y;
  P.z = d->d_z;
  P.cells = d->d_cells;
  P.cell_dofs = d->d_cdofs;
  P.sdofs = s->components == 1 ? d->d_cdofs : d->d_sdofs;
  const char *uf = "upload of the form";
  const int nqb = P.nq * P.nb;
  FEINT_CALL(feint_cuda_upload(&d->d_basis, f->basis, (size_t)nqb, uf));
  FEINT_CALL(feint_cuda_upload(&d->d_bgrad, f->basis_grad, (size_t)(nqb * P.dim), uf));
  FEINT_CALL(feint_cuda_upload(&d->d_w, f->quadrature->weights, (size_t)P.nq, uf));
  P.basis = d->d_basis;
  P.basis_grad = d->d_bgrad;
  P.weights = d->d_w;
  FEINT_CALL(load_coefficients(d, s, f));
  setup_step(d, "mesh, space and form upload");
  FEINT_CALL(feint_cuda_alloc(&d->d_u, d->rs * (size_t)s->n_dofs, "allocation of the state u"));
  FEINT_CALL(feint_cuda_alloc(&d->d_F, d->rs * (size_t)s->n_dofs, "allocation of the residual"));
  if (pl) {
    const char *upl = "upload of the plan (CSR pattern and slot map)";
    if (pl->device_indptr && pl->device_indices && pl->device == here) { /* built here: read in place */
      d->d_indptr = (int64_t *)pl->device_indptr;
      d->d_indices = (int *)pl->device_indices;
      d->pattern_borrowed = 1;
    } else {
      FEINT_CALL(feint_cuda_upload(&d->d_indptr, pl->indptr, (size_t)pl->n_rows + 1, upl));
      FEINT_CALL(feint_cuda_upload(&d->d_indices, pl->indices, (size_t)pl->nnz, upl));
    }
    if (pl->device_slots && pl->device == here) { /* built here: read in place (the plan frees it) */
      d->d_slots = (int *)pl->device_slots;
      d->slots_borrowed = 1;
    } else {
      FEINT_CALL(feint_plan_host_slots(pl));
      FEINT_CALL(feint_cuda_upload(&d->d_slots, pl->slots, (size_t)(pl->n_cells * pl->nbc * pl->nbc), upl));
    }
    FEINT_CALL(feint_cuda_alloc(&d->d_vals, d->rs * (size_t)pl->nnz, "allocation of the CSR values"));
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
    FEINT_CALL(feint_cuda_upload(&d->d_mbasis, f->matrix_basis, (size_t)(mq * P.nb), uf));
    FEINT_CALL(feint_cuda_upload(&d->d_mbgrad, f->matrix_basis_grad, (size_t)(mq * P.nb * P.dim), uf));
    FEINT_CALL(feint_cuda_upload(&d->d_mw, f->matrix_quadrature->weights, (size_t)mq, uf));
    d->Pm.nq = mq;
    d->Pm.basis = d->d_mbasis;
    d->Pm.basis_grad = d->d_mbgrad;
    d->Pm.weights = d->d_mw;
  }
  /* P1 one-thread-per-cell kernels: a user form's, compiled now, or the
   * built-in physics' */
  if (f->user) {
    if (!feint_cuda_p1_form_applies(p) || !P.interleaved ||
        !fill_p1tab(&d->T, P.nq, P.nb, P.dim, f->quadrature->weights, f->basis, f->basis_grad) ||
        !fill_p1tab(&d->Tm, d->Pm.nq, P.nb, P.dim,
                    f->matrix_quadrature ? f->matrix_quadrature->weights : f->quadrature->weights,
                    f->matrix_quadrature ? f->matrix_basis : f->basis,
                    f->matrix_quadrature ? f->matrix_basis_grad : f->basis_grad))
      return feint_error_set(FEINT_ERR_COMPUTE, "internal: a user form outside the P1 kernels reached them");
    FEINT_CALL(load_user_form(d, p));
  } else if (s->nb == P.dim + 1 && P.nv == P.dim + 1 && (P.dim != 3 || P.nv == 4) &&
      fill_p1tab(&d->T, P.nq, P.nb, P.dim, f->quadrature->weights, f->basis, f->basis_grad) &&
      fill_p1tab(&d->Tm, d->Pm.nq, P.nb, P.dim, f->matrix_quadrature ? f->matrix_quadrature->weights : f->quadrature->weights,
                 f->matrix_quadrature ? f->matrix_basis : f->basis,
                 f->matrix_quadrature ? f->matrix_basis_grad : f->basis_grad) &&
      f->n_aux == p1_naux(P.physics, P.dim, P.nc) && nc * 4 < INT32_MAX && nc * P.nbc * P.nbc < INT32_MAX)
    pick_p1(d, P.dim, P.nc, P.physics);
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
  if (!f->user) { /* a user form's lean kernels are its own (load_user_form) */
    d->p1lean = pick_lean(d, p, &d->lean_gather, &d->lean_real, &d->lean_rw, &d->lean_pf);
    d->p1pipe = NULL;
    if (d->p1lean && !d->single && P.physics == FEINT_PW_POISSON && P.nc == 1)
      d->p1pipe = lean_pipe_kernel((int)p->form->aux[0].kind);
  }
  {
    d->lean_pipe = d->tune.lean_pipe;
    if (d->p1pipe) {
      const char *phase = "pipelined residual kernel";
      FEINT_CALL(shmem_attr((const void *)d->p1pipe, lean_pipe_shmem(), phase));
      int per_sm = 0;
      FEINT_CUDA_CALL(phase, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, d->p1pipe, PIPE_CB, lean_pipe_shmem()));
      d->pipe_grid = std::max(1, per_sm) * d->sm_count;
      /* tests: fewer blocks, each looping over more chunks */
      if (d->tune.lean_pipe_grid) d->pipe_grid = std::min(d->pipe_grid, d->tune.lean_pipe_grid);
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
  d->bpc = d->tune.batches_per_chunk;
  const long optin = (long)prop.sharedMemPerBlockOptin;
  d->res_batch = choose_batch(P, res_cell_size(P), d->tune.blocks_per_batch, 128, optin);
  d->Pm.gq = P.gq;
  d->mat_batch = choose_batch(d->Pm, mat_cell_size(d->Pm), d->tune.blocks_per_batch, 64, optin);
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
   * order is the better one (tuning: mesh order, or the curve order
   * without comparing) */
  if (d->p1blk[0] && d->tune.cell_order != 0) FEINT_CALL(build_cell_order(s, d->tune.cell_order == 1, d));
  FEINT_CUDA_CALL("upload", cudaDeviceSynchronize());
  setup_step(d, "cell order");
  return FEINT_OK;
}

static double cuda_last_kernel_ms(feint_backend *b) { return ((const cuda_data *)b->data)->last_ms; }

extern "C" int feint_backend_cuda_create(const feint_problem *p, int device_index, feint_backend **out) {
  *out = NULL;
  FEINT_CALL(feint_backend_cuda_check_cells(p)); /* quadrilaterals, hexahedra, tets above order 2: cpu only */
  feint_backend *b = NULL;
  FEINT_CALL(feint_backend_alloc(p, sizeof(cuda_data), cuda_destroy, &b));
  cuda_data *d = (cuda_data *)b->data;
  int status = FEINT_OK;
  b->name = "cuda";
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

/* ------------------------------------------------------ introspection */

/* The hooks below read this backend's own state: not the element-matrix
 * backend's, which is also named "cuda" (src/backend/elmat_backend.c). */
int check_fused(const feint_backend *b) {
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
  st->user_form = d->form_source != NULL;
  st->jit_cache_hit = d->form_jit.cache_hit;
  st->jit_compile_ms = d->form_jit.compile_ms;
  st->jit_load_ms = d->form_jit.lookup_ms + d->form_jit.load_ms;
  snprintf(st->jit_key, sizeof st->jit_key, "%s", d->form_jit.key);
  snprintf(st->jit_warning, sizeof st->jit_warning, "%s", d->form_cache_warning);
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
  FEINT_CUDA_CALL(phase, cudaSetDevice(d->device));
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
  if ((st = feint_cuda_download(&out->uptr, B.d_uptr, nch + 1, phase)) ||
      (st = feint_cuda_download(&out->tgt, B.d_tgt, nu, phase)) ||
      (st = feint_cuda_download(&out->iend, B.d_iend, nu + 1, phase)) ||
      (st = feint_cuda_download(&out->ient, B.d_ient, nch * B.V.cb * B.V.ne, phase)) ||
      (st = feint_cuda_download(&out->lidx, B.d_lidx, nch * B.V.cb, phase)) ||
      (st = feint_cuda_download(&out->chunks, B.d_chunks, B.d_chunks ? nch : 0, phase)) ||
      (st = feint_cuda_download(&out->gptr, B.d_gptr, (size_t)B.n_targets + 1, phase)) ||
      (st = feint_cuda_download(&out->gent, B.d_gent, nu, phase))) {
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

__global__ void copy_kernel(int64_t n, const double2 *__restrict__ a, double2 *__restrict__ b) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    b[i] = a[i];
}

/* Device-to-device copy bandwidth (bytes read + written per second), the
 * roofline the kernels are measured against: cudaMemcpy D2D and a plain
 * copy kernel, best of `reps`, the larger of the two. */
extern "C" int feint_cuda_copy_bandwidth(int device_index, size_t bytes, int reps, double *gbs) {
  *gbs = 0;
  FEINT_CUDA_CALL("copy bandwidth: set device", cudaSetDevice(device_index < 0 ? 0 : device_index));
  void *a = NULL, *c = NULL;
  FEINT_CALL(feint_cuda_alloc(&a, bytes, "copy bandwidth"));
  int status = feint_cuda_alloc(&c, bytes, "copy bandwidth");
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
  if (e != cudaSuccess) return FEINT_CUDA_FAIL(e, "copy bandwidth");
  *gbs = 2.0 * (double)bytes / (best * 1e-3) / 1e9;
  return FEINT_OK;
}
