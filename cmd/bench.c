/* feint bench: the report of a benchmark run. Each compute phase is set
 * against the copy bandwidth measured now on the same device (a device
 * backend's own copy, its kind's copy_bandwidth; else the host's memcpy),
 * counting bytes read + written. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "feint/backend.h"
#include "feint/error.h"

/* Host memcpy bandwidth (read + write) over a buffer far larger than the caches. */
static double host_copy_gbs(void) {
  const size_t n = (size_t)256 << 20;
  char *a = malloc(n), *b = malloc(n);
  double best = 0;
  if (a && b) {
    memset(a, 1, n);
    memset(b, 2, n);
    for (int k = 0; k < 5; k++) {
      double t0 = feint_now();
      memcpy(b, a, n);
      double t = feint_now() - t0;
      if (2.0 * (double)n / t > best) best = 2.0 * (double)n / t;
    }
  }
  free(a);
  free(b);
  return best * 1e-9;
}

int cmd_bench_report(const feint_run_options *o, const feint_run_report *rep) {
  double copy = 0;
  const feint_backend_kind *kind = feint_backend_kind_find(rep->backend);
  const int device = kind && kind->copy_bandwidth; /* a device of its own, with copies to and from it */
  if (device) {
    if (kind->copy_bandwidth(o->device_index < 0 ? 0 : o->device_index, (size_t)1 << 30, 20, &copy))
      return cmd_fail(FEINT_ERR_COMPUTE);
  } else {
    copy = host_copy_gbs();
  }
  printf("feint bench %s\n", o->case_path);
  printf("backend %s on %s; %lld cells, %lld nodes, %lld dofs, %lld nonzeros\n", rep->backend, rep->device,
         (long long)rep->n_cells, (long long)rep->n_nodes, (long long)rep->n_dofs, (long long)rep->nnz);
  printf("copy bandwidth measured now: %.1f GB/s (%s, read + write)\n", copy,
         device ? "device-to-device" : "host memcpy");
  if (rep->n_colors > 0) printf("cell colouring (assembly.strategy colored): %d colours\n", rep->n_colors);
  if (rep->kernel_family[0] || rep->matrix_family[0])
    printf("kernel families (feint info --kernels): residual %s, matrix %s\n",
           rep->kernel_family[0] ? rep->kernel_family : "-", rep->matrix_family[0] ? rep->matrix_family : "-");
  if (rep->residual_kernel[0]) printf("residual kernel: %s\n", rep->residual_kernel);
  if (rep->jit)
    printf("run-time compiled kernels: %d compiled (%.1f ms), %d from the cache; load %.2f ms\n", rep->jit_compiled,
           rep->jit_compile_ms, rep->jit_cache_hit, rep->jit_load_ms);
  if (rep->pattern_steps[0]) printf("pattern steps: %s\n", rep->pattern_steps);
  if (rep->setup_steps[0]) printf("setup steps (last creation): %s\n", rep->setup_steps);
  printf("compute phases: median of %d runs\n\n", o->repeat);
  printf("%-17s %11s %9s %9s %11s %9s %10s %9s %8s %9s\n", "phase", "time [ms]", "h2d [ms]", "d2h [ms]",
         "kernel [ms]", "Mcells/s", "min MB", "GB/s", "of copy", "GF/s");
  double h2d = 0, d2h = 0;
  for (int k = 0; k < FEINT_PHASE_COUNT; k++) {
    if (rep->seconds[k] <= 0) continue;
    printf("%-17s %11.3f", feint_phase_names[k], 1e3 * rep->seconds[k]);
    if (device) printf(" %9.3f %9.3f", 1e3 * rep->h2d_seconds[k], 1e3 * rep->d2h_seconds[k]);
    else printf(" %9s %9s", "-", "-");
    h2d += rep->h2d_seconds[k];
    d2h += rep->d2h_seconds[k];
    if (rep->kernel_seconds[k] > 0) printf(" %11.3f", 1e3 * rep->kernel_seconds[k]);
    else printf(" %11s", "-");
    const double t = rep->kernel_seconds[k] > 0 ? rep->kernel_seconds[k] : rep->seconds[k];
    if (feint_phase_goes_over_cells(k)) printf(" %9.2f", 1e-6 * (double)rep->n_cells / t);
    else printf(" %9s", "-");
    if (rep->min_bytes[k] > 0) {
      double gbs = 1e-9 * rep->min_bytes[k] / t;
      printf(" %10.1f %9.1f %7.1f%%", 1e-6 * rep->min_bytes[k], gbs, copy > 0 ? 100 * gbs / copy : 0);
    }
    if (rep->flops[k] > 0) printf(" %9.1f", 1e-9 * rep->flops[k] / t);
    if (k == FEINT_PHASE_MESH && rep->gmsh_seconds > 0) /* 0 for a .msh: read natively */
      printf("   (libgmsh's own open: %.3f ms)", 1e3 * rep->gmsh_seconds);
    printf("\n");
  }
  if (device)
    printf("\nhost-to-device copies %.3f ms, device-to-host %.3f ms in all (h2d, d2h: inside the phase's time; "
           "compute phases: per run)\n", 1e3 * h2d, 1e3 * d2h);
  printf("%sGB/s = fewest bytes / (kernel time, or wall time where there is none)\n", device ? "" : "\n");
  printf("GF/s = flops of the quadrature algorithm (a model: see feint(1), bench) / the same time\n");
  const int r = FEINT_PHASE_RESIDUAL;
  const double tr = rep->kernel_seconds[r] > 0 ? rep->kernel_seconds[r] : rep->seconds[r];
  if (rep->n_dofs > 0 && tr > 0) printf("GDOF/s of the residual (or operator apply): %.3f\n", 1e-9 * (double)rep->n_dofs / tr);
  return 0;
}
