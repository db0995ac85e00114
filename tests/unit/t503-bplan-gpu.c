/* The CUDA backend's block-aggregation plans (the P1 block kernels' chunk
 * structures) built on the GPU against the host builder, the reference.
 *
 * For P1 Poisson (vector and matrix plans) and P1 elasticity (vector plan;
 * its matrices have no block kernel), on triangles and tetrahedra from 50
 * cells (one partial chunk) to 280k, in mesh order, in curve order and in
 * the order the backend picks by itself, for the three strategies, with 256
 * cells per chunk and on the small meshes also 96 and 32
 * (FEINT_CUDA_CHUNK), one backend builds its plans on the GPU (the
 * default) and one on the host (feint_cuda_set_bplan_host); every array of
 * both plans (uptr, tgt, iend with its pad, ient, lidx, the colored
 * strategy's chunk colours, the gather strategy's inverse) is compared
 * element for element, and a difference names the array, the index, the
 * chunk and both values. The plans must come from the builder asked for
 * (a GPU builder that silently fell back to the host would make the
 * comparison empty). One mesh has its cells shuffled, so that in mesh
 * order its chunks touch more than 256 vertices: no lidx (both builders
 * agree on that). Then the residual and the assembled matrix of the two
 * backends are bitwise equal (colored, gather; atomic to 1e-12, its sums'
 * order not being fixed), and in the backend's own order choice the
 * colored strategy's chunk colouring (kept from that choice) equals the
 * one a backend forced into that order computes. The reference backend
 * also makes its curve order and chunk colourings on the host
 * (feint_cuda_set_host_reference), the other on the GPU (cell_order.h):
 * the same order (plan arrays equal), the same colour counts, bitwise the
 * same results.
 *
 * Without a GPU it prints "skipped: no GPU" and exits 0 (1 when
 * FEINT_GPU_TESTS=1). */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cuda/cuda_timing.h"
#include "check.h"
#include "feint/backend.h"
#include "feint/error.h"
#include "feint/form.h"
#include "feint/physics.h"
#include "feint/plan.h"
#include "feint/space.h"

#include "testmesh.h"

static const char *strat_name[] = {"colored", "atomic", "gather"};
static int64_t n_compared = 0; /* array elements compared */
static int n_plans = 0, n_lidx = 0, n_no_lidx = 0, n_gpu_colourings = 0;
static double gpu_ms = 0, host_ms = 0;

static int64_t elem(const void *a, char kind, int64_t i) {
  if (kind == 'h') return ((const uint16_t *)a)[i];
  if (kind == 'u') return ((const uint32_t *)a)[i];
  return ((const int *)a)[i];
}

/* The chunk of unique index i (uptr: the host's). */
static int64_t chunk_of(const int *uptr, int n_chunks, int64_t i) {
  int lo = 0, hi = n_chunks; /* uptr[lo] <= i < uptr[hi] */
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    if (uptr[mid] <= i)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

/* Compare n elements (kind: 'i' int32, 'h' uint16, 'u' uint32) of the
 * GPU-built array g and the host-built h; report the first difference,
 * where it is (per: elements per chunk; uptr: the array is per unique
 * target), and how many differ. */
static void cmp_array(const char *tag, const char *name, char kind, const void *g, const void *h, int64_t n,
                      int64_t per, const int *uptr, int n_chunks) {
  if (!g || !h) {
    CHECK(!g && !h, "%s: %s: only the %s builder made it", tag, name, g ? "GPU" : "host");
    return;
  }
  int64_t first = -1, n_diff = 0;
  for (int64_t i = 0; i < n; i++)
    if (elem(g, kind, i) != elem(h, kind, i)) {
      if (first < 0) first = i;
      n_diff++;
    }
  n_compared += n;
  if (!n_diff) return;
  char where[128] = "";
  if (per > 0)
    snprintf(where, sizeof where, " (chunk %" PRId64 ", its element %" PRId64 ")", first / per, first % per);
  else if (uptr && first < uptr[n_chunks]) {
    const int64_t b = chunk_of(uptr, n_chunks, first);
    snprintf(where, sizeof where, " (chunk %" PRId64 ", its unique target %" PRId64 " of %d)", b, first - uptr[b],
             uptr[b + 1] - uptr[b]);
  } else if (uptr)
    snprintf(where, sizeof where, " (the pad after the last chunk)");
  CHECK(0, "%s: %s[%" PRId64 "]%s: GPU-built %" PRId64 " (%#" PRIx64 "), host-built %" PRId64 " (%#" PRIx64
        "); %" PRId64 " of %" PRId64 " elements differ",
        tag, name, first, where, elem(g, kind, first), (uint64_t)elem(g, kind, first), elem(h, kind, first),
        (uint64_t)elem(h, kind, first), n_diff, n);
}

/* Every array of two plans; colours_only: the colored strategy's only. */
static void cmp_plans(const char *tag, const feint_cuda_bplan *g, const feint_cuda_bplan *h, int colours_only) {
  CHECK(g->cb == h->cb && g->ne == h->ne && g->n_chunks == h->n_chunks && g->ncomp == h->ncomp,
        "%s: shapes differ: cb %d/%d, ne %d/%d, chunks %d/%d, ncomp %d/%d (GPU/host)", tag, g->cb, h->cb, g->ne,
        h->ne, g->n_chunks, h->n_chunks, g->ncomp, h->ncomp);
  CHECK(g->n_colors == h->n_colors, "%s: %d chunk colours (GPU-built), %d (host-built)", tag, g->n_colors,
        h->n_colors);
  if (g->n_colors == h->n_colors && g->color_ptr && h->color_ptr)
    cmp_array(tag, "color_ptr", 'i', g->color_ptr, h->color_ptr, g->n_colors + 1, 0, NULL, 0);
  else
    CHECK(!g->color_ptr && !h->color_ptr, "%s: color_ptr only in the %s-built plan", tag, g->color_ptr ? "GPU" : "host");
  if (g->n_chunks == h->n_chunks) cmp_array(tag, "chunks", 'i', g->chunks, h->chunks, g->n_chunks, 0, NULL, 0);
  if (colours_only) return;
  CHECK(g->n_u == h->n_u, "%s: %" PRId64 " unique (chunk, target) pairs GPU-built, %" PRId64 " host-built", tag,
        g->n_u, h->n_u);
  if (g->cb != h->cb || g->ne != h->ne || g->n_chunks != h->n_chunks) return;
  cmp_array(tag, "uptr", 'i', g->uptr, h->uptr, g->n_chunks + 1, 0, NULL, 0);
  const int64_t nu = g->n_u < h->n_u ? g->n_u : h->n_u;
  const int *U = h->uptr;
  cmp_array(tag, "tgt", 'i', g->tgt, h->tgt, nu, 0, U, h->n_chunks);
  /* iend with its pad (the last element) */
  cmp_array(tag, "iend", 'h', g->iend, h->iend, g->n_u == h->n_u ? nu + 1 : nu, 0, U, h->n_chunks);
  if (g->n_u == h->n_u) CHECK(h->iend[h->n_u] == 0, "%s: the host's iend pad is %d", tag, h->iend[h->n_u]);
  cmp_array(tag, "ient", 'h', g->ient, h->ient, (int64_t)g->n_chunks * g->cb * g->ne, (int64_t)g->cb * g->ne, NULL,
            0);
  cmp_array(tag, "lidx", 'u', g->lidx, h->lidx, (int64_t)g->n_chunks * g->cb, g->cb, NULL, 0);
  CHECK(g->n_targets == h->n_targets, "%s: gather targets %" PRId64 " (GPU-built), %" PRId64 " (host-built)", tag,
        g->n_targets, h->n_targets);
  if (g->n_targets == h->n_targets)
    cmp_array(tag, "gptr", 'i', g->gptr, h->gptr, g->gptr ? g->n_targets + 1 : 0, 0, NULL, 0);
  cmp_array(tag, "gent", 'i', g->gent, h->gent, nu, 0, NULL, 0);
  /* structural sanity of the host's (the reference's) own arrays */
  CHECK(h->uptr[0] == 0 && h->uptr[h->n_chunks] == h->n_u, "%s: host plan: uptr[0] = %d, uptr[%d] = %d, n_u %" PRId64,
        tag, h->uptr[0], h->n_chunks, h->uptr[h->n_chunks], h->n_u);
  for (int b = 0; b < h->n_chunks; b++)
    if (h->uptr[b + 1] <= h->uptr[b]) {
      CHECK(0, "%s: host plan: chunk %d has no target", tag, b);
      break;
    }
}

/* Bitwise (deterministic strategies) or to 1e-12 (atomic). */
static void cmp_values(const char *tag, const char *what, const double *g, const double *h, int64_t n, int bitwise) {
  if (bitwise) {
    int64_t first = -1, n_diff = 0;
    for (int64_t i = 0; i < n; i++)
      if (memcmp(g + i, h + i, sizeof(double))) {
        if (first < 0) first = i;
        n_diff++;
      }
    CHECK(!n_diff, "%s: %s[%" PRId64 "]: %.17g with the GPU-built plan, %.17g with the host-built; %" PRId64
          " of %" PRId64 " differ",
          tag, what, first, first >= 0 ? g[first] : 0, first >= 0 ? h[first] : 0, n_diff, n);
  } else {
    const double e = rel_diff(n, g, h);
    CHECK(e <= 1e-12, "%s: %s: relative difference %.3e between the GPU- and host-built plans (atomic)", tag, what, e);
  }
}

static feint_backend *make_gpu(const feint_problem *p, int host, const char *tag) {
  feint_backend *b = NULL;
  feint_cuda_set_host_reference(host); /* the host's cell order and colourings: the reference */
  const int st = feint_backend_cuda_create(p, -1, &b);
  feint_cuda_set_host_reference(0);
  if (st) {
    CHECK(0, "%s: cuda create: %s", tag, feint_error_message());
    return NULL;
  }
  if (host && feint_cuda_set_bplan_host(b, 1)) {
    CHECK(0, "%s: feint_cuda_set_bplan_host: %s", tag, feint_error_message());
    feint_backend_destroy(b);
    return NULL;
  }
  return b;
}

/* One (mesh, physics, order, chunk, strategy) combination. order: "0" mesh, "1" curve, NULL the backend's choice. */
static void run_case(const char *mtag, feint_problem *p, const char *order, const char *chunk) {
  const feint_space *s = p->space;
  char tag[256];
  snprintf(tag, sizeof tag, "%s, %s, order %s, chunk %s [%s]", mtag,
           s->components == 1 ? "P1 Poisson" : "P1 elasticity", order ? (order[0] == '0' ? "mesh" : "curve") : "auto",
           chunk ? chunk : "256", strat_name[p->strategy]);
  if (order)
    setenv("FEINT_CUDA_ORDER", order, 1);
  else
    unsetenv("FEINT_CUDA_ORDER");
  if (chunk)
    setenv("FEINT_CUDA_CHUNK", chunk, 1);
  else
    unsetenv("FEINT_CUDA_CHUNK");
  feint_backend *g = make_gpu(p, 0, tag), *h = make_gpu(p, 1, tag);
  if (!g || !h) {
    if (g) feint_backend_destroy(g);
    if (h) feint_backend_destroy(h);
    return;
  }
  feint_cuda_stats st;
  CHECK_OK(feint_cuda_info(g, &st));
  CHECK(st.block_vector, "%s: the vectors do not run the block kernels (nothing to compare)", tag);
  CHECK(!order || st.curve_order == (order[0] == '1'), "%s: curve order %d", tag, st.curve_order);
  const int curve = st.curve_order;
  /* the order and the colourings: made on the GPU by one, on the host by the other, the same */
  feint_cuda_stats sh;
  CHECK_OK(feint_cuda_info(h, &sh));
  CHECK(sh.curve_order == curve, "%s: curve order %d on the GPU, %d on the host", tag, curve, sh.curve_order);
  CHECK(sh.order_colors[0] == st.order_colors[0] && sh.order_colors[1] == st.order_colors[1],
        "%s: chunk colours (mesh, curve order) %d, %d on the GPU, %d, %d on the host", tag, st.order_colors[0],
        st.order_colors[1], sh.order_colors[0], sh.order_colors[1]);
  CHECK(!sh.order_on_gpu && !sh.colouring_on_gpu, "%s: the host reference made its order or colouring on the GPU", tag);
  CHECK((order && order[0] == '0') || st.order_on_gpu, "%s: the curve order was not made on the GPU", tag);
  n_gpu_colourings += st.colouring_on_gpu;
  for (int which = 0; which < 2; which++) {
    if (which == 1 && !st.block_matrix) {
      CHECK(s->components > 1, "%s: Poisson matrices do not run the block kernels", tag);
      continue;
    }
    char wtag[300];
    snprintf(wtag, sizeof wtag, "%s, %s plan", tag, which ? "matrix" : "vector");
    feint_cuda_bplan pg, ph;
    if (feint_cuda_bplan_get(g, which, &pg)) {
      CHECK(0, "%s: GPU build: %s", wtag, feint_error_message());
      continue;
    }
    if (feint_cuda_bplan_get(h, which, &ph)) {
      CHECK(0, "%s: host build: %s", wtag, feint_error_message());
      feint_cuda_bplan_free(&pg);
      continue;
    }
    CHECK(pg.built_on_gpu == 1, "%s: the default backend's plan was not built on the GPU (the GPU builder declined)",
          wtag);
    CHECK(ph.built_on_gpu == 0, "%s: the plan of the backend set to the host builder was built on the GPU", wtag);
    cmp_plans(wtag, &pg, &ph, 0);
    n_plans++;
    if (!which) {
      if (ph.lidx)
        n_lidx++;
      else
        n_no_lidx++;
    }
    gpu_ms += pg.build_ms;
    host_ms += ph.build_ms;
    /* the backend's own order choice: its kept colouring against a fresh one in that order */
    if (!order && p->strategy == FEINT_ASSEMBLY_COLORED) {
      setenv("FEINT_CUDA_ORDER", curve ? "1" : "0", 1);
      char ftag[400];
      snprintf(ftag, sizeof ftag, "%s: auto (%s) order against the order forced", wtag, curve ? "curve" : "mesh");
      feint_backend *f = make_gpu(p, 0, ftag);
      feint_cuda_bplan pf;
      if (f && !feint_cuda_bplan_get(f, which, &pf)) {
        cmp_plans(ftag, &pg, &pf, 0);
        feint_cuda_bplan_free(&pf);
      } else if (f)
        CHECK(0, "%s: %s", ftag, feint_error_message());
      if (f) feint_backend_destroy(f);
      unsetenv("FEINT_CUDA_ORDER");
    }
    feint_cuda_bplan_free(&pg);
    feint_cuda_bplan_free(&ph);
  }
  /* the kernels on the two plans */
  const int bitwise = p->strategy != FEINT_ASSEMBLY_ATOMIC;
  const int64_t nd = s->n_dofs, nnz = p->plan->nnz;
  const int64_t n = nd > nnz ? nd : nnz;
  double *a = malloc(sizeof(double) * (size_t)n), *b = malloc(sizeof(double) * (size_t)n);
  if (!g->residual(g, p->form->u, a) && !h->residual(h, p->form->u, b))
    cmp_values(tag, "residual", a, b, nd, bitwise);
  else
    CHECK(0, "%s: residual: %s", tag, feint_error_message());
  if (!g->assemble_matrix(g, a) && !h->assemble_matrix(h, b))
    cmp_values(tag, "matrix", a, b, nnz, bitwise);
  else
    CHECK(0, "%s: matrix: %s", tag, feint_error_message());
  free(a);
  free(b);
  feint_backend_destroy(g);
  feint_backend_destroy(h);
}

/* The cells in a random order (chunks in mesh order then touch far more
 * than 256 vertices). */
static void shuffle_cells(feint_mesh *m) {
  const int nv = m->nv;
  for (int64_t i = m->n_cells - 1; i > 0; i--) {
    const int64_t j = (int64_t)(urand() * (double)(i + 1));
    for (int k = 0; k < nv; k++) {
      const int64_t t = m->cells[i * nv + k];
      m->cells[i * nv + k] = m->cells[j * nv + k];
      m->cells[j * nv + k] = t;
    }
  }
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  seed_fresh("t503-bplan-gpu");
  if (feint_cuda_device_count() <= 0) return check_skip_without_gpu("t503-bplan-gpu", NULL);
  /* {kind (0 square, 1 cube, 2 shuffled cube), n, small (more chunk sizes)} */
  static const int meshes[][3] = {{0, 5, 1}, {0, 13, 1}, {1, 7, 1}, {2, 9, 1}, {0, 300, 0}, {1, 36, 0}};
  static const char *chunks[] = {NULL, "96", "32"};
  static const char *orders[] = {"0", "1", NULL};
  for (size_t mi = 0; mi < sizeof meshes / sizeof meshes[0]; mi++) {
    const int kind = meshes[mi][0], n = meshes[mi][1], small = meshes[mi][2];
    feint_mesh *m = kind == 0 ? mesh_square(n) : mesh_cube(n, 0.2);
    if (kind == 2) shuffle_cells(m);
    char mtag[96];
    snprintf(mtag, sizeof mtag, "%s n=%d (%lld cells)", kind == 0 ? "square" : kind == 1 ? "cube" : "shuffled cube", n,
             (long long)m->n_cells);
    const int plans0 = n_plans;
    const double g0 = gpu_ms, h0 = host_ms;
    for (int physics = 0; physics < 2; physics++) {
      const int phys = physics ? FEINT_PW_ELASTICITY : FEINT_PW_POISSON, nc = physics ? m->dim : 1;
      feint_space *s = NULL;
      feint_plan *plan = NULL;
      CHECK_OK(feint_space_create(m, 1, nc, &s));
      CHECK_OK(feint_plan_create(s, &plan));
      feint_form *f = make_form(phys, s, 0);
      feint_problem p = {s, f, plan, FEINT_PRECISION_DOUBLE, FEINT_ASSEMBLY_COLORED, 0, 0, 0};
      for (int ci = 0; ci < (small ? 3 : 1); ci++)
        for (int oi = 0; oi < 3; oi++)
          for (int stg = 0; stg < 3; stg++) {
            p.strategy = (feint_assembly_strategy)stg;
            run_case(mtag, &p, orders[oi], chunks[ci]);
          }
      feint_plan_destroy(plan);
      feint_form_destroy(f);
      feint_space_destroy(s);
    }
    printf("%s: %d plans compared; build %.1f ms on the GPU, %.1f ms on the host (all plans)\n", mtag,
           n_plans - plans0, gpu_ms - g0, host_ms - h0);
    mesh_free(m);
  }
  unsetenv("FEINT_CUDA_ORDER");
  unsetenv("FEINT_CUDA_CHUNK");
  printf("%d plans, %" PRId64 " array elements compared; vector plans with lidx %d, without (a chunk over 256 "
         "vertices) %d\n",
         n_plans, n_compared, n_lidx, n_no_lidx);
  CHECK(n_gpu_colourings > 0, "no chunk colouring was made on the GPU (nothing compared)");
    CHECK(n_lidx > 0, "no vector plan had lidx (the shared gather's local indices were not compared)");
  CHECK(n_no_lidx > 0, "every vector plan had lidx (the over-256 case was not exercised)");
  return check_report("t503-bplan-gpu");
}
