/* Wall-clock marks of a run's life (dist.h, feint_dist_timeline): where
 * the time outside feint's phases goes under mpirun (the process's start,
 * MPI_Init, the run, MPI_Finalize, the exit), from every rank into one
 * file. Measuring only: nothing is written unless FEINT_TIMELINE names
 * the file. */
#define _GNU_SOURCE /* O_CLOEXEC */
#include <fcntl.h>
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

void feint_dist_timeline(const char *what) {
  const char *path = getenv("FEINT_TIMELINE");
  if (!path || !*path) return;
  char line[512];
  const int n = snprintf(line, sizeof line, "%d %s %.6f\n", feint_comm_launch().rank, what, wall_now());
  const int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  if (write(fd, line, (size_t)n) < 0) { /* measuring only: a mark lost is no error */
  }
  close(fd);
}
