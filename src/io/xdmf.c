/* XDMF beside the HDF5 output (feint/xdmf.h). */
#include "feint/xdmf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feint/error.h"
#include "feint/text_file.h"

/* XDMF's cells of orders 1 and 2 as lattice points (i, j, k) of the cell's
 * order, in VTK's node order (vtkCell::GetParametricCoords times the
 * order: t61 checks them against VTK's own), on feint's reference cells
 * (fe.h; the quadrilateral's and hexahedron's [-1,1] as 0..p). */
typedef struct {
  const char *type;
  int code, nodes;
  signed char ijk[27][3];
} native_cell;

static const native_cell triangle[2] = {
    {"Triangle", 0x4, 3, {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}},
    {"Triangle_6", 0x24, 6, {{0, 0, 0}, {2, 0, 0}, {0, 2, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}}}};
static const native_cell tetrahedron[2] = {
    {"Tetrahedron", 0x6, 4, {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}}},
    {"Tetrahedron_10", 0x26, 10,
     {{0, 0, 0}, {2, 0, 0}, {0, 2, 0}, {0, 0, 2}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {0, 1, 1}}}};
static const native_cell quadrilateral[2] = {
    {"Quadrilateral", 0x5, 4, {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}}},
    {"Quadrilateral_9", 0x23, 9,
     {{0, 0, 0}, {2, 0, 0}, {2, 2, 0}, {0, 2, 0}, {1, 0, 0}, {2, 1, 0}, {1, 2, 0}, {0, 1, 0}, {1, 1, 0}}}};
static const native_cell hexahedron[2] = {
    {"Hexahedron", 0x9, 8, {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}}},
    {"Hexahedron_27", 0x32, 27, {{0, 0, 0}, {2, 0, 0}, {2, 2, 0}, {0, 2, 0}, {0, 0, 2}, {2, 0, 2}, {2, 2, 2},
                                 {0, 2, 2}, {1, 0, 0}, {2, 1, 0}, {1, 2, 0}, {0, 1, 0}, {1, 0, 2}, {2, 1, 2},
                                 {1, 2, 2}, {0, 1, 2}, {0, 0, 1}, {2, 0, 1}, {2, 2, 1}, {0, 2, 1}, {0, 1, 1},
                                 {2, 1, 1}, {1, 0, 1}, {1, 2, 1}, {1, 1, 0}, {1, 1, 2}, {1, 1, 1}}}};
static const native_cell prism[2] = {
    {"Wedge", 0x8, 6, {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {0, 1, 1}}},
    {"Wedge_18", 0x29, 18, {{0, 0, 0}, {2, 0, 0}, {0, 2, 0}, {0, 0, 2}, {2, 0, 2}, {0, 2, 2}, {1, 0, 0}, {1, 1, 0},
                            {0, 1, 0}, {1, 0, 2}, {1, 1, 2}, {0, 1, 2}, {0, 0, 1}, {2, 0, 1}, {0, 2, 1}, {1, 0, 1},
                            {1, 1, 1}, {0, 1, 1}}}};

static const native_cell *native(feint_cell_type cell) {
  switch (cell) {
    case FEINT_CELL_TRIANGLE: return triangle;
    case FEINT_CELL_TETRAHEDRON: return tetrahedron;
    case FEINT_CELL_QUADRILATERAL: return quadrilateral;
    case FEINT_CELL_HEXAHEDRON: return hexahedron;
    case FEINT_CELL_PRISM: return prism;
    default: return NULL;
  }
}

/* at[i + (p+1) (j + (p+1) k)]: the local scalar dof at lattice point
 * (i, j, k), -1 off the cell. Quadrilaterals and hexahedra number their
 * nodes lexicographically (fe.h); the others keep their lattice indices in
 * every node family, so the equispaced element's nodes give them. */
static int lattice_dofs(feint_cell_type cell, int p, int **out) {
  const int n1 = p + 1, n = n1 * n1 * n1;
  int *at = NULL;
  FEINT_CALL(feint_malloc((size_t)n, sizeof *at, &at, "XDMF lattice"));
  for (int k = 0; k < n; k++) at[k] = -1;
  if (cell == FEINT_CELL_QUADRILATERAL || cell == FEINT_CELL_HEXAHEDRON) {
    const int nb = cell == FEINT_CELL_QUADRILATERAL ? n1 * n1 : n;
    for (int k = 0; k < nb; k++) at[k] = k;
    *out = at;
    return FEINT_OK;
  }
  feint_element *el = NULL;
  int status = feint_element_create_family(cell, p, FEINT_NODES_EQUISPACED, &el);
  for (int b = 0; !status && b < el->nb; b++) {
    int ijk[3] = {0, 0, 0};
    for (int d = 0; d < el->dim; d++) ijk[d] = (int)lround(el->nodes[b * el->dim + d] * p);
    at[ijk[0] + n1 * (ijk[1] + n1 * ijk[2])] = b;
  }
  feint_element_destroy(el);
  if (status) free(at);
  else *out = at;
  return status;
}

/* The simplices of the Kuhn triangulation of the lattice of order p on the
 * reference simplex of dimension dim (2, 3): in the coordinates
 * x1 = i + j + k >= x2 = j + k >= x3 = k the simplex is a union of the
 * unit cubes' Kuhn simplices (a corner, then one step along each axis in
 * some order); each is kept where all its corners lie in it, turned to the
 * reference cell's orientation. p^dim of them into ijk (p^dim x (dim+1) x 3). */
static int kuhn_simplices(int dim, int p, int (*ijk)[3]) {
  static const int perms3[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  static const int perms2[2][3] = {{0, 1, 2}, {1, 0, 2}};
  const int n_perm = dim == 3 ? 6 : 2, n_box = dim == 3 ? p * p * p : p * p;
  int n = 0;
  for (int box = 0; box < n_box; box++)
    for (int s = 0; s < n_perm; s++) {
      const int *perm = dim == 3 ? perms3[s] : perms2[s];
      int x[4][3] = {{box % p, (box / p) % p, dim == 3 ? box / (p * p) : 0}}, inside = 1;
      for (int v = 1; v <= dim; v++) {
        memcpy(x[v], x[v - 1], sizeof x[v]);
        x[v][perm[v - 1]]++;
      }
      for (int v = 0; v <= dim; v++) inside &= x[v][0] >= x[v][1] && x[v][1] >= x[v][2];
      if (!inside) continue;
      int (*t)[3] = ijk + n * (dim + 1);
      for (int v = 0; v <= dim; v++) { /* back to lattice indices: i = x1 - x2, j = x2 - x3, k = x3 */
        t[v][0] = x[v][0] - x[v][1];
        t[v][1] = x[v][1] - x[v][2];
        t[v][2] = x[v][2];
      }
      double e[3][3];
      for (int v = 0; v < dim; v++)
        for (int d = 0; d < 3; d++) e[v][d] = t[v + 1][d] - t[0][d];
      const double det = dim == 2 ? e[0][0] * e[1][1] - e[0][1] * e[1][0]
                                  : e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1]) -
                                        e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0]) +
                                        e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0]);
      if (det < 0) { /* the reference cell's turn */
        int swap[3];
        memcpy(swap, t[dim], sizeof swap);
        memcpy(t[dim], t[dim - 1], sizeof swap);
        memcpy(t[dim - 1], swap, sizeof swap);
      }
      n++;
    }
  return n;
}

/* The first-order pieces of a cell of order p as lattice points. */
static int pieces(feint_cell_type cell, int p, int (*ijk)[3]) {
  static const int box[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
  int n = 0;
  switch (cell) {
    case FEINT_CELL_TRIANGLE: return kuhn_simplices(2, p, ijk);
    case FEINT_CELL_TETRAHEDRON: return kuhn_simplices(3, p, ijk);
    case FEINT_CELL_QUADRILATERAL:
    case FEINT_CELL_HEXAHEDRON: {
      const int nv = cell == FEINT_CELL_QUADRILATERAL ? 4 : 8, nk = nv == 4 ? 1 : p;
      for (int k = 0; k < nk; k++)
        for (int j = 0; j < p; j++)
          for (int i = 0; i < p; i++, n++)
            for (int v = 0; v < nv; v++) {
              ijk[n * nv + v][0] = i + box[v][0];
              ijk[n * nv + v][1] = j + box[v][1];
              ijk[n * nv + v][2] = k + box[v][2];
            }
      return n;
    }
    case FEINT_CELL_PRISM: { /* the triangle's pieces times the segment's */
      const int nt = kuhn_simplices(2, p, ijk);
      int (*tri)[3] = malloc(sizeof *tri * (size_t)nt * 3);
      if (!tri) return -1;
      memcpy(tri, ijk, sizeof *tri * (size_t)nt * 3);
      for (int k = 0; k < p; k++)
        for (int t = 0; t < nt; t++, n++)
          for (int v = 0; v < 6; v++) {
            ijk[n * 6 + v][0] = tri[t * 3 + v % 3][0];
            ijk[n * 6 + v][1] = tri[t * 3 + v % 3][1];
            ijk[n * 6 + v][2] = k + v / 3;
          }
      free(tri);
      return n;
    }
    default: return -1;
  }
}

int feint_xdmf_layout_create(feint_cell_type cell, int order, int first_order, feint_xdmf_layout **out) {
  *out = NULL;
  const native_cell *types = native(cell);
  if (!types || order < 1)
    return feint_error_set(FEINT_ERR_INPUT, "XDMF output takes no %s", feint_cell_plural(cell));
  const int refine = order >= 3 || (order == 2 && first_order);
  const native_cell *t = &types[refine ? 0 : order - 1];
  const int dim = cell == FEINT_CELL_TRIANGLE || cell == FEINT_CELL_QUADRILATERAL ? 2 : 3;
  int n_pieces = 1;
  for (int d = 0; d < dim && refine; d++) n_pieces *= order;
  feint_xdmf_layout *l = NULL;
  int (*ijk)[3] = NULL, *at = NULL;
  int status = feint_calloc(1, sizeof *l, &l, "XDMF layout");
  if (!status) status = feint_malloc((size_t)n_pieces * t->nodes, sizeof *l->local, &l->local, "XDMF layout");
  if (!status) status = feint_malloc((size_t)n_pieces * t->nodes, sizeof *ijk, &ijk, "XDMF layout");
  if (!status) status = lattice_dofs(cell, order, &at);
  int got = 0;
  if (!status) {
    l->type = t->type;
    l->code = t->code;
    l->nodes = t->nodes;
    l->n_pieces = n_pieces;
    if (!refine)
      for (int j = 0; j < t->nodes; j++)
        for (int d = 0; d < 3; d++) ijk[j][d] = t->ijk[j][d];
    else if ((got = pieces(cell, order, ijk)) != n_pieces)
      status = got < 0 ? feint_error_set(FEINT_ERR_COMPUTE, "out of memory (XDMF layout)")
                     : feint_error_set(FEINT_ERR_COMPUTE, "XDMF layout of %s of order %d: %d pieces, not %d",
                                       feint_cell_plural(cell), order, got, n_pieces);
  }
  const int n1 = order + 1;
  for (int k = 0; !status && k < n_pieces * t->nodes; k++) {
    l->local[k] = at[ijk[k][0] + n1 * (ijk[k][1] + n1 * ijk[k][2])];
    if (l->local[k] < 0)
      status = feint_error_set(FEINT_ERR_COMPUTE, "XDMF layout of %s of order %d: a node off the lattice",
                               feint_cell_plural(cell), order);
  }
  free(ijk);
  free(at);
  if (status) feint_xdmf_layout_destroy(l);
  else *out = l;
  return status;
}

void feint_xdmf_layout_destroy(feint_xdmf_layout *layout) {
  if (!layout) return;
  free(layout->local);
  free(layout);
}

static void data_item(feint_text_file *f, const char *h5, const char *dataset, int64_t rows, int cols, int is_int) {
  if (cols > 1)
    feint_text_file_printf(f, "          <DataItem Dimensions=\"%lld %d\"", (long long)rows, cols);
  else
    feint_text_file_printf(f, "          <DataItem Dimensions=\"%lld\"", (long long)rows);
  feint_text_file_printf(f, " NumberType=\"%s\" Precision=\"8\" Format=\"HDF\">%s:%s</DataItem>\n",
                         is_int ? "Int" : "Float", h5, dataset);
}

static void grid(feint_text_file *f, const feint_xdmf_grid *g, int time) {
  feint_text_file_printf(f, "      <Grid Name=\"%s\" GridType=\"Uniform\">\n", g->name);
  if (time >= 0) feint_text_file_printf(f, "        <Time Value=\"%d\"/>\n", time);
  if (g->nodes > 0) {
    feint_text_file_printf(f,
                           "        <Topology TopologyType=\"%s\" NumberOfElements=\"%lld\" NodesPerElement=\"%d\">\n",
                           g->type, (long long)g->n_cells, g->nodes);
    data_item(f, g->h5_file, g->topology, g->n_cells, g->nodes, 1);
  } else {
    feint_text_file_printf(f, "        <Topology TopologyType=\"Mixed\" NumberOfElements=\"%lld\">\n",
                           (long long)g->n_cells);
    data_item(f, g->h5_file, g->topology, g->topology_length, 1, 1);
  }
  feint_text_file_printf(f, "        </Topology>\n        <Geometry GeometryType=\"XYZ\">\n");
  data_item(f, g->h5_file, g->geometry, g->n_points, 3, 0);
  feint_text_file_printf(f, "        </Geometry>\n");
  for (int k = 0; k < g->n_fields; k++) {
    const feint_xdmf_field *a = &g->fields[k];
    feint_text_file_printf(f, "        <Attribute Name=\"%s\" AttributeType=\"%s\" Center=\"%s\">\n", a->name,
                           a->components > 1 ? "Vector" : "Scalar", a->on_cells ? "Cell" : "Node");
    data_item(f, g->h5_file, a->dataset, a->on_cells ? g->n_cells : g->n_points, a->components, a->is_int);
    feint_text_file_printf(f, "        </Attribute>\n");
  }
  feint_text_file_printf(f, "      </Grid>\n");
}

int feint_xdmf_write(const char *path, int n_grids, const feint_xdmf_grid *grids, int temporal) {
  feint_text_file f;
  FEINT_CALL(feint_text_file_open(&f, "XDMF file", path));
  feint_text_file_printf(&f, "<?xml version=\"1.0\"?>\n<!-- feint: views into %s (feint(1), OUTPUT FILE) -->\n",
                         grids[0].h5_file);
  feint_text_file_printf(&f, "<Xdmf Version=\"3.0\">\n  <Domain>\n");
  if (temporal)
    feint_text_file_printf(&f, "    <Grid Name=\"sweep\" GridType=\"Collection\" CollectionType=\"Temporal\">\n");
  for (int g = 0; g < n_grids; g++) grid(&f, &grids[g], temporal ? g : -1);
  if (temporal) feint_text_file_printf(&f, "    </Grid>\n");
  feint_text_file_printf(&f, "  </Domain>\n</Xdmf>\n");
  return feint_text_file_commit(&f);
}
