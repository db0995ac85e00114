/* The CUDA source of a user form: the form's expressions as C, spliced
 * between a generated head (the layout as constants) and the kernel
 * template below (form_source.h). */
#include "backend/cuda/form_source.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feint/error.h"

const char *const feint_form_cuda_kernels[FEINT_FORM_KERNELS] = {"feint_form_vector", "feint_form_matrix"};
const char *const feint_form_p1_kernels[FEINT_FORM_P1_KERNELS] = {
    "feint_p1_form_vector", "feint_p1_form_block_matrix", "feint_p1_form_matrix", "feint_p1_form_matrix_gather",
    "feint_p1_form_lean",   "feint_p1_form_lean_pipe"};
const char *const feint_form_cuda_options[FEINT_FORM_CUDA_OPTIONS] = {"--std=c++17", "--fmad=false"};
const char *const feint_form_p1_options[FEINT_FORM_P1_OPTIONS] = {"--std=c++17"};

/* The kernels: one thread a cell, the same sums in the same order as the
 * cpu backend's element_vector / element_matrix (src/backend/cpu/cpu.c)
 * for a user form on an affine simplex, so that the results agree to
 * round-off (compiled with --fmad=false: no contraction the host does not
 * do either). The head defines DIM NC NB NV NQ NQM NS NP NK NKF NPC TERMS,
 * form_f, form_g (the expressions) and form_coefficients (the fields). */
static const char template_kernels[] =
    "#define NBC (NB * NC)\n"
    "/* the row strides of cells, the dof maps and the slots: the widest\n"
    " * block's on a mixed mesh (the head defines NVW NBW), else the cell's */\n"
    "#define NBCW (NBW * NC)\n"
    "/* where entry e = r NBC + col of cell c's element matrix lies in a row of\n"
    " * NBCW x NBCW (the slots, the element matrices written out) */\n"
    "__device__ __forceinline__ long long form_entry(long long c, int e) {\n"
    "  return c * (NBCW * NBCW) + (long long)(e / NBC) * NBCW + e % NBC;\n"
    "}\n"
    "/* a rule's table: weights, basis, basis_grad, geometry_value */\n"
    "#define TAB_BASIS(nq) (nq)\n"
    "#define TAB_GRAD(nq) ((nq) + (nq) * NB)\n"
    "#define TAB_GEOM(nq) ((nq) + (nq) * NB + (nq) * NB * DIM)\n"
    "/* ... and on non-affine cells the vertex shape gradients */\n"
    "#define TAB_GGRAD(nq) ((nq) + (nq) * NB + (nq) * NB * DIM + (nq) * NV)\n"
    "\n"
    "/* det J (signed) and invJ[d DIM + a] = d xi_d / d x_a of\n"
    " * J[a DIM + d] = d x_a / d xi_d (feint/geometry.h's feint_inverse_jacobian) */\n"
    "__device__ __forceinline__ double form_invert(const double *J, double *invJ) {\n"
    "#if DIM == 2\n"
    "  double det = J[0] * J[3] - J[1] * J[2];\n"
    "  const double r = 1 / det;\n"
    "  invJ[0] = J[3] * r;\n"
    "  invJ[1] = -J[1] * r;\n"
    "  invJ[2] = -J[2] * r;\n"
    "  invJ[3] = J[0] * r;\n"
    "#else\n"
    "  double c00 = J[4] * J[8] - J[5] * J[7], c01 = J[5] * J[6] - J[3] * J[8], c02 = J[3] * J[7] - J[4] * J[6];\n"
    "  double det = J[0] * c00 + J[1] * c01 + J[2] * c02;\n"
    "  const double r = 1 / det;\n"
    "  invJ[0] = c00 * r;\n"
    "  invJ[3] = c01 * r;\n"
    "  invJ[6] = c02 * r;\n"
    "  invJ[1] = (J[2] * J[7] - J[1] * J[8]) * r;\n"
    "  invJ[4] = (J[0] * J[8] - J[2] * J[6]) * r;\n"
    "  invJ[7] = (J[1] * J[6] - J[0] * J[7]) * r;\n"
    "  invJ[2] = (J[1] * J[5] - J[2] * J[4]) * r;\n"
    "  invJ[5] = (J[2] * J[3] - J[0] * J[5]) * r;\n"
    "  invJ[8] = (J[0] * J[4] - J[1] * J[3]) * r;\n"
    "#endif\n"
    "  return det;\n"
    "}\n"
    "\n"
    "/* The same of the affine simplex of vertices v[k 3 + a]\n"
    " * (feint_affine_inverse_jacobian). */\n"
    "__device__ __forceinline__ double form_inverse_jacobian(const double *v, double *invJ) {\n"
    "  double J[DIM * DIM];\n"
    "  for (int a = 0; a < DIM; a++)\n"
    "    for (int d = 0; d < DIM; d++) J[a * DIM + d] = v[(d + 1) * 3 + a] - v[a];\n"
    "  return form_invert(J, invJ);\n"
    "}\n"
    "\n"
    "/* The same at point q of a rule of nq points of a non-affine cell of\n"
    " * vertices v, as the cpu backend's multilinear_geometry\n"
    " * (feint_multilinear_jacobian, then feint_inverse_jacobian). */\n"
    "__device__ __forceinline__ double form_point_jacobian(const double *v, const double *tab, int nq, int q,\n"
    "                                                      double *invJ) {\n"
    "  const double *dN = tab + TAB_GGRAD(nq) + q * NV * DIM;\n"
    "  double J[DIM * DIM];\n"
    "  for (int i = 0; i < DIM * DIM; i++) J[i] = 0;\n"
    "  for (int i = 0; i < NV; i++)\n"
    "    for (int a = 0; a < DIM; a++)\n"
    "      for (int d = 0; d < DIM; d++) J[a * DIM + d] += v[i * 3 + a] * dN[i * DIM + d];\n"
    "  return form_invert(J, invJ);\n"
    "}\n"
    "\n"
    "/* One cell's data: vertices, dofs, |det J|, invJ (a non-affine cell's at\n"
    " * the current point: form_point_geometry). */\n"
    "struct form_cell {\n"
    "  double v[NV * 3], invJ[DIM * DIM], det;\n"
    "  int dofs[NBC], sd[NB];\n"
    "};\n"
    "\n"
    "__device__ __forceinline__ void form_load_cell(long long c, const double *X, const double *Y, const double *Z,\n"
    "                                               const int *cells, const int *dofs, const int *sdofs,\n"
    "                                               form_cell *k) {\n"
    "#if FORM_CURVED /* the cell's own geometry nodes, x y z each */\n"
    "  for (int i = 0; i < NV * 3; i++) k->v[i] = X[c * (NVW * 3) + i]; /* rows of the widest block's nodes */\n"
    "  (void)Y; (void)Z; (void)cells;\n"
    "#else\n"
    "  for (int i = 0; i < NV; i++) {\n"
    "    const int n = cells[c * NVW + i];\n"
    "    k->v[i * 3 + 0] = X[n];\n"
    "    k->v[i * 3 + 1] = Y[n];\n"
    "    k->v[i * 3 + 2] = Z[n];\n"
    "  }\n"
    "#endif\n"
    "  for (int i = 0; i < NB; i++) k->sd[i] = sdofs[c * NBW + i];\n"
    "#if FORM_INTERLEAVED /* the dofs from the scalar ones: no array of NBC a cell to read */\n"
    "  for (int i = 0; i < NB; i++)\n"
    "    for (int fc = 0; fc < NC; fc++) k->dofs[i * NC + fc] = k->sd[i] * NC + fc;\n"
    "  (void)dofs;\n"
    "#else\n"
    "  for (int i = 0; i < NBC; i++) k->dofs[i] = dofs[c * NBCW + i];\n"
    "#endif\n"
    "#if FORM_AFFINE\n"
    "  k->det = fabs(form_inverse_jacobian(k->v, k->invJ));\n"
    "#endif\n"
    "}\n"
    "\n"
    "/* A non-affine cell's J at point q of a rule of nq points into k;\n"
    " * nothing on a simplex, whose J is the cell's. */\n"
    "__device__ __forceinline__ void form_point_geometry(form_cell *k, const double *tab, int nq, int q) {\n"
    "#if FORM_AFFINE\n"
    "  (void)k; (void)tab; (void)nq; (void)q;\n"
    "#else\n"
    "  k->det = fabs(form_point_jacobian(k->v, tab, nq, q, k->invJ));\n"
    "#endif\n"
    "}\n"
    "\n"
    "/* The symbols at one point (the cpu backend's user_symbols): x y z from\n"
    " * the vertex shape values, u and grad u from the cell's values ue (NULL:\n"
    " * 0), the coefficients, the parameters; gphi the physical gradients. */\n"
    "__device__ __forceinline__ void form_symbols(const form_cell *k, long long c, const double *phi,\n"
    "                                             const double *gphi, const double *gv, const double *ue,\n"
    "                                             const form_fields &F, const form_constants &P, double *s) {\n"
    "  for (int i = 0; i < NS; i++) s[i] = 0.0;\n"
    "  for (int i = 0; i < NV; i++)\n"
    "    for (int a = 0; a < 3; a++) s[a] += gv[i] * k->v[i * 3 + a];\n"
    "  if (ue) {\n"
    "    double u[NC], gu[NC * DIM];\n"
    "    for (int fc = 0; fc < NC; fc++) {\n"
    "      u[fc] = 0.0;\n"
    "      for (int d = 0; d < DIM; d++) gu[fc * DIM + d] = 0.0;\n"
    "    }\n"
    "    for (int i = 0; i < NB; i++)\n"
    "      for (int fc = 0; fc < NC; fc++) {\n"
    "        const double v = ue[i * NC + fc];\n"
    "        u[fc] += phi[i] * v;\n"
    "        for (int d = 0; d < DIM; d++) gu[fc * DIM + d] += gphi[i * DIM + d] * v;\n"
    "      }\n"
    "    for (int fc = 0; fc < NC; fc++) {\n"
    "      s[3 + 4 * fc] = u[fc];\n"
    "      for (int d = 0; d < DIM; d++) s[3 + 4 * fc + 1 + d] = gu[fc * DIM + d];\n"
    "    }\n"
    "  }\n"
    "  form_coefficients(k, c, phi, gphi, F, P, s);\n"
    "}\n"
    "\n"
    "/* Physical gradients of the basis at point q: grad phi = J^-T grad_ref phi. */\n"
    "__device__ __forceinline__ void form_gradients(const form_cell *k, const double *G, double *gphi) {\n"
    "  for (int i = 0; i < NB; i++)\n"
    "    for (int a = 0; a < DIM; a++) {\n"
    "      double v = 0;\n"
    "      for (int d = 0; d < DIM; d++) v += G[i * DIM + d] * k->invJ[d * DIM + a];\n"
    "      gphi[i * DIM + a] = v;\n"
    "    }\n"
    "}\n"
    "\n"
    "/* The block kernels' point q of a rule of nq points: invJ and |det J|\n"
    " * there (returned), the symbols with u's and the nodal coefficients'\n"
    " * gradients evaluated on the reference cell, then mapped by J^-T. */\n"
    "__device__ __forceinline__ double form_point_symbols(const form_cell *k, long long c, const double *tab, int nq, int q,\n"
    "                                                     const double *ue, const form_fields &F, const form_constants &P,\n"
    "                                                     double *invJ, double *s) {\n"
    "  double det;\n"
    "#if FORM_AFFINE\n"
    "  for (int a = 0; a < DIM * DIM; a++) invJ[a] = k->invJ[a];\n"
    "  det = k->det;\n"
    "#else\n"
    "  det = fabs(form_point_jacobian(k->v, tab, nq, q, invJ));\n"
    "#endif\n"
    "  form_symbols(k, c, tab + TAB_BASIS(nq) + q * NB, tab + TAB_GRAD(nq) + q * NB * DIM, tab + TAB_GEOM(nq) + q * NV, ue,\n"
    "               F, P, s);\n"
    "  const int slots[] = {FORM_GRADIENT_SLOTS};\n"
    "  for (int m = 0; m < (int)(sizeof slots / sizeof slots[0]); m++) {\n"
    "    double *g = s + slots[m], r[DIM];\n"
    "    for (int d = 0; d < DIM; d++) r[d] = g[d];\n"
    "    for (int a = 0; a < DIM; a++) {\n"
    "      double v = 0;\n"
    "      for (int d = 0; d < DIM; d++) v += r[d] * invJ[d * DIM + a];\n"
    "      g[a] = v;\n"
    "    }\n"
    "  }\n"
    "  return det;\n"
    "}\n"
    "\n"
    "#if FV_BLOCK\n"
    "/* The element vectors, a block of FB_THREADS a cell (FV_BLOCK: cells of\n"
    " * more than 32 basis functions, whose one-thread-a-cell arrays cost NVRTC\n"
    " * seconds and ran one thread a cell), the points in chunks of FV_CHUNK\n"
    " * (what fits in shared memory): each thread a point (J, the symbols,\n"
    " * form_f, and E = w |det J| (f0, J^-1 f1) on the reference cell, NC (1 +\n"
    " * DIM) values), then each thread its entries (i, fc), adding phi_i E0 +\n"
    " * grad_ref phi_i . E1 point after point in registers (FV_PER a thread).\n"
    " * A block takes cells blockIdx.x + k gridDim.x. */\n"
    "#define NE (NC * (1 + DIM))\n"
    "#ifndef FV_PER\n"
    "#define FV_PER ((NBC + FB_THREADS - 1) / FB_THREADS)\n"
    "#endif\n"
    "struct form_vector_shared {\n"
    "  form_cell cell;\n"
    "  double ue[NBC], E[FV_CHUNK * NE];\n"
    "};\n"
    "extern \"C\" __global__ void __launch_bounds__(FB_THREADS)\n"
    "feint_form_vector(long long first, long long n, const int *list, const double *X, const double *Y, const double *Z,\n"
    "                  const int *cells, const int *dofs, const int *sdofs, const double *tab, const double *u, double sign,\n"
    "                  form_fields F, form_constants P, double *out) {\n"
    "  __shared__ form_vector_shared S;\n"
    "  for (long long t = blockIdx.x; t < n; t += gridDim.x) {\n"
    "    const long long c = list ? (long long)list[first + t] : first + t;\n"
    "    __syncthreads(); /* the previous cell's values are read */\n"
    "    if (threadIdx.x == 0) form_load_cell(c, X, Y, Z, cells, dofs, sdofs, &S.cell);\n"
    "    __syncthreads();\n"
    "    for (int i = threadIdx.x; i < NBC; i += blockDim.x) S.ue[i] = u ? u[S.cell.dofs[i]] : 0.0;\n"
    "    double acc[FV_PER];\n"
    "    for (int m = 0; m < FV_PER; m++) acc[m] = 0.0;\n"
    "    __syncthreads();\n"
    "    for (int q0 = 0; q0 < NQ; q0 += FV_CHUNK) {\n"
    "      const int nq = NQ - q0 < FV_CHUNK ? NQ - q0 : FV_CHUNK;\n"
    "      for (int j = threadIdx.x; j < nq; j += blockDim.x) {\n"
    "        double invJ[DIM * DIM], s[NS], f0[NC], f1[NC * DIM];\n"
    "        const double w = tab[q0 + j] * form_point_symbols(&S.cell, c, tab, NQ, q0 + j, u ? S.ue : (const double *)0,\n"
    "                                                          F, P, invJ, s);\n"
    "        form_f(s, P, f0, f1);\n"
    "        double *E = S.E + j * NE;\n"
    "        for (int fc = 0; fc < NC; fc++) {\n"
    "          E[fc * (1 + DIM)] = w * (sign * f0[fc]);\n"
    "          for (int d = 0; d < DIM; d++) {\n"
    "            double v = 0;\n"
    "            for (int a = 0; a < DIM; a++) v += invJ[d * DIM + a] * (sign * f1[fc * DIM + a]);\n"
    "            E[fc * (1 + DIM) + 1 + d] = w * v;\n"
    "          }\n"
    "        }\n"
    "      }\n"
    "      __syncthreads();\n"
    "      for (int m = 0; m < FV_PER; m++) {\n"
    "        const int r = threadIdx.x + m * blockDim.x, i = r / NC, fc = r % NC;\n"
    "        if (r >= NBC) break;\n"
    "        for (int j = 0; j < nq; j++) {\n"
    "          const int q = q0 + j;\n"
    "          const double *G = tab + TAB_GRAD(NQ) + (q * NB + i) * DIM, *E = S.E + j * NE + fc * (1 + DIM);\n"
    "          double v = tab[TAB_BASIS(NQ) + q * NB + i] * E[0];\n"
    "          for (int d = 0; d < DIM; d++) v += G[d] * E[1 + d];\n"
    "          acc[m] += v;\n"
    "        }\n"
    "      }\n"
    "      __syncthreads(); /* the chunk's E is read */\n"
    "    }\n"
    "    for (int m = 0; m < FV_PER; m++) {\n"
    "      const int r = threadIdx.x + m * blockDim.x;\n"
    "      if (r < NBC) atomicAdd(out + S.cell.dofs[r], acc[m]);\n"
    "    }\n"
    "  }\n"
    "}\n"
    "#else\n"
    "extern \"C\" __global__ void feint_form_vector(long long first, long long n, const int *list, const double *X,\n"
    "                                              const double *Y, const double *Z, const int *cells, const int *dofs,\n"
    "                                              const int *sdofs, const double *tab, const double *u,\n"
    "                                              double sign, form_fields F, form_constants P, double *out) {\n"
    "  const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (t >= n) return;\n"
    "  const long long c = list ? (long long)list[first + t] : first + t;\n"
    "  form_cell k;\n"
    "  form_load_cell(c, X, Y, Z, cells, dofs, sdofs, &k);\n"
    "  double ue[NBC], Fe[NBC];\n"
    "  for (int i = 0; i < NBC; i++) {\n"
    "    ue[i] = u ? u[k.dofs[i]] : 0.0;\n"
    "    Fe[i] = 0.0;\n"
    "  }\n"
    "  for (int q = 0; q < NQ; q++) {\n"
    "    const double *phi = tab + TAB_BASIS(NQ) + q * NB;\n"
    "    double gphi[NB * DIM], s[NS], f0[NC], f1[NC * DIM];\n"
    "    form_point_geometry(&k, tab, NQ, q);\n"
    "    form_gradients(&k, tab + TAB_GRAD(NQ) + q * NB * DIM, gphi);\n"
    "    form_symbols(&k, c, phi, gphi, tab + TAB_GEOM(NQ) + q * NV, u ? ue : (const double *)0, F, P, s);\n"
    "    form_f(s, P, f0, f1);\n"
    "    const double wdet = tab[q] * k.det;\n"
    "    for (int i = 0; i < NB; i++)\n"
    "      for (int fc = 0; fc < NC; fc++) {\n"
    "        double v = phi[i] * (sign * f0[fc]);\n"
    "        for (int d = 0; d < DIM; d++) v += gphi[i * DIM + d] * (sign * f1[fc * DIM + d]);\n"
    "        Fe[i * NC + fc] += wdet * v;\n"
    "      }\n"
    "  }\n"
    "  for (int i = 0; i < NBC; i++) atomicAdd(out + k.dofs[i], Fe[i]);\n"
    "}\n"
    "#endif\n"
    "\n"
    "#if FM_MODE == 1\n"
    "/* The element matrices, one thread a cell (FM_MODE 1: small matrices,\n"
    " * NBC^2 <= FEINT_FORM_MATRIX_WARP_MIN, whose array stays in L1). */\n"
    "extern \"C\" __global__ void feint_form_matrix(long long first, long long n, const int *list, const double *X,\n"
    "                                              const double *Y, const double *Z, const int *cells, const int *dofs,\n"
    "                                              const int *sdofs, const double *tab, const double *u,\n"
    "                                              form_fields F, form_constants P, const int *slots,\n"
    "                                              double *out, long long out_first, double *scratch) {\n"
    "  (void)scratch;\n"
    "  const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (t >= n) return;\n"
    "  const long long c = list ? (long long)list[first + t] : first + t;\n"
    "  form_cell k;\n"
    "  form_load_cell(c, X, Y, Z, cells, dofs, sdofs, &k);\n"
    "  double ue[NBC], Ke[NBC * NBC];\n"
    "  for (int i = 0; i < NBC; i++) ue[i] = u[k.dofs[i]];\n"
    "  for (int i = 0; i < NBC * NBC; i++) Ke[i] = 0.0;\n"
    "  for (int q = 0; q < NQM; q++) {\n"
    "    const double *phi = tab + TAB_BASIS(NQM) + q * NB;\n"
    "    double gphi[NB * DIM], s[NS];\n"
    "    double g0[NC * NC], g1[NC * NC * DIM], g2[NC * NC * DIM], g3[NC * NC * DIM * DIM];\n"
    "    form_point_geometry(&k, tab, NQM, q);\n"
    "    form_gradients(&k, tab + TAB_GRAD(NQM) + q * NB * DIM, gphi);\n"
    "    form_symbols(&k, c, phi, gphi, tab + TAB_GEOM(NQM) + q * NV, ue, F, P, s);\n"
    "    form_g(s, P, g0, g1, g2, g3);\n"
    "    const double wdet = tab[q] * k.det;\n"
    "    for (int j = 0; j < NB; j++) {\n"
    "      const double *gj = gphi + j * DIM;\n"
    "      for (int gc = 0; gc < NC; gc++) {\n"
    "        double v0[NC], v1[NC * DIM];\n"
    "        for (int i = 0; i < NC; i++) v0[i] = 0.0;\n"
    "        for (int i = 0; i < NC * DIM; i++) v1[i] = 0.0;\n"
    "        for (int fc = 0; fc < NC; fc++) {\n"
    "          const int fg = fc * NC + gc;\n"
    "          if (TERMS & 1) v0[fc] += g0[fg] * phi[j];\n"
    "          if (TERMS & 2)\n"
    "            for (int dg = 0; dg < DIM; dg++) v0[fc] += g1[fg * DIM + dg] * gj[dg];\n"
    "          if (TERMS & 4)\n"
    "            for (int df = 0; df < DIM; df++) v1[fc * DIM + df] += g2[fg * DIM + df] * phi[j];\n"
    "          if (TERMS & 8)\n"
    "            for (int df = 0; df < DIM; df++)\n"
    "              for (int dg = 0; dg < DIM; dg++) v1[fc * DIM + df] += g3[(fg * DIM + df) * DIM + dg] * gj[dg];\n"
    "        }\n"
    "        for (int i = 0; i < NB; i++) {\n"
    "          const double *gi = gphi + i * DIM;\n"
    "          for (int fc = 0; fc < NC; fc++) {\n"
    "            double v = phi[i] * v0[fc];\n"
    "            for (int df = 0; df < DIM; df++) v += gi[df] * v1[fc * DIM + df];\n"
    "            Ke[(i * NC + fc) * NBC + j * NC + gc] += wdet * v;\n"
    "          }\n"
    "        }\n"
    "      }\n"
    "    }\n"
    "  }\n"
    "  if (slots)\n"
    "    for (int i = 0; i < NBC * NBC; i++) atomicAdd(out + slots[form_entry(c, i)], Ke[i]);\n"
    "  else\n"
    "    for (int i = 0; i < NBC * NBC; i++) out[form_entry(c - out_first, i)] = Ke[i];\n"
    "}\n"
    "#elif FM_MODE == 2\n"
    "/* The element matrices, a warp per cell (FM_MODE 2; FEINT_FORM_MATRIX_CELLS cells a block):\n"
    " * per point, the basis gradients (lanes over i), the Jacobian blocks at the\n"
    " * point (lane 0: the symbols and form_g), their products with each column's\n"
    " * basis function W[(j, gc, fc)] (lanes over them), then each lane adds\n"
    " * w |J| (phi_i W0 + grad phi_i . W1) to its entries e = lane + 32 m of the\n"
    " * NBC x NBC matrix, held in registers: no per-thread matrix in local memory\n"
    " * (900 doubles for P2 elasticity), the same operations in the same order\n"
    " * as the one-thread-a-cell sums (cpu.c). */\n"
    "#define FM_PER ((NBC * NBC + 31) / 32)\n"
    "/* the entries stay in registers up to 32 a lane; past that (P3\n"
    " * elasticity: 113) in local memory, unrolled neither (compile time) */\n"
    "#if FM_PER <= 32\n"
    "#define FM_UNROLL _Pragma(\"unroll\")\n"
    "#else\n"
    "#define FM_UNROLL _Pragma(\"unroll 1\")\n"
    "#endif\n"
    "struct form_matrix_shared {\n"
    "  form_cell cell; /* lane 0's, in shared memory: no registers held across the points */\n"
    "  double ue[NBC], phi[NB], gphi[NB * DIM], wdet;\n"
    "  double g0[NC * NC], g1[NC * NC * DIM], g2[NC * NC * DIM], g3[NC * NC * DIM * DIM];\n"
    "  double W[NB * NC * NC * (1 + DIM)];\n"
    "};\n"
    "extern \"C\" __global__ void __launch_bounds__(32 * FM_CELLS)\n"
    "feint_form_matrix(long long first, long long n, const int *list, const double *X, const double *Y, const double *Z,\n"
    "                  const int *cells, const int *dofs, const int *sdofs, const double *tab, const double *u,\n"
    "                  form_fields F, form_constants P, const int *slots, double *out, long long out_first,\n"
    "                  double *scratch) {\n"
    "  (void)scratch;\n"
    "  __shared__ form_matrix_shared S_all[FM_CELLS];\n"
    "  const int lane = threadIdx.x & 31;\n"
    "  const long long t = (long long)blockIdx.x * FM_CELLS + (threadIdx.x >> 5);\n"
    "  if (t >= n) return; /* the whole warp: no barrier across warps follows */\n"
    "  const long long c = list ? (long long)list[first + t] : first + t;\n"
    "  form_matrix_shared &S = S_all[threadIdx.x >> 5];\n"
    "  if (lane == 0) form_load_cell(c, X, Y, Z, cells, dofs, sdofs, &S.cell);\n"
    "  __syncwarp();\n"
    "  for (int i = lane; i < NBC; i += 32) S.ue[i] = u[S.cell.dofs[i]];\n"
    "  double acc[FM_PER];\n"
    "FM_UNROLL\n"
    "  for (int m = 0; m < FM_PER; m++) acc[m] = 0.0;\n"
    "  __syncwarp();\n"
    "  for (int q = 0; q < NQM; q++) {\n"
    "    const double *phi = tab + TAB_BASIS(NQM) + q * NB, *G = tab + TAB_GRAD(NQM) + q * NB * DIM;\n"
    "#if !FORM_AFFINE\n"
    "    if (lane == 0) form_point_geometry(&S.cell, tab, NQM, q);\n"
    "    __syncwarp();\n"
    "#endif\n"
    "    for (int i = lane; i < NB; i += 32) {\n"
    "      S.phi[i] = phi[i];\n"
    "      for (int a = 0; a < DIM; a++) {\n"
    "        double v = 0;\n"
    "        for (int d = 0; d < DIM; d++) v += G[i * DIM + d] * S.cell.invJ[d * DIM + a];\n"
    "        S.gphi[i * DIM + a] = v;\n"
    "      }\n"
    "    }\n"
    "    __syncwarp();\n"
    "    if (lane == 0) {\n"
    "      double s[NS];\n"
    "      form_symbols(&S.cell, c, phi, S.gphi, tab + TAB_GEOM(NQM) + q * NV, S.ue, F, P, s);\n"
    "      form_g(s, P, S.g0, S.g1, S.g2, S.g3);\n"
    "      S.wdet = tab[q] * S.cell.det;\n"
    "    }\n"
    "    __syncwarp();\n"
    "    for (int m = lane; m < NB * NC * NC; m += 32) {\n"
    "      const int j = m / (NC * NC), gc = m / NC % NC, fc = m % NC, fg = fc * NC + gc;\n"
    "      const double *gj = S.gphi + j * DIM;\n"
    "      double v0 = 0.0, v1[DIM];\n"
    "      for (int df = 0; df < DIM; df++) v1[df] = 0.0;\n"
    "      if (TERMS & 1) v0 += S.g0[fg] * S.phi[j];\n"
    "      if (TERMS & 2)\n"
    "        for (int dg = 0; dg < DIM; dg++) v0 += S.g1[fg * DIM + dg] * gj[dg];\n"
    "      if (TERMS & 4)\n"
    "        for (int df = 0; df < DIM; df++) v1[df] += S.g2[fg * DIM + df] * S.phi[j];\n"
    "      if (TERMS & 8)\n"
    "        for (int df = 0; df < DIM; df++)\n"
    "          for (int dg = 0; dg < DIM; dg++) v1[df] += S.g3[(fg * DIM + df) * DIM + dg] * gj[dg];\n"
    "      double *Wm = S.W + m * (1 + DIM);\n"
    "      Wm[0] = v0;\n"
    "      for (int df = 0; df < DIM; df++) Wm[1 + df] = v1[df];\n"
    "    }\n"
    "    __syncwarp();\n"
    "    const double wdet = S.wdet;\n"
    "FM_UNROLL\n"
    "    for (int m = 0; m < FM_PER; m++) {\n"
    "      const int e = lane + 32 * m;\n"
    "      if (e < NBC * NBC) {\n"
    "        const int r = e / NBC, col = e % NBC, i = r / NC, fc = r % NC, j = col / NC, gc = col % NC;\n"
    "        const double *Wm = S.W + ((j * NC + gc) * NC + fc) * (1 + DIM), *gi = S.gphi + i * DIM;\n"
    "        double v = S.phi[i] * Wm[0];\n"
    "        for (int df = 0; df < DIM; df++) v += gi[df] * Wm[1 + df];\n"
    "        acc[m] += wdet * v;\n"
    "      }\n"
    "    }\n"
    "    __syncwarp(); /* the point's shared values are rewritten by the next */\n"
    "  }\n"
    "FM_UNROLL\n"
    "  for (int m = 0; m < FM_PER; m++) {\n"
    "    const int e = lane + 32 * m;\n"
    "    if (e >= NBC * NBC) break;\n"
    "    if (slots)\n"
    "      atomicAdd(out + slots[form_entry(c, e)], acc[m]);\n"
    "    else\n"
    "      out[form_entry(c - out_first, e)] = acc[m];\n"
    "  }\n"
    "}\n"
    "#else\n"
    "/* The element matrices, a block of FB_THREADS a cell (FM_MODE 3: cells\n"
    " * of many dofs or many points), in two steps:\n"
    " * 1. a thread a point: J there, the symbols, form_g, and the point's\n"
    " *    block D (ND x ND: rows (fc, a), columns (gc, b), a and b 0 for the\n"
    " *    value, 1 + d for reference derivative d), the Jacobian blocks\n"
    " *    pulled back to the reference cell times w |det J|;\n"
    " * 2. a thread an entry ((i, fc), (j, gc)): the sum over the points of\n"
    " *    B_i^T D B_j, B = (phi, reference gradient) of the rule's table.\n"
    " * Every point is evaluated once and in parallel (the warp kernel's lane 0\n"
    " * evaluates them in turn), and the matrix needs no registers of its own.\n"
    " * D lies in shared memory where it fits (FB_D_SHARED), else in scratch,\n"
    " * NQM ND^2 doubles a block; a block takes cells blockIdx.x + k gridDim.x.\n"
    " * Its sums are the one-thread kernel's in another association (the\n"
    " * pull-back first): round-off apart from the cpu backend's. */\n"
    "#define ND (NC * (1 + DIM))\n"
    "struct form_block_shared {\n"
    "  form_cell cell;\n"
    "  double ue[NBC];\n"
    "#if FB_D_SHARED\n"
    "  double D[NQM * ND * ND];\n"
    "#endif\n"
    "};\n"
    "/* Step 1 at point q: D, ND x ND. */\n"
    "__device__ __forceinline__ void form_block_point(const form_cell *k, long long c, const double *tab, int q,\n"
    "                                                 const double *ue, const form_fields &F, const form_constants &P,\n"
    "                                                 double *D) {\n"
    "  double invJ[DIM * DIM], s[NS], g0[NC * NC], g1[NC * NC * DIM], g2[NC * NC * DIM], g3[NC * NC * DIM * DIM];\n"
    "  const double det = form_point_symbols(k, c, tab, NQM, q, ue, F, P, invJ, s);\n"
    "  form_g(s, P, g0, g1, g2, g3);\n"
    "  const double w = tab[q] * det;\n"
    "  for (int fc = 0; fc < NC; fc++)\n"
    "    for (int gc = 0; gc < NC; gc++) {\n"
    "      const int fg = fc * NC + gc;\n"
    "      double *Db = D + fc * (1 + DIM) * ND + gc * (1 + DIM);\n"
    "      Db[0] = (TERMS & 1) ? w * g0[fg] : 0.0;\n"
    "      for (int d = 0; d < DIM; d++) {\n"
    "        double v1 = 0, v2 = 0;\n"
    "        for (int e = 0; e < DIM; e++) {\n"
    "          if (TERMS & 2) v1 += g1[fg * DIM + e] * invJ[d * DIM + e];\n"
    "          if (TERMS & 4) v2 += g2[fg * DIM + e] * invJ[d * DIM + e];\n"
    "        }\n"
    "        Db[1 + d] = w * v1;\n"
    "        Db[(1 + d) * ND] = w * v2;\n"
    "      }\n"
    "      for (int d1 = 0; d1 < DIM; d1++)\n"
    "        for (int d2 = 0; d2 < DIM; d2++) {\n"
    "          double v = 0;\n"
    "          if (TERMS & 8)\n"
    "            for (int df = 0; df < DIM; df++) {\n"
    "              double r = 0;\n"
    "              for (int dg = 0; dg < DIM; dg++) r += g3[(fg * DIM + df) * DIM + dg] * invJ[d2 * DIM + dg];\n"
    "              v += invJ[d1 * DIM + df] * r;\n"
    "            }\n"
    "          Db[(1 + d1) * ND + 1 + d2] = w * v;\n"
    "        }\n"
    "    }\n"
    "}\n"
    "/* Step 2: entry e of the element matrix. */\n"
    "__device__ __forceinline__ double form_block_entry(int e, const double *tab, const double *D) {\n"
    "  const int r = e / NBC, col = e % NBC, i = r / NC, fc = r % NC, j = col / NC, gc = col % NC;\n"
    "  double acc = 0;\n"
    "  for (int q = 0; q < NQM; q++) {\n"
    "    const double *phi = tab + TAB_BASIS(NQM) + q * NB, *G = tab + TAB_GRAD(NQM) + q * NB * DIM;\n"
    "    double bi[1 + DIM], bj[1 + DIM];\n"
    "    bi[0] = phi[i];\n"
    "    bj[0] = phi[j];\n"
    "    for (int d = 0; d < DIM; d++) {\n"
    "      bi[1 + d] = G[i * DIM + d];\n"
    "      bj[1 + d] = G[j * DIM + d];\n"
    "    }\n"
    "    const double *Db = D + q * (ND * ND) + fc * (1 + DIM) * ND + gc * (1 + DIM);\n"
    "    for (int a = 0; a <= DIM; a++) {\n"
    "      double v = 0;\n"
    "      for (int b = 0; b <= DIM; b++) v += Db[a * ND + b] * bj[b];\n"
    "      acc += bi[a] * v;\n"
    "    }\n"
    "  }\n"
    "  return acc;\n"
    "}\n"
    "extern \"C\" __global__ void __launch_bounds__(FB_THREADS)\n"
    "feint_form_matrix(long long first, long long n, const int *list, const double *X, const double *Y, const double *Z,\n"
    "                  const int *cells, const int *dofs, const int *sdofs, const double *tab, const double *u,\n"
    "                  form_fields F, form_constants P, const int *slots, double *out, long long out_first,\n"
    "                  double *scratch) {\n"
    "  __shared__ form_block_shared S;\n"
    "#if FB_D_SHARED\n"
    "  double *D = S.D;\n"
    "  (void)scratch;\n"
    "#else\n"
    "  double *D = scratch + (long long)blockIdx.x * (NQM * ND * ND);\n"
    "#endif\n"
    "  for (long long t = blockIdx.x; t < n; t += gridDim.x) {\n"
    "    const long long c = list ? (long long)list[first + t] : first + t;\n"
    "    __syncthreads(); /* the previous cell's D and ue are read */\n"
    "    if (threadIdx.x == 0) form_load_cell(c, X, Y, Z, cells, dofs, sdofs, &S.cell);\n"
    "    __syncthreads();\n"
    "    for (int i = threadIdx.x; i < NBC; i += blockDim.x) S.ue[i] = u[S.cell.dofs[i]];\n"
    "    __syncthreads();\n"
    "    for (int q = threadIdx.x; q < NQM; q += blockDim.x) form_block_point(&S.cell, c, tab, q, S.ue, F, P, D + q * (ND * ND));\n"
    "    __syncthreads();\n"
    "    for (int e = threadIdx.x; e < NBC * NBC; e += blockDim.x) {\n"
    "      const double v = form_block_entry(e, tab, D);\n"
    "      if (slots)\n"
    "        atomicAdd(out + slots[form_entry(c, e)], v);\n"
    "      else\n"
    "        out[form_entry(c - out_first, e)] = v;\n"
    "    }\n"
    "  }\n"
    "}\n"
    "#endif\n";

/* A growing string. */
typedef struct {
  char *s;
  size_t len, cap;
  int status;
} text;

static void add(text *t, const char *fmt, ...) {
  if (t->status) return;
  va_list ap;
  va_start(ap, fmt);
  char small[256];
  const int n = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (n < 0) {
    t->status = feint_error_set(FEINT_ERR_COMPUTE, "generating the form's CUDA code: bad format");
    return;
  }
  if (t->len + (size_t)n + 1 > t->cap) {
    size_t cap = t->cap ? t->cap : 4096;
    while (t->len + (size_t)n + 1 > cap) cap *= 2;
    char *s = realloc(t->s, cap);
    if (!s) {
      t->status = feint_error_set(FEINT_ERR_COMPUTE, "out of memory generating the form's CUDA code (%zu bytes)", cap);
      return;
    }
    t->s = s;
    t->cap = cap;
  }
  if ((size_t)n < sizeof small) {
    memcpy(t->s + t->len, small, (size_t)n + 1);
  } else {
    va_start(ap, fmt);
    vsnprintf(t->s + t->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
  }
  t->len += (size_t)n;
}

/* "lhs = <e>;" with a #line naming the case key it came from, so that
 * NVRTC's log points at that key (jit.h); NULL: 0. */
static void add_expr(text *t, const feint_expr *e, const char *const *symbols, const char *lhs, const char *key) {
  if (!e) {
    add(t, "  %s = 0.0;\n", lhs);
    return;
  }
  size_t n = 0;
  if (!t->status) t->status = feint_expr_emit_c(e, symbols, NULL, 0, &n);
  char *c = NULL;
  if (!t->status) t->status = feint_malloc(n + 1, 1, &c, "an expression's C");
  if (!t->status) t->status = feint_expr_emit_c(e, symbols, c, n + 1, NULL);
  add(t, "#line 1 \"physics.%s\"\n  %s = %s;\n", key, lhs, c ? c : "");
  free(c);
}

int feint_form_cuda_classes(const feint_space *s) {
  return s->mesh->n_geometry_nodes ? 2 * s->mesh->n_blocks : s->mesh->n_blocks;
}

int feint_form_cuda_class_block(const feint_space *s, int k) { return s->mesh->n_geometry_nodes ? k / 2 : k; }

/* The odd classes of a curved mesh: a block's affine cells. */
static int straight_class(const feint_space *s, int k) { return s->mesh->n_geometry_nodes && k % 2; }

feint_form_cuda_layout feint_form_cuda_layout_block(const feint_form *f, const feint_space *s, int k) {
  const feint_mesh *m = s->mesh;
  const int mixed = f->n_blocks > 0, straight = straight_class(s, k), b = feint_form_cuda_class_block(s, k);
  const feint_quadrature *vq = straight ? f->straight_rule[b].quadrature
                               : mixed  ? f->block_rule[b].quadrature
                                        : f->quadrature;
  const feint_quadrature *mq = straight ? f->straight_matrix_rule[b].quadrature
                               : mixed  ? f->block_matrix_rule[b].quadrature
                                        : f->matrix_quadrature;
  const int curved = m->n_geometry_nodes > 0 && !straight;
  feint_form_cuda_layout L = {f->dim,
                              f->nc,
                              s->n_blocks > 1 ? s->blocks[b].nb : s->nb,
                              curved ? m->blocks[b].n_geometry_nodes : m->n_blocks > 1 ? m->blocks[b].nv : m->nv,
                              vq->n,
                              mq ? mq->n : vq->n,
                              f->n_aux,
                              f->aux,
                              feint_cell_is_simplex(m->blocks[b].cell_type) && !curved,
                              s->components_interleaved,
                              FEINT_FORM_MATRIX_AUTO,
                              curved ? m->n_geometry_nodes : m->nv,
                              s->nb,
                              curved};
  return L;
}

feint_form_cuda_layout feint_form_cuda_layout_of(const feint_form *f, const feint_space *s) {
  return feint_form_cuda_layout_block(f, s, 0);
}

/* The warp matrix kernel's shared memory a cell: form_matrix_shared of
 * the template, with a double's worth of padding per array. */
static size_t warp_shared_bytes(const feint_form_cuda_layout *L) {
  const size_t nbc = (size_t)(L->nb * L->nc), nb = (size_t)L->nb, d = (size_t)L->dim, nn = (size_t)(L->nc * L->nc);
  const size_t cell = 8 * ((size_t)L->nv * 3 + d * d + 1) + 4 * (nbc + nb) + 16;
  const size_t doubles = nbc + nb + nb * d + 1 + nn * (1 + 2 * d + d * d) + nb * nn * (1 + d);
  return cell + 8 * doubles + 8 * 10;
}

static int warp_fits(const feint_form_cuda_layout *L) {
  return L->nb * L->nc <= 128 && FEINT_FORM_MATRIX_CELLS * warp_shared_bytes(L) <= 48 * 1024;
}

/* The block matrix kernel's shared memory besides its points' blocks
 * (form_block_shared: the cell and its values), and with them. */
static size_t block_cell_bytes(const feint_form_cuda_layout *L) {
  const size_t nbc = (size_t)(L->nb * L->nc), d = (size_t)L->dim;
  return 8 * ((size_t)L->nv * 3 + d * d + 1) + 4 * (nbc + (size_t)L->nb) + 16 + 8 * nbc;
}
static size_t block_d_doubles(const feint_form_cuda_layout *L) {
  const size_t nd = (size_t)(L->nc * (1 + L->dim));
  return (size_t)L->nq_matrix * nd * nd;
}
static int block_d_shared(const feint_form_cuda_layout *L) {
  return block_cell_bytes(L) + 8 * block_d_doubles(L) <= 48 * 1024;
}

/* The points of a chunk of the block vector kernel: as many as fit in
 * 48 KiB of shared memory beside the cell and its values, at most the rule's. */
static int vector_chunk(const feint_form_cuda_layout *L) {
  const size_t per_point = 8 * (size_t)(L->nc * (1 + L->dim));
  const size_t fit = (48 * 1024 - block_cell_bytes(L)) / per_point;
  return fit < (size_t)L->nq ? (int)fit : L->nq;
}

int feint_form_cuda_vector_block(const feint_form_cuda_layout *L) { return L->nb > 32; }

int feint_form_cuda_matrix_kernel(const feint_form_cuda_layout *L) {
  if (L->matrix_kernel != FEINT_FORM_MATRIX_AUTO) return L->matrix_kernel;
  const int nbc = L->nb * L->nc;
  if (nbc * nbc <= FEINT_FORM_MATRIX_WARP_MIN) return FEINT_FORM_MATRIX_THREAD;
  if (L->affine && warp_fits(L)) return FEINT_FORM_MATRIX_WARP;
  return FEINT_FORM_MATRIX_BLOCK;
}

size_t feint_form_cuda_matrix_scratch(const feint_form_cuda_layout *L) {
  return feint_form_cuda_matrix_kernel(L) == FEINT_FORM_MATRIX_BLOCK && !block_d_shared(L) ? block_d_doubles(L) : 0;
}

int feint_form_cuda_fits(const feint_form_cuda_layout *L, char *why, size_t size) {
  const int nbc = L->nb * L->nc;
  if (nbc > FEINT_FORM_CUDA_MAX_NBC) {
    snprintf(why, size, "the user-form kernels take up to %d local dofs a cell, not %d", FEINT_FORM_CUDA_MAX_NBC, nbc);
    return 0;
  }
  const int kernel = feint_form_cuda_matrix_kernel(L);
  if (kernel == FEINT_FORM_MATRIX_THREAD && nbc > 128) {
    snprintf(why, size, "the thread-a-cell matrix kernel takes up to 128 dofs a cell, not %d", nbc);
    return 0;
  }
  if (kernel == FEINT_FORM_MATRIX_WARP && !warp_fits(L)) {
    snprintf(why, size,
             "the warp-a-cell matrix kernel takes up to 128 dofs a cell and 48 KiB of shared memory, not %d dofs "
             "and %zu bytes",
             nbc, FEINT_FORM_MATRIX_CELLS * warp_shared_bytes(L));
    return 0;
  }
  return 1;
}

int feint_form_cuda_constants_count(const feint_user_form *uf, int n_aux) {
  const int n = uf->n_parameters + n_aux;
  return n > 0 ? n : 1;
}

void feint_form_cuda_constants(const feint_user_form *uf, const feint_field *aux, int n_aux, double *out) {
  const int n = feint_form_cuda_constants_count(uf, n_aux);
  for (int k = 0; k < n; k++) out[k] = 0;
  for (int k = 0; k < uf->n_parameters; k++) out[k] = uf->parameters[k];
  for (int k = 0; k < n_aux; k++)
    if (aux[k].kind == FEINT_FIELD_CONSTANT) out[uf->n_parameters + k] = aux[k].constant;
}

size_t feint_form_cuda_table_size(int nq, int nb, int dim, int nv, int affine) {
  return (size_t)nq * (size_t)(1 + nb + nb * dim + nv + (affine ? 0 : nv * dim));
}

void feint_form_cuda_table(const feint_quadrature *q, const double *basis, const double *basis_grad,
                           const double *geometry_value, const double *geometry_grad, int nb, int dim, int nv,
                           double *tab) {
  const size_t nq = (size_t)q->n;
  memcpy(tab, q->weights, sizeof(double) * nq);
  memcpy(tab + nq, basis, sizeof(double) * nq * (size_t)nb);
  memcpy(tab + nq + nq * (size_t)nb, basis_grad, sizeof(double) * nq * (size_t)(nb * dim));
  memcpy(tab + nq + nq * (size_t)(nb + nb * dim), geometry_value, sizeof(double) * nq * (size_t)nv);
  if (geometry_grad)
    memcpy(tab + nq + nq * (size_t)(nb + nb * dim + nv), geometry_grad, sizeof(double) * nq * (size_t)(nv * dim));
}

int feint_form_cuda_block_rule_table(const feint_form *f, const feint_space *s, int b, int matrix, double **out,
                                     size_t *n) {
  *out = NULL;
  feint_form_rule own_rule = {0, NULL, NULL, NULL, NULL, NULL}; /* a single-shape form's fields as a rule */
  const feint_form_rule *r = &own_rule;
  const feint_form_cuda_layout L = feint_form_cuda_layout_block(f, s, b);
  const int straight = straight_class(s, b);
  b = feint_form_cuda_class_block(s, b);
  if (straight) {
    r = matrix ? &f->straight_matrix_rule[b] : &f->straight_rule[b];
  } else if (f->n_blocks) {
    r = matrix ? &f->block_matrix_rule[b] : &f->block_rule[b];
  } else if (matrix && f->matrix_quadrature) {
    own_rule = (feint_form_rule){0, f->matrix_quadrature, f->matrix_basis, f->matrix_basis_grad,
                                 f->matrix_geometry_grad, f->matrix_geometry_value};
  } else {
    own_rule = (feint_form_rule){0, f->quadrature, f->basis, f->basis_grad, f->geometry_grad, f->geometry_value};
  }
  const feint_quadrature *q = r->quadrature;
  const double *basis = r->basis, *grad = r->basis_grad;
  const feint_element *element = s->n_blocks > 1 ? s->blocks[b].element : s->element;
  const int nb = L.nb, dim = f->dim, nv = L.nv, nq = q->n, affine = L.affine;
  if (!r->geometry_value || (!affine && !r->geometry_grad) || (!element && !basis))
    return feint_error_set(FEINT_ERR_COMPUTE, "internal: the user form's %s rule lacks a geometry table",
                           matrix ? "matrix" : "vector");
  double *own = NULL; /* tensor-product cells: the basis at the rule's points */
  if (!basis) {
    FEINT_CALL(feint_malloc((size_t)nq * (size_t)(nb + nb * dim), sizeof(double), &own, "form tables"));
    feint_element_tabulate(element, nq, q->points, own, own + (size_t)nq * (size_t)nb);
    basis = own;
    grad = own + (size_t)nq * (size_t)nb;
  }
  *n = feint_form_cuda_table_size(nq, nb, dim, nv, affine);
  int status = feint_malloc(*n, sizeof(double), out, "form tables");
  if (!status) feint_form_cuda_table(q, basis, grad, r->geometry_value, affine ? NULL : r->geometry_grad, nb, dim, nv, *out);
  free(own);
  return status;
}

int feint_form_cuda_rule_table(const feint_form *f, const feint_space *s, int matrix, double **out, size_t *n) {
  return feint_form_cuda_block_rule_table(f, s, 0, matrix, out, n);
}

/* The symbols as the kernels name them: s[i], the parameters P.v[k]. */
static int symbol_names(const feint_user_form *uf, char ***out) {
  char **names = NULL;
  FEINT_CALL(feint_calloc((size_t)uf->n_symbols + 1, sizeof *names, &names, "symbol names"));
  const int par = feint_user_form_parameter_symbol(uf);
  int status = FEINT_OK;
  for (int i = 0; i < uf->n_symbols && !status; i++) {
    char name[32];
    if (i < par)
      snprintf(name, sizeof name, "s[%d]", i);
    else
      snprintf(name, sizeof name, "P.v[%d]", i - par);
    status = feint_strdup(name, &names[i]);
  }
  if (status) {
    for (int i = 0; i < uf->n_symbols; i++) free(names[i]);
    free(names);
    return status;
  }
  *out = names;
  return FEINT_OK;
}

/* The case key of f0[fc] or f1[fc][d] (d >= 0). */
static void residual_key(int nc, int fc, int d, char *key, size_t size) {
  if (d < 0)
    snprintf(key, size, nc == 1 ? "f0" : "f0[%d]", fc);
  else if (nc == 1)
    snprintf(key, size, "f1[%d]", d);
  else
    snprintf(key, size, "f1[%d][%d]", fc, d);
}

/* The form's pointwise functions, form_f (the residual's terms) and
 * form_g (the Jacobian's blocks), after the defines and the struct of n
 * constants they read (the symbols' names: symbol_names). */
static void add_pointwise(text *t, const feint_user_form *uf, int dim, int nc, int n_constants,
                          const char *const *names) {
  const int nn = nc * nc;
  add(t, "#define DIM %d\n#define NC %d\n#define NS %d\n#define NP %d\n#define TERMS %d\n", dim, nc, uf->n_symbols,
      uf->n_parameters, uf->terms);
  add(t, "struct form_constants { double v[%d]; };\n", n_constants);
  add(t, "__device__ __forceinline__ void form_f(const double *s, const form_constants &P, double *f0, double *f1) {\n");
  for (int fc = 0; fc < nc; fc++) {
    char lhs[32], key[32];
    snprintf(lhs, sizeof lhs, "f0[%d]", fc);
    residual_key(nc, fc, -1, key, sizeof key);
    add_expr(t, uf->f0[fc], names, lhs, key);
    for (int d = 0; d < dim; d++) {
      snprintf(lhs, sizeof lhs, "f1[%d]", fc * dim + d);
      residual_key(nc, fc, d, key, sizeof key);
      add_expr(t, uf->f1[fc * dim + d], names, lhs, key);
    }
  }
  add(t, "  (void)s; (void)P;\n}\n");
  /* the Jacobian blocks, each entry named by its block (derived ones by
   * the residual term they come from: userform.c's names) */
  add(t,
      "__device__ __forceinline__ void form_g(const double *s, const form_constants &P, double *g0, double *g1,\n"
      "                                       double *g2, double *g3) {\n");
  feint_expr *const *blocks[4] = {uf->g0, uf->g1, uf->g2, uf->g3};
  const int sizes[4] = {nn, nn * dim, nn * dim, nn * dim * dim};
  for (int b = 0; b < 4; b++) {
    if (!(uf->terms & (1 << b))) continue;
    for (int k = 0; k < sizes[b]; k++) {
      char lhs[32], key[32];
      snprintf(lhs, sizeof lhs, "g%d[%d]", b, k);
      snprintf(key, sizeof key, nc == 1 && b == 0 ? "g0" : "g%d[%d]", b, k);
      add_expr(t, blocks[b][k], names, lhs, key);
    }
  }
  add(t, "  (void)s; (void)P; (void)g0; (void)g1; (void)g2; (void)g3;\n}\n");
}

static void free_names(const feint_user_form *uf, char **sym) {
  for (int i = 0; i < uf->n_symbols; i++) free(sym[i]);
  free(sym);
}

int feint_form_cuda_source(const feint_user_form *uf, const feint_form_cuda_layout *L, char **out) {
  *out = NULL;
  char **sym = NULL;
  FEINT_CALL(symbol_names(uf, &sym));
  const char *const *names = (const char *const *)sym;
  text t = {0};
  add(&t, "/* feint: a user form's kernels (physics kind form), generated; see form_source.h */\n");
  /* FM_MODE predefined: the host harness of tests/cli runs the thread-
   * and the block-a-cell matrix kernels */
  add(&t, "#define FM_CELLS %d\n#ifndef FM_MODE\n#define FM_MODE %d\n#endif\n", FEINT_FORM_MATRIX_CELLS,
      feint_form_cuda_matrix_kernel(L));
  add(&t, "#define FB_THREADS %d\n#define FB_D_SHARED %d\n#define FV_BLOCK %d\n#define FV_CHUNK %d\n",
      FEINT_FORM_MATRIX_BLOCK_THREADS, block_d_shared(L), feint_form_cuda_vector_block(L), vector_chunk(L));
  add(&t, "#define NB %d\n#define NV %d\n#define NQ %d\n#define NQM %d\n#define NK %d\n#define FORM_AFFINE %d\n", L->nb,
      L->nv, L->nq, L->nq_matrix, L->n_aux, L->affine);
  add(&t, "#define FORM_INTERLEAVED %d\n#define FORM_CURVED %d\n", L->interleaved, L->curved);
  add(&t, "#define NVW %d\n#define NBW %d\n", L->nv_stride > 0 ? L->nv_stride : L->nv,
      L->nb_stride > 0 ? L->nb_stride : L->nb);
  /* the symbols that are gradients (u's, the nodal coefficients'): the
   * block matrix kernel evaluates them on the reference cell, then maps */
  add(&t, "#define FORM_GRADIENT_SLOTS");
  for (int fc = 0; fc < L->nc; fc++) add(&t, "%s %d", fc ? "," : "", FEINT_FORM_SYM_U + 4 * fc + 1);
  for (int k = 0; k < L->n_aux; k++)
    if (L->aux[k].kind == FEINT_FIELD_NODE || L->aux[k].kind == FEINT_FIELD_CELL_NODE)
      add(&t, ", %d", feint_user_form_coefficient_symbol(uf, k) + 1);
  add(&t, "\n");
  add_pointwise(&t, uf, L->dim, L->nc, feint_form_cuda_constants_count(uf, L->n_aux), names);
  add(&t, "struct form_fields { const double *v[%d]; };\n", L->n_aux > 0 ? L->n_aux : 1);
  add(&t, "struct form_cell;\n");
  /* the coefficients: each one's kind decides its code; its values are arguments */
  add(&t,
      "__device__ __forceinline__ void form_coefficients_at(long long c, const int *sd, const double *phi,\n"
      "    const double *gphi, const form_fields &F, const form_constants &P, double *s) {\n");
  for (int k = 0; k < L->n_aux; k++) {
    const int at = feint_user_form_coefficient_symbol(uf, k);
    if (L->aux[k].kind == FEINT_FIELD_CONSTANT) {
      add(&t, "  s[%d] = P.v[%d];\n", at, uf->n_parameters + k);
    } else if (L->aux[k].kind == FEINT_FIELD_CELL) {
      add(&t, "  s[%d] = F.v[%d][c];\n", at, k);
    } else { /* nodal: at the scalar dofs; per cell's nodes (a value per group): NB a cell */
      const char *at_node = L->aux[k].kind == FEINT_FIELD_NODE ? "f[sd[i]]" : "f[c * NBW + i]";
      add(&t, "  {\n    const double *f = F.v[%d];\n    double v = 0;\n", k);
      add(&t, "    for (int i = 0; i < NB; i++) v += phi[i] * %s;\n    s[%d] = v;\n", at_node, at);
      if (uf->reads[at + 1] | uf->reads[at + 2] | uf->reads[at + 3])
        add(&t,
            "    for (int i = 0; i < NB; i++)\n"
            "      for (int d = 0; d < DIM; d++) s[%d + d] += gphi[i * DIM + d] * %s;\n",
            at + 1, at_node);
      add(&t, "  }\n");
    }
  }
  add(&t, "}\n");
  add(&t, "#line 1 \"feint_form_kernels\"\n");
  free_names(uf, sym);
  if (t.status) {
    free(t.s);
    return t.status;
  }
  /* the template: form_cell first, then form_coefficients (which reads
   * the cell, so after its type is complete), then the rest */
  const char *split = strstr(template_kernels, "__device__ __forceinline__ void form_load_cell");
  const size_t head = (size_t)(split - template_kernels);
  text u = t;
  add(&u, "%.*s", (int)head, template_kernels);
  add(&u, "%s",
      "__device__ __forceinline__ void form_coefficients(const form_cell *k, long long c, const double *phi,\n"
      "    const double *gphi, const form_fields &F, const form_constants &P, double *s) {\n"
      "  form_coefficients_at(c, k->sd, phi, gphi, F, P, s);\n"
      "}\n");
  add(&u, "%s", split);
  if (u.status) {
    free(u.s);
    return u.status;
  }
  *out = u.s;
  return FEINT_OK;
}

/* "form_nz(b, k)": whether entry k of Jacobian block g<b> can be other
 * than zero (an expression, not the literal 0 the generator writes for a
 * NULL one), as a constexpr function, so that the P1 matrix kernels keep
 * and sum only those: `+= w * 0.0` is not foldable in IEEE arithmetic,
 * and elasticity's 81 g3 sums held every register. */
static void add_nonzero_mask(text *t, const feint_user_form *uf, int dim, int nc) {
  const int nn = nc * nc;
  feint_expr *const *blocks[4] = {uf->g0, uf->g1, uf->g2, uf->g3};
  const int sizes[4] = {nn, nn * dim, nn * dim, nn * dim * dim};
  add(t, "__host__ __device__ constexpr bool form_nz(int b, int k) {\n  return false");
  for (int b = 0; b < 4; b++) {
    if (!(uf->terms & (1 << b))) continue;
    unsigned long long m[2] = {0, 0};
    for (int k = 0; k < sizes[b] && k < 128; k++)
      if (blocks[b][k]) m[k >> 6] |= 1ull << (k & 63);
    add(t, "\n      || (b == %d && ((k < 64 ? 0x%llxull >> k : 0x%llxull >> (k - 64)) & 1))", b, m[0], m[1]);
  }
  add(t, ";\n}\n");
}

/* Whether e (NULL: 0) is affine in the symbols marked in varying: its
 * exact derivative in each of them reads none of them (*affine = 0 where
 * the simplified derivative still names one: the cautious answer). */
static int affine_in(const feint_expr *e, const unsigned char *varying, int n, int *affine) {
  for (int v = 0; e && *affine && v < n; v++) {
    if (!varying[v] || !feint_expr_uses(e, v)) continue;
    feint_expr *d = NULL;
    FEINT_CALL(feint_expr_derivative(e, v, &d));
    for (int w = 0; w < n && *affine; w++)
      if (varying[w] && feint_expr_uses(d, w)) *affine = 0;
    feint_expr_destroy(d);
  }
  return FEINT_OK;
}

int feint_form_cuda_p1_affine(const feint_user_form *uf, const feint_form_cuda_layout *L, int *f0_affine,
                              int *f1_affine) {
  unsigned char *varying = NULL;
  FEINT_CALL(feint_calloc((size_t)uf->n_symbols, 1, &varying, "the form's symbols"));
  for (int a = 0; a < 3; a++) varying[FEINT_FORM_SYM_X + a] = 1;
  for (int fc = 0; fc < L->nc; fc++) varying[FEINT_FORM_SYM_U + 4 * fc] = 1;
  for (int k = 0; k < L->n_aux; k++)
    if (L->aux[k].kind == FEINT_FIELD_NODE || L->aux[k].kind == FEINT_FIELD_CELL_NODE)
      varying[feint_user_form_coefficient_symbol(uf, k)] = 1;
  *f0_affine = *f1_affine = 1;
  int status = FEINT_OK;
  for (int fc = 0; fc < L->nc && !status; fc++) {
    status = affine_in(uf->f0[fc], varying, uf->n_symbols, f0_affine);
    for (int d = 0; d < L->dim && !status; d++)
      status = affine_in(uf->f1[fc * L->dim + d], varying, uf->n_symbols, f1_affine);
  }
  free(varying);
  return status;
}

int feint_form_cuda_p1_source(const feint_user_form *uf, const feint_form_cuda_layout *L, int single, int minb,
                              const feint_form_p1_lean *lean, char **out) {
  *out = NULL;
  int f0_affine = 0, f1_affine = 0;
  FEINT_CALL(feint_form_cuda_p1_affine(uf, L, &f0_affine, &f1_affine));
  char **sym = NULL;
  FEINT_CALL(symbol_names(uf, &sym));
  text t = {0};
  add(&t, "/* feint: a user form in the P1 kernel templates (p1_form.cuh), generated; see form_source.h */\n");
  /* the templates first: their parameters are named as the head's macros */
  add(&t, "#include \"backend/cuda/p1.cuh\"\n");
  if (lean && lean->on) add(&t, "#include \"backend/cuda/p1_lean.cuh\"\n");
  add(&t, "#define FEINT_S %s\n#define NAUX %d\n", single ? "float" : "double", L->n_aux > 0 ? L->n_aux : 1);
  if (minb > 0) add(&t, "#define FORM_VECTOR_MINB %d\n", minb);
  add(&t, "#define FORM_NQ %d\n#define FORM_NQ_MATRIX %d\n", L->nq, L->nq_matrix);
  add(&t, "#define FORM_F0_AFFINE %d\n#define FORM_F1_AFFINE %d\n", f0_affine, f1_affine);
  /* the coefficients' kinds as constants: each one's code is its kind's only */
  int wa = -1;
  add(&t, "__host__ __device__ constexpr int form_aux_kind(int k) {\n  return");
  for (int k = 0; k < L->n_aux; k++) {
    add(&t, " k == %d ? %d :", k, (int)L->aux[k].kind);
    if (wa < 0 && L->aux[k].kind == FEINT_FIELD_NODE) wa = k;
  }
  int cell_nodes = 0;
  for (int k = 0; k < L->n_aux; k++) cell_nodes |= L->aux[k].kind == FEINT_FIELD_CELL_NODE;
  add(&t, " %d;\n}\n#define FORM_WA %d\n#define FORM_CELL_NODES %d\n", (int)FEINT_FIELD_CONSTANT, wa, cell_nodes);
  if (lean && lean->on) {
    add(&t, "#define FORM_LEAN_GATHER %d\n#define FORM_LEAN_RW %d\n#define FORM_LEAN_MINB %d\n", lean->gather,
        lean->rw, lean->minb);
    if (lean->pipe) add(&t, "#define FORM_LEAN_PIPE 1\n");
  }
  add_pointwise(&t, uf, L->dim, L->nc, uf->n_parameters > 0 ? uf->n_parameters : 1, (const char *const *)sym);
  free_names(uf, sym);
  add_nonzero_mask(&t, uf, L->dim, L->nc);
  /* the coefficients' values a[k] and gradients ga[k DIM + d] into their symbols */
  add(&t, "__device__ __forceinline__ void form_set_coefficients(const double *a, const double *ga, double *s) {\n");
  for (int k = 0; k < L->n_aux; k++) {
    const int at = feint_user_form_coefficient_symbol(uf, k);
    add(&t, "  s[%d] = a[%d];\n", at, k);
    for (int d = 0; d < L->dim; d++)
      if (uf->reads[at + 1 + d]) add(&t, "  s[%d] = ga[%d];\n", at + 1 + d, k * L->dim + d);
  }
  add(&t, "  (void)a; (void)ga; (void)s;\n}\n");
  add(&t, "#line 1 \"feint_p1_form_kernels\"\n#include \"backend/cuda/p1_form.cuh\"\n");
  if (t.status) {
    free(t.s);
    return t.status;
  }
  *out = t.s;
  return FEINT_OK;
}
