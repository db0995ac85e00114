/* The user-form kernels of the cuda backend (src/backend/cuda/form_source.c)
 * run on the host, for tests/cli/t59-form-kernels-host.sh: the generated
 * CUDA source is C++ once the CUDA keywords below are defined away, so
 * its kernels can be called thread by thread, cell after cell, and their
 * residual, load vector, element matrices and CSR values compared with
 * the cpu backend's on a machine without a GPU.
 *   form_kernels_host CASE            (built without FEINT_FORM_SOURCE):
 *       prints the form's generated source
 *   form_kernels_host CASE [TOL]      (built with -DFEINT_FORM_SOURCE=FILE,
 *                                      and -DFM_MODE=3 for the block matrix kernel):
 *       runs its kernels and prints the largest relative difference
 * (exit 1 past TOL, default 1e-15: on simplices and prisms the kernels make
 * the cpu backend's sums in its order; its quadrilaterals and hexahedra
 * are sum-factorised, other sums of the same terms).
 * With FEINT_HOST_CLASS=k in the environment, both steps take kernel
 * class k (form_source.h; a mixed mesh's block) instead of class 0, its
 * kernels run on that block's cells, and only their element matrices are
 * compared (the vectors and the CSR values sum every block's cells). */
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

extern "C" {
#include "backend/cuda/form_source.h"
#include "feint/backend.h"
#include "feint/error.h"
#include "feint/mesh.h"
}

#ifdef FEINT_FORM_SOURCE
struct host_dim3 {
  unsigned x, y, z;
};
static host_dim3 blockIdx, threadIdx, blockDim, gridDim;
#define __device__
#define __forceinline__ inline
#define __global__
/* the matrix kernel of one thread a cell (FM_MODE 1, the default here),
 * or of one block a cell (3), run as a block of one thread: its barriers
 * are then no-ops and its shared memory a static. The warp-a-cell one
 * makes the thread kernel's operations in the same order, its lanes
 * cooperating through shared memory, which a host loop cannot run; the GPU
 * checks it (tests/gpu/t641-forms-gpu.sh) */
#ifndef FM_MODE
#define FM_MODE 1
#endif
#define __launch_bounds__(n)
#define FV_PER (NB * NC) /* the block vector kernel's entries a thread: all, in a block of one */
#define __shared__ static
#define __syncthreads()
using std::exp;
using std::fabs;
static inline double atomicAdd(double *p, double v) {
  const double old = *p;
  *p += v;
  return old;
}
#include FEINT_FORM_SOURCE
#endif

#define DIE(call)                                                               \
  do {                                                                          \
    if (call) {                                                                 \
      fprintf(stderr, "%s: %s\n", #call, feint_error_message());                \
      exit(1);                                                                  \
    }                                                                           \
  } while (0)

#ifdef FEINT_FORM_SOURCE
/* max(relative 2-norm, relative max-norm) of a - b (absolute when b is 0) */
static double differ(const char *what, const std::vector<double> &a, const std::vector<double> &b) {
  double num = 0, den = 0, mx = 0, bmax = 0;
  for (size_t i = 0; i < a.size(); i++) {
    num += (a[i] - b[i]) * (a[i] - b[i]);
    den += b[i] * b[i];
    mx = std::fmax(mx, std::fabs(a[i] - b[i]));
    bmax = std::fmax(bmax, std::fabs(b[i]));
  }
  const double e = std::fmax(std::sqrt(num / (den > 0 ? den : 1)), mx / (bmax > 0 ? bmax : 1));
  printf("  %s: %.2e (norm %.6e)\n", what, e, std::sqrt(den));
  return e;
}
#endif

int main(int argc, char **argv) {
  if (argc != 2 && argc != 3) return 2;
  feint_case *c = NULL;
  DIE(feint_case_load(argv[1], 0, NULL, &c));
  feint_mesh_options o = {};
  o.size = c->mesh_size;
  o.refine = c->mesh_refine;
  feint_mesh *m = NULL;
  feint_space *s = NULL;
  feint_form *f = NULL;
  feint_plan *plan = NULL;
  DIE(feint_mesh_read(c->mesh_file, &o, &m));
  if (m->curved_cells) { /* every cell curved: the cpu backend as the curved kernels, on all cells */
    memset(m->curved_cells, 1, (size_t)m->n_cells);
    m->n_curved_cells = m->n_cells;
  }
  DIE(feint_space_create(m, c->order, c->components ? c->components : 1, &s));
  DIE(feint_form_create(c, s, &f));
  const int klass = getenv("FEINT_HOST_CLASS") ? atoi(getenv("FEINT_HOST_CLASS")) : -1;
#ifndef FEINT_FORM_SOURCE
  const feint_form_cuda_layout L = feint_form_cuda_layout_block(f, s, klass < 0 ? 0 : klass);
  char *src = NULL;
  DIE(feint_form_cuda_source(f->user, &L, &src));
  fputs(src, stdout);
  free(src);
  return 0;
#else
  DIE(feint_plan_create(s, &plan));
  feint_problem p = {};
  p.space = s;
  p.form = f;
  p.plan = plan;
  feint_backend *b = NULL;
  DIE(feint_backend_cpu_create(&p, &b));
  const size_t nd = (size_t)s->n_dofs, nc = (size_t)m->n_cells, n2 = (size_t)s->nbc * (size_t)s->nbc;
  std::vector<double> F(nd), R(nd), K(nc * n2), V((size_t)plan->nnz);
  DIE(b->residual(b, f->u, F.data()));
  DIE(b->rhs(b, R.data()));
  DIE(b->element_matrices(b, K.data()));
  DIE(b->assemble_matrix(b, V.data()));
  /* the kernels' arguments as form_backend.cu makes them */
  const double *X = m->geometry_nodes ? m->geometry_nodes : m->x; /* curved cells: their own nodes in x */
  const feint_mesh_block *blk = &m->blocks[klass < 0 ? 0 : feint_form_cuda_class_block(s, klass)];
  const long long first = klass < 0 ? 0 : (long long)blk->first_cell;
  const double *Y = m->geometry_nodes ? nullptr : m->y, *Z = m->geometry_nodes ? nullptr : m->z;
  std::vector<int> cells(nc * (size_t)m->nv), dofs(nc * (size_t)s->nbc), sdofs(nc * (size_t)s->nb), slots(nc * n2);
  for (size_t i = 0; i < cells.size(); i++) cells[i] = (int)m->cells[i];
  for (size_t i = 0; i < dofs.size(); i++) dofs[i] = (int)s->cell_dofs[i];
  for (size_t i = 0; i < sdofs.size(); i++) sdofs[i] = (int)s->scalar_cell_dofs[i];
  for (size_t i = 0; i < slots.size(); i++) slots[i] = plan->slots[i];
  double *tab_vector = NULL, *tab_matrix = NULL;
  size_t n_tab = 0;
  DIE(feint_form_cuda_block_rule_table(f, s, klass < 0 ? 0 : klass, 0, &tab_vector, &n_tab));
  DIE(feint_form_cuda_block_rule_table(f, s, klass < 0 ? 0 : klass, 1, &tab_matrix, &n_tab));
  form_fields fields = {};
  form_constants constants = {};
  for (int k = 0; k < f->n_aux; k++) fields.v[k] = f->aux[k].values;
  feint_form_cuda_constants(f->user, f->aux, f->n_aux, constants.v);
  std::vector<double> Fg(nd), Rg(nd), Kg(nc * n2), Vg((size_t)plan->nnz);
  const long long n = klass < 0 ? (long long)nc : (long long)blk->n_cells;
  blockIdx.x = threadIdx.x = 0;
  blockDim.x = gridDim.x = 1;
#if FV_BLOCK
  feint_form_vector(first, n, nullptr, X, Y, Z, cells.data(), dofs.data(), sdofs.data(), tab_vector, f->u, 1.0,
                    fields, constants, Fg.data());
  feint_form_vector(first, n, nullptr, X, Y, Z, cells.data(), dofs.data(), sdofs.data(), tab_vector, nullptr,
                    -1.0, fields, constants, Rg.data());
#endif
#if FM_MODE == 3
  std::vector<double> scratch((size_t)NQM * ND * ND);
  feint_form_matrix(first, n, nullptr, X, Y, Z, cells.data(), dofs.data(), sdofs.data(), tab_matrix, f->u, fields,
                    constants, nullptr, Kg.data(), 0, scratch.data());
  feint_form_matrix(first, n, nullptr, X, Y, Z, cells.data(), dofs.data(), sdofs.data(), tab_matrix, f->u, fields,
                    constants, slots.data(), Vg.data(), 0, scratch.data());
#endif
  blockDim.x = 128;
  for (long long t = 0; t < n; t++) {
    blockIdx.x = (unsigned)(t / 128);
    threadIdx.x = (unsigned)(t % 128);
#if !FV_BLOCK
    feint_form_vector(first, n, nullptr, X, Y, Z, cells.data(), dofs.data(), sdofs.data(), tab_vector, f->u, 1.0, fields,
                      constants, Fg.data());
    feint_form_vector(first, n, nullptr, X, Y, Z, cells.data(), dofs.data(), sdofs.data(), tab_vector, nullptr, -1.0,
                      fields, constants, Rg.data());
#endif
#if FM_MODE == 1
    feint_form_matrix(first, n, nullptr, X, Y, Z, cells.data(), dofs.data(), sdofs.data(), tab_matrix, f->u, fields,
                      constants, nullptr, Kg.data(), 0, nullptr);
    feint_form_matrix(first, n, nullptr, X, Y, Z, cells.data(), dofs.data(), sdofs.data(), tab_matrix, f->u, fields,
                      constants, slots.data(), Vg.data(), 0, nullptr);
#endif
  }
  double worst = 0;
  if (klass >= 0) { /* the class's cells' element matrices */
    std::vector<double> Kc(K.begin() + first * (long long)n2, K.begin() + (first + n) * (long long)n2),
        Kgc(Kg.begin() + first * (long long)n2, Kg.begin() + (first + n) * (long long)n2);
    worst = differ("element matrices", Kgc, Kc);
  } else {
    worst = differ("residual", Fg, F);
    worst = std::fmax(worst, differ("rhs", Rg, R));
    worst = std::fmax(worst, differ("element matrices", Kg, K));
    worst = std::fmax(worst, differ("matrix", Vg, V));
  }
  printf("%s: the kernels on the host against the cpu backend: %.2e\n", argv[1], worst);
  free(tab_vector);
  free(tab_matrix);
  feint_backend_destroy(b);
  feint_plan_destroy(plan);
  feint_form_destroy(f);
  feint_space_destroy(s);
  feint_mesh_destroy(m);
  feint_case_destroy(c);
  return worst <= (argc == 3 ? atof(argv[2]) : 1e-15) ? 0 : 1;
#endif
}
