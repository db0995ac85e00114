/* Backend selection: the same rule for problem and operator backends. */
#include "feint/backend.h"

#include <stdio.h>

#include "feint/error.h"

/* How to create one kind of backend on the CPU and on the GPU, and whether
 * the GPU one can take the work at all (NULL: always). */
typedef struct {
  int (*cpu)(const void *what, feint_backend **out);
  int (*cuda)(const void *what, int device_index, feint_backend **out);
  int (*cuda_supports)(const void *what); /* FEINT_OK, or FEINT_ERR_INPUT saying why not */
} backend_makers;

static int create_on(const backend_makers *make, const void *what, feint_device_kind kind, int device_index,
                     feint_backend **out, char *note, size_t note_size) {
  *out = NULL;
  if (note && note_size) note[0] = '\0';
  if (kind == FEINT_DEVICE_CPU) {
    if (note && device_index >= 0)
      snprintf(note, note_size, "--device %d is a CUDA device; the cpu backend ignores it", device_index);
    return make->cpu(what, out);
  }
  if (kind == FEINT_DEVICE_CUDA && make->cuda_supports) FEINT_CALL(make->cuda_supports(what));
  int n_gpus = feint_cuda_device_count();
  /* a --device past the visible ones is the user's mistake, not a reason to fall back */
  int dev;
  if (n_gpus > 0) FEINT_CALL(feint_cuda_device_select(device_index, &dev));
  if (kind == FEINT_DEVICE_CUDA) {
    if (n_gpus <= 0)
      return feint_error_set(FEINT_ERR_INPUT,
#ifdef FEINT_HAVE_CUDA
                             "backend cuda asked for, but no CUDA device is visible"
#else
                             "backend cuda asked for, but this feint was built without CUDA (no nvcc found)"
#endif
      );
    return make->cuda(what, device_index, out);
  }
  /* auto */
  if (n_gpus > 0 && make->cuda_supports && make->cuda_supports(what) != FEINT_OK) {
    if (note) snprintf(note, note_size, "backend auto: %s; using cpu", feint_error_message());
  } else if (n_gpus > 0) {
    int status = make->cuda(what, device_index, out);
    if (status == FEINT_OK) {
      if (note) snprintf(note, note_size, "backend auto: using cuda on %s", (*out)->device);
      return FEINT_OK;
    }
    if (note) snprintf(note, note_size, "backend auto: cuda unavailable (%s); using cpu", feint_error_message());
  } else if (note) {
    snprintf(note, note_size, "backend auto: no GPU found; using the cpu backend");
  }
  return make->cpu(what, out);
}

static int problem_cpu(const void *p, feint_backend **out) { return feint_backend_cpu_create(p, out); }
/* High-order tetrahedra and prisms go to the element-matrix backend, the
 * rest to the CUDA backend's fused kernels. */
static int problem_cuda(const void *p, int device_index, feint_backend **out) {
  if (feint_backend_elmat_applies(p)) return feint_backend_elmat_create(p, device_index, out);
  return feint_backend_cuda_create(p, device_index, out);
}
/* The CUDA backend assembles simplices, with 32-bit slots and column
 * indices; a plan past that (feint/plan.h) is for the CPU backend. */
static int cuda_width_check(const feint_problem *p) {
  if (!p->plan || (!p->plan->slots64 && !p->plan->indices64)) return FEINT_OK;
  return feint_error_set(FEINT_ERR_INPUT,
                         "backend cuda: the matrix has %lld nonzeros and %lld columns; the CUDA backend assembles "
                         "with 32-bit slots and column indices (at most %lld nonzeros and columns); use --backend cpu",
                         (long long)p->plan->nnz, (long long)p->plan->n_rows, (long long)feint_plan_narrow_limit());
}
static int problem_cuda_supports(const void *p) {
  if (feint_backend_elmat_applies(p)) return feint_backend_elmat_supports(p);
  FEINT_CALL(feint_backend_cuda_check_cells(p));
  return cuda_width_check(p);
}
static int operator_cpu(const void *op, feint_backend **out) { return feint_backend_cpu_operator_create(op, out); }
static int operator_cuda(const void *op, int device_index, feint_backend **out) {
  return feint_backend_cuda_operator_create(op, device_index, out);
}

int feint_backend_create(feint_device_kind kind, int device_index, const feint_problem *p,
                         feint_backend **out, char *note, size_t note_size) {
  static const backend_makers make = {problem_cpu, problem_cuda, problem_cuda_supports};
  return create_on(&make, p, kind, device_index, out, note, note_size);
}

int feint_backend_operator_create(feint_device_kind kind, int device_index, const feint_bp_op *op,
                                  feint_backend **out, char *note, size_t note_size) {
  static const backend_makers make = {operator_cpu, operator_cuda, NULL};
  return create_on(&make, op, kind, device_index, out, note, note_size);
}

int feint_backend_cuda_check_cells(const feint_problem *p) {
  const feint_mesh *m = p->space->mesh;
  const feint_cell_type cell = m->cell_type;
  char shapes[128];
  if (feint_mesh_is_mixed(m))
    return feint_error_set(FEINT_ERR_INPUT,
                           "the cuda backend assembles meshes of one cell shape; this mixed mesh (%s) runs on the "
                           "cpu backend (--backend cpu)",
                           feint_mesh_shapes(m, shapes, sizeof shapes));
  if (!feint_cell_is_simplex(cell))
    return feint_error_set(FEINT_ERR_INPUT,
                           "the cuda backend assembles triangles and tetrahedra only; %s cells run on the cpu "
                           "backend (--backend cpu)",
                           feint_cell_name(cell));
  /* its kernels are written and tested for P1/P2 tetrahedra only */
  if (cell == FEINT_CELL_TETRAHEDRON && p->space->order > 2)
    return feint_error_set(FEINT_ERR_INPUT,
                           "the cuda backend supports orders 1..2 on tetrahedra, not space.order %d (use "
                           "--backend cpu)",
                           p->space->order);
  return FEINT_OK;
}

int feint_cuda_device_select(int device_index, int *dev) {
  const int n_dev = feint_cuda_device_count();
  if (n_dev <= 0) return feint_error_set(FEINT_ERR_INPUT, "no CUDA device is visible");
  *dev = device_index < 0 ? 0 : device_index;
  if (*dev >= n_dev)
    return feint_error_set(FEINT_ERR_INPUT, "--device %d: only %d CUDA device%s visible (0..%d)", *dev, n_dev,
                           n_dev == 1 ? " is" : "s are", n_dev - 1);
  return FEINT_OK;
}

void feint_backend_destroy(feint_backend *b) {
  if (b && b->destroy) b->destroy(b);
}

int feint_backend_update_form(feint_backend *b, feint_problem *p, const feint_form *form) {
  if (b->problem != p)
    return feint_error_set(FEINT_ERR_COMPUTE, "internal: update_form with another problem than the backend's");
  if (!b->update_form)
    return feint_error_set(FEINT_BACKEND_CANNOT_REUSE,
                           "this %s backend's implementation is set up for one form (it has no update_form)", b->name);
  char why[200];
  if (!feint_form_same_layout(p->form, form, why, sizeof why))
    return feint_error_set(FEINT_BACKEND_CANNOT_REUSE, "%s", why);
  FEINT_CALL(b->update_form(b, form));
  p->form = form;
  return FEINT_OK;
}
