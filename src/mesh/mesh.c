/* feint mesh reader: a Gmsh mesh (.msh 2.2/4.1, ASCII or binary, or a .geo
 * meshed on the fly) read through the libgmsh C API.
 *
 * Gmsh is initialised once per process (never finalised; the OS reclaims it)
 * and cleared before and after each read, so feint_mesh_read can be called
 * any number of times. Gmsh's own "abort on error" is switched off: with it
 * on, an error thrown from inside the .geo parser leaves the parser (and
 * Gmsh's busy lock) in a broken state for every later read in the process.
 * Errors are instead collected through Gmsh's logger and reported in
 * feint's message.
 *
 * All data is fetched in bulk, one call per model entity: the element pass
 * visits each entity once (element counts, region cells), the facets of the
 * (dim-1)-dimensional physical groups are fetched per group entity, and the
 * node coordinates come from one gmshModelMeshGetNodes call for the whole
 * model. Nodes are numbered 0.. in increasing Gmsh tag order, keeping only
 * those referenced by region cells or group facets.
 *
 * Details beyond the header:
 * - MSH 2 files repeat an element once per physical group containing it;
 *   repeated elements (same entity, same node list) are kept once, so cells,
 *   facets, group and type counts agree across MSH 2.2 and 4.1.
 * - A region name that matches no group name but is an integer selects the
 *   (possibly unnamed) physical group of that tag and of the top dimension.
 * - opts->size applies to .geo files only (ignored for .msh). With a size,
 *   Mesh.MeshSizeMax = size, Mesh.MeshSizeMin = 0 and point sizes are
 *   ignored (Mesh.MeshSizeFromPoints = 0), so the size overrides any lc in
 *   the file; a .geo whose mesh already exists (a "Mesh 3;" line) is meshed
 *   again only when a size is given.
 * - 2D meshes must lie in a plane z = const; z is stored as 0.
 * - Region cells are first-order triangles or quadrilaterals (2D),
 *   tetrahedra, hexahedra or prisms (3D), in one block per type (mesh.h):
 *   cells are gathered by type and numbered block after block in Gmsh type
 *   order (triangles, quadrilaterals; tetrahedra, hexahedra, prisms), each
 *   block in the order read. Cells keep Gmsh's vertex order. With
 *   quadrilateral (hexahedral) cells the facets of the boundary groups are
 *   lines (first-order quadrilaterals); with prisms triangles and
 *   quadrilaterals, stored in rows of 4 (mesh.h); facets of 3D meshes with
 *   several blocks are not read (no boundary conditions there yet).
 * - feint_mesh_find_group with dim < 0 matches a group of any dimension. */
#include "feint/mesh.h"

#include <errno.h>
#include <gmshc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <strings.h>
#include <sys/stat.h>

#include "feint/error.h"
#include "mesh/gmsh_loader.h"

/* ------------------------------------------------------------------------ */
/* Gmsh session */

static int gmsh_ready = 0;

/* Options a .geo file may change and that would otherwise leak into the next
 * read in the same process: their values after initialisation are restored
 * before every read. */
static const char *const saved_option_names[] = {
    "Mesh.MeshSizeMax",        "Mesh.MeshSizeMin",
    "Mesh.MeshSizeFromPoints", "Mesh.MeshSizeFactor",
    "Mesh.MeshSizeExtendFromBoundary", "Mesh.MeshSizeFromCurvature",
    "Mesh.ElementOrder",       "Mesh.SecondOrderIncomplete",
    "Mesh.RecombineAll",       "Mesh.Recombine3DAll",
    "Mesh.SubdivisionAlgorithm", "Mesh.Algorithm",
    "Mesh.Algorithm3D",        "Mesh.Optimize",
    "Mesh.SaveAll",            "Geometry.Tolerance",
};
#define N_SAVED_OPTIONS (sizeof saved_option_names / sizeof saved_option_names[0])
static double saved_option_values[N_SAVED_OPTIONS];

static int gmsh_start(void) {
  int ierr = 0;
  if (gmsh_ready) return FEINT_OK;
  const char *why = feint_gmsh_load_error();
  if (why) return feint_error_set(FEINT_ERR_COMPUTE, "could not initialise Gmsh: %s", why);
  gmshInitialize(0, NULL, 0, &ierr);
  if (ierr) return feint_error_set(FEINT_ERR_COMPUTE, "could not initialise Gmsh");
  gmshOptionSetNumber("General.Terminal", 0, &ierr);
  gmshOptionSetNumber("General.Verbosity", 2, &ierr); /* errors and warnings */
  gmshOptionSetNumber("General.AbortOnError", 0, &ierr);
  for (size_t i = 0; i < N_SAVED_OPTIONS; i++) {
    saved_option_values[i] = 0;
    gmshOptionGetNumber(saved_option_names[i], &saved_option_values[i], &ierr);
  }
  gmsh_ready = 1;
  return FEINT_OK;
}

static void gmsh_restore_options(void) {
  int ierr = 0;
  for (size_t i = 0; i < N_SAVED_OPTIONS; i++)
    gmshOptionSetNumber(saved_option_names[i], saved_option_values[i], &ierr);
}

/* Gmsh's logged messages of a level ("Error", "Warning"), prefix removed,
 * joined with "; " into buf (at most max messages). Returns the number. */
static int gmsh_log_messages(const char *level, char *buf, size_t len, int max) {
  char **log = NULL;
  size_t n = 0;
  int ierr = 0, found = 0;
  size_t lvl = strlen(level);
  buf[0] = '\0';
  gmshLoggerGet(&log, &n, &ierr);
  if (ierr || !log) return 0;
  for (size_t i = 0; i < n; i++) {
    const char *m = log[i];
    if (m && strncmp(m, level, lvl) == 0 && m[lvl] == ':') {
      m += lvl + 1;
      while (*m == ' ') m++;
      if (found < max) {
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, "%s%s", found ? "; " : "", m);
      }
      found++;
    }
    gmshFree(log[i]);
  }
  gmshFree(log);
  return found;
}

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
  char *name;     /* Gmsh's name, e.g. "Tetrahedron 4" */
  char *friendly; /* "4-node tetrahedron" */
  int dim, num_nodes, order;
  int64_t count;  /* elements of this type in the whole file */
} type_info;

typedef struct {
  int dim, tag;
  int64_t count; /* elements of dimension dim classified on the entity */
} entity_info;

static int cmp_entity(const void *pa, const void *pb) {
  const entity_info *a = pa, *b = pb;
  if (a->dim != b->dim) return a->dim < b->dim ? -1 : 1;
  return (a->tag > b->tag) - (a->tag < b->tag);
}

static int cmp_int(const void *pa, const void *pb) {
  int a = *(const int *)pa, b = *(const int *)pb;
  return (a > b) - (a < b);
}

static int cmp_type(const void *pa, const void *pb) {
  const type_info *a = pa, *b = pb;
  return (a->type > b->type) - (a->type < b->type);
}

/* Working state of one read. */
typedef struct {
  const char *path;
  char pre[512]; /* "where: " or "" */
  feint_mesh *m;

  type_info *types;
  int n_types, cap_types;

  entity_info *ents;
  size_t n_ents;

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
  int cell_gtype; /* Gmsh type of the first region cells met (0 until then) */
  int n_cell_gtypes; /* region cell types met */
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

static int gmsh_failed(reader *r, const char *what) {
  char msg[2048];
  if (!gmsh_log_messages("Error", msg, sizeof msg, 3)) snprintf(msg, sizeof msg, "unknown error");
  return feint_error_set(FEINT_ERR_INPUT, "%s%s: Gmsh failed (%s): %s", r->pre, r->path, what, msg);
}

static int type_lookup(reader *r, int type, type_info **out) {
  for (int i = 0; i < r->n_types; i++)
    if (r->types[i].type == type) {
      *out = &r->types[i];
      return FEINT_OK;
    }
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
  char *name = NULL;
  double *coords = NULL;
  size_t coords_n = 0;
  int primary = 0, ierr = 0;
  gmshModelMeshGetElementProperties(type, &name, &t->dim, &t->order, &t->num_nodes, &coords,
                                    &coords_n, &primary, &ierr);
  gmshFree(coords);
  if (ierr || !name) {
    gmshFree(name);
    return gmsh_failed(r, "element properties");
  }
  int st = feint_strdup(name, &t->name);
  gmshFree(name);
  if (st) return st;
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
static int dedup_rows(const reader *r, const size_t *rows, size_t n, int nn, unsigned char *keep,
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
    const size_t *r = rows + e * (size_t)nn;
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

/* Bulk elements of one entity. */
typedef struct {
  int *types;
  size_t n_types;
  size_t **etags, *etags_n, etags_nn;
  size_t **ntags, *ntags_n, ntags_nn;
} entity_elements;

static void entity_elements_free(entity_elements *e) {
  for (size_t i = 0; i < e->etags_nn; i++) gmshFree(e->etags[i]);
  for (size_t i = 0; i < e->ntags_nn; i++) gmshFree(e->ntags[i]);
  gmshFree(e->etags);
  gmshFree(e->etags_n);
  gmshFree(e->ntags);
  gmshFree(e->ntags_n);
  gmshFree(e->types);
  memset(e, 0, sizeof *e);
}

static int entity_elements_get(reader *r, int dim, int tag, entity_elements *e) {
  int ierr = 0;
  memset(e, 0, sizeof *e);
  gmshModelMeshGetElements(&e->types, &e->n_types, &e->etags, &e->etags_n, &e->etags_nn,
                           &e->ntags, &e->ntags_n, &e->ntags_nn, dim, tag, &ierr);
  if (ierr || e->etags_nn != e->n_types || e->ntags_nn != e->n_types) {
    entity_elements_free(e);
    return gmsh_failed(r, "reading elements");
  }
  return FEINT_OK;
}

static int in_sorted(const int *a, size_t n, int v) {
  return n && bsearch(&v, a, n, sizeof *a, cmp_int) != NULL;
}

static const entity_info *find_entity(const reader *r, int dim, int tag) {
  entity_info key = {dim, tag, 0};
  return r->n_ents ? bsearch(&key, r->ents, r->n_ents, sizeof key, cmp_entity) : NULL;
}

static int group_has_entity(const reader *r, int g, int tag) {
  for (size_t k = r->gent_off[g]; k < r->gent_off[g + 1]; k++)
    if (r->gent[k] == tag) return 1;
  return 0;
}

/* Comma-separated names of the named groups of dimension dim. */
static void group_names(const feint_mesh *m, int dim, char *buf, size_t len) {
  buf[0] = '\0';
  int any = 0;
  for (int g = 0; g < m->n_groups; g++) {
    if (m->groups[g].dim != dim || !m->groups[g].name[0]) continue;
    size_t used = strlen(buf);
    snprintf(buf + used, len - used, "%s%s", any ? ", " : "", m->groups[g].name);
    any = 1;
  }
}

/* ------------------------------------------------------------------------ */
/* Steps */

static int open_file(reader *r, const feint_mesh_options *opts) {
  const char *path = r->path;
  int ierr = 0;
  char msg[2048];
  const char *dot = strrchr(path, '.');
  int is_geo = dot && strcasecmp(dot, ".geo") == 0;

  /* Only MSH 2 repeats elements: look at the version in the header (any
   * file that is not a recognisable MSH 4 file is treated as MSH 2). */
  r->may_repeat = 1;
  if (!is_geo) {
    FILE *fh = fopen(path, "rb");
    char head[64] = {0};
    if (fh) {
      size_t got = fread(head, 1, sizeof head - 1, fh);
      head[got] = '\0';
      fclose(fh);
      if (!strncmp(head, "$MeshFormat", 11) && strtod(head + 12, NULL) >= 4.0) r->may_repeat = 0;
    }
  } else {
    r->may_repeat = 0; /* meshed in memory: no repeats */
  }
  gmsh_restore_options();
  gmshClear(&ierr);
  gmshOpen(path, &ierr);
  if (gmsh_log_messages("Error", msg, sizeof msg, 3) || ierr) {
    if (!msg[0]) snprintf(msg, sizeof msg, "unknown error");
    return feint_error_set(FEINT_ERR_INPUT, "%s%s: Gmsh could not read the %s: %s", r->pre, path,
                           is_geo ? "geometry" : "mesh", msg);
  }
  if (!is_geo) goto refine;

  int gdim = gmshModelGetDimension(&ierr);
  if (ierr || gdim < 1)
    return feint_error_set(FEINT_ERR_INPUT, "%s%s: the geometry has no curves, surfaces or volumes",
                           r->pre, path);
  int *types = NULL;
  size_t n_types = 0;
  gmshModelMeshGetElementTypes(&types, &n_types, gdim, -1, &ierr);
  gmshFree(types);
  if (n_types == 0 || (opts && opts->size > 0)) {
    if (opts && opts->size > 0) {
      gmshOptionSetNumber("Mesh.MeshSizeMax", opts->size, &ierr);
      gmshOptionSetNumber("Mesh.MeshSizeMin", 0.0, &ierr);
      gmshOptionSetNumber("Mesh.MeshSizeFromPoints", 0, &ierr);
      gmshOptionSetNumber("Mesh.MeshSizeFactor", 1.0, &ierr);
    }
    gmshModelMeshClear(NULL, 0, &ierr);
    gmshModelMeshGenerate(gdim, &ierr);
    if (gmsh_log_messages("Error", msg, sizeof msg, 3) || ierr) {
      if (!msg[0]) snprintf(msg, sizeof msg, "unknown error");
      return feint_error_set(FEINT_ERR_INPUT, "%s%s: Gmsh could not mesh the geometry: %s",
                             r->pre, path, msg);
    }
  }
refine:
  for (int k = 0; opts && k < opts->refine; k++) {
    gmshModelMeshRefine(&ierr);
    if (gmsh_log_messages("Error", msg, sizeof msg, 3) || ierr) {
      if (!msg[0]) snprintf(msg, sizeof msg, "unknown error");
      return feint_error_set(FEINT_ERR_INPUT, "%s%s: Gmsh could not refine the mesh: %s", r->pre, path, msg);
    }
  }
  return FEINT_OK;
}

static int read_groups(reader *r) {
  feint_mesh *m = r->m;
  int *dimtags = NULL, ierr = 0;
  size_t n = 0;
  gmshModelGetPhysicalGroups(&dimtags, &n, -1, &ierr);
  if (ierr) return gmsh_failed(r, "reading physical groups");
  int ng = (int)(n / 2);
  int st = FEINT_OK;
  m->n_groups = ng;
  if ((st = feint_calloc((size_t)ng, sizeof *m->groups, &m->groups, "mesh groups")) ||
      (st = feint_calloc((size_t)ng + 1, sizeof *r->gent_off, &r->gent_off, "mesh groups"))) {
    m->n_groups = 0;
    gmshFree(dimtags);
    return st;
  }
  size_t cap = 0;
  for (int g = 0; g < ng && !st; g++) {
    feint_mesh_group *G = &m->groups[g];
    G->dim = dimtags[2 * g];
    G->tag = dimtags[2 * g + 1];
    char *name = NULL;
    gmshModelGetPhysicalName(G->dim, G->tag, &name, &ierr);
    st = feint_strdup(name ? name : "", &G->name);
    gmshFree(name);
    if (st) break;
    int *tags = NULL;
    size_t nt = 0;
    gmshModelGetEntitiesForPhysicalGroup(G->dim, G->tag, &tags, &nt, &ierr);
    if (ierr) {
      gmshFree(tags);
      st = gmsh_failed(r, "reading physical group entities");
      break;
    }
    size_t have = r->gent_off[g];
    if (have + nt > cap) {
      size_t nc = cap ? cap : 64;
      while (nc < have + nt) nc *= 2;
      int *a = realloc(r->gent, nc * sizeof *a);
      if (!a) {
        gmshFree(tags);
        st = feint_error_set(FEINT_ERR_COMPUTE, "out of memory allocating mesh groups");
        break;
      }
      r->gent = a;
      cap = nc;
    }
    if (nt) memcpy(r->gent + have, tags, nt * sizeof *tags);
    r->gent_off[g + 1] = have + nt;
    gmshFree(tags);
  }
  gmshFree(dimtags);
  return st;
}

static int find_top_dim(reader *r) {
  int ierr = 0;
  for (int d = 3; d >= 0; d--) {
    int *types = NULL;
    size_t n = 0;
    gmshModelMeshGetElementTypes(&types, &n, d, -1, &ierr);
    gmshFree(types);
    if (ierr) return gmsh_failed(r, "reading element types");
    if (n) {
      if (d < 2)
        return feint_error_set(FEINT_ERR_INPUT,
                               "%smesh %s has no 2D or 3D elements (its highest dimension is %d); "
                               "feint needs triangles or tetrahedra",
                               r->pre, r->path, d);
      r->m->dim = d;
      return FEINT_OK;
    }
  }
  return feint_error_set(FEINT_ERR_INPUT, "%smesh %s contains no elements", r->pre, r->path);
}

static int resolve_region(reader *r, const feint_mesh_options *opts) {
  feint_mesh *m = r->m;
  int D = m->dim, ierr = 0;
  char names[1024];
  if (!opts || opts->n_region == 0) {
    int *dimtags = NULL;
    size_t n = 0;
    gmshModelGetEntities(&dimtags, &n, D, &ierr);
    if (ierr) {
      gmshFree(dimtags);
      return gmsh_failed(r, "reading entities");
    }
    int st = feint_malloc(n / 2 + 1, sizeof *r->region, &r->region, "mesh region");
    if (!st) {
      for (size_t i = 0; i < n / 2; i++) r->region[i] = dimtags[2 * i + 1];
      r->n_region = n / 2;
    }
    gmshFree(dimtags);
    if (st) return st;
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
        group_names(m, D, names, sizeof names);
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
static int read_elements(reader *r) {
  feint_mesh *m = r->m;
  int D = m->dim, ierr = 0;
  int *dimtags = NULL;
  size_t n = 0;
  gmshModelGetEntities(&dimtags, &n, -1, &ierr);
  if (ierr) {
    gmshFree(dimtags);
    return gmsh_failed(r, "reading entities");
  }
  int st = feint_calloc(n / 2 + 1, sizeof *r->ents, &r->ents, "mesh entities");
  if (st) {
    gmshFree(dimtags);
    return st;
  }
  r->n_ents = n / 2;
  unsigned char *keep = NULL;
  size_t keep_cap = 0;
  for (size_t i = 0; i < r->n_ents && !st; i++) {
    entity_info *E = &r->ents[i];
    E->dim = dimtags[2 * i];
    E->tag = dimtags[2 * i + 1];
    entity_elements e;
    if ((st = entity_elements_get(r, E->dim, E->tag, &e))) break;
    int in_region = E->dim == D && in_sorted(r->region, r->n_region, E->tag);
    int64_t group = -1;
    if (in_region)
      for (int g = 0; g < m->n_groups; g++)
        if (m->groups[g].dim == D && group_has_entity(r, g, E->tag)) {
          group = g;
          break;
        }
    for (size_t t = 0; t < e.n_types && !st; t++) {
      type_info *T = NULL;
      if ((st = type_lookup(r, e.types[t], &T))) break;
      size_t ne = e.etags_n[t], kept = 0;
      if (e.ntags_n[t] != ne * (size_t)T->num_nodes) {
        st = feint_error_set(FEINT_ERR_INPUT, "%smesh %s: inconsistent element data from Gmsh",
                             r->pre, r->path);
        break;
      }
      if ((st = keep_reserve(&keep, &keep_cap, ne)) ||
          (st = dedup_rows(r, e.ntags[t], ne, T->num_nodes, keep, &kept)))
        break;
      T->count += (int64_t)kept;
      if (T->dim == E->dim) E->count += (int64_t)kept;
      if (!in_region || ne == 0) continue;
      if (!cell_gtype_ok(D, T->type)) {
        st = feint_error_set(FEINT_ERR_INPUT,
                             "%smesh %s: the region contains %s elements (Gmsh type %d, \"%s\"); "
                             "feint supports first-order triangles and tetrahedra (and, for the "
                             "operator section, quadrilaterals and hexahedra) in this version",
                             r->pre, r->path, T->friendly, T->type, T->name);
        break;
      }
      if (!r->cell_gtype) r->cell_gtype = T->type;
      vec64 *cells = &r->cells_of[T->type], *groups = &r->group_of[T->type];
      if (cells->n == 0) r->n_cell_gtypes++;
      const int nv = gtype_nv(T->type);
      if (e.ntags_n[t] != ne * (size_t)nv) {
        st = feint_error_set(FEINT_ERR_INPUT, "%smesh %s: inconsistent element data from Gmsh",
                             r->pre, r->path);
        break;
      }
      if ((st = vec64_reserve(cells, kept * (size_t)nv)) || (st = vec64_reserve(groups, kept)))
        break;
      int64_t *dst = cells->a + cells->n;
      const size_t *src = e.ntags[t];
      size_t w = 0;
      for (size_t k = 0; k < ne; k++) {
        if (!keep[k]) continue;
        for (int q = 0; q < nv; q++) dst[w++] = (int64_t)src[k * (size_t)nv + (size_t)q];
      }
      cells->n += w;
      for (size_t k = 0; k < kept; k++) groups->a[groups->n++] = group;
    }
    entity_elements_free(&e);
  }
  gmshFree(dimtags);
  free(keep);
  if (st) return st;
  if (r->n_ents) qsort(r->ents, r->n_ents, sizeof *r->ents, cmp_entity);
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
    if (r->cells_of[t].n && facet_gtype_ok(t, dim, type)) return 1;
  return 0;
}

/* The region cells block by block (Gmsh type order) into r->cells, rows of
 * the widest block's vertex count (padded with -1), and the block table. */
static int gather_blocks(reader *r) {
  feint_mesh *m = r->m;
  int nv = 0;
  for (int t = 2; t <= 6; t++)
    if (r->cells_of[t].n && gtype_nv(t) > nv) nv = gtype_nv(t);
  m->nv = nv;
  for (int t = 2; t <= 6; t++) {
    const vec64 *cells = &r->cells_of[t];
    if (!cells->n) continue;
    const int bnv = gtype_nv(t);
    const size_t n = cells->n / (size_t)bnv;
    feint_mesh_block *B = &m->blocks[m->n_blocks++];
    B->cell_type = gtype_cell(t);
    B->nv = bnv;
    B->first_cell = (int64_t)(r->cell_group_v.n);
    B->n_cells = (int64_t)n;
    FEINT_CALL(vec64_reserve(&r->cells, n * (size_t)nv));
    FEINT_CALL(vec64_reserve(&r->cell_group_v, n));
    for (size_t c = 0; c < n; c++) {
      int64_t *row = r->cells.a + r->cells.n + c * (size_t)nv;
      for (int q = 0; q < nv; q++) row[q] = q < bnv ? cells->a[c * (size_t)bnv + (size_t)q] : ROW_PAD;
      r->cell_group_v.a[r->cell_group_v.n + c] = r->group_of[t].a[c];
    }
    r->cells.n += n * (size_t)nv;
    r->cell_group_v.n += n;
  }
  return FEINT_OK;
}

static int read_facets(reader *r) {
  feint_mesh *m = r->m;
  int D = m->dim;
  /* quadrilateral facets (hexahedra or prisms met): rows of 4, triangles padded with ROW_PAD */
  const int quads = D == 3 && (r->cells_of[5].n || r->cells_of[6].n);
  const int triangles = D == 3 && (r->cells_of[4].n || r->cells_of[6].n);
  int fdim = D - 1, nvf = quads ? 4 : D == 3 ? 3 : 2;
  m->nv_facet = nvf;
  FEINT_CALL(feint_calloc((size_t)m->n_groups + 1, sizeof *m->facet_offsets, &m->facet_offsets,
                          "mesh facet offsets"));
  unsigned char *keep = NULL;
  size_t keep_cap = 0;
  for (int g = 0; g < m->n_groups; g++) {
    feint_mesh_group *G = &m->groups[g];
    /* element count of the group's dimension */
    for (size_t k = r->gent_off[g]; k < r->gent_off[g + 1]; k++) {
      const entity_info *E = find_entity(r, G->dim, r->gent[k]);
      if (E) G->n_elements += E->count;
    }
    if (G->dim == fdim) {
      for (size_t k = r->gent_off[g]; k < r->gent_off[g + 1]; k++) {
        entity_elements e;
        int st = entity_elements_get(r, fdim, r->gent[k], &e);
        if (st) {
          free(keep);
          return st;
        }
        for (size_t t = 0; t < e.n_types && !st; t++) {
          type_info *T = NULL;
          size_t ne = e.etags_n[t];
          if ((st = type_lookup(r, e.types[t], &T))) break;
          if (T->dim != fdim || ne == 0) continue;
          if (!facet_type_met(r, D, T->type)) {
            st = feint_error_set(
                FEINT_ERR_INPUT,
                "%smesh %s: physical group '%s' (dimension %d) contains %s elements (Gmsh type "
                "%d, \"%s\"); facets must be first-order %s",
                r->pre, r->path, G->name, G->dim, T->friendly, T->type, T->name,
                quads && triangles ? "triangles or quadrilaterals" : quads ? "quadrilaterals"
                : D == 3 ? "triangles" : "lines");
            break;
          }
          const int nn = T->type == 3 ? 4 : T->type == 2 ? 3 : 2;
          if (e.ntags_n[t] != ne * (size_t)nn) {
            st = feint_error_set(FEINT_ERR_INPUT, "%smesh %s: inconsistent element data from Gmsh",
                                 r->pre, r->path);
            break;
          }
          size_t kept = 0;
          if ((st = keep_reserve(&keep, &keep_cap, ne)) ||
              (st = dedup_rows(r, e.ntags[t], ne, nn, keep, &kept)) ||
              (st = vec64_reserve(&r->facets, kept * (size_t)nvf)))
            break;
          int64_t *dst = r->facets.a + r->facets.n;
          size_t w = 0;
          for (size_t j = 0; j < ne; j++) {
            if (!keep[j]) continue;
            for (int q = 0; q < nvf; q++)
              dst[w++] = q < nn ? (int64_t)e.ntags[t][j * (size_t)nn + (size_t)q] : ROW_PAD;
          }
          r->facets.n += w;
        }
        entity_elements_free(&e);
        if (st) {
          free(keep);
          return st;
        }
      }
    }
    m->facet_offsets[g + 1] = (int64_t)(r->facets.n / (size_t)nvf);
  }
  free(keep);
  return FEINT_OK;
}

static int read_nodes(reader *r) {
  feint_mesh *m = r->m;
  size_t *tags = NULL, ntags = 0, ncoord = 0, npar = 0;
  double *coord = NULL, *par = NULL;
  int ierr = 0, st = FEINT_OK;
  int64_t *map = NULL;
  gmshModelMeshGetNodes(&tags, &ntags, &coord, &ncoord, &par, &npar, -1, -1, 0, 0, &ierr);
  gmshFree(par);
  if (ierr || ncoord != 3 * ntags) {
    st = gmsh_failed(r, "reading nodes");
    goto done;
  }
  size_t max_tag = 0;
  for (size_t i = 0; i < ntags; i++)
    if (tags[i] > max_tag) max_tag = tags[i];
  if ((st = feint_malloc(max_tag + 1, sizeof *map, &map, "mesh node map"))) goto done;
  for (size_t i = 0; i <= max_tag; i++) map[i] = -1;
  /* mark referenced nodes (-1: the padding of a narrower block's cells) */
  vec64 *lists[2] = {&r->cells, &r->facets};
  for (int l = 0; l < 2; l++)
    for (size_t i = 0; i < lists[l]->n; i++) {
      int64_t t = lists[l]->a[i];
      if (t == ROW_PAD) continue;
      if (t <= 0 || (size_t)t > max_tag) {
        st = feint_error_set(FEINT_ERR_INPUT, "%smesh %s: an element refers to node %lld, which "
                             "the mesh does not define", r->pre, r->path, (long long)t);
        goto done;
      }
      map[t] = 0;
    }
  int64_t nn = 0;
  for (size_t t = 0; t <= max_tag; t++)
    if (map[t] == 0) map[t] = nn++;
    else map[t] = -1;
  m->n_nodes = nn;
  if ((st = feint_malloc((size_t)nn, sizeof *m->x, &m->x, "mesh node x")) ||
      (st = feint_malloc((size_t)nn, sizeof *m->y, &m->y, "mesh node y")) ||
      (st = feint_malloc((size_t)nn, sizeof *m->z, &m->z, "mesh node z")))
    goto done;
  int64_t filled = 0;
  for (size_t i = 0; i < ntags; i++) {
    int64_t k = map[tags[i]];
    if (k < 0) continue;
    m->x[k] = coord[3 * i];
    m->y[k] = coord[3 * i + 1];
    m->z[k] = coord[3 * i + 2];
    map[tags[i]] = -2 - k; /* filled: count each node once */
    filled++;
  }
  if (filled != nn) {
    st = feint_error_set(FEINT_ERR_INPUT, "%smesh %s: elements refer to nodes the mesh does not "
                         "define", r->pre, r->path);
    goto done;
  }
  for (int l = 0; l < 2; l++)
    for (size_t i = 0; i < lists[l]->n; i++)
      if (lists[l]->a[i] != ROW_PAD) lists[l]->a[i] = -2 - map[lists[l]->a[i]];
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
  free(map);
  gmshFree(tags);
  gmshFree(coord);
  return st;
}

static int finish(reader *r) {
  feint_mesh *m = r->m;
  m->cell_type = m->blocks[0].cell_type;
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
  for (int64_t c = 0; c < m->n_cells; c++) m->cell_group[c] = (int)r->cell_group_v.a[c];
  /* type counts, by Gmsh type number */
  if (r->n_types) qsort(r->types, (size_t)r->n_types, sizeof *r->types, cmp_type);
  FEINT_CALL(feint_calloc((size_t)r->n_types, sizeof *m->type_names, &m->type_names,
                          "mesh type names"));
  FEINT_CALL(feint_calloc((size_t)r->n_types, sizeof *m->type_counts, &m->type_counts,
                          "mesh type counts"));
  for (int i = 0; i < r->n_types; i++) {
    m->type_names[i] = r->types[i].name;
    r->types[i].name = NULL;
    m->type_counts[i] = r->types[i].count;
    m->n_type_counts = i + 1;
  }
  return FEINT_OK;
}

static double seconds_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int read_all(reader *r, const feint_mesh_options *opts) {
  double t0 = seconds_now();
  FEINT_CALL(open_file(r, opts));
  r->m->gmsh_seconds = seconds_now() - t0;
  FEINT_CALL(read_groups(r));
  FEINT_CALL(find_top_dim(r));
  FEINT_CALL(resolve_region(r, opts));
  FEINT_CALL(read_elements(r));
  FEINT_CALL(gather_blocks(r));
  if (r->cells.n == 0) {
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
  FEINT_CALL(read_facets(r));
  FEINT_CALL(read_nodes(r));
  FEINT_CALL(finish(r));
  return FEINT_OK;
}

int feint_mesh_read(const char *path, const feint_mesh_options *opts, feint_mesh **out) {
  *out = NULL;
  reader r;
  memset(&r, 0, sizeof r);
  r.path = path;
  if (opts && opts->where && opts->where[0])
    snprintf(r.pre, sizeof r.pre, "%s: ", opts->where);

  /* a clear message for a missing file before Gmsh gets to it */
  struct stat sb;
  FILE *f = NULL;
  if (stat(path, &sb) != 0 || !(f = fopen(path, "rb")))
    return feint_error_set(FEINT_ERR_INPUT, "%smesh file '%s' cannot be read: %s", r.pre, path,
                           strerror(errno));
  fclose(f);
  if (S_ISDIR(sb.st_mode))
    return feint_error_set(FEINT_ERR_INPUT, "%smesh file '%s' cannot be read: %s", r.pre, path,
                           strerror(EISDIR));

  FEINT_CALL(gmsh_start());
  int ierr = 0, st;
  if ((st = feint_calloc(1, sizeof *r.m, &r.m, "mesh"))) return st;
  if ((st = feint_strdup(path, &r.m->path))) {
    free(r.m);
    return st;
  }
  gmshLoggerStart(&ierr);
  st = read_all(&r, opts);
  gmshLoggerStop(&ierr);
  gmshClear(&ierr); /* release Gmsh's copy of the mesh */
  gmsh_restore_options();

  for (int i = 0; i < r.n_types; i++) {
    free(r.types[i].name);
    free(r.types[i].friendly);
  }
  free(r.types);
  free(r.ents);
  free(r.gent_off);
  free(r.gent);
  free(r.region);
  free(r.cells.a);
  free(r.facets.a);
  free(r.cell_group_v.a);
  for (int t = 0; t < 7; t++) {
    free(r.cells_of[t].a);
    free(r.group_of[t].a);
  }
  if (!st && opts && opts->reorder) st = feint_mesh_reorder_nodes(r.m);
  if (st) {
    feint_mesh_destroy(r.m);
    return st;
  }
  *out = r.m;
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

const char *feint_mesh_shapes(const feint_mesh *mesh, char *buf, size_t size) {
  size_t used = 0;
  buf[0] = '\0';
  for (int b = 0; b < mesh->n_blocks && used < size; b++) {
    snprintf(buf + used, size - used, "%s%s", b ? " + " : "", feint_cell_name(mesh->blocks[b].cell_type));
    used = strlen(buf);
  }
  return buf;
}
