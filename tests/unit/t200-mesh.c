/* Mesh reader: MSH 2.2/4.1 ASCII/binary produced by the gmsh CLI, .geo
 * meshed through the API, region selection, facets of boundary groups,
 * geometry statistics and the error messages. Run from the repository root
 * (tests/data/ and cases/ are read from there). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "feint/error.h"
#include "feint/mesh.h"

static char tmp[256];

static int sh(const char *fmt, const char *a, const char *b) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd, fmt, a, b);
  char full[2300];
  snprintf(full, sizeof full, "%s >/dev/null 2>&1", cmd);
  int rc = system(full);
  if (rc != 0) fprintf(stderr, "command failed (%d): %s\n", rc, cmd);
  return rc;
}

static const char *tpath(const char *name) {
  static char buf[8][512];
  static int k = 0;
  k = (k + 1) % 8;
  snprintf(buf[k], sizeof buf[k], "%s/%s", tmp, name);
  return buf[k];
}

static double triangle_area(const feint_mesh *m, int64_t a, int64_t b, int64_t c) {
  double u[3] = {m->x[b] - m->x[a], m->y[b] - m->y[a], m->z[b] - m->z[a]};
  double w[3] = {m->x[c] - m->x[a], m->y[c] - m->y[a], m->z[c] - m->z[a]};
  double n[3] = {u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0]};
  return 0.5 * sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
}

/* Length or area of a group's facets (quadrilaterals as two triangles:
 * planar ones here). */
static double facet_measure(const feint_mesh *m, int g) {
  double s = 0;
  for (int64_t f = m->facet_offsets[g]; f < m->facet_offsets[g + 1]; f++) {
    const int64_t *v = m->facets + f * m->nv_facet;
    const int nv = feint_mesh_facet_nv(m, f);
    for (int i = 0; i < nv; i++)
      if (v[i] < 0 || v[i] >= m->n_nodes) return -1;
    if (nv == 2) {
      double dx = m->x[v[1]] - m->x[v[0]], dy = m->y[v[1]] - m->y[v[0]];
      s += sqrt(dx * dx + dy * dy);
    } else {
      s += triangle_area(m, v[0], v[1], v[2]);
      if (nv == 4) s += triangle_area(m, v[0], v[2], v[3]);
    }
  }
  return s;
}

static int64_t type_count(const feint_mesh *m, const char *name) {
  for (int i = 0; i < m->n_type_counts; i++)
    if (strcmp(m->type_names[i], name) == 0) return m->type_counts[i];
  return 0;
}

static feint_mesh *read_ok(const char *path, int n_region, const char *const *region, double size) {
  feint_mesh_options o = {.size = size, .n_region = n_region, .region = region};
  feint_mesh *m = NULL;
  CHECK_OK(feint_mesh_read(path, &o, &m));
  return m;
}

static void check_valid(const feint_mesh *m) {
  int bad = 0;
  for (int64_t i = 0; i < m->n_cells * m->nv; i++) bad += m->cells[i] < 0 || m->cells[i] >= m->n_nodes;
  CHECK(bad == 0, "%d cell vertex indices out of range in %s", bad, m->path);
  /* every node is used */
  char *used = calloc((size_t)m->n_nodes + 1, 1);
  if (!used) exit(1);
  for (int64_t i = 0; i < m->n_cells * m->nv; i++) used[m->cells[i]] = 1;
  bad = 0;
  for (int64_t f = 0; f < m->facet_offsets[m->n_groups]; f++)
    for (int i = 0; i < feint_mesh_facet_nv(m, f); i++) {
      const int64_t v = m->facets[f * m->nv_facet + i];
      bad += v < 0 || v >= m->n_nodes;
      if (v >= 0 && v < m->n_nodes) used[v] = 1;
    }
  CHECK(bad == 0, "%d facet vertex indices out of range in %s", bad, m->path);
  int64_t unused = 0;
  for (int64_t i = 0; i < m->n_nodes; i++) unused += !used[i];
  free(used);
  CHECK(unused == 0, "%lld unused nodes in %s", (long long)unused, m->path);
}

/* Expect a read to fail with FEINT_ERR_INPUT and a message containing each
 * of the given fragments. */
static void read_fails(const char *path, int n_region, const char *const *region,
                       const char *where, const char *frag1, const char *frag2) {
  feint_mesh_options o = {.n_region = n_region, .region = region, .where = where};
  feint_mesh *m = NULL;
  feint_error_clear();
  int st = feint_mesh_read(path, &o, &m);
  const char *msg = feint_error_message();
  printf("  %s -> %d: %s\n", path, st, msg);
  CHECK(st == FEINT_ERR_INPUT, "reading %s: status %d, expected FEINT_ERR_INPUT", path, st);
  CHECK(m == NULL, "no mesh on failure");
  CHECK(frag1 == NULL || strstr(msg, frag1), "message '%s' lacks '%s'", msg, frag1);
  CHECK(frag2 == NULL || strstr(msg, frag2), "message '%s' lacks '%s'", msg, frag2);
  feint_mesh_destroy(m);
}

static void test_cube_formats(void) {
  const char *fmt[4][2] = {{"msh22", ""}, {"msh41", ""}, {"msh22", "-bin"}, {"msh41", "-bin"}};
  int64_t n_nodes = -1, n_cells = -1;
  for (int f = 0; f < 4; f++) {
    char name[64], opts[64];
    snprintf(name, sizeof name, "cube_%s%s.msh", fmt[f][0], fmt[f][1]);
    snprintf(opts, sizeof opts, "-format %s %s", fmt[f][0], fmt[f][1]);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "gmsh -3 %s -o %%s %%s", opts);
    if (sh(cmd, tpath(name), "tests/data/unit_cube.geo")) {
      check_failures++;
      continue;
    }
    feint_mesh *m = read_ok(tpath(name), 0, NULL, 0);
    printf("%s: %lld nodes, %lld cells, %d groups\n", name, (long long)m->n_nodes,
           (long long)m->n_cells, m->n_groups);
    CHECK(m->dim == 3 && m->nv == 4 && m->cell_type == FEINT_CELL_TETRAHEDRON, "3D tets");
    check_valid(m);
    feint_mesh_stats s;
    feint_mesh_compute_stats(m, &s);
    CHECK_CLOSE(s.volume, 1.0, 1e-12);
    CHECK(s.n_inverted == 0, "%lld inverted", (long long)s.n_inverted);
    CHECK(s.worst_quality > 0.05 && s.worst_quality <= 1, "quality %g", s.worst_quality);
    CHECK(s.worst_cell >= 0 && s.worst_cell < m->n_cells, "worst cell");
    for (int k = 0; k < 3; k++) {
      CHECK_CLOSE(s.bbox_min[k], 0.0, 1e-14);
      CHECK_CLOSE(s.bbox_max[k], 1.0, 1e-14);
    }
    if (n_nodes < 0) {
      n_nodes = m->n_nodes;
      n_cells = m->n_cells;
    }
    CHECK(m->n_nodes == n_nodes, "%s: %lld nodes, expected %lld", name, (long long)m->n_nodes,
          (long long)n_nodes);
    CHECK(m->n_cells == n_cells, "%s: cells", name);
    /* groups */
    int gd = feint_mesh_find_group(m, "domain", 3);
    int gl = feint_mesh_find_group(m, "left", 2);
    int gw = feint_mesh_find_group(m, "walls", 2);
    int go = feint_mesh_find_group(m, "origin", 0);
    CHECK(m->n_groups == 4 && gd >= 0 && gl >= 0 && gw >= 0 && go >= 0, "groups of %s", name);
    CHECK(feint_mesh_find_group(m, "domain", 2) < 0, "domain has dimension 3");
    CHECK(feint_mesh_find_group(m, "nope", -1) < 0, "unknown group");
    if (gd < 0 || gl < 0 || gw < 0 || go < 0) {
      feint_mesh_destroy(m);
      continue;
    }
    CHECK(m->groups[gd].n_elements == m->n_cells, "domain elements");
    CHECK(m->groups[go].n_elements == 1, "origin elements %lld", (long long)m->groups[go].n_elements);
    CHECK(m->nv_facet == 3, "triangle facets");
    CHECK_CLOSE(facet_measure(m, gl), 1.0, 1e-12);
    CHECK_CLOSE(facet_measure(m, gw), 6.0, 1e-12);
    CHECK(m->facet_offsets[gl + 1] - m->facet_offsets[gl] == m->groups[gl].n_elements, "left");
    CHECK(m->facet_offsets[gw + 1] - m->facet_offsets[gw] == m->groups[gw].n_elements, "walls");
    CHECK(m->facet_offsets[gd + 1] == m->facet_offsets[gd], "no facets for domain");
    CHECK(m->facet_offsets[go + 1] == m->facet_offsets[go], "no facets for origin");
    /* left facets lie on x = 0 */
    double xmax = 0;
    for (int64_t i = m->facet_offsets[gl] * 3; i < m->facet_offsets[gl + 1] * 3; i++)
      if (fabs(m->x[m->facets[i]]) > xmax) xmax = fabs(m->x[m->facets[i]]);
    CHECK(xmax == 0, "left facets at x = 0 (max |x| %g)", xmax);
    int64_t other = 0;
    for (int64_t c = 0; c < m->n_cells; c++) other += m->cell_group[c] != gd;
    CHECK(other == 0, "cell_group is domain");
    CHECK(type_count(m, "Tetrahedron 4") == m->n_cells, "type counts");
    CHECK(type_count(m, "Triangle 3") == m->groups[gw].n_elements, "triangle count %lld",
          (long long)type_count(m, "Triangle 3"));
    CHECK(type_count(m, "Point") == 1, "point count");
    feint_mesh_destroy(m);
  }
}

static void test_square(void) {
  if (sh("gmsh -2 -format msh41 -o %s %s", tpath("square.msh"), "cases/square.geo")) {
    check_failures++;
    return;
  }
  feint_mesh *m = read_ok(tpath("square.msh"), 0, NULL, 0);
  printf("square.msh: %lld nodes, %lld cells\n", (long long)m->n_nodes, (long long)m->n_cells);
  CHECK(m->dim == 2 && m->nv == 3 && m->cell_type == FEINT_CELL_TRIANGLE && m->nv_facet == 2,
        "2D triangles");
  check_valid(m);
  feint_mesh_stats s;
  feint_mesh_compute_stats(m, &s);
  CHECK_CLOSE(s.volume, 1.0, 1e-12);
  CHECK(s.n_inverted == 0, "inverted %lld", (long long)s.n_inverted);
  CHECK(s.worst_quality > 0.3, "quality %g", s.worst_quality);
  const char *names[] = {"left", "right", "bottom", "top"};
  for (int i = 0; i < 4; i++) {
    int g = feint_mesh_find_group(m, names[i], 1);
    CHECK(g >= 0, "group %s", names[i]);
    if (g >= 0) CHECK_CLOSE(facet_measure(m, g), 1.0, 1e-12);
  }
  int gb = feint_mesh_find_group(m, "boundary", 1);
  CHECK(gb >= 0, "boundary");
  if (gb >= 0) CHECK_CLOSE(facet_measure(m, gb), 4.0, 1e-12);
  int zero = 1;
  for (int64_t i = 0; i < m->n_nodes; i++) zero &= m->z[i] == 0;
  CHECK(zero, "z == 0 in 2D");
  feint_mesh_destroy(m);
}

static void test_region(void) {
  if (sh("gmsh -3 -format msh41 -o %s %s", tpath("split.msh"), "tests/data/split_cube.geo")) {
    check_failures++;
    return;
  }
  const char *inner[] = {"inner"}, *outer[] = {"outer"}, *both[] = {"outer", "inner"};
  const char *const *sel[3] = {inner, outer, both};
  int nsel[3] = {1, 1, 2};
  double want[3] = {0.3, 0.7, 1.0};
  int64_t cells[3] = {0, 0, 0};
  for (int k = 0; k < 3; k++) {
    feint_mesh *m = read_ok(tpath("split.msh"), nsel[k], sel[k], 0);
    check_valid(m);
    feint_mesh_stats s;
    feint_mesh_compute_stats(m, &s);
    printf("split.msh region %d: %lld cells, volume %.15g\n", k, (long long)m->n_cells, s.volume);
    CHECK_CLOSE(s.volume, want[k], 1e-12);
    cells[k] = m->n_cells;
    int gi = feint_mesh_find_group(m, "inner", 3), go = feint_mesh_find_group(m, "outer", 3);
    int gc = feint_mesh_find_group(m, "cut", 2);
    CHECK(gi >= 0 && go >= 0 && gc >= 0, "groups");
    if (gc >= 0) CHECK_CLOSE(facet_measure(m, gc), 1.0, 1e-12);
    int64_t ni = 0, no = 0;
    for (int64_t c = 0; c < m->n_cells; c++) {
      ni += m->cell_group[c] == gi;
      no += m->cell_group[c] == go;
    }
    CHECK(ni + no == m->n_cells, "every cell in a group");
    if (gi >= 0) CHECK(ni == (k == 1 ? 0 : m->groups[gi].n_elements), "inner cells %lld", (long long)ni);
    if (go >= 0) CHECK(no == (k == 0 ? 0 : m->groups[go].n_elements), "outer cells %lld", (long long)no);
    feint_mesh_destroy(m);
  }
  CHECK(cells[0] + cells[1] == cells[2], "union of regions");
  /* no region: all cells */
  feint_mesh *m = read_ok(tpath("split.msh"), 0, NULL, 0);
  CHECK(m->n_cells == cells[2], "all cells");
  feint_mesh_destroy(m);
  /* MSH 2.2 repeats elements of overlapping groups: read once */
  if (sh("gmsh -3 -format msh22 -o %s %s", tpath("split22.msh"), "tests/data/split_cube.geo")) {
    check_failures++;
    return;
  }
  const char *all_inner[] = {"all", "inner"};
  for (int k = 0; k < 2; k++) {
    m = read_ok(tpath("split22.msh"), k ? 2 : 0, k ? all_inner : NULL, 0);
    feint_mesh_stats s;
    feint_mesh_compute_stats(m, &s);
    CHECK_CLOSE(s.volume, 1.0, 1e-12);
    int ga = feint_mesh_find_group(m, "all", 3), gc = feint_mesh_find_group(m, "cut", 2);
    CHECK(ga >= 0 && m->groups[ga].n_elements == m->n_cells, "all has every cell");
    CHECK(type_count(m, "Tetrahedron 4") == m->n_cells, "tetrahedra counted once");
    if (gc >= 0) CHECK_CLOSE(facet_measure(m, gc), 1.0, 1e-12);
    int64_t none = 0;
    for (int64_t c = 0; c < m->n_cells; c++) none += m->cell_group[c] < 0 || m->cell_group[c] == ga;
    CHECK(none == 0, "cell_group: first group (inner or outer)");
    feint_mesh_destroy(m);
  }
}

static void test_geo(void) {
  feint_mesh *a = read_ok("cases/cube.geo", 0, NULL, 0.5);
  feint_mesh *b = read_ok("cases/cube.geo", 0, NULL, 0.2);
  feint_mesh *c = read_ok("cases/square.geo", 0, NULL, 0); /* the file's lc */
  feint_mesh *d = read_ok("cases/square.geo", 0, NULL, 0.05);
  printf("cube.geo size 0.5: %lld cells, 0.2: %lld cells; square.geo: %lld, size 0.05: %lld\n",
         (long long)a->n_cells, (long long)b->n_cells, (long long)c->n_cells, (long long)d->n_cells);
  CHECK(b->n_cells > 2 * a->n_cells, "smaller size, more cells");
  CHECK(d->n_cells > 2 * c->n_cells, "smaller size, more cells (2D)");
  feint_mesh *ms[4] = {a, b, c, d};
  for (int i = 0; i < 4; i++) {
    feint_mesh_stats s;
    feint_mesh_compute_stats(ms[i], &s);
    CHECK_CLOSE(s.volume, 1.0, 1e-12);
    check_valid(ms[i]);
    int gb = feint_mesh_find_group(ms[i], "boundary", ms[i]->dim - 1);
    int gl = feint_mesh_find_group(ms[i], "left", ms[i]->dim - 1);
    CHECK(gb >= 0 && gl >= 0, "groups of %s", ms[i]->path);
    if (gb >= 0) CHECK_CLOSE(facet_measure(ms[i], gb), ms[i]->dim == 3 ? 6.0 : 4.0, 1e-12);
    if (gl >= 0) CHECK_CLOSE(facet_measure(ms[i], gl), 1.0, 1e-12);
    feint_mesh_destroy(ms[i]);
  }
  /* the size option does not leak into a later read */
  feint_mesh *e = read_ok("cases/cube.geo", 0, NULL, 0);
  feint_mesh *f = read_ok("cases/cube.geo", 0, NULL, 0);
  CHECK(e->n_cells == f->n_cells, "repeatable");
  feint_mesh_destroy(e);
  feint_mesh_destroy(f);
}

/* Prism meshes: boundary facets mix triangles (rows of nv_facet = 4 ending
 * with -1) and quadrilaterals (mesh.h); the areas add up over both shapes,
 * read from the .geo and from an MSH 2.2 file (repeated elements kept
 * once). */
static void test_prism_facets(void) {
  if (sh("gmsh -3 -format msh22 -o %s %s", tpath("prism22.msh"), "cases/prismcube.geo")) {
    check_failures++;
    return;
  }
  const char *paths[2] = {"cases/prismcube.geo", tpath("prism22.msh")};
  int64_t n_tri[2] = {0, 0}, n_quad[2] = {0, 0};
  for (int k = 0; k < 2; k++) {
    feint_mesh *m = read_ok(paths[k], 0, NULL, 0);
    CHECK(m->cell_type == FEINT_CELL_PRISM && m->nv_facet == 4, "prism mesh, facet rows of 4");
    check_valid(m);
    const int gb = feint_mesh_find_group(m, "boundary", 2), gl = feint_mesh_find_group(m, "left", 2);
    CHECK(gb >= 0 && gl >= 0, "groups of %s", m->path);
    if (gb < 0 || gl < 0) continue;
    for (int64_t f = m->facet_offsets[gb]; f < m->facet_offsets[gb + 1]; f++)
      (feint_mesh_facet_nv(m, f) == 3 ? n_tri : n_quad)[k]++;
    for (int64_t f = m->facet_offsets[gl]; f < m->facet_offsets[gl + 1]; f++)
      CHECK(feint_mesh_facet_nv(m, f) == 4, "left: quadrilaterals only");
    printf("%s: %lld prisms, boundary %lld triangles + %lld quadrilaterals\n", paths[k], (long long)m->n_cells,
           (long long)n_tri[k], (long long)n_quad[k]);
    CHECK(n_tri[k] == m->n_cells / 2, "top and bottom: one triangle per prism of a layer (4 layers)");
    CHECK(n_quad[k] > 0 && n_quad[k] % 16 == 0, "4 sides x 4 layers of quadrilaterals");
    CHECK_CLOSE(facet_measure(m, gb), 6.0, 1e-12);
    CHECK_CLOSE(facet_measure(m, gl), 1.0, 1e-12);
    feint_mesh_destroy(m);
  }
  CHECK(n_tri[0] == n_tri[1] && n_quad[0] == n_quad[1], "same facets from .geo and MSH 2.2");
}

static void test_errors(void) {
  printf("errors:\n");
  read_fails(tpath("missing.msh"), 0, NULL, NULL, "missing.msh' cannot be read",
             "No such file or directory");
  read_fails(tpath("missing.msh"), 0, NULL, "case.yaml:3:9", "case.yaml:3:9: mesh file", NULL);
  read_fails(tmp, 0, NULL, NULL, "cannot be read", NULL);
  FILE *f = fopen(tpath("garbage.msh"), "w");
  if (f) {
    fputs("hello world\nthis is not a mesh\n", f);
    fclose(f);
  }
  /* .msh files are read natively (msh.h): never handed to Gmsh */
  read_fails(tpath("garbage.msh"), 0, NULL, NULL, "garbage.msh: not a Gmsh mesh",
             "expected \"$MeshFormat\" on line 1");
  f = fopen(tpath("truncated.msh"), "w");
  if (f) {
    fputs("$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n3\n1 0 0 0\n2 1 0\n$EndNodes\n", f);
    fclose(f);
  }
  read_fails(tpath("truncated.msh"), 0, NULL, NULL, "truncated.msh:8: expected a node coordinate, got '$EndNodes'", NULL);
  f = fopen(tpath("bad.geo"), "w");
  if (f) {
    fputs("Point(1) = {0, 0, 0};\nLine(1) = {1, 2, oops;\n", f);
    fclose(f);
  }
  read_fails(tpath("bad.geo"), 0, NULL, NULL, "Gmsh could not read", "line 2");
  /* Gmsh still works after errors */
  feint_mesh *m = read_ok(tpath("cube_msh41.msh"), 0, NULL, 0);
  feint_mesh_destroy(m);
  m = read_ok("cases/square.geo", 0, NULL, 0.25);
  feint_mesh_destroy(m);

  const char *foo[] = {"foo"}, *left[] = {"left"}, *mixed[] = {"domain", "foo"};
  read_fails(tpath("cube_msh41.msh"), 1, foo, "case.yaml:4:11",
             "case.yaml:4:11: unknown physical group 'foo' in mesh",
             "groups of dimension 3: domain");
  read_fails(tpath("cube_msh41.msh"), 2, mixed, NULL, "'foo'", NULL);
  read_fails(tpath("cube_msh41.msh"), 1, left, NULL, "'left'", "has dimension 2");
  read_fails(tpath("split.msh"), 1, foo, NULL, "groups of dimension 3: inner, outer", NULL);

  if (!sh("gmsh -3 -order 4 -format msh41 -o %s %s", tpath("order4.msh"), "tests/data/unit_cube.geo"))
    read_fails(tpath("order4.msh"), 0, NULL, NULL, "35-node tetrahedron",
               "of geometry order 4, which feint does not read yet");
  else
    check_failures++;
  /* a run's reading: tetrahedra of order 2 and 3 keep their 10 and 20 nodes' coordinates, the vertices first;
   * the cube's cells are all affine */
  int have_order2 = 0;
  for (int order = 3; order >= 2; order--) {
    const int nodes = order == 2 ? 10 : 20;
    char name[32], cmd[64];
    snprintf(name, sizeof name, "order%d.msh", order);
    snprintf(cmd, sizeof cmd, "gmsh -3 -order %d -format msh41 -o %%s %%s", order);
    if (sh(cmd, tpath(name), "tests/data/unit_cube.geo")) {
      check_failures++;
      continue;
    }
    have_order2 = order == 2;
    feint_mesh *g = read_ok(tpath(name), 0, NULL, 0);
    CHECK(g->n_geometry_nodes == nodes && g->geometry_order == order && g->geometry_nodes && g->n_curved_cells == 0,
          "%s: %d geometry nodes, order %d, %lld curved", name, g->n_geometry_nodes, g->geometry_order,
          (long long)g->n_curved_cells);
    for (int64_t c = 0; c < g->n_cells && g->geometry_nodes; c++)
      for (int k = 0; k < 4; k++) {
        const double *at = g->geometry_nodes + (c * nodes + k) * 3;
        const int64_t v = g->cells[c * 4 + k];
        CHECK(at[0] == g->x[v] && at[1] == g->y[v] && at[2] == g->z[v], "%s: cell %lld vertex %d", name,
              (long long)c, k);
      }
    feint_mesh_destroy(g);
  }
  if (have_order2) {
    /* feint info's reading: the cells by their vertices, the order said */
    feint_mesh_options o = {.curved_ok = 1};
    feint_mesh *m = NULL;
    CHECK(feint_mesh_read(tpath("order2.msh"), &o, &m) == FEINT_OK, "order2.msh: %s", feint_error_message());
    if (m) {
      feint_mesh_stats st;
      feint_mesh_compute_stats(m, &st);
      CHECK(m->geometry_order == 2 && m->cell_type == FEINT_CELL_TETRAHEDRON && m->nv == 4,
            "order2.msh: order %d, %s cells", m->geometry_order, feint_cell_name(m->cell_type));
      CHECK(fabs(st.volume - 1) < 1e-12 && st.n_inverted == 0, "order2.msh: volume %.15g", st.volume);
    }
    feint_mesh_destroy(m);
  }
  /* first-order quadrilaterals are read (for the operator section, issue 4);
   * second-order ones are refused by name */
  if (!sh("gmsh -2 -format msh22 -o %s %s", tpath("quad.msh"), "tests/data/quad_square.geo")) {
    feint_mesh_options o = {0};
    feint_mesh *m = NULL;
    CHECK(feint_mesh_read(tpath("quad.msh"), &o, &m) == FEINT_OK, "quad.msh: %s", feint_error_message());
    if (m) {
      feint_mesh_stats st;
      feint_mesh_compute_stats(m, &st);
      CHECK(m->cell_type == FEINT_CELL_QUADRILATERAL && m->nv == 4, "quad.msh: %s cells", feint_cell_name(m->cell_type));
      CHECK(fabs(st.volume - 1) < 1e-12 && st.n_inverted == 0, "quad.msh: area %.15g, %lld inverted", st.volume,
            (long long)st.n_inverted);
      printf("  quad.msh: %lld quadrilaterals, area %.15g\n", (long long)m->n_cells, st.volume);
    }
    feint_mesh_destroy(m);
  } else {
    check_failures++;
  }
  /* second-order quadrilaterals keep their 9 nodes; fourth-order ones are refused by name */
  if (!sh("gmsh -2 -order 2 -format msh41 -o %s %s", tpath("quad2.msh"), "tests/data/quad_square.geo")) {
    feint_mesh *g = read_ok(tpath("quad2.msh"), 0, NULL, 0);
    CHECK(g->cell_type == FEINT_CELL_QUADRILATERAL && g->n_geometry_nodes == 9 && g->geometry_order == 2 &&
              g->n_curved_cells == 0,
          "quad2.msh: %d geometry nodes, order %d, %lld curved", g->n_geometry_nodes, g->geometry_order,
          (long long)g->n_curved_cells);
    feint_mesh_destroy(g);
  } else {
    check_failures++;
  }
  if (!sh("gmsh -2 -order 4 -format msh41 -o %s %s", tpath("quad4.msh"), "tests/data/quad_square.geo"))
    read_fails(tpath("quad4.msh"), 0, NULL, NULL, "25-node quadrilateral", "Quadrilateral 25");
  else
    check_failures++;
  /* a mesh with only lines */
  if (!sh("gmsh -1 -format msh41 -o %s %s", tpath("lines.msh"), "cases/square.geo"))
    read_fails(tpath("lines.msh"), 0, NULL, NULL, "no 2D or 3D elements", NULL);
  else
    check_failures++;
  /* empty region: a named group with no elements */
  f = fopen(tpath("empty.geo"), "w");
  if (f) {
    fputs("Point(1) = {0,0,0,1}; Point(2) = {1,0,0,1}; Point(3) = {0,1,0,1};\n"
          "Line(1) = {1,2}; Line(2) = {2,3}; Line(3) = {3,1};\n"
          "Curve Loop(1) = {1,2,3}; Plane Surface(1) = {1};\n"
          "Physical Surface(\"domain\") = {1};\nPhysical Surface(\"none\") = {};\n",
          f);
    fclose(f);
  }
  const char *none[] = {"none"};
  m = NULL;
  feint_mesh_options o = {.n_region = 1, .region = none};
  int st = feint_mesh_read(tpath("empty.geo"), &o, &m);
  printf("  empty region -> %d: %s\n", st, feint_error_message());
  CHECK(st == FEINT_ERR_INPUT && m == NULL, "empty region rejected");
  feint_mesh_destroy(m);
}

/* Facets of a 3D mixed unit cube: rows of 4, the groups "boundary" (the
 * six faces, triangles and quadrilaterals) and "left" (x = 0) measure 6
 * and 1, every left facet lies on x = 0. */
static void mixed_facets(const char *path) {
  feint_mesh *m = read_ok(path, 0, NULL, 0);
  if (!m) return;
  const int gb = feint_mesh_find_group(m, "boundary", 2), gl = feint_mesh_find_group(m, "left", 2);
  CHECK(feint_mesh_is_mixed(m) && m->nv_facet == 4 && gb >= 0 && gl >= 0, "%s: rows of %d, groups %d %d", path,
        m->nv_facet, gb, gl);
  if (gb >= 0 && gl >= 0) {
    CHECK_CLOSE(facet_measure(m, gb), 6.0, 1e-12);
    CHECK_CLOSE(facet_measure(m, gl), 1.0, 1e-12);
    int64_t shapes[5] = {0}, off = 0;
    for (int64_t f = m->facet_offsets[gb]; f < m->facet_offsets[gb + 1]; f++) shapes[feint_mesh_facet_nv(m, f)]++;
    CHECK(shapes[3] > 0 && shapes[4] > 0 && shapes[3] + shapes[4] == m->groups[gb].n_elements,
          "%s: %lld triangles + %lld quadrilaterals of %lld elements", path, (long long)shapes[3],
          (long long)shapes[4], (long long)m->groups[gb].n_elements);
    for (int64_t f = m->facet_offsets[gl]; f < m->facet_offsets[gl + 1]; f++)
      for (int i = 0; i < feint_mesh_facet_nv(m, f); i++) off += fabs(m->x[m->facets[f * 4 + i]]) > 0;
    CHECK(off == 0, "%s: %lld left facet vertices off x = 0", path, (long long)off);
    printf("  %s: facets %lld triangles + %lld quadrilaterals on the boundary\n", path, (long long)shapes[3],
           (long long)shapes[4]);
  }
  feint_mesh_destroy(m);
}

/* Mixed meshes: one block per shape in Gmsh type order, cells numbered
 * block after block, rows padded with -1 past a block's vertices; the
 * same from a .geo and from its MSH 2.2 file (repeated elements). 3D mixed
 * meshes read their facets in rows of 4, triangles padded with -1
 * (mixed_facets). */
static void test_mixed(void) {
  const char *path22 = tpath("mixed22.msh");
  CHECK(!sh("gmsh -2 -format msh22 -o %s %s", path22, "tests/data/mixed_square.geo"), "gmsh mixed_square");
  const char *files[3] = {"tests/data/mixed_square.geo", path22, "tests/data/hex_prism_cube.geo"};
  const feint_cell_type want[3][2] = {{FEINT_CELL_TRIANGLE, FEINT_CELL_QUADRILATERAL},
                                      {FEINT_CELL_TRIANGLE, FEINT_CELL_QUADRILATERAL},
                                      {FEINT_CELL_HEXAHEDRON, FEINT_CELL_PRISM}};
  int64_t cells2d = -1;
  for (int k = 0; k < 3; k++) {
    feint_mesh *m = read_ok(files[k], 0, NULL, 0);
    if (!m) continue;
    CHECK(feint_mesh_is_mixed(m) && m->n_blocks == 2, "%s: %d blocks", files[k], m->n_blocks);
    int64_t next = 0, bad = 0;
    for (int b = 0; b < m->n_blocks; b++) {
      const feint_mesh_block *B = &m->blocks[b];
      CHECK(B->cell_type == want[k][b] && B->nv == feint_cell_num_vertices(B->cell_type) && B->n_cells > 0,
            "%s: block %d is %lld %s cells", files[k], b, (long long)B->n_cells, feint_cell_name(B->cell_type));
      CHECK(B->first_cell == next, "%s: block %d starts at cell %lld", files[k], b, (long long)B->first_cell);
      next += B->n_cells;
      for (int64_t c = B->first_cell; c < B->first_cell + B->n_cells; c++)
        for (int v = 0; v < m->nv; v++) {
          const int64_t g = m->cells[c * m->nv + v];
          bad += v < B->nv ? g < 0 || g >= m->n_nodes : g != -1;
        }
    }
    CHECK(next == m->n_cells && m->cell_type == m->blocks[0].cell_type && m->nv == (m->blocks[0].nv > m->blocks[1].nv ? m->blocks[0].nv : m->blocks[1].nv),
          "%s: blocks cover the cells", files[k]);
    CHECK(bad == 0, "%s: %lld bad vertex entries (padding must be -1)", files[k], (long long)bad);
    feint_mesh_stats st;
    feint_mesh_compute_stats(m, &st);
    CHECK(fabs(st.volume - 1) < 1e-12 && st.n_inverted == 0, "%s: volume %.15g", files[k], st.volume);
    if (k < 2 && cells2d < 0) cells2d = m->n_cells;
    if (k < 2) CHECK(m->n_cells == cells2d, "%s: %lld cells, as the .geo", files[k], (long long)m->n_cells);
    char shapes[128];
    printf("  %s: %lld cells (%s), volume %.15g\n", files[k], (long long)m->n_cells,
           feint_mesh_shapes(m, shapes, sizeof shapes), st.volume);
    feint_mesh_destroy(m);
  }
  mixed_facets("tests/data/hex_prism_cube.geo");
  mixed_facets("cases/mixedcube.geo");
}

int main(void) {
  snprintf(tmp, sizeof tmp, "/tmp/feint-t200-XXXXXX");
  if (!mkdtemp(tmp)) {
    perror("mkdtemp");
    return 1;
  }
  test_cube_formats();
  test_square();
  test_region();
  test_geo();
  test_prism_facets();
  test_errors();
  test_mixed();
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmp);
  return check_report("t200-mesh");
}
