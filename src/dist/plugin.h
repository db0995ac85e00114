/* Private to src/dist: the table the MPI plugin (feint-mpi.so, built from
 * mpi_plugin.c with mpicc and linked with libmpi and METIS) hands to
 * comm.c. feint itself links neither: a run that mpirun did not start
 * never loads them (libmpi's load alone costs ~1.5 ms of every start).
 * Bump FEINT_DIST_PLUGIN_ABI when the table changes. */
#ifndef FEINT_DIST_PLUGIN_H
#define FEINT_DIST_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#include "feint/dist.h" /* feint_dist_piece */

#define FEINT_DIST_PLUGIN_ABI 6
#define FEINT_DIST_PLUGIN_SYMBOL "feint_dist_plugin_v6"

/* Every function returns 0 on success, else nonzero with a message in err
 * (where it takes one). Byte counts of one call fit in an int (comm.c
 * splits larger messages). */
typedef struct {
  int abi;
  int (*init)(int *rank, int *size, char *err, size_t err_size);
  void (*finalize)(void);
  /* n sends under way at once (ABI 6: every send goes so), then waited
   * for: send k is bytes[k] of bufs[k] to rank to[k]; those to one rank
   * arrive in the order given. */
  int (*send_many)(int n, const void *const *bufs, const int *bytes, const int *to, int tag, char *err,
                   size_t err_size);
  /* *got: the bytes that arrived (at most bytes) */
  int (*recv)(void *buf, int bytes, int from, int tag, int *got, char *err, size_t err_size);
  void (*abort)(int code);
  /* METIS_PartMeshDual: cells eptr/eind (32-bit, as Debian's METIS), two
   * cells adjacent when they share ncommon nodes; part[] = 0..nparts-1. */
  int (*partition)(int n_cells, int n_nodes, int32_t *eptr, int32_t *eind, int ncommon, int nparts, int32_t *part,
                   char *err, size_t err_size);
  /* Collective: every rank writes its pieces of the same n datasets into
   * the HDF5 file at path (closed by everyone else), with parallel HDF5
   * (MPI-IO, collective transfers). Every rank returns the same result.
   * A piece counts values of the dataset in row-major order; in a dataset
   * of several dimensions it holds whole rows of the first (ABI 4), and
   * may be several ranges of them (ABI 5). */
  int (*write)(const char *path, int n, const feint_dist_piece *pieces, char *err, size_t err_size);
} feint_dist_plugin;

#endif
