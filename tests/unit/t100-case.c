/* Case loading: every field, defaults, overrides, error messages with
 * file:line:col and suggestions, as_run round trip. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "feint/case.h"
#include "feint/error.h"
#include "feint/sha256.h"

static char dir[64];
static char paths[32][256];
static int n_paths;

static const char *write_file(const char *name, const char *text) {
  char *p = paths[n_paths < 32 ? n_paths++ : 31];
  snprintf(p, 256, "%s/%s", dir, name);
  FILE *f = fopen(p, "wb");
  if (!f) {
    perror(p);
    exit(1);
  }
  fputs(text, f);
  fclose(f);
  return p;
}

static feint_case *load_ok(const char *text, int n, const char *const *ov) {
  const char *p = write_file("ok.yaml", text);
  feint_case *c = NULL;
  int s = feint_case_load(p, n, ov, &c);
  CHECK(s == FEINT_OK && c, "load failed: %s", feint_error_message());
  return c;
}

/* Load must fail with FEINT_ERR_INPUT and a message containing every
 * non-NULL needle. */
static void expect_error(int line, const char *text, int n, const char *const *ov,
                         const char *needle1, const char *needle2) {
  const char *p = write_file("bad.yaml", text);
  feint_case *c = NULL;
  feint_error_clear();
  int s = feint_case_load(p, n, ov, &c);
  const char *m = feint_error_message();
  if (s != FEINT_ERR_INPUT || c) {
    fprintf(stderr, "t100:%d: expected an input error, got status %d (%s)\n", line, s, m);
    check_failures++;
    feint_case_destroy(c);
    return;
  }
  if ((needle1 && !strstr(m, needle1)) || (needle2 && !strstr(m, needle2))) {
    fprintf(stderr, "t100:%d: message '%s' lacks '%s' / '%s'\n", line, m,
            needle1 ? needle1 : "", needle2 ? needle2 : "");
    check_failures++;
  }
}
#define EXPECT_ERROR(text, n, ov, a, b) expect_error(__LINE__, text, n, ov, a, b)

static const char *full_case =
    "mesh:\n"                                        /* 1 */
    "  file: box.msh\n"                              /* 2 */
    "  size: 0.05\n"                                 /* 3 */
    "  region: [domain, other]\n"                    /* 4 */
    "space:\n"                                       /* 5 */
    "  order: 2\n"                                   /* 6 */
    "  components: 3\n"                              /* 7 */
    "quadrature:\n"                                  /* 8 */
    "  degree: 4\n"                                  /* 9 */
    "physics:\n"                                     /* 10 */
    "  kind: elasticity\n"                           /* 11 */
    "  kappa: 2.5\n"                                 /* 12 */
    "  lambda: \"x*y\"\n"                            /* 13 */
    "  E: {file: data.h5, dataset: /E, on: cell}\n"  /* 14 */
    "  nu: 0.3\n"                                    /* 15 */
    "  velocity: [1, 0, \"z\"]\n"                    /* 16 */
    "  tensor: [[1,0,0],[0,2,0],[0,0,3]]\n"          /* 17 */
    "  source: [0, 0, \"-9.81\"]\n"                  /* 18 */
    "state:\n"                                       /* 19 */
    "  u: [x, 0, 1e-3]\n"                            /* 20 */
    "boundary:\n"                                    /* 21 */
    "  - {group: walls, dirichlet: [0, 0, 0]}\n"     /* 22 */
    "  - group: top\n"                               /* 23 */
    "    neumann: 1.0\n"                             /* 24 */
    "output:\n"                                      /* 25 */
    "  file: out.h5\n"                               /* 26 */
    "  residual: false\n"                            /* 27 */
    "  matrix: yes\n"                                /* 28 */
    "  rhs: no\n"                                    /* 29 */
    "  element_matrices: true\n"                     /* 30 */
    "backend:\n"                                     /* 31 */
    "  device: cuda\n"                               /* 32 */
    "  precision: single\n"                          /* 33 */
    "  cuda: {blocks_per_batch: 32, batches_per_chunk: 8}\n" /* 34 */
    "assembly:\n"                                    /* 35 */
    "  strategy: gather\n";                          /* 36 */

static int is_const(const feint_value *v, double x) {
  return v->kind == FEINT_VALUE_CONSTANT && v->constant == x;
}
static int is_expr(const feint_value *v, const char *e) {
  return v->kind == FEINT_VALUE_EXPRESSION && v->expression && !strcmp(v->expression, e);
}

static char *in_dir(const char *name) {
  static char buf[4][256];
  static int k;
  char *b = buf[k++ % 4];
  snprintf(b, 256, "%s/%s", dir, name);
  return b;
}

/* Checks every field of the full case (also used after the round trip). */
static void check_full(const feint_case *c, const char *tag) {
  CHECK(!strcmp(c->mesh_file, in_dir("box.msh")), "%s: mesh_file %s", tag, c->mesh_file);
  CHECK_CLOSE(c->mesh_size, 0.05, 0);
  CHECK(c->n_region == 2 && !strcmp(c->region[0], "domain") && !strcmp(c->region[1], "other"),
        "%s: region", tag);
  CHECK(c->order == 2 && c->components == 3 && c->quadrature_degree == 4, "%s: space", tag);
  CHECK(c->physics == FEINT_PHYSICS_ELASTICITY, "%s: physics", tag);
  CHECK(is_const(&c->kappa, 2.5), "%s: kappa", tag);
  CHECK(is_expr(&c->lambda, "x*y"), "%s: lambda", tag);
  CHECK(c->E.kind == FEINT_VALUE_DATASET && !strcmp(c->E.file, in_dir("data.h5")) &&
            !strcmp(c->E.dataset, "/E") && c->E.on_cells == 1,
        "%s: E", tag);
  CHECK(is_const(&c->nu, 0.3), "%s: nu", tag);
  CHECK(c->lame_lambda.kind == FEINT_VALUE_NONE && c->lame_mu.kind == FEINT_VALUE_NONE,
        "%s: lame", tag);
  CHECK(c->velocity.n == 3 && is_const(&c->velocity.c[0], 1) && is_const(&c->velocity.c[1], 0) &&
            is_expr(&c->velocity.c[2], "z"),
        "%s: velocity", tag);
  CHECK(c->tensor.n == 9, "%s: tensor n %d", tag, c->tensor.n);
  for (int i = 0; i < 9; i++)
    CHECK(is_const(&c->tensor.c[i], i % 4 == 0 ? i / 4 + 1 : 0), "%s: tensor[%d]", tag, i);
  CHECK(c->source.n == 3 && is_const(&c->source.c[0], 0) && is_expr(&c->source.c[2], "-9.81"),
        "%s: source (quoted number is an expression)", tag);
  CHECK(c->state_u.n == 3 && is_expr(&c->state_u.c[0], "x") && is_const(&c->state_u.c[2], 1e-3),
        "%s: state.u", tag);
  CHECK(c->n_boundary == 2, "%s: n_boundary %d", tag, c->n_boundary);
  if (c->n_boundary == 2) {
    CHECK(!strcmp(c->boundary[0].group, "walls") && c->boundary[0].dirichlet.n == 3 &&
              c->boundary[0].neumann.n == 0,
          "%s: boundary 0", tag);
    CHECK(!strcmp(c->boundary[1].group, "top") && c->boundary[1].neumann.n == 1 &&
              is_const(&c->boundary[1].neumann.c[0], 1.0) && c->boundary[1].dirichlet.n == 0,
          "%s: boundary 1", tag);
  }
  CHECK(!strcmp(c->output_file, in_dir("out.h5")), "%s: output %s", tag, c->output_file);
  CHECK(!c->write_residual && c->write_matrix && !c->write_rhs && c->write_element_matrices,
        "%s: output flags", tag);
  CHECK(c->device == FEINT_DEVICE_CUDA && c->precision == FEINT_PRECISION_SINGLE, "%s: backend",
        tag);
  CHECK(c->blocks_per_batch == 32 && c->batches_per_chunk == 8, "%s: cuda", tag);
  CHECK(c->strategy == FEINT_ASSEMBLY_GATHER, "%s: strategy", tag);
}

static void test_full(void) {
  feint_case *c = load_ok(full_case, 0, NULL);
  if (!c) return;
  check_full(c, "full");
  /* where fields */
  char want[300];
  snprintf(want, sizeof want, "%s:2:9", in_dir("ok.yaml"));
  CHECK(!strcmp(c->mesh_where, want), "mesh_where %s, want %s", c->mesh_where, want);
  snprintf(want, sizeof want, "%s:12:10", in_dir("ok.yaml"));
  CHECK(!strcmp(c->kappa.where, want), "kappa.where %s, want %s", c->kappa.where, want);
  snprintf(want, sizeof want, "%s:16:20", in_dir("ok.yaml"));
  CHECK(!strcmp(c->velocity.c[2].where, want), "velocity[2].where %s", c->velocity.c[2].where);
  snprintf(want, sizeof want, "%s:4:11", in_dir("ok.yaml"));
  CHECK(!strcmp(c->region_where, want), "region_where %s", c->region_where);
  snprintf(want, sizeof want, "%s:11:9", in_dir("ok.yaml"));
  CHECK(!strcmp(c->physics_where, want), "physics_where %s", c->physics_where);
  snprintf(want, sizeof want, "%s:23:5", in_dir("ok.yaml"));
  CHECK(!strcmp(c->boundary[1].where, want), "boundary[1].where %s", c->boundary[1].where);
  /* path, hash */
  CHECK(!strcmp(c->path, in_dir("ok.yaml")), "path %s", c->path);
  char hex[65];
  CHECK_OK(feint_sha256_file(in_dir("ok.yaml"), hex));
  CHECK(!strcmp(c->sha256, hex), "sha256 %s vs %s", c->sha256, hex);
  CHECK(strlen(c->sha256) == 64, "sha256 length");
  CHECK(!strcmp(feint_physics_name(c->physics), "elasticity"), "physics name");
  feint_case_destroy(c);
}

static const char *minimal = "mesh: {file: m.msh}\nphysics: {kind: poisson}\n";

static void test_defaults(void) {
  feint_case *c = load_ok(minimal, 0, NULL);
  if (!c) return;
  CHECK(!strcmp(c->mesh_file, in_dir("m.msh")), "mesh_file %s", c->mesh_file);
  CHECK(c->mesh_size == 0 && c->n_region == 0 && c->region == NULL, "mesh defaults");
  CHECK(c->order == 1 && c->components == 1 && c->quadrature_degree == -1, "space defaults");
  CHECK(c->physics == FEINT_PHYSICS_POISSON, "physics");
  CHECK(is_const(&c->kappa, 1) && is_const(&c->lambda, 1), "kappa/lambda default 1");
  CHECK(c->E.kind == FEINT_VALUE_NONE && c->velocity.n == 0 && c->tensor.n == 0 &&
            c->source.n == 0 && c->state_u.n == 0,
        "absent values");
  CHECK(c->n_boundary == 0 && c->boundary == NULL, "boundary");
  CHECK(!strcmp(c->output_file, in_dir("ok.h5")), "output default %s", c->output_file);
  CHECK(c->write_residual && c->write_matrix && c->write_rhs && !c->write_element_matrices,
        "output flag defaults");
  CHECK(c->device == FEINT_DEVICE_AUTO && c->precision == FEINT_PRECISION_DOUBLE &&
            c->blocks_per_batch == 0 && c->batches_per_chunk == 0 && c->cache == 1 &&
            c->strategy == FEINT_ASSEMBLY_COLORED,
        "backend defaults");
  CHECK(c->as_run && strstr(c->as_run, "m.msh"), "as_run %s", c->as_run ? c->as_run : "");
  feint_case_destroy(c);

  /* elasticity without components: 0 (= the mesh dimension, decided later) */
  c = load_ok("mesh: {file: m.msh}\nphysics: {kind: elasticity, lame_lambda: 1, lame_mu: 2}\n",
              0, NULL);
  if (c) {
    CHECK(c->components == 0, "elasticity components %d", c->components);
    CHECK(is_const(&c->lame_mu, 2), "lame_mu");
    feint_case_destroy(c);
  }
  /* null keys are absent; empty file name without extension gets .h5 */
  const char *p = write_file("noext", "mesh: {file: /abs/m.msh}\nphysics:\n  kind: mass\n"
                                      "  source: ~\noutput:\nspace: {order: 7}\n");
  CHECK_OK(feint_case_load(p, 0, NULL, &c));
  CHECK(!strcmp(c->mesh_file, "/abs/m.msh"), "absolute mesh path %s", c->mesh_file);
  CHECK(!strcmp(c->output_file, in_dir("noext.h5")), "output %s", c->output_file);
  CHECK(c->source.n == 0 && c->physics == FEINT_PHYSICS_MASS && c->order == 7, "null source");
  feint_case_destroy(c);

  /* alias */
  c = load_ok("mesh: {file: m.msh}\nphysics: {kind: helmholtz, kappa: &k 2, lambda: *k}\n", 0,
              NULL);
  if (c) {
    CHECK(is_const(&c->kappa, 2) && is_const(&c->lambda, 2), "alias");
    feint_case_destroy(c);
  }
}

static void test_overrides(void) {
  const char *ov[] = {"physics.kappa=10",
                      "state.u=\"x*y\"",
                      "mesh.region=[inner,outer]",
                      "backend.cuda.blocks_per_batch=16",
                      "backend.cache=false",
                      "physics.source=null",
                      "boundary.0.dirichlet=\"x\"",
                      "output.file=res/o.h5",
                      "space.order=3"};
  const char *text = "mesh: {file: m.msh, region: all}\n"
                     "physics: {kind: poisson, kappa: 1, source: 5}\n"
                     "boundary:\n  - {group: g, dirichlet: 0}\n";
  feint_case *c = load_ok(text, 9, ov);
  if (!c) return;
  CHECK(is_const(&c->kappa, 10), "kappa override");
  CHECK(c->state_u.n == 1 && is_expr(&c->state_u.c[0], "x*y"), "state.u override");
  CHECK(!strcmp(c->state_u.c[0].where, "--set state.u=\"x*y\""), "where %s", c->state_u.c[0].where);
  CHECK(c->n_region == 2 && !strcmp(c->region[0], "inner") && !strcmp(c->region[1], "outer"),
        "region override");
  CHECK(c->blocks_per_batch == 16 && c->batches_per_chunk == 0, "nested new key");
  CHECK(c->cache == 0, "backend.cache override");
  CHECK(c->source.n == 0, "unset source");
  CHECK(c->n_boundary == 1 && c->boundary[0].dirichlet.n == 1 &&
            is_expr(&c->boundary[0].dirichlet.c[0], "x"),
        "indexed override");
  CHECK(!strcmp(c->output_file, in_dir("res/o.h5")), "output %s", c->output_file);
  CHECK(c->order == 3, "order");
  /* as_run holds the overrides */
  CHECK(strstr(c->as_run, "blocks_per_batch: 16") != NULL, "as_run: %s", c->as_run);
  CHECK(strstr(c->as_run, "kappa: 10") != NULL, "as_run: %s", c->as_run);
  /* later overrides win */
  feint_case_destroy(c);
  const char *ov2[] = {"physics.kappa=10", "physics.kappa=20"};
  c = load_ok(text, 2, ov2);
  if (c) {
    CHECK(is_const(&c->kappa, 20), "last override wins");
    feint_case_destroy(c);
  }
}

static void test_errors(void) {
  char where[300];
  /* unknown key with suggestion, at the key's line:col */
  snprintf(where, sizeof where, "%s:3:3:", in_dir("bad.yaml"));
  EXPECT_ERROR("mesh: {file: m.msh}\nphysics:\n  kapa: 1\n  kind: poisson\n", 0, NULL, where,
               "unknown key 'kapa' in physics; did you mean 'kappa'?");
  snprintf(where, sizeof where, "%s:2:1:", in_dir("bad.yaml"));
  EXPECT_ERROR("mesh: {file: m.msh}\nphysic: {kind: poisson}\n", 0, NULL, where,
               "did you mean 'physics'?");
  EXPECT_ERROR("mesh: {file: m.msh, zzzzzz: 1}\nphysics: {kind: poisson}\n", 0, NULL,
               "unknown key 'zzzzzz' in mesh", "valid keys: file, size, refine, region");
  EXPECT_ERROR("mesh: {file: m.msh}\nphysics: {kind: poisson}\nbackend: {cuda: {block_per_batch: "
               "3}}\n",
               0, NULL, "in backend.cuda; did you mean 'blocks_per_batch'?", ":3:18:");
  {
    const char *ov[] = {"physics.kapa=1"};
    EXPECT_ERROR(minimal, 1, ov,
                 "--set physics.kapa=1: unknown key 'kapa' in physics; did you mean 'kappa'?",
                 NULL);
  }
  /* malformed YAML */
  snprintf(where, sizeof where, "%s:4:8:", in_dir("bad.yaml"));
  EXPECT_ERROR("mesh:\n  file: m.msh\n  size: [1, 2\nphysics: {kind: poisson}\n", 0, NULL, where,
               "malformed YAML: did not find expected ',' or ']' while parsing a flow sequence started at 3:9");
  snprintf(where, sizeof where, "%s:2:", in_dir("bad.yaml"));
  EXPECT_ERROR("mesh: {file: m.msh}\n  bad: indent\n", 0, NULL, where, "malformed YAML: ");
  EXPECT_ERROR("mesh: {file: m.msh}\nmesh: {file: n.msh}\nphysics: {kind: mass}\n", 0, NULL,
               ":2:1: malformed YAML: duplicate key 'mesh'", NULL);
  {
    const char *ov[] = {"physics.kappa=[1"};
    EXPECT_ERROR(minimal, 1, ov, "--set physics.kappa=[1: malformed YAML value", NULL);
  }
  {
    const char *ov[] = {"physics.kappa"};
    EXPECT_ERROR(minimal, 1, ov, "--set physics.kappa: expected key.path=value", NULL);
  }
  {
    const char *ov[] = {"mesh.file.x=1"};
    EXPECT_ERROR(minimal, 1, ov, "--set mesh.file.x=1: 'mesh.file' is not a mapping", NULL);
  }
  {
    const char *ov[] = {"physics.kappa="}; /* an unset shell variable, most likely */
    EXPECT_ERROR(minimal, 1, ov, "--set physics.kappa=: empty value (to unset the key, write physics.kappa=null)",
                 NULL);
  }
  {
    const char *ov[] = {"physics..kappa=1"};
    EXPECT_ERROR(minimal, 1, ov, "--set physics..kappa=1: empty component", NULL);
  }
  /* wrong types */
  snprintf(where, sizeof where, "%s:2:33:", in_dir("bad.yaml"));
  EXPECT_ERROR("mesh: {file: m.msh}\nphysics: {kind: poisson, kappa: [1, 2]}\n", 0, NULL, where,
               "physics.kappa: expected a number, an expression string, {file, dataset, on} or {groups, default}, "
               "got a sequence");
  EXPECT_ERROR("mesh: {file: m.msh}\nphysics: {kind: poisson}\nspace: {order: 2.5}\n", 0, NULL,
               ":3:16: space.order: expected an integer, got '2.5'", NULL);
  EXPECT_ERROR("mesh: {file: m.msh}\nphysics: {kind: poisson}\nspace: {order: 16}\n", 0, NULL,
               "space.order: 16 is out of range 1..15", NULL);
  EXPECT_ERROR("mesh: {file: m.msh}\nphysics: {kind: poisson}\nspace: {order: \"2\"}\n", 0, NULL,
               "space.order: expected an integer, got the string \"2\"", NULL);
  /* up to the hexahedra's rules (the form checks the mesh's own cells) */
  EXPECT_ERROR("mesh: {file: m.msh}\nphysics: {kind: poisson}\nquadrature: {degree: 48}\n", 0,
               NULL, ":3:22: quadrature.degree: 48 is out of range 0..47", NULL);
  EXPECT_ERROR("mesh: {file: m.msh}\nphysics: {kind: poisson}\noutput: {matrix: maybe}\n", 0,
               NULL, "output.matrix: expected true or false, got 'maybe'", NULL);
  EXPECT_ERROR("mesh: {file: m.msh}\nphysics: {kind: poisson}\nbackend: {device: gpu}\n", 0, NULL,
               ":3:19: backend.device: expected one of auto, cpu, cuda, got 'gpu'", NULL);
  EXPECT_ERROR("mesh: {file: m.msh}\nphysics: {kind: poison}\n", 0, NULL,
               "physics.kind: expected one of poisson, mass", NULL);
  EXPECT_ERROR("mesh: {file: m.msh, region: {a: 1}}\nphysics: {kind: poisson}\n", 0, NULL,
               "mesh.region: expected a group name or a list of group names, got a mapping", NULL);
  EXPECT_ERROR("mesh: {file: m.msh, size: -1}\nphysics: {kind: poisson}\n", 0, NULL,
               "mesh.size: must be > 0", NULL);
  EXPECT_ERROR("mesh: {file: m.msh}\nphysics: {kind: diffusion, tensor: [[1,0],[0,1,0]]}\n", 0,
               NULL, "physics.tensor[1]: expected a row of 2 values", NULL);
  EXPECT_ERROR("mesh: {file: m.msh}\nphysics: {kind: advection, velocity: [1,2,3,4]}\n", 0, NULL,
               "physics.velocity: expected a list of 1 to 3 values", NULL);
  EXPECT_ERROR("mesh: {file: m.msh}\nphysics: {kind: poisson, kappa: {file: missing.h5, dataset: k, on: cell}}\n",
               0, NULL, "bad.yaml:2:", "physics.kappa.file: cannot read HDF5 file");
  EXPECT_ERROR("mesh: {file: m.msh}\nphysics: {kind: poisson, kappa: {file: k.h5, dataset: k}}\n",
               0, NULL, "missing required key physics.kappa.on", NULL);
  EXPECT_ERROR("mesh: {file: m.msh}\nphysics: {kind: poisson, kappa: {file: k.h5, dataset: k, "
               "on: edge}}\n",
               0, NULL, "physics.kappa.on: expected one of cell, node, got 'edge'", NULL);
  EXPECT_ERROR("mesh: {file: m.msh}\nphysics: {kind: poisson}\nboundary: {group: a}\n", 0, NULL,
               "boundary: expected a list", NULL);
  EXPECT_ERROR("- a\n- b\n", 0, NULL, ":1:1: case: expected a mapping of sections", NULL);
  {
    const char *ov[] = {"physics.kappa=[1,2]"};
    EXPECT_ERROR(minimal, 1, ov, "--set physics.kappa=[1,2]: physics.kappa: expected", NULL);
  }
  /* missing required keys */
  snprintf(where, sizeof where, "%s:1:1: missing required key mesh.file", in_dir("bad.yaml"));
  EXPECT_ERROR("physics: {kind: poisson}\n", 0, NULL, where, NULL);
  EXPECT_ERROR("", 0, NULL, where, NULL);
  EXPECT_ERROR("physics: {kind: poisson}\nmesh:\n  size: 1\n", 0, NULL,
               ":2:1: missing required key mesh.file", NULL);
  EXPECT_ERROR("mesh: {file: m.msh}\n", 0, NULL, "missing required key physics.kind", NULL);
  EXPECT_ERROR("mesh: {file: m.msh}\nphysics: {kind: poisson}\nboundary:\n  - {dirichlet: 0}\n",
               0, NULL, ":4:5: missing required key boundary[0].group", NULL);
  EXPECT_ERROR("mesh: {file: m.msh}\nphysics: {kind: poisson}\nboundary:\n  - {group: a}\n", 0,
               NULL, "boundary[0]: give dirichlet or neumann", NULL);
  /* physics-specific */
  EXPECT_ERROR("mesh: {file: m.msh}\nphysics: {kind: elasticity, E: 1}\n", 0, NULL,
               "physics: elasticity needs E and nu, or lame_lambda and lame_mu", NULL);
  EXPECT_ERROR("mesh: {file: m.msh}\nphysics: {kind: elasticity, E: 1, nu: 0.3, lame_mu: 1}\n", 0,
               NULL, "not both", NULL);
  EXPECT_ERROR("mesh: {file: m.msh}\nphysics: {kind: advection}\n", 0, NULL,
               "physics: advection needs velocity", NULL);
  EXPECT_ERROR("mesh: {file: m.msh}\nphysics: {kind: diffusion}\n", 0, NULL,
               "physics: diffusion needs tensor", NULL);
  /* sweep (members: t102-sweep) */
  snprintf(where, sizeof where, "%s:3:1: sweep: give exactly one of product or list", in_dir("bad.yaml"));
  EXPECT_ERROR("mesh: {file: m.msh}\nphysics: {kind: poisson}\nsweep:\n  output: x{index}.h5\n", 0,
               NULL, where, NULL);
  /* unreadable file */
  feint_case *c = NULL;
  CHECK(feint_case_load(in_dir("does-not-exist.yaml"), 0, NULL, &c) == FEINT_ERR_INPUT && !c,
        "missing file");
  CHECK(strstr(feint_error_message(), "does-not-exist.yaml") != NULL, "%s",
        feint_error_message());
}

static void test_round_trip(void) {
  const char *ov[] = {"physics.kappa=10", "mesh.region=[\"a: b\", \"#c\", \"1\", \"\"]",
                      "physics.nu=\"y\""}; /* y: a YAML 1.1 boolean unquoted, an expression here */
  feint_case *c = load_ok(full_case, 3, ov);
  if (!c) return;
  const char *p = write_file("as_run.yaml", c->as_run);
  feint_case *d = NULL;
  int s = feint_case_load(p, 0, NULL, &d);
  CHECK(s == FEINT_OK, "reloading as_run failed: %s\n%s", feint_error_message(), c->as_run);
  if (d) {
    CHECK(is_const(&d->kappa, 10), "kappa after round trip");
    CHECK(is_expr(&d->nu, "y"), "quoted y stays a string");
    CHECK(d->n_region == 4 && !strcmp(d->region[0], "a: b") && !strcmp(d->region[1], "#c") &&
              !strcmp(d->region[2], "1") && !strcmp(d->region[3], ""),
          "regions after round trip\n%s", c->as_run);
    /* everything else as in the full case */
    feint_case *e = load_ok(full_case, 0, NULL);
    if (e) {
      const char *p2 = write_file("as_run2.yaml", e->as_run);
      feint_case *f = NULL;
      CHECK_OK(feint_case_load(p2, 0, NULL, &f));
      check_full(f, "round trip");
      /* emitting again gives the same text */
      CHECK(!strcmp(e->as_run, f->as_run), "as_run not stable:\n%s---\n%s", e->as_run,
            f->as_run);
      feint_case_destroy(f);
      feint_case_destroy(e);
    }
    feint_case_destroy(d);
  }
  feint_case_destroy(c);
}

static void test_paths_and_stdin(void) {
  char sub[256];
  snprintf(sub, sizeof sub, "%s/sub", dir);
  CHECK(mkdir(sub, 0700) == 0, "mkdir");
  const char *p = write_file("sub/case.v1.yaml", minimal);
  feint_case *c = NULL;
  CHECK_OK(feint_case_load(p, 0, NULL, &c));
  CHECK(!strcmp(c->mesh_file, in_dir("sub/m.msh")), "mesh %s", c->mesh_file);
  CHECK(!strcmp(c->output_file, in_dir("sub/case.v1.h5")), "output %s", c->output_file);
  feint_case_destroy(c);

  /* stdin: paths relative to the current directory, feint-out.h5 */
  p = write_file("stdin.yaml", "mesh: {file: m.msh}\nphysics: {kind: poisson, kapa: 1}\n");
  CHECK(freopen(p, "r", stdin) != NULL, "freopen");
  CHECK(feint_case_load("-", 0, NULL, &c) == FEINT_ERR_INPUT, "stdin error");
  CHECK(strstr(feint_error_message(), "<stdin>:2:26: unknown key 'kapa'") != NULL, "%s",
        feint_error_message());
  p = write_file("stdin.yaml", minimal);
  CHECK(freopen(p, "r", stdin) != NULL, "freopen");
  CHECK_OK(feint_case_load("-", 0, NULL, &c));
  CHECK(!strcmp(c->mesh_file, "m.msh") && !strcmp(c->output_file, "feint-out.h5") &&
            !strcmp(c->path, "-"),
        "stdin paths %s %s", c->mesh_file, c->output_file);
  char hex[65];
  CHECK_OK(feint_sha256_file(p, hex));
  CHECK(!strcmp(hex, c->sha256), "stdin sha256");
  feint_case_destroy(c);
}

int main(void) {
  snprintf(dir, sizeof dir, "/tmp/feint-t100-XXXXXX");
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  /* the datasets the cases name must be readable files (their contents are read with the mesh) */
  write_file("data.h5", "");
  write_file("k.h5", "");
  test_full();
  test_defaults();
  test_overrides();
  test_errors();
  test_round_trip();
  test_paths_and_stdin();
  CHECK(!strcmp(feint_physics_name(FEINT_PHYSICS_DIFFUSION), "diffusion"), "name");
  CHECK(!strcmp(feint_physics_name(FEINT_PHYSICS_POISSON), "poisson"), "name");
  if (!check_failures) {
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
  } else {
    fprintf(stderr, "files kept in %s\n", dir);
  }
  return check_report("t100-case");
}
