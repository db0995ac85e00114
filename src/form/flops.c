/* Floating-point operations of a form's quadrature algorithm (feint bench's
 * GF/s column): the model of feint_form_flops in include/feint/form.h. */
#include "feint/fe.h"
#include "feint/form.h"

/* Inverse and determinant of a dim x dim Jacobian by cofactors. */
static double inverse_flops(int dim) { return dim == 3 ? 42 : dim == 2 ? 8 : 1; }

/* Flops of one block of cells (nv geometry nodes, nb scalar basis
 * functions) on a rule of nq points; affine: J once a cell. */
static double block_flops(const feint_form *f, feint_form_work what, int affine, int nv, int nb, int nq,
                          int64_t n_cells) {
  const double d = f->dim, nc = f->nc, n = nb;
  double nodal = 0; /* coefficient fields interpolated at each point */
  for (int k = 0; k < f->n_aux; k++)
    if (f->aux[k].kind == FEINT_FIELD_NODE || f->aux[k].kind == FEINT_FIELD_CELL_NODE) nodal += 2 * n;
  /* the Jacobian and its inverse: once per cell on affine simplices, at every point otherwise */
  const double jacobian = affine ? d * d + inverse_flops(f->dim) : nq * (2 * nv * d * d + inverse_flops(f->dim));
  double per_point = nodal + 1; /* + the weight times |det J| */
  switch (what) {
    case FEINT_FORM_WORK_RESIDUAL:
      /* u, reference then physical gradients; f1 back to the reference; f0 phi_i + f1 . grad phi_i */
      per_point += nc * (2 * n * (1 + d) + 4 * d * d + 2 * n * (1 + d));
      break;
    case FEINT_FORM_WORK_RHS:
      per_point += nc * 2 * n; /* s phi_i */
      break;
    case FEINT_FORM_WORK_MATRIX:
      /* physical gradients of the basis, then every (i, j) pair against the
       * (1 + dim)^2 terms g0..g3 of each component pair */
      per_point += 2 * n * d * d + (n * nc) * (n * nc) * 2 * (1 + d) * (1 + d);
      break;
  }
  return (double)n_cells * (jacobian + nq * per_point);
}

double feint_form_flops(const feint_form *f, const feint_space *s, feint_form_work what) {
  const feint_mesh *m = s->mesh;
  double total = 0;
  for (int b = 0; b < m->n_blocks; b++) {
    const feint_quadrature *q;
    if (f->n_blocks > 0) {
      const feint_form_rule *r = what == FEINT_FORM_WORK_MATRIX ? &f->block_matrix_rule[b] : &f->block_rule[b];
      q = r->quadrature;
    } else {
      q = what == FEINT_FORM_WORK_MATRIX && f->matrix_quadrature ? f->matrix_quadrature : f->quadrature;
    }
    const int nb = s->n_blocks > 1 ? s->blocks[b].nb : s->nb;
    const feint_cell_type ct = m->blocks[b].cell_type;
    if (m->n_geometry_nodes && q) { /* a curved mesh: the block's curved cells, then its affine ones */
      const feint_mesh_block *B = &m->blocks[b];
      const feint_quadrature *qs = what == FEINT_FORM_WORK_MATRIX ? f->straight_matrix_rule[b].quadrature
                                                                 : f->straight_rule[b].quadrature;
      total += block_flops(f, what, 0, B->n_geometry_nodes, nb, q->n, B->n_curved_cells);
      if (qs) total += block_flops(f, what, feint_cell_is_simplex(ct), B->nv, nb, qs->n, B->n_cells - B->n_curved_cells);
    } else if (q) {
      total += block_flops(f, what, feint_cell_is_simplex(ct), m->blocks[b].nv, nb, q->n, m->blocks[b].n_cells);
    }
  }
  return total;
}
