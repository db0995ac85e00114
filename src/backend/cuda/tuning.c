/* The CUDA backend's tuning from the environment (tuning.h): the one
 * place that reads a kernel knob. */
#include "backend/cuda/tuning.h"

#include <stdlib.h>
#include <string.h>

#include "feint/error.h"

int feint_cuda_experiments_built(void) {
#ifdef FEINT_EXPERIMENTS
  return 1;
#else
  return 0;
#endif
}

/* The value of name when set and not empty, else NULL. */
static const char *env(const char *name) {
  const char *v = getenv(name);
  return v && *v ? v : NULL;
}

/* An integer variable in [lo, hi] (unset: *out unchanged). */
static int env_int(const char *name, long lo, long hi, const char *expected, long long *out) {
  const char *v = env(name);
  if (!v) return FEINT_OK;
  char *end = NULL;
  const long long x = strtoll(v, &end, 10);
  if (*end || x < lo || x > hi) return feint_error_set(FEINT_ERR_INPUT, "%s=%s: expected %s", name, v, expected);
  *out = x;
  return FEINT_OK;
}

/* A variable that is 0 or 1 (unset: *out unchanged). */
static int env_flag(const char *name, int *out) {
  long long x = *out;
  FEINT_CALL(env_int(name, 0, 1, "0 or 1", &x));
  *out = (int)x;
  return FEINT_OK;
}

/* A knob set away from its default that selects kernels only a make
 * EXPERIMENTS=1 build holds. */
static int experiment(const char *name, int is_default) {
  if (is_default || feint_cuda_experiments_built()) return FEINT_OK;
  return feint_error_set(FEINT_ERR_INPUT,
                         "%s=%s selects a kernel variant this feint does not hold (it has the default kernels "
                         "only): build with make EXPERIMENTS=1",
                         name, env(name));
}

int feint_cuda_tuning_read(const feint_problem *p, feint_cuda_tuning *t) {
  memset(t, 0, sizeof *t);
  t->blocks_per_batch = p && p->blocks_per_batch > 0 ? p->blocks_per_batch : 0;
  t->batches_per_chunk = p && p->batches_per_chunk > 0 ? p->batches_per_chunk : 4;
  t->chunk_cells = 256;
  t->cell_order = -1;
  t->lean = 1;
  t->lean_gather = -1;
  t->lean_pack = 1;
  t->lean_prefetch = -1;
  t->lean_pipe = 1;
  t->bp_split = -1;
  long long x;

  x = t->chunk_cells;
  FEINT_CALL(env_int("FEINT_CUDA_CHUNK", 32, 256, "a multiple of 32 from 32 to 256", &x));
  if (x % 32) return feint_error_set(FEINT_ERR_INPUT, "FEINT_CUDA_CHUNK=%lld: expected a multiple of 32", x);
  t->chunk_cells = (int)x;
  x = t->cell_order;
  FEINT_CALL(env_int("FEINT_CUDA_ORDER", 0, 1, "0 (mesh order) or 1 (curve order)", &x));
  t->cell_order = (int)x;

  FEINT_CALL(env_flag("FEINT_CUDA_LEAN", &t->lean));
  x = t->lean_gather;
  FEINT_CALL(env_int("FEINT_CUDA_LEAN_MODE", 0, 1, "0 (shared gather) or 1 (global)", &x));
  t->lean_gather = (int)x;
  FEINT_CALL(experiment("FEINT_CUDA_LEAN_MODE", t->lean_gather < 0));
  x = 0;
  FEINT_CALL(env_int("FEINT_CUDA_LEAN_MINB", 0, 8, "3, 4, 6 or 8 blocks per SM", &x));
  if (x && x != 3 && x != 4 && x != 6 && x != 8)
    return feint_error_set(FEINT_ERR_INPUT, "FEINT_CUDA_LEAN_MINB=%lld: expected 3, 4, 6 or 8", x);
  t->lean_minb = (int)x;
  FEINT_CALL(experiment("FEINT_CUDA_LEAN_MINB", !t->lean_minb));
  FEINT_CALL(env_flag("FEINT_CUDA_LEAN_PACK", &t->lean_pack));
  FEINT_CALL(experiment("FEINT_CUDA_LEAN_PACK", t->lean_pack));
  if (env("FEINT_CUDA_LEAN_REAL")) {
    if (strcmp(env("FEINT_CUDA_LEAN_REAL"), "double"))
      return feint_error_set(FEINT_ERR_INPUT, "FEINT_CUDA_LEAN_REAL=%s: expected double", env("FEINT_CUDA_LEAN_REAL"));
    t->lean_real = 8;
  }
  FEINT_CALL(experiment("FEINT_CUDA_LEAN_REAL", !t->lean_real));
  x = t->lean_prefetch;
  FEINT_CALL(env_int("FEINT_CUDA_LEAN_PF", 0, 1L << 20, "chunks ahead, 0 or more", &x));
  t->lean_prefetch = (int)x;
  FEINT_CALL(env_flag("FEINT_CUDA_LEAN_PIPE", &t->lean_pipe));
  x = 0;
  FEINT_CALL(env_int("FEINT_CUDA_LEAN_PIPE_GRID", 1, 1L << 30, "blocks, 1 or more", &x));
  t->lean_pipe_grid = (int)x;
  x = 0;
  FEINT_CALL(env_int("FEINT_FORM_MINB", 1, 8, "blocks per SM, 1 to 8", &x));
  t->form_minb = (int)x;
  const char *fm = env("FEINT_FORM_MATRIX");
  if (fm) {
    const char *names[] = {"thread", "warp", "block"};
    for (int k = 0; k < 3; k++)
      if (!strcmp(fm, names[k])) t->form_matrix = k + 1;
    if (!t->form_matrix)
      return feint_error_set(FEINT_ERR_INPUT, "FEINT_FORM_MATRIX=%s: expected thread, warp or block", fm);
  }

  FEINT_CALL(env_int("FEINT_ELMAT_BATCH", 1, (long)(~0UL >> 1), "cells per batch >= 1", &t->elmat_batch));
  x = 0;
  FEINT_CALL(env_int("FEINT_ELMAT_VECTOR_CELLS", 1, 8, "1, 2, 4 or 8", &x));
  if (x != 0 && x != 1 && x != 2 && x != 4 && x != 8)
    return feint_error_set(FEINT_ERR_INPUT, "FEINT_ELMAT_VECTOR_CELLS=%lld: expected 1, 2, 4 or 8", x);
  t->elmat_vector_cells = (int)x;
  const char *times = env("FEINT_ELMAT_TIMES");
  t->elmat_times = times && !strcmp(times, "1");

  const char *nb = env("FEINT_BP_NUMBERING");
  if (nb) {
    if (strcmp(nb, "split") && strcmp(nb, "own"))
      return feint_error_set(FEINT_ERR_INPUT, "FEINT_BP_NUMBERING=%s: expected split or own", nb);
    t->bp_split = !strcmp(nb, "split");
  }
  return FEINT_OK;
}
