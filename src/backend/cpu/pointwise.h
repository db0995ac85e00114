/* The CPU backend's pointwise steps shared by its cell kernels (cpu.c for
 * every cell, tensor_cells.c for the sum-factorised quadrilaterals and
 * hexahedra): the physics' Jacobian coefficients at one point, and a user
 * form's symbol row, residual and Jacobian blocks. */
#ifndef FEINT_CPU_POINTWISE_H
#define FEINT_CPU_POINTWISE_H

#include <string.h>

#include "feint/form.h"
#include "feint/physics.h"
#include "feint/userform.h"

/* g0..g3 at one point (feint/physics.h layouts); g2 stays zero (no physics
 * has it). */
typedef struct {
  double g0[9], g1[27], g2[27], g3[81];
} cpu_coefficients;

/* The coefficients `terms` asks for (bits of feint_physics_jacobian_terms)
 * from the point's aux values a[] (the Jacobian does not depend on u). */
static inline void cpu_coefficients_at(const feint_form *f, const double *a, int terms, int dim, int nc,
                                       cpu_coefficients *g) {
  const double zero[9] = {0};
  const feint_point pt = {dim, nc, zero, zero, a};
  if (terms & 1) feint_physics_g0(f->physics, &pt, g->g0);
  if (terms & 2) feint_physics_g1(f->physics, &pt, g->g1);
  if (terms & 8) feint_physics_g3(f->physics, &pt, g->g3);
}

/* Whether some expression of a user form reads x, y or z, or the
 * gradient of coefficient k. */
static inline int cpu_user_reads_x(const feint_user_form *uf) {
  return uf->reads[FEINT_FORM_SYM_X] | uf->reads[FEINT_FORM_SYM_X + 1] | uf->reads[FEINT_FORM_SYM_X + 2];
}
static inline int cpu_user_reads_gradient(const feint_user_form *uf, int k) {
  const int at = feint_user_form_coefficient_symbol(uf, k);
  return uf->reads[at + 1] | uf->reads[at + 2] | uf->reads[at + 3];
}

/* x, y, z at a point of cell c of m from its nv vertex shape values gv. */
static inline void cpu_point_coordinates(const feint_mesh *m, int64_t c, int nv, const double *gv, double x[3]) {
  const double *X[3] = {m->x, m->y, m->z};
  x[0] = x[1] = x[2] = 0;
  const double *g = feint_mesh_curved_nodes(m, c, nv);
  if (g) { /* a curved cell: its nv geometry nodes */
    for (int k = 0; k < nv; k++)
      for (int a = 0; a < 3; a++) x[a] += gv[k] * g[3 * k + a];
    return;
  }
  for (int k = 0; k < nv; k++) {
    const int64_t vertex = m->cells[c * m->nv + k];
    for (int a = 0; a < 3; a++) x[a] += gv[k] * X[a][vertex];
  }
}

/* One point's row of n_symbols values (feint/userform.h): x[3] (NULL: no
 * expression reads them), u[nc] and gradu[nc * dim] (u NULL: u = 0), the
 * coefficients' values a[k] and gradients ga[k * dim + d] (read where
 * cpu_user_reads_gradient; zeros for a field that is not nodal), the
 * parameters; the other symbols 0. */
static inline void cpu_user_point(const feint_user_form *uf, const double *x, const double *u, const double *gradu,
                                  const double *a, const double *ga, double *row) {
  const int dim = uf->dim, par = feint_user_form_parameter_symbol(uf);
  memset(row, 0, sizeof(double) * (size_t)uf->n_symbols);
  for (int d = 0; x && d < 3; d++) row[FEINT_FORM_SYM_X + d] = x[d];
  for (int fc = 0; u && fc < uf->nc; fc++) {
    row[FEINT_FORM_SYM_U + 4 * fc] = u[fc];
    for (int d = 0; d < dim; d++) row[FEINT_FORM_SYM_U + 4 * fc + 1 + d] = gradu[fc * dim + d];
  }
  for (int k = 0; k < uf->n_coefficients; k++) {
    const int at = feint_user_form_coefficient_symbol(uf, k);
    row[at] = a[k];
    for (int d = 0; d < dim && cpu_user_reads_gradient(uf, k); d++) row[at + 1 + d] = ga[k * dim + d];
  }
  for (int k = 0; k < uf->n_parameters; k++) row[par + k] = uf->parameters[k];
}

/* f0 (nq x nc) and f1 (nq x nc x dim) of a user form at nq rows of
 * symbols; for a load (!with_state, the rows at u = 0) their negatives:
 * the load is minus the residual at u = 0, f1 included, so that F(u) =
 * A u - b for a form linear in u, as for the built-in physics. */
static inline void cpu_user_residual(const feint_user_form *uf, int nq, const double *sym, int with_state,
                                     double *f0, double *f1) {
  feint_user_form_residual(uf, nq, sym, f0, f1);
  for (int k = 0; k < nq * uf->nc && !with_state; k++) f0[k] = -f0[k];
  for (int k = 0; k < nq * uf->nc * uf->dim && !with_state; k++) f1[k] = -f1[k];
}

/* A user form's Jacobian blocks at nq rows of symbols into G: g0, g1, g2,
 * g3 of every point, block after block (nq x nc^2 (1 + dim)^2 values). */
static inline void cpu_user_jacobian(const feint_user_form *uf, int nq, const double *sym, double *G) {
  const int nn = uf->nc * uf->nc, dim = uf->dim;
  feint_user_form_jacobian(uf, nq, sym, G, G + nq * nn, G + nq * nn * (1 + dim), G + nq * nn * (1 + 2 * dim));
}

/* Point q's blocks of cpu_user_jacobian's G in the layout of
 * cpu_coefficients. */
static inline void cpu_user_coefficients_at(const double *G, int nq, int q, int terms, int dim, int nc,
                                            cpu_coefficients *g) {
  const int nn = nc * nc, n1 = nn * dim, n3 = nn * dim * dim;
  if (terms & 1) memcpy(g->g0, G + q * nn, sizeof(double) * (size_t)nn);
  if (terms & 2) memcpy(g->g1, G + nq * nn + q * n1, sizeof(double) * (size_t)n1);
  if (terms & 4) memcpy(g->g2, G + nq * (nn + n1) + q * n1, sizeof(double) * (size_t)n1);
  if (terms & 8) memcpy(g->g3, G + nq * (nn + 2 * n1) + q * n3, sizeof(double) * (size_t)n3);
}

#endif
