#include "feint/error.h"
#include "feint/parallel.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

/* per thread: a helper thread's failure is its own until its owner
 * collects it (feint_output's pattern writer does) */
static _Thread_local char last_message[4096];

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

static void touch_range(int64_t a, int64_t b, void *p) { memset((char *)p + a, 0, (size_t)(b - a)); }

int feint_malloc_large_touched(size_t count, size_t size, void *out, const char *what) {
  FEINT_CALL(feint_malloc_large(count, size, out, what));
  /* every core touches its share: one core faulting 4 KiB pages ran at
   * 1.2-1.9 GB/s, slower than the copy that fills the buffer */
  feint_parallel_for((int64_t)(count * size), (int64_t)4 << 20, touch_range, *(char **)out);
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
