/* The CUDA source of user forms (src/backend/cuda/form_source.h; issue 19),
 * on the CPU in every build:
 * - two cases that differ only in their parameters and in the value of a
 *   constant coefficient give the same source, byte for byte (so the same
 *   cache key: the key is the source's with the same options), and none
 *   of those values appears in it; the values are the kernel argument
 *   `constants` (parameters, then the constant coefficients);
 * - a changed expression, a coefficient of another kind, another order
 *   (basis functions) give another source;
 * - each expression is spliced with a #line naming its case key, the
 *   derived Jacobian blocks under their block names, and no block the
 *   form does not have;
 * - the tables' layout (weights, basis, gradients, vertex shape values).
 * In an nvcc build with NVRTC found (no GPU needed: sm_90): every source
 * above compiles, with the form backend's options, and the two cases
 * differing in parameters give the same cache key, the changed expression
 * another; a broken expression's NVRTC log names its case key (#line).
 * The same forms spliced into the P1 templates (p1_form.cuh, with feint's
 * embedded device headers) compile too, in double and single storage,
 * with and without coefficients, 1 to 3 components. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/cuda/form_source.h"
#include "check.h"
#include "feint/case.h"
#include "feint/error.h"
#include "feint/userform.h"
#ifdef FEINT_HAVE_CUDA
#include "backend/cuda/jit.h"
#include "backend/cuda/jit_headers.h"
#endif

static char dir[64];

/* A form of case text (physics kind form) on a mesh of dimension dim. */
static feint_user_form *form_of(const char *text, int dim) {
  char path[128];
  snprintf(path, sizeof path, "%s/case.yaml", dir);
  FILE *f = fopen(path, "wb");
  CHECK(f != NULL, "cannot write %s", path);
  if (!f) exit(1);
  fputs(text, f);
  fclose(f);
  feint_case *c = NULL;
  CHECK_OK(feint_case_load(path, 0, NULL, &c));
  feint_user_form *uf = NULL;
  CHECK_OK(feint_user_form_create(c, dim, &uf));
  feint_case_destroy(c);
  return uf;
}

static char *source_of(const feint_user_form *uf, const feint_form_cuda_layout *L) {
  char *s = NULL;
  CHECK_OK(feint_form_cuda_source(uf, L, &s));
  return s;
}

#define CASE_HEAD "mesh: {file: cube.msh}\nspace: {order: 1}\n"

#ifdef FEINT_HAVE_CUDA
/* src as the form backend hands it to NVRTC (its options). */
static feint_jit_source jit_source(const char *src) {
  feint_jit_source s = {.source = src, .label = "t641.yaml: physics", .name = "feint_form.cu",
                        .options = feint_form_cuda_options, .n_options = FEINT_FORM_CUDA_OPTIONS,
                        .kernels = feint_form_cuda_kernels, .n_kernels = FEINT_FORM_KERNELS};
  return s;
}

/* Compile src for sm_90 (no cache): its key in key[65]. 0 when NVRTC is
 * not found (said once). */
static int compile(const char *src, char key[65]) {
  static int said;
  if (feint_jit_nvrtc_open(NULL, NULL)) {
    if (!said++) printf("NVRTC not found (%s): the sources are not compiled\n", feint_error_message());
    feint_error_clear();
    return 0;
  }
  feint_jit_source s = jit_source(src);
  void *cubin = NULL;
  size_t size = 0;
  feint_jit_stats st;
  int status = feint_jit_compile(&s, "sm_90", NULL, &cubin, &size, &st);
  CHECK(status == FEINT_OK && size > 0, "the generated source does not compile: %s\n%s", feint_error_message(), src);
  free(cubin);
  snprintf(key, 65, "%s", st.key);
  if (!status) printf("compiled for sm_90 in %.1f ms (%zu bytes)\n", st.compile_ms, size);
  return status == FEINT_OK;
}

/* The P1 template source of uf on layout L compiles (the cuda backend's
 * options and embedded headers), with the lean kernels where lean. */
static void compile_p1(const feint_user_form *uf, const feint_form_cuda_layout *L, int single,
                       const feint_form_p1_lean *lean, int affine) {
  char *src = NULL;
  CHECK_OK(feint_form_cuda_p1_source(uf, L, single, 0, lean, &src));
  if (!src) return;
  /* affine: bit 0 f0, bit 1 f1 affine in x, u and the nodal coefficients (the collapsed sums) */
  char want[96];
  snprintf(want, sizeof want, "#define FORM_F0_AFFINE %d\n#define FORM_F1_AFFINE %d\n", affine & 1, affine >> 1);
  CHECK(strstr(src, want) != NULL, "the source does not say %s", want);
  CHECK(strstr(src, "#include \"backend/cuda/p1_form.cuh\"") != NULL, "the P1 source includes no template");
  CHECK(!lean == !strstr(src, "FORM_LEAN_GATHER"), "the lean kernels are %s the source", lean ? "not in" : "in");
  if (feint_jit_nvrtc_open(NULL, NULL)) {
    feint_error_clear();
    free(src);
    return;
  }
  feint_jit_source s = {.source = src, .label = "t641.yaml: physics", .name = "feint_p1_form.cu",
                        .options = feint_form_p1_options, .n_options = FEINT_FORM_P1_OPTIONS,
                        .kernels = feint_form_p1_kernels, .n_kernels = FEINT_FORM_P1_KERNELS,
                        .header_names = feint_jit_header_names, .header_texts = feint_jit_header_texts,
                        .n_headers = feint_jit_header_count};
  void *cubin = NULL;
  size_t size = 0;
  feint_jit_stats st;
  const int status = feint_jit_compile(&s, "sm_90", NULL, &cubin, &size, &st);
  CHECK(status == FEINT_OK && size > 0, "the P1 template source does not compile: %s\n%s", feint_error_message(), src);
  if (!status)
    printf("P1 template, %d components, %d coefficients, %s%s: compiled in %.1f ms (%zu bytes)\n", L->nc, L->n_aux,
           single ? "single" : "double",
           !lean ? "" : lean->pipe ? ", lean kernels with the pipelined one" : ", lean kernels", st.compile_ms, size);
  free(cubin);
  free(src);
}
#endif

int main(void) {
  snprintf(dir, sizeof dir, "/tmp/feint-t641-XXXXXX");
  CHECK(mkdtemp(dir) != NULL, "mkdtemp");

  /* the nonlinear form with two parameters, a constant and a nodal coefficient */
  const char *a_text = CASE_HEAD
      "physics:\n  kind: form\n  parameters: {k0: 1.25, beta: 2.75}\n"
      "  coefficients: {f: 3.5, g: \"x*y\"}\n  f0: \"-f*g + 0.5*exp(u)\"\n"
      "  f1: [\"(k0 + beta*u^2)*u_x\", \"(k0 + beta*u^2)*u_y\", \"(k0 + beta*u^2)*u_z + g_x\"]\n";
  const char *b_text = CASE_HEAD
      "physics:\n  kind: form\n  parameters: {k0: 7.625, beta: 0.375}\n"
      "  coefficients: {f: 9.0625, g: \"x*y\"}\n  f0: \"-f*g + 0.5*exp(u)\"\n"
      "  f1: [\"(k0 + beta*u^2)*u_x\", \"(k0 + beta*u^2)*u_y\", \"(k0 + beta*u^2)*u_z + g_x\"]\n";
  const char *c_text = CASE_HEAD /* u^3 for u^2 */
      "physics:\n  kind: form\n  parameters: {k0: 1.25, beta: 2.75}\n"
      "  coefficients: {f: 3.5, g: \"x*y\"}\n  f0: \"-f*g + 0.5*exp(u)\"\n"
      "  f1: [\"(k0 + beta*u^3)*u_x\", \"(k0 + beta*u^2)*u_y\", \"(k0 + beta*u^2)*u_z + g_x\"]\n";
  feint_user_form *a = form_of(a_text, 3), *b = form_of(b_text, 3), *c = form_of(c_text, 3);
  feint_field fa[2] = {{FEINT_FIELD_CONSTANT, 3.5, NULL, 0}, {FEINT_FIELD_NODE, 0, NULL, 0}};
  feint_field fb[2] = {{FEINT_FIELD_CONSTANT, 9.0625, NULL, 0}, {FEINT_FIELD_NODE, 0, NULL, 0}};
  feint_form_cuda_layout L = {3, 1, 4, 4, 4, 4, 2, fa, 1, 1, 0, 0, 0, 0}, Lb = L;
  Lb.aux = fb;
  char *sa = source_of(a, &L), *sb = source_of(b, &Lb), *sc = source_of(c, &L);
  CHECK(!strcmp(sa, sb), "the sources of two cases differing in parameters differ");
  static const char *const values[] = {"1.25", "2.75", "3.5", "7.625", "0.375", "9.0625"};
  for (int k = 0; k < 6; k++) CHECK(!strstr(sa, values[k]), "the value %s is in the source", values[k]);
  CHECK(strcmp(sa, sc) != 0, "a changed expression gives the same source");
  printf("two cases differing in parameters and a constant: the same source (%zu bytes), no value in it\n",
         strlen(sa));

  /* the constants: parameters, then the constant coefficients (0 for the nodal one) */
  CHECK(feint_form_cuda_constants_count(a, 2) == 4, "constants count %d", feint_form_cuda_constants_count(a, 2));
  double ka[4], kb[4];
  feint_form_cuda_constants(a, fa, 2, ka);
  feint_form_cuda_constants(b, fb, 2, kb);
  CHECK(ka[0] == 1.25 && ka[1] == 2.75 && ka[2] == 3.5 && ka[3] == 0, "constants %g %g %g %g", ka[0], ka[1], ka[2],
        ka[3]);
  CHECK(kb[0] == 7.625 && kb[1] == 0.375 && kb[2] == 9.0625 && kb[3] == 0, "constants %g %g %g %g", kb[0], kb[1],
        kb[2], kb[3]);

  /* #line per case key; the blocks of this form: g0 (from exp(u)), g2 and g3 derived; no g1 */
  CHECK(strstr(sa, "#line 1 \"physics.f0\"\n  f0[0] = ") && strstr(sa, "#line 1 \"physics.f1[2]\"\n  f1[2] = ") &&
            strstr(sa, "\"physics.g0\"") && strstr(sa, "\"physics.g3[0]\"") && strstr(sa, "\"physics.g2[1]\"") &&
            !strstr(sa, "g1[0] ="),
        "the #line keys or the blocks:\n%s", sa);
  CHECK(strstr(sa, "P.v[0]") && strstr(sa, "P.v[1]") && strstr(sa, "s[3]"), "parameters as kernel arguments:\n%s",
        sa);
  CHECK(strstr(sa, "feint_form_vector") && strstr(sa, "feint_form_matrix"), "the kernels' names");

  /* the layout is in the source: coefficient kinds and the basis */
  feint_field fcell[2] = {{FEINT_FIELD_CELL, 0, NULL, 0}, {FEINT_FIELD_NODE, 0, NULL, 0}};
  feint_form_cuda_layout Lcell = L, Lp2 = L;
  Lcell.aux = fcell;
  Lp2.nb = 10;
  Lp2.nq = Lp2.nq_matrix = 11;
  char *scell = source_of(a, &Lcell), *sp2 = source_of(a, &Lp2);
  CHECK(strcmp(sa, scell) && strcmp(sa, sp2), "another coefficient kind or basis gives the same source");

  /* a vector field on triangles (P2, 2 components) and a Bratu source */
  feint_user_form *v = form_of(
      "mesh: {file: square.msh}\nspace: {order: 2, components: 2}\n"
      "physics:\n  kind: form\n  parameters: {lambda: 2}\n  f0: [\"-lambda*exp(u0)\", \"u0*u1\"]\n"
      "  f1: [[\"u0_x + u1_y\", \"u0_y\"], [\"u1_x\", \"(1 + u0^2)*u1_y\"]]\n",
      2);
  feint_form_cuda_layout Lv = {2, 2, 6, 3, 6, 6, 0, NULL, 1, 1, 0, 0, 0, 0};
  char *sv = source_of(v, &Lv);
  CHECK(strstr(sv, "\"physics.f0[1]\"") && strstr(sv, "\"physics.f1[1][1]\"") && strstr(sv, "#define NC 2"),
        "vector keys:\n%s", sv);

  /* the tables' layout */
  double w[2] = {0.25, 0.75}, basis[6] = {1, 2, 3, 4, 5, 6}, grad[12], gv[6] = {7, 8, 9, 10, 11, 12};
  for (int k = 0; k < 12; k++) grad[k] = 100 + k;
  feint_quadrature q = {FEINT_CELL_TRIANGLE, 2, 1, 2, NULL, w};
  CHECK(feint_form_cuda_table_size(2, 3, 2, 3, 1) == 2 * (1 + 3 + 6 + 3), "table size");
  CHECK(feint_form_cuda_table_size(2, 3, 2, 3, 0) == 2 * (1 + 3 + 6 + 3 + 6), "non-affine table size");
  double tab[38], gg[12];
  for (int k = 0; k < 12; k++) gg[k] = 200 + k;
  feint_form_cuda_table(&q, basis, grad, gv, NULL, 3, 2, 3, tab);
  CHECK(tab[0] == 0.25 && tab[1] == 0.75 && tab[2] == 1 && tab[7] == 6 && tab[8] == 100 && tab[19] == 111 &&
            tab[20] == 7 && tab[25] == 12,
        "table layout");
  feint_form_cuda_table(&q, basis, grad, gv, gg, 3, 2, 3, tab);
  CHECK(tab[25] == 12 && tab[26] == 200 && tab[37] == 211, "non-affine table layout");
  /* what the kernels take, and the matrix kernel each layout gets */
  char why[200];
  feint_form_cuda_layout big = {3, 3, 27, 8, 64, 64, 0, NULL, 0, 1, 0, 0, 0, 0}; /* Q2 hexahedra, elasticity */
  CHECK(feint_form_cuda_fits(&big, why, sizeof why), "Q2 elasticity refused: %s", why);
  CHECK(feint_form_cuda_matrix_kernel(&big) == FEINT_FORM_MATRIX_BLOCK, "Q2 elasticity: not a block a cell");
  big.nb = 64; /* Q3: 192 dofs, its 64 points' blocks (73 KiB) in scratch */
  CHECK(feint_form_cuda_fits(&big, why, sizeof why), "Q3 elasticity refused: %s", why);
  CHECK(feint_form_cuda_matrix_scratch(&big) == 64 * 144, "Q3 elasticity scratch %zu",
        feint_form_cuda_matrix_scratch(&big));
  big.nq_matrix = 8; /* 8 points' blocks fit in shared memory */
  CHECK(feint_form_cuda_matrix_scratch(&big) == 0, "8 points' blocks not in shared memory");
  big.nb = 40; /* 120 dofs, but 40 x 9 x 4 W entries a cell: past the warp kernel's 48 KiB */
  big.affine = 1;
  CHECK(feint_form_cuda_matrix_kernel(&big) == FEINT_FORM_MATRIX_BLOCK, "120 dofs: not a block a cell");
  big.matrix_kernel = FEINT_FORM_MATRIX_WARP;
  CHECK(!feint_form_cuda_fits(&big, why, sizeof why) && strstr(why, "warp"), "the warp kernel taken: %s", why);
  big.matrix_kernel = FEINT_FORM_MATRIX_AUTO;
  big.nb = 10; /* P2 tetrahedra, elasticity: a warp; Poisson: a thread */
  CHECK(feint_form_cuda_matrix_kernel(&big) == FEINT_FORM_MATRIX_WARP, "P2 elasticity: not a warp a cell");
  big.nc = 1;
  CHECK(feint_form_cuda_matrix_kernel(&big) == FEINT_FORM_MATRIX_THREAD, "P2 Poisson: not a thread a cell");
  big.nb = 729; /* Q8 hexahedra */
  CHECK(!feint_form_cuda_fits(&big, why, sizeof why) && strstr(why, "512"), "729 dofs taken: %s", why);

#ifdef FEINT_HAVE_CUDA
  char ka_key[65] = "", kb_key[65] = "", kc_key[65] = "", other[65];
  if (compile(sa, ka_key) && compile(sb, kb_key) && compile(sc, kc_key)) {
    CHECK(!strcmp(ka_key, kb_key), "cache keys of cases differing in parameters: %s, %s", ka_key, kb_key);
    CHECK(strcmp(ka_key, kc_key) != 0, "a changed expression has the same cache key");
    /* an error in a spliced expression is reported under its case key
     * (the #line before it): f1[1]'s line broken by hand */
    char *bad = NULL;
    CHECK_OK(feint_strdup(sa, &bad));
    char *at = strstr(bad, "#line 1 \"physics.f1[1]\"\n  f1[1] = ");
    CHECK(at != NULL, "no f1[1] line");
    if (at) {
      at = strchr(at + 30, '=') + 2;
      at[0] = '*';
      feint_jit_source s = jit_source(bad);
      void *cubin = NULL;
      size_t size = 0;
      const int st = feint_jit_compile(&s, "sm_90", NULL, &cubin, &size, NULL);
      CHECK(st == FEINT_ERR_INPUT && strstr(feint_error_message(), "t641.yaml: physics") &&
                strstr(feint_error_message(), "physics.f1[1](1)"),
            "a broken expression: status %d, %s", st, feint_error_message());
      printf("a broken expression's NVRTC log names its key: %.60s...\n", strstr(feint_error_message(), "physics.f1[1](1)"));
      free(cubin);
      feint_error_clear();
    }
    free(bad);
    compile(scell, other);
    compile(sp2, other);
    compile(sv, other);
    compile_p1(a, &L, 0, NULL, 0); /* exp(u), u^2 u_x */
    compile_p1(a, &Lcell, 1, NULL, 0);
    feint_form_cuda_layout Lv1 = {2, 2, 3, 3, 3, 3, 0, NULL, 1, 1, 0, 0, 0, 0};
    compile_p1(v, &Lv1, 0, NULL, 0);
    /* the lean kernels as the cuda backend generates them: one component
     * from global memory with the pipelined kernel, or by the shared
     * gather (colored); elasticity by the shared gather, u in the records */
    const feint_form_p1_lean lean_global = {1, 1, 4, 4, 1}, lean_shared = {1, 0, 6, 4, 0}, lean_vec = {1, 0, 10, 4, 0};
    compile_p1(a, &L, 0, &lean_global, 0);
    compile_p1(a, &L, 0, &lean_shared, 0);
    feint_user_form *e = form_of("mesh: {file: cube.msh}\nspace: {order: 1, components: 3}\nphysics:\n  kind: form\n"
                                           "  parameters: {lam: 0.6, mu: 0.7}\n  coefficients: {f: \"x*y\"}\n"
                                           "  f0: [\"-f\", \"0\", \"u1*f\"]\n"
                                           "  f1: [[\"2*mu*u0_x + lam*(u0_x + u1_y + u2_z)\", \"mu*(u0_y + u1_x)\", "
                                           "\"mu*(u0_z + u2_x)\"], [\"mu*(u1_x + u0_y)\", "
                                           "\"2*mu*u1_y + lam*(u0_x + u1_y + u2_z)\", \"mu*(u1_z + u2_y)\"], "
                                           "[\"mu*(u2_x + u0_z)\", \"mu*(u2_y + u1_z)\", "
                                           "\"2*mu*u2_z + lam*(u0_x + u1_y + u2_z)\"]]\n",
                                 3);
    feint_field fe[1] = {{FEINT_FIELD_NODE, 0, NULL, 0}};
    feint_form_cuda_layout Le = {3, 3, 4, 4, 4, 4, 1, fe, 1, 1, 0, 0, 0, 0};
    compile_p1(e, &Le, 0, &lean_vec, 2); /* the stress is affine, u1 f (bilinear) is not */
    /* P2 elasticity (30 dofs a cell): the form-jit matrix kernel takes a warp a cell */
    feint_form_cuda_layout Le2 = {3, 3, 10, 4, 4, 4, 1, fe, 1, 0, 0, 0, 0, 0};
    char *se2 = source_of(e, &Le2);
    CHECK(strstr(se2, "#define FM_MODE 2\n") && strstr(sa, "#define FM_MODE 1\n"), "the matrix kernel's choice");
    compile(se2, other);
    free(se2);
    /* non-affine cells (J at every point): Q2 hexahedra of 3 components
     * (81 dofs, the block matrix kernel) and P1 prisms of one (the
     * thread-a-cell one) */
    feint_form_cuda_layout Lh = {3, 3, 27, 8, 64, 64, 1, fe, 0, 1, 0, 0, 0, 0}, Lp = L;
    Lp.nb = Lp.nv = 6;
    Lp.affine = 0;
    char *sh = source_of(e, &Lh), *sp = source_of(a, &Lp);
    CHECK(strstr(sh, "#define FORM_AFFINE 0\n") && strstr(sh, "#define FM_MODE 3\n") &&
              strstr(sp, "#define FORM_AFFINE 0\n") && strstr(sp, "#define FM_MODE 1\n"),
          "non-affine sources");
    compile(sh, other);
    compile(sp, other);
    free(sh);
    free(sp);
    /* curved P2 tetrahedra: each cell's 10 geometry nodes read from x, J at every point */
    feint_form_cuda_layout Lcurved = Le2;
    Lcurved.nv = 10;
    Lcurved.affine = 0;
    Lcurved.curved = 1;
    char *scurved = source_of(e, &Lcurved);
    CHECK(strstr(scurved, "#define FORM_CURVED 1\n") && strstr(scurved, "#define NV 10\n") &&
              strstr(scurved, "#define FORM_AFFINE 0\n"),
          "the curved source");
    compile(scurved, other);
    free(scurved);
    feint_user_form_destroy(e);
    printf("the same cache key for both parameter sets; another for the changed expression\n");
  }
#endif
  free(sa);
  free(sb);
  free(sc);
  free(scell);
  free(sp2);
  free(sv);
  feint_user_form_destroy(a);
  feint_user_form_destroy(b);
  feint_user_form_destroy(c);
  feint_user_form_destroy(v);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  CHECK(system(cmd) == 0, "%s", cmd);
  if (!check_failures) printf("t641-form-source: ok\n");
  return check_report("t641-form-source");
}
