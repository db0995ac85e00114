/* The built-in physics kinds as user forms (issue 19: "the built-in
 * physics become named sets of these expressions"): for a kind (physics.h,
 * FEINT_PW_*), a dimension and a component count, the f0 and f1
 * expressions over coefficients named and ordered as the kind's own
 * fields (feint_form.aux), written as the same sums in the same order as
 * feint_physics_f0 / f1, the Jacobian blocks derived. A backend runs a
 * built-in kind through its user-form kernels with it where its built-in
 * kernels lack something (the cuda backend: coefficients given per cell's
 * nodes, an expression per physical group; quadrilaterals and hexahedra). */
#ifndef FEINT_PHYSICS_FORM_H
#define FEINT_PHYSICS_FORM_H
#include "feint/form.h"
#include "feint/userform.h"

/* The user form of built-in kind `physics` (FEINT_PW_*) on a mesh of
 * dimension dim (2, 3) for a field of nc components (elasticity: nc ==
 * dim); its coefficient k is the kind's field aux[k]. */
int feint_physics_user_form(int physics, int dim, int nc, feint_user_form **out);

/* Form f (a built-in kind's) as the user form it is: *out a copy of f
 * that shares f's fields and rules (f must outlive it), with user set and
 * physics FEINT_PHYSICS_FORM, and the vertex shape values at the rules'
 * points the user-form kernels read for x, y, z (on a mixed mesh m, each
 * block's rules'); free with feint_physics_form_view_destroy. */
int feint_physics_form_view(const feint_form *f, const feint_mesh *m, feint_form **out);
void feint_physics_form_view_destroy(feint_form *view);
#endif
