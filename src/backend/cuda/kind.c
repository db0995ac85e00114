/* The cuda kind: what the GPU kernels compute, in every build (so that
 * --backend cuda names the reason a problem cannot run there even where
 * feint was built without nvcc), and, with nvcc, how the backend is made
 * (backend_cuda.c). One kind, three implementations behind it: the fused
 * kernels (cuda.cu) for triangles and tetrahedra of orders 1..2, the
 * element-matrix backend (elmat_backend.c) for high-order tetrahedra and
 * prisms, the user-form backend (form_backend.cu: a form's expressions
 * compiled at run time) for user forms of up to FEINT_FORM_CUDA_MAX_NBC
 * dofs a cell (each cell shape of a mixed mesh its own kernels), and for
 * the built-in kinds where the others lack what they need
 * (quadrilaterals and hexahedra, mixed meshes, values per cell's nodes). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cuda/cuda_timing.h"
#include "backend/cuda/families.h"
#include "backend/cuda/form_source.h"
#include "backend/cuda/tuning.h"
#include "backend/kinds.h"
#include "feint/elmat.h"
#include "feint/error.h"
#ifdef FEINT_HAVE_CUDA
#include "backend/cuda/jit.h"
#endif

/* Write a reason into why; 0 (not supported). */
static int say(char *why, size_t size, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, size, fmt, ap);
  va_end(ap);
  return 0;
}

int feint_backend_elmat_applies(const feint_problem *p) {
  const feint_mesh *m = p->space->mesh;
  if (feint_mesh_is_mixed(m)) return 0; /* one shape per kernel: the cell checks refuse mixed meshes */
  return (m->cell_type == FEINT_CELL_TETRAHEDRON && p->space->order > 2) || m->cell_type == FEINT_CELL_PRISM;
}

int feint_backend_elmat_supported(const feint_problem *p, char *why, size_t size) {
  const feint_space *s = p->space;
  const feint_cell_type cell = s->mesh->cell_type;
  if (!feint_backend_elmat_applies(p)) return say(why, size, "not a high-order tetrahedral or prism space");
  if (s->order > FEINT_ELMAT_MAX_ORDER)
    return say(why, size,
               "the cuda backend computes %s element matrices of orders up to %d, not space.order %d (use "
               "--backend cpu)",
               feint_cell_name(cell), FEINT_ELMAT_MAX_ORDER, s->order);
  if (p->form->nc < 1 || p->form->nc > 3)
    return say(why, size,
               "the cuda backend computes %s element matrices of order %d for forms of 1 to 3 components, not %d "
               "(use --backend cpu)",
               feint_cell_name(cell), s->order, p->form->nc);
  return 1;
}

int feint_cuda_cells_supported(const feint_problem *p, char *why, size_t size) {
  const feint_mesh *m = p->space->mesh;
  const feint_cell_type cell = m->cell_type;
  char shapes[128];
  if (feint_mesh_is_mixed(m))
    return say(why, size,
               "the cuda backend assembles meshes of one cell shape; this mixed mesh (%s) runs on the cpu backend "
               "(--backend cpu)",
               feint_mesh_shapes(m, shapes, sizeof shapes));
  if (!feint_cell_is_simplex(cell))
    return say(why, size,
               "the cuda backend assembles triangles and tetrahedra only; %s cells run on the cpu backend "
               "(--backend cpu)",
               feint_cell_name(cell));
  /* its kernels are written and tested for P1/P2 tetrahedra only */
  if (cell == FEINT_CELL_TETRAHEDRON && p->space->order > 2)
    return say(why, size, "the cuda backend supports orders 1..2 on tetrahedra, not space.order %d (use --backend cpu)",
               p->space->order);
  return 1;
}

/* The fused kernels assemble with 32-bit slots and column indices; a plan
 * past that (feint/plan.h) is for the cpu backend. */
static int width_supported(const feint_problem *p, char *why, size_t size) {
  if (!p->plan || (!p->plan->slots64 && !p->plan->indices64)) return 1;
  return say(why, size,
             "backend cuda: the matrix has %lld nonzeros and %lld columns; the CUDA backend assembles with 32-bit "
             "slots and column indices (at most %lld nonzeros and columns); use --backend cpu",
             (long long)p->plan->nnz, (long long)p->plan->n_rows, (long long)feint_plan_narrow_limit());
}

int feint_backend_form_supported(const feint_problem *p, char *why, size_t size) {
  const feint_mesh *m = p->space->mesh;
  if (p->form->nc < 1 || p->form->nc > 3)
    return say(why, size, "user forms run on the cuda backend for 1 to 3 components, not %d (use --backend cpu)",
               p->form->nc);
  int matrix_kernel = FEINT_FORM_MATRIX_AUTO;
#ifdef FEINT_HAVE_CUDA
  feint_cuda_tuning tuning; /* its matrix kernel, where a benchmark asks for one */
  if (feint_cuda_tuning_read(p, &tuning)) {
    say(why, size, "%s", feint_error_message());
    feint_error_clear();
    return 0;
  }
  matrix_kernel = tuning.form_matrix;
#endif
  for (int b = 0; b < feint_form_cuda_classes(p->space); b++) { /* each cell shape's (class's) kernels */
    feint_form_cuda_layout L = feint_form_cuda_layout_block(p->form, p->space, b);
    L.matrix_kernel = matrix_kernel;
    char reason[200];
    if (!feint_form_cuda_fits(&L, reason, sizeof reason))
      return say(why, size, "%s of order %d, %d component%s: %s; use --backend cpu",
                 feint_cell_plural(m->blocks[feint_form_cuda_class_block(p->space, b)].cell_type), p->space->order,
                 p->form->nc, p->form->nc > 1 ? "s" : "",
                 reason);
  }
#ifdef FEINT_HAVE_CUDA
  /* the form is compiled at run time: no NVRTC, no GPU code */
  if (feint_jit_nvrtc_open(NULL, NULL)) {
    say(why, size, "%s", feint_error_message());
    feint_error_clear();
    return 0;
  }
#endif
  return width_supported(p, why, size);
}

/* Where the built-in kinds' own kernels lack what the problem needs:
 * quadrilaterals and hexahedra, mixed meshes, curved cells (J at every
 * point), values per cell's nodes. */
static int builtin_needs_form(const feint_problem *p) {
  const feint_mesh *m = p->space->mesh;
  if (feint_mesh_is_mixed(m) || feint_cell_is_tensor(m->cell_type) || m->n_geometry_nodes) return 1;
  for (int k = 0; k < p->form->n_aux; k++)
    if (p->form->aux[k].kind == FEINT_FIELD_CELL_NODE) return 1;
  return 0;
}

/* On request (FEINT_CUDA_BUILTIN_FORMS=1), P2 triangles and tetrahedra in
 * double: their form-jit kernels beat thread transposition (H200, 1.3M
 * P2 tetrahedra, colored: Poisson residual 2.2 against 6.4 ms, CSR
 * assembly 8.5 against 12.6; forms-bench.sh), but a whole run pays more
 * than those milliseconds once: loading NVRTC (its version keys the
 * cache, ~55 ms) and colouring at setup. One P2 Poisson run took 0.95 s
 * against tt's 0.86 (tests/bench/e2e.py), so tt stays the default. */
static int builtin_prefers_form(const feint_problem *p) {
  const feint_mesh *m = p->space->mesh;
  const char *v = getenv("FEINT_CUDA_BUILTIN_FORMS");
  if (!v || strcmp(v, "1")) return 0;
  return !feint_mesh_is_mixed(m) && feint_cell_is_simplex(m->cell_type) && p->space->order == 2 &&
         p->precision == FEINT_PRECISION_DOUBLE;
}

int feint_backend_builtin_as_form(const feint_problem *p) {
  if (p->form->user) return 0;
  if (builtin_needs_form(p)) return 1;
  char why[400];
  return builtin_prefers_form(p) && feint_backend_form_supported(p, why, sizeof why);
}

static int cuda_supports(const feint_problem *p, char *why, size_t size) {
  /* the built-in kinds' kernels take simplices and prisms and read
   * constant, per-cell and nodal coefficients; quadrilaterals, hexahedra
   * and values per cell's nodes (an expression or node dataset per
   * physical group) the user-form kernels take: there a built-in kind
   * runs as the form it is (feint/physics_form.h) */
  if (feint_backend_builtin_as_form(p)) {
    char form_why[400];
    if (feint_backend_form_supported(p, form_why, sizeof form_why)) return 1;
    const feint_mesh *m = p->space->mesh;
    return say(why, size, "%s run on the cuda backend through the user-form kernels, which do not take this problem (%s)",
               feint_mesh_is_mixed(m)               ? "built-in kinds on mixed meshes"
               : m->n_geometry_nodes                ? "built-in kinds on curved cells"
               : feint_cell_is_tensor(m->cell_type) ? "built-in kinds on quadrilaterals and hexahedra"
                                                    : "coefficients given by an expression or node dataset per "
                                                      "physical group",
               form_why);
  }
  /* a user form's expressions are compiled for the GPU at run time (the
   * form backend); the other kernels evaluate physics.h's built-in kinds */
  if (p->form->user) return feint_backend_form_supported(p, why, size);
  if (feint_backend_elmat_applies(p)) return feint_backend_elmat_supported(p, why, size);
  return feint_cuda_cells_supported(p, why, size) && width_supported(p, why, size);
}

#ifndef FEINT_HAVE_CUDA
/* Without nvcc the kind stays listed, to say why it cannot run. */
static int cuda_not_built(int device_index, char *why, size_t size) {
  (void)device_index;
  snprintf(why, size, "this feint was built without CUDA (no nvcc found)");
  return FEINT_BACKEND_ABSENT;
}
#endif

const feint_backend_kind feint_backend_kind_cuda = {
    .name = "cuda",
    .device = FEINT_DEVICE_CUDA,
    .priority = 20,
    .supports = cuda_supports,
    .families = feint_cuda_families,
#ifdef FEINT_HAVE_CUDA
    .open = feint_cuda_kind_open,
    .create = feint_cuda_kind_create,
    .create_operator = feint_cuda_kind_create_operator,
    .operator_geo_on_device = 1, /* bp.cu builds the geometric factors on the device */
    .create_plan = feint_cuda_kind_create_plan,
    .warm_up_start = feint_cuda_warm_up_start,
    .warm_up_wait = feint_cuda_warm_up_wait,
    .transfer_seconds = feint_cuda_transfer_seconds,
    .copy_bandwidth = feint_cuda_copy_bandwidth,
#else
    .open = cuda_not_built,
#endif
};
