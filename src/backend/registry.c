/* The backend registry: the kinds by priority, the choice of one for a
 * problem or an operator (explicit, or auto with the reasons it passed
 * kinds over), and what the driver asks of every kind at once (warm-up,
 * transfer times). */
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "backend/kinds.h"
#include "feint/backend.h"
#include "feint/error.h"

#ifdef FEINT_HAVE_CUDA
#include "backend/cuda/cuda_timing.h"
#endif

static const feint_backend_kind *const builtin[] = {&feint_backend_kind_cpu, &feint_backend_kind_cuda};
enum { N_BUILTIN = sizeof builtin / sizeof builtin[0] };
static const feint_backend_kind *registered[FEINT_BACKEND_MAX_KINDS];
static int n_registered;

const feint_backend_kind *feint_backend_kind_find(const char *name) {
  for (int k = 0; k < N_BUILTIN; k++)
    if (!strcmp(builtin[k]->name, name)) return builtin[k];
  for (int k = 0; k < n_registered; k++)
    if (!strcmp(registered[k]->name, name)) return registered[k];
  return NULL;
}

int feint_backend_register(const feint_backend_kind *kind) {
  if (!kind || !kind->name || !kind->name[0])
    return feint_error_set(FEINT_ERR_INPUT, "internal: a backend kind needs a name");
  if (feint_backend_kind_find(kind->name))
    return feint_error_set(FEINT_ERR_INPUT, "backend %s is registered already", kind->name);
  if (N_BUILTIN + n_registered >= FEINT_BACKEND_MAX_KINDS)
    return feint_error_set(FEINT_ERR_INPUT, "at most %d backend kinds can be registered", FEINT_BACKEND_MAX_KINDS);
  registered[n_registered++] = kind;
  return FEINT_OK;
}

void feint_backend_unregister(const feint_backend_kind *kind) {
  for (int k = 0; k < n_registered; k++)
    if (registered[k] == kind) {
      memmove(registered + k, registered + k + 1, (size_t)(n_registered - k - 1) * sizeof *registered);
      n_registered--;
      return;
    }
}

int feint_backend_kinds(const feint_backend_kind **kinds, int max) {
  const feint_backend_kind *all[FEINT_BACKEND_MAX_KINDS];
  int n = 0;
  for (int k = 0; k < N_BUILTIN; k++) all[n++] = builtin[k];
  for (int k = 0; k < n_registered; k++) all[n++] = registered[k];
  /* insertion sort, highest priority first; ties keep registration order */
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && all[j]->priority > all[j - 1]->priority; j--) {
      const feint_backend_kind *t = all[j];
      all[j] = all[j - 1];
      all[j - 1] = t;
    }
  if (n > max) n = max;
  memcpy(kinds, all, (size_t)n * sizeof *kinds);
  return n;
}

/* The work a backend is chosen for: a problem, or (p NULL) an operator. */
typedef struct {
  const feint_problem *p;
  const feint_bp_op *op;
} work;

/* Whether k computes w: 1, or 0 with why. */
static int computes(const feint_backend_kind *k, const work *w, char *why, size_t size) {
  if (!w->p) {
    if (k->create_operator) return 1;
    snprintf(why, size, "the %s backend has no matrix-free operators", k->name);
    return 0;
  }
  if (!k->create) {
    snprintf(why, size, "the %s backend computes matrix-free operators only", k->name);
    return 0;
  }
  return !k->supports || k->supports(w->p, why, size);
}

static int open_kind(const feint_backend_kind *k, int device_index, char *why, size_t size) {
  return k->open ? k->open(device_index, why, size) : FEINT_OK;
}

int feint_backend_available(const char *name, char *why, size_t size) {
  char local[512];
  if (!why) {
    why = local;
    size = sizeof local;
  }
  const feint_backend_kind *k = feint_backend_kind_find(name);
  if (!k) {
    snprintf(why, size, "no backend kind %s is registered", name);
    return 0;
  }
  const int st = open_kind(k, -1, why, size);
  if (st != FEINT_OK && st != FEINT_BACKEND_ABSENT) snprintf(why, size, "%s", feint_error_message());
  return st == FEINT_OK;
}

/* Append a reason to auto's list of kinds passed over, once. */
static void passed_over(char *list, size_t size, const char *fmt, ...) {
  char reason[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(reason, sizeof reason, fmt, ap);
  va_end(ap);
  if (strstr(list, reason)) return; /* two GPU kinds without a GPU say it once */
  const size_t used = strlen(list);
  snprintf(list + used, size - used, "%s%s", used ? "; " : "", reason);
}

/* The kind named by an explicit request, if it computes w and can open:
 * the problem's reason first (it holds wherever the backend would run),
 * then the device's. */
static int choose_named(feint_device_kind want, int device_index, const work *w, const feint_backend_kind **out,
                        char *note, size_t note_size) {
  const feint_backend_kind *kinds[FEINT_BACKEND_MAX_KINDS], *k = NULL;
  const int n = feint_backend_kinds(kinds, FEINT_BACKEND_MAX_KINDS);
  for (int i = 0; i < n && !k; i++)
    if (kinds[i]->device == want) k = kinds[i];
  if (!k) return feint_error_set(FEINT_ERR_INPUT, "internal: no backend kind for device %d", (int)want);
  char why[512];
  if (w->p && k->supports && !k->supports(w->p, why, sizeof why)) return feint_error_set(FEINT_ERR_INPUT, "%s", why);
  const int st = open_kind(k, device_index, why, sizeof why);
  if (st == FEINT_BACKEND_ABSENT)
    return feint_error_set(FEINT_ERR_INPUT, "backend %s asked for, but %s", k->name, why);
  FEINT_CALL(st);
  if (!computes(k, w, why, sizeof why)) return feint_error_set(FEINT_ERR_INPUT, "%s", why);
  if (note && !k->open && device_index >= 0)
    snprintf(note, note_size, "--device %d is a CUDA device; the %s backend ignores it", device_index, k->name);
  *out = k;
  return FEINT_OK;
}

/* Auto, from position `from` of the kinds by priority: the first that can
 * open and computes w, its position in *at; the others' reasons go to
 * `passed`. A kind that cannot open is summed up as "no GPU found" (the
 * same words whether the build or the machine lacks it). */
static int choose_auto(int from, int device_index, const work *w, int *at, char *passed, size_t passed_size) {
  const feint_backend_kind *kinds[FEINT_BACKEND_MAX_KINDS];
  const int n = feint_backend_kinds(kinds, FEINT_BACKEND_MAX_KINDS);
  char why[512];
  for (int i = from; i < n; i++) {
    const int st = open_kind(kinds[i], device_index, why, sizeof why);
    if (st == FEINT_BACKEND_ABSENT) {
      passed_over(passed, passed_size, "no GPU found");
      continue;
    }
    FEINT_CALL(st); /* a --device past the visible devices is the user's mistake, not a reason to fall back */
    if (!computes(kinds[i], w, why, sizeof why)) {
      passed_over(passed, passed_size, "%s", why);
      continue;
    }
    *at = i;
    return FEINT_OK;
  }
  return feint_error_set(FEINT_ERR_INPUT, "backend auto: no backend computes this (%s)", passed);
}

/* Auto's sentence: what it passed over, then what it took (on which
 * device, when the kind has one and it is known). */
static void auto_note(char *note, size_t size, const char *passed, const feint_backend_kind *k, const char *device) {
  if (!note) return;
  const char *sep = passed[0] ? "; " : "";
  if (device)
    snprintf(note, size, "backend auto: %s%susing %s on %s", passed, sep, k->name, device);
  else
    snprintf(note, size, "backend auto: %s%susing the %s backend", passed, sep, k->name);
}

static int choose(feint_device_kind want, int device_index, const work *w, const feint_backend_kind **out, char *note,
                  size_t note_size) {
  *out = NULL;
  if (note && note_size) note[0] = '\0';
  if (want != FEINT_DEVICE_AUTO) return choose_named(want, device_index, w, out, note, note_size);
  char passed[1024] = "";
  int at;
  FEINT_CALL(choose_auto(0, device_index, w, &at, passed, sizeof passed));
  const feint_backend_kind *kinds[FEINT_BACKEND_MAX_KINDS];
  feint_backend_kinds(kinds, FEINT_BACKEND_MAX_KINDS);
  *out = kinds[at];
  auto_note(note, note_size, passed, *out, NULL);
  return FEINT_OK;
}

int feint_backend_choose(feint_device_kind want, int device_index, const feint_problem *p,
                         const feint_backend_kind **out, char *note, size_t note_size) {
  const work w = {p, NULL};
  return choose(want, device_index, &w, out, note, note_size);
}

/* What create makes: a backend for a problem, or an operator. */
typedef struct {
  feint_backend *backend;
  feint_operator *op;
} made;

static int create_on(const feint_backend_kind *k, int device_index, const work *w, made *out) {
  return w->p ? k->create(w->p, device_index, &out->backend) : k->create_operator(w->op, device_index, &out->op);
}

static const char *made_device(const made *m) { return m->backend ? m->backend->device : m->op->device; }

/* Create for w: the named kind, or under auto the first by priority that
 * computes w and is created (one whose creation fails is passed over,
 * saying why). */
static int create(feint_device_kind want, int device_index, const work *w, made *out, char *note,
                  size_t note_size) {
  *out = (made){NULL, NULL};
  if (note && note_size) note[0] = '\0';
  if (want != FEINT_DEVICE_AUTO) {
    const feint_backend_kind *k;
    FEINT_CALL(choose_named(want, device_index, w, &k, note, note_size));
    return create_on(k, device_index, w, out);
  }
  const feint_backend_kind *kinds[FEINT_BACKEND_MAX_KINDS];
  feint_backend_kinds(kinds, FEINT_BACKEND_MAX_KINDS);
  char passed[1024] = "";
  for (int from = 0;; from++) {
    FEINT_CALL(choose_auto(from, device_index, w, &from, passed, sizeof passed));
    const feint_backend_kind *k = kinds[from];
    if (create_on(k, device_index, w, out) == FEINT_OK) {
      auto_note(note, note_size, passed, k, k->open ? made_device(out) : NULL);
      return FEINT_OK;
    }
    passed_over(passed, sizeof passed, "%s unavailable (%s)", k->name, feint_error_message());
    feint_error_clear();
  }
}

int feint_backend_create(feint_device_kind kind, int device_index, const feint_problem *p, feint_backend **out,
                         char *note, size_t note_size) {
  const work w = {p, NULL};
  made m;
  const int st = create(kind, device_index, &w, &m, note, note_size);
  *out = m.backend;
  return st;
}

int feint_backend_operator_create(feint_device_kind kind, int device_index, const feint_bp_op *op,
                                  feint_operator **out, char *note, size_t note_size) {
  const work w = {NULL, op};
  made m;
  const int st = create(kind, device_index, &w, &m, note, note_size);
  *out = m.op;
  return st;
}

int feint_backend_operator_geo_on_device(feint_device_kind kind, int device_index) {
  const work w = {NULL, NULL};
  const feint_backend_kind *k;
  if (choose(kind, device_index, &w, &k, NULL, 0) != FEINT_OK) {
    feint_error_clear(); /* feint_backend_operator_create says it again */
    return 0;
  }
  return k->operator_geo_on_device;
}

int feint_backend_create_plan(feint_device_kind kind, int device_index, const feint_problem *p, feint_plan **out,
                              char *steps, size_t steps_size) {
  const feint_backend_kind *k;
  *out = NULL;
  if (steps && steps_size) steps[0] = '\0';
  FEINT_CALL(feint_backend_choose(kind, device_index, p, &k, NULL, 0));
  if (k->create_plan) return k->create_plan(p->space, device_index, out, steps, steps_size);
  return feint_plan_create(p->space, out);
}

void feint_backend_warm_up_start(feint_device_kind kind, int device_index, int local_rank) {
  const feint_backend_kind *kinds[FEINT_BACKEND_MAX_KINDS];
  const int n = feint_backend_kinds(kinds, FEINT_BACKEND_MAX_KINDS);
  for (int i = 0; i < n; i++)
    if (kinds[i]->warm_up_start && (kind == FEINT_DEVICE_AUTO || kinds[i]->device == kind))
      kinds[i]->warm_up_start(device_index, local_rank);
}

void feint_backend_warm_up_wait(void) {
  const feint_backend_kind *kinds[FEINT_BACKEND_MAX_KINDS];
  const int n = feint_backend_kinds(kinds, FEINT_BACKEND_MAX_KINDS);
  for (int i = 0; i < n; i++)
    if (kinds[i]->warm_up_wait) kinds[i]->warm_up_wait();
}

void feint_backend_transfer_seconds(double *h2d, double *d2h) {
  const feint_backend_kind *kinds[FEINT_BACKEND_MAX_KINDS];
  const int n = feint_backend_kinds(kinds, FEINT_BACKEND_MAX_KINDS);
  *h2d = *d2h = 0;
  for (int i = 0; i < n; i++)
    if (kinds[i]->transfer_seconds) {
      double h, d;
      kinds[i]->transfer_seconds(&h, &d);
      *h2d += h;
      *d2h += d;
    }
}

int feint_backend_show_default_device_only(int device_index) {
#ifdef FEINT_HAVE_CUDA
  const char *all = getenv("FEINT_CUDA_ALL_DEVICES");
  if (device_index >= 0 || getenv("CUDA_VISIBLE_DEVICES") || (all && strcmp(all, "1") == 0)) return 0;
  return setenv("CUDA_VISIBLE_DEVICES", "0", 0) == 0;
#else
  (void)device_index;
  return 0;
#endif
}

int feint_backend_rank_device(int local_rank) {
#ifdef FEINT_HAVE_CUDA
  const int n = feint_cuda_device_count();
  if (n > 0 && local_rank >= 0) return local_rank % n;
#else
  (void)local_rank;
#endif
  return -1;
}
