/* XDMF beside the HDF5 output (output.xdmf): a small XML file that points
 * into the HDF5 file's datasets, so that ParaView, VisIt and meshio open
 * the mesh with the vector results as point fields. Nothing is copied:
 * the connectivity in XDMF's node order and the vector fields' (points x
 * components) shape are virtual datasets of the file (feint_output_view).
 * Triangles and tetrahedra of orders 1 and 2, quadrilaterals and
 * hexahedra of order 1, one cell shape a mesh. */
#ifndef FEINT_XDMF_H
#define FEINT_XDMF_H

#include <stdint.h>

#include "feint/mesh.h"

/* XDMF's topology type for cells of `cell` and `order` and, in *nodes,
 * its nodes a cell; *order_out[j] is the local dof (feint's order, fe.h)
 * at XDMF's node j. 0 where XDMF output does not take the cell yet. */
int feint_xdmf_cell(feint_cell_type cell, int order, const char **type, const int **order_out, int *nodes);

typedef struct {
  const char *name;    /* the field's name in the viewer */
  const char *dataset; /* its dataset: n_points values, or n_points x components */
  int components;      /* 1: a scalar, else a vector */
} feint_xdmf_field;

typedef struct {
  const char *h5_file;  /* the HDF5 file as the XDMF file names it: beside it, by its base name */
  const char *topology; /* dataset: n_cells x nodes indices into the geometry's rows */
  const char *geometry; /* dataset: n_points x 3 coordinates */
  const char *type;     /* feint_xdmf_cell's */
  int nodes;
  int64_t n_cells, n_points;
  int n_fields;
  const feint_xdmf_field *fields;
} feint_xdmf_grid;

/* Write the XDMF file `path` for grid g, atomically (a temporary name in
 * the same directory, then rename). */
int feint_xdmf_write(const char *path, const feint_xdmf_grid *g);

#endif
