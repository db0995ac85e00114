/* feint_parallel_for: see feint/parallel.h. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "feint/parallel.h"

typedef struct {
  feint_indexed_range_fn fn;
  void *ctx;
  int64_t begin, end;
  int range;
} range_job;

static void *run_range(void *arg) {
  const range_job *j = arg;
  j->fn(j->begin, j->end, j->range, j->ctx);
  return NULL;
}

/* FEINT_THREADS (1..16) caps the threads, as OMP_NUM_THREADS does for a
 * shared node; unset or invalid: the cores this process may run on (its
 * affinity: taskset, or mpirun's binding of a rank), else those online. */
static _Atomic int cap;

int feint_parallel_cap(int threads) { return atomic_exchange(&cap, threads > 0 ? threads : 0); }

static long host_threads(void) {
  const char *env = getenv("FEINT_THREADS");
  long t = 0;
  if (env && *env) {
    char *end;
    t = strtol(env, &end, 10);
    if (*end != '\0' || t < 1) t = 0;
  }
  if (!t) t = feint_parallel_cpus();
  const int c = atomic_load(&cap);
  return c > 0 && c < t ? c : t;
}

int feint_parallel_cpus(void) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
  const long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

int feint_parallel_ranges(int64_t n, int64_t grain) {
  const long cores = host_threads();
  int64_t t = cores < 1 ? 1 : cores > FEINT_PARALLEL_MAX_RANGES ? FEINT_PARALLEL_MAX_RANGES : cores;
  if (grain < 1) grain = 1;
  if (t > n / grain) t = n / grain;
  return t < 1 ? 1 : (int)t;
}

int64_t feint_parallel_range_start(int64_t n, int ranges, int t) { return n * t / ranges; }

typedef struct {
  feint_range_fn fn;
  void *ctx;
} plain_range;

static void run_plain_range(int64_t begin, int64_t end, int range, void *ctx) {
  (void)range;
  const plain_range *p = ctx;
  p->fn(begin, end, p->ctx);
}

int feint_parallel_for(int64_t n, int64_t grain, feint_range_fn fn, void *ctx) {
  plain_range p = {fn, ctx};
  return feint_parallel_for_indexed(n, grain, run_plain_range, &p);
}

int feint_parallel_for_indexed(int64_t n, int64_t grain, feint_indexed_range_fn fn, void *ctx) {
  if (n <= 0) return 1;
  const int nt = feint_parallel_ranges(n, grain);
  pthread_t th[FEINT_PARALLEL_MAX_RANGES];
  range_job job[FEINT_PARALLEL_MAX_RANGES];
  int started[FEINT_PARALLEL_MAX_RANGES] = {0};
  for (int t = 0; t < nt; t++) job[t] = (range_job){fn, ctx, feint_parallel_range_start(n, nt, t),
                                                     feint_parallel_range_start(n, nt, t + 1), t};
  for (int t = 1; t < nt; t++) started[t] = pthread_create(&th[t], NULL, run_range, &job[t]) == 0;
  run_range(&job[0]);
  for (int t = 1; t < nt; t++)
    if (!started[t]) run_range(&job[t]); /* no thread: run it here */
  for (int t = 1; t < nt; t++)
    if (started[t]) pthread_join(th[t], NULL);
  return nt;
}

typedef struct {
  char *dst;
  const char *src;
} memcpy_job;

enum { MEMCPY_GRAIN = 1 << 20 };

static void memcpy_range(int64_t a, int64_t b, void *arg) {
  const memcpy_job *j = arg;
  memcpy(j->dst + a, j->src + a, (size_t)(b - a));
}

void feint_parallel_memcpy(void *dst, const void *src, size_t bytes) {
  if (bytes < 2 * MEMCPY_GRAIN) {
    if (bytes) memcpy(dst, src, bytes);
    return;
  }
  memcpy_job j = {dst, src};
  feint_parallel_for((int64_t)bytes, MEMCPY_GRAIN, memcpy_range, &j);
}
