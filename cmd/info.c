/* feint info MESH: what a mesh holds; feint info --kernels: the backends'
 * kernel families. */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "feint/backend.h"
#include "feint/error.h"
#include "feint/mesh.h"

/* Every kind's kernel families (feint_backend_kind.families), and whether
 * this process can run the kind. */
static int print_kernel_families(void) {
  const feint_backend_kind *kinds[FEINT_BACKEND_MAX_KINDS];
  const int n_kinds = feint_backend_kinds(kinds, FEINT_BACKEND_MAX_KINDS);
  for (int k = 0; k < n_kinds; k++) {
    char why[300] = "";
    const int open = kinds[k]->open ? kinds[k]->open(-1, why, sizeof why) : FEINT_OK;
    feint_error_clear();
    printf("backend %s: %s\n", kinds[k]->name, open == FEINT_OK ? "available" : why);
    int n = 0;
    const feint_kernel_family *f = kinds[k]->families ? kinds[k]->families(&n) : NULL;
    if (!f) printf("  one implementation (the reference)\n");
    for (int i = 0; i < n; i++)
      printf("  %s\n    computes: %s\n    compile-time axes: %s\n    chosen: %s\n    tuned by: %s\n    source: %s\n",
             f[i].name, f[i].computes, f[i].axes, f[i].chosen, f[i].knobs[0] ? f[i].knobs : "-", f[i].source);
  }
  return 0;
}

int cmd_info(int argc, char **argv) {
  if (argc == 2 && !strcmp(argv[1], "--kernels")) return print_kernel_families();
  if (argc != 2) {
    fprintf(stderr, "usage: feint info MESH (.msh or .geo) | --kernels\n");
    return FEINT_ERR_INPUT;
  }
  feint_mesh *m = NULL;
  feint_mesh_options opts = {.curved_ok = 1}; /* described even where run refuses it */
  int status = feint_mesh_read(argv[1], &opts, &m);
  if (status) return cmd_fail(status);
  feint_mesh_stats st;
  feint_mesh_compute_stats(m, &st);
  printf("mesh %s\n", argv[1]);
  char shapes[128];
  printf("dimension %d, %lld nodes, %lld cells (%s) in the region\n", m->dim, (long long)m->n_nodes,
         (long long)m->n_cells, feint_mesh_shapes(m, shapes, sizeof shapes));
  for (int b = 0; b < m->n_blocks && feint_mesh_is_mixed(m); b++) {
    printf("  block %d: %lld %s cells (cells %lld..%lld)", b, (long long)m->blocks[b].n_cells,
           feint_cell_name(m->blocks[b].cell_type), (long long)m->blocks[b].first_cell,
           (long long)(m->blocks[b].first_cell + m->blocks[b].n_cells - 1));
    if (m->n_geometry_nodes)
      printf(", of %d nodes, %lld curved", m->blocks[b].n_geometry_nodes, (long long)m->blocks[b].n_curved_cells);
    printf("\n");
  }
  if (m->n_geometry_nodes) {
    char nodes[64];
    if (feint_mesh_is_mixed(m)) snprintf(nodes, sizeof nodes, "curved cells (nodes by block above)");
    else snprintf(nodes, sizeof nodes, "curved cells of %d nodes", m->n_geometry_nodes);
    printf("geometry order %d (%s: feint run integrates on their map; %lld of\n"
           "%lld cells are curved, the others straight (the vertices' map), integrated as such); the counts of\n"
           "nodes and the measures below are of the straight-sided cells through the cells' vertices\n",
           m->geometry_order, nodes, (long long)m->n_curved_cells, (long long)m->n_cells);
  }
  else if (m->geometry_order > 1)
    printf("geometry order %d (curved cells, not supported by feint run yet: feint runs triangles,\n"
           "tetrahedra, quadrilaterals and hexahedra of order 2 and 3, prisms of order 2); the counts\n"
           "of nodes and the measures below are of the straight-sided cells through the cells' vertices\n",
           m->geometry_order);
  else
    printf("geometry order 1 (straight-sided cells)\n");
  printf("elements by type:\n");
  for (int k = 0; k < m->n_type_counts; k++)
    printf("  %-24s %lld\n", m->type_names[k], (long long)m->type_counts[k]);
  printf("physical groups:\n");
  if (m->n_groups == 0) printf("  (none)\n");
  for (int g = 0; g < m->n_groups; g++)
    printf("  dim %d  tag %-4d %-20s %lld elements\n", m->groups[g].dim, m->groups[g].tag,
           m->groups[g].name[0] ? m->groups[g].name : "(unnamed)", (long long)m->groups[g].n_elements);
  printf("bounding box [%g, %g] x [%g, %g] x [%g, %g]\n", st.bbox_min[0], st.bbox_max[0], st.bbox_min[1],
         st.bbox_max[1], st.bbox_min[2], st.bbox_max[2]);
  printf("total %s %.15g\n", m->dim == 2 ? "area" : "volume", st.volume);
  printf("worst cell quality %.6f (cell %lld; 1 = equilateral, 0 = degenerate)\n", st.worst_quality,
         (long long)st.worst_cell);
  if (st.n_inverted) printf("inverted cells: %lld\n", (long long)st.n_inverted);
  feint_mesh_destroy(m);
  return 0;
}
