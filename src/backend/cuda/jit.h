/* Run-time compilation of CUDA source with NVRTC, behind the disk cache
 * (issue 19: user forms on the GPU). Private to the CUDA backend; the
 * definitions are in jit.cu (nvcc builds only).
 *
 * NVRTC is opened with dlopen on first use, not linked: the toolkit ships
 * it as a 100 MB shared library only, and the GPU machines have their own
 * toolkit. Tried in order: $FEINT_NVRTC_LIBRARY when set (and only it),
 * else libnvrtc.so.13, libnvrtc.so.12, libnvrtc.so on the loader's path,
 * then in $CUDA_HOME/lib64 and /usr/local/cuda/lib64. A failed load is
 * tried again by the next call; a successful one is kept for the process.
 *
 * The CUBIN is loaded through the driver API (cuModuleLoadData,
 * cuModuleGetFunction, cuLaunchKernel, cuModuleUnload) whose entry points
 * the CUDA runtime hands out (cudaGetDriverEntryPointByVersion): feint
 * links the runtime statically and not libcuda.
 *
 * The cache (feint/cache.h) sits in front of NVRTC: the key covers the
 * source, the program name, the options (the architecture among them),
 * NVRTC's version and feint's; a hit compiles nothing.
 *
 * Mapping errors back to the case: the caller names the source (label:
 * e.g. "case.yaml: physics.f1"), which heads every error; a "#line N
 * \"physics.f1[0]\"" directive before each spliced expression makes
 * NVRTC's log say "physics.f1[0](N): error: ..." for a line of it. */
#ifndef FEINT_CUDA_JIT_H
#define FEINT_CUDA_JIT_H

#include <stddef.h>

#include "feint/cache.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  const char *source;             /* CUDA C++; the kernels declared extern "C" __global__ */
  const char *label;              /* what the source came from (heads errors); NULL: "generated CUDA code" */
  const char *name;               /* NVRTC's program name, the file name of its log; NULL: "feint_jit.cu" */
  const char *const *options;     /* NVRTC options besides --gpu-architecture (e.g. "--std=c++17") */
  int n_options;
  const char *const *kernels;     /* the kernels to look up after loading (feint_jit_create) */
  int n_kernels;
  /* headers the source #includes, by the names it writes (NULL, 0: none);
   * their texts are part of the cache key */
  const char *const *header_names, *const *header_texts;
  int n_headers;
} feint_jit_source;

/* What one compile or create did (for --json and feint bench). */
typedef struct {
  int cache_hit;         /* 1: the CUBIN came from the disk cache; NVRTC was not called */
  int cache_rejected;    /* a cache file for the key was there but damaged: ignored and rewritten */
  int cache_stored;      /* 1: the CUBIN compiled now was written to the cache */
  double lookup_ms;      /* cache lookup (read + checksum) */
  double compile_ms;     /* NVRTC: program, compile, CUBIN (0 on a hit) */
  double store_ms;       /* cache store */
  double load_ms;        /* cuModuleLoadData and cuModuleGetFunction (create only) */
  size_t cubin_bytes;
  int nvrtc_major, nvrtc_minor;
  char arch[16];         /* "sm_90" */
  char key[65];          /* the cache key */
  char cache_why[224];   /* cache_rejected: what was wrong with the file */
} feint_jit_stats;

/* "sm_XY" of CUDA device `device` (as cudaSetDevice numbers them) into
 * arch[size]. */
int feint_jit_device_arch(int device, char *arch, size_t size);

/* The NVRTC library: FEINT_OK, or FEINT_ERR_INPUT with "user forms on the
 * GPU need NVRTC (libnvrtc.so.13 of the CUDA toolkit), not found: ...;
 * use --backend cpu". *major, *minor (may be NULL): its version. */
int feint_jit_nvrtc_open(int *major, int *minor);

/* Compile src for arch ("sm_90": no GPU is needed) into a CUBIN *cubin
 * (malloc; free()) of *size bytes, looked up in cache first and stored
 * there after a compile (cache NULL: always compile, store nothing). A
 * source NVRTC rejects: FEINT_ERR_INPUT, "<label>: the generated CUDA code
 * does not compile (NVRTC 13.0, sm_90):\n<NVRTC's log>". st may be NULL. */
int feint_jit_compile(const feint_jit_source *src, const char *arch, feint_cache *cache, void **cubin, size_t *size,
                      feint_jit_stats *st);

/* A CUBIN for the device's architecture (feint_jit_compile) loaded on
 * `device` with src->kernels looked up. */
typedef struct feint_jit feint_jit;
int feint_jit_create(const feint_jit_source *src, int device, feint_cache *cache, feint_jit **out,
                     feint_jit_stats *st);
/* Unloads the module (its kernels' handles die with it). NULL: nothing. */
void feint_jit_destroy(feint_jit *j);

/* The CUfunction of kernel k (src->kernels[k]), for callers that launch
 * it themselves. */
void *feint_jit_function(const feint_jit *j, int k);

/* Launch kernel k on stream (a cudaStream_t; NULL: the legacy default
 * stream) with args as cuLaunchKernel takes them (an array of pointers to
 * each argument). Launch errors: FEINT_ERR_COMPUTE naming the label and
 * the kernel; errors of the running kernel come at the next
 * synchronisation, as for any launch. */
int feint_jit_launch(const feint_jit *j, int k, const unsigned grid[3], const unsigned block[3], unsigned shared_bytes,
                     void *stream, void **args);

#ifdef __cplusplus
}
#endif

#endif
