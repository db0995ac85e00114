/* gen-cube-msh [--ascii] N OUT.msh: the unit cube as N^3 cubes of 6 Kuhn
 * tetrahedra each (6 N^3 cells, (N+1)^3 nodes), written as a Gmsh 4.1
 * binary mesh (ASCII with --ascii, as Gmsh saves by default) with
 * a physical volume "domain" and a physical surface "boundary" (the 12 N^2
 * boundary triangles, diagonals matching the tetrahedra's faces).
 *
 * The end-to-end benchmark needs a >= 6M-cell mesh; Gmsh takes minutes and
 * gigabytes to mesh one, this takes a second. Not part of feint. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static FILE *out;
static int ascii;

static void put(const void *p, size_t size, size_t n) {
  if (fwrite(p, size, n, out) != n) {
    perror("gen-cube-msh: write");
    exit(1);
  }
}
static void put_text(const char *s) { put(s, 1, strlen(s)); }
/* In ASCII each value is followed by a space, each record by eol(). */
static void put_int(int v) {
  if (ascii) fprintf(out, "%d ", v);
  else put(&v, sizeof v, 1);
}
static void put_size(uint64_t v) {
  if (ascii) fprintf(out, "%llu ", (unsigned long long)v);
  else put(&v, sizeof v, 1);
}
static void put_double(double v) {
  if (ascii) fprintf(out, "%.17g ", v);
  else put(&v, sizeof v, 1);
}
static void eol(void) {
  if (ascii) put_text("\n");
}
static void put_sizes(const uint64_t *v, size_t n) {
  if (!ascii) {
    put(v, sizeof *v, n);
    return;
  }
  for (size_t i = 0; i < n; i++) put_size(v[i]);
  eol();
}

static int64_t N;
static uint64_t node(int64_t i, int64_t j, int64_t k) { return (uint64_t)((k * (N + 1) + j) * (N + 1) + i + 1); }

/* The 6 Kuhn tetrahedra of a cube: paths 0 -> e_a -> e_a + e_b -> 7. */
static const int kuhn[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};

static void bbox(void) {
  for (int q = 0; q < 3; q++) put_double(0.0);
  for (int q = 0; q < 3; q++) put_double(1.0);
}

int main(int argc, char **argv) {
  if (argc == 4 && strcmp(argv[1], "--ascii") == 0) {
    ascii = 1;
    argv++, argc--;
  }
  if (argc != 3 || (N = atoll(argv[1])) < 1) {
    fprintf(stderr, "usage: gen-cube-msh [--ascii] N OUT.msh (6 N^3 tetrahedra)\n");
    return 2;
  }
  out = fopen(argv[2], "wb");
  if (!out) {
    perror(argv[2]);
    return 1;
  }
  static char buf[1 << 22];
  setvbuf(out, buf, _IOFBF, sizeof buf);
  const uint64_t n_nodes = (uint64_t)((N + 1) * (N + 1) * (N + 1));
  const uint64_t n_tets = (uint64_t)(6 * N * N * N), n_tris = (uint64_t)(12 * N * N);
  put_text(ascii ? "$MeshFormat\n4.1 0 8\n" : "$MeshFormat\n4.1 1 8\n");
  if (!ascii) put_int(1), put_text("\n");
  put_text("$EndMeshFormat\n$PhysicalNames\n2\n2 2 \"boundary\"\n3 1 \"domain\"\n$EndPhysicalNames\n");
  /* one surface (tag 1, physical 2) bounding one volume (tag 1, physical 1) */
  put_text("$Entities\n");
  put_size(0), put_size(0), put_size(1), put_size(1), eol();
  put_int(1), bbox(), put_size(1), put_int(2), put_size(0), eol();
  put_int(1), bbox(), put_size(1), put_int(1), put_size(1), put_int(1), eol();
  put_text(ascii ? "$EndEntities\n$Nodes\n" : "\n$EndEntities\n$Nodes\n");
  put_size(1), put_size(n_nodes), put_size(1), put_size(n_nodes), eol();
  put_int(3), put_int(1), put_int(0), put_size(n_nodes), eol();
  for (uint64_t t = 1; t <= n_nodes; t++) put_size(t), eol();
  for (int64_t k = 0; k <= N; k++)
    for (int64_t j = 0; j <= N; j++)
      for (int64_t i = 0; i <= N; i++) {
        put_double((double)i / (double)N);
        put_double((double)j / (double)N);
        put_double((double)k / (double)N);
        eol();
      }
  put_text(ascii ? "$EndNodes\n$Elements\n" : "\n$EndNodes\n$Elements\n");
  put_size(2), put_size(n_tris + n_tets), put_size(1), put_size(n_tris + n_tets), eol();
  /* boundary triangles: on each face the diagonal from its lowest to its highest corner */
  put_int(2), put_int(1), put_int(2), put_size(n_tris), eol();
  uint64_t tag = 1;
  for (int axis = 0; axis < 3; axis++)
    for (int side = 0; side < 2; side++)
      for (int64_t b = 0; b < N; b++)
        for (int64_t a = 0; a < N; a++) {
          uint64_t c[2][2];
          for (int db = 0; db < 2; db++)
            for (int da = 0; da < 2; da++) {
              int64_t p[3];
              p[axis] = side * N;
              p[(axis + 1) % 3] = a + da;
              p[(axis + 2) % 3] = b + db;
              c[db][da] = node(p[0], p[1], p[2]);
            }
          const uint64_t t1[4] = {tag++, c[0][0], c[0][1], c[1][1]}, t2[4] = {tag++, c[0][0], c[1][1], c[1][0]};
          put_sizes(t1, 4);
          put_sizes(t2, 4);
        }
  put_int(3), put_int(1), put_int(4), put_size(n_tets), eol();
  for (int64_t k = 0; k < N; k++)
    for (int64_t j = 0; j < N; j++)
      for (int64_t i = 0; i < N; i++)
        for (int t = 0; t < 6; t++) {
          int64_t p[3] = {i, j, k};
          uint64_t row[5] = {tag++, node(p[0], p[1], p[2])};
          for (int s = 0; s < 3; s++) {
            p[kuhn[t][s]]++;
            row[2 + s] = node(p[0], p[1], p[2]);
          }
          put_sizes(row, 5);
        }
  put_text(ascii ? "$EndElements\n" : "\n$EndElements\n");
  if (fclose(out) != 0) {
    perror(argv[2]);
    return 1;
  }
  return 0;
}
