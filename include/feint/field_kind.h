/* How a coefficient field is stored (feint_field, form.h): one constant,
 * one value per cell, or nodal values interpolated with the scalar basis.
 * Its own header because the run-time compiled kernels read it too
 * (NVRTC sees no system header). */
#ifndef FEINT_FIELD_KIND_H
#define FEINT_FIELD_KIND_H

typedef enum { FEINT_FIELD_CONSTANT = 0, FEINT_FIELD_CELL, FEINT_FIELD_NODE } feint_field_kind;

#endif
