/* feint dist: the ranks of an `mpirun -n P feint run` and what they
 * exchange.
 *
 * feint links no MPI: when mpirun (OpenMPI, or a launcher that sets
 * PMI_SIZE) starts it on more than one rank, feint_comm_create loads
 * feint-mpi.so (built beside feint when mpicc and METIS are found; MPI and
 * METIS behind it) and initialises MPI. Run without mpirun, feint loads
 * nothing of it.
 *
 * Rank 0 reads the mesh once, shares its cells among the ranks (by their
 * rows, along a Morton curve, or METIS on the dual graph) and sends each
 * rank its part (feint_dist_part_pack; or the ranks build their parts
 * from slabs of the whole, feint_dist_part_build_start): the rank's
 * cells and the nodes they use, and the part of the global dof map they
 * hold, in local numbers that keep the global order, so that a rank's
 * space (feint_space_create_from_map) numbers its dofs as the one-rank run
 * does, slot for slot. */
#ifndef FEINT_DIST_H
#define FEINT_DIST_H

#include <stddef.h>
#include <stdint.h>

#include "feint/bp.h"
#include "feint/mesh.h"
#include "feint/plan.h"
#include "feint/space.h"

typedef struct feint_comm feint_comm;

/* The world size and this process's rank that the launcher put in the
 * environment (OMPI_COMM_WORLD_SIZE, PMI_SIZE; ..._RANK), without an MPI
 * call: size 1 and rank 0 when no launcher started feint. local_rank is
 * the rank among those of its host (for the GPU it takes), local_size
 * how many ranks its host runs (else the world's size). */
typedef struct {
  int size, rank, local_rank, local_size;
} feint_launch;
feint_launch feint_comm_launch(void);

/* Measuring: when FEINT_TIMELINE names a file, append "RANK WHAT SECONDS"
 * (wall clock), so that a run's time outside its phases can be placed:
 * the process's start (main, against the launcher's start), MPI_Init,
 * the run, MPI_Finalize, the exit. */
void feint_dist_timeline(const char *what);
/* Load the plugin and initialise MPI (once per process). Errors
 * (FEINT_ERR_INPUT): feint built without MPI (no feint-mpi.so), a plugin
 * of another feint, MPI_Init failing. FEINT_MPI_PLUGIN names another
 * plugin file. */
int feint_comm_create(feint_comm **out);
/* MPI_Finalize. */
void feint_comm_destroy(feint_comm *comm);
int feint_comm_rank(const feint_comm *comm);
int feint_comm_size(const feint_comm *comm);
/* One message of any size to rank `to`, made of n_pieces pieces (no copy
 * into one buffer first): its length, then the pieces' bytes back to
 * back. Messages between two ranks arrive in the order sent. */
int feint_comm_sendv(feint_comm *comm, int to, const void *const *pieces, const size_t *sizes, int n_pieces);
/* The next message from rank `from`, in a buffer of its size (*buf, freed
 * by the caller; *bytes). */
int feint_comm_recv(feint_comm *comm, int from, void **buf, size_t *bytes);
/* One message to every other rank and one from each, all at once
 * (collective: every rank calls it). out[q] is the message to rank q (up
 * to FEINT_COMM_MAX_PIECES pieces; out[rank] is not sent); in[p] (freed by the caller) and
 * in_bytes[p] what rank p sent (in[rank] NULL). The ranks pair up in
 * rounds (a round-robin tournament), the lower rank of a pair sending
 * first, so that blocking sends cannot wait on each other in a cycle. */
enum { FEINT_COMM_MAX_PIECES = 10 };
typedef struct {
  const void *pieces[FEINT_COMM_MAX_PIECES];
  size_t sizes[FEINT_COMM_MAX_PIECES];
  int n;
} feint_comm_message;
int feint_comm_exchange(feint_comm *comm, const feint_comm_message *out, void **in, size_t *in_bytes);
/* n messages to ranks to[k] (each read by feint_comm_recv), all under way
 * at once rather than one after another: the receivers copy theirs side
 * by side. Returns once every one is sent. */
int feint_comm_send_many(feint_comm *comm, int n, const int *to, const feint_comm_message *messages);
/* The exchange's rounds among `size` ranks, and `rank`'s partner in round
 * `round` (-1: none that round): every two ranks meet once, in one round,
 * each as the other's partner. No MPI. */
int feint_comm_rounds(int size);
int feint_comm_round_partner(int rank, int round, int size);
/* One rank's piece of a dataset that exists in the file at its full size
 * already: `count` values at `offset` (row-major), from memory of type
 * mem. Or, n_ranges > 0, the ranges' values: range i is ranges[3 i + 2]
 * values at ranges[3 i] of the dataset, read from data + ranges[3 i + 1]
 * values (the ranges of a part's cells, gaps between them in memory). */
enum { FEINT_DIST_F64 = 0, FEINT_DIST_I64 = 1, FEINT_DIST_I32 = 2 };
typedef struct {
  const char *name;
  int mem;
  int64_t offset, count;
  const void *data;
  int64_t n_ranges;
  const int64_t *ranges;
} feint_dist_piece;
/* Collective: every rank writes its pieces of the same n datasets into the
 * HDF5 file at path (no other process or library holding it open), with
 * parallel HDF5 (MPI-IO, collective transfers); every rank returns the
 * same status. */
int feint_comm_write(feint_comm *comm, const char *path, int n, const feint_dist_piece *pieces);
/* End every rank now (a rank that cannot reach the others). */
void feint_comm_abort(feint_comm *comm, int status);

/* Partition the mesh's cells into nparts parts (METIS_PartMeshDual: two
 * cells are neighbours when they share a facet's worth of nodes), part[c]
 * in 0..nparts-1; deterministic. FEINT_ERR_INPUT past 2^31 nodes or cell
 * vertices (Debian's METIS has 32-bit indices). */
int feint_comm_partition(feint_comm *comm, const feint_mesh *mesh, int nparts, int *part);
/* The same on cells given as METIS's lists: cell c's n_nodes-numbered
 * vertices eind[eptr[c] .. eptr[c + 1]), neighbours sharing ncommon of
 * them (feint_comm_partition_ncommon); path names the mesh in messages. */
int feint_comm_partition_lists(feint_comm *comm, const char *path, int32_t n_cells, int32_t n_nodes, int32_t *eptr,
                               int32_t *eind, int ncommon, int nparts, int *part);
/* The vertices two of the mesh's cells share when they share a facet: an
 * edge (2D), a triangle (3D with tetrahedra or prisms), a quadrilateral
 * (hexahedra only). */
int feint_comm_partition_ncommon(const feint_mesh *mesh);

/* Partition the cells into nparts parts of equal size along the Morton
 * (Z-order) curve of their centroids (ties in cell order): part[c] in
 * 0..nparts-1, deterministic, linear time. No MPI. */
int feint_dist_partition_curve(const feint_mesh *mesh, int nparts, int *part);

/* The same partition made on shares of the mesh (feint_mesh_read_share:
 * each rank a range of the cells, in rank order, and its rows' range of
 * the nodes), none holding the whole: each share counts its cells in the
 * curve's boxes (feint_dist_curve_count), and each places its own cells
 * from every share's counts (feint_dist_curve_parts; under mpirun the
 * boxes' owners sum them: feint_dist_curve_parts_of_share), as
 * feint_dist_partition_curve places them in the whole. The curve: its
 * boxes (n_boxes, about two cells each) over the nodes' extent. */
typedef struct {
  int dim, bits;
  double lo[3], hi[3];
  int64_t n_cells; /* the whole's */
  int64_t n_boxes;
} feint_dist_curve;
/* The curve for the whole's n_cells cells over the mesh's nodes (every
 * share's nodes are the whole's: the same curve on every share). Any
 * number of cells (at most 2^30 boxes). */
int feint_dist_curve_create(const feint_mesh *mesh, int64_t n_cells, feint_dist_curve *curve);
/* The same over the extent [lo, hi] of the nodes (a share's, joined from every rank's). */
void feint_dist_curve_of_extent(int dim, int64_t n_cells, const double lo[3], const double hi[3],
                                feint_dist_curve *curve);

/* The coordinates of the nodes a rank's cells use, where the rank holds
 * only some of the whole's (a share: its rows' range, mesh.h): its own
 * range [node0, node0 + held) of x, y, z, and the others' it uses, a bit
 * a node of the whole (bits), the count of those before each 64-node
 * word (before) and their coordinates in node order (xyz, 3 each). */
typedef struct {
  int64_t node0, held;
  const double *x, *y, *z;
  uint64_t *bits;
  int64_t *before;
  double *xyz;
  double lo[3], hi[3]; /* the whole's nodes' extent */
} feint_dist_nodes;
/* Collective: those of this rank's share (mesh, share), the others' nodes
 * asked of their rows' owners, the whole's extent joined from every
 * rank's. A failed rank (status) takes part, as feint_dist_share_nodes. */
int feint_dist_share_cell_nodes(feint_comm *comm, int status, const feint_mesh *mesh, const feint_mesh_share *share,
                                feint_dist_nodes *out);
void feint_dist_nodes_release(feint_dist_nodes *nodes);
static inline void feint_dist_node_at(const feint_dist_nodes *l, int64_t n, double p[3]) {
  if (n >= l->node0 && n < l->node0 + l->held) {
    p[0] = l->x[n - l->node0], p[1] = l->y[n - l->node0], p[2] = l->z[n - l->node0];
    return;
  }
  const int64_t k = l->before[n >> 6] + __builtin_popcountll(l->bits[n >> 6] & (((uint64_t)1 << (n & 63)) - 1));
  p[0] = l->xyz[3 * k], p[1] = l->xyz[3 * k + 1], p[2] = l->xyz[3 * k + 2];
}

/* The box of each of the mesh's cells (*keys, freed by the caller) and how
 * many of them lie in each box (counts: n_boxes, overwritten), the cells'
 * nodes at nodes (NULL: the mesh's own coordinates).
 * FEINT_ERR_INPUT for a mesh (a share) past 2^31 cells. */
int feint_dist_curve_count(const feint_dist_curve *curve, const feint_mesh *mesh, const feint_dist_nodes *nodes,
                           int32_t **keys, int32_t *counts);
/* The parts of share `rank`'s n cells (keys from feint_dist_curve_count)
 * among `size` shares, counts[q] share q's counts: part[c], c < n. */
int feint_dist_curve_parts(const feint_dist_curve *curve, const int32_t *keys, int64_t n, const int32_t *const *counts,
                           int rank, int size, int nparts, int *part);
/* Collective: this rank's share's cells' parts (*parts, n_cells of the
 * share, freed by the caller) among as many parts as ranks: the whole's
 * curve partition (share->whole_cells cells) on this rank's cells. Its
 * cells' nodes beyond its rows come from their owners
 * (feint_dist_share_cell_nodes); the boxes are owned in ranges, each
 * owner summing its boxes' counts and answering every rank the places of
 * its cells there. A rank that failed before (status_in) takes part,
 * and the others return FEINT_DIST_PEER_FAILED. seconds (NULL: not
 * wanted): its cells counted (their nodes asked), the places exchanged
 * (with the waits for the slowest rank), its cells placed. */
int feint_dist_curve_parts_of_share(feint_comm *comm, int status_in, const feint_mesh *mesh,
                                    const feint_mesh_share *share, int **parts, double seconds[3]);

/* What rank 0 keeps of each part: the part's cells (global numbers,
 * ascending) and its scalar dofs (local -> global, ascending). */
typedef struct {
  int64_t n_cells, *cells;
  int64_t n_scalar_dofs, *scalar_dofs;
} feint_dist_part;
void feint_dist_part_release(feint_dist_part *p);

/* Rank `rank`'s part of `space` as a message (*buf, *bytes: the caller
 * frees) and its place in the whole (*part_out, released by the caller):
 * the cells with part[c] == rank (a partition of the cells), or, part
 * NULL, the rows partition's: every cell with a dof in the rank's block
 * of rows among `size` ranks (feint_dist_row_start). Those are the cells
 * its rows' sums need, so the rank sums its own rows whole, adding the
 * same numbers in the same order as one rank does; a cell with dofs in
 * several blocks is in each of those parts (computed once per part). */
int feint_dist_part_pack(const feint_space *space, const int *part, int rank, int size, void **buf, size_t *bytes,
                         feint_dist_part *part_out);
/* The rows partition: rank's scalar dofs [*lo, *hi) among size ranks
 * (its rows are these dofs' components), and how many cells each rank's
 * part holds (counts[size]; their sum over the mesh's cells is the work
 * done twice). */
void feint_dist_rows_scalar_range(int64_t n_scalar, int size, int rank, int64_t *lo, int64_t *hi);
int feint_dist_rows_part_cells(const feint_space *space, int size, int64_t *counts);
/* The same counted over some of the cells (n_cells rows of nb scalar
 * dofs among n_scalar, -1 past a narrower row's): summed over shares of
 * the cells (each rank its share of the mesh, feint_mesh_read_share), the
 * whole's counts. */
int feint_dist_rows_count_cells(const int64_t *cell_dofs, int nb, int64_t n_cells, int64_t n_scalar, int size,
                                int64_t *counts);
/* A part's mesh and space from its message (the space reads the mesh:
 * destroy it first). */
int feint_dist_part_unpack(const void *buf, size_t bytes, feint_mesh **mesh, feint_space **space);

/* ---- a part built by its own rank ----
 *
 * Rank 0 need not pack the parts: it sends every rank a slab of the
 * whole as it lies in memory (no copy): an even share of the cells
 * (whole node numbers, scalar dofs, groups, a curved mesh's geometry, and
 * for a partition of the cells their parts), an even share of the nodes
 * with their coordinates, and the coordinates of the rank's rows' dofs.
 * The ranks then build their parts together (feint_dist_part_build_start
 * and _finish, collective): each cell goes to the ranks whose rows it
 * touches (the rows partition) or to its part, the coordinates of its
 * nodes and dofs come from their owners, and each rank makes its part's
 * mesh and space, equal to those feint_dist_part_unpack makes of the
 * message feint_dist_part_pack writes (no message between them).
 * Rank 0's packing of P parts, each a pass over the whole mesh, becomes P
 * passes over a P-th of it, side by side, and rank 0 holds no part but
 * its own. */
typedef struct feint_dist_slab feint_dist_slab;
/* Rank `rank`'s slab of the whole among size ranks: views into space, its
 * mesh and part (the cells' parts, or NULL: the rows partition), which
 * outlive it. */
int feint_dist_slab_create(const feint_space *space, const int *part, int rank, int size, feint_dist_slab **out);
/* The slab as a message's pieces (its head in *head, freed by the caller
 * once sent; the rest points into the whole). */
int feint_dist_slab_message(const feint_dist_slab *slab, feint_comm_message *msg, void **head);
/* The mesh read by every rank, each its share of the cells (mesh.h,
 * feint_mesh_read_share), in place of rank 0's read and slabs: the
 * share's nodes callback, ctx the feint_comm. Each rank reads its range of
 * the file's nodes, which go to their tags' owners (each rank a range of
 * the tags); the ranks' marks of the nodes their cells and facets use go
 * there too, each owner numbers its used tags, every rank learns which
 * tags are used (a bit a tag) and renumbers its entries, and each owner
 * sends the coordinates to the ranks that hold them (their rows' range, or
 * every node). A failed rank's own error, the others "rank p failed". */
int feint_dist_share_nodes(void *comm, int status, feint_mesh_share_nodes *job);
/* Collective: every rank's share's mesh made to hold every node's
 * coordinates (the rows' ranges of the others joined to its own; a rank
 * holding them all already gives its range and takes nothing), for what
 * reads nodes beyond its rows (a coefficient's values at the nodes). A failed rank (status) takes part, as above. */
int feint_dist_share_all_nodes(feint_comm *comm, int status, feint_mesh *mesh, feint_mesh_share *share);
/* The slab of a rank's share (views into mesh and part, which outlive
 * it), as feint_dist_slab_create makes it from the whole: part the share's
 * cells' parts (a partition of the cells), or NULL: the rows partition.
 * P1 on every node (share->nodes_in_cells == mesh->n_nodes) of straight
 * triangles or tetrahedra (where the whole's P1 space is the
 * connectivity), components a node. */
int feint_dist_slab_of_share(const feint_mesh *mesh, const feint_mesh_share *share, const int *part,
                             int components, feint_dist_slab **out);
/* The whole mesh made of the shares (every rank's share of the cells, as
 * feint_mesh_read_share read them), in place of rank 0's share m: the
 * other shares' cells and groups joined to rank 0's own, each at its
 * share's range, and the whole's blocks and counts set; the mesh the
 * whole read makes. piece gives share k's (k = 1 .. size - 1, in turn)
 * n rows of cells and their groups, which need outlive only the next
 * call: one share's rows are held at a time. */
typedef int (*feint_dist_share_piece)(void *ctx, int k, const int64_t **cells, const int **groups, int64_t *n);
int feint_dist_whole_of_shares(feint_mesh *mesh, const feint_mesh_share *share, int size, feint_dist_share_piece piece,
                               void *ctx);
/* The whole's P1 space on a share of the mesh (P1 on every node of
 * straight triangles or tetrahedra: share->nodes_in_cells ==
 * mesh->n_nodes): its dofs every node of the whole, numbered as the
 * whole's, at the nodes; its dof map the share's cells; its vertices the
 * nodes (a facet's dofs are its nodes); placed in the whole as a part is
 * (whole_cell, whole_scalar_dof), so that data given for the whole are
 * read for its cells. For a rank that holds its share only. */
int feint_dist_space_of_share(const feint_mesh *mesh, const feint_mesh_share *share, int components,
                              feint_space **out);
/* A slab from its message (views into buf, which outlives it). */
int feint_dist_slab_read(const void *buf, size_t bytes, feint_dist_slab **out);
void feint_dist_slab_destroy(feint_dist_slab *slab);
/* Collective, in two halves: this rank's part's mesh and space (the
 * caller destroys them, the space first) from every rank's slab. After the first half the
 * slab, and the whole it views, may go (rank 0 releases the whole mesh
 * there). A rank that failed before (status_in) takes part with its
 * failure, as feint_dist_rows_create; a rank without a slab (NULL) must
 * give one. start makes *builder even when it fails, and finish
 * destroys it. seconds (NULL: not wanted) gets the four steps' times:
 * cells routed to their owners, the part's nodes numbered and asked
 * for, coordinates answered, the part's mesh and space made. */
typedef struct feint_dist_part_builder feint_dist_part_builder;
int feint_dist_part_build_start(feint_comm *comm, int status_in, const feint_dist_slab *slab,
                                feint_dist_part_builder **builder);
int feint_dist_part_build_finish(feint_dist_part_builder *builder, int status_in, feint_mesh **mesh,
                                 feint_space **space, double seconds[4]);

/* The operator section's part of rank `rank` (the hexahedra with part[c]
 * == rank of hm, their rows of the GLL dof map d renumbered in the
 * whole's order, and x at their dofs) as a message, and its place in the
 * whole (*part_out); unpack makes the part's hexahedra, dof map and x
 * (the caller destroys them). */
int feint_dist_hex_part_pack(const feint_hexmesh *hm, const feint_bp_dofmap *d, const double *x, const int *part,
                             int rank, void **buf, size_t *bytes, feint_dist_part *part_out);
int feint_dist_hex_part_unpack(const void *buf, size_t bytes, feint_hexmesh **hm, feint_bp_dofmap **d,
                               double **x);

/* ---- rows owned in contiguous blocks (PETSc's layout) ----
 *
 * Rank q owns the whole rows [start(q), start(q + 1)): the n_rows split
 * evenly among the ranks in groups of `group` rows (a node's components
 * stay together). Every rank gives the rows its cells touch (local rows
 * in the whole's order, local_whole[i] the whole row of local row i) and,
 * for a matrix, its local pattern; each owner's block pattern is the
 * union of what the ranks give for its rows (the whole pattern's rows,
 * columns in whole numbers). After that a sum sends each owner the values
 * of its rows, and the owner adds them rank by rank in rank order.
 *
 * Both calls are collective. A rank that failed before (status_in) still
 * takes part, so that no rank waits for it: it returns its own status,
 * and the others FEINT_DIST_PEER_FAILED ("rank p failed"), which the
 * failed rank's own error outranks when rank 0 reports. */
#define FEINT_DIST_PEER_FAILED 64
/* The error of a rank that heard rank `rank` failed (FEINT_DIST_PEER_FAILED). */
int feint_dist_peer_failed(int rank);
int64_t feint_dist_row_start(int64_t n_rows, int64_t group, int size, int rank);

struct feint_dist_source; /* rows.c */
typedef struct {
  int rank, size;
  int64_t n_rows;          /* the whole's */
  int64_t row0, n_owned;   /* this rank's block */
  int matrix;              /* the block has a pattern (indptr, cols) */
  int complete;            /* the rows partition: the block is this rank's own rows, whole (no other source) */
  int64_t *indptr;         /* n_owned + 1 */
  int64_t *cols;           /* nnz: whole columns, ascending in each row; or, where the whole's columns
                              are within feint_plan_narrow_limit (plan.h), NULL and these: */
  int32_t *cols32;
  int64_t nnz;
  /* private to rows.c */
  int64_t *first_local, *first_value; /* size + 1: the local rows and values each owner gets */
  struct feint_dist_source *from;     /* size: what each rank sends this one */
} feint_dist_rows;

/* local: the local pattern (rows and columns local), or NULL for vectors
 * only. complete: every rank's cells are those of the rows partition
 * (feint_dist_part_pack), so each holds its own rows whole: it gives only
 * those, to itself, and drops its contributions to other ranks' rows
 * (their owners compute them too). Its block's sums are then its own,
 * added in the one-rank order; the exchanges carry statuses only. */
int feint_dist_rows_create(feint_comm *comm, int status_in, int64_t n_rows, int64_t group, int64_t n_local,
                           const int64_t *local_whole, const feint_plan *local, int complete, feint_dist_rows **out);
/* The local vector (n_local values) or matrix values (the local
 * pattern's) summed into this rank's block: owned (n_owned, or nnz). */
int feint_dist_rows_sum(feint_dist_rows *rows, feint_comm *comm, int status_in, int matrix, const double *local,
                        double *owned);
void feint_dist_rows_destroy(feint_dist_rows *rows);

/* Element matrices by cell, owned as rows are: rank q owns the whole
 * cells [feint_dist_row_start(n_whole, 1, size, q), ... of q + 1). Every
 * rank gives its part's (n_cells cells, whole numbers whole_cell
 * ascending, nbc x nbc each) and gets its own cells' (*n_owned from
 * *cell0) in *owned (freed by the caller), nbc_whole x nbc_whole each:
 * a narrower cell's matrix at the top left of its zeroed row (a mixed
 * mesh). A cell given by several ranks (the rows partition's parts
 * overlap) is taken from the lowest. Collective; status_in as
 * feint_dist_rows_sum. */
int feint_dist_cells_to_owners(feint_comm *comm, int status_in, int64_t n_whole, int64_t n_cells,
                               const int64_t *whole_cell, int nbc, const double *local, int nbc_whole,
                               int64_t *cell0, int64_t *n_owned, double **owned);

/* Element matrices written where they were computed, when every rank can
 * (collective; *all tells, the same on every rank): this rank's cells'
 * matrices as wide as the whole's (nbc == nbc_whole) and in few ranges of
 * consecutive whole cells (at most 1 + n_cells / 64: a rows or curve part
 * of a mesh numbered in space). writes[i] (NULL: every cell) says whether
 * this rank writes its cell i: a cell in several parts (the rows
 * partition) is written by one of them. *ranges (freed by the caller):
 * n_ranges triples for feint_dist_piece (the dataset's value, the part's
 * value, the count). Else (*all 0, *ranges NULL) the matrices go to their
 * cells' owners (feint_dist_cells_to_owners). Test hooks:
 * FEINT_DIST_ELEMENTS=owners makes this rank vote for the owners, =place
 * lifts the limit on ranges. status_in as feint_dist_rows_sum. */
int feint_dist_cells_in_place(feint_comm *comm, int status_in, int64_t n_cells, const int64_t *whole_cell,
                              const unsigned char *writes, int nbc, int nbc_whole, int64_t **ranges,
                              int64_t *n_ranges, int *all);

#endif
