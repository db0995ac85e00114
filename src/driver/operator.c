/* The operator section of a case: y = A x by a matrix-free BP operator on
 * the hexahedra of the run's mesh, applied through an operator backend
 * (feint_backend_operator_create), timed as the residual phase
 * (norms.residual = |y|). Under mpirun every rank applies its part's
 * operator and rank 0 adds the parts' y (dist.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/run.h"
#include "feint/bp.h"
#include "feint/error.h"
#include "feint/expr.h"

/* What an operator run owns (released by operator_release). */
typedef struct {
  feint_hexmesh *hm;
  feint_bp_dofmap *dofs;
  feint_bp_op *op;
  feint_operator *backend; /* y = A x on the chosen backend kind (one rank) */
  double *xyz, *x, *y;
  double *part_y;          /* under mpirun: y of rank 0's part */
} operator_state;

static void operator_release(operator_state *o) {
  feint_operator_destroy(o->backend);
  feint_bp_op_destroy(o->op);
  feint_bp_dofmap_destroy(o->dofs);
  feint_hexmesh_destroy(o->hm);
  free(o->xyz);
  free(o->x);
  free(o->y);
  free(o->part_y);
  memset(o, 0, sizeof *o);
}

/* x = state.u at the GLL dofs (0 when absent). */
static int operator_x_sample(const feint_case *c, operator_state *o) {
  const int64_t n = o->dofs->n_dofs;
  const feint_value *v = c->state_u.n ? &c->state_u.c[0] : NULL;
  if (!v || v->kind == FEINT_VALUE_NONE || v->kind == FEINT_VALUE_CONSTANT) {
    const double u = v && v->kind == FEINT_VALUE_CONSTANT ? v->constant : 0;
    FEINT_CALL(feint_malloc((size_t)n + 1, sizeof(double), &o->x, "operator x"));
    for (int64_t i = 0; i < n; i++) o->x[i] = u;
    return FEINT_OK;
  }
  if (v->kind == FEINT_VALUE_DATASET || v->kind == FEINT_VALUE_GROUPS) {
    if (v->kind == FEINT_VALUE_GROUPS || v->on_cells)
      return feint_error_set(FEINT_ERR_INPUT, "%s: state.u: the operator needs values at the dofs (on: node, %lld "
                             "values in the order of /dofs/coordinates), not per cell", v->where, (long long)n);
    return feint_h5_read_doubles(v->file, v->dataset, n, v->where, &o->x);
  }
  feint_expr *e = NULL;
  FEINT_CALL(feint_expr_create(v->expression, v->where, &e));
  int st = feint_malloc((size_t)n + 1, sizeof(double), &o->x, "operator x");
  for (int64_t i = 0; !st && i < n; i++) o->x[i] = feint_expr_eval(e, o->xyz[3 * i], o->xyz[3 * i + 1], o->xyz[3 * i + 2]);
  feint_expr_destroy(e);
  return st;
}

/* operator_x_sample, refusing inf and nan as the coefficients do (form.c). */
static int operator_x(const feint_case *c, operator_state *o) {
  FEINT_CALL(operator_x_sample(c, o));
  const feint_value *v = &c->state_u.c[0];
  for (int64_t i = 0; i < o->dofs->n_dofs; i++) {
    if (isfinite(o->x[i])) continue;
    return feint_error_not_finite(v->where, "state.u", feint_value_text(v), o->x[i], o->xyz + 3 * i);
  }
  return FEINT_OK;
}

/* y = A x, repeat times (feint bench; times are medians): wall time of the
 * whole call; kernel time from the backend when it measures it (the GPU:
 * events around the kernels on random x, before the real apply), else the
 * wall time (the CPU). */
static int operator_apply(const feint_run_options *opts, feint_run_report *rep, feint_operator *b, const double *x,
                          double *y) {
  double wall[RUN_MAX_REPEAT], h2d[RUN_MAX_REPEAT], d2h[RUN_MAX_REPEAT];
  const int n = run_repeats(opts);
  double kernel_ms = -1;
  if (b->apply_kernel_ms) FEINT_CALL(b->apply_kernel_ms(b, n > 5 ? n : 5, &kernel_ms));
  for (int k = 0; k < n; k++) {
    const run_transfers x0 = run_transfers_now();
    double t0 = feint_now();
    FEINT_CALL(b->apply(b, x, y));
    wall[k] = feint_now() - t0;
    const run_transfers dx = run_transfers_since(x0);
    h2d[k] = dx.h2d;
    d2h[k] = dx.d2h;
  }
  const double wall_median = run_median(wall, n);
  rep->seconds[FEINT_PHASE_RESIDUAL] += wall_median;
  rep->h2d_seconds[FEINT_PHASE_RESIDUAL] += run_median(h2d, n);
  rep->d2h_seconds[FEINT_PHASE_RESIDUAL] += run_median(d2h, n);
  rep->kernel_seconds[FEINT_PHASE_RESIDUAL] += kernel_ms >= 0 ? 1e-3 * kernel_ms : wall_median;
  return FEINT_OK;
}

/* op: the operator's parameters (under mpirun rank 0's part's, counted
 * for the whole mesh); b its backend. */
static int operator_write(run_state *r, const feint_run_report *rep, const operator_state *o, const feint_bp_op *part_op,
                          const feint_operator *b, double kernel_seconds, double apply_seconds) {
  feint_bp_op whole = *part_op; /* the cost model's counts of the whole (bp.h: scalars only) */
  whole.n_cells = o->dofs->n_cells;
  whole.n_dofs = o->dofs->n_dofs;
  const feint_bp_op *op = &whole;
  feint_output *out = r->out;
  const int64_t n = o->dofs->n_dofs, dims[2] = {n, 3}, cd[2] = {o->dofs->n_cells, o->dofs->np};
  char name[300], obj[300];
  FEINT_CALL(feint_output_doubles(out, run_member_path(r, "operator/x", name, sizeof name), 1, &n, o->x));
  FEINT_CALL(feint_output_doubles(out, run_member_path(r, "operator/y", name, sizeof name), 1, &n, o->y));
  FEINT_CALL(feint_output_doubles(out, run_member_path(r, "dofs/coordinates", name, sizeof name), 2, dims, o->xyz));
  FEINT_CALL(
      feint_output_int32(out, run_member_path(r, "dofs/cell_dofs", name, sizeof name), 2, cd, o->dofs->cell_dofs));
  snprintf(obj, sizeof obj, "/%soperator", r->prefix);
  FEINT_CALL(feint_output_attr_string(out, obj, "kind", feint_bp_name(op->kind)));
  FEINT_CALL(feint_output_attr_int64(out, obj, "order", op->order));
  FEINT_CALL(feint_output_attr_double(out, obj, "lambda", op->kind == FEINT_BP1_0 ? 0.0 : op->lambda));
  FEINT_CALL(feint_output_attr_string(out, obj, "geometry",
                                      op->geo_mode == FEINT_BP_GEO_STORED ? "stored" : "recompute"));
  FEINT_CALL(feint_output_attr_int64(out, obj, "quadrature_points", op->q));
  FEINT_CALL(feint_output_attr_int64(out, obj, "n_dofs", n));
  FEINT_CALL(feint_output_attr_int64(out, obj, "n_cells", op->n_cells));
  FEINT_CALL(feint_output_attr_double(out, obj, "min_bytes", feint_bp_min_bytes(op)));
  FEINT_CALL(feint_output_attr_double(out, obj, "flops", feint_bp_flops(op)));
  FEINT_CALL(feint_output_attr_double(out, obj, "kernel_seconds", kernel_seconds));
  FEINT_CALL(feint_output_attr_double(out, obj, "apply_seconds", apply_seconds));
  if (r->c->write_xdmf) FEINT_CALL(run_xdmf_operator_views(r, o->dofs));
  const run_provenance prov = {b->name, b->device, 0, feint_bp_name(op->kind), op->order, 1, -1, op->n_cells, n};
  return run_write_provenance(r, rep, &prov);
}

static int run_operator_body(const feint_run_options *opts, feint_run_report *rep, run_state *r, operator_state *o) {
  feint_case *c = r->c;
  const feint_mesh *m = r->mesh;
  char shapes[128];
  if (m->cell_type != FEINT_CELL_HEXAHEDRON || feint_mesh_is_mixed(m))
    return feint_error_set(FEINT_ERR_INPUT,
                           "%s: operator: the BP operators need a hexahedral mesh; %s has %s cells (mesh it with "
                           "Recombine / transfinite volumes, e.g. cases/hexcube.geo)",
                           c->operator_where, c->mesh_file, feint_mesh_shapes(m, shapes, sizeof shapes));
  if (c->precision == FEINT_PRECISION_SINGLE)
    return feint_error_set(FEINT_ERR_INPUT, "%s: operator: the BP operators compute in double precision only "
                           "(backend.precision: double)", c->operator_where);
  run_starting(opts, r, FEINT_PHASE_DOFMAP);
  double t0 = feint_now();
  int st = feint_hexmesh_from_mesh(m, &o->hm);
  if (!st) st = feint_hexmesh_take_geometry(o->hm, m);
  if (!st && o->hm->geometry_nodes && c->operator_geometry == FEINT_BP_GEO_RECOMPUTE)
    st = feint_error_set(FEINT_ERR_INPUT, "%s: operator.geometry: recompute takes the trilinear map of the "
                         "vertices; curved hexahedra need stored factors (operator.geometry: stored)",
                         c->operator_where);
  if (!st) st = feint_bp_dofmap_create(o->hm, c->order, &o->dofs);
  if (!st) st = feint_malloc((size_t)o->dofs->n_dofs * 3 + 1, sizeof(double), &o->xyz, "dof coordinates");
  if (!st) st = feint_bp_dof_coordinates(o->hm, o->dofs, o->xyz, NULL);
  rep->seconds[FEINT_PHASE_DOFMAP] += feint_now() - t0;
  FEINT_CALL(st);
  run_starting(opts, r, FEINT_PHASE_FORM);
  TIMED(rep, FEINT_PHASE_FORM, operator_x(c, o));
  rep->n_cells = m->n_cells;
  rep->n_dofs = o->dofs->n_dofs;
  rep->n_nodes = m->n_nodes;
  if (opts->check_only) return FEINT_OK;

  const feint_device_kind kind = opts->backend_set ? opts->backend : c->device;
  const feint_bp_geo_mode geo = (feint_bp_geo_mode)c->operator_geometry;
  run_starting(opts, r, FEINT_PHASE_SETUP);
  const run_transfers x0 = run_transfers_now();
  t0 = feint_now();
  char note[512] = "";
  /* the operator that applies: the whole's, or under mpirun rank 0's part's (every rank its own) */
  run_operator_part part = {NULL, NULL, o->x, o->dofs->n_dofs};
  if (r->dist) {
    st = run_dist_operator_setup(r, opts, kind, o->hm, o->dofs, o->x, c->operator_kind, geo, c->operator_lambda, &part,
                                 note, sizeof note);
    if (!st) st = run_dist_wait_setup(r, part.apply->name, part.apply->device, opts->device_index, rep);
  } else {
    st = run_operator_create(o->hm, o->dofs, c->operator_kind, geo, c->operator_lambda, kind, opts->device_index, &o->op,
                             &o->backend, note, sizeof note);
    part.op = o->op;
    part.apply = o->backend;
  }
  if (!st) st = feint_malloc((size_t)o->dofs->n_dofs + 1, sizeof(double), &o->y, "operator y");
  if (!st && r->dist) st = feint_malloc((size_t)part.n_dofs + 1, sizeof(double), &o->part_y, "operator y");
  rep->seconds[FEINT_PHASE_SETUP] += feint_now() - t0;
  run_transfers_add(rep, FEINT_PHASE_SETUP, x0);
  FEINT_CALL(st);
  if (note[0] && !opts->quiet && !rep->backend[0]) run_note(opts, "%s", note);
  /* accepted (cases sweep one section over every kind) but said, so that
   * nobody expects a screened mass operator */
  if (c->operator_kind == FEINT_BP1_0 && c->operator_lambda_where[0] && !opts->quiet && !rep->backend[0])
    run_note(opts, "note: %s: operator.lambda is ignored by bp1.0 (the mass operator has no lambda)",
             c->operator_lambda_where);
  snprintf(rep->backend, sizeof rep->backend, "%s", part.apply->name);
  snprintf(rep->device, sizeof rep->device, "%s", part.apply->device);
  rep->min_bytes[FEINT_PHASE_RESIDUAL] = feint_bp_min_bytes(part.op);
  rep->flops[FEINT_PHASE_RESIDUAL] = feint_bp_flops(part.op);
  run_starting(opts, r, FEINT_PHASE_RESIDUAL);
  const double k0 = rep->kernel_seconds[FEINT_PHASE_RESIDUAL], w0 = rep->seconds[FEINT_PHASE_RESIDUAL];
  if (r->dist) { /* rank 0's part, then every rank's y added into the whole's */
    FEINT_CALL(operator_apply(opts, rep, part.apply, part.x, o->part_y));
    TIMED(rep, FEINT_PHASE_RESIDUAL, run_dist_operator_apply(r, o->part_y, o->dofs->n_dofs, o->y));
  } else {
    FEINT_CALL(operator_apply(opts, rep, part.apply, o->x, o->y));
  }
  feint_backend_info info;
  FEINT_CALL(feint_operator_info_get(part.apply, &info));
  run_describe_residual_kernel(&info, rep);
  rep->residual_norm = run_norm2(o->y, o->dofs->n_dofs);
  run_starting(opts, r, FEINT_PHASE_WRITE);
  t0 = feint_now();
  st = operator_write(r, rep, o, part.op, part.apply, rep->kernel_seconds[FEINT_PHASE_RESIDUAL] - k0,
                      rep->seconds[FEINT_PHASE_RESIDUAL] - w0);
  rep->seconds[FEINT_PHASE_WRITE] += feint_now() - t0;
  return st;
}

int run_operator_create(const feint_hexmesh *hm, const feint_bp_dofmap *d, int bp_kind, int geo, double lambda,
                        feint_device_kind kind, int device_index, feint_bp_op **op, feint_operator **apply,
                        char *note, size_t note_size) {
  const int geo_on_device = feint_backend_operator_geo_on_device(kind, device_index) && !hm->geometry_nodes;
  FEINT_CALL(feint_bp_op_create(hm, d, (feint_bp_kind)bp_kind, geo_on_device ? FEINT_BP_GEO_RECOMPUTE : geo, lambda,
                                op));
  (*op)->geo_mode = (feint_bp_geo_mode)geo; /* the CPU recomputes what it does not hold (bp.h) */
  return feint_backend_operator_create(kind, device_index, *op, apply, note, note_size);
}

int run_operator(const feint_run_options *opts, feint_run_report *rep, run_state *r) {
  operator_state o;
  memset(&o, 0, sizeof o);
  int st = run_operator_body(opts, rep, r, &o);
  operator_release(&o);
  return st;
}
