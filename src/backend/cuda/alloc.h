/* Device allocation with the message every CUDA module of feint gives
 * (issue 3: out of memory names the phase and the bytes requested). */
#ifndef FEINT_CUDA_ALLOC_H
#define FEINT_CUDA_ALLOC_H

#include <stddef.h>

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

#ifdef __cplusplus
}
#endif

#endif
