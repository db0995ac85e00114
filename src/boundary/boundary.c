/* Dirichlet, Neumann and Robin conditions on boundary physical groups; see
 * include/feint/boundary.h. */
#include "feint/boundary.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feint/error.h"
#include "feint/expr.h"
#include "feint/fe.h"
#include "feint/h5.h"
#include "feint/parallel.h"
#include "feint/tensor.h"
#include "boundary/facet.h"

/* A case value sampled for boundary use: a constant, an expression or
 * per-scalar-dof values. */
typedef struct {
  int kind;          /* 0 = none (free / zero), 1 = constant, 2 = expression, 3 = nodal */
  double constant;
  feint_expr *expr;
  double *nodal;     /* n_scalar_dofs */
  const feint_value *given; /* the case's value (messages; read while the conditions are built) */
  char name[64];
} bvalue;

/* A boundary value that is inf or nan (a division by zero, the log of a
 * negative number, a bad dataset) is refused, as coefficients are. */
static int bvalue_not_finite(const bvalue *v, const feint_space *s, int64_t d, double value) {
  return feint_error_not_finite(v->given->where, v->name, feint_value_text(v->given), value,
                                d < 0 ? NULL : s->coordinates + 3 * d);
}

static void bvalue_release(bvalue *v) {
  feint_expr_destroy(v->expr);
  free(v->nodal);
  memset(v, 0, sizeof *v);
}

static int bvalue_make(const feint_value *in, const feint_space *s, const char *name, bvalue *v) {
  memset(v, 0, sizeof *v);
  v->given = in;
  snprintf(v->name, sizeof v->name, "%s", name);
  switch (in->kind) {
    case FEINT_VALUE_NONE: return FEINT_OK;
    case FEINT_VALUE_CONSTANT:
      v->kind = 1;
      v->constant = in->constant;
      return FEINT_OK;
    case FEINT_VALUE_EXPRESSION:
      FEINT_CALL(feint_expr_create(in->expression, in->where, &v->expr));
      if (feint_expr_is_constant(v->expr)) {
        v->kind = 1;
        v->constant = feint_expr_eval(v->expr, 0, 0, 0);
        feint_expr_destroy(v->expr);
        v->expr = NULL;
        if (!isfinite(v->constant)) return bvalue_not_finite(v, s, -1, v->constant);
      } else {
        v->kind = 2;
      }
      return FEINT_OK;
    case FEINT_VALUE_GROUPS: /* its groups are the cells', not the facets' */
      return feint_error_set(FEINT_ERR_INPUT,
                             "%s: %s: a boundary value cannot be given per physical group of the cells; give a "
                             "number, an expression or a dataset on: node",
                             in->where, name);
    case FEINT_VALUE_DATASET:
      if (in->on_cells)
        return feint_error_set(FEINT_ERR_INPUT,
                               "%s: %s: a boundary value from a dataset must be on: node (one value per "
                               "scalar dof), not on: cell",
                               in->where, name);
      v->kind = 3;
      return feint_h5_read_doubles(in->file, in->dataset, s->n_scalar_dofs, in->where, &v->nodal);
  }
  return feint_error_set(FEINT_ERR_INPUT, "%s: unsupported value for %s", in->where, name);
}

/* The value at scalar dof d, which must be finite. */
static int bvalue_at(const bvalue *v, const feint_space *s, int64_t d, double *out) {
  switch (v->kind) {
    case 1: *out = v->constant; return FEINT_OK;
    case 2: {
      const double *x = s->coordinates + 3 * d;
      *out = feint_expr_eval(v->expr, x[0], x[1], x[2]);
      break;
    }
    case 3: *out = v->nodal[d]; break;
    default: *out = 0.0; return FEINT_OK;
  }
  return isfinite(*out) ? FEINT_OK : bvalue_not_finite(v, s, d, *out);
}

/* Sample the list of an entry: n == 1 applies to every component, else one
 * per component. */
static int sample_list(const feint_value_list *l, const feint_space *s, const char *name, const char *where,
                       bvalue out[3]) {
  const int nc = s->components;
  memset(out, 0, 3 * sizeof *out);
  if (l->n != 1 && l->n != nc)
    return feint_error_set(FEINT_ERR_INPUT,
                           "%s: %s has %d values but the space has %d component%s (give one value for "
                           "all components, or one per component)",
                           where, name, l->n, nc, nc == 1 ? "" : "s");
  for (int c = 0; c < nc; c++) {
    int status = bvalue_make(&l->c[l->n == 1 ? 0 : c], s, name, &out[c]);
    if (status) {
      for (int k = 0; k < nc; k++) bvalue_release(&out[k]);
      return status;
    }
  }
  return FEINT_OK;
}

/* The (dim-1)-dimensional group named by entry `b`, or an input error. */
static int find_group(const feint_mesh *m, const feint_boundary *b, int index, int *out) {
  char key[64];
  snprintf(key, sizeof key, "boundary[%d].group", index);
  return feint_mesh_need_group(m, b->group, m->dim - 1, b->where, key, "boundary conditions", out);
}

/* Facet quadrature shared by the Neumann and Robin integrals: a Gauss rule
 * on the facet and the facet's own Lagrange basis of the space's order at
 * its points, in the node order of feint_space_facets_dofs (space.h).
 * Segments and quadrilaterals: the 1D Lagrange basis (tensor.h) on the
 * cells' edge nodes (feint_space_edge_nodes: GLL with Lobatto nodes,
 * equispaced otherwise), a tensor product on the quadrilateral; triangles:
 * the P_p triangle element of the space's node family. Quadrilaterals take
 * the tensor Gauss rule on [0,1]^2 (weights summing to 1) of one degree
 * more than the integrand (|J| of a planar bilinear face is linear in each
 * of s and t, so planar faces are exact) plus FACET_TWIST_DEGREE: on a
 * non-planar face |J| is the root of a polynomial, integrated to round-off
 * for moderate twists by those extra points. */
enum { FACET_TWIST_DEGREE = 8 };

typedef struct {
  feint_quadrature *q;
  double *phi; /* q->n x nb */
  int nb;
} facet_rule;

static void facet_rule_destroy(facet_rule *r) {
  free(r->phi);
  feint_quadrature_destroy(r->q);
  memset(r, 0, sizeof *r);
}

/* The tensor Lagrange basis on the edge nodes at the n_points points of
 * [0,1]^dim (dim 1 or 2): phi[q * n^dim + a + n b] = l_a(s_q) l_b(t_q). */
static int edge_tensor_basis(const feint_space *s, int dim, int n_points, const double *points, double *phi) {
  const int n = s->order + 1, nb = dim == 2 ? n * n : n;
  double nodes[FEINT_TENSOR_MAX_POINTS], *l = NULL; /* l: dim x n_points x n, the 1D basis along each coordinate */
  FEINT_CALL(feint_space_edge_nodes(s, nodes));
  FEINT_CALL(feint_malloc((size_t)(dim * n_points * n), sizeof *l, &l, "facet basis"));
  int status = FEINT_OK;
  for (int d = 0; d < dim && !status; d++) {
    double y[1024]; /* coordinate d of the points (facet_rule_create caps them at 1024) */
    for (int q = 0; q < n_points; q++) y[q] = points[q * dim + d];
    status = feint_lagrange_matrices(n, nodes, n_points, y, l + d * n_points * n, NULL);
  }
  for (int q = 0; q < n_points && !status; q++)
    for (int k = 0; k < nb; k++) phi[q * nb + k] = l[q * n + k % n] * (dim == 2 ? l[(n_points + q) * n + k / n] : 1.0);
  free(l);
  return status;
}

/* The rule for facets of nvf vertices, exact for integrands of the given
 * degree on affine (planar) facets; where, name: the entry, for messages. */
static int facet_rule_create(const feint_space *s, int nvf, int degree, const char *where, const char *name,
                             facet_rule *r) {
  const feint_cell_type fc = nvf == 2 ? FEINT_CELL_SEGMENT : nvf == 3 ? FEINT_CELL_TRIANGLE : FEINT_CELL_QUADRILATERAL;
  const int max = feint_quadrature_max_degree(fc);
  const int need = degree + (fc == FEINT_CELL_QUADRILATERAL); /* the bilinear |J| */
  memset(r, 0, sizeof *r);
  /* only a varying Robin alpha (degree 3p) can pass the largest rule */
  if (need > max)
    return feint_error_set(FEINT_ERR_INPUT, "%s: %s: a varying alpha needs facet quadrature of degree 3 x "
                           "space.order%s = %d, above the largest exact rule on %s (degree %d); use a constant "
                           "alpha or a lower order", where, name, fc == FEINT_CELL_QUADRILATERAL ? " + 1" : "", need,
                           feint_cell_plural(fc), max);
  feint_element *el = NULL;
  int status = feint_quadrature_create(fc, fc == FEINT_CELL_QUADRILATERAL ? (need + FACET_TWIST_DEGREE < max ?
                                       need + FACET_TWIST_DEGREE : max) : need, &r->q);
  r->nb = feint_space_facet_nb(s, nvf);
  if (!status && r->nb > FEINT_FACET_MAX_NB)
    status = feint_error_set(FEINT_ERR_INPUT, "%s: %s: boundary integrals support facets of up to %d dofs (order "
                             "%d has more)", where, name, FEINT_FACET_MAX_NB, s->order);
  if (!status && r->q->n > 1024)
    status = feint_error_set(FEINT_ERR_COMPUTE, "internal: %d facet quadrature points", r->q->n);
  if (!status && fc == FEINT_CELL_QUADRILATERAL) /* [-1,1]^2 -> [0,1]^2 */
    for (int k = 0; k < r->q->n; k++) {
      r->q->points[2 * k] = 0.5 * (r->q->points[2 * k] + 1.0);
      r->q->points[2 * k + 1] = 0.5 * (r->q->points[2 * k + 1] + 1.0);
      r->q->weights[k] *= 0.25;
    }
  if (!status) status = feint_malloc((size_t)(r->q->n * r->nb), sizeof *r->phi, &r->phi, "facet basis");
  if (!status && fc == FEINT_CELL_TRIANGLE &&
      !(status = feint_element_create_family(fc, s->order, feint_space_node_family(s), &el)))
    feint_element_tabulate(el, r->q->n, r->q->points, r->phi, NULL);
  else if (!status)
    status = edge_tensor_basis(s, fc == FEINT_CELL_QUADRILATERAL ? 2 : 1, r->q->n, r->q->points, r->phi);
  feint_element_destroy(el);
  if (status) facet_rule_destroy(r);
  return status;
}

/* The scalar dofs of facet f: FEINT_OK, -1 when it is not on the region,
 * or an error naming the entry (where, name). */
static int facet_dofs(feint_boundary_conditions *bc, int64_t f, const char *where, const char *name, int64_t *dofs) {
  const feint_mesh *m = bc->space->mesh;
  const int r = feint_space_facets_dofs(bc->facet_lookup, m->facets + f * m->nv_facet, feint_mesh_facet_nv(m, f),
                                        dofs);
  if (r <= 0) return r;
  return feint_error_set(r, "%s: %s: %s", where, name, feint_error_message());
}

/* The facets f0..f1 of a group of nvf vertices that lie on the region:
 * calls visit(ctx, nodes, dofs) for each with its vertex nodes and scalar
 * dofs (in the facet basis's order), and counts them. */
typedef int (*facet_visit)(void *ctx, const int64_t *nodes, const int64_t *dofs);

static int for_region_facets(feint_boundary_conditions *bc, const char *where, const char *name, int nvf, int64_t f0,
                             int64_t f1, facet_visit visit, void *ctx, int64_t *n_facets) {
  const feint_mesh *m = bc->space->mesh;
  int64_t dofs[FEINT_FACET_MAX_NB];
  for (int64_t f = f0; f < f1; f++) {
    const int64_t *nodes = m->facets + f * m->nv_facet;
    if (feint_mesh_facet_nv(m, f) != nvf) continue;
    int r = facet_dofs(bc, f, where, name, dofs);
    if (r == -1) continue; /* not a facet of the region */
    FEINT_CALL(r);
    if (visit) FEINT_CALL(visit(ctx, nodes, dofs));
    (*n_facets)++;
  }
  return FEINT_OK;
}

/* A facet set with its arrays (the view points into them). */
struct feint_boundary_facets {
  feint_facet_view v;
  facet_rule rule;
  double *x, *coef;
  int64_t *load_index, *site_index;
  double *det; /* a curved mesh's |J|, or a flux set's q . n |J|, at each facet's points (facet_measures) */
};

static void facet_set_release(struct feint_boundary_facets *fs) {
  facet_rule_destroy(&fs->rule);
  free(fs->x);
  free(fs->det);
  free(fs->coef);
  free(fs->load_index);
  free(fs->site_index);
  memset(fs, 0, sizeof *fs);
}

/* Filling one set: the coefficients (ncoef bvalues) and the compact load
 * slots (bc->slot_of, grown in bc->load_dofs). */
typedef struct {
  feint_boundary_conditions *bc;
  struct feint_boundary_facets *fs;
  const bvalue *coef; /* ncoef */
  const bvalue *flux; /* a flux condition's q (dim), else NULL */
  int64_t f;          /* facets filled */
  int64_t *rows;      /* with measures (det): each facet's row of the mesh's facets, measured after the fill */
} fill_ctx;

static int load_slot(feint_boundary_conditions *bc, int64_t dof, int64_t *slot) {
  if (bc->slot_of[dof] < 0) {
    if (bc->n_load == bc->load_capacity) {
      int64_t cap = bc->load_capacity ? 2 * bc->load_capacity : 1024;
      int64_t *d = realloc(bc->load_dofs, (size_t)cap * sizeof *d);
      if (!d) return feint_error_set(FEINT_ERR_COMPUTE, "out of memory for the boundary dofs");
      bc->load_dofs = d;
      bc->load_capacity = cap;
    }
    bc->load_dofs[bc->n_load] = dof;
    bc->slot_of[dof] = bc->n_load++;
  }
  *slot = bc->slot_of[dof];
  return FEINT_OK;
}

/* node -> the cells using it (facet_measures: a facet's cell), and a
 * curved mesh's geometry tables. */
static int node_cells_create(feint_boundary_conditions *bc) {
  const feint_mesh *m = bc->holders;
  FEINT_CALL(feint_calloc((size_t)m->n_nodes + 1, sizeof *bc->node_cell_ptr, &bc->node_cell_ptr, "node cells"));
  FEINT_CALL(feint_malloc((size_t)(m->n_cells * m->nv) + 1, sizeof *bc->node_cells, &bc->node_cells, "node cells"));
  /* (a mixed mesh's rows are padded with -1: no node) */
  for (int64_t i = 0; i < m->n_cells * m->nv; i++)
    if (m->cells[i] >= 0) bc->node_cell_ptr[m->cells[i] + 1]++;
  for (int64_t n = 0; n < m->n_nodes; n++) bc->node_cell_ptr[n + 1] += bc->node_cell_ptr[n];
  for (int64_t i = 0; i < m->n_cells * m->nv; i++)
    if (m->cells[i] >= 0) bc->node_cells[bc->node_cell_ptr[m->cells[i]]++] = i / m->nv;
  for (int64_t n = m->n_nodes; n > 0; n--) bc->node_cell_ptr[n] = bc->node_cell_ptr[n - 1]; /* back to starts */
  bc->node_cell_ptr[0] = 0;
  for (int b = 0; b < m->n_blocks && m->n_geometry_nodes; b++)
    feint_curved_geometry_init(&bc->curved_geometry[b], m->blocks[b].cell_type, m->blocks[b].n_geometry_nodes);
  return FEINT_OK;
}

/* Facet nodes[0..nvf)'s measure at the rule's nq points, on the map of a
 * cell holding it (its geometry nodes on a curved mesh, else its
 * vertices): |J| into det, or with flux the Neumann value q . n |J| (n the
 * outward unit normal, q at the point). The facet's reference point p goes
 * into the cell by the facet's vertex map of the vertices' reference
 * coordinates, xi(p) = sum_a N_a(p) xi_a (affine: a cell's facets are flat
 * in its reference cell); the cell's J maps the facet's reference tangents
 * dxi/dp_d to dx/dp_d, and J (c - xi), c the reference cell's centroid,
 * points into the cell, which orients n. Any geometry order, the facet's
 * own nodes unread (the file's facets give vertices). */
static int facet_measures(feint_boundary_conditions *bc, const int64_t *nodes, int nvf, const feint_quadrature *q,
                          const bvalue *flux, double *det) {
  const feint_mesh *m = bc->holders;
  if (!bc->node_cells) FEINT_CALL(node_cells_create(bc));
  const int curved = m->n_geometry_nodes > 0, dim = m->dim, fd = dim - 1;
  const feint_cell_type fc = nvf == 2 ? FEINT_CELL_SEGMENT : nvf == 3 ? FEINT_CELL_TRIANGLE : FEINT_CELL_QUADRILATERAL;
  for (int64_t k = bc->node_cell_ptr[nodes[0]]; k < bc->node_cell_ptr[nodes[0] + 1]; k++) {
    const int64_t c = bc->node_cells[k];
    const int b = feint_mesh_cell_block(m, c), nv = m->blocks[b].nv, ng = feint_mesh_block_geometry_nodes(m, b);
    const feint_cell_type ct = m->blocks[b].cell_type;
    double ref[4][3] = {{0}}, centre[3] = {0, 0, 0}; /* the facet vertices' reference coordinates in the cell */
    int found = 0;
    for (int v = 0; v < nv; v++) {
      double r[3] = {0, 0, 0};
      feint_cell_vertex_reference(ct, v, r);
      for (int d = 0; d < dim; d++) centre[d] += r[d] / nv;
      for (int a = 0; a < nvf; a++)
        if (m->cells[c * m->nv + v] == nodes[a]) {
          memcpy(ref[a], r, sizeof r);
          found++;
        }
    }
    if (found != nvf) continue;
    double Xv[8 * 3];
    const double *X = Xv;
    if (curved) {
      X = feint_mesh_curved_nodes(m, c, ng);
    } else {
      for (int v = 0; v < nv; v++) {
        const int64_t n = m->cells[c * m->nv + v];
        Xv[3 * v] = m->x[n], Xv[3 * v + 1] = m->y[n], Xv[3 * v + 2] = m->z[n];
      }
    }
    for (int p = 0; p < q->n; p++) {
      double xi[3] = {0, 0, 0}, dxi[2][3] = {{0}}, N[4], dN[4 * 2], Ng[FEINT_CELL_MAX_GEOMETRY_NODES],
             G[FEINT_CELL_MAX_GEOMETRY_NODES * 3], t[2][3] = {{0}}, x[3] = {0, 0, 0}, in[3] = {0, 0, 0};
      /* the quadrilateral facets' rule is on [0,1]^2 (facet_rule_create), their vertex map on [-1,1]^2 */
      const int quad = fc == FEINT_CELL_QUADRILATERAL;
      const double *at = q->points + p * fd, P[2] = {quad ? 2 * at[0] - 1 : at[0], quad && fd > 1 ? 2 * at[1] - 1 : 0};
      feint_cell_vertex_shape(fc, 1, quad ? P : at, N, dN);
      for (int a = 0; a < nvf; a++)
        for (int d = 0; d < dim; d++) {
          xi[d] += N[a] * ref[a][d];
          for (int e = 0; e < fd; e++) dxi[e][d] += (quad ? 2 : 1) * dN[a * fd + e] * ref[a][d];
        }
      if (curved) feint_curved_geometry_shape(&bc->curved_geometry[b], 1, xi, Ng, G);
      else feint_cell_vertex_shape(ct, 1, xi, Ng, G);
      for (int n = 0; n < ng; n++)
        for (int a = 0; a < 3; a++) {
          x[a] += Ng[n] * X[3 * n + a];
          for (int d = 0; d < dim; d++) {
            for (int e = 0; e < fd; e++) t[e][a] += X[3 * n + a] * G[n * dim + d] * dxi[e][d];
            in[a] += X[3 * n + a] * G[n * dim + d] * (centre[d] - xi[d]);
          }
        }
      double nrm[3]; /* the normal times |J| */
      if (fd == 1) {
        nrm[0] = t[0][1], nrm[1] = -t[0][0], nrm[2] = 0;
      } else {
        nrm[0] = t[0][1] * t[1][2] - t[0][2] * t[1][1];
        nrm[1] = t[0][2] * t[1][0] - t[0][0] * t[1][2];
        nrm[2] = t[0][0] * t[1][1] - t[0][1] * t[1][0];
      }
      if (!flux) {
        det[p] = sqrt(nrm[0] * nrm[0] + nrm[1] * nrm[1] + nrm[2] * nrm[2]);
        continue;
      }
      const double sign = nrm[0] * in[0] + nrm[1] * in[1] + nrm[2] * in[2] > 0 ? -1 : 1;
      double g = 0;
      for (int d = 0; d < dim; d++) {
        const double qd = flux[d].kind == 1 ? flux[d].constant : feint_expr_eval(flux[d].expr, x[0], x[1], x[2]);
        if (!isfinite(qd)) return feint_error_not_finite(flux[d].given->where, flux[d].name,
                                                          feint_value_text(flux[d].given), qd, x);
        g += qd * nrm[d];
      }
      det[p] = sign * g;
    }
    return FEINT_OK;
  }
  return feint_error_set(FEINT_ERR_COMPUTE, "internal: a boundary facet of the region lies on no cell");
}

/* The facets' measures (facet_measures), range by range on every core:
 * each facet's own, read from the conditions' fixed tables (a failure
 * carried out of its thread: errors are per thread; the first facet's in
 * order is reported). */
typedef struct {
  feint_boundary_conditions *bc;
  struct feint_boundary_facets *fs;
  const int64_t *rows;
  const bvalue *flux;
  int status[FEINT_PARALLEL_MAX_RANGES];
  char why[FEINT_PARALLEL_MAX_RANGES][512];
} measures_job;

static void measures_range(int64_t a, int64_t b, int t, void *arg) {
  measures_job *j = arg;
  const feint_mesh *m = j->bc->space->mesh;
  const feint_facet_view *v = &j->fs->v;
  for (int64_t f = a; f < b && !j->status[t]; f++) {
    j->status[t] = facet_measures(j->bc, m->facets + j->rows[f] * m->nv_facet, v->nv, j->fs->rule.q, j->flux,
                                  j->fs->det + f * v->nq);
    if (j->status[t]) snprintf(j->why[t], sizeof j->why[t], "%s", feint_error_message());
  }
}

static int measure_facets(feint_boundary_conditions *bc, struct feint_boundary_facets *fs, const int64_t *rows,
                          const bvalue *flux) {
  if (!bc->node_cells) FEINT_CALL(node_cells_create(bc)); /* before the threads read it */
  measures_job *j = NULL;
  FEINT_CALL(feint_calloc(1, sizeof *j, &j, "the facets' measures"));
  *j = (measures_job){.bc = bc, .fs = fs, .rows = rows, .flux = flux};
  const int ranges = feint_parallel_for_indexed(fs->v.n_facets, 1 << 10, measures_range, j);
  int status = FEINT_OK;
  for (int t = 0; t < ranges && !status; t++)
    if (j->status[t]) status = feint_error_restore(j->status[t], j->why[t], "src/boundary/boundary.c");
  free(j);
  return status;
}

static int fill_facet(void *vctx, const int64_t *nodes, const int64_t *dofs) {
  fill_ctx *x = vctx;
  const feint_space *s = x->bc->space;
  const feint_mesh *m = s->mesh;
  struct feint_boundary_facets *fs = x->fs;
  const feint_facet_view *v = &fs->v;
  const int64_t f = x->f++;
  const int nc = v->nc, nb = v->nb, nbc = nb * nc;
  if (fs->det) x->rows[f] = (nodes - m->facets) / m->nv_facet;
  for (int a = 0; a < v->nv; a++) {
    double *X = fs->x + (f * v->nv + a) * 3;
    X[0] = m->x[nodes[a]];
    X[1] = m->y[nodes[a]];
    X[2] = m->z[nodes[a]];
  }
  for (int j = 0; j < nb; j++)
    for (int k = 0; k < v->ncoef; k++)
      FEINT_CALL(bvalue_at(&x->coef[k], s, dofs[j], &fs->coef[(f * nb + j) * v->ncoef + k]));
  for (int i = 0; i < nb; i++)
    for (int c = 0; c < nc; c++) FEINT_CALL(load_slot(x->bc, dofs[i] * nc + c, &fs->load_index[f * nbc + i * nc + c]));
  /* Robin: the column dof of each used entry for now; numbered by number_sites */
  if (v->robin)
    for (int i = 0; i < nb; i++)
      for (int c = 0; c < nc; c++)
        for (int j = 0; j < nb; j++)
          for (int d = 0; d < nc; d++)
            fs->site_index[f * nbc * nbc + (i * nc + c) * nbc + j * nc + d] =
                v->pairs >> (c * nc + d) & 1u ? dofs[j] * nc + d : -1;
  return FEINT_OK;
}

/* Add a facet set for one entry and the group's facets of nvf vertices
 * (none added if the group has none on the region): coef = the ncoef
 * values per facet dof (Neumann h per component; Robin alpha nc x nc then
 * G per component). */
static int add_facet_set(feint_boundary_conditions *bc, const char *where, const char *name, int robin,
                         const bvalue *coef, int ncoef, unsigned pairs, int varies, int nvf, int64_t f0, int64_t f1,
                         const bvalue *flux, int64_t *n_facets) {
  const feint_space *s = bc->space;
  int64_t n = 0;
  FEINT_CALL(for_region_facets(bc, where, name, nvf, f0, f1, NULL, NULL, &n));
  *n_facets += n;
  if (n == 0) return FEINT_OK;
  struct feint_boundary_facets *sets = realloc(bc->sets, (size_t)(bc->n_sets + 1) * sizeof *sets);
  if (!sets) return feint_error_set(FEINT_ERR_COMPUTE, "out of memory for the boundary facets");
  bc->sets = sets;
  struct feint_boundary_facets *fs = &sets[bc->n_sets++];
  memset(fs, 0, sizeof *fs);
  /* exact for the interpolants on affine facets: Neumann h phi_i, Robin alpha phi_i phi_j and alpha G phi_i;
   * a curved facet's |J| (on a map of order g) adds (dimension) (g - 1), as the cells' rule does */
  const int curved = s->mesh->n_geometry_nodes > 0;
  const int degree =
      s->order * (robin ? (varies ? 3 : 2) : (varies ? 2 : 1)) + (curved ? (s->mesh->dim - 1) * (s->mesh->geometry_order - 1) : 0);
  FEINT_CALL(facet_rule_create(s, nvf, degree, where, name, &fs->rule));
  feint_facet_view *v = &fs->v;
  v->robin = robin;
  v->nv = nvf;
  v->nc = s->components;
  v->nb = fs->rule.nb;
  v->nq = fs->rule.q->n;
  v->ncoef = ncoef;
  v->pairs = pairs;
  v->n_facets = n;
  const int64_t nbc = (int64_t)v->nb * v->nc;
  FEINT_CALL(feint_malloc((size_t)(n * v->nv * 3), sizeof *fs->x, &fs->x, "facet coordinates"));
  if (curved || flux) FEINT_CALL(feint_malloc((size_t)(n * v->nq), sizeof *fs->det, &fs->det, "facets' measures"));
  FEINT_CALL(feint_malloc((size_t)(n * v->nb * ncoef), sizeof *fs->coef, &fs->coef, "facet coefficients"));
  FEINT_CALL(feint_malloc((size_t)(n * nbc), sizeof *fs->load_index, &fs->load_index, "facet load map"));
  if (robin)
    FEINT_CALL(feint_malloc((size_t)(n * nbc * nbc), sizeof *fs->site_index, &fs->site_index, "facet slot map"));
  fill_ctx x = {bc, fs, coef, flux, 0, NULL};
  if (fs->det) FEINT_CALL(feint_malloc((size_t)n + 1, sizeof *x.rows, &x.rows, "the facets' rows"));
  int64_t again = 0;
  int status = for_region_facets(bc, where, name, nvf, f0, f1, fill_facet, &x, &again);
  if (!status && fs->det) status = measure_facets(bc, fs, x.rows, flux);
  free(x.rows);
  FEINT_CALL(status);
  v->phi = fs->rule.phi;
  v->weights = fs->rule.q->weights;
  v->points = nvf == 4 ? fs->rule.q->points : NULL;
  v->det = fs->det;
  v->x = fs->x;
  v->coef = fs->coef;
  v->load_index = fs->load_index;
  v->site_index = fs->site_index;
  return FEINT_OK;
}

/* The facet shapes (vertex counts) of the region: one, or triangles and
 * quadrilaterals when rows of 4 (mesh.h) may hold triangles (a block of
 * prisms or tetrahedra: prism meshes, 3D mixed meshes). */
static int facet_shapes(const feint_mesh *m, int shapes[2]) {
  int triangles = 0;
  for (int b = 0; b < m->n_blocks; b++)
    triangles |= m->blocks[b].cell_type == FEINT_CELL_PRISM || m->blocks[b].cell_type == FEINT_CELL_TETRAHEDRON;
  const int both = m->nv_facet == 4 && triangles;
  shapes[0] = both ? 3 : m->nv_facet;
  shapes[1] = 4;
  return both ? 2 : 1;
}

/* A site candidate: the column dof and where its site number goes. */
typedef struct {
  int64_t col;
  int64_t *at;
} site_ref;

static int site_ref_cmp(const void *a, const void *b) {
  const int64_t x = ((const site_ref *)a)->col, y = ((const site_ref *)b)->col;
  return (x > y) - (x < y);
}

/* Number the distinct Robin entries (row, column) over all sets: bucket
 * the entries by row (its load slot), sort each row by column, one site
 * per distinct column; site_index then holds site numbers. */
static int number_sites(feint_boundary_conditions *bc) {
  int64_t *count = NULL, total = 0;
  site_ref *refs = NULL;
  int status = feint_calloc((size_t)bc->n_load + 1, sizeof *count, &count, "Robin rows");
  for (int k = 0; k < bc->n_sets && !status; k++) {
    const feint_facet_view *v = &bc->sets[k].v;
    const int64_t nbc = (int64_t)v->nb * v->nc;
    if (!v->robin) continue;
    for (int64_t e = 0; e < v->n_facets * nbc * nbc; e++)
      if (v->site_index[e] >= 0) count[v->load_index[e / (nbc * nbc) * nbc + e % (nbc * nbc) / nbc] + 1]++;
  }
  if (!status) {
    for (int64_t r = 0; r < bc->n_load; r++) count[r + 1] += count[r];
    total = count[bc->n_load];
    status = feint_malloc((size_t)total, sizeof *refs, &refs, "Robin entries");
  }
  if (!status) {
    for (int k = 0; k < bc->n_sets; k++) {
      const feint_facet_view *v = &bc->sets[k].v;
      const int64_t nbc = (int64_t)v->nb * v->nc;
      if (!v->robin) continue;
      for (int64_t e = 0; e < v->n_facets * nbc * nbc; e++) {
        int64_t *at = bc->sets[k].site_index + e;
        if (*at < 0) continue;
        site_ref *ref = &refs[count[v->load_index[e / (nbc * nbc) * nbc + e % (nbc * nbc) / nbc]]++];
        ref->col = *at;
        ref->at = at;
      }
    }
    /* count[r] is now the end of row r */
    int64_t sites = 0;
    for (int64_t r = 0, b = 0; r < bc->n_load; b = count[r++]) {
      qsort(refs + b, (size_t)(count[r] - b), sizeof *refs, site_ref_cmp);
      for (int64_t e = b; e < count[r]; e++) sites += e == b || refs[e].col != refs[e - 1].col;
    }
    bc->n_sites = sites;
    if (!(status = feint_malloc((size_t)sites, sizeof *bc->site_rows, &bc->site_rows, "Robin rows")) &&
        !(status = feint_malloc((size_t)sites, sizeof *bc->site_cols, &bc->site_cols, "Robin columns")) &&
        !(status = feint_calloc((size_t)sites, sizeof *bc->site_values, &bc->site_values, "Robin values"))) {
      int64_t t = -1;
      for (int64_t r = 0, b = 0; r < bc->n_load; b = count[r++])
        for (int64_t e = b; e < count[r]; e++) {
          if (e == b || refs[e].col != refs[e - 1].col) {
            bc->site_rows[++t] = bc->load_dofs[r];
            bc->site_cols[t] = refs[e].col;
          }
          *refs[e].at = t;
        }
    }
  }
  free(count);
  free(refs);
  return status;
}

/* The coefficients of a Robin entry, per facet dof: alpha (nc x nc, the
 * pairs given) then G (nc). */
static int robin_coefficients(const feint_boundary *b, int index, const feint_space *s, bvalue coef[12],
                              unsigned *pairs, int *varies) {
  const int nc = s->components;
  char name[64];
  bvalue a[9], g[3];
  int status;
  memset(coef, 0, 12 * sizeof *coef);
  snprintf(name, sizeof name, "boundary[%d].robin.alpha", index);
  if (b->robin_alpha_tensor) {
    if (b->robin_alpha.n != nc * nc) {
      const int d = b->robin_alpha.n == 4 ? 2 : 3;
      return feint_error_set(FEINT_ERR_INPUT, "%s: %s is a %dx%d tensor but the space has %d component%s (give "
                             "a %dx%d tensor, one value per component, or one value)",
                             b->where, name, d, d, nc, nc == 1 ? "" : "s", nc, nc);
    }
    memset(a, 0, sizeof a);
    for (int k = 0; k < nc * nc; k++)
      if ((status = bvalue_make(&b->robin_alpha.c[k], s, name, &a[k]))) goto fail;
  } else {
    bvalue diag[3];
    if ((status = sample_list(&b->robin_alpha, s, name, b->where, diag))) return status;
    memset(a, 0, sizeof a);
    for (int c = 0; c < nc; c++) a[c * nc + c] = diag[c];
  }
  memset(g, 0, sizeof g);
  snprintf(name, sizeof name, "boundary[%d].robin.value", index);
  if (b->robin_value.n && (status = sample_list(&b->robin_value, s, name, b->where, g))) goto fail;
  *pairs = 0;
  *varies = 0;
  for (int k = 0; k < nc * nc; k++) {
    if (a[k].kind) *pairs |= 1u << k;
    *varies |= a[k].kind >= 2;
    coef[k] = a[k];
  }
  for (int c = 0; c < nc; c++) coef[nc * nc + c] = g[c];
  if (!*pairs) {
    status = feint_error_set(FEINT_ERR_INPUT, "%s: boundary[%d].robin.alpha: every alpha entry is null (give at "
                             "least one)", b->robin_alpha.c[0].where, index);
    goto fail;
  }
  return FEINT_OK;
fail:
  for (int k = 0; k < 9; k++) bvalue_release(&a[k]);
  for (int k = 0; k < 3; k++) bvalue_release(&g[k]);
  return status;
}

/* A flux entry's q (dim values: constants or expressions, evaluated at
 * the facets' quadrature points) into v[0..dim). */
static int flux_values(const feint_boundary *b, const char *name, const feint_space *s, bvalue v[3]) {
  const feint_mesh *m = s->mesh;
  memset(v, 0, 3 * sizeof *v);
  if (s->components != 1)
    return feint_error_set(FEINT_ERR_INPUT, "%s: %s gives the scalar Neumann value q . n, but the space has %d "
                           "components (give neumann, one value per component)", b->where, name, s->components);
  if (b->flux.n != m->dim)
    return feint_error_set(FEINT_ERR_INPUT, "%s: %s has %d values; give the vector q of the %dD mesh (%d values)",
                           b->where, name, b->flux.n, m->dim, m->dim);
  int status = FEINT_OK;
  for (int d = 0; d < m->dim && !status; d++) {
    status = bvalue_make(&b->flux.c[d], s, name, &v[d]);
    if (!status && v[d].kind != 1 && v[d].kind != 2)
      status = feint_error_set(FEINT_ERR_INPUT, "%s: %s: each component of q is a number or an expression in x, "
                               "y, z (evaluated at the facets' quadrature points)", b->where, name);
  }
  if (status)
    for (int d = 0; d < 3; d++) bvalue_release(&v[d]);
  return status;
}

/* Constrain the dofs of the group's facets for one entry. */
static int mark_dirichlet(feint_boundary_conditions *bc, const char *where, const char *name, const bvalue g[3],
                          int64_t f0, int64_t f1, int64_t *n_facets) {
  const feint_space *s = bc->space;
  const feint_mesh *m = s->mesh;
  const int nc = s->components;
  int64_t dofs[FEINT_FACET_MAX_NB];
  for (int64_t f = f0; f < f1; f++) {
    const int nb = feint_space_facet_nb(s, feint_mesh_facet_nv(m, f));
    int r = facet_dofs(bc, f, where, name, dofs);
    if (r == -1) continue;
    FEINT_CALL(r);
    (*n_facets)++;
    for (int i = 0; i < nb; i++)
      for (int c = 0; c < nc; c++) {
        if (!g[c].kind) continue; /* free component */
        const int64_t d = dofs[i] * nc + c;
        bc->constrained[d] = 1;
        FEINT_CALL(bvalue_at(&g[c], s, dofs[i], &bc->g[d]));
      }
  }
  return FEINT_OK;
}

/* A flux's facets take their normals from their lowest-numbered cells. On
 * a straight mesh of one simplex shape only the cells that may hold one
 * (feint_mesh_facet_cells) need be listed by node, not every cell of the
 * mesh: *view, those cells on the mesh's nodes (*rows, freed by the
 * caller); *rows NULL where there is no flux or the mesh is otherwise. */
int feint_boundary_flux_groups(const feint_case *c, const feint_mesh *m, int *groups) {
  int n = 0;
  for (int i = 0; i < c->n_boundary; i++)
    if (c->boundary[i].flux.n) groups[n++] = feint_mesh_find_group(m, c->boundary[i].group, m->dim - 1);
  return n;
}

static int flux_candidates(const feint_case *c, const feint_mesh *m, feint_mesh *view, int64_t **rows) {
  *rows = NULL;
  if (m->n_blocks != 1 || m->n_geometry_nodes || !feint_cell_is_simplex(m->cell_type)) return FEINT_OK;
  int *groups = NULL;
  FEINT_CALL(feint_malloc((size_t)c->n_boundary + 1, sizeof *groups, &groups, "the flux conditions' groups"));
  const int n_groups = feint_boundary_flux_groups(c, m, groups);
  int64_t n = 0;
  const int status = n_groups ? feint_mesh_facet_cells(m, groups, n_groups, rows, &n) : FEINT_OK;
  free(groups);
  if (*rows) *view = feint_mesh_cells_view(m, *rows, n);
  return status;
}

int feint_boundary_create(const feint_case *c, const feint_space *s, feint_boundary_conditions **out) {
  feint_mesh view;
  int64_t *rows = NULL;
  FEINT_CALL(flux_candidates(c, s->mesh, &view, &rows));
  const int status = feint_boundary_create_with_holders(c, s, rows ? &view : NULL, out);
  free(rows);
  return status;
}

int feint_boundary_create_with_holders(const feint_case *c, const feint_space *s, const feint_mesh *holders,
                                       feint_boundary_conditions **out) {
  *out = NULL;
  const feint_mesh *m = s->mesh;
  if (holders && (holders->n_geometry_nodes || holders->n_blocks != 1 || holders->cell_type != m->cell_type ||
                  holders->n_nodes != m->n_nodes))
    return feint_error_set(FEINT_ERR_COMPUTE, "internal: the flux facets' cells are not of the mesh's straight shape "
                                              "on its nodes");
  feint_boundary_conditions *bc = NULL;
  FEINT_CALL(feint_calloc(1, sizeof *bc, &bc, "boundary conditions"));
  bc->space = s;
  bc->holders = holders ? holders : m;
  bc->n_dofs = s->n_dofs;
  bc->mode = c->dirichlet;
  int status;
  if ((status = feint_calloc((size_t)s->n_dofs, 1, &bc->constrained, "Dirichlet marks")) ||
      (status = feint_calloc((size_t)s->n_dofs, sizeof *bc->g, &bc->g, "Dirichlet values")) ||
      (status = feint_malloc((size_t)s->n_dofs, sizeof *bc->slot_of, &bc->slot_of, "boundary dof slots")) ||
      (c->n_boundary && (status = feint_space_facets_create(s, &bc->facet_lookup))))
    goto fail;
  int shapes[2];
  const int n_shapes = facet_shapes(m, shapes);
  for (int64_t d = 0; d < s->n_dofs; d++) bc->slot_of[d] = -1;
  for (int i = 0; i < c->n_boundary && !status; i++) {
    const feint_boundary *b = &c->boundary[i];
    int g = -1;
    if ((status = find_group(m, b, i, &g))) goto fail;
    const int64_t f0 = m->facet_offsets[g], f1 = m->facet_offsets[g + 1];
    char name[64];
    bvalue v[12];
    int64_t used = 0;
    if (b->dirichlet.n) {
      snprintf(name, sizeof name, "boundary[%d].dirichlet", i);
      if ((status = sample_list(&b->dirichlet, s, name, b->where, v))) goto fail;
      status = mark_dirichlet(bc, b->where, name, v, f0, f1, &used);
      for (int k = 0; k < 3; k++) bvalue_release(&v[k]);
      if (status) goto fail;
    }
    if (b->neumann.n) {
      snprintf(name, sizeof name, "boundary[%d].neumann", i);
      if ((status = sample_list(&b->neumann, s, name, b->where, v))) goto fail;
      int varies = 0;
      for (int k = 0; k < s->components; k++) varies |= v[k].kind >= 2;
      for (int k = 0; k < n_shapes && !status; k++)
        status = add_facet_set(bc, b->where, name, 0, v, s->components, 0, varies, shapes[k], f0, f1, NULL, &used);
      for (int k = 0; k < 3; k++) bvalue_release(&v[k]);
      if (status) goto fail;
    }
    if (b->flux.n) {
      snprintf(name, sizeof name, "boundary[%d].flux", i);
      if ((status = flux_values(b, name, s, v))) goto fail;
      const bvalue one = {.kind = 1, .constant = 1}; /* the value q . n is in the measures: det */
      for (int k = 0; k < n_shapes && !status; k++)
        status = add_facet_set(bc, b->where, name, 0, &one, 1, 0, 1, shapes[k], f0, f1, v, &used);
      for (int k = 0; k < 3; k++) bvalue_release(&v[k]);
      if (status) goto fail;
    }
    if (b->has_robin) {
      unsigned pairs = 0;
      int varies = 0;
      if ((status = robin_coefficients(b, i, s, v, &pairs, &varies))) goto fail;
      const int nc = s->components;
      snprintf(name, sizeof name, "boundary[%d].robin", i);
      for (int k = 0; k < n_shapes && !status; k++)
        status = add_facet_set(bc, b->where, name, 1, v, nc * nc + nc, pairs, varies, shapes[k], f0, f1, NULL, &used);
      for (int k = 0; k < 12; k++) bvalue_release(&v[k]);
      if (status) goto fail;
    }
    if (used == 0) {
      status = feint_error_set(FEINT_ERR_INPUT,
                               "%s: boundary[%d].group: physical group '%s' has no facet on the cells of "
                               "the region",
                               b->where, i, b->group);
      goto fail;
    }
  }
  free(bc->slot_of);
  bc->slot_of = NULL;
  feint_space_facets_destroy(bc->facet_lookup);
  bc->facet_lookup = NULL;
  free(bc->node_cell_ptr);
  free(bc->node_cells);
  bc->node_cell_ptr = bc->node_cells = NULL;
  bc->holders = NULL;
  if ((status = number_sites(bc)) ||
      (status = feint_calloc((size_t)bc->n_load, sizeof *bc->load, &bc->load, "boundary load")))
    goto fail;
  for (int k = 0; k < bc->n_sets; k++) {
    if (bc->sets[k].v.robin) bc->n_robin_facets += bc->sets[k].v.n_facets;
    else bc->n_neumann_facets += bc->sets[k].v.n_facets;
  }
  for (int64_t d = 0; d < s->n_dofs; d++) bc->n_dirichlet += bc->constrained[d];
  if ((status = feint_malloc((size_t)bc->n_dirichlet, sizeof(int64_t), &bc->dirichlet_dofs, "Dirichlet dofs")) ||
      (status = feint_malloc((size_t)bc->n_dirichlet, sizeof(double), &bc->dirichlet_values, "Dirichlet values")))
    goto fail;
  int64_t k = 0;
  for (int64_t d = 0; d < s->n_dofs; d++)
    if (bc->constrained[d]) {
      bc->dirichlet_dofs[k] = d;
      bc->dirichlet_values[k++] = bc->g[d];
    }
  *out = bc;
  return FEINT_OK;
fail:
  feint_boundary_destroy(bc);
  return status;
}

/* The host reference of the facet integrals (a device twin, such as the
 * cuda backend's, uses the same functions of facet.h):
 * per facet the point values jw (nq), L (nq x nc load terms) and A (nq x
 * nc^2, alpha) first, then the entries from them. */
static void integrate_host(const feint_facet_view *v, double *jw, double *L, double *A, double *load,
                           double *sites) {
  const int nc = v->nc, nbc = v->nb * nc, nq = v->nq;
  for (int64_t f = 0; f < v->n_facets; f++) {
    for (int q = 0; q < nq; q++) {
      jw[q] = v->weights[q] * feint_facet_det(v, f, q);
      for (int c = 0; c < nc; c++) L[q * nc + c] = feint_facet_load_term(v, f, q, c);
      for (int k = 0; k < nc * nc && v->robin; k++)
        A[q * nc * nc + k] = v->pairs >> k & 1u ? feint_facet_coef(v, f, q, k) : 0.0;
    }
    const int64_t *li = v->load_index + f * nbc;
    for (int i = 0; i < v->nb; i++)
      for (int c = 0; c < nc; c++) {
        double s = 0;
        for (int q = 0; q < nq; q++) s += jw[q] * L[q * nc + c] * v->phi[q * v->nb + i];
        load[li[i * nc + c]] += s;
      }
    if (!v->robin) continue;
    const int64_t *si = v->site_index + f * nbc * nbc;
    for (int i = 0; i < v->nb; i++)
      for (int c = 0; c < nc; c++)
        for (int j = 0; j < v->nb; j++)
          for (int d = 0; d < nc; d++) {
            const int64_t t = si[(i * nc + c) * nbc + j * nc + d];
            if (t < 0) continue;
            double s = 0;
            for (int q = 0; q < nq; q++) {
              const double *p = v->phi + q * v->nb;
              s += jw[q] * A[q * nc * nc + c * nc + d] * p[i] * p[j];
            }
            sites[t] += s;
          }
  }
}

int feint_facets_host(const feint_facet_view *const *sets, int n_sets, int64_t n_load, int64_t n_sites, double *load,
                      double *sites) {
  int nq = 1;
  for (int k = 0; k < n_sets; k++) nq = sets[k]->nq > nq ? sets[k]->nq : nq;
  double *jw = NULL;
  FEINT_CALL(feint_malloc((size_t)nq * (1 + 3 + 9), sizeof *jw, &jw, "facet point values"));
  memset(load, 0, (size_t)n_load * sizeof *load);
  memset(sites, 0, (size_t)n_sites * sizeof *sites);
  for (int k = 0; k < n_sets; k++) integrate_host(sets[k], jw, jw + nq, jw + 4 * nq, load, sites);
  free(jw);
  return FEINT_OK;
}

const feint_facet_view *feint_boundary_facet_view(const feint_boundary_conditions *bc, int k) {
  return k >= 0 && k < bc->n_sets ? &bc->sets[k].v : NULL;
}

int feint_boundary_integrate(feint_boundary_conditions *bc, feint_facet_integrator *device) {
  enum { MAX_VIEWS = 64 };
  if (!bc || !bc->n_sets) return FEINT_OK; /* Dirichlet only: nothing to integrate (no device work) */
  const feint_facet_view *views[MAX_VIEWS];
  if (bc->n_sets > MAX_VIEWS)
    return feint_error_set(FEINT_ERR_INPUT, "at most %d Neumann/Robin boundary entries (%d given)", MAX_VIEWS,
                           bc->n_sets);
  for (int k = 0; k < bc->n_sets; k++) views[k] = &bc->sets[k].v;
  if (device)
    FEINT_CALL(device(views, bc->n_sets, bc->n_load, bc->n_sites, bc->load, bc->site_values, &bc->device_stats));
  else
    FEINT_CALL(feint_facets_host(views, bc->n_sets, bc->n_load, bc->n_sites, bc->load, bc->site_values));
  bc->integrated = 1;
  return FEINT_OK;
}

void feint_boundary_destroy(feint_boundary_conditions *bc) {
  if (!bc) return;
  free(bc->dirichlet_dofs);
  free(bc->dirichlet_values);
  free(bc->constrained);
  free(bc->g);
  free(bc->slot_of);
  feint_space_facets_destroy(bc->facet_lookup);
  free(bc->node_cell_ptr);
  free(bc->node_cells);
  for (int k = 0; k < bc->n_sets; k++) facet_set_release(&bc->sets[k]);
  free(bc->sets);
  free(bc->load_dofs);
  free(bc->load);
  free(bc->site_rows);
  free(bc->site_cols);
  free(bc->site_values);
  free(bc->site_positions);
  free(bc->dirichlet_u);
  free(bc->site_u);
  free(bc);
}

/* Position of column j in row i of the plan's sorted pattern, -1 if absent. */
static int64_t csr_find(const feint_plan *p, int64_t i, int64_t j) {
  int64_t lo = p->indptr[i], hi = p->indptr[i + 1];
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (feint_plan_column(p, mid) < j) lo = mid + 1;
    else hi = mid;
  }
  return lo < p->indptr[i + 1] && feint_plan_column(p, lo) == j ? lo : -1;
}

static int robin_missing(int64_t i, int64_t j) {
  return feint_error_set(FEINT_ERR_COMPUTE, "internal: Robin entry (%lld, %lld) is not in the matrix pattern",
                         (long long)i, (long long)j);
}

int feint_boundary_bind_pattern(feint_boundary_conditions *bc, const feint_plan *plan) {
  if (!bc || !bc->n_sites) return FEINT_OK;
  if (bc->site_positions && bc->site_plan == plan) return FEINT_OK;
  free(bc->site_positions);
  bc->site_positions = NULL;
  int64_t *pos = NULL;
  FEINT_CALL(feint_malloc((size_t)bc->n_sites, sizeof *pos, &pos, "Robin positions"));
  for (int64_t t = 0; t < bc->n_sites; t++) {
    pos[t] = csr_find(plan, bc->site_rows[t], bc->site_cols[t]);
    if (pos[t] < 0) {
      free(pos);
      return robin_missing(bc->site_rows[t], bc->site_cols[t]);
    }
  }
  bc->site_positions = pos;
  bc->site_plan = plan;
  return FEINT_OK;
}

int feint_boundary_rhs_needs_matrix(const feint_boundary_conditions *bc) {
  return bc && bc->mode == FEINT_DIRICHLET_SYMMETRIC && bc->n_dirichlet > 0;
}

void feint_boundary_apply_residual_rows(const feint_boundary_conditions *bc, const double *u, int64_t row0,
                                        int64_t n_rows, double *F) {
  const int64_t end = row0 + n_rows;
  for (int64_t k = 0; k < bc->n_load; k++) {
    const int64_t d = bc->load_dofs[k];
    if (d >= row0 && d < end) F[d - row0] -= bc->load[k];
  }
  for (int64_t t = 0; t < bc->n_sites; t++) {
    const int64_t i = bc->site_rows[t];
    if (i >= row0 && i < end) F[i - row0] += bc->site_values[t] * (u ? u[bc->site_cols[t]] : bc->site_u[t]);
  }
  for (int64_t k = 0; k < bc->n_dirichlet; k++) {
    const int64_t d = bc->dirichlet_dofs[k];
    if (d >= row0 && d < end) F[d - row0] = (u ? u[d] : bc->dirichlet_u[k]) - bc->dirichlet_values[k];
  }
}

void feint_boundary_apply_residual(const feint_boundary_conditions *bc, const double *u, double *F) {
  feint_boundary_apply_residual_rows(bc, u, 0, bc->n_dofs, F);
}

int feint_boundary_apply_rhs_rows(const feint_boundary_conditions *bc, const feint_plan *plan, int64_t row0,
                                  int64_t n_rows, const double *values, double *b) {
  const int64_t end = row0 + n_rows;
  for (int64_t k = 0; k < bc->n_load; k++) {
    const int64_t d = bc->load_dofs[k];
    if (d >= row0 && d < end) b[d - row0] += bc->load[k];
  }
  if (feint_boundary_rhs_needs_matrix(bc)) {
    if (!plan || !values || plan->n_rows != n_rows)
      return feint_error_set(FEINT_ERR_COMPUTE, "internal: symmetric Dirichlet lifting needs the matrix");
    for (int64_t i = 0; i < n_rows; i++) {
      if (bc->constrained[row0 + i]) continue;
      double lift = 0;
      for (int64_t k = plan->indptr[i]; k < plan->indptr[i + 1]; k++) {
        const int64_t j = feint_plan_column(plan, k);
        if (bc->constrained[j]) lift += values[k] * bc->g[j];
      }
      b[i] -= lift;
    }
    /* the matrix lifted with includes the Robin terms (added by apply_matrix) */
    for (int64_t t = 0; t < bc->n_sites; t++) {
      const int64_t i = bc->site_rows[t], j = bc->site_cols[t];
      if (i >= row0 && i < end && !bc->constrained[i] && bc->constrained[j])
        b[i - row0] -= bc->site_values[t] * bc->g[j];
    }
  }
  for (int64_t k = 0; k < bc->n_dirichlet; k++) {
    const int64_t d = bc->dirichlet_dofs[k];
    if (d >= row0 && d < end) b[d - row0] = bc->dirichlet_values[k];
  }
  return FEINT_OK;
}

int feint_boundary_apply_rhs(const feint_boundary_conditions *bc, const feint_plan *plan, const double *values,
                             double *b) {
  return feint_boundary_apply_rhs_rows(bc, plan, 0, bc->n_dofs, values, b);
}

int feint_boundary_apply_matrix_rows(const feint_boundary_conditions *bc, const feint_plan *plan, int64_t row0,
                                     double *values) {
  const int64_t n_rows = plan->n_rows, end = row0 + n_rows;
  const int64_t *indptr = plan->indptr;
  const int symmetric = bc->mode == FEINT_DIRICHLET_SYMMETRIC;
  /* Robin terms first, then the Dirichlet elimination */
  const int bound = bc->site_positions && bc->site_plan == plan && row0 == 0;
  for (int64_t t = 0; t < bc->n_sites; t++) {
    const int64_t i = bc->site_rows[t];
    if (i < row0 || i >= end) continue;
    const int64_t k = bound ? bc->site_positions[t] : csr_find(plan, i - row0, bc->site_cols[t]);
    if (k < 0) return robin_missing(i, bc->site_cols[t]);
    values[k] += bc->site_values[t];
  }
  for (int64_t r = 0; r < n_rows; r++) {
    const int64_t i = row0 + r;
    if (bc->constrained[i]) {
      int diagonal = 0;
      for (int64_t k = indptr[r]; k < indptr[r + 1]; k++) {
        const int on_diagonal = feint_plan_column(plan, k) == i;
        diagonal |= on_diagonal;
        values[k] = on_diagonal ? 1.0 : 0.0;
      }
      if (!diagonal)
        return feint_error_set(FEINT_ERR_COMPUTE, "internal: row %lld has no diagonal entry in the pattern",
                               (long long)i);
    } else if (symmetric) {
      for (int64_t k = indptr[r]; k < indptr[r + 1]; k++)
        if (bc->constrained[feint_plan_column(plan, k)]) values[k] = 0.0;
    }
  }
  return FEINT_OK;
}

int feint_boundary_apply_matrix(const feint_boundary_conditions *bc, const feint_plan *plan, double *values) {
  return feint_boundary_apply_matrix_rows(bc, plan, 0, values);
}

/* ---- the conditions as another rank applies them to its rows ---- */

enum { PACK_HEAD = 6 }; /* mode, n_dofs, n_dirichlet, n_load, n_sites, u given */

int feint_boundary_pack(const feint_boundary_conditions *bc, const double *u, void **buf, size_t *bytes) {
  const int64_t nd = bc->n_dirichlet, nl = bc->n_load, ns = bc->n_sites;
  const int64_t head[PACK_HEAD] = {bc->mode, bc->n_dofs, nd, nl, ns, u != NULL};
  *bytes = sizeof head + (size_t)(nd * (u ? 3 : 2) + nl * 2 + ns * (u ? 4 : 3)) * 8;
  char *b = NULL;
  FEINT_CALL(feint_malloc(*bytes, 1, &b, "the boundary conditions for the other ranks"));
  char *at = b;
#define PUT(src, n)                                  \
  do {                                               \
    if ((n) > 0) memcpy(at, (src), (size_t)(n) * 8); \
    at += (size_t)(n) * 8;                           \
  } while (0)
  PUT(head, PACK_HEAD);
  PUT(bc->dirichlet_dofs, nd);
  PUT(bc->dirichlet_values, nd);
  for (int64_t k = 0; u && k < nd; k++, at += 8) memcpy(at, &u[bc->dirichlet_dofs[k]], 8);
  PUT(bc->load_dofs, nl);
  PUT(bc->load, nl);
  PUT(bc->site_rows, ns);
  PUT(bc->site_cols, ns);
  PUT(bc->site_values, ns);
  for (int64_t t = 0; u && t < ns; t++, at += 8) memcpy(at, &u[bc->site_cols[t]], 8);
#undef PUT
  *buf = b;
  return FEINT_OK;
}

/* An array of n 8-byte values taken from the message (n may be 0). */
static int take(const char **at, int64_t n, void *out_ptr, const char *what) {
  void **out = out_ptr;
  FEINT_CALL(feint_malloc((size_t)n + 1, 8, out, what));
  if (n > 0) memcpy(*out, *at, (size_t)n * 8);
  *at += (size_t)n * 8;
  return FEINT_OK;
}

int feint_boundary_unpack(const void *buf, size_t bytes, feint_boundary_conditions **out) {
  *out = NULL;
  int64_t head[PACK_HEAD];
  if (bytes < sizeof head) return feint_error_set(FEINT_ERR_COMPUTE, "internal: boundary conditions cut short");
  memcpy(head, buf, sizeof head);
  const int64_t n = head[1], nd = head[2], nl = head[3], ns = head[4], has_u = head[5];
  if (n < 0 || nd < 0 || nd > n || nl < 0 || ns < 0 ||
      bytes != sizeof head + (size_t)(nd * (has_u ? 3 : 2) + nl * 2 + ns * (has_u ? 4 : 3)) * 8)
    return feint_error_set(FEINT_ERR_COMPUTE, "internal: boundary conditions malformed");
  feint_boundary_conditions *bc = NULL;
  FEINT_CALL(feint_calloc(1, sizeof *bc, &bc, "boundary conditions"));
  bc->mode = (feint_dirichlet_mode)head[0];
  bc->n_dofs = n;
  bc->n_dirichlet = nd;
  bc->n_load = bc->load_capacity = nl;
  bc->n_sites = ns;
  bc->integrated = 1;
  const char *at = (const char *)buf + sizeof head;
  int status;
  if ((status = take(&at, nd, &bc->dirichlet_dofs, "Dirichlet dofs")) ||
      (status = take(&at, nd, &bc->dirichlet_values, "Dirichlet values")) ||
      (has_u && (status = take(&at, nd, &bc->dirichlet_u, "the state at Dirichlet dofs"))) ||
      (status = take(&at, nl, &bc->load_dofs, "boundary load")) || (status = take(&at, nl, &bc->load, "boundary load")) ||
      (status = take(&at, ns, &bc->site_rows, "Robin entries")) ||
      (status = take(&at, ns, &bc->site_cols, "Robin entries")) ||
      (status = take(&at, ns, &bc->site_values, "Robin entries")) ||
      (has_u && (status = take(&at, ns, &bc->site_u, "the state at Robin entries"))) ||
      (status = feint_calloc((size_t)n + 1, 1, &bc->constrained, "Dirichlet marks")) ||
      (status = feint_calloc((size_t)n + 1, sizeof *bc->g, &bc->g, "Dirichlet values"))) {
    feint_boundary_destroy(bc);
    return status;
  }
  for (int64_t k = 0; k < nd; k++) {
    const int64_t d = bc->dirichlet_dofs[k];
    if (d < 0 || d >= n) {
      feint_boundary_destroy(bc);
      return feint_error_set(FEINT_ERR_COMPUTE, "internal: Dirichlet dof %lld out of range", (long long)d);
    }
    bc->constrained[d] = 1;
    bc->g[d] = bc->dirichlet_values[k];
  }
  for (int64_t t = 0; t < ns; t++)
    if (bc->site_rows[t] < 0 || bc->site_rows[t] >= n || bc->site_cols[t] < 0 || bc->site_cols[t] >= n) {
      feint_boundary_destroy(bc);
      return feint_error_set(FEINT_ERR_COMPUTE, "internal: a Robin entry out of range");
    }
  for (int64_t k = 0; k < nl; k++)
    if (bc->load_dofs[k] < 0 || bc->load_dofs[k] >= n) {
      feint_boundary_destroy(bc);
      return feint_error_set(FEINT_ERR_COMPUTE, "internal: a boundary load dof out of range");
    }
  *out = bc;
  return FEINT_OK;
}

int feint_boundary_write(const feint_boundary_conditions *bc, feint_output *o, const char *prefix) {
  const int64_t n = bc->n_dirichlet;
  char name[512];
  snprintf(name, sizeof name, "%sboundary/dirichlet_dofs", prefix ? prefix : "");
  FEINT_CALL(feint_output_int64(o, name, 1, &n, bc->dirichlet_dofs));
  snprintf(name, sizeof name, "%sboundary/dirichlet_values", prefix ? prefix : "");
  FEINT_CALL(feint_output_doubles(o, name, 1, &n, bc->dirichlet_values));
  return FEINT_OK;
}
