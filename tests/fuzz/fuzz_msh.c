/* libFuzzer harness for the native .msh reader (msh.h) and the builder
 * behind it: each input is parsed; a model that parses is also built into
 * a feint_mesh (feint_mesh_read on a temporary file would cost a file per
 * input, so the harness parses from memory and checks the parser alone,
 * then, for inputs that parse, runs the whole read through a file, and
 * the read in shares, feint_mesh_read_share, as two processes would).
 * Built by `make fuzz-msh` (clang -fsanitize=fuzzer,address,undefined);
 * seeds in tests/fuzz/corpus/msh; crashes found are kept in
 * tests/fuzz/regress/msh, which t32-msh-malformed.sh runs through feint
 * and t33-fuzz-regress.sh through this harness (tests/fuzz/replay.c). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "feint/error.h"
#include "feint/mesh.h"
#include "feint/msh.h"

/* The shares' read (feint_mesh_read_share) of one process alone: its
 * marks are its own (no other share's), which is all the fuzzer needs of
 * them. */
static int lone_reduce(void *ctx, int status, unsigned char *used, size_t n) {
  (void)ctx;
  (void)used;
  (void)n;
  return status;
}

static void halves(int64_t n, int size, int rank, int64_t *lo, int64_t *hi) {
  *lo = n * rank / size;
  *hi = n * (rank + 1) / size;
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
  /* and as the shares of two processes read it (mapped, element rows read where used) */
  for (int rank = 0; rank < 2; rank++) {
    feint_mesh_share share = {.rank = rank, .size = 2, .range = halves, .reduce = lone_reduce};
    mesh = NULL;
    if (feint_mesh_read_share(path, NULL, &share, &mesh) == FEINT_OK) feint_mesh_destroy(mesh);
  }
  remove(path); /* the suite replays this harness (t33): leave nothing in /tmp */
  return 0;
}
