/* The built-in backend kinds (libCEED's backend list): each is defined
 * beside its implementation and listed once here; registry.c walks them.
 * Private to src/backend. */
#ifndef FEINT_BACKEND_KINDS_H
#define FEINT_BACKEND_KINDS_H

#include "feint/backend.h"

extern const feint_backend_kind feint_backend_kind_cpu;  /* src/backend/cpu/kind.c */
extern const feint_backend_kind feint_backend_kind_cuda; /* src/backend/cuda/kind.c (every build) */

#endif
