/* feint case: the YAML problem description, validated, with overrides.
 *
 * The contract for keys is ../shared/case-format.md (copied in man/feint.1).
 * feint_case_load() parses the file with libyaml into a tree that keeps the
 * line and column of every node, applies `--set key.path=value` overrides
 * (the value parsed as YAML), validates the tree against the schema
 * (unknown keys, wrong types, missing required keys are errors naming
 * file:line:column and suggesting the nearest valid key) and fills a
 * feint_case. The tree after overrides is also emitted as YAML text
 * (case->as_run) for the provenance of the output file. */
#ifndef FEINT_CASE_H
#define FEINT_CASE_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
  FEINT_PHYSICS_POISSON = 0,
  FEINT_PHYSICS_MASS,
  FEINT_PHYSICS_HELMHOLTZ,
  FEINT_PHYSICS_ELASTICITY,
  FEINT_PHYSICS_ADVECTION,
  FEINT_PHYSICS_DIFFUSION,
  FEINT_PHYSICS_FORM /* kind: form, the user's pointwise expressions (feint_case_form); no FEINT_PW_* case:
                        the backends evaluate it through feint/userform.h */
} feint_physics_kind;

/* The most members a sweep may have (each is validated, and kept, before
 * the first computes). */
#define FEINT_SWEEP_MAX_MEMBERS 100000

/* Physics keys besides kind: at most this many can be unused. */
#define FEINT_CASE_MAX_WARNINGS 10

typedef enum { FEINT_DEVICE_AUTO = 0, FEINT_DEVICE_CPU, FEINT_DEVICE_CUDA } feint_device_kind;
typedef enum { FEINT_PRECISION_DOUBLE = 0, FEINT_PRECISION_SINGLE } feint_precision;
typedef enum { FEINT_ASSEMBLY_COLORED = 0, FEINT_ASSEMBLY_ATOMIC, FEINT_ASSEMBLY_GATHER } feint_assembly_strategy;
/* assembly.dirichlet: how Dirichlet rows are eliminated (see boundary.h). */
/* mesh.partition: how rank 0 shares the cells among the ranks under
 * mpirun. rows: each rank the cells of its block of rows, so it sums its
 * rows whole, in the one-rank order (cells with dofs in two blocks are
 * computed by both); morton: equal parts along the cells' Morton curve,
 * contributions to another rank's rows sent to it; metis: METIS's parts,
 * likewise; auto: rows when its largest part is at most 5/4 of an equal
 * share, else morton. */
typedef enum {
  FEINT_PARTITION_AUTO = 0,
  FEINT_PARTITION_ROWS,
  FEINT_PARTITION_MORTON,
  FEINT_PARTITION_METIS
} feint_partition_kind;
typedef enum { FEINT_DIRICHLET_ROWS = 0, FEINT_DIRICHLET_SYMMETRIC } feint_dirichlet_mode;

/* A scalar value given in the case: a number, an expression string, an
 * HDF5 dataset {file, dataset, on: cell|node}, or one such value per
 * physical group of the cells {groups: {name: value, ...}, default: value}. */
typedef enum {
  FEINT_VALUE_NONE = 0, /* not given */
  FEINT_VALUE_CONSTANT,
  FEINT_VALUE_EXPRESSION,
  FEINT_VALUE_DATASET,
  FEINT_VALUE_GROUPS /* each cell takes its physical group's value: numbers and cell datasets give a
                        per-cell field, expressions and node datasets a piecewise nodal one (form.c) */
} feint_value_kind;

typedef struct feint_value {
  feint_value_kind kind;
  double constant;   /* FEINT_VALUE_CONSTANT */
  char *expression;  /* FEINT_VALUE_EXPRESSION */
  char *file;        /* FEINT_VALUE_DATASET: path resolved relative to the case file */
  char *dataset;     /* FEINT_VALUE_DATASET: e.g. "/kappa" */
  int on_cells;      /* FEINT_VALUE_DATASET: 1 = one value per cell, 0 = per node */
  int n_groups;      /* FEINT_VALUE_GROUPS: groups named, each with its number and where */
  char **group_names;
  struct feint_value *group_value;   /* FEINT_VALUE_GROUPS: each group's value (a number, an expression or a
                                        dataset; not groups again) */
  char (*group_where)[256];
  struct feint_value *group_default; /* FEINT_VALUE_GROUPS: the default's value, NULL when none is given */
  char key[96];      /* FEINT_VALUE_GROUPS: the case key ("physics.kappa"), for messages */
  char where[256];   /* "case.yaml:12:9" of the value, for error messages */
} feint_value;

/* What a value says, for messages: its expression or dataset name ("" for
 * a constant or none). */
static inline const char *feint_value_text(const feint_value *v) {
  return v->kind == FEINT_VALUE_EXPRESSION ? v->expression : v->kind == FEINT_VALUE_DATASET ? v->dataset : "";
}

/* Up to 3 components (vectors: velocity, elasticity source and state) or
 * 3x3 (diffusion tensor, row-major). n = number given (0 if absent). */
typedef struct {
  int n;
  feint_value c[9];
} feint_value_list;

typedef struct {
  char *group;          /* physical group name */
  feint_value_list dirichlet; /* n == 0 when absent; an item of kind FEINT_VALUE_NONE (YAML null
                                 in the list) leaves that component free */
  feint_value_list neumann;
  feint_value_list flux;      /* a vector q (dim values): the Neumann value q . n, n the outward unit
                                 normal of the facet at each quadrature point (scalar spaces) */
  int has_robin;              /* robin: {alpha, value} given */
  feint_value_list robin_alpha; /* robin.alpha (required with robin): 1 value (every component), one
                                   per component (a diagonal alpha; null = 0) or, with
                                   robin_alpha_tensor, d x d row-major (a tensor coupling components) */
  int robin_alpha_tensor;
  feint_value_list robin_value; /* robin.value G: 1 value or one per component (null = 0; n == 0: 0) */
  char where[256];
} feint_boundary;

/* One expression of a user form as written (text NULL when not given). */
typedef struct {
  char *text;
  char where[256];
} feint_case_expr;

/* The symbols of a user form's expressions, in the order of
 * feint_case_form.symbols: x y z; per component c of the field its value
 * and gradient at FEINT_FORM_SYM_U + 4 c (u u_x u_y u_z for a scalar
 * field, u0 u0_x u0_y u0_z u1 ... for 2 or 3 components); then per
 * coefficient <name> <name>_x <name>_y <name>_z (from
 * feint_case_form.first_coefficient); then the parameters. */
enum { FEINT_FORM_SYM_X = 0, FEINT_FORM_SYM_U = 3 };

/* physics kind form (issue 19): residual int v . f0 + grad v : f1 and
 * the Jacobian blocks g0 = df0/du, g1 = df0/dgrad u, g2 = df1/du, g3 =
 * df1/dgrad u (PETSc's pointwise convention) of a field of nc = 1..3
 * components; a block not given is derived from f0/f1 (given blocks:
 * scalar fields only). Every expression was parsed over `symbols` when the
 * case was loaded. */
typedef struct {
  int nc;                            /* the field's components (space.components) */
  feint_case_expr f0[3], f1[9];      /* f0[c]; f1[c * 3 + d] */
  int n_f0, n_f1;                    /* f0 entries given; f1 directions given (every row alike) */
  feint_case_expr g0, g1[3], g2[3], g3[9]; /* scalar fields; g3 row-major, n_g3 x n_g3 */
  int n_g1, n_g2, n_g3;              /* entries given (g3: rows) */
  int n_coefficients;
  char **coefficient_names;
  feint_value *coefficients; /* fields, any value form */
  int n_parameters;
  char **parameter_names;
  double *parameters;
  int first_coefficient;     /* symbol of the first coefficient: FEINT_FORM_SYM_U + 4 nc */
  int n_symbols;
  char **symbols;
} feint_case_form;

/* One member of a parameter sweep: overrides ("key.path=value", value as
 * YAML text) applied after the command line's. */
typedef struct {
  int n;
  char **overrides;
} feint_sweep_member;

typedef struct {
  /* file */
  char *path;          /* the case file as given ("-" for stdin) */
  char *text;          /* its bytes (so sweep members re-read nothing) */
  size_t text_len;
  int n_overrides;     /* the command line's overrides, kept for members */
  char **overrides;
  char sha256[65];     /* of the case file's bytes, hex */
  char *as_run;        /* YAML of the case after overrides */

  /* mesh: */
  char *mesh_file;     /* resolved relative to the case file's directory */
  char mesh_where[256];
  double mesh_size;    /* .geo only; 0 = the .geo's own sizes */
  int mesh_refine;     /* uniform refinements (each splits every cell), default 0 */
  int mesh_reorder;    /* mesh.reorder: 0 none (the file's node order), 1 morton */
  int mesh_curved_nodes; /* mesh.curved_nodes: 0 file (as the file places them), 1 blend (mesh.h) */
  int mesh_partition;  /* mesh.partition (mpirun): feint_partition_kind */
  int n_region;        /* 0 = all top-dimensional cells */
  char **region;
  char region_where[256];

  /* space: */
  int order;           /* default 1 */
  int components;      /* default 1 (elasticity: the mesh dimension, set later if 0) */
  char space_where[256];
  char order_where[256]; /* of space.order's value, else space_where */

  /* quadrature: */
  int quadrature_degree; /* -1 = default (exact for the form on affine cells) */
  char quadrature_where[256];

  /* physics: */
  feint_physics_kind physics;
  char physics_where[256];
  feint_value kappa;    /* poisson, helmholtz (default 1) */
  feint_value lambda;   /* helmholtz (default 1) */
  feint_value E, nu;    /* elasticity: E and nu ... */
  feint_value lame_lambda, lame_mu; /* ... or the Lame parameters */
  feint_value_list velocity; /* advection */
  feint_value_list tensor;   /* diffusion: 3x3 (or 2x2 in 2D), row-major */
  feint_value_list source;   /* f: scalar, or one per component (default 0) */
  feint_case_form form;      /* kind form */

  /* state: */
  feint_value_list state_u;  /* u: scalar or one per component (default 0) */

  /* boundary: */
  int n_boundary;
  feint_boundary *boundary;

  /* output: */
  char *output_file;   /* default: case file name with .h5; -o overrides */
  int write_residual, write_matrix, write_rhs, write_element_matrices;
  /* /dofs/cell_dofs: 1 written, 0 not, -1 (auto, the default) written
   * unless the space is first order without element matrices (then the
   * dof map is the mesh's connectivity, which the user already has) */
  int write_cell_dofs;
  int write_xdmf;      /* output.xdmf: an XDMF file of views beside the HDF5 one (feint/xdmf.h) */
  int write_near_null_space; /* /near_null_space: rigid body modes or constants */
  char *matrix_market_file;  /* also write the matrix as Matrix Market; NULL = no */

  /* backend: */
  feint_device_kind device;
  feint_precision precision;
  int blocks_per_batch, batches_per_chunk; /* 0 = measured defaults */
  int cache; /* backend.cache: 1 (default) the disk cache of compiled code (feint/cache.h), 0 none */

  /* assembly: */
  feint_assembly_strategy strategy;
  feint_dirichlet_mode dirichlet; /* rows (default) | symmetric */

  /* operator: (issue 4) y = A x with a BP operator on a hexahedral mesh
   * instead of the physics outputs; has_operator = 0 when absent. With it,
   * physics is optional, space.order may be 1..15, and the residual,
   * matrix, rhs, element_matrices, near_null_space outputs, boundary
   * conditions, quadrature.degree and more than one component are refused. */
  int has_operator;
  int operator_kind;      /* feint_bp_kind: 0 bp1.0, 1 bp3.5, 2 bp3.0 */
  int operator_geometry;  /* feint_bp_geo_mode: 0 stored (default), 1 recompute */
  double operator_lambda; /* screening constant of bp3.x, >= 0, default 1 */
  char operator_lambda_where[256]; /* "case.yaml:8:30" of an explicit operator.lambda, else "" */
  char operator_where[256];

  /* sweep: (0 members = a single run) */
  int n_sweep;
  feint_sweep_member *sweep;
  void *member_template; /* private to src/case: the parsed case with the overrides and without the
                            sweep section, each member's starting point (members are loaded in time
                            linear in their number: nothing is parsed again) */
  char *sweep_output;  /* file name template ({index}); NULL = <output stem>-{index}.h5 */
  int sweep_groups;    /* layout: groups (one file, a group per member) */
  char sweep_where[256];

  /* keys accepted but not used (physics keys the kind ignores): warnings
   * for the command to print, "<where>: <what>" */
  int n_warnings;
  struct {
    char where[256];
    char what[160];
  } warnings[FEINT_CASE_MAX_WARNINGS];
} feint_case;

/* Load `path` ("-" reads stdin) and apply overrides ("a.b=value"). Errors:
 * FEINT_ERR_INPUT with "file:line:col: message" (overrides are reported as
 * "--set a.b=value: message"). */
int feint_case_load(const char *path, int n_overrides, const char *const *overrides,
                    feint_case **out);
/* As feint_case_load, from `len` bytes of `text` (copied; NULs allowed),
 * reading no file: `path` names the case in messages and is the base of its
 * relative paths (the fuzz harness tests/fuzz/fuzz_case.c loads this way). */
int feint_case_load_text(const char *path, const char *text, size_t len, int n_overrides,
                         const char *const *overrides, feint_case **out);
void feint_case_destroy(feint_case *c);

/* The case of sweep member `member` of `base`: base's parsed case with the
 * base's overrides, then the member's values (no parsing: time linear in
 * the members). Its as_run has no sweep section.
 * Errors name the member: "<sweep where>: sweep member N: <message>". */
int feint_case_load_member(const feint_case *base, int member, feint_case **out);

const char *feint_physics_name(feint_physics_kind kind);

#endif
