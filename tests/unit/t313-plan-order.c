/* The plain-C pieces of the GPU backend's setup (src/plan/), on the CPU:
 * - the Morton interleave (feint/morton.h) against the bit-by-bit loop,
 *   21 bits per axis in 3D (the node reorder's), 32 in 2D;
 * - the Morton key (feint/morton.h) against keys worked out by hand, its
 *   clamping and flat axes, a 2^b x 2^b grid's keys being a permutation
 *   with each top-level quadrant a contiguous range, and the order being
 *   monotone (a point whose boxes are all <= another's has a key <= its);
 * - the curve order (feint/cell_order.h) on jiggled, shuffled triangle and
 *   tetrahedron meshes: a permutation, keys non-decreasing along it and
 *   cells of one key in mesh order (the result of a stable sort by key,
 *   computed here by comparison), bits and box as documented;
 * - the inverse map (feint/inverse_map.h) of random int32 / int64 maps
 *   with -1 entries: every source with a target once, in its target's
 *   list, increasing; both widths the same; a target out of range is an
 *   error; a gather of random values through the inverse of a plan's slot
 *   map equals the sequential scatter values[slot[e]] += v[e] bit for bit;
 * - the greedy colourings (feint/coloring.h) of cells and of chunks (mesh
 *   and curve order, P1 and P2): proper (no two items of a colour share a
 *   scalar dof), greedy (each item's colour is the smallest that none of
 *   its earlier neighbours has, against a brute-force conflict graph),
 *   the colour count; feint_colour_graph on that graph gives the same
 *   colours; too few colours allowed is an error naming the limit. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "feint/cell_order.h"
#include "feint/coloring.h"
#include "feint/error.h"
#include "feint/inverse_map.h"
#include "feint/morton.h"
#include "feint/plan.h"
#include "feint/space.h"
#include "testmesh.h"

/* ------------------------------------------------------------ Morton key */

static int key_of_point(int dim, int bits, const double p[3]) {
  const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
  return feint_morton_key(dim, bits, 1, p, lo, hi);
}

/* Bit by bit, as the key was first written: level by level from the top,
 * q[0]'s bit first. */
static uint64_t interleave_loop(int dim, int bits, const uint64_t q[3]) {
  uint64_t k = 0;
  for (int bit = bits - 1; bit >= 0; bit--)
    for (int a = 0; a < dim; a++) k = k << 1 | (q[a] >> bit & 1);
  return k;
}

static void check_morton(void) {
  /* the interleave against the loop, at the widest boxes it takes */
  uint64_t state = 99;
  int interleave_bad = 0;
  for (int t = 0; t < 30000; t++) {
    const int dim = 1 + t % 3, bits = dim == 3 ? 21 : dim == 2 ? 32 : 40;
    uint64_t q[3] = {0, 0, 0};
    for (int a = 0; a < dim; a++) q[a] = (uint64_t)(check_urand(&state) * 9007199254740992.0) & (((uint64_t)1 << bits) - 1);
    interleave_bad += feint_morton_interleave(dim, q[0], q[1], q[2]) != interleave_loop(dim, bits, q);
  }
  CHECK(!interleave_bad, "%d interleaves differ from the bit-by-bit loop", interleave_bad);
  /* 2D, 2 bits: x box 2 = 10b, y box 1 = 01b -> x1 y1 x0 y0 = 1 0 0 1 */
  CHECK(key_of_point(2, 2, (const double[3]){0.6, 0.3, 0}) == 9, "2D key of (0.6, 0.3): %d",
        key_of_point(2, 2, (const double[3]){0.6, 0.3, 0}));
  /* 3D, 1 bit: boxes (1, 0, 1) -> 101b */
  CHECK(key_of_point(3, 1, (const double[3]){0.7, 0.2, 0.9}) == 5, "3D key of (0.7, 0.2, 0.9)");
  /* 3D, 3 bits: boxes (5, 3, 6) = (101b, 011b, 110b), read level by level
   * x y z: (1 0 1) (0 1 1) (1 1 0) = 101011110b = 350 */
  CHECK(key_of_point(3, 3, (const double[3]){5.5 / 8, 3.5 / 8, 6.5 / 8}) == 350, "3D key of boxes (5, 3, 6): %d",
        key_of_point(3, 3, (const double[3]){5.5 / 8, 3.5 / 8, 6.5 / 8}));
  /* the maximum lies in the top box, not past it */
  CHECK(key_of_point(2, 3, (const double[3]){1, 1, 0}) == 63, "key of the top corner");
  CHECK(key_of_point(2, 3, (const double[3]){0, 0, 0}) == 0, "key of the bottom corner");
  /* a centroid: three vertices summing to 1.5 on x, 0.3 on y: (0.5, 0.1) over [0, 1] on 2 bits -> boxes (2, 0) -> 1000b */
  {
    const double sum[3] = {1.5, 0.3, 0}, lo[3] = {0, 0, 0}, hi[3] = {1, 1, 0};
    CHECK(feint_morton_key(2, 2, 3, sum, lo, hi) == 8, "centroid key %d", feint_morton_key(2, 2, 3, sum, lo, hi));
  }
  /* a flat axis (hi == lo) is box 0; another box: lo .. hi = 2 .. 4 */
  {
    const double sum[3] = {3.9, 7, 0}, lo[3] = {2, 7, 0}, hi[3] = {4, 7, 0};
    CHECK(feint_morton_key(2, 1, 1, sum, lo, hi) == 2, "flat y axis: key %d", feint_morton_key(2, 1, 1, sum, lo, hi));
  }
  /* the grid of box centres: a permutation of the keys, each top-level
   * quadrant (the first bit of every axis) one contiguous range */
  for (int dim = 2; dim <= 3; dim++) {
    const int bits = dim == 2 ? 4 : 3, side = 1 << bits, n = 1 << (dim * bits);
    char *hit = calloc((size_t)n, 1);
    int bad_quadrant = 0, repeats = 0;
    for (int k = 0; k < n; k++) {
      int q[3] = {0, 0, 0};
      for (int a = 0; a < dim; a++) q[a] = k / (a == 0 ? 1 : a == 1 ? side : side * side) % side;
      const double p[3] = {(q[0] + 0.5) / side, (q[1] + 0.5) / side, (q[2] + 0.5) / side};
      const int key = key_of_point(dim, bits, p);
      if (key < 0 || key >= n || hit[key]) {
        repeats++;
        continue;
      }
      hit[key] = 1;
      int quadrant = 0;
      for (int a = 0; a < dim; a++) quadrant = quadrant << 1 | q[a] >> (bits - 1);
      bad_quadrant += key >> (dim * (bits - 1)) != quadrant;
    }
    CHECK(!repeats, "%dD grid keys: %d repeated or out of range", dim, repeats);
    CHECK(!bad_quadrant, "%dD grid keys: %d outside their quadrant's range", dim, bad_quadrant);
    free(hit);
  }
  /* monotone: boxes all <= -> key <= */
  uint64_t rng = 12345;
  int not_monotone = 0;
  for (int t = 0; t < 20000; t++) {
    const int dim = 2 + t % 2, bits = 5;
    double a[3] = {0, 0, 0}, b[3] = {0, 0, 0};
    for (int k = 0; k < dim; k++) {
      a[k] = check_urand(&rng);
      b[k] = a[k] + (1 - a[k]) * check_urand(&rng) * (t % 3 ? 1 : 0.05);
    }
    not_monotone += key_of_point(dim, bits, a) > key_of_point(dim, bits, b);
  }
  CHECK(!not_monotone, "%d pairs: a point dominated by another has a larger key", not_monotone);
}

/* ----------------------------------------------------------- cell order */

/* The mesh's cells in a random order (the file's order need not be spatial). */
static void shuffle_cells(feint_mesh *m, uint64_t *rng) {
  int32_t *perm = malloc(sizeof *perm * (size_t)m->n_cells);
  int64_t *cells = malloc(sizeof *cells * (size_t)(m->n_cells * m->nv));
  check_permutation(perm, m->n_cells, rng);
  for (int64_t c = 0; c < m->n_cells; c++)
    memcpy(cells + c * m->nv, m->cells + (int64_t)perm[c] * m->nv, sizeof *cells * (size_t)m->nv);
  free(m->cells);
  m->cells = cells;
  free(perm);
}

static int cell_key(const feint_mesh *m, const feint_curve *c, int64_t cell) {
  const double *xs[3] = {m->x, m->y, m->z};
  double sum[3] = {0, 0, 0};
  for (int a = 0; a < m->dim; a++)
    for (int i = 0; i < m->nv; i++) sum[a] += xs[a][m->cells[cell * m->nv + i]];
  return feint_morton_key(m->dim, c->bits, m->nv, sum, c->lo, c->hi);
}

static const int *sort_keys; /* qsort's context */
static int by_key_then_cell(const void *pa, const void *pb) {
  const int a = *(const int *)pa, b = *(const int *)pb;
  if (sort_keys[a] != sort_keys[b]) return sort_keys[a] < sort_keys[b] ? -1 : 1;
  return a < b ? -1 : a > b;
}

static void check_curve(const char *name, feint_mesh *m) {
  feint_curve c;
  feint_curve_of_mesh(m, &c);
  const int64_t n = m->n_cells;
  /* bits: the largest with 2^(dim * bits) <= n / 2, at least 1 */
  int want_bits = 1;
  while (want_bits < FEINT_MORTON_MAX_BITS && ((int64_t)1 << (m->dim * (want_bits + 1))) <= n / 2) want_bits++;
  CHECK(c.bits == want_bits && c.dim == m->dim && c.nv == m->nv, "%s: curve bits %d (want %d)", name, c.bits,
        want_bits);
  CHECK(((int64_t)1 << (m->dim * c.bits)) <= n && ((int64_t)1 << (m->dim * c.bits)) * 8 > n / 2,
        "%s: %lld cells in 2^%d boxes", name, (long long)n, m->dim * c.bits);
  for (int a = 0; a < 3; a++) {
    const double *xa = a == 0 ? m->x : a == 1 ? m->y : m->z;
    double lo = xa ? xa[0] : 0, hi = lo;
    for (int64_t v = 0; xa && v < m->n_nodes; v++) lo = xa[v] < lo ? xa[v] : lo, hi = xa[v] > hi ? xa[v] : hi;
    CHECK(c.lo[a] == lo && c.hi[a] == hi, "%s: box axis %d", name, a);
  }
  int *order = malloc(sizeof *order * (size_t)n), *want = malloc(sizeof *want * (size_t)n),
      *key = malloc(sizeof *key * (size_t)n);
  CHECK_OK(feint_curve_order(m, &c, order, "test curve"));
  char *seen = calloc((size_t)n, 1);
  int64_t not_perm = 0, not_sorted = 0;
  for (int64_t k = 0; k < n; k++) {
    if (order[k] < 0 || order[k] >= n || seen[order[k]]) {
      not_perm++;
      continue;
    }
    seen[order[k]] = 1;
  }
  CHECK(!not_perm, "%s: the order is not a permutation (%lld bad)", name, (long long)not_perm);
  for (int64_t i = 0; i < n; i++) key[i] = cell_key(m, &c, i), want[i] = (int)i;
  for (int64_t k = 1; k < n && !not_perm; k++)
    not_sorted += key[order[k]] < key[order[k - 1]] || (key[order[k]] == key[order[k - 1]] && order[k] < order[k - 1]);
  CHECK(!not_sorted, "%s: %lld positions out of (key, cell) order", name, (long long)not_sorted);
  sort_keys = key;
  qsort(want, (size_t)n, sizeof *want, by_key_then_cell);
  CHECK(!memcmp(want, order, sizeof *want * (size_t)n), "%s: order differs from a stable sort by key", name);
  /* locality: consecutive cells mostly share a vertex or lie near (a
   * shuffled mesh order almost never does) */
  int64_t near = 0;
  for (int64_t k = 1; k < n; k++) {
    const double *xs[3] = {m->x, m->y, m->z};
    double d2 = 0;
    for (int a = 0; a < m->dim; a++) {
      const double dx = xs[a][m->cells[(int64_t)order[k] * m->nv]] - xs[a][m->cells[(int64_t)order[k - 1] * m->nv]];
      d2 += dx * dx;
    }
    near += d2 < 4.0 / (double)(1 << (2 * c.bits));
  }
  CHECK(near > (n - 1) * 3 / 4, "%s: only %lld of %lld consecutive cells near each other", name, (long long)near,
        (long long)(n - 1));
  printf("%s: %lld cells, %d bits per axis, %lld of %lld consecutive pairs near\n", name, (long long)n, c.bits,
         (long long)near, (long long)(n - 1));
  free(seen);
  free(order);
  free(want);
  free(key);
}

/* ---------------------------------------------------------- inverse map */

static void check_inverse_random(void) {
  uint64_t rng = 777;
  const int64_t n = 5000, nt = 300;
  int32_t *t32 = malloc(sizeof *t32 * (size_t)n);
  int64_t *t64 = malloc(sizeof *t64 * (size_t)n);
  int64_t with_target = 0;
  for (int64_t e = 0; e < n; e++) {
    /* targets 0 .. nt - 2 and -1: target nt - 1 stays empty */
    t32[e] = check_urand(&rng) < 0.1 ? -1 : (int32_t)(check_urand(&rng) * (double)(nt - 1));
    t64[e] = t32[e];
    with_target += t32[e] >= 0;
  }
  feint_inverse_map *a = NULL, *b = NULL;
  CHECK_OK(feint_inverse_map_create(n, NULL, t32, nt, "test map", &a));
  CHECK_OK(feint_inverse_map_create(n, t64, NULL, nt, "test map", &b));
  CHECK(a->n_targets == nt && a->n_entries == with_target && a->offsets[0] == 0 && a->offsets[nt] == with_target,
        "inverse map sizes: %lld entries, want %lld", (long long)a->n_entries, (long long)with_target);
  CHECK(a->offsets[nt - 1] == a->offsets[nt], "an unnamed target has an empty list");
  CHECK(!memcmp(a->offsets, b->offsets, sizeof *a->offsets * (size_t)(nt + 1)) &&
            !memcmp(a->entries, b->entries, sizeof *a->entries * (size_t)a->n_entries),
        "int32 and int64 targets give the same inverse map");
  int *times = calloc((size_t)n, sizeof *times);
  int64_t wrong_target = 0, unordered = 0, bad_offsets = 0;
  for (int64_t r = 0; r < nt; r++) {
    bad_offsets += a->offsets[r + 1] < a->offsets[r];
    for (int64_t k = a->offsets[r]; k < a->offsets[r + 1]; k++) {
      const int64_t e = a->entries[k];
      if (e < 0 || e >= n) {
        wrong_target++;
        continue;
      }
      times[e]++;
      wrong_target += t32[e] != r;
      unordered += k > a->offsets[r] && a->entries[k - 1] >= e;
    }
  }
  int64_t not_once = 0;
  for (int64_t e = 0; e < n; e++) not_once += times[e] != (t32[e] >= 0);
  CHECK(!bad_offsets && !wrong_target && !unordered && !not_once,
        "inverse map: %lld decreasing offsets, %lld sources under another target, %lld out of order, %lld not "
        "listed exactly once",
        (long long)bad_offsets, (long long)wrong_target, (long long)unordered, (long long)not_once);
  feint_inverse_map_destroy(a);
  feint_inverse_map_destroy(b);
  /* a target past the end, or below -1 */
  feint_inverse_map *c = (feint_inverse_map *)&c;
  t32[17] = (int32_t)nt;
  CHECK(feint_inverse_map_create(n, NULL, t32, nt, "test map", &c) == FEINT_ERR_COMPUTE && !c &&
            strstr(feint_error_message(), "test map: source 17 has target 300"),
        "target out of range: %s", feint_error_message());
  t32[17] = -2;
  CHECK(feint_inverse_map_create(n, NULL, t32, nt, "test map", &c) == FEINT_ERR_COMPUTE && !c,
        "target -2: %s", feint_error_message());
  /* no sources */
  CHECK_OK(feint_inverse_map_create(0, NULL, NULL, 4, "empty map", &c));
  CHECK(c->n_entries == 0 && c->offsets[4] == 0, "empty map");
  feint_inverse_map_destroy(c);
  feint_inverse_map_destroy(NULL);
  free(times);
  free(t32);
  free(t64);
}

/* The gather the GPU backend runs (each nonzero sums its entries in list
 * order) against the sequential scatter: the same doubles in the same order. */
static void check_inverse_gather(const char *name, const feint_mesh *m, int order, int nc) {
  feint_space *s = NULL;
  feint_plan *p = NULL;
  CHECK_OK(feint_space_create(m, order, nc, &s));
  CHECK_OK(feint_plan_create(s, &p));
  const int64_t E = p->n_cells * p->nbc * p->nbc;
  double *v = malloc(sizeof *v * (size_t)E), *scatter = calloc((size_t)p->nnz, sizeof *scatter),
         *gather = malloc(sizeof *gather * (size_t)p->nnz);
  for (int64_t e = 0; e < E; e++) v[e] = urand() - 0.5;
  for (int64_t e = 0; e < E; e++) scatter[p->slots[e]] += v[e];
  feint_inverse_map *inv = NULL;
  CHECK_OK(feint_inverse_map_create(E, p->slots64, p->slots, p->nnz, "slot map", &inv));
  for (int64_t z = 0; z < p->nnz; z++) {
    double sum = 0;
    for (int64_t k = inv->offsets[z]; k < inv->offsets[z + 1]; k++) sum += v[inv->entries[k]];
    gather[z] = sum;
  }
  CHECK(inv->n_entries == E && !memcmp(scatter, gather, sizeof *gather * (size_t)p->nnz),
        "%s: the gather through the inverse slot map differs from the scatter", name);
  /* and the dof map (the vector gather) */
  feint_inverse_map *dof = NULL;
  CHECK_OK(feint_inverse_map_create(p->n_cells * s->nbc, s->cell_dofs, NULL, s->n_dofs, "dof map", &dof));
  int64_t empty = 0;
  for (int64_t r = 0; r < s->n_dofs; r++) empty += dof->offsets[r + 1] == dof->offsets[r];
  CHECK(dof->n_entries == p->n_cells * s->nbc && !empty, "%s: dof map inverse: %lld dofs in no cell", name,
        (long long)empty);
  feint_inverse_map_destroy(dof);
  feint_inverse_map_destroy(inv);
  free(v);
  free(scatter);
  free(gather);
  feint_plan_destroy(p);
  feint_space_destroy(s);
}

/* ------------------------------------------------------------ colouring */

/* The cells of chunk b (cb cells in the order ord) touch the scalar dofs
 * marked in mark[] (cleared by the caller). */
static void mark_chunk(const feint_space *s, const int *ord, int cb, int64_t b, int64_t stamp, int64_t *mark) {
  const int64_t n = s->mesh->n_cells;
  for (int64_t k = b * cb; k < (b + 1) * cb && k < n; k++) {
    const int64_t c = ord ? ord[k] : k;
    for (int i = 0; i < s->nb; i++) mark[s->scalar_cell_dofs[c * s->nb + i]] = stamp;
  }
}

static int chunk_touches(const feint_space *s, const int *ord, int cb, int64_t b, int64_t stamp,
                         const int64_t *mark) {
  const int64_t n = s->mesh->n_cells;
  for (int64_t k = b * cb; k < (b + 1) * cb && k < n; k++) {
    const int64_t c = ord ? ord[k] : k;
    for (int i = 0; i < s->nb; i++)
      if (mark[s->scalar_cell_dofs[c * s->nb + i]] == stamp) return 1;
  }
  return 0;
}

static void check_colouring(const char *name, const feint_space *s, const int *ord, int cb) {
  const int64_t n = s->mesh->n_cells, n_chunks = (n + cb - 1) / cb;
  int *color = malloc(sizeof *color * (size_t)n_chunks), *color2 = malloc(sizeof *color2 * (size_t)n_chunks);
  int n_colors = 0, n_colors2 = 0;
  CHECK_OK(feint_colour_chunks(s->scalar_cell_dofs, n, s->nb, s->n_scalar_dofs, ord, cb, FEINT_MAX_COLOURS, "test",
                               color, &n_colors));
  /* the conflict graph by brute force: (b, earlier a) sharing a dof */
  int64_t *mark = malloc(sizeof *mark * (size_t)s->n_scalar_dofs);
  for (int64_t d = 0; d < s->n_scalar_dofs; d++) mark[d] = -1;
  uint64_t *edges = NULL;
  int64_t n_edges = 0, cap = 0;
  int cbits = 1;
  while (((int64_t)1 << cbits) < n_chunks) cbits++;
  int64_t improper = 0, not_smallest = 0, max_color = -1;
  char *taken = malloc((size_t)FEINT_MAX_COLOURS + 1);
  for (int64_t b = 0; b < n_chunks; b++) {
    mark_chunk(s, ord, cb, b, b, mark);
    memset(taken, 0, (size_t)FEINT_MAX_COLOURS + 1);
    for (int64_t a = 0; a < b; a++)
      if (chunk_touches(s, ord, cb, a, b, mark)) {
        improper += color[a] == color[b];
        taken[color[a]] = 1;
        if (n_edges == cap) edges = realloc(edges, sizeof *edges * (size_t)(cap = cap ? 2 * cap : 1024));
        edges[n_edges++] = (uint64_t)b << cbits | (uint64_t)a;
      }
    int smallest = 0;
    while (taken[smallest]) smallest++;
    not_smallest += color[b] != smallest;
    if (color[b] > max_color) max_color = color[b];
  }
  CHECK(!improper, "%s: %lld pairs of neighbours share a colour", name, (long long)improper);
  CHECK(!not_smallest, "%s: %lld chunks not in their smallest free colour", name, (long long)not_smallest);
  CHECK(n_colors == max_color + 1, "%s: %d colours reported, %lld used", name, n_colors, (long long)max_color + 1);
  CHECK_OK(feint_colour_graph(n_chunks, edges, n_edges, cbits, FEINT_MAX_COLOURS, "test", color2, &n_colors2));
  CHECK(n_colors2 == n_colors && !memcmp(color, color2, sizeof *color * (size_t)n_chunks),
        "%s: the graph colouring differs", name);
  /* one colour fewer than needed: the error names the limit */
  if (n_colors > 1) {
    char want[64];
    snprintf(want, sizeof want, "test: more than %d colours needed", n_colors - 1);
    CHECK(feint_colour_chunks(s->scalar_cell_dofs, n, s->nb, s->n_scalar_dofs, ord, cb, n_colors - 1, "test", color,
                              &n_colors2) == FEINT_ERR_COMPUTE &&
              strstr(feint_error_message(), want),
          "%s: too few colours: %s", name, feint_error_message());
    CHECK(feint_colour_graph(n_chunks, edges, n_edges, cbits, n_colors - 1, "test", color2, &n_colors2) ==
                  FEINT_ERR_COMPUTE &&
              strstr(feint_error_message(), want),
          "%s: too few colours (graph): %s", name, feint_error_message());
  }
  printf("%s: %lld chunks of %d cells, %d colours, %lld conflicts\n", name, (long long)n_chunks, cb, n_colors,
         (long long)n_edges);
  free(taken);
  free(edges);
  free(mark);
  free(color);
  free(color2);
}

static void check_colourings(const char *name, feint_mesh *m, int order) {
  feint_space *s = NULL;
  CHECK_OK(feint_space_create(m, order, 1, &s));
  feint_curve c;
  feint_curve_of_mesh(m, &c);
  int *ord = malloc(sizeof *ord * (size_t)m->n_cells);
  CHECK_OK(feint_curve_order(m, &c, ord, "test curve"));
  char label[96];
  snprintf(label, sizeof label, "%s P%d cells", name, order);
  check_colouring(label, s, NULL, 1);
  snprintf(label, sizeof label, "%s P%d chunks (mesh order)", name, order);
  check_colouring(label, s, NULL, 32);
  snprintf(label, sizeof label, "%s P%d chunks (curve order)", name, order);
  check_colouring(label, s, ord, 32);
  free(ord);
  feint_space_destroy(s);
}

int main(void) {
  seed_fresh("t313-plan-order");
  uint64_t rng = rng_state;
  check_morton();

  feint_mesh *sq = mesh_square(24), *cube = mesh_cube(6, 0.3);
  check_curve("square (mesh order)", sq);
  check_curve("cube (mesh order)", cube);
  shuffle_cells(sq, &rng);
  shuffle_cells(cube, &rng);
  check_curve("square (shuffled)", sq);
  check_curve("cube (shuffled)", cube);

  check_inverse_random();
  check_inverse_gather("square P2 x2", sq, 2, 2);
  check_inverse_gather("cube P1", cube, 1, 1);

  check_colourings("square", sq, 1);
  check_colourings("square", sq, 2);
  check_colourings("cube", cube, 1);
  mesh_free(sq);
  mesh_free(cube);
  return check_report("t313-plan-order");
}
