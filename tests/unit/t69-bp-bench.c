/* BP benchmark (issue 4; not a check): BP1.0, BP3.5, BP3.0 with stored and
 * recomputed geometric factors, N = 1..15, on a 4096-cell box (16^3, as in
 * Swirydowicz et al.) and on a box of >= 10M dofs. Per row: median kernel
 * time (zeroing y + the kernel, events), GDOF/s (global dofs / time), GF/s
 * (sum-factorisation flops, feint_bp_flops), the minimum bytes of the
 * paper's Table 2 model extended by the dof map (feint_bp_min_bytes),
 * GB/s = min bytes / time, and that over the device-to-device copy
 * bandwidth measured at the start of the same run.
 * FEINT_BENCH_NMIN / FEINT_BENCH_NMAX (default 1 / 15), FEINT_BENCH_REPS
 * (default 20), FEINT_BENCH_SMALL=0 / FEINT_BENCH_LARGE=0 to skip a mesh,
 * FEINT_BENCH_RECOMPUTE=0 to skip the recomputed-geometry rows,
 * FEINT_BENCH_VARIANTS="1 2 3 4 5 6 7 8 9" to add rows for those kernel
 * variants (feint_bp_gpu_set_variant; "st-v" stored, "rc-v" recomputed,
 * variants 2 and 4-9 only with stored factors; those that are not the
 * default at an order only in a make EXPERIMENTS=1 build) beside the
 * defaults "sto" and "rec". FEINT_BENCH_NUMBERING="1 0" runs each row once per listed numbering
 * (feint_bp_gpu_set_numbering: 1 split, the default; 0 the dof map's own;
 * label suffix "+s" / "+o") instead of once with the default. The last
 * columns are the kernel's resources (feint_bp_gpu_kernel_info): registers
 * and local-memory bytes a thread, KiB of shared memory and threads a
 * block, blocks resident per SM.
 * Skips without a GPU. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cuda/cuda_timing.h"
#include "feint/backend.h"
#include "feint/bp.h"
#include "feint/error.h"

static int env_int(const char *k, int def) {
  const char *v = getenv(k);
  return v && *v ? atoi(v) : def;
}

#define CALL(e)                                                                 \
  do {                                                                          \
    if ((e) != FEINT_OK) {                                                      \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #e, feint_error_message()); \
      exit(1);                                                                  \
    }                                                                           \
  } while (0)

int main(void) {
  if (feint_cuda_device_count() <= 0) {
    printf("skipped: no GPU\n");
    return 0;
  }
  int nmin = env_int("FEINT_BENCH_NMIN", 1), nmax = env_int("FEINT_BENCH_NMAX", 15);
  int reps = env_int("FEINT_BENCH_REPS", 20);
  int do_small = env_int("FEINT_BENCH_SMALL", 1), do_large = env_int("FEINT_BENCH_LARGE", 1);
  const int nmodes = env_int("FEINT_BENCH_RECOMPUTE", 1) ? 2 : 1;
  int variants[10] = {0}, nv = 1; /* the default first, then the listed ones */
  const char *vs = getenv("FEINT_BENCH_VARIANTS");
  for (const char *c = vs ? vs : ""; *c && nv < 10;) {
    char *end = NULL;
    long v = strtol(c, &end, 10);
    if (end == c) {
      c++;
      continue;
    }
    if (v >= 1 && v <= 9) variants[nv++] = (int)v;
    c = end;
  }
  int numberings[2] = {-1, -1}, nn = 0;
  const char *ns = getenv("FEINT_BENCH_NUMBERING");
  for (const char *c = ns ? ns : ""; *c && nn < 2; c++)
    if (*c == '0' || *c == '1') numberings[nn++] = *c - '0';
  char dev[256];
  CALL(feint_bp_gpu_device_name(0, dev, sizeof dev));
  double copy_gbs = 0;
  CALL(feint_cuda_copy_bandwidth(0, (size_t)1 << 30, 20, &copy_gbs));
  printf("device: %s\ndevice-to-device copy: %.1f GB/s (read + write, 1 GiB)\n", dev, copy_gbs);
  printf("%-5s %2s %-5s %-7s %9s %10s %9s %7s %8s %9s %8s %6s %4s %4s %6s %4s %4s\n", "mesh", "N", "BP", "geo", "cells",
         "dofs", "ms", "GDOF/s", "GF/s", "minMB", "GB/s", "%copy", "regs", "lmem", "smemK", "thr", "b/SM");
  unsigned seed = 777;
  for (int pass = 0; pass < 2; pass++) {
    if ((pass == 0 && !do_small) || (pass == 1 && !do_large)) continue;
    for (int N = nmin; N <= nmax; N++) {
      int n = 16;
      if (pass == 1) n = (int)ceil((cbrt(10.0e6) - 1) / N);
      feint_hexmesh *m = NULL;
      feint_bp_dofmap *d = NULL;
      CALL(feint_hexmesh_box(n, n, n, 1, 1, 1, 0.2, &m));
      CALL(feint_bp_dofmap_box(m, N, &d));
      for (int k = 0; k < 3; k++)
        for (int mode = 0; mode < nmodes; mode++) {
          feint_bp_op *op = NULL;
          /* Host op without stored factors; the GPU computes its own. */
          CALL(feint_bp_op_create(m, d, (feint_bp_kind)k, FEINT_BP_GEO_RECOMPUTE, 1.0, &op));
          op->geo_mode = (feint_bp_geo_mode)mode;
          feint_bp_gpu *g = NULL;
          CALL(feint_bp_gpu_create(op, 0, &g));
          for (int iv = 0; iv < nv; iv++) {
            const int v = variants[iv];
            if (mode == FEINT_BP_GEO_RECOMPUTE && v != 1 && v != 3) continue; /* stored only */
            if (!feint_bp_gpu_variant_built((feint_bp_kind)k, (feint_bp_geo_mode)mode, N, v))
              continue; /* another order's winner: in make EXPERIMENTS=1 builds only */
            CALL(feint_bp_gpu_set_variant(g, v));
            for (int in = 0; in < (nn ? nn : 1); in++) {
              char label[32];
              if (v)
                snprintf(label, sizeof label, "%s-%d", mode ? "rc" : "st", v);
              else
                snprintf(label, sizeof label, "%s", mode ? "rec" : "sto");
              if (nn) snprintf(label + strlen(label), sizeof label - strlen(label), "+%s", numberings[in] ? "s" : "o");
              CALL(feint_bp_gpu_set_numbering(g, numberings[in]));
              double med = 0, mn = 0;
              CALL(feint_bp_gpu_bench(g, reps, seed++, &med, &mn));
              double s = med * 1e-3, bytes = feint_bp_min_bytes(op), fl = feint_bp_flops(op);
              feint_bp_kernel_info ki;
              CALL(feint_bp_gpu_kernel_info(g, &ki));
              printf("%-5s %2d %-5s %-7s %9lld %10lld %9.4f %7.2f %8.1f %9.1f %8.1f %5.1f%% %4d %4d %6.1f %4d %4d\n",
                     pass ? "large" : "small", N, feint_bp_name(op->kind), label,
                     (long long)m->n_cells, (long long)d->n_dofs, med, d->n_dofs / s * 1e-9, fl / s * 1e-9,
                     bytes * 1e-6, bytes / s * 1e-9, 100 * bytes / s * 1e-9 / copy_gbs, ki.registers, ki.local_bytes,
                     ki.shared_bytes / 1024.0, ki.threads, ki.blocks_per_sm);
              fflush(stdout);
            }
          }
          feint_bp_gpu_destroy(g);
          feint_bp_op_destroy(op);
        }
      feint_bp_dofmap_destroy(d);
      feint_hexmesh_destroy(m);
    }
  }
  return 0;
}
