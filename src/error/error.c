#include "feint/error.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

static char last_message[4096];

int feint_error_set(int status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(last_message, sizeof last_message, fmt, ap);
  va_end(ap);
  return status;
}

const char *feint_error_message(void) { return last_message; }

void feint_error_clear(void) { last_message[0] = '\0'; }

static int allocate(size_t count, size_t size, void *out, const char *what, int zero) {
  void **ptr = (void **)out;
  *ptr = NULL;
  if (size != 0 && count > SIZE_MAX / size)
    return feint_error_set(FEINT_ERR_COMPUTE, "size overflow allocating %s", what);
  size_t bytes = count * size;
  *ptr = zero ? calloc(bytes ? bytes : 1, 1) : malloc(bytes ? bytes : 1);
  if (!*ptr)
    return feint_error_set(FEINT_ERR_COMPUTE, "out of memory allocating %s (%zu bytes)", what,
                           bytes);
  return FEINT_OK;
}

int feint_calloc(size_t count, size_t size, void *out, const char *what) {
  return allocate(count, size, out, what, 1);
}

int feint_malloc(size_t count, size_t size, void *out, const char *what) {
  return allocate(count, size, out, what, 0);
}

int feint_malloc_large(size_t count, size_t size, void *out, const char *what) {
  const size_t huge = (size_t)1 << 21;
  if (size && count > (SIZE_MAX - huge) / size) return feint_malloc(count, size, out, what);
  const size_t bytes = count * size;
  if (bytes < 2 * huge) return feint_malloc(count, size, out, what);
  const size_t rounded = (bytes + huge - 1) / huge * huge;
  void *ptr = aligned_alloc(huge, rounded);
  if (!ptr) return feint_malloc(count, size, out, what); /* records the message */
#ifdef MADV_HUGEPAGE
  (void)madvise(ptr, rounded, MADV_HUGEPAGE);
#endif
  *(void **)out = ptr;
  return FEINT_OK;
}

/* One thread's share of feint_malloc_large_touched's first touch. */
typedef struct {
  char *p;
  size_t n;
} touch_part;

static void *touch_run(void *arg) {
  const touch_part *t = arg;
  memset(t->p, 0, t->n);
  return NULL;
}

int feint_malloc_large_touched(size_t count, size_t size, void *out, const char *what) {
  FEINT_CALL(feint_malloc_large(count, size, out, what));
  enum { MAX_THREADS = 16 };
  const size_t bytes = count * size;
  const long cores = sysconf(_SC_NPROCESSORS_ONLN);
  int nt = cores < 1 ? 1 : cores > MAX_THREADS ? MAX_THREADS : (int)cores;
  if (bytes < ((size_t)64 << 20)) nt = 1;
  char *p = *(char **)out;
  pthread_t th[MAX_THREADS];
  touch_part part[MAX_THREADS];
  int started[MAX_THREADS] = {0};
  for (int t = 0; t < nt; t++) {
    const size_t a = bytes / (size_t)nt * (size_t)t, b = t + 1 == nt ? bytes : bytes / (size_t)nt * (size_t)(t + 1);
    part[t] = (touch_part){p + a, b - a};
    started[t] = t > 0 && pthread_create(&th[t], NULL, touch_run, &part[t]) == 0;
    if (t > 0 && !started[t]) touch_run(&part[t]);
  }
  touch_run(&part[0]);
  for (int t = 1; t < nt; t++)
    if (started[t]) pthread_join(th[t], NULL);
  return FEINT_OK;
}

int feint_strdup(const char *s, char **out) {
  size_t n = strlen(s) + 1;
  FEINT_CALL(feint_malloc(n, 1, out, "string"));
  memcpy(*out, s, n);
  return FEINT_OK;
}

const char *feint_nonfinite_name(double v) {
  return isnan(v) ? "nan" : isinf(v) ? (v > 0 ? "inf" : "-inf") : "finite";
}

int feint_error_not_finite(const char *where, const char *name, const char *what, double value, const double *at) {
  if (!at)
    return feint_error_set(FEINT_ERR_INPUT, "%s: %s \"%s\" is %s: expected a finite value", where, name, what,
                           feint_nonfinite_name(value));
  return feint_error_set(FEINT_ERR_INPUT, "%s: %s \"%s\" is %s at (%g, %g, %g): expected finite values", where, name,
                         what, feint_nonfinite_name(value), at[0], at[1], at[2]);
}

int feint_memory_limit(double *limit, const char **why) {
  const char *env = getenv("FEINT_MEMORY_LIMIT");
  if (env && *env) {
    char *end;
    errno = 0;
    *limit = strtod(env, &end);
    if (errno || *end || !(*limit > 0))
      return feint_error_set(FEINT_ERR_INPUT, "FEINT_MEMORY_LIMIT=%s: expected a positive number of bytes", env);
    *why = "FEINT_MEMORY_LIMIT";
    return FEINT_OK;
  }
  *why = "half the physical memory; FEINT_MEMORY_LIMIT sets another";
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  *limit = pages > 0 && page > 0 ? 0.5 * (double)pages * (double)page : 1e300;
  return FEINT_OK;
}
