/* feint error handling: one status code per failure, one recorded message.
 *
 * Every function that can fail returns an int status (FEINT_OK on success)
 * and records a human-readable message with feint_error_set(). Callers
 * propagate with FEINT_CALL(); only cmd/ decides the process exit status.
 * Modelled on PetscCall()/CeedCall(). */
#ifndef FEINT_ERROR_H
#define FEINT_ERROR_H

#include <stdarg.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" { /* the CUDA sources (C++) record errors too */
#endif

enum {
  FEINT_OK = 0,
  FEINT_ERR_COMPUTE = 1, /* failure while computing (out of memory, CUDA, I/O) */
  FEINT_ERR_INPUT = 2    /* bad usage or bad input (case, mesh, options) */
};

/* Record a message (printf-style) and return status, so callers can write
 * `return feint_error_set(FEINT_ERR_INPUT, "%s:%d: ...", ...);`. The macro
 * also records the source location (file:line) of the call, which
 * feint_error_location() gives back and `feint` prints under FEINT_DEBUG=1;
 * the message itself never carries it. A message that contains the
 * previous one (context wrapped around feint_error_message()) keeps the
 * previous location: the location is where the error arose. */
#define feint_error_set(status, ...) feint_error_set_loc(__FILE__, __LINE__, (status), __VA_ARGS__)
int feint_error_set_loc(const char *file, int line, int status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* feint_error_set's message with "<where>: " before it. Messages are kept
 * to 4 KB: a longer one keeps its head (where) and its tail (the reason),
 * leaving out the middle, between UTF-8 characters. An argument may be
 * feint_error_message() itself. */
#define feint_error_set_at(status, where, fmt, ap) feint_error_set_at_loc(__FILE__, __LINE__, (status), (where), (fmt), (ap))
int feint_error_set_at_loc(const char *file, int line, int status, const char *where, const char *fmt, va_list ap);

/* Where the last message was recorded: "file:line" of the feint_error_set
 * call ("" if none). */
const char *feint_error_location(void);

/* Record message and location as they are (a failure carried from another
 * thread or process, where they were taken with feint_error_message() and
 * feint_error_location()); returns status. */
int feint_error_restore(int status, const char *message, const char *location);

/* The length of the longest prefix of s of at most max bytes that does not
 * end inside a UTF-8 character (for "%.*s" in messages, and to trim what
 * snprintf cut). */
size_t feint_utf8_cut(const char *s, size_t max);

/* The last recorded message ("" if none). */
const char *feint_error_message(void);

/* Forget the last message (used by code that tries alternatives). */
void feint_error_clear(void);

/* "nan", "inf" or "-inf" for a non-finite value in a message (printf's %g
 * writes "-nan" for some NaNs); "finite" otherwise. */
const char *feint_nonfinite_name(double v);
/* The input error for a case value sampled to inf or nan: "<where>: <name>
 * \"<what>\" is nan at (x, y, z): expected finite values" (at = the point's
 * coordinates, or NULL for a constant: "... is inf: expected a finite
 * value"). Returns FEINT_ERR_INPUT. */
int feint_error_not_finite(const char *where, const char *name, const char *what, double value, const double *at);

/* Propagate a non-zero status to the caller. */
#define FEINT_CALL(expr)                                                        \
  do {                                                                         \
    int feint_call_status_ = (expr);                                           \
    if (feint_call_status_ != FEINT_OK) return feint_call_status_;             \
  } while (0)

/* Checked allocation: *(void **)out = calloc(count, size); on failure records
 * "out of memory allocating <what> (<bytes> bytes)" and returns
 * FEINT_ERR_COMPUTE. count == 0 yields a valid (freeable) pointer.
 * feint_malloc takes feint_malloc_large's huge pages from 16 MiB. */
int feint_calloc(size_t count, size_t size, void *out, const char *what);
int feint_malloc(size_t count, size_t size, void *out, const char *what);
/* feint_malloc for large arrays read or written at scattered places (CSR
 * values, slot maps): 2 MiB-aligned and marked for transparent huge pages,
 * so random access does not miss the TLB on every page. Released with
 * free(). Small requests are plain feint_malloc. */
int feint_malloc_large(size_t count, size_t size, void *out, const char *what);
/* feint_malloc_large, zeroed by every core: the first touch of fresh
 * memory (the kernel's page faults) is what makes a large copy into it
 * slow (a 122 MB device-to-host copy ran at 0.8 GB/s into untouched
 * memory on the H100 host); done in parallel it takes a fraction. */
int feint_malloc_large_touched(size_t count, size_t size, void *out, const char *what);
/* Checked strdup. */
int feint_strdup(const char *s, char **out);

/* The memory limit, in bytes: FEINT_MEMORY_LIMIT when set (*why names it),
 * else half the physical memory. It caps the largest output array a run
 * allocates (driver) and what Gmsh may take to mesh a .geo (mesh). An
 * unreadable value is FEINT_ERR_INPUT. */
int feint_memory_limit(double *limit, const char **why);

#ifdef __cplusplus
}
#endif

#endif
