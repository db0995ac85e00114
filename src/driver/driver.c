/* The pipeline of `feint run` / `feint check`. */
#include "feint/driver.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "feint/backend.h"
#include "feint/error.h"
#include "feint/form.h"
#include "feint/h5.h"
#include "feint/mesh.h"
#include "feint/plan.h"
#include "feint/sha256.h"
#include "feint/space.h"
#include "feint/version.h"
#include "backend/cuda/cuda_timing.h"

const char *const feint_phase_names[FEINT_PHASE_COUNT] = {
    "case", "mesh_read", "dof_map", "form", "pattern", "setup", "residual", "rhs", "element_matrices",
    "assembly", "write"};

double feint_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Everything a run owns, released in one place. */
typedef struct {
  feint_case *c;
  feint_mesh *mesh;
  feint_space *space;
  feint_form *form;
  feint_plan *plan;
  feint_backend *backend;
  feint_output *out;
  double *vec, *values, *Ke;
  int64_t *coords_dofs;
} run_state;

static void run_state_release(run_state *r) {
  feint_output_abort(r->out);
  feint_backend_destroy(r->backend);
  feint_plan_destroy(r->plan);
  feint_form_destroy(r->form);
  feint_space_destroy(r->space);
  feint_mesh_destroy(r->mesh);
  feint_case_destroy(r->c);
  free(r->vec);
  free(r->values);
  free(r->Ke);
}

#define TIMED(report, phase, expr)                                                                 \
  do {                                                                                             \
    double t0_ = feint_now();                                                                      \
    int s_ = (expr);                                                                               \
    (report)->seconds[phase] += feint_now() - t0_;                                                 \
    if (s_) return s_;                                                                             \
  } while (0)

static int write_dofs(run_state *r) {
  const feint_space *s = r->space;
  const int nc = s->components;
  const int64_t n = s->n_dofs;
  double *xyz = NULL;
  int32_t *comp = NULL;
  int status;
  if ((status = feint_malloc((size_t)n * 3, sizeof *xyz, &xyz, "dof coordinates")) ||
      (status = feint_malloc((size_t)n, sizeof *comp, &comp, "dof components"))) {
    free(xyz);
    return status;
  }
  for (int64_t i = 0; i < n; i++) {
    memcpy(xyz + 3 * i, s->coordinates + 3 * (i / nc), 3 * sizeof(double));
    comp[i] = (int32_t)(i % nc);
  }
  int64_t dims[2] = {n, 3}, cd[2] = {s->mesh->n_cells, s->nbc};
  if (!(status = feint_output_doubles(r->out, "dofs/coordinates", 2, dims, xyz)) &&
      !(status = feint_output_int32(r->out, "dofs/component", 1, &n, comp)))
    status = feint_output_int64(r->out, "dofs/cell_dofs", 2, cd, s->cell_dofs);
  free(xyz);
  free(comp);
  return status;
}

static int write_provenance(run_state *r, const feint_run_report *rep) {
  feint_output *o = r->out;
  char mesh_sha[65];
  FEINT_CALL(feint_sha256_file(r->c->mesh_file, mesh_sha));
  FEINT_CALL(feint_output_attr_string(o, NULL, "feint_version", FEINT_VERSION));
  FEINT_CALL(feint_output_attr_string(o, NULL, "case", r->c->as_run));
  FEINT_CALL(feint_output_attr_string(o, NULL, "case_sha256", r->c->sha256));
  FEINT_CALL(feint_output_attr_string(o, NULL, "mesh_sha256", mesh_sha));
  FEINT_CALL(feint_output_attr_string(o, NULL, "mesh_file", r->c->mesh_file));
  FEINT_CALL(feint_output_attr_string(o, NULL, "backend", r->backend->name));
  FEINT_CALL(feint_output_attr_string(o, NULL, "device", r->backend->device));
  /* the CPU reference always computes in double */
  const int single = r->c->precision == FEINT_PRECISION_SINGLE && strcmp(r->backend->name, "cpu") != 0;
  FEINT_CALL(feint_output_attr_string(o, NULL, "precision", single ? "single" : "double"));
  FEINT_CALL(feint_output_attr_string(o, NULL, "physics", feint_physics_name(r->c->physics)));
  FEINT_CALL(feint_output_attr_int64(o, NULL, "order", r->space->order));
  FEINT_CALL(feint_output_attr_int64(o, NULL, "components", r->space->components));
  FEINT_CALL(feint_output_attr_int64(o, NULL, "quadrature_degree", r->form->quadrature_degree));
  FEINT_CALL(feint_output_attr_int64(o, NULL, "n_cells", r->mesh->n_cells));
  FEINT_CALL(feint_output_attr_int64(o, NULL, "n_dofs", r->space->n_dofs));
  for (int k = 0; k < FEINT_PHASE_COUNT; k++) {
    char name[64];
    snprintf(name, sizeof name, "time_%s", feint_phase_names[k]);
    FEINT_CALL(feint_output_attr_double(o, NULL, name, rep->seconds[k]));
  }
  FEINT_CALL(feint_output_attr_double(o, NULL, "time_gmsh_open", rep->gmsh_seconds));
  return FEINT_OK;
}

/* Euclidean norm (Frobenius for matrix values), for summaries. */
static double norm2(const double *v, int64_t n) {
  double s = 0;
  for (int64_t i = 0; i < n; i++) s += v[i] * v[i];
  return sqrt(s);
}

/* One backend call of a compute phase. */
static int compute_once(run_state *r, int phase) {
  feint_backend *b = r->backend;
  switch (phase) {
    case FEINT_PHASE_RESIDUAL: return b->residual(b, r->form->u, r->vec);
    case FEINT_PHASE_RHS: return b->rhs(b, r->vec);
    case FEINT_PHASE_ELEMENT: return b->element_matrices(b, r->Ke);
    case FEINT_PHASE_ASSEMBLY: return b->assemble_matrix(b, r->values);
  }
  return feint_error_set(FEINT_ERR_COMPUTE, "internal: phase %d is not a compute phase", phase);
}

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Run a compute phase (repeat times for feint bench: the times reported
 * are medians, so one slow first call does not count). */
static int compute(run_state *r, const feint_run_options *opts, feint_run_report *rep, int phase) {
  enum { MAX_REPEAT = 201 };
  double wall[MAX_REPEAT], kernel[MAX_REPEAT];
  int n = opts->repeat > 1 ? opts->repeat : 1;
  if (n > MAX_REPEAT) n = MAX_REPEAT;
  for (int k = 0; k < n; k++) {
    double t0 = feint_now();
    FEINT_CALL(compute_once(r, phase));
    wall[k] = feint_now() - t0;
    feint_cuda_stats st;
    kernel[k] = strcmp(r->backend->name, "cuda") == 0 && feint_cuda_info(r->backend, &st) == FEINT_OK
                    ? 1e-3 * st.last_kernel_ms
                    : 0;
  }
  qsort(wall, (size_t)n, sizeof *wall, compare_doubles);
  qsort(kernel, (size_t)n, sizeof *kernel, compare_doubles);
  rep->seconds[phase] = wall[n / 2];
  rep->kernel_seconds[phase] = kernel[n / 2];
  return FEINT_OK;
}

/* The fewest bytes each compute phase must move (see driver.h). */
static void min_bytes(const run_state *r, feint_run_report *rep) {
  const feint_mesh *m = r->mesh;
  const feint_space *s = r->space;
  const feint_form *f = r->form;
  const double index = s->n_dofs < INT32_MAX ? 4 : 8;
  double geometry = 8.0 * (double)m->dim * (double)m->n_nodes + index * (double)(m->n_cells * m->nv);
  double dofmap = s->order == 1 ? 0 : index * (double)(m->n_cells * s->nb); /* P1 uses the vertices */
  double coefficients = 0;
  for (int k = 0; k < f->n_aux; k++)
    coefficients += f->aux[k].kind == FEINT_FIELD_NODE   ? 8.0 * (double)s->n_scalar_dofs
                    : f->aux[k].kind == FEINT_FIELD_CELL ? 8.0 * (double)m->n_cells
                                                         : 0;
  const double vec = 8.0 * (double)s->n_dofs;
  rep->min_bytes[FEINT_PHASE_RESIDUAL] = geometry + dofmap + coefficients + 2 * vec;
  rep->min_bytes[FEINT_PHASE_RHS] = geometry + dofmap + coefficients + vec;
  rep->min_bytes[FEINT_PHASE_ELEMENT] =
      geometry + dofmap + coefficients + 8.0 * (double)m->n_cells * s->nbc * s->nbc;
  if (r->plan)
    rep->min_bytes[FEINT_PHASE_ASSEMBLY] = geometry + dofmap + coefficients + 8.0 * (double)r->plan->nnz;
}

static int run(const feint_run_options *opts, feint_run_report *rep, run_state *r) {
  TIMED(rep, FEINT_PHASE_CASE, feint_case_load(opts->case_path, opts->n_overrides, opts->overrides, &r->c));
  feint_case *c = r->c;
  const char *output = opts->output ? opts->output : c->output_file;
  if (!opts->check_only) {
    snprintf(rep->output, sizeof rep->output, "%s", output);
    FEINT_CALL(feint_output_create(output, &r->out)); /* fail early on an unwritable path */
  }
  if (c->n_boundary > 0)
    return feint_error_set(FEINT_ERR_INPUT, "%s: boundary conditions are not implemented yet in this version",
                           c->boundary[0].where);
  feint_mesh_options mo = {c->mesh_size, c->mesh_refine, c->n_region, (const char *const *)c->region,
                           c->n_region ? c->region_where : c->mesh_where};
  TIMED(rep, FEINT_PHASE_MESH, feint_mesh_read(c->mesh_file, &mo, &r->mesh));
  rep->gmsh_seconds = r->mesh->gmsh_seconds;
  int components = c->components;
  if (c->physics == FEINT_PHYSICS_ELASTICITY && components <= 1) components = r->mesh->dim;
  if (components <= 0) components = 1;
  TIMED(rep, FEINT_PHASE_DOFMAP, feint_space_create(r->mesh, c->order, components, &r->space));
  TIMED(rep, FEINT_PHASE_FORM, feint_form_create(c, r->space, &r->form));
  rep->n_cells = r->mesh->n_cells;
  rep->n_dofs = r->space->n_dofs;
  if (opts->check_only) return FEINT_OK;

  if (c->write_matrix) TIMED(rep, FEINT_PHASE_PATTERN, feint_plan_create(r->space, &r->plan));
  if (r->plan) rep->nnz = r->plan->nnz;
  feint_problem problem = {r->space, r->form, r->plan, c->precision, c->strategy, c->blocks_per_batch,
                           c->batches_per_chunk};
  char note[512];
  feint_device_kind kind = opts->backend_set ? opts->backend : c->device;
  TIMED(rep, FEINT_PHASE_SETUP,
        feint_backend_create(kind, opts->device_index, &problem, &r->backend, note, sizeof note));
  if (note[0] && !opts->quiet) fprintf(stderr, "feint: %s\n", note);
  snprintf(rep->backend, sizeof rep->backend, "%s", r->backend->name);
  snprintf(rep->device, sizeof rep->device, "%s", r->backend->device);
  rep->n_nodes = r->mesh->n_nodes;
  min_bytes(r, rep);
  const int64_t n = r->space->n_dofs;
  FEINT_CALL(feint_malloc((size_t)n, sizeof(double), &r->vec, "result vector"));
  if (c->write_residual) {
    FEINT_CALL(compute(r, opts, rep, FEINT_PHASE_RESIDUAL));
    rep->residual_norm = norm2(r->vec, n);
    FEINT_CALL(feint_output_doubles(r->out, "residual", 1, &n, r->vec));
  }
  if (c->write_rhs) {
    FEINT_CALL(compute(r, opts, rep, FEINT_PHASE_RHS));
    rep->rhs_norm = norm2(r->vec, n);
    FEINT_CALL(feint_output_doubles(r->out, "rhs", 1, &n, r->vec));
  }
  if (c->write_element_matrices) {
    const int64_t dims[3] = {r->mesh->n_cells, r->space->nbc, r->space->nbc};
    FEINT_CALL(feint_malloc((size_t)(dims[0] * dims[1] * dims[2]), sizeof(double), &r->Ke, "element matrices"));
    FEINT_CALL(compute(r, opts, rep, FEINT_PHASE_ELEMENT));
    FEINT_CALL(feint_output_doubles(r->out, "element_matrices", 3, dims, r->Ke));
  }
  if (r->plan) {
    FEINT_CALL(feint_malloc((size_t)r->plan->nnz, sizeof(double), &r->values, "matrix values"));
    FEINT_CALL(compute(r, opts, rep, FEINT_PHASE_ASSEMBLY));
    double t0 = feint_now();
    rep->matrix_norm = norm2(r->values, r->plan->nnz);
    FEINT_CALL(feint_output_csr(r->out, "matrix", n, n, r->plan->indptr, r->plan->indices, r->values));
    rep->seconds[FEINT_PHASE_WRITE] += feint_now() - t0;
  }
  double t0 = feint_now();
  FEINT_CALL(write_dofs(r));
  FEINT_CALL(write_provenance(r, rep));
  feint_output *o = r->out;
  r->out = NULL;
  FEINT_CALL(feint_output_commit(o));
  rep->seconds[FEINT_PHASE_WRITE] += feint_now() - t0;
  return FEINT_OK;
}

int feint_driver_run(const feint_run_options *opts, feint_run_report *report) {
  memset(report, 0, sizeof *report);
  run_state r;
  memset(&r, 0, sizeof r);
  int status = run(opts, report, &r);
  run_state_release(&r); /* aborts (removes) the temporary output on failure */
  return status;
}
