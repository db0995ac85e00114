/* Neumann and Robin facet integrals on the GPU: the CUDA twin of the host
 * loop in src/boundary/boundary.c (integrate_host), on the same facet sets
 * and with the same per-facet functions (src/boundary/facet.h).
 *
 * One thread per (facet, local row (i, c)): the facet Jacobian from the
 * vertex coordinates (at each point on bilinear quadrilaterals), the load entry by surface quadrature, and for Robin
 * the row's matrix entries, scattered with atomics through the facet slot
 * maps into the compact load and sites (boundary.c adds those into the
 * global vectors and the CSR values). Device buffers live for one call;
 * copies and kernels are timed apart by CUDA events.
 *
 * Measured (tests/unit/t530-facets.c, H100 80GB HBM3, copy bandwidth 2929-
 * 2980 GB/s in the same run; agreement with the host 4.6e-16 at worst):
 *   2M P1 triangles, scalar Robin: 0.340 ms for >= 592 MB = 1740 GB/s,
 *     58% of the copy: the floor is the bytes (coordinates, coefficients,
 *     the facet slot maps, the atomics); the gap is the per-thread strided
 *     reads of the 9-entry slot rows and the atomics' read-modify-write.
 *   100k P2 triangles, 3 components, full tensor alpha: 1.21 ms = 17%: the
 *     arithmetic, not the bytes (each of the 18 threads of a facet does 18
 *     entries x 6 points x an interpolation of 6 in FP64, and the
 *     interpolated alpha is recomputed per entry); a per-facet shared
 *     interpolation would remove most of it.
 * The transfers (upload 48-67 ms, download 17-35 ms for those sizes) are
 * far larger than the kernels: the facet data is built on the host and
 * the results go back to the host matrix; keeping them on the device
 * needs device-resident CSR values from the CUDA backend. */
#include <cuda_runtime.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

extern "C" {
#include "feint/boundary.h"
#include "feint/error.h"
}
#define FEINT_CUDA_MODULE "GPU boundary integrals"
#include "backend/cuda/common.cuh"
#include "boundary/facet.h"

namespace {

__global__ void facet_kernel(feint_facet_view v, double *load, double *sites) {
  const int nc = v.nc, nbc = v.nb * nc;
  const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= v.n_facets * nbc) return;
  const int64_t f = t / nbc;
  const int r = (int)(t - f * nbc), i = r / nc, c = r - i * nc;
  atomicAdd(&load[v.load_index[t]], feint_facet_load(&v, f, i, c));
  if (!v.robin) return;
  const int64_t *si = v.site_index + t * nbc;
  for (int j = 0; j < v.nb; j++)
    for (int d = 0; d < nc; d++) {
      const int64_t s = si[j * nc + d];
      if (s >= 0) atomicAdd(&sites[s], feint_facet_matrix(&v, f, i, c, j, d));
    }
}

double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

enum { MAX_SETS = 64, ARRAYS = 8 };

/* The device buffers and events of one call, freed when it ends. */
struct facet_call {
  void *buf[MAX_SETS][ARRAYS] = {};
  double *d_load = NULL, *d_sites = NULL;
  cudaEvent_t ev[4] = {NULL, NULL, NULL, NULL};
  facet_call() = default;
  facet_call(const facet_call &) = delete;
  facet_call &operator=(const facet_call &) = delete;
  ~facet_call() {
    for (int k = 0; k < MAX_SETS; k++)
      for (int a = 0; a < ARRAYS; a++)
        if (buf[k][a]) cudaFree(buf[k][a]);
    cudaFree(d_load);
    cudaFree(d_sites);
    for (int e = 0; e < 4; e++)
      if (ev[e]) cudaEventDestroy(ev[e]);
  }
};

/* A device buffer, or the allocation's error (alloc.h). */
int facet_alloc(void *ptr, size_t bytes) {
  return feint_cuda_malloc((void **)ptr, bytes, "GPU boundary integrals", "allocation");
}

int run_sets(facet_call &R, const feint_facet_view *const *sets, int n_sets, int64_t n_load, int64_t n_sites,
             double *load, double *sites, feint_boundary_device_stats &st) {
  void *(&buf)[MAX_SETS][ARRAYS] = R.buf;
  cudaEvent_t *ev = R.ev;
  feint_facet_view dv[MAX_SETS];
  int dev = 0;
  cudaDeviceProp prop;
  FEINT_CUDA_CALL("device", cudaGetDevice(&dev));
  FEINT_CUDA_CALL("device", cudaGetDeviceProperties(&prop, dev));
  snprintf(st.device, sizeof st.device, "%.127s", prop.name);
  for (int e = 0; e < 4; e++) FEINT_CUDA_CALL("events", cudaEventCreate(&ev[e]));
  FEINT_CALL(facet_alloc(&R.d_load, (size_t)n_load * sizeof(double)));
  FEINT_CALL(facet_alloc(&R.d_sites, (size_t)n_sites * sizeof(double)));
  double *d_load = R.d_load, *d_sites = R.d_sites;
  /* the arrays of each set: basis, weights, coordinates, coefficients, load map, site map, points, |J| */
  size_t bytes[MAX_SETS][ARRAYS];
  for (int k = 0; k < n_sets; k++) {
    const feint_facet_view *v = sets[k];
    const size_t nf = (size_t)v->n_facets, nbc = (size_t)(v->nb * v->nc);
    const size_t b[ARRAYS] = {(size_t)(v->nq * v->nb) * 8, (size_t)v->nq * 8, nf * v->nv * 3 * 8,
                              nf * v->nb * v->ncoef * 8, nf * nbc * 8, v->robin ? nf * nbc * nbc * 8 : 0,
                              v->points ? (size_t)v->nq * 2 * 8 : 0, v->det ? nf * v->nq * 8 : 0};
    for (int a = 0; a < ARRAYS; a++) {
      bytes[k][a] = b[a];
      if (b[a]) FEINT_CALL(facet_alloc(&buf[k][a], b[a]));
      if ((a >= 2 && a < 6) || a == 7) st.bytes += (int64_t)b[a];
    }
  }
  st.bytes += (n_load + n_sites) * 8;
  FEINT_CUDA_CALL("upload", cudaEventRecord(ev[0]));
  for (int k = 0; k < n_sets; k++) {
    const feint_facet_view *v = sets[k];
    const void *src[ARRAYS] = {v->phi, v->weights, v->x, v->coef, v->load_index, v->site_index, v->points, v->det};
    for (int a = 0; a < ARRAYS; a++)
      if (bytes[k][a]) FEINT_CUDA_CALL("upload", feint_cuda_memcpy(buf[k][a], src[a], bytes[k][a], cudaMemcpyHostToDevice));
    dv[k] = *v;
    dv[k].phi = (const double *)buf[k][0];
    dv[k].weights = (const double *)buf[k][1];
    dv[k].x = (const double *)buf[k][2];
    dv[k].coef = (const double *)buf[k][3];
    dv[k].load_index = (const int64_t *)buf[k][4];
    dv[k].site_index = (const int64_t *)buf[k][5];
    dv[k].points = (const double *)buf[k][6];
    dv[k].det = (const double *)buf[k][7];
  }
  FEINT_CUDA_CALL("upload", cudaMemset(d_load, 0, (size_t)n_load * sizeof(double)));
  FEINT_CUDA_CALL("upload", cudaMemset(d_sites, 0, (size_t)n_sites * sizeof(double)));
  FEINT_CUDA_CALL("kernel", cudaEventRecord(ev[1]));
  for (int k = 0; k < n_sets; k++) {
    const int64_t threads = dv[k].n_facets * dv[k].nb * dv[k].nc;
    if (!threads) continue;
    const int block = 128;
    facet_kernel<<<(unsigned)((threads + block - 1) / block), block>>>(dv[k], d_load, d_sites);
    FEINT_CUDA_CALL("kernel launch", cudaGetLastError());
  }
  FEINT_CUDA_CALL("kernel", cudaEventRecord(ev[2]));
  FEINT_CUDA_CALL("download", feint_cuda_memcpy(load, d_load, (size_t)n_load * sizeof(double), cudaMemcpyDeviceToHost));
  FEINT_CUDA_CALL("download", feint_cuda_memcpy(sites, d_sites, (size_t)n_sites * sizeof(double), cudaMemcpyDeviceToHost));
  FEINT_CUDA_CALL("download", cudaEventRecord(ev[3]));
  FEINT_CUDA_CALL("download", cudaEventSynchronize(ev[3]));
  float ms[3];
  for (int e = 0; e < 3; e++) FEINT_CUDA_CALL("timing", cudaEventElapsedTime(&ms[e], ev[e], ev[e + 1]));
  st.upload_ms = ms[0];
  st.kernel_ms = ms[1];
  st.download_ms = ms[2];
  return FEINT_OK;
}

} // namespace

extern "C" int feint_facets_cuda(const feint_facet_view *const *sets, int n_sets, int64_t n_load, int64_t n_sites,
                                 double *load, double *sites, feint_boundary_device_stats *stats) {
  if (n_sets > MAX_SETS)
    return feint_error_set(FEINT_ERR_INPUT, "GPU boundary integrals: at most %d Neumann/Robin entries (%d given)",
                           MAX_SETS, n_sets);
  int n_dev = 0;
  if (cudaGetDeviceCount(&n_dev) != cudaSuccess || n_dev == 0) {
    cudaGetLastError();
    return feint_error_set(FEINT_ERR_INPUT, "GPU boundary integrals: no CUDA device is visible");
  }
  const double t0 = now_ms();
  feint_boundary_device_stats st;
  memset(&st, 0, sizeof st);
  int status;
  {
    facet_call R; /* freed before the total is taken, as the call's own clean-up */
    status = run_sets(R, sets, n_sets, n_load, n_sites, load, sites, st);
  }
  st.total_ms = now_ms() - t0;
  if (stats) *stats = st;
  return status;
}
