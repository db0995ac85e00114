/* Sweep sections: product and list expansion into member overrides, member
 * cases with the command line's overrides under them, errors naming the
 * member. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "feint/case.h"
#include "feint/error.h"

static char dir[64] = "/tmp/feint-t102-XXXXXX";

static const char *write_case(const char *name, const char *text) {
  static char path[256];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  fputs(text, f);
  fclose(f);
  return path;
}

int main(void) {
  if (!mkdtemp(dir)) return 1;
  const char *p = write_case("s.yaml",
                             "mesh: {file: m.msh}\n"
                             "physics: {kind: poisson, kappa: 1}\n"
                             "sweep:\n"
                             "  product: {physics.kappa: [1, 10, \"1 + x\"], space.order: [1, 2]}\n"
                             "  output: \"k-{index}.h5\"\n");
  const char *cli[] = {"quadrature.degree=5"};
  feint_case *c = NULL;
  CHECK_OK(feint_case_load(p, 1, cli, &c));
  CHECK(c->n_sweep == 6, "6 members, got %d", c->n_sweep);
  CHECK(c->sweep[0].n == 2 && !strcmp(c->sweep[0].overrides[0], "physics.kappa=1") &&
            !strcmp(c->sweep[0].overrides[1], "space.order=1"),
        "member 0: %s %s", c->sweep[0].overrides[0], c->sweep[0].overrides[1]);
  CHECK(!strcmp(c->sweep[1].overrides[1], "space.order=2"), "second key varies fastest");
  CHECK(!strcmp(c->sweep[5].overrides[0], "physics.kappa=\"1 + x\""), "quoted: %s", c->sweep[5].overrides[0]);
  CHECK(c->sweep_output && strstr(c->sweep_output, "k-{index}.h5") && !c->sweep_groups, "output template");
  for (int m = 0; m < 6; m++) {
    feint_case *mc = NULL;
    CHECK_OK(feint_case_load_member(c, m, &mc));
    CHECK(mc->order == 1 + m % 2, "member %d order %d", m, mc->order);
    CHECK(mc->quadrature_degree == 5, "command-line override kept under members");
    if (m < 4) CHECK(mc->kappa.kind == FEINT_VALUE_CONSTANT && mc->kappa.constant == (m < 2 ? 1 : 10), "kappa");
    else CHECK(mc->kappa.kind == FEINT_VALUE_EXPRESSION && !strcmp(mc->kappa.expression, "1 + x"), "kappa expr");
    CHECK(mc->n_sweep == 0 && !strstr(mc->as_run, "sweep"), "member as_run has no sweep:\n%s", mc->as_run);
    feint_case_destroy(mc);
  }
  feint_case_destroy(c);

  /* list layout with groups; a bad key is reported for its member */
  p = write_case("l.yaml",
                 "mesh: {file: m.msh}\n"
                 "physics: {kind: poisson}\n"
                 "sweep:\n"
                 "  layout: groups\n"
                 "  list:\n"
                 "    - {physics.kappa: 2}\n"
                 "    - {physics.kapa: 3, assembly.strategy: atomic}\n");
  CHECK_OK(feint_case_load(p, 0, NULL, &c));
  CHECK(c->n_sweep == 2 && c->sweep_groups && c->sweep[1].n == 2, "list members");
  feint_case *mc = NULL;
  CHECK_OK(feint_case_load_member(c, 0, &mc));
  CHECK(mc->kappa.constant == 2, "list member 0");
  feint_case_destroy(mc);
  int s = feint_case_load_member(c, 1, &mc);
  CHECK(s == FEINT_ERR_INPUT && !mc, "bad member key must fail");
  CHECK(strstr(feint_error_message(), "l.yaml:3:1: sweep member 1:") &&
            strstr(feint_error_message(), "did you mean 'kappa'"),
        "message: %s", feint_error_message());
  feint_case_destroy(c);

  /* a sweep cannot set sweep keys; values must be lists */
  p = write_case("b.yaml", "mesh: {file: m.msh}\nphysics: {kind: poisson}\nsweep:\n  product: {sweep.layout: [files]}\n");
  CHECK(feint_case_load(p, 0, NULL, &c) == FEINT_ERR_INPUT && strstr(feint_error_message(), "cannot set sweep"),
        "%s", feint_error_message());
  p = write_case("v.yaml", "mesh: {file: m.msh}\nphysics: {kind: poisson}\nsweep:\n  product: {physics.kappa: 3}\n");
  CHECK(feint_case_load(p, 0, NULL, &c) == FEINT_ERR_INPUT && strstr(feint_error_message(), "v.yaml:4:28"),
        "%s", feint_error_message());
  return check_report("t102-sweep");
}
