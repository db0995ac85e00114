/* One rank's part of the mesh and the dof map as a message (dist.h).
 * Local numbers keep the global order (cells, nodes and dofs ascending),
 * so the part's cells meet their vertices and dofs in the same order and
 * orientation as in the whole mesh. */
#include <stdlib.h>
#include <string.h>

#include "feint/dist.h"
#include "feint/error.h"

static const char MAGIC[8] = "feintP1";

void feint_dist_part_release(feint_dist_part *p) {
  free(p->cells);
  free(p->scalar_dofs);
  memset(p, 0, sizeof *p);
}

/* A growing message (pack) or one being read (unpack, bounds-checked). */
typedef struct {
  char *data;
  size_t size, capacity;
  int failed;
} writer;

static void put(writer *w, const void *p, size_t n) {
  if (w->failed) return;
  if (w->size + n > w->capacity) {
    size_t cap = w->capacity ? w->capacity : 4096;
    while (cap < w->size + n) cap *= 2;
    char *d = realloc(w->data, cap);
    if (!d) {
      w->failed = 1;
      return;
    }
    w->data = d;
    w->capacity = cap;
  }
  memcpy(w->data + w->size, p, n);
  w->size += n;
}
static void put_i32(writer *w, int32_t v) { put(w, &v, sizeof v); }
static void put_i64(writer *w, int64_t v) { put(w, &v, sizeof v); }

typedef struct {
  const char *data;
  size_t size, at;
  int failed;
} reader;

static const void *take(reader *r, size_t n) {
  if (r->failed || n > r->size - r->at) {
    r->failed = 1;
    return NULL;
  }
  const void *p = r->data + r->at;
  r->at += n;
  return p;
}
static int32_t take_i32(reader *r) {
  int32_t v = 0;
  const void *p = take(r, sizeof v);
  if (p) memcpy(&v, p, sizeof v);
  return v;
}
static int64_t take_i64(reader *r) {
  int64_t v = 0;
  const void *p = take(r, sizeof v);
  if (p) memcpy(&v, p, sizeof v);
  return v;
}
/* n items of `size` bytes into a new array (count 0: a freeable empty one) */
static int take_array(reader *r, int64_t n, size_t size, void *out, const char *what) {
  *(void **)out = NULL;
  if (n < 0 || (size_t)n > (r->size - r->at) / size) {
    r->failed = 1;
    return FEINT_OK;
  }
  void *a = NULL;
  FEINT_CALL(feint_malloc((size_t)n ? (size_t)n : 1, size, &a, what));
  memcpy(a, take(r, (size_t)n * size), (size_t)n * size);
  *(void **)out = a;
  return FEINT_OK;
}

static int compare_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* The distinct entries of the rows row_ids of rows (x width, -1 = none)
 * in ascending order (*list, *n), and their local numbers in map (global
 * size, all -1 before). */
static int local_numbers(const int64_t *rows, const int64_t *row_ids, int64_t n_rows, int width, int64_t *map,
                         int64_t **list, int64_t *n, const char *what) {
  int64_t *touched = NULL;
  FEINT_CALL(feint_malloc((size_t)(n_rows * width) + 1, sizeof *touched, &touched, what));
  int64_t t = 0;
  for (int64_t i = 0; i < n_rows; i++)
    for (int j = 0; j < width; j++) {
      const int64_t g = rows[row_ids[i] * width + j];
      if (g >= 0 && map[g] == -1) {
        map[g] = -2;
        touched[t++] = g;
      }
    }
  qsort(touched, (size_t)t, sizeof *touched, compare_i64);
  for (int64_t i = 0; i < t; i++) map[touched[i]] = i;
  *list = touched;
  *n = t;
  return FEINT_OK;
}

int feint_dist_part_pack(const feint_space *s, const int *part, int rank, void **buf, size_t *bytes,
                         feint_dist_part *out) {
  const feint_mesh *m = s->mesh;
  *buf = NULL;
  *bytes = 0;
  memset(out, 0, sizeof *out);
  int64_t n_cells = 0;
  for (int64_t e = 0; e < m->n_cells; e++) n_cells += part[e] == rank;
  int64_t *cells = NULL, *node_map = NULL, *dof_map = NULL, *nodes = NULL, *dofs = NULL, n_nodes = 0, n_dofs = 0;
  int status = feint_malloc((size_t)n_cells + 1, sizeof *cells, &cells, "a part's cells");
  if (!status) status = feint_malloc((size_t)m->n_nodes + 1, sizeof *node_map, &node_map, "a part's nodes");
  if (!status) status = feint_malloc((size_t)s->n_scalar_dofs + 1, sizeof *dof_map, &dof_map, "a part's dofs");
  if (status) goto done;
  for (int64_t e = 0, k = 0; e < m->n_cells; e++)
    if (part[e] == rank) cells[k++] = e;
  for (int64_t i = 0; i < m->n_nodes; i++) node_map[i] = -1;
  for (int64_t i = 0; i < s->n_scalar_dofs; i++) dof_map[i] = -1;
  if ((status = local_numbers(m->cells, cells, n_cells, m->nv, node_map, &nodes, &n_nodes, "a part's nodes")) ||
      (status = local_numbers(s->scalar_cell_dofs, cells, n_cells, s->nb, dof_map, &dofs, &n_dofs, "a part's dofs")))
    goto done;

  /* the part's blocks are the shapes it has cells of; its rows as wide as the widest of them */
  int64_t in_block[FEINT_MESH_MAX_BLOCKS] = {0};
  int n_blocks = 0, nv = 0, nb = 0;
  for (int64_t i = 0; i < n_cells; i++)
    for (int b = 0; b < m->n_blocks; b++)
      in_block[b] += cells[i] >= m->blocks[b].first_cell && cells[i] < m->blocks[b].first_cell + m->blocks[b].n_cells;
  for (int b = 0; b < m->n_blocks; b++)
    if (in_block[b]) {
      n_blocks++;
      if (m->blocks[b].nv > nv) nv = m->blocks[b].nv;
      if (s->blocks[b].nb > nb) nb = s->blocks[b].nb;
    }
  writer w = {0};
  put(&w, MAGIC, sizeof MAGIC);
  const int32_t head[] = {m->dim, nv, n_blocks, m->nv_facet, m->geometry_order, s->order, s->components,
                          m->n_groups, nb, (int32_t)feint_space_node_family(s)};
  put(&w, head, sizeof head);
  put_i64(&w, n_nodes);
  put_i64(&w, n_cells);
  put_i64(&w, n_dofs);
  for (int b = 0; b < m->n_blocks; b++) {
    if (!in_block[b]) continue;
    put_i32(&w, (int32_t)m->blocks[b].cell_type);
    put_i32(&w, m->blocks[b].nv);
    put_i64(&w, in_block[b]);
  }
  for (int g = 0; g < m->n_groups; g++) {
    const feint_mesh_group *gr = &m->groups[g];
    const int32_t len = (int32_t)strlen(gr->name);
    put_i32(&w, gr->dim);
    put_i32(&w, gr->tag);
    put_i64(&w, gr->n_elements);
    put_i32(&w, len);
    put(&w, gr->name, (size_t)len);
  }
  const int32_t path_len = (int32_t)strlen(m->path);
  put_i32(&w, path_len);
  put(&w, m->path, (size_t)path_len);
  const double *X[3] = {m->x, m->y, m->z};
  for (int a = 0; a < 3; a++)
    for (int64_t i = 0; i < n_nodes; i++) put(&w, &X[a][nodes[i]], sizeof(double));
  for (int64_t i = 0; i < n_cells; i++)
    for (int v = 0; v < nv; v++) {
      const int64_t g = m->cells[cells[i] * m->nv + v];
      put_i64(&w, g < 0 ? -1 : node_map[g]);
    }
  for (int64_t i = 0; i < n_cells; i++) put_i32(&w, m->cell_group ? m->cell_group[cells[i]] : -1);
  for (int64_t i = 0; i < n_cells; i++)
    for (int j = 0; j < nb; j++) {
      const int64_t g = s->scalar_cell_dofs[cells[i] * s->nb + j];
      put_i64(&w, g < 0 ? -1 : dof_map[g]);
    }
  for (int64_t i = 0; i < n_dofs; i++) put(&w, &s->coordinates[dofs[i] * 3], 3 * sizeof(double));
  /* the part's place in the whole, for data given for the whole */
  put_i64(&w, m->n_cells);
  put_i64(&w, s->n_scalar_dofs);
  put(&w, cells, (size_t)n_cells * sizeof *cells);
  put(&w, dofs, (size_t)n_dofs * sizeof *dofs);
  if (w.failed) {
    free(w.data);
    status = feint_error_set(FEINT_ERR_COMPUTE, "out of memory for rank %d's part of the mesh", rank);
    goto done;
  }
  *buf = w.data;
  *bytes = w.size;
  out->n_cells = n_cells;
  out->cells = cells;
  out->n_scalar_dofs = n_dofs;
  out->scalar_dofs = dofs;
  cells = dofs = NULL;
done:
  free(cells);
  free(node_map);
  free(dof_map);
  free(nodes);
  free(dofs);
  return status;
}

int feint_dist_part_unpack(const void *buf, size_t bytes, feint_mesh **mesh_out, feint_space **space_out) {
  *mesh_out = NULL;
  *space_out = NULL;
  reader r = {buf, bytes, 0, 0};
  const char *magic = take(&r, sizeof MAGIC);
  if (!magic || memcmp(magic, MAGIC, sizeof MAGIC))
    return feint_error_set(FEINT_ERR_COMPUTE, "internal: a part's message from rank 0 is not one");
  int32_t head[10];
  for (int k = 0; k < 10; k++) head[k] = take_i32(&r);
  const int dim = head[0], nv = head[1], n_blocks = head[2], order = head[5], components = head[6];
  const int n_groups = head[7], nb = head[8];
  const feint_node_family family = (feint_node_family)head[9];
  if (!r.failed && n_blocks == 0) return FEINT_OK; /* a part without cells (more ranks than cells) */
  feint_mesh *m = NULL;
  int64_t *sdofs = NULL;
  double *coords = NULL;
  FEINT_CALL(feint_calloc(1, sizeof *m, &m, "a part's mesh"));
  m->dim = dim;
  m->nv = nv;
  m->n_blocks = n_blocks;
  m->nv_facet = head[3];
  m->geometry_order = head[4];
  m->n_nodes = take_i64(&r);
  m->n_cells = take_i64(&r);
  const int64_t n_dofs = take_i64(&r);
  int status = FEINT_OK;
  if (n_blocks < 1 || n_blocks > FEINT_MESH_MAX_BLOCKS || nv < 1 || nb < 1 || n_groups < 0) r.failed = 1;
  int64_t first = 0;
  for (int b = 0; b < n_blocks && !r.failed; b++) {
    m->blocks[b].cell_type = (feint_cell_type)take_i32(&r);
    m->blocks[b].nv = take_i32(&r);
    m->blocks[b].n_cells = take_i64(&r);
    m->blocks[b].first_cell = first;
    first += m->blocks[b].n_cells;
  }
  m->cell_type = m->blocks[0].cell_type;
  if (!r.failed)
    status = feint_calloc((size_t)n_groups + 1, sizeof *m->groups, &m->groups, "a part's physical groups");
  for (int g = 0; g < n_groups && !status && !r.failed; g++) {
    feint_mesh_group *gr = &m->groups[g];
    gr->dim = take_i32(&r);
    gr->tag = take_i32(&r);
    gr->n_elements = take_i64(&r);
    const int32_t len = take_i32(&r);
    const char *name = len >= 0 ? take(&r, (size_t)len) : NULL;
    if (!name) break;
    if (!(status = feint_malloc((size_t)len + 1, 1, &gr->name, "a group name"))) {
      memcpy(gr->name, name, (size_t)len);
      gr->name[len] = '\0';
      m->n_groups = g + 1;
    }
  }
  if (!status && !r.failed) {
    const int32_t len = take_i32(&r);
    const char *path = len >= 0 ? take(&r, (size_t)len) : NULL;
    if (path && !(status = feint_malloc((size_t)len + 1, 1, &m->path, "a mesh path"))) {
      memcpy(m->path, path, (size_t)len);
      m->path[len] = '\0';
    }
  }
  if (!status) status = take_array(&r, m->n_nodes, sizeof(double), &m->x, "a part's nodes");
  if (!status) status = take_array(&r, m->n_nodes, sizeof(double), &m->y, "a part's nodes");
  if (!status) status = take_array(&r, m->n_nodes, sizeof(double), &m->z, "a part's nodes");
  if (!status) status = take_array(&r, m->n_cells * nv, sizeof(int64_t), &m->cells, "a part's cells");
  if (!status) status = take_array(&r, m->n_cells, sizeof(int), &m->cell_group, "a part's cell groups");
  if (!status) status = take_array(&r, m->n_cells * nb, sizeof(int64_t), &sdofs, "a part's dof map");
  if (!status) status = take_array(&r, n_dofs * 3, sizeof(double), &coords, "a part's dof coordinates");
  const int64_t whole_cells = take_i64(&r), whole_dofs = take_i64(&r);
  int64_t *whole_cell = NULL, *whole_dof = NULL;
  if (!status) status = take_array(&r, m->n_cells, sizeof(int64_t), &whole_cell, "a part's cell numbers");
  if (!status) status = take_array(&r, n_dofs, sizeof(int64_t), &whole_dof, "a part's dof numbers");
  /* no facets: rank 0 integrates the boundary on the whole mesh */
  if (!status) status = feint_calloc((size_t)m->n_groups + 1, sizeof(int64_t), &m->facet_offsets, "facets");
  if (!status && (r.failed || r.at != r.size || first != m->n_cells || !m->path))
    status = feint_error_set(FEINT_ERR_COMPUTE, "internal: a part's message from rank 0 is cut short or malformed");
  if (status) {
    free(sdofs);
    free(coords);
    free(whole_cell);
    free(whole_dof);
    feint_mesh_destroy(m);
    return status;
  }
  status = feint_space_create_from_map(m, order, components, family, n_dofs, sdofs, coords, space_out);
  if (!status) {
    feint_space *s = *space_out;
    s->whole_cells = whole_cells;
    s->whole_scalar_dofs = whole_dofs;
    s->whole_cell = whole_cell;
    s->whole_scalar_dof = whole_dof;
  } else {
    free(whole_cell);
    free(whole_dof);
  }
  if (!status && (*space_out)->nb != nb) {
    status = feint_error_set(FEINT_ERR_COMPUTE, "internal: a part's dof map has rows of %d, its elements %d", nb,
                             (*space_out)->nb);
    feint_space_destroy(*space_out);
    *space_out = NULL;
  }
  if (status) {
    feint_mesh_destroy(m);
    return status;
  }
  *mesh_out = m;
  return FEINT_OK;
}
