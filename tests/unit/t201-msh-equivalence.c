/* The native .msh reader (msh.h) against libgmsh: every .geo of cases/ and
 * tests/data/ is meshed by the gmsh CLI into MSH 4.1 and 2.2, ASCII and
 * binary; each file is read through the native path (feint_mesh_read) and
 * through libgmsh (feint_mesh_read_gmsh, mesh/msh_gmsh.h), whole and with
 * each named top-dimensional physical group as the region, and every array
 * of the two feint_mesh must be equal, bit for bit. So too a generated cube
 * of 750k cells (gen-cube-msh, binary 4.1, and its ASCII copy), large
 * enough that the reader gives its parsed text back while it reads. Run
 * from the repository root. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "feint/error.h"
#include "feint/mesh.h"
#include "mesh/msh_gmsh.h"

static char tmp[256];

#define SAME(a, b, n, what)                                                                   \
  CHECK(((n) == 0) || memcmp((a), (b), (size_t)(n) * sizeof *(a)) == 0, "%s: %s differ", label, what)

static void compare(const feint_mesh *a, const feint_mesh *b, const char *label) {
  CHECK(a->dim == b->dim && a->n_nodes == b->n_nodes && a->n_cells == b->n_cells && a->nv == b->nv &&
            a->cell_type == b->cell_type && a->n_blocks == b->n_blocks && a->n_groups == b->n_groups &&
            a->nv_facet == b->nv_facet && a->n_type_counts == b->n_type_counts,
        "%s: sizes differ", label);
  if (check_failures) return;
  SAME(a->x, b->x, a->n_nodes, "x");
  SAME(a->y, b->y, a->n_nodes, "y");
  SAME(a->z, b->z, a->n_nodes, "z");
  SAME(a->cells, b->cells, a->n_cells * a->nv, "cells");
  SAME(a->cell_group, b->cell_group, a->n_cells, "cell groups");
  SAME(a->blocks, b->blocks, a->n_blocks, "blocks");
  SAME(a->facet_offsets, b->facet_offsets, a->n_groups + 1, "facet offsets");
  SAME(a->facets, b->facets, a->facet_offsets[a->n_groups] * a->nv_facet, "facets");
  SAME(a->type_counts, b->type_counts, a->n_type_counts, "type counts");
  CHECK(a->n_geometry_nodes == b->n_geometry_nodes && a->geometry_order == b->geometry_order,
        "%s: geometry of %d and %d nodes", label, a->n_geometry_nodes, b->n_geometry_nodes);
  if (a->n_geometry_nodes == b->n_geometry_nodes)
    SAME(a->geometry_nodes, b->geometry_nodes, a->n_cells * a->n_geometry_nodes * 3, "curved cells' nodes");
  for (int i = 0; i < a->n_type_counts; i++)
    CHECK(!strcmp(a->type_names[i], b->type_names[i]), "%s: type name %s vs %s", label, a->type_names[i],
          b->type_names[i]);
  for (int g = 0; g < a->n_groups; g++)
    CHECK(a->groups[g].dim == b->groups[g].dim && a->groups[g].tag == b->groups[g].tag &&
              a->groups[g].n_elements == b->groups[g].n_elements && !strcmp(a->groups[g].name, b->groups[g].name),
          "%s: group %d differs", label, g);
}

static int n_files, n_reads;

static void check_file(const char *path) {
  feint_mesh *nat = NULL, *ref = NULL;
  CHECK_OK(feint_mesh_read(path, NULL, &nat));
  CHECK_OK(feint_mesh_read_gmsh(path, NULL, &ref));
  CHECK(ref->gmsh_seconds > 0 && nat->gmsh_seconds == 0, "%s: libgmsh time %g (native) %g (libgmsh)", path,
        nat->gmsh_seconds, ref->gmsh_seconds);
  compare(nat, ref, path);
  n_files++;
  n_reads++;
  for (int g = 0; g < ref->n_groups; g++) {
    if (ref->groups[g].dim != ref->dim || !ref->groups[g].name[0]) continue;
    const char *region[1] = {ref->groups[g].name};
    feint_mesh_options o = {.n_region = 1, .region = region};
    feint_mesh *a = NULL, *b = NULL;
    CHECK_OK(feint_mesh_read(path, &o, &a));
    CHECK_OK(feint_mesh_read_gmsh(path, &o, &b));
    char label[600];
    snprintf(label, sizeof label, "%s region %s", path, region[0]);
    compare(a, b, label);
    feint_mesh_destroy(a);
    feint_mesh_destroy(b);
    n_reads++;
  }
  feint_mesh_destroy(nat);
  feint_mesh_destroy(ref);
}

static void check_geo(const char *dir, const char *name) {
  char geo[512], cmd[2048], out[600];
  snprintf(geo, sizeof geo, "%s/%s", dir, name);
  /* 3D when the file has a volume */
  FILE *f = fopen(geo, "r");
  int dim = 2;
  char line[512];
  while (f && fgets(line, sizeof line, f))
    if (strstr(line, "Volume")) dim = 3;
  if (f) fclose(f);
  static const char *const formats[4][2] = {{"msh41", ""}, {"msh41", "-bin"}, {"msh22", ""}, {"msh22", "-bin"}};
  for (int k = 0; k < 4; k++) {
    snprintf(out, sizeof out, "%s/%s-%s%s.msh", tmp, name, formats[k][0], formats[k][1]);
    snprintf(cmd, sizeof cmd, "gmsh -%d '%s' -format %s %s -o '%s' >/dev/null 2>&1", dim, geo, formats[k][0],
             formats[k][1], out);
    if (system(cmd) != 0) {
      CHECK(0, "gmsh failed: %s", cmd);
      continue;
    }
    check_file(out);
  }
}

/* Files past the reader's threshold for giving parsed text back (msh.c's
 * release_text, 8 MiB pieces): binary element data in several of them. */
static void check_large(void) {
  const char *build = getenv("BUILD") && *getenv("BUILD") ? getenv("BUILD") : "build";
  char cmd[2048], bin[600], text[600];
  snprintf(bin, sizeof bin, "%s/gen50.bin.msh", tmp);
  snprintf(text, sizeof text, "%s/gen50.msh", tmp);
  snprintf(cmd, sizeof cmd, "'%s/bench/gen-cube-msh' 50 '%s' >/dev/null 2>&1", build, bin);
  if (system(cmd) != 0) {
    CHECK(0, "could not generate a large mesh: %s", cmd);
    return;
  }
  check_file(bin);
  snprintf(cmd, sizeof cmd, "gmsh '%s' -save -format msh41 -o '%s' >/dev/null 2>&1", bin, text);
  if (system(cmd) != 0) {
    CHECK(0, "gmsh failed: %s", cmd);
    return;
  }
  check_file(text);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void check_dir(const char *dir) {
  DIR *d = opendir(dir);
  CHECK(d != NULL, "cannot open %s", dir);
  if (!d) return;
  char *names[256];
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) && n < 256) {
    size_t len = strlen(e->d_name);
    if (len > 4 && !strcmp(e->d_name + len - 4, ".geo")) names[n++] = strdup(e->d_name);
  }
  closedir(d);
  qsort(names, (size_t)n, sizeof *names, cmp_str);
  for (int i = 0; i < n; i++) {
    if (names[i]) check_geo(dir, names[i]);
    free(names[i]);
  }
}

int main(void) {
  snprintf(tmp, sizeof tmp, "/tmp/feint-t201-XXXXXX");
  if (!mkdtemp(tmp)) {
    perror("mkdtemp");
    return 1;
  }
  check_dir("cases");
  check_dir("tests/data");
  check_file("tests/data/msh/cube41.bin.msh");
  check_file("tests/data/msh/cube22.bin.msh");
  check_file("tests/data/msh/square22.msh");
  check_large();
  printf("%d files (%d reads with regions) equal through the native reader and libgmsh\n", n_files, n_reads);
  CHECK(n_files >= 90, "only %d files compared", n_files);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmp);
  return check_report("t201-msh-equivalence");
}
