/* libgmsh contained (msh_gmsh.h): feint_gmsh_model runs the libgmsh source
 * (feint_gmsh_model_here) in a child process and takes the model back.
 *
 * A .geo is a program, and libgmsh crashes (SIGSEGV, SIGABRT, SIGFPE) or
 * takes any memory and time on bad input; in a child none of that reaches
 * feint: the child
 * - is its own process group (the .geo's `System` commands in it too), dies
 *   with the parent (PR_SET_PDEATHSIG), writes no core file;
 * - has stdin and stdout on /dev/null (Gmsh's chatter, a .geo's Printf and
 *   its commands' output never mix into feint's --json), stderr on a pipe;
 * - may map FEINT_MEMORY_LIMIT bytes (default: half the physical memory)
 *   beyond what it maps once libgmsh is loaded and initialised
 *   (RLIMIT_AS); a failed allocation of Gmsh's C++ code (operator new's
 *   handler) or of feint's code in the child exits at once with
 *   CHILD_OUT_OF_MEMORY, before Gmsh can go on in a broken state;
 * - is killed, with its whole group, after FEINT_GMSH_TIMEOUT seconds
 *   (default GMSH_TIMEOUT_DEFAULT; 0: no limit), and when the parent gets
 *   SIGINT, SIGTERM or SIGHUP (the parent's own handling then goes on, e.g.
 *   h5.c's removal of a temporary output file). Whatever the .geo's
 *   commands leave running is killed when the meshing ends.
 * The child writes its result (status and message, or the model) to an
 * anonymous memory file (memfd; an unlinked temporary file where memfd is
 * missing), so nothing is left on disk whatever happens; the parent reads
 * it after the child has exited 0. The model goes over as it is, array by
 * array (not as a .msh file), so the mesh is the one the in-process path
 * built, bit for bit.
 *
 * Stderr of the child: Gmsh's error lines ("Error   : ...", its terminal
 * output at verbosity 1) are kept by the parent for the message of a child
 * that dies (a child that reports normally has put them in its own
 * message); other lines (a .geo's shell commands, the C runtime's last
 * words) are passed on to feint's stderr, prefixed with the file's name.
 *
 * Exit status: a child killed by a signal (or one that exits without a
 * result, e.g. a .geo's `Exit;`) is bad input (FEINT_ERR_INPUT); a memory
 * or time limit is a failure while computing (FEINT_ERR_COMPUTE). */
#define _GNU_SOURCE /* memfd_create, pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "feint/error.h"
#include "mesh/gmsh_loader.h"
#include "mesh/msh_gmsh.h"

/* Seconds: about 100 times what the 6.4M-cell cube of cases/bench takes
 * to mesh, and far less than forever. */
#define GMSH_TIMEOUT_DEFAULT 600.0

/* The child's exit statuses other than 0 (result written). */
enum { CHILD_OUT_OF_MEMORY = 101, CHILD_WRITE_FAILED = 102, CHILD_SETUP_FAILED = 103 };

/* The result file: RESULT_MAGIC, int32 status, double seconds; then
 * uint32 length and the message, uint32 length and its location
 * (status != 0), or the model; RESULT_END. */
#define RESULT_MAGIC UINT64_C(0x314d474e49454623) /* "#FEINGM1" */
#define RESULT_END UINT64_C(0x444e454d474e4923)   /* "#INGMEND" */

typedef struct {
  double memory; /* bytes beyond libgmsh's own mappings */
  const char *memory_why;
  double timeout; /* seconds; 0: none */
} limits;

static int read_limits(limits *l) {
  FEINT_CALL(feint_memory_limit(&l->memory, &l->memory_why));
  l->timeout = GMSH_TIMEOUT_DEFAULT;
  const char *env = getenv("FEINT_GMSH_TIMEOUT");
  if (env && *env) {
    char *end;
    errno = 0;
    l->timeout = strtod(env, &end);
    if (errno || *end || !(l->timeout >= 0) || !isfinite(l->timeout))
      return feint_error_set(FEINT_ERR_INPUT, "FEINT_GMSH_TIMEOUT=%s: expected a number of seconds (0: no limit)",
                             env);
  }
  return FEINT_OK;
}

static double seconds_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* ------------------------------------------------------------------------ */
/* The child */

static void child_out_of_memory(void) { _exit(CHILD_OUT_OF_MEMORY); }

/* Bytes of address space mapped now (/proc/self/statm's first field); 0
 * when unknown. */
static double mapped_bytes(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  unsigned long pages = 0;
  if (!f) return 0;
  if (fscanf(f, "%lu", &pages) != 1) pages = 0;
  fclose(f);
  const long page = sysconf(_SC_PAGE_SIZE);
  return page > 0 ? (double)pages * (double)page : 0;
}

static int put(FILE *f, const void *p, size_t size, size_t n) { return n == 0 || fwrite(p, size, n, f) == n; }
static int put_i32(FILE *f, int32_t v) { return put(f, &v, sizeof v, 1); }
static int put_u64(FILE *f, uint64_t v) { return put(f, &v, sizeof v, 1); }

static int put_model(FILE *f, const feint_msh *x) {
  int ok = put_i32(f, x->version) && put_i32(f, x->binary) && put_i32(f, x->repeats) && put_u64(f, x->n_names);
  for (size_t i = 0; ok && i < x->n_names; i++) {
    const size_t len = strlen(x->names[i].name);
    ok = put_i32(f, x->names[i].dim) && put_i32(f, x->names[i].tag) && put_u64(f, len) &&
         put(f, x->names[i].name, 1, len);
  }
  ok = ok && put_u64(f, x->n_entities);
  for (size_t i = 0; ok && i < x->n_entities; i++) {
    const feint_msh_entity *E = &x->entities[i];
    ok = put_i32(f, E->dim) && put_i32(f, E->tag) && put_u64(f, E->n_physicals) &&
         put(f, E->physicals, sizeof *E->physicals, E->n_physicals);
  }
  ok = ok && put_u64(f, x->n_nodes) && put(f, x->node_tags, sizeof *x->node_tags, x->n_nodes) &&
       put(f, x->xyz, sizeof *x->xyz, 3 * x->n_nodes) && put_u64(f, x->n_blocks);
  for (size_t i = 0; ok && i < x->n_blocks; i++) {
    const feint_msh_block *B = &x->blocks[i];
    ok = put_i32(f, B->dim) && put_i32(f, B->tag) && put_i32(f, B->type) && put_u64(f, B->n) &&
         put(f, B->nodes, sizeof *B->nodes, B->n * (size_t)B->nn);
  }
  return ok;
}

static void set_fd(int fd, int to) {
  if (fd != to && dup2(fd, to) < 0) _exit(CHILD_SETUP_FAILED);
}

/* The child: never returns. */
static void child_main(pid_t parent, int result_fd, int err_fd, const char *path, const feint_mesh_options *opts,
                       const char *pre, const limits *l) {
  /* its own group (the parent sets it too: whichever runs first); gone
   * with the parent; no core files (not dumpable: a core_pattern that
   * pipes to a collector ignores RLIMIT_CORE) */
  if (setpgid(0, 0) != 0 && errno != EACCES) _exit(CHILD_SETUP_FAILED);
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) _exit(CHILD_SETUP_FAILED);
  const struct rlimit no_core = {0, 0};
  if (setrlimit(RLIMIT_CORE, &no_core) != 0 || prctl(PR_SET_DUMPABLE, 0) != 0) _exit(CHILD_SETUP_FAILED);
  /* the parent's handlers (h5.c's) are not the child's business */
  const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
  for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) signal(sigs[i], SIG_DFL);
  int null = open("/dev/null", O_RDWR);
  if (null < 0) _exit(CHILD_SETUP_FAILED);
  set_fd(null, STDIN_FILENO);
  set_fd(null, STDOUT_FILENO);
  set_fd(err_fd, STDERR_FILENO);

  /* libgmsh first, then the limit on what comes after it */
  int st = feint_gmsh_start();
  double seconds = 0;
  feint_msh *x = NULL;
  if (!st) {
    feint_gmsh_on_out_of_memory(child_out_of_memory); /* without it, Gmsh's failures just end less clearly */
    const double cap = mapped_bytes() + l->memory;
    struct rlimit as;
    if (getrlimit(RLIMIT_AS, &as) != 0) _exit(CHILD_SETUP_FAILED);
    if (cap < (double)as.rlim_cur) {
      as.rlim_cur = (rlim_t)cap;
      if (setrlimit(RLIMIT_AS, &as) != 0) _exit(CHILD_SETUP_FAILED);
    }
    st = feint_gmsh_model_here(path, opts, pre, &x, &seconds);
    /* past the limit, feint's own failures are allocations (FEINT_ERR_COMPUTE) */
    if (st == FEINT_ERR_COMPUTE) _exit(CHILD_OUT_OF_MEMORY);
  }
  FILE *f = fdopen(result_fd, "wb");
  if (!f) _exit(CHILD_WRITE_FAILED);
  const char *msg = feint_error_message();
  int ok = put_u64(f, RESULT_MAGIC) && put_i32(f, st) && put(f, &seconds, sizeof seconds, 1);
  const char *loc = feint_error_location();
  if (st)
    ok = ok && put_u64(f, strlen(msg)) && put(f, msg, 1, strlen(msg)) && put_u64(f, strlen(loc)) &&
         put(f, loc, 1, strlen(loc));
  else ok = ok && put_model(f, x);
  ok = ok && put_u64(f, RESULT_END) && fflush(f) == 0;
  _exit(ok ? 0 : CHILD_WRITE_FAILED); /* no atexit handlers, no stdio flushes of the parent's buffers */
}

/* ------------------------------------------------------------------------ */
/* The parent: the result */

typedef struct {
  int fd;
  uint64_t left; /* bytes not read yet */
} result_file;

/* n items of size bytes, within what the file holds (so a count cannot
 * make an allocation larger than the file). */
static int take(result_file *r, void *dst, size_t size, size_t n) {
  if (n == 0) return 1;
  if (n > r->left / size) return 0;
  char *p = dst;
  size_t want = n * size;
  while (want) {
    ssize_t got = read(r->fd, p, want);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return 0;
    p += got;
    want -= (size_t)got;
  }
  r->left -= n * size;
  return 1;
}
static int take_i32(result_file *r, int *v) {
  int32_t t;
  if (!take(r, &t, sizeof t, 1)) return 0;
  *v = t;
  return 1;
}
static int take_u64(result_file *r, uint64_t *v) { return take(r, v, sizeof *v, 1); }
/* A count of items of size bytes that the rest of the file can hold. */
static int take_count(result_file *r, size_t size, size_t *n) {
  uint64_t v;
  if (!take_u64(r, &v) || v > r->left / size) return 0;
  *n = (size_t)v;
  return 1;
}

/* The model; 0 when the file is short or inconsistent (or an allocation
 * failed: *st says which). */
static int take_model(result_file *r, feint_msh *x, int *st) {
  size_t n;
  if (!take_i32(r, &x->version) || !take_i32(r, &x->binary) || !take_i32(r, &x->repeats) ||
      !take_count(r, 9, &n))
    return 0;
  for (size_t i = 0; i < n; i++) {
    int dim, tag;
    size_t len;
    char *name = NULL;
    if (!take_i32(r, &dim) || !take_i32(r, &tag) || !take_count(r, 1, &len)) return 0;
    if ((*st = feint_malloc(len + 1, 1, &name, "mesh physical names"))) return 0;
    if (!take(r, name, 1, len)) {
      free(name);
      return 0;
    }
    name[len] = '\0';
    *st = feint_msh_add_name(x, dim, tag, name);
    free(name);
    if (*st) return 0;
  }
  if (!take_count(r, 16, &n)) return 0;
  for (size_t i = 0; i < n; i++) {
    int dim, tag, *phys = NULL;
    size_t np;
    if (!take_i32(r, &dim) || !take_i32(r, &tag) || !take_count(r, sizeof *phys, &np)) return 0;
    if ((*st = feint_malloc(np + 1, sizeof *phys, &phys, "mesh entity physical tags"))) return 0;
    for (size_t k = 0; k < np; k++)
      if (!take_i32(r, &phys[k])) {
        free(phys);
        return 0;
      }
    if ((*st = feint_msh_add_entity(x, dim, tag, np, phys))) return 0;
  }
  if (!take_count(r, 4 * sizeof(double), &n)) return 0;
  if ((*st = feint_malloc(n + 1, sizeof *x->node_tags, &x->node_tags, "mesh node tags")) ||
      (*st = feint_malloc(3 * n + 1, sizeof *x->xyz, &x->xyz, "mesh node coordinates")))
    return 0;
  if (!take(r, x->node_tags, sizeof *x->node_tags, n) || !take(r, x->xyz, sizeof *x->xyz, 3 * n)) return 0;
  x->n_nodes = n;
  if (!take_count(r, 20, &n)) return 0;
  for (size_t i = 0; i < n; i++) {
    int dim, tag, type;
    uint64_t ne;
    int64_t *nodes = NULL;
    if (!take_i32(r, &dim) || !take_i32(r, &tag) || !take_i32(r, &type) || !take_u64(r, &ne)) return 0;
    const int nn = feint_msh_type_nodes(type);
    if (nn <= 0 || ne > r->left / sizeof *nodes / (uint64_t)nn) return 0;
    if ((*st = feint_malloc(ne * (size_t)nn + 1, sizeof *nodes, &nodes, "mesh elements"))) return 0;
    if (!take(r, nodes, sizeof *nodes, ne * (size_t)nn)) {
      free(nodes);
      return 0;
    }
    if ((*st = feint_msh_add_block(x, dim, tag, type, ne, nodes))) return 0;
  }
  return 1;
}

/* The child's result: its status and message, or the model in *out. *ok =
 * 0 when the file holds no complete result. */
static int read_result(int fd, feint_msh **out, double *seconds, int *ok) {
  *ok = 0;
  struct stat sb;
  if (fstat(fd, &sb) != 0 || lseek(fd, 0, SEEK_SET) != 0) return FEINT_OK;
  result_file r = {fd, (uint64_t)sb.st_size};
  uint64_t magic = 0, end = 0;
  int status;
  if (!take_u64(&r, &magic) || magic != RESULT_MAGIC || !take_i32(&r, &status) ||
      !take(&r, seconds, sizeof *seconds, 1))
    return FEINT_OK;
  if (status) {
    char msg[4096], loc[256] = "";
    size_t len, loc_len;
    if (!take_count(&r, 1, &len)) return FEINT_OK;
    if (len >= sizeof msg) len = sizeof msg - 1;
    if (!take(&r, msg, 1, len)) return FEINT_OK;
    msg[len] = '\0';
    /* the child's location (where in the child the error arose) */
    if (take_count(&r, 1, &loc_len) && loc_len < sizeof loc && take(&r, loc, 1, loc_len)) loc[loc_len] = '\0';
    else loc[0] = '\0';
    *ok = 1;
    return feint_error_restore(status == FEINT_ERR_INPUT ? FEINT_ERR_INPUT : FEINT_ERR_COMPUTE, msg, loc);
  }
  feint_msh *x = NULL;
  FEINT_CALL(feint_msh_create(&x));
  int st = FEINT_OK;
  *ok = take_model(&r, x, &st) && take_u64(&r, &end) && end == RESULT_END && r.left == 0;
  if (st || !*ok) {
    feint_msh_destroy(x);
    return st;
  }
  *out = x;
  return FEINT_OK;
}

/* ------------------------------------------------------------------------ */
/* The parent: the child's stderr */

enum { STDERR_PASSED_MAX = 50 };

typedef struct {
  const char *path;
  char line[1024];
  size_t len;
  int truncated;
  char errors[1024]; /* Gmsh's first error lines, "; "-joined */
  int n_errors, passed, dropped;
} child_stderr;

static void stderr_line(child_stderr *e) {
  static const char gmsh_error[] = "Error   : ";
  e->line[e->len] = '\0';
  if (strncmp(e->line, gmsh_error, sizeof gmsh_error - 1) == 0) {
    if (e->n_errors++ < 3) {
      size_t used = strlen(e->errors);
      snprintf(e->errors + used, sizeof e->errors - used, "%s%s", used ? "; " : "", e->line + sizeof gmsh_error - 1);
    }
  } else if (e->passed < STDERR_PASSED_MAX) {
    fprintf(stderr, "%s: %s%s\n", e->path, e->line, e->truncated ? "..." : "");
    e->passed++;
  } else {
    e->dropped++;
  }
  e->len = 0;
  e->truncated = 0;
}

/* Reads what the pipe holds: 1 when it read some, -1 when there is none
 * now, 0 at its end (or on an error). */
static int stderr_read(child_stderr *e, int fd) {
  char buf[4096];
  ssize_t got = read(fd, buf, sizeof buf);
  if (got < 0 && (errno == EINTR || errno == EAGAIN)) return -1;
  if (got <= 0) return 0;
  for (ssize_t i = 0; i < got; i++) {
    if (buf[i] == '\n') stderr_line(e);
    else if (e->len + 1 < sizeof e->line) e->line[e->len++] = buf[i];
    else e->truncated = 1;
  }
  return 1;
}

static void stderr_end(child_stderr *e, int fd) {
  /* the last lines: the child has exited, its group is killed */
  if (fcntl(fd, F_SETFL, O_NONBLOCK) == 0)
    while (stderr_read(e, fd) > 0) continue;
  if (e->len) stderr_line(e);
  if (e->dropped) fprintf(stderr, "%s: (%d more lines of output not shown)\n", e->path, e->dropped);
}

/* ------------------------------------------------------------------------ */
/* The parent: signals while the child runs */

static const int watched[] = {SIGINT, SIGTERM, SIGHUP};
#define N_WATCHED (sizeof watched / sizeof *watched)
static struct sigaction watched_old[N_WATCHED];
static int watched_set[N_WATCHED];
static volatile sig_atomic_t child_group;

/* Kill the child's group, then let the signal do what it did before. */
static void on_signal(int sig) {
  if (child_group > 0) kill(-(pid_t)child_group, SIGKILL);
  for (size_t i = 0; i < N_WATCHED; i++)
    if (watched[i] == sig && watched_set[i]) sigaction(sig, &watched_old[i], NULL);
  raise(sig); /* delivered when this handler returns */
}

static void watch_signals(int on) {
  for (size_t i = 0; i < N_WATCHED; i++) {
    if (!on) {
      if (watched_set[i]) sigaction(watched[i], &watched_old[i], NULL);
      watched_set[i] = 0;
      continue;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    /* a signal the user's shell ignores (nohup) stays ignored */
    if (sigaction(watched[i], NULL, &watched_old[i]) != 0 || watched_old[i].sa_handler == SIG_IGN) continue;
    watched_set[i] = sigaction(watched[i], &sa, NULL) == 0;
  }
}

static const char *signal_name(int sig, char *buf, size_t len) {
  static const struct {
    int sig;
    const char *name;
  } names[] = {{SIGSEGV, "SIGSEGV"}, {SIGABRT, "SIGABRT"}, {SIGFPE, "SIGFPE"},   {SIGBUS, "SIGBUS"},
               {SIGILL, "SIGILL"},   {SIGKILL, "SIGKILL"}, {SIGTERM, "SIGTERM"}, {SIGINT, "SIGINT"},
               {SIGPIPE, "SIGPIPE"}, {SIGXCPU, "SIGXCPU"}, {SIGXFSZ, "SIGXFSZ"}, {SIGSYS, "SIGSYS"},
               {SIGTRAP, "SIGTRAP"}};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (names[i].sig == sig) return names[i].name;
  snprintf(buf, len, "signal %d", sig);
  return buf;
}

/* ------------------------------------------------------------------------ */

/* An anonymous file for the result, closed on exec (the .geo's commands do
 * not get it). */
static int result_file_open(void) {
  int fd = memfd_create("feint-gmsh", MFD_CLOEXEC);
  if (fd >= 0) return fd;
  FILE *f = tmpfile(); /* unlinked already */
  if (!f) return -1;
  fd = dup(fileno(f));
  fclose(f);
  if (fd >= 0 && fcntl(fd, F_SETFD, FD_CLOEXEC) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

int feint_gmsh_model(const char *path, const feint_mesh_options *opts, const char *pre, feint_msh **out,
                     double *seconds) {
  *out = NULL;
  *seconds = 0;
  limits l;
  FEINT_CALL(read_limits(&l));
  const char *dot = strrchr(path, '.');
  const char *what = dot && strcasecmp(dot, ".geo") == 0 ? "mesh this .geo"
                     : opts && opts->refine > 0           ? "refine this mesh"
                                                          : "read this mesh";
  int result = result_file_open(), err[2] = {-1, -1}, done[2] = {-1, -1};
  if (result < 0 || pipe2(err, O_CLOEXEC) != 0 || pipe2(done, O_CLOEXEC) != 0) {
    const int e = errno;
    if (result >= 0) close(result);
    for (int i = 0; i < 2; i++) {
      if (err[i] >= 0) close(err[i]);
      if (done[i] >= 0) close(done[i]);
    }
    return feint_error_set(FEINT_ERR_COMPUTE, "%s%s: cannot start Gmsh's process: %s", pre, path, strerror(e));
  }
  /* libgmsh loaded here (only loaded: nothing of it runs in this process
   * but its libraries' initialisers), so that the children of a process
   * that reads many .geo files do not each load it again */
  feint_gmsh_load_error();
  fflush(NULL); /* the child must not inherit buffered output */
  const pid_t parent = getpid();
  watch_signals(1);
  const pid_t pid = fork();
  if (pid == 0) {
    close(err[0]);
    close(done[0]); /* done[1] stays open (closed on exec) until the child exits */
    child_main(parent, result, err[1], path, opts, pre, &l);
  }
  const int fork_errno = errno;
  close(err[1]);
  close(done[1]);
  if (pid < 0) {
    watch_signals(0);
    close(result);
    close(err[0]);
    close(done[0]);
    return feint_error_set(FEINT_ERR_COMPUTE, "%s%s: cannot start Gmsh's process: %s", pre, path,
                           strerror(fork_errno));
  }
  setpgid(pid, pid); /* fails only when the child did it first or is gone */
  child_group = pid;

  /* wait for the child's end (done[0] reads EOF), passing its stderr on */
  child_stderr e;
  memset(&e, 0, sizeof e);
  e.path = path;
  const double deadline = l.timeout > 0 ? seconds_now() + l.timeout : 0;
  int err_open = 1, timed_out = 0, broken = 0;
  for (;;) {
    struct pollfd pf[2] = {{.fd = done[0], .events = POLLIN}, {.fd = err[0], .events = POLLIN}};
    int ms = -1;
    if (deadline > 0) {
      const double left = deadline - seconds_now();
      if (left <= 0) {
        timed_out = 1;
        break;
      }
      ms = left > 1e6 ? 1000000000 : (int)ceil(1e3 * left);
    }
    const int n = poll(pf, err_open ? 2 : 1, ms);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      broken = errno;
      break;
    }
    if (err_open && pf[1].revents) err_open = stderr_read(&e, err[0]) != 0;
    if (pf[0].revents) break;
  }
  kill(-pid, SIGKILL); /* on a timeout the child; always what its commands left running */
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) continue;
  child_group = 0;
  watch_signals(0);
  stderr_end(&e, err[0]);
  close(err[0]);
  close(done[0]);

  int st = FEINT_OK, ok = 0;
  char sig[32];
  char said[1100] = "";
  if (e.n_errors) snprintf(said, sizeof said, "; Gmsh said: %s", e.errors);
  if (broken)
    st = feint_error_set(FEINT_ERR_COMPUTE, "%s%s: cannot wait for Gmsh's process: %s", pre, path, strerror(broken));
  else if (timed_out)
    st = feint_error_set(FEINT_ERR_COMPUTE, "%s%s: Gmsh failed to %s (it took longer than %g s; FEINT_GMSH_TIMEOUT sets the limit)%s",
                         pre, path, what, l.timeout, said);
  else if (WIFSIGNALED(status))
    st = feint_error_set(FEINT_ERR_INPUT, "%s%s: Gmsh failed to %s (it was killed by %s)%s", pre, path, what,
                         signal_name(WTERMSIG(status), sig, sizeof sig), said);
  else if (WEXITSTATUS(status) == CHILD_OUT_OF_MEMORY)
    st = feint_error_set(FEINT_ERR_COMPUTE,
                         "%s%s: Gmsh failed to %s: out of memory (it may take %.0f MB beyond libgmsh itself: %s)%s",
                         pre, path, what, l.memory / 1e6, l.memory_why, said);
  else if (WEXITSTATUS(status) == CHILD_SETUP_FAILED || WEXITSTATUS(status) == CHILD_WRITE_FAILED)
    st = feint_error_set(FEINT_ERR_COMPUTE, "%s%s: Gmsh's process could not %s", pre, path,
                         WEXITSTATUS(status) == CHILD_SETUP_FAILED ? "be set up" : "hand its mesh back");
  else if (WEXITSTATUS(status) == 0)
    st = read_result(result, out, seconds, &ok);
  if (!st && !ok)
    st = feint_error_set(FEINT_ERR_INPUT, "%s%s: Gmsh failed to %s (it exited with status %d before it was done)%s", pre,
                         path, what, WEXITSTATUS(status), said);
  close(result);
  return st;
}
