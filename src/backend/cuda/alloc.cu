/* The definitions of the CUDA backend's shared helpers: the CUDA error
 * check (common.cuh), feint_cuda_malloc, feint_cuda_memcpy and the
 * transfer totals, the index upload (alloc.h), and the warm-up thread
 * (cuda_timing.h). */
#include <cuda_runtime.h>

#include <atomic>
#include <chrono>
#include <stdint.h>
#include <stdlib.h>

extern "C" {
#include "feint/backend.h"
extern "C" void feint_dist_timeline(const char *what); /* feint/dist.h: measuring only */
#include "feint/error.h"
#include "feint/parallel.h"
}
#include "backend/cuda/alloc.h"
#include "backend/cuda/common.cuh"
#include "backend/cuda/cuda_timing.h"

const char *feint_cuda_error_string(cudaError_t e) {
  cudaGetLastError(); /* clear a sticky-free error */
  return cudaGetErrorString(e);
}

/* The test hook's limit, read once per process (0: none). */
static size_t alloc_limit(void) {
  static int read = 0;
  static size_t limit = 0;
  if (!read) {
    const char *v = getenv("FEINT_CUDA_ALLOC_LIMIT");
    limit = v && *v ? (size_t)strtoull(v, NULL, 10) : 0;
    read = 1;
  }
  return limit;
}

extern "C" int feint_cuda_malloc(void **ptr, size_t bytes, const char *module, const char *phase) {
  *ptr = NULL;
  if (!bytes) bytes = 1;
  const size_t limit = alloc_limit();
  cudaError_t e = limit && bytes > limit ? cudaErrorMemoryAllocation : cudaMalloc(ptr, bytes);
  if (e == cudaSuccess) return FEINT_OK;
  *ptr = NULL;
  cudaGetLastError(); /* not sticky: clear it for the calls that follow */
  const char *sep = module ? ", " : "";
  if (!module) module = "";
  if (e == cudaErrorMemoryAllocation) {
    size_t free_b = 0, total_b = 0;
    cudaMemGetInfo(&free_b, &total_b);
    return feint_error_set(FEINT_ERR_COMPUTE, "%s%s%s: out of GPU memory allocating %zu bytes (%zu of %zu bytes free)",
                           module, sep, phase, bytes, free_b, total_b);
  }
  return feint_error_set(FEINT_ERR_COMPUTE, "%s%s%s: %s", module, sep, phase, cudaGetErrorString(e));
}

/* feint_cuda_upload_index32: one range of the narrowing; an entry out of
 * range is recorded (the smallest index, whatever the thread order). */
namespace {
struct narrow_job {
  const int64_t *src;
  int *dst;
  std::atomic<int64_t> bad;
};

void narrow_range(int64_t a, int64_t b, void *arg) {
  narrow_job *j = (narrow_job *)arg;
  for (int64_t k = a; k < b; k++) {
    const int64_t v = j->src[k];
    if (v < -1 || v > INT32_MAX) { /* -1: a mixed mesh's row padding (feint/space.h), kept */
      int64_t cur = j->bad.load();
      while ((cur < 0 || k < cur) && !j->bad.compare_exchange_weak(cur, k)) {
      }
      return;
    }
    j->dst[k] = (int)v;
  }
}
}  // namespace

extern "C" int feint_cuda_upload_index32(int **dst, const int64_t *src, size_t count, const char *phase) {
  *dst = NULL;
  int *tmp = NULL;
  FEINT_CALL(feint_malloc(count ? count : 1, sizeof *tmp, &tmp, phase));
  /* narrowed on every core (72M entries of a P1 elasticity map took 0.1 s on one) */
  narrow_job j;
  j.src = src;
  j.dst = tmp;
  j.bad.store(-1);
  feint_parallel_for((int64_t)count, (int64_t)1 << 20, narrow_range, &j);
  if (j.bad.load() >= 0) {
    const long long v = (long long)src[j.bad.load()];
    free(tmp);
    return feint_error_set(FEINT_ERR_COMPUTE, "%s: index %lld does not fit in 32 bits", phase, v);
  }
  void *d = NULL;
  int status = feint_cuda_malloc(&d, count * sizeof(int), NULL, phase);
  if (!status && count) {
    const cudaError_t e = feint_cuda_memcpy(d, tmp, count * sizeof(int), cudaMemcpyHostToDevice);
    if (e != cudaSuccess) {
      status = FEINT_CUDA_FAIL(e, phase);
      cudaFree(d);
      d = NULL;
    }
  }
  free(tmp);
  *dst = (int *)d;
  return status;
}

/* Running totals of feint_cuda_memcpy (seconds). */
static double total_h2d = 0, total_d2h = 0;

extern "C" void feint_cuda_transfer_seconds(double *h2d, double *d2h) {
  *h2d = total_h2d;
  *d2h = total_d2h;
}

cudaError_t feint_cuda_memcpy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind) {
  const bool timed = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToHost;
  if (timed) {
    const cudaError_t e = cudaStreamSynchronize(0);
    if (e != cudaSuccess) return e;
  }
  const auto t0 = std::chrono::steady_clock::now();
  const cudaError_t e = cudaMemcpy(dst, src, bytes, kind);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (timed && e == cudaSuccess) (kind == cudaMemcpyHostToDevice ? total_h2d : total_d2h) += s;
  return e;
}

/* The warm-up thread: the CUDA context (driver initialisation, context
 * creation: a few hundred milliseconds on a cold process) made while the
 * host reads the mesh, so the first GPU phase does not wait for it. The
 * runtime's primary context is shared by the process's threads. */
#include <thread>

static std::thread warm_thread;

extern "C" void feint_cuda_warm_up_start(int device_index, int local_rank) {
  if (warm_thread.joinable()) return;
  try {
    warm_thread = std::thread([device_index, local_rank] {
      int n = 0;
      if (cudaGetDeviceCount(&n) != cudaSuccess || n <= 0) return;
      const int d = device_index >= 0 ? device_index : local_rank >= 0 ? local_rank % n : 0;
      feint_dist_timeline("cuda: driver started");
      if (cudaSetDevice(d < n ? d : 0) == cudaSuccess) cudaFree(0);
      feint_dist_timeline("cuda: context made");
      cudaGetLastError(); /* whatever failed here fails again, and is reported, where it is used */
    });
  } catch (...) {
    /* no thread: the context is made where it is first used, as without the warm-up */
  }
}

extern "C" void feint_cuda_warm_up_wait(void) {
  if (warm_thread.joinable()) warm_thread.join();
}
