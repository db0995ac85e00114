/* Minimal test helpers: each unit test is a program that prints what it
 * checks and exits non-zero when a check fails. */
#ifndef FEINT_TEST_CHECK_H
#define FEINT_TEST_CHECK_H
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_failures = 0;

/* |a - b| / |b| in the 2-norm (|a - b| when b = 0). */
static inline double rel_diff(int64_t n, const double *a, const double *b) {
  double num = 0, den = 0;
  for (int64_t i = 0; i < n; i++) {
    num += (a[i] - b[i]) * (a[i] - b[i]);
    den += b[i] * b[i];
  }
  return sqrt(num / (den > 0 ? den : 1));
}

#define CHECK(cond, ...)                                                       \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                            \
      fprintf(stderr, "\n");                                                   \
      check_failures++;                                                        \
    }                                                                          \
  } while (0)

/* |got - want| <= tol * max(1, |want|) */
#define CHECK_CLOSE(got, want, tol)                                            \
  do {                                                                         \
    double g_ = (got), w_ = (want);                                            \
    double s_ = fabs(w_) > 1 ? fabs(w_) : 1;                                   \
    if (!(fabs(g_ - w_) <= (tol) * s_)) {                                      \
      fprintf(stderr, "%s:%d: %s = %.17g, expected %.17g (tol %g)\n", __FILE__, \
              __LINE__, #got, g_, w_, (double)(tol));                          \
      check_failures++;                                                        \
    }                                                                          \
  } while (0)

#define CHECK_OK(expr)                                                         \
  do {                                                                         \
    int s_ = (expr);                                                           \
    if (s_) {                                                                  \
      fprintf(stderr, "%s:%d: %s failed (%d): %s\n", __FILE__, __LINE__, #expr, \
              s_, feint_error_message());                                      \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

/* xorshift64: a reproducible uniform number in [0, 1) from *state (the
 * tests' random inputs). */
static inline double check_urand(uint64_t *state) {
  *state ^= *state << 13;
  *state ^= *state >> 7;
  *state ^= *state << 17;
  return (double)(*state >> 11) / 9007199254740992.0;
}

/* p[0..n): a random permutation of 0..n-1 (Fisher-Yates on check_urand). */
static inline void check_permutation(int32_t *p, int64_t n, uint64_t *state) {
  for (int64_t i = 0; i < n; i++) p[i] = (int32_t)i;
  for (int64_t i = n - 1; i > 0; i--) {
    int64_t j = (int64_t)(check_urand(state) * (double)(i + 1));
    int32_t t = p[i];
    p[i] = p[j];
    p[j] = t;
  }
}

static inline int check_report(const char *name) {
  if (check_failures) fprintf(stderr, "%s: %d check(s) failed\n", name, check_failures);
  return check_failures ? 1 : 0;
}

/* The end of a GPU test on a machine without a GPU: prints "skipped: no
 * GPU" (and what was skipped) and returns the exit status: 1 when
 * FEINT_GPU_TESTS=1 demands a GPU, else the report of the checks run so
 * far (the CPU-side ones). */
static inline int check_skip_without_gpu(const char *name, const char *skipped) {
  const char *want = getenv("FEINT_GPU_TESTS");
  printf("skipped: no GPU%s%s\n", skipped ? " " : "", skipped ? skipped : "");
  if (want && !strcmp(want, "1")) {
    fprintf(stderr, "FEINT_GPU_TESTS=1 but no CUDA device is visible\n");
    return 1;
  }
  return check_report(name);
}
#endif
