/* What the fused backend builds once from the mesh, the space and the
 * plan, for its strategies and its P1 kernels: the P1 tables, the cell
 * colouring and the chunk colourings (feint/coloring.h; on the GPU
 * through cell_order.h where that applies), the inverse maps of the gather
 * strategy (feint/inverse_map.h, uploaded), the copies of the per-cell
 * data in another cell order (views), the space-filling-curve cell order
 * (feint/cell_order.h, or on the GPU), and the block-local aggregation
 * plans (on the GPU, or on the host as the reference). The kernels read
 * them; cuda.cu decides when each is built. */
#include <cub/block/block_discontinuity.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

#include "backend/cuda/fused.cuh"
extern "C" {
#include "feint/cell_order.h"
#include "feint/coloring.h"
#include "feint/inverse_map.h"
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

/* An index array to the device as it is (int64) or narrowed (int32). */
static int upload_index(int64_t **dst, const int64_t *src, size_t n, const char *phase) {
  return feint_cuda_upload(dst, src, n, phase);
}
static int upload_index(int **dst, const int64_t *src, size_t n, const char *phase) {
  return feint_cuda_upload_index32(dst, src, n, phase);
}

/* The inverse of the map source e -> target (target64[e], or target32[e]
 * where target64 is NULL), e < n, onto nt targets (feint/inverse_map.h:
 * per target its sources in increasing order) uploaded: *d_ptr (nt + 1)
 * and *d_ent, as IT; edit(m) may rewrite the entries first. */
template <typename IT, typename Edit>
static int upload_inverse(int64_t n, const int64_t *target64, const int32_t *target32, int64_t nt, Edit edit,
                          IT **d_ptr, IT **d_ent, const char *phase) {
  feint_inverse_map *m = NULL;
  FEINT_CALL(feint_inverse_map_create(n, target64, target32, nt, phase, &m));
  edit(m);
  int st = upload_index(d_ptr, m->offsets, (size_t)nt + 1, phase);
  if (!st) st = upload_index(d_ent, m->entries, (size_t)m->n_entries, phase);
  feint_inverse_map_destroy(m);
  return st;
}

static void as_is(feint_inverse_map *) {}

/* The items (cells or chunks, n) of each colour: *ptr (host, n_colors + 1;
 * colour k holds items ptr[k] .. ptr[k + 1]) and *d_list (device, the
 * items by colour, increasing within one): the colouring's inverse map. */
template <typename IT>
static int colour_lists(const int *color, int64_t n, int n_colors, IT **ptr, int **d_list, const char *phase) {
  feint_inverse_map *m = NULL;
  IT *p = NULL;
  FEINT_CALL(feint_inverse_map_create(n, NULL, color, n_colors, phase, &m));
  int st = feint_malloc((size_t)n_colors + 1, sizeof *p, &p, phase);
  if (!st) {
    for (int k = 0; k <= n_colors; k++) p[k] = (IT)m->offsets[k];
    st = upload_index(d_list, m->entries, (size_t)n, phase);
  }
  feint_inverse_map_destroy(m);
  if (st) {
    free(p);
    return st;
  }
  *ptr = p; /* set last: a set *ptr means the colouring was built */
  return FEINT_OK;
}

/* The greedy colouring (feint/coloring.h) of the chunks of cb cells in
 * the order ord (host; NULL: mesh order), on the host. */
static int colour_on_host(const feint_space *s, const int *ord, int cb, std::vector<int> &color, int *n_colors,
                          const char *phase) {
  const int64_t n_cells = s->mesh->n_cells;
  color.assign((size_t)((n_cells + cb - 1) / cb), 0);
  return feint_colour_chunks(s->scalar_cell_dofs, n_cells, s->nb, s->n_scalar_dofs, ord, cb, FEINT_MAX_COLOURS, phase,
                             color.data(), n_colors);
}

/* Cell colouring (strategy colored, thread-transposition and per-cell
 * kernels), built on first use: the P1 block kernels colour their chunks
 * instead, and a single run should not pay for a colouring nothing reads. */
int build_coloring(const feint_problem *p, cuda_data *d) {
  if (d->color_ptr || p->strategy != FEINT_ASSEMBLY_COLORED) return FEINT_OK;
  const char *phase = "cell colouring";
  std::vector<int> color;
  int n_colors = 0;
  FEINT_CALL(colour_on_host(p->space, NULL, 1, color, &n_colors, phase));
  FEINT_CALL(colour_lists(color.data(), (int64_t)color.size(), n_colors, &d->color_ptr, &d->d_color_cells, phase));
  d->n_colors = n_colors;
  return FEINT_OK;
}

int fill_p1tab(p1tab *T, int nq, int nb, int dim, const double *w, const double *basis, const double *bgrad) {
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
  for (int i = 0; i < nb; i++) {
    if (!(T->wphi[i] > 0)) return 0; /* every rule of a P1 form integrates phi_i > 0 exactly */
    T->pmean[i] = T->wphi[i] / T->wsum;
    for (int j = 0; j < nb; j++) T->pmass[i][j] = T->mass[i][j] / T->wphi[i];
  }
  return 1;
}

/* Scalar dof -> (cell * 4 + local vertex), in increasing cell order (P1). */
int build_node_map(const feint_space *s, cuda_data *d) {
  const int64_t nc = s->mesh->n_cells, nsd = s->n_scalar_dofs;
  const int nb = s->nb;
  const char *phase = "dof-to-cell map (P1 gather)";
  if (nc * 4 > INT32_MAX || nc * nb > INT32_MAX)
    return feint_error_set(FEINT_ERR_COMPUTE, "%s: too many cells for 32-bit indices", phase);
  const auto to_vertex = [nb](feint_inverse_map *m) { /* entry c * nb + i -> c * 4 + i */
    for (int64_t k = 0; k < m->n_entries; k++) m->entries[k] = m->entries[k] / nb * 4 + m->entries[k] % nb;
  };
  return upload_inverse(nc * nb, s->scalar_cell_dofs, NULL, nsd, to_vertex, &d->d_nptr, &d->d_nent, phase);
}

/* dst[k] = src[list[k]] (w values each), dst allocated on first use (a
 * sweep member's new coefficients go into the old copy). */
template <typename T>
static int permuted(T **dst, const T *src, int w, const int *list, int64_t n, const char *phase) {
  if (!*dst) FEINT_CALL(feint_cuda_alloc((void **)dst, sizeof(T) * (size_t)(n * w), phase));
  permute_kernel<T><<<4096, 256>>>((int)n, w, list, src, *dst);
  FEINT_CUDA_CALL(phase, cudaGetLastError());
  return FEINT_OK;
}

/* A view's copies of the per-cell (P0) coefficient fields, in the order
 * `list`: at build, and again for a sweep member's new values. */
int view_coefficients(const cuda_data *d, const int *list, const char *phase, view_arrays *a, cview *V) {
  const kparams &P = d->P;
  for (int k = 0; k < P.n_aux; k++)
    if (P.aux_kind[k] == FEINT_FIELD_CELL || P.aux_kind[k] == FEINT_FIELD_CELL_NODE) {
      const int width = P.aux_kind[k] == FEINT_FIELD_CELL ? 1 : P.nb; /* per cell's nodes: nb a cell */
      if (d->single)
        FEINT_CALL(permuted((float **)&a->caux[k], (const float *)P.aux_vals[k], width, list, P.n_cells, phase));
      else
        FEINT_CALL(permuted((double **)&a->caux[k], (const double *)P.aux_vals[k], width, list, P.n_cells, phase));
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
int build_color_views(const feint_problem *p, cuda_data *d) {
  FEINT_CALL(build_coloring(p, d));
  return build_view(d, d->d_color_cells, p->plan && d->p1mat, "colour-sorted cell data", &d->ac, &d->Vc);
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
    FEINT_CUDA_CALL("cell order (host copy)", feint_cuda_memcpy(d->h_order, d->d_order, n * sizeof(int), cudaMemcpyDeviceToHost));
  }
  *ord = d->h_order;
  return FEINT_OK;
}

/* The chunk colouring feint_colour_chunks defines, for chunks of cb cells
 * in the order d_ord (device; NULL: mesh order): on the GPU where that
 * applies (the same colours: cell_order.h), else on the host. */
static int colour_chunks(const feint_space *s, cuda_data *d, const int *d_ord, int cb, std::vector<int> &color,
                         int *n_colors, const char *phase) {
  const int64_t n_cells = s->mesh->n_cells;
  if (setup_on_gpu(d) && n_cells * s->nb < INT32_MAX) {
    color.assign((size_t)((n_cells + cb - 1) / cb), 0);
    FEINT_CALL(feint_cuda_chunk_colouring(d->P.sdofs, n_cells, s->nb, s->n_scalar_dofs, d_ord, cb, FEINT_MAX_COLOURS,
                                          color.data(), n_colors, phase));
    d->colouring_on_gpu = 1;
    return FEINT_OK;
  }
  if (!d_ord) return colour_on_host(s, NULL, cb, color, n_colors, phase);
  if (d_ord == d->d_order) {
    const int *ord = NULL;
    FEINT_CALL(host_order(s, d, &ord));
    return colour_on_host(s, ord, cb, color, n_colors, phase);
  }
  /* an order not chosen yet (build_cell_order compares it) */
  std::vector<int> ord((size_t)n_cells);
  FEINT_CUDA_CALL(phase, feint_cuda_memcpy(ord.data(), d_ord, sizeof(int) * ord.size(), cudaMemcpyDeviceToHost));
  return colour_on_host(s, ord.data(), cb, color, n_colors, phase);
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

/* The space-filling-curve cell order (feint/cell_order.h), made on the
 * GPU where that applies (the same order: cell_order.h), else on the
 * host and uploaded. Used (d->d_order: position -> mesh cell, and the
 * view d->Vs) when forced or when its chunks need fewer colours than the
 * mesh order's: a mesh written in a sweep order (a structured grid) keeps
 * it, since its long thin chunks flush faster than compact ones. */
int build_cell_order(const feint_space *s, int force, cuda_data *d) {
  const feint_mesh *m = s->mesh;
  const int64_t n = m->n_cells;
  const char *phase = "cell order (space-filling curve)";
  feint_curve curve;
  feint_curve_of_mesh(m, &curve);
  int *order = NULL;
  if (setup_on_gpu(d) && n < INT32_MAX) {
    FEINT_CALL(feint_cuda_curve_order(n, curve.nv, curve.dim, curve.bits, curve.lo, curve.hi, (const double *)d->d_x,
                                      (const double *)d->d_y, (const double *)d->d_z, d->d_cells, &order));
    d->order_on_gpu = 1;
  } else {
    std::vector<int> h_order((size_t)n);
    FEINT_CALL(feint_curve_order(m, &curve, h_order.data(), phase));
    FEINT_CALL(feint_cuda_upload(&order, h_order.data(), (size_t)n, phase));
  }
  if (!force) {
    /* keep the mesh order where it is as good: chunks that touch fewer
     * other chunks (fewer chunk colours) */
    std::vector<int> color, color2;
    int n_mesh = 0, n_curve = 0, st = FEINT_OK;
    if (!(st = colour_chunks(s, d, NULL, d->tune.chunk_cells, color2, &n_mesh, phase)))
      st = colour_chunks(s, d, order, d->tune.chunk_cells, color, &n_curve, phase);
    if (st) {
      cudaFree(order);
      return st;
    }
    d->order_colors[0] = n_mesh;
    d->order_colors[1] = n_curve;
    /* the chosen order's colouring is the block plans' (chunk_colouring) */
    st = keep_chunk_colouring(d, n_curve >= n_mesh ? color2 : color, n_curve >= n_mesh ? n_mesh : n_curve,
                              d->tune.chunk_cells, phase);
    if (st || n_curve >= n_mesh) {
      cudaFree(order);
      return st;
    }
  }
  d->d_order = order;
  return build_view(d, d->d_order, 0, phase, &d->as, &d->Vs);
}

/* The thread-transposition gather's inverse maps, built on first use. */
int ensure_generic_gather(const feint_problem *p, cuda_data *d, int matrix) {
  const feint_space *s = p->space;
  const int64_t nc = s->mesh->n_cells;
  if (!matrix && !d->d_vptr)
    FEINT_CALL(upload_inverse(nc * s->nbc, s->cell_dofs, NULL, s->n_dofs, as_is, &d->d_vptr, &d->d_vent,
                             "dof-to-cell map for the gather assembly"));
  if (matrix && p->plan && !d->d_mptr) {
    FEINT_CALL(feint_plan_host_slots(p->plan));
    FEINT_CALL(upload_inverse(nc * s->nbc * s->nbc, NULL, p->plan->slots, p->plan->nnz, as_is, &d->d_mptr, &d->d_ment,
                             "nonzero-to-cell map for the gather assembly"));
  }
  return FEINT_OK;
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
  feint_cuda_scratch S;
  int *d_count = NULL, *d_info = NULL, *d_uptr = NULL;
  uint16_t *d_ient = NULL;
  FEINT_CALL(S.alloc(&d_count, (size_t)n_chunks + 1, phase));
  FEINT_CALL(S.alloc(&d_info, 2, phase));
  FEINT_CALL(S.alloc(&d_uptr, (size_t)n_chunks + 1, phase));
  FEINT_CALL(S.alloc(&d_ient, (size_t)(n_chunks * n_ent), phase));
  FEINT_CUDA_CALL(phase, cudaMemset(d_count, 0, sizeof(int) * ((size_t)n_chunks + 1)));
  FEINT_CUDA_CALL(phase, cudaMemset(d_info, 0, sizeof(int) * 2));
  const int small = n_ent <= BPG_THREADS * 4;
  if (small)
    bpg_sort_kernel<4><<<(unsigned)n_chunks, BPG_THREADS>>>(A, d_ient, d_count, d_info);
  else
    bpg_sort_kernel<16><<<(unsigned)n_chunks, BPG_THREADS>>>(A, d_ient, d_count, d_info);
  FEINT_CUDA_CALL(phase, cudaGetLastError());
  {
    size_t tmp_bytes = 0;
    char *tmp = NULL;
    FEINT_CUDA_CALL(phase, cub::DeviceScan::InclusiveSum(NULL, tmp_bytes, d_count, d_uptr, (int)n_chunks + 1));
    FEINT_CALL(S.alloc(&tmp, tmp_bytes, phase));
    FEINT_CUDA_CALL(phase, cub::DeviceScan::InclusiveSum(tmp, tmp_bytes, d_count, d_uptr, (int)n_chunks + 1));
  }
  int info[2] = {0, 0}, n_u = 0;
  FEINT_CUDA_CALL(phase, feint_cuda_memcpy(info, d_info, sizeof info, cudaMemcpyDeviceToHost));
  FEINT_CUDA_CALL(phase, feint_cuda_memcpy(&n_u, d_uptr + n_chunks, sizeof n_u, cudaMemcpyDeviceToHost));
  if (info[0]) return FEINT_OK; /* a target outside [0, nt): the host builder */
  int *d_tgt = NULL;
  uint16_t *d_iend = NULL;
  uint32_t *d_lidx = NULL;
  FEINT_CALL(S.alloc(&d_tgt, (size_t)n_u, phase));
  FEINT_CALL(S.alloc(&d_iend, (size_t)n_u + 1, phase)); /* the pad: the pipelined kernel copies whole 4-byte words */
  FEINT_CUDA_CALL(phase, cudaMemset(d_iend, 0, sizeof(uint16_t) * ((size_t)n_u + 1)));
  if (want_lidx && info[1] <= 256) {
    FEINT_CALL(S.alloc(&d_lidx, (size_t)(n_chunks * cb), phase));
    FEINT_CUDA_CALL(phase, cudaMemset(d_lidx, 0, sizeof(uint32_t) * (size_t)(n_chunks * cb)));
  }
  if (small)
    bpg_emit_kernel<4><<<(unsigned)n_chunks, BPG_THREADS>>>(A, d_ient, d_uptr, d_tgt, d_iend, d_lidx);
  else
    bpg_emit_kernel<16><<<(unsigned)n_chunks, BPG_THREADS>>>(A, d_ient, d_uptr, d_tgt, d_iend, d_lidx);
  FEINT_CUDA_CALL(phase, cudaGetLastError());
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
    FEINT_CUDA_CALL(phase, cudaMemset(d_gcnt, 0, sizeof(int) * ((size_t)nt + 1)));
    bpg_count_kernel<<<grid_capped(n_u), 256>>>(n_u, d_tgt, d_gcnt);
    FEINT_CUDA_CALL(phase, cudaGetLastError());
    bpg_iota_kernel<<<grid_capped(n_u), 256>>>(n_u, d_iota);
    FEINT_CUDA_CALL(phase, cudaGetLastError());
    size_t scan_bytes = 0, sort_bytes = 0;
    FEINT_CUDA_CALL(phase, cub::DeviceScan::InclusiveSum(NULL, scan_bytes, d_gcnt, d_gptr, (int)nt + 1));
    FEINT_CUDA_CALL(phase, cub::DeviceRadixSort::SortPairs(NULL, sort_bytes, (const unsigned *)d_tgt, d_ksorted,
                                                     (const int *)d_iota, d_gent, n_u, 0, tb));
    char *tmp = NULL;
    FEINT_CALL(S.alloc(&tmp, std::max(scan_bytes, sort_bytes), phase));
    FEINT_CUDA_CALL(phase, cub::DeviceScan::InclusiveSum(tmp, scan_bytes, d_gcnt, d_gptr, (int)nt + 1));
    /* stable: within a target, the entries stay in chunk order */
    FEINT_CUDA_CALL(phase, cub::DeviceRadixSort::SortPairs(tmp, sort_bytes, (const unsigned *)d_tgt, d_ksorted,
                                                     (const int *)d_iota, d_gent, n_u, 0, tb));
    FEINT_CALL(S.alloc(&d_part, d->rs * (size_t)n_u * (which ? 1 : s->components), phase));
  }
  FEINT_CUDA_CALL(phase, cudaDeviceSynchronize());
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
  FEINT_CALL(feint_cuda_upload(&B.d_uptr, ucount.data(), (size_t)n_chunks + 1, phase));
  FEINT_CALL(feint_cuda_upload(&B.d_tgt, tgt.data(), (size_t)n_u, phase));
  iend.push_back(0); /* a pad: the pipelined kernel copies whole 4-byte words of iend */
  FEINT_CALL(feint_cuda_upload(&B.d_iend, iend.data(), iend.size(), phase));
  FEINT_CALL(feint_cuda_upload(&B.d_ient, ient.data(), ient.size(), phase));
  if (want_lidx && std::find(lidx_over.begin(), lidx_over.end(), 1) == lidx_over.end())
    FEINT_CALL(feint_cuda_upload(&B.d_lidx, lidx.data(), lidx.size(), phase));
  B.n_u = n_u;
  std::vector<uint16_t>().swap(ient);
  if (p->strategy == FEINT_ASSEMBLY_GATHER) {
    const int64_t nt = which ? p->plan->nnz : s->n_scalar_dofs;
    /* per target its partials in chunk order */
    FEINT_CALL(upload_inverse(n_u, NULL, tgt.data(), nt, as_is, &B.d_gptr, &B.d_gent, phase));
    FEINT_CALL(feint_cuda_alloc(&B.d_part, d->rs * (size_t)n_u * (which ? 1 : s->components), phase));
    B.n_targets = nt;
  }
  return FEINT_OK;
}

/* Build the block-local aggregation plan `which` on first use: its arrays
 * on the GPU where that applies, else on the host; then, strategy colored,
 * the chunks sorted by colour (the colouring shared by both plans). */
int build_bplan(const feint_problem *p, cuda_data *d, int which) {
  const auto t0 = std::chrono::steady_clock::now();
  const feint_space *s = p->space;
  const int64_t n_cells = s->mesh->n_cells;
  const int nb = s->nb, nbc = s->nbc;
  const int ne = which ? nbc * nbc : nb;
  const int cb = d->tune.chunk_cells;
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
    FEINT_CALL(colour_lists(d->chunk_color, d->chunk_color_n, d->chunk_colors, &B.color_ptr, &B.d_chunks, phase));
    B.n_colors = d->chunk_colors;
  }
  FEINT_CUDA_CALL(phase, cudaDeviceSynchronize());
  B.build_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  B.built = 1;
  return FEINT_OK;
}

