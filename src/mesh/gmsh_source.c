/* The libgmsh source of the mesh model (msh_gmsh.h): .geo files (programs
 * Gmsh runs, then meshes) and, for `mesh.refine` and the tests, .msh files
 * opened by Gmsh. This runs in the meshing child process (gmsh_child.c),
 * never in feint's own.
 *
 * Gmsh is initialised once per process (never finalised; the OS reclaims it)
 * and cleared before and after each read, so it can be called any number of
 * times. Gmsh's own "abort on error" is switched off: with it on, an error
 * thrown from inside the .geo parser leaves the parser (and Gmsh's busy
 * lock) in a broken state for every later read in the process. Errors are
 * collected through Gmsh's logger and reported in feint's message, and
 * also written to stderr as they come (Gmsh's terminal output, errors
 * only), where the parent finds them if the child dies before it can
 * report.
 *
 * With a size (opts->size, .geo only), Mesh.MeshSizeMax = size,
 * Mesh.MeshSizeMin = 0 and point sizes are ignored
 * (Mesh.MeshSizeFromPoints = 0), so the size overrides any lc in the file;
 * a .geo whose mesh already exists (a "Mesh 3;" line) is meshed again only
 * when a size is given.
 *
 * The model is fetched in bulk: physical groups and their entities, then
 * per entity (gmshModelGetEntities order) its elements, then all nodes in
 * one call. */
#include <gmshc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "feint/error.h"
#include "mesh/gmsh_loader.h"
#include "mesh/msh_gmsh.h"

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

int feint_gmsh_start(void) {
  int ierr = 0;
  if (gmsh_ready) return FEINT_OK;
  const char *why = feint_gmsh_load_error();
  if (why) return feint_error_set(FEINT_ERR_COMPUTE, "could not initialise Gmsh: %s", why);
  gmshInitialize(0, NULL, 0, &ierr);
  if (ierr) return feint_error_set(FEINT_ERR_COMPUTE, "could not initialise Gmsh");
  gmshOptionSetNumber("General.Terminal", 1, &ierr);
  gmshOptionSetNumber("General.Verbosity", 1, &ierr); /* errors only */
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


static double seconds_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int gmsh_failed(const char *pre, const char *path, const char *what) {
  char msg[2048];
  if (!gmsh_log_messages("Error", msg, sizeof msg, 3)) snprintf(msg, sizeof msg, "unknown error");
  return feint_error_set(FEINT_ERR_INPUT, "%s%s: Gmsh failed (%s): %s", pre, path, what, msg);
}

/* gmshOpen, and for a .geo the meshing; then the refinements. */
static int open_file(const char *path, const feint_mesh_options *opts, const char *pre) {
  int ierr = 0;
  char msg[2048];
  const char *dot = strrchr(path, '.');
  int is_geo = dot && strcasecmp(dot, ".geo") == 0;
  gmsh_restore_options();
  gmshClear(&ierr);
  gmshOpen(path, &ierr);
  if (gmsh_log_messages("Error", msg, sizeof msg, 3) || ierr) {
    if (!msg[0]) snprintf(msg, sizeof msg, "unknown error");
    return feint_error_set(FEINT_ERR_INPUT, "%s%s: Gmsh could not read the %s: %s", pre, path,
                           is_geo ? "geometry" : "mesh", msg);
  }
  if (is_geo) {
    int gdim = gmshModelGetDimension(&ierr);
    if (ierr || gdim < 1)
      return feint_error_set(FEINT_ERR_INPUT, "%s%s: the geometry has no curves, surfaces or volumes",
                             pre, path);
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
        return feint_error_set(FEINT_ERR_INPUT, "%s%s: Gmsh could not mesh the geometry: %s", pre, path, msg);
      }
    }
  }
  for (int k = 0; opts && k < opts->refine; k++) {
    gmshModelMeshRefine(&ierr);
    if (gmsh_log_messages("Error", msg, sizeof msg, 3) || ierr) {
      if (!msg[0]) snprintf(msg, sizeof msg, "unknown error");
      return feint_error_set(FEINT_ERR_INPUT, "%s%s: Gmsh could not refine the mesh: %s", pre, path, msg);
    }
  }
  return FEINT_OK;
}

/* Physical groups: their names, and each entity's physical tags (the
 * inverse of gmshModelGetEntitiesForPhysicalGroup), in a table of
 * (dim, entity tag, physical tag) triples. */
typedef struct {
  int dim, tag, phys;
} ent_phys;

static int cmp_ent_phys(const void *pa, const void *pb) {
  const ent_phys *a = pa, *b = pb;
  if (a->dim != b->dim) return a->dim < b->dim ? -1 : 1;
  if (a->tag != b->tag) return a->tag < b->tag ? -1 : 1;
  return (a->phys > b->phys) - (a->phys < b->phys);
}

static int read_groups(feint_msh *x, const char *pre, const char *path, ent_phys **out, size_t *n_out) {
  int *dimtags = NULL, ierr = 0, st = FEINT_OK;
  size_t n = 0, np = 0, cap = 0;
  ent_phys *ep = NULL;
  *out = NULL;
  *n_out = 0;
  gmshModelGetPhysicalGroups(&dimtags, &n, -1, &ierr);
  if (ierr) return gmsh_failed(pre, path, "reading physical groups");
  for (size_t g = 0; g < n / 2 && !st; g++) {
    int dim = dimtags[2 * g], tag = dimtags[2 * g + 1];
    char *name = NULL;
    gmshModelGetPhysicalName(dim, tag, &name, &ierr);
    st = feint_msh_add_name(x, dim, tag, name ? name : "");
    gmshFree(name);
    if (st) break;
    int *tags = NULL;
    size_t nt = 0;
    gmshModelGetEntitiesForPhysicalGroup(dim, tag, &tags, &nt, &ierr);
    if (ierr) {
      gmshFree(tags);
      st = gmsh_failed(pre, path, "reading physical group entities");
      break;
    }
    if (np + nt > cap) {
      size_t nc = cap ? cap : 64;
      while (nc < np + nt) nc *= 2;
      ent_phys *a = realloc(ep, nc * sizeof *a);
      if (!a) {
        gmshFree(tags);
        st = feint_error_set(FEINT_ERR_COMPUTE, "out of memory allocating mesh groups");
        break;
      }
      ep = a;
      cap = nc;
    }
    for (size_t k = 0; k < nt; k++) ep[np++] = (ent_phys){dim, tags[k], tag};
    gmshFree(tags);
  }
  gmshFree(dimtags);
  if (st) {
    free(ep);
    return st;
  }
  if (np) qsort(ep, np, sizeof *ep, cmp_ent_phys);
  *out = ep;
  *n_out = np;
  return FEINT_OK;
}

/* Entities with their physical tags, and their elements, into x. */
static int read_entities(feint_msh *x, const char *pre, const char *path, const ent_phys *ep, size_t np) {
  int *dimtags = NULL, ierr = 0, st = FEINT_OK;
  size_t n = 0, k = 0;
  gmshModelGetEntities(&dimtags, &n, -1, &ierr);
  if (ierr) {
    gmshFree(dimtags);
    return gmsh_failed(pre, path, "reading entities");
  }
  for (size_t i = 0; i < n / 2 && !st; i++) {
    int dim = dimtags[2 * i], tag = dimtags[2 * i + 1];
    /* its physical tags: ep is sorted like the entities */
    ent_phys key = {dim, tag, 0};
    while (k < np && cmp_ent_phys(&ep[k], &key) < 0 && !(ep[k].dim == dim && ep[k].tag == tag)) k++;
    size_t k0 = k;
    while (k < np && ep[k].dim == dim && ep[k].tag == tag) k++;
    int *phys = NULL;
    if ((st = feint_malloc(k - k0 + 1, sizeof *phys, &phys, "entity physical tags"))) break;
    for (size_t j = k0; j < k; j++) phys[j - k0] = ep[j].phys;
    if ((st = feint_msh_add_entity(x, dim, tag, k - k0, phys))) break;

    int *types = NULL;
    size_t n_types = 0, **etags = NULL, *etags_n = NULL, etags_nn = 0, **ntags = NULL, *ntags_n = NULL,
           ntags_nn = 0;
    gmshModelMeshGetElements(&types, &n_types, &etags, &etags_n, &etags_nn, &ntags, &ntags_n, &ntags_nn,
                             dim, tag, &ierr);
    if (ierr || etags_nn != n_types || ntags_nn != n_types) st = gmsh_failed(pre, path, "reading elements");
    for (size_t t = 0; t < n_types && !st; t++) {
      const int nn = feint_msh_type_nodes(types[t]);
      const size_t ne = etags_n[t];
      if (nn <= 0 || ntags_n[t] != ne * (size_t)nn) {
        st = feint_error_set(FEINT_ERR_INPUT, "%smesh %s: inconsistent element data from Gmsh (type %d)", pre,
                             path, types[t]);
        break;
      }
      if (ne == 0) continue;
      int64_t *nodes = NULL;
      if ((st = feint_malloc(ne * (size_t)nn, sizeof *nodes, &nodes, "mesh elements"))) break;
      for (size_t j = 0; j < ne * (size_t)nn; j++) nodes[j] = (int64_t)ntags[t][j];
      st = feint_msh_add_block(x, dim, tag, types[t], ne, nodes);
    }
    for (size_t t = 0; t < etags_nn; t++) gmshFree(etags[t]);
    for (size_t t = 0; t < ntags_nn; t++) gmshFree(ntags[t]);
    gmshFree(etags);
    gmshFree(etags_n);
    gmshFree(ntags);
    gmshFree(ntags_n);
    gmshFree(types);
  }
  gmshFree(dimtags);
  return st;
}

static int read_nodes(feint_msh *x, const char *pre, const char *path) {
  size_t *tags = NULL, ntags = 0, ncoord = 0, npar = 0;
  double *coord = NULL, *par = NULL;
  int ierr = 0, st = FEINT_OK;
  gmshModelMeshGetNodes(&tags, &ntags, &coord, &ncoord, &par, &npar, -1, -1, 0, 0, &ierr);
  gmshFree(par);
  if (ierr || ncoord != 3 * ntags) st = gmsh_failed(pre, path, "reading nodes");
  if (!st) st = feint_malloc(ntags + 1, sizeof *x->node_tags, &x->node_tags, "mesh node tags");
  if (!st) st = feint_malloc(3 * ntags + 1, sizeof *x->xyz, &x->xyz, "mesh node coordinates");
  if (!st) {
    x->n_nodes = ntags;
    for (size_t i = 0; i < ntags; i++) x->node_tags[i] = (int64_t)tags[i];
    memcpy(x->xyz, coord, 3 * ntags * sizeof *coord);
  }
  gmshFree(tags);
  gmshFree(coord);
  return st;
}

/* Only MSH 2 repeats elements: the version in the header (a file that is
 * not recognisably MSH 4 is treated as MSH 2; a .geo is meshed in memory,
 * with no repeats). */
static int file_repeats(const char *path) {
  const char *dot = strrchr(path, '.');
  if (dot && strcasecmp(dot, ".geo") == 0) return 0;
  FILE *fh = fopen(path, "rb");
  char head[64] = {0};
  if (!fh) return 1;
  size_t got = fread(head, 1, sizeof head - 1, fh);
  head[got] = '\0';
  fclose(fh);
  return !(strncmp(head, "$MeshFormat", 11) == 0 && strtod(head + 12, NULL) >= 4.0);
}

int feint_gmsh_model_here(const char *path, const feint_mesh_options *opts, const char *pre, feint_msh **out,
                          double *seconds) {
  *out = NULL;
  *seconds = 0;
  FEINT_CALL(feint_gmsh_start());
  feint_msh *x = NULL;
  FEINT_CALL(feint_msh_create(&x));
  int ierr = 0;
  ent_phys *ep = NULL;
  size_t np = 0;
  gmshLoggerStart(&ierr);
  double t0 = seconds_now();
  int st = open_file(path, opts, pre);
  *seconds = seconds_now() - t0;
  if (!st) st = read_groups(x, pre, path, &ep, &np);
  if (!st) st = read_entities(x, pre, path, ep, np);
  if (!st) st = read_nodes(x, pre, path);
  if (!st) st = feint_msh_finish(x, path);
  free(ep);
  gmshLoggerStop(&ierr);
  gmshClear(&ierr); /* release Gmsh's copy of the mesh */
  gmsh_restore_options();
  x->repeats = file_repeats(path);
  if (st) {
    feint_msh_destroy(x);
    return st;
  }
  *out = x;
  return FEINT_OK;
}
