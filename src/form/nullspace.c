/* Near null space of a physics on a space: what the operator (nearly)
 * annihilates, for algebraic multigrid (PETSc's MatSetNearNullSpace,
 * GAMG, ML): the rigid body modes for elasticity (3 in 2D, 6 in 3D),
 * one constant per component otherwise. Orthonormalised (modified
 * Gram-Schmidt), as PETSc's MatNullSpaceCreate requires. */
#include <math.h>
#include <stdlib.h>

#include "feint/error.h"
#include "feint/form.h"

int feint_near_null_space(const feint_form *f, const feint_space *s, int *k_out, double **modes_out) {
  const int nc = s->components, dim = f->dim;
  const int64_t n = s->n_dofs;
  const int rigid = f->physics == FEINT_PHYSICS_ELASTICITY;
  const int k = rigid ? (dim == 2 ? 3 : 6) : nc;
  double *v = NULL;
  FEINT_CALL(feint_calloc((size_t)k * (size_t)n, sizeof *v, &v, "near null space"));
  for (int64_t i = 0; i < s->n_scalar_dofs; i++) {
    const double *x = s->coordinates + 3 * i;
    for (int c = 0; c < nc; c++) v[(int64_t)c * n + i * nc + c] = 1; /* translations / constants */
    if (!rigid) continue;
    /* rotations: in the (a, b) plane, u_a = -x_b, u_b = x_a */
    static const int planes[3][2] = {{0, 1}, {1, 2}, {0, 2}};
    for (int r = 0; r < (dim == 2 ? 1 : 3); r++) {
      const int a = planes[r][0], b = planes[r][1];
      double *m = v + (int64_t)(nc + r) * n;
      m[i * nc + a] = -x[b];
      m[i * nc + b] = x[a];
    }
  }
  for (int j = 0; j < k; j++) {
    double *vj = v + (int64_t)j * n;
    for (int l = 0; l < j; l++) {
      const double *vl = v + (int64_t)l * n;
      double dot = 0;
      for (int64_t i = 0; i < n; i++) dot += vj[i] * vl[i];
      for (int64_t i = 0; i < n; i++) vj[i] -= dot * vl[i];
    }
    double norm = 0;
    for (int64_t i = 0; i < n; i++) norm += vj[i] * vj[i];
    norm = sqrt(norm);
    if (!(norm > 0)) {
      free(v);
      return feint_error_set(FEINT_ERR_INPUT, "near null space: mode %d vanishes on this mesh", j);
    }
    for (int64_t i = 0; i < n; i++) vj[i] /= norm;
  }
  *k_out = k;
  *modes_out = v;
  return FEINT_OK;
}
