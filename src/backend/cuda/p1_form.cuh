/* A user form spliced into the P1 kernel templates (families p1-block
 * and p1-cell; issue 19): the block-local aggregation kernel of p1.cuh
 * (vectors of any component count, scalar CSR matrices), the per-cell matrix kernel
 * (element matrices, vector CSR matrices) and its gather by row, with the
 * form's pointwise functions where the built-in kernels call physics.h.
 * Compiled by NVRTC only, after p1.cuh (whose templates name their
 * parameters as these macros) and the generated head (form_source.c), which
 * defines FEINT_S (the storage type), DIM, NC, NAUX (>= 1), NP, NS, TERMS,
 * FORM_NQ and FORM_NQ_MATRIX (the rules' points: the quadrature loops
 * unroll), FORM_F0_AFFINE and FORM_F1_AFFINE (form_p1_sums),
 * form_aux_kind (the coefficients' kinds), FORM_WA (the first
 * nodal coefficient, packed into the node records where the lean kernels
 * run), FORM_CELL_NODES (a coefficient given per cell's nodes),
 * form_constants, form_f, form_g, form_nz (the Jacobian entries
 * that are not zero) and form_set_coefficients, and where the residual
 * runs in the lean walk FORM_LEAN_GATHER, FORM_LEAN_RW, FORM_LEAN_MINB
 * (and FORM_LEAN_PIPE: the pipelined kernel too). The cuda
 * backend (cuda.cu) launches these kernels as it launches its own: same
 * plans, strategies and signatures (blk_kernel_t and the p1mat ones).
 *
 * What a point sees is what the cpu backend's user form sees: x, y, z
 * interpolated from the vertices, u and its gradient, the coefficients
 * (nodal ones interpolated, with their gradients) and the parameters
 * (kparams.form_par). Per cell, u's and the basis gradients are constant
 * (affine P1), so f1 is summed over the points first and contracted with
 * the gradients once (as the built-in kernels do). */
#include "backend/cuda/p1.cuh" /* and p1_lean.cuh where FORM_LEAN_GATHER: both before the head */

typedef FEINT_S form_storage;

/* the vector kernel's resident blocks per SM (FEINT_FORM_MINB), by
 * default the built-in block kernel's */
#ifndef FORM_VECTOR_MINB
#define FORM_VECTOR_MINB (p1_block_minb<NC, 0>())
#endif
typedef p1cell<DIM, NC, NAUX> form_p1cell;

/* Coefficient k is interpolated from values at the cell's vertices
 * (nodal, or given per cell's nodes: a value per physical group). */
__host__ __device__ constexpr bool form_aux_interpolated(int k) {
  return form_aux_kind(k) == FEINT_FIELD_NODE || form_aux_kind(k) == FEINT_FIELD_CELL_NODE;
}

/* The symbols at the point where the basis takes the values phi[0..DIM]
 * in cell C (xv its vertices, gu its gradient of u, ga the nodal
 * coefficients' gradients, ga[k DIM + d]: all constant on the cell). */
__device__ __forceinline__ void form_p1_symbols(const double *phi, const form_p1cell &C, const double *xv,
                                                const double *gu, const double *ga, double *s) {
  constexpr int NB = DIM + 1;
#pragma unroll
  for (int i = 0; i < NS; i++) s[i] = 0.0;
#pragma unroll
  for (int a = 0; a < DIM; a++) {
    double v = 0;
#pragma unroll
    for (int i = 0; i < NB; i++) v += phi[i] * xv[i * 3 + a];
    s[a] = v;
  }
#pragma unroll
  for (int fc = 0; fc < NC; fc++) {
    double v = 0;
#pragma unroll
    for (int i = 0; i < NB; i++) v += phi[i] * C.ue[i * NC + fc];
    s[3 + 4 * fc] = v;
#pragma unroll
    for (int d = 0; d < DIM; d++) s[3 + 4 * fc + 1 + d] = gu[fc * DIM + d];
  }
  double a[NAUX];
#pragma unroll
  for (int k = 0; k < NAUX; k++) {
    double v = C.ac[k];
    if (form_aux_interpolated(k)) {
      v = 0;
#pragma unroll
      for (int i = 0; i < NB; i++) v += phi[i] * C.av[k][i];
    }
    a[k] = v;
  }
  form_set_coefficients(a, ga, s);
}

/* The nodal coefficients' gradients ga[k DIM + d] from the basis
 * gradients gp (zero for the others). */
__device__ __forceinline__ void form_p1_coefficient_gradients(const kparams &P, const form_p1cell &C,
                                                              const double (*gp)[DIM], double *ga) {
#pragma unroll
  for (int k = 0; k < NAUX; k++)
#pragma unroll
    for (int d = 0; d < DIM; d++) {
      double g = 0;
      if (form_aux_interpolated(k))
#pragma unroll
        for (int i = 0; i < DIM + 1; i++) g += gp[i][d] * C.av[k][i];
      ga[k * DIM + d] = g;
    }
}

__device__ __forceinline__ form_constants form_p1_constants(const kparams &P) {
  form_constants K;
#pragma unroll
  for (int j = 0; j < (NP > 0 ? NP : 1); j++) K.v[j] = NP > 0 ? P.form_par[j] : 0.0;
  return K;
}

/* The rule's sums of a loaded cell: res[i NC + fc] = sum_q w |J| phi_i
 * f0_fc (the f0 part of the element vector) and F1 = sum_q w |J| f1, which
 * the caller contracts with the (constant) basis gradients. Where f1 is
 * affine in what varies over the cell (x, u, nodal coefficients: P1
 * interpolants; FORM_F1_AFFINE, decided from the expressions), its sum is
 * wsum f1 at the mean point; where f0 is, sum_q w phi_i f0 = wphi_i f0 at
 * the point with basis values mass[i][.] / wphi_i (exact algebra on the
 * same rule, as the built-in kernels' collapsed sums): one f1 and DIM + 1
 * f0 evaluations instead of nq of each, and fewer live registers. */
__device__ __forceinline__ void form_p1_sums(const kparams &P, const p1tab &T, const form_p1cell &C, const double *xv,
                                             const double *gu, const double *ga, double *res, double *F1) {
  constexpr int NB = DIM + 1;
  const form_constants K = form_p1_constants(P);
#pragma unroll
  for (int k = 0; k < NB * NC; k++) res[k] = 0;
#pragma unroll
  for (int k = 0; k < NC * DIM; k++) F1[k] = 0;
  if constexpr (FORM_F1_AFFINE) {
    double s[NS], f0[NC], f1[NC * DIM];
    form_p1_symbols(T.pmean, C, xv, gu, ga, s);
    form_f(s, K, f0, f1);
    const double wdet = T.wsum * C.adet;
#pragma unroll
    for (int k = 0; k < NC * DIM; k++) F1[k] = wdet * f1[k];
  }
  if constexpr (FORM_F0_AFFINE)
#pragma unroll
    for (int i = 0; i < NB; i++) {
      double s[NS], f0[NC], f1[NC * DIM];
      form_p1_symbols(T.pmass[i], C, xv, gu, ga, s);
      form_f(s, K, f0, f1);
      const double wdet = T.wphi[i] * C.adet;
#pragma unroll
      for (int fc = 0; fc < NC; fc++) res[i * NC + fc] = wdet * f0[fc];
    }
  if constexpr (!FORM_F0_AFFINE || !FORM_F1_AFFINE)
#pragma unroll
    for (int q = 0; q < FORM_NQ; q++) {
      double s[NS], f0[NC], f1[NC * DIM];
      form_p1_symbols(T.phi[q], C, xv, gu, ga, s);
      form_f(s, K, f0, f1);
      const double wdet = T.w[q] * C.adet;
      if constexpr (!FORM_F0_AFFINE)
#pragma unroll
        for (int i = 0; i < NB; i++)
#pragma unroll
          for (int fc = 0; fc < NC; fc++) res[i * NC + fc] += wdet * T.phi[q][i] * f0[fc];
      if constexpr (!FORM_F1_AFFINE)
#pragma unroll
        for (int k = 0; k < NC * DIM; k++) F1[k] += wdet * f1[k];
    }
}

/* The element vector of a loaded cell: the residual at its u, or with
 * with_state 0 the load vector -F(0) (the cpu backend's convention). */
__device__ __forceinline__ void form_p1_vector(const kparams &P, const p1tab &T, const form_p1cell &C,
                                               const double *xv, int with_state, double *res) {
  constexpr int NB = DIM + 1, NBC = NB * NC;
  double gu[NC * DIM], gp[NB][DIM], ga[NAUX * DIM], F1[NC * DIM];
  p1_grad_u<DIM, NC, NAUX>(T, C, gu);
  p1_gradients<DIM, NC, NAUX>(T, C, gp);
  form_p1_coefficient_gradients(P, C, gp, ga);
  form_p1_sums(P, T, C, xv, gu, ga, res, F1);
  p1_add_flux<DIM, NC, NAUX>(T, C, F1, res);
  if (!with_state)
#pragma unroll
    for (int k = 0; k < NBC; k++) res[k] = -res[k];
}

/* The element matrix of a cell at the form's state, as sums over the
 * rule of the Jacobian blocks times what varies with the point (the P1
 * gradients gp are constant):
 *   A0[(i NB + j) NN + fg] = sum_q w |J| phi_i g0 phi_j,
 *   A1[(i NN + fg) DIM + d] = sum_q w |J| phi_i g1_d,
 *   A2[(j NN + fg) DIM + d] = sum_q w |J| g2_d phi_j,
 *   A3[(fg DIM + d) DIM + e] = sum_q w |J| g3_de,
 * so that an entry, A0 + A1 . gp_j + gp_i . A2 + gp_i . A3 gp_j, is made
 * where it is written: no array of NBC^2 entries (144 for elasticity,
 * which spilled), as the built-in kernels' p1_entry. */
struct form_p1_matrix {
  static constexpr int NB = DIM + 1, NN = NC * NC;
  double A0[(TERMS & 1) ? NB * NB * NN : 1], A1[(TERMS & 2) ? NB * NN * DIM : 1];
  double A2[(TERMS & 4) ? NB * NN * DIM : 1], A3[(TERMS & 8) ? NN * DIM * DIM : 1];
  double gp[NB][DIM];

  __device__ __forceinline__ double operator()(int i, int fc, int j, int gc) const { return entry(i, fc, j, gc); }
  __device__ __forceinline__ double entry(int i, int fc, int j, int gc) const {
    const int fg = fc * NC + gc;
    double v = 0;
    if ((TERMS & 1) && form_nz(0, fg)) v += A0[(i * NB + j) * NN + fg];
    if (TERMS & 2)
#pragma unroll
      for (int d = 0; d < DIM; d++)
        if (form_nz(1, fg * DIM + d)) v += A1[(i * NN + fg) * DIM + d] * gp[j][d];
    if (TERMS & 4)
#pragma unroll
      for (int d = 0; d < DIM; d++)
        if (form_nz(2, fg * DIM + d)) v += gp[i][d] * A2[(j * NN + fg) * DIM + d];
    if (TERMS & 8)
#pragma unroll
      for (int d = 0; d < DIM; d++) {
        double h = 0;
#pragma unroll
        for (int e = 0; e < DIM; e++)
          if (form_nz(3, (fg * DIM + d) * DIM + e)) h += A3[(fg * DIM + d) * DIM + e] * gp[j][e];
        v += gp[i][d] * h;
      }
    return v;
  }

  /* cell c's sums */
  __device__ __forceinline__ void integrate(const kparams &P, const p1tab &T, const cview &V, int c) {
    form_p1cell C;
    double xv[NB * 3], gu[NC * DIM];
    p1_load_vertices<DIM, NC, NAUX, form_storage, FORM_CELL_NODES>(P, T, V, c, 1, P.form_state, C, xv);
    p1_grad_u<DIM, NC, NAUX>(T, C, gu);
    p1_gradients<DIM, NC, NAUX>(T, C, gp);
    double ga[NAUX * DIM];
    form_p1_coefficient_gradients(P, C, gp, ga);
    const form_constants K = form_p1_constants(P);
#pragma unroll
    for (int k = 0; k < (int)(sizeof A0 / sizeof A0[0]); k++) A0[k] = 0;
#pragma unroll
    for (int k = 0; k < (int)(sizeof A1 / sizeof A1[0]); k++) A1[k] = 0;
#pragma unroll
    for (int k = 0; k < (int)(sizeof A2 / sizeof A2[0]); k++) A2[k] = 0;
#pragma unroll
    for (int k = 0; k < (int)(sizeof A3 / sizeof A3[0]); k++) A3[k] = 0;
#pragma unroll
    for (int q = 0; q < FORM_NQ_MATRIX; q++) {
      double s[NS], g0[NN], g1[NN * DIM], g2[NN * DIM], g3[NN * DIM * DIM];
      form_p1_symbols(T.phi[q], C, xv, gu, ga, s);
      form_g(s, K, g0, g1, g2, g3);
      const double wdet = T.w[q] * C.adet;
      if (TERMS & 1)
#pragma unroll
        for (int i = 0; i < NB; i++)
#pragma unroll
          for (int j = 0; j < NB; j++)
#pragma unroll
            for (int fg = 0; fg < NN; fg++)
              if (form_nz(0, fg)) A0[(i * NB + j) * NN + fg] += wdet * T.phi[q][i] * T.phi[q][j] * g0[fg];
      if (TERMS & 2)
#pragma unroll
        for (int i = 0; i < NB; i++)
#pragma unroll
          for (int k = 0; k < NN * DIM; k++)
            if (form_nz(1, k)) A1[i * NN * DIM + k] += wdet * T.phi[q][i] * g1[k];
      if (TERMS & 4)
#pragma unroll
        for (int j = 0; j < NB; j++)
#pragma unroll
          for (int k = 0; k < NN * DIM; k++)
            if (form_nz(2, k)) A2[j * NN * DIM + k] += wdet * T.phi[q][j] * g2[k];
      if (TERMS & 8)
#pragma unroll
        for (int k = 0; k < NN * DIM * DIM; k++)
          if (form_nz(3, k)) A3[k] += wdet * g3[k];
    }
  }
};

/* The cell computations the block kernel runs (p1_block). */
struct form_p1_cells {
  const kparams &P;
  const p1tab &T;
  const cview &V;
  int with_state;
  const void *u;
  __device__ __forceinline__ void vector(int c, const p1shared &G, double *res) const {
    form_p1cell C;
    double xv[(DIM + 1) * 3];
    p1_load_vertices<DIM, NC, NAUX, form_storage, FORM_CELL_NODES>(P, T, V, c, with_state, u, C, xv, G);
    form_p1_vector(P, T, C, xv, with_state, res);
  }
  __device__ __forceinline__ void matrix(int c, double *Ke) const {
    form_p1_matrix M;
    M.integrate(P, T, V, c);
    p1_cell_entries<DIM, NC>(M, Ke);
  }
};

extern "C" __global__ void __launch_bounds__(256, FORM_VECTOR_MINB)
    feint_p1_form_vector(kparams P, p1tab T, cview V, bview B, const int *__restrict__ chunks, int mode,
                         int with_state, const void *__restrict__ u, void *__restrict__ out) {
  p1_block<DIM, NC, 0, form_storage>(P, B, chunks, mode, with_state, u, out, form_p1_cells{P, T, V, with_state, u});
}

#if NC == 1
extern "C" __global__ void __launch_bounds__(256, (p1_block_minb<NC, 1>()))
    feint_p1_form_block_matrix(kparams P, p1tab T, cview V, bview B, const int *__restrict__ chunks, int mode,
                               int with_state, const void *__restrict__ u, void *__restrict__ out) {
  p1_block<DIM, NC, 1, form_storage>(P, B, chunks, mode, with_state, u, out, form_p1_cells{P, T, V, with_state, u});
}
#endif

#ifdef FORM_LEAN_GATHER
/* The residual in the lean kernels' walk (p1_lean.cuh: the vertex gather,
 * the prefetch, the pipelined walk for one component), generated where
 * the built-in lean kernels would run (P1 tetrahedra, the standard
 * simplex, dofs = vertices, double precision; form_source.h): the block
 * kernel's point sums (form_p1_sums) from the lean loads, the gradients
 * through the cofactors (fewer live registers than the inverse Jacobian
 * and the basis gradients). */
struct form_lean_cell {
  template <int NC_, bool SG, int RW, typename S, typename R>
  static __device__ __forceinline__ void compute(const kparams &P, const p1tab &T, const cview &V, int c,
                                                 const p1shared_t<R> &G, const int *vtx,
                                                 const void *__restrict__ u, R *res) {
    static_assert(NC_ == NC && DIM == 3 && sizeof(R) == 8, "the lean form kernels: tetrahedra, double");
    double x[4][3], w4[4], ue[4][NC];
    int l[4];
    p1_lean_load<NC, SG, RW, S, double>(P, G, vtx, u, x, w4, ue, l);
    form_p1cell C;
    double cof[9];
    const double det = p1_lean_cofactors<double>(x, cof), rdet = 1.0 / det;
    C.adet = fabs(det);
#pragma unroll
    for (int i = 0; i < 4; i++) {
      C.sd[i] = SG ? G.node[l[i]] : l[i];
#pragma unroll
      for (int cc = 0; cc < NC; cc++) C.ue[i * NC + cc] = ue[i][cc];
    }
    p1_load_coefficients<DIM, NC, NAUX, S, FORM_CELL_NODES>(P, V, c, w4, FORM_WA, form_aux_kind, C);
    /* the gradients through the cofactors: grad v = C^T (v_1 - v_0, v_2 - v_0, v_3 - v_0) / det */
    double gu[NC * 3], ga[NAUX * 3], F1[NC * 3];
#pragma unroll
    for (int cc = 0; cc < NC; cc++) p1_lean_gradient(cof, rdet, ue[0][cc], ue[1][cc], ue[2][cc], ue[3][cc], gu + 3 * cc);
#pragma unroll
    for (int k = 0; k < NAUX; k++) {
      if (form_aux_interpolated(k))
        p1_lean_gradient(cof, rdet, C.av[k][0], C.av[k][1], C.av[k][2], C.av[k][3], ga + 3 * k);
      else
        ga[3 * k] = ga[3 * k + 1] = ga[3 * k + 2] = 0;
    }
    form_p1_sums(P, T, C, &x[0][0], gu, ga, res, F1);
    /* res_i += grad phi_i . F1: grad phi_{d+1} = C[d] / det, grad phi_0 = -sum_d grad phi_{d+1} */
#pragma unroll
    for (int cc = 0; cc < NC; cc++) {
      double h0 = 0;
#pragma unroll
      for (int d = 0; d < 3; d++) {
        const double h = rdet * (cof[d * 3] * F1[cc * 3] + cof[d * 3 + 1] * F1[cc * 3 + 1] + cof[d * 3 + 2] * F1[cc * 3 + 2]);
        res[(d + 1) * NC + cc] += h;
        h0 += h;
      }
      res[cc] -= h0;
    }
  }
};

extern "C" __global__ void __launch_bounds__(256, FORM_LEAN_MINB)
    feint_p1_form_lean(kparams P, p1tab T, cview V, bview B, const int *__restrict__ chunks, int mode,
                       int with_state, const void *__restrict__ u, void *__restrict__ out) {
  p1_lean_block<NC, FORM_LEAN_GATHER == LEAN_SHARED, FORM_LEAN_RW, form_storage, double, form_lean_cell>(
      P, T, V, B, chunks, mode, with_state, u, out);
}

#ifdef FORM_LEAN_PIPE
extern "C" __global__ void __launch_bounds__(256, 4)
    feint_p1_form_lean_pipe(kparams P, p1tab T, cview V, bview B, const int *__restrict__ chunks, int mode,
                            int with_state, const void *__restrict__ u, void *__restrict__ out) {
  (void)chunks;
  p1_lean_pipe<form_lean_cell>(P, T, V, B, mode, with_state, u, out);
}
#endif
#endif

/* Element matrices (mode OUT_BUFFER: at c NBC^2) or CSR values by the slots. */
extern "C" __global__ void __launch_bounds__(256)
    feint_p1_form_matrix(kparams P, p1tab T, cview V, int first, int n, int mode, void *__restrict__ out) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  const int c = first + t;
  form_p1_matrix M;
  M.integrate(P, T, V, c);
  p1_put_cell_matrix<DIM, NC, form_storage>(V, c, M, mode, out);
}

/* Gather by row: one thread per scalar dof adds its rows of its cells, in
 * increasing cell order (deterministic; p1_matrix_gather_kernel). */
extern "C" __global__ void __launch_bounds__(256)
    feint_p1_form_matrix_gather(kparams P, p1tab T, cview V, int n_nodes, const int *__restrict__ vptr,
                                const int *__restrict__ vent, void *__restrict__ out) {
  const int node = blockIdx.x * blockDim.x + threadIdx.x;
  if (node >= n_nodes) return;
  const int k0 = __ldg(vptr + node), k1 = __ldg(vptr + node + 1);
  for (int k = k0; k < k1; k++) {
    const int e = __ldg(vent + k);
    form_p1_matrix M;
    M.integrate(P, T, V, e >> 2);
    p1_put_cell_rows<DIM, NC, form_storage>(V, e >> 2, e & 3, M, out);
  }
}
