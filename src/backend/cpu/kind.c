/* The cpu kind: the reference, computing every problem and operator on
 * the host in double precision; auto's last resort (lowest priority). */
#include "backend/kinds.h"

static int cpu_create(const feint_problem *p, int device_index, feint_backend **out) {
  (void)device_index; /* host only */
  return feint_backend_cpu_create(p, out);
}

static int cpu_create_operator(const feint_bp_op *op, int device_index, feint_operator **out) {
  (void)device_index;
  return feint_backend_cpu_operator_create(op, out);
}

const feint_backend_kind feint_backend_kind_cpu = {
    .name = "cpu",
    .device = FEINT_DEVICE_CPU,
    .priority = 10,
    .create = cpu_create,
    .create_operator = cpu_create_operator,
};
