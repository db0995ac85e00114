/* Function space dof map: conformity (every local node's physical point is
 * where its global dof sits, so neighbours agree on shared edges including
 * orientation), dof counts against a brute-force edge count, shared edges
 * mapping to the same dofs, the vector (interleaved) layout, distinct local
 * dofs, and a perturbed map that the checkers must reject. Triangles P1..P7
 * on cases/square.geo, tetrahedra P1..P2 on cases/cube.geo (facet dofs
 * P1..P7; t301 checks the tetrahedral orders 1..7 with face orientation);
 * feint_space_facets on the twisted hexahedra of
 * tests/data/twisted_hex_bc.geo (Q1..Q4, Q9, Q15) and the prisms of
 * cases/prismcube.geo (P1..P7: triangles and quadrilaterals): facet dofs
 * at the facet basis's nodes. Run from the repository root. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "feint/error.h"
#include "feint/fe.h"
#include "feint/mesh.h"
#include "feint/space.h"
#include "feint/tensor.h"

/* One (sorted vertex pair, cell, local edge) entry of the brute-force edge list. */
typedef struct {
  int64_t lo, hi, cell;
  int e;
} edge_entry;

static int compare_edge(const void *a, const void *b) {
  const edge_entry *x = a, *y = b;
  if (x->lo != y->lo) return (x->lo > y->lo) - (x->lo < y->lo);
  if (x->hi != y->hi) return (x->hi > y->hi) - (x->hi < y->hi);
  return (x->cell > y->cell) - (x->cell < y->cell);
}

static edge_entry *edge_list(const feint_mesh *m, int64_t *n_out) {
  const int ne = feint_cell_num_edges(m->cell_type);
  int64_t n = m->n_cells * ne;
  edge_entry *list = malloc((size_t)n * sizeof *list);
  for (int64_t c = 0; c < m->n_cells; c++)
    for (int e = 0; e < ne; e++) {
      int ab[2];
      feint_cell_edge(m->cell_type, e, ab);
      int64_t a = m->cells[c * m->nv + ab[0]], b = m->cells[c * m->nv + ab[1]];
      list[c * ne + e] = (edge_entry){a < b ? a : b, a < b ? b : a, c, e};
    }
  qsort(list, (size_t)n, sizeof *list, compare_edge);
  *n_out = n;
  return list;
}

/* (a) Conformity: number of (cell, local node) pairs whose affine image of
 * the reference node is not at coordinates[dof] (to 1e-12). */
static int64_t conformity_mismatches(const feint_space *s, const int64_t *scalar_map) {
  const feint_mesh *m = s->mesh;
  const int dim = m->dim;
  const double *X[3] = {m->x, m->y, m->z};
  int64_t bad = 0;
  for (int64_t c = 0; c < m->n_cells; c++) {
    const int64_t *cv = m->cells + c * m->nv;
    for (int i = 0; i < s->nb; i++) {
      const double *xi = s->element->nodes + i * dim;
      int64_t dof = scalar_map[c * s->nb + i];
      if (dof < 0 || dof >= s->n_scalar_dofs) {
        bad++;
        continue;
      }
      for (int a = 0; a < 3; a++) {
        double p = X[a][cv[0]];
        for (int d = 0; d < dim; d++) p += (X[a][cv[d + 1]] - X[a][cv[0]]) * xi[d];
        if (fabs(p - s->coordinates[dof * 3 + a]) > 1e-12) {
          bad++;
          break;
        }
      }
    }
  }
  return bad;
}

/* (c) Shared edges: for every pair of cells sharing an edge, the edge's dofs
 * read from the lower to the higher global vertex agree. Returns the number
 * of disagreeing pairs; *n_shared counts the pairs compared. */
static int64_t shared_edge_mismatches(const feint_space *s, const int64_t *scalar_map,
                                      const edge_entry *list, int64_t n, int64_t *n_shared) {
  const feint_mesh *m = s->mesh;
  const int pe = s->order - 1;
  int64_t bad = 0, pairs = 0;
  int64_t da[8], db[8];
  for (int64_t k = 0; k < n;) {
    int64_t end = k + 1;
    while (end < n && list[end].lo == list[k].lo && list[end].hi == list[k].hi) end++;
    for (int64_t u = k; u < end; u++)
      for (int64_t w = u + 1; w < end; w++) {
        const edge_entry *A = &list[u], *B = &list[w];
        int64_t dofs_per[2][8];
        for (int side = 0; side < 2; side++) {
          const edge_entry *E = side ? B : A;
          const int64_t *map = scalar_map + E->cell * s->nb;
          int ab[2];
          feint_cell_edge(m->cell_type, E->e, ab);
          int forward = m->cells[E->cell * m->nv + ab[0]] == E->lo;
          /* endpoint vertex dofs then interior dofs, all from lo to hi */
          dofs_per[side][0] = map[forward ? ab[0] : ab[1]];
          dofs_per[side][pe + 1] = map[forward ? ab[1] : ab[0]];
          for (int q = 0; q < pe; q++)
            dofs_per[side][1 + q] = map[m->nv + E->e * pe + (forward ? q : pe - 1 - q)];
        }
        memcpy(da, dofs_per[0], sizeof da);
        memcpy(db, dofs_per[1], sizeof db);
        pairs++;
        if (memcmp(da, db, (size_t)(pe + 2) * sizeof *da) != 0) bad++;
      }
    k = end;
  }
  *n_shared = pairs;
  return bad;
}

static int64_t count_vertices(const feint_mesh *m) {
  char *used = calloc((size_t)m->n_nodes, 1);
  for (int64_t k = 0; k < m->n_cells * m->nv; k++) used[m->cells[k]] = 1;
  int64_t n = 0;
  for (int64_t i = 0; i < m->n_nodes; i++) n += used[i];
  free(used);
  return n;
}

static void check_space(const feint_mesh *m, int order) {
  const int dim = m->dim, p = order;
  feint_space *s = NULL;
  CHECK_OK(feint_space_create(m, order, 1, &s));
  const char *name = feint_cell_name(m->cell_type);
  CHECK(s->order == p && s->components == 1 && s->nbc == s->nb, "%s P%d fields", name, p);
  CHECK(s->cell_dofs == s->scalar_cell_dofs, "%s P%d scalar map shared", name, p);
  CHECK(s->n_dofs == s->n_scalar_dofs, "%s P%d n_dofs", name, p);
  const int nb_want = dim == 2 ? (p + 1) * (p + 2) / 2 : (p + 1) * (p + 2) * (p + 3) / 6;
  CHECK(s->nb == nb_want, "%s P%d nb %d, want %d", name, p, s->nb, nb_want);

  /* (a) conformity */
  int64_t bad = conformity_mismatches(s, s->scalar_cell_dofs);
  CHECK(bad == 0, "%s P%d: %lld local nodes not at their dof's coordinates", name, p,
        (long long)bad);

  /* (b) counts, brute-force edges */
  int64_t n_list = 0;
  edge_entry *list = edge_list(m, &n_list);
  int64_t n_edges = 0;
  for (int64_t k = 0; k < n_list; k++)
    if (k == 0 || list[k].lo != list[k - 1].lo || list[k].hi != list[k - 1].hi) n_edges++;
  const int64_t n_vertices = count_vertices(m);
  const int64_t interior = dim == 2 ? (p - 1) * (p - 2) / 2 : (p - 1) * (p - 2) * (p - 3) / 6;
  const int64_t want = n_vertices + n_edges * (p - 1) + m->n_cells * interior;
  CHECK(s->n_scalar_dofs == want, "%s P%d: %lld scalar dofs, want %lld (V %lld E %lld C %lld)",
        name, p, (long long)s->n_scalar_dofs, (long long)want, (long long)n_vertices,
        (long long)n_edges, (long long)m->n_cells);
  if (dim == 2) /* Euler on a disc: V - E + F = 1 */
    CHECK(n_vertices - n_edges + m->n_cells == 1, "%s Euler characteristic", name);
  int64_t *uses = calloc((size_t)s->n_scalar_dofs, sizeof *uses);
  int64_t out_of_range = 0, unused = 0;
  for (int64_t k = 0; k < m->n_cells * s->nb; k++) {
    int64_t d = s->scalar_cell_dofs[k];
    if (d < 0 || d >= s->n_scalar_dofs) out_of_range++;
    else uses[d]++;
  }
  for (int64_t d = 0; d < s->n_scalar_dofs; d++) unused += uses[d] == 0;
  CHECK(out_of_range == 0, "%s P%d: %lld dofs out of range", name, p, (long long)out_of_range);
  CHECK(unused == 0, "%s P%d: %lld dofs unused", name, p, (long long)unused);
  /* interior dofs belong to one cell only; vertex dofs come first */
  int64_t multi_interior = 0;
  for (int64_t d = n_vertices + n_edges * (p - 1); d < s->n_scalar_dofs; d++)
    multi_interior += uses[d] != 1;
  CHECK(multi_interior == 0, "%s P%d: %lld interior dofs shared", name, p, (long long)multi_interior);
  int64_t vertex_block = 0;
  for (int64_t c = 0; c < m->n_cells; c++)
    for (int i = 0; i < m->nv; i++) vertex_block += s->scalar_cell_dofs[c * s->nb + i] >= n_vertices;
  CHECK(vertex_block == 0, "%s P%d: %lld vertex dofs outside the vertex block", name, p,
        (long long)vertex_block);
  free(uses);

  /* (c) shared edges */
  int64_t n_shared = 0;
  bad = shared_edge_mismatches(s, s->scalar_cell_dofs, list, n_list, &n_shared);
  CHECK(n_shared > 0, "%s P%d: no shared edges found", name, p);
  CHECK(bad == 0, "%s P%d: %lld of %lld shared edges disagree", name, p, (long long)bad,
        (long long)n_shared);

  /* edge blocks follow the sorted vertex pairs (space.h), interior nodes
   * from the lower to the higher vertex */
  if (p >= 2) {
    int64_t rank = -1, misplaced = 0;
    for (int64_t k = 0; k < n_list; k++) {
      if (k == 0 || list[k].lo != list[k - 1].lo || list[k].hi != list[k - 1].hi) rank++;
      int ab[2];
      feint_cell_edge(m->cell_type, list[k].e, ab);
      int forward = m->cells[list[k].cell * m->nv + ab[0]] == list[k].lo;
      for (int q = 0; q < p - 1; q++) {
        int64_t d = s->scalar_cell_dofs[list[k].cell * s->nb + m->nv + list[k].e * (p - 1) +
                                        (forward ? q : p - 2 - q)];
        misplaced += d != n_vertices + rank * (p - 1) + q;
      }
    }
    CHECK(misplaced == 0, "%s P%d: %lld edge dofs not in sorted vertex pair order", name, p,
          (long long)misplaced);
  }

  /* (e) distinct local dofs */
  int64_t dup = 0;
  for (int64_t c = 0; c < m->n_cells; c++) {
    const int64_t *d = s->scalar_cell_dofs + c * s->nb;
    for (int i = 0; i < s->nb; i++)
      for (int j = i + 1; j < s->nb; j++) dup += d[i] == d[j];
  }
  CHECK(dup == 0, "%s P%d: %lld repeated local dofs", name, p, (long long)dup);

  /* the checkers can fail: perturb a copy of the map */
  if (p >= 2) {
    int64_t *copy = malloc((size_t)(m->n_cells * s->nb) * sizeof *copy);
    memcpy(copy, s->scalar_cell_dofs, (size_t)(m->n_cells * s->nb) * sizeof *copy);
    /* pick a cell whose edge 0 is shared, swap two of its edge dofs: for
     * p >= 3 the first two nodes of edge 0 (a flipped orientation), for p = 2
     * the dofs of edges 0 and 1 */
    int64_t cell = -1;
    for (int64_t k = 0; k + 1 < n_list && cell < 0; k++)
      if (list[k].lo == list[k + 1].lo && list[k].hi == list[k + 1].hi && list[k].e == 0)
        cell = list[k].cell;
    CHECK(cell >= 0, "%s P%d: a cell with a shared edge 0", name, p);
    if (cell >= 0) {
      int64_t *d = copy + cell * s->nb, t = d[m->nv];
      d[m->nv] = d[m->nv + 1];
      d[m->nv + 1] = t;
      int64_t bad_a = conformity_mismatches(s, copy);
      CHECK(bad_a == 2, "%s P%d: perturbed map gives %lld conformity mismatches, want 2", name, p,
            (long long)bad_a);
      int64_t shared = 0, bad_c = shared_edge_mismatches(s, copy, list, n_list, &shared);
      CHECK(bad_c >= 1, "%s P%d: perturbed map passes the shared-edge check", name, p);
    }
    free(copy);
  }

  /* (d) vector spaces */
  for (int nc = 2; nc <= 3; nc++) {
    feint_space *v = NULL;
    CHECK_OK(feint_space_create(m, order, nc, &v));
    CHECK(v->components == nc && v->nb == s->nb && v->nbc == s->nb * nc, "%s P%d x%d sizes", name,
          p, nc);
    CHECK(v->n_scalar_dofs == s->n_scalar_dofs && v->n_dofs == s->n_scalar_dofs * nc,
          "%s P%d x%d dof counts", name, p, nc);
    int64_t wrong = 0;
    for (int64_t c = 0; c < m->n_cells; c++)
      for (int i = 0; i < v->nb; i++) {
        wrong += v->scalar_cell_dofs[c * v->nb + i] != s->scalar_cell_dofs[c * s->nb + i];
        for (int k = 0; k < nc; k++)
          wrong += v->cell_dofs[(c * v->nb + i) * nc + k] !=
                   v->scalar_cell_dofs[c * v->nb + i] * nc + k;
      }
    CHECK(wrong == 0, "%s P%d x%d: %lld interleaving errors", name, p, nc, (long long)wrong);
    CHECK(conformity_mismatches(v, v->scalar_cell_dofs) == 0, "%s P%d x%d conformity", name, p, nc);
    feint_space_destroy(v);
  }

  free(list);
  feint_space_destroy(s);
  printf("  %s P%d: %lld cells, %lld scalar dofs, %lld shared edge pairs\n", name, p,
         (long long)m->n_cells, (long long)want, (long long)n_shared);
}

/* feint_space_facet_dofs: for every facet of the "boundary" group, the
 * returned dofs sit at the facet element's nodes mapped onto the facet
 * (so vertex order and edge orientation match), and are dofs of a cell. */
static void check_facet_dofs(const feint_mesh *m, int p) {
  feint_space *s = NULL;
  feint_element *fe = NULL;
  CHECK_OK(feint_space_create(m, p, 1, &s));
  CHECK_OK(feint_element_create(m->dim == 3 ? FEINT_CELL_TRIANGLE : FEINT_CELL_SEGMENT, p, &fe));
  int g = feint_mesh_find_group(m, "boundary", m->dim - 1);
  CHECK(g >= 0, "boundary group");
  unsigned char *in_cell = calloc((size_t)s->n_scalar_dofs, 1);
  if (!in_cell) exit(2);
  for (int64_t k = 0; k < m->n_cells * s->nb; k++) in_cell[s->scalar_cell_dofs[k]] = 1;
  double worst = 0;
  int64_t bad = 0, n = 0;
  for (int64_t f = m->facet_offsets[g]; f < m->facet_offsets[g + 1]; f++, n++) {
    const int64_t *nodes = m->facets + f * m->nv_facet;
    int64_t dofs[FEINT_SPACE_MAX_FACET_DOFS];
    if (feint_space_facet_dofs(s, nodes, dofs) != FEINT_OK) {
      bad++;
      continue;
    }
    const double *X[3] = {m->x, m->y, m->z};
    for (int i = 0; i < fe->nb; i++) {
      const double *xi = fe->nodes + i * fe->dim;
      if (!in_cell[dofs[i]]) bad++;
      for (int a = 0; a < 3; a++) {
        double want = X[a][nodes[0]];
        for (int d = 0; d < fe->dim; d++) want += (X[a][nodes[d + 1]] - X[a][nodes[0]]) * xi[d];
        worst = fmax(worst, fabs(s->coordinates[3 * dofs[i] + a] - want));
      }
    }
  }
  CHECK(bad == 0 && n > 0, "%s P%d: %lld bad facets of %lld", feint_cell_name(m->cell_type), p, (long long)bad,
        (long long)n);
  CHECK(worst < 1e-14, "%s P%d: facet dof coordinates off by %.3g", feint_cell_name(m->cell_type), p, worst);
  /* a facet of nodes no region cell uses is refused */
  int64_t none[3] = {-1, -1, -1};
  CHECK(feint_space_facet_dofs(s, none, none) == -1, "foreign facet refused");
  printf("  %s P%d: %lld boundary facets, dofs at the facet nodes (error %.1e)\n", feint_cell_name(m->cell_type), p,
         (long long)n, worst);
  free(in_cell);
  feint_element_destroy(fe);
  feint_space_destroy(s);
}

/* feint_space_facets on hexahedra, prisms and 3D mixed meshes: for every facet of the
 * group, the dofs sit where the facet's basis puts its nodes (space.h: the
 * bilinear patch of the facet's vertices at (t_a, t_b) on quadrilaterals,
 * the affine triangle at the P_p nodes on triangles), in the facet's own
 * vertex order, and are dofs of a cell; the facet's dofs are distinct. */
static void check_cell_facets(const char *path, const char *group, int p) {
  feint_mesh *m = NULL;
  feint_space *s = NULL;
  feint_space_facets *sf = NULL;
  feint_element *tri = NULL;
  feint_mesh_options o = {0};
  CHECK_OK(feint_mesh_read(path, &o, &m));
  CHECK_OK(feint_space_create(m, p, 1, &s));
  CHECK_OK(feint_space_facets_create(s, &sf));
  int triangles = 0; /* some block has triangular faces; their nodes are of the space's family */
  for (int b = 0; b < m->n_blocks; b++)
    triangles |= m->blocks[b].cell_type == FEINT_CELL_PRISM || m->blocks[b].cell_type == FEINT_CELL_TETRAHEDRON;
  if (triangles) CHECK_OK(feint_element_create_family(FEINT_CELL_TRIANGLE, p, feint_space_node_family(s), &tri));
  double t[FEINT_TENSOR_MAX_POINTS];
  CHECK_OK(feint_space_edge_nodes(s, t));
  const int g = feint_mesh_find_group(m, group, 2), n = p + 1;
  CHECK(g >= 0, "group %s", group);
  unsigned char *in_cell = calloc((size_t)s->n_scalar_dofs, 1);
  if (!in_cell) exit(2);
  for (int64_t k = 0; k < m->n_cells * s->nb; k++) /* -1 past a narrower block's dofs */
    if (s->scalar_cell_dofs[k] >= 0) in_cell[s->scalar_cell_dofs[k]] = 1;
  double worst = 0;
  int64_t bad = 0, count[2] = {0, 0};
  for (int64_t f = m->facet_offsets[g]; f < m->facet_offsets[g + 1]; f++) {
    const int64_t *v = m->facets + f * m->nv_facet;
    const int nvf = feint_mesh_facet_nv(m, f), nb = feint_space_facet_nb(s, nvf);
    int64_t dofs[FEINT_SPACE_MAX_FACET_DOFS];
    if (feint_space_facets_dofs(sf, v, nvf, dofs) != FEINT_OK) {
      bad++;
      continue;
    }
    count[nvf == 4]++;
    const double *X[3] = {m->x, m->y, m->z};
    for (int i = 0; i < nb; i++) {
      /* the facet node's weights on the facet vertices */
      double w[4];
      if (nvf == 4) {
        const double a = t[i % n], b = t[i / n];
        w[0] = (1 - a) * (1 - b), w[1] = a * (1 - b), w[2] = a * b, w[3] = (1 - a) * b;
      } else {
        const double *xi = tri->nodes + 2 * i;
        w[0] = 1 - xi[0] - xi[1], w[1] = xi[0], w[2] = xi[1];
      }
      bad += !in_cell[dofs[i]];
      for (int j = 0; j < i; j++) bad += dofs[j] == dofs[i];
      for (int d = 0; d < 3; d++) {
        double want = 0;
        for (int k = 0; k < nvf; k++) want += w[k] * X[d][v[k]];
        worst = fmax(worst, fabs(s->coordinates[3 * dofs[i] + d] - want));
      }
    }
  }
  const int64_t none[4] = {-1, -1, -1, -1};
  int64_t dofs[FEINT_SPACE_MAX_FACET_DOFS];
  CHECK(feint_space_facets_dofs(sf, none, 4, dofs) == -1, "foreign facet refused");
  CHECK(bad == 0 && count[0] + count[1] > 0, "%s P%d: %lld bad facets or dofs", path, p, (long long)bad);
  CHECK(worst < 1e-13, "%s P%d: facet dof coordinates off by %.3g", path, p, worst);
  char shapes[128];
  printf("  %s P%d: %lld triangle + %lld quadrilateral facets of %s, dofs at the facet nodes (error %.1e)\n",
         feint_mesh_shapes(m, shapes, sizeof shapes), p, (long long)count[0], (long long)count[1], group, worst);
  free(in_cell);
  feint_element_destroy(tri);
  feint_space_facets_destroy(sf);
  feint_space_destroy(s);
  feint_mesh_destroy(m);
}

static int compare_point(const void *a, const void *b) {
  const double *p = a, *q = b;
  for (int k = 0; k < 3; k++)
    if (fabs(p[k] - q[k]) > 1e-10) return p[k] < q[k] ? -1 : 1;
  return 0;
}

static int compare_key(const void *a, const void *b) {
  const int64_t *p = a, *q = b;
  for (int k = 0; k < 4; k++)
    if (p[k] != q[k]) return p[k] < q[k] ? -1 : 1;
  return 0;
}

/* Distinct rows of n keys of 4 (sorted in place). */
static int64_t count_distinct(int64_t *keys, int64_t n) {
  qsort(keys, (size_t)n, 4 * sizeof *keys, compare_key);
  int64_t d = 0;
  for (int64_t i = 0; i < n; i++) d += i == 0 || compare_key(keys + 4 * i, keys + 4 * (i - 1));
  return d;
}

/* The scalar dofs a conforming order-p space must have on the mesh,
 * counted from the topology alone: vertices + (p-1) per edge + per
 * triangular face (p-1)(p-2)/2 + per quadrilateral face (p-1)^2 + the
 * cell interiors (2D cells: their faces). Entities are the distinct sorted
 * vertex tuples of the cells' edges and faces, so a numbering that fails
 * to share an interface gives more dofs. */
static int64_t expected_dofs(const feint_mesh *m, int p) {
  int64_t n = 0, n_keys = 0;
  for (int b = 0; b < m->n_blocks; b++) {
    const feint_cell_type ct = m->blocks[b].cell_type;
    n_keys += m->blocks[b].n_cells * (feint_cell_num_edges(ct) + feint_cell_num_faces(ct) +
                                      feint_cell_num_quad_faces(ct) + 1);
  }
  int64_t *edges = malloc(sizeof(int64_t) * 4 * (size_t)n_keys), *tris = malloc(sizeof(int64_t) * 4 * (size_t)n_keys),
          *quads = malloc(sizeof(int64_t) * 4 * (size_t)n_keys), *verts = malloc(sizeof(int64_t) * 4 * (size_t)n_keys);
  if (!edges || !tris || !quads || !verts) exit(2);
  int64_t ne = 0, nt = 0, nq = 0, nv = 0;
  for (int b = 0; b < m->n_blocks; b++) {
    const feint_cell_type ct = m->blocks[b].cell_type;
    const int tensor = ct == FEINT_CELL_QUADRILATERAL || ct == FEINT_CELL_HEXAHEDRON;
    const int64_t interior = m->dim == 2 ? (tensor ? (p - 1) * (p - 1) : (p - 1) * (p - 2) / 2)
                             : ct == FEINT_CELL_HEXAHEDRON ? (int64_t)(p - 1) * (p - 1) * (p - 1)
                             : ct == FEINT_CELL_PRISM      ? (int64_t)(p - 1) * (p - 1) * (p - 2) / 2
                                                           : (int64_t)(p - 1) * (p - 2) * (p - 3) / 6;
    for (int64_t c = m->blocks[b].first_cell; c < m->blocks[b].first_cell + m->blocks[b].n_cells; c++) {
      const int64_t *cv = m->cells + c * m->nv;
      n += interior;
      for (int v = 0; v < m->blocks[b].nv; v++) {
        int64_t *k = verts + 4 * nv++;
        k[0] = cv[v], k[1] = k[2] = k[3] = -1;
      }
      for (int e = 0; e < feint_cell_num_edges(ct); e++) {
        int ab[2];
        feint_cell_edge(ct, e, ab);
        int64_t *k = edges + 4 * ne++, x = cv[ab[0]], y = cv[ab[1]];
        k[0] = x < y ? x : y, k[1] = x < y ? y : x, k[2] = k[3] = -1;
      }
      for (int f = 0; f < feint_cell_num_faces(ct) + feint_cell_num_quad_faces(ct); f++) {
        const int quad = f >= feint_cell_num_faces(ct);
        int fv[4] = {0, 0, 0, -1};
        if (quad) feint_cell_quad_face(ct, f - feint_cell_num_faces(ct), fv);
        else feint_cell_face(ct, f, fv);
        int64_t *k = (quad ? quads + 4 * nq++ : tris + 4 * nt++), g[4];
        for (int a = 0; a < 4; a++) g[a] = a < 3 + quad ? cv[fv[a]] : INT64_MAX;
        for (int a = 0; a < 4; a++) /* sort */
          for (int z = a + 1; z < 4; z++)
            if (g[z] < g[a]) { int64_t t = g[a]; g[a] = g[z]; g[z] = t; }
        memcpy(k, g, sizeof g);
      }
    }
  }
  n += count_distinct(verts, nv) + (p - 1) * count_distinct(edges, ne) +
       (int64_t)(p - 1) * (p - 2) / 2 * count_distinct(tris, nt) + (int64_t)(p - 1) * (p - 1) * count_distinct(quads, nq);
  free(edges);
  free(tris);
  free(quads);
  free(verts);
  return n;
}

/* A mixed mesh (several blocks): every cell's first-order map puts each
 * local node at coordinates[dof]; no two dofs sit at one point (cells of
 * different shapes share their interface dofs, in every orientation);
 * the dof count is the one the topology asks for (expected_dofs); every
 * dof is used, some by two blocks; rows are padded with -1 past a block's
 * nb (vector map too); order max_order + 1 is refused. With
 * quadrilaterals or hexahedra every block has Lobatto nodes. */
static void check_mixed_space(const char *path, int order, int max_order) {
  feint_mesh *m = NULL;
  feint_mesh_options o = {0};
  CHECK_OK(feint_mesh_read(path, &o, &m));
  feint_space *s = NULL;
  const int nc = 2;
  CHECK_OK(feint_space_create(m, order, nc, &s));
  if (!s) return;
  CHECK(s->n_blocks == m->n_blocks && m->n_blocks >= 2 && !s->element, "%s: blocks", path);
  int lobatto = 0;
  for (int b = 0; b < m->n_blocks; b++)
    lobatto |= m->blocks[b].cell_type == FEINT_CELL_QUADRILATERAL || m->blocks[b].cell_type == FEINT_CELL_HEXAHEDRON;
  for (int b = 0; b < m->n_blocks; b++)
    CHECK(s->blocks[b].element->family == (lobatto ? FEINT_NODES_LOBATTO : FEINT_NODES_EQUISPACED),
          "%s P%d: block %d node family", path, order, b);
  const int64_t want = expected_dofs(m, order);
  CHECK(s->n_scalar_dofs == want, "%s P%d: %lld scalar dofs, the topology asks for %lld", path, order,
        (long long)s->n_scalar_dofs, (long long)want);
  const double *X[3] = {m->x, m->y, m->z};
  int64_t bad_point = 0, bad_pad = 0, bad_vec = 0, shared = 0;
  unsigned char *used = calloc((size_t)s->n_scalar_dofs, 1);
  for (int b = 0; b < m->n_blocks; b++) {
    const feint_mesh_block *B = &m->blocks[b];
    const feint_element *el = s->blocks[b].element;
    CHECK(el->cell == B->cell_type && s->blocks[b].nb == el->nb && s->blocks[b].nbc == el->nb * nc &&
          el->nb <= s->nb, "%s: block %d element", path, b);
    double N[512 * 8]; /* the order-7 hexahedron */
    feint_cell_vertex_shape(B->cell_type, el->nb, el->nodes, N, NULL);
    for (int64_t c = B->first_cell; c < B->first_cell + B->n_cells; c++) {
      const int64_t *cv = m->cells + c * m->nv, *d = s->scalar_cell_dofs + c * s->nb;
      for (int i = 0; i < s->nb; i++) {
        for (int k = 0; k < nc; k++) {
          const int64_t v = s->cell_dofs[(c * s->nb + i) * nc + k];
          bad_vec += i < el->nb ? v != d[i] * nc + k : v != -1;
        }
        if (i >= el->nb) {
          bad_pad += d[i] != -1;
          continue;
        }
        if (d[i] < 0 || d[i] >= s->n_scalar_dofs) {
          bad_point++;
          continue;
        }
        shared += used[d[i]] && !(used[d[i]] & (1 << b)) && b > 0;
        used[d[i]] |= (unsigned char)(1 << b);
        for (int a = 0; a < 3; a++) {
          double x = 0;
          for (int v = 0; v < B->nv; v++) x += N[i * B->nv + v] * X[a][cv[v]];
          if (fabs(x - s->coordinates[d[i] * 3 + a]) > 1e-12) {
            bad_point++;
            break;
          }
        }
      }
    }
  }
  int64_t unused = 0;
  for (int64_t i = 0; i < s->n_scalar_dofs; i++) unused += !used[i];
  double *pts = malloc(sizeof(double) * 3 * (size_t)s->n_scalar_dofs);
  memcpy(pts, s->coordinates, sizeof(double) * 3 * (size_t)s->n_scalar_dofs);
  qsort(pts, (size_t)s->n_scalar_dofs, 3 * sizeof(double), compare_point);
  int64_t repeated = 0;
  for (int64_t i = 1; i < s->n_scalar_dofs; i++) repeated += !compare_point(pts + 3 * (i - 1), pts + 3 * i);
  CHECK(bad_point == 0, "%s P%d: %lld local nodes off their dof's point", path, order, (long long)bad_point);
  CHECK(repeated == 0, "%s P%d: %lld dofs at an already numbered point (interface not shared)", path, order,
        (long long)repeated);
  CHECK(unused == 0 && shared > 0, "%s P%d: %lld unused dofs, %lld shared by two blocks", path, order,
        (long long)unused, (long long)shared);
  CHECK(bad_pad == 0 && bad_vec == 0, "%s P%d: padding %lld, vector map %lld wrong", path, order,
        (long long)bad_pad, (long long)bad_vec);
  printf("  %s P%d: %lld dofs (topology: %lld), %lld shared by two blocks\n", path, order,
         (long long)s->n_scalar_dofs, (long long)want, (long long)shared);
  free(pts);
  free(used);
  feint_space_destroy(s);
  CHECK(feint_space_create(m, max_order + 1, 1, &s) == FEINT_ERR_INPUT && !s, "%s: P%d rejected on a mixed mesh", path,
        max_order + 1);
  feint_mesh_destroy(m);
}

/* Two right prisms stacked on one triangle, built in code (no Gmsh): the
 * dof count (the shared triangle counted once) and conformity, P1..P7. The
 * prism's 9 edges once overflowed number_entities' 6-row table (ASan). */
static void check_prism_column(void) {
  feint_mesh m = {.dim = 3, .cell_type = FEINT_CELL_PRISM, .nv = 6, .n_nodes = 9, .n_cells = 2, .n_blocks = 1};
  m.blocks[0] = (feint_mesh_block){FEINT_CELL_PRISM, 6, 0, 2, 0, 0};
  double x[9], y[9], z[9];
  for (int v = 0; v < 9; v++) x[v] = v % 3 == 1, y[v] = v % 3 == 2, z[v] = v / 3;
  int64_t cells[12] = {0, 1, 2, 3, 4, 5, 3, 4, 5, 6, 7, 8};
  m.x = x, m.y = y, m.z = z, m.cells = cells;
  for (int p = 1; p <= 7; p++) {
    feint_space *s = NULL;
    CHECK_OK(feint_space_create(&m, p, 1, &s));
    const int64_t tri = (p + 1) * (p + 2) / 2, want = 2 * s->nb - tri;
    CHECK(s->nb == tri * (p + 1), "prism P%d: nb %d", p, s->nb);
    CHECK(s->n_dofs == want, "prism column P%d: %lld dofs, expected %lld", p, (long long)s->n_dofs, (long long)want);
    CHECK(conformity_mismatches(s, s->scalar_cell_dofs) == 0, "prism column P%d: dofs not at their nodes", p);
    feint_space_destroy(s);
  }
  printf("prism column P1..P7: dof counts and conformity\n");
}

int main(void) {
  check_prism_column();
  const int hex_orders[] = {1, 2, 3, 4, 9, 15};
  for (int k = 0; k < 6; k++) check_cell_facets("tests/data/twisted_hex_bc.geo", "sides", hex_orders[k]);
  for (int p = 1; p <= 7; p++) check_cell_facets("cases/prismcube.geo", "boundary", p);
  for (int p = 1; p <= 7; p++) check_cell_facets("tests/data/hex_prism_cube.geo", "boundary", p); /* Lobatto */
  for (int p = 1; p <= 7; p++) check_cell_facets("cases/mixedcube.geo", "boundary", p);
  feint_mesh *tri = NULL, *tet = NULL;
  feint_mesh_options o2 = {.size = 0.2}, o3 = {.size = 0.2};
  CHECK_OK(feint_mesh_read("cases/square.geo", &o2, &tri));
  CHECK_OK(feint_mesh_read("cases/cube.geo", &o3, &tet));
  CHECK(tri->cell_type == FEINT_CELL_TRIANGLE && tet->cell_type == FEINT_CELL_TETRAHEDRON,
        "cell types");
  for (int p = 1; p <= 7; p++) check_space(tri, p);
  for (int p = 1; p <= 2; p++) check_space(tet, p);
  for (int p = 1; p <= 7; p++) check_facet_dofs(tri, p);
  for (int p = 1; p <= 7; p++) check_facet_dofs(tet, p);

  /* unsupported orders and components are input errors */
  feint_space *s = NULL;
  CHECK(feint_space_create(tri, 8, 1, &s) == FEINT_ERR_INPUT && !s, "triangle P8 rejected");
  CHECK(feint_space_create(tri, 0, 1, &s) == FEINT_ERR_INPUT && !s, "P0 rejected");
  CHECK(feint_space_create(tet, 8, 1, &s) == FEINT_ERR_INPUT && !s, "tet P8 rejected");
  CHECK(feint_space_create(tri, 1, 4, &s) == FEINT_ERR_INPUT && !s, "4 components rejected");
  feint_mesh_destroy(tri);
  feint_mesh_destroy(tet);
  /* every mix at orders 1..7: equispaced tetrahedra + prisms, Lobatto
   * nodes with quadrilaterals or hexahedra (three shapes in one region too) */
  for (int p = 1; p <= 7; p++) {
    check_mixed_space("tests/data/mixed_square.geo", p, 7);
    check_mixed_space("tests/data/hex_prism_cube.geo", p, 7);
    check_mixed_space("tests/data/tet_prism_hex_cube.geo", p, 7);
    check_mixed_space("cases/mixedcube.geo", p, 7);
  }
  return check_report("t300-space");
}
