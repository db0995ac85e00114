/* gen-cube-msh [--ascii] [--warp] [--order 2] [--hex] N OUT.msh: the unit cube as
 * N^3 cubes of 6 Kuhn tetrahedra each (6 N^3 cells, (N+1)^3 nodes),
 * written as a Gmsh 4.1 binary mesh (ASCII with --ascii, as Gmsh saves by
 * default) with a physical volume "domain" and a physical surface
 * "boundary" (the 12 N^2 boundary triangles, diagonals matching the
 * tetrahedra's faces).
 *
 * --order 2: second-order (curved) cells, 10-node tetrahedra and 6-node
 * triangles (Gmsh types 11 and 9), their edge nodes on a grid of twice
 * the resolution ((2N+1)^3 nodes). --warp: every node moved by the smooth
 * map x + 0.04 sin(pi x) sin(pi y) sin(pi z) (and so y, z), which keeps the
 * cube's faces: with --order 2 the cells are truly curved, without it the
 * straight cells of the same vertices (the curved-against-straight cost).
 *
 * --hex: N^3 hexahedra instead (8 or 27 nodes, Gmsh types 5 and 12), the
 * boundary in 6 N^2 quadrilaterals (4 or 9 nodes, types 3 and 10).
 *
 * The end-to-end benchmark needs a >= 6M-cell mesh; Gmsh takes minutes and
 * gigabytes to mesh one, this takes a second. Not part of feint. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

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

static int64_t N, G; /* cubes a side; grid points a side, minus one (N, or 2 N for second order) */
static int order = 1, warp, hex;
/* The node at grid point (i, j, k) of the (G+1)^3 grid. */
static uint64_t grid_node(int64_t i, int64_t j, int64_t k) { return (uint64_t)((k * (G + 1) + j) * (G + 1) + i + 1); }
/* The node at cube corner (i, j, k); mid: the midpoint of corners a and b. */
static uint64_t node(int64_t i, int64_t j, int64_t k) { return grid_node(i * (G / N), j * (G / N), k * (G / N)); }
static uint64_t mid(const int64_t *a, const int64_t *b) { return grid_node(a[0] + b[0], a[1] + b[1], a[2] + b[2]); }

/* Gmsh's edges of the 10-node tetrahedron and the 6-node triangle, after their vertices. */
static const int tet_edges[6][2] = {{0, 1}, {1, 2}, {2, 0}, {3, 0}, {3, 2}, {3, 1}};
static const int tri_edges[3][2] = {{0, 1}, {1, 2}, {2, 0}};

static double warped(double x, double y, double z, int axis) {
  const double c[3] = {x, y, z}, pi = 3.14159265358979323846;
  return c[axis] + (warp ? 0.04 * sin(pi * x) * sin(pi * y) * sin(pi * z) : 0.0);
}

/* Gmsh's 27-node hexahedron and 9-node quadrilateral: each node's
 * reference coordinates as -1, 0, 1 (vertices, edges, faces, centre). */
static const int hex27[27][3] = {
    {-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1}, {-1, -1, 1}, {1, -1, 1}, {1, 1, 1},  {-1, 1, 1},  {0, -1, -1},
    {-1, 0, -1},  {-1, -1, 0}, {1, 0, -1}, {1, -1, 0},  {0, 1, -1},  {1, 1, 0},  {-1, 1, 0}, {0, -1, 1},  {-1, 0, 1},
    {1, 0, 1},    {0, 1, 1},   {0, 0, -1}, {0, -1, 0},  {-1, 0, 0},  {1, 0, 0},  {0, 1, 0},  {0, 0, 1},   {0, 0, 0}};
static const int quad9[9][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}, {0, -1}, {1, 0}, {0, 1}, {-1, 0}, {0, 0}};
/* The grid coordinate of reference coordinate r (-1, 0, 1) in cube i. */
static int64_t at(int64_t i, int r) { return i * order + (r + 1) * order / 2; }

/* The hexahedral cube: 6 N^2 boundary quadrilaterals, then N^3 hexahedra. */
static void hex_elements(void) {
  const int nq = order == 2 ? 9 : 4, nh = order == 2 ? 27 : 8;
  const uint64_t n_quads = (uint64_t)(6 * N * N), n_hexes = (uint64_t)(N * N * N);
  put_size(2), put_size(n_quads + n_hexes), put_size(1), put_size(n_quads + n_hexes), eol();
  put_int(2), put_int(1), put_int(order == 2 ? 10 : 3), put_size(n_quads), eol();
  uint64_t tag = 1;
  for (int axis = 0; axis < 3; axis++)
    for (int side = 0; side < 2; side++)
      for (int64_t b = 0; b < N; b++)
        for (int64_t a = 0; a < N; a++) {
          uint64_t row[10] = {tag++};
          for (int v = 0; v < nq; v++) {
            int64_t g[3];
            g[axis] = side * G;
            g[(axis + 1) % 3] = at(a, quad9[v][0]);
            g[(axis + 2) % 3] = at(b, quad9[v][1]);
            row[1 + v] = grid_node(g[0], g[1], g[2]);
          }
          put_sizes(row, (size_t)nq + 1);
        }
  put_int(3), put_int(1), put_int(order == 2 ? 12 : 5), put_size(n_hexes), eol();
  for (int64_t k = 0; k < N; k++)
    for (int64_t j = 0; j < N; j++)
      for (int64_t i = 0; i < N; i++) {
        uint64_t row[28] = {tag++};
        for (int v = 0; v < nh; v++) row[1 + v] = grid_node(at(i, hex27[v][0]), at(j, hex27[v][1]), at(k, hex27[v][2]));
        put_sizes(row, (size_t)nh + 1);
      }
}

/* The 6 Kuhn tetrahedra of a cube: paths 0 -> e_a -> e_a + e_b -> 7. */
static const int kuhn[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};

static void bbox(void) {
  for (int q = 0; q < 3; q++) put_double(0.0);
  for (int q = 0; q < 3; q++) put_double(1.0);
}

int main(int argc, char **argv) {
  for (;;) {
    if (argc >= 2 && strcmp(argv[1], "--ascii") == 0) ascii = 1;
    else if (argc >= 2 && strcmp(argv[1], "--warp") == 0) warp = 1;
    else if (argc >= 2 && strcmp(argv[1], "--hex") == 0) hex = 1;
    else if (argc >= 3 && strcmp(argv[1], "--order") == 0 && (order = atoi(argv[2]), 1)) argv++, argc--;
    else break;
    argv++, argc--;
  }
  if (argc != 3 || (N = atoll(argv[1])) < 1 || (order != 1 && order != 2)) {
    fprintf(stderr, "usage: gen-cube-msh [--ascii] [--warp] [--order 1|2] [--hex] N OUT.msh (6 N^3 tetrahedra, or "
                    "N^3 hexahedra)\n");
    return 2;
  }
  G = N * order;
  out = fopen(argv[2], "wb");
  if (!out) {
    perror(argv[2]);
    return 1;
  }
  static char buf[1 << 22];
  setvbuf(out, buf, _IOFBF, sizeof buf);
  const uint64_t n_nodes = (uint64_t)((G + 1) * (G + 1) * (G + 1));
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
  for (int64_t k = 0; k <= G; k++)
    for (int64_t j = 0; j <= G; j++)
      for (int64_t i = 0; i <= G; i++) {
        const double x = (double)i / (double)G, y = (double)j / (double)G, z = (double)k / (double)G;
        for (int axis = 0; axis < 3; axis++) put_double(warped(x, y, z, axis));
        eol();
      }
  put_text(ascii ? "$EndNodes\n$Elements\n" : "\n$EndNodes\n$Elements\n");
  if (hex) {
    hex_elements();
    put_text(ascii ? "$EndElements\n" : "\n$EndElements\n");
    if (fclose(out) != 0) {
      perror(argv[2]);
      return 1;
    }
    return 0;
  }
  put_size(2), put_size(n_tris + n_tets), put_size(1), put_size(n_tris + n_tets), eol();
  /* boundary triangles: on each face the diagonal from its lowest to its highest corner */
  put_int(2), put_int(1), put_int(order == 2 ? 9 : 2), put_size(n_tris), eol();
  uint64_t tag = 1;
  for (int axis = 0; axis < 3; axis++)
    for (int side = 0; side < 2; side++)
      for (int64_t b = 0; b < N; b++)
        for (int64_t a = 0; a < N; a++) {
          int64_t c[2][2][3]; /* the face's corners */
          for (int db = 0; db < 2; db++)
            for (int da = 0; da < 2; da++) {
              c[db][da][axis] = side * N;
              c[db][da][(axis + 1) % 3] = a + da;
              c[db][da][(axis + 2) % 3] = b + db;
            }
          const int64_t *tris[2][3] = {{c[0][0], c[0][1], c[1][1]}, {c[0][0], c[1][1], c[1][0]}};
          for (int t = 0; t < 2; t++) {
            uint64_t row[7] = {tag++};
            for (int v = 0; v < 3; v++) row[1 + v] = node(tris[t][v][0], tris[t][v][1], tris[t][v][2]);
            for (int e = 0; order == 2 && e < 3; e++) row[4 + e] = mid(tris[t][tri_edges[e][0]], tris[t][tri_edges[e][1]]);
            put_sizes(row, order == 2 ? 7 : 4);
          }
        }
  put_int(3), put_int(1), put_int(order == 2 ? 11 : 4), put_size(n_tets), eol();
  for (int64_t k = 0; k < N; k++)
    for (int64_t j = 0; j < N; j++)
      for (int64_t i = 0; i < N; i++)
        for (int t = 0; t < 6; t++) {
          int64_t v[4][3] = {{i, j, k}}; /* the path's corners */
          for (int s = 0; s < 3; s++) {
            memcpy(v[s + 1], v[s], sizeof v[s]);
            v[s + 1][kuhn[t][s]]++;
          }
          uint64_t row[11] = {tag++};
          for (int s = 0; s < 4; s++) row[1 + s] = node(v[s][0], v[s][1], v[s][2]);
          for (int e = 0; order == 2 && e < 6; e++) row[5 + e] = mid(v[tet_edges[e][0]], v[tet_edges[e][1]]);
          put_sizes(row, order == 2 ? 11 : 5);
        }
  put_text(ascii ? "$EndElements\n" : "\n$EndElements\n");
  if (fclose(out) != 0) {
    perror(argv[2]);
    return 1;
  }
  return 0;
}
