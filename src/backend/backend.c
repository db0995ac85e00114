/* Backend selection. */
#include "feint/backend.h"

#include <stdio.h>

#include "feint/error.h"

int feint_backend_create(feint_device_kind kind, int device_index, const feint_problem *p,
                         feint_backend **out, char *note, size_t note_size) {
  *out = NULL;
  if (note && note_size) note[0] = '\0';
  if (kind == FEINT_DEVICE_CPU) return feint_backend_cpu_create(p, out);
  if (kind == FEINT_DEVICE_CUDA) FEINT_CALL(feint_backend_cuda_check_cells(p));
  int n_gpus = feint_cuda_device_count();
  if (kind == FEINT_DEVICE_CUDA) {
    if (n_gpus <= 0)
      return feint_error_set(FEINT_ERR_INPUT,
#ifdef FEINT_HAVE_CUDA
                             "backend cuda asked for, but no CUDA device is visible"
#else
                             "backend cuda asked for, but this feint was built without CUDA (no nvcc found)"
#endif
      );
    return feint_backend_cuda_create(p, device_index, out);
  }
  /* auto */
  if (n_gpus > 0 && !feint_cell_is_simplex(p->space->mesh->cell_type)) {
    if (note)
      snprintf(note, note_size, "backend auto: the cuda backend assembles triangles and tetrahedra only; using cpu "
               "for %s cells", feint_cell_name(p->space->mesh->cell_type));
  } else if (n_gpus > 0) {
    int status = feint_backend_cuda_create(p, device_index, out);
    if (status == FEINT_OK) {
      if (note) snprintf(note, note_size, "backend auto: using cuda on %s", (*out)->device);
      return FEINT_OK;
    }
    if (note) snprintf(note, note_size, "backend auto: cuda unavailable (%s); using cpu", feint_error_message());
  } else if (note) {
    snprintf(note, note_size, "backend auto: no GPU found; using the cpu backend");
  }
  return feint_backend_cpu_create(p, out);
}

int feint_backend_cuda_check_cells(const feint_problem *p) {
  const feint_cell_type cell = p->space->mesh->cell_type;
  if (feint_cell_is_simplex(cell)) return FEINT_OK;
  return feint_error_set(FEINT_ERR_INPUT,
                         "the cuda backend assembles triangles and tetrahedra only; %s cells run on the cpu "
                         "backend (--backend cpu)",
                         feint_cell_name(cell));
}

void feint_backend_destroy(feint_backend *b) {
  if (b && b->destroy) b->destroy(b);
}
