/* The CPU backend's pointwise steps shared by its cell kernels (cpu.c for
 * every cell, tensor_cells.c for the sum-factorised quadrilaterals and
 * hexahedra): the physics' Jacobian coefficients at one point. */
#ifndef FEINT_CPU_POINTWISE_H
#define FEINT_CPU_POINTWISE_H

#include "feint/form.h"
#include "feint/physics.h"

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

#endif
