/* The backend registry (feint/backend.h): the built-in kinds by priority
 * (cuda before cpu), feint_backend_available answering as a kind's open
 * (with its reason), auto passing over a kind with its reason and taking
 * the next, an explicit request for a kind that cannot compute the problem
 * failing with the kind's reason, and kinds registered at run time: a fake
 * kind of higher priority is chosen by auto where it accepts the problem
 * and passed over, saying why, where it does not; one whose creation fails
 * is passed over too; a lower-priority one is never chosen by auto. Runs
 * without a GPU (where the cuda kind can open, the checks that need it
 * absent are skipped). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "feint/backend.h"
#include "feint/error.h"
#include "testmesh.h"

/* The fake kind: the cpu backend under another name, for order 1 only. */
static int fake_supports(const feint_problem *p, char *why, size_t size) {
  if (p->space->order == 1) return 1;
  snprintf(why, size, "the fake backend computes order 1 only, not %d", p->space->order);
  return 0;
}

static int fake_create(const feint_problem *p, int device_index, feint_backend **out) {
  (void)device_index;
  FEINT_CALL(feint_backend_cpu_create(p, out));
  (*out)->name = "fake";
  return FEINT_OK;
}

static int fake_create_fails(const feint_problem *p, int device_index, feint_backend **out) {
  (void)p;
  (void)device_index;
  *out = NULL;
  return feint_error_set(FEINT_ERR_COMPUTE, "fake device lost");
}

/* One quadrilateral: a problem the cuda kind does not compute. */
static feint_mesh *mesh_one_quad(void) {
  feint_mesh *m = calloc(1, sizeof *m);
  static const double x[4] = {0, 1, 1, 0}, y[4] = {0, 0, 1, 1};
  m->dim = 2;
  m->cell_type = FEINT_CELL_QUADRILATERAL;
  m->nv = 4;
  m->n_nodes = 4;
  m->x = malloc(sizeof x);
  m->y = malloc(sizeof y);
  m->z = calloc(4, sizeof(double));
  memcpy(m->x, x, sizeof x);
  memcpy(m->y, y, sizeof y);
  m->n_cells = 1;
  m->n_blocks = 1;
  m->blocks[0] = (feint_mesh_block){FEINT_CELL_QUADRILATERAL, 4, 0, 1, 0, 0};
  m->cells = malloc(4 * sizeof(int64_t));
  for (int k = 0; k < 4; k++) m->cells[k] = k;
  return m;
}

/* Create for p under `want`, keep the note, destroy; the status. */
static int create_note(feint_device_kind want, const feint_problem *p, char *note, size_t size, const char **name) {
  feint_backend *b = NULL;
  const int st = feint_backend_create(want, -1, p, &b, note, size);
  *name = "";
  if (b) {
    static char kept[32];
    snprintf(kept, sizeof kept, "%s", b->name);
    *name = kept;
  }
  feint_backend_destroy(b);
  return st;
}

/* feint_backend_show_default_device_only, before any CUDA call: it sets
 * CUDA_VISIBLE_DEVICES=0 only for the default device with the variable
 * unset and FEINT_CUDA_ALL_DEVICES not 1 (CUDA builds; else never). */
static void check_default_device_only(void) {
  const char *had = getenv("CUDA_VISIBLE_DEVICES");
  char keep[256] = "";
  if (had) snprintf(keep, sizeof keep, "%s", had);
#ifdef FEINT_HAVE_CUDA
  const int cuda = 1;
#else
  const int cuda = 0;
#endif
  unsetenv("CUDA_VISIBLE_DEVICES");
  unsetenv("FEINT_CUDA_ALL_DEVICES");
  CHECK(feint_backend_show_default_device_only(2) == 0 && !getenv("CUDA_VISIBLE_DEVICES"), "--device 2: left unset");
  setenv("FEINT_CUDA_ALL_DEVICES", "1", 1);
  CHECK(feint_backend_show_default_device_only(-1) == 0 && !getenv("CUDA_VISIBLE_DEVICES"),
        "FEINT_CUDA_ALL_DEVICES=1: left unset");
  unsetenv("FEINT_CUDA_ALL_DEVICES");
  setenv("CUDA_VISIBLE_DEVICES", "", 1);
  CHECK(feint_backend_show_default_device_only(-1) == 0 && !strcmp(getenv("CUDA_VISIBLE_DEVICES"), ""),
        "the user's (empty) setting kept");
  unsetenv("CUDA_VISIBLE_DEVICES");
  const int set = feint_backend_show_default_device_only(-1);
  const char *now = getenv("CUDA_VISIBLE_DEVICES");
  CHECK(set == cuda && (cuda ? now && !strcmp(now, "0") : !now), "default device: set %d, now %s", set,
        now ? now : "(unset)");
  if (had) setenv("CUDA_VISIBLE_DEVICES", keep, 1);
  else unsetenv("CUDA_VISIBLE_DEVICES");
  printf("ok CUDA_VISIBLE_DEVICES=0 for the default device only (%s build)\n", cuda ? "CUDA" : "CPU-only");
}

int main(void) {
  check_default_device_only();
  /* the built-in kinds, highest priority first */
  const feint_backend_kind *kinds[FEINT_BACKEND_MAX_KINDS];
  int n = feint_backend_kinds(kinds, FEINT_BACKEND_MAX_KINDS);
  CHECK(n == 2, "%d built-in kinds, expected cpu and cuda", n);
  CHECK(!strcmp(kinds[0]->name, "cuda") && !strcmp(kinds[1]->name, "cpu"), "order %s, %s", kinds[0]->name,
        kinds[1]->name);
  CHECK(kinds[0]->priority > kinds[1]->priority, "cuda's priority is not above cpu's");
  CHECK(feint_backend_kind_find("cpu") == kinds[1] && !feint_backend_kind_find("hip"), "find");
  char why[512];
  const int cuda_opens = kinds[0]->open(-1, why, sizeof why) == FEINT_OK;
  feint_error_clear();
  printf("cuda kind: %s\n", cuda_opens ? "opens (a GPU is visible)" : why);
  /* the same answer through the public question, with the same reason */
  char why2[512] = "";
  CHECK(feint_backend_available("cuda", why2, sizeof why2) == cuda_opens && (cuda_opens || !strcmp(why, why2)),
        "feint_backend_available(cuda): %s", why2);
  CHECK(feint_backend_available("cpu", NULL, 0) == 1, "the cpu kind is not available");
  CHECK(!feint_backend_available("hip", why2, sizeof why2) && strstr(why2, "hip"), "hip: %s", why2);

  feint_mesh *m = mesh_square(4);
  feint_space *s1 = NULL, *s2 = NULL;
  CHECK_OK(feint_space_create(m, 1, 1, &s1));
  CHECK_OK(feint_space_create(m, 2, 1, &s2));
  feint_form *f1 = make_form(FEINT_PW_POISSON, s1, 0), *f2 = make_form(FEINT_PW_POISSON, s2, 0);
  const feint_problem p1 = {s1, f1, NULL, FEINT_PRECISION_DOUBLE, FEINT_ASSEMBLY_COLORED, 0, 0, 0};
  const feint_problem p2 = {s2, f2, NULL, FEINT_PRECISION_DOUBLE, FEINT_ASSEMBLY_COLORED, 0, 0, 0};
  char note[1024];
  const char *name;

  /* auto without a GPU: cpu, saying why */
  if (!cuda_opens) {
    CHECK_OK(create_note(FEINT_DEVICE_AUTO, &p1, note, sizeof note, &name));
    CHECK(!strcmp(name, "cpu"), "auto chose %s", name);
    CHECK(!strcmp(note, "backend auto: no GPU found; using the cpu backend"), "note '%s'", note);
    printf("auto: %s\n", note);
    CHECK(create_note(FEINT_DEVICE_CUDA, &p1, note, sizeof note, &name) == FEINT_ERR_INPUT, "cuda without a GPU");
    CHECK(strstr(feint_error_message(), "backend cuda asked for, but ") != NULL, "'%s'", feint_error_message());
    printf("--backend cuda: %s\n", feint_error_message());
    feint_error_clear();
  }

  /* an explicit request for a problem the kind does not compute: its reason */
  feint_mesh *mq = mesh_one_quad();
  feint_space *sq = NULL;
  CHECK_OK(feint_space_create(mq, 15, 3, &sq)); /* 768 dofs a cell: past the user-form kernels' */
  feint_form *fq = make_form(FEINT_PW_POISSON, sq, 0);
  const feint_problem pq = {sq, fq, NULL, FEINT_PRECISION_DOUBLE, FEINT_ASSEMBLY_COLORED, 0, 0, 0};
  const feint_backend_kind *k = NULL;
  CHECK(feint_backend_choose(FEINT_DEVICE_CUDA, -1, &pq, &k, NULL, 0) == FEINT_ERR_INPUT && !k, "cuda took quads");
  CHECK(!strcmp(feint_error_message(),
                "built-in kinds on quadrilaterals and hexahedra run on the cuda backend through the user-form kernels, "
                "which do not take this problem (quadrilaterals of order 15, 3 components: the user-form kernels take up "
                "to 512 local dofs a cell, not 768; use --backend cpu)"),
        "'%s'", feint_error_message());
  printf("--backend cuda on quadrilaterals: %s\n", feint_error_message());
  feint_error_clear();
  CHECK_OK(feint_backend_choose(FEINT_DEVICE_AUTO, -1, &pq, &k, note, sizeof note));
  CHECK(k == kinds[1], "auto chose %s for quadrilaterals", k->name);
  printf("auto on quadrilaterals: %s\n", note);

  /* a fake kind above cuda: chosen where it accepts, passed over with its reason where not */
  const feint_backend_kind fake = {.name = "fake", .priority = 30, .supports = fake_supports, .create = fake_create};
  CHECK_OK(feint_backend_register(&fake));
  CHECK(feint_backend_register(&fake) == FEINT_ERR_INPUT, "fake registered twice");
  feint_error_clear();
  n = feint_backend_kinds(kinds, FEINT_BACKEND_MAX_KINDS);
  CHECK(n == 3 && kinds[0] == &fake, "fake is not first by priority");
  CHECK_OK(create_note(FEINT_DEVICE_AUTO, &p1, note, sizeof note, &name));
  CHECK(!strcmp(name, "fake") && !strcmp(note, "backend auto: using the fake backend"), "%s: '%s'", name, note);
  printf("auto with fake, order 1: %s\n", note);
  CHECK_OK(create_note(FEINT_DEVICE_AUTO, &p2, note, sizeof note, &name));
  CHECK(strcmp(name, "fake") && strstr(note, "the fake backend computes order 1 only, not 2; ") == note + 14,
        "%s: '%s'", name, note);
  if (!cuda_opens)
    CHECK(!strcmp(note, "backend auto: the fake backend computes order 1 only, not 2; no GPU found; using the "
                        "cpu backend"),
          "'%s'", note);
  printf("auto with fake, order 2: %s\n", note);
  feint_backend_unregister(&fake);
  CHECK(feint_backend_kinds(kinds, FEINT_BACKEND_MAX_KINDS) == 2, "fake not unregistered");

  /* one whose creation fails is passed over, saying why */
  const feint_backend_kind broken = {.name = "broken", .priority = 40, .create = fake_create_fails};
  CHECK_OK(feint_backend_register(&broken));
  CHECK_OK(create_note(FEINT_DEVICE_AUTO, &p1, note, sizeof note, &name));
  CHECK(strcmp(name, "broken") && strstr(note, "backend auto: broken unavailable (fake device lost); ") == note,
        "%s: '%s'", name, note);
  printf("auto with a failing kind: %s\n", note);
  feint_backend_unregister(&broken);

  /* below cpu: never chosen by auto */
  const feint_backend_kind low = {.name = "low", .priority = 1, .supports = fake_supports, .create = fake_create};
  CHECK_OK(feint_backend_register(&low));
  CHECK_OK(create_note(FEINT_DEVICE_AUTO, &p1, note, sizeof note, &name));
  CHECK(strcmp(name, "low"), "auto chose the lowest priority");
  feint_backend_unregister(&low);

  /* what the cpu backend reports, and the symbolic phase through the registry */
  feint_backend *b = NULL;
  CHECK_OK(feint_backend_create(FEINT_DEVICE_CPU, -1, &p1, &b, NULL, 0));
  feint_backend_info info;
  CHECK_OK(feint_backend_info_get(b, &info));
  CHECK(info.precision == FEINT_PRECISION_DOUBLE && !info.n_colors && !info.kernel[0] && !info.setup_steps[0] &&
            !b->integrate_facets,
        "cpu info");
  feint_backend_destroy(b);
  feint_plan *pa = NULL, *pb = NULL;
  char steps[200];
  CHECK_OK(feint_backend_create_plan(FEINT_DEVICE_CPU, -1, &p1, &pa, steps, sizeof steps));
  CHECK_OK(feint_plan_create(s1, &pb));
  CHECK(pa->nnz == pb->nnz && !memcmp(pa->indptr, pb->indptr, sizeof(int64_t) * (size_t)(pa->n_rows + 1)) &&
            !steps[0],
        "the cpu kind's plan differs from feint_plan_create's");
  feint_plan_destroy(pa);
  feint_plan_destroy(pb);
  if (!cuda_opens) {
    double h2d = 1, d2h = 1;
    feint_backend_transfer_seconds(&h2d, &d2h);
    CHECK(h2d == 0 && d2h == 0, "transfers without a device");
  }

  feint_form_destroy(fq);
  feint_space_destroy(sq);
  mesh_free(mq);
  feint_form_destroy(f1);
  feint_form_destroy(f2);
  feint_space_destroy(s1);
  feint_space_destroy(s2);
  mesh_free(m);
  return check_report("t400-backend-registry");
}
