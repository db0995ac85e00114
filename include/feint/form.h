/* feint form: a physics (include/feint/physics.h) with its coefficient
 * fields sampled on a space, the state u, and the quadrature rule.
 *
 * Coefficient fields are constants, per-cell values (P0), or nodal values
 * on the scalar space of u (interpolated with its basis). An expression in
 * x, y, z is interpolated at the dofs of the space (so it lives in the same
 * space as u, as in Knepley et al.'s data model); a dataset is read from an
 * HDF5 file ({file, dataset, on: cell | node}, node meaning one value per
 * scalar dof in feint's numbering, i.e. in the order of /dofs/coordinates);
 * a number per physical group ({groups: ...}) becomes the per-cell field
 * such a cell dataset would be, so no backend tells them apart. */
#ifndef FEINT_FORM_H
#define FEINT_FORM_H

#include <stddef.h>
#include <stdint.h>

#include "feint/case.h"
#include "feint/fe.h"
#include "feint/field_kind.h"
#include "feint/physics.h" /* FEINT_HOST_DEVICE */
#include "feint/space.h"
#include "feint/userform.h"

typedef struct {
  feint_field_kind kind;
  double constant;   /* FEINT_FIELD_CONSTANT */
  double *values;    /* CELL: n_cells values; NODE: n_scalar_dofs values; CELL_NODE: n_cells x per_cell,
                        cell c's value at its local scalar dof i at c per_cell + i (owned) */
  int per_cell;      /* CELL_NODE: values a cell (the space's nb, the row stride of scalar_cell_dofs) */
} feint_field;

/* A quadrature rule with the basis tabulated at its points. */
typedef struct {
  int degree;
  feint_quadrature *quadrature;
  double *basis, *basis_grad, *geometry_grad, *geometry_value; /* as the fields of feint_form below */
} feint_form_rule;

typedef struct {
  int physics;       /* FEINT_PW_* (same numbering as feint_physics_kind), or FEINT_PHYSICS_FORM */
  int dim, nc;
  int n_aux;
  feint_field *aux;  /* n_aux fields in the physics' aux layout; a user form's named coefficients */
  feint_user_form *user; /* physics kind form: its expressions (owned); NULL for the built-in kinds */
  double *u;         /* the state, n_dofs (interleaved components) */
  /* The rule for residuals and load vectors ... */
  int quadrature_degree;
  feint_quadrature *quadrature;
  double *basis;     /* nq x nb reference basis values at the quadrature points (NULL on
                        quadrilaterals and hexahedra, whose kernels use 1D tables) */
  double *basis_grad;/* nq x nb x dim reference gradients (NULL as basis) */
  double *geometry_grad; /* non-affine cells (quadrilaterals, hexahedra): nq x nv x dim reference
                            gradients of the vertex shape functions, for J at each point; else NULL */
  double *geometry_value; /* user forms: nq x nv vertex shape values (x, y, z at the points); else NULL */
  /* ... and the rule for element matrices, which can be lower (the load
   * term raises the degree of the vectors only). NULL = the rule above. */
  int matrix_quadrature_degree;
  feint_quadrature *matrix_quadrature;
  double *matrix_basis;
  double *matrix_basis_grad;
  double *matrix_geometry_grad;
  double *matrix_geometry_value;
  /* Mixed meshes (mesh.h): each block's element has its own rules, and the
   * rule fields above stay unset (quadrature_degree is the highest of the
   * blocks'). n_blocks is 0 on single-shape meshes. */
  int n_blocks;
  feint_form_rule block_rule[FEINT_MESH_MAX_BLOCKS], block_matrix_rule[FEINT_MESH_MAX_BLOCKS];
  /* A curved mesh's affine cells (mesh->curved_cells[c] == 0) integrate
   * as straight cells, on the straight cell's vector and matrix rules of
   * their block (the degree without the curved map's increase;
   * geometry_grad NULL on simplices, geometry_value the vertices'). Unset
   * (quadrature NULL) on straight meshes. */
  feint_form_rule straight_rule[FEINT_MESH_MAX_BLOCKS], straight_matrix_rule[FEINT_MESH_MAX_BLOCKS];
} feint_form;

/* Build the form of case `c` on `space`: validates the physics against the
 * space (elasticity needs components == dim, ...), samples coefficients,
 * state and source, chooses the quadrature (c->quadrature_degree, or the
 * degree exact for the form on affine cells; on quadrilaterals and
 * hexahedra the degree in each direction: 2p for every bilinear term, as
 * a derivative along x leaves degree p in y, raised by the degree of
 * |det J|, feint_cell_geometry_degree, so mass-type terms stay exact:
 * p + 1 Gauss points per direction on quadrilaterals, p + 2 on hexahedra,
 * the BP operators' rule). On a mixed mesh each block gets the rule its
 * shape needs. */
int feint_form_create(const feint_case *c, const feint_space *space, feint_form **out);
void feint_form_destroy(feint_form *form);
/* The name of coefficient field aux[k] as the case gives it (a user
 * form's coefficient name; kappa, lambda, lame_lambda, lame_mu,
 * velocity_x, tensor_xy, source (source_x .. for elasticity)), for the
 * fields a viewer shows (output.xdmf). */
void feint_form_coefficient_name(const feint_form *form, const feint_case *c, int k, char *buf, size_t size);

/* What feint_form_flops counts the work of. */
typedef enum { FEINT_FORM_WORK_RESIDUAL = 0, FEINT_FORM_WORK_RHS, FEINT_FORM_WORK_MATRIX } feint_form_work;

/* Floating-point operations of the quadrature algorithm for all cells (a
 * model, for GF/s in feint bench): per cell the Jacobian and its inverse
 * (at every point on non-affine cells); per point of the form's rule the
 * nodal coefficients interpolated (2 nb each), and for the residual u and
 * its gradient, f1 mapped back and f0 phi_i + f1 . grad phi_i for every
 * component (2 nb (1 + dim) twice, 4 dim^2); for the load vector s phi_i;
 * for element matrices the physical basis gradients and every (i, j) pair
 * of local dofs against the (1 + dim)^2 terms of g0..g3. The physics'
 * pointwise functions are not counted, nor the sums of assembly. Kernels
 * that skip work (constant gradients of P1, zero g terms) execute fewer. */
double feint_form_flops(const feint_form *f, const feint_space *s, feint_form_work what);

/* Whether form b (on the space of form a) differs from a in its data
 * only: the same physics, dimension and components, coefficient fields of
 * the same kinds (constant, per cell, nodal) and the same quadrature
 * rules, so that a backend set up for a can take b's values in place
 * (feint_backend_update_form). 1 if so; else 0 and a sentence saying
 * what differs in why (may be NULL). */
int feint_form_same_layout(const feint_form *a, const feint_form *b, char *why, size_t why_size);

/* The near null space of the form's operator on `space`: k orthonormal
 * vectors of n_dofs values, row-major in *modes (k x n_dofs, caller
 * frees): the rigid body modes for elasticity (translations, then
 * rotations in the xy, yz, xz planes; 3 in 2D, 6 in 3D), one constant per
 * component otherwise. */
/* The values a field of this kind holds on space s (0 for a constant). */
int64_t feint_field_size(feint_field_kind kind, const feint_space *s);

int feint_near_null_space(const feint_form *form, const feint_space *space, int *k, double **modes);

/* The value of one field at a point where the scalar basis functions of
 * cell `cell` (scalar dofs `dofs`) take the values phi[nb]: its constant,
 * its P0 value, or its (piecewise) nodal values interpolated with the basis. Host and
 * device: the GPU element-matrix path (feint/elmat.h) runs it on fields
 * whose values are device arrays. */
FEINT_HOST_DEVICE static inline double feint_field_at(const feint_field *fld, const double *phi, int nb, int64_t cell,
                                                      const int64_t *dofs) {
  if (fld->kind == FEINT_FIELD_CONSTANT) return fld->constant;
  if (fld->kind == FEINT_FIELD_CELL) return fld->values[cell];
  double s = 0;
  if (fld->kind == FEINT_FIELD_CELL_NODE) {
    const double *v = fld->values + cell * fld->per_cell;
    for (int i = 0; i < nb; i++) s += phi[i] * v[i];
    return s;
  }
  for (int i = 0; i < nb; i++) s += phi[i] * fld->values[dofs[i]];
  return s;
}

/* Fill a[0 .. n-1] (n <= n_aux) at such a point: constants, P0 values,
 * and nodal fields interpolated with the basis. */
static inline void feint_form_aux_eval(const feint_form *f, const double *phi, int nb, int64_t cell,
                                       const int64_t *dofs, int n, double *a) {
  for (int k = 0; k < n; k++) a[k] = feint_field_at(&f->aux[k], phi, nb, cell, dofs);
}

#endif
