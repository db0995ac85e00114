/* The built-in physics kinds as user forms (feint/physics_form.h): for
 * every kind, dimension and component count the backends take, the
 * form's f0 and f1 equal physics.h's bitwise at random points (the same
 * sums in the same order), its derived Jacobian blocks equal physics.h's
 * g0..g3 (same blocks present, entries to the last bit but the sign of a
 * zero), and coefficient k is the kind's field aux[k]. */
#include <math.h>

#include "check.h"
#include "feint/error.h"
#include "feint/physics_form.h"

static double rnd(unsigned *s) {
  *s = *s * 1664525u + 1013904223u;
  return ((*s >> 8) & 0xffffff) / (double)0x1000000 * 4 - 2;
}

static void compare(int kind, int dim, int nc) {
  feint_user_form *uf = NULL;
  if (feint_physics_user_form(kind, dim, nc, &uf)) {
    CHECK(0, "kind %d, %dD, %d components: %s", kind, dim, nc, feint_error_message());
    return;
  }
  const int n_aux = feint_physics_aux_count(kind, dim, nc);
  CHECK(uf->n_coefficients == n_aux && uf->n_parameters == 0, "kind %d: %d coefficients, the kind has %d", kind,
        uf->n_coefficients, n_aux);
  CHECK(uf->terms == feint_physics_jacobian_terms(kind), "kind %d: Jacobian blocks %d, the kind's %d", kind,
        uf->terms, feint_physics_jacobian_terms(kind));
  unsigned seed = 12345u + 77u * (unsigned)kind + 7u * (unsigned)dim;
  int worst_f = 0, worst_g = 0;
  for (int trial = 0; trial < 200; trial++) {
    double sym[64] = {0}, u[3], gradu[9], a[16];
    for (int i = 0; i < uf->n_symbols; i++) sym[i] = rnd(&seed);
    for (int c = 0; c < nc; c++) {
      u[c] = sym[FEINT_FORM_SYM_U + 4 * c];
      for (int d = 0; d < dim; d++) gradu[c * dim + d] = sym[FEINT_FORM_SYM_U + 4 * c + 1 + d];
    }
    for (int k = 0; k < n_aux; k++) a[k] = sym[feint_user_form_coefficient_symbol(uf, k)];
    const feint_point pt = {dim, nc, u, gradu, a};
    double f0[3], f1[9], w0[3], w1[9];
    feint_user_form_residual(uf, 1, sym, f0, f1);
    feint_physics_f0(kind, &pt, w0);
    feint_physics_f1(kind, &pt, w1);
    for (int k = 0; k < nc; k++) worst_f |= f0[k] != w0[k];
    for (int k = 0; k < nc * dim; k++) worst_f |= f1[k] != w1[k];
    double g0[9] = {0}, g1[27] = {0}, g2[27] = {0}, g3[81] = {0}, h0[9] = {0}, h1[27] = {0}, h3[81] = {0};
    feint_user_form_jacobian(uf, 1, sym, g0, g1, g2, g3);
    const int terms = feint_physics_jacobian_terms(kind);
    if (terms & 1) feint_physics_g0(kind, &pt, h0);
    if (terms & 2) feint_physics_g1(kind, &pt, h1);
    if (terms & 8) feint_physics_g3(kind, &pt, h3);
    for (int k = 0; k < nc * nc; k++) worst_g |= g0[k] != h0[k];
    for (int k = 0; k < nc * nc * dim; k++) worst_g |= g1[k] != h1[k] || g2[k] != 0;
    for (int k = 0; k < nc * nc * dim * dim; k++) worst_g |= g3[k] != h3[k];
  }
  CHECK(!worst_f, "kind %d, %dD, %d components: f0/f1 differ from physics.h", kind, dim, nc);
  CHECK(!worst_g, "kind %d, %dD, %d components: the Jacobian differs from physics.h", kind, dim, nc);
  printf("kind %d, %dD, %d component%s: f0, f1 bitwise, g0..g3 equal (200 random points)\n", kind, dim, nc,
         nc > 1 ? "s" : "");
  feint_user_form_destroy(uf);
}

int main(void) {
  const int kinds[] = {FEINT_PW_POISSON, FEINT_PW_MASS, FEINT_PW_HELMHOLTZ, FEINT_PW_ADVECTION, FEINT_PW_DIFFUSION};
  for (int dim = 2; dim <= 3; dim++) {
    for (int k = 0; k < 5; k++)
      for (int nc = 1; nc <= 3; nc++) compare(kinds[k], dim, nc);
    compare(FEINT_PW_ELASTICITY, dim, dim);
  }
  feint_user_form *uf = NULL;
  CHECK(feint_physics_user_form(FEINT_PW_ELASTICITY, 3, 1, &uf) == FEINT_ERR_INPUT, "elasticity of 1 component");
  feint_error_clear();
  if (check_failures) return 1;
  printf("t642-physics-forms: ok\n");
  return 0;
}
