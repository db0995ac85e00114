/* feint backends: one table of functions per implementation (the libCEED
 * way). The CPU backend is the simple, exact reference; the CUDA backend
 * is the fast one and is tested against it. Callers never ask which one
 * they run on. */
#ifndef FEINT_BACKEND_H
#define FEINT_BACKEND_H

#include <stddef.h>

#include "feint/bp.h"
#include "feint/case.h"
#include "feint/form.h"
#include "feint/plan.h"
#include "feint/space.h"

typedef struct {
  const feint_space *space;
  const feint_form *form;
  const feint_plan *plan; /* NULL when no matrix is assembled */
  feint_precision precision;
  feint_assembly_strategy strategy;
  int blocks_per_batch, batches_per_chunk; /* 0 = defaults */
} feint_problem;

typedef struct feint_backend feint_backend;
struct feint_backend {
  const char *name;      /* "cpu" or "cuda" */
  char device[256];      /* human-readable device name */
  const feint_problem *problem;
  void *data;            /* the implementation's own state */
  /* F = F(u) assembled (n_dofs). */
  int (*residual)(feint_backend *b, const double *u, double *F);
  /* b_i = (s, phi_i) assembled (n_dofs). */
  int (*rhs)(feint_backend *b, double *rhs);
  /* Element matrices, n_cells x nbc x nbc. */
  int (*element_matrices)(feint_backend *b, double *Ke);
  /* CSR values in the plan's pattern (nnz). */
  int (*assemble_matrix)(feint_backend *b, double *values);
  /* Operator backends (feint_backend_operator_create): y = A x (n_dofs
   * each), and the device time of one apply in ms, median of reps applies
   * on random x (NULL when the backend does not measure it: the CPU). The
   * entries above are then NULL, as apply is for problem backends. */
  int (*apply)(feint_backend *b, const double *x, double *y);
  int (*apply_kernel_ms)(feint_backend *b, int reps, double *median_ms);
  /* Device time (ms, CUDA events) of the last residual, rhs,
   * element_matrices or assemble_matrix call's kernels, transfers
   * excluded: feint bench's kernel column. NULL where not measured (the
   * cpu backend). */
  double (*last_kernel_ms)(feint_backend *b);
  /* Take the data of `form` (coefficients, source; the state u comes with
   * each residual call) in place of problem->form's, keeping everything
   * else the backend set up (device mesh, plans, buffers): called through
   * feint_backend_update_form, which has checked that form has
   * problem->form's layout (feint_form_same_layout) on the same space.
   * problem->form is still the old form during the call; afterwards the
   * backend must hold no pointer into it. FEINT_OK, or
   * FEINT_BACKEND_CANNOT_REUSE (saying why, nothing changed), or a
   * failure (the backend is then unusable). NULL: the backend cannot
   * reuse itself (the element-matrix backend, operator backends). */
  int (*update_form)(feint_backend *b, const feint_form *form);
  void (*destroy)(feint_backend *b);
};

/* Not a failure: feint_backend_update_form's answer when the backend must
 * be created anew for the new form (distinct from the FEINT_ERR_* codes
 * of error.h; the reason is the recorded message). */
enum { FEINT_BACKEND_CANNOT_REUSE = -1 };

/* Create the backend asked for. FEINT_DEVICE_AUTO picks cuda when a GPU
 * and the CUDA backend are present, else cpu; `note` receives a sentence
 * saying which was chosen and why (may be NULL). device_index < 0 = the
 * first visible device. */
int feint_backend_create(feint_device_kind kind, int device_index, const feint_problem *p,
                         feint_backend **out, char *note, size_t note_size);
void feint_backend_destroy(feint_backend *b);

/* A parameter study's next member on the same backend (libCEED's way of
 * updating a QFunction context rather than rebuilding the operator): p is
 * the problem b was created for (it outlives b; the caller owns it), and
 * form a new form on p->space. When form differs from p->form in its data
 * only (feint_form_same_layout) and the backend can take it in place
 * (update_form), the backend re-uploads the coefficients and source, p->form
 * becomes form and FEINT_OK is returned: b computes exactly what a backend
 * created for form would. Otherwise FEINT_BACKEND_CANNOT_REUSE with the
 * reason as the recorded message (b and p unchanged: destroy b and create
 * one for form), or a failure status. */
int feint_backend_update_form(feint_backend *b, feint_problem *p, const feint_form *form);

/* The same choice for a matrix-free operator (the BP operators of bp.h):
 * a backend whose only entries are apply (and apply_kernel_ms on the GPU).
 * op must outlive the backend. On the GPU the geometric factors are built
 * on the device (op->geo is not read), so op may be created in RECOMPUTE
 * mode with geo_mode set to STORED afterwards (see bp.h). */
int feint_backend_operator_create(feint_device_kind kind, int device_index, const feint_bp_op *op,
                                  feint_backend **out, char *note, size_t note_size);

/* Implementations. */
int feint_backend_cpu_create(const feint_problem *p, feint_backend **out);
/* Number of usable CUDA devices (0 when built without CUDA or none found). */
int feint_cuda_device_count(void);
/* Make the CUDA context of device_index (< 0: the first) on a thread of
 * its own, beside what the host does meanwhile (the mesh read); nothing
 * without CUDA or a device, errors left to the first real use. Wait joins
 * the thread (before the process ends). */
void feint_cuda_warm_up_start(int device_index);
void feint_cuda_warm_up_wait(void);
int feint_backend_cuda_create(const feint_problem *p, int device_index, feint_backend **out);
/* The visible CUDA device to use for device_index (< 0: the first), in
 * *dev; FEINT_ERR_INPUT when none is visible or the index is out of range. */
int feint_cuda_device_select(int device_index, int *dev);
/* High-order forms of 1..3 components on tetrahedra (orders 3..7) and
 * prisms (1..7) on the GPU (src/backend/elmat_backend.c): element matrices by the kernels
 * of feint/elmat.h from coefficients evaluated on the device, the CSR
 * matrix summed from them on the device (feint_plan_gpu, plan.h), and
 * residual and load vector on the device too (thread transposition on
 * the form's vector rule, summed per dof, or by atomics with
 * assembly.strategy atomic). _applies: whether p's
 * space is of those cells and orders (the CUDA backend's fused kernels
 * take the rest); _supports: FEINT_OK when this backend can compute p,
 * else FEINT_ERR_INPUT saying why (orders above 7). */
int feint_backend_elmat_applies(const feint_problem *p);
int feint_backend_elmat_supports(const feint_problem *p);
int feint_backend_elmat_create(const feint_problem *p, int device_index, feint_backend **out);
/* Operator implementations (src/backend/operator.c). */
int feint_backend_cpu_operator_create(const feint_bp_op *op, feint_backend **out);
int feint_backend_cuda_operator_create(const feint_bp_op *op, int device_index, feint_backend **out);
/* FEINT_OK when the cuda backend's fused kernels can assemble p's cells
 * (triangles or tetrahedra of orders 1..2, not a mixed mesh), else
 * FEINT_ERR_INPUT with a message pointing to the cpu backend.
 * feint_backend_create checks it before asking for a GPU, so --backend
 * auto falls back to the cpu. */
int feint_backend_cuda_check_cells(const feint_problem *p);

#endif
