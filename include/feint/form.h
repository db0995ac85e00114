/* feint form: a physics (include/feint/physics.h) with its coefficient
 * fields sampled on a space, the state u, and the quadrature rule.
 *
 * Coefficient fields are constants, per-cell values (P0), or nodal values
 * on the scalar space of u (interpolated with its basis). An expression in
 * x, y, z is interpolated at the dofs of the space (so it lives in the same
 * space as u, as in Knepley et al.'s data model); a dataset is read from an
 * HDF5 file ({file, dataset, on: cell | node}, node meaning one value per
 * scalar dof in feint's numbering, i.e. in the order of /dofs/coordinates). */
#ifndef FEINT_FORM_H
#define FEINT_FORM_H

#include <stdint.h>

#include "feint/case.h"
#include "feint/fe.h"
#include "feint/space.h"

typedef enum { FEINT_FIELD_CONSTANT = 0, FEINT_FIELD_CELL, FEINT_FIELD_NODE } feint_field_kind;

typedef struct {
  feint_field_kind kind;
  double constant;   /* FEINT_FIELD_CONSTANT */
  double *values;    /* CELL: n_cells values; NODE: n_scalar_dofs values (owned) */
} feint_field;

typedef struct {
  int physics;       /* FEINT_PW_* (same numbering as feint_physics_kind) */
  int dim, nc;
  int n_aux;
  feint_field *aux;  /* n_aux fields in the physics' aux layout */
  double *u;         /* the state, n_dofs (interleaved components) */
  int quadrature_degree;
  feint_quadrature *quadrature;
  double *basis;     /* nq x nb reference basis values at the quadrature points */
  double *basis_grad;/* nq x nb x dim reference gradients */
} feint_form;

/* Build the form of case `c` on `space`: validates the physics against the
 * space (elasticity needs components == dim, ...), samples coefficients,
 * state and source, chooses the quadrature (c->quadrature_degree, or the
 * degree exact for the form on affine cells). */
int feint_form_create(const feint_case *c, const feint_space *space, feint_form **out);
void feint_form_destroy(feint_form *form);

/* Fill a[] (n_aux) at quadrature point q of cell `cell` whose scalar dofs
 * are `dofs`: constants, P0 values, and nodal fields interpolated with the
 * tabulated basis. */
static inline void feint_form_aux_at(const feint_form *f, int nb, int64_t cell, const int64_t *dofs,
                                     int q, double *a) {
  const double *phi = f->basis + q * nb;
  for (int k = 0; k < f->n_aux; k++) {
    const feint_field *fld = &f->aux[k];
    if (fld->kind == FEINT_FIELD_CONSTANT) {
      a[k] = fld->constant;
    } else if (fld->kind == FEINT_FIELD_CELL) {
      a[k] = fld->values[cell];
    } else {
      double s = 0;
      for (int i = 0; i < nb; i++) s += phi[i] * fld->values[dofs[i]];
      a[k] = s;
    }
  }
}

#endif
