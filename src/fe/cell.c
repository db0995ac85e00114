/* Reference cells: dimensions, vertices, edges and faces (see feint/fe.h). */
#include "feint/fe.h"

static const int tri_edges[3][2] = {{0, 1}, {0, 2}, {1, 2}};
static const int tet_edges[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
static const int tet_faces[4][3] = {{0, 1, 2}, {0, 1, 3}, {0, 2, 3}, {1, 2, 3}};

static const int seg_edges[1][2] = {{0, 1}};

int feint_cell_dim(feint_cell_type cell) {
  return cell == FEINT_CELL_TETRAHEDRON ? 3 : cell == FEINT_CELL_SEGMENT ? 1 : 2;
}

int feint_cell_num_vertices(feint_cell_type cell) {
  return cell == FEINT_CELL_TETRAHEDRON ? 4 : cell == FEINT_CELL_SEGMENT ? 2 : 3;
}

int feint_cell_num_edges(feint_cell_type cell) {
  return cell == FEINT_CELL_TETRAHEDRON ? 6 : cell == FEINT_CELL_SEGMENT ? 1 : 3;
}

void feint_cell_edge(feint_cell_type cell, int e, int edge[2]) {
  const int *v = cell == FEINT_CELL_TETRAHEDRON ? tet_edges[e]
                 : cell == FEINT_CELL_SEGMENT   ? seg_edges[e]
                                                : tri_edges[e];
  edge[0] = v[0];
  edge[1] = v[1];
}

int feint_cell_num_faces(feint_cell_type cell) { return cell == FEINT_CELL_TETRAHEDRON ? 4 : 0; }

void feint_cell_face(feint_cell_type cell, int f, int face[3]) {
  if (cell != FEINT_CELL_TETRAHEDRON) {
    face[0] = face[1] = face[2] = -1;
    return;
  }
  face[0] = tet_faces[f][0];
  face[1] = tet_faces[f][1];
  face[2] = tet_faces[f][2];
}

const char *feint_cell_name(feint_cell_type cell) {
  return cell == FEINT_CELL_TETRAHEDRON ? "tetrahedron" : cell == FEINT_CELL_SEGMENT ? "segment" : "triangle";
}

double feint_cell_reference_volume(feint_cell_type cell) {
  return cell == FEINT_CELL_TETRAHEDRON ? 1.0 / 6.0 : cell == FEINT_CELL_SEGMENT ? 1.0 : 0.5;
}
