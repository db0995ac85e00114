/* The cuda kind's kernel families: for each, what it computes, its
 * compile-time axes, when it is the default and what tunes it. The one
 * table that names them: the backend reports a family by its name here
 * (feint run --json "kernel_family", feint bench), feint info --kernels
 * prints the table, docs/backends.md explains it. Built in every build
 * (as kind.c), so that a feint without nvcc can say what the GPU has. */
#include "backend/cuda/families.h"

/* The BP families share their choice: one variant per (kind, geometry,
 * order), the fastest measured there (bp.cu's default table). */
#define BP_CHOSEN "where it was the fastest for the kind, geometry and order (bp.cu's table of defaults)"
#define BP_KNOBS "FEINT_BP_NUMBERING; the other variants at an order with make EXPERIMENTS=1"

static const feint_kernel_family families[] = {
    {"p1-lean-pipe",
     "residual of P1 tetrahedra in double, strategies atomic and gather: Poisson, or a user form of one "
     "component (its pointwise functions compiled into the walk at run time, p1_form.cuh)",
     "kind of kappa (constant, per cell, nodal), or the user form's generated code",
     "wherever it applies (its blocks stay resident and fetch the next chunks' plan and node records into "
     "shared memory while they compute the current one)",
     "FEINT_CUDA_LEAN_PIPE=0 (off), FEINT_CUDA_LEAN_PIPE_GRID (test hook)", "kernels_lean.cu, p1_lean.cuh"},
    {"p1-lean",
     "residual of P1 tetrahedra, Poisson or elasticity (one nodal stiffness coefficient at most), or in double "
     "a user form of 1 or 3 components (p1_form.cuh; colored: forms whose rule sums collapse, f0 and f1 affine "
     "in x, u and the nodal coefficients)",
     "components (1, 3), the stiffness coefficients' kinds (or the user form's generated code), vertex gather "
     "(shared, global), storage and compute type, blocks per SM",
     "P1 tetrahedral residuals the pipelined kernel does not take (colored, three components, single precision)",
     "FEINT_CUDA_LEAN=0 (off), FEINT_CUDA_LEAN_PF; with make EXPERIMENTS=1 FEINT_CUDA_LEAN_MODE, _MINB, _PACK, "
     "_REAL",
     "kernels_lean.cu, p1_lean.cuh"},
    {"p1-block",
     "residual, load vector and CSR matrix of P1 triangles and tetrahedra, any physics or a user form (its "
     "pointwise functions compiled into the template at run time, p1_form.cuh): one thread a cell, "
     "chunks of cells summed in shared memory before one write per target (block-local aggregation)",
     "dimension, components, physics (or the user form's generated code), coefficient kinds",
     "P1 vectors the lean kernels do not take (load vectors, triangles, single-precision forms); P1 matrices of "
     "one component",
     "FEINT_CUDA_CHUNK (cells a chunk), FEINT_CUDA_ORDER (cell order)", "kernels_p1.cu, p1.cuh, p1_form.cuh"},
    {"p1-cell",
     "element matrices and CSR matrix of P1 cells, one thread a cell writing its entries (atomic, colored or "
     "by the gather), built-in physics or a user form (p1_form.cuh)",
     "dimension, components, physics (or the user form's generated code)",
     "P1 element matrices; P1 matrices of 2 or 3 components (no block plan: 144 entries a cell for "
     "elasticity); feint_cuda_set_variant 2 (test hook)",
     "", "kernels_p1.cu, p1_form.cuh"},
    {"tt",
     "residual, load vector, element matrices and CSR matrix of triangles and tetrahedra of order 1..2, any "
     "physics: thread transposition (Knepley et al.), batches of cells staged in shared memory",
     "none: basis, quadrature and physics are kernel parameters",
     "P2 (FEINT_CUDA_BUILTIN_FORMS=1 runs the built-in kinds there as forms, form-jit); P1 with more than 24 "
     "quadrature points; element matrices",
     "backend.cuda.blocks_per_batch, backend.cuda.batches_per_chunk (case)", "kernels_tt.cu"},
    {"elmat",
     "element matrices, CSR matrix, residual and load vector of tetrahedra of order 3..7 and prisms of order "
     "1..7 (Banas et al.)",
     "cell, order, components, where data and coefficients live",
     "high-order tetrahedra and prisms (the element-matrix backend behind the cuda kind)",
     "FEINT_ELMAT_BATCH, FEINT_ELMAT_VECTOR_CELLS, FEINT_ELMAT_TIMES; the other data placements and host "
     "Jacobian terms with make EXPERIMENTS=1",
     "elmat.cu, elmat_backend.c"},
    {"bp-layered",
     "BP operators (BP1.0 mass, BP3.5 and BP3.0 stiffness) on hexahedra of order 1..15: Q x Q threads a cell "
     "loop over the layers (Swirydowicz et al.)",
     "order, kind, geometry (stored or recomputed)", BP_CHOSEN, BP_KNOBS, "bp.cu"},
    {"bp-staged", "BP operators, the 1D tables a kernel parameter indexed by compile-time constants",
     "order, kind, geometry, derivative in registers", BP_CHOSEN, BP_KNOBS, "bp.cu"},
    {"bp-tiled", "BP1.0 with stored factors, tiled over a cell's layers", "order", BP_CHOSEN, BP_KNOBS, "bp.cu"},
    {"bp-line",
     "BP operators with stored factors: every pass contracts whole lines held in registers; a cell's own dofs "
     "stored, not added",
     "order, kind, shared-memory layout, BP1.0's w|J| placement and even-odd form", BP_CHOSEN, BP_KNOBS, "bp.cu"},
    {"form-jit",
     "residual, load vector, element matrices and CSR matrix of a user form (physics kind form), or of a built-in "
     "kind as the form it is, on one cell shape of up to 128 dofs a cell (J at every point on prisms, "
     "quadrilaterals, hexahedra and curved cells, from each curved cell's own nodes; a curved mesh's affine "
     "cells as straight ones): its expressions compiled at run time by NVRTC into kernels of one thread a "
     "cell (vectors) and one warp a cell (matrices, the entries in its lanes' registers), sums by atomicAdd "
     "(colored, gather: one colour of cells at a time, reproducible)",
     "generated per form: dimension, components, basis functions, quadrature points, coefficient kinds and the "
     "expressions (parameters and constant coefficients are kernel arguments)",
     "user forms the P1 templates do not take: P2 and up, rules of more than 24 points (e.g. e^u on tetrahedra), "
     "components not interleaved, non-simplex cells, curved cells; built-in kinds on quadrilaterals, hexahedra "
     "and curved cells, with values per cell's nodes, and on P2 triangles and tetrahedra in double with FEINT_CUDA_BUILTIN_FORMS=1",
     "FEINT_CACHE_DIR, FEINT_NO_CACHE (the cache of compiled code), FEINT_NVRTC_LIBRARY, "
     "FEINT_CUDA_BUILTIN_FORMS=1 (built-in kinds on P2 by form-jit)",
     "form_source.c, form_backend.cu"},
};

const feint_kernel_family *feint_cuda_families(int *n) {
  *n = (int)(sizeof families / sizeof families[0]);
  return families;
}

const char *feint_cuda_family_name(feint_cuda_family f) {
  int n;
  const feint_kernel_family *all = feint_cuda_families(&n);
  return (int)f >= 0 && (int)f < n ? all[f].name : "";
}
