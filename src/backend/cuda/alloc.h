/* Device allocation with the message every CUDA module of feint gives
 * (issue 3: out of memory names the phase and the bytes requested), and
 * the host <-> device copies every module makes, timed. */
#ifndef FEINT_CUDA_ALLOC_H
#define FEINT_CUDA_ALLOC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __CUDACC__
#include <cuda_runtime.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* cudaMalloc of bytes (at least 1) into *ptr. On failure *ptr is NULL and
 * the recorded error is FEINT_ERR_COMPUTE: "<module>, <phase>: out of GPU
 * memory allocating N bytes (F of T bytes free)" or "<module>, <phase>:
 * <CUDA error>" (module may be NULL). Test hook: FEINT_CUDA_ALLOC_LIMIT=B
 * makes any single request above B bytes fail as out of memory, so the
 * out-of-memory paths can be checked without filling the GPU. */
int feint_cuda_malloc(void **ptr, size_t bytes, const char *module, const char *phase);

#ifdef __CUDACC__
/* cudaMemcpy that adds the wall time of each host-to-device and
 * device-to-host copy to the process's totals (feint_cuda_transfer_seconds
 * in cuda_timing.h: feint bench's h2d and d2h columns). The legacy stream
 * is drained first (cudaMemcpy would wait for it anyway), so that the time
 * counted is the copy's and not that of kernels still running before it. */
cudaError_t feint_cuda_memcpy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind);
#endif

/* int64 host index array (entries in [0, 2^31), or -1: a mixed mesh's
 * row padding) -> a new int32 device
 * array *dst of count entries (feint_cuda_malloc), narrowed on every core.
 * An entry outside that range: FEINT_ERR_COMPUTE naming the phase and the
 * value, *dst NULL. */
int feint_cuda_upload_index32(int **dst, const int64_t *src, size_t count, const char *phase);

#ifdef __cplusplus
}
#endif

#endif
