/* feint backends: one table of functions per implementation (the libCEED
 * way). The CPU backend is the simple, exact reference; the CUDA backend
 * is the fast one and is tested against it. Callers never ask which one
 * they run on. */
#ifndef FEINT_BACKEND_H
#define FEINT_BACKEND_H

#include <stddef.h>

#include "feint/boundary.h"
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
  int no_cache; /* 1: code compiled at run time neither read from nor kept in the disk cache
                   (--no-cache, backend.cache: false); 0 the cache as FEINT_NO_CACHE leaves it */
} feint_problem;

typedef struct feint_backend feint_backend;

/* One kernel family of a backend kind (feint info --kernels): what it
 * computes, its compile-time axes, when it is the default, what tunes it
 * (case keys; environment hooks, feint(1)) and where it lives. */
typedef struct {
  const char *name; /* what feint run --json ("kernel_family") and feint bench report */
  const char *computes, *axes, *chosen, *knobs, *source;
} feint_kernel_family;

/* What a backend reports about itself after a call (feint_backend_info):
 * fields it does not report keep their defaults. */
typedef struct {
  feint_precision precision; /* what it computes in (default double: the cpu reference always does) */
  int n_colors;              /* colours of its cell colouring (assembly.strategy colored), 0: none */
  char kernel[160];          /* which kernel computed the last residual, in words, "" */
  char family[32];           /* its kernel family (the kind's families table), "" */
  char matrix_family[32];    /* the family that assembles the matrix, "" */
  char setup_steps[500];     /* its creation step by step ("name ms, ..."), "" */
  /* Run-time compiled code (a user form on the GPU): jit 1 when the
   * backend made its kernels at creation, from the disk cache
   * (jit_cache_hit) or by compiling them (jit_compile_ms); jit_load_ms
   * the cache lookup and the module's load; jit_key the cache key;
   * jit_warning why the cache could not be written ("" when it was, or
   * is off), which the run prints once. */
  int jit, jit_cache_hit;
  double jit_compile_ms, jit_load_ms;
  char jit_key[65];
  char jit_warning[256];
} feint_backend_info;

/* A matrix-free operator on a backend kind (the BP operators of bp.h;
 * feint_backend_operator_create), its own small table: y = A x. */
typedef struct feint_operator feint_operator;
struct feint_operator {
  const char *name;  /* its kind's name */
  char device[256];  /* human-readable device name */
  void *data;        /* the implementation's own state */
  /* y = A x (n_dofs each). */
  int (*apply)(feint_operator *o, const double *x, double *y);
  /* Device time of one apply in ms, median of reps applies on random x;
   * NULL where not measured (the cpu). */
  int (*apply_kernel_ms)(feint_operator *o, int reps, double *median_ms);
  /* What it reports (kernel family, the kernel in words); NULL: nothing. */
  int (*info)(const feint_operator *o, feint_backend_info *out);
  void (*destroy)(feint_operator *o);
};

struct feint_backend {
  const char *name;      /* its kind's name: "cpu" or "cuda" */
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
  /* Fill in what it reports (called through feint_backend_info, which
   * sets the defaults first). NULL: nothing beyond the defaults. */
  int (*info)(const feint_backend *b, feint_backend_info *out);
  /* The Neumann and Robin facet integrals on its device (boundary.h);
   * NULL: on the host, the reference. */
  feint_facet_integrator *integrate_facets;
  void (*destroy)(feint_backend *b);
  /* What the kind made the backend from and keeps beside it (the cuda
   * kind: a built-in kind's problem as a user form), freed by
   * free_owned(owned) after destroy; NULL: nothing. */
  void *owned;
  void (*free_owned)(void *owned);
  /* The caller's problem where problem is one the kind derived from it
   * (a built-in kind's problem as a user form, in owned): the one
   * feint_backend_update_form is called with; NULL: problem itself. */
  const feint_problem *outer;
};

/* Not a failure: feint_backend_update_form's answer when the backend must
 * be created anew for the new form (distinct from the FEINT_ERR_* codes
 * of error.h; the reason is the recorded message). */
enum { FEINT_BACKEND_CANNOT_REUSE = -1 };

/* Not a failure: a kind's open call when it cannot run in this process
 * (no device, or not built in), the reason in its why buffer. */
enum { FEINT_BACKEND_ABSENT = -2 };

/* One kind of backend in the registry (libCEED's CeedRegister): its name,
 * how much auto prefers it, what it computes and how it is made. A kind
 * that needs a device has an open call; the others run anywhere. Entries
 * left NULL are what the kind does not do. */
typedef struct feint_backend_kind {
  const char *name;          /* --backend NAME; the provenance attribute "backend" */
  feint_device_kind device;  /* the --backend / case value naming it; FEINT_DEVICE_AUTO: auto only */
  int priority;              /* auto tries the highest first */
  /* Whether it computes p: 1, or 0 with a sentence in why saying why not
   * and what to use instead. p->plan may be NULL (the choice made before
   * the symbolic phase); the check is then repeated with the plan. NULL:
   * every problem. */
  int (*supports)(const feint_problem *p, char *why, size_t why_size);
  /* Whether it can run in this process: FEINT_OK, FEINT_BACKEND_ABSENT
   * with the reason in why (no device visible, not built in), or a failure
   * recorded (device_index past the visible devices: the user's mistake,
   * not a reason for auto to pass it over). NULL: always (the host). */
  int (*open)(int device_index, char *why, size_t why_size);
  int (*create)(const feint_problem *p, int device_index, feint_backend **out);
  int (*create_operator)(const feint_bp_op *op, int device_index, feint_operator **out);
  /* The operator backend builds the geometric factors itself (op->geo is
   * not read; feint_backend_operator_create). */
  int operator_geo_on_device;
  /* The symbolic phase where the numeric phase will run (the GPU plan for
   * a device kind): feint_plan_create's result, bitwise; steps receives a
   * sentence of its steps and times, or "". NULL: feint_plan_create. */
  int (*create_plan)(const feint_space *s, int device_index, feint_plan **out, char *steps, size_t steps_size);
  /* Start making its device context beside the host's work, and wait for
   * that (before the process ends). NULL: nothing to warm up. The device:
   * device_index where >= 0, else the rank's (feint_backend_rank_device)
   * where local_rank >= 0, else the default; found on the warm-up's thread,
   * since counting the devices starts the driver (0.3 s a rank when four
   * start together on a host of 4 H200). */
  void (*warm_up_start)(int device_index, int local_rank);
  void (*warm_up_wait)(void);
  /* Seconds of host <-> device copies since the process started. NULL:
   * it copies nothing. */
  void (*transfer_seconds)(double *h2d, double *d2h);
  /* Its device's copy bandwidth in GB/s (read + write): feint bench's
   * yardstick. NULL: the host's memcpy is the yardstick. */
  int (*copy_bandwidth)(int device_index, size_t bytes, int reps, double *gbs);
  /* Its kernel families, or NULL (one implementation: the cpu reference). */
  const feint_kernel_family *(*families)(int *n);
} feint_backend_kind;

/* The registry: the built-in kinds (cpu; cuda, which without nvcc can
 * only say why it is absent) and those registered at run time (at most
 * FEINT_BACKEND_MAX_KINDS in all). Register returns FEINT_ERR_INPUT for a
 * name taken or a full table; unregister removes a kind registered at run
 * time (the kind must outlive its registration). */
enum { FEINT_BACKEND_MAX_KINDS = 8 };
int feint_backend_register(const feint_backend_kind *kind);
void feint_backend_unregister(const feint_backend_kind *kind);
/* The kinds by priority, highest first: n of them into kinds (at most max). */
int feint_backend_kinds(const feint_backend_kind **kinds, int max);
/* The kind named `name`, or NULL. */
const feint_backend_kind *feint_backend_kind_find(const char *name);
/* Whether the kind named `name` can run in this process on its first
 * device (its open call): 1, or 0 with the reason in why (may be NULL):
 * no such kind, not built in ("this feint was built without CUDA"), no
 * device visible. Nothing is created; for callers that need only to know
 * whether a device is there, as the tests with GPU parts do. */
int feint_backend_available(const char *name, char *why, size_t why_size);

/* The GPU the rank of local number local_rank on its host takes under
 * mpirun: local_rank modulo the CUDA devices it sees (so ranks spread over
 * a host's GPUs, and a rank given one GPU by CUDA_VISIBLE_DEVICES takes
 * it); -1 (the default device) without CUDA. */
int feint_backend_rank_device(int local_rank);

/* Which kind computes p (NULL: a matrix-free operator) for the request
 * `want`: the named kind when it supports p and can open (else
 * FEINT_ERR_INPUT with its reason), or for FEINT_DEVICE_AUTO the
 * highest-priority kind that does. `note` (may be NULL) receives a sentence
 * for auto naming what was passed over and why. Nothing is created. */
int feint_backend_choose(feint_device_kind want, int device_index, const feint_problem *p,
                         const feint_backend_kind **out, char *note, size_t note_size);

/* Create the backend asked for (feint_backend_choose, then its create;
 * under auto a kind whose creation fails is passed over too). `note`
 * receives a sentence saying which was chosen and why (may be NULL).
 * device_index < 0 = the first visible device. */
int feint_backend_create(feint_device_kind kind, int device_index, const feint_problem *p,
                         feint_backend **out, char *note, size_t note_size);
void feint_backend_destroy(feint_backend *b);

/* What b reports (feint_backend_info above), defaults first. */
int feint_backend_info_get(const feint_backend *b, feint_backend_info *out);

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
 * a feint_operator (apply, and apply_kernel_ms on the GPU), destroyed by
 * feint_operator_destroy. op must outlive it. A kind with operator_geo_on_device does not
 * read op->geo, so op may be created in RECOMPUTE mode with geo_mode set
 * to STORED afterwards (see bp.h; feint_backend_operator_geo_on_device). */
int feint_backend_operator_create(feint_device_kind kind, int device_index, const feint_bp_op *op,
                                  feint_operator **out, char *note, size_t note_size);
void feint_operator_destroy(feint_operator *o);
/* What o reports (feint_backend_info), defaults first. */
int feint_operator_info_get(const feint_operator *o, feint_backend_info *out);
/* Whether the operator backend that kind would create builds the
 * geometric factors itself; 0 too when none would be chosen. */
int feint_backend_operator_geo_on_device(feint_device_kind kind, int device_index);

/* The symbolic phase on the kind that feint_backend_choose picks for p
 * (p->plan NULL), into *out; steps as the kind's create_plan. */
int feint_backend_create_plan(feint_device_kind kind, int device_index, const feint_problem *p, feint_plan **out,
                              char *steps, size_t steps_size);

/* For a single process, before any device call: with no device index
 * asked for (device_index < 0) and CUDA_VISIBLE_DEVICES unset, set it to
 * the default device, 0, so that CUDA's start-up initialises only the GPU
 * the run uses rather than every GPU of the host (on a host of 4 H200,
 * 0.3 s against 1.0-1.2 s, most of a 6M-cell run). The GPU is the same
 * one; FEINT_CUDA_ALL_DEVICES=1 leaves the variable unset. No-op without
 * CUDA. Returns 1 when it set the variable. */
int feint_backend_show_default_device_only(int device_index);

/* Every kind's device context warm-up (those `kind` may choose; the
 * device as for warm_up_start), and the wait for all of them. */
void feint_backend_warm_up_start(feint_device_kind kind, int device_index, int local_rank);
void feint_backend_warm_up_wait(void);
/* Host <-> device copy seconds of all kinds since the process started. */
void feint_backend_transfer_seconds(double *h2d, double *d2h);

/* For implementations: a zeroed backend for problem p with zeroed state
 * of data_size bytes in b->data, destroyed by destroy (which frees both,
 * whatever of the state was made). */
int feint_backend_alloc(const feint_problem *p, size_t data_size, void (*destroy)(feint_backend *b),
                        feint_backend **out);

/* The cpu implementations (src/backend/cpu, src/backend/operator.c). */
int feint_backend_cpu_create(const feint_problem *p, feint_backend **out);
int feint_backend_cpu_operator_create(const feint_bp_op *op, feint_operator **out);

#endif
