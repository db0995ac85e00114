/* Run-time compilation with NVRTC behind the disk cache, and the loading
 * of its CUBIN through the driver API: see jit.h. */
#define FEINT_CUDA_MODULE "run-time compilation"
#include "backend/cuda/common.cuh"

#include <cuda.h>
#include <cudaTypedefs.h>
#include <dlfcn.h>
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mutex>
#include <vector>

#include "backend/cuda/jit.h"
extern "C" {
#include "feint/driver.h"
}

/* ---- NVRTC, opened on first use ---- */

/* X(name): every NVRTC function feint calls */
#define NVRTC_FUNCTIONS(X)                                                                                     \
  X(nvrtcVersion) X(nvrtcGetErrorString) X(nvrtcCreateProgram) X(nvrtcDestroyProgram) X(nvrtcCompileProgram) \
  X(nvrtcGetProgramLogSize) X(nvrtcGetProgramLog) X(nvrtcGetCUBINSize) X(nvrtcGetCUBIN)

/* the prototypes of <nvrtc.h>, so the compiler checks every call */
#define NVRTC_POINTER(name) static decltype(&name) p_##name;
NVRTC_FUNCTIONS(NVRTC_POINTER)

static std::mutex nvrtc_mutex;
static void *nvrtc_lib; /* set once every pointer is resolved */

/* dlopen path and resolve the functions: 1, or 0 with the first failure
 * kept in err (later ones are the same story). */
static int nvrtc_try(const char *path, char *err, size_t size) {
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *e = dlerror();
    if (!err[0]) snprintf(err, size, "%s", e ? e : path);
    return 0;
  }
#define NVRTC_RESOLVE(name)                                                    \
  if (!(*(void **)&p_##name = dlsym(h, #name))) {                              \
    if (!err[0]) snprintf(err, size, "%s has no %s (too old)", path, #name);   \
    dlclose(h);                                                                \
    return 0;                                                                  \
  }
  NVRTC_FUNCTIONS(NVRTC_RESOLVE)
  nvrtc_lib = h;
  return 1;
}

extern "C" int feint_jit_nvrtc_open(int *major, int *minor) {
  std::lock_guard<std::mutex> lock(nvrtc_mutex);
  if (!nvrtc_lib) {
    static const char *const sonames[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"};
    const char *only = getenv("FEINT_NVRTC_LIBRARY"), *cuda_home = getenv("CUDA_HOME");
    const char *dirs[] = {"", cuda_home && *cuda_home ? cuda_home : NULL, "/usr/local/cuda"};
    char err[2048] = "", tried[2048] = "", path[1024];
    size_t used = 0;
    for (int d = 0; d < 3 && !nvrtc_lib; d++)
      for (int s = 0; s < 3 && !nvrtc_lib; s++) {
        if (only && *only) {
          if (d || s) break;
          snprintf(path, sizeof path, "%s", only);
        } else if (!dirs[d]) {
          break;
        } else {
          snprintf(path, sizeof path, "%s%s%s", dirs[d], *dirs[d] ? "/lib64/" : "", sonames[s]);
        }
        if (used < sizeof tried)
          used += (size_t)snprintf(tried + used, sizeof tried - used, "%s%s", used ? ", " : "", path);
        nvrtc_try(path, err, sizeof err);
      }
    if (!nvrtc_lib)
      return feint_error_set(FEINT_ERR_INPUT,
                             "user forms on the GPU need NVRTC (libnvrtc.so.13 of the CUDA toolkit), not found: %s "
                             "(tried %s%s); use --backend cpu",
                             err, tried, only && *only ? ", as FEINT_NVRTC_LIBRARY says" : "");
  }
  int a = 0, b = 0;
  nvrtcResult r = p_nvrtcVersion(&a, &b);
  if (r != NVRTC_SUCCESS)
    return feint_error_set(FEINT_ERR_COMPUTE, "run-time compilation: nvrtcVersion: %s", p_nvrtcGetErrorString(r));
  if (major) *major = a;
  if (minor) *minor = b;
  return FEINT_OK;
}

/* An NVRTC program destroyed on every path out. */
struct nvrtc_program {
  nvrtcProgram p = NULL;
  nvrtc_program() = default;
  nvrtc_program(const nvrtc_program &) = delete;
  nvrtc_program &operator=(const nvrtc_program &) = delete;
  ~nvrtc_program() {
    if (p) p_nvrtcDestroyProgram(&p);
  }
};

#define NVRTC_CALL(label, what, call)                                                                       \
  do {                                                                                                      \
    const nvrtcResult nvrtc_r_ = (call);                                                                    \
    if (nvrtc_r_ != NVRTC_SUCCESS)                                                                          \
      return feint_error_set(FEINT_ERR_COMPUTE, "%s: %s: %s", (label), (what), p_nvrtcGetErrorString(nvrtc_r_)); \
  } while (0)

static const char *label_of(const feint_jit_source *src) { return src->label ? src->label : "generated CUDA code"; }
static const char *name_of(const feint_jit_source *src) { return src->name ? src->name : "feint_jit.cu"; }

/* NVRTC's log of prog into *log (malloc, free(); "" when empty). */
static int program_log(nvrtcProgram prog, const char *label, char **log) {
  size_t n = 0;
  *log = NULL;
  NVRTC_CALL(label, "nvrtcGetProgramLogSize", p_nvrtcGetProgramLogSize(prog, &n));
  FEINT_CALL(feint_calloc(n + 1, 1, log, "NVRTC's log"));
  if (n) {
    nvrtcResult r = p_nvrtcGetProgramLog(prog, *log);
    if (r != NVRTC_SUCCESS) {
      free(*log);
      *log = NULL;
      return feint_error_set(FEINT_ERR_COMPUTE, "%s: nvrtcGetProgramLog: %s", label, p_nvrtcGetErrorString(r));
    }
  }
  return FEINT_OK;
}

/* NVRTC itself: src for arch_option into *cubin (malloc) and *size. */
static int nvrtc_build(const feint_jit_source *src, const char *arch_option, const feint_jit_stats *st, void **cubin,
                       size_t *size) {
  const char *label = label_of(src);
  std::vector<const char *> opts;
  opts.push_back(arch_option);
  for (int i = 0; i < src->n_options; i++) opts.push_back(src->options[i]);
  nvrtc_program prog;
  NVRTC_CALL(label, "nvrtcCreateProgram",
             p_nvrtcCreateProgram(&prog.p, src->source, name_of(src), src->n_headers, src->header_texts,
                                  src->header_names));
  nvrtcResult r = p_nvrtcCompileProgram(prog.p, (int)opts.size(), opts.data());
  if (r != NVRTC_SUCCESS) {
    char *log = NULL;
    FEINT_CALL(program_log(prog.p, label, &log));
    /* a source error is the input's (its log says where); anything else
     * (an architecture this NVRTC does not know, out of memory) is not */
    int status = r == NVRTC_ERROR_COMPILATION
                     ? feint_error_set(FEINT_ERR_INPUT, "%s: the generated CUDA code does not compile (NVRTC %d.%d, %s):\n%s",
                                       label, st->nvrtc_major, st->nvrtc_minor, st->arch, log)
                     : feint_error_set(FEINT_ERR_COMPUTE, "%s: NVRTC %d.%d cannot compile for %s: %s%s%s", label,
                                       st->nvrtc_major, st->nvrtc_minor, st->arch, p_nvrtcGetErrorString(r),
                                       *log ? "\n" : "", log);
    free(log);
    return status;
  }
  size_t n = 0;
  NVRTC_CALL(label, "nvrtcGetCUBINSize", p_nvrtcGetCUBINSize(prog.p, &n));
  if (!n)
    return feint_error_set(FEINT_ERR_COMPUTE, "%s: NVRTC gave no CUBIN for %s (is it a virtual architecture?)", label,
                           st->arch);
  char *buf = NULL;
  FEINT_CALL(feint_malloc(n, 1, &buf, "the CUBIN"));
  r = p_nvrtcGetCUBIN(prog.p, buf);
  if (r != NVRTC_SUCCESS) {
    free(buf);
    return feint_error_set(FEINT_ERR_COMPUTE, "%s: nvrtcGetCUBIN: %s", label, p_nvrtcGetErrorString(r));
  }
  *cubin = buf;
  *size = n;
  return FEINT_OK;
}

/* feint_jit_compile; lookup 0 skips the cache's lookup (a cached CUBIN
 * the driver refused is compiled again and replaced). */
static int compile(const feint_jit_source *src, const char *arch, feint_cache *cache, int lookup, void **cubin,
                   size_t *size, feint_jit_stats *st) {
  *cubin = NULL;
  *size = 0;
  FEINT_CALL(feint_jit_nvrtc_open(&st->nvrtc_major, &st->nvrtc_minor));
  snprintf(st->arch, sizeof st->arch, "%s", arch);
  char arch_option[64];
  snprintf(arch_option, sizeof arch_option, "--gpu-architecture=%s", arch);
  /* everything that makes the binary; not the label nor the kernels'
   * names (the same source from two cases is one entry) */
  feint_cache_key k;
  feint_cache_key_init(&k, "nvrtc-cubin");
  feint_cache_key_add_int(&k, "nvrtc major", st->nvrtc_major);
  feint_cache_key_add_int(&k, "nvrtc minor", st->nvrtc_minor);
  feint_cache_key_add_str(&k, "arch", arch);
  feint_cache_key_add_str(&k, "option", arch_option);
  for (int i = 0; i < src->n_options; i++) feint_cache_key_add_str(&k, "option", src->options[i]);
  feint_cache_key_add_str(&k, "name", name_of(src));
  feint_cache_key_add_str(&k, "source", src->source);
  for (int i = 0; i < src->n_headers; i++) {
    feint_cache_key_add_str(&k, "header", src->header_names[i]);
    feint_cache_key_add_str(&k, "text", src->header_texts[i]);
  }
  feint_cache_key_final(&k, st->key);
  if (cache && lookup) {
    feint_cache_stats cs;
    FEINT_CALL(feint_cache_lookup(cache, st->key, cubin, size, &cs));
    st->lookup_ms = cs.ms;
    st->cache_rejected = cs.rejected;
    snprintf(st->cache_why, sizeof st->cache_why, "%s", cs.why);
    if (cs.hit) {
      st->cache_hit = 1;
      st->cubin_bytes = *size;
      return FEINT_OK;
    }
  }
  double t0 = feint_now();
  FEINT_CALL(nvrtc_build(src, arch_option, st, cubin, size));
  st->compile_ms = 1e3 * (feint_now() - t0);
  st->cubin_bytes = *size;
  if (cache) {
    feint_cache_stats cs;
    FEINT_CALL(feint_cache_store(cache, st->key, *cubin, *size, &cs));
    st->store_ms = cs.ms;
    st->cache_stored = cs.stored;
  }
  return FEINT_OK;
}

extern "C" int feint_jit_compile(const feint_jit_source *src, const char *arch, feint_cache *cache, void **cubin,
                                 size_t *size, feint_jit_stats *st) {
  feint_jit_stats local;
  if (!st) st = &local;
  memset(st, 0, sizeof *st);
  return compile(src, arch, cache, 1, cubin, size, st);
}

extern "C" int feint_jit_device_arch(int device, char *arch, size_t size) {
  int major = 0, minor = 0;
  FEINT_CUDA_CALL("compute capability",
                  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  FEINT_CUDA_CALL("compute capability",
                  cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  snprintf(arch, size, "sm_%d%d", major, minor);
  return FEINT_OK;
}

/* ---- the driver API, from the runtime ---- */

static std::mutex driver_mutex;
static int driver_ready;
static PFN_cuGetErrorString_v6000 cu_error_string;
static PFN_cuModuleLoadData_v2000 cu_module_load_data;
static PFN_cuModuleGetFunction_v2000 cu_module_get_function;
static PFN_cuModuleUnload_v2000 cu_module_unload;
static PFN_cuLaunchKernel_v4000 cu_launch_kernel;

/* *fn = the driver's symbol in the version of the headers compiled
 * against (CUDA_VERSION), as the typedefs above declare it. */
static int driver_entry(const char *symbol, void **fn) {
  cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
  *fn = NULL;
  FEINT_CUDA_CALL(symbol, cudaGetDriverEntryPointByVersion(symbol, fn, CUDA_VERSION, cudaEnableDefault, &q));
  if (q != cudaDriverEntryPointSuccess || !*fn)
    return feint_error_set(FEINT_ERR_COMPUTE, "run-time compilation: the CUDA driver has no %s for CUDA %d.%d (%s)",
                           symbol, CUDA_VERSION / 1000, CUDA_VERSION % 1000 / 10,
                           q == cudaDriverEntryPointVersionNotSufficent ? "the driver is older" : "not found");
  return FEINT_OK;
}

static int driver_open(void) {
  std::lock_guard<std::mutex> lock(driver_mutex);
  if (driver_ready) return FEINT_OK;
  FEINT_CALL(driver_entry("cuGetErrorString", (void **)&cu_error_string));
  FEINT_CALL(driver_entry("cuModuleLoadData", (void **)&cu_module_load_data));
  FEINT_CALL(driver_entry("cuModuleGetFunction", (void **)&cu_module_get_function));
  FEINT_CALL(driver_entry("cuModuleUnload", (void **)&cu_module_unload));
  FEINT_CALL(driver_entry("cuLaunchKernel", (void **)&cu_launch_kernel));
  driver_ready = 1;
  return FEINT_OK;
}

/* The error of a driver call: "<label>: <what> <name>: <driver's string>". */
static int cu_fail(CUresult r, const char *label, const char *what, const char *name) {
  const char *s = NULL;
  if (cu_error_string(r, &s) != CUDA_SUCCESS || !s) s = "unknown CUDA driver error";
  return feint_error_set(FEINT_ERR_COMPUTE, "%s: %s%s%s: %s (CUresult %d)", label, what, name ? " " : "",
                         name ? name : "", s, (int)r);
}

struct feint_jit {
  CUmodule module;
  CUfunction *fn;
  char **names;
  int n;
  int device;
  char *label;
};

extern "C" void feint_jit_destroy(feint_jit *j) {
  if (!j) return;
  /* the module belongs to the device's primary context, which must be
   * current; nothing to tell the caller if unloading fails (process end) */
  if (j->module && cudaSetDevice(j->device) == cudaSuccess) cu_module_unload(j->module);
  for (int i = 0; i < j->n; i++) free(j->names ? j->names[i] : NULL);
  free(j->names);
  free(j->fn);
  free(j->label);
  free(j);
}

/* Load cubin into j: FEINT_OK, or the driver's error (*refused 1). */
static int load_module(feint_jit *j, const void *cubin, int *refused) {
  CUresult r = cu_module_load_data(&j->module, cubin);
  *refused = r != CUDA_SUCCESS;
  if (r != CUDA_SUCCESS) {
    j->module = NULL;
    return cu_fail(r, j->label, "loading the compiled module", NULL);
  }
  return FEINT_OK;
}

/* Look up the kernels of the loaded module. */
static int get_functions(feint_jit *j) {
  for (int i = 0; i < j->n; i++) {
    CUresult r = cu_module_get_function(&j->fn[i], j->module, j->names[i]);
    if (r != CUDA_SUCCESS) return cu_fail(r, j->label, "no kernel", j->names[i]);
  }
  return FEINT_OK;
}

static int jit_alloc(const feint_jit_source *src, int device, feint_jit **out) {
  feint_jit *j;
  FEINT_CALL(feint_calloc(1, sizeof *j, &j, "a compiled module"));
  j->device = device;
  int status = feint_strdup(label_of(src), &j->label);
  if (!status) status = feint_calloc((size_t)src->n_kernels + 1, sizeof *j->fn, &j->fn, "kernel handles");
  if (!status) status = feint_calloc((size_t)src->n_kernels + 1, sizeof *j->names, &j->names, "kernel names");
  if (!status) j->n = src->n_kernels; /* names[] NULL until copied: destroy frees what is there */
  for (int i = 0; !status && i < src->n_kernels; i++) status = feint_strdup(src->kernels[i], &j->names[i]);
  if (status) {
    feint_jit_destroy(j);
    return status;
  }
  *out = j;
  return FEINT_OK;
}

extern "C" int feint_jit_create(const feint_jit_source *src, int device, feint_cache *cache, feint_jit **out,
                                feint_jit_stats *st) {
  feint_jit_stats local;
  if (!st) st = &local;
  memset(st, 0, sizeof *st);
  *out = NULL;
  /* the device's primary context current on this thread: the driver
   * calls below work in it, as the runtime's kernels do */
  FEINT_CUDA_CALL("set device", cudaSetDevice(device));
  FEINT_CUDA_CALL("context", cudaFree(0));
  FEINT_CALL(driver_open());
  char arch[16];
  FEINT_CALL(feint_jit_device_arch(device, arch, sizeof arch));
  void *cubin = NULL;
  size_t size = 0;
  FEINT_CALL(compile(src, arch, cache, 1, &cubin, &size, st));
  feint_jit *j = NULL;
  int status = jit_alloc(src, device, &j), refused = 0;
  double t0 = feint_now();
  if (!status) status = load_module(j, cubin, &refused);
  if (refused && st->cache_hit) {
    /* a cached CUBIN of this very key the driver will not take (a
     * checksum only proves it is what was written): compile it again */
    char why[sizeof st->cache_why];
    snprintf(why, sizeof why, "the driver refused it: %s", feint_error_message());
    feint_error_clear();
    free(cubin);
    feint_jit_stats again;
    memset(&again, 0, sizeof again);
    status = compile(src, arch, cache, 0, &cubin, &size, &again);
    again.lookup_ms = st->lookup_ms;
    again.cache_rejected = 1;
    snprintf(again.cache_why, sizeof again.cache_why, "%s", why);
    *st = again;
    t0 = feint_now();
    if (!status) status = load_module(j, cubin, &refused);
  }
  if (!status) status = get_functions(j);
  st->load_ms = 1e3 * (feint_now() - t0);
  free(cubin);
  if (status) {
    feint_jit_destroy(j);
    return status;
  }
  *out = j;
  return FEINT_OK;
}

extern "C" void *feint_jit_function(const feint_jit *j, int k) {
  return j && k >= 0 && k < j->n ? (void *)j->fn[k] : NULL;
}

extern "C" int feint_jit_launch(const feint_jit *j, int k, const unsigned grid[3], const unsigned block[3],
                                unsigned shared_bytes, void *stream, void **args) {
  if (k < 0 || k >= j->n)
    return feint_error_set(FEINT_ERR_COMPUTE, "%s: no kernel %d (the module has %d)", j->label, k, j->n);
  FEINT_CUDA_CALL("set device", cudaSetDevice(j->device));
  CUresult r = cu_launch_kernel(j->fn[k], grid[0], grid[1], grid[2], block[0], block[1], block[2], shared_bytes,
                                (CUstream)stream, args, NULL);
  if (r != CUDA_SUCCESS) return cu_fail(r, j->label, "launching kernel", j->names[k]);
  return FEINT_OK;
}
