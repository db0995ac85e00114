/* The CPU reference backend: a plain loop over cells, double precision,
 * evaluating the pointwise physics at each quadrature point. Kept simple
 * and exact: every other backend is tested against it. Simplices have one
 * Jacobian per cell; prisms (multilinear geometry) get J, |det J| and the
 * physical gradients at every quadrature point from the form's tabulated
 * basis. Quadrilaterals and hexahedra of every order (1..15) go through
 * the sum-factorised kernels of tensor_cells.c (J per point too, 1D
 * tables: a Q15 hexahedron's 4096 x 4913-point tables would take 644 MB).
 * Work arrays are sized from the problem at create (any local dof count,
 * any component count). A mixed mesh is run block by block, each block
 * with its shape's element and rules, into the same vectors and matrix.
 * A sweep member's form of the same layout is taken by pointer
 * (update_form). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feint/backend.h"
#include "feint/error.h"
#include "feint/geometry.h"
#include "feint/physics.h"
#include "backend/cpu/pointwise.h"
#include "backend/cpu/tensor_cells.h"

typedef struct {
  double *gphi;   /* nq x nb x dim physical gradients of the current cell */
  double *vert;   /* nv x 3 coordinates of the geometry's nodes (vertices; a curved cell's nodes) */
  double *wdet;   /* nq: weight x |det J| per point (non-affine cells) */
  double *Ke;     /* nbc x nbc */
  double *Fe;     /* nbc */
  double *ue;     /* nbc: the cell's state */
  double *T;      /* nc x nbc x (1 + dim): element_matrix_wide's trial parts */
  /* user forms (physics kind form), a cell's points at a time: */
  double *sym;    /* nq x n_symbols: the symbols' values at each point */
  double *f0, *f1;/* nq x nc, nq x nc x dim: the residual's pointwise terms */
  double *g;      /* g0, g1, g2, g3 of every point, block after block (nq x nc^2 (1 + dim)^2) */
  double *ca, *cg;/* one point's coefficient values (n_aux) and gradients (n_aux x dim) */
} cpu_scratch;

typedef struct {
  cpu_scratch s;
  cpu_tensor *tensor[FEINT_MESH_MAX_BLOCKS]; /* quadrilateral and hexahedral blocks, else NULL */
  cpu_tensor *tensor_straight[FEINT_MESH_MAX_BLOCKS]; /* a curved tensor block's affine cells */
} cpu_data;

/* The cell kernels below take dim, nc and nb as arguments and are always
 * inlined, so the common shapes (dispatched in for_each_shape) get
 * constant trip counts the compiler unrolls; other shapes use the generic
 * instantiation. */
#define CPU_INLINE static inline __attribute__((always_inline))

/* A quadrature rule with its tabulated basis (geometry_grad: NULL on
 * affine cells, see feint_form). */
typedef struct {
  int nq;
  const double *weights, *basis, *basis_grad, *geometry_grad;
  const double *geometry_value; /* user forms: vertex shape values (x, y, z at the points) */
} cpu_rule;

static cpu_rule rule_of(const feint_form_rule *r) {
  return (cpu_rule){r->quadrature->n, r->quadrature->weights, r->basis, r->basis_grad, r->geometry_grad,
                    r->geometry_value};
}

/* The cells of one mesh block with their rules (one block on a
 * single-shape mesh, where the form's own rules serve). */
typedef struct cpu_block cpu_block;
struct cpu_block {
  int64_t first, n;
  int nv; /* the geometry's nodes a cell: the block shape's vertices, or a curved cell's nodes */
  cpu_rule vector, matrix;
  cpu_tensor *tensor; /* the sum-factorised kernels of a tensor-product block, else NULL */
  /* a curved mesh's: which cells are curved (mesh.h), and the block its
   * affine cells take instead (straight geometry and rules); else NULL */
  const unsigned char *curved;
  const cpu_block *straight;
};

/* The block cell c of blk integrates with: a curved mesh's affine cells as straight ones. */
static inline const cpu_block *cell_block(const cpu_block *blk, int64_t c) {
  return blk->straight && !blk->curved[c] ? blk->straight : blk;
}

static cpu_block block_of(const feint_problem *p, int b) {
  const feint_form *f = p->form;
  const feint_mesh_block *B = &p->space->mesh->blocks[b];
  cpu_block k = {B->first_cell, B->n_cells, feint_mesh_block_geometry_nodes(p->space->mesh, b),
                 {0}, {0}, NULL, p->space->mesh->curved_cells, NULL};
  if (f->n_blocks) {
    k.vector = rule_of(&f->block_rule[b]);
    k.matrix = rule_of(&f->block_matrix_rule[b]);
    return k;
  }
  k.vector = (cpu_rule){f->quadrature->n,  f->quadrature->weights, f->basis, f->basis_grad, f->geometry_grad,
                        f->geometry_value};
  k.matrix = !f->matrix_quadrature ? k.vector
                                   : (cpu_rule){f->matrix_quadrature->n, f->matrix_quadrature->weights,
                                                f->matrix_basis,         f->matrix_basis_grad,
                                                f->matrix_geometry_grad, f->matrix_geometry_value};
  return k;
}

/* A curved mesh's block b for its affine cells: the vertices, the straight rules. */
static cpu_block straight_block_of(const feint_problem *p, int b) {
  const feint_form *f = p->form;
  const feint_mesh_block *B = &p->space->mesh->blocks[b];
  cpu_block k = {B->first_cell, B->n_cells, B->nv, {0}, {0}, NULL, NULL, NULL};
  if (f->straight_rule[b].quadrature) {
    k.vector = rule_of(&f->straight_rule[b]);
    k.matrix = rule_of(&f->straight_matrix_rule[b]);
  }
  return k;
}

/* Physical basis gradients at point q into s->gphi: grad phi = J^-T times
 * the reference gradient. */
CPU_INLINE void physical_gradients(const cpu_rule *rule, int q, const double *invJ, cpu_scratch *s, const int dim,
                                   const int nb) {
  for (int i = 0; i < nb; i++) {
    const double *G = rule->basis_grad + (q * nb + i) * dim;
    double *g = s->gphi + (q * nb + i) * dim;
    for (int a = 0; a < dim; a++) {
      double v = 0;
      for (int d = 0; d < dim; d++) v += G[d] * invJ[d * dim + a];
      g[a] = v;
    }
  }
}

/* Multilinear or curved cell c of nv geometry nodes: at each point J =
 * sum_v x_v (grad N_v)^T, the physical basis gradients into s->gphi and
 * w |det J| into s->wdet. */
static void multilinear_geometry(const feint_problem *p, const cpu_rule *rule, int nv, int64_t c, cpu_scratch *s,
                                 const int dim, const int nb) {
  const feint_mesh *m = p->space->mesh;
  const double *X[3] = {m->x, m->y, m->z};
  const double *g = feint_mesh_curved_nodes(m, c, nv); /* a curved cell (an affine one of a curved mesh: NULL) */
  if (g)
    memcpy(s->vert, g, (size_t)nv * 3 * sizeof *s->vert);
  else
    for (int k = 0; k < nv; k++)
      for (int a = 0; a < dim; a++) s->vert[k * 3 + a] = X[a][m->cells[c * m->nv + k]];
  for (int q = 0; q < rule->nq; q++) {
    double J[9], invJ[9];
    feint_multilinear_jacobian(dim, nv, s->vert, rule->geometry_grad + q * nv * dim, J);
    s->wdet[q] = rule->weights[q] * fabs(feint_inverse_jacobian(dim, J, invJ));
    physical_gradients(rule, q, invJ, s, dim, nb);
  }
}

/* Geometry of cell c: physical basis gradients into s->gphi; returns
 * |det J| of an affine cell (0 for a non-affine one, whose w |det J| per
 * point is in s->wdet). */
CPU_INLINE double cell_geometry(const feint_problem *p, const cpu_rule *rule, int nv, int64_t c, cpu_scratch *s,
                                const int dim, const int nb) {
  if (rule->geometry_grad) {
    multilinear_geometry(p, rule, nv, c, s, dim, nb);
    return 0;
  }
  const feint_space *sp = p->space;
  const feint_mesh *m = sp->mesh;
  const int nq = rule->nq;
  for (int k = 0; k <= dim; k++) {
    int64_t v = m->cells[c * m->nv + k];
    s->vert[k * 3 + 0] = m->x[v];
    s->vert[k * 3 + 1] = m->y[v];
    s->vert[k * 3 + 2] = m->z[v];
  }
  double invJ[9];
  double det = feint_affine_inverse_jacobian(dim, s->vert, invJ);
  for (int q = 0; q < nq; q++) physical_gradients(rule, q, invJ, s, dim, nb);
  return fabs(det);
}

/* u, grad u at quadrature point q from the cell's local values ue[nbc]. */
CPU_INLINE void eval_state(const cpu_rule *rule, const cpu_scratch *s, int q, const double *ue, double *u,
                           double *gradu, const int dim, const int nc, const int nb) {
  const double *phi = rule->basis + q * nb;
  for (int c = 0; c < nc; c++) {
    u[c] = 0;
    for (int d = 0; d < dim; d++) gradu[c * dim + d] = 0;
  }
  for (int i = 0; i < nb; i++) {
    const double *g = s->gphi + (q * nb + i) * dim;
    for (int c = 0; c < nc; c++) {
      double v = ue[i * nc + c];
      u[c] += phi[i] * v;
      for (int d = 0; d < dim; d++) gradu[c * dim + d] += g[d] * v;
    }
  }
}

/* A user form's symbols at every point of the rule in cell c (its
 * geometry already in s->gphi), one row each (cpu_user_point): x, y, z
 * from the vertex shape functions, u and grad u from the cell's values ue
 * (NULL: u = 0), the coefficients with their gradients, the parameters. */
CPU_INLINE void user_symbols(const feint_problem *p, const cpu_rule *rule, int nv, int64_t c, const double *ue,
                             cpu_scratch *s, const int dim, const int nc, const int nb) {
  const feint_form *f = p->form;
  const feint_user_form *uf = f->user;
  const int64_t *sdofs = p->space->scalar_cell_dofs + c * p->space->nb;
  const int coords = cpu_user_reads_x(uf);
  for (int q = 0; q < rule->nq; q++) {
    const double *phi = rule->basis + q * nb;
    double x[3], u[3], gradu[9];
    if (coords) cpu_point_coordinates(p->space->mesh, c, nv, rule->geometry_value + q * nv, x);
    if (ue) eval_state(rule, s, q, ue, u, gradu, dim, nc, nb);
    for (int k = 0; k < f->n_aux; k++) {
      const feint_field *fld = &f->aux[k];
      double *ga = s->cg + k * dim;
      s->ca[k] = feint_field_at(fld, phi, nb, c, sdofs);
      for (int d = 0; d < dim; d++) ga[d] = 0;
      const int nodal = fld->kind == FEINT_FIELD_NODE || fld->kind == FEINT_FIELD_CELL_NODE;
      if (!nodal || !cpu_user_reads_gradient(uf, k)) continue;
      for (int i = 0; i < nb; i++) {
        const double fi = fld->kind == FEINT_FIELD_NODE ? fld->values[sdofs[i]] : fld->values[c * fld->per_cell + i];
        for (int d = 0; d < dim; d++) ga[d] += s->gphi[(q * nb + i) * dim + d] * fi;
      }
    }
    cpu_user_point(uf, coords ? x : NULL, ue ? u : NULL, gradu, s->ca, s->cg, s->sym + q * uf->n_symbols);
  }
}

/* Element residual (with_state) or element load (!with_state) of cell c
 * (a user form's load: cpu_user_residual). */
CPU_INLINE void element_vector(const feint_problem *p, cpu_scratch *s, const cpu_block *blk, int64_t c,
                               const double *u_global, int with_state, double *Fe, const int dim, const int nc,
                               const int nb) {
  const feint_form *f = p->form;
  const cpu_rule rule = blk->vector;
  const int nbc = nb * nc, nq = rule.nq;
  const int64_t *dofs = p->space->cell_dofs + c * p->space->nbc;
  const int64_t *sdofs = p->space->scalar_cell_dofs + c * p->space->nb;
  double *ue = s->ue, u[3], gradu[9], a[16], f0[3], f1[9];
  double det = cell_geometry(p, &rule, blk->nv, c, s, dim, nb);
  for (int k = 0; k < nbc; k++) {
    Fe[k] = 0;
    ue[k] = with_state ? u_global[dofs[k]] : 0;
  }
  if (f->user) { /* the whole cell's points at once */
    user_symbols(p, &rule, blk->nv, c, with_state ? ue : NULL, s, dim, nc, nb);
    cpu_user_residual(f->user, nq, s->sym, with_state, s->f0, s->f1);
  }
  for (int q = 0; q < nq; q++) {
    const double *phi = rule.basis + q * nb;
    const double wdet = rule.geometry_grad ? s->wdet[q] : rule.weights[q] * det;
    const double *F0 = f0, *F1 = f1;
    if (f->user) {
      F0 = s->f0 + q * nc;
      F1 = s->f1 + q * nc * dim;
    } else {
      feint_form_aux_eval(f, phi, nb, c, sdofs, f->n_aux, a);
      const feint_point pt = {dim, nc, u, gradu, a};
      if (with_state) {
        eval_state(&rule, s, q, ue, u, gradu, dim, nc, nb);
        feint_physics_f0(f->physics, &pt, f0);
        feint_physics_f1(f->physics, &pt, f1);
      } else {
        feint_physics_source(f->physics, &pt, f0);
        for (int k = 0; k < nc * dim; k++) f1[k] = 0;
      }
    }
    for (int i = 0; i < nb; i++) {
      const double *g = s->gphi + (q * nb + i) * dim;
      for (int fc = 0; fc < nc; fc++) {
        double v = phi[i] * F0[fc];
        for (int d = 0; d < dim; d++) v += g[d] * F1[fc * dim + d];
        Fe[i * nc + fc] += wdet * v;
      }
    }
  }
}

/* A user form's Jacobian blocks at every point of the matrix rule in cell
 * c, at the state (the form's u), into s->g (cpu_user_jacobian). */
CPU_INLINE void user_jacobian(const feint_problem *p, cpu_scratch *s, const cpu_rule *rule, int nv, int64_t c,
                              const int dim, const int nc, const int nb) {
  const int64_t *dofs = p->space->cell_dofs + c * p->space->nbc;
  for (int k = 0; k < nb * nc; k++) s->ue[k] = p->form->u[dofs[k]];
  user_symbols(p, rule, nv, c, s->ue, s, dim, nc, nb);
  cpu_user_jacobian(p->form->user, rule->nq, s->sym, s->g);
}

/* The pointwise Jacobian coefficients at quadrature point q of cell c. */
CPU_INLINE void point_coefficients(const feint_form *f, const cpu_rule *rule, int q, int64_t c,
                                   const int64_t *sdofs, int terms, cpu_coefficients *g, const int dim,
                                   const int nc, const int nb) {
  /* the Jacobian reads the coefficients, not the load (last in the layout) */
  const int n_aux = feint_physics_source_offset(f->physics, dim);
  double a[16];
  feint_form_aux_eval(f, rule->basis + q * nb, nb, c, sdofs, n_aux, a);
  cpu_coefficients_at(f, a, terms, dim, nc, g);
}

/* row[0..n-1] += w t[0..n-1], four at a time (gcc -O2 vectorises the
 * unrolled block, not the plain loop). */
static inline void add_scaled(double *restrict row, double w, const double *restrict t, int n) {
  int J = 0;
  for (; J + 4 <= n; J += 4) {
    row[J] += w * t[J];
    row[J + 1] += w * t[J + 1];
    row[J + 2] += w * t[J + 2];
    row[J + 3] += w * t[J + 3];
  }
  for (; J < n; J++) row[J] += w * t[J];
}

/* row += a ta + b tb + c tc: one pass over the row for the 3D gradient part. */
static inline void add_scaled3(double *restrict row, double a, const double *restrict ta, double b,
                               const double *restrict tb, double c, const double *restrict tc, int n) {
  int J = 0;
  for (; J + 2 <= n; J += 2) {
    row[J] += a * ta[J] + b * tb[J] + c * tc[J];
    row[J + 1] += a * ta[J + 1] + b * tb[J + 1] + c * tc[J + 1];
  }
  for (; J < n; J++) row[J] += a * ta[J] + b * tb[J] + c * tc[J];
}

/* One quadrature point's terms of the element matrix for wide elements
 * (high orders): the same sums as the narrow loop in element_matrix, but
 * all trial functions' parts are first stored as T0[fc][J] and
 * T1[fc][df][J] (J = j * nc + gc, contiguous), then added into whole rows
 * of Ke, one test function at a time: unit-stride loops that vectorise,
 * where the narrow loop walks the columns of Ke (3.5x faster at P7). */
CPU_INLINE void add_point_wide(cpu_scratch *s, const cpu_coefficients *g, int terms, const double *phi, int q,
                               double wdet, double *Ke, const int dim, const int nc, const int nb) {
  const int nbc = nb * nc;
  double *T0 = s->T, *T1 = s->T + nc * nbc;
  const double *G = s->gphi + q * nb * dim;
  for (int fc = 0; fc < nc; fc++)
    for (int gc = 0; gc < nc; gc++) {
      const int fg = fc * nc + gc;
      double *t0 = T0 + fc * nbc + gc;
      for (int j = 0; j < nb; j++) {
        double v = (terms & 1) ? g->g0[fg] * phi[j] : 0;
        if (terms & 2)
          for (int d = 0; d < dim; d++) v += g->g1[fg * dim + d] * G[j * dim + d];
        t0[j * nc] = v;
      }
      for (int df = 0; df < dim; df++) {
        double *t1 = T1 + (fc * dim + df) * nbc + gc;
        const double *g3 = g->g3 + (fg * dim + df) * dim;
        for (int j = 0; j < nb; j++) {
          double v = (terms & 4) ? g->g2[fg * dim + df] * phi[j] : 0;
          if (terms & 8)
            for (int d = 0; d < dim; d++) v += g3[d] * G[j * dim + d];
          t1[j * nc] = v;
        }
      }
    }
  for (int i = 0; i < nb; i++) {
    const double *gi = s->gphi + (q * nb + i) * dim;
    for (int fc = 0; fc < nc; fc++) {
      double *row = Ke + (i * nc + fc) * nbc;
      if (terms & 3) add_scaled(row, wdet * phi[i], T0 + fc * nbc, nbc);
      if ((terms & 12) && dim == 3) {
        const double *t = T1 + fc * dim * nbc;
        add_scaled3(row, wdet * gi[0], t, wdet * gi[1], t + nbc, wdet * gi[2], t + 2 * nbc, nbc);
      } else if (terms & 12) {
        for (int df = 0; df < dim; df++) add_scaled(row, wdet * gi[df], T1 + (fc * dim + df) * nbc, nbc);
      }
    }
  }
}

/* Element matrix of cell c (nbc x nbc, row = test). At each quadrature
 * point, for each trial function (j, gc) the coefficients are first
 * contracted with its value and gradient into the value part v0[fc] and
 * gradient part v1[fc][df] that multiply the test function's value and
 * gradient; each entry is then one short dot product.
 * Elements of more than WIDE_NB basis functions use add_point_wide (the
 * P1/P2 instantiations compile the test away). */
enum { WIDE_NB = 10 };
CPU_INLINE void element_matrix(const feint_problem *p, cpu_scratch *s, const cpu_block *blk, int64_t c,
                               double *Ke, const int dim, const int nc, const int nb) {
  const feint_form *f = p->form;
  const cpu_rule rule = blk->matrix;
  const int nbc = nb * nc, nq = rule.nq;
  const int terms = f->user ? f->user->terms : feint_physics_jacobian_terms(f->physics);
  const int64_t *sdofs = p->space->scalar_cell_dofs + c * p->space->nb;
  cpu_coefficients g = {{0}, {0}, {0}, {0}};
  double det = cell_geometry(p, &rule, blk->nv, c, s, dim, nb);
  memset(Ke, 0, sizeof(double) * (size_t)(nbc * nbc));
  if (f->user) user_jacobian(p, s, &rule, blk->nv, c, dim, nc, nb); /* the whole cell's points at once */
  for (int q = 0; q < nq; q++) {
    const double *phi = rule.basis + q * nb;
    if (f->user)
      cpu_user_coefficients_at(s->g, nq, q, terms, dim, nc, &g);
    else
      point_coefficients(f, &rule, q, c, sdofs, terms, &g, dim, nc, nb);
    const double wdet = rule.geometry_grad ? s->wdet[q] : rule.weights[q] * det;
    if (nb > WIDE_NB) {
      add_point_wide(s, &g, terms, phi, q, wdet, Ke, dim, nc, nb);
      continue;
    }
    for (int j = 0; j < nb; j++) {
      const double *gj = s->gphi + (q * nb + j) * dim;
      for (int gc = 0; gc < nc; gc++) {
        double v0[3] = {0, 0, 0}, v1[9] = {0};
        for (int fc = 0; fc < nc; fc++) {
          const int fg = fc * nc + gc;
          if (terms & 1) v0[fc] += g.g0[fg] * phi[j];
          if (terms & 2)
            for (int dg = 0; dg < dim; dg++) v0[fc] += g.g1[fg * dim + dg] * gj[dg];
          if (terms & 4)
            for (int df = 0; df < dim; df++) v1[fc * dim + df] += g.g2[fg * dim + df] * phi[j];
          if (terms & 8)
            for (int df = 0; df < dim; df++)
              for (int dg = 0; dg < dim; dg++) v1[fc * dim + df] += g.g3[(fg * dim + df) * dim + dg] * gj[dg];
        }
        for (int i = 0; i < nb; i++) {
          const double *gi = s->gphi + (q * nb + i) * dim;
          for (int fc = 0; fc < nc; fc++) {
            double v = phi[i] * v0[fc];
            for (int df = 0; df < dim; df++) v += gi[df] * v1[fc * dim + df];
            Ke[(i * nc + fc) * nbc + j * nc + gc] += wdet * v;
          }
        }
      }
    }
  }
}

/* Element matrix of cell c by the block's kernel. */
CPU_INLINE void cell_matrix(const feint_problem *p, cpu_scratch *s, const cpu_block *blk, int64_t c, double *Ke,
                            const int dim, const int nc, const int nb) {
  if (blk->tensor)
    cpu_tensor_element_matrix(cell_block(blk, c)->tensor, c, Ke);
  else
    element_matrix(p, s, cell_block(blk, c), c, Ke, dim, nc, nb);
}

/* Loops over the cells of one block, one instantiation per shape. The
 * cell dof map, element matrices and slots have the space's row stride
 * (nbc of the widest block; feint/space.h); a narrower block uses the
 * first nb * nc entries of each row. */
static void vector_cells(feint_backend *b, const cpu_block *blk, const double *u, int with_state, double *out,
                         const int dim, const int nc, const int nb) {
  const feint_problem *p = b->problem;
  cpu_data *d = b->data;
  const int nbc = nb * nc;
  for (int64_t c = blk->first; c < blk->first + blk->n; c++) {
    if (blk->tensor)
      cpu_tensor_element_vector(cell_block(blk, c)->tensor, c, with_state ? u : NULL, d->s.Fe);
    else
      element_vector(p, &d->s, cell_block(blk, c), c, u, with_state, d->s.Fe, dim, nc, nb);
    const int64_t *dofs = p->space->cell_dofs + c * p->space->nbc;
    for (int k = 0; k < nbc; k++) out[dofs[k]] += d->s.Fe[k];
  }
}

static void element_cells(feint_backend *b, const cpu_block *blk, double *Ke, const int dim, const int nc,
                          const int nb) {
  const feint_problem *p = b->problem;
  cpu_data *d = b->data;
  const int nbc = nb * nc, stride = p->space->nbc;
  const int64_t n2 = (int64_t)stride * stride;
  for (int64_t c = blk->first; c < blk->first + blk->n; c++) {
    if (nbc == stride) {
      cell_matrix(p, &d->s, blk, c, Ke + c * n2, dim, nc, nb);
      continue;
    }
    cell_matrix(p, &d->s, blk, c, d->s.Ke, dim, nc, nb); /* into the padded row, zeros around */
    double *out = Ke + c * n2;
    memset(out, 0, sizeof(double) * (size_t)n2);
    for (int i = 0; i < nbc; i++) memcpy(out + i * stride, d->s.Ke + i * nbc, sizeof(double) * (size_t)nbc);
  }
}

/* The numeric assembly over the plan's slots of type SLOT_T (32-bit, or
 * 64-bit past 2^31 nonzeros: feint/plan.h). */
#define DEFINE_ASSEMBLE_CELLS(NAME, SLOT_T, SLOTS)                                                  \
  static void NAME(feint_backend *b, const cpu_block *blk, double *values, const int dim, const int nc, \
                   const int nb) {                                                                   \
    const feint_problem *p = b->problem;                                                             \
    cpu_data *d = b->data;                                                                           \
    const int nbc = nb * nc, stride = p->space->nbc;                                                 \
    const int64_t n2 = (int64_t)stride * stride, end = blk->first + blk->n;                          \
    /* the scatter is latency-bound (values[] is far larger than the caches):                     \
     * ask for a later cell's entries while this cell's matrix is computed */                       \
    enum { AHEAD = 4 };                                                                              \
    /* a block as wide as the stride (every single-shape mesh) is one flat \
     * run of nbc^2 slots, which the compiler unrolls */                                             \
    const int flat = nbc == stride;                                                                  \
    for (int64_t c = blk->first; c < end; c++) {                                                     \
      if (c + AHEAD < end) {                                                                         \
        const SLOT_T *next = p->plan->SLOTS + (c + AHEAD) * n2;                                      \
        if (flat)                                                                                    \
          for (int k = 0; k < nbc * nbc; k++) __builtin_prefetch(values + next[k], 1);               \
        else                                                                                         \
          for (int i = 0; i < nbc; i++)                                                              \
            for (int j = 0; j < nbc; j++) __builtin_prefetch(values + next[i * stride + j], 1);      \
      }                                                                                              \
      cell_matrix(p, &d->s, blk, c, d->s.Ke, dim, nc, nb);                                           \
      const SLOT_T *slot = p->plan->SLOTS + c * n2;                                                  \
      if (flat)                                                                                      \
        for (int k = 0; k < nbc * nbc; k++) values[slot[k]] += d->s.Ke[k];                           \
      else                                                                                           \
        for (int i = 0; i < nbc; i++)                                                                \
          for (int j = 0; j < nbc; j++) values[slot[i * stride + j]] += d->s.Ke[i * nbc + j];        \
    }                                                                                                \
  }
DEFINE_ASSEMBLE_CELLS(assemble_cells, int32_t, slots)
DEFINE_ASSEMBLE_CELLS(assemble_cells_wide, int64_t, slots64)

/* Call LOOP(args..., dim, nc, nb) with compile-time constants for the
 * common P1/P2 shapes, constant dim and nc for scalar spaces of any order
 * (the high orders: the short loops over dimensions unroll), else with
 * run-time values; nb is the block's. */
#define FOR_EACH_SHAPE(p, nb, LOOP, ...)                                                           \
  do {                                                                                             \
    const int dim_ = (p)->form->dim, nc_ = (p)->form->nc, nb_ = (nb);                              \
    if (dim_ == 2 && nc_ == 1 && nb_ == 3) LOOP(__VA_ARGS__, 2, 1, 3);                              \
    else if (dim_ == 3 && nc_ == 1 && nb_ == 4) LOOP(__VA_ARGS__, 3, 1, 4);                         \
    else if (dim_ == 2 && nc_ == 2 && nb_ == 3) LOOP(__VA_ARGS__, 2, 2, 3);                         \
    else if (dim_ == 3 && nc_ == 3 && nb_ == 4) LOOP(__VA_ARGS__, 3, 3, 4);                         \
    else if (dim_ == 3 && nc_ == 1 && nb_ == 10) LOOP(__VA_ARGS__, 3, 1, 10);                       \
    else if (dim_ == 3 && nc_ == 1) LOOP(__VA_ARGS__, 3, 1, nb_);                                   \
    else if (dim_ == 2 && nc_ == 1) LOOP(__VA_ARGS__, 2, 1, nb_);                                   \
    else LOOP(__VA_ARGS__, dim_, nc_, nb_);                                                        \
  } while (0)

/* FOR_EACH_SHAPE over every block of the mesh: LOOP(b, &block, args...). */
#define FOR_EACH_BLOCK(b, LOOP, ...)                                                               \
  for (int blk_ = 0; blk_ < (b)->problem->space->n_blocks; blk_++) {                               \
    cpu_block block_ = block_of((b)->problem, blk_), straight_ = straight_block_of((b)->problem, blk_); \
    block_.tensor = ((cpu_data *)(b)->data)->tensor[blk_];                                         \
    straight_.tensor = ((cpu_data *)(b)->data)->tensor_straight[blk_];                             \
    if (block_.curved) block_.straight = &straight_;                                               \
    FOR_EACH_SHAPE((b)->problem, (b)->problem->space->blocks[blk_].nb, LOOP, b, &block_, __VA_ARGS__); \
  }

static int cpu_residual(feint_backend *b, const double *u, double *F) {
  memset(F, 0, sizeof(double) * (size_t)b->problem->space->n_dofs);
  FOR_EACH_BLOCK(b, vector_cells, u, 1, F);
  return FEINT_OK;
}

static int cpu_rhs(feint_backend *b, double *rhs) {
  memset(rhs, 0, sizeof(double) * (size_t)b->problem->space->n_dofs);
  FOR_EACH_BLOCK(b, vector_cells, NULL, 0, rhs);
  return FEINT_OK;
}

static int cpu_element_matrices(feint_backend *b, double *Ke) {
  FOR_EACH_BLOCK(b, element_cells, Ke);
  return FEINT_OK;
}

static int cpu_assemble_matrix(feint_backend *b, double *values) {
  if (!b->problem->plan) return feint_error_set(FEINT_ERR_COMPUTE, "assembly needs a plan (CSR pattern)");
  FEINT_CALL(feint_plan_host_slots(b->problem->plan)); /* a plan built on the GPU */
  memset(values, 0, sizeof(double) * (size_t)b->problem->plan->nnz);
  if (b->problem->plan->slots64) FOR_EACH_BLOCK(b, assemble_cells_wide, values)
  else FOR_EACH_BLOCK(b, assemble_cells, values)
  return FEINT_OK;
}

static void cpu_destroy(feint_backend *b) {
  cpu_data *d = b->data;
  if (d) {
    free(d->s.gphi);
    free(d->s.vert);
    free(d->s.wdet);
    free(d->s.Ke);
    free(d->s.Fe);
    free(d->s.ue);
    free(d->s.T);
    free(d->s.sym);
    free(d->s.f0);
    free(d->s.f1);
    free(d->s.g);
    free(d->s.ca);
    free(d->s.cg);
    for (int k = 0; k < FEINT_MESH_MAX_BLOCKS; k++) cpu_tensor_destroy(d->tensor[k]);
    for (int k = 0; k < FEINT_MESH_MAX_BLOCKS; k++) cpu_tensor_destroy(d->tensor_straight[k]);
    free(d);
  }
  free(b);
}

/* The cell loops read the form through b->problem at every call; only the
 * tensor kernels hold pointers into its rules. */
static int cpu_update_form(feint_backend *b, const feint_form *form) {
  cpu_data *d = b->data;
  for (int k = 0; k < FEINT_MESH_MAX_BLOCKS; k++)
    if (d->tensor[k]) cpu_tensor_use_form(d->tensor[k], form);
  for (int k = 0; k < FEINT_MESH_MAX_BLOCKS; k++)
    if (d->tensor_straight[k]) cpu_tensor_use_form(d->tensor_straight[k], form);
  return FEINT_OK;
}

int feint_backend_cpu_create(const feint_problem *p, feint_backend **out) {
  *out = NULL;
  feint_backend *b = NULL;
  FEINT_CALL(feint_backend_alloc(p, sizeof(cpu_data), cpu_destroy, &b));
  cpu_data *d = b->data;
  int status = FEINT_OK;
  /* gphi holds any tabulated block's points of either rule (the tensor
   * blocks' kernels have their own work arrays) */
  int nq = 0, nb = 0;
  for (int k = 0; k < p->space->n_blocks; k++) {
    const feint_cell_type ct = p->space->mesh->blocks[k].cell_type;
    if (feint_cell_is_tensor(ct)) {
      if ((status = cpu_tensor_create(p, k, 0, &d->tensor[k])) ||
          (p->space->mesh->curved_cells && (status = cpu_tensor_create(p, k, 1, &d->tensor_straight[k])))) {
        cpu_destroy(b);
        return status;
      }
      continue;
    }
    const cpu_block blk = block_of(p, k);
    if (blk.vector.nq > nq) nq = blk.vector.nq;
    if (blk.matrix.nq > nq) nq = blk.matrix.nq;
    if (p->space->blocks[k].nb > nb) nb = p->space->blocks[k].nb;
  }
  const int nbc = p->space->nbc, dim = p->form->dim;
  /* one cell's matrix between computing and scattering it: assembly, and
   * element matrices padded to a mixed mesh's stride (a Q15 hexahedron's
   * takes 134 MB, 1.2 GB with 3 components: not for a residual) */
  const size_t ke_size = p->plan || p->space->n_blocks > 1 ? (size_t)nbc * (size_t)nbc : 1;
  if ((status = feint_malloc((size_t)(nq * nb * dim), sizeof(double), &d->s.gphi, "basis gradients")) ||
      (status = feint_malloc((size_t)feint_cell_geometry_nodes(p->space->mesh->cell_type,
                                                               p->space->mesh->n_geometry_nodes) * 3 +
                                 (size_t)p->space->mesh->nv * 3,
                             sizeof(double), &d->s.vert, "vertices")) ||
      (status = feint_malloc((size_t)nq, sizeof(double), &d->s.wdet, "quadrature weights")) ||
      (status = feint_malloc(ke_size, sizeof(double), &d->s.Ke, "element matrix")) ||
      (status = feint_malloc((size_t)nbc, sizeof(double), &d->s.Fe, "element vector")) ||
      (status = feint_malloc((size_t)nbc, sizeof(double), &d->s.ue, "element state")) ||
      (status = feint_malloc((size_t)(p->form->nc * nbc * (1 + dim)), sizeof(double), &d->s.T, "trial parts"))) {
    cpu_destroy(b);
    return status;
  }
  const feint_user_form *uf = p->form->user;
  if (uf && ((status = feint_malloc((size_t)(nq * uf->n_symbols), sizeof(double), &d->s.sym, "form symbols")) ||
             (status = feint_malloc((size_t)(nq * uf->nc), sizeof(double), &d->s.f0, "form f0")) ||
             (status = feint_malloc((size_t)(nq * uf->nc * dim), sizeof(double), &d->s.f1, "form f1")) ||
             (status = feint_malloc((size_t)(nq * uf->nc * uf->nc * (1 + dim) * (1 + dim)), sizeof(double), &d->s.g,
                                    "form g")) ||
             (status = feint_malloc((size_t)p->form->n_aux, sizeof(double), &d->s.ca, "form coefficients")) ||
             (status = feint_malloc((size_t)(p->form->n_aux * dim), sizeof(double), &d->s.cg, "form coefficients")))) {
    cpu_destroy(b);
    return status;
  }
  b->name = "cpu";
  snprintf(b->device, sizeof b->device, "CPU (reference backend, double precision)");
  b->problem = p;
  b->residual = cpu_residual;
  b->rhs = cpu_rhs;
  b->element_matrices = cpu_element_matrices;
  b->assemble_matrix = cpu_assemble_matrix;
  b->update_form = cpu_update_form;
  *out = b;
  return FEINT_OK;
}
