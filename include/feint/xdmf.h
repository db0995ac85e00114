/* XDMF beside the HDF5 output (output.xdmf): a small XML file that points
 * into the HDF5 file's datasets, so that ParaView, VisIt and meshio open
 * the mesh with the vector results as point fields and per-cell values as
 * cell fields.
 *
 * How a cell is drawn (feint_xdmf_layout): the points are the dofs
 * (/dofs/coordinates), and a cell of order 1 or 2 is one XDMF cell of the
 * matching type (Triangle(_6), Tetrahedron(_10), Quadrilateral(_9),
 * Hexahedron(_27), Wedge(_18)) in VTK's node order. XDMF has no Lagrange
 * cells above order 2 that its readers agree on, so a cell of order p >= 3
 * is cut into p^dim first-order pieces on its lattice of dofs (simplices by
 * the Kuhn (Freudenthal) triangulation of the lattice, each piece turned
 * the way its cell is; quadrilaterals, hexahedra and prisms by the
 * lattice's boxes): the field is drawn linear between neighbouring dofs,
 * the way ParaView draws any first-order mesh. Mixed meshes are drawn in
 * first-order pieces at order 2 too, because readers of XDMF's Mixed
 * topology (meshio's) take first-order cells only there. */
#ifndef FEINT_XDMF_H
#define FEINT_XDMF_H

#include <stdint.h>

#include "feint/fe.h"

/* How cells of one shape and order are drawn: n_pieces XDMF cells of
 * `type` (`code` in a Mixed topology) of `nodes` nodes each; piece s's node
 * j is the cell's local scalar dof local[s * nodes + j] (feint's order,
 * fe.h). */
typedef struct {
  const char *type;
  int code;
  int nodes;
  int n_pieces;
  int *local; /* n_pieces x nodes (owned) */
} feint_xdmf_layout;

/* The layout of cells of `cell` and `order` (1 .. the element's highest);
 * first_order: cut order 2 into first-order pieces too (mixed meshes). */
int feint_xdmf_layout_create(feint_cell_type cell, int order, int first_order, feint_xdmf_layout **out);
void feint_xdmf_layout_destroy(feint_xdmf_layout *layout);

typedef struct {
  const char *name;    /* the field's name in the viewer */
  const char *dataset; /* its dataset: one value (or components) per point, or per drawn cell */
  int components;      /* 1: a scalar, else a vector */
  int on_cells;        /* 1: a cell field */
  int is_int;          /* int64 values (else float64) */
} feint_xdmf_field;

typedef struct {
  const char *name;     /* the grid's name (a sweep's member) */
  const char *h5_file;  /* the HDF5 file as the XDMF file names it: by its base name beside it, else its path */
  const char *topology; /* dataset: n_cells x nodes indices into the geometry's rows; a Mixed topology
                           (type "Mixed"): topology_length values, each cell's code then its nodes */
  const char *geometry; /* dataset: n_points x 3 coordinates */
  const char *type;     /* feint_xdmf_layout's, or "Mixed" */
  int nodes;            /* 0 for Mixed */
  int64_t n_cells, n_points, topology_length;
  int n_fields;
  const feint_xdmf_field *fields;
} feint_xdmf_grid;

/* Write the XDMF file `path` with n_grids grids (one: a single run's
 * grid; several, temporal: a sweep's members as a time series whose times
 * are the member indices), atomically (a temporary name in the same
 * directory, then rename). */
int feint_xdmf_write(const char *path, int n_grids, const feint_xdmf_grid *grids, int temporal);

#endif
