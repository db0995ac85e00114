/* feint run / check / bench: parse options, run the driver, report. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "feint/backend.h"
#include "feint/dist.h"
#include "feint/driver.h"
#include "feint/error.h"
#include "feint/parallel.h"

enum { MODE_RUN, MODE_CHECK, MODE_BENCH };

static int run_one(feint_run_options *o, const cmd_bench_files *files, int mode);

static int parse(int argc, char **argv, int mode, feint_run_options *o, cmd_bench_files *files,
                 const char ***sets) {
  const int check_only = mode == MODE_CHECK;
  memset(o, 0, sizeof *o);
  memset(files, 0, sizeof *files);
  o->device_index = -1;
  o->check_only = check_only;
  o->repeat = mode == MODE_BENCH ? 21 : 1;
  *sets = calloc((size_t)argc + 1, sizeof **sets);
  if (!*sets) return feint_error_set(FEINT_ERR_COMPUTE, "out of memory");
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const int has_value = i + 1 < argc;
    if (!strcmp(a, "--set") || !strcmp(a, "-s")) {
      if (!has_value) return feint_error_set(FEINT_ERR_INPUT, "--set needs key.path=value");
      (*sets)[o->n_overrides++] = argv[++i];
    } else if (!strncmp(a, "--set=", 6)) {
      (*sets)[o->n_overrides++] = a + 6;
    } else if (!check_only && (!strcmp(a, "-o") || !strcmp(a, "--output"))) {
      if (!has_value) return feint_error_set(FEINT_ERR_INPUT, "%s needs a file name", a);
      if (o->output) /* one run writes one file: a second -o is a mistake, not a choice */
        return feint_error_set(FEINT_ERR_INPUT, "%s %s: the output is already %s; give -o once", a, argv[i + 1],
                               o->output);
      o->output = argv[++i];
    } else if (!check_only && !strcmp(a, "--backend")) {
      if (!has_value) return feint_error_set(FEINT_ERR_INPUT, "--backend needs auto, cpu or cuda");
      const char *b = argv[++i];
      o->backend_set = 1;
      if (!strcmp(b, "auto")) o->backend = FEINT_DEVICE_AUTO;
      else if (!strcmp(b, "cpu")) o->backend = FEINT_DEVICE_CPU;
      else if (!strcmp(b, "cuda")) o->backend = FEINT_DEVICE_CUDA;
      else return feint_error_set(FEINT_ERR_INPUT, "--backend %s: expected auto, cpu or cuda", b);
    } else if (!check_only && !strcmp(a, "--device")) {
      char *end;
      if (!has_value) return feint_error_set(FEINT_ERR_INPUT, "--device needs a number");
      o->device_index = (int)strtol(argv[++i], &end, 10);
      if (!argv[i][0] || *end || o->device_index < 0)
        return feint_error_set(FEINT_ERR_INPUT, "--device %s: expected a device number", argv[i]);
    } else if (mode == MODE_BENCH && !strcmp(a, "--repeat")) {
      char *end;
      if (!has_value) return feint_error_set(FEINT_ERR_INPUT, "--repeat needs a number");
      o->repeat = (int)strtol(argv[++i], &end, 10);
      if (*end || o->repeat < 1 || o->repeat > 201)
        return feint_error_set(FEINT_ERR_INPUT, "--repeat %s: expected 1..201", argv[i]);
    } else if (mode == MODE_BENCH && (!strcmp(a, "--csv") || !strcmp(a, "--svg"))) {
      if (!has_value) return feint_error_set(FEINT_ERR_INPUT, "%s needs a file name", a);
      const char **slot = !strcmp(a, "--csv") ? &files->csv : &files->svg;
      if (*slot) return feint_error_set(FEINT_ERR_INPUT, "%s %s: already %s; give %s once", a, argv[i + 1], *slot, a);
      *slot = argv[++i];
    } else if (!check_only && !strcmp(a, "--json")) {
      o->json = 1;
    } else if (!check_only && !strcmp(a, "--no-cache")) {
      o->no_cache = 1;
    } else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
      o->quiet = 1;
    } else if (a[0] == '-' && a[1] != '\0') {
      return feint_error_set(FEINT_ERR_INPUT, "unknown option '%s' (see feint --help)", a);
    } else if (!o->case_path) {
      o->case_path = a;
    } else {
      return feint_error_set(FEINT_ERR_INPUT, "unexpected argument '%s': one case file at a time", a);
    }
  }
  if (!o->case_path) return feint_error_set(FEINT_ERR_INPUT, "missing the case file (see feint --help)");
  /* a bench can take minutes: a file it cannot write is said before it starts */
  if (files->csv) FEINT_CALL(cmd_bench_file_check("--csv", files->csv));
  if (files->svg) FEINT_CALL(cmd_bench_file_check("--svg", files->svg));
  o->overrides = *sets;
  return FEINT_OK;
}

/* Progress on standard error: a bar redrawn in place on a terminal, one
 * plain line per phase otherwise. The bar fills phase by phase (member by
 * member in a sweep) and ends full, on a line of its own; a note printed
 * meanwhile takes a line of its own above it. */
typedef struct {
  int tty;
  int shown;     /* a bar is on the terminal's last line, not ended */
  char line[256]; /* the bar's line, to redraw it after a note */
} progress;

static void draw(progress *p, double fraction, const char *what) {
  enum { WIDTH = 30 };
  char bar[WIDTH + 1];
  const int done = fraction >= 1 ? WIDTH : (int)(WIDTH * fraction);
  for (int i = 0; i < WIDTH; i++) bar[i] = i < done ? '#' : '.';
  bar[WIDTH] = '\0';
  snprintf(p->line, sizeof p->line, "[%s] %3d%% %s", bar, (int)(100 * (fraction < 1 ? fraction : 1)), what);
  fprintf(stderr, "\r\033[K%s", p->line);
  fflush(stderr);
  p->shown = 1;
}

static void show_progress(void *ctx, const char *phase, int member, int n_members) {
  progress *p = ctx;
  char who[300];
  if (n_members > 0) snprintf(who, sizeof who, "member %d/%d: %s", member + 1, n_members, phase);
  else snprintf(who, sizeof who, "%s", phase);
  if (!p->tty) {
    fprintf(stderr, "feint: %s\n", who);
    return;
  }
  /* the phase's place in the run ("setup (backend reused)" is setup) */
  int k = 0;
  for (int i = 0; i < FEINT_PHASE_COUNT; i++)
    if (!strncmp(phase, feint_phase_names[i], strlen(feint_phase_names[i]))) k = i;
  const double in_member = (double)k / FEINT_PHASE_COUNT;
  draw(p, n_members > 0 ? (member + in_member) / n_members : in_member, who);
}

static void show_note(void *ctx, const char *line) {
  progress *p = ctx;
  if (p->shown) fprintf(stderr, "\r\033[K");
  fprintf(stderr, "feint: %s\n", line);
  if (p->shown) fprintf(stderr, "%s", p->line);
  fflush(stderr);
}

/* The end of the run: the bar full and its line ended (done), or only its
 * line ended, before the error (failed). */
static void end_progress(progress *p, int ok) {
  if (!p->shown) return;
  if (ok) draw(p, 1, "done");
  fputc('\n', stderr);
  p->shown = 0;
}

/* JSON string (the few characters a path or device name may need escaped). */
static void json_string(const char *s) {
  putchar('"');
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') printf("\\%c", *s);
    else if ((unsigned char)*s < 0x20) printf("\\u%04x", (unsigned char)*s);
    else putchar(*s);
  }
  putchar('"');
}

/* "key": "value" (value escaped as a JSON string). */
static void json_key_string(const char *key, const char *value) {
  printf("\"%s\": ", key);
  json_string(value);
}

/* {"phase": seconds, ...} (the opening brace already printed). */
static void print_json_phases(const double *seconds) {
  for (int k = 0; k < FEINT_PHASE_COUNT; k++) printf("%s\"%s\": %.9f", k ? ", " : "", feint_phase_names[k], seconds[k]);
  printf("}");
}

/* --json: one machine-readable summary object on stdout. */
static void print_json(const feint_run_options *o, const feint_run_report *rep) {
  printf("{");
  json_key_string("case", o->case_path);
  printf(", ");
  json_key_string("output", rep->output);
  printf(", ");
  json_key_string("backend", rep->backend);
  printf(", ");
  json_key_string("device", rep->device);
  printf(", \"members\": %d, \"backend_reused\": %d, \"ranks\": %d, ", rep->n_members, rep->n_backend_reused,
         rep->n_ranks);
  json_key_string("rank_devices", rep->rank_devices);
  printf(", ");
  json_key_string("dist_steps", rep->dist_steps);
  printf(", ");
  json_key_string("partition", rep->partition);
  printf(", \"cells\": %lld, \"dofs\": %lld, \"nonzeros\": %lld", (long long)rep->n_cells,
         (long long)rep->n_dofs, (long long)rep->nnz);
  printf(", \"index_bits\": %d, \"slot_bits\": %d", rep->index_bits, rep->slot_bits);
  printf(", \"colors\": %d, ", rep->n_colors);
  json_key_string("residual_kernel", rep->residual_kernel);
  printf(", ");
  json_key_string("kernel_family", rep->kernel_family);
  printf(", ");
  json_key_string("matrix_kernel_family", rep->matrix_family);
  printf(", ");
  json_key_string("setup_steps", rep->setup_steps);
  printf(", ");
  json_key_string("pattern_steps", rep->pattern_steps);
  printf(", ");
  json_key_string("write_steps", rep->write_steps);
  if (rep->jit)
    printf(", \"jit\": {\"compiled\": %d, \"cache_hit\": %d, \"compile_ms\": %.3f, \"load_ms\": %.3f}",
           rep->jit_compiled, rep->jit_cache_hit, rep->jit_compile_ms, rep->jit_load_ms);
  else
    printf(", \"jit\": null");
  printf(", \"norms\": {\"residual\": %.17g, \"rhs\": %.17g, \"matrix\": %.17g}", rep->residual_norm,
         rep->rhs_norm, rep->matrix_norm);
  printf(", \"seconds\": {");
  print_json_phases(rep->seconds);
  printf(", \"h2d_seconds\": {");
  print_json_phases(rep->h2d_seconds);
  printf(", \"d2h_seconds\": {");
  print_json_phases(rep->d2h_seconds);
  printf(", \"kernel_seconds\": {");
  print_json_phases(rep->kernel_seconds);
  printf(", \"gmsh_open_seconds\": %.9f, \"driver_seconds\": %.9f", rep->gmsh_seconds, rep->driver_seconds);
  printf("}\n");
}

/* Under mpirun on more than one rank: rank 0 leads the run and reports,
 * the others compute their parts (feint_driver_worker) and print nothing;
 * all exit with rank 0's status. */
static int run_ranks(int argc, char **argv, int mode, feint_launch launch) {
  feint_comm *comm = NULL;
  int status = feint_comm_create(&comm);
  feint_dist_timeline("MPI_Init done");
  feint_run_options o;
  cmd_bench_files files;
  const char **sets = NULL;
  if (!status) status = parse(argc, argv, mode, &o, &files, &sets);
  if (status) { /* the same on every rank: rank 0 says it, before MPI_Finalize (which waits for every rank: a
                  * rank that exits first has mpirun end the others, rank 0 before it had said it) */
    free(sets);
    if (launch.rank == 0) status = cmd_fail(status);
    feint_comm_destroy(comm);
    return status;
  }
  o.comm = comm;
  if (launch.rank != 0) {
    o.quiet = 1;
    status = feint_driver_worker(&o);
    feint_dist_timeline("run done");
    free(sets);
    feint_comm_destroy(comm);
    feint_dist_timeline("MPI_Finalize done");
    return status;
  }
  /* mpirun binds each of 1-2 ranks to a core by default: rank 0's host phases (the mesh, dof map, pattern, sums,
   * write) then run on one */
  if (!o.quiet && feint_parallel_cpus() == 1 && sysconf(_SC_NPROCESSORS_ONLN) > 1)
    fprintf(stderr, "feint: note: mpirun bound rank 0 to one CPU of %ld: its host phases run there alone "
                    "(mpirun --bind-to none lets them use the host's cores)\n", sysconf(_SC_NPROCESSORS_ONLN));
  status = run_one(&o, &files, mode);
  feint_dist_timeline("run done");
  free(sets);
  feint_comm_destroy(comm);
  feint_dist_timeline("MPI_Finalize done");
  return status;
}

/* The last mark, after the process's other exit handlers (registered later, run first: CUDA's teardown). */
static void mark_exit(void) { feint_dist_timeline("exit"); }

static int run_mode(int argc, char **argv, int mode) {
  feint_dist_timeline("main");
  if (getenv("FEINT_TIMELINE")) atexit(mark_exit);
  const feint_launch launch = feint_comm_launch();
  if (launch.size > 1) return run_ranks(argc, argv, mode, launch);
  feint_run_options o;
  cmd_bench_files files;
  const char **sets = NULL;
  int status = parse(argc, argv, mode, &o, &files, &sets);
  if (status) {
    free(sets);
    return cmd_fail(status);
  }
  feint_backend_show_default_device_only(o.device_index);
  status = run_one(&o, &files, mode);
  feint_dist_timeline("run done");
  free(sets);
  return status;
}

/* The run of parsed options: the driver, then the report. */
static int run_one(feint_run_options *o_, const cmd_bench_files *files, int mode) {
  feint_run_options o = *o_;
  int status;
  feint_run_report rep;
  progress bar = {isatty(fileno(stderr)), 0, ""};
  if (!o.quiet && mode != MODE_CHECK) {
    o.progress = show_progress;
    o.note = show_note;
    o.progress_ctx = &bar;
  }
  status = feint_driver_run(&o, &rep);
  end_progress(&bar, !status);
  if (status) return cmd_fail(status);
  if (mode == MODE_BENCH && (!o.json || files->csv || files->svg)) { /* with --json: the files, no table */
    status = cmd_bench_report(&o, files, &rep);
    if (status || !o.json) return status;
  }
  if (mode == MODE_CHECK) {
    printf("%s: ok (%lld cells, %lld dofs)\n", o.case_path, (long long)rep.n_cells, (long long)rep.n_dofs);
    return 0;
  }
  if (o.json) {
    print_json(&o, &rep);
  } else if (!o.quiet) {
    if (rep.n_members)
      printf("sweep of %d members (%d reused the backend), the last: ", rep.n_members, rep.n_backend_reused);
    printf("wrote %s: %lld cells, %lld dofs, %lld nonzeros, backend %s", rep.output, (long long)rep.n_cells,
           (long long)rep.n_dofs, (long long)rep.nnz, rep.backend);
    if (rep.n_ranks > 1) printf(" on %d ranks (partition: %s)", rep.n_ranks, rep.partition);
    printf("\n");
    for (int k = 0; k < FEINT_PHASE_COUNT; k++) {
      if (rep.seconds[k] <= 0) continue;
      printf("  %-17s %10.6f s", feint_phase_names[k], rep.seconds[k]);
      if (feint_phase_goes_over_cells(k)) printf("  %8.3f Mcells/s", 1e-6 * (double)rep.n_cells / rep.seconds[k]);
      /* .msh files are read natively (0 s in libgmsh); .geo files and refinements open in libgmsh */
      if (k == FEINT_PHASE_MESH && rep.gmsh_seconds > 0) printf("  (libgmsh's own open: %.6f s)", rep.gmsh_seconds);
      printf("\n");
    }
  }
  return 0;
}

int cmd_run(int argc, char **argv) { return run_mode(argc, argv, MODE_RUN); }
int cmd_check(int argc, char **argv) { return run_mode(argc, argv, MODE_CHECK); }
int cmd_bench(int argc, char **argv) { return run_mode(argc, argv, MODE_BENCH); }
