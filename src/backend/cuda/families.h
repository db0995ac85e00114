/* The cuda kind's kernel families (families.c): the table and the ids the
 * backend reports them by. */
#ifndef FEINT_CUDA_FAMILIES_H
#define FEINT_CUDA_FAMILIES_H

#include "feint/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* In the table's order. */
typedef enum {
  FEINT_FAMILY_P1_LEAN_PIPE,
  FEINT_FAMILY_P1_LEAN,
  FEINT_FAMILY_P1_BLOCK,
  FEINT_FAMILY_P1_CELL,
  FEINT_FAMILY_TT,
  FEINT_FAMILY_ELMAT,
  FEINT_FAMILY_BP_LAYERED,
  FEINT_FAMILY_BP_STAGED,
  FEINT_FAMILY_BP_TILED,
  FEINT_FAMILY_BP_LINE,
  FEINT_FAMILY_FORM_JIT
} feint_cuda_family;

const feint_kernel_family *feint_cuda_families(int *n);
const char *feint_cuda_family_name(feint_cuda_family f);

#ifdef __cplusplus
}
#endif
#endif
