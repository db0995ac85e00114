#include "feint/error.h"
#include "feint/parallel.h"

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

/* per thread: a helper thread's failure is its own until its owner
 * collects it (feint_output's pattern writer does) */
static _Thread_local char last_message[4096];
/* "file:line" of the feint_error_set that recorded it */
static _Thread_local char last_location[256];

size_t feint_utf8_cut(const char *s, size_t max) {
  const unsigned char *u = (const unsigned char *)s;
  size_t n = strnlen(s, max), lead = n;
  while (lead > 0 && n - lead < 4 && (u[lead - 1] & 0xC0) == 0x80) lead--;
  if (lead == 0) return n; /* no lead byte: not UTF-8, left as it is */
  lead--;                  /* the last character's first byte */
  const unsigned char c = u[lead];
  const size_t need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
  return n - lead < need ? lead : n;
}

/* A message longer than the buffer keeps its head (where: file:line, the
 * --set text) and its tail (the reason, which comes last), with the middle
 * (in practice a long quoted value) left out, cut between characters. */
static void keep_ends(const char *full, size_t n) {
  const size_t max = sizeof last_message - 1;
  char marker[64];
  const size_t head = feint_utf8_cut(full, max / 4);
  size_t tail = n - (max - head - sizeof marker); /* the marker fits in what is left */
  while (tail < n && ((unsigned char)full[tail] & 0xC0) == 0x80) tail++;
  const int m = snprintf(marker, sizeof marker, " [... %zu bytes left out ...] ", tail - head);
  memcpy(last_message, full, head);
  memcpy(last_message + head, marker, (size_t)m);
  memcpy(last_message + head + (size_t)m, full + tail, n - tail + 1);
}

/* The location of a new message: a message that contains the one before
 * it wraps it in context, and keeps where the error arose. */
static void locate(const char *file, int line, const char *message) {
  if (last_message[0] && strstr(message, last_message)) return;
  snprintf(last_location, sizeof last_location, "%s:%d", file, line);
}

/* Formats into a buffer of its own first, so that an argument may be the
 * current message (feint_error_message()). */
static void record(const char *file, int line, const char *where, const char *fmt, va_list ap) {
  char local[sizeof last_message];
  va_list again;
  va_copy(again, ap);
  const size_t lw = where ? strlen(where) + 2 : 0; /* "where: " */
  const int n = vsnprintf(NULL, 0, fmt, ap);
  const size_t total = lw + (n > 0 ? (size_t)n : 0);
  char *buf = total < sizeof local ? local : malloc(total + 1);
  /* out of memory: the buffer's worth, cut between characters */
  const size_t cap = buf ? (buf == local ? sizeof local : total + 1) : sizeof local;
  if (!buf) buf = local;
  if (where) snprintf(buf, cap, "%s: ", where);
  const size_t at = lw < cap ? lw : cap - 1;
  if (vsnprintf(buf + at, cap - at, fmt, again) < 0) buf[at] = '\0';
  va_end(again);
  const size_t len = strlen(buf);
  locate(file, line, buf);
  if (len >= sizeof last_message) {
    keep_ends(buf, len);
  } else {
    if (total >= cap) buf[feint_utf8_cut(buf, len)] = '\0';
    memcpy(last_message, buf, strlen(buf) + 1);
  }
  if (buf != local) free(buf);
}

int feint_error_set_loc(const char *file, int line, int status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  record(file, line, NULL, fmt, ap);
  va_end(ap);
  return status;
}

int feint_error_set_at_loc(const char *file, int line, int status, const char *where, const char *fmt, va_list ap) {
  record(file, line, where, fmt, ap);
  return status;
}

const char *feint_error_message(void) { return last_message; }

const char *feint_error_location(void) { return last_location; }

int feint_error_restore(int status, const char *message, const char *location) {
  snprintf(last_message, sizeof last_message, "%s", message);
  snprintf(last_location, sizeof last_location, "%s", location);
  return status;
}

void feint_error_clear(void) {
  last_message[0] = '\0';
  last_location[0] = '\0';
}

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

/* Arrays of 16 MiB and more (a mesh's cells, a part's maps, a pattern's
 * columns) in huge pages: filling fresh 4 KiB pages, fault by fault, and
 * giving them back cost more than the copies into them */
enum { HUGE_PAGES_FROM = 16 << 20 };

int feint_malloc(size_t count, size_t size, void *out, const char *what) {
  if (size && count <= SIZE_MAX / size && count * size >= HUGE_PAGES_FROM)
    return feint_malloc_large(count, size, out, what);
  return allocate(count, size, out, what, 0);
}

int feint_malloc_large(size_t count, size_t size, void *out, const char *what) {
  const size_t huge = (size_t)1 << 21;
  if (size && count > (SIZE_MAX - huge) / size) return allocate(count, size, out, what, 0);
  const size_t bytes = count * size;
  if (bytes < 2 * huge) return allocate(count, size, out, what, 0);
  const size_t rounded = (bytes + huge - 1) / huge * huge;
  void *ptr = aligned_alloc(huge, rounded);
  if (!ptr) return allocate(count, size, out, what, 0); /* plain malloc may still succeed, or records the message */
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
