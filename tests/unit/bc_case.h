/* A case with boundary conditions, set up as `feint run` does (for the
 * unit tests of the facet integrals, t530 and t531): the YAML text written
 * to a temporary file, then the case, the mesh (mesh.size applied), the
 * space (components: the mesh dimension for elasticity, else 1) and the
 * boundary conditions. Exits on failure. */
#ifndef FEINT_TEST_BC_CASE_H
#define FEINT_TEST_BC_CASE_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "feint/boundary.h"
#include "feint/case.h"
#include "feint/error.h"
#include "feint/mesh.h"
#include "feint/space.h"

typedef struct {
  feint_case *c;
  feint_mesh *m;
  feint_space *s;
  feint_boundary_conditions *bc;
} bc_case;

/* As bc_case_create, returning feint_boundary_create's status (b->bc NULL
 * when it fails). */
static inline int bc_case_try(const char *yaml, int order, int vector, bc_case *b) {
  char path[] = "/tmp/feint-bc-case-XXXXXX";
  const int fd = mkstemp(path);
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (!f || fputs(yaml, f) < 0 || fclose(f)) {
    fprintf(stderr, "cannot write the temporary case file %s\n", path);
    exit(1);
  }
  memset(b, 0, sizeof *b);
  CHECK_OK(feint_case_load(path, 0, NULL, &b->c));
  remove(path);
  feint_mesh_options mo = {.size = b->c->mesh_size};
  CHECK_OK(feint_mesh_read(b->c->mesh_file, &mo, &b->m));
  CHECK_OK(feint_space_create(b->m, order, vector ? b->m->dim : 1, &b->s));
  return feint_boundary_create(b->c, b->s, &b->bc);
}

static inline void bc_case_create(const char *yaml, int order, int vector, bc_case *b) {
  CHECK_OK(bc_case_try(yaml, order, vector, b));
}

static inline void bc_case_destroy(bc_case *b) {
  feint_boundary_destroy(b->bc);
  feint_space_destroy(b->s);
  feint_mesh_destroy(b->m);
  feint_case_destroy(b->c);
}
#endif
