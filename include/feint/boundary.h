/* feint boundary conditions: the case's `boundary:` entries on a space.
 *
 * Applied on the host to what a backend computed (matrix values, load
 * vector, residual), so every backend gets them alike; the Neumann and
 * Robin facet integrals themselves are computed on the host or on the
 * backend's device (feint_boundary_integrate).
 *
 * Groups: each entry names a physical group of dimension dim-1 (curves in
 * 2D, surfaces in 3D); a group of another dimension or an unknown name is
 * an input error. Only facets made of vertices and edges of region cells
 * count (facets of the group outside the region are skipped; a group with
 * none is an error).
 *
 * Facets are segments (2D), triangles (tetrahedra), quadrilaterals
 * (hexahedra) or both (prisms: triangles on top and bottom, quadrilaterals
 * on the sides; 3D mixed meshes: the faces of all their blocks; mesh.h);
 * their dofs and the node order of their basis come from
 * feint_space_facets (space.h), which on hexahedra, prisms and 3D mixed
 * meshes reads them from the cell holding the facet, in the dof map's face
 * frame.
 *
 * Dirichlet (`dirichlet: VALUE` or `[V0, V1, V2]`): constrains every dof
 * of the group's facets (vertex dofs, for order > 1 the dofs of the
 * facet's edges, and for order > 2 in 3D the facet's interior dofs;
 * feint_space_facets_dofs). A single value applies to every
 * component of a vector space, a list gives one value per component and a
 * null item leaves that component free. Values (numbers, expressions in
 * x y z, or node datasets) are evaluated at the dof coordinates. Where
 * groups overlap (corners, shared edges) the later entry of the list wins;
 * a null item never frees a dof an earlier entry constrained.
 *
 * Elimination (assembly.dirichlet):
 *   rows      (default) each constrained row i of the matrix becomes the
 *             unit row: A_ii = 1, A_ij = 0 (j != i), and b_i = g_i.
 *   symmetric also the constrained columns of the free rows are zeroed and
 *             their contribution lifted to the load: b_i -= A_ij g_j for
 *             free i, constrained j (with the unmodified A), so a symmetric
 *             (positive definite) matrix stays so. Both give the same
 *             solution.
 * The CSR pattern is kept: zeroed entries stay as explicit zeros, so
 * matrices with and without conditions share one pattern. Element matrices
 * are written unmodified. The residual is F_i = u_i - g_i on constrained
 * rows (F = A u - b elsewhere, b including the Neumann load).
 *
 * Neumann (`neumann: VALUE` or a list per component, null = 0): the load
 * gets b_i += integral over the group's facets of h phi_i, by Gauss
 * quadrature on each facet with the facet's own Lagrange basis of the
 * space's order: the segment or triangle element on simplices, the segment
 * on the edges' p+1 Gauss-Lobatto-Legendre nodes on quadrilateral meshes
 * (orders 1..15), the tensor GLL quadrilateral on hexahedra (1..15), and on
 * prisms (1..7) the P_p triangle on top and bottom and the tensor of the
 * equispaced P_p (triangle edge x segment) on the sides; on mixed meshes
 * with quadrilaterals or hexahedra (1..7) the same with the Lobatto nodes
 * of fe.h (GLL on every edge and prism side). h is interpolated
 * in that basis at the facet's dofs (constants stay exact), and the rule
 * has degree order + (order if h varies), exact for that integrand on
 * affine facets. Quadrilateral facets are the bilinear patches of their
 * vertices, |dx/ds x dx/dt| taken at each point: their tensor rule has one
 * degree more (exact on planar faces) plus 8 (4 points per direction) for
 * the non-polynomial area element of a twisted face. A single value applies
 * to every component of a vector space.
 *
 * Robin (`robin: {alpha: A, value: G}`, A required, G default 0):
 * kappa du/dn + alpha u = alpha G, for a vector space sigma n + alpha u =
 * alpha G with alpha a matrix (a spring support in elasticity). A is one
 * value (alpha = A I), a list of one value per component (diagonal; null =
 * 0) or a list of lists, nc x nc (a tensor coupling the components, e.g.
 * normal and tangential stiffness); G is one value or one per component.
 * The weak form gains the facet integrals of (alpha u) . v (matrix) and
 * (alpha G) . v (load): entries ((i c), (j d)) += int alpha_cd phi_i phi_j
 * and load (i c) += int sum_d alpha_cd G_d phi_i, alpha and G interpolated
 * at the facet's dofs, by a rule of degree 2 order (+ order if alpha
 * varies), exact for the interpolants on affine facets. The largest facet
 * rule (feint_quadrature_max_degree, fe.h) has degree FEINT_QUAD_MAX_DEGREE
 * = 40 on triangles and 2 FEINT_TENSOR_MAX_POINTS - 1 = 47 on segments and
 * quadrilaterals (tensor.h): a varying alpha works to order 15 on
 * quadrilateral meshes (3 x 15 = 45 on the segments) and on hexahedra
 * (3 x 15 + 1 = 46 on the quadrilateral faces); simplices and prisms stop
 * at order 7.
 *
 * Neumann and Robin share one facet machinery (boundary/facet.h): the
 * setup (facets on the region, vertex coordinates, coefficients at the
 * facet dofs, facet slot maps into a compact load and into the distinct
 * Robin entries, "sites") is built on the host once, and the integrals are
 * computed from it by feint_boundary_integrate on the host or on a device.
 * apply_matrix adds the sites to the CSR values (at positions found once by
 * binary search in the sorted rows, feint_boundary_bind_pattern) before the
 * Dirichlet elimination; apply_rhs adds the load and, in the symmetric
 * mode, lifts with the Robin entries too (the matrix it lifts with is
 * A + R); apply_residual adds R u - load (F = A u - b). */
#ifndef FEINT_BOUNDARY_H
#define FEINT_BOUNDARY_H

#include <stdint.h>

#include "feint/case.h"
#include "feint/h5.h"
#include "feint/plan.h"
#include "feint/space.h"

/* Timings of the last integration on a device (milliseconds; device times
 * by the device's events). */
typedef struct {
  double upload_ms;   /* host-to-device copy of the facet sets */
  double kernel_ms;   /* the facet kernels */
  double download_ms; /* device-to-host copy of the load and the Robin values */
  double total_ms;    /* host wall time, allocation included */
  int64_t bytes;      /* bytes the kernels read and write at least (facet data in, load and values out) */
  char device[128];
} feint_boundary_device_stats;

struct feint_facet_view; /* one facet set as the integration loops read it (boundary/facet.h) */

/* A device twin of the host loop over the facet sets (a backend's
 * integrate_facets, backend.h): load (n_load) and sites (n_sites)
 * overwritten with the integrals of the n_sets sets (host views); stats
 * may be NULL. */
typedef int feint_facet_integrator(const struct feint_facet_view *const *sets, int n_sets, int64_t n_load,
                                   int64_t n_sites, double *load, double *sites, feint_boundary_device_stats *stats);

struct feint_boundary_facets; /* one Neumann or Robin entry's facets (boundary/facet.h) */

typedef struct {
  const feint_space *space;   /* not owned; NULL in another rank's copy (feint_boundary_unpack) */
  int64_t n_dofs;             /* the whole's */
  feint_dirichlet_mode mode;
  int64_t n_dirichlet;        /* constrained dofs */
  int64_t *dirichlet_dofs;    /* n_dirichlet, sorted */
  double *dirichlet_values;   /* n_dirichlet */
  unsigned char *constrained; /* n_dofs: 1 on constrained dofs */
  double *g;                  /* n_dofs: the prescribed value on constrained dofs, 0 elsewhere */
  /* Neumann and Robin: the facet sets (setup shared by the host and device integration) */
  int n_sets;
  struct feint_boundary_facets *sets;
  int64_t n_neumann_facets, n_robin_facets; /* facets integrated */
  /* the boundary load (Neumann + Robin), compact: load[k] adds to dof load_dofs[k] */
  int64_t n_load, load_capacity;
  int64_t *load_dofs;         /* n_load, in order of first touch */
  double *load;               /* n_load */
  int64_t *slot_of;           /* during create only: dof -> load slot or -1 */
  feint_space_facets *facet_lookup; /* during create only: the facets' dofs */
  int64_t *node_cell_ptr, *node_cells; /* during create only, for a curved mesh or a flux condition: node ->
                                          its cells (CSR), to take each facet's map from its cell */
  const feint_mesh *holders;  /* during create only: the cells node_cells lists (the space's mesh's, or those
                                 given to feint_boundary_create_with_holders) */
  feint_curved_geometry curved_geometry[FEINT_MESH_MAX_BLOCKS]; /* with node_cells: each block's geometry tables */
  /* the Robin matrix: one site per distinct entry (site_rows, site_cols) */
  int64_t n_sites;
  int64_t *site_rows, *site_cols; /* n_sites, sorted by row then column within rows of one slot */
  double *site_values;        /* n_sites */
  int64_t *site_positions;    /* n_sites: index into the CSR values; NULL until bound */
  const feint_plan *site_plan; /* the pattern bound (identity check) */
  int integrated;             /* load and site_values computed (feint_boundary_integrate) */
  /* another rank's copy for a residual: the state at the Dirichlet dofs and the Robin entries' columns */
  double *dirichlet_u, *site_u;
  feint_boundary_device_stats device_stats; /* of the last integration on a device */
} feint_boundary_conditions;

/* Build the conditions of case `c` on `space` (c->boundary, c->dirichlet).
 * Errors (FEINT_ERR_INPUT, naming the entry's file:line:column): unknown
 * group (listing the boundary groups), group of the wrong dimension, group
 * with no facet on the region, a value list whose length is neither 1 nor
 * the number of components, a cell dataset, a bad expression. */
int feint_boundary_create(const feint_case *c, const feint_space *space, feint_boundary_conditions **out);
/* The facet groups of the case's flux conditions (-1 for a group the mesh
 * lacks: its error is feint_boundary_create's), into groups (room for
 * c->n_boundary); returns how many. */
int feint_boundary_flux_groups(const feint_case *c, const feint_mesh *mesh, int *groups);
/* The same, a flux condition's facets oriented by the cells of `holders`
 * (NULL: the space's mesh): straight cells of the space's mesh's shape on
 * the same nodes, among them each flux facet's lowest-numbered cell of the
 * whole mesh, in the whole's order (for a rank that holds only its share
 * of the cells: the cells that may hold a flux facet, gathered from every
 * share). The conditions are then the whole's, bit for bit. Read during
 * the call only. */
int feint_boundary_create_with_holders(const feint_case *c, const feint_space *space, const feint_mesh *holders,
                                       feint_boundary_conditions **out);

/* Compute the Neumann and Robin facet integrals (load, site_values) on the
 * host (device NULL: the reference) or by a backend's device twin (same
 * setup, same per-facet functions, atomics: equal to rounding). Needed
 * before the apply functions; again after nothing (the values do not
 * depend on the matrix). The device's failures are returned as they are. */
int feint_boundary_integrate(feint_boundary_conditions *bc, feint_facet_integrator *device);
void feint_boundary_destroy(feint_boundary_conditions *bc);

/* Find the positions of the Robin matrix entries in the CSR pattern
 * (binary search in each sorted row), once; apply_matrix then adds them
 * directly (without a bound pattern it searches each time). No-op without
 * Robin terms. FEINT_ERR_COMPUTE if an entry is missing from the pattern. */
int feint_boundary_bind_pattern(feint_boundary_conditions *bc, const feint_plan *plan);

/* 1 when apply_rhs needs the assembled (unmodified) matrix values: the
 * symmetric mode with constrained dofs. */
int feint_boundary_rhs_needs_matrix(const feint_boundary_conditions *bc);

/* F(u) from a backend -> with the conditions (see above). */
void feint_boundary_apply_residual(const feint_boundary_conditions *bc, const double *u, double *F);

/* Load vector from a backend -> with the conditions: adds the Neumann
 * load, lifts (symmetric mode: needs the CSR pattern and the matrix values
 * before apply_matrix; NULL otherwise allowed) and sets b_i = g_i on
 * constrained rows. */
int feint_boundary_apply_rhs(const feint_boundary_conditions *bc, const feint_plan *plan, const double *values,
                             double *b);

/* CSR values (in the plan's pattern; n_dofs rows) -> eliminated rows
 * (and columns in the symmetric mode), in place. FEINT_ERR_COMPUTE if a
 * constrained row has no diagonal entry in the pattern. */
int feint_boundary_apply_matrix(const feint_boundary_conditions *bc, const feint_plan *plan, double *values);

/* The same on a block of rows [row0, row0 + n_rows) of the whole (a
 * rank's own rows under mpirun): F, b and values hold the block only,
 * plan is the block's pattern (its rows the block's, columns whole). u:
 * the whole state, or NULL in a copy packed with it. */
void feint_boundary_apply_residual_rows(const feint_boundary_conditions *bc, const double *u, int64_t row0,
                                        int64_t n_rows, double *F);
int feint_boundary_apply_rhs_rows(const feint_boundary_conditions *bc, const feint_plan *plan, int64_t row0,
                                  int64_t n_rows, const double *values, double *b);
int feint_boundary_apply_matrix_rows(const feint_boundary_conditions *bc, const feint_plan *plan, int64_t row0,
                                     double *values);

/* The conditions, integrated, as a message for another rank (*buf, freed
 * by the caller): Dirichlet dofs and values, the boundary load and the
 * Robin entries, and the state u at the dofs the residual reads (u may be
 * NULL when no residual is wanted). unpack makes the other rank's copy,
 * which the apply functions read as they read the original. */
int feint_boundary_pack(const feint_boundary_conditions *bc, const double *u, void **buf, size_t *bytes);
int feint_boundary_unpack(const void *buf, size_t bytes, feint_boundary_conditions **out);

/* <prefix>boundary/dirichlet_dofs (int64, sorted) and
 * <prefix>boundary/dirichlet_values (float64), also when empty; prefix ""
 * (or NULL) for the root, "member_0003/" for a sweep member's group. */
int feint_boundary_write(const feint_boundary_conditions *bc, feint_output *o, const char *prefix);

#endif
