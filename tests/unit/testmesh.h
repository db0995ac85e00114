/* Meshes and forms built in code for the GPU tests and benchmarks: no
 * Gmsh, so the same structured meshes can be made at any size. */
#ifndef FEINT_TEST_TESTMESH_H
#define FEINT_TEST_TESTMESH_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "feint/form.h"
#include "feint/mesh.h"
#include "feint/physics.h"
#include "feint/space.h"

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static inline double urand(void) { /* [0, 1) */
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (double)(rng_state >> 11) / 9007199254740992.0;
}

/* Fresh inputs on every run: seed from FEINT_TEST_SEED (to replay a
 * failure) or the clock, and print the seed. */
static inline void seed_fresh(const char *test) {
  const char *v = getenv("FEINT_TEST_SEED");
  uint64_t seed = v && *v ? strtoull(v, NULL, 10) : (uint64_t)time(NULL) * 2654435761u + (uint64_t)clock();
  rng_state = seed ? seed : 1; /* xorshift needs a nonzero state */
  printf("%s: random inputs from FEINT_TEST_SEED=%llu\n", test, (unsigned long long)seed);
}

static inline feint_mesh *mesh_square(int n) {
  feint_mesh *m = calloc(1, sizeof *m);
  m->dim = 2;
  m->cell_type = FEINT_CELL_TRIANGLE;
  m->nv = 3;
  m->n_nodes = (int64_t)(n + 1) * (n + 1);
  m->x = malloc(sizeof(double) * m->n_nodes);
  m->y = malloc(sizeof(double) * m->n_nodes);
  m->z = calloc((size_t)m->n_nodes, sizeof(double));
  const double h = 1.0 / n;
  for (int j = 0; j <= n; j++)
    for (int i = 0; i <= n; i++) {
      int64_t v = (int64_t)j * (n + 1) + i;
      int interior = i > 0 && i < n && j > 0 && j < n;
      m->x[v] = i * h + (interior ? 0.3 * h * (urand() - 0.5) : 0);
      m->y[v] = j * h + (interior ? 0.3 * h * (urand() - 0.5) : 0);
    }
  m->n_cells = 2LL * n * n;
  m->n_blocks = 1;
  m->blocks[0] = (feint_mesh_block){FEINT_CELL_TRIANGLE, 3, 0, m->n_cells, 0, 0};
  m->cells = malloc(sizeof(int64_t) * m->n_cells * 3);
  int64_t c = 0;
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) {
      int64_t v00 = (int64_t)j * (n + 1) + i, v10 = v00 + 1, v01 = v00 + n + 1, v11 = v01 + 1;
      int64_t t[6] = {v00, v10, v11, v00, v11, v01};
      memcpy(m->cells + 3 * c, t, sizeof t);
      c += 2;
    }
  return m;
}

/* The unit cube split into n^3 x 6 Kuhn tetrahedra; interior nodes moved
 * by up to `jiggle` cell widths (0: exact grid). */
static inline feint_mesh *mesh_cube(int n, double jiggle) {
  feint_mesh *m = calloc(1, sizeof *m);
  m->dim = 3;
  m->cell_type = FEINT_CELL_TETRAHEDRON;
  m->nv = 4;
  const int64_t n1 = n + 1;
  m->n_nodes = n1 * n1 * n1;
  m->x = malloc(sizeof(double) * m->n_nodes);
  m->y = malloc(sizeof(double) * m->n_nodes);
  m->z = malloc(sizeof(double) * m->n_nodes);
  const double h = 1.0 / n;
  for (int k = 0; k <= n; k++)
    for (int j = 0; j <= n; j++)
      for (int i = 0; i <= n; i++) {
        int64_t v = (k * n1 + j) * n1 + i;
        int interior = i > 0 && i < n && j > 0 && j < n && k > 0 && k < n;
        m->x[v] = i * h + (interior ? jiggle * h * (urand() - 0.5) : 0);
        m->y[v] = j * h + (interior ? jiggle * h * (urand() - 0.5) : 0);
        m->z[v] = k * h + (interior ? jiggle * h * (urand() - 0.5) : 0);
      }
  m->n_cells = 6LL * n * n * n;
  m->n_blocks = 1;
  m->blocks[0] = (feint_mesh_block){FEINT_CELL_TETRAHEDRON, 4, 0, m->n_cells, 0, 0};
  m->cells = malloc(sizeof(int64_t) * m->n_cells * 4);
  static const int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  const int64_t stride[3] = {1, n1, n1 * n1};
  int64_t c = 0;
  for (int k = 0; k < n; k++)
    for (int j = 0; j < n; j++)
      for (int i = 0; i < n; i++) {
        int64_t v0 = (k * n1 + j) * n1 + i;
        for (int p = 0; p < 6; p++) {
          int64_t *t = m->cells + 4 * c++;
          t[0] = v0;
          t[1] = t[0] + stride[perms[p][0]];
          t[2] = t[1] + stride[perms[p][1]];
          t[3] = t[2] + stride[perms[p][2]];
        }
      }
  return m;
}

static inline void mesh_free(feint_mesh *m) {
  free(m->x);
  free(m->y);
  free(m->z);
  free(m->cells);
  free(m);
}

/* Random field: kind cycles constant / per cell / nodal by `which`. */
static inline void random_field(feint_field *f, const feint_space *s, int kind, double lo, double hi) {
  f->kind = (feint_field_kind)kind;
  f->values = NULL;
  if (kind == FEINT_FIELD_CONSTANT) {
    f->constant = lo + (hi - lo) * urand();
    return;
  }
  int64_t n = kind == FEINT_FIELD_CELL ? s->mesh->n_cells : s->n_scalar_dofs;
  f->values = malloc(sizeof(double) * (size_t)n);
  for (int64_t i = 0; i < n; i++) f->values[i] = lo + (hi - lo) * urand();
}

static inline feint_form *make_form(int physics, const feint_space *s, int variant) {
  feint_form *f = calloc(1, sizeof *f);
  const int dim = s->mesh->dim, nc = s->components;
  f->physics = physics;
  f->dim = dim;
  f->nc = nc;
  f->n_aux = feint_physics_aux_count(physics, dim, nc);
  f->aux = calloc((size_t)f->n_aux, sizeof *f->aux);
  const int src = feint_physics_source_offset(physics, dim);
  int coef_nodal = 0;
  for (int k = 0; k < f->n_aux; k++) {
    /* coefficients: mostly nodal (the paper's data model), some per cell and constant */
    int kind = (k + variant) % 3 == 0 ? FEINT_FIELD_NODE : (k + variant) % 3 == 1 ? FEINT_FIELD_CELL : FEINT_FIELD_CONSTANT;
    if (k == 0) kind = FEINT_FIELD_NODE;
    double lo = 0.5, hi = 1.5;
    if (k >= src) lo = -1, hi = 1; /* source */
    if (physics == FEINT_PW_ADVECTION && k < dim) lo = -1, hi = 1;
    if (physics == FEINT_PW_DIFFUSION && k < dim * dim && k % (dim + 1) != 0) lo = -0.2, hi = 0.2;
    random_field(&f->aux[k], s, kind, lo, hi);
    if (kind == FEINT_FIELD_NODE && k < src) coef_nodal = 1;
  }
  f->u = malloc(sizeof(double) * (size_t)s->n_dofs);
  for (int64_t i = 0; i < s->n_dofs; i++) f->u[i] = 2 * urand() - 1;
  /* the form module's default: exact for the form on affine cells */
  {
    const int terms = feint_physics_jacobian_terms(physics), pdeg = s->order, cdeg = coef_nodal ? pdeg : 0;
    int deg = pdeg + cdeg;
    if ((terms & 1) && 2 * pdeg + cdeg > deg) deg = 2 * pdeg + cdeg;
    if ((terms & 6) && 2 * pdeg - 1 + cdeg > deg) deg = 2 * pdeg - 1 + cdeg;
    if ((terms & 8) && 2 * pdeg - 2 + cdeg > deg) deg = 2 * pdeg - 2 + cdeg;
    f->quadrature_degree = deg + (getenv("FEINT_TEST_EXTRA_DEGREE") ? atoi(getenv("FEINT_TEST_EXTRA_DEGREE")) : 0);
  }
  CHECK_OK(feint_quadrature_create(s->mesh->cell_type, f->quadrature_degree, &f->quadrature));
  const int nq = f->quadrature->n;
  f->basis = malloc(sizeof(double) * (size_t)(nq * s->nb));
  f->basis_grad = malloc(sizeof(double) * (size_t)(nq * s->nb * dim));
  feint_element_tabulate(s->element, nq, f->quadrature->points, f->basis, f->basis_grad);
  return f;
}

#endif
