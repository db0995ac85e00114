/* feint's device headers as NVRTC reads them (the user-form P1 kernels:
 * p1_form.cuh and what it includes), embedded at build time by
 * embed_headers.c from the files the nvcc-compiled kernels use, so the
 * two cannot drift apart. Names are as #include writes them
 * ("backend/cuda/p1.cuh", "feint/physics.h"); the texts are part of the
 * cache key of every source compiled with them (jit.h). */
#ifndef FEINT_CUDA_JIT_HEADERS_H
#define FEINT_CUDA_JIT_HEADERS_H

#ifdef __cplusplus
extern "C" {
#endif

extern const int feint_jit_header_count;
extern const char *const feint_jit_header_names[];
extern const char *const feint_jit_header_texts[];

#ifdef __cplusplus
}
#endif

#endif
