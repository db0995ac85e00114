/* The lean P1 tetrahedron residual kernels (Poisson and elasticity, the
 * stiffness coefficients' kinds as template parameters) and the pipelined
 * persistent Poisson kernel, on the block kernels' chunks (p1.cuh; their
 * walk is p1_lean.cuh's, which a user form's lean kernels share); and
 * the choice among their instantiations (pick_lean, lean_pipe_kernel),
 * which reads the tuning variables FEINT_CUDA_LEAN*. */
#include <string.h>

#include <algorithm>

#include "backend/cuda/fused.cuh"
#include "backend/cuda/p1_lean.cuh"

/* ------------------------------ P1 tetrahedra: the lean residual kernels
 *
 * The residual of P1 Poisson (nc 1) and P1 elasticity (nc 3) on
 * tetrahedra, with the coefficient kinds of the stiffness term (kappa;
 * lambda and mu) as template parameters: no run-time selects and no
 * load-vector path (the rhs keeps the block kernel). Storage type S
 * (double, or float in single precision) and compute type R: double in
 * double precision; in single precision float by default (R = float: the
 * node records, u and the element entries in shared memory are float too,
 * and the flush sums in float; FEINT_CUDA_LEAN_REAL=double computes in
 * double from the float storage instead; measured both ways: the
 * float path agrees with double to 2e-6 relative at 6M cells, as does the
 * double compute from float storage: each target sums at most a few dozen
 * entries, so no error grows with the mesh).
 * The chunk machinery is the block kernel's (plan prefetch, flush; the
 * vertices from the shared gather or from global memory, LEAN_SHARED /
 * LEAN_GLOBAL); only the cell's arithmetic differs, and it is the least
 * the form needs:
 *   J from the 4 vertices, its cofactors C (C = det J^-1), det;
 *   Gs = C^T (u_{d+1} - u_0)      (det times grad u);
 *   the stiffness coefficient integrated over the cell, sum_q w_q a(x_q) =
 *     sum_j wphi_j a_j for a nodal (P1) field, wsum a otherwise: exact for
 *     any rule, since grad phi is constant on the cell and the form is
 *     linear in the coefficients;
 *   res_{d+1} = (C flux(Gs))_d / |det|, res_0 = -sum_d res_{d+1}
 *     (flux = kappa Gs, or mu (Gs + Gs^T) + lambda tr(Gs) I), the standard
 *     simplex's gradients written out (checked at setup: T.std);
 *   the source as in p1_residual_cell (reference mass matrix for a nodal
 *     field, wphi otherwise), its kinds read at run time (uniform branches).
 * A nodal stiffness coefficient must be the one packed into the node
 * records (P.wa). Measured against the block kernel (H100, 6M tetrahedra,
 * double, atomic): Poisson 0.152 against 0.189 ms, elasticity 0.291 against
 * 0.407 ms; single precision computing in float is faster again. */
template <int K, typename S, typename R>
__device__ __forceinline__ R p1_lean_coef(const kparams &P, const p1tab &T, const cview &V, int c, int k,
                                          const R *w4) {
  if constexpr (K == FEINT_FIELD_NODE)
    return tab_wphi<R>(T, 0) * w4[0] + tab_wphi<R>(T, 1) * w4[1] + tab_wphi<R>(T, 2) * w4[2] +
           tab_wphi<R>(T, 3) * w4[3];
  else
    return tab_wsum<R>(T) * (K == FEINT_FIELD_CELL ? rd<S, R>(V.caux[k], c) : (R)P.aux_const[k]);
}

template <int NC, int KA, int KB, bool SG, int RW, typename S, typename R>
__device__ __forceinline__ void p1_lean_cell(const kparams &P, const p1tab &T, const cview &V, int c,
                                             const p1shared_t<R> &G, const int *vtx, const void *__restrict__ u,
                                             R *res) {
  R x[4][3], w4[4], ue[4][NC];
  int l[4];
  p1_lean_load<NC, SG, RW, S, R>(P, G, vtx, u, x, w4, ue, l);
  R C[9];
  const R adet = fabs(p1_lean_cofactors<R>(x, C)), rdet = (R)1 / adet;
  /* det grad u, then the flux (over |det|, with the coefficients), then C flux */
  R Gs[NC][3], Sg[NC][3];
#pragma unroll
  for (int cc = 0; cc < NC; cc++) {
    const R g0 = ue[1][cc] - ue[0][cc], g1 = ue[2][cc] - ue[0][cc], g2 = ue[3][cc] - ue[0][cc];
#pragma unroll
    for (int a = 0; a < 3; a++) Gs[cc][a] = C[a] * g0 + C[3 + a] * g1 + C[6 + a] * g2;
  }
  if constexpr (NC == 1) {
    const R kap = p1_lean_coef<KA, S, R>(P, T, V, c, 0, w4) * rdet;
#pragma unroll
    for (int a = 0; a < 3; a++) Sg[0][a] = kap * Gs[0][a];
  } else {
    const R lam = p1_lean_coef<KA, S, R>(P, T, V, c, 0, w4) * rdet,
            mu = p1_lean_coef<KB, S, R>(P, T, V, c, 1, w4) * rdet;
    const R ltr = lam * (Gs[0][0] + Gs[1][1] + Gs[2][2]);
#pragma unroll
    for (int cc = 0; cc < NC; cc++)
#pragma unroll
      for (int a = 0; a < 3; a++) Sg[cc][a] = mu * (Gs[cc][a] + Gs[a][cc]) + (a == cc ? ltr : (R)0);
  }
#pragma unroll
  for (int cc = 0; cc < NC; cc++) {
    R h0 = 0;
#pragma unroll
    for (int d = 0; d < 3; d++) {
      const R h = C[d * 3] * Sg[cc][0] + C[d * 3 + 1] * Sg[cc][1] + C[d * 3 + 2] * Sg[cc][2];
      res[(d + 1) * NC + cc] = h;
      h0 += h;
    }
    res[cc] = -h0;
  }
  /* the source: res_i = -|det| sum_q w_q phi_i(q) f(x_q) */
  const int so = feint_physics_source_offset(NC == 1 ? FEINT_PW_POISSON : FEINT_PW_ELASTICITY, 3);
#pragma unroll
  for (int cc = 0; cc < NC; cc++) {
    const int k = so + cc, kind = P.aux_kind[k];
    if (kind == FEINT_FIELD_NODE) {
      R f[4];
#pragma unroll
      for (int j = 0; j < 4; j++) f[j] = k == P.wa ? w4[j] : rd<S, R>(P.aux_vals[k], SG ? G.node[l[j]] : l[j]);
#pragma unroll
      for (int i = 0; i < 4; i++)
        res[i * NC + cc] -= adet * (tab_mass<R>(T, i, 0) * f[0] + tab_mass<R>(T, i, 1) * f[1] +
                                    tab_mass<R>(T, i, 2) * f[2] + tab_mass<R>(T, i, 3) * f[3]);
    } else {
      const R f = adet * (kind == FEINT_FIELD_CELL ? rd<S, R>(V.caux[k], c) : (R)P.aux_const[k]);
#pragma unroll
      for (int i = 0; i < 4; i++) res[i * NC + cc] -= tab_wphi<R>(T, i) * f;
    }
  }
}

/* The built-in cells for the stiffness coefficients' kinds KA, KB. */
template <int KA, int KB>
struct p1_lean_builtin {
  template <int NC, bool SG, int RW, typename S, typename R>
  static __device__ __forceinline__ void compute(const kparams &P, const p1tab &T, const cview &V, int c,
                                                 const p1shared_t<R> &G, const int *vtx,
                                                 const void *__restrict__ u, R *res) {
    p1_lean_cell<NC, KA, KB, SG, RW, S, R>(P, T, V, c, G, vtx, u, res);
  }
};

template <int NC, int KA, int KB, int GATHER, int MINB, typename S, typename R, bool PK = false>
__global__ void __launch_bounds__(256, MINB) p1_lean_kernel(
    kparams P, p1tab T, cview V, bview B, const int *__restrict__ chunks, int mode, int with_state,
    const void *__restrict__ u, void *__restrict__ out) {
  p1_lean_block<NC, GATHER == LEAN_SHARED, p1_lean_rw<NC, R, PK>(), S, R, p1_lean_builtin<KA, KB>>(
      P, T, V, B, chunks, mode, with_state, u, out);
}

/* The pipelined Poisson kernel (p1_lean_pipe). */
template <int KA>
__global__ void __launch_bounds__(256, 4) p1_lean_pipe_kernel(kparams P, p1tab T, cview V, bview B,
                                                              const int *__restrict__ chunks, int mode,
                                                              int with_state, const void *__restrict__ u,
                                                              void *__restrict__ out) {
  (void)chunks;
  p1_lean_pipe<p1_lean_builtin<KA, 0>>(P, T, V, B, mode, with_state, u, out);
}

/* The lean residual kernel for the form's stiffness coefficient kinds
 * (p1_lean_kernel): P1 tetrahedra, Poisson or elasticity, the standard
 * simplex, dofs = vertices (interleaved), a nodal stiffness coefficient
 * only as the packed one (P.wa); else NULL. Double precision computes in
 * double; single in float (*real = 4), or in double from the float storage
 * with FEINT_CUDA_LEAN_REAL=double (*real = 8). The vertex gather: shared
 * for colored and for elasticity in double, global otherwise, the shared
 * records with u inside in double (*rw, p1_lean_rw; FEINT_CUDA_LEAN_PACK=0:
 * u in its own array); blocks per SM p1_lean_minb. For tuning,
 * FEINT_CUDA_LEAN_MODE=0 (shared) or 1 (global) forces a gather, and
 * FEINT_CUDA_LEAN_MINB the blocks of 256 per SM of the benchmark's kinds
 * (nodal kappa; nodal lambda, per-cell mu): 3 in double (80 registers
 * instead of 64), 4, 6 or 8 computing in float (64 / 40 / 32 registers).
 * The kernels prefetch the plan and vertex ids *pf chunks ahead
 * (p1_lean_prefetch): in double one wave of resident blocks (4 x SMs) by
 * default, in single not by default (unmeasured there);
 * FEINT_CUDA_LEAN_PF=N sets the distance (0: off, for same-run comparisons). */
typedef struct {
  int gather, minb; /* LEAN_SHARED / LEAN_GLOBAL; FEINT_CUDA_LEAN_MINB (0: default) */
  bool colored, pack; /* strategy colored; shared records with u inside (p1_lean_rw) */
} lean_choice;
/* Which instances a build holds: by default the kernels the choice below
 * makes without tuning knobs (per configuration its gather, packing,
 * compute type and blocks per SM); with make EXPERIMENTS=1 also those the
 * FEINT_CUDA_LEAN_* knobs force (tuning.c refuses them otherwise). */
#ifdef FEINT_EXPERIMENTS
static constexpr bool lean_experiments = true;
#else
static constexpr bool lean_experiments = false;
#endif

template <int NC, int KA, int KB, int MINB, typename S, typename R>
static blk_kernel_t lean_gm(const lean_choice &L) {
  /* elasticity in double gathers through shared memory unless forced */
  constexpr bool GLOBAL_BUILT = lean_experiments || NC == 1 || sizeof(S) == 4;
  if constexpr (GLOBAL_BUILT)
    if (L.gather == LEAN_GLOBAL) return p1_lean_kernel<NC, KA, KB, LEAN_GLOBAL, MINB, S, R>;
  if constexpr (sizeof(R) == 8)
    if (L.pack || !lean_experiments) return p1_lean_kernel<NC, KA, KB, LEAN_SHARED, MINB, S, R, true>;
  if constexpr (sizeof(R) == 4 || lean_experiments) return p1_lean_kernel<NC, KA, KB, LEAN_SHARED, MINB, S, R>;
  return NULL;
}
template <int NC, int KA, int KB, typename S, typename R>
static blk_kernel_t lean_g(const lean_choice &L) {
  constexpr int N = FEINT_FIELD_NODE, C = FEINT_FIELD_CELL;
  constexpr bool bench = lean_experiments && KA == N && (NC == 1 || KB == C);
  if constexpr (bench && sizeof(R) == 8)
    if (L.minb == 3) return lean_gm<NC, KA, KB, 3, S, R>(L);
  if constexpr (bench && sizeof(R) == 4) {
    if (L.minb == 4) return lean_gm<NC, KA, KB, 4, S, R>(L);
    if (L.minb == 6) return lean_gm<NC, KA, KB, 6, S, R>(L);
    if (L.minb == 8) return lean_gm<NC, KA, KB, 8, S, R>(L);
  }
  if constexpr (p1_lean_minb<NC, R>(true) != p1_lean_minb<NC, R>(false))
    if (L.colored) return lean_gm<NC, KA, KB, p1_lean_minb<NC, R>(true), S, R>(L);
  return lean_gm<NC, KA, KB, p1_lean_minb<NC, R>(false), S, R>(L);
}
template <int NC, int KA, typename S, typename R>
static blk_kernel_t lean_kb(int kb, const lean_choice &L) {
  if constexpr (NC == 1)
    return lean_g<1, KA, 0, S, R>(L);
  else
    return kb == 0 ? lean_g<NC, KA, 0, S, R>(L) : kb == 1 ? lean_g<NC, KA, 1, S, R>(L) : lean_g<NC, KA, 2, S, R>(L);
}
template <int NC, typename S, typename R>
static blk_kernel_t lean_ka(int ka, int kb, const lean_choice &L) {
  return ka == 0 ? lean_kb<NC, 0, S, R>(kb, L) : ka == 1 ? lean_kb<NC, 1, S, R>(kb, L) : lean_kb<NC, 2, S, R>(kb, L);
}
template <int NC>
static blk_kernel_t lean_types(int single, int real, int ka, int kb, const lean_choice &L) {
  if (!single) return lean_ka<NC, double, double>(ka, kb, L);
  if constexpr (lean_experiments)
    if (real == 8) return lean_ka<NC, float, double>(ka, kb, L);
  return lean_ka<NC, float, float>(ka, kb, L);
}
blk_kernel_t pick_lean(const cuda_data *d, const feint_problem *p, int *gather, int *real, int *rw,
                              int *pf) {
  const kparams &P = d->P;
  const feint_form *f = p->form;
  const feint_cuda_tuning &tu = d->tune;
  *real = *pf = 0;
  if (!tu.lean || P.dim != 3 || !d->p1blk[0] || !d->T.std || !P.sd_cells || !P.interleaved || !P.xyzw)
    return NULL;
  const int poisson = P.physics == FEINT_PW_POISSON && P.nc == 1;
  if (!poisson && !(P.physics == FEINT_PW_ELASTICITY && P.nc == 3)) return NULL;
  const int ns = poisson ? 1 : 2; /* stiffness coefficients: kappa; lambda, mu */
  for (int k = 0; k < ns; k++)
    if (f->aux[k].kind == FEINT_FIELD_NODE && P.wa != k) return NULL;
  const int ka = (int)f->aux[0].kind, kb = poisson ? 0 : (int)f->aux[1].kind;
  lean_choice L;
  L.colored = p->strategy == FEINT_ASSEMBLY_COLORED;
  L.gather = L.colored || (!poisson && !d->single) ? LEAN_SHARED : LEAN_GLOBAL;
  if (tu.lean_gather >= 0) L.gather = tu.lean_gather;
  L.minb = tu.lean_minb;
  *real = d->single && tu.lean_real != 8 ? 4 : 8;
  L.pack = tu.lean_pack;
  *pf = tu.lean_prefetch >= 0 ? tu.lean_prefetch : d->single ? 0 : p1_lean_minb<1, double>(false) * d->sm_count;
  *gather = L.gather;
  *rw = L.gather != LEAN_SHARED ? 4
        : L.pack && *real == 8 ? (poisson ? p1_lean_rw<1, double, true>() : p1_lean_rw<3, double, true>())
                               : 4;
  return poisson ? lean_types<1>(d->single, *real, ka, 0, L) : lean_types<3>(d->single, *real, ka, kb, L);
}

/* The pipelined Poisson kernel for the kind of kappa (0 constant, 1 per
 * cell, 2 nodal) and its shared memory. */
blk_kernel_t lean_pipe_kernel(int ka) {
  return ka == 0 ? p1_lean_pipe_kernel<0> : ka == 1 ? p1_lean_pipe_kernel<1> : p1_lean_pipe_kernel<2>;
}

size_t lean_pipe_shmem(void) { return sizeof(pipe_shared); }
