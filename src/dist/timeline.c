/* Wall-clock marks of a run's life (dist.h, feint_dist_timeline): where
 * the time outside feint's phases goes under mpirun (the process's start,
 * MPI_Init, the run, MPI_Finalize, the exit), from every rank into one
 * file: a line a mark, "<rank> <what> <seconds> <resident MB> <file MB>
 * <heap MB>": the process's resident set then (where a rank's memory
 * peaks), of it the pages mapped from files (the mesh's, the libraries'),
 * and the bytes malloc has handed out (feint's arrays, and the address
 * space the CUDA driver and MPI take through malloc, not all of it
 * resident). Measuring only: nothing is written unless FEINT_TIMELINE
 * names the file. */
#define _GNU_SOURCE /* O_CLOEXEC */
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "feint/dist.h"

static double wall_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The resident set and its pages from files in MB (statm's second and
 * third fields, in pages); -1 where they cannot be read. */
static void resident_mb(double *resident, double *file) {
  *resident = *file = -1;
  const int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  char buf[128];
  const ssize_t got = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (got <= 0) return;
  buf[got] = '\0';
  long long size = 0, in_memory = 0, shared = 0;
  if (sscanf(buf, "%lld %lld %lld", &size, &in_memory, &shared) != 3) return;
  const double page_mb = (double)sysconf(_SC_PAGESIZE) / 1e6;
  *resident = (double)in_memory * page_mb;
  *file = (double)shared * page_mb;
}

/* malloc's bytes in use, its arenas' and its own mappings' */
static double heap_mb(void) {
  const struct mallinfo2 m = mallinfo2();
  return (double)(m.uordblks + m.hblkhd) / 1e6;
}

void feint_dist_timeline(const char *what) {
  const char *path = getenv("FEINT_TIMELINE");
  if (!path || !*path) return;
  char line[512];
  double resident, file;
  resident_mb(&resident, &file);
  const int n = snprintf(line, sizeof line, "%d %s %.6f %.0f %.0f %.0f\n", feint_comm_launch().rank, what,
                         wall_now(), resident, file, heap_mb());
  const int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  if (write(fd, line, (size_t)n) < 0) { /* measuring only: a mark lost is no error */
  }
  close(fd);
}
