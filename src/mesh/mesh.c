/* feint mesh: a Gmsh mesh as a feint_mesh, from one builder over the
 * feint_msh model (msh.h) of either source:
 * - .msh files (and any file whose first line is "$MeshFormat"): the native
 *   reader (msh.c); the file is never given to Gmsh, so a malformed or
 *   hostile file is an input error, not a crash or a script run;
 * - .geo files: programs Gmsh runs and meshes, through libgmsh
 *   (gmsh_source.c), which converts Gmsh's model into the same feint_msh,
 *   in a child process under a memory and a time limit (gmsh_child.c).
 * `mesh.refine` on a .msh file: the file is read natively first (so only a
 * well-formed mesh reaches Gmsh), then opened and refined by libgmsh (in
 * the child too).
 * Other extensions are refused (Gmsh would parse an unknown file as a .geo
 * script).
 *
 * The builder visits the entities in (dim, tag) order and, on each, its
 * element blocks in the model's order (Gmsh's): the element pass counts
 * elements by type and per entity and gathers the region cells; the facets
 * of the (dim-1)-dimensional physical groups come from the blocks of the
 * groups' entities; the nodes are numbered 0.. in increasing Gmsh tag
 * order, keeping only those referenced by region cells or group facets.
 *
 * Details beyond the header:
 * - Physical groups are the (dim, physical tag) pairs of the entities,
 *   sorted (as gmshModelGetPhysicalGroups lists them), named from the
 *   model's physical names ("" if none); a group's entities are in
 *   increasing tag order.
 * - MSH 2 files repeat an element once per physical group containing it;
 *   repeated elements (same entity, same node list) are kept once, so cells,
 *   facets, group and type counts agree across MSH 2.2 and 4.1.
 * - A region name that matches no group name but is an integer selects the
 *   (possibly unnamed) physical group of that tag and of the top dimension.
 * - opts->size applies to .geo files only (ignored for .msh).
 * - 2D meshes must lie in a plane z = const; z is stored as 0.
 * - Cells of higher geometry order (curved) are refused, or with
 *   opts->curved_ok (feint info) read by their vertices, which Gmsh lists
 *   first: the straight-sided cells through them, geometry_order set.
 * - Region cells are first-order triangles or quadrilaterals (2D),
 *   tetrahedra, hexahedra or prisms (3D), in one block per type (mesh.h):
 *   cells are gathered by type and numbered block after block in Gmsh type
 *   order (triangles, quadrilaterals; tetrahedra, hexahedra, prisms), each
 *   block in the order read. Cells keep Gmsh's vertex order. With
 *   quadrilateral (hexahedral) cells the facets of the boundary groups are
 *   lines (first-order quadrilaterals); with prisms triangles and
 *   quadrilaterals, stored in rows of 4 (mesh.h); facets of 3D meshes with
 *   several blocks are not read (no boundary conditions there yet).
 * - Node tags must be unique among the nodes; elements must refer to
 *   defined nodes (checked for the region cells and group facets, the
 *   elements feint uses). Node tags up to twice the node count (plus 2^20)
 *   use a direct tag -> node table, sparser ones a sorted index, so a
 *   huge tag cannot make the table huge.
 * - feint_mesh_find_group with dim < 0 matches a group of any dimension. */
#include "feint/mesh.h"

#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include "feint/dist.h"
#include "feint/error.h"
#include "feint/msh.h"
#include "feint/parallel.h"
#include "mesh/msh_gmsh.h"

/* ------------------------------------------------------------------------ */
/* Small helpers */

typedef struct {
  int64_t *a;
  size_t n, cap;
} vec64;

static int vec64_reserve(vec64 *v, size_t extra) {
  if (v->n + extra <= v->cap) return FEINT_OK;
  size_t cap = v->cap ? v->cap : 1024;
  while (cap < v->n + extra) cap *= 2;
  int64_t *a = realloc(v->a, cap * sizeof *a);
  if (!a)
    return feint_error_set(FEINT_ERR_COMPUTE, "out of memory allocating mesh arrays (%zu bytes)",
                           cap * sizeof *a);
  v->a = a;
  v->cap = cap;
  return FEINT_OK;
}

typedef struct {
  int type;
  const char *name; /* Gmsh's name, e.g. "Tetrahedron 4" */
  char *friendly;   /* "4-node tetrahedron" */
  int dim, num_nodes;
  int64_t count;    /* elements of this type in the whole file */
} type_info;

static int cmp_int(const void *pa, const void *pb) {
  int a = *(const int *)pa, b = *(const int *)pb;
  return (a > b) - (a < b);
}

static int cmp_type(const void *pa, const void *pb) {
  const type_info *a = pa, *b = pb;
  return (a->type > b->type) - (a->type < b->type);
}

/* Working state of one build. */
typedef struct {
  const char *path;
  char pre[512]; /* "where: " or "" */
  feint_mesh *m;
  feint_msh *x;  /* the model; the builder may take its element arrays */

  type_info *types;
  int n_types, cap_types;

  /* per model entity: its blocks blk_off[i] .. blk_off[i+1] - 1, and its
   * elements of its own dimension */
  size_t *blk_off;
  int64_t *ent_count;

  /* entities of each physical group */
  size_t *gent_off; /* n_groups + 1 */
  int *gent;

  int *region; /* sorted tags of region entities of dimension dim */
  size_t n_region;

  vec64 cells, facets;
  vec64 cell_group_v; /* per cell */
  /* region cells by Gmsh type (2..6) as read, gathered into cells and
   * cell_group_v block by block (gather_blocks) */
  vec64 cells_of[7], group_of[7];

  int may_repeat; /* MSH 2 file: elements may be repeated (see dedup_rows) */
  int curved_ok;  /* opts->curved_ok: higher-order cells read by their vertices */
  int cell_gtype; /* Gmsh type of the first region cells met (0 until then) */
  int n_cell_gtypes; /* region cell types met */
  int met[7];        /* region cell types met, by Gmsh type */
  /* curved cells by Gmsh type (2..6) as read: each cell's node tags
   * (vertices first), geo_nn_of[t] a cell; gathered into geo, rows of
   * geo_nn (the widest type's) padded with ROW_PAD, block by block */
  vec64 geo_of[7];
  int geo_nn_of[7], geo_order_of[7];
  vec64 geo;
  int geo_nn;

  /* a share's read (feint_mesh_read_share): the region's blocks as
   * read_elements meets them, their rows read once the whole's cells are
   * counted (read_share_rows) */
  feint_mesh_share *share;
  int reduced; /* share->reduce was called */
  struct share_block {
    feint_msh_block *B;
    int gtype;
    int64_t group;
  } *share_blocks;
  size_t n_share_blocks, cap_share_blocks;
} reader;

/* The padding of rows: a triangle's 4th entry among the facets of prism
 * meshes, the entries past a narrower block's vertices among the cells of
 * mixed meshes (mesh.h). */
#define ROW_PAD (-1)

/* Gmsh first-order cell types feint reads as region cells. */
static int cell_gtype_ok(int dim, int type) {
  return dim == 3 ? type == 4 || type == 5 || type == 6 : type == 2 || type == 3;
}
static int gtype_nv(int type) { return type == 5 ? 8 : type == 6 ? 6 : type == 4 || type == 3 ? 4 : 3; }
static feint_cell_type gtype_cell(int type) {
  return type == 5 ? FEINT_CELL_HEXAHEDRON
         : type == 6 ? FEINT_CELL_PRISM
         : type == 4 ? FEINT_CELL_TETRAHEDRON
         : type == 3 ? FEINT_CELL_QUADRILATERAL
                     : FEINT_CELL_TRIANGLE;
}

/* What feint reads, for messages. */
#define SUPPORTED_CELLS                                                                              \
  "feint supports straight-sided (first-order) cells: 3-node triangles and 4-node quadrilaterals "   \
  "in 2D, 4-node tetrahedra, 8-node hexahedra and 6-node prisms in 3D (Gmsh types 2 to 6), and "     \
  "curved triangles and tetrahedra of order 2 and 3 (6- and 10-node triangles, 10- and 20-node "        \
  "tetrahedra: Gmsh types 9, 21, 11, 29), curved quadrilaterals and hexahedra of order 2 and 3 (9- "     \
  "and 16-node quadrilaterals, 27- and 64-node hexahedra: types 10, 36, 12, 92), prisms of order 2 "   \
  "(18 nodes: type 13) and the incomplete 8-node quadrilaterals, 20-node hexahedra and 15-node "       \
  "prisms (types 16, 17, 18)"

/* Curved cells whose geometry feint keeps: complete triangles,
 * tetrahedra, quadrilaterals and hexahedra of order 2 and 3; prisms of
 * order 2; the incomplete quadrilaterals, hexahedra and prisms of order 2. */
static int keeps_geometry(int type) {
  return type == 9 || type == 11 || type == 21 || type == 29 || type == 10 || type == 12 || type == 13 || type == 16 ||
         type == 17 || type == 18 || type == 36 || type == 92;
}

/* The first-order Gmsh type of a line or cell type feint reads (1..6)
 * whose geometry is of higher order, and that order in *order; 0 for
 * other types. Gmsh lists such an element's vertices first, as the
 * first-order element's; the order follows from the node count: complete
 * elements, or incomplete ("serendipity": no interior nodes; the names
 * ending in I) where no complete one has that count. */
static int curved_linear_type(int type, int *order) {
  static const char *const families[] = {NULL, "Line ", "Triangle ", "Quadrilateral ", "Tetrahedron ",
                                         "Hexahedron ", "Prism "};
  const char *name = feint_msh_type_name(type);
  const long n = feint_msh_type_nodes(type);
  *order = 0;
  if (!name || type <= 6) return 0;
  for (int f = 1; f <= 6; f++) {
    const size_t len = strlen(families[f]);
    if (strncmp(name, families[f], len) || name[len] < '0' || name[len] > '9') continue;
    const int incomplete_only = name[strlen(name) - 1] == 'I';
    for (int pass = incomplete_only; pass < 2; pass++)
      for (long p = 2; p <= 10; p++) {
        const long q = p + 1;
        static const long none = -1;
        const long complete[] = {0, q, q * (p + 2) / 2, q * q, q * (p + 2) * (p + 3) / 6, q * q * q, q * q * (p + 2) / 2};
        const long serendipity[] = {0, none, 3 * p, 4 * p, 6 * p - 2, 12 * p - 4, 9 * p - 3};
        if ((pass ? serendipity : complete)[f] == n) {
          *order = (int)p;
          return f;
        }
      }
  }
  return 0;
}

static int type_lookup(reader *r, int type, type_info **out) {
  for (int i = 0; i < r->n_types; i++)
    if (r->types[i].type == type) {
      *out = &r->types[i];
      return FEINT_OK;
    }
  const char *name = feint_msh_type_name(type);
  if (!name || feint_msh_type_nodes(type) <= 0)
    return feint_error_set(FEINT_ERR_INPUT, "%smesh %s: unknown element type %d", r->pre, r->path, type);
  if (r->n_types == r->cap_types) {
    int cap = r->cap_types ? 2 * r->cap_types : 16;
    type_info *t = realloc(r->types, (size_t)cap * sizeof *t);
    if (!t) return feint_error_set(FEINT_ERR_COMPUTE, "out of memory allocating type table");
    r->types = t;
    r->cap_types = cap;
  }
  type_info *t = &r->types[r->n_types];
  memset(t, 0, sizeof *t);
  t->type = type;
  t->name = name;
  t->dim = feint_msh_type_dim(type);
  t->num_nodes = feint_msh_type_nodes(type);
  /* "Tetrahedron 10" -> "10-node tetrahedron" */
  char fam[64];
  size_t k = 0;
  for (; t->name[k] && t->name[k] != ' ' && k + 1 < sizeof fam; k++)
    fam[k] = (char)((t->name[k] >= 'A' && t->name[k] <= 'Z') ? t->name[k] - 'A' + 'a' : t->name[k]);
  fam[k] = '\0';
  char fr[128];
  if (t->num_nodes > 1)
    snprintf(fr, sizeof fr, "%d-node %s", t->num_nodes, fam);
  else
    snprintf(fr, sizeof fr, "%s", fam);
  FEINT_CALL(feint_strdup(fr, &t->friendly));
  r->n_types++;
  *out = t;
  return FEINT_OK;
}

/* MSH 2 files repeat an element once per physical group that holds it (with
 * a new element tag each time), and Gmsh keeps the copies on the entity.
 * Marks in keep[] the first occurrence of each row of nn node tags; returns
 * the number kept in *kept. O(n) with a hash table. */
static int dedup_rows(const reader *r, const int64_t *rows, size_t n, int nn, unsigned char *keep,
                      size_t *kept) {
  *kept = n;
  memset(keep, 1, n);
  if (n < 2 || !r->may_repeat) return FEINT_OK; /* MSH 4 files store each element once */
  size_t cap = 16;
  while (cap < 2 * n) cap *= 2;
  int64_t *table = NULL;
  FEINT_CALL(feint_malloc(cap, sizeof *table, &table, "mesh element hash table"));
  for (size_t i = 0; i < cap; i++) table[i] = -1;
  size_t dup = 0;
  for (size_t e = 0; e < n; e++) {
    const int64_t *r = rows + e * (size_t)nn;
    uint64_t h = 1469598103934665603ull;
    for (int k = 0; k < nn; k++) {
      h ^= (uint64_t)r[k];
      h *= 1099511628211ull;
      h ^= h >> 29;
    }
    size_t slot = (size_t)h & (cap - 1);
    for (;;) {
      int64_t o = table[slot];
      if (o < 0) {
        table[slot] = (int64_t)e;
        break;
      }
      if (memcmp(rows + (size_t)o * (size_t)nn, r, (size_t)nn * sizeof *r) == 0) {
        keep[e] = 0;
        dup++;
        break;
      }
      slot = (slot + 1) & (cap - 1);
    }
  }
  free(table);
  *kept = n - dup;
  return FEINT_OK;
}

static int keep_reserve(unsigned char **keep, size_t *cap, size_t n) {
  if (n <= *cap && *keep) return FEINT_OK;
  free(*keep);
  *keep = NULL;
  *cap = 0;
  FEINT_CALL(feint_malloc(n + 1, 1, keep, "mesh element flags"));
  *cap = n + 1;
  return FEINT_OK;
}

static int in_sorted(const int *a, size_t n, int v) {
  return n && bsearch(&v, a, n, sizeof *a, cmp_int) != NULL;
}

static int cmp_entity(const void *pa, const void *pb) {
  const feint_msh_entity *a = pa, *b = pb;
  if (a->dim != b->dim) return a->dim < b->dim ? -1 : 1;
  return (a->tag > b->tag) - (a->tag < b->tag);
}

/* Index of the model entity (dim, tag), -1 if none. */
static int64_t find_entity(const reader *r, int dim, int tag) {
  feint_msh_entity key = {.dim = dim, .tag = tag};
  const feint_msh_entity *e =
      r->x->n_entities ? bsearch(&key, r->x->entities, r->x->n_entities, sizeof key, cmp_entity) : NULL;
  return e ? (int64_t)(e - r->x->entities) : -1;
}

static int group_has_entity(const reader *r, int g, int tag) {
  for (size_t k = r->gent_off[g]; k < r->gent_off[g + 1]; k++)
    if (r->gent[k] == tag) return 1;
  return 0;
}

/* Comma-separated names of the named groups of dimension dim. */
const char *feint_mesh_group_names(const feint_mesh *m, int dim, char *buf, size_t len) {
  buf[0] = '\0';
  int any = 0;
  for (int g = 0; g < m->n_groups; g++) {
    if (m->groups[g].dim != dim || !m->groups[g].name[0]) continue;
    size_t used = strlen(buf);
    snprintf(buf + used, len - used, "%s%s", any ? ", " : "", m->groups[g].name);
    any = 1;
  }
  return buf;
}

/* ------------------------------------------------------------------------ */
/* Steps */

/* Each entity's range of blocks (both are sorted by (dim, tag)). */
static int index_blocks(reader *r) {
  const feint_msh *x = r->x;
  FEINT_CALL(feint_calloc(x->n_entities + 1, sizeof *r->blk_off, &r->blk_off, "mesh entity index"));
  FEINT_CALL(feint_calloc(x->n_entities + 1, sizeof *r->ent_count, &r->ent_count, "mesh entity counts"));
  size_t b = 0;
  for (size_t i = 0; i < x->n_entities; i++) {
    r->blk_off[i] = b;
    while (b < x->n_blocks && x->blocks[b].dim == x->entities[i].dim && x->blocks[b].tag == x->entities[i].tag) b++;
  }
  r->blk_off[x->n_entities] = b;
  if (b != x->n_blocks)
    return feint_error_set(FEINT_ERR_COMPUTE, "%smesh %s: element blocks out of entity order", r->pre, r->path);
  return FEINT_OK;
}

/* (dim, physical tag, entity tag) of every entity's physical tags, sorted:
 * the groups in gmshModelGetPhysicalGroups order, their entities by tag. */
typedef struct {
  int dim, phys, tag;
} group_entity;

static int cmp_group_entity(const void *pa, const void *pb) {
  const group_entity *a = pa, *b = pb;
  if (a->dim != b->dim) return a->dim < b->dim ? -1 : 1;
  if (a->phys != b->phys) return a->phys < b->phys ? -1 : 1;
  return (a->tag > b->tag) - (a->tag < b->tag);
}

static int read_groups(reader *r) {
  feint_mesh *m = r->m;
  const feint_msh *x = r->x;
  size_t total = 0;
  for (size_t i = 0; i < x->n_entities; i++) total += x->entities[i].n_physicals;
  group_entity *ge = NULL;
  FEINT_CALL(feint_malloc(total + 1, sizeof *ge, &ge, "mesh groups"));
  size_t n = 0;
  for (size_t i = 0; i < x->n_entities; i++)
    for (size_t k = 0; k < x->entities[i].n_physicals; k++)
      ge[n++] = (group_entity){x->entities[i].dim, x->entities[i].physicals[k], x->entities[i].tag};
  if (n) qsort(ge, n, sizeof *ge, cmp_group_entity);
  /* unique (an entity listing a physical tag twice counts once) */
  size_t w = 0;
  for (size_t i = 0; i < n; i++)
    if (!w || cmp_group_entity(&ge[w - 1], &ge[i])) ge[w++] = ge[i];
  n = w;
  int ng = 0;
  for (size_t i = 0; i < n; i++) ng += !i || ge[i].dim != ge[i - 1].dim || ge[i].phys != ge[i - 1].phys;
  int st = FEINT_OK;
  if ((st = feint_calloc((size_t)ng + 1, sizeof *m->groups, &m->groups, "mesh groups")) ||
      (st = feint_calloc((size_t)ng + 1, sizeof *r->gent_off, &r->gent_off, "mesh groups")) ||
      (st = feint_malloc(n + 1, sizeof *r->gent, &r->gent, "mesh groups"))) {
    free(ge);
    return st;
  }
  int g = -1;
  for (size_t i = 0; i < n && !st; i++) {
    if (!i || ge[i].dim != ge[i - 1].dim || ge[i].phys != ge[i - 1].phys) {
      feint_mesh_group *G = &m->groups[++g];
      G->dim = ge[i].dim;
      G->tag = ge[i].phys;
      const char *name = "";
      for (size_t k = 0; k < x->n_names; k++) /* the last name given wins */
        if (x->names[k].dim == G->dim && x->names[k].tag == G->tag) name = x->names[k].name;
      st = feint_strdup(name, &G->name);
      m->n_groups = g + 1;
      r->gent_off[g] = i;
    }
    r->gent[i] = ge[i].tag;
    r->gent_off[g + 1] = i + 1;
  }
  free(ge);
  return st;
}

static int find_top_dim(reader *r) {
  const feint_msh *x = r->x;
  int top = -1;
  for (size_t b = 0; b < x->n_blocks; b++)
    if (x->blocks[b].n && x->blocks[b].dim > top) top = x->blocks[b].dim;
  if (top < 0) return feint_error_set(FEINT_ERR_INPUT, "%smesh %s contains no elements", r->pre, r->path);
  if (top < 2)
    return feint_error_set(FEINT_ERR_INPUT,
                           "%smesh %s has no 2D or 3D elements (its highest dimension is %d); "
                           "feint needs triangles or tetrahedra",
                           r->pre, r->path, top);
  r->m->dim = top;
  return FEINT_OK;
}

static int resolve_region(reader *r, const feint_mesh_options *opts) {
  feint_mesh *m = r->m;
  int D = m->dim;
  char names[1024];
  if (!opts || opts->n_region == 0) {
    const feint_msh *x = r->x;
    FEINT_CALL(feint_malloc(x->n_entities + 1, sizeof *r->region, &r->region, "mesh region"));
    for (size_t i = 0; i < x->n_entities; i++)
      if (x->entities[i].dim == D) r->region[r->n_region++] = x->entities[i].tag;
  } else {
    size_t total = 0;
    for (int g = 0; g < m->n_groups; g++) total += r->gent_off[g + 1] - r->gent_off[g];
    FEINT_CALL(feint_malloc(total + 1, sizeof *r->region, &r->region, "mesh region"));
    for (int i = 0; i < opts->n_region; i++) {
      const char *want = opts->region[i];
      int found = -1, other_dim = -1;
      for (int g = 0; g < m->n_groups; g++) {
        if (strcmp(m->groups[g].name, want) != 0) continue;
        if (m->groups[g].dim == D) {
          found = g;
          break;
        }
        if (m->groups[g].dim > other_dim) other_dim = m->groups[g].dim;
      }
      if (found < 0 && other_dim < 0 && want[0]) {
        /* an unnamed group may be selected by its number */
        char *end = NULL;
        long tag = strtol(want, &end, 10);
        if (end && *end == '\0')
          for (int g = 0; g < m->n_groups; g++)
            if (m->groups[g].dim == D && m->groups[g].tag == tag) {
              found = g;
              break;
            }
      }
      if (found < 0) {
        feint_mesh_group_names(m, D, names, sizeof names);
        if (other_dim >= 0)
          return feint_error_set(FEINT_ERR_INPUT,
                                 "%sphysical group '%s' in mesh %s has dimension %d; the region "
                                 "needs groups of dimension %d (%s)",
                                 r->pre, want, r->path, other_dim, D,
                                 names[0] ? names : "the mesh has none");
        if (names[0])
          return feint_error_set(FEINT_ERR_INPUT,
                                 "%sunknown physical group '%s' in mesh %s; groups of dimension "
                                 "%d: %s",
                                 r->pre, want, r->path, D, names);
        return feint_error_set(FEINT_ERR_INPUT,
                               "%sunknown physical group '%s' in mesh %s; the mesh has no named "
                               "groups of dimension %d",
                               r->pre, want, r->path, D);
      }
      for (size_t k = r->gent_off[found]; k < r->gent_off[found + 1]; k++)
        r->region[r->n_region++] = r->gent[k];
    }
  }
  /* sort and deduplicate */
  if (r->n_region) {
    qsort(r->region, r->n_region, sizeof *r->region, cmp_int);
    size_t w = 1;
    for (size_t i = 1; i < r->n_region; i++)
      if (r->region[i] != r->region[w - 1]) r->region[w++] = r->region[i];
    r->n_region = w;
  }
  return FEINT_OK;
}

/* One pass over all entities: element counts by type and per entity, and the
 * cells of the region entities. */
/* The bulk passes over a large mesh's cells run on every core (a 24M-cell
 * mesh has 96M vertex entries): feint_parallel_for over cells or entries. */
typedef struct {
  int64_t *a;
  int64_t v;
} fill_job;

static void fill_range(int64_t begin, int64_t end, void *ctx) {
  const fill_job *j = ctx;
  for (int64_t i = begin; i < end; i++) j->a[i] = j->v;
}

static void fill_i64(int64_t *a, size_t n, int64_t v) {
  fill_job j = {a, v};
  feint_parallel_for((int64_t)n, 1 << 16, fill_range, &j);
}

typedef struct {
  const int64_t *from;
  int *to;
} narrow_groups;

static void narrow_groups_range(int64_t begin, int64_t end, void *ctx) {
  const narrow_groups *j = ctx;
  for (int64_t c = begin; c < end; c++) j->to[c] = (int)j->from[c];
}

static int read_elements(reader *r) {
  feint_mesh *m = r->m;
  feint_msh *x = r->x;
  int D = m->dim, st = FEINT_OK;
  unsigned char *keep = NULL;
  size_t keep_cap = 0;
  for (size_t i = 0; i < x->n_entities && !st; i++) {
    const feint_msh_entity *E = &x->entities[i];
    int in_region = E->dim == D && in_sorted(r->region, r->n_region, E->tag);
    int64_t group = -1;
    if (in_region)
      for (int g = 0; g < m->n_groups; g++)
        if (m->groups[g].dim == D && group_has_entity(r, g, E->tag)) {
          group = g;
          break;
        }
    for (size_t b = r->blk_off[i]; b < r->blk_off[i + 1] && !st; b++) {
      feint_msh_block *B = &x->blocks[b];
      type_info *T = NULL;
      if ((st = type_lookup(r, B->type, &T))) break;
      size_t ne = B->n, kept = 0;
      if (B->nn != T->num_nodes) {
        st = feint_error_set(FEINT_ERR_INPUT, "%smesh %s: inconsistent element data", r->pre, r->path);
        break;
      }
      if ((st = keep_reserve(&keep, &keep_cap, ne)) ||
          (st = dedup_rows(r, B->nodes, ne, T->num_nodes, keep, &kept)))
        break;
      T->count += (int64_t)kept;
      if (T->dim == E->dim) r->ent_count[i] += (int64_t)kept;
      if (!in_region || ne == 0) continue;
      int order = 1, ct = T->type;
      const int geometry = keeps_geometry(T->type);
      if (!cell_gtype_ok(D, ct)) {
        ct = curved_linear_type(T->type, &order);
        if (ct && cell_gtype_ok(D, ct) && !r->curved_ok && !geometry) {
          st = feint_error_set(FEINT_ERR_INPUT,
                               "%smesh %s: the region holds %s elements (Gmsh type %d, \"%s\"), of geometry "
                               "order %d, which feint does not read yet; " SUPPORTED_CELLS
                               " (save the mesh with first-order elements, gmsh -order 1; feint info "
                               "describes it as it is)",
                               r->pre, r->path, T->friendly, T->type, T->name, order);
          break;
        }
        if (!ct || !cell_gtype_ok(D, ct)) {
          st = feint_error_set(FEINT_ERR_INPUT,
                               "%smesh %s: the region holds %s elements (Gmsh type %d, \"%s\"); " SUPPORTED_CELLS,
                               r->pre, r->path, T->friendly, T->type, T->name);
          break;
        }
        if (order > r->m->geometry_order) r->m->geometry_order = order;
      }
      if (!r->cell_gtype) r->cell_gtype = ct;
      vec64 *cells = &r->cells_of[ct], *groups = &r->group_of[ct];
      if (!r->met[ct]) r->n_cell_gtypes++;
      r->met[ct] = 1;
      if (r->share) { /* the rows of its range, once every block is counted */
        if (geometry || order > 1) {
          r->share->unsuited = "curved cells";
          break;
        }
        if (r->n_share_blocks == r->cap_share_blocks) {
          const size_t cap = r->cap_share_blocks ? 2 * r->cap_share_blocks : 16;
          void *a = realloc(r->share_blocks, cap * sizeof *r->share_blocks);
          if (!a) {
            st = feint_error_set(FEINT_ERR_COMPUTE, "out of memory listing the mesh's blocks");
            break;
          }
          r->share_blocks = a;
          r->cap_share_blocks = cap;
        }
        r->share_blocks[r->n_share_blocks++] = (struct share_block){B, ct, group};
        continue;
      }
      const int nv = gtype_nv(ct), nn = T->num_nodes; /* a curved cell: its vertices, the first nv of nn */
      if ((st = vec64_reserve(groups, kept))) break;
      fill_i64(groups->a + groups->n, kept, group);
      groups->n += kept;
      if (cells->n == 0 && kept == ne && nn == nv) {
        /* the first block of this type, no repeats: take the model's array */
        free(cells->a);
        cells->a = B->nodes;
        cells->n = cells->cap = ne * (size_t)nv;
        B->nodes = NULL;
        continue;
      }
      if ((st = vec64_reserve(cells, kept * (size_t)nv))) break;
      int64_t *dst = cells->a + cells->n;
      const int64_t *src = B->nodes;
      size_t w = 0;
      for (size_t k = 0; k < ne; k++) {
        if (!keep[k]) continue;
        for (int q = 0; q < nv; q++) dst[w++] = src[k * (size_t)nn + (size_t)q];
      }
      cells->n += w;
      if (!geometry) continue;
      /* a curved block: its whole rows, for the geometry (read_nodes); the
       * first block of its type kept whole is taken as it is */
      vec64 *geo = &r->geo_of[ct];
      if (r->geo_nn_of[ct] && r->geo_nn_of[ct] != nn) {
        st = feint_error_set(FEINT_ERR_INPUT, "%smesh %s: the region mixes curved %s of %d and %d nodes; feint reads "
                             "curved meshes of one geometry order", r->pre, r->path,
                             feint_cell_plural(gtype_cell(ct)), r->geo_nn_of[ct], nn);
        break;
      }
      r->geo_nn_of[ct] = nn;
      r->geo_order_of[ct] = order;
      if (geo->n == 0 && kept == ne) {
        free(geo->a);
        geo->a = B->nodes;
        geo->n = geo->cap = ne * (size_t)nn;
        B->nodes = NULL;
        continue;
      }
      if ((st = vec64_reserve(geo, kept * (size_t)nn))) break;
      for (size_t k = 0; k < ne; k++)
        if (keep[k]) {
          memcpy(geo->a + geo->n, B->nodes + k * (size_t)nn, (size_t)nn * sizeof *B->nodes);
          geo->n += (size_t)nn;
        }
    }
  }
  free(keep);
  return st;
}

/* A share's rows: the whole's cells counted by type from the blocks
 * read_elements listed, the share's range of them (whole numbering: type
 * after type, each in the order read) read into cells_of and group_of. */
static int read_share_rows(reader *r) {
  feint_mesh_share *sh = r->share;
  int64_t whole_of[7] = {0}, first_of[7] = {0}, seen[7] = {0}, total = 0;
  for (size_t k = 0; k < r->n_share_blocks; k++) whole_of[r->share_blocks[k].gtype] += (int64_t)r->share_blocks[k].B->n;
  sh->n_blocks = 0;
  for (int t = 2; t <= 6; t++) {
    first_of[t] = total;
    total += whole_of[t];
    if (whole_of[t])
      sh->blocks[sh->n_blocks++] = (feint_mesh_block){gtype_cell(t), gtype_nv(t), first_of[t], whole_of[t], 0, 0};
  }
  sh->whole_cells = total;
  int64_t lo = 0, hi = 0;
  if (total) sh->range(total, sh->size, sh->rank, &lo, &hi);
  sh->cell0 = lo;
  const int simplices = sh->n_blocks == 1 && feint_cell_is_simplex(sh->blocks[0].cell_type);
  if (sh->simplices_only && !simplices && !(lo == 0 && hi == total)) {
    sh->unsuited = "not triangles or tetrahedra of one shape";
    return FEINT_OK;
  }
  for (size_t k = 0; k < r->n_share_blocks; k++) {
    const struct share_block *sb = &r->share_blocks[k];
    const int t = sb->gtype, nv = gtype_nv(t);
    const int64_t g0 = first_of[t] + seen[t], n = (int64_t)sb->B->n;
    seen[t] += n;
    const int64_t a = (lo > g0 ? lo : g0) - g0, b = (hi < g0 + n ? hi : g0 + n) - g0;
    if (a >= b) continue;
    vec64 *cells = &r->cells_of[t], *groups = &r->group_of[t];
    FEINT_CALL(vec64_reserve(groups, (size_t)(b - a)));
    if (cells->n == 0 && a == 0 && b == n && sb->B->nodes && sb->B->nn == nv) {
      /* the first block of its type, whole, read into memory: taken as it is (read_elements does alike) */
      free(cells->a);
      cells->a = sb->B->nodes;
      cells->n = cells->cap = (size_t)n * (size_t)nv;
      sb->B->nodes = NULL;
    } else {
      FEINT_CALL(vec64_reserve(cells, (size_t)(b - a) * (size_t)nv));
      feint_msh_block_rows(sb->B, (size_t)a, (size_t)(b - a), nv, cells->a + cells->n);
      cells->n += (size_t)(b - a) * (size_t)nv;
    }
    fill_i64(groups->a + groups->n, (size_t)(b - a), sb->group);
    groups->n += (size_t)(b - a);
  }
  return FEINT_OK;
}

/* src's rows of src_width appended to dst as rows of width (>= src_width),
 * padded with ROW_PAD; src handed over whole when dst is empty and the
 * widths agree (one block, or the first and widest: its rows as they are). */
static int append_rows(vec64 *dst, vec64 *src, int src_width, int width) {
  if (dst->n == 0 && src_width == width) {
    free(dst->a);
    *dst = *src;
    memset(src, 0, sizeof *src);
    return FEINT_OK;
  }
  const size_t n = src->n / (size_t)src_width;
  FEINT_CALL(vec64_reserve(dst, n * (size_t)width));
  for (size_t c = 0; c < n; c++) {
    int64_t *row = dst->a + dst->n + c * (size_t)width;
    for (int q = 0; q < width; q++) row[q] = q < src_width ? src->a[c * (size_t)src_width + (size_t)q] : ROW_PAD;
  }
  dst->n += n * (size_t)width;
  return FEINT_OK;
}

/* A curved region's geometry rows into r->geo, block by block as
 * gather_blocks orders the cells, rows of the widest block's nodes (a
 * narrower block's padded with ROW_PAD), and each block's node count.
 * Every cell must be curved, and of one geometry order. */
static int gather_curved_blocks(reader *r) {
  feint_mesh *m = r->m;
  int nn = 0, any = 0;
  for (int t = 2; t <= 6; t++) {
    any |= r->geo_of[t].n > 0;
    if (r->geo_nn_of[t] > nn) nn = r->geo_nn_of[t];
  }
  if (!any) return FEINT_OK;
  for (int b = 0; b < m->n_blocks; b++) {
    int t = 2;
    while (gtype_cell(t) != m->blocks[b].cell_type) t++;
    const int bnn = r->geo_nn_of[t];
    if (!bnn || r->geo_of[t].n != (size_t)m->blocks[b].n_cells * (size_t)bnn)
      return feint_error_set(FEINT_ERR_INPUT,
                             "%smesh %s: the region mixes curved cells with straight (first-order) %s; feint reads "
                             "curved meshes whose cells are all of one geometry order",
                             r->pre, r->path, feint_cell_plural(m->blocks[b].cell_type));
    if (r->geo_order_of[t] != m->geometry_order)
      return feint_error_set(FEINT_ERR_INPUT,
                             "%smesh %s: the region mixes curved cells of geometry order %d and %d; feint reads "
                             "curved meshes whose cells are all of one geometry order",
                             r->pre, r->path, r->geo_order_of[t], m->geometry_order);
    m->blocks[b].n_geometry_nodes = bnn;
  }
  r->geo_nn = nn;
  for (int b = 0; b < m->n_blocks; b++) {
    int t = 2;
    while (gtype_cell(t) != m->blocks[b].cell_type) t++;
    FEINT_CALL(append_rows(&r->geo, &r->geo_of[t], r->geo_nn_of[t], nn));
  }
  return FEINT_OK;
}

/* Gmsh facet types of a region's cells (a facet of the group must be one):
 * lines in 2D, triangles (tetrahedra), quadrilaterals (hexahedra), both
 * (prisms). */
static int facet_gtype_ok(int cell_gtype, int dim, int type) {
  switch (cell_gtype) {
    case 5: return type == 3;
    case 6: return type == 2 || type == 3;
    default: return type == (dim == 3 ? 2 : 1);
  }
}

/* Facet Gmsh type `type` is a face of some region cell type met (the union
 * of the blocks' face types: a 3D mixed mesh may have both). */
static int facet_type_met(const reader *r, int dim, int type) {
  for (int t = 2; t <= 6; t++)
    if (r->met[t] && facet_gtype_ok(t, dim, type)) return 1;
  return 0;
}

/* The region cells block by block (Gmsh type order) into r->cells, rows of
 * the widest block's vertex count (padded with -1), and the block table. */
static int gather_blocks(reader *r) {
  feint_mesh *m = r->m;
  int nv = 0;
  for (int t = 2; t <= 6; t++) /* a share's rows are the whole's width */
    if ((r->share ? r->met[t] : r->cells_of[t].n > 0) && gtype_nv(t) > nv) nv = gtype_nv(t);
  m->nv = nv;
  for (int t = 2; t <= 6; t++) {
    vec64 *cells = &r->cells_of[t];
    if (!cells->n) continue;
    const int bnv = gtype_nv(t);
    const size_t n = cells->n / (size_t)bnv;
    feint_mesh_block *B = &m->blocks[m->n_blocks++];
    B->cell_type = gtype_cell(t);
    B->nv = bnv;
    B->first_cell = (int64_t)(r->cell_group_v.n);
    B->n_cells = (int64_t)n;
    FEINT_CALL(append_rows(&r->cells, cells, bnv, nv));
    if (r->cell_group_v.n == 0) {
      free(r->cell_group_v.a);
      r->cell_group_v = r->group_of[t];
      memset(&r->group_of[t], 0, sizeof r->group_of[t]);
      continue;
    }
    FEINT_CALL(vec64_reserve(&r->cell_group_v, n));
    memcpy(r->cell_group_v.a + r->cell_group_v.n, r->group_of[t].a, n * sizeof *r->cell_group_v.a);
    r->cell_group_v.n += n;
  }
  return FEINT_OK;
}

static int read_facets(reader *r) {
  feint_mesh *m = r->m;
  const feint_msh *x = r->x;
  int D = m->dim;
  /* quadrilateral facets (hexahedra or prisms met): rows of 4, triangles padded with ROW_PAD */
  const int quads = D == 3 && (r->met[5] || r->met[6]);
  const int triangles = D == 3 && (r->met[4] || r->met[6]);
  int fdim = D - 1, nvf = quads ? 4 : D == 3 ? 3 : 2;
  m->nv_facet = nvf;
  FEINT_CALL(feint_calloc((size_t)m->n_groups + 1, sizeof *m->facet_offsets, &m->facet_offsets,
                          "mesh facet offsets"));
  unsigned char *keep = NULL;
  size_t keep_cap = 0;
  int st = FEINT_OK;
  for (int g = 0; g < m->n_groups && !st; g++) {
    feint_mesh_group *G = &m->groups[g];
    /* element count of the group's dimension */
    for (size_t k = r->gent_off[g]; k < r->gent_off[g + 1]; k++) {
      int64_t e = find_entity(r, G->dim, r->gent[k]);
      if (e >= 0) G->n_elements += r->ent_count[e];
    }
    for (size_t k = r->gent_off[g]; k < r->gent_off[g + 1] && G->dim == fdim && !st; k++) {
      int64_t e = find_entity(r, fdim, r->gent[k]);
      if (e < 0) continue;
      for (size_t b = r->blk_off[e]; b < r->blk_off[e + 1] && !st; b++) {
        const feint_msh_block *B = &x->blocks[b];
        type_info *T = NULL;
        size_t ne = B->n;
        if ((st = type_lookup(r, B->type, &T))) break;
        if (T->dim != fdim || ne == 0) continue;
        int order = 1, ft = T->type;
        /* a curved mesh's facets (3- and 4-node lines, 6- and 10-node triangles, 9-, 8- and 16-node
         * quadrilaterals): by their vertices */
        const int curved_facet =
            r->geo.n && (ft == 8 || ft == 9 || ft == 26 || ft == 21 || ft == 10 || ft == 16 || ft == 36);
        if ((r->curved_ok || curved_facet) && !facet_type_met(r, D, ft) && curved_linear_type(ft, &order))
          ft = curved_linear_type(ft, &order);
        if (!facet_type_met(r, D, ft)) {
          st = feint_error_set(
              FEINT_ERR_INPUT,
              "%smesh %s: physical group '%s' (dimension %d) contains %s elements (Gmsh type "
              "%d, \"%s\"); facets must be first-order %s",
              r->pre, r->path, G->name, G->dim, T->friendly, T->type, T->name,
              quads && triangles ? "triangles or quadrilaterals" : quads ? "quadrilaterals"
              : D == 3 ? "triangles" : "lines");
          break;
        }
        const int nn = T->num_nodes, nvt = ft == 3 ? 4 : ft == 2 ? 3 : 2; /* nodes; vertices, the first */
        size_t kept = 0;
        if ((st = keep_reserve(&keep, &keep_cap, ne)) ||
            (st = dedup_rows(r, B->nodes, ne, nn, keep, &kept)) ||
            (st = vec64_reserve(&r->facets, kept * (size_t)nvf)))
          break;
        int64_t *dst = r->facets.a + r->facets.n;
        size_t w = 0;
        if (!B->nodes) { /* left in the file (a share's read; no repeats there) */
          feint_msh_block_rows(B, 0, ne, nvt, dst);
          for (size_t j = ne; j-- > 0;)
            for (int q = nvf; q-- > 0;) dst[j * (size_t)nvf + (size_t)q] = q < nvt ? dst[j * (size_t)nvt + (size_t)q] : ROW_PAD;
          w = ne * (size_t)nvf;
        }
        for (size_t j = 0; j < ne && B->nodes; j++) {
          if (!keep[j]) continue;
          for (int q = 0; q < nvf; q++) dst[w++] = q < nvt ? B->nodes[j * (size_t)nn + (size_t)q] : ROW_PAD;
        }
        r->facets.n += w;
      }
    }
    m->facet_offsets[g + 1] = (int64_t)(r->facets.n / (size_t)nvf);
  }
  free(keep);
  return st;
}

/* Node tag -> index into the model's nodes: a direct table when the tags
 * are dense enough, else a tag-sorted index searched by bisection. */
typedef struct {
  const int64_t *tags;
  int64_t max_tag;
  int64_t *direct; /* max_tag + 1 entries, -1: no node; or NULL */
  size_t *sorted;  /* node indices by tag; or NULL */
  size_t n;
} node_index;

static const int64_t *sort_tags;
static int cmp_by_tag(const void *pa, const void *pb) {
  int64_t a = sort_tags[*(const size_t *)pa], b = sort_tags[*(const size_t *)pb];
  if (a != b) return a < b ? -1 : 1;
  return (*(const size_t *)pa > *(const size_t *)pb) - (*(const size_t *)pa < *(const size_t *)pb);
}

static int64_t node_find(const node_index *ix, int64_t tag) {
  if (tag < 1 || tag > ix->max_tag) return -1;
  if (ix->direct) return ix->direct[tag];
  size_t lo = 0, hi = ix->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (ix->tags[ix->sorted[mid]] < tag) lo = mid + 1;
    else hi = mid;
  }
  return lo < ix->n && ix->tags[ix->sorted[lo]] == tag ? (int64_t)ix->sorted[lo] : -1;
}

/* The passes of node_index_build and the numbering over every node, on
 * every core: the largest tag; the direct table filled (a tag given twice
 * leaves one of its nodes, found by the check pass); the used nodes
 * counted per range of tags, then numbered from each range's start. */
typedef struct {
  const int64_t *tags;
  int64_t *direct, *num;
  const atomic_uchar *used;
  int64_t most[FEINT_PARALLEL_MAX_RANGES], count[FEINT_PARALLEL_MAX_RANGES + 1];
  int twice;
} node_table_job;

static void most_range(int64_t a, int64_t b, int t, void *arg) {
  node_table_job *j = arg;
  int64_t most = 0;
  for (int64_t i = a; i < b; i++) most = j->tags[i] > most ? j->tags[i] : most;
  j->most[t] = most;
}

static void direct_range(int64_t a, int64_t b, void *arg) {
  const node_table_job *j = arg;
  for (int64_t i = a; i < b; i++)
    if (j->tags[i] >= 1) __atomic_store_n(&j->direct[j->tags[i]], i, __ATOMIC_RELAXED);
}

static void twice_range(int64_t a, int64_t b, void *arg) {
  node_table_job *j = arg;
  for (int64_t i = a; i < b; i++)
    if (j->tags[i] >= 1 && j->direct[j->tags[i]] != i) {
      __atomic_store_n(&j->twice, 1, __ATOMIC_RELAXED);
      return;
    }
}

/* The used nodes of tags [a, b) counted (into count[t + 1]), then numbered
 * from their range's first number, the table turned into tag -> number. */
static void used_count_range(int64_t a, int64_t b, int t, void *arg) {
  node_table_job *j = arg;
  int64_t n = 0;
  for (int64_t tag = a; tag < b; tag++) n += tag >= 1 && j->direct[tag] >= 0 && j->used[j->direct[tag]];
  j->count[t + 1] = n;
}

static void number_range(int64_t a, int64_t b, int t, void *arg) {
  node_table_job *j = arg;
  int64_t nn = j->count[t];
  for (int64_t tag = a; tag < b; tag++) {
    const int64_t k = j->direct[tag];
    if (tag < 1) continue; /* (tag 0 names no node) */
    if (k >= 0 && j->used[k]) j->num[k] = nn++;
    j->direct[tag] = k >= 0 ? j->num[k] : -1; /* now tag -> number */
  }
}

/* The nodes a cell uses (mark 1), counted per range (into count[t]). */
static void in_cells_range(int64_t a, int64_t b, int t, void *arg) {
  node_table_job *j = arg;
  int64_t n = 0;
  for (int64_t i = a; i < b; i++) n += j->used[i] & 1;
  j->count[t] = n;
}

static int node_index_build(reader *r, node_index *ix) {
  const feint_msh *x = r->x;
  memset(ix, 0, sizeof *ix);
  ix->tags = x->node_tags;
  ix->n = x->n_nodes;
  node_table_job j = {.tags = x->node_tags};
  const int ranges = x->n_nodes ? feint_parallel_for_indexed((int64_t)x->n_nodes, 1 << 16, most_range, &j) : 0;
  for (int t = 0; t < ranges; t++) ix->max_tag = j.most[t] > ix->max_tag ? j.most[t] : ix->max_tag;
  int64_t dup = 0;
  if ((uint64_t)ix->max_tag <= 2 * (uint64_t)x->n_nodes + ((uint64_t)1 << 20)) {
    FEINT_CALL(feint_malloc((size_t)ix->max_tag + 1, sizeof *ix->direct, &ix->direct, "mesh node map"));
    j.direct = ix->direct;
    fill_i64(ix->direct, (size_t)ix->max_tag + 1, -1);
    feint_parallel_for((int64_t)x->n_nodes, 1 << 16, direct_range, &j);
    feint_parallel_for((int64_t)x->n_nodes, 1 << 16, twice_range, &j);
    if (j.twice) { /* again in file order, for the first tag given twice (the message one pass gives) */
      for (int64_t t = 0; t <= ix->max_tag; t++) ix->direct[t] = -1;
      for (size_t i = 0; i < x->n_nodes && !dup; i++) {
        int64_t t = x->node_tags[i];
        if (t < 1) continue; /* not found later */
        if (ix->direct[t] >= 0) dup = t;
        else ix->direct[t] = (int64_t)i;
      }
    }
  } else {
    FEINT_CALL(feint_malloc(x->n_nodes + 1, sizeof *ix->sorted, &ix->sorted, "mesh node index"));
    for (size_t i = 0; i < x->n_nodes; i++) ix->sorted[i] = i;
    sort_tags = x->node_tags;
    if (x->n_nodes) qsort(ix->sorted, x->n_nodes, sizeof *ix->sorted, cmp_by_tag);
    for (size_t i = 1; i < x->n_nodes && !dup; i++)
      if (x->node_tags[ix->sorted[i]] == x->node_tags[ix->sorted[i - 1]]) dup = x->node_tags[ix->sorted[i]];
  }
  if (dup)
    return feint_error_set(FEINT_ERR_INPUT, "%smesh %s: node %lld is defined twice", r->pre, r->path,
                           (long long)dup);
  return FEINT_OK;
}

/* The passes of read_nodes over the cells' and facets' node entries, on
 * every core. Marking a node used is an atomic byte store (two cells may
 * share it); an unknown tag is recorded at its range's first entry so
 * that the message names the first in list order, as one pass would. */
typedef struct {
  const node_index *ix;
  int64_t *a;          /* the entries: tags, then node numbers */
  atomic_uchar *used;  /* per model node */
  const int64_t *num;  /* model node -> number (remap) */
  unsigned char mark;  /* 1: cells' entries, 2: facets' */
  int64_t bad[FEINT_PARALLEL_MAX_RANGES]; /* per range: the first entry with an unknown tag, or -1 */
} node_pass;

static void mark_range(int64_t begin, int64_t end, int range, void *ctx) {
  node_pass *p = ctx;
  for (int64_t i = begin; i < end; i++) {
    const int64_t t = p->a[i];
    if (t == ROW_PAD) continue;
    const int64_t k = node_find(p->ix, t);
    if (k < 0) {
      p->bad[range] = i;
      return;
    }
    /* a cell's node 1; a facet's 2 unless a cell's (the cells are marked first, in a pass of their own) */
    if (p->mark == 1 || !atomic_load_explicit(&p->used[k], memory_order_relaxed))
      atomic_store_explicit(&p->used[k], p->mark, memory_order_relaxed);
  }
}

static void remap_range(int64_t begin, int64_t end, void *ctx) {
  const node_pass *p = ctx;
  if (p->ix->direct) {
    for (int64_t i = begin; i < end; i++)
      if (p->a[i] != ROW_PAD) p->a[i] = p->ix->direct[p->a[i]];
  } else {
    for (int64_t i = begin; i < end; i++)
      if (p->a[i] != ROW_PAD) p->a[i] = p->num[node_find(p->ix, p->a[i])];
  }
}

enum { NODE_PASS_GRAIN = 1 << 16 };

/* Mark the nodes of entries a[0..n) used; -1, or the first entry whose tag no node has. */
static int64_t mark_used(const node_index *ix, int64_t *a, int64_t n, atomic_uchar *used, unsigned char mark) {
  node_pass p = {.ix = ix, .a = a, .used = used, .mark = mark};
  for (int k = 0; k < FEINT_PARALLEL_MAX_RANGES; k++) p.bad[k] = -1;
  const int ranges = feint_parallel_for_indexed(n, NODE_PASS_GRAIN, mark_range, &p);
  for (int k = 0; k < ranges; k++)
    if (p.bad[k] >= 0) return p.bad[k];
  return -1;
}

/* Curved cells' node coordinates: entry i's tag -> out[3 i ..] (z 0 in
 * 2D), on every core; -1, or the first entry whose tag no node has. */
typedef struct {
  const node_index *ix;
  const int64_t *tags;
  const double *xyz;
  int dim;
  double *out;
  int64_t bad[FEINT_PARALLEL_MAX_RANGES];
} geometry_gather;

static void gather_geometry_range(int64_t begin, int64_t end, int range, void *ctx) {
  geometry_gather *g = ctx;
  for (int64_t i = begin; i < end; i++) {
    if (g->tags[i] == ROW_PAD) { /* past a narrower block's nodes */
      for (int a = 0; a < 3; a++) g->out[3 * i + a] = 0;
      continue;
    }
    const int64_t k = node_find(g->ix, g->tags[i]);
    if (k < 0) {
      g->bad[range] = i;
      return;
    }
    for (int a = 0; a < 3; a++) g->out[3 * i + a] = a < g->dim ? g->xyz[3 * k + a] : 0;
  }
}

static int64_t gather_geometry(const node_index *ix, const int64_t *tags, int64_t n, const double *xyz, int dim,
                               double *out) {
  geometry_gather g = {ix, tags, xyz, dim, out, {0}};
  for (int k = 0; k < FEINT_PARALLEL_MAX_RANGES; k++) g.bad[k] = -1;
  const int ranges = feint_parallel_for_indexed(n, NODE_PASS_GRAIN, gather_geometry_range, &g);
  for (int k = 0; k < ranges; k++)
    if (g.bad[k] >= 0) return g.bad[k];
  return -1;
}

typedef struct {
  const feint_msh *x;
  const int64_t *num;
  feint_mesh *m;
} coordinate_copy;

static void copy_coordinates_range(int64_t begin, int64_t end, void *ctx) {
  const coordinate_copy *c = ctx;
  for (int64_t i = begin; i < end; i++) {
    const int64_t k = c->num[i];
    if (k < 0) continue;
    c->m->x[k] = c->x->xyz[3 * i];
    c->m->y[k] = c->x->xyz[3 * i + 1];
    c->m->z[k] = c->x->xyz[3 * i + 2];
  }
}

/* A share's nodes: its range of the file's, numbered with the other
 * shares' (share->nodes). FEINT_MESH_SHARE_DECLINED where another share
 * read none and this one holds every cell: it numbers them as the whole
 * read does. */
static int read_share_nodes(reader *r) {
  feint_mesh *m = r->m;
  feint_msh *x = r->x;
  feint_mesh_share *sh = r->share;
  r->reduced = 1;
  /* an even share of the file's nodes, in file order */
  const int64_t n_file = (int64_t)x->n_nodes, lo = n_file * sh->rank / sh->size, hi = n_file * (sh->rank + 1) / sh->size;
  int64_t *tags = NULL;
  double *xyz = NULL;
  int st = feint_malloc((size_t)(hi - lo) + 1, sizeof *tags, &tags, "mesh node tags");
  if (!st) st = feint_malloc(3 * (size_t)(hi - lo) + 1, sizeof *xyz, &xyz, "mesh node coordinates");
  if (!st && (st = feint_msh_nodes(x, r->path, (size_t)lo, (size_t)(hi - lo), tags, xyz)) && r->pre[0])
    st = feint_error_set(st, "%s%s", r->pre, feint_error_message());
  feint_mesh_share_nodes job = {.path = r->path, .pre = r->pre, .n_file = (int64_t)x->n_nodes, .first = lo,
                                .count = hi - lo, .tags = tags, .xyz = xyz, .entries = {r->cells.a, r->facets.a},
                                .n_entries = {(int64_t)r->cells.n, (int64_t)r->facets.n}, .dim = m->dim,
                                .all_nodes = sh->all_nodes};
  feint_dist_timeline("read: nodes copied");
  const int all = sh->nodes(sh->ctx, st, st ? NULL : &job);
  feint_dist_timeline("read: nodes numbered");
  free(tags);
  free(xyz);
  if (st) return st;
  if (all == FEINT_MESH_SHARE_SPARSE) { /* on every share alike, the one holding every cell too */
    sh->unsuited = "its node tags are too sparse to number in ranges";
    return FEINT_OK;
  }
  if (all == FEINT_MESH_SHARE_DECLINED) { /* another share read none: the whole read it is */
    sh->declined = 1;
    if (sh->cell0 != 0 || (int64_t)r->cell_group_v.n != sh->whole_cells) {
      sh->unsuited = "a rank read no share of it";
      return FEINT_OK;
    }
    const int loaded = feint_msh_load_nodes(x, r->path);
    return loaded ? loaded : FEINT_MESH_SHARE_DECLINED;
  }
  if (all) return all;
  m->n_nodes = job.n_nodes;
  m->x = job.x;
  m->y = job.y;
  m->z = job.z;
  sh->nodes_in_cells = job.nodes_in_cells;
  sh->node0 = job.node0;
  sh->held_nodes = job.held;
  return FEINT_OK;
}

static int read_nodes(reader *r) {
  feint_mesh *m = r->m;
  if (r->share) {
    const int st = read_share_nodes(r);
    if (st != FEINT_MESH_SHARE_DECLINED) return st;
  }
  const feint_msh *x = r->x;
  node_index ix;
  int64_t *num = NULL;
  atomic_uchar *used = NULL;
  int st = node_index_build(r, &ix);
  if (!st) st = feint_malloc(x->n_nodes + 1, sizeof *num, &num, "mesh node numbers");
  if (!st) st = feint_calloc(x->n_nodes + 1, sizeof *used, &used, "mesh node marks");
  if (st) goto done;
  /* mark referenced nodes (ROW_PAD: the padding of a narrower block's cells) */
  vec64 *lists[2] = {&r->cells, &r->facets};
  for (int l = 0; l < 2 && !st; l++) {
    const int64_t bad = mark_used(&ix, lists[l]->a, (int64_t)lists[l]->n, used, (unsigned char)(l + 1));
    if (bad >= 0)
      st = feint_error_set(FEINT_ERR_INPUT, "%smesh %s: an element refers to node %lld, which "
                           "the mesh does not define", r->pre, r->path, (long long)lists[l]->a[bad]);
  }
  if (r->share && !st) { /* a share that holds every cell, the others having read none: the whole's count */
    node_table_job cj = {.used = used};
    const int ranges = feint_parallel_for_indexed((int64_t)x->n_nodes, 1 << 16, in_cells_range, &cj);
    int64_t in_cells = 0;
    for (int t = 0; t < ranges; t++) in_cells += cj.count[t];
    r->share->nodes_in_cells = in_cells;
  }
  if (st) goto done;
  /* curved cells: the coordinates of their nodes (before the tags map to numbers) */
  if (r->geo.n) {
    if ((st = feint_malloc(r->geo.n * 3 + 1, sizeof *m->geometry_nodes, &m->geometry_nodes, "mesh cell geometry")))
      goto done;
    m->n_geometry_nodes = r->geo_nn;
    const int64_t bad = gather_geometry(&ix, r->geo.a, (int64_t)r->geo.n, x->xyz, m->dim, m->geometry_nodes);
    if (bad >= 0) {
      st = feint_error_set(FEINT_ERR_INPUT, "%smesh %s: an element refers to node %lld, which "
                           "the mesh does not define", r->pre, r->path, (long long)r->geo.a[bad]);
      goto done;
    }
  }
  /* number them in increasing tag order */
  int64_t nn = 0;
  fill_i64(num, x->n_nodes, -1);
  if (ix.direct) {
    node_table_job nj = {.tags = x->node_tags, .direct = ix.direct, .num = num, .used = used};
    const int ranges = feint_parallel_for_indexed(ix.max_tag + 1, 1 << 16, used_count_range, &nj);
    for (int t = 0; t < ranges; t++) nj.count[t + 1] += nj.count[t]; /* each range's first number */
    nn = nj.count[ranges];
    feint_parallel_for_indexed(ix.max_tag + 1, 1 << 16, number_range, &nj); /* the same ranges */
  } else {
    for (size_t i = 0; i < x->n_nodes; i++)
      if (used[ix.sorted[i]]) num[ix.sorted[i]] = nn++;
  }
  feint_dist_timeline("read: nodes numbered");
  m->n_nodes = nn;
  if (r->share) r->share->held_nodes = nn; /* (node0 0) */
  if ((st = feint_malloc((size_t)nn, sizeof *m->x, &m->x, "mesh node x")) ||
      (st = feint_malloc((size_t)nn, sizeof *m->y, &m->y, "mesh node y")) ||
      (st = feint_malloc((size_t)nn, sizeof *m->z, &m->z, "mesh node z")))
    goto done;
  coordinate_copy cc = {x, num, m};
  feint_parallel_for((int64_t)x->n_nodes, 1 << 16, copy_coordinates_range, &cc);
  free(r->x->xyz); /* copied: not held beside the mesh's for the rest of the build */
  r->x->xyz = NULL;
  for (int l = 0; l < 2; l++) {
    node_pass p = {.ix = &ix, .a = lists[l]->a, .num = num};
    feint_parallel_for((int64_t)lists[l]->n, NODE_PASS_GRAIN, remap_range, &p);
  }
  if (m->dim == 2 && nn > 0) {
    /* 2D meshes must lie in a plane z = const; feint stores z = 0 */
    double zmin = m->z[0], zmax = m->z[0], scale = 0;
    for (int64_t i = 0; i < nn; i++) {
      if (m->z[i] < zmin) zmin = m->z[i];
      if (m->z[i] > zmax) zmax = m->z[i];
      double s = fabs(m->x[i]) + fabs(m->y[i]);
      if (s > scale) scale = s;
    }
    if (zmax - zmin > 1e-10 * (scale > 1 ? scale : 1)) {
      st = feint_error_set(FEINT_ERR_INPUT,
                           "%smesh %s: the 2D mesh is not planar (z from %g to %g); feint needs "
                           "2D meshes in a plane z = const",
                           r->pre, r->path, zmin, zmax);
      goto done;
    }
    for (int64_t i = 0; i < nn; i++) m->z[i] = 0;
  }
done:
  free(ix.direct);
  free(ix.sorted);
  free(num);
  free(used);
  return st;
}

static int finish(reader *r) {
  feint_mesh *m = r->m;
  m->cell_type = r->share ? r->share->blocks[0].cell_type : m->blocks[0].cell_type;
  m->n_cells = (int64_t)r->cell_group_v.n;
  /* hand over the arrays (shrink is not worth a copy) */
  m->cells = r->cells.a;
  r->cells.a = NULL;
  if (!m->cells) FEINT_CALL(feint_malloc(1, sizeof *m->cells, &m->cells, "mesh cells"));
  m->facets = r->facets.a;
  r->facets.a = NULL;
  if (!m->facets) FEINT_CALL(feint_malloc(1, sizeof *m->facets, &m->facets, "mesh facets"));
  FEINT_CALL(feint_malloc((size_t)m->n_cells, sizeof *m->cell_group, &m->cell_group,
                          "mesh cell groups"));
  narrow_groups j = {r->cell_group_v.a, m->cell_group};
  feint_parallel_for(m->n_cells, 1 << 16, narrow_groups_range, &j);
  /* type counts, by Gmsh type number */
  if (r->n_types) qsort(r->types, (size_t)r->n_types, sizeof *r->types, cmp_type);
  FEINT_CALL(feint_calloc((size_t)r->n_types, sizeof *m->type_names, &m->type_names,
                          "mesh type names"));
  FEINT_CALL(feint_calloc((size_t)r->n_types, sizeof *m->type_counts, &m->type_counts,
                          "mesh type counts"));
  for (int i = 0; i < r->n_types; i++) {
    FEINT_CALL(feint_strdup(r->types[i].name, &m->type_names[i]));
    m->type_counts[i] = r->types[i].count;
    m->n_type_counts = i + 1;
  }
  return FEINT_OK;
}

/* The model's mesh as a feint_mesh. */
static int build(reader *r, const feint_mesh_options *opts) {
  r->may_repeat = r->x->repeats;
  r->curved_ok = opts && opts->curved_ok;
  r->m->geometry_order = 1;
  feint_dist_timeline("read: parsed");
  FEINT_CALL(index_blocks(r));
  FEINT_CALL(read_groups(r));
  FEINT_CALL(find_top_dim(r));
  FEINT_CALL(resolve_region(r, opts));
  if (r->share && r->may_repeat) r->share->unsuited = "an MSH 2 file";
  if (r->share && r->share->unsuited) return FEINT_OK;
  FEINT_CALL(read_elements(r));
  feint_dist_timeline("read: elements");
  if (r->share && r->share->unsuited) return FEINT_OK;
  if (r->share) FEINT_CALL(read_share_rows(r));
  feint_dist_timeline("read: share rows");
  if (r->share && r->share->unsuited) return FEINT_OK;
  FEINT_CALL(gather_blocks(r));
  if (r->share ? r->share->whole_cells == 0 : r->cells.n == 0) {
    char names[1024];
    if (opts && opts->n_region > 0) {
      names[0] = '\0';
      for (int i = 0; i < opts->n_region; i++) {
        size_t used = strlen(names);
        snprintf(names + used, sizeof names - used, "%s'%s'", i ? ", " : "", opts->region[i]);
      }
      return feint_error_set(FEINT_ERR_INPUT, "%sthe region %s of mesh %s contains no elements",
                             r->pre, names, r->path);
    }
    return feint_error_set(FEINT_ERR_INPUT, "%smesh %s has no %dD elements", r->pre, r->path,
                           r->m->dim);
  }
  FEINT_CALL(gather_curved_blocks(r));
  FEINT_CALL(read_facets(r));
  feint_dist_timeline("read: facets");
  FEINT_CALL(read_nodes(r));
  feint_dist_timeline("read: nodes");
  if (r->share && r->share->unsuited) return FEINT_OK;
  FEINT_CALL(finish(r));
  feint_dist_timeline("read: finished");
  return FEINT_OK;
}

static void reader_free(reader *r) {
  for (int i = 0; i < r->n_types; i++) free(r->types[i].friendly);
  free(r->types);
  free(r->blk_off);
  free(r->ent_count);
  free(r->gent_off);
  free(r->gent);
  free(r->region);
  free(r->cells.a);
  free(r->facets.a);
  free(r->cell_group_v.a);
  free(r->geo.a);
  free(r->share_blocks);
  for (int t = 0; t < 7; t++) {
    free(r->geo_of[t].a);
    free(r->cells_of[t].a);
    free(r->group_of[t].a);
  }
}

/* Which source reads path. */
enum { SOURCE_NATIVE, SOURCE_GMSH };

static int has_ext(const char *path, const char *ext) {
  const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
  return dot && (!slash || dot > slash) && strcasecmp(dot, ext) == 0;
}

/* 1 when the file's first bytes are "$MeshFormat" (reads 12 bytes only). */
static int looks_like_msh(const char *path) {
  FILE *f = fopen(path, "rb");
  char head[12] = {0};
  if (!f) return 0;
  size_t got = fread(head, 1, sizeof head, f);
  fclose(f);
  return got >= 11 && memcmp(head, "$MeshFormat", 11) == 0;
}

static int read_with(const char *path, const feint_mesh_options *opts, int source, feint_mesh_share *share,
                     feint_mesh **out) {
  *out = NULL;
  reader r;
  memset(&r, 0, sizeof r);
  r.path = path;
  r.share = share;
  if (opts && opts->where && opts->where[0]) snprintf(r.pre, sizeof r.pre, "%s: ", opts->where);

  /* a clear message for a missing file before a reader gets to it */
  struct stat sb;
  FILE *f = NULL;
  double gmsh_seconds = 0;
  int st = FEINT_OK;
  if (stat(path, &sb) != 0 || !(f = fopen(path, "rb")))
    st = feint_error_set(FEINT_ERR_INPUT, "%smesh file '%s' cannot be read: %s", r.pre, path, strerror(errno));
  else if (fclose(f), S_ISDIR(sb.st_mode))
    st = feint_error_set(FEINT_ERR_INPUT, "%smesh file '%s' cannot be read: %s", r.pre, path, strerror(EISDIR));
  if (!st && source == SOURCE_NATIVE) {
    feint_dist_timeline("read: start");
    st = share && !share->eager ? feint_msh_read_shared(path, &r.x) : feint_msh_read(path, &r.x);
    if (st && r.pre[0]) st = feint_error_set(st, "%s%s", r.pre, feint_error_message());
    if (!st && opts && opts->refine > 0) {
      /* refinement is Gmsh's: the file, now known to be a well-formed mesh, goes to libgmsh */
      feint_msh_destroy(r.x);
      r.x = NULL;
      st = feint_gmsh_model(path, opts, r.pre, &r.x, &gmsh_seconds);
    }
  } else if (!st) {
    st = feint_gmsh_model(path, opts, r.pre, &r.x, &gmsh_seconds);
  }
  if (!st && ((st = feint_calloc(1, sizeof *r.m, &r.m, "mesh")) || (st = feint_strdup(path, &r.m->path)))) {
    free(r.m);
    r.m = NULL;
  }
  if (!st) {
    r.m->gmsh_seconds = gmsh_seconds;
    st = build(&r, opts);
  }
  if (share && !r.reduced) { /* every share numbers once, whatever happened (one that did not would hang the others) */
    const int all = share->nodes(share->ctx, st, NULL); /* an unsuited share's declines */
    const int none = all == FEINT_MESH_SHARE_DECLINED || all == FEINT_MESH_SHARE_SPARSE;
    if (!st && none && !share->unsuited) share->unsuited = "a rank read no share of it";
    st = st ? st : none ? FEINT_OK : all;
  }
  feint_msh_destroy(r.x);
  reader_free(&r);
  if (!st && share && share->unsuited) {
    feint_mesh_destroy(r.m);
    return FEINT_OK;
  }
  if (!r.m) return st;
  if (!st && opts && opts->reorder) st = feint_mesh_reorder_nodes(r.m);
  if (!st && opts && opts->blend) feint_mesh_blend_curved_nodes(r.m);
  if (!st) st = feint_mesh_classify_curved(r.m);
  if (st) {
    feint_mesh_destroy(r.m);
    return st;
  }
  *out = r.m;
  return FEINT_OK;
}

int feint_mesh_read_forks(const char *path, const feint_mesh_options *opts) {
  return has_ext(path, ".geo") || (opts && opts->refine > 0);
}

int feint_mesh_read(const char *path, const feint_mesh_options *opts, feint_mesh **out) {
  *out = NULL;
  if (has_ext(path, ".geo")) return read_with(path, opts, SOURCE_GMSH, NULL, out);
  if (has_ext(path, ".msh") || looks_like_msh(path)) return read_with(path, opts, SOURCE_NATIVE, NULL, out);
  const char *pre = opts && opts->where && opts->where[0] ? opts->where : NULL;
  struct stat sb;
  if (stat(path, &sb) != 0 || S_ISDIR(sb.st_mode))
    return feint_error_set(FEINT_ERR_INPUT, "%s%smesh file '%s' cannot be read: %s", pre ? pre : "",
                           pre ? ": " : "", path, strerror(S_ISDIR(sb.st_mode) ? EISDIR : errno));
  return feint_error_set(FEINT_ERR_INPUT,
                         "%s%smesh file '%s' is neither a Gmsh mesh (.msh, first line \"$MeshFormat\") "
                         "nor a Gmsh geometry (.geo); convert it with `gmsh FILE -save -format msh41`",
                         pre ? pre : "", pre ? ": " : "", path);
}

int feint_mesh_read_gmsh(const char *path, const feint_mesh_options *opts, feint_mesh **out) {
  return read_with(path, opts, SOURCE_GMSH, NULL, out);
}

int feint_mesh_read_share(const char *path, const feint_mesh_options *opts, feint_mesh_share *share,
                          feint_mesh **out) {
  *out = NULL;
  share->unsuited = NULL;
  share->declined = 0;
  share->cell0 = share->whole_cells = share->nodes_in_cells = share->node0 = share->held_nodes = 0;
  share->n_blocks = 0;
  if (opts && opts->reorder) share->all_nodes = 1; /* the renumbering reads every node */
  /* what libgmsh makes is read whole (decided from the path and options alone: the same on every share) */
  if (feint_mesh_read_forks(path, opts) || !(has_ext(path, ".msh") || looks_like_msh(path))) {
    share->unsuited = "not a .msh file read natively";
    return FEINT_OK;
  }
  return read_with(path, opts, SOURCE_NATIVE, share, out);
}

typedef struct {
  feint_mesh *m;
  feint_curved_geometry geo[FEINT_MESH_MAX_BLOCKS];
  int64_t curved[FEINT_PARALLEL_MAX_RANGES][FEINT_MESH_MAX_BLOCKS];
} curved_pass;

static void classify_range(int64_t begin, int64_t end, int range, void *ctx) {
  curved_pass *c = ctx;
  const int ng = c->m->n_geometry_nodes;
  for (int64_t i = begin; i < end; i++) {
    const double *g = c->m->geometry_nodes + (size_t)i * (size_t)ng * 3;
    const int b = feint_mesh_cell_block(c->m, i);
    c->m->curved_cells[i] = !feint_curved_geometry_is_affine(&c->geo[b], g, FEINT_MESH_AFFINE_TOL);
    c->curved[range][b] += c->m->curved_cells[i];
  }
}

int feint_mesh_classify_curved(feint_mesh *m) {
  free(m->curved_cells);
  m->curved_cells = NULL;
  m->n_curved_cells = 0;
  for (int b = 0; b < m->n_blocks; b++) m->blocks[b].n_curved_cells = 0;
  if (!m->n_geometry_nodes) return FEINT_OK;
  FEINT_CALL(feint_malloc((size_t)m->n_cells + 1, 1, &m->curved_cells, "curved cell marks"));
  curved_pass c = {.m = m};
  for (int b = 0; b < m->n_blocks; b++)
    feint_curved_geometry_init(&c.geo[b], m->blocks[b].cell_type, m->blocks[b].n_geometry_nodes);
  const int ranges = feint_parallel_for_indexed(m->n_cells, 1 << 16, classify_range, &c);
  for (int k = 0; k < ranges; k++)
    for (int b = 0; b < m->n_blocks; b++) {
      m->blocks[b].n_curved_cells += c.curved[k][b];
      m->n_curved_cells += c.curved[k][b];
    }
  return FEINT_OK;
}

void feint_mesh_destroy(feint_mesh *m) {
  if (!m) return;
  free(m->path);
  free(m->x);
  free(m->y);
  free(m->z);
  free(m->cells);
  free(m->cell_group);
  free(m->geometry_nodes);
  free(m->curved_cells);
  if (m->groups)
    for (int g = 0; g < m->n_groups; g++) free(m->groups[g].name);
  free(m->groups);
  free(m->facet_offsets);
  free(m->facets);
  if (m->type_names)
    for (int i = 0; i < m->n_type_counts; i++) free(m->type_names[i]);
  free(m->type_names);
  free(m->type_counts);
  free(m);
}

int feint_mesh_find_group(const feint_mesh *mesh, const char *name, int dim) {
  if (!mesh || !name) return -1;
  for (int g = 0; g < mesh->n_groups; g++)
    if ((dim < 0 || mesh->groups[g].dim == dim) && strcmp(mesh->groups[g].name, name) == 0)
      return g;
  return -1;
}

int feint_mesh_need_group(const feint_mesh *mesh, const char *name, int dim, const char *where, const char *key,
                          const char *needs, int *out) {
  *out = feint_mesh_find_group(mesh, name, dim);
  if (*out >= 0) return FEINT_OK;
  const int other = feint_mesh_find_group(mesh, name, -1);
  if (other >= 0)
    return feint_error_set(FEINT_ERR_INPUT,
                           "%s: %s: physical group '%s' has dimension %d; %s need a group of dimension %d "
                           "(the %s of the %dD mesh)",
                           where, key, name, mesh->groups[other].dim, needs, dim,
                           dim == mesh->dim ? "cells" : "facets", mesh->dim);
  char list[512];
  feint_mesh_group_names(mesh, dim, list, sizeof list);
  return feint_error_set(FEINT_ERR_INPUT, "%s: %s: unknown physical group '%s' (groups of dimension %d: %s)",
                         where, key, name, dim, list[0] ? list : "none");
}

const char *feint_mesh_shapes(const feint_mesh *mesh, char *buf, size_t size) {
  size_t used = 0;
  buf[0] = '\0';
  for (int b = 0; b < mesh->n_blocks && used < size; b++) {
    snprintf(buf + used, size - used, "%s%s", b ? " + " : "", feint_cell_name(mesh->blocks[b].cell_type));
    used = strlen(buf);
  }
  return buf;
}

/* Straight triangles or tetrahedra of one shape (a simplex's facet: dim of its vertices). */
static int mesh_is_simplices(const feint_mesh *m) {
  return m->n_blocks == 1 && !m->n_geometry_nodes &&
         (m->cell_type == FEINT_CELL_TRIANGLE || m->cell_type == FEINT_CELL_TETRAHEDRON);
}

/* The cells that may hold a facet of the groups: a facet's worth of their cells' nodes on the groups' facets
 * (the node marks), counted range by range, then copied in order. */
typedef struct {
  const feint_mesh *m;
  const unsigned char *on;
  int64_t *rows;
  int64_t count[FEINT_PARALLEL_MAX_RANGES + 1]; /* the ranges' cells, then where each range's go */
} holders_job;

static int may_hold(const holders_job *j, int64_t c) {
  const feint_mesh *m = j->m;
  int marked = 0;
  for (int v = 0; v < m->nv && m->cells[c * m->nv + v] >= 0; v++) marked += j->on[m->cells[c * m->nv + v]];
  return marked >= m->dim; /* a simplex's facet: dim of its vertices */
}

static void holders_count(int64_t begin, int64_t end, int t, void *arg) {
  holders_job *j = arg;
  int64_t n = 0;
  for (int64_t c = begin; c < end; c++) n += may_hold(j, c);
  j->count[t + 1] = n;
}

static void holders_copy(int64_t begin, int64_t end, int t, void *arg) {
  holders_job *j = arg;
  const int nv = j->m->nv;
  int64_t at = j->count[t];
  for (int64_t c = begin; c < end; c++)
    if (may_hold(j, c)) memcpy(j->rows + nv * at++, j->m->cells + c * nv, (size_t)nv * sizeof *j->rows);
}

int feint_mesh_facet_cells(const feint_mesh *m, const int *groups, int n_groups, int64_t **rows, int64_t *n) {
  *rows = NULL;
  *n = 0;
  if (m->n_cells == 0) return feint_malloc(1, sizeof **rows, rows, "the facets' cells"); /* a share of none */
  if (m->n_blocks != 1 || !mesh_is_simplices(m))
    return feint_error_set(FEINT_ERR_COMPUTE, "internal: the facets' cells sought off a straight mesh of simplices");
  holders_job j;
  memset(&j, 0, sizeof j);
  j.m = m;
  unsigned char *on = NULL;
  FEINT_CALL(feint_calloc((size_t)m->n_nodes + 1, 1, &on, "the facets' nodes"));
  for (int k = 0; k < n_groups; k++) {
    const int g = groups[k];
    if (g < 0 || g >= m->n_groups) continue;
    for (int64_t i = m->facet_offsets[g] * m->nv_facet; i < m->facet_offsets[g + 1] * m->nv_facet; i++)
      if (m->facets[i] >= 0) on[m->facets[i]] = 1;
  }
  j.on = on;
  const int ranges = m->n_cells ? feint_parallel_for_indexed(m->n_cells, 1 << 14, holders_count, &j) : 0;
  for (int t = 0; t < ranges; t++) j.count[t + 1] += j.count[t];
  int status = feint_malloc((size_t)(j.count[ranges] * m->nv) + 1, sizeof *j.rows, &j.rows, "the facets' cells");
  if (!status && ranges) feint_parallel_for_indexed(m->n_cells, 1 << 14, holders_copy, &j);
  free(on);
  if (status) return status;
  *rows = j.rows;
  *n = j.count[ranges];
  return FEINT_OK;
}

feint_mesh feint_mesh_cells_view(const feint_mesh *m, const int64_t *cells, int64_t n) {
  feint_mesh view = *m;
  view.cells = (int64_t *)cells; /* (a view: never written through, nor freed) */
  view.n_cells = n;
  view.cell_group = NULL;
  view.n_blocks = 1;
  view.blocks[0].first_cell = 0;
  view.blocks[0].n_cells = n;
  return view;
}

void feint_mesh_cell_group_tags(const feint_mesh *m, int64_t *tags) {
  for (int64_t c = 0; c < m->n_cells; c++) tags[c] = m->cell_group[c] < 0 ? -1 : m->groups[m->cell_group[c]].tag;
}
