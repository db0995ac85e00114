/* The symbolic phase of assembly on the GPU (issue 3): the CSR pattern and
 * slot map of feint_plan_create (src/plan/plan.c), built on the current
 * CUDA device with CUB and copied back, bit for bit the same plan.
 *
 * On the scalar dof map (nb dofs per cell, E = cells x nb^2 entries):
 * 1. keys: entry e = (c, i, j) -> key (dof_i << bits) | dof_j, value e
 *    (bits = the bits of the largest scalar dof);
 * 2. radix sort of (key, e) over the 2 * bits significant key bits: entries
 *    now run in CSR order (row, then column);
 * 3. head flags (key differs from its predecessor), inclusive scan: the
 *    rank of each sorted entry minus one is its CSR position;
 * 4. scatter: slot[e] = position; at heads, column[position] = dof_j and
 *    one more entry in row dof_i; a scan of the row counts gives indptr;
 * 5. nc > 1 components (dof = s * nc + k, local dof i * nc + k): expand
 *    indptr, columns and slots as plan.c does (each scalar nonzero is an
 *    nc x nc block; row s*nc + k starts at nc^2 b + k nc len).
 * Device time of the symbolic phase (steps 1-5, CUDA events) is reported
 * apart from the host-to-device copy of the cell dof map and the copy of
 * the plan back (feint_plan_cuda_stats). Buffers are allocated outside the
 * timed windows. */
#include <cuda_runtime.h>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <vector>

extern "C" {
#include "feint/backend.h"
#include "feint/error.h"
#include "feint/plan.h"
#include "backend/cuda/cuda_timing.h"
}
#define FEINT_CUDA_MODULE "GPU symbolic phase"
#include "backend/cuda/common.cuh"

namespace {

struct dev_pool {
  void *ptr[24];
  size_t bytes[24];
  int n;
  size_t cur, peak;
};

int pool_alloc(dev_pool *m, void *out, size_t bytes, const char *phase) {
  void *p = NULL;
  *(void **)out = NULL;
  if (m->n == (int)(sizeof m->ptr / sizeof m->ptr[0]))
    return feint_error_set(FEINT_ERR_COMPUTE, "GPU symbolic phase: too many buffers");
  FEINT_CALL(feint_cuda_malloc(&p, bytes, "GPU symbolic phase", phase));
  m->ptr[m->n] = p;
  m->bytes[m->n++] = bytes;
  m->cur += bytes;
  if (m->cur > m->peak) m->peak = m->cur;
  *(void **)out = p;
  return FEINT_OK;
}

/* Put a buffer allocated elsewhere into the pool (freed with it). */
int pool_adopt(dev_pool *m, void *p, size_t bytes) {
  if (m->n == (int)(sizeof m->ptr / sizeof m->ptr[0])) {
    cudaFree(p);
    return feint_error_set(FEINT_ERR_COMPUTE, "GPU symbolic phase: too many buffers");
  }
  m->ptr[m->n] = p;
  m->bytes[m->n++] = bytes;
  m->cur += bytes;
  if (m->cur > m->peak) m->peak = m->cur;
  return FEINT_OK;
}

/* Take a buffer out of the pool: its owner frees it. */
void pool_detach(dev_pool *m, const void *ptr) {
  for (int k = 0; k < m->n; k++)
    if (m->ptr[k] == ptr) {
      m->cur -= m->bytes[k];
      m->ptr[k] = m->ptr[m->n - 1];
      m->bytes[k] = m->bytes[m->n - 1];
      m->n--;
      return;
    }
}

void pool_free_all(dev_pool *m) {
  for (int k = 0; k < m->n; k++) cudaFree(m->ptr[k]);
  m->n = 0;
  m->cur = 0;
}

double wall_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return 1e3 * (double)t.tv_sec + 1e-6 * (double)t.tv_nsec;
}

unsigned grid_for(int64_t n, int threads) {
  int64_t b = (n + threads - 1) / threads;
  if (b < 1) b = 1;
  if (b > (int64_t)1 << 20) b = (int64_t)1 << 20; /* grid-stride loops beyond */
  return (unsigned)b;
}

#define GRID_STRIDE(type, var, n)                                                               \
  for (type var = (type)blockIdx.x * blockDim.x + threadIdx.x; var < (n);                        \
       var += (type)gridDim.x * blockDim.x)

__global__ void keys_kernel(int E, int nb, int bits, const int *__restrict__ cd,
                            unsigned long long *__restrict__ keys, int *__restrict__ vals) {
  const int nb2 = nb * nb;
  GRID_STRIDE(int64_t, e64, E) {
    const int e = (int)e64;
    const int c = e / nb2, rem = e - c * nb2, i = rem / nb, j = rem - i * nb;
    const unsigned long long di = (unsigned long long)cd[(int64_t)c * nb + i];
    const unsigned long long dj = (unsigned long long)cd[(int64_t)c * nb + j];
    keys[e] = (di << bits) | dj;
    vals[e] = e;
  }
}

__global__ void flags_kernel(int E, const unsigned long long *__restrict__ keys, int *__restrict__ flags) {
  GRID_STRIDE(int64_t, p, E) flags[p] = p == 0 || keys[p] != keys[p - 1];
}

/* rank (inclusive scan of the flags) -> slot of each entry; at heads the
 * column and one more entry in the row (counts[row + 1]). */
__global__ void scatter_kernel(int E, int bits, const unsigned long long *__restrict__ keys,
                               const int *__restrict__ vals, const int *__restrict__ rank,
                               int *__restrict__ sslot, int *__restrict__ col, int *__restrict__ row,
                               int *__restrict__ counts) {
  const unsigned long long mask = (1ull << bits) - 1;
  GRID_STRIDE(int64_t, p, E) {
    const int r = rank[p] - 1;
    const unsigned long long k = keys[p];
    sslot[vals[p]] = r;
    if (p == 0 || k != keys[p - 1]) {
      const int dr = (int)(k >> bits);
      col[r] = (int)(k & mask);
      if (row) row[r] = dr;
      atomicAdd(counts + dr + 1, 1);
    }
  }
}

__global__ void expand_indptr_kernel(int64_t n, int nc, const int64_t *__restrict__ sindptr,
                                     int64_t *__restrict__ indptr) {
  GRID_STRIDE(int64_t, R, n) {
    const int64_t s = R / nc, k = R - s * nc, b = sindptr[s], len = sindptr[s + 1] - b;
    indptr[R] = nc * nc * b + k * nc * len;
    if (R == n - 1) indptr[n] = nc * nc * sindptr[s + 1];
  }
}

__global__ void expand_indices_kernel(int snnz, int nc, const int64_t *__restrict__ sindptr,
                                      const int *__restrict__ col, const int *__restrict__ row,
                                      int *__restrict__ indices) {
  GRID_STRIDE(int64_t, p, snnz) {
    const int s = row[p];
    const int b = (int)sindptr[s], len = (int)sindptr[s + 1] - b, q = (int)p - b, cl = col[p] * nc;
    for (int k = 0; k < nc; k++) {
      int *dst = indices + nc * nc * b + k * nc * len + q * nc;
      for (int l = 0; l < nc; l++) dst[l] = cl + l;
    }
  }
}

/* one thread per output slot (coalesced writes) */
__global__ void expand_slots_kernel(int64_t total, int nb, int nc, const int *__restrict__ cd,
                                    const int64_t *__restrict__ sindptr, const int *__restrict__ sslot,
                                    int *__restrict__ slots) {
  const int nbc = nb * nc, nbc2 = nbc * nbc;
  GRID_STRIDE(int64_t, o, total) {
    const int64_t c = o / nbc2;
    const int rem = (int)(o - c * nbc2), I = rem / nbc, J = rem - I * nbc;
    const int i = I / nc, k = I - i * nc, j = J / nc, l = J - j * nc;
    const int sp = sslot[(c * nb + i) * nb + j];
    const int s = cd[c * nb + i];
    const int b = (int)sindptr[s], len = (int)sindptr[s + 1] - b;
    slots[o] = nc * nc * b + k * nc * len + (sp - b) * nc + l;
  }
}

struct sym_ctx {
  dev_pool pool;
  cudaEvent_t ev[8];
  int n_ev;
  feint_plan *plan;
  int wide; /* the plan needs 64-bit indices or slots: built on the host instead */
};

/* The host copy of a GPU plan's slot map (plan.h, feint_plan_host_slots). */
int fetch_slots(feint_plan *p) {
  const size_t n = (size_t)(p->n_cells * p->nbc * p->nbc);
  int32_t *slots = NULL;
  FEINT_CALL(feint_malloc_large(n, sizeof *slots, &slots, "slot map"));
  int prev = 0;
  cudaGetDevice(&prev);
  cudaError_t e = cudaSetDevice(p->device);
  if (e == cudaSuccess) e = feint_cuda_memcpy(slots, p->device_slots, sizeof(int) * n, cudaMemcpyDeviceToHost);
  cudaSetDevice(prev);
  if (e != cudaSuccess) {
    free(slots);
    return FEINT_CUDA_FAIL(e, "download of the slot map");
  }
  p->slots = slots;
  return FEINT_OK;
}

void release_device(feint_plan *p) {
  if (!p->device_slots && !p->device_sdofs && !p->device_indptr && !p->device_indices) return;
  int prev = 0;
  cudaGetDevice(&prev);
  cudaSetDevice(p->device);
  cudaFree(p->device_slots);
  cudaFree(p->device_sdofs);
  cudaFree(p->device_indptr);
  cudaFree(p->device_indices);
  cudaSetDevice(prev);
  cudaGetLastError();
  p->device_slots = p->device_sdofs = p->device_indptr = p->device_indices = NULL;
}

int run(const feint_space *s, int device_index, sym_ctx *x, feint_plan_cuda_stats *st) {
  const int64_t n = s->n_dofs, ns = s->n_scalar_dofs, ncell = s->mesh->n_cells;
  const int nb = s->nb, nc = s->components, nbc = s->nbc;
  const int64_t E64 = ncell * nb * nb;
  if (n > feint_plan_narrow_limit()) { /* 64-bit column indices: the host builder */
    x->wide = 1;
    return FEINT_OK;
  }
  if (E64 >= INT32_MAX) { /* the sort's 32-bit entry numbers: the host builder */
    x->wide = 1;
    return FEINT_OK;
  }
  if (E64 <= 0) return feint_error_set(FEINT_ERR_INPUT, "GPU symbolic phase: the space has no cells");
  const int E = (int)E64;
  int bits = 1;
  while (((int64_t)1 << bits) < ns) bits++;
  st->entries = E64;
  st->key_bits = 2 * bits;

  int dev = 0;
  FEINT_CALL(feint_cuda_device_select(device_index, &dev));
  FEINT_CUDA_CALL("device selection", cudaSetDevice(dev));
  cudaDeviceProp prop;
  FEINT_CUDA_CALL("device query", cudaGetDeviceProperties(&prop, dev));
  snprintf(st->device, sizeof st->device, "%.100s (CUDA device %d)", prop.name, dev % 1000);
  for (; x->n_ev < 8; x->n_ev++) FEINT_CUDA_CALL("event creation", cudaEventCreate(&x->ev[x->n_ev]));
  cudaEvent_t *ev = x->ev;

  /* buffers (outside the timed windows) */
  dev_pool *P = &x->pool;
  int *d_cd = NULL;
  int64_t *d_sindptr = NULL;
  unsigned long long *d_k0 = NULL, *d_k1 = NULL;
  int *d_v0 = NULL, *d_v1 = NULL, *d_sslot = NULL, *d_counts = NULL;
  void *d_tmp = NULL;
  size_t tmp_sort = 0, tmp_scan = 0, tmp_scan2 = 0;
  {
    cub::DoubleBuffer<unsigned long long> kq(d_k0, d_k1);
    cub::DoubleBuffer<int> vq(d_v0, d_v1);
    FEINT_CUDA_CALL("radix sort size", cub::DeviceRadixSort::SortPairs(NULL, tmp_sort, kq, vq, E, 0, 2 * bits));
    FEINT_CUDA_CALL("scan size", cub::DeviceScan::InclusiveSum(NULL, tmp_scan, d_v0, d_v0, E));
    FEINT_CUDA_CALL("scan size", cub::DeviceScan::InclusiveSum(NULL, tmp_scan2, d_counts, d_sindptr, (int)ns + 1));
  }
  size_t tmp_bytes = tmp_sort > tmp_scan ? tmp_sort : tmp_scan;
  if (tmp_scan2 > tmp_bytes) tmp_bytes = tmp_scan2;
  FEINT_CALL(pool_alloc(P, &d_k0, sizeof(unsigned long long) * (size_t)E, "sort keys"));
  FEINT_CALL(pool_alloc(P, &d_k1, sizeof(unsigned long long) * (size_t)E, "sort keys"));
  FEINT_CALL(pool_alloc(P, &d_v0, sizeof(int) * (size_t)E, "sort values"));
  FEINT_CALL(pool_alloc(P, &d_v1, sizeof(int) * (size_t)E, "sort values"));
  FEINT_CALL(pool_alloc(P, &d_sslot, sizeof(int) * (size_t)E, "scalar slot map"));
  FEINT_CALL(pool_alloc(P, &d_counts, sizeof(int) * (size_t)(ns + 1), "row counts"));
  FEINT_CALL(pool_alloc(P, &d_sindptr, sizeof(int64_t) * (size_t)(ns + 1), "row pointers"));
  FEINT_CALL(pool_alloc(P, &d_tmp, tmp_bytes, "CUB temporary storage"));

  /* upload, narrowed to int32 on the host (half the bytes); the plan
   * keeps it on the device for the backend (plan.h: device_sdofs) */
  const double t_up0 = wall_ms();
  FEINT_CALL(feint_cuda_upload_index32(&d_cd, s->scalar_cell_dofs, (size_t)(ncell * nb),
                                       "GPU symbolic phase, upload of the cell dof map"));
  FEINT_CALL(pool_adopt(P, d_cd, sizeof(int) * (size_t)(ncell * nb)));
  const double ms_up = wall_ms() - t_up0;
  FEINT_CUDA_CALL("upload", cudaEventRecord(ev[1]));

  /* window 1: keys, sort, ranks, scatter, indptr */
  const int T = 256;
  keys_kernel<<<grid_for(E, T), T>>>(E, nb, bits, d_cd, d_k0, d_v0);
  FEINT_CUDA_CALL("key kernel", cudaGetLastError());
  cub::DoubleBuffer<unsigned long long> kq(d_k0, d_k1);
  cub::DoubleBuffer<int> vq(d_v0, d_v1);
  FEINT_CUDA_CALL("sort", cudaEventRecord(ev[2]));
  FEINT_CUDA_CALL("radix sort", cub::DeviceRadixSort::SortPairs(d_tmp, tmp_sort, kq, vq, E, 0, 2 * bits));
  FEINT_CUDA_CALL("sort", cudaEventRecord(ev[3]));
  const unsigned long long *keys = kq.Current();
  const int *vals = vq.Current();
  int *rank = vq.Alternate();
  /* columns and rows of the unique entries reuse the other key buffer */
  int *d_col = (int *)kq.Alternate(), *d_row = d_col + E;
  flags_kernel<<<grid_for(E, T), T>>>(E, keys, d_row); /* flags: d_row is free until the scatter */
  FEINT_CUDA_CALL("flag kernel", cudaGetLastError());
  FEINT_CUDA_CALL("rank scan", cub::DeviceScan::InclusiveSum(d_tmp, tmp_scan, d_row, rank, E));
  FEINT_CUDA_CALL("row counts", cudaMemsetAsync(d_counts, 0, sizeof(int) * (size_t)(ns + 1)));
  scatter_kernel<<<grid_for(E, T), T>>>(E, bits, keys, vals, rank, d_sslot, d_col, nc > 1 ? d_row : NULL,
                                        d_counts);
  FEINT_CUDA_CALL("scatter kernel", cudaGetLastError());
  FEINT_CUDA_CALL("row pointer scan", cub::DeviceScan::InclusiveSum(d_tmp, tmp_scan2, d_counts, d_sindptr, (int)ns + 1));
  FEINT_CUDA_CALL("symbolic", cudaEventRecord(ev[4]));
  int snnz = 0;
  FEINT_CUDA_CALL("nonzero count", feint_cuda_memcpy(&snnz, rank + E - 1, sizeof(int), cudaMemcpyDeviceToHost));
  const int64_t nnz = (int64_t)snnz * nc * nc;
  if (nnz > feint_plan_narrow_limit()) { /* 64-bit slots: the host builder */
    x->wide = 1;
    return FEINT_OK;
  }

  /* window 2: expansion by components */
  int64_t *d_indptr = d_sindptr;
  int *d_indices = d_col, *d_slots = d_sslot;
  const int64_t n_slots = ncell * nbc * nbc;
  if (nc > 1) {
    FEINT_CALL(pool_alloc(P, &d_indptr, sizeof(int64_t) * (size_t)(n + 1), "row pointers"));
    FEINT_CALL(pool_alloc(P, &d_indices, sizeof(int) * (size_t)nnz, "column indices"));
    FEINT_CALL(pool_alloc(P, &d_slots, sizeof(int) * (size_t)n_slots, "slot map"));
  }
  FEINT_CUDA_CALL("expansion", cudaEventRecord(ev[5]));
  if (nc > 1) {
    expand_indptr_kernel<<<grid_for(n, T), T>>>(n, nc, d_sindptr, d_indptr);
    FEINT_CUDA_CALL("indptr expansion kernel", cudaGetLastError());
    expand_indices_kernel<<<grid_for(snnz, T), T>>>(snnz, nc, d_sindptr, d_col, d_row, d_indices);
    FEINT_CUDA_CALL("column expansion kernel", cudaGetLastError());
    expand_slots_kernel<<<grid_for(n_slots, T), T>>>(n_slots, nb, nc, d_cd, d_sindptr, d_sslot, d_slots);
    FEINT_CUDA_CALL("slot expansion kernel", cudaGetLastError());
  }
  FEINT_CUDA_CALL("expansion", cudaEventRecord(ev[6]));
  FEINT_CUDA_CALL("symbolic phase", cudaEventSynchronize(ev[6]));

  /* the host plan */
  feint_plan *p = NULL;
  FEINT_CALL(feint_calloc(1, sizeof *p, &p, "plan"));
  x->plan = p;
  p->n_rows = n;
  p->nnz = nnz;
  p->n_cells = ncell;
  p->nbc = nbc;
  FEINT_CALL(feint_malloc((size_t)n + 1, sizeof *p->indptr, &p->indptr, "CSR row pointers"));
  /* as plan.c allocates them: the download first-touches every page, and
   * with 4 KiB pages the faults made it run at 1.2-1.9 GB/s (6M cells:
   * 257-386 ms for the 473 MB on the H100) */
  FEINT_CALL(feint_malloc_large_touched((size_t)nnz, sizeof *p->indices, &p->indices, "CSR column indices"));
  /* the slot map stays on the device (plan.h: host copy on demand), and
   * so do the cell dofs and the pattern, which the backend reads there */
  if (nc == 1) { /* the columns live in a sort buffer: a buffer of their own */
    int *keep = NULL;
    FEINT_CALL(pool_alloc(P, &keep, sizeof(int) * (size_t)nnz, "column indices"));
    FEINT_CUDA_CALL("column indices", cudaMemcpy(keep, d_indices, sizeof(int) * (size_t)nnz, cudaMemcpyDeviceToDevice));
    d_indices = keep;
  }
  pool_detach(P, d_slots);
  pool_detach(P, d_cd);
  pool_detach(P, d_indptr);
  pool_detach(P, d_indices);
  p->device_slots = d_slots;
  p->device_sdofs = d_cd;
  p->device_indptr = d_indptr;
  p->device_indices = d_indices;
  p->device = dev;
  p->fetch_slots = fetch_slots;
  p->release_device = release_device;
  float t_dl0 = 0;
  cudaEvent_t dl0 = ev[7];
  FEINT_CUDA_CALL("download", cudaEventRecord(dl0));
  FEINT_CUDA_CALL("download of the row pointers",
                  feint_cuda_memcpy(p->indptr, d_indptr, sizeof(int64_t) * (size_t)(n + 1), cudaMemcpyDeviceToHost));
  FEINT_CUDA_CALL("download of the column indices",
                  feint_cuda_memcpy(p->indices, d_indices, sizeof(int) * (size_t)nnz, cudaMemcpyDeviceToHost));
  /* reuse ev[0] as the end of the download */
  float ms_w1 = 0, ms_sort = 0, ms_w2 = 0;
  FEINT_CUDA_CALL("timing", cudaEventElapsedTime(&ms_w1, ev[1], ev[4]));
  FEINT_CUDA_CALL("timing", cudaEventElapsedTime(&ms_sort, ev[2], ev[3]));
  FEINT_CUDA_CALL("timing", cudaEventElapsedTime(&ms_w2, ev[5], ev[6]));
  FEINT_CUDA_CALL("download", cudaEventRecord(ev[0]));
  FEINT_CUDA_CALL("download", cudaEventSynchronize(ev[0]));
  FEINT_CUDA_CALL("timing", cudaEventElapsedTime(&t_dl0, dl0, ev[0]));
  st->upload_ms = ms_up;
  st->symbolic_ms = (double)ms_w1 + ms_w2;
  st->sort_ms = ms_sort;
  st->download_ms = t_dl0;
  st->device_bytes = P->peak;
  return FEINT_OK;
}

}  // namespace

extern "C" int feint_plan_create_cuda_timed(const feint_space *space, int device_index, feint_plan **out,
                                            feint_plan_cuda_stats *stats) {
  *out = NULL;
  feint_plan_cuda_stats local;
  feint_plan_cuda_stats *st = stats ? stats : &local;
  memset(st, 0, sizeof *st);
  const double t0 = wall_ms();
  sym_ctx x;
  memset(&x, 0, sizeof x);
  int status = run(space, device_index, &x, st);
  pool_free_all(&x.pool);
  for (int k = 0; k < x.n_ev; k++) cudaEventDestroy(x.ev[k]);
  if (status) {
    feint_plan_destroy(x.plan);
    return status;
  }
  if (x.wide) {
    feint_plan_destroy(x.plan);
    st->host_fallback = 1;
    FEINT_CALL(feint_plan_create(space, out));
    st->total_ms = wall_ms() - t0;
    return FEINT_OK;
  }
  *out = x.plan;
  st->total_ms = wall_ms() - t0;
  return FEINT_OK;
}

extern "C" int feint_plan_create_cuda(const feint_space *space, int device_index, feint_plan **out) {
  return feint_plan_create_cuda_timed(space, device_index, out, NULL);
}

/* ------------------------------------------------ assembly on the device
 * (feint_plan_gpu, plan.h): the slot map inverted by the sort above. */

namespace {

/* Sort keys: the entry's slot; a mixed mesh's padding (-1) gets nnz, past
 * every run. */
__global__ void slot_keys_kernel(int E, int nnz, const int *__restrict__ slots, unsigned *__restrict__ keys,
                                 int *__restrict__ vals) {
  GRID_STRIDE(int64_t, e, E) {
    const int s = slots[e];
    keys[e] = s < 0 ? (unsigned)nnz : (unsigned)s;
    vals[e] = (int)e;
  }
}

/* starts[z]: the first sorted position of nonzero z (every nonzero has an
 * entry: the pattern is made of them); starts[nnz] was set to E, or here to
 * the first padding entry. */
__global__ void run_starts_kernel(int E, const unsigned *__restrict__ keys, int *__restrict__ starts) {
  GRID_STRIDE(int64_t, p, E) if (p == 0 || keys[p] != keys[p - 1]) starts[keys[p]] = (int)p;
}

/* One thread per nonzero: the entries of its run below e_end (cells added
 * so far), read from this batch's matrices (first entry e0), added in run
 * order to the value; next[z] keeps its place for the next batch. */
__global__ void gather_add_kernel(int nnz, const int *__restrict__ starts, const int *__restrict__ ent, int e0,
                                  int e_end, const double *__restrict__ Ke, int *__restrict__ next,
                                  double *__restrict__ values) {
  GRID_STRIDE(int64_t, z, nnz) {
    int k = next[z];
    const int end = starts[z + 1];
    if (k >= end || ent[k] >= e_end) continue;
    double s = values[z];
    for (; k < end && ent[k] < e_end; k++) s += Ke[ent[k] - e0];
    values[z] = s;
    next[z] = k;
  }
}

}  // namespace

struct feint_plan_gpu {
  int device, nnz, E, n2;
  int64_t n_cells, added; /* cells in the plan, and added since begin */
  double gather_ms;       /* device time of the adds since begin */
  int *starts;            /* nnz + 1: run of nonzero z = ent[starts[z] .. starts[z+1]) */
  int *ent;               /* E: entry indices sorted by slot, cell order within a run */
  int *next;              /* nnz: each run's place during an assembly */
  double *values;         /* nnz */
  cudaEvent_t ev[2];      /* around each add's gather kernel */
  int n_ev;               /* events created */
};

extern "C" int feint_plan_gpu_fits(const feint_plan *plan) {
  const int64_t E = plan->n_cells * plan->nbc * plan->nbc;
  if (plan->slots64 || plan->nnz > INT32_MAX - 1 || E > INT32_MAX)
    return feint_error_set(FEINT_ERR_INPUT,
                           "assembly on the GPU: %lld nonzeros, %lld cell entries (%s slots): 32-bit runs only",
                           (long long)plan->nnz, (long long)E, plan->slots64 ? "64-bit" : "32-bit");
  return FEINT_OK;
}

extern "C" void feint_plan_gpu_destroy(feint_plan_gpu *g) {
  if (!g) return;
  cudaFree(g->starts);
  cudaFree(g->ent);
  cudaFree(g->next);
  cudaFree(g->values);
  for (int k = 0; k < g->n_ev; k++) cudaEventDestroy(g->ev[k]);
  free(g);
}

/* The runs of g from the map's slots (host, E entries; temporaries from
 * the pool). */
static int plan_gpu_build(const int32_t *map, feint_plan_gpu *g, dev_pool *P) {
  const int E = g->E, nnz = g->nnz, T = 256;
  int bits = 1;
  while (((int64_t)1 << bits) <= nnz) bits++; /* keys 0 .. nnz */
  unsigned *k0 = NULL, *k1 = NULL;
  int *slots = NULL, *v0 = NULL, *v1 = NULL;
  void *tmp = NULL;
  size_t tmp_bytes = 0;
  cub::DoubleBuffer<unsigned> kq(k0, k1);
  cub::DoubleBuffer<int> vq(v0, v1);
  FEINT_CUDA_CALL("radix sort size", cub::DeviceRadixSort::SortPairs(NULL, tmp_bytes, kq, vq, E, 0, bits));
  FEINT_CALL(pool_alloc(P, &slots, sizeof(int) * (size_t)E, "slot map"));
  FEINT_CALL(pool_alloc(P, &k0, sizeof(unsigned) * (size_t)E, "sort keys"));
  FEINT_CALL(pool_alloc(P, &k1, sizeof(unsigned) * (size_t)E, "sort keys"));
  FEINT_CALL(pool_alloc(P, &v0, sizeof(int) * (size_t)E, "sort values"));
  FEINT_CALL(pool_alloc(P, &tmp, tmp_bytes, "CUB temporary storage"));
  v1 = g->ent; /* the sorted values end in ent, or are copied there */
  FEINT_CUDA_CALL("upload of the slot map", feint_cuda_memcpy(slots, map, sizeof(int) * (size_t)E, cudaMemcpyHostToDevice));
  slot_keys_kernel<<<grid_for(E, T), T>>>(E, nnz, slots, k0, v0);
  FEINT_CUDA_CALL("slot key kernel", cudaGetLastError());
  kq = cub::DoubleBuffer<unsigned>(k0, k1);
  vq = cub::DoubleBuffer<int>(v0, v1);
  FEINT_CUDA_CALL("radix sort", cub::DeviceRadixSort::SortPairs(tmp, tmp_bytes, kq, vq, E, 0, bits));
  if (vq.Current() != g->ent)
    FEINT_CUDA_CALL("sorted entries", cudaMemcpy(g->ent, vq.Current(), sizeof(int) * (size_t)E, cudaMemcpyDeviceToDevice));
  FEINT_CUDA_CALL("run starts", feint_cuda_memcpy(g->starts + nnz, &E, sizeof(int), cudaMemcpyHostToDevice));
  run_starts_kernel<<<grid_for(E, T), T>>>(E, kq.Current(), g->starts);
  FEINT_CUDA_CALL("run start kernel", cudaGetLastError());
  FEINT_CUDA_CALL("run starts", cudaDeviceSynchronize());
  return FEINT_OK;
}

static int plan_gpu_alloc(int64_t count, size_t size, void *out, const char *what) {
  return feint_cuda_malloc((void **)out, (size_t)count * size, "assembly on the GPU", what);
}

/* The runs of a map of n_cells x per_cell entries onto n_targets targets
 * (sizes checked by the callers). */
static int plan_gpu_create(const int32_t *map, int64_t n_cells, int per_cell, int64_t n_targets,
                           feint_plan_gpu **out) {
  *out = NULL;
  if (n_cells <= 0 || n_targets <= 0)
    return feint_error_set(FEINT_ERR_INPUT, "assembly on the GPU: the plan has no cells");
  feint_plan_gpu *g = NULL;
  FEINT_CALL(feint_calloc(1, sizeof *g, &g, "GPU plan"));
  g->nnz = (int)n_targets;
  g->n2 = per_cell;
  g->E = (int)(n_cells * per_cell);
  g->n_cells = n_cells;
  dev_pool pool;
  memset(&pool, 0, sizeof pool);
  const cudaError_t e = cudaGetDevice(&g->device);
  int st = e == cudaSuccess ? FEINT_OK : FEINT_CUDA_FAIL(e, "device query");
  if (!st) st = plan_gpu_alloc(g->nnz + 1, sizeof(int), &g->starts, "run starts");
  if (!st) st = plan_gpu_alloc(g->E, sizeof(int), &g->ent, "sorted entries");
  if (!st) st = plan_gpu_alloc(g->nnz, sizeof(int), &g->next, "run places");
  if (!st) st = plan_gpu_alloc(g->nnz, sizeof(double), &g->values, "CSR values");
  if (!st) st = plan_gpu_build(map, g, &pool);
  for (; !st && g->n_ev < 2; g->n_ev++) {
    const cudaError_t ee = cudaEventCreate(&g->ev[g->n_ev]);
    if (ee != cudaSuccess) st = FEINT_CUDA_FAIL(ee, "assembly on the GPU: events");
  }
  pool_free_all(&pool);
  if (st) {
    feint_plan_gpu_destroy(g);
    return st;
  }
  *out = g;
  return FEINT_OK;
}

extern "C" int feint_plan_gpu_create(const feint_plan *plan, feint_plan_gpu **out) {
  *out = NULL;
  FEINT_CALL(feint_plan_gpu_fits(plan));
  FEINT_CALL(feint_plan_host_slots(plan));
  return plan_gpu_create(plan->slots, plan->n_cells, plan->nbc * plan->nbc, plan->nnz, out);
}

extern "C" int feint_plan_gpu_create_map(const int32_t *map, int64_t n_cells, int per_cell, int64_t n_targets,
                                         feint_plan_gpu **out) {
  *out = NULL;
  if (n_cells < 0 || per_cell < 1 || n_targets > INT32_MAX - 1 || n_cells * per_cell > INT32_MAX)
    return feint_error_set(FEINT_ERR_INPUT,
                           "assembly on the GPU: %lld targets, %lld cells x %d entries: 32-bit runs only",
                           (long long)n_targets, (long long)n_cells, per_cell);
  /* every target needs a run (a CSR pattern is made of its entries; a map may miss one) */
  std::vector<char> hit((size_t)(n_targets > 0 ? n_targets : 0), 0);
  for (int64_t k = 0; k < n_cells * per_cell; k++) {
    if (map[k] < -1 || map[k] >= n_targets)
      return feint_error_set(FEINT_ERR_INPUT, "assembly on the GPU: map entry %lld is %d, not in -1 .. %lld",
                             (long long)k, map[k], (long long)n_targets - 1);
    if (map[k] >= 0) hit[(size_t)map[k]] = 1;
  }
  for (int64_t z = 0; z < n_targets; z++)
    if (!hit[(size_t)z])
      return feint_error_set(FEINT_ERR_INPUT, "assembly on the GPU: target %lld has no entry in the map",
                             (long long)z);
  return plan_gpu_create(map, n_cells, per_cell, n_targets, out);
}

extern "C" int feint_plan_gpu_begin(feint_plan_gpu *g) {
  FEINT_CUDA_CALL("assembly on the GPU: device", cudaSetDevice(g->device));
  FEINT_CUDA_CALL("assembly on the GPU: zero values", cudaMemsetAsync(g->values, 0, sizeof(double) * (size_t)g->nnz));
  FEINT_CUDA_CALL("assembly on the GPU: rewind runs",
                  cudaMemcpyAsync(g->next, g->starts, sizeof(int) * (size_t)g->nnz, cudaMemcpyDeviceToDevice));
  g->added = 0;
  g->gather_ms = 0;
  return FEINT_OK;
}

extern "C" int feint_plan_gpu_add(feint_plan_gpu *g, int64_t n, const double *Ke_device) {
  if (n < 0 || g->added + n > g->n_cells)
    return feint_error_set(FEINT_ERR_INPUT, "assembly on the GPU: %lld more cells after %lld of %lld", (long long)n,
                           (long long)g->added, (long long)g->n_cells);
  if (n == 0) return FEINT_OK;
  const int e0 = (int)(g->added * g->n2), e_end = (int)((g->added + n) * g->n2), T = 256;
  float ms = 0;
  FEINT_CUDA_CALL("assembly on the GPU: event", cudaEventRecord(g->ev[0]));
  gather_add_kernel<<<grid_for(g->nnz, T), T>>>(g->nnz, g->starts, g->ent, e0, e_end, Ke_device, g->next, g->values);
  FEINT_CUDA_CALL("assembly on the GPU: gather kernel", cudaGetLastError());
  FEINT_CUDA_CALL("assembly on the GPU: event", cudaEventRecord(g->ev[1]));
  FEINT_CUDA_CALL("assembly on the GPU: gather kernel", cudaEventSynchronize(g->ev[1]));
  FEINT_CUDA_CALL("assembly on the GPU: event", cudaEventElapsedTime(&ms, g->ev[0], g->ev[1]));
  g->gather_ms += ms;
  g->added += n;
  return FEINT_OK;
}

extern "C" int feint_plan_gpu_values(feint_plan_gpu *g, double *values, double *gather_ms) {
  if (g->added != g->n_cells)
    return feint_error_set(FEINT_ERR_INPUT, "assembly on the GPU: %lld of %lld cells added", (long long)g->added,
                           (long long)g->n_cells);
  FEINT_CUDA_CALL("assembly on the GPU: download of the values",
                  feint_cuda_memcpy(values, g->values, sizeof(double) * (size_t)g->nnz, cudaMemcpyDeviceToHost));
  if (gather_ms) *gather_ms = g->gather_ms;
  return FEINT_OK;
}
