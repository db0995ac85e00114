/* How a coefficient field is stored (feint_field, form.h): one constant,
 * one value per cell, nodal values interpolated with the scalar basis, or
 * piecewise nodal values: each cell's own values at its scalar dofs (a
 * field that jumps between cells: an expression per physical group).
 * Its own header because the run-time compiled kernels read it too
 * (NVRTC sees no system header). */
#ifndef FEINT_FIELD_KIND_H
#define FEINT_FIELD_KIND_H

typedef enum { FEINT_FIELD_CONSTANT = 0, FEINT_FIELD_CELL, FEINT_FIELD_NODE, FEINT_FIELD_CELL_NODE } feint_field_kind;

#endif
