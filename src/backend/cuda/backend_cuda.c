/* The cuda kind's entries (built with nvcc only; kind.c lists them): the
 * device check, creation delegated to the fused kernels, the
 * element-matrix backend or, for a user form, the form backend (as
 * libCEED's cuda-gen delegates to cuda-ref),
 * the operator backend over bp.cu, the symbolic phase on the GPU, and
 * what these report (feint_backend_info). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cuda/cuda_timing.h"
#include "backend/cuda/families.h"
#include "boundary/facet.h"
#include "feint/error.h"
#include "feint/physics_form.h"

int feint_cuda_device_select(int device_index, int *dev) {
  const int n_dev = feint_cuda_device_count();
  if (n_dev <= 0) return feint_error_set(FEINT_ERR_INPUT, "no CUDA device is visible");
  *dev = device_index < 0 ? 0 : device_index;
  if (*dev >= n_dev)
    return feint_error_set(FEINT_ERR_INPUT, "--device %d: only %d CUDA device%s visible (0..%d)", *dev, n_dev,
                           n_dev == 1 ? " is" : "s are", n_dev - 1);
  return FEINT_OK;
}

int feint_cuda_kind_open(int device_index, char *why, size_t why_size) {
  if (feint_cuda_device_count() <= 0) {
    snprintf(why, why_size, "no CUDA device is visible");
    return FEINT_BACKEND_ABSENT;
  }
  int dev;
  return feint_cuda_device_select(device_index, &dev);
}

int feint_backend_cuda_check_cells(const feint_problem *p) {
  char why[400];
  if (feint_cuda_cells_supported(p, why, sizeof why)) return FEINT_OK;
  return feint_error_set(FEINT_ERR_INPUT, "%s", why);
}

/* Both implementations compute in the precision the case asks for, as
 * far as the provenance and the work model are concerned. */
static int elmat_info(const feint_backend *b, feint_backend_info *out) {
  out->precision = b->problem->precision;
  snprintf(out->family, sizeof out->family, "%s", feint_cuda_family_name(FEINT_FAMILY_ELMAT));
  snprintf(out->matrix_family, sizeof out->matrix_family, "%s", feint_cuda_family_name(FEINT_FAMILY_ELMAT));
  return FEINT_OK;
}

/* The fused kernels also say which kernel family ran the residual and in
 * which cell order (feint bench prints it: on 6M P1 cells the lean kernel
 * took 0.15 ms and thread transposition 1.2 ms, t501), their creation's
 * steps and the colours of their cell colouring. */
static int fused_info(const feint_backend *b, feint_backend_info *out) {
  feint_cuda_stats st;
  out->precision = b->problem->precision;
  FEINT_CALL(feint_cuda_info(b, &st));
  const feint_cuda_family residual = st.lean_pipe       ? FEINT_FAMILY_P1_LEAN_PIPE
                                     : st.lean_residual ? FEINT_FAMILY_P1_LEAN
                                     : st.p1_residual   ? FEINT_FAMILY_P1_BLOCK
                                                        : FEINT_FAMILY_TT;
  const feint_cuda_family matrix = st.block_matrix ? FEINT_FAMILY_P1_BLOCK
                                   : st.p1_matrix  ? FEINT_FAMILY_P1_CELL
                                                   : FEINT_FAMILY_TT;
  snprintf(out->family, sizeof out->family, "%s", feint_cuda_family_name(residual));
  snprintf(out->matrix_family, sizeof out->matrix_family, "%s", feint_cuda_family_name(matrix));
  const char *family = st.lean_residual && st.user_form ? "the lean P1 tetrahedron kernel with the user form compiled in"
                       : st.lean_residual                 ? "the lean P1 tetrahedron kernel"
                       : st.user_form ? "the P1 block-aggregation kernel with the user form compiled in"
                       : st.p1_residual ? "the P1 one-thread-per-cell kernel with block-local aggregation"
                                        : "thread transposition";
  out->n_colors = st.n_colors;
  snprintf(out->setup_steps, sizeof out->setup_steps, "%s; first-use block plans %.1f ms", st.setup_steps,
           st.block_build_ms);
  snprintf(out->kernel, sizeof out->kernel, "%s, cells in %s order%s", family, st.curve_order ? "curve" : "mesh",
           st.lean_pipe ? ", pipelined over persistent blocks" : "");
  if (st.user_form) {
    out->jit = 1;
    out->jit_cache_hit = st.jit_cache_hit;
    out->jit_compile_ms = st.jit_compile_ms;
    out->jit_load_ms = st.jit_load_ms;
    snprintf(out->jit_key, sizeof out->jit_key, "%s", st.jit_key);
    snprintf(out->jit_warning, sizeof out->jit_warning, "%s", st.jit_warning);
  }
  return FEINT_OK;
}

/* A built-in kind's problem as a user form (feint/physics_form.h): the
 * problem and form the backend runs, which it points into, and the form
 * backend's own update_form. */
typedef struct {
  feint_problem problem;
  feint_form *form;
  int (*update_form)(feint_backend *b, const feint_form *form);
} builtin_as_form;

static void builtin_as_form_free(void *owned) {
  builtin_as_form *a = (builtin_as_form *)owned;
  if (!a) return;
  feint_physics_form_view_destroy(a->form);
  free(a);
}

/* A sweep member's built-in form: its view taken by the form backend in
 * place (the same generated code: no compile), then the old view freed. */
static int update_as_form(feint_backend *b, const feint_form *form) {
  builtin_as_form *a = (builtin_as_form *)b->owned;
  feint_form *view = NULL;
  FEINT_CALL(feint_physics_form_view(form, a->problem.space->mesh, &view));
  const int status = a->update_form ? a->update_form(b, view)
                                    : feint_error_set(FEINT_BACKEND_CANNOT_REUSE,
                                                      "the user-form kernels of this built-in kind take one form");
  if (status) {
    feint_physics_form_view_destroy(view);
    return status;
  }
  feint_physics_form_view_destroy(a->form);
  a->form = view;
  a->problem.form = view;
  return FEINT_OK;
}

/* The built-in kind's problem p run through the user-form kernels, where
 * the built-in kernels do not take it (kind.c: quadrilaterals and
 * hexahedra, mixed meshes, values per cell's nodes). The backend runs the view's
 * problem; the caller's p is its outer problem (sweeps: update_as_form). */
static int create_as_form(const feint_problem *p, int device_index, feint_backend **out) {
  builtin_as_form *a = NULL;
  FEINT_CALL(feint_calloc(1, sizeof *a, &a, "built-in kind as a form"));
  int status = feint_physics_form_view(p->form, p->space->mesh, &a->form);
  if (!status) {
    a->problem = *p;
    a->problem.form = a->form;
    status = feint_cuda_kind_create(&a->problem, device_index, out);
  }
  if (status) {
    builtin_as_form_free(a);
    return status;
  }
  (*out)->owned = a;
  (*out)->free_owned = builtin_as_form_free;
  (*out)->outer = p;
  a->update_form = (*out)->update_form;
  (*out)->update_form = update_as_form;
  return FEINT_OK;
}

int feint_cuda_kind_create(const feint_problem *p, int device_index, feint_backend **out) {
  if (!p->form->user && feint_backend_builtin_as_form(p)) return create_as_form(p, device_index, out);
  /* a user form: in the P1 kernel templates where they take it, else its
   * own implementation and info (form_backend.cu) */
  if (p->form->user && !feint_cuda_p1_form_applies(p)) return feint_backend_form_create(p, device_index, out);
  const int elmat = feint_backend_elmat_applies(p);
  FEINT_CALL(elmat ? feint_backend_elmat_create(p, device_index, out)
                   : feint_backend_cuda_create(p, device_index, out));
  (*out)->info = elmat ? elmat_info : fused_info;
  (*out)->integrate_facets = feint_facets_cuda; /* the boundary data's, whatever the volume form */
  return FEINT_OK;
}

static int operator_apply(feint_operator *b, const double *x, double *y) { return feint_bp_gpu_apply(b->data, x, y); }

static int operator_apply_kernel_ms(feint_operator *b, int reps, double *median_ms) {
  double min_ms = 0;
  return feint_bp_gpu_bench(b->data, reps, 1u, median_ms, &min_ms);
}

/* The BP kernel the operator runs: its family and variant. */
static int operator_info(const feint_operator *b, feint_backend_info *out) {
  const feint_bp_gpu *g = b->data;
  int variant = 0;
  const feint_cuda_family f = (feint_cuda_family)feint_bp_gpu_family(g, &variant);
  snprintf(out->family, sizeof out->family, "%s", feint_cuda_family_name(f));
  snprintf(out->kernel, sizeof out->kernel, "the %s kernel, variant %d", feint_cuda_family_name(f), variant);
  return FEINT_OK;
}

static void operator_destroy(feint_operator *b) {
  feint_bp_gpu_destroy(b->data);
  free(b);
}

int feint_cuda_kind_create_operator(const feint_bp_op *op, int device_index, feint_operator **out) {
  feint_operator *b = NULL;
  feint_bp_gpu *g = NULL;
  FEINT_CALL(feint_calloc(1, sizeof *b, &b, "operator backend"));
  int st = feint_bp_gpu_create(op, device_index, &g);
  if (!st) st = feint_bp_gpu_device_name(device_index, b->device, sizeof b->device);
  if (st) {
    feint_bp_gpu_destroy(g);
    free(b);
    return st;
  }
  b->name = "cuda";
  b->data = g;
  b->apply = operator_apply;
  b->apply_kernel_ms = operator_apply_kernel_ms;
  b->info = operator_info;
  b->destroy = operator_destroy;
  *out = b;
  return FEINT_OK;
}

/* The pattern on the GPU for single-shape meshes (every cell's dofs at
 * the same width), its steps reported (feint run --json, bench); mixed
 * meshes take the host's. */
int feint_cuda_kind_create_plan(const feint_space *s, int device_index, feint_plan **out, char *steps,
                                size_t steps_size) {
  if (feint_mesh_is_mixed(s->mesh)) return feint_plan_create(s, out);
  feint_plan_cuda_stats st;
  memset(&st, 0, sizeof st);
  FEINT_CALL(feint_plan_create_cuda_timed(s, device_index, out, &st));
  snprintf(steps, steps_size, "upload %.1f ms, symbolic %.1f ms (sort %.1f), download %.1f ms, total %.1f ms%s",
           st.upload_ms, st.symbolic_ms, st.sort_ms, st.download_ms, st.total_ms,
           st.host_fallback ? " (built on the host)" : "");
  return FEINT_OK;
}
