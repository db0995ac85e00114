/* feint BP operators: matrix-free y = A x on high-order hexahedra, after
 * Swirydowicz, Chalmers, Karakus, Warburton ("Acceleration of tensor-product
 * operations for high-order finite element methods") and the CEED
 * bake-off problems.
 *
 * Space. Continuous Lagrange elements of order N = 1..15 on hexahedra with
 * the (N+1)^3 Gauss-Lobatto-Legendre (GLL) nodes of the reference cube
 * [-1, 1]^3 (include/feint/tensor.h). Local node (i, j, k), i along r
 * (fastest), j along s, k along t, has local index i + P j + P^2 k,
 * P = N + 1. Geometry is trilinear from the cell's 8 vertices (so the
 * Jacobian varies inside a cell when the mesh is perturbed), or on a
 * curved mesh the map of each cell's geometry nodes (stored factors).
 *
 * Operators (lambda >= 0 is the screening constant):
 *   BP1.0  y = M x,               Q = N + 2 Gauss-Legendre (GL) points per
 *                                 direction;
 *   BP3.5  y = (S + lambda M) x,  Q = P collocated GLL points (M is then the
 *                                 lumped GLL mass);
 *   BP3.0  y = (S + lambda M) x,  Q = N + 2 GL points.
 * With B (Q x P) the GLL basis at the quadrature points, Dq (Q x Q) the
 * collocation derivative on the quadrature points, and per point the seven
 * geometric factors
 *   g = (G00, G01, G02, G11, G12, G22, w|J|),  G = w |J| J^-1 J^-T,
 * J = dx/dr, w the tensor weight: per cell e, with u = (B x B x B) x_e,
 *   M_e x_e = B^T (w|J| u),
 *   S_e x_e = B^T Dq^T G Dq u  (Dq acting along r, s, t: the reference
 *             gradient; at GLL collocation B = I).
 * and y = sum_e E_e^T A_e E_e x with E_e the gather by the dof map.
 *
 * Geometric factors are either stored (n_cells x ngeo x Q^3 doubles, ngeo = 1
 * for BP1.0 (w|J| only) and 7 for BP3.x, point index fastest) or recomputed
 * at every point from the cell's 24 vertex coordinates by
 * feint_bp_hex_geometry() below (the same source on the CPU and in the CUDA
 * kernels).
 *
 * Mesh. feint_hexmesh is a first-order hexahedral mesh; the generator here
 * makes a structured box, optionally with a smooth interior perturbation
 * that vanishes on the boundary (so the box volume is unchanged and the
 * geometry is not affine). Cell vertices are listed lexicographically:
 * vertex a + 2b + 4c sits at reference (2a-1, 2b-1, 2c-1) (this is NOT
 * Gmsh's hexahedron order; a Gmsh reader must permute 0 1 3 2 4 5 7 6).
 *
 * Dof map. feint_bp_dofmap holds, per cell, the global index of each of its
 * (N+1)^3 local nodes (int32, cell-major). On the box the global nodes are
 * the GLL lattice: shared faces, edges and vertices get one dof. */
#ifndef FEINT_BP_H
#define FEINT_BP_H

#include <stddef.h>
#include <stdint.h>

#include "feint/physics.h" /* FEINT_HOST_DEVICE */
#include "feint/mesh.h"    /* feint_hexmesh_from_mesh */

#define FEINT_BP_MAX_ORDER 15

typedef enum { FEINT_BP1_0 = 0, FEINT_BP3_5 = 1, FEINT_BP3_0 = 2 } feint_bp_kind;
typedef enum { FEINT_BP_GEO_STORED = 0, FEINT_BP_GEO_RECOMPUTE = 1 } feint_bp_geo_mode;

const char *feint_bp_name(feint_bp_kind kind); /* "BP1.0", "BP3.5", "BP3.0" */

/* ------------------------------------------------------------------ mesh */
typedef struct {
  int nx, ny, nz;          /* cells per direction (box meshes) */
  double lx, ly, lz;       /* box extent: [0, lx] x [0, ly] x [0, lz] */
  int64_t n_cells, n_vertices;
  double *vertices;        /* n_vertices x 3 */
  int64_t *cells;          /* n_cells x 8, lexicographic (see above) */
  /* a curved mesh's (feint_hexmesh_from_mesh): each cell's geometry nodes
   * (n_cells x n_geometry_nodes x 3, Gmsh's order and reference cube, whose
   * axes are r, s, t: fe.h), which make its map instead of the vertices;
   * else 0 and NULL */
  int n_geometry_nodes;
  double *geometry_nodes;
} feint_hexmesh;

/* Box of nx x ny x nz cells. perturb in [0, 0.3]: interior vertices move by
 * up to perturb x (cell size) along a smooth field that is zero on the
 * boundary. Cell (cx, cy, cz) has index cx + nx (cy + ny cz). */
int feint_hexmesh_box(int nx, int ny, int nz, double lx, double ly, double lz, double perturb,
                      feint_hexmesh **out);
void feint_hexmesh_destroy(feint_hexmesh *m);

/* --------------------------------------------------------------- dof map */
typedef struct {
  int order, np;           /* N and (N+1)^3 */
  int64_t n_cells, n_dofs;
  int32_t *cell_dofs;      /* n_cells x np */
} feint_bp_dofmap;

/* GLL lattice numbering of a box mesh: node (gi, gj, gk), gi in 0..N nx,
 * has index gi + (N nx + 1) (gj + (N ny + 1) gk). FEINT_ERR_INPUT when the
 * count does not fit in int32. */
int feint_bp_dofmap_box(const feint_hexmesh *m, int order, feint_bp_dofmap **out);
void feint_bp_dofmap_destroy(feint_bp_dofmap *d);

/* ------------------------------------------- unstructured hex meshes
 * (src/bp/dofmap.c) */

/* The hexahedra of a Gmsh mesh (cell_type FEINT_CELL_HEXAHEDRON) as a
 * feint_hexmesh: vertices are the mesh nodes, each cell's vertex list is
 * permuted from Gmsh's order to the lexicographic one (0 1 3 2 4 5 7 6).
 * nx = ny = nz = 0 and lx, ly, lz = the bounding box extents (it is no box
 * mesh: feint_bp_dofmap_box refuses it). FEINT_ERR_INPUT on other cells. */
int feint_hexmesh_from_mesh(const feint_mesh *mesh, feint_hexmesh **out);
/* A curved mesh's geometry nodes copied into m (the operator's map and
 * dof coordinates then take them); nothing where every cell is straight. */
int feint_hexmesh_take_geometry(feint_hexmesh *m, const feint_mesh *mesh);

/* Continuous GLL dof map of order N = 1..15 on any conforming first-order
 * hex mesh, from its topology (local order lexicographic, i fastest, as the
 * kernels expect). Entities of the mesh get dofs as follows:
 *  - vertex: one dof;
 *  - edge: N-1 dofs, numbered from the edge's lower global vertex towards
 *    the higher one;
 *  - face: (N-1)^2 dofs in a canonical frame: origin at the face's lowest
 *    global vertex, first axis towards whichever of the origin's two face
 *    neighbours has the lower global vertex, second axis towards the other;
 *    dof (p, q), p, q in 1..N-1 along those axes, is number
 *    (p-1) + (N-1)(q-1) of the face;
 *  - cell interior: (N-1)^3 dofs, lexicographic.
 * So two cells see a shared edge or face in whatever local orientation
 * (any of the cube's 48 symmetries applied to a cell's vertex list) and
 * still agree on its dofs. Global numbers are handed out in order of first
 * appearance (cells in order, local nodes lexicographic), which keeps a
 * cell's dofs close together. Errors (FEINT_ERR_INPUT): order out of range,
 * a cell with a repeated vertex, a face shared by more than two cells, more
 * dofs than int32 holds. */
int feint_bp_dofmap_create(const feint_hexmesh *m, int order, feint_bp_dofmap **out);

/* Coordinates of the dofs (n_dofs x 3) from each cell's trilinear map at
 * the GLL points. A dof shared by several cells is computed from each;
 * *mismatch (may be NULL) is the largest distance between two of those
 * values (round-off for a consistent dof map). */
int feint_bp_dof_coordinates(const feint_hexmesh *m, const feint_bp_dofmap *d, double *xyz, double *mismatch);

/* ------------------------------ shared-first numbering (src/bp/split.c)
 * The GPU adds each cell's results into y with atomics, after zeroing y:
 * every dof of y then costs a zeroing write, an atomic read and a write.
 * A dof inside a cell (local node with 1 <= i, j, k <= N-1; (N-1)^3 of
 * them, 63% of all dofs at N = 7 on a box) belongs to that cell alone, so
 * it can be written by a plain store, without zeroing or reading it. The
 * split numbering gives the shared dofs (of vertices, edges, faces: any
 * dof that more than one local node refers to, or none) the numbers
 * [0, n_shared) in their original relative order, and then, cell by cell,
 * each cell's own dofs one contiguous run in local lexicographic order:
 * cell e's (N-1)^3 interior dofs are n_shared + e (N-1)^3 + ... on the
 * meshes of feint_bp_dofmap_box and feint_bp_dofmap_create. A dof that
 * only one local node refers to, and that node inside its cell, is "own";
 * a GPU kernel stores into dofs >= n_shared and adds atomically below.
 *
 * *out is d renumbered (a new map); perm (n_dofs int32) gives for each new
 * number the original one: x_new[i] = x[perm[i]], y[perm[i]] = y_new[i].
 * FEINT_ERR_INPUT on a dof number outside [0, n_dofs). */
int feint_bp_dofmap_split(const feint_bp_dofmap *d, feint_bp_dofmap **out, int32_t **perm, int64_t *n_shared);

/* -------------------------------------------------------------- operator */
typedef struct {
  feint_bp_kind kind;
  feint_bp_geo_mode geo_mode;
  int order, p, q;         /* N, P = N + 1, Q points per direction */
  int ngeo;                /* 1 (BP1.0) or 7 */
  double lambda;
  const feint_hexmesh *mesh;
  const feint_bp_dofmap *dofs;
  int64_t n_cells, n_dofs;
  double *xe;              /* n_cells x 24 cell vertex coordinates xe[24 e + 3 v + d] */
  double *geo;             /* stored: n_cells x ngeo x Q^3 (NULL when recomputed) */
  double gll[FEINT_BP_MAX_ORDER + 1];       /* the P GLL nodes */
  double qpts[FEINT_BP_MAX_ORDER + 2], qwts[FEINT_BP_MAX_ORDER + 2];
  double B[(FEINT_BP_MAX_ORDER + 2) * (FEINT_BP_MAX_ORDER + 1)];  /* Q x P: GLL basis at the points */
  double Bd[(FEINT_BP_MAX_ORDER + 2) * (FEINT_BP_MAX_ORDER + 1)]; /* Q x P: its derivative */
  double Dq[(FEINT_BP_MAX_ORDER + 2) * (FEINT_BP_MAX_ORDER + 2)]; /* Q x Q: collocation derivative */
} feint_bp_op;

/* The operator on a mesh and dof map (both must outlive it). Stored geometric
 * factors are computed here on the CPU. */
int feint_bp_op_create(const feint_hexmesh *m, const feint_bp_dofmap *d, feint_bp_kind kind,
                       feint_bp_geo_mode mode, double lambda, feint_bp_op **out);
void feint_bp_op_destroy(feint_bp_op *op);

/* CPU reference: y = A x (n_dofs each), by sum factorisation. */
int feint_bp_apply(const feint_bp_op *op, const double *x, double *y);

/* Element matrix of cell e (np x np, row-major), by the same quadrature but
 * computed directly from the 3D tabulated basis (B and Bd, not Dq): an
 * independent check of the sum-factorised action. */
int feint_bp_element_matrix(const feint_bp_op *op, int64_t e, double *Ae);

/* Assembled CSR matrix (rows sorted, no duplicates). */
typedef struct {
  int64_t n, nnz;
  int64_t *rowptr, *cols;
  double *vals;
} feint_bp_csr;
int feint_bp_assemble(const feint_bp_op *op, feint_bp_csr **out);
void feint_bp_csr_matvec(const feint_bp_csr *A, const double *x, double *y);
void feint_bp_csr_destroy(feint_bp_csr *A);

/* Cost model (the paper's Table 2, extended by the global gather/scatter):
 * the fewest bytes one application must move (x read once, y written
 * once, the geometric factors (stored: ngeo Q^3 per cell; recomputed: the
 * 24 vertex coordinates per cell), the int32 dof map) and the floating-point
 * operations of the sum-factorised operator (geometry recomputation not
 * counted). */
double feint_bp_min_bytes(const feint_bp_op *op);
double feint_bp_flops(const feint_bp_op *op);

/* ------------------------------------------------------------------- GPU */
/* The CUDA implementation (src/backend/cuda/bp.cu, built with nvcc only:
 * a build without it has none of these functions; feint reaches them
 * through the registry's operator backends). Create uploads the
 * dof map and the cell vertex coordinates, and computes stored geometric
 * factors on the device (feint_bp_hex_geometry, the CPU's formula; a
 * curved mesh's are uploaded from op->geo); on straight cells it reads
 * op->geo_mode but never op->geo, so a caller may create the host operator
 * in RECOMPUTE mode (no host factors) and set geo_mode = STORED before
 * creating the GPU one (the benchmark does, for large meshes). */
typedef struct feint_bp_gpu feint_bp_gpu;
/* op's dof map must outlive the GPU operator (feint_bp_gpu_set_numbering
 * renumbers from it). */
int feint_bp_gpu_create(const feint_bp_op *op, int device_index, feint_bp_gpu **out);
/* y = A x with host arrays (uploads x, downloads y). */
int feint_bp_gpu_apply(feint_bp_gpu *g, const double *x, double *y);
/* Benchmark: fills the device x with random values from seed, applies once
 * to warm up, then reps times, each timed with events (zeroing y plus the
 * kernel); *median_ms / *min_ms of those. */
int feint_bp_gpu_bench(feint_bp_gpu *g, int reps, unsigned seed, double *median_ms, double *min_ms);
/* Benchmarks and tests: which kernel runs (src/backend/cuda/bp.cu, measured
 * in docs/perf/bp-operators.md). 1 layered kernels, stored factors loaded
 * where used; 2 the same, loaded ahead of their use (a layer ahead, or all
 * of BP1.0's w|J| at the start); 3 staged kernels (contractions along t
 * against constant tables, stored factors copied asynchronously into
 * shared memory); 4 the same with Dq's rows held in registers (BP3.x,
 * stored factors; otherwise as 3); 5 BP1.0 with stored factors: passes
 * along r and s tiled two outputs per shared-memory read (otherwise as
 * 3); 6 line kernels, stored factors: every pass contracts whole lines
 * held in registers (each shared-memory value read once per line, not
 * once per output; otherwise as 3); 7 the same with one grid buffer and
 * ring layer less for BP3.x (more blocks per SM; BP1.0 as 6); 8 BP1.0's
 * line kernel with w|J| read from global memory where used instead of
 * staged in shared memory (more blocks per SM; BP3.x as 6); 9 as 8 with
 * B and B^T applied in even-odd form (B[Q-1-a][N-i] = B[a][i]: about
 * half the multiplications; BP3.x as 6); 0 (default) the one measured
 * fastest for the kind, order and geometry mode. A binary holds each
 * (kind, geometry, order)'s default only unless built with make
 * EXPERIMENTS=1: another variant is then FEINT_ERR_INPUT, saying so. */
int feint_bp_gpu_set_variant(feint_bp_gpu *g, int variant);
/* 1 when this binary holds variant (0..9) of kind at order with geometry
 * mode (feint_bp_gpu_set_variant would accept it), else 0. */
int feint_bp_gpu_variant_built(feint_bp_kind kind, feint_bp_geo_mode mode, int order, int variant);
/* Benchmarks: the resources of the kernel the operator now runs
 * (cudaFuncGetAttributes and the occupancy API): registers and local
 * memory (bytes of stack/spills) a thread, shared memory a block (static
 * + dynamic), threads and cells a block, blocks resident per SM. */
typedef struct {
  int registers, local_bytes, shared_bytes, threads, cells_per_block, blocks_per_sm;
} feint_bp_kernel_info;
int feint_bp_gpu_kernel_info(feint_bp_gpu *g, feint_bp_kernel_info *info);
/* Which dof numbering the device works in: split = 1 the shared-first one
 * (feint_bp_dofmap_split: the line kernels store into a cell's own dofs
 * and zero and add atomically only the shared ones; feint_bp_gpu_apply
 * permutes x in and y out, so its arrays stay in the dof map's numbering,
 * while feint_bp_gpu_bench times y = A x in the internal numbering, as a
 * solver working in it would run), 0 the dof map's own (every dof zeroed
 * and added atomically), < 0 the default: the environment variable
 * FEINT_BP_NUMBERING (split or own; create refuses another value) when
 * set, else split (measured faster on the H100 with 10M-dof meshes: the
 * line kernels gained 1-14 points of the copy bandwidth, BP1.0 N = 7
 * 57.8 -> 67.1%, BP3.5 N = 8 78.8 -> 86.0%, the others within noise;
 * docs/perf/bp-operators.md). */
int feint_bp_gpu_set_numbering(feint_bp_gpu *g, int split);
/* 1 when the device works in the split numbering. */
int feint_bp_gpu_split(const feint_bp_gpu *g);
/* The name of CUDA device device_index. */
int feint_bp_gpu_device_name(int device_index, char *name, size_t size);
void feint_bp_gpu_destroy(feint_bp_gpu *g);

/* ------------------------------------------------------ shared geometry */
/* The seven geometric factors at reference point (r, s, t) of a trilinear
 * hexahedron with vertex coordinates xe[3 v + d] (lexicographic vertices),
 * for quadrature weight w: g = (G00, G01, G02, G11, G12, G22, w|J|). */
/* The seven factors of a point (G = w |J| J^-1 J^-T, w |J|: bp.h's g)
 * from J[d][c] = dx_d / dr_c and the tensor weight w. */
FEINT_HOST_DEVICE static inline void feint_bp_jacobian_factors(const double J[3][3], double w, double *g) {
  /* adj(J)[c][d] = cofactor(J)[d][c]; J^-1 = adj / det */
  double A00 = J[1][1] * J[2][2] - J[1][2] * J[2][1];
  double A01 = J[0][2] * J[2][1] - J[0][1] * J[2][2];
  double A02 = J[0][1] * J[1][2] - J[0][2] * J[1][1];
  double A10 = J[1][2] * J[2][0] - J[1][0] * J[2][2];
  double A11 = J[0][0] * J[2][2] - J[0][2] * J[2][0];
  double A12 = J[0][2] * J[1][0] - J[0][0] * J[1][2];
  double A20 = J[1][0] * J[2][1] - J[1][1] * J[2][0];
  double A21 = J[0][1] * J[2][0] - J[0][0] * J[2][1];
  double A22 = J[0][0] * J[1][1] - J[0][1] * J[1][0];
  double det = J[0][0] * A00 + J[0][1] * A10 + J[0][2] * A20;
  double adet = det < 0 ? -det : det;
  /* G = w |det| (adj/det)(adj/det)^T = w / |det| adj adj^T */
  double f = w / adet;
  g[0] = f * (A00 * A00 + A01 * A01 + A02 * A02);
  g[1] = f * (A00 * A10 + A01 * A11 + A02 * A12);
  g[2] = f * (A00 * A20 + A01 * A21 + A02 * A22);
  g[3] = f * (A10 * A10 + A11 * A11 + A12 * A12);
  g[4] = f * (A10 * A20 + A11 * A21 + A12 * A22);
  g[5] = f * (A20 * A20 + A21 * A21 + A22 * A22);
  g[6] = w * adet;
}

/* The factors at (r, s, t) of the trilinear map of the cell's 8 vertices
 * xe (lexicographic). */
FEINT_HOST_DEVICE static inline void feint_bp_hex_geometry(const double *xe, double r, double s, double t,
                                                           double w, double *g) {
  double J[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}}; /* J[d][c] = dx_d / dr_c */
  for (int v = 0; v < 8; v++) {
    double sa = (v & 1) ? 1 : -1, sb = (v & 2) ? 1 : -1, sc = (v & 4) ? 1 : -1;
    double fr = 1 + sa * r, fs = 1 + sb * s, ft = 1 + sc * t;
    double dr = 0.125 * sa * fs * ft, ds = 0.125 * sb * fr * ft, dt = 0.125 * sc * fr * fs;
    for (int d = 0; d < 3; d++) {
      double X = xe[3 * v + d];
      J[d][0] += X * dr;
      J[d][1] += X * ds;
      J[d][2] += X * dt;
    }
  }
  feint_bp_jacobian_factors(J, w, g);
}

#endif
