/* Neumann and Robin facet integrals: the CUDA kernel (backend/cuda/
 * facet.cu) against the host reference (boundary.c) on the same facet
 * sets, filled with fresh random coordinates and coefficients.
 *
 * 1. Sets from real cases (Gmsh cube and square, cubes of hexahedra and of
 *    prisms, P1/P2, scalar Poisson and elasticity with a tensor Robin alpha
 *    and per-component Neumann data):
 *    the setup of feint_boundary_create, its coordinates and coefficients
 *    then overwritten with random numbers; load and Robin values agree to
 *    1e-12 (relative to the largest), and the host result is checked
 *    independently: with alpha = I and unit coordinates untouched the
 *    Robin values sum to nc x the group's area.
 * 2. Large synthetic sets (2M P1 triangles scalar, 100k P2 triangles with
 *    3 components): agreement, and the kernel's time against the
 *    device-to-device copy bandwidth of the same run (median of 7).
 * Without a GPU, part 1 checks the host sums and the GPU parts print
 * "skipped" (FEINT_GPU_TESTS=1 makes a missing GPU a failure). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bc_case.h"
#include "boundary/facet.h"
#include "check.h"
#include "feint/backend.h"
#include "feint/boundary.h"
#include "feint/case.h"
#include "feint/error.h"
#include "feint/mesh.h"
#include "feint/space.h"

static uint64_t rng = 0x243F6A8885A308D3ull;
static double urand(void) { return check_urand(&rng); }

static double max_abs(const double *a, int64_t n) {
  double m = 0;
  for (int64_t i = 0; i < n; i++) m = fabs(a[i]) > m ? fabs(a[i]) : m;
  return m;
}

static double max_diff(const double *a, const double *b, int64_t n) {
  double m = 0;
  for (int64_t i = 0; i < n; i++) m = fabs(a[i] - b[i]) > m ? fabs(a[i] - b[i]) : m;
  return m;
}

/* host vs the GPU's integrator on the same sets; returns the relative difference */
static double agree(feint_facet_integrator *gpu, const feint_facet_view *const *v, int n_sets, int64_t n_load,
                    int64_t n_sites, const char *tag, feint_boundary_device_stats *st) {
  double *lh = malloc(sizeof(double) * (size_t)(n_load + 1)), *sh = malloc(sizeof(double) * (size_t)(n_sites + 1));
  double *lg = malloc(sizeof(double) * (size_t)(n_load + 1)), *sg = malloc(sizeof(double) * (size_t)(n_sites + 1));
  CHECK_OK(feint_facets_host(v, n_sets, n_load, n_sites, lh, sh));
  CHECK_OK(gpu(v, n_sets, n_load, n_sites, lg, sg, st));
  const double dl = max_diff(lh, lg, n_load) / max_abs(lh, n_load);
  const double ds = n_sites ? max_diff(sh, sg, n_sites) / max_abs(sh, n_sites) : 0;
  printf("%s: %lld load, %lld Robin entries: GPU - CPU relative %.2e (load), %.2e (Robin)\n", tag,
         (long long)n_load, (long long)n_sites, dl, ds);
  CHECK(dl <= 1e-12 && ds <= 1e-12, "%s: GPU and CPU differ", tag);
  free(lh);
  free(sh);
  free(lg);
  free(sg);
  return dl > ds ? dl : ds;
}

/* Part 1: a case's sets (gpu: the GPU's facet integrator, NULL without a GPU). */
static void real_case(const char *geo, int order, int elasticity, feint_facet_integrator *gpu) {
  char yaml[1024];
  snprintf(yaml, sizeof yaml,
           "mesh: {file: %s/cases/%s, size: 0.3}\nspace: {order: %d}\n"
           "physics: %s\nboundary:\n"
           "  - {group: boundary, robin: {alpha: %s, value: %s}}\n"
           "  - {group: left, neumann: %s}\n",
           getenv("PWD") ? getenv("PWD") : ".", geo, order,
           elasticity ? "{kind: elasticity, E: 1, nu: 0.3}" : "{kind: poisson}",
           elasticity ? (strstr(geo, "cube") ? "[[1, 0, 0], [0, 1, 0], [0, 0, 1]]" : "[[1, 0], [0, 1]]") : "1",
           elasticity ? (strstr(geo, "cube") ? "[x, y, z]" : "[x, y]") : "x",
           elasticity ? (strstr(geo, "cube") ? "[1, \"y\", ~]" : "[1, \"y\"]") : "\"1 + y\"");
  bc_case b;
  bc_case_create(yaml, order, elasticity, &b);
  const feint_mesh *m = b.m;
  const feint_space *s = b.s;
  feint_boundary_conditions *bc = b.bc;
  char tag[128];
  snprintf(tag, sizeof tag, "%s P%d %s (%lld Robin + %lld Neumann facets)", geo, order,
           elasticity ? "elasticity" : "poisson", (long long)bc->n_robin_facets, (long long)bc->n_neumann_facets);
  /* host check against the exact measure: alpha = I, so the Robin values sum to nc |boundary| */
  CHECK_OK(feint_boundary_integrate(bc, NULL));
  double sum = 0;
  for (int64_t t = 0; t < bc->n_sites; t++) sum += bc->site_values[t];
  const double area = m->dim == 3 ? 6.0 : 4.0;
  CHECK_CLOSE(sum, s->components * area, 1e-12);
  printf("%s: host Robin values sum %.15g (exact %g)\n", tag, sum, s->components * area);
  if (gpu) {
    const feint_facet_view *v[8];
    for (int k = 0; k < bc->n_sets; k++) {
      v[k] = feint_boundary_facet_view(bc, k);
      /* fresh random data in the set's own arrays (allocated by the setup, not const) */
      double *x = (double *)v[k]->x, *cf = (double *)v[k]->coef;
      for (int64_t i = 0; i < v[k]->n_facets * v[k]->nv * 3; i++) x[i] += 0.05 * (urand() - 0.5);
      for (int64_t i = 0; i < v[k]->n_facets * v[k]->nb * v[k]->ncoef; i++) cf[i] = 4 * urand() - 2;
    }
    feint_boundary_device_stats st;
    agree(gpu, v, bc->n_sets, bc->n_load, bc->n_sites, tag, &st);
    /* and through the public entry point: CUDA then host on the same sets */
    CHECK_OK(feint_boundary_integrate(bc, gpu));
    double *lg = malloc(sizeof(double) * (size_t)bc->n_load), *sg = malloc(sizeof(double) * (size_t)(bc->n_sites + 1));
    memcpy(lg, bc->load, sizeof(double) * (size_t)bc->n_load);
    memcpy(sg, bc->site_values, sizeof(double) * (size_t)bc->n_sites);
    CHECK_OK(feint_boundary_integrate(bc, NULL));
    CHECK(max_diff(lg, bc->load, bc->n_load) <= 1e-12 * max_abs(bc->load, bc->n_load), "%s: integrate", tag);
    CHECK(max_diff(sg, bc->site_values, bc->n_sites) <= 1e-12 * max_abs(bc->site_values, bc->n_sites),
          "%s: integrate", tag);
    free(lg);
    free(sg);
  }
  bc_case_destroy(&b);
}

/* Part 2: a synthetic set of n facets (triangles in 3D), order 1 or 2, nc
 * components, Robin with a full alpha; neighbouring facets share load slots
 * as a surface mesh does (slot of local dof i of facet f: f + i, wrapped). */
typedef struct {
  feint_facet_view v;
  double *phi, *w, *x, *coef;
  int64_t *li, *si;
  int64_t n_load, n_sites;
} synth;

static void synth_make(synth *y, int64_t n, int order, int nc) {
  memset(y, 0, sizeof *y);
  const int nb = order == 1 ? 3 : 6, nq = order == 1 ? 3 : 6, nbc = nb * nc;
  /* P1: degree-2 rule (3 points), P2: degree-4 rule (6 points); the basis values are random too: the
   * agreement does not need the true basis */
  y->phi = malloc(sizeof(double) * nq * nb);
  y->w = malloc(sizeof(double) * nq);
  for (int i = 0; i < nq * nb; i++) y->phi[i] = urand();
  for (int q = 0; q < nq; q++) y->w[q] = 0.5 / nq;
  const int ncoef = nc * nc + nc;
  y->x = malloc(sizeof(double) * (size_t)n * 9);
  y->coef = malloc(sizeof(double) * (size_t)(n * nb * ncoef));
  y->li = malloc(sizeof(int64_t) * (size_t)(n * nbc));
  y->si = malloc(sizeof(int64_t) * (size_t)(n * nbc * nbc));
  for (int64_t i = 0; i < n * 9; i++) y->x[i] = urand();
  for (int64_t i = 0; i < n * nb * ncoef; i++) y->coef[i] = 2 * urand() - 1;
  y->n_load = (n + nb) * nc;
  for (int64_t f = 0; f < n; f++)
    for (int r = 0; r < nbc; r++) y->li[f * nbc + r] = (f * nc + r) % y->n_load;
  /* every facet entry its own site, in facet order (as a surface numbering gives) */
  y->n_sites = n * nbc * nbc;
  for (int64_t e = 0; e < y->n_sites; e++) y->si[e] = e;
  feint_facet_view v = {1, 3, nc, nb, nq, ncoef, (1u << (nc * nc)) - 1, n, y->phi, y->w, NULL, y->x, y->coef, y->li, y->si, NULL};
  y->v = v;
}

static void synth_free(synth *y) {
  free(y->phi);
  free(y->w);
  free(y->x);
  free(y->coef);
  free(y->li);
  free(y->si);
}

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void synthetic(feint_facet_integrator *gpu, int64_t n, int order, int nc, double copy_gbs) {
  synth y;
  synth_make(&y, n, order, nc);
  const feint_facet_view *v[1] = {&y.v};
  char tag[128];
  snprintf(tag, sizeof tag, "synthetic %lld P%d triangles, %d component%s", (long long)n, order, nc,
           nc > 1 ? "s" : "");
  feint_boundary_device_stats st;
  agree(gpu, v, 1, y.n_load, y.n_sites, tag, &st);
  enum { REPS = 7 };
  double ms[REPS];
  double *load = malloc(sizeof(double) * (size_t)y.n_load), *sites = malloc(sizeof(double) * (size_t)y.n_sites);
  for (int r = 0; r < REPS; r++) {
    CHECK_OK(gpu(v, 1, y.n_load, y.n_sites, load, sites, &st));
    ms[r] = st.kernel_ms;
  }
  qsort(ms, REPS, sizeof ms[0], cmp_double);
  const double gbs = (double)st.bytes / (ms[REPS / 2] * 1e6);
  printf("  %s on %s: kernel %.3f ms (median of %d; min %.3f), %.1f MB moved at least -> %.0f GB/s = %.0f%% of "
         "the copy bandwidth %.0f GB/s; upload %.2f ms, download %.2f ms, total %.2f ms\n",
         tag, st.device, ms[REPS / 2], REPS, ms[0], st.bytes / 1e6, gbs, 100 * gbs / copy_gbs, copy_gbs,
         st.upload_ms, st.download_ms, st.total_ms);
  free(load);
  free(sites);
  synth_free(&y);
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  /* the CUDA kernel exists in a build with CUDA only */
  feint_facet_integrator *gpu = NULL;
#ifdef FEINT_HAVE_CUDA
  if (feint_backend_available("cuda", NULL, 0)) gpu = feint_facets_cuda;
#endif
  real_case("square.geo", 1, 0, gpu);
  real_case("square.geo", 2, 1, gpu);
  real_case("cube.geo", 1, 0, gpu);
  real_case("cube.geo", 2, 1, gpu);
  real_case("hexcube.geo", 2, 0, gpu); /* quadrilateral facets, |J| at each point */
  real_case("hexcube.geo", 1, 1, gpu);
  real_case("prismcube.geo", 2, 0, gpu); /* triangle and quadrilateral facet sets */
  real_case("prismcube.geo", 1, 1, gpu);
  if (!gpu) return check_skip_without_gpu("t530-facets", "(GPU agreement and timing)");
  double copy = 0;
  CHECK_OK(feint_backend_kind_find("cuda")->copy_bandwidth(-1, (size_t)1 << 30, 5, &copy));
  synthetic(gpu, 2000000, 1, 1, copy);
  synthetic(gpu, 100000, 2, 3, copy);
  if (check_failures) return 1;
  printf("t530-facets: ok\n");
  return 0;
}
