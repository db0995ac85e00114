/* The error module's source locations: feint_error_set records file:line
 * of its call; a message that wraps the previous one (context around
 * feint_error_message()) keeps the location where the error arose; a new
 * error takes its own; clear forgets it; restore carries one across
 * threads; the message never carries the location. */
#include "check.h"
#include "feint/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Under AddressSanitizer (make test-asan) a request past its largest
 * allocation returns NULL, as malloc does, instead of stopping the test. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "allocator_may_return_null=1"; }

static int line_a, line_b;

static int inner(void) {
  line_a = __LINE__ + 1;
  return feint_error_set(FEINT_ERR_INPUT, "the reason");
}

static int outer(void) {
  int st = inner();
  line_b = __LINE__ + 1;
  return feint_error_set(st, "where: %s", feint_error_message());
}

int main(void) {
  char want[256];
  const char *file = __FILE__;

  CHECK(!strcmp(feint_error_location(), ""), "before any error: '%s'", feint_error_location());

  CHECK(inner() == FEINT_ERR_INPUT, "status");
  snprintf(want, sizeof want, "%s:%d", file, line_a);
  CHECK(!strcmp(feint_error_location(), want), "location %s, expected %s", feint_error_location(), want);
  CHECK(!strcmp(feint_error_message(), "the reason"), "message '%s'", feint_error_message());

  /* a wrap keeps the innermost location; the message is the wrapped one */
  feint_error_clear();
  CHECK(outer() == FEINT_ERR_INPUT, "status");
  CHECK(!strcmp(feint_error_message(), "where: the reason"), "message '%s'", feint_error_message());
  CHECK(!strcmp(feint_error_location(), want), "wrapped: location %s, expected %s (not line %d)",
        feint_error_location(), want, line_b);
  printf("wrapped error: located at %s, message '%s'\n", feint_error_location(), feint_error_message());

  /* a new error (not containing the last message) is located anew */
  const int line_c = __LINE__ + 1;
  feint_error_set(FEINT_ERR_COMPUTE, "another failure %d", 7);
  snprintf(want, sizeof want, "%s:%d", file, line_c);
  CHECK(!strcmp(feint_error_location(), want), "new error: location %s, expected %s", feint_error_location(), want);

  /* clear forgets both */
  feint_error_clear();
  CHECK(!strcmp(feint_error_location(), "") && !strcmp(feint_error_message(), ""), "after clear: '%s' '%s'",
        feint_error_location(), feint_error_message());

  /* restore: message and location as given (another thread's failure) */
  CHECK(feint_error_restore(FEINT_ERR_COMPUTE, "from a helper", "src/io/h5.c:12") == FEINT_ERR_COMPUTE, "status");
  CHECK(!strcmp(feint_error_message(), "from a helper") && !strcmp(feint_error_location(), "src/io/h5.c:12"),
        "restored: '%s' at '%s'", feint_error_message(), feint_error_location());

  /* an allocation failure is located in the error module */
  void *p = NULL;
  CHECK(feint_malloc(SIZE_MAX / 2, 4, &p, "huge") == FEINT_ERR_COMPUTE && !p, "overflow refused");
  CHECK(strstr(feint_error_location(), "error.c:") != NULL, "allocation failure at %s", feint_error_location());
  CHECK(!strstr(feint_error_message(), "error.c"), "the message names no source file: %s", feint_error_message());

  /* a request no memory can hold (no overflow: 64 TiB) takes the huge-page path, whose failure falls back to a
   * plain malloc once and is reported (a fallback through feint_malloc recursed until the stack overflowed) */
  feint_error_clear();
  alarm(30); /* a fallback that loops (the recursion, made a loop by the compiler) fails here, not hangs */
  CHECK(feint_malloc((size_t)1 << 46, 1, &p, "too much") == FEINT_ERR_COMPUTE && !p, "64 TiB refused");
  CHECK(strstr(feint_error_message(), "out of memory allocating too much") != NULL, "message: %s",
        feint_error_message());
  CHECK(feint_malloc_large((size_t)1 << 43, 8, &p, "too much") == FEINT_ERR_COMPUTE && !p, "64 TiB (large) refused");
  alarm(0);
  /* and a large request that fits is usable and freed with free() */
  CHECK(feint_malloc((size_t)5 << 20, 8, &p, "40 MB") == FEINT_OK && p, "40 MB allocated");
  if (p) {
    memset(p, 1, (size_t)40 << 20);
    free(p);
  }

  if (check_failures) return 1;
  printf("error locations: ok\n");
  return 0;
}
