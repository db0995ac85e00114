/* Backend selection. */
#include "feint/backend.h"

#include <stdio.h>

#include "feint/error.h"

/* The CUDA backend assembles with 32-bit slots and column indices; a plan
 * past that (feint/plan.h) is for the CPU backend. 0 when it fits, else
 * the error set. */
static int cuda_width_check(const feint_problem *p) {
  if (!p->plan || (!p->plan->slots64 && !p->plan->indices64)) return FEINT_OK;
  return feint_error_set(FEINT_ERR_INPUT,
                         "backend cuda: the matrix has %lld nonzeros and %lld columns; the CUDA backend assembles "
                         "with 32-bit slots and column indices (at most %lld nonzeros and columns); use --backend cpu",
                         (long long)p->plan->nnz, (long long)p->plan->n_rows, (long long)feint_plan_narrow_limit());
}

int feint_backend_create(feint_device_kind kind, int device_index, const feint_problem *p,
                         feint_backend **out, char *note, size_t note_size) {
  *out = NULL;
  if (note && note_size) note[0] = '\0';
  if (kind == FEINT_DEVICE_CPU) return feint_backend_cpu_create(p, out);
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
    FEINT_CALL(cuda_width_check(p));
    return feint_backend_cuda_create(p, device_index, out);
  }
  /* auto */
  if (n_gpus > 0) {
    int status = cuda_width_check(p);
    if (status == FEINT_OK) status = feint_backend_cuda_create(p, device_index, out);
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

void feint_backend_destroy(feint_backend *b) {
  if (b && b->destroy) b->destroy(b);
}
