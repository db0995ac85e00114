/* libFuzzer harness for the case loader (case.h): what `feint check` does
 * before it reads the mesh. Each input is a case file, optionally preceded
 * by up to 4 lines "--set key.path=value" (the command line's overrides).
 * The case is loaded from memory (feint_case_load_text: no file is read;
 * relative paths resolve under a directory that does not exist, and the
 * mesh is never opened), then sweep members are loaded as check does (the
 * first few and the last: members differ only in their values, and all
 * 100000 the format allows would make each input slow). A case that loads
 * must load again from its own as_run text (the provenance written to the
 * output) to the same as_run: anything else aborts, as a crash.
 * Built by `make fuzz-case`; seeds in tests/fuzz/corpus/case; crashes found
 * are kept in tests/fuzz/regress/case, which t33-fuzz-regress.sh runs. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feint/case.h"
#include "feint/error.h"

enum { MAX_SETS = 4, FIRST_MEMBERS = 4 };

static const char *const case_path = "/nonexistent-feint-fuzz/case.yaml";

static void load_members(const feint_case *c) {
  for (int m = 0; m < c->n_sweep; m++) {
    if (m == FIRST_MEMBERS && c->n_sweep > FIRST_MEMBERS + 1) m = c->n_sweep - 1;
    feint_case *mc = NULL;
    if (feint_case_load_member(c, m, &mc) == FEINT_OK) feint_case_destroy(mc);
  }
}

/* as_run is the case as run: loading it gives the same case */
static void check_round_trip(const feint_case *c) {
  feint_case *again = NULL;
  if (feint_case_load_text(case_path, c->as_run, strlen(c->as_run), 0, NULL, &again) != FEINT_OK) {
    fprintf(stderr, "as_run does not load: %s\n---\n%s---\n", feint_error_message(), c->as_run);
    abort();
  }
  if (strcmp(again->as_run, c->as_run) != 0) {
    fprintf(stderr, "as_run changes on reload:\n---\n%s---\n%s---\n", c->as_run, again->as_run);
    abort();
  }
  feint_case_destroy(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *buf = malloc(size + 1);
  if (!buf) return 0;
  memcpy(buf, data, size);
  buf[size] = '\0';
  /* leading "--set " lines become overrides (cut at their newline) */
  const char *sets[MAX_SETS];
  int n_sets = 0;
  size_t pos = 0;
  while (n_sets < MAX_SETS && size - pos > 6 && !memcmp(buf + pos, "--set ", 6)) {
    char *nl = memchr(buf + pos, '\n', size - pos);
    if (!nl) break;
    *nl = '\0';
    sets[n_sets++] = buf + pos + 6;
    pos = (size_t)(nl - buf) + 1;
  }
  feint_case *c = NULL;
  if (feint_case_load_text(case_path, buf + pos, size - pos, n_sets, sets, &c) == FEINT_OK) {
    load_members(c);
    check_round_trip(c);
    feint_case_destroy(c);
  }
  free(buf);
  return 0;
}
