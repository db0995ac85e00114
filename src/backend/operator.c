/* The cpu operator backend: a thin table over the matrix-free BP
 * operators' reference (src/bp/bp.c), so the driver applies y = A x the
 * same way on every kind (the cuda one: src/backend/cuda/backend_cuda.c). */
#include <stdio.h>
#include <stdlib.h>

#include "feint/backend.h"
#include "feint/error.h"

static int cpu_apply(feint_operator *b, const double *x, double *y) { return feint_bp_apply(b->data, x, y); }

static void cpu_destroy(feint_operator *b) { free(b); }

int feint_backend_cpu_operator_create(const feint_bp_op *op, feint_operator **out) {
  feint_operator *b = NULL;
  FEINT_CALL(feint_calloc(1, sizeof *b, &b, "operator backend"));
  b->name = "cpu";
  snprintf(b->device, sizeof b->device, "CPU (reference backend, double precision)");
  b->data = (void *)op; /* not owned; bp_apply only reads it */
  b->apply = cpu_apply;
  b->destroy = cpu_destroy;
  *out = b;
  return FEINT_OK;
}
