/* output.xdmf: the views a run's XDMF file reads and the file itself
 * (feint/xdmf.h says how cells are drawn). Nothing the HDF5 file holds is
 * copied: a first- or second-order cell's connectivity and the vector
 * fields are views of /dofs/cell_dofs and the results. What the file does
 * not hold is written under xdmf/: cut cells' and mixed meshes'
 * connectivity (pieces, and XDMF's Mixed codes, which no view can make),
 * each drawn cell's physical group and per-cell coefficients. A sweep's
 * members are one time series (the time is the member index). Where rank
 * 0 holds its share of the mesh only (mpirun, run_dist_share_only), the
 * drawn cells are the whole's, one block of one-piece cells (P1 on straight
 * triangles or tetrahedra), and the ranks write the per-cell datasets
 * together, each its share's rows (run_dist_write_cell_fields). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feint/bp.h"
#include "feint/error.h"
#include "feint/form.h"
#include "feint/parallel.h"
#include "feint/xdmf.h"
#include "run.h"

enum { MAX_FIELDS = RUN_XDMF_MAX_FIELDS };

/* One grid of the XDMF file, kept until the file is written. */
struct run_xdmf_grid {
  char name[32], h5_path[1200], topology[320], geometry[320], type[32];
  int nodes, n_fields;
  int64_t n_cells, n_points, topology_length;
  char field_name[MAX_FIELDS][64], dataset[MAX_FIELDS][320];
  feint_xdmf_field fields[MAX_FIELDS];
};

/* What is drawn: the mesh's cells with a dof map (a space's, or an
 * operator's): local scalar dof i of cell c is the point
 * dofs[c * stride + i * nc] (int64 or int32 maps), of n_points; the map
 * is the file's /dofs/cell_dofs, which views read when it is int64. */
typedef struct {
  const feint_mesh *mesh;
  int order, stride, nc;
  int64_t n_points;
  const int64_t *dofs64;
  const int32_t *dofs32;
} drawn_cells;

/* The per-cell datasets left to the ranks (rank 0 on its share): their
 * names and what they hold (-1: the cells' groups' tags; else the form's
 * coefficient aux[k]). */
typedef struct {
  int n;
  char name[MAX_FIELDS][320];
  int aux[MAX_FIELDS];
} share_cell_sets;

/* A block's drawn cells: the whole's where rank 0 holds its share only. */
static int64_t drawn_block_cells(const run_state *r, const feint_mesh *m, int b) {
  return run_dist_share_only(r) ? r->whole.n_cells : m->blocks[b].n_cells;
}

/* Reserve a per-cell dataset of the whole's cells, for the ranks to fill. */
static int leave_to_ranks(run_state *r, share_cell_sets *later, const char *name, int aux) {
  if (later->n >= MAX_FIELDS) return feint_error_set(FEINT_ERR_COMPUTE, "internal: too many XDMF cell fields");
  const int64_t n = r->whole.n_cells;
  FEINT_CALL(aux < 0 ? feint_output_reserve_int64(r->out, name, 1, &n) : feint_output_reserve_doubles(r->out, name, 1, &n));
  snprintf(later->name[later->n], sizeof later->name[0], "%s", name);
  later->aux[later->n++] = aux;
  return FEINT_OK;
}

static int64_t drawn_dof(const drawn_cells *d, int64_t c, int i) {
  const int64_t k = c * d->stride + (int64_t)i * d->nc;
  return d->dofs64 ? d->dofs64[k] : d->dofs32[k];
}

/* The layouts of the mesh's blocks (mixed meshes: first-order pieces). */
static int layouts_create(const drawn_cells *d, feint_xdmf_layout *l[FEINT_MESH_MAX_BLOCKS]) {
  const feint_mesh *m = d->mesh;
  for (int b = 0; b < m->n_blocks; b++) {
    int status = feint_xdmf_layout_create(m->blocks[b].cell_type, d->order, feint_mesh_is_mixed(m), &l[b]);
    if (status) {
      for (int a = 0; a < b; a++) feint_xdmf_layout_destroy(l[a]);
      return status;
    }
  }
  return FEINT_OK;
}

static void layouts_destroy(const feint_mesh *m, feint_xdmf_layout *l[FEINT_MESH_MAX_BLOCKS]) {
  for (int b = 0; b < m->n_blocks; b++) feint_xdmf_layout_destroy(l[b]);
}

static drawn_cells space_cells(const feint_space *s) {
  return (drawn_cells){s->mesh, s->order, s->nbc, s->components, s->n_dofs, s->cell_dofs, NULL};
}

int run_xdmf_check(const run_state *r) {
  feint_xdmf_layout *l[FEINT_MESH_MAX_BLOCKS];
  const drawn_cells d = space_cells(r->space);
  const int status = layouts_create(&d, l);
  if (status)
    return feint_error_set(status, "%s: output.xdmf: %s", r->c->path, feint_error_message());
  layouts_destroy(r->mesh, l);
  return FEINT_OK;
}

/* The connectivity the XDMF file draws, made on every core: (cells x
 * pieces) x nodes on one shape, XDMF's Mixed list (code, nodes) on several. */
typedef struct {
  const drawn_cells *d;
  feint_xdmf_layout *const *l;
  int64_t *out;
  int64_t first_row[FEINT_MESH_MAX_BLOCKS]; /* where each block's cells begin in out */
  int mixed;
} connectivity_job;

static void connectivity_range(int64_t a, int64_t b, void *arg) {
  const connectivity_job *j = arg;
  const feint_mesh *m = j->d->mesh;
  for (int blk = 0; blk < m->n_blocks; blk++) {
    const feint_mesh_block *B = &m->blocks[blk];
    const feint_xdmf_layout *L = j->l[blk];
    const int64_t lo = a > B->first_cell ? a : B->first_cell;
    const int64_t hi = b < B->first_cell + B->n_cells ? b : B->first_cell + B->n_cells;
    const int64_t width = (int64_t)L->n_pieces * (L->nodes + j->mixed);
    for (int64_t c = lo; c < hi; c++) {
      int64_t *o = j->out + j->first_row[blk] + (c - B->first_cell) * width;
      for (int p = 0; p < L->n_pieces; p++) {
        if (j->mixed) *o++ = L->code;
        for (int n = 0; n < L->nodes; n++) *o++ = drawn_dof(j->d, c, L->local[p * L->nodes + n]);
      }
    }
  }
}

/* xdmf/topology: a view of /dofs/cell_dofs where a cell is one XDMF cell
 * (an int64 map), else written. */
static int write_topology(run_state *r, const drawn_cells *d, feint_xdmf_layout *const *l, struct run_xdmf_grid *g) {
  const feint_mesh *m = d->mesh;
  const int mixed = feint_mesh_is_mixed(m);
  char name[320];
  run_member_path(r, "xdmf/topology", name, sizeof name);
  if (!mixed && l[0]->n_pieces == 1 && d->dofs64) {
    feint_output_slab to[27], from[27];
    const char *src[27];
    char cd[320];
    run_member_path(r, "dofs/cell_dofs", cd, sizeof cd);
    const int64_t n_cells = drawn_block_cells(r, m, 0);
    for (int j = 0; j < l[0]->nodes; j++) {
      to[j] = (feint_output_slab){2, {0, j}, {1, 1}, {n_cells, 1}};
      from[j] = (feint_output_slab){2, {0, (int64_t)l[0]->local[j] * d->nc}, {1, 1}, {n_cells, 1}};
      src[j] = cd;
    }
    const int64_t dims[2] = {n_cells, l[0]->nodes};
    return feint_output_view(r->out, name, 1, 2, dims, l[0]->nodes, to, src, from);
  }
  if (run_dist_share_only(r)) /* (its one-piece cells are always a view) */
    return feint_error_set(FEINT_ERR_COMPUTE, "internal: an XDMF connectivity written from a share of the mesh");
  connectivity_job job = {d, l, NULL, {0}, mixed};
  int64_t n = 0;
  for (int b = 0; b < m->n_blocks; b++) {
    job.first_row[b] = n;
    n += m->blocks[b].n_cells * l[b]->n_pieces * (l[b]->nodes + mixed);
  }
  FEINT_CALL(feint_malloc_large((size_t)n, sizeof *job.out, &job.out, "XDMF connectivity"));
  feint_parallel_for(m->n_cells, 1 << 14, connectivity_range, &job);
  const int64_t dims[2] = {mixed ? n : g->n_cells, mixed ? 1 : l[0]->nodes};
  const int status = feint_output_int64(r->out, name, mixed ? 1 : 2, dims, job.out);
  free(job.out);
  return status;
}

/* A value per drawn cell: cell c's value at each of its pieces. */
static void per_piece(const feint_mesh *m, feint_xdmf_layout *const *l, const double *cell_value, const int64_t *cell_int,
                      double *out, int64_t *out_int) {
  int64_t k = 0;
  for (int b = 0; b < m->n_blocks; b++)
    for (int64_t c = m->blocks[b].first_cell; c < m->blocks[b].first_cell + m->blocks[b].n_cells; c++)
      for (int p = 0; p < l[b]->n_pieces; p++, k++) {
        if (out) out[k] = cell_value[c];
        if (out_int) out_int[k] = cell_int[c];
      }
}

static void add_field(run_state *r, struct run_xdmf_grid *g, const char *name, const char *dataset, int components,
                      int on_cells, int is_int) {
  const int k = g->n_fields++;
  snprintf(g->field_name[k], sizeof g->field_name[k], "%s", name);
  snprintf(g->dataset[k], sizeof g->dataset[k], "/%s%s", r->prefix, dataset);
  g->fields[k] = (feint_xdmf_field){NULL, NULL, components, on_cells, is_int}; /* names: run_xdmf_file */
}

static int has_cell_groups(const feint_mesh *m) {
  for (int k = 0; k < m->n_groups; k++)
    if (m->groups[k].dim == m->dim) return 1;
  return 0;
}

/* Cell field `group`: each drawn cell's physical group's Gmsh tag (-1:
 * none); linked with the drawn mesh when that is an earlier member's. */
static int write_group_field(run_state *r, feint_xdmf_layout *const *l, struct run_xdmf_grid *g, int linked,
                             share_cell_sets *later) {
  const feint_mesh *m = r->mesh;
  if (!has_cell_groups(m)) return FEINT_OK;
  add_field(r, g, "group", "xdmf/cell_group", 1, 1, 1);
  if (linked) return FEINT_OK;
  char name[320];
  run_member_path(r, "xdmf/cell_group", name, sizeof name);
  if (later) return leave_to_ranks(r, later, name, -1);
  int64_t *tag = NULL, *drawn = NULL;
  int status = feint_malloc((size_t)m->n_cells, sizeof *tag, &tag, "XDMF cell groups");
  if (!status) status = feint_malloc((size_t)g->n_cells, sizeof *drawn, &drawn, "XDMF cell groups");
  if (!status) {
    feint_mesh_cell_group_tags(m, tag);
    per_piece(m, l, NULL, tag, NULL, drawn);
    status = feint_output_int64(r->out, name, 1, &g->n_cells, drawn);
  }
  free(tag);
  free(drawn);
  return status;
}

/* Cell fields of the coefficients given per cell (P0 fields), by the
 * names the case gives them. */
static int write_coefficient_fields(run_state *r, feint_xdmf_layout *const *l, struct run_xdmf_grid *g,
                                    share_cell_sets *later) {
  const feint_form *f = r->form;
  char name[320];
  for (int k = 0; k < f->n_aux && g->n_fields < MAX_FIELDS; k++) {
    if (f->aux[k].kind != FEINT_FIELD_CELL) continue;
    char coef[64], dataset[128];
    feint_form_coefficient_name(f, r->c, k, coef, sizeof coef);
    snprintf(dataset, sizeof dataset, "xdmf/cell/%s", coef);
    add_field(r, g, coef, dataset, 1, 1, 0);
    if (later) {
      FEINT_CALL(leave_to_ranks(r, later, run_member_path(r, dataset, name, sizeof name), k));
      continue;
    }
    double *drawn = NULL;
    FEINT_CALL(feint_malloc((size_t)g->n_cells, sizeof *drawn, &drawn, "XDMF cell fields"));
    per_piece(r->mesh, l, f->aux[k].values, NULL, drawn, NULL);
    const int status =
        feint_output_doubles(r->out, run_member_path(r, dataset, name, sizeof name), 1, &g->n_cells, drawn);
    free(drawn);
    FEINT_CALL(status);
  }
  return FEINT_OK;
}

/* The vector results: a scalar field is its dataset (or, for a mode of
 * the near-null space, a view of its row); a vector field is a (dofs x
 * components) view, its values on the first component's rows (the rows
 * the cells name). */
static int point_field(run_state *r, struct run_xdmf_grid *g, const char *result, const char *field, int row) {
  const int nc = r->whole.components;
  const int64_t n = r->whole.n_dofs;
  char view[64], src[320], name[320];
  snprintf(view, sizeof view, "xdmf/%s", field);
  add_field(r, g, field, nc > 1 || row >= 0 ? view : result, nc, 0, 0);
  if (nc == 1 && row < 0) return FEINT_OK;
  const feint_output_slab to = {2, {0, 0}, {nc, 1}, {n / nc, nc}}, all = {0, {0, 0}, {0, 0}, {0, 0}},
                          from = row >= 0 ? (feint_output_slab){2, {row, 0}, {1, 1}, {1, n}} : all;
  const int64_t dims[2] = {n, nc};
  const char *source = run_member_path(r, result, src, sizeof src);
  return feint_output_view(r->out, run_member_path(r, view, name, sizeof name), 0, nc > 1 ? 2 : 1, dims, 1,
                           nc > 1 ? &to : &all, &source, &from);
}

static int point_fields(run_state *r, struct run_xdmf_grid *g) {
  if (r->c->write_residual) FEINT_CALL(point_field(r, g, "residual", "residual", -1));
  if (r->c->write_rhs) FEINT_CALL(point_field(r, g, "rhs", "rhs", -1));
  for (int k = 0; r->c->write_near_null_space && k < r->n_near_null_modes && g->n_fields < MAX_FIELDS; k++) {
    char field[64];
    snprintf(field, sizeof field, "near_null_space_%d", k);
    FEINT_CALL(point_field(r, g, "near_null_space", field, k));
  }
  return FEINT_OK;
}

/* A new grid for this run or member: its header, its drawn mesh (written,
 * or linked to an earlier member's with the same space) and its cells'
 * physical groups. The layouts stay made for the caller (layouts_destroy). */
static int grid_begin(run_state *r, const drawn_cells *d, feint_xdmf_layout *l[FEINT_MESH_MAX_BLOCKS],
                      share_cell_sets *later, struct run_xdmf_grid **out) {
  const feint_mesh *m = d->mesh;
  struct run_xdmf_grid *grids = realloc(r->xdmf_grids, sizeof *grids * (size_t)(r->n_xdmf_grids + 1));
  if (!grids) return feint_error_set(FEINT_ERR_COMPUTE, "out of memory (XDMF grids)");
  r->xdmf_grids = grids;
  struct run_xdmf_grid *g = memset(&grids[r->n_xdmf_grids++], 0, sizeof *g);
  FEINT_CALL(layouts_create(d, l));
  const int mixed = feint_mesh_is_mixed(m);
  snprintf(g->name, sizeof g->name, r->member >= 0 ? "member_%04d" : "feint", r->member);
  snprintf(g->h5_path, sizeof g->h5_path, "%s", r->out_path);
  snprintf(g->topology, sizeof g->topology, "/%sxdmf/topology", r->prefix);
  snprintf(g->geometry, sizeof g->geometry, "/%sdofs/coordinates", r->prefix);
  snprintf(g->type, sizeof g->type, "%s", mixed ? "Mixed" : l[0]->type);
  g->nodes = mixed ? 0 : l[0]->nodes;
  g->n_points = d->n_points;
  for (int b = 0; b < m->n_blocks; b++) {
    g->n_cells += drawn_block_cells(r, m, b) * l[b]->n_pieces;
    g->topology_length += drawn_block_cells(r, m, b) * l[b]->n_pieces * (l[b]->nodes + 1);
  }
  int linked = 0, status = run_share_at(r, &r->xdmf_at, "xdmf/topology", &linked);
  if (!status && linked && has_cell_groups(m)) status = run_share_at(r, &r->xdmf_at, "xdmf/cell_group", &linked);
  if (!status && !linked) status = write_topology(r, d, l, g);
  if (!status) status = write_group_field(r, l, g, linked, later);
  if (!status && !r->xdmf_at.file[0]) {
    snprintf(r->xdmf_at.file, sizeof r->xdmf_at.file, "%s", r->out_path);
    snprintf(r->xdmf_at.group, sizeof r->xdmf_at.group, "%s", r->prefix);
  }
  if (status) layouts_destroy(m, l);
  *out = g;
  return status;
}

int run_xdmf_mesh_views(run_state *r) {
  const drawn_cells d = space_cells(r->space);
  feint_xdmf_layout *l[FEINT_MESH_MAX_BLOCKS];
  struct run_xdmf_grid *g = NULL;
  share_cell_sets *later = NULL;
  if (run_dist_share_only(r)) FEINT_CALL(feint_calloc(1, sizeof *later, &later, "the XDMF cell fields"));
  int status = grid_begin(r, &d, l, later, &g);
  if (status) {
    free(later);
    return status;
  }
  status = write_coefficient_fields(r, l, g, later);
  layouts_destroy(d.mesh, l);
  if (!status && later && later->n > 0) {
    const char *names[MAX_FIELDS];
    for (int k = 0; k < later->n; k++) names[k] = later->name[k];
    status = run_dist_write_cell_fields(r, later->n, names, later->aux);
  }
  free(later);
  return status;
}

int run_xdmf_result_views(run_state *r) {
  if (r->n_xdmf_grids < 1) return feint_error_set(FEINT_ERR_COMPUTE, "internal: XDMF results before their mesh");
  return point_fields(r, &r->xdmf_grids[r->n_xdmf_grids - 1]);
}

int run_xdmf_operator_views(run_state *r, const feint_bp_dofmap *dofs) {
  const drawn_cells d = {r->mesh, dofs->order, dofs->np, 1, dofs->n_dofs, NULL, dofs->cell_dofs};
  feint_xdmf_layout *l[FEINT_MESH_MAX_BLOCKS];
  struct run_xdmf_grid *g = NULL;
  if (run_dist_share_only(r))
    return feint_error_set(FEINT_ERR_COMPUTE, "internal: an operator's XDMF mesh from a share of the mesh");
  FEINT_CALL(grid_begin(r, &d, l, NULL, &g));
  add_field(r, g, "x", "operator/x", 1, 0, 0);
  add_field(r, g, "y", "operator/y", 1, 0, 0);
  layouts_destroy(d.mesh, l);
  return FEINT_OK;
}

/* <path without its extension>.xdmf; an HDF5 file named .xdmf keeps its
 * name (its XDMF file is <name>.xdmf). */
static void xdmf_path(const char *h5, char *path, size_t size) {
  snprintf(path, size, "%s", h5);
  char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
  if (dot && (!slash || dot > slash)) *dot = '\0';
  strncat(path, ".xdmf", size - strlen(path) - 1);
  if (!strcmp(path, h5)) snprintf(path, size, "%s.xdmf", h5);
}

int run_xdmf_file(run_state *r, const char *output) {
  char path[1300], dir[1300], h5[PATH_MAX];
  xdmf_path(output, path, sizeof path);
  snprintf(dir, sizeof dir, "%s", path);
  char *slash = strrchr(dir, '/');
  if (slash) slash[1] = '\0';
  else dir[0] = '\0';
  feint_xdmf_grid *grids = NULL;
  char(*files)[PATH_MAX] = NULL;
  int status = feint_malloc((size_t)r->n_xdmf_grids, sizeof *grids, &grids, "XDMF grids");
  if (!status) status = feint_malloc((size_t)r->n_xdmf_grids, sizeof *files, &files, "XDMF grids");
  for (int k = 0; !status && k < r->n_xdmf_grids; k++) {
    struct run_xdmf_grid *g = &r->xdmf_grids[k];
    for (int j = 0; j < g->n_fields; j++) { /* the grids moved as they were added */
      g->fields[j].name = g->field_name[j];
      g->fields[j].dataset = g->dataset[j];
    }
    /* the HDF5 file by its name beside the XDMF file, else by its full path */
    const size_t nd = strlen(dir);
    const char *base = strrchr(g->h5_path, '/') ? strrchr(g->h5_path, '/') + 1 : g->h5_path;
    const int beside = (nd == 0 && !strchr(g->h5_path, '/')) || (nd > 0 && !strncmp(g->h5_path, dir, nd) && !strchr(g->h5_path + nd, '/'));
    if (beside) snprintf(files[k], sizeof files[k], "%s", base);
    else if (!realpath(g->h5_path, h5)) status = feint_error_set(FEINT_ERR_COMPUTE, "%s: cannot find it", g->h5_path);
    else snprintf(files[k], sizeof files[k], "%s", h5);
    grids[k] = (feint_xdmf_grid){g->name, files[k], g->topology, g->geometry, g->type, g->nodes, g->n_cells,
                                 g->n_points, g->topology_length, g->n_fields, g->fields};
  }
  if (!status) status = feint_xdmf_write(path, r->n_xdmf_grids, grids, r->member >= 0);
  free(grids);
  free(files);
  return status;
}

void run_xdmf_forget(run_state *r) {
  free(r->xdmf_grids);
  r->xdmf_grids = NULL;
  r->n_xdmf_grids = 0;
}
