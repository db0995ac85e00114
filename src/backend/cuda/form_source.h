/* The CUDA source of a user form (physics kind form, issue 19) for the
 * cuda kind's run-time compiled family "form-jit": the form's pointwise
 * expressions (f0, f1 and the Jacobian blocks g0..g3, feint/userform.h)
 * as C (feint_expr_emit_c) spliced into one kernel template, compiled by
 * NVRTC (jit.h) and cached on disk by a hash of the source.
 *
 * Plain C, in every build: the source depends only on the form's layout
 * (dimension, components, basis functions, quadrature points, the kinds of
 * its coefficient fields) and on its expressions, never on values: the
 * parameters and the constant coefficients are kernel arguments, so a
 * sweep over them compiles nothing (the cache key is the source's). The
 * unit test t641 checks that on the CPU.
 *
 * The kernels (names in feint_form_cuda_kernels):
 *   feint_form_vector(first, n, list, x, y, z, cells, dofs, sdofs, tab, u,
 *                     sign, fields, constants, out)
 *     (a thread a cell, or a block: feint_form_cuda_vector_block; cells
 *     list[first .. first + n - 1] in both kernels, or first ..
 *     first + n - 1 where list is NULL: one colour of the colored
 *     strategy, whose cells share no dof, each address then taking one
 *     atomicAdd a launch, in a fixed order)
 *     element vectors on the vector rule, added by atomicAdd into out at
 *     the cell's dofs; u NULL: the load vector (sign -1: the load is
 *     -F(0), as on the cpu backend).
 *   feint_form_matrix(first, n, list, x, y, z, cells, dofs, sdofs, tab, u,
 *                     fields, constants, slots, out, out_first, scratch)
 *     (a thread, a warp or a block a cell: feint_form_cuda_matrix_kernel;
 *     scratch: the block kernel's, else unused)
 *     element matrices on the matrix rule at the state u; slots NULL:
 *     written to out (cell c's matrix at row c - out_first, so that a
 *     list's cells land by cell), else added by atomicAdd into
 *     the CSR values out[slots[c nbc^2 + k]].
 * Arguments: x, y, z the node coordinates and cells (n_cells x nv), or
 * on curved cells x their geometry nodes (the layout's curved); dofs
 * (n_cells x nbc; not read where the layout is interleaved) and sdofs
 * (n_cells x nb) 32-bit; tab the rule's tables
 * (feint_form_cuda_tables); fields: a struct of n_aux pointers (each
 * coefficient's per-cell or nodal values, NULL for a constant);
 * constants: a struct of the n_parameters parameter values followed by
 * n_aux constant coefficient values (0 where the coefficient is not
 * constant); both structs have at least one entry. */
#ifndef FEINT_CUDA_FORM_SOURCE_H
#define FEINT_CUDA_FORM_SOURCE_H

#include <stddef.h>

#include "feint/form.h"
#include "feint/userform.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most local dofs a cell of the user-form kernels: the block
 * kernels keep the cell's dofs and values in shared memory beside their
 * points' terms, and the block matrix kernel's work grows as dofs^2 x
 * points, past which the cpu backend's sum-factorised kernels
 * (hexahedra) are the better tool. */
enum { FEINT_FORM_CUDA_MAX_NBC = 512 };
/* The matrix kernel: a thread a cell, a warp a cell, a block a cell
 * (form_source.c's template; FEINT_FORM_MATRIX_AUTO: by the layout,
 * feint_form_cuda_matrix_kernel). */
enum { FEINT_FORM_MATRIX_AUTO = 0, FEINT_FORM_MATRIX_THREAD, FEINT_FORM_MATRIX_WARP, FEINT_FORM_MATRIX_BLOCK };
/* What the source depends on besides the expressions. */
typedef struct {
  int dim, nc, nb, nv;      /* nv: the geometry's nodes a cell (its vertices; a curved cell's nodes) */
  int nq, nq_matrix;        /* points of the vector and the matrix rule */
  int n_aux;
  const feint_field *aux;   /* n_aux coefficient fields: only their kinds are read */
  int affine;               /* 1: a straight simplex (J per cell); 0: J at every point (prisms, quadrilaterals,
                               hexahedra, curved cells) */
  int interleaved;          /* 1: cell dof (i, k) = scalar dof i x nc + k, made by the kernels (no dofs array read) */
  int matrix_kernel;        /* FEINT_FORM_MATRIX_*: AUTO (0) by the layout, else that one where it fits */
  int nv_stride, nb_stride; /* row strides of the cells and the dof maps: on a mixed mesh the widest
                               block's (feint/space.h); 0: nv and nb */
  int curved;               /* 1: the kernels' x holds each cell's nv geometry nodes (mesh->geometry_nodes,
                               n_cells x nv x 3), y, z and cells unread; 0: x, y, z by node, cells */
} feint_form_cuda_layout;

enum { FEINT_FORM_KERNEL_VECTOR = 0, FEINT_FORM_KERNEL_MATRIX = 1, FEINT_FORM_KERNELS = 2 };
/* The warp matrix kernel takes FEINT_FORM_MATRIX_CELLS cells a block of
 * 32 FEINT_FORM_MATRIX_CELLS threads; the thread kernel blocks of 128
 * cells; the block kernel FEINT_FORM_MATRIX_BLOCK_THREADS threads a cell,
 * at most FEINT_FORM_MATRIX_BLOCK_GRID blocks where its points' blocks
 * lie in scratch (feint_form_cuda_matrix_scratch). Measured on the H200
 * (1.3M P2 tetrahedra), elasticity (900 entries) 25.1 ms by warps against
 * 40.8 by threads, Poisson (100) 20.4 against 3.5: a thread a cell up to
 * FEINT_FORM_MATRIX_WARP_MIN entries. */
enum {
  FEINT_FORM_MATRIX_CELLS = 4,
  FEINT_FORM_MATRIX_WARP_MIN = 256,
  FEINT_FORM_MATRIX_BLOCK_THREADS = 256,
  FEINT_FORM_MATRIX_BLOCK_GRID = 1024
};
/* The matrix kernel of layout L (FEINT_FORM_MATRIX_THREAD .. BLOCK):
 * L->matrix_kernel where set and it fits, else a thread a cell for small
 * element matrices, a warp a cell on simplices where its shared arrays
 * fit, else a block a cell. */
int feint_form_cuda_matrix_kernel(const feint_form_cuda_layout *L);
/* 1 if the vector kernel of layout L takes a block of
 * FEINT_FORM_MATRIX_BLOCK_THREADS a cell (more than 32 basis functions;
 * its points in chunks that fit 48 KiB of shared memory), else a thread. */
int feint_form_cuda_vector_block(const feint_form_cuda_layout *L);
/* The doubles of scratch a block of the block matrix kernel takes (its
 * points' blocks D where they do not fit in shared memory), else 0. */
size_t feint_form_cuda_matrix_scratch(const feint_form_cuda_layout *L);
extern const char *const feint_form_cuda_kernels[FEINT_FORM_KERNELS];
/* NVRTC's options for the source (besides the architecture): part of the
 * cache key. --fmad=false: no multiply-add contraction, which the host
 * (the cpu reference) does not do either. */
enum { FEINT_FORM_CUDA_OPTIONS = 2 };
extern const char *const feint_form_cuda_options[FEINT_FORM_CUDA_OPTIONS];
/* The P1 templates' options: multiply-add contraction on, as nvcc
 * compiles the built-in kernels they share their arithmetic with (their
 * sums differ from the cpu backend's order anyway). */
enum { FEINT_FORM_P1_OPTIONS = 1 };
extern const char *const feint_form_p1_options[FEINT_FORM_P1_OPTIONS];

/* The kernel classes of space s: its mesh blocks (cell shapes), or on a
 * curved mesh two a block: 2b its curved cells (J at every point from
 * each cell's nodes), 2b + 1 its affine cells (mesh.h curved_cells; the
 * straight cell's layout and the form's straight rules). Each class has
 * its layout, source and tables. At most FEINT_FORM_CUDA_MAX_CLASSES. */
enum { FEINT_FORM_CUDA_MAX_CLASSES = 2 * FEINT_MESH_MAX_BLOCKS };
int feint_form_cuda_classes(const feint_space *s);
/* The mesh block of class k. */
int feint_form_cuda_class_block(const feint_space *s, int k);
/* The layout of form f on kernel class b of space s (aux points into f); _of:
 * class 0, all of a single-shape straight space. */
feint_form_cuda_layout feint_form_cuda_layout_block(const feint_form *f, const feint_space *s, int b);
feint_form_cuda_layout feint_form_cuda_layout_of(const feint_form *f, const feint_space *s);
/* 1 if the kernels take layout L (dofs a cell; a matrix_kernel asked
 * for whose shared memory fits), else 0 with the reason in why. */
int feint_form_cuda_fits(const feint_form_cuda_layout *L, char *why, size_t size);
/* The table of the vector (matrix 0) or matrix rule (matrix 1) of form f
 * on single-shape space s as the kernels read it (malloc'd, *n doubles):
 * weights, basis, reference gradients, vertex shape values, and on
 * non-affine cells the vertex shape gradients. Tensor-product cells,
 * whose forms keep 1D tables only, get their basis tabulated here. */
int feint_form_cuda_rule_table(const feint_form *f, const feint_space *s, int matrix, double **out, size_t *n);
/* The same for kernel class b (feint_form_cuda_classes) of any space. */
int feint_form_cuda_block_rule_table(const feint_form *f, const feint_space *s, int b, int matrix, double **out,
                                     size_t *n);

/* The source (malloc; free()) of uf's kernels for layout L. */
int feint_form_cuda_source(const feint_user_form *uf, const feint_form_cuda_layout *L, char **out);

/* The same form spliced into the P1 kernel templates (p1_form.cuh; the
 * cuda backend's family p1-form), for storage type float (single) or
 * double: the generated head (the pointwise functions and the
 * coefficients' symbols), then #include "backend/cuda/p1_form.cuh",
 * which NVRTC finds among feint's embedded headers (jit_headers.h). The
 * kernels have the signatures of the built-in P1 kernels (fused.cuh); the
 * block matrix kernel exists for one component only. */
enum {
  FEINT_FORM_P1_VECTOR = 0,
  FEINT_FORM_P1_BLOCK_MATRIX,
  FEINT_FORM_P1_MATRIX,
  FEINT_FORM_P1_MATRIX_GATHER,
  FEINT_FORM_P1_LEAN,      /* the residual in the lean walk (p1_lean.cuh), where lean.on */
  FEINT_FORM_P1_LEAN_PIPE, /* its pipelined kernel, where lean.pipe */
  FEINT_FORM_P1_KERNELS
};
extern const char *const feint_form_p1_kernels[FEINT_FORM_P1_KERNELS];
/* The lean residual kernels to generate (the cuda backend chooses them as
 * for the built-in lean kernels; tetrahedra and double only): gather 0
 * the shared gather, 1 from global memory (LEAN_SHARED, LEAN_GLOBAL);
 * rw the shared records' width; minb the resident blocks per SM. */
typedef struct {
  int on, gather, rw, minb, pipe;
} feint_form_p1_lean;
/* Whether f0 and f1 are affine in what varies over a P1 cell: x, y, z,
 * u's values and the nodal coefficients' values (their gradients are
 * constant there), decided from the exact derivatives; the P1 templates
 * then collapse their rule sums (p1_form.cuh: form_p1_sums). */
int feint_form_cuda_p1_affine(const feint_user_form *uf, const feint_form_cuda_layout *L, int *f0_affine,
                              int *f1_affine);
/* minb: the vector kernel's resident blocks per SM (__launch_bounds__),
 * 0 the template's default; lean NULL: no lean kernels. */
int feint_form_cuda_p1_source(const feint_user_form *uf, const feint_form_cuda_layout *L, int single, int minb,
                              const feint_form_p1_lean *lean, char **out);

/* The doubles of one rule's table as the kernels read it: weights[nq],
 * basis[nq nb], basis_grad[nq nb dim], geometry_value[nq nv], then on
 * non-affine cells geometry_grad[nq nv dim] (NULL on simplices); its size
 * by feint_form_cuda_table_size (affine: no geometry_grad). */
size_t feint_form_cuda_table_size(int nq, int nb, int dim, int nv, int affine);
void feint_form_cuda_table(const feint_quadrature *q, const double *basis, const double *basis_grad,
                           const double *geometry_value, const double *geometry_grad, int nb, int dim, int nv,
                           double *tab);

/* The kernel argument `constants` (n = max(1, n_parameters + n_aux)
 * doubles): uf's parameters, then each constant coefficient's value. */
int feint_form_cuda_constants_count(const feint_user_form *uf, int n_aux);
void feint_form_cuda_constants(const feint_user_form *uf, const feint_field *aux, int n_aux, double *out);

#ifdef __cplusplus
}
#endif
#endif
