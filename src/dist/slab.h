/* Private to src/dist and its tests: the steps of the parts' build from
 * slabs (dist.h, feint_dist_part_build_start and _finish). Each step takes what every rank sent this one in the step
 * before (in[p], in_bytes[p]: taken over, set NULL) and leaves one message
 * for every rank, itself included, in out[q] / out_bytes[q] (taken over
 * by the caller, who carries them). The build carries them
 * through feint_comm_exchange; a test can carry them in one process, every
 * rank's steps in turn. Every message begins with two int64: whether its
 * sender failed, and its item count. A rank that failed still sends (its
 * failure only), so that no rank waits for it. */
#ifndef FEINT_DIST_SLAB_H
#define FEINT_DIST_SLAB_H

#include "dist/part_format.h"
#include "feint/dist.h"

struct feint_dist_slab {
  part_whole whole;
  int size, rank;
  int nv, nb, ng;               /* a cell's nodes, scalar dofs, geometry nodes (the whole's widest rows) */
  int64_t cell0, n_cells;       /* the whole's cells [cell0, cell0 + n_cells): an even share */
  const int64_t *cells;         /* n_cells x nv whole node numbers (-1 past a narrower block's) */
  const int64_t *dofs;          /* n_cells x nb whole scalar dofs, or NULL: P1 on every node (dof = node) */
  const double *geometry;       /* n_cells x ng x 3 (a curved mesh's), or NULL */
  const int *groups;            /* n_cells, or NULL: none (-1) */
  const int *part;              /* n_cells: each cell's rank (a partition of the cells), or NULL: the rows partition */
  int64_t whole_nodes;          /* the whole mesh's nodes */
  int64_t node0, n_nodes;       /* an even share of them, and their coordinates */
  const double *x, *y, *z;
  int64_t dof0, n_dofs;         /* with dofs: this rank's rows' scalar dofs, and their coordinates (3 each) */
  const double *dof_xyz;
  feint_mesh_group *groups_read; /* a slab read from a message: the group table (names in the message) */
};

typedef struct slab_build slab_build;
int slab_build_create(int size, int rank, slab_build **out);
void slab_build_destroy(slab_build *b);
/* The step's messages: out[q] of out_bytes[q] bytes for rank q. */
void **slab_build_out(slab_build *b, size_t **out_bytes);

/* 1. the slab's cells to the owners of their rows (every rank owning one
 * of their nodes); what the later steps need of the slab is kept, so
 * that the slab (and the whole it views) may go after this step */
int slab_route(slab_build *b, const feint_dist_slab *s, int status);
/* 2. the cells received (the part's, in whole order), and their nodes' coordinates asked of the nodes' owners */
int slab_request(slab_build *b, int status, void **in, size_t *in_bytes);
/* 3. the coordinates asked of this rank */
int slab_answer(slab_build *b, int status, void **in, size_t *in_bytes);
/* 4. the part's mesh and space (the caller destroys them), as feint_dist_part_unpack makes them from the message
 * feint_dist_part_pack writes */
int slab_finish(slab_build *b, int status, void **in, size_t *in_bytes, feint_mesh **mesh, feint_space **space);

/* The share's read (share.c), on any carrier of messages: exchange sends
 * out[q] to every rank q but this one and fills in[p] (freed by the
 * caller), in_bytes[p] with what rank p sent (feint_comm_exchange under
 * mpirun; a test's threads). */
typedef int (*share_exchange_fn)(void *ctx, const feint_comm_message *out, void **in, size_t *in_bytes);
/* feint_comm_exchange as one (ctx the feint_comm). */
int share_comm_exchange(void *ctx, const feint_comm_message *out, void **in, size_t *in_bytes);
/* Rounds of such exchanges: each message opens with its sender's state
 * (an int64, 0: it goes on), so that a failed rank still sends (its state
 * only) and every rank stops after the same round. run sends out[q] and
 * takes in[p] (the previous round's freed): this rank's error (status),
 * "rank p failed", or FEINT_OK. */
typedef struct {
  share_exchange_fn exchange;
  void *ctx;
  int rank, size;
  feint_comm_message *out;
  void **in;
  size_t *in_bytes;
} share_round;
int share_round_start(share_round *round, share_exchange_fn exchange, void *ctx, int rank, int size);
int share_round_run(share_round *round, int status);
void share_round_free_in(share_round *round);
void share_round_destroy(share_round *round);
int share_nodes_number(share_exchange_fn exchange, void *ctx, int rank, int size, int status,
                       feint_mesh_share_nodes *job);
int share_all_nodes(share_exchange_fn exchange, void *ctx, int rank, int size, int status, feint_mesh *mesh,
                    feint_mesh_share *share);
int share_cell_nodes(share_exchange_fn exchange, void *ctx, int rank, int size, int status, const feint_mesh *mesh,
                     const feint_mesh_share *share, feint_dist_nodes *out);
/* The share's rows' range of the nodes [*lo, *hi) and their coordinates held by its mesh (views); an internal
 * error where it does not hold them. */
int share_rows_view(const feint_mesh *mesh, const feint_mesh_share *share, int64_t *lo, int64_t *hi,
                    const double *xyz[3]);

#endif
