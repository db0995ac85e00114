/* The pipeline of `feint run` / `feint check`. */
#include "feint/driver.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "feint/backend.h"
#include "feint/boundary.h"
#include "feint/error.h"
#include "feint/expr.h"
#include "feint/form.h"
#include "feint/h5.h"
#include "feint/mesh.h"
#include "feint/plan.h"
#include "feint/file_hash.h"
#include "feint/space.h"
#include "feint/version.h"
#include "driver/run.h"
#include "feint/dist.h"

const char *const feint_phase_names[FEINT_PHASE_COUNT] = {
    "case", "mesh_read", "dof_map", "form", "pattern", "setup", "residual", "rhs", "element_matrices",
    "assembly", "write"};

double feint_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}


/* Destroy the backend and the form it holds. */
static void release_backend(run_state *r) {
  feint_backend_destroy(r->backend);
  feint_form_destroy(r->backend_form);
  r->backend = NULL;
  r->backend_form = NULL;
  memset(&r->problem, 0, sizeof r->problem);
}

/* Release what a member owns that the next cannot reuse; its form stays
 * with the backend, which the next member may take (setup_backend). */
static void run_release_member(run_state *r) {
  if (r->backend && r->problem.form == r->form && r->form) {
    feint_form_destroy(r->backend_form);
    r->backend_form = r->form;
  } else {
    feint_form_destroy(r->form);
  }
  feint_boundary_destroy(r->bc);
  r->bc = NULL;
  free(r->vec);
  free(r->rhs);
  if (!r->values_in_part) free(r->values);
  r->values_in_part = 0;
  free(r->Ke);
  free(r->u_kept);
  r->u_kept = NULL;
  r->form = NULL;
  r->vec = r->rhs = r->values = r->Ke = NULL;
}

/* The space and the plan made on it go, and the mesh unless keep_mesh. */
static void drop_space(run_state *r, int keep_mesh) {
  feint_plan_destroy(r->plan);
  feint_space_destroy(r->space);
  r->plan = NULL;
  r->space = NULL;
  if (keep_mesh) return;
  feint_mesh_destroy(r->mesh);
  r->mesh = NULL;
}

static void run_state_release(run_state *r) {
  run_release_member(r);
  release_backend(r);
  feint_output_abort(r->out);
  feint_file_hash_destroy(r->mesh_hash);
  r->mesh_hash = NULL;
  run_xdmf_forget(r);
  drop_space(r, 0);
  r->out = NULL;
}

static int same_mesh(const feint_case *a, const feint_case *b) {
  if (strcmp(a->mesh_file, b->mesh_file) || a->mesh_size != b->mesh_size || a->mesh_refine != b->mesh_refine ||
      a->mesh_reorder != b->mesh_reorder || a->mesh_curved_nodes != b->mesh_curved_nodes || a->n_region != b->n_region)
    return 0;
  for (int i = 0; i < a->n_region; i++)
    if (strcmp(a->region[i], b->region[i])) return 0;
  return 1;
}

int run_space_components(const feint_case *c, const feint_mesh *m) {
  if (c->physics == FEINT_PHYSICS_ELASTICITY && c->components <= 1) return m->dim;
  return c->components > 0 ? c->components : 1;
}

feint_mesh_options run_mesh_options(const feint_case *c) {
  return (feint_mesh_options){c->mesh_size, c->mesh_refine, c->n_region, (const char *const *)c->region,
                              c->n_region ? c->region_where : c->mesh_where, c->mesh_reorder,
                              0 /* curved cells: refused */, c->mesh_curved_nodes};
}

/* feint_space_create, with what it refuses (an order the cells lack) placed
 * at space.order in the case. */
static int create_space(const feint_case *c, const feint_mesh *m, feint_space **out) {
  int st = feint_space_create(m, c->order, run_space_components(c, m), out);
  if (st == FEINT_ERR_INPUT) st = feint_error_set(st, "%s: %s", c->order_where, feint_error_message());
  return st;
}

/* Keep what `next` can share with `prev` (NULL: nothing), free the rest
 * (the backend goes with the space and plan it was made for; whether the
 * next member can take it is setup_backend's decision). */
static void run_reuse(run_state *r, const feint_case *prev, const feint_case *next) {
  /* rank 0 holding its share of the mesh only keeps it for a member that can take its share as it is (its parts
   * kept: the other ranks' shares are gone); else the member reads the mesh again (run_dist_read_mesh) */
  const int share = run_dist_share_only(r), share_kept = !share || run_dist_share_serves(r, next);
  if (prev && r->mesh && same_mesh(prev, next) && r->space && prev->order == next->order &&
      run_space_components(prev, r->mesh) == run_space_components(next, r->mesh) && share_kept)
    return; /* mesh, space, plan (and maybe the backend) stay */
  run_dist_forget(r); /* the ranks' parts were made of them */
  r->pattern_at.file[0] = r->dofs_at.file[0] = r->xdmf_at.file[0] = '\0'; /* the next member writes its own */
  if (r->backend) r->backend_dropped = "the mesh or the space changed";
  release_backend(r);
  drop_space(r, prev && r->mesh && same_mesh(prev, next) && !share);
}

run_transfers run_transfers_now(void) {
  run_transfers t;
  feint_backend_transfer_seconds(&t.h2d, &t.d2h);
  return t;
}

run_transfers run_transfers_since(run_transfers before) {
  const run_transfers now = run_transfers_now();
  return (run_transfers){now.h2d - before.h2d, now.d2h - before.d2h};
}

void run_transfers_add(feint_run_report *rep, int phase, run_transfers before) {
  const run_transfers dx = run_transfers_since(before);
  rep->h2d_seconds[phase] += dx.h2d;
  rep->d2h_seconds[phase] += dx.d2h;
}

void run_note(const feint_run_options *opts, const char *fmt, ...) {
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  int w = vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (w < 0) return;
  if (w >= (int)sizeof line) line[feint_utf8_cut(line, sizeof line)] = '\0';
  if (opts->progress_ctx && opts->note) opts->note(opts->progress_ctx, line);
  else fprintf(stderr, "feint: %s\n", line);
}

/* Tell the caller a phase starts (progress display). */
void run_starting(const feint_run_options *opts, const run_state *r, int phase) {
  if (getenv("FEINT_TIMELINE")) {
    char what[64];
    snprintf(what, sizeof what, "phase: %s", feint_phase_names[phase]);
    feint_dist_timeline(what);
  }
  if (opts->progress) opts->progress(opts->progress_ctx, feint_phase_names[phase], r->member, r->n_members);
}


/* The name under which this output reaches a file written earlier in the
 * sweep: NULL for this very file (hard links), else a path relative to
 * this file's directory when both share one (external links). */
static const char *link_file(const run_state *r, const run_shared *at) {
  if (!strcmp(at->file, r->out_path)) return NULL;
  const char *a = strrchr(at->file, '/'), *b = strrchr(r->out_path, '/');
  const size_t da = a ? (size_t)(a - at->file) : 0, db = b ? (size_t)(b - r->out_path) : 0;
  if (da == db && !strncmp(at->file, r->out_path, da)) return a ? a + 1 : at->file;
  return at->file; /* another directory: as the sweep named it */
}

/* run.h */
int run_share_at(run_state *r, const run_shared *at, const char *name, int *linked) {
  *linked = 0;
  if (!at->file[0]) return FEINT_OK;
  char from[600], to[600];
  snprintf(from, sizeof from, "%s%s", r->prefix, name);
  snprintf(to, sizeof to, "%s%s", at->group, name);
  FEINT_CALL(feint_output_link(r->out, from, link_file(r, at), to));
  *linked = 1;
  return FEINT_OK;
}

/* Whether /dofs/cell_dofs goes in the file (output.cell_dofs). */
static int cell_dofs_wanted(const run_state *r) {
  if (r->c->write_xdmf) return 1; /* the XDMF topology is a view of it */
  if (r->c->write_cell_dofs >= 0) return r->c->write_cell_dofs;
  return r->whole.order > 1 || r->c->write_element_matrices;
}

/* /dofs: coordinates, component (no storage for a scalar space: all 0)
 * and the dof map, once per sweep while the space lives. */
static int write_dofs(run_state *r) {
  const feint_space *s = r->space;
  const int nc = r->whole.components;
  const int64_t n = r->whole.n_dofs;
  const int want_map = cell_dofs_wanted(r);
  int linked, status = FEINT_OK;
  FEINT_CALL(run_share_at(r, &r->dofs_at, "dofs/coordinates", &linked));
  if (linked) {
    FEINT_CALL(run_share_at(r, &r->dofs_at, "dofs/component", &linked));
    if (want_map) FEINT_CALL(run_share_at(r, &r->dofs_at, "dofs/cell_dofs", &linked));
    if (linked || !want_map) return FEINT_OK;
  }
  char a[300], b[300], c[300];
  snprintf(a, sizeof a, "%sdofs/coordinates", r->prefix);
  snprintf(b, sizeof b, "%sdofs/component", r->prefix);
  snprintf(c, sizeof c, "%sdofs/cell_dofs", r->prefix);
  int64_t dims[2] = {n, 3}, cd[2] = {r->whole.n_cells, r->whole.nbc};
  if (nc == 1) { /* the scalar coordinates are the dofs' own: no copy */
    FEINT_CALL(feint_output_doubles(r->out, a, 2, dims, s->coordinates));
    FEINT_CALL(feint_output_zeros_int32(r->out, b, n));
  } else {
    double *xyz = NULL;
    int32_t *comp = NULL;
    if ((status = feint_malloc((size_t)n * 3, sizeof *xyz, &xyz, "dof coordinates")) ||
        (status = feint_malloc((size_t)n, sizeof *comp, &comp, "dof components"))) {
      free(xyz);
      return status;
    }
    for (int64_t i = 0; i < n; i++) {
      memcpy(xyz + 3 * i, s->coordinates + 3 * (i / nc), 3 * sizeof(double));
      comp[i] = (int32_t)(i % nc);
    }
    if (!(status = feint_output_doubles(r->out, a, 2, dims, xyz))) status = feint_output_int32(r->out, b, 1, &n, comp);
    free(xyz);
    free(comp);
    FEINT_CALL(status);
  }
  /* (rank 0 on its share: the ranks wrote the map, write_dof_map_by_shares) */
  if (want_map && !run_dist_share_only(r)) FEINT_CALL(feint_output_int64(r->out, c, 2, cd, s->cell_dofs));
  if (!r->dofs_at.file[0]) {
    snprintf(r->dofs_at.file, sizeof r->dofs_at.file, "%s", r->out_path);
    snprintf(r->dofs_at.group, sizeof r->dofs_at.group, "%s", r->prefix);
  }
  return FEINT_OK;
}

/* Attributes of the results (provenance): on the root, or on the member's
 * group. */
int run_write_provenance(run_state *r, const feint_run_report *rep, const run_provenance *p) {
  feint_output *o = r->out;
  char object[300];
  snprintf(object, sizeof object, "/%s", r->prefix);
  const char *obj = object;
  char mesh_sha[65];
  const char *hashing = feint_file_hash_path(r->mesh_hash);
  if (!hashing || strcmp(hashing, r->c->mesh_file)) { /* a member on another mesh: its own, now */
    feint_file_hash_destroy(r->mesh_hash);
    r->mesh_hash = NULL;
    FEINT_CALL(feint_file_hash_start(r->c->mesh_file, r->hash_cache, &r->mesh_hash));
  }
  FEINT_CALL(feint_file_hash_wait(r->mesh_hash, mesh_sha));
  FEINT_CALL(feint_output_attr_string(o, obj, "feint_version", FEINT_VERSION));
  FEINT_CALL(feint_output_attr_string(o, obj, "case", r->c->as_run));
  FEINT_CALL(feint_output_attr_string(o, obj, "case_sha256", r->c->sha256));
  FEINT_CALL(feint_output_attr_string(o, obj, "mesh_sha256", mesh_sha));
  FEINT_CALL(feint_output_attr_string(o, obj, "mesh_file", r->c->mesh_file));
  FEINT_CALL(feint_output_attr_string(o, obj, "backend", p->backend));
  FEINT_CALL(feint_output_attr_string(o, obj, "device", p->device));
  FEINT_CALL(feint_output_attr_string(o, obj, "precision", p->single ? "single" : "double"));
  FEINT_CALL(feint_output_attr_string(o, obj, p->operator_name ? "operator" : "physics",
                                      p->operator_name ? p->operator_name : feint_physics_name(r->c->physics)));
  FEINT_CALL(feint_output_attr_int64(o, obj, "order", p->order));
  FEINT_CALL(feint_output_attr_int64(o, obj, "components", p->components));
  if (p->quadrature_degree >= 0)
    FEINT_CALL(feint_output_attr_int64(o, obj, "quadrature_degree", p->quadrature_degree));
  FEINT_CALL(feint_output_attr_int64(o, obj, "n_cells", p->n_cells));
  FEINT_CALL(feint_output_attr_int64(o, obj, "n_dofs", p->n_dofs));
  for (int k = 0; k < FEINT_PHASE_COUNT; k++) {
    char name[64];
    snprintf(name, sizeof name, "time_%s", feint_phase_names[k]);
    FEINT_CALL(feint_output_attr_double(o, obj, name, rep->seconds[k] - r->seconds_before[k]));
  }
  FEINT_CALL(feint_output_attr_double(o, obj, "time_gmsh_open", rep->gmsh_seconds));
  if (rep->n_colors > 0) FEINT_CALL(feint_output_attr_int64(o, obj, "colors", rep->n_colors));
  if (r->member >= 0) FEINT_CALL(feint_output_attr_int64(o, obj, "backend_reused", r->backend_reused));
  return FEINT_OK;
}

/* Euclidean norm (Frobenius for matrix values), for summaries. */
double run_norm2(const double *v, int64_t n) {
  double s = 0;
  for (int64_t i = 0; i < n; i++) s += v[i] * v[i];
  return sqrt(s);
}

/* Which kernel family ran the residual just computed (or the operator's
 * apply), and the backend's creation steps, where the backend reports
 * them (feint bench, --json). */
void run_describe_residual_kernel(const feint_backend_info *info, feint_run_report *rep) {
  snprintf(rep->residual_kernel, sizeof rep->residual_kernel, "%s", info->kernel);
  snprintf(rep->kernel_family, sizeof rep->kernel_family, "%s", info->family);
  if (info->setup_steps[0]) snprintf(rep->setup_steps, sizeof rep->setup_steps, "%s", info->setup_steps);
}

/* Which kernel family assembled the matrix just assembled. */
static int describe_matrix_kernel(const feint_backend *b, feint_run_report *rep) {
  feint_backend_info info;
  FEINT_CALL(feint_backend_info_get(b, &info));
  snprintf(rep->matrix_family, sizeof rep->matrix_family, "%s", info.matrix_family);
  return FEINT_OK;
}

/* Add a piece of the write phase to the report's breakdown ("matrix 12.3
 * ms, ..."), so the phase's time can be set against its floor piece by piece. */
static void write_step(feint_run_report *rep, const char *what, double seconds) {
  const size_t used = strlen(rep->write_steps);
  snprintf(rep->write_steps + used, sizeof rep->write_steps - used, "%s%s %.1f ms", used ? ", " : "", what,
           1e3 * seconds);
}

/* One backend call of a compute phase. */
static int compute_once(run_state *r, int phase) {
  feint_backend *b = r->backend;
  switch (phase) {
    case FEINT_PHASE_RESIDUAL: return b->residual(b, r->whole.u, r->vec);
    case FEINT_PHASE_RHS: return b->rhs(b, r->rhs);
    case FEINT_PHASE_ELEMENT: return b->element_matrices(b, r->Ke);
    case FEINT_PHASE_ASSEMBLY: return b->assemble_matrix(b, r->values);
  }
  return feint_error_set(FEINT_ERR_COMPUTE, "internal: phase %d is not a compute phase", phase);
}

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* How many times to run a compute phase. */
int run_repeats(const feint_run_options *opts) {
  int n = opts->repeat > 1 ? opts->repeat : 1;
  return n > RUN_MAX_REPEAT ? RUN_MAX_REPEAT : n;
}

/* The median of n timings (sorts them). */
double run_median(double *t, int n) {
  qsort(t, (size_t)n, sizeof *t, compare_doubles);
  return t[n / 2];
}

/* Run a compute phase (repeat times for feint bench: the times reported
 * are medians, so one slow first call does not count). */
static int compute(run_state *r, const feint_run_options *opts, feint_run_report *rep, int phase) {
  double wall[RUN_MAX_REPEAT], kernel[RUN_MAX_REPEAT], h2d[RUN_MAX_REPEAT], d2h[RUN_MAX_REPEAT];
  const int n = run_repeats(opts);
  run_starting(opts, r, phase);
  if (r->dist) { /* every rank its cells, summed by the rows' owners (once: feint bench's repeats are not shared) */
    double kernel_seconds = 0;
    const int lift = r->c->write_rhs && feint_boundary_rhs_needs_matrix(r->bc);
    TIMED(rep, phase, run_dist_compute(r, phase, lift, &kernel_seconds));
    rep->kernel_seconds[phase] += kernel_seconds;
    return FEINT_OK;
  }
  for (int k = 0; k < n; k++) {
    const run_transfers x0 = run_transfers_now();
    double t0 = feint_now();
    FEINT_CALL(compute_once(r, phase));
    wall[k] = feint_now() - t0;
    const run_transfers dx = run_transfers_since(x0);
    h2d[k] = dx.h2d;
    d2h[k] = dx.d2h;
    kernel[k] = r->backend->last_kernel_ms ? 1e-3 * r->backend->last_kernel_ms(r->backend) : 0;
  }
  rep->seconds[phase] += run_median(wall, n);
  rep->kernel_seconds[phase] += run_median(kernel, n);
  rep->h2d_seconds[phase] += run_median(h2d, n);
  rep->d2h_seconds[phase] += run_median(d2h, n);
  return FEINT_OK;
}

/* Refuse (FEINT_ERR_INPUT, before anything is allocated) an output whose
 * array of `count` values of `size` bytes exceeds the memory limit:
 * high-order cells make element matrices and CSR matrices huge (a
 * hexahedron of order 15 has 4096^2 entries, 134 MB, per cell). */
static int check_output_bytes(const char *key, const char *what, double count, int size) {
  const char *why;
  double limit;
  FEINT_CALL(feint_memory_limit(&limit, &why));
  const double bytes = count * size;
  if (bytes <= limit) return FEINT_OK;
  return feint_error_set(FEINT_ERR_INPUT,
                         "%s: %s need %.0f bytes (%.0f x %d), more than the memory limit of %.0f bytes (%s); use "
                         "fewer cells, a lower order or the residual (matrix-free) output",
                         key, what, bytes, count, size, limit, why);
}

/* check_output_bytes for the slot map the plan will build, at the width
 * it will use (64-bit past 2^31 nonzeros). */
static int check_slot_map_bytes(const char *key, const feint_space *s) {
  int64_t entries;
  int width;
  FEINT_CALL(feint_plan_slot_map_size(s, &entries, &width));
  return check_output_bytes(key, "the CSR pattern's slot map (cells x local dofs^2)", (double)entries, width);
}

/* The whole problem's sizes and work (run_whole), before anything of it
 * may be released. Where rank 0 holds its share of the mesh only
 * (run_dist_share), they are counted on the whole's cells and blocks: a
 * view of the share's mesh and space with the whole's counts (no array
 * of theirs is read here). */
static run_whole whole_of(const run_state *r) {
  const feint_mesh_share *share = run_dist_share(r);
  feint_mesh whole_mesh = *r->mesh;
  feint_space whole_space = *r->space;
  if (share) {
    whole_mesh.n_cells = share->whole_cells;
    whole_mesh.n_blocks = share->n_blocks;
    memcpy(whole_mesh.blocks, share->blocks, sizeof whole_mesh.blocks);
    whole_space.mesh = &whole_mesh;
  }
  const feint_mesh *m = &whole_mesh;
  const feint_space *s = &whole_space;
  const feint_form *f = r->form;
  double coefficients = 0;
  for (int k = 0; k < f->n_aux; k++) coefficients += (double)feint_field_size(f->aux[k].kind, s);
  return (run_whole){m->n_cells, m->n_nodes, s->n_dofs, m->dim, m->nv, s->nb, s->nbc, s->order, s->components,
                     f->quadrature_degree, f->u, coefficients,
                     {feint_form_flops(f, s, FEINT_FORM_WORK_RESIDUAL), feint_form_flops(f, s, FEINT_FORM_WORK_RHS),
                      feint_form_flops(f, s, FEINT_FORM_WORK_MATRIX)}};
}

/* The fewest bytes each compute phase must move (see driver.h), in the
 * precision the backend stores (single on the GPU: 4-byte reals; the cpu
 * backend computes in double whatever the case asks), and the flops of
 * its quadrature algorithm (feint_form_flops). */
static void work_model(const run_state *r, feint_run_report *rep) {
  const run_whole *w = &r->whole;
  const double real = r->precision == FEINT_PRECISION_SINGLE ? 4 : 8;
  const double index = w->n_dofs < INT32_MAX ? 4 : 8;
  double geometry = real * (double)w->dim * (double)w->n_nodes + index * (double)(w->n_cells * w->nv);
  double dofmap = w->order == 1 ? 0 : index * (double)(w->n_cells * w->nb); /* P1 uses the vertices */
  double coefficients = real * w->coefficient_values;
  const double vec = real * (double)w->n_dofs;
  rep->min_bytes[FEINT_PHASE_RESIDUAL] = geometry + dofmap + coefficients + 2 * vec;
  rep->min_bytes[FEINT_PHASE_RHS] = geometry + dofmap + coefficients + vec;
  rep->min_bytes[FEINT_PHASE_ELEMENT] =
      geometry + dofmap + coefficients + real * (double)w->n_cells * w->nbc * w->nbc;
  if (r->plan)
    rep->min_bytes[FEINT_PHASE_ASSEMBLY] = geometry + dofmap + coefficients + real * (double)r->plan->nnz;
  rep->flops[FEINT_PHASE_RESIDUAL] = w->flops[0];
  rep->flops[FEINT_PHASE_RHS] = w->flops[1];
  rep->flops[FEINT_PHASE_ELEMENT] = rep->flops[FEINT_PHASE_ASSEMBLY] = w->flops[2];
}

/* Name of a result inside this member's place in the file. */
const char *run_member_path(const run_state *r, const char *name, char *buf, size_t size) {
  snprintf(buf, size, "%s%s", r->prefix, name);
  return buf;
}

/* The matrix as Matrix Market too; a sweep member's file gets -<index>
 * before the extension. */
static int write_matrix_market(run_state *r) {
  char path[1200];
  const char *file = r->c->matrix_market_file;
  if (r->member >= 0) {
    const char *dot = strrchr(file, '.'), *slash = strrchr(file, '/');
    int stem = dot && (!slash || dot > slash) ? (int)(dot - file) : (int)strlen(file);
    snprintf(path, sizeof path, "%.*s-%d%s", stem, file, r->member, file + stem);
    file = path;
  }
  return feint_write_matrix_market(file, r->plan->n_rows, r->plan->n_rows, r->plan->indptr, r->plan->indices,
                                   r->plan->indices64, r->values, r->c->as_run);
}

/* FEINT_BACKEND_REUSE: 0 makes every sweep member create its backend
 * (for comparisons), 1 or unset lets members reuse it. */
static int backend_reuse_enabled(int *enabled) {
  const char *e = getenv("FEINT_BACKEND_REUSE");
  *enabled = 1;
  if (!e || !*e || !strcmp(e, "1")) return FEINT_OK;
  if (!strcmp(e, "0")) {
    *enabled = 0;
    return FEINT_OK;
  }
  return feint_error_set(FEINT_ERR_INPUT, "FEINT_BACKEND_REUSE=%s: expected 0 or 1", e);
}

int run_same_setup(const feint_problem *had, const feint_problem *want) {
  return had->space == want->space && had->plan == want->plan && had->precision == want->precision &&
         had->strategy == want->strategy && had->blocks_per_batch == want->blocks_per_batch &&
         had->batches_per_chunk == want->batches_per_chunk;
}

/* The member's backend (the setup phase): the previous member's when only
 * the form's data changed, given the new form in place (update_form:
 * coefficients and source re-uploaded; mesh, plans and device buffers
 * kept), else a new one. The progress line says which, and why not. */
static int setup_backend(const feint_run_options *opts, feint_run_report *rep, run_state *r, feint_device_kind kind,
                         const feint_problem *want) {
  char why[320] = "";
  r->backend_reused = 0;
  if (!r->backend && r->backend_dropped) {
    snprintf(why, sizeof why, "%s", r->backend_dropped);
  } else if (r->backend && !r->reuse_backend) {
    snprintf(why, sizeof why, "FEINT_BACKEND_REUSE=0");
  } else if (r->backend && (kind != r->backend_kind || !run_same_setup(&r->problem, want))) {
    snprintf(why, sizeof why, "the backend, precision, assembly or outputs changed");
  } else if (r->backend) {
    const run_transfers x0 = run_transfers_now();
    const double t0 = feint_now();
    const int status = feint_backend_update_form(r->backend, &r->problem, want->form);
    rep->seconds[FEINT_PHASE_SETUP] += feint_now() - t0;
    run_transfers_add(rep, FEINT_PHASE_SETUP, x0);
    if (status == FEINT_BACKEND_CANNOT_REUSE) {
      snprintf(why, sizeof why, "%s", feint_error_message());
      feint_error_clear();
    } else if (status) {
      return status;
    } else {
      r->backend_reused = 1;
      rep->n_backend_reused++;
      feint_form_destroy(r->backend_form); /* the previous member's, no longer read */
      r->backend_form = NULL;
    }
  }
  if (opts->progress && r->n_members > 0) {
    char line[400];
    snprintf(line, sizeof line, "%s (%s%s%s)", feint_phase_names[FEINT_PHASE_SETUP],
             r->backend_reused ? "backend reused" : "new backend", why[0] ? ": " : "", why);
    opts->progress(opts->progress_ctx, line, r->member, r->n_members);
  } else {
    run_starting(opts, r, FEINT_PHASE_SETUP);
  }
  r->backend_dropped = NULL;
  if (r->backend_reused) return FEINT_OK;
  release_backend(r);
  r->problem = *want;
  r->backend_kind = kind;
  char note[512];
  TIMED(rep, FEINT_PHASE_SETUP,
        feint_backend_create(kind, opts->device_index, &r->problem, &r->backend, note, sizeof note));
  if (note[0] && !opts->quiet && !rep->backend[0]) run_note(opts, "%s", note);
  return FEINT_OK;
}

/* Before a fork (the meshing child): no other thread of the run may be
 * running, since the child inherits whatever lock one holds. The mesh
 * hash is finished (its result kept for the provenance), the output's
 * pattern thread joined, and the backend's warm-up finished: a GPU
 * context being made loads libcuda, and a fork while it holds the dynamic
 * loader's lock left the child hanging in its first dlsym (tests/gpu/t526
 * hung now and then on the GPU machines; each of its runs meshes a .geo
 * file). The warm-up then overlaps the mesh read for .msh files only. */
static int run_quiesce(run_state *r) {
  feint_backend_warm_up_wait();
  if (r->mesh_hash) {
    char unused[65];
    FEINT_CALL(feint_file_hash_wait(r->mesh_hash, unused));
  }
  return feint_output_wait(r->out);
}

/* The pattern is final (made here, or by the owners' blocks under
 * mpirun): its size checked, written on its own thread while the values
 * are computed (a sweep's later members link to the first one's), the
 * Robin entries found in it. */
static int pattern_ready(run_state *r, feint_run_report *rep, int need_matrix) {
  const feint_case *c = r->c;
  int64_t own = 0;
  /* under mpirun the owners hold the pattern's rows and write them (rank 0 none of it) */
  const int64_t nnz = r->plan ? r->plan->nnz : run_dist_nnz(r, &own);
  if (need_matrix)
    FEINT_CALL(check_output_bytes(c->write_matrix ? "output.matrix" : "boundary (symmetric lifting)",
                                  "the CSR matrix values (nonzeros)", (double)nnz, 8));
  char name[300];
  if (c->write_matrix && !r->pattern_at.file[0] && r->plan)
    FEINT_CALL(feint_output_pattern_start(r->out, run_member_path(r, "matrix", name, sizeof name), r->plan->n_rows,
                                          r->plan->indptr, r->plan->indices, r->plan->indices64));
  rep->nnz = need_matrix ? nnz : 0;
  rep->index_bits = !need_matrix ? 0 : r->plan ? (r->plan->indices64 ? 64 : 32)
                                     : r->whole.n_dofs > feint_plan_narrow_limit() ? 64 : 32;
  rep->slot_bits = !need_matrix ? 0 : r->plan ? (r->plan->slots64 ? 64 : 32) : 8 * feint_plan_slot_width(nnz);
  /* Robin terms: their positions in the pattern, found once (under mpirun the owners find them in their rows) */
  if (r->bc && r->plan && !r->dist) FEINT_CALL(feint_boundary_bind_pattern(r->bc, r->plan));
  return FEINT_OK;
}

/* /near_null_space (when asked) from the whole space and form: at the end
 * of a run, or under mpirun just before rank 0 releases the whole. */
static int write_near_null_space(run_state *r) {
  if (!r->c->write_near_null_space) return FEINT_OK;
  int k = 0;
  double *modes = NULL;
  char name[300];
  FEINT_CALL(feint_near_null_space(r->form, r->space, &k, &modes));
  r->n_near_null_modes = k;
  const int64_t dims[2] = {k, r->space->n_dofs};
  const int s = feint_output_doubles(r->out, run_member_path(r, "near_null_space", name, sizeof name), 2, dims, modes);
  free(modes);
  return s;
}

/* Under mpirun, whether rank 0 still needs the whole mesh, space and form
 * once the parts are sent: for a sweep's next member, or to gather the
 * whole (a Matrix Market copy). FEINT_DIST_KEEP_WHOLE=1 keeps it (to measure what
 * it costs). */
int run_whole_needed(const run_state *r) {
  const char *keep = getenv("FEINT_DIST_KEEP_WHOLE");
  return !r->dist || !run_dist_collective(r) || r->n_members > 0 || (keep && !strcmp(keep, "1"));
}

/* What is written from the whole mesh, space and form: the dofs'
 * datasets, the near-null space, the XDMF file's drawn mesh and cell
 * fields. At the end of a run, or under mpirun before rank 0 releases the
 * whole. */
static int write_from_whole(run_state *r) {
  FEINT_CALL(write_dofs(r));
  FEINT_CALL(write_near_null_space(r));
  /* (rank 0 on its share: written with the ranks before the setup) */
  return r->c->write_xdmf && !run_dist_share_only(r) ? run_xdmf_mesh_views(r) : FEINT_OK;
}

/* Rank 0 keeps its part only: the whole mesh, space and form go before its
 * own part's pattern is made, once it has written what is written from
 * them (one process writing them on one host is faster than the owners
 * gathering and writing theirs: the ranks' writes into one file are
 * serialised). The boundary conditions stay: made, they read their own
 * facet sets, not the space (as the other ranks' copies do); the state
 * stays for the residual's conditions. */
int run_release_whole(run_state *r) {
  double t0 = feint_now();
  FEINT_CALL(write_from_whole(r));
  char what[160];
  snprintf(what, sizeof what, "the dofs' datasets%s%s written", r->c->write_near_null_space ? ", the near-null space" : "",
           r->c->write_xdmf && !run_dist_share_only(r) ? ", the XDMF mesh and cell fields" : "");
  run_dist_note(r, what, &t0);
  if (r->bc) r->bc->space = NULL;
  free(r->u_kept);
  r->u_kept = r->form->u;
  r->form->u = NULL;
  r->whole.u = r->u_kept;
  feint_form_destroy(r->form);
  r->form = NULL;
  drop_space(r, 0);
  run_dist_release_whole(r, t0);
  return FEINT_OK;
}

/* /dofs/cell_dofs where rank 0 holds its share of the mesh only: the
 * ranks write it together, each its share's rows, before the setup, while
 * every rank still holds its share. */
static int write_dof_map_by_shares(run_state *r, feint_run_report *rep) {
  const double t0 = feint_now();
  char c[300];
  snprintf(c, sizeof c, "%sdofs/cell_dofs", r->prefix);
  const int64_t cd[2] = {r->whole.n_cells, r->whole.nbc};
  FEINT_CALL(feint_output_reserve_int64(r->out, c, 2, cd));
  FEINT_CALL(run_dist_write_cell_dofs(r, c));
  write_step(rep, "dof map (the ranks' shares together)", feint_now() - t0);
  rep->seconds[FEINT_PHASE_WRITE] += feint_now() - t0;
  return FEINT_OK;
}

/* One case, mesh to results, into r->out (already created). Stages the
 * previous member left (mesh, space, plan) are used as they are. */
static int run_case(const feint_run_options *opts, feint_run_report *rep, run_state *r) {
  feint_case *c = r->c;
  r->backend_reused = 0;
  if (!r->mesh) {
    const feint_mesh_options mo = run_mesh_options(c);
    run_starting(opts, r, FEINT_PHASE_MESH);
    if (feint_mesh_read_forks(c->mesh_file, &mo)) FEINT_CALL(run_quiesce(r));
    if (r->dist)
      TIMED(rep, FEINT_PHASE_MESH, run_dist_read_mesh(r, &mo, !opts->check_only, &r->mesh));
    else
      TIMED(rep, FEINT_PHASE_MESH, feint_mesh_read(c->mesh_file, &mo, &r->mesh));
    rep->gmsh_seconds += r->mesh->gmsh_seconds;
  }
  if (c->has_operator) return run_operator(opts, rep, r);
  run_starting(opts, r, FEINT_PHASE_DOFMAP);
  if (!r->space)
    TIMED(rep, FEINT_PHASE_DOFMAP, run_dist_share_only(r) ? run_dist_share_space(r, run_space_components(c, r->mesh),
                                                                                 &r->space)
                                                          : create_space(c, r->mesh, &r->space));
  feint_dist_timeline("space made");
  TIMED(rep, FEINT_PHASE_FORM, feint_form_create(c, r->space, &r->form));
  feint_dist_timeline("form made");
  /* boundary conditions: set up here, integrated where the backend runs (below), applied on the host */
  if (c->n_boundary > 0)
    TIMED(rep, FEINT_PHASE_FORM, run_dist_share_only(r) ? run_dist_boundary_create(r, &r->bc)
                                                        : feint_boundary_create(c, r->space, &r->bc));
  if (c->n_boundary > 0) feint_dist_timeline("conditions made");
  if (c->write_xdmf) FEINT_CALL(run_xdmf_check(r));
  r->whole = whole_of(r);
  rep->n_cells = r->whole.n_cells;
  rep->n_dofs = r->space->n_dofs;
  if (opts->check_only) return FEINT_OK;

  /* symmetric Dirichlet lifting needs the matrix for the load vector */
  const int lift = c->write_rhs && feint_boundary_rhs_needs_matrix(r->bc);
  const int need_matrix = c->write_matrix || lift;
  feint_device_kind kind = opts->backend_set ? opts->backend : c->device;
  /* the plan is not made yet: the symbolic phase runs on the kind the registry chooses without it */
  feint_problem problem = {r->space, r->form, NULL, c->precision, c->strategy, c->blocks_per_batch,
                           c->batches_per_chunk, opts->no_cache || !c->cache};
  if (c->write_element_matrices)
    FEINT_CALL(check_output_bytes("output.element_matrices", "the element matrices (cells x local dofs^2)",
                                  (double)r->whole.n_cells * r->space->nbc * r->space->nbc, 8));
  /* the pattern's slot map holds an index per element-matrix entry */
  if (need_matrix && !r->plan && !r->dist)
    FEINT_CALL(check_slot_map_bytes(c->write_matrix ? "output.matrix" : "boundary (symmetric lifting)", r->space));
  run_starting(opts, r, FEINT_PHASE_PATTERN);
  if (need_matrix && !r->plan && !r->dist) {
    char steps[sizeof rep->pattern_steps];
    TIMED(rep, FEINT_PHASE_PATTERN,
          feint_backend_create_plan(kind, opts->device_index, &problem, &r->plan, steps, sizeof steps));
    if (steps[0]) snprintf(rep->pattern_steps, sizeof rep->pattern_steps, "%s", steps);
  }
  if (!r->dist) FEINT_CALL(pattern_ready(r, rep, need_matrix));
  problem.plan = need_matrix ? r->plan : NULL;
  /* (a sweep's later members link to the first one's) */
  if (run_dist_share_only(r) && cell_dofs_wanted(r) && !r->dofs_at.file[0])
    FEINT_CALL(write_dof_map_by_shares(r, rep));
  if (run_dist_share_only(r) && c->write_xdmf) { /* its cell fields by the ranks, while they hold their shares */
    const double t0 = feint_now();
    FEINT_CALL(run_xdmf_mesh_views(r));
    write_step(rep, "the XDMF mesh (cell fields: the ranks' shares together)", feint_now() - t0);
    rep->seconds[FEINT_PHASE_WRITE] += feint_now() - t0;
  }
  if (r->dist) { /* the parts sent; rank 0's backend computes its own part */
    feint_problem own;
    /* a sweep's previous member's backend, made for rank 0's part: it may stay with the part */
    if (!run_dist_keeps_parts(opts, r, kind, need_matrix)) release_backend(r);
    TIMED(rep, FEINT_PHASE_SETUP, run_dist_setup(opts, r, kind, need_matrix, &own));
    FEINT_CALL(setup_backend(opts, rep, r, kind, &own));
    TIMED(rep, FEINT_PHASE_SETUP,
          run_dist_wait_setup(r, r->backend->name, r->backend->device, opts->device_index, rep));
    /* the whole pattern from the owners' blocks */
    TIMED(rep, FEINT_PHASE_PATTERN, run_dist_rows(r, need_matrix));
    FEINT_CALL(pattern_ready(r, rep, need_matrix));
    snprintf(rep->dist_steps, sizeof rep->dist_steps, "%s", run_dist_steps(r));
  } else {
    FEINT_CALL(setup_backend(opts, rep, r, kind, &problem));
  }
  snprintf(rep->backend, sizeof rep->backend, "%s", r->backend->name);
  feint_backend_info info;
  FEINT_CALL(feint_backend_info_get(r->backend, &info));
  r->precision = info.precision;
  if (info.jit && !r->backend_reused) {
    rep->jit = 1;
    rep->jit_compiled += !info.jit_cache_hit;
    rep->jit_cache_hit += info.jit_cache_hit;
    rep->jit_compile_ms += info.jit_compile_ms;
    rep->jit_load_ms += info.jit_load_ms;
    if (info.jit_warning[0] && !opts->quiet) run_note(opts, "warning: %s", info.jit_warning);
  }
  /* Neumann and Robin facet integrals on the backend's device (the host is the reference) */
  if (r->bc) TIMED(rep, FEINT_PHASE_FORM, feint_boundary_integrate(r->bc, r->backend->integrate_facets));
  snprintf(rep->device, sizeof rep->device, "%s", r->backend->device);
  rep->n_nodes = r->whole.n_nodes;
  work_model(r, rep);
  const int64_t n = r->whole.n_dofs;
  char name[300];
  /* the vectors are written after the matrix is assembled, while the
   * pattern's thread may still be writing */
  if (c->write_residual) {
    FEINT_CALL(feint_malloc((size_t)n, sizeof(double), &r->vec, "residual vector"));
    FEINT_CALL(compute(r, opts, rep, FEINT_PHASE_RESIDUAL));
    feint_backend_info info;
    FEINT_CALL(feint_backend_info_get(r->backend, &info));
    run_describe_residual_kernel(&info, rep);
    if (r->bc && !r->dist) feint_boundary_apply_residual(r->bc, r->whole.u, r->vec); /* else by the owners */
    rep->residual_norm = run_dist_collective(r) ? sqrt(run_dist_norm2(r, FEINT_PHASE_RESIDUAL)) : run_norm2(r->vec, n);
  }
  if (c->write_rhs) {
    FEINT_CALL(feint_malloc((size_t)n, sizeof(double), &r->rhs, "load vector"));
    FEINT_CALL(compute(r, opts, rep, FEINT_PHASE_RHS));
    if (r->bc && !lift && !r->dist) FEINT_CALL(feint_boundary_apply_rhs(r->bc, NULL, NULL, r->rhs));
    if (!lift) /* else lifted with the matrix below */
      rep->rhs_norm = run_dist_collective(r) ? sqrt(run_dist_norm2(r, FEINT_PHASE_RHS)) : run_norm2(r->rhs, n);
  }
  if (c->write_element_matrices) {
    const int64_t dims[3] = {r->whole.n_cells, r->whole.nbc, r->whole.nbc};
    run_member_path(r, "element_matrices", name, sizeof name);
    if (run_dist_collective(r)) { /* under mpirun each rank keeps and writes the element matrices of its block of cells */
      FEINT_CALL(compute(r, opts, rep, FEINT_PHASE_ELEMENT));
      const double t0 = feint_now();
      const char *named[1] = {name};
      const int32_t items[1] = {FEINT_PHASE_ELEMENT};
      FEINT_CALL(feint_output_reserve_doubles(r->out, name, 3, dims));
      FEINT_CALL(run_dist_write(r, 1, named, items));
      write_step(rep, "element matrices (the ranks' blocks of cells together)", feint_now() - t0);
      rep->seconds[FEINT_PHASE_WRITE] += feint_now() - t0;
    } else {
      FEINT_CALL(feint_malloc((size_t)(dims[0] * dims[1] * dims[2]), sizeof(double), &r->Ke, "element matrices"));
      FEINT_CALL(compute(r, opts, rep, FEINT_PHASE_ELEMENT));
      FEINT_CALL(feint_output_doubles(r->out, name, 3, dims, r->Ke));
    }
  }
  if (need_matrix) {
    int64_t own = 0; /* under mpirun with the owners writing, rank 0 holds its own block only */
    const int64_t nnz = run_dist_collective(r) ? (run_dist_nnz(r, &own), own) : r->plan->nnz;
    if (!run_dist_values_in_part(r))
      FEINT_CALL(feint_malloc_large_touched((size_t)nnz + 1, sizeof(double), &r->values, "matrix values"));
    FEINT_CALL(compute(r, opts, rep, FEINT_PHASE_ASSEMBLY));
    FEINT_CALL(describe_matrix_kernel(r->backend, rep));
    if (lift) { /* the load vector lifted with the unmodified matrix (under mpirun: by the owners) */
      if (!r->dist) FEINT_CALL(feint_boundary_apply_rhs(r->bc, r->plan, r->values, r->rhs));
      rep->rhs_norm = run_dist_collective(r) ? sqrt(run_dist_norm2(r, FEINT_PHASE_RHS)) : run_norm2(r->rhs, n);
    }
    if (r->bc && !r->dist) FEINT_CALL(feint_boundary_apply_matrix(r->bc, r->plan, r->values));
  }
  const int collective = run_dist_collective(r); /* the owners write their blocks (else rank 0 has them all) */
  if (c->write_residual || c->write_rhs) {
    const double t0 = feint_now();
    char names[2][300];
    const char *named[2];
    int32_t phases[2];
    int k = 0;
    if (c->write_residual) phases[k++] = FEINT_PHASE_RESIDUAL;
    if (c->write_rhs) phases[k++] = FEINT_PHASE_RHS;
    for (int i = 0; i < k; i++) {
      named[i] = run_member_path(r, phases[i] == FEINT_PHASE_RESIDUAL ? "residual" : "rhs", names[i], sizeof names[i]);
      const double *v = phases[i] == FEINT_PHASE_RESIDUAL ? r->vec : r->rhs;
      if (collective) FEINT_CALL(feint_output_reserve_doubles(r->out, named[i], 1, &n));
      else FEINT_CALL(feint_output_doubles(r->out, named[i], 1, &n, v));
    }
    if (collective) FEINT_CALL(run_dist_write(r, k, named, phases));
    write_step(rep, collective ? "vectors (with the pattern's wait; the ranks' blocks together)"
                               : "vectors (with the pattern's wait)", feint_now() - t0);
    rep->seconds[FEINT_PHASE_WRITE] += feint_now() - t0;
  }
  if (c->write_matrix) {
    rep->matrix_norm = collective ? sqrt(run_dist_norm2(r, FEINT_PHASE_ASSEMBLY)) : run_norm2(r->values, r->plan->nnz);
    double t0 = feint_now();
    const run_shared *at = &r->pattern_at;
    char group[400];
    snprintf(group, sizeof group, "%smatrix", at->group);
    run_member_path(r, "matrix", name, sizeof name);
    if (collective) { /* the owners write the values, and the pattern unless an earlier member's is linked */
      int64_t own = 0;
      FEINT_CALL(feint_output_csr_reserve(r->out, name, n, n, run_dist_nnz(r, &own),
                                          at->file[0] ? link_file(r, at) : NULL, at->file[0] ? group : NULL));
      char paths[3][320];
      const char *named[3];
      int32_t items[3] = {FEINT_PHASE_ASSEMBLY, RUN_DIST_INDPTR, RUN_DIST_INDICES};
      static const char *const parts[3] = {"data", "indptr", "indices"};
      const int k = at->file[0] ? 1 : 3;
      for (int i = 0; i < k; i++) {
        snprintf(paths[i], sizeof paths[i], "%s/%s", name, parts[i]);
        named[i] = paths[i];
      }
      FEINT_CALL(run_dist_write(r, k, named, items));
    } else {
      FEINT_CALL(feint_output_csr(r->out, name, n, n, r->plan->indptr, r->plan->indices, r->plan->indices64, r->values,
                                  at->file[0] ? link_file(r, at) : NULL, at->file[0] ? group : NULL));
    }
    if (!at->file[0]) {
      snprintf(r->pattern_at.file, sizeof r->pattern_at.file, "%s", r->out_path);
      snprintf(r->pattern_at.group, sizeof r->pattern_at.group, "%s", r->prefix);
    }
    write_step(rep, collective ? "matrix (by the ranks together)" : "matrix", feint_now() - t0);
    if (c->matrix_market_file) FEINT_CALL(write_matrix_market(r));
    rep->seconds[FEINT_PHASE_WRITE] += feint_now() - t0;
  }
  /* how many colours the backend's cell colouring took (0: not coloured) */
  FEINT_CALL(feint_backend_info_get(r->backend, &info));
  rep->n_colors = info.n_colors;
  run_starting(opts, r, FEINT_PHASE_WRITE);
  double t0 = feint_now();
  if (r->bc) FEINT_CALL(feint_boundary_write(r->bc, r->out, r->prefix));
  if (r->space) FEINT_CALL(write_from_whole(r)); /* else written before rank 0 released the whole */
  if (c->write_xdmf) FEINT_CALL(run_xdmf_result_views(r));
  const double t_dofs = feint_now();
  write_step(rep, "boundary and dofs", t_dofs - t0);
  const run_provenance prov = {r->backend->name, r->backend->device, r->precision == FEINT_PRECISION_SINGLE,
                               NULL, r->whole.order, r->whole.components, r->whole.quadrature_degree,
                               r->whole.n_cells, r->whole.n_dofs};
  FEINT_CALL(run_write_provenance(r, rep, &prov));
  write_step(rep, feint_file_hash_cached(r->mesh_hash) ? "provenance (the mesh hash cached)"
                                                       : "provenance (with the mesh hash's wait)",
             feint_now() - t_dofs);
  rep->seconds[FEINT_PHASE_WRITE] += feint_now() - t0;
  return FEINT_OK;
}

/* Output file of sweep member m: the template with {index} replaced. */
static void member_file(const feint_case *base, const char *output, int m, char *buf, size_t size) {
  char stem[1024];
  const char *tmpl = base->sweep_output;
  if (!tmpl) { /* <output without .h5>-{index}.h5 */
    snprintf(stem, sizeof stem, "%s", output);
    char *dot = strrchr(stem, '.'), *slash = strrchr(stem, '/');
    if (dot && (!slash || dot > slash)) *dot = '\0';
    snprintf(buf, size, "%s-%d.h5", stem, m);
    return;
  }
  const char *at = strstr(tmpl, "{index}");
  snprintf(buf, size, "%.*s%d%s", (int)(at - tmpl), tmpl, m, at + 7);
}

static int finish_output(run_state *r, feint_run_report *rep) {
  double t0 = feint_now();
  feint_output *o = r->out;
  r->out = NULL;
  FEINT_CALL(feint_output_commit(o));
  if (r->c->write_xdmf && r->member < 0) FEINT_CALL(run_xdmf_file(r, r->out_path)); /* a sweep's: once, at its end */
  write_step(rep, "close and rename", feint_now() - t0);
  rep->seconds[FEINT_PHASE_WRITE] += feint_now() - t0;
  return FEINT_OK;
}

/* The case's warnings on standard error (also with --quiet: they are about
 * the input), each distinct "what" once per run: a sweep's members repeat
 * their base's. Copies: a member's case is dropped once validated. */
typedef struct {
  int n;
  char what[2 * FEINT_CASE_MAX_WARNINGS][sizeof ((feint_case *)0)->warnings[0].what];
} warned;

static void print_warnings(const feint_run_options *opts, const feint_case *c, warned *done) {
  for (int k = 0; k < c->n_warnings; k++) {
    int seen = 0;
    for (int j = 0; j < done->n && !seen; j++) seen = !strcmp(done->what[j], c->warnings[k].what);
    if (seen) continue;
    run_note(opts, "warning: %s: %s", c->warnings[k].where, c->warnings[k].what);
    if (done->n < 2 * FEINT_CASE_MAX_WARNINGS)
      snprintf(done->what[done->n++], sizeof done->what[0], "%s", c->warnings[k].what);
  }
}

/* All members of a sweep in one process. Every member is loaded (and so
 * validated) before the first computes, then dropped: a member's case is
 * 15 KB or more (YAML aliases), too much to keep 100,000 of; it is loaded
 * again when it runs, and the one before it is kept until run_reuse has
 * compared the two (a mesh or form keeps no pointer into its case). The
 * mesh, dof map and pattern are kept from one member to the next while the
 * swept keys leave them unchanged (run_reuse), and the backend while they
 * change only the form's data (setup_backend). */
static int run_sweep(const feint_run_options *opts, feint_run_report *rep, feint_case *base, run_state *r,
                     warned *done) {
  const int n = base->n_sweep;
  int status = FEINT_OK;
  feint_case *prev = NULL, *cur = NULL;
  for (int m = 0; m < n && !status; m++) {
    if (!(status = feint_case_load_member(base, m, &cur))) print_warnings(opts, cur, done);
    feint_case_destroy(cur);
    cur = NULL;
  }
  const char *output = opts->output ? opts->output : base->output_file;
  char path[1200], prefix[64];
  if (!status && base->sweep_groups && !opts->check_only) {
    snprintf(rep->output, sizeof rep->output, "%s", output);
    snprintf(r->out_path, sizeof r->out_path, "%s", output);
    status = feint_output_create(output, &r->out);
  }
  for (int m = 0; m < n && !status; m++) {
    if ((status = feint_case_load_member(base, m, &cur))) break;
    run_reuse(r, prev, cur);
    feint_case_destroy(prev);
    prev = NULL;
    r->c = cur;
    r->member = m;
    r->n_members = n;
    memcpy(r->seconds_before, rep->seconds, sizeof r->seconds_before);
    if (base->sweep_groups) {
      snprintf(prefix, sizeof prefix, "member_%04d/", m);
      r->prefix = prefix;
    } else if (!opts->check_only) {
      member_file(base, output, m, path, sizeof path);
      snprintf(rep->output, sizeof rep->output, "%s", path);
      snprintf(r->out_path, sizeof r->out_path, "%s", path);
      if ((status = feint_output_create(path, &r->out))) break;
    }
    if ((status = run_case(opts, rep, r))) break;
    if (!base->sweep_groups && !opts->check_only && (status = finish_output(r, rep))) break;
    run_release_member(r);
    prev = cur;
    cur = NULL;
    rep->n_members = m + 1;
  }
  if (!status && base->sweep_groups && !opts->check_only) {
    r->prefix = "";
    status = feint_output_attr_string(r->out, NULL, "case", base->as_run);
    if (!status) status = feint_output_attr_string(r->out, NULL, "feint_version", FEINT_VERSION);
    if (!status) status = feint_output_attr_int64(r->out, NULL, "sweep_members", n);
    if (!status) status = finish_output(r, rep);
  }
  if (!status && base->write_xdmf && !opts->check_only) status = run_xdmf_file(r, output);
  r->c = NULL;
  feint_case_destroy(cur); /* the member that failed */
  feint_case_destroy(prev);
  return status;
}

int feint_driver_run(const feint_run_options *opts, feint_run_report *report) {
  memset(report, 0, sizeof *report);
  run_state r;
  memset(&r, 0, sizeof r);
  r.prefix = "";
  r.member = -1;
  feint_case *base = NULL;
  double t0 = feint_now();
  /* first: whatever fails after this, the other ranks hear of it (run_dist_finish) */
  int status = run_dist_create(opts->comm, &r.dist);
  report->n_ranks = opts->comm ? feint_comm_size(opts->comm) : 1;
  if (!status) status = backend_reuse_enabled(&r.reuse_backend);
  if (!status) status = feint_case_load(opts->case_path, opts->n_overrides, opts->overrides, &base);
  report->seconds[FEINT_PHASE_CASE] = feint_now() - t0;
  warned done = {0};
  if (!status) print_warnings(opts, base, &done);
  /* the mesh's provenance hash, beside the run (members with another mesh hash theirs at the write) */
  r.hash_cache = !opts->no_cache && base && base->cache;
  if (!status && !opts->check_only) status = feint_file_hash_start(base->mesh_file, r.hash_cache, &r.mesh_hash);
  /* the GPU's context, made while the mesh is read */
  const feint_device_kind kind = opts->backend_set ? opts->backend : !status ? base->device : FEINT_DEVICE_CPU;
  if (!status && !opts->check_only) feint_backend_warm_up_start(kind, opts->device_index, -1);
  if (!status && base->n_sweep > 0) {
    status = run_sweep(opts, report, base, &r, &done);
  } else if (!status) {
    r.c = base;
    const char *output = opts->output ? opts->output : base->output_file;
    if (!opts->check_only) {
      snprintf(report->output, sizeof report->output, "%s", output);
      snprintf(r.out_path, sizeof r.out_path, "%s", output);
      status = feint_output_create(output, &r.out); /* fail early on an unwritable path */
    }
    if (!status) status = run_case(opts, report, &r);
    if (!status && !opts->check_only) status = finish_output(&r, report);
  }
  feint_backend_warm_up_wait();
  if (r.dist) snprintf(report->dist_steps, sizeof report->dist_steps, "%s", run_dist_steps(&r));
  if (r.dist) snprintf(report->partition, sizeof report->partition, "%s", run_dist_partition(&r));
  run_dist_finish(&r, status); /* the other ranks exit with this status */
  run_dist_destroy(r.dist);
  r.dist = NULL;
  run_state_release(&r); /* aborts (removes) a temporary output on failure */
  feint_case_destroy(base);
  report->driver_seconds = feint_now() - t0;
  return status;
}
