/* What every CUDA file of the backend shares (C++/CUDA only): the one
 * check of a CUDA call, device allocation and host <-> device copies, and
 * device buffers freed together. The definitions behind it are in
 * alloc.cu; the C side of the same helpers is alloc.h.
 *
 * Errors. FEINT_CUDA_CALL(phase, call) returns FEINT_ERR_COMPUTE from the
 * enclosing function when call does not give cudaSuccess, with the message
 * users see, "<phase>: <CUDA error string>" (or "<module>, <phase>: ..."
 * in a file that defines FEINT_CUDA_MODULE before including this header,
 * as the GPU symbolic phase and the boundary integrals do).
 * FEINT_CUDA_FAIL(e, phase) records the same message for an error already
 * in hand and gives the status (for expressions and clean-ups). Both
 * record it through feint_error_set at the check itself, so the location
 * the error module keeps beside the message (shown under FEINT_DEBUG=1)
 * is the check's file and line; the message never carries it. */
#ifndef FEINT_CUDA_COMMON_CUH
#define FEINT_CUDA_COMMON_CUH

#include <cuda_runtime.h>

#include <stddef.h>
#include <stdint.h>

#include <algorithm>
#include <vector>

extern "C" {
#include "feint/error.h"
}
#include "backend/cuda/alloc.h"

/* cudaGetErrorString(e), after clearing the CUDA runtime's last error (a
 * failure that is not sticky must not be reported again by the next
 * check). */
const char *feint_cuda_error_string(cudaError_t e);

#ifndef FEINT_CUDA_MODULE
#define FEINT_CUDA_MODULE ""
#endif

static inline const char *feint_cuda_module_sep(const char *module) { return *module ? ", " : ""; }

#define FEINT_CUDA_FAIL(e, phase)                                                                            \
  feint_error_set(FEINT_ERR_COMPUTE, "%s%s%s: %s", FEINT_CUDA_MODULE, feint_cuda_module_sep(FEINT_CUDA_MODULE), \
                  (phase), feint_cuda_error_string(e))

#define FEINT_CUDA_CALL(phase, call)                                                  \
  do {                                                                                \
    const cudaError_t feint_cuda_e_ = (call);                                         \
    if (feint_cuda_e_ != cudaSuccess) return FEINT_CUDA_FAIL(feint_cuda_e_, (phase)); \
  } while (0)

/* cudaMalloc of bytes (at least one) into *ptr, the out-of-memory message
 * naming the phase (feint_cuda_malloc without a module). */
static inline int feint_cuda_alloc(void **ptr, size_t bytes, const char *phase) {
  return feint_cuda_malloc(ptr, bytes, NULL, phase);
}

/* count values of T from the host into a new device array *dst
 * (feint_cuda_malloc: at least one byte; its out-of-memory message names
 * the phase), timed as a transfer (feint_cuda_memcpy). */
template <typename T>
static inline int feint_cuda_upload(T **dst, const T *src, size_t count, const char *phase) {
  FEINT_CALL(feint_cuda_alloc((void **)dst, count * sizeof(T), phase));
  if (count) FEINT_CUDA_CALL(phase, feint_cuda_memcpy(*dst, src, count * sizeof(T), cudaMemcpyHostToDevice));
  return FEINT_OK;
}

/* A new host array *dst (feint_malloc; free()) with count values of T from
 * the device array src; src NULL: *dst NULL. */
template <typename T>
static inline int feint_cuda_download(T **dst, const T *src, size_t count, const char *phase) {
  *dst = NULL;
  if (!src) return FEINT_OK;
  FEINT_CALL(feint_malloc(count ? count : 1, sizeof(T), dst, phase));
  if (count) FEINT_CUDA_CALL(phase, feint_cuda_memcpy(*dst, src, count * sizeof(T), cudaMemcpyDeviceToHost));
  return FEINT_OK;
}

/* The device time of one phase on the legacy stream, by two events: start
 * records the first, stop the second, waits for it and gives the
 * milliseconds between. A zeroed timer has no events yet (create makes
 * them); destroy frees them (a zeroed timer too). */
struct feint_cuda_timer {
  cudaEvent_t a, b;
};
static inline void feint_cuda_timer_destroy(feint_cuda_timer *t) {
  if (t->a) cudaEventDestroy(t->a);
  if (t->b) cudaEventDestroy(t->b);
  t->a = t->b = NULL;
}
static inline int feint_cuda_timer_create(feint_cuda_timer *t, const char *phase) {
  cudaError_t e = t->a ? cudaSuccess : cudaEventCreate(&t->a);
  if (e == cudaSuccess && !t->b) e = cudaEventCreate(&t->b);
  if (e == cudaSuccess) return FEINT_OK;
  feint_cuda_timer_destroy(t);
  return FEINT_CUDA_FAIL(e, phase);
}
static inline int feint_cuda_timer_start(feint_cuda_timer *t, const char *phase) {
  FEINT_CUDA_CALL(phase, cudaEventRecord(t->a));
  return FEINT_OK;
}
static inline int feint_cuda_timer_stop(feint_cuda_timer *t, const char *phase, float *ms) {
  FEINT_CUDA_CALL(phase, cudaEventRecord(t->b));
  FEINT_CUDA_CALL(phase, cudaEventSynchronize(t->b));
  FEINT_CUDA_CALL(phase, cudaEventElapsedTime(ms, t->a, t->b));
  return FEINT_OK;
}

/* Device buffers freed together when the scratch goes out of scope, except
 * those handed to the caller (keep). */
struct feint_cuda_scratch {
  std::vector<void *> p;
  feint_cuda_scratch() = default;
  feint_cuda_scratch(const feint_cuda_scratch &) = delete;
  feint_cuda_scratch &operator=(const feint_cuda_scratch &) = delete;
  ~feint_cuda_scratch() {
    for (void *x : p) cudaFree(x);
  }
  /* count values of T (at least one) */
  template <typename T>
  int alloc(T **ptr, size_t count, const char *phase) {
    *ptr = NULL;
    FEINT_CALL(feint_cuda_alloc((void **)ptr, sizeof(T) * (count ? count : 1), phase));
    p.push_back((void *)*ptr);
    return FEINT_OK;
  }
  /* x is the caller's from now on */
  template <typename T>
  T *keep(T *x) {
    p.erase(std::remove(p.begin(), p.end(), (const void *)x), p.end());
    return x;
  }
};

#endif
