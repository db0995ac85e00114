/* feint dist: the ranks of an `mpirun -n P feint run` and what they
 * exchange.
 *
 * feint links no MPI: when mpirun (OpenMPI, or a launcher that sets
 * PMI_SIZE) starts it on more than one rank, feint_comm_create loads
 * feint-mpi.so (built beside feint when mpicc and METIS are found; MPI and
 * METIS behind it) and initialises MPI. Run without mpirun, feint loads
 * nothing of it.
 *
 * Rank 0 reads the mesh once, partitions its cells (METIS on the dual
 * graph) and sends each rank its part (feint_dist_part_pack): the rank's
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
#include "feint/space.h"

typedef struct feint_comm feint_comm;

/* The world size and this process's rank that the launcher put in the
 * environment (OMPI_COMM_WORLD_SIZE, PMI_SIZE; ..._RANK), without an MPI
 * call: size 1 and rank 0 when no launcher started feint. local_rank is
 * the rank among those of its host (for the GPU it takes). */
typedef struct {
  int size, rank, local_rank;
} feint_launch;
feint_launch feint_comm_launch(void);

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
/* End every rank now (a rank that cannot reach the others). */
void feint_comm_abort(feint_comm *comm, int status);

/* Partition the mesh's cells into nparts parts (METIS_PartMeshDual: two
 * cells are neighbours when they share a facet's worth of nodes), part[c]
 * in 0..nparts-1; deterministic. FEINT_ERR_INPUT past 2^31 nodes or cell
 * vertices (Debian's METIS has 32-bit indices). */
int feint_comm_partition(feint_comm *comm, const feint_mesh *mesh, int nparts, int *part);

/* Partition the cells into nparts parts of equal size along the Morton
 * (Z-order) curve of their centroids (ties in cell order): part[c] in
 * 0..nparts-1, deterministic, linear time. No MPI. */
int feint_dist_partition_curve(const feint_mesh *mesh, int nparts, int *part);

/* What rank 0 keeps of each part: the part's cells (global numbers,
 * ascending) and its scalar dofs (local -> global, ascending). */
typedef struct {
  int64_t n_cells, *cells;
  int64_t n_scalar_dofs, *scalar_dofs;
} feint_dist_part;
void feint_dist_part_release(feint_dist_part *p);

/* The cells of `space`'s mesh with part[c] == rank as a message
 * (*buf, *bytes: the caller frees) and their place in the whole (*part_out,
 * released by the caller). */
int feint_dist_part_pack(const feint_space *space, const int *part, int rank, void **buf, size_t *bytes,
                         feint_dist_part *part_out);
/* A part's mesh and space from its message (the space reads the mesh:
 * destroy it first). */
int feint_dist_part_unpack(const void *buf, size_t bytes, feint_mesh **mesh, feint_space **space);

/* The operator section's part of rank `rank` (the hexahedra with part[c]
 * == rank of hm, their rows of the GLL dof map d renumbered in the
 * whole's order, and x at their dofs) as a message, and its place in the
 * whole (*part_out); unpack makes the part's hexahedra, dof map and x
 * (the caller destroys them). */
int feint_dist_hex_part_pack(const feint_hexmesh *hm, const feint_bp_dofmap *d, const double *x, const int *part,
                             int rank, void **buf, size_t *bytes, feint_dist_part *part_out);
int feint_dist_hex_part_unpack(const void *buf, size_t bytes, feint_hexmesh **hm, feint_bp_dofmap **d,
                               double **x);

#endif