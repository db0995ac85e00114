/* XDMF beside the HDF5 output (feint/xdmf.h). */
#include "feint/xdmf.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "feint/error.h"

/* XDMF's node orders (VTK's) from feint's: vertices, then the edges'
 * midpoints, feint's edges (0 1), (0 2), (1 2) on triangles and (0 1),
 * (0 2), (0 3), (1 2), (1 3), (2 3) on tetrahedra. */
static const int p1[4] = {0, 1, 2, 3};
static const int triangle6[6] = {0, 1, 2, 3, 5, 4};             /* (0 1) (1 2) (2 0) */
static const int tetrahedron10[10] = {0, 1, 2, 3, 4, 7, 5, 6, 8, 9}; /* (0 1) (1 2) (0 2) (0 3) (1 3) (2 3) */
/* feint's first-order quadrilaterals and hexahedra number their nodes
 * lexicographically (x fastest); XDMF's go round each face */
static const int quadrilateral[4] = {0, 1, 3, 2};
static const int hexahedron[8] = {0, 1, 3, 2, 4, 5, 7, 6};

int feint_xdmf_cell(feint_cell_type cell, int order, const char **type, const int **order_out, int *nodes) {
  const int tri = cell == FEINT_CELL_TRIANGLE, tet = cell == FEINT_CELL_TETRAHEDRON;
  if (order == 1 && (cell == FEINT_CELL_QUADRILATERAL || cell == FEINT_CELL_HEXAHEDRON)) {
    const int quad = cell == FEINT_CELL_QUADRILATERAL;
    *type = quad ? "Quadrilateral" : "Hexahedron";
    *order_out = quad ? quadrilateral : hexahedron;
    *nodes = quad ? 4 : 8;
    return 1;
  }
  if ((!tri && !tet) || order < 1 || order > 2) return 0;
  *type = order == 1 ? (tri ? "Triangle" : "Tetrahedron") : (tri ? "Triangle_6" : "Tetrahedron_10");
  *order_out = order == 1 ? p1 : tri ? triangle6 : tetrahedron10;
  *nodes = order == 1 ? (tri ? 3 : 4) : (tri ? 6 : 10);
  return 1;
}

static void data_item(FILE *f, const char *h5, const char *dataset, int64_t rows, int cols, int is_int) {
  if (cols > 1)
    fprintf(f, "        <DataItem Dimensions=\"%lld %d\"", (long long)rows, cols);
  else
    fprintf(f, "        <DataItem Dimensions=\"%lld\"", (long long)rows);
  fprintf(f, " NumberType=\"%s\" Precision=\"8\" Format=\"HDF\">%s:%s</DataItem>\n", is_int ? "Int" : "Float", h5,
          dataset);
}

int feint_xdmf_write(const char *path, const feint_xdmf_grid *g) {
  char tmp[4200];
  if (snprintf(tmp, sizeof tmp, "%s.tmp-%ld", path, (long)getpid()) >= (int)sizeof tmp)
    return feint_error_set(FEINT_ERR_INPUT, "cannot write '%s': the path is too long", path);
  FILE *f = fopen(tmp, "w");
  if (!f) return feint_error_set(FEINT_ERR_COMPUTE, "cannot write '%s': %s", path, strerror(errno));
  fprintf(f, "<?xml version=\"1.0\"?>\n<!-- feint: views into %s (feint(1), OUTPUT FILE) -->\n", g->h5_file);
  fprintf(f, "<Xdmf Version=\"3.0\">\n  <Domain>\n    <Grid Name=\"feint\" GridType=\"Uniform\">\n");
  fprintf(f, "      <Topology TopologyType=\"%s\" NumberOfElements=\"%lld\" NodesPerElement=\"%d\">\n", g->type,
          (long long)g->n_cells, g->nodes);
  data_item(f, g->h5_file, g->topology, g->n_cells, g->nodes, 1);
  fprintf(f, "      </Topology>\n      <Geometry GeometryType=\"XYZ\">\n");
  data_item(f, g->h5_file, g->geometry, g->n_points, 3, 0);
  fprintf(f, "      </Geometry>\n");
  for (int k = 0; k < g->n_fields; k++) {
    const feint_xdmf_field *a = &g->fields[k];
    fprintf(f, "      <Attribute Name=\"%s\" AttributeType=\"%s\" Center=\"Node\">\n", a->name,
            a->components > 1 ? "Vector" : "Scalar");
    data_item(f, g->h5_file, a->dataset, g->n_points, a->components, 0);
    fprintf(f, "      </Attribute>\n");
  }
  fprintf(f, "    </Grid>\n  </Domain>\n</Xdmf>\n");
  const int bad = ferror(f);
  if (fclose(f) || bad || rename(tmp, path)) {
    const int e = errno;
    remove(tmp);
    return feint_error_set(FEINT_ERR_COMPUTE, "cannot write '%s': %s", path, strerror(e));
  }
  return FEINT_OK;
}
