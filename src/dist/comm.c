/* The ranks of an mpirun run (dist.h): the launcher's environment, the
 * MPI plugin loaded on demand, and length-prefixed messages. */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dist/plugin.h"
#include "feint/dist.h"
#include "feint/error.h"

struct feint_comm {
  void *lib;
  const feint_dist_plugin *mpi;
  int rank, size;
};

/* One tag for all of feint's messages: between two ranks they arrive in order. */
enum { TAG = 17 };
/* The most bytes one MPI call moves (its count is an int). */
#define CHUNK ((size_t)1 << 30)

static int env_int(const char *const *names, int fallback) {
  for (int k = 0; names[k]; k++) {
    const char *v = getenv(names[k]);
    char *end;
    if (!v || !*v) continue;
    long x = strtol(v, &end, 10);
    if (!*end && x >= 0 && x < INT_MAX) return (int)x;
  }
  return fallback;
}

feint_launch feint_comm_launch(void) {
  static const char *const size[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", NULL};
  static const char *const rank[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", NULL};
  static const char *const local[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID", NULL};
  static const char *const local_size[] = {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", NULL};
  feint_launch l = {env_int(size, 1), env_int(rank, 0), 0, 1};
  l.local_rank = env_int(local, l.rank);
  if (l.size < 1) l.size = 1;
  l.local_size = env_int(local_size, l.size);
  if (l.local_size < 1 || l.local_size > l.size) l.local_size = l.size;
  return l;
}

/* The plugin beside the executable (build/ and bin/), or in ../lib/feint
 * (make install), or where FEINT_MPI_PLUGIN says. */
static void *open_plugin(char *tried, size_t size) {
  const char *env = getenv("FEINT_MPI_PLUGIN");
  if (env && *env) {
    snprintf(tried, size, "%s", env);
    return dlopen(env, RTLD_NOW | RTLD_GLOBAL);
  }
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) {
    snprintf(tried, size, "(the executable's directory is unknown)");
    return NULL;
  }
  exe[n] = '\0';
  char *slash = strrchr(exe, '/');
  if (slash) *slash = '\0';
  /* RTLD_GLOBAL: OpenMPI's own components look up libmpi's symbols */
  char path[4200];
  snprintf(path, sizeof path, "%s/feint-mpi.so", exe);
  snprintf(tried, size, "%s", path);
  void *lib = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
  if (lib || access(path, F_OK) == 0) return lib;
  snprintf(path, sizeof path, "%s/../lib/feint/feint-mpi.so", exe);
  if (access(path, F_OK) == 0) {
    snprintf(tried, size, "%s", path);
    return dlopen(path, RTLD_NOW | RTLD_GLOBAL);
  }
  return NULL;
}

int feint_comm_create(feint_comm **out) {
  *out = NULL;
  const feint_launch l = feint_comm_launch();
  char tried[4300];
  void *lib = open_plugin(tried, sizeof tried);
  if (!lib) {
    const char *why = dlerror();
    const char *env = getenv("FEINT_MPI_PLUGIN");
    if (env && *env && access(tried, F_OK) != 0)
      return feint_error_set(FEINT_ERR_INPUT, "FEINT_MPI_PLUGIN=%s: no such file (feint's MPI plugin, feint-mpi.so)",
                             env);
    if (access(tried, F_OK) != 0)
      return feint_error_set(FEINT_ERR_INPUT,
                             "mpirun started feint on %d ranks, but this feint was built without MPI (no %s; "
                             "build it with libopenmpi-dev and libmetis-dev installed: bash tests/deps.sh, make)",
                             l.size, tried);
    return feint_error_set(FEINT_ERR_INPUT, "cannot load feint's MPI plugin %s: %s", tried, why ? why : "?");
  }
  const feint_dist_plugin *mpi = dlsym(lib, FEINT_DIST_PLUGIN_SYMBOL);
  if (!mpi || mpi->abi != FEINT_DIST_PLUGIN_ABI) {
    dlclose(lib);
    return feint_error_set(FEINT_ERR_INPUT, "%s is not this feint's MPI plugin (rebuild it: make)", tried);
  }
  feint_comm *c = calloc(1, sizeof *c);
  if (!c) {
    dlclose(lib);
    return feint_error_set(FEINT_ERR_COMPUTE, "out of memory");
  }
  c->lib = lib;
  c->mpi = mpi;
  char err[512] = "";
  if (mpi->init(&c->rank, &c->size, err, sizeof err)) {
    /* the plugin stays loaded: libmpi does not unload cleanly after a failed MPI_Init */
    free(c);
    return feint_error_set(FEINT_ERR_INPUT, "%s", err);
  }
  *out = c;
  return FEINT_OK;
}

void feint_comm_destroy(feint_comm *c) {
  if (!c) return;
  c->mpi->finalize();
  /* not dlclose'd: OpenMPI's libraries keep threads and handlers to the process's end */
  free(c);
}

int feint_comm_rank(const feint_comm *c) { return c->rank; }
int feint_comm_size(const feint_comm *c) { return c->size; }

static int fail(int status, const char *what, int peer, const char *err) {
  return feint_error_set(status, "%s rank %d: %s", what, peer, err);
}

/* Messages to ranks to[k] (k < n), message k the n_pieces[k] pieces
 * pieces[k][p] of sizes[k][p] bytes: each its length, then its pieces in
 * MPI messages of at most CHUNK bytes (the receiver reads them into one
 * buffer), all under way at once. */
static int send_messages(feint_comm *c, int n, const int *to, const void *const *const *pieces,
                         const size_t *const *sizes, const int *n_pieces) {
  size_t n_sends = 0;
  for (int k = 0; k < n; k++) {
    n_sends++;
    for (int p = 0; p < n_pieces[k]; p++) n_sends += (sizes[k][p] + CHUNK - 1) / CHUNK;
  }
  if (n_sends > INT_MAX) return feint_error_set(FEINT_ERR_COMPUTE, "internal: %zu sends at once", n_sends);
  uint64_t *lengths = calloc((size_t)n + 1, sizeof *lengths);
  const void **bufs = calloc(n_sends + 1, sizeof *bufs);
  int *bytes = calloc(n_sends + 1, sizeof *bytes), *peers = calloc(n_sends + 1, sizeof *peers);
  int status = !lengths || !bufs || !bytes || !peers
                   ? feint_error_set(FEINT_ERR_COMPUTE, "out of memory for %zu sends", n_sends)
                   : FEINT_OK;
  size_t s = 0;
  for (int k = 0; k < n && !status; k++) {
    for (int p = 0; p < n_pieces[k]; p++) lengths[k] += sizes[k][p];
    bufs[s] = &lengths[k], bytes[s] = (int)sizeof lengths[k], peers[s++] = to[k];
    for (int p = 0; p < n_pieces[k]; p++)
      for (size_t at = 0; at < sizes[k][p]; at += CHUNK) {
        const size_t len = sizes[k][p] - at < CHUNK ? sizes[k][p] - at : CHUNK;
        bufs[s] = (const char *)pieces[k][p] + at, bytes[s] = (int)len, peers[s++] = to[k];
      }
  }
  char err[512] = "";
  if (!status && c->mpi->send_many((int)s, bufs, bytes, peers, TAG, err, sizeof err))
    status = n == 1 ? fail(FEINT_ERR_COMPUTE, "sending to", to[0], err)
                    : feint_error_set(FEINT_ERR_COMPUTE, "sending to %d ranks at once: %s", n, err);
  free(lengths);
  free(bufs);
  free(bytes);
  free(peers);
  return status;
}

int feint_comm_sendv(feint_comm *c, int to, const void *const *pieces, const size_t *sizes, int n_pieces) {
  return send_messages(c, 1, &to, &pieces, &sizes, &n_pieces);
}

int feint_comm_send_many(feint_comm *c, int n, const int *to, const feint_comm_message *messages) {
  const void *const **pieces = calloc((size_t)n + 1, sizeof *pieces);
  const size_t **sizes = calloc((size_t)n + 1, sizeof *sizes);
  int *n_pieces = calloc((size_t)n + 1, sizeof *n_pieces);
  int status = !pieces || !sizes || !n_pieces ? feint_error_set(FEINT_ERR_COMPUTE, "out of memory for %d sends", n)
                                              : FEINT_OK;
  for (int k = 0; k < n && !status; k++) {
    pieces[k] = messages[k].pieces;
    sizes[k] = messages[k].sizes;
    n_pieces[k] = messages[k].n;
  }
  if (!status) status = send_messages(c, n, to, pieces, sizes, n_pieces);
  free(pieces);
  free(sizes);
  free(n_pieces);
  return status;
}

int feint_comm_recv(feint_comm *c, int from, void **buf, size_t *bytes) {
  char err[512] = "a message's length cut short";
  uint64_t n = 0;
  int got_head = 0;
  *buf = NULL;
  *bytes = 0;
  if (c->mpi->recv(&n, (int)sizeof n, from, TAG, &got_head, err, sizeof err) || got_head != (int)sizeof n)
    return fail(FEINT_ERR_COMPUTE, "receiving from", from, err);
  char *b = NULL;
  int got = 0;
  /* touched first: a large message into fresh pages pays their faults at the copy */
  FEINT_CALL(feint_malloc_large_touched((size_t)n ? (size_t)n : 1, 1, &b, "a message from another rank"));
  for (size_t at = 0; at < n; at += (size_t)got) {
    const size_t k = n - at < CHUNK ? n - at : CHUNK;
    if (c->mpi->recv(b + at, (int)k, from, TAG, &got, err, sizeof err) || got <= 0) {
      free(b);
      return fail(FEINT_ERR_COMPUTE, "receiving from", from, got <= 0 ? "an empty piece of a message" : err);
    }
  }
  *buf = b;
  *bytes = (size_t)n;
  return FEINT_OK;
}

int feint_comm_rounds(int size) { return size + (size & 1) - 1; }

/* The circle method: slot n - 1 (n = size rounded up to even) stays while
 * the others turn; in an odd world the rank paired with slot n - 1 sits
 * the round out. */
int feint_comm_round_partner(int rank, int round, int size) {
  const int n = size + (size & 1), m = n - 1;
  int q;
  if (rank == m) {
    q = -1;
    for (int i = 0; i < m && q < 0; i++)
      if ((round - i + 2 * m) % m == i) q = i;
  } else {
    const int j = ((round - rank) % m + m) % m;
    q = j == rank ? m : j;
  }
  return q >= 0 && q < size ? q : -1;
}

int feint_comm_exchange(feint_comm *c, const feint_comm_message *out, void **in, size_t *in_bytes) {
  const int size = c->size;
  for (int q = 0; q < size; q++) {
    in[q] = NULL;
    in_bytes[q] = 0;
  }
  int status = FEINT_OK;
  for (int k = 0; k < feint_comm_rounds(size) && !status; k++) {
    const int q = feint_comm_round_partner(c->rank, k, size);
    if (q < 0) continue; /* this rank sits the round out */
    const feint_comm_message *m = &out[q];
    if (c->rank < q) {
      status = feint_comm_sendv(c, q, m->pieces, m->sizes, m->n);
      if (!status) status = feint_comm_recv(c, q, &in[q], &in_bytes[q]);
    } else {
      status = feint_comm_recv(c, q, &in[q], &in_bytes[q]);
      if (!status) status = feint_comm_sendv(c, q, m->pieces, m->sizes, m->n);
    }
  }
  if (status)
    for (int q = 0; q < size; q++) {
      free(in[q]);
      in[q] = NULL;
    }
  return status;
}

void feint_comm_abort(feint_comm *c, int status) { c->mpi->abort(status); }

int feint_comm_write(feint_comm *c, const char *path, int n, const feint_dist_piece *pieces) {
  char err[1024] = "";
  if (c->mpi->write(path, n, pieces, err, sizeof err)) return feint_error_set(FEINT_ERR_COMPUTE, "%s", err);
  return FEINT_OK;
}

int feint_comm_partition_ncommon(const feint_mesh *m) {
  int ncommon = 2;
  if (m->dim == 3) {
    ncommon = 4;
    for (int b = 0; b < m->n_blocks; b++)
      if (m->blocks[b].cell_type != FEINT_CELL_HEXAHEDRON) ncommon = 3;
  }
  return ncommon;
}

int feint_comm_partition_lists(feint_comm *c, const char *path, int32_t n_cells, int32_t n_nodes, int32_t *eptr,
                               int32_t *eind, int ncommon, int nparts, int *part) {
  if (nparts <= 1 || n_cells == 0) {
    for (int32_t e = 0; e < n_cells; e++) part[e] = 0;
    return FEINT_OK;
  }
  int32_t *p32 = NULL;
  FEINT_CALL(feint_malloc((size_t)n_cells, sizeof *p32, &p32, "the partition"));
  char err[512];
  int status = FEINT_OK;
  if (c->mpi->partition(n_cells, n_nodes, eptr, eind, ncommon, nparts, p32, err, sizeof err))
    status = feint_error_set(FEINT_ERR_COMPUTE, "partitioning %s into %d parts: %s", path, nparts, err);
  for (int32_t e = 0; !status && e < n_cells; e++) part[e] = p32[e];
  free(p32);
  return status;
}

int feint_comm_partition(feint_comm *c, const feint_mesh *m, int nparts, int *part) {
  if (nparts <= 1 || m->n_cells == 0) {
    for (int64_t e = 0; e < m->n_cells; e++) part[e] = 0;
    return FEINT_OK;
  }
  int64_t entries = 0;
  for (int b = 0; b < m->n_blocks; b++) entries += m->blocks[b].n_cells * m->blocks[b].nv;
  if (m->n_nodes > INT32_MAX || entries > INT32_MAX || m->n_cells > INT32_MAX)
    return feint_error_set(FEINT_ERR_INPUT,
                           "%s: %lld cells of %lld vertices in all are past METIS's 32-bit indices (2^31)",
                           m->path, (long long)m->n_cells, (long long)entries);
  int32_t *eptr = NULL, *eind = NULL;
  int status = feint_malloc((size_t)m->n_cells + 1, sizeof *eptr, &eptr, "the partition's cell list");
  if (!status) status = feint_malloc((size_t)entries, sizeof *eind, &eind, "the partition's cell list");
  if (!status) {
    int64_t at = 0;
    eptr[0] = 0;
    for (int64_t e = 0; e < m->n_cells; e++) {
      for (int v = 0; v < m->nv && m->cells[e * m->nv + v] >= 0; v++) eind[at++] = (int32_t)m->cells[e * m->nv + v];
      eptr[e + 1] = (int32_t)at;
    }
    status = feint_comm_partition_lists(c, m->path, (int32_t)m->n_cells, (int32_t)m->n_nodes, eptr, eind,
                                        feint_comm_partition_ncommon(m), nparts, part);
  }
  free(eptr);
  free(eind);
  return status;
}

/* ---- The rows' layout (PETSc's: each rank a block of rows) and a peer's failure ---- */

int64_t feint_dist_row_start(int64_t n_rows, int64_t group, int size, int rank) {
  if (group < 1) group = 1;
  const int64_t groups = n_rows / group;
  return groups * rank / size * group;
}

void feint_dist_rows_scalar_range(int64_t n_scalar, int size, int rank, int64_t *lo, int64_t *hi) {
  *lo = feint_dist_row_start(n_scalar, 1, size, rank);
  *hi = rank + 1 == size ? n_scalar : feint_dist_row_start(n_scalar, 1, size, rank + 1);
}

int feint_dist_peer_failed(int rank) {
  return feint_error_set(FEINT_DIST_PEER_FAILED, "rank %d failed (its message is rank 0's to report)", rank);
}
