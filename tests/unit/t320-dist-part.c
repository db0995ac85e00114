/* A rank's part under mpirun (feint/dist.h) against the whole: each part
 * of a partition, packed and unpacked, holds exactly its cells; its
 * nodes sit where the whole mesh's do (bit for bit); every local dof of
 * every cell slot is the whole space's dof of that slot through the part's
 * scalar dof list, with the same coordinates, so the part's element
 * integrals go to the right rows; a part of one shape of a mixed mesh
 * keeps the whole's node family; the parts' cells cover the mesh once;
 * a message cut short is refused. On simplices P1..P3 (P1 borrowing the
 * connectivity), Q3 hexahedra of 3 components, P3 prisms and mixed
 * meshes (triangles + quadrilaterals P3; tetrahedra + prisms + hexahedra
 * P2), with scattered, block and shape-by-shape partitions; and the
 * Morton curve partition: balanced, deterministic, compact. Also the
 * exchange's pairing (every two ranks meet once, as each other's partner,
 * for 1 to 65 ranks) and the owners' row blocks (contiguous, covering
 * the rows once, whole groups). No MPI: packing and unpacking are local.
 * Run from the repository root. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "dist/slab.h"
#include "feint/dist.h"
#include "feint/error.h"
#include "feint/mesh.h"
#include "feint/space.h"

enum { SCATTERED, BLOCKS, BY_SHAPE, ROWS }; /* ROWS: the rows partition's overlapping parts */

static int block_of(const feint_mesh *m, int64_t c) {
  for (int b = 0; b < m->n_blocks; b++)
    if (c < m->blocks[b].first_cell + m->blocks[b].n_cells) return b;
  return -1;
}

/* Whether cell c has a scalar dof in rank k's block of nparts (counted
 * here by brute force, against the rows partition's parts). */
static int in_rows_part(const feint_space *s, int64_t c, int k, int nparts) {
  const int64_t lo = s->n_scalar_dofs * k / nparts, hi = s->n_scalar_dofs * (k + 1) / nparts;
  for (int j = 0; j < s->nb; j++) {
    const int64_t g = s->scalar_cell_dofs[c * s->nb + j];
    if (g >= lo && g < hi) return 1;
  }
  return 0;
}

/* Part k of a partition (part[c] == k), or of the rows partition (part NULL). */
static void check_part(const feint_space *s, const int *part, int k, int nparts, int64_t *covered) {
  const feint_mesh *m = s->mesh;
  void *msg = NULL;
  size_t bytes = 0;
  feint_dist_part pt;
  CHECK_OK(feint_dist_part_pack(s, part, k, nparts, &msg, &bytes, &pt));
  if (!part) { /* every cell of the rank's rows, none other */
    int64_t want = 0;
    for (int64_t c = 0; c < m->n_cells; c++) want += in_rows_part(s, c, k, nparts);
    int64_t counts[16];
    CHECK(nparts <= 16, "at most 16 parts here");
    CHECK_OK(feint_dist_rows_part_cells(s, nparts, counts));
    CHECK(pt.n_cells == want && counts[k] == want,
          "rows part %d: %lld cells packed, %lld counted, %lld with its dofs", k, (long long)pt.n_cells,
          (long long)counts[k], (long long)want);
  }
  feint_mesh *lm = NULL;
  feint_space *ls = NULL;
  CHECK_OK(feint_dist_part_unpack(msg, bytes, &lm, &ls));
  if (!lm || !ls) {
    CHECK(0, "part %d did not unpack", k);
    free(msg);
    feint_dist_part_release(&pt);
    return;
  }
  CHECK(lm->n_cells == pt.n_cells && ls->n_scalar_dofs == pt.n_scalar_dofs, "part %d: counts", k);
  CHECK(ls->components == s->components && ls->order == s->order, "part %d: space", k);
  CHECK(ls->whole_cells == m->n_cells && ls->whole_scalar_dofs == s->n_scalar_dofs, "part %d: whole counts", k);
  CHECK(feint_space_node_family(ls) == feint_space_node_family(s), "part %d: node family", k);
  int64_t bad_cell = 0, bad_node = 0, bad_dof = 0, bad_coord = 0;
  for (int64_t i = 0; i < lm->n_cells; i++) {
    const int64_t c = pt.cells[i];
    bad_cell += (part ? part[c] != k : !in_rows_part(s, c, k, nparts)) || ls->whole_cell[i] != c || (i > 0 && pt.cells[i - 1] >= c);
    bad_cell += lm->cell_group[i] != (m->cell_group ? m->cell_group[c] : -1);
    covered[c]++;
    /* the cell's shape and its vertices, at the whole's coordinates */
    const int b = block_of(m, c);
    int lb = 0;
    while (lb < lm->n_blocks && i >= lm->blocks[lb].first_cell + lm->blocks[lb].n_cells) lb++;
    bad_cell += lb == lm->n_blocks || lm->blocks[lb].cell_type != m->blocks[b].cell_type;
    for (int v = 0; v < m->blocks[b].nv; v++) {
      const int64_t g = m->cells[c * m->nv + v], l = lm->cells[i * lm->nv + v];
      bad_node += l < 0 || lm->x[l] != m->x[g] || lm->y[l] != m->y[g] || lm->z[l] != m->z[g];
    }
    /* each slot's dof: the whole's through the part's list; components interleaved alike */
    const int nb = s->blocks[b].nb;
    for (int j = 0; j < nb; j++) {
      const int64_t g = s->scalar_cell_dofs[c * s->nb + j], l = ls->scalar_cell_dofs[i * ls->nb + j];
      if (l < 0 || l >= ls->n_scalar_dofs || pt.scalar_dofs[l] != g || ls->whole_scalar_dof[l] != g) {
        bad_dof++;
        continue;
      }
      bad_coord += memcmp(&ls->coordinates[3 * l], &s->coordinates[3 * g], 3 * sizeof(double)) != 0;
      for (int q = 0; q < s->components; q++)
        bad_dof += ls->cell_dofs[i * ls->nbc + j * s->components + q] != l * s->components + q;
    }
    for (int j = nb; j < ls->nb; j++) bad_dof += ls->scalar_cell_dofs[i * ls->nb + j] != -1;
  }
  CHECK(!bad_cell && !bad_node && !bad_dof && !bad_coord, "part %d: %lld cells, %lld nodes, %lld dofs, %lld "
        "coordinates wrong", k, (long long)bad_cell, (long long)bad_node, (long long)bad_dof, (long long)bad_coord);
  if (s->order == 1 && s->components == 1 && !feint_mesh_is_mixed(lm))
    CHECK(ls->scalar_cell_dofs == lm->cells, "part %d: P1 should borrow the connectivity", k);
  /* a message cut short is an error, nothing leaked */
  feint_mesh *m2 = NULL;
  feint_space *s2 = NULL;
  const int status = feint_dist_part_unpack(msg, bytes - 9, &m2, &s2);
  CHECK(status != FEINT_OK && !m2 && !s2, "part %d: a message cut short unpacked", k);
  feint_error_clear();
  feint_space_destroy(ls);
  feint_mesh_destroy(lm);
  free(msg);
  feint_dist_part_release(&pt);
}

/* The mesh at path and its space (0: a check failed, nothing left to free). */
static int read_space(const char *path, int order, int components, feint_mesh **m, feint_space **s) {
  feint_mesh_options o = {0};
  *m = NULL;
  *s = NULL;
  CHECK_OK(feint_mesh_read(path, &o, m));
  if (!*m) return 0;
  CHECK_OK(feint_space_create(*m, order, components, s));
  if (*s) return 1;
  feint_mesh_destroy(*m);
  return 0;
}

/* A part's message with any one 8-byte word of it replaced (by -1, 0, a
 * large count): unpack refuses it or reads it, and never reads past it
 * (ASan) or after a failed read (a run of cell numbers that overran its
 * part had the next array copied from NULL). Parts packed as runs and as
 * plain columns both. */
static void check_corrupt(const char *path, int nparts) {
  feint_mesh *m = NULL;
  feint_space *s = NULL;
  if (!read_space(path, 1, 1, &m, &s)) return;
  int refused = 0, words = 0;
  for (int k = 0; k < nparts; k++) {
    void *msg = NULL;
    size_t bytes = 0;
    feint_dist_part pt;
    CHECK_OK(feint_dist_part_pack(s, NULL, k, nparts, &msg, &bytes, &pt));
    feint_dist_part_release(&pt);
    char *copy = malloc(bytes + 1);
    for (size_t at = 0; msg && at + 8 <= bytes; at += 8) {
      static const int64_t values[3] = {-1, 0, (int64_t)1 << 40};
      for (int v = 0; v < 3; v++) {
        memcpy(copy, msg, bytes);
        memcpy(copy + at, &values[v], 8);
        feint_mesh *lm = NULL;
        feint_space *ls = NULL;
        refused += feint_dist_part_unpack(copy, bytes, &lm, &ls) != FEINT_OK;
        feint_error_clear();
        feint_space_destroy(ls);
        feint_mesh_destroy(lm);
        words++;
      }
    }
    free(copy);
    free(msg);
  }
  CHECK(refused > 0, "%s: some corrupt part refused", path);
  feint_space_destroy(s);
  feint_mesh_destroy(m);
  printf("%s, %d parts: %d corrupt messages unpacked or refused (%d refused), none read past\n", path, nparts, words,
         refused);
}

/* A scattered partition: neighbouring cells in different parts */
static int scattered_part(int64_t c, int nparts) { return (int)((c * 7919) % nparts); }

static void check_mesh(const char *path, int order, int components, int how, int nparts) {
  feint_mesh *m = NULL;
  feint_space *s = NULL;
  if (!read_space(path, order, components, &m, &s)) return;
  /* scattered parts: groups that change from cell to cell too, so that they go one a cell (not as runs) */
  for (int64_t c = 0; how == SCATTERED && m->cell_group && c < m->n_cells; c += 2) m->cell_group[c] = -1;
  int *part = malloc((size_t)m->n_cells * sizeof *part);
  int64_t *covered = calloc((size_t)m->n_cells, sizeof *covered);
  for (int64_t c = 0; c < m->n_cells; c++)
    part[c] = how == SCATTERED ? scattered_part(c, nparts)
              : how == BLOCKS  ? (int)(c * nparts / m->n_cells)
                               : block_of(m, c) % nparts;
  for (int k = 0; k < nparts; k++) check_part(s, how == ROWS ? NULL : part, k, nparts, covered);
  int64_t wrong = 0, total = 0;
  for (int64_t c = 0; c < m->n_cells; c++) {
    wrong += how == ROWS ? covered[c] < 1 : covered[c] != 1;
    total += covered[c];
  }
  CHECK(wrong == 0, "%s: %lld cells not in %s part", path, (long long)wrong, how == ROWS ? "any" : "exactly one");
  printf("%s P%d x%d, %d parts (%s): %lld cells, %lld dofs; %lld cells in the parts\n", path, order, components,
         nparts, how == SCATTERED ? "scattered" : how == BLOCKS ? "blocks" : how == ROWS ? "rows" : "by shape",
         (long long)m->n_cells, (long long)s->n_dofs, (long long)total);
  free(part);
  free(covered);
  feint_space_destroy(s);
  feint_mesh_destroy(m);
}

/* The parts built by their ranks from slabs (the build's
 * steps, every rank's run here in turn, the messages carried between
 * them by hand): each rank's mesh and space equal, field by field and
 * bit for bit, those unpacked from the message rank 0 packs. The slabs of ranks past 0 go through their message. fail_rank
 * >= 0 fails that rank's first step (corrupt: with a node past the mesh's
 * in its slab's message): then every rank fails, the others with
 * FEINT_DIST_PEER_FAILED. */
static void carry_all(slab_build **b, int nparts, void ***in, size_t **in_bytes) {
  for (int k = 0; k < nparts; k++) {
    size_t *out_bytes = NULL;
    void **out = slab_build_out(b[k], &out_bytes);
    for (int q = 0; q < nparts; q++) {
      in[q][k] = out[q];
      in_bytes[q][k] = out_bytes[q];
      out[q] = NULL;
      out_bytes[q] = 0;
    }
  }
}

/* Arrays of n items of `size` bytes equal bit for bit (both NULL, or both there). */
static int same_array(const void *a, const void *b, int64_t n, size_t size) {
  if (!a || !b) return a == b || n == 0;
  return !memcmp(a, b, (size_t)n * size);
}

/* The built part's mesh and space against those unpacked from rank 0's message: every field the part's
 * computations and output read, bit for bit. Returns the names of the fields that differ (empty: none). */
static const char *part_differs(const feint_mesh *bm, const feint_space *bs, const feint_mesh *pm,
                                const feint_space *ps) {
  static char diff[400];
  diff[0] = '\0';
#define DIFF(cond, name)                                                                                              \
  if (cond) strncat(diff, name " ", sizeof diff - strlen(diff) - 1)
  DIFF(bm->dim != pm->dim || bm->nv != pm->nv || bm->nv_facet != pm->nv_facet || bm->cell_type != pm->cell_type,
       "shape");
  DIFF(bm->n_nodes != pm->n_nodes || bm->n_cells != pm->n_cells || bm->n_blocks != pm->n_blocks, "counts");
  for (int b = 0; b < bm->n_blocks && b < pm->n_blocks; b++)
    DIFF(memcmp(&bm->blocks[b], &pm->blocks[b], sizeof bm->blocks[b]), "blocks");
  if (bm->n_nodes == pm->n_nodes && bm->n_cells == pm->n_cells && bm->nv == pm->nv) {
    DIFF(!same_array(bm->x, pm->x, bm->n_nodes, 8) || !same_array(bm->y, pm->y, bm->n_nodes, 8) ||
             !same_array(bm->z, pm->z, bm->n_nodes, 8),
         "coordinates");
    DIFF(!same_array(bm->cells, pm->cells, bm->n_cells * bm->nv, 8), "cells");
    DIFF(!same_array(bm->cell_group, pm->cell_group, bm->n_cells, sizeof(int)), "cell_group");
  }
  DIFF(bm->n_groups != pm->n_groups, "n_groups");
  for (int g = 0; g < bm->n_groups && g < pm->n_groups; g++)
    DIFF(bm->groups[g].dim != pm->groups[g].dim || bm->groups[g].tag != pm->groups[g].tag ||
             bm->groups[g].n_elements != pm->groups[g].n_elements || strcmp(bm->groups[g].name, pm->groups[g].name),
         "groups");
  DIFF(!bm->path || !pm->path || strcmp(bm->path, pm->path), "path");
  DIFF(!same_array(bm->facet_offsets, pm->facet_offsets, bm->n_groups + 1, 8) || bm->facets || pm->facets, "facets");
  DIFF(bm->geometry_order != pm->geometry_order || bm->n_geometry_nodes != pm->n_geometry_nodes ||
           bm->n_curved_cells != pm->n_curved_cells,
       "curved counts");
  if (bm->n_cells == pm->n_cells && bm->n_geometry_nodes == pm->n_geometry_nodes)
    DIFF(!same_array(bm->geometry_nodes, pm->geometry_nodes, bm->n_cells * bm->n_geometry_nodes * 3, 8) ||
             !same_array(bm->curved_cells, pm->curved_cells, bm->n_cells, 1),
         "geometry");
  DIFF(bs->order != ps->order || bs->components != ps->components || bs->nb != ps->nb || bs->nbc != ps->nbc ||
           bs->n_blocks != ps->n_blocks || feint_space_node_family(bs) != feint_space_node_family(ps),
       "space");
  DIFF(bs->n_scalar_dofs != ps->n_scalar_dofs || bs->n_dofs != ps->n_dofs, "dof counts");
  DIFF(bs->scalar_cell_dofs_borrowed != ps->scalar_cell_dofs_borrowed, "borrowed");
  if (bs->n_scalar_dofs == ps->n_scalar_dofs && bm->n_cells == pm->n_cells && bs->nb == ps->nb) {
    DIFF(!same_array(bs->scalar_cell_dofs, ps->scalar_cell_dofs, bm->n_cells * bs->nb, 8), "scalar_cell_dofs");
    DIFF(!same_array(bs->cell_dofs, ps->cell_dofs, bm->n_cells * bs->nbc, 8), "cell_dofs");
    DIFF(!same_array(bs->coordinates, ps->coordinates, bs->n_scalar_dofs * 3, 8), "dof coordinates");
    DIFF(!same_array(bs->whole_scalar_dof, ps->whole_scalar_dof, bs->n_scalar_dofs, 8), "whole dofs");
    DIFF(!same_array(bs->whole_cell, ps->whole_cell, bm->n_cells, 8), "whole cells");
  }
  DIFF(bs->whole_cells != ps->whole_cells || bs->whole_scalar_dofs != ps->whole_scalar_dofs, "whole counts");
#undef DIFF
  return diff;
}

enum { CURVE = ROWS + 1 }; /* check_build's partitions: ROWS, SCATTERED or the Morton curve's */
static void check_build(const char *path, int order, int components, int how, int nparts, int scatter_groups,
                        int fail_rank, int corrupt) {
  feint_mesh *m = NULL;
  feint_space *s = NULL;
  if (!read_space(path, order, components, &m, &s)) return;
  /* groups: 1 scattered (sent one a cell, not as runs), 2 none at all (a mesh without physical groups' cells) */
  for (int64_t c = 0; scatter_groups == 1 && m->cell_group && c < m->n_cells; c += 3) m->cell_group[c] = -1;
  if (scatter_groups == 2) {
    free(m->cell_group);
    m->cell_group = NULL;
  }
  int *part = NULL; /* the rows partition: none */
  if (how != ROWS) {
    part = malloc((size_t)m->n_cells * sizeof *part);
    for (int64_t c = 0; c < m->n_cells; c++) part[c] = scattered_part(c, nparts);
    if (how == CURVE) CHECK_OK(feint_dist_partition_curve(m, nparts, part));
  }
  feint_dist_slab *slab[8] = {0};
  slab_build *b[8] = {0};
  void *slab_msg[8] = {0}, **in[8];
  size_t *in_bytes[8];
  feint_mesh *built_mesh[8] = {0};
  feint_space *built[8] = {0};
  int status[8] = {0};
  for (int k = 0; k < nparts; k++) {
    in[k] = calloc((size_t)nparts, sizeof **in);
    in_bytes[k] = calloc((size_t)nparts, sizeof **in_bytes);
    CHECK_OK(slab_build_create(nparts, k, &b[k]));
    CHECK_OK(feint_dist_slab_create(s, part, k, nparts, &slab[k]));
    if (k == 0) continue;
    /* through the message a worker receives: its pieces back to back */
    feint_comm_message msg;
    void *head = NULL;
    CHECK_OK(feint_dist_slab_message(slab[k], &msg, &head));
    size_t total = 0;
    for (int i = 0; i < msg.n; i++) total += msg.sizes[i];
    char *buf = malloc(total + 1);
    for (size_t i = 0, at = 0; (int)i < msg.n; at += msg.sizes[i], i++)
      if (msg.sizes[i]) memcpy(buf + at, msg.pieces[i], msg.sizes[i]);
    free(head);
    feint_dist_slab_destroy(slab[k]);
    slab[k] = NULL;
    slab_msg[k] = buf;
    if (corrupt && k == fail_rank) /* the last cell's last node, in the message's cells after its head */
      memcpy(buf + msg.sizes[0] + msg.sizes[1] - 8, &(int64_t){s->n_scalar_dofs}, 8);
    CHECK_OK(feint_dist_slab_read(buf, total, &slab[k]));
    CHECK(feint_dist_slab_read(buf, total - 1, &(feint_dist_slab *){NULL}) != FEINT_OK, "a slab cut short is refused");
    feint_error_clear();
  }
  for (int k = 0; k < nparts; k++)
    status[k] = slab_route(b[k], slab[k],
                           k == fail_rank && !corrupt ? feint_error_set(FEINT_ERR_INPUT, "injected") : FEINT_OK);
  for (int k = 0; k < nparts; k++) { /* the build keeps what it needs of the slab: the slab goes now */
    feint_dist_slab_destroy(slab[k]);
    free(slab_msg[k]);
    slab[k] = NULL;
    slab_msg[k] = NULL;
  }
  carry_all(b, nparts, in, in_bytes);
  for (int k = 0; k < nparts; k++) status[k] = slab_request(b[k], status[k], in[k], in_bytes[k]);
  carry_all(b, nparts, in, in_bytes);
  for (int k = 0; k < nparts; k++) status[k] = slab_answer(b[k], status[k], in[k], in_bytes[k]);
  carry_all(b, nparts, in, in_bytes);
  for (int k = 0; k < nparts; k++)
    status[k] = slab_finish(b[k], status[k], in[k], in_bytes[k], &built_mesh[k], &built[k]);
  feint_error_clear();
  for (int k = 0; k < nparts; k++) {
    if (fail_rank >= 0) {
      const int own = corrupt ? FEINT_ERR_COMPUTE : FEINT_ERR_INPUT;
      CHECK(status[k] == (k == fail_rank ? own : FEINT_DIST_PEER_FAILED) && !built[k] && !built_mesh[k],
            "%s: rank %d of %d, rank %d failing: status %d", path, k, nparts, fail_rank, status[k]);
    } else {
      void *packed = NULL;
      size_t packed_bytes = 0;
      feint_dist_part pt;
      CHECK_OK(feint_dist_part_pack(s, part, k, nparts, &packed, &packed_bytes, &pt));
      feint_mesh *pm = NULL;
      feint_space *ps = NULL;
      CHECK_OK(feint_dist_part_unpack(packed, packed_bytes, &pm, &ps));
      CHECK(status[k] == FEINT_OK && built[k] && built_mesh[k] && ps, "%s x%d: rank %d of %d built its part", path,
            components, k, nparts);
      if (built[k] && ps) {
        const char *diff = part_differs(built_mesh[k], built[k], pm, ps);
        CHECK(!*diff, "%s x%d: rank %d of %d built its part as rank 0 packs it; differs in: %s", path, components, k,
              nparts, diff);
      }
      feint_space_destroy(ps);
      feint_mesh_destroy(pm);
      free(packed);
      feint_dist_part_release(&pt);
    }
    feint_space_destroy(built[k]);
    feint_mesh_destroy(built_mesh[k]);
    free(in[k]);
    free(in_bytes[k]);
    slab_build_destroy(b[k]);
    feint_dist_slab_destroy(slab[k]);
    free(slab_msg[k]);
  }
  if (fail_rank < 0)
    printf("%s P%d x%d, %d ranks (%s): every part built from slabs as rank 0 packs it\n", path, order, components,
           nparts, how == ROWS ? "rows" : how == CURVE ? "curve" : "scattered");
  free(part);
  feint_space_destroy(s);
  feint_mesh_destroy(m);
}

/* The curve's parts: sizes within one of each other, every cell placed,
 * the same parts again; compact: fewer cells with a neighbour (a shared
 * vertex) in another part than a scattered partition has. */
static void check_curve(const char *path, int nparts) {
  feint_mesh *m = NULL;
  feint_mesh_options o = {0};
  CHECK_OK(feint_mesh_read(path, &o, &m));
  if (!m) return;
  int *part = malloc((size_t)m->n_cells * sizeof *part), *again = malloc((size_t)m->n_cells * sizeof *again);
  int64_t *size = calloc((size_t)nparts, sizeof *size);
  CHECK_OK(feint_dist_partition_curve(m, nparts, part));
  CHECK_OK(feint_dist_partition_curve(m, nparts, again));
  CHECK(!memcmp(part, again, (size_t)m->n_cells * sizeof *part), "%s: the curve's parts differ between runs", path);
  for (int64_t c = 0; c < m->n_cells; c++) {
    CHECK(part[c] >= 0 && part[c] < nparts, "%s: cell %lld in part %d", path, (long long)c, part[c]);
    if (part[c] >= 0 && part[c] < nparts) size[part[c]]++;
  }
  int64_t lo = m->n_cells, hi = 0;
  for (int k = 0; k < nparts; k++) {
    lo = size[k] < lo ? size[k] : lo;
    hi = size[k] > hi ? size[k] : hi;
  }
  CHECK(hi - lo <= 1, "%s: parts of %lld .. %lld cells", path, (long long)lo, (long long)hi);
  /* vertices touched by more than one part: curve against scattered */
  int *owner = malloc((size_t)m->n_nodes * sizeof *owner);
  int64_t shared[2] = {0, 0};
  for (int pass = 0; pass < 2; pass++) {
    for (int64_t v = 0; v < m->n_nodes; v++) owner[v] = -1;
    for (int64_t c = 0; c < m->n_cells; c++) {
      const int k = pass ? scattered_part(c, nparts) : part[c];
      for (int v = 0; v < m->nv && m->cells[c * m->nv + v] >= 0; v++) {
        const int64_t g = m->cells[c * m->nv + v];
        if (owner[g] == -1) owner[g] = k;
        else if (owner[g] != k && owner[g] != -2) owner[g] = -2;
      }
    }
    for (int64_t v = 0; v < m->n_nodes; v++) shared[pass] += owner[v] == -2;
  }
  CHECK(shared[0] * 2 < shared[1], "%s: the curve's parts share %lld vertices, scattered ones %lld", path,
        (long long)shared[0], (long long)shared[1]);
  printf("%s: curve into %d parts of %lld..%lld cells, %lld shared vertices (scattered: %lld)\n", path, nparts,
         (long long)lo, (long long)hi, (long long)shared[0], (long long)shared[1]);
  free(owner);
  free(size);
  free(part);
  free(again);
  feint_mesh_destroy(m);
}

/* feint_comm_exchange's rounds: each unordered pair exactly once, symmetric, never with itself. */
static void check_rounds(void) {
  for (int size = 1; size <= 65; size++) {
    int *met = calloc((size_t)size * size, sizeof *met);
    for (int k = 0; k < feint_comm_rounds(size); k++)
      for (int r = 0; r < size; r++) {
        const int q = feint_comm_round_partner(r, k, size);
        if (q < 0) continue;
        CHECK(q != r && q < size, "size %d round %d: rank %d paired with %d", size, k, r, q);
        CHECK(feint_comm_round_partner(q, k, size) == r, "size %d round %d: %d -> %d, not back", size, k, r, q);
        if (q != r && q < size) met[r * size + q]++;
      }
    for (int r = 0; r < size; r++)
      for (int q = 0; q < size; q++)
        CHECK(met[r * size + q] == (r != q), "size %d: ranks %d and %d met %d times", size, r, q, met[r * size + q]);
    free(met);
  }
  printf("exchange rounds: every two of 1..65 ranks meet once\n");
}

/* The owners' blocks: contiguous, from 0 to n, whole groups, as even as groups allow. */
static void check_row_blocks(void) {
  const int64_t ns[] = {0, 1, 3, 7, 96, 1001, 3000000001LL};
  for (size_t t = 0; t < sizeof ns / sizeof *ns; t++)
    for (int64_t group = 1; group <= 3; group++) {
      const int64_t n = ns[t] / group * group;
      for (int size = 1; size <= 9; size++) {
        CHECK(feint_dist_row_start(n, group, size, 0) == 0, "n %lld: rank 0 starts past 0", (long long)n);
        int64_t lo = INT64_MAX, hi = 0;
        for (int r = 0; r < size; r++) {
          const int64_t a = feint_dist_row_start(n, group, size, r);
          const int64_t b = r + 1 == size ? n : feint_dist_row_start(n, group, size, r + 1);
          CHECK(a <= b && a % group == 0, "n %lld group %lld size %d rank %d: [%lld, %lld)", (long long)n,
                (long long)group, size, r, (long long)a, (long long)b);
          if (b - a < lo) lo = b - a;
          if (b - a > hi) hi = b - a;
        }
        CHECK(hi - lo <= group, "n %lld group %lld size %d: blocks of %lld to %lld rows", (long long)n,
              (long long)group, size, (long long)lo, (long long)hi);
      }
    }
  printf("row blocks: contiguous, whole groups, even to a group\n");
}

int main(void) {
  check_rounds();
  check_row_blocks();
  check_curve("cases/cube.geo", 3);
  check_curve("cases/square.geo", 4);
  check_curve("tests/data/tet_prism_hex_cube.geo", 3);
  for (int p = 1; p <= 3; p++) check_mesh("cases/cube.geo", p, 1, SCATTERED, 3);
  check_mesh("cases/cube.geo", 1, 1, BLOCKS, 2);
  check_mesh("cases/cube.geo", 2, 3, BLOCKS, 4);
  check_mesh("cases/square.geo", 3, 2, SCATTERED, 3);
  check_mesh("cases/hexcube.geo", 3, 3, SCATTERED, 3);
  check_mesh("cases/prismcube.geo", 3, 1, BLOCKS, 3);
  check_mesh("cases/mixedsquare.geo", 3, 2, SCATTERED, 2);
  check_mesh("cases/mixedsquare.geo", 3, 1, BY_SHAPE, 2);
  check_mesh("tests/data/tet_prism_hex_cube.geo", 2, 1, BY_SHAPE, 3);
  check_mesh("tests/data/tet_prism_hex_cube.geo", 2, 3, SCATTERED, 4);
  check_mesh("cases/cube.geo", 1, 1, ROWS, 3);
  check_corrupt("cases/square.geo", 2);
  check_mesh("cases/cube.geo", 2, 3, ROWS, 4);
  check_mesh("cases/hexcube.geo", 3, 1, ROWS, 3);
  check_mesh("cases/mixedsquare.geo", 3, 2, ROWS, 2);
  check_mesh("tests/data/tet_prism_hex_cube.geo", 2, 1, ROWS, 3);
  check_build("cases/cube.geo", 1, 1, ROWS, 3, 0, -1, 0);
  check_build("cases/cube.geo", 1, 3, ROWS, 4, 1, -1, 0);
  check_build("cases/two-materials.geo", 1, 1, ROWS, 2, 0, -1, 0);
  check_build("cases/square.geo", 1, 2, ROWS, 3, 0, -1, 0);
  check_build("tests/data/split_cube.geo", 1, 1, ROWS, 5, 1, -1, 0);
  check_build("cases/square.geo", 1, 1, ROWS, 1, 0, -1, 0);
  check_build("cases/cube.geo", 1, 1, ROWS, 3, 0, 1, 0);
  check_build("cases/cube.geo", 1, 1, ROWS, 3, 0, 2, 1);
  check_build("cases/cube.geo", 1, 1, CURVE, 3, 0, -1, 0);
  check_build("cases/cube.geo", 1, 3, SCATTERED, 4, 1, -1, 0);
  check_build("cases/two-materials.geo", 1, 1, CURVE, 5, 0, -1, 0);
  check_build("cases/square.geo", 1, 1, SCATTERED, 2, 1, 0, 0);
  check_build("cases/cube.geo", 1, 1, ROWS, 3, 2, -1, 0);
  check_build("cases/cube.geo", 1, 1, CURVE, 2, 2, -1, 0);
  /* higher orders, other shapes: the dofs routed beside the nodes, their coordinates from the rows' owners */
  check_build("cases/cube.geo", 2, 3, CURVE, 3, 0, -1, 0);
  check_build("cases/cube.geo", 3, 1, ROWS, 4, 1, -1, 0);
  check_build("cases/square.geo", 3, 2, SCATTERED, 3, 0, -1, 0);
  check_build("cases/hexcube.geo", 3, 3, CURVE, 3, 0, -1, 0);
  check_build("cases/prismcube.geo", 3, 1, ROWS, 3, 0, -1, 0);
  check_build("cases/mixedsquare.geo", 3, 2, CURVE, 2, 1, -1, 0);
  check_build("cases/mixedsquare.geo", 1, 1, ROWS, 3, 0, -1, 0);
  check_build("tests/data/tet_prism_hex_cube.geo", 2, 1, SCATTERED, 4, 2, -1, 0);
  check_build("tests/data/tet_prism_hex_cube.geo", 2, 1, CURVE, 3, 0, 1, 0);
  check_build("tests/data/ball2.geo", 2, 1, CURVE, 3, 0, -1, 0); /* curved cells: their geometry routed too */
  check_build("tests/data/disc2.geo", 1, 2, ROWS, 2, 0, -1, 0);
  setenv("FEINT_WIDE_INDEX_LIMIT", "100", 1); /* the cells' nodes routed as int64, as past 2^31 nodes */
  check_build("cases/cube.geo", 1, 3, ROWS, 3, 1, -1, 0);
  unsetenv("FEINT_WIDE_INDEX_LIMIT");
  return check_report("t320-dist-part");
}
