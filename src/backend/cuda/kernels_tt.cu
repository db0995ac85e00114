/* The thread-transposition kernels (Knepley, Rupp & Terrel), the fused
 * backend's general path: any element order and physics the backend takes
 * (P2, and P1 where the P1 kernels do not apply or on request,
 * feint_cuda_set_variant). cuda.cu's top comment describes the phases; the
 * pointwise physics is physics.h's, as on the CPU. Instantiated here for
 * dim 2, 3, 1..3 components and float / double storage (pick_residual,
 * pick_matrix). */
#include "backend/cuda/fused.cuh"

__device__ static inline int64_t cell_of(const int *list, int64_t k) { return list ? (int64_t)list[k] : k; }

/* Load tables into shared memory. */
__device__ static inline void load_tables(const kparams &P, double *sh) {
  const int nbq = P.nq * P.nb;
  for (int k = threadIdx.x; k < nbq; k += blockDim.x) sh[k] = P.basis[k];
  for (int k = threadIdx.x; k < nbq * P.dim; k += blockDim.x) sh[nbq + k] = P.basis_grad[k];
  for (int k = threadIdx.x; k < P.nq; k += blockDim.x) sh[nbq * (1 + P.dim) + k] = P.weights[k];
}

/* Phase 0: geometry of the batch's cells, and nodal coefficient values. */
template <int DIM, typename S>
__device__ static inline void load_geometry(const kparams &P, const int *list, int64_t base, int n_here,
                                            double *geo) {
  for (int t = threadIdx.x; t < n_here; t += blockDim.x) {
    const int64_t c = cell_of(list, base + t);
    double v[4 * 3];
    for (int k = 0; k <= DIM; k++) {
      const int node = P.cells[c * P.nv + k];
      v[k * 3 + 0] = rd<S>(P.x, node);
      v[k * 3 + 1] = rd<S>(P.y, node);
      v[k * 3 + 2] = rd<S>(P.z, node);
    }
    double invJ[DIM * DIM];
    const double det = feint_affine_inverse_jacobian(DIM, v, invJ);
    double *g = geo + t * (DIM * DIM + 1);
    for (int k = 0; k < DIM * DIM; k++) g[k] = invJ[k];
    g[DIM * DIM] = fabs(det);
  }
}

template <typename S>
__device__ static inline void load_nodal(const kparams &P, const int *list, int64_t base, int n_here,
                                         double *auxe) {
  if (!P.n_nodal) return;
  for (int t = threadIdx.x; t < n_here * P.nb; t += blockDim.x) {
    const int lc = t / P.nb, i = t - lc * P.nb;
    const int64_t c = cell_of(list, base + lc);
    const int sd = P.sdofs[c * P.nb + i];
    for (int k = 0; k < P.n_aux; k++)
      if (P.aux_nodal[k] >= 0) auxe[(lc * P.n_nodal + P.aux_nodal[k]) * P.nb + i] = rd<S>(P.aux_vals[k], sd);
  }
}

/* Coefficients at quadrature point q of local cell lc (global cell c). */
template <typename S>
__device__ static inline void aux_at(const kparams &P, int64_t c, const double *phi, const double *auxe_cell,
                                     double *a) {
  for (int k = 0; k < P.n_aux; k++) {
    const int kind = P.aux_kind[k];
    if (kind == 0) {
      a[k] = P.aux_const[k];
    } else if (kind == 1) {
      a[k] = rd<S>(P.aux_vals[k], c);
    } else {
      const double *v = auxe_cell + P.aux_nodal[k] * P.nb;
      double s = 0;
      for (int i = 0; i < P.nb; i++) s += phi[i] * v[i];
      a[k] = s;
    }
  }
}

/* Phase 0 of a batch: after the previous batch is done with shared memory,
 * the geometry and nodal coefficients of its cells (list positions *base
 * onwards); returns its cell count. The caller's own loads and a barrier
 * follow. */
template <int DIM, typename S>
__device__ static inline int begin_batch(const kparams &P, const int *list, int64_t n_list, int64_t batch,
                                         double *geo, double *auxe, int64_t *base) {
  const int B = P.batch;
  *base = batch * B;
  const int n_here = (int)(n_list - *base < B ? n_list - *base : B);
  __syncthreads(); /* tables loaded / previous batch done with shared memory */
  load_geometry<DIM, S>(P, list, *base, n_here, geo);
  load_nodal<S>(P, list, *base, n_here, auxe);
  return n_here;
}

/* Phase 1 item t of a batch: local cell lc and quadrature point q, the
 * global cell c, its geometry g (J^-1, |det J|), w_q |det J| and the basis
 * values phi at q (tab: the shared tables, load_tables). */
typedef struct {
  int lc, q;
  int64_t c;
  const double *g, *phi;
  double wdet;
} qitem;

template <int DIM>
__device__ static inline qitem qitem_at(const kparams &P, const int *list, int64_t base, int t, const double *geo,
                                        const double *tab) {
  qitem Q;
  Q.lc = t / P.nq;
  Q.q = t - Q.lc * P.nq;
  Q.c = cell_of(list, base + Q.lc);
  Q.g = geo + Q.lc * (DIM * DIM + 1);
  Q.wdet = tab[P.nq * P.nb * (1 + DIM) + Q.q] * Q.g[DIM * DIM];
  Q.phi = tab + Q.q * P.nb;
  return Q;
}

template <int DIM, int NC, typename S>
__global__ void residual_kernel(kparams P, const int *list, int64_t n_list, int mode, int with_state,
                                const void *__restrict__ u, void *__restrict__ out) {
  extern __shared__ double sh[];
  const int nq = P.nq, nb = P.nb, nbc = P.nbc, B = P.batch;
  double *tab = sh, *basis = tab, *bgrad = tab + nq * nb;
  double *geo = sh + tables_size(P);
  double *ue = geo + B * (DIM * DIM + 1);
  double *auxe = ue + B * nbc;
  double *fq = auxe + B * P.n_nodal * nb;
  const int FQ = NC * (1 + DIM); /* f0[NC], f1ref[NC][DIM] per (cell, q) */
  load_tables(P, sh);
  const int64_t n_batches = (n_list + B - 1) / B;
  for (int64_t batch = blockIdx.x; batch < n_batches; batch += gridDim.x) {
    int64_t base;
    const int n_here = begin_batch<DIM, S>(P, list, n_list, batch, geo, auxe, &base);
    if (with_state)
      for (int t = threadIdx.x; t < n_here * nbc; t += blockDim.x) {
        const int lc = t / nbc, k = t - lc * nbc;
        const int64_t c = cell_of(list, base + lc);
        ue[t] = rd<S>(u, P.cell_dofs[c * nbc + k]);
      }
    __syncthreads();
    /* phase 1: (cell, quadrature point) */
    for (int t = threadIdx.x; t < n_here * nq; t += blockDim.x) {
      const qitem Q = qitem_at<DIM>(P, list, base, t, geo, tab);
      const double *g = Q.g;
      double uq[NC], gref[NC * DIM], gradu[NC * DIM], a[FEINT_CUDA_MAX_AUX], f0[NC], f1[NC * DIM];
      for (int k = 0; k < NC; k++) uq[k] = 0;
      for (int k = 0; k < NC * DIM; k++) gref[k] = 0;
      if (with_state) {
        const double *uc = ue + Q.lc * nbc;
        for (int i = 0; i < nb; i++) {
          const double p = Q.phi[i];
          const double *G = bgrad + (Q.q * nb + i) * DIM;
          for (int cc = 0; cc < NC; cc++) {
            const double v = uc[i * NC + cc];
            uq[cc] += p * v;
            for (int d = 0; d < DIM; d++) gref[cc * DIM + d] += G[d] * v;
          }
        }
      }
      for (int cc = 0; cc < NC; cc++)
        for (int a2 = 0; a2 < DIM; a2++) {
          double s = 0;
          for (int d = 0; d < DIM; d++) s += gref[cc * DIM + d] * g[d * DIM + a2];
          gradu[cc * DIM + a2] = s;
        }
      aux_at<S>(P, Q.c, Q.phi, auxe + Q.lc * P.n_nodal * nb, a);
      const feint_point pt = {DIM, NC, uq, gradu, a};
      if (with_state) {
        feint_physics_f0(P.physics, &pt, f0);
        feint_physics_f1(P.physics, &pt, f1);
      } else {
        feint_physics_source(P.physics, &pt, f0);
        for (int k = 0; k < NC * DIM; k++) f1[k] = 0;
      }
      double *o = fq + (Q.lc * nq + Q.q) * FQ;
      for (int cc = 0; cc < NC; cc++) {
        o[cc] = Q.wdet * f0[cc];
        for (int d = 0; d < DIM; d++) {
          double s = 0;
          for (int a2 = 0; a2 < DIM; a2++) s += g[d * DIM + a2] * f1[cc * DIM + a2];
          o[NC + cc * DIM + d] = Q.wdet * s;
        }
      }
    }
    __syncthreads();
    /* phase 2: (cell, basis function), reduce over quadrature points */
    for (int t = threadIdx.x; t < n_here * nbc; t += blockDim.x) {
      const int lc = t / nbc, k = t - lc * nbc;
      const int i = k / NC, cc = k - i * NC;
      const int64_t c = cell_of(list, base + lc);
      double v = 0;
      for (int q = 0; q < nq; q++) {
        const double *o = fq + (lc * nq + q) * FQ;
        const double *G = bgrad + (q * nb + i) * DIM;
        double s = basis[q * nb + i] * o[cc];
        for (int d = 0; d < DIM; d++) s += G[d] * o[NC + cc * DIM + d];
        v += s;
      }
      put<S>(out, mode == OUT_BUFFER ? c * nbc + k : (int64_t)P.cell_dofs[c * nbc + k], v, mode);
    }
  }
}

/* Matrix: per (cell, q) coefficient block, pulled back to reference
 * directions and scaled by w |det J|: [G0 (NC*NC)] [G1 (NC*NC*DIM)]
 * [G3 (NC*NC*DIM*DIM)], each present only when the physics has the term. */
template <int DIM, int NC, typename S>
__global__ void matrix_kernel(kparams P, const int *list, int64_t n_list, int mode, void *__restrict__ out) {
  extern __shared__ double sh[];
  const int nq = P.nq, nb = P.nb, nbc = P.nbc, B = P.batch, GQ = P.gq, terms = P.terms;
  const int n2 = nbc * nbc;
  const int o1 = (terms & 1) ? NC * NC : 0;
  const int o3 = o1 + ((terms & 2) ? NC * NC * DIM : 0);
  double *tab = sh, *basis = tab, *bgrad = tab + nq * nb;
  double *geo = sh + tables_size(P);
  double *auxe = geo + B * (DIM * DIM + 1);
  double *gq = auxe + B * P.n_nodal * nb;
  load_tables(P, sh);
  const int64_t n_batches = (n_list + B - 1) / B;
  for (int64_t batch = blockIdx.x; batch < n_batches; batch += gridDim.x) {
    int64_t base;
    const int n_here = begin_batch<DIM, S>(P, list, n_list, batch, geo, auxe, &base);
    __syncthreads();
    for (int t = threadIdx.x; t < n_here * nq; t += blockDim.x) {
      const qitem Q = qitem_at<DIM>(P, list, base, t, geo, tab);
      const double *g = Q.g;
      const double wdet = Q.wdet;
      double a[FEINT_CUDA_MAX_AUX], zero[NC * DIM];
      for (int k = 0; k < NC * DIM; k++) zero[k] = 0;
      aux_at<S>(P, Q.c, Q.phi, auxe + Q.lc * P.n_nodal * nb, a);
      const feint_point pt = {DIM, NC, zero, zero, a};
      double *o = gq + (Q.lc * nq + Q.q) * GQ;
      if (terms & 1) {
        double g0[NC * NC];
        feint_physics_g0(P.physics, &pt, g0);
        for (int k = 0; k < NC * NC; k++) o[k] = wdet * g0[k];
      }
      if (terms & 2) {
        double g1[NC * NC * DIM];
        feint_physics_g1(P.physics, &pt, g1);
        for (int fg = 0; fg < NC * NC; fg++)
          for (int e = 0; e < DIM; e++) {
            double s = 0;
            for (int b2 = 0; b2 < DIM; b2++) s += g1[fg * DIM + b2] * g[e * DIM + b2];
            o[o1 + fg * DIM + e] = wdet * s;
          }
      }
      if (terms & 8) {
        double g3[NC * NC * DIM * DIM];
        feint_physics_g3(P.physics, &pt, g3);
        for (int fg = 0; fg < NC * NC; fg++) {
          double tmp[DIM * DIM]; /* tmp[a][e] = sum_b g3[a][b] invJ[e][b] */
          for (int a2 = 0; a2 < DIM; a2++)
            for (int e = 0; e < DIM; e++) {
              double s = 0;
              for (int b2 = 0; b2 < DIM; b2++) s += g3[(fg * DIM + a2) * DIM + b2] * g[e * DIM + b2];
              tmp[a2 * DIM + e] = s;
            }
          for (int d = 0; d < DIM; d++)
            for (int e = 0; e < DIM; e++) {
              double s = 0;
              for (int a2 = 0; a2 < DIM; a2++) s += g[d * DIM + a2] * tmp[a2 * DIM + e];
              o[o3 + (fg * DIM + d) * DIM + e] = wdet * s;
            }
        }
      }
    }
    __syncthreads();
    for (int t = threadIdx.x; t < n_here * n2; t += blockDim.x) {
      const int lc = t / n2, e = t - lc * n2;
      const int r = e / nbc, s = e - r * nbc;
      const int i = r / NC, fc = r - i * NC, j = s / NC, gc = s - j * NC, fg = fc * NC + gc;
      const int64_t c = cell_of(list, base + lc);
      double v = 0;
      for (int q = 0; q < nq; q++) {
        const double *o = gq + (lc * nq + q) * GQ;
        const double pi = basis[q * nb + i], pj = basis[q * nb + j];
        const double *Gi = bgrad + (q * nb + i) * DIM, *Gj = bgrad + (q * nb + j) * DIM;
        double acc = 0;
        if (terms & 1) acc += pi * o[fg] * pj;
        if (terms & 2)
          for (int d = 0; d < DIM; d++) acc += pi * o[o1 + fg * DIM + d] * Gj[d];
        if (terms & 8)
          for (int d = 0; d < DIM; d++) {
            double sd = 0;
            for (int d2 = 0; d2 < DIM; d2++) sd += o[o3 + (fg * DIM + d) * DIM + d2] * Gj[d2];
            acc += Gi[d] * sd;
          }
        v += acc;
      }
      put<S>(out, mode == OUT_BUFFER ? c * n2 + e : (int64_t)P.slots[c * n2 + e], v, mode);
    }
  }
}

template <typename S>
static res_kernel_t pick_residual_s(int dim, int nc) {
  if (dim == 2)
    return nc == 1 ? residual_kernel<2, 1, S> : nc == 2 ? residual_kernel<2, 2, S> : residual_kernel<2, 3, S>;
  return nc == 1 ? residual_kernel<3, 1, S> : nc == 2 ? residual_kernel<3, 2, S> : residual_kernel<3, 3, S>;
}
template <typename S>
static mat_kernel_t pick_matrix_s(int dim, int nc) {
  if (dim == 2) return nc == 1 ? matrix_kernel<2, 1, S> : nc == 2 ? matrix_kernel<2, 2, S> : matrix_kernel<2, 3, S>;
  return nc == 1 ? matrix_kernel<3, 1, S> : nc == 2 ? matrix_kernel<3, 2, S> : matrix_kernel<3, 3, S>;
}
res_kernel_t pick_residual(const cuda_data *d, int dim, int nc) {
  return d->single ? pick_residual_s<float>(dim, nc) : pick_residual_s<double>(dim, nc);
}
mat_kernel_t pick_matrix(const cuda_data *d, int dim, int nc) {
  return d->single ? pick_matrix_s<float>(dim, nc) : pick_matrix_s<double>(dim, nc);
}

