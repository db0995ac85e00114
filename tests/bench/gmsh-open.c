/* gmsh-open FILE: libgmsh's own open of a mesh file, timed (the floor the
 * end-to-end benchmark sets feint's mesh read against). Prints the seconds
 * of gmshOpen and of gmshInitialize. Not part of feint. */
#include <gmshc.h>
#include <stdio.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: gmsh-open FILE.msh\n");
    return 2;
  }
  int ierr = 0;
  double t0 = now();
  gmshInitialize(0, NULL, 0, &ierr);
  gmshOptionSetNumber("General.Terminal", 0, &ierr);
  double t1 = now();
  gmshOpen(argv[1], &ierr);
  double t2 = now();
  if (ierr) {
    fprintf(stderr, "gmsh-open: %s: Gmsh could not open it\n", argv[1]);
    return 1;
  }
  printf("gmsh_open %.4f\ngmsh_initialize %.4f\n", t2 - t1, t1 - t0);
  return 0;
}
