/* feint bench: the report of a benchmark run. Each compute phase is set
 * against the copy bandwidth measured now on the same device (a device
 * backend's own copy, its kind's copy_bandwidth; else the host's memcpy),
 * counting bytes read + written. A phase's figures are computed once
 * (cmd_bench_phase_figures), for the table here and for the --csv and
 * --svg files (bench_files.c). */
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

int cmd_bench_phase_figures(const feint_run_report *rep, int k, int device, double copy_gbs, cmd_bench_phase *p) {
  memset(p, 0, sizeof *p);
  p->name = feint_phase_names[k];
  p->phase = k;
  if (rep->seconds[k] <= 0) return 0;
  p->time_ms = 1e3 * rep->seconds[k];
  p->has_copies = device;
  p->h2d_ms = 1e3 * rep->h2d_seconds[k];
  p->d2h_ms = 1e3 * rep->d2h_seconds[k];
  p->has_kernel = rep->kernel_seconds[k] > 0;
  p->kernel_ms = 1e3 * rep->kernel_seconds[k];
  /* the rates divide by the kernel time where the backend measured one */
  const double t = p->has_kernel ? rep->kernel_seconds[k] : rep->seconds[k];
  p->has_cells = feint_phase_goes_over_cells(k);
  if (p->has_cells) p->mcells_per_s = 1e-6 * (double)rep->n_cells / t;
  p->has_bytes = rep->min_bytes[k] > 0;
  if (p->has_bytes) {
    p->min_bytes = rep->min_bytes[k];
    p->gb_per_s = 1e-9 * p->min_bytes / t;
    p->has_fraction = copy_gbs > 0;
    if (p->has_fraction) p->fraction_of_copy = p->gb_per_s / copy_gbs;
  }
  p->has_flops = rep->flops[k] > 0;
  if (p->has_flops) {
    p->flops = rep->flops[k];
    p->gflop_per_s = 1e-9 * p->flops / t;
  }
  return 1;
}

static void print_table(const feint_run_options *o, const feint_run_report *rep, int device, double copy) {
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
    cmd_bench_phase p;
    if (!cmd_bench_phase_figures(rep, k, device, copy, &p)) continue;
    printf("%-17s %11.3f", p.name, p.time_ms);
    if (p.has_copies) printf(" %9.3f %9.3f", p.h2d_ms, p.d2h_ms);
    else printf(" %9s %9s", "-", "-");
    h2d += p.h2d_ms;
    d2h += p.d2h_ms;
    if (p.has_kernel) printf(" %11.3f", p.kernel_ms);
    else printf(" %11s", "-");
    if (p.has_cells) printf(" %9.2f", p.mcells_per_s);
    else printf(" %9s", "-");
    if (p.has_bytes)
      printf(" %10.1f %9.1f %7.1f%%", 1e-6 * p.min_bytes, p.gb_per_s, p.has_fraction ? 100 * p.fraction_of_copy : 0);
    else if (p.has_flops) /* keep GF/s in its column */
      printf(" %10s %9s %8s", "-", "-", "-");
    if (p.has_flops) printf(" %9.1f", p.gflop_per_s);
    if (k == FEINT_PHASE_MESH && rep->gmsh_seconds > 0) /* 0 for a .msh: read natively */
      printf("   (libgmsh's own open: %.3f ms)", 1e3 * rep->gmsh_seconds);
    printf("\n");
  }
  if (device)
    printf("\nhost-to-device copies %.3f ms, device-to-host %.3f ms in all (h2d, d2h: inside the phase's time; "
           "compute phases: per run)\n", h2d, d2h);
  printf("%sGB/s = fewest bytes / (kernel time, or wall time where there is none)\n", device ? "" : "\n");
  printf("GF/s = flops of the quadrature algorithm (a model: see feint(1), bench) / the same time\n");
  const int r = FEINT_PHASE_RESIDUAL;
  const double tr = rep->kernel_seconds[r] > 0 ? rep->kernel_seconds[r] : rep->seconds[r];
  if (rep->n_dofs > 0 && tr > 0) printf("GDOF/s of the residual (or operator apply): %.3f\n", 1e-9 * (double)rep->n_dofs / tr);
}

int cmd_bench_report(const feint_run_options *o, const cmd_bench_files *files, const feint_run_report *rep) {
  double copy = 0;
  const feint_backend_kind *kind = feint_backend_kind_find(rep->backend);
  const int device = kind && kind->copy_bandwidth; /* a device of its own, with copies to and from it */
  if (device) {
    if (kind->copy_bandwidth(o->device_index < 0 ? 0 : o->device_index, (size_t)1 << 30, 20, &copy))
      return cmd_fail(FEINT_ERR_COMPUTE);
  } else {
    copy = host_copy_gbs();
  }
  if (!o->json) print_table(o, rep, device, copy);
  if (files->csv || files->svg) {
    fflush(stdout); /* the table before a message about a file */
    const int status = cmd_bench_write_files(o, files, rep, device, copy);
    if (status) return cmd_fail(status);
  }
  return 0;
}
