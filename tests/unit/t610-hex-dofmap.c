/* The GLL dof map from hex mesh topology (src/bp/dofmap.c), issue 4:
 *  - on a perturbed box whose every cell's vertex list is rotated/reflected
 *    by a random one of the cube's 48 symmetries (so neighbours see shared
 *    edges and faces in different local orientations), the dof map is
 *    consistent with the structured GLL lattice (one global dof per
 *    lattice node: a bijection), the dof coordinates computed from every
 *    cell agree, and A x (BP1.0, BP3.5, BP3.0, stored and recomputed
 *    geometry) equals the box operator on the same global function;
 *  - on the rotated mesh, the sum-factorised action equals the assembled
 *    CSR matrix times x, M 1 sums to the volume and S 1 = 0;
 *  - on an affine (sheared) box with rotated cells, a global polynomial of
 *    degree N interpolated at the dofs is reproduced inside every cell;
 *  - a Gmsh hex mesh (cases/hexcube.geo) reads as hexahedra and gives a
 *    consistent dof map (coordinates agree, M 1 = 1, S 1 = 0). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "feint/bp.h"
#include "feint/error.h"
#include "feint/mesh.h"
#include "feint/tensor.h"

static unsigned rnd_state = 2024;
static unsigned rnd_u(void) {
  rnd_state = rnd_state * 1664525u + 1013904223u;
  return rnd_state >> 8;
}
static double rnd(void) { return (rnd_u() & 0xffffff) * (1.0 / 16777216.0) - 0.5; }

/* A cube symmetry: axis permutation pi and flips f. */
typedef struct {
  int pi[3], f[3];
} sym;

static void random_sym(sym *s) {
  static const int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  int p = (int)(rnd_u() % 6), f = (int)(rnd_u() % 8);
  for (int d = 0; d < 3; d++) {
    s->pi[d] = perms[p][d];
    s->f[d] = (f >> d) & 1;
  }
}

/* Index triple t of the rotated cell -> that of the reference cell
 * (n = 1: vertex bits; n = N: GLL node indices). */
static void sym_map(const sym *s, int n, const int t[3], int r[3]) {
  for (int d = 0; d < 3; d++) r[s->pi[d]] = s->f[d] ? n - t[d] : t[d];
}

/* A copy of m with each cell's vertex list rotated by syms[e]. */
static feint_hexmesh *rotated_copy(const feint_hexmesh *m, const sym *syms) {
  feint_hexmesh *r = calloc(1, sizeof *r);
  *r = *m;
  r->nx = r->ny = r->nz = 0; /* no longer lexicographic cells of a box */
  r->vertices = malloc(sizeof(double) * 3 * m->n_vertices);
  memcpy(r->vertices, m->vertices, sizeof(double) * 3 * m->n_vertices);
  r->cells = malloc(sizeof(int64_t) * 8 * m->n_cells);
  for (int64_t e = 0; e < m->n_cells; e++)
    for (int v = 0; v < 8; v++) {
      int t[3] = {v & 1, (v >> 1) & 1, v >> 2}, q[3];
      sym_map(&syms[e], 1, t, q);
      r->cells[8 * e + v] = m->cells[8 * e + (q[0] | (q[1] << 1) | (q[2] << 2))];
    }
  return r;
}

/* perm[rotated dof] = reference dof, through the local index symmetry.
 * Returns the number of inconsistencies (a rotated dof meeting two
 * reference dofs, or a reference dof met twice). */
static int64_t dof_perm(const feint_bp_dofmap *rot, const feint_bp_dofmap *ref, const sym *syms, int32_t *perm) {
  int N = rot->order, P = N + 1;
  int64_t bad = 0;
  for (int64_t i = 0; i < rot->n_dofs; i++) perm[i] = -1;
  for (int64_t e = 0; e < rot->n_cells; e++)
    for (int k = 0; k < P; k++)
      for (int j = 0; j < P; j++)
        for (int i = 0; i < P; i++) {
          int t[3] = {i, j, k}, q[3];
          sym_map(&syms[e], N, t, q);
          int32_t a = rot->cell_dofs[e * rot->np + i + P * (j + P * k)];
          int32_t b = ref->cell_dofs[e * ref->np + q[0] + P * (q[1] + P * q[2])];
          if (perm[a] < 0)
            perm[a] = b;
          else if (perm[a] != b)
            bad++;
        }
  char *hit = calloc((size_t)ref->n_dofs, 1);
  for (int64_t i = 0; i < rot->n_dofs; i++) {
    if (perm[i] < 0 || hit[perm[i]]) bad++;
    if (perm[i] >= 0) hit[perm[i]] = 1;
  }
  free(hit);
  return bad;
}

static double poly(int N, const double *x) {
  double a = 0.3 + x[0] - 0.7 * x[1] + 0.4 * x[2], b = 0.2 - 0.5 * x[0] + x[2];
  return pow(a, N) - 0.5 * pow(b, N - 1) * x[1] + (N >= 2 ? x[0] * x[2] : 0);
}

int main(void) {
  const double lx = 1.5, ly = 1.0, lz = 0.75;
  feint_hexmesh *box = NULL;
  CHECK_OK(feint_hexmesh_box(3, 3, 2, lx, ly, lz, 0.2, &box));
  sym *syms = malloc(sizeof *syms * box->n_cells);
  for (int64_t e = 0; e < box->n_cells; e++) random_sym(&syms[e]);
  feint_hexmesh *rot = rotated_copy(box, syms);
  double worst_op = 0, worst_csr = 0, worst_xyz = 0;
  for (int N = 1; N <= 6; N++) {
    feint_bp_dofmap *dref = NULL, *drot = NULL, *dtopo = NULL;
    CHECK_OK(feint_bp_dofmap_box(box, N, &dref));
    CHECK_OK(feint_bp_dofmap_create(rot, N, &drot));
    CHECK_OK(feint_bp_dofmap_create(box, N, &dtopo));
    CHECK(drot->n_dofs == dref->n_dofs && dtopo->n_dofs == dref->n_dofs, "N=%d: %lld / %lld dofs, box %lld", N,
          (long long)drot->n_dofs, (long long)dtopo->n_dofs, (long long)dref->n_dofs);
    int64_t n = dref->n_dofs;
    int32_t *perm = malloc(sizeof(int32_t) * n);
    sym ident = {{0, 1, 2}, {0, 0, 0}};
    sym *ids = malloc(sizeof *ids * box->n_cells);
    for (int64_t e = 0; e < box->n_cells; e++) ids[e] = ident;
    CHECK(dof_perm(dtopo, dref, ids, perm) == 0, "N=%d: unrotated topology map inconsistent", N);
    free(ids);
    int64_t bad = dof_perm(drot, dref, syms, perm);
    CHECK(bad == 0, "N=%d: rotated dof map inconsistent with the lattice (%lld)", N, (long long)bad);
    /* coordinates agree from every cell, and with the box's */
    double *xr = malloc(sizeof(double) * 3 * n), *xb = malloc(sizeof(double) * 3 * n), mm = 1, mb = 1;
    CHECK_OK(feint_bp_dof_coordinates(rot, drot, xr, &mm));
    CHECK_OK(feint_bp_dof_coordinates(box, dref, xb, &mb));
    double dmax = 0;
    for (int64_t i = 0; i < n && !bad; i++)
      for (int c = 0; c < 3; c++) dmax = fmax(dmax, fabs(xr[3 * i + c] - xb[3 * (int64_t)perm[i] + c]));
    CHECK(mm < 1e-13 && mb < 1e-13 && dmax < 1e-13, "N=%d: coordinate mismatch %g / %g, vs box %g", N, mm, mb, dmax);
    worst_xyz = fmax(worst_xyz, fmax(mm, dmax));
    /* the operators agree on the same global function */
    double *x = malloc(sizeof(double) * n), *xo = malloc(sizeof(double) * n);
    double *y = malloc(sizeof(double) * n), *yo = malloc(sizeof(double) * n), *yc = malloc(sizeof(double) * n);
    for (int64_t i = 0; i < n; i++) x[i] = rnd();
    for (int64_t i = 0; i < n && !bad; i++) xo[i] = x[perm[i]];
    for (int k = 0; k < 3 && !bad; k++)
      for (int g = 0; g < 2; g++) {
        feint_bp_op *A = NULL, *B = NULL;
        CHECK_OK(feint_bp_op_create(box, dref, (feint_bp_kind)k, (feint_bp_geo_mode)g, 0.7, &A));
        CHECK_OK(feint_bp_op_create(rot, drot, (feint_bp_kind)k, (feint_bp_geo_mode)g, 0.7, &B));
        CHECK_OK(feint_bp_apply(A, x, y));
        CHECK_OK(feint_bp_apply(B, xo, yo));
        for (int64_t i = 0; i < n; i++) yc[i] = y[perm[i]];
        double r = rel_diff(n, yo, yc);
        worst_op = fmax(worst_op, r);
        CHECK(r < 1e-12, "N=%d %s geo %d: rotated vs box %g", N, feint_bp_name((feint_bp_kind)k), g, r);
        if (g == 0 && N <= 3) {
          feint_bp_csr *C = NULL;
          CHECK_OK(feint_bp_assemble(B, &C));
          feint_bp_csr_matvec(C, xo, yc);
          r = rel_diff(n, yo, yc);
          worst_csr = fmax(worst_csr, r);
          CHECK(r < 1e-12, "N=%d %s: action vs CSR %g", N, feint_bp_name((feint_bp_kind)k), r);
          feint_bp_csr_destroy(C);
        }
        /* M 1 = volume, S 1 = 0 on the rotated mesh */
        feint_bp_op_destroy(B);
        CHECK_OK(feint_bp_op_create(rot, drot, (feint_bp_kind)k, (feint_bp_geo_mode)g, 0.0, &B));
        for (int64_t i = 0; i < n; i++) yc[i] = 1;
        CHECK_OK(feint_bp_apply(B, yc, yo));
        double s = 0, amax = 0;
        for (int64_t i = 0; i < n; i++) {
          s += yo[i];
          amax = fmax(amax, fabs(yo[i]));
        }
        if (k == FEINT_BP1_0)
          CHECK_CLOSE(s, lx * ly * lz, 1e-12);
        else
          CHECK(amax < 1e-11, "N=%d %s: A 1 = %g with lambda 0", N, feint_bp_name((feint_bp_kind)k), amax);
        feint_bp_op_destroy(A);
        feint_bp_op_destroy(B);
      }
    free(x);
    free(xo);
    free(y);
    free(yo);
    free(yc);
    free(xr);
    free(xb);
    free(perm);
    feint_bp_dofmap_destroy(dref);
    feint_bp_dofmap_destroy(drot);
    feint_bp_dofmap_destroy(dtopo);
  }
  printf("rotated cells: operator vs box %.2e, action vs CSR %.2e, coordinates %.2e\n", worst_op, worst_csr,
         worst_xyz);
  feint_hexmesh_destroy(rot);

  /* Polynomial reproduction on an affine (sheared) box with rotated cells. */
  feint_hexmesh *aff = NULL;
  CHECK_OK(feint_hexmesh_box(3, 2, 2, 1, 1, 1, 0.0, &aff));
  for (int64_t i = 0; i < aff->n_vertices; i++) {
    double *v = aff->vertices + 3 * i, p[3] = {v[0], v[1], v[2]};
    v[0] = 1.2 * p[0] + 0.3 * p[1] - 0.1 * p[2] + 0.5;
    v[1] = -0.2 * p[0] + 0.9 * p[1] + 0.25 * p[2];
    v[2] = 0.1 * p[0] - 0.15 * p[1] + 1.1 * p[2] - 0.3;
  }
  sym *s2 = malloc(sizeof *s2 * aff->n_cells);
  for (int64_t e = 0; e < aff->n_cells; e++) random_sym(&s2[e]);
  feint_hexmesh *arot = rotated_copy(aff, s2);
  double worst_poly = 0;
  for (int N = 1; N <= 8; N++) {
    feint_bp_dofmap *d = NULL;
    CHECK_OK(feint_bp_dofmap_create(arot, N, &d));
    int P = N + 1;
    double *xyz = malloc(sizeof(double) * 3 * d->n_dofs), *u = malloc(sizeof(double) * d->n_dofs), mm = 1;
    CHECK_OK(feint_bp_dof_coordinates(arot, d, xyz, &mm));
    CHECK(mm < 1e-13, "N=%d: affine coordinate mismatch %g", N, mm);
    for (int64_t i = 0; i < d->n_dofs; i++) u[i] = poly(N, xyz + 3 * i);
    double gll[FEINT_BP_MAX_ORDER + 1], gw[FEINT_BP_MAX_ORDER + 1];
    CHECK_OK(feint_gauss_lobatto(P, gll, gw));
    for (int64_t e = 0; e < arot->n_cells; e++)
      for (int q = 0; q < 4; q++) {
        double pt[3] = {2 * rnd(), 2 * rnd(), 2 * rnd()}, L[3][FEINT_BP_MAX_ORDER + 1], X[3] = {0, 0, 0};
        for (int c = 0; c < 3; c++) CHECK_OK(feint_lagrange_matrices(P, gll, 1, &pt[c], L[c], NULL));
        for (int v = 0; v < 8; v++) {
          double phi = 0.125 * (1 + ((v & 1) ? pt[0] : -pt[0])) * (1 + ((v & 2) ? pt[1] : -pt[1])) *
                       (1 + ((v & 4) ? pt[2] : -pt[2]));
          for (int c = 0; c < 3; c++) X[c] += phi * arot->vertices[3 * arot->cells[8 * e + v] + c];
        }
        double uh = 0;
        for (int k = 0; k < P; k++)
          for (int j = 0; j < P; j++)
            for (int i = 0; i < P; i++)
              uh += u[d->cell_dofs[e * d->np + i + P * (j + P * k)]] * L[0][i] * L[1][j] * L[2][k];
        double err = fabs(uh - poly(N, X));
        worst_poly = fmax(worst_poly, err);
        CHECK(err < 1e-11, "N=%d cell %lld: interpolant %.15g, polynomial %.15g", N, (long long)e, uh, poly(N, X));
      }
    free(xyz);
    free(u);
    feint_bp_dofmap_destroy(d);
  }
  printf("polynomial of degree N reproduced within %.2e (N = 1..8)\n", worst_poly);
  feint_hexmesh_destroy(arot);
  feint_hexmesh_destroy(aff);
  free(s2);

  /* A Gmsh hex mesh: the transfinite, recombined unit cube. */
  feint_mesh *gm = NULL;
  feint_mesh_options mo = {0};
  CHECK_OK(feint_mesh_read("cases/hexcube.geo", &mo, &gm));
  CHECK(gm->cell_type == FEINT_CELL_HEXAHEDRON && gm->nv == 8, "hexcube: %s cells", feint_cell_name(gm->cell_type));
  feint_mesh_stats st;
  feint_mesh_compute_stats(gm, &st);
  CHECK_CLOSE(st.volume, 1.0, 1e-12);
  CHECK(st.n_inverted == 0 && st.worst_quality > 0.99, "hexcube: %lld inverted, quality %g", (long long)st.n_inverted,
        st.worst_quality);
  feint_hexmesh *hm = NULL;
  CHECK_OK(feint_hexmesh_from_mesh(gm, &hm));
  for (int N = 1; N <= 4; N++) {
    feint_bp_dofmap *d = NULL;
    CHECK_OK(feint_bp_dofmap_create(hm, N, &d));
    double *xyz = malloc(sizeof(double) * 3 * d->n_dofs), mm = 1;
    CHECK_OK(feint_bp_dof_coordinates(hm, d, xyz, &mm));
    CHECK(mm < 1e-13, "hexcube N=%d: coordinate mismatch %g", N, mm);
    double *one = malloc(sizeof(double) * d->n_dofs), *y = malloc(sizeof(double) * d->n_dofs);
    for (int64_t i = 0; i < d->n_dofs; i++) one[i] = 1;
    for (int k = 0; k < 3; k++) {
      feint_bp_op *A = NULL;
      CHECK_OK(feint_bp_op_create(hm, d, (feint_bp_kind)k, FEINT_BP_GEO_STORED, 0.0, &A));
      CHECK_OK(feint_bp_apply(A, one, y));
      double s = 0, amax = 0;
      for (int64_t i = 0; i < d->n_dofs; i++) {
        s += y[i];
        amax = fmax(amax, fabs(y[i]));
      }
      if (k == FEINT_BP1_0)
        CHECK_CLOSE(s, 1.0, 1e-12);
      else
        CHECK(amax < 1e-11, "hexcube N=%d %s: A 1 = %g", N, feint_bp_name((feint_bp_kind)k), amax);
      feint_bp_op_destroy(A);
    }
    if (N == 1) printf("hexcube: %lld cells, %lld dofs at N = 1\n", (long long)hm->n_cells, (long long)d->n_dofs);
    free(one);
    free(y);
    free(xyz);
    feint_bp_dofmap_destroy(d);
  }
  feint_hexmesh_destroy(hm);
  feint_mesh_destroy(gm);
  /* tetrahedra are refused */
  CHECK_OK(feint_mesh_read("cases/cube.geo", &mo, &gm));
  CHECK(feint_hexmesh_from_mesh(gm, &hm) == FEINT_ERR_INPUT, "tetrahedra accepted as a hex mesh");
  feint_mesh_destroy(gm);

  /* a face of three cells (the box's first cell twice more) is refused */
  int64_t *three = malloc(sizeof *three * (size_t)(box->n_cells + 2) * 8), *cells = box->cells;
  memcpy(three, cells, sizeof *three * (size_t)box->n_cells * 8);
  memcpy(three + box->n_cells * 8, cells, sizeof *three * 8);
  memcpy(three + (box->n_cells + 1) * 8, cells, sizeof *three * 8);
  box->cells = three;
  box->n_cells += 2;
  feint_bp_dofmap *bad = NULL;
  CHECK(feint_bp_dofmap_create(box, 2, &bad) == FEINT_ERR_INPUT && !bad, "a face of three cells accepted");
  CHECK(strstr(feint_error_message(), "shared by more than two cells") != NULL, "message: %s", feint_error_message());
  box->cells = cells;
  box->n_cells -= 2;
  free(three);

  feint_hexmesh_destroy(box);
  free(syms);
  return check_failures ? 1 : 0;
}
