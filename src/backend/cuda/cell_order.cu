/* feint_cuda_curve_order, feint_cuda_chunk_colouring: see cell_order.h. */
#include <cuda_runtime.h>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

#include <stdint.h>
#include <string.h>

#include <algorithm>
#include <vector>

extern "C" {
#include "feint/coloring.h"
#include "feint/error.h"
}
#include "feint/morton.h"
#include "backend/cuda/cell_order.h"
#include "backend/cuda/common.cuh"

namespace {

typedef unsigned long long u64;

unsigned grid_of(int64_t n) {
  const int64_t b = (n + 255) / 256;
  return (unsigned)std::max<int64_t>(1, std::min<int64_t>(b, 1 << 20));
}

#define FOR_GRID(var, n) \
  for (int64_t var = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; var < (n); var += (int64_t)gridDim.x * blockDim.x)

int bits_for(int64_t n) { /* bits of the largest value below n */
  int b = 1;
  while (b < 62 && ((int64_t)1 << b) < n) b++;
  return b;
}

/* The host's key (feint/morton.h, src/plan/cell_order.c): the same
 * function, the same sums in the same order, so the same key for every
 * cell. */
__global__ void morton_keys_kernel(int64_t n, int nv, int dim, int bits, double lo0, double lo1, double lo2,
                                   double hi0, double hi1, double hi2, const double *__restrict__ x,
                                   const double *__restrict__ y, const double *__restrict__ z,
                                   const int *__restrict__ cells, int *__restrict__ keys, int *__restrict__ vals) {
  const double lo[3] = {lo0, lo1, lo2}, hi[3] = {hi0, hi1, hi2};
  const double *xs[3] = {x, y, z};
  FOR_GRID(c, n) {
    double sum[3] = {0, 0, 0};
    for (int a = 0; a < dim; a++)
      for (int i = 0; i < nv; i++) sum[a] = FEINT_DADD(sum[a], xs[a][cells[c * nv + i]]);
    keys[c] = feint_morton_key(dim, bits, nv, sum, lo, hi);
    vals[c] = (int)c;
  }
}

/* (dof << cbits) | chunk for every (position, local dof) */
__global__ void chunk_dof_keys_kernel(int64_t n_cells, int nb, int cb, int cbits, const int *__restrict__ sdofs,
                                      const int *__restrict__ order, u64 *__restrict__ keys) {
  FOR_GRID(p, n_cells) {
    const int64_t cell = order ? order[p] : p;
    const u64 chunk = (u64)(p / cb);
    for (int i = 0; i < nb; i++) keys[p * nb + i] = (u64)(unsigned)sdofs[cell * nb + i] << cbits | chunk;
  }
}

/* The first entry of j's dof among the unique sorted (dof, chunk) keys
 * (a dof's chunks are few: a short walk back). */
__device__ int64_t dof_start(const u64 *u, int64_t j, int cbits) {
  const u64 dof = u[j] >> cbits;
  int64_t s = j;
  while (s > 0 && u[s - 1] >> cbits == dof) s--;
  return s;
}

/* Entry j pairs its chunk with the earlier (smaller) chunks of its dof. */
__global__ void pair_count_kernel(int64_t U, int cbits, const u64 *__restrict__ u, long long *__restrict__ count) {
  FOR_GRID(j, U) count[j] = j - dof_start(u, j, cbits);
}

__global__ void pair_emit_kernel(int64_t U, int cbits, const u64 *__restrict__ u, const long long *__restrict__ off,
                                 u64 *__restrict__ pairs) {
  const u64 mask = ((u64)1 << cbits) - 1;
  FOR_GRID(j, U) {
    const int64_t s = dof_start(u, j, cbits);
    const u64 hi = u[j] & mask;
    for (int64_t t = s; t < j; t++) pairs[off[j] + (t - s)] = hi << cbits | (u[t] & mask);
  }
}

/* Sort n keys (bits [0, end_bit)) and keep each once: *kept of them, in
 * *out (one of the two buffers). */
int sort_unique(feint_cuda_scratch &S, u64 *a, u64 *b, int64_t n, int end_bit, u64 **out, int64_t *kept, const char *phase) {
  cub::DoubleBuffer<u64> db(a, b);
  size_t t_sort = 0, t_uniq = 0;
  int *d_n = NULL;
  FEINT_CUDA_CALL(phase, cub::DeviceRadixSort::SortKeys(NULL, t_sort, db, (int)n, 0, end_bit));
  FEINT_CUDA_CALL(phase, cub::DeviceSelect::Unique(NULL, t_uniq, a, b, d_n, (int)n));
  char *tmp = NULL;
  FEINT_CALL(S.alloc(&tmp, std::max(t_sort, t_uniq), phase));
  FEINT_CALL(S.alloc(&d_n, 1, phase));
  FEINT_CUDA_CALL(phase, cub::DeviceRadixSort::SortKeys(tmp, t_sort, db, (int)n, 0, end_bit));
  u64 *sorted = db.Current(), *dst = db.Alternate();
  FEINT_CUDA_CALL(phase, cub::DeviceSelect::Unique(tmp, t_uniq, sorted, dst, d_n, (int)n));
  int h_n = 0;
  FEINT_CUDA_CALL(phase, feint_cuda_memcpy(&h_n, d_n, sizeof h_n, cudaMemcpyDeviceToHost));
  *out = dst;
  *kept = h_n;
  return FEINT_OK;
}

}  // namespace

extern "C" int feint_cuda_curve_order(int64_t n_cells, int nv, int dim, int bits, const double lo[3],
                                      const double hi[3], const double *d_x, const double *d_y, const double *d_z,
                                      const int *d_cells, int **d_order) {
  const char *phase = "cell order (space-filling curve) on the GPU";
  *d_order = NULL;
  if (n_cells >= INT32_MAX) return feint_error_set(FEINT_ERR_COMPUTE, "%s: more than 2^31 cells", phase);
  feint_cuda_scratch S;
  int *k0 = NULL, *k1 = NULL, *v0 = NULL, *v1 = NULL;
  FEINT_CALL(S.alloc(&k0, (size_t)n_cells, phase));
  FEINT_CALL(S.alloc(&k1, (size_t)n_cells, phase));
  FEINT_CALL(S.alloc(&v0, (size_t)n_cells, phase));
  FEINT_CALL(S.alloc(&v1, (size_t)n_cells, phase));
  morton_keys_kernel<<<grid_of(n_cells), 256>>>(n_cells, nv, dim, bits, lo[0], lo[1], lo[2], hi[0], hi[1], hi[2], d_x,
                                                 d_y, dim > 2 ? d_z : d_x, d_cells, k0, v0);
  FEINT_CUDA_CALL(phase, cudaGetLastError());
  cub::DoubleBuffer<int> kq(k0, k1), vq(v0, v1);
  size_t t_sort = 0;
  FEINT_CUDA_CALL(phase, cub::DeviceRadixSort::SortPairs(NULL, t_sort, kq, vq, (int)n_cells, 0, dim * bits));
  char *tmp = NULL;
  FEINT_CALL(S.alloc(&tmp, t_sort, phase));
  /* LSD radix sort is stable: cells of one key stay in mesh order */
  FEINT_CUDA_CALL(phase, cub::DeviceRadixSort::SortPairs(tmp, t_sort, kq, vq, (int)n_cells, 0, dim * bits));
  FEINT_CUDA_CALL(phase, cudaDeviceSynchronize());
  *d_order = vq.Current();
  S.keep(*d_order);
  return FEINT_OK;
}

extern "C" int feint_cuda_chunk_colouring(const int *d_sdofs, int64_t n_cells, int nb, int64_t n_scalar_dofs,
                                          const int *d_order, int cb, int max_colours, int *color, int *n_colors,
                                          const char *phase) {
  *n_colors = 0;
  const int64_t n_chunks = (n_cells + cb - 1) / cb, E = n_cells * nb;
  if (n_chunks <= 0) return FEINT_OK;
  const int cbits = bits_for(n_chunks), dbits = bits_for(n_scalar_dofs);
  if (E >= INT32_MAX || cbits + dbits > 64 || 2 * cbits > 64)
    return feint_error_set(FEINT_ERR_COMPUTE, "%s: %lld cell entries: more than the GPU colouring's 2^31", phase,
                           (long long)E);
  feint_cuda_scratch S;
  u64 *a = NULL, *b = NULL, *u = NULL;
  FEINT_CALL(S.alloc(&a, (size_t)E, phase));
  FEINT_CALL(S.alloc(&b, (size_t)E, phase));
  chunk_dof_keys_kernel<<<grid_of(n_cells), 256>>>(n_cells, nb, cb, cbits, d_sdofs, d_order, a);
  FEINT_CUDA_CALL(phase, cudaGetLastError());
  int64_t U = 0;
  FEINT_CALL(sort_unique(S, a, b, E, cbits + dbits, &u, &U, phase));
  /* pairs (chunk, earlier chunk) of every dof */
  long long *count = NULL, *off = NULL;
  FEINT_CALL(S.alloc(&count, (size_t)U, phase));
  FEINT_CALL(S.alloc(&off, (size_t)U, phase));
  pair_count_kernel<<<grid_of(U), 256>>>(U, cbits, u, count);
  FEINT_CUDA_CALL(phase, cudaGetLastError());
  size_t t_scan = 0;
  FEINT_CUDA_CALL(phase, cub::DeviceScan::ExclusiveSum(NULL, t_scan, count, off, (int)U));
  char *tmp = NULL;
  FEINT_CALL(S.alloc(&tmp, t_scan, phase));
  FEINT_CUDA_CALL(phase, cub::DeviceScan::ExclusiveSum(tmp, t_scan, count, off, (int)U));
  long long last[2] = {0, 0};
  FEINT_CUDA_CALL(phase, feint_cuda_memcpy(&last[0], off + U - 1, sizeof(long long), cudaMemcpyDeviceToHost));
  FEINT_CUDA_CALL(phase, feint_cuda_memcpy(&last[1], count + U - 1, sizeof(long long), cudaMemcpyDeviceToHost));
  const int64_t n_pairs = last[0] + last[1];
  if (n_pairs >= INT32_MAX)
    return feint_error_set(FEINT_ERR_COMPUTE, "%s: %lld chunk pairs: more than the GPU colouring's 2^31", phase,
                           (long long)n_pairs);
  std::vector<uint64_t> edge;
  if (n_pairs > 0) {
    u64 *p0 = NULL, *p1 = NULL, *e = NULL;
    FEINT_CALL(S.alloc(&p0, (size_t)n_pairs, phase));
    FEINT_CALL(S.alloc(&p1, (size_t)n_pairs, phase));
    pair_emit_kernel<<<grid_of(U), 256>>>(U, cbits, u, off, p0);
    FEINT_CUDA_CALL(phase, cudaGetLastError());
    int64_t M = 0;
    FEINT_CALL(sort_unique(S, p0, p1, n_pairs, 2 * cbits, &e, &M, phase));
    edge.resize((size_t)M);
    FEINT_CUDA_CALL(phase, feint_cuda_memcpy(edge.data(), e, sizeof(u64) * (size_t)M, cudaMemcpyDeviceToHost));
  }
  /* greedy in chunk order over the earlier neighbours (edges sorted by
   * (chunk, earlier chunk)), on the host */
  return feint_colour_graph(n_chunks, edge.data(), (int64_t)edge.size(), cbits, max_colours, phase,
                            color, n_colors);
}
