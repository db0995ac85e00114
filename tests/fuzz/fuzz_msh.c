/* libFuzzer harness for the native .msh reader (msh.h) and the builder
 * behind it: each input is parsed; a model that parses is also built into
 * a feint_mesh (feint_mesh_read on a temporary file would cost a file per
 * input, so the harness parses from memory and checks the parser alone,
 * then, for inputs that parse, runs the whole read through a file, and
 * the read in shares, feint_mesh_read_share, as two processes would: two
 * threads).
 * Built by `make fuzz-msh` (clang -fsanitize=fuzzer,address,undefined);
 * seeds in tests/fuzz/corpus/msh; crashes found are kept in
 * tests/fuzz/regress/msh, which t32-msh-malformed.sh runs through feint
 * and t33-fuzz-regress.sh through this harness (tests/fuzz/replay.c). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dist/slab.h"
#include "feint/error.h"
#include "feint/mesh.h"
#include "feint/msh.h"

/* The shares' read (feint_mesh_read_share) of two processes, as two
 * threads: their messages carried through boxes (box[from][to]). */
typedef struct {
  pthread_barrier_t barrier;
  void *box[2][2];
  size_t bytes[2][2];
} pair;

typedef struct {
  pair *w;
  int rank;
  const char *path;
} share_thread;

static int pair_exchange(void *ctx, const feint_comm_message *out, void **in, size_t *in_bytes) {
  share_thread *t = ctx;
  const int other = 1 - t->rank;
  size_t total = 0;
  for (int i = 0; i < out[other].n; i++) total += out[other].sizes[i];
  char *buf = malloc(total + 1);
  if (!buf) abort();
  for (size_t i = 0, at = 0; (int)i < out[other].n; at += out[other].sizes[i], i++)
    if (out[other].sizes[i]) memcpy(buf + at, out[other].pieces[i], out[other].sizes[i]);
  t->w->box[t->rank][other] = buf;
  t->w->bytes[t->rank][other] = total;
  pthread_barrier_wait(&t->w->barrier);
  in[t->rank] = NULL;
  in_bytes[t->rank] = 0;
  in[other] = t->w->box[other][t->rank];
  in_bytes[other] = t->w->bytes[other][t->rank];
  pthread_barrier_wait(&t->w->barrier);
  return FEINT_OK;
}

static int pair_nodes(void *ctx, int status, feint_mesh_share_nodes *job) {
  const share_thread *t = ctx;
  return share_nodes_number(pair_exchange, ctx, t->rank, 2, status, job);
}

static void halves(int64_t n, int size, int rank, int64_t *lo, int64_t *hi) {
  *lo = n * rank / size;
  *hi = n * (rank + 1) / size;
}

static void *read_share(void *arg) {
  share_thread *t = arg;
  feint_mesh_share share = {.rank = t->rank, .size = 2, .range = halves, .nodes = pair_nodes, .ctx = t};
  feint_mesh *mesh = NULL;
  if (feint_mesh_read_share(t->path, NULL, &share, &mesh) == FEINT_OK) feint_mesh_destroy(mesh);
  return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  feint_msh *m = NULL;
  if (feint_msh_parse("fuzz.msh", (const char *)data, size, &m) != FEINT_OK) return 0;
  feint_msh_destroy(m);
  /* it parses: the builder too, through a file */
  static char path[64];
  if (!path[0]) snprintf(path, sizeof path, "/tmp/fuzz-msh-%d.msh", (int)getpid());
  FILE *f = fopen(path, "wb");
  if (!f) return 0;
  fwrite(data, 1, size, f);
  fclose(f);
  feint_mesh *mesh = NULL;
  if (feint_mesh_read(path, NULL, &mesh) == FEINT_OK) feint_mesh_destroy(mesh);
  /* and as the shares of two processes read it (mapped, element rows and nodes read where used, the nodes
   * numbered together) */
  pair w;
  pthread_barrier_init(&w.barrier, NULL, 2);
  share_thread t[2] = {{&w, 0, path}, {&w, 1, path}};
  pthread_t th;
  pthread_create(&th, NULL, read_share, &t[1]);
  read_share(&t[0]);
  pthread_join(th, NULL);
  pthread_barrier_destroy(&w.barrier);
  remove(path); /* the suite replays this harness (t33): leave nothing in /tmp */
  return 0;
}
