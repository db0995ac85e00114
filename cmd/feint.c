/* feint: finite element integrals on the GPU from a Gmsh mesh and a YAML
 * case. Dispatches subcommands (git-style); exit status 0 success, 2 bad
 * usage or bad input, 1 failure while computing. */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "feint/error.h"
#include "feint/version.h"

static const char usage[] =
    "usage: feint run CASE.yaml [-o OUT.h5] [--set key.path=value ...]\n"
    "                 [--backend auto|cpu|cuda] [--device N] [--json] [--quiet]\n"
    "       feint check CASE.yaml [--set key.path=value ...]\n"
    "       feint bench CASE.yaml [--repeat N] [run options]\n"
    "       feint info MESH\n"
    "       feint --help | --version\n"
    "\n"
    "  run    compute what the case asks (residual, rhs, element matrices,\n"
    "         global CSR matrix) and write one HDF5 file\n"
    "  check  validate the case and its mesh; compute nothing\n"
    "  bench  run the case with each compute phase repeated (default 21\n"
    "         times) and report per phase: time, kernel time, the fewest bytes\n"
    "         it must move, GB/s and the fraction of the measured copy bandwidth\n"
    "  info   summarise a mesh: cells by type, physical groups, bounding box,\n"
    "         volume, worst cell quality\n"
    "\n"
    "CASE may be '-' to read the case from standard input.\n"
    "Exit status: 0 success, 2 bad usage or bad input, 1 failure while computing.\n"
    "See feint(1) for the case file and the output layout.\n";

int cmd_fail(int status) {
  fprintf(stderr, "feint: error: %s\n", feint_error_message());
  return status;
}

static const struct {
  const char *name;
  int (*fn)(int, char **);
} commands[] = {{"run", cmd_run}, {"check", cmd_check}, {"info", cmd_info}, {"bench", cmd_bench}};

int main(int argc, char **argv) {
  if (argc < 2) {
    fputs(usage, stderr);
    return FEINT_ERR_INPUT;
  }
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
    fputs(usage, stdout);
    return 0;
  }
  if (!strcmp(argv[1], "--version")) {
    printf("feint %s\n", FEINT_VERSION);
    return 0;
  }
  for (size_t k = 0; k < sizeof commands / sizeof commands[0]; k++)
    if (!strcmp(argv[1], commands[k].name)) return commands[k].fn(argc - 1, argv + 1);
  fprintf(stderr, "feint: unknown command '%s'\n%s", argv[1], usage);
  return FEINT_ERR_INPUT;
}
