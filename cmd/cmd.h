/* Subcommands of the feint command line; each lives in its own file. */
#ifndef FEINT_CMD_H
#define FEINT_CMD_H
int cmd_run(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_bench(int argc, char **argv);
#include "feint/driver.h"
/* Print the benchmark table of a finished bench run. */
int cmd_bench_report(const feint_run_options *o, const feint_run_report *rep);
/* Print the error recorded by the library and return its status. */
int cmd_fail(int status);
#endif
