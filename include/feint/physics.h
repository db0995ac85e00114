/* feint pointwise physics, written once for the CPU reference and the CUDA
 * kernels (the way libCEED writes QFunctions and PETSc's PetscDS takes
 * f0/f1/g0..g3).
 *
 * Weak forms: residual F(u)_i = sum_q w |J| [ f0(u) . phi_i + f1(u) : grad phi_i ],
 * Jacobian A_ij = sum_q w |J| [ phi_i g0 phi_j + phi_i g1 . grad phi_j
 *                              + grad phi_i . g2 phi_j + grad phi_i . g3 . grad phi_j ],
 * load vector b_i = sum_q w |J| s(a) . phi_i, so for the linear physics here
 * F(u) = A u - b.
 *
 * Every function sees the same point data (feint_point): dim, nc components,
 * u[nc], gradu[nc*dim] (gradu[c*dim+d] = d u_c / d x_d), and the auxiliary
 * coefficients a[] sampled at the point in the physics' layout (below).
 * Layouts of the outputs (fc, gc components; df, dg directions):
 *   f0[fc], f1[fc*dim+df], g0[fc*nc+gc], g1[(fc*nc+gc)*dim+dg] (test value,
 *   trial gradient), g2[(fc*nc+gc)*dim+df] (test gradient, trial value),
 *   g3[((fc*nc+gc)*dim+df)*dim+dg].
 *
 * Auxiliary layouts (feint_physics_aux_count gives the size):
 *   poisson    [kappa, f]                -div(kappa grad u) = f
 *   mass       [f]                       u = f
 *   helmholtz  [kappa, lambda, f]        -div(kappa grad u) + lambda u = f
 *   elasticity [lame_lambda, lame_mu, f_0..f_{nc-1}]  -div sigma(u) = f
 *   advection  [b_0..b_{dim-1}, f]       b . grad u = f
 *   diffusion  [K_00, K_01, .., K_{dim-1,dim-1}, f]  -div(K grad u) = f
 */
#ifndef FEINT_PHYSICS_H
#define FEINT_PHYSICS_H

#ifdef __CUDACC__
#define FEINT_HOST_DEVICE __host__ __device__
#else
#define FEINT_HOST_DEVICE
#endif

/* Physics kinds share their numbering with feint_physics_kind (case.h). */
enum {
  FEINT_PW_POISSON = 0,
  FEINT_PW_MASS,
  FEINT_PW_HELMHOLTZ,
  FEINT_PW_ELASTICITY,
  FEINT_PW_ADVECTION,
  FEINT_PW_DIFFUSION
};

typedef struct {
  int dim, nc;
  const double *u, *gradu, *a;
} feint_point;

FEINT_HOST_DEVICE static inline int feint_physics_aux_count(int kind, int dim, int nc) {
  switch (kind) {
    case FEINT_PW_POISSON: return 2;
    case FEINT_PW_MASS: return 1;
    case FEINT_PW_HELMHOLTZ: return 3;
    case FEINT_PW_ELASTICITY: return 2 + nc;
    case FEINT_PW_ADVECTION: return dim + 1;
    case FEINT_PW_DIFFUSION: return dim * dim + 1;
  }
  return 0;
}

/* Index of the first source component in the aux layout. */
FEINT_HOST_DEVICE static inline int feint_physics_source_offset(int kind, int dim) {
  switch (kind) {
    case FEINT_PW_POISSON: return 1;
    case FEINT_PW_MASS: return 0;
    case FEINT_PW_HELMHOLTZ: return 2;
    case FEINT_PW_ELASTICITY: return 2;
    case FEINT_PW_ADVECTION: return dim;
    case FEINT_PW_DIFFUSION: return dim * dim;
  }
  return 0;
}

/* Which Jacobian terms a physics has (bit k set = gk present). */
FEINT_HOST_DEVICE static inline int feint_physics_jacobian_terms(int kind) {
  switch (kind) {
    case FEINT_PW_POISSON: return 1 << 3;
    case FEINT_PW_MASS: return 1 << 0;
    case FEINT_PW_HELMHOLTZ: return (1 << 0) | (1 << 3);
    case FEINT_PW_ELASTICITY: return 1 << 3;
    case FEINT_PW_ADVECTION: return 1 << 1;
    case FEINT_PW_DIFFUSION: return 1 << 3;
  }
  return 0;
}

/* s(a): the load, nc values. */
FEINT_HOST_DEVICE static inline void feint_physics_source(int kind, const feint_point *p, double *s) {
  const int off = feint_physics_source_offset(kind, p->dim);
  for (int c = 0; c < p->nc; c++) s[c] = p->a[off + (kind == FEINT_PW_ELASTICITY ? c : 0)];
}

/* f0: value part of the residual (includes -f). */
FEINT_HOST_DEVICE static inline void feint_physics_f0(int kind, const feint_point *p, double *f0) {
  const int dim = p->dim, nc = p->nc;
  feint_physics_source(kind, p, f0);
  for (int c = 0; c < nc; c++) f0[c] = -f0[c];
  switch (kind) {
    case FEINT_PW_MASS:
      for (int c = 0; c < nc; c++) f0[c] += p->u[c];
      break;
    case FEINT_PW_HELMHOLTZ:
      for (int c = 0; c < nc; c++) f0[c] += p->a[1] * p->u[c];
      break;
    case FEINT_PW_ADVECTION:
      for (int c = 0; c < nc; c++)
        for (int d = 0; d < dim; d++) f0[c] += p->a[d] * p->gradu[c * dim + d];
      break;
    default:
      break;
  }
}

/* f1: gradient part of the residual (the flux). */
FEINT_HOST_DEVICE static inline void feint_physics_f1(int kind, const feint_point *p, double *f1) {
  const int dim = p->dim, nc = p->nc;
  for (int k = 0; k < nc * dim; k++) f1[k] = 0;
  switch (kind) {
    case FEINT_PW_POISSON:
    case FEINT_PW_HELMHOLTZ:
      for (int k = 0; k < nc * dim; k++) f1[k] = p->a[0] * p->gradu[k];
      break;
    case FEINT_PW_DIFFUSION:
      for (int c = 0; c < nc; c++)
        for (int d = 0; d < dim; d++)
          for (int e = 0; e < dim; e++) f1[c * dim + d] += p->a[d * dim + e] * p->gradu[c * dim + e];
      break;
    case FEINT_PW_ELASTICITY: {
      /* sigma = lambda tr(eps) I + 2 mu eps, eps = sym(grad u); nc == dim */
      const double lam = p->a[0], mu = p->a[1];
      double tr = 0;
      for (int d = 0; d < dim; d++) tr += p->gradu[d * dim + d];
      for (int c = 0; c < dim; c++)
        for (int d = 0; d < dim; d++)
          f1[c * dim + d] = mu * (p->gradu[c * dim + d] + p->gradu[d * dim + c]) + (c == d ? lam * tr : 0);
      break;
    }
    default:
      break;
  }
}

/* g0..g3: the Jacobian coefficients (arrays zeroed by the caller only for
 * the terms feint_physics_jacobian_terms reports; each function writes all
 * of its own array). */
FEINT_HOST_DEVICE static inline void feint_physics_g0(int kind, const feint_point *p, double *g0) {
  const int nc = p->nc;
  const double s = kind == FEINT_PW_HELMHOLTZ ? p->a[1] : 1.0;
  for (int k = 0; k < nc * nc; k++) g0[k] = 0;
  for (int c = 0; c < nc; c++) g0[c * nc + c] = s;
}

FEINT_HOST_DEVICE static inline void feint_physics_g1(int kind, const feint_point *p, double *g1) {
  const int dim = p->dim, nc = p->nc;
  (void)kind; /* advection: test value times b . grad trial */
  for (int k = 0; k < nc * nc * dim; k++) g1[k] = 0;
  for (int c = 0; c < nc; c++)
    for (int d = 0; d < dim; d++) g1[(c * nc + c) * dim + d] = p->a[d];
}

FEINT_HOST_DEVICE static inline void feint_physics_g3(int kind, const feint_point *p, double *g3) {
  const int dim = p->dim, nc = p->nc;
  for (int k = 0; k < nc * nc * dim * dim; k++) g3[k] = 0;
  switch (kind) {
    case FEINT_PW_POISSON:
    case FEINT_PW_HELMHOLTZ:
      for (int c = 0; c < nc; c++)
        for (int d = 0; d < dim; d++) g3[((c * nc + c) * dim + d) * dim + d] = p->a[0];
      break;
    case FEINT_PW_DIFFUSION:
      for (int c = 0; c < nc; c++)
        for (int d = 0; d < dim; d++)
          for (int e = 0; e < dim; e++) g3[((c * nc + c) * dim + d) * dim + e] = p->a[d * dim + e];
      break;
    case FEINT_PW_ELASTICITY: {
      /* d sigma_{fc,df} / d (grad u)_{gc,dg} */
      const double lam = p->a[0], mu = p->a[1];
      for (int fc = 0; fc < dim; fc++)
        for (int df = 0; df < dim; df++) {
          g3[((fc * nc + fc) * dim + df) * dim + df] += mu;
          g3[((fc * nc + df) * dim + df) * dim + fc] += mu;
          if (fc == df)
            for (int gc = 0; gc < dim; gc++) g3[((fc * nc + gc) * dim + df) * dim + gc] += lam;
        }
      break;
    }
    default:
      break;
  }
}

#endif
