/* feint: finite element integrals on the GPU from a Gmsh mesh and a YAML
 * case. Dispatches subcommands (git-style); exit status 0 success, 2 bad
 * usage or bad input, 1 failure while computing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "feint/error.h"
#include "feint/version.h"

static const char run_usage[] =
    "usage: feint run CASE.yaml [-o OUT.h5] [--set key.path=value ...]\n"
    "                 [--backend auto|cpu|cuda] [--device N] [--no-cache] [--json]\n"
    "                 [--quiet]\n";
static const char check_usage[] = "usage: feint check CASE.yaml [--set key.path=value ...]\n";
static const char bench_usage[] =
    "usage: feint bench CASE.yaml [--repeat N] [--csv FILE] [--svg FILE] [run options]\n";
static const char info_usage[] = "usage: feint info MESH (.msh or .geo) | --kernels\n";

static const char run_help[] =
    "\n"
    "Compute what the case asks (residual, rhs, element matrices, global CSR\n"
    "matrix) and write one HDF5 file.\n"
    "\n"
    "  -o, --output FILE    the output file (default: the case's output.file,\n"
    "                       relative to the case's folder; else CASE with .h5);\n"
    "                       FILE is relative to the current folder; once\n"
    "  -s, --set key=value  override a case key (YAML value; key=null unsets)\n"
    "  --backend B          auto (default: CUDA when a GPU is visible), cpu, cuda\n"
    "  --device N           the CUDA device\n"
    "  --no-cache           compile GPU code made at run time (user forms) anew:\n"
    "                       neither read nor write the disk cache (as the case\n"
    "                       key backend.cache: false)\n"
    "  --json               one JSON summary object on standard output\n"
    "  -q, --quiet          no progress and no table (warnings still print)\n";
static const char check_help[] =
    "\n"
    "Validate the case and its mesh; compute nothing, write nothing.\n";
static const char bench_help[] =
    "\n"
    "Run the case with each compute phase repeated (default 21 times) and report\n"
    "per phase: time, kernel time, the fewest bytes it must move, GB/s and the\n"
    "fraction of the measured copy bandwidth. Takes run's options and\n"
    "  --repeat N           runs of each compute phase (1..201)\n"
    "  --csv FILE           also write the table as CSV: a header row, then a row\n"
    "                       per phase with the run's device, backend and copy\n"
    "                       GB/s repeated on each; an empty field where the table\n"
    "                       has none (columns: feint(1), bench)\n"
    "  --svg FILE           also draw it (SVG): a roofline of the phases with a\n"
    "                       flop model (GFLOP/s against flop/byte, log-log, under\n"
    "                       the copy bandwidth's roof) beside a bar of GB/s per\n"
    "                       phase against a line at the copy bandwidth\n"
    "With --json the files are written and the table is not printed.\n";
static const char info_help[] =
    "\n"
    "Summarise a mesh: cells by type, geometry order, physical groups, bounding\n"
    "box, volume, worst cell quality. With --kernels: each backend's kernel\n"
    "families (what each computes, its compile-time axes, when it is chosen,\n"
    "what tunes it).\n";

static const char usage_tail[] =
    "       feint --help | --version | COMMAND --help\n"
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

static const struct {
  const char *name;
  int (*fn)(int, char **);
  const char *usage, *help;
} commands[] = {{"run", cmd_run, run_usage, run_help},
                {"check", cmd_check, check_usage, check_help},
                {"bench", cmd_bench, bench_usage, bench_help},
                {"info", cmd_info, info_usage, info_help}};
enum { N_COMMANDS = sizeof commands / sizeof commands[0] };

/* Every command's usage line ("usage: " once), then the summary. */
static void print_usage(FILE *f) {
  for (int k = 0; k < N_COMMANDS; k++) fprintf(f, "%s%s", k ? "       " : "usage: ", commands[k].usage + 7);
  fputs(usage_tail, f);
}

/* The message; under FEINT_DEBUG=1 also where in feint's sources it arose
 * (for a bug report), on a line of its own so the message stays the same. */
int cmd_fail(int status) {
  fprintf(stderr, "feint: error: %s\n", feint_error_message());
  const char *debug = getenv("FEINT_DEBUG");
  if (debug && !strcmp(debug, "1") && feint_error_location()[0])
    fprintf(stderr, "feint: debug: the error arose at %s\n", feint_error_location());
  return status;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    print_usage(stderr);
    return FEINT_ERR_INPUT;
  }
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
    print_usage(stdout);
    return 0;
  }
  if (!strcmp(argv[1], "--version")) {
    printf("feint %s\n", FEINT_VERSION);
    return 0;
  }
  for (int k = 0; k < N_COMMANDS; k++) {
    if (strcmp(argv[1], commands[k].name)) continue;
    /* `feint run --help`, anywhere among the command's arguments */
    for (int i = 2; i < argc; i++)
      if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
        fputs(commands[k].usage, stdout);
        fputs(commands[k].help, stdout);
        return 0;
      }
    return commands[k].fn(argc - 1, argv + 1);
  }
  fprintf(stderr, "feint: unknown command '%s'\n", argv[1]);
  print_usage(stderr);
  return FEINT_ERR_INPUT;
}
