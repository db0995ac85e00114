/* Subcommands of the feint command line; each lives in its own file. */
#ifndef FEINT_CMD_H
#define FEINT_CMD_H
int cmd_run(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_bench(int argc, char **argv);
#include "feint/driver.h"

/* feint bench's --csv and --svg files (NULL: not asked for). */
typedef struct {
  const char *csv, *svg;
} cmd_bench_files;

/* One phase's figures as bench reports them, computed once (bench.c) for
 * the table, the CSV and the SVG (bench_files.c); a has_ flag of 0 is a
 * "-" or blank in the table, an empty CSV field. */
typedef struct {
  const char *name;
  int phase;
  double time_ms;
  int has_copies; /* h2d, d2h measured: a device backend */
  double h2d_ms, d2h_ms;
  int has_kernel;
  double kernel_ms;
  int has_cells; /* a phase that goes over the cells */
  double mcells_per_s;
  int has_bytes;
  double min_bytes, gb_per_s; /* per kernel time, or wall time where there is none */
  int has_fraction;           /* a copy bandwidth was measured */
  double fraction_of_copy;    /* gb_per_s / copy bandwidth (not a percentage) */
  int has_flops;
  double flops, gflop_per_s;
} cmd_bench_phase;

/* The figures of phase k; 0 when bench does not report it (it did not run). */
int cmd_bench_phase_figures(const feint_run_report *rep, int k, int device, double copy_gbs, cmd_bench_phase *p);

/* After a bench run: measure the copy bandwidth, print the table (unless
 * --json) and write the --csv and --svg files asked for. */
int cmd_bench_report(const feint_run_options *o, const cmd_bench_files *files, const feint_run_report *rep);

/* Refuse a --csv/--svg target before the run (FEINT_ERR_INPUT): an empty
 * name, a directory or other non-regular file, a folder that does not
 * exist or cannot take a new file. `option` names it in the message. */
int cmd_bench_file_check(const char *option, const char *path);
/* Write the files asked for, each atomically (a temporary name in the same
 * folder, renamed); device: the copy was device-to-device (else host memcpy). */
int cmd_bench_write_files(const feint_run_options *o, const cmd_bench_files *files, const feint_run_report *rep,
                          int device, double copy_gbs);
/* Print the error recorded by the library and return its status. */
int cmd_fail(int status);
#endif
