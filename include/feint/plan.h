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

typedef struct {
  int64_t n_rows;
  int64_t nnz;
  int64_t *indptr;   /* n_rows + 1 */
  int32_t *indices;  /* nnz (dofs < 2^31) */
  int64_t n_cells;
  int nbc;           /* local dofs per cell */
  int32_t *slots;    /* n_cells x nbc x nbc, row-major in (i, j) (nnz < 2^31) */
} feint_plan;

int feint_plan_create(const feint_space *space, feint_plan **out);
void feint_plan_destroy(feint_plan *plan);

/* The same plan built on the GPU (issue 3: the symbolic phase on the
 * device). Uploads the scalar cell dof map to the current CUDA device,
 * builds the CSR pattern and slot map there (64-bit (row, column) keys of
 * every cell entry, radix sort carrying the entry index, unique ranks =
 * CSR positions, expansion by components) and copies the result back: the
 * returned host plan is identical to feint_plan_create's (same indptr,
 * indices and slots) and is released with feint_plan_destroy.
 * FEINT_ERR_INPUT when feint was built without CUDA or no CUDA device is
 * visible; FEINT_ERR_COMPUTE on CUDA errors (out of GPU memory names the
 * phase and the bytes requested). */
int feint_plan_create_cuda(const feint_space *space, feint_plan **out);

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
} feint_plan_cuda_stats;

/* feint_plan_create_cuda that also fills *stats (stats may be NULL). */
int feint_plan_create_cuda_timed(const feint_space *space, feint_plan **out, feint_plan_cuda_stats *stats);

#endif
