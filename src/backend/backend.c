/* What every backend instance shares: destroy, info, the form taken in
 * place (the choice of a backend is registry.c's). */
#include "feint/backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feint/error.h"

void feint_backend_destroy(feint_backend *b) {
  if (!b) return;
  void *owned = b->owned;
  void (*free_owned)(void *) = b->free_owned;
  if (b->destroy) b->destroy(b);
  if (free_owned) free_owned(owned);
}

int feint_backend_info_get(const feint_backend *b, feint_backend_info *out) {
  memset(out, 0, sizeof *out);
  out->precision = FEINT_PRECISION_DOUBLE;
  return b->info ? b->info(b, out) : FEINT_OK;
}

int feint_backend_alloc(const feint_problem *p, size_t data_size, void (*destroy)(feint_backend *b),
                        feint_backend **out) {
  *out = NULL;
  feint_backend *b = NULL;
  FEINT_CALL(feint_calloc(1, sizeof *b, &b, "backend"));
  const int status = feint_calloc(1, data_size, &b->data, "backend");
  if (status) {
    free(b);
    return status;
  }
  b->problem = p;
  b->destroy = destroy;
  *out = b;
  return FEINT_OK;
}

void feint_operator_destroy(feint_operator *o) {
  if (o && o->destroy) o->destroy(o);
}

int feint_operator_info_get(const feint_operator *o, feint_backend_info *out) {
  memset(out, 0, sizeof *out);
  out->precision = FEINT_PRECISION_DOUBLE;
  return o->info ? o->info(o, out) : FEINT_OK;
}

int feint_backend_update_form(feint_backend *b, feint_problem *p, const feint_form *form) {
  if ((b->outer ? b->outer : b->problem) != p)
    return feint_error_set(FEINT_ERR_COMPUTE, "internal: update_form with another problem than the backend's");
  if (!b->update_form)
    return feint_error_set(FEINT_BACKEND_CANNOT_REUSE,
                           "this %s backend's implementation is set up for one form (it has no update_form)", b->name);
  char why[200];
  if (!feint_form_same_layout(p->form, form, why, sizeof why))
    return feint_error_set(FEINT_BACKEND_CANNOT_REUSE, "%s", why);
  FEINT_CALL(b->update_form(b, form));
  p->form = form;
  return FEINT_OK;
}
