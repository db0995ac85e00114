/* feint plan: the symbolic phase of assembly, done once per (mesh, space).
 *
 * The CSR pattern of the global matrix (rows = dofs, sorted column indices)
 * and the slot map: for each cell and local entry (i, j) of its element
 * matrix, the position of A(dof_i, dof_j) in the CSR arrays, so numeric
 * assembly is values[slot] += Ke[i][j] with no search. */
#ifndef FEINT_PLAN_H
#define FEINT_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "feint/space.h"

/* Integer widths: 32-bit column indices and slots while they fit (half
 * the bytes in the scattered assembly), 64-bit beyond: indices when the
 * matrix has more than 2^31 - 1 columns, slots when it has more than
 * 2^31 - 1 nonzeros. Exactly one of indices / indices64 (and of slots /
 * slots64) is set; feint_plan_column and feint_plan_slot read either.
 * Test hook: the environment variable FEINT_WIDE_INDEX_LIMIT=N (N >= 0)
 * lowers the limit 2^31 - 1 to N, so a small problem runs the 64-bit paths
 * (tests/cli/t47-wide.sh checks it gives the same file). The scalar dof map
 * stays 32-bit inside the builder: scalar dofs and cells x local dofs must
 * stay below 2^31 (checked, the message names the limit). */
typedef struct feint_plan {
  int64_t n_rows;
  int64_t nnz;
  int64_t *indptr;   /* n_rows + 1 */
  int32_t *indices;  /* nnz, or NULL when 64-bit */
  int64_t *indices64; /* nnz, when columns > the limit; else NULL */
  int64_t n_cells;
  int nbc;           /* local dofs per cell (the space's row stride: the widest block's) */
  int32_t *slots;    /* n_cells x nbc x nbc, row-major in (i, j), or NULL when 64-bit; -1 for the
                        padding of a mixed mesh's narrower cells (feint/space.h) */
  int64_t *slots64;  /* the same, when nnz > the limit; else NULL */
  /* A plan built on the GPU (feint_plan_create_cuda) keeps its slot map
   * there: device_slots (int32, on CUDA device `device`), which the CUDA
   * backend reads in place. Its host copy `slots` is NULL until a host
   * reader asks for it with feint_plan_host_slots (downloaded once): a run
   * on the GPU never needs it, and the copy took 120 ms of a 6M-cell run. */
  void *device_slots;
  /* Its inputs and pattern stay there too, for the backend to read in
   * place (NULL for a host plan): the scalar cell dof map narrowed to
   * int32 (n_cells x the space's nb), indptr (int64, n_rows + 1) and
   * indices (int32, nnz). */
  void *device_sdofs, *device_indptr, *device_indices;
  int device;
  int (*fetch_slots)(struct feint_plan *plan);    /* download device_slots into slots */
  void (*release_device)(struct feint_plan *plan); /* free the device arrays */
} feint_plan;
/* Make plan->slots (or slots64) readable on the host: nothing for a host
 * plan, the download for a GPU plan (the host copy is a cache of the same
 * values: the plan stays logically const). */
int feint_plan_host_slots(const feint_plan *plan);

/* The 32-bit limit in use: INT32_MAX, or FEINT_WIDE_INDEX_LIMIT (tests). */
int64_t feint_plan_narrow_limit(void);
/* Bytes per slot-map entry of a plan of nnz nonzeros: 4, or 8 when nnz >
 * feint_plan_narrow_limit() (the builder's choice, and what a caller
 * sizing the slot map before the plan exists must count). */
int feint_plan_slot_width(int64_t nnz);
/* The nonzeros feint_plan_create would find, by its row-length pass alone
 * (the 32-bit cell dof and dof-to-cell maps, 8 bytes per cell entry; no
 * columns, no slots). */
int feint_plan_count_nonzeros(const feint_space *space, int64_t *nnz);
/* The slot map feint_plan_create will build on this space, without
 * building it (for memory limits): entries = cells x local dofs^2 and the
 * bytes per entry, feint_plan_slot_width(nnz). The entries bound the
 * nonzeros (each nonzero is some cell's entry), so while they fit the
 * narrow limit the width is 4 at once; past it the nonzeros are counted
 * (feint_plan_count_nonzeros). */
int feint_plan_slot_map_size(const feint_space *space, int64_t *entries, int *width);

/* Column of CSR entry k, slot of cell entry e, whatever their width. */
static inline int64_t feint_plan_column(const feint_plan *p, int64_t k) {
  return p->indices64 ? p->indices64[k] : p->indices[k];
}
static inline int64_t feint_plan_slot(const feint_plan *p, int64_t e) {
  return p->slots64 ? p->slots64[e] : p->slots[e];
}

int feint_plan_create(const feint_space *space, feint_plan **out);
void feint_plan_destroy(feint_plan *plan);

/* The same plan built on the GPU (issue 3: the symbolic phase on the
 * device; src/backend/cuda/symbolic.cu, built with nvcc only: a build
 * without it has none of the GPU functions below, and feint reaches them
 * through the registry, feint_backend_create_plan). Uploads the scalar cell dof map to the current CUDA device,
 * builds the CSR pattern and slot map there (64-bit (row, column) keys of
 * every cell entry, radix sort carrying the entry index, unique ranks =
 * CSR positions, expansion by components) and copies the result back: the
 * returned host plan is identical to feint_plan_create's (same indptr,
 * indices and slots) and is released with feint_plan_destroy. The GPU
 * symbolic phase is 32-bit: a plan that needs 64-bit indices or slots is
 * built by feint_plan_create on the host instead (stats host_fallback).
 * FEINT_ERR_INPUT when no CUDA device is visible; FEINT_ERR_COMPUTE on CUDA errors (out of GPU memory names the
 * phase and the bytes requested). It runs on CUDA device device_index
 * (< 0: device 0), the one the numeric phase will use (--device). */
int feint_plan_create_cuda(const feint_space *space, int device_index, feint_plan **out);

/* Timings of one feint_plan_create_cuda_timed call (milliseconds; device
 * times by CUDA events on the device's stream). */
typedef struct {
  double upload_ms;     /* host-to-device copy of the cell dof map */
  double symbolic_ms;   /* device time of the symbolic phase: keys, sort, unique, CSR, slots */
  double sort_ms;       /* of which the radix sort */
  double download_ms;   /* device-to-host copy of indptr, indices and slots */
  double total_ms;      /* host wall time of the whole call, allocation included */
  int64_t entries;      /* cell entries sorted (cells x nb^2, scalar) */
  int key_bits;         /* significant bits of the sort keys */
  size_t device_bytes;  /* peak device memory allocated by the call */
  char device[128];     /* name of the CUDA device */
  int host_fallback;    /* 1: the plan needed 64-bit indices or slots and was built on the host */
} feint_plan_cuda_stats;

/* feint_plan_create_cuda that also fills *stats (stats may be NULL). */
int feint_plan_create_cuda_timed(const feint_space *space, int device_index, feint_plan **out,
                                 feint_plan_cuda_stats *stats);

/* The plan on the GPU for numeric assembly there (the element-matrix
 * backend, src/backend/elmat_backend.c): element matrices that stay in
 * device memory are summed into CSR values in device memory, and only the
 * values come back. Built once per plan on the current CUDA device by the
 * sort of the symbolic phase above, keyed by slot instead of (row,
 * column): the slot of every cell entry, radix-sorted carrying the entry
 * index, leaves each nonzero's entries as one run in cell order (the sort
 * is stable). Assembly is a gather over those runs, one thread per
 * nonzero: no atomics, and the same additions in the same order as the
 * host scatter values[slot[e]] += Ke[e], so the values are bitwise the
 * host's. Element matrices may come in batches of consecutive cells (each
 * thread keeps its place in its run from one batch to the next).
 * FEINT_ERR_INPUT when the plan has 64-bit slots or more than 2^31 - 1
 * cell entries (feint_plan_gpu_fits: callers scatter on the host then);
 * FEINT_ERR_COMPUTE on CUDA errors. */
typedef struct feint_plan_gpu feint_plan_gpu;
int feint_plan_gpu_fits(const feint_plan *plan);
int feint_plan_gpu_create(const feint_plan *plan, feint_plan_gpu **out);
/* The same runs for any map of n_cells x per_cell entries (host, 32-bit,
 * -1 = no target) onto n_targets targets, each of which some entry must
 * name: the element-matrix backend sums element vectors into the global
 * vector by the scalar cell dof map this way (per_cell = nb, targets the
 * dofs; begin / add / values as above, "values" then the vector).
 * FEINT_ERR_INPUT when a count exceeds 2^31 - 1 or an entry is out of
 * range or a target has no entry. */
int feint_plan_gpu_create_map(const int32_t *map, int64_t n_cells, int per_cell, int64_t n_targets,
                              feint_plan_gpu **out);
/* Start an assembly: the device values set to zero, every run rewound. */
int feint_plan_gpu_begin(feint_plan_gpu *g);
/* Add the element matrices of the next n cells (device array, n x nbc x
 * nbc, the cells after those of the previous calls since begin). */
int feint_plan_gpu_add(feint_plan_gpu *g, int64_t n, const double *Ke_device);
/* The values (nnz) to the host, once every cell was added; gather_ms
 * (may be NULL): the device time of the adds since begin (CUDA events). */
int feint_plan_gpu_values(feint_plan_gpu *g, double *values, double *gather_ms);
void feint_plan_gpu_destroy(feint_plan_gpu *g);

#endif
