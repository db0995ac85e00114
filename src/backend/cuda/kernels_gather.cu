/* The gather strategy's reductions: each dof / nonzero sums its own
 * contributions in a fixed order, without atomics (deterministic). Both
 * read an inverse map (feint/inverse_map.h, uploaded by setup.cu: per
 * target its sources, increasing). The thread-transposition kernels write
 * element vectors / matrices to a buffer and gather_kernel sums them
 * through the inverse of the dof map / slot map; the P1 block kernels
 * write one partial sum per (chunk, target) and part_gather_kernel sums
 * each target's partials in chunk order (the inverse of the block plan's
 * targets: gptr / gent). */
#include "backend/cuda/fused.cuh"

/* Gather: out[r] = sum_k buf[ent[k]], k in ptr[r] .. ptr[r+1] (in order). */
template <typename S>
__global__ void gather_kernel(int64_t n, const int64_t *__restrict__ ptr, const int64_t *__restrict__ ent,
                              const S *__restrict__ buf, S *__restrict__ out) {
  for (int64_t r = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; r < n; r += (int64_t)gridDim.x * blockDim.x) {
    double s = 0;
    for (int64_t k = ptr[r]; k < ptr[r + 1]; k++) s += (double)buf[ent[k]];
    out[r] = (S)s;
  }
}

/* out[r * nco + cc] = sum of part[ent[k] * nco + cc], k in ptr[r] .. ptr[r + 1]
 * (the chunks' partial sums of target r, in chunk order). */
template <int NCO, typename S>
__global__ void __launch_bounds__(256) part_gather_kernel(int n, const int *__restrict__ ptr,
                                                          const int *__restrict__ ent,
                                                          const S *__restrict__ part, S *__restrict__ out) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n) return;
  double s[NCO];
#pragma unroll
  for (int cc = 0; cc < NCO; cc++) s[cc] = 0;
  const int k1 = __ldg(ptr + r + 1);
  for (int k = __ldg(ptr + r); k < k1; k++) {
    const int e = __ldg(ent + k);
#pragma unroll
    for (int cc = 0; cc < NCO; cc++) s[cc] += (double)__ldg(part + (size_t)e * NCO + cc);
  }
#pragma unroll
  for (int cc = 0; cc < NCO; cc++) out[(size_t)r * NCO + cc] = (S)s[cc];
}

/* out[r] = sum of the element buffer's entries of r (thread transposition's gather). */
void launch_gather(const cuda_data *d, int64_t n, const int64_t *ptr, const int64_t *ent, const void *buf,
                          void *out) {
  if (d->single)
    gather_kernel<float><<<blocks_of(n), 256>>>(n, ptr, ent, (const float *)buf, (float *)out);
  else
    gather_kernel<double><<<blocks_of(n), 256>>>(n, ptr, ent, (const double *)buf, (double *)out);
}

/* out = each target's chunk partial sums, in chunk order (block gather). */
template <typename S>
void launch_part_gather(const bplan &B, void *out) {
  const int nt = (int)B.n_targets;
  const S *part = (const S *)B.d_part;
  if (B.ncomp == 1)
    part_gather_kernel<1, S><<<blocks_of(nt), 256>>>(nt, B.d_gptr, B.d_gent, part, (S *)out);
  else if (B.ncomp == 2)
    part_gather_kernel<2, S><<<blocks_of(nt), 256>>>(nt, B.d_gptr, B.d_gent, part, (S *)out);
  else
    part_gather_kernel<3, S><<<blocks_of(nt), 256>>>(nt, B.d_gptr, B.d_gent, part, (S *)out);
}

template void launch_part_gather<float>(const bplan &B, void *out);
template void launch_part_gather<double>(const bplan &B, void *out);
