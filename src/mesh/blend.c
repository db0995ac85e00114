/* Face nodes of third-order simplices placed from their edges
 * (feint_mesh_blend_curved_nodes, mesh.h: mesh.curved_nodes: blend).
 *
 * Gmsh puts the node inside a 10-node triangle, and the face nodes of a
 * 20-node tetrahedron, where the straight face would have them, while the
 * edge nodes of a boundary face follow the curve. The map's cubic part is
 * then O(h^2) in reference coordinates where the isoparametric estimates
 * need O(h^3), and P3 loses an order (L2 rate 3.1-3.2 on Gmsh's disc, not
 * 4). The face node goes instead where the quadratic through the face's
 * vertices and edge nodes puts the face's centroid: 1/4 of the six edge
 * nodes minus 1/6 of the three vertices (exact for any quadratic map, so a
 * straight face's node stays at its centroid, and a face shared by two
 * cells gets one position, to rounding, from the nodes they share). */
#include "feint/fe.h"
#include "feint/mesh.h"

enum { FACE_VERTICES = 3, FACE_EDGE_NODES = 6, MAX_FACE_NODES = 4 };

/* A face node k of a third-order simplex and the nodes that place it. */
typedef struct {
  int node;
  int vertex[FACE_VERTICES];
  int edge[FACE_EDGE_NODES];
} face_node;

/* The nodes of a complete third-order simplex of n nodes by their
 * barycentric coordinates (which are nonzero: the node's support). */
static unsigned support(feint_cell_type cell, int n, int k) {
  double xi[3] = {0, 0, 0}, l0 = 1;
  const int dim = feint_cell_dim(cell);
  feint_cell_curved_node(cell, n, k, xi);
  unsigned s = 0;
  for (int d = 0; d < dim; d++) {
    l0 -= xi[d];
    if (xi[d] > 1e-12) s |= 1u << (d + 1);
  }
  return l0 > 1e-12 ? s | 1u : s;
}

static int popcount(unsigned s) {
  int c = 0;
  for (; s; s &= s - 1) c++;
  return c;
}

/* The face nodes of the block's cells (a node on three vertices' face),
 * with their faces' vertices and edge nodes; 0 when there are none. */
static int face_nodes(feint_cell_type cell, int n, face_node *out) {
  if (!feint_cell_is_simplex(cell) || feint_cell_curved_order(cell, n) != 3) return 0;
  const int nv = feint_cell_num_vertices(cell);
  int count = 0;
  for (int k = nv; k < n; k++) {
    const unsigned face = support(cell, n, k);
    if (popcount(face) != 3) continue;
    face_node *f = &out[count++];
    int nvx = 0, ne = 0;
    f->node = k;
    for (int j = 0; j < n; j++) {
      const unsigned s = support(cell, n, j);
      if ((s & face) != s) continue;
      if (popcount(s) == 1) f->vertex[nvx++] = j;
      else if (popcount(s) == 2) f->edge[ne++] = j;
    }
  }
  return count;
}

void feint_mesh_blend_curved_nodes(feint_mesh *m) {
  if (!m->n_geometry_nodes) return;
  const int width = m->n_geometry_nodes;
  for (int b = 0; b < m->n_blocks; b++) {
    face_node faces[MAX_FACE_NODES];
    const int nf = face_nodes(m->blocks[b].cell_type, m->blocks[b].n_geometry_nodes, faces);
    for (int64_t c = m->blocks[b].first_cell; nf && c < m->blocks[b].first_cell + m->blocks[b].n_cells; c++) {
      double *g = m->geometry_nodes + (size_t)c * (size_t)width * 3;
      for (int f = 0; f < nf; f++)
        for (int a = 0; a < 3; a++) {
          double edges = 0, vertices = 0;
          for (int e = 0; e < FACE_EDGE_NODES; e++) edges += g[3 * faces[f].edge[e] + a];
          for (int v = 0; v < FACE_VERTICES; v++) vertices += g[3 * faces[f].vertex[v] + a];
          g[3 * faces[f].node + a] = edges / 4 - vertices / 6;
        }
    }
  }
}
