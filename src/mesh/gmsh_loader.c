/* libgmsh, loaded on first use.
 *
 * feint reads .msh files itself and needs Gmsh only for .geo files (and
 * refinement); linking libgmsh made every process load it and its ~100
 * dependent libraries at start, 0.11-0.13 s of every `feint run` whatever
 * the mesh. The functions of Gmsh's C API that feint calls are defined
 * here with the prototypes of <gmshc.h> (the compiler checks them) and
 * forward to the library opened by dlopen the first time one is called;
 * callers use the Gmsh API as documented. When the library cannot be
 * loaded, each call fails with *ierr = 1 and feint_gmsh_load_error says
 * why. To call another Gmsh function, add it to the list below. */
#include <dlfcn.h>
#include <gmshc.h>
#include <stdio.h>
#include <stdlib.h>

#include "mesh/gmsh_loader.h"

#ifndef FEINT_GMSH_SONAME
#define FEINT_GMSH_SONAME "libgmsh.so"
#endif

/* X(name): every Gmsh function feint calls (and its tests: t205 compares
 * feint's reference elements and geometry functions with Gmsh's) */
#define GMSH_FUNCTIONS(X)                                                                                      \
  X(gmshInitialize) X(gmshOptionSetNumber) X(gmshOptionGetNumber) X(gmshLoggerStart) X(gmshLoggerGet)         \
  X(gmshLoggerStop) X(gmshFree) X(gmshClear) X(gmshOpen) X(gmshModelGetDimension) X(gmshModelGetEntities)      \
  X(gmshModelGetEntitiesForPhysicalGroup) X(gmshModelGetPhysicalGroups) X(gmshModelGetPhysicalName)            \
  X(gmshModelMeshClear) X(gmshModelMeshGenerate) X(gmshModelMeshGetElementProperties)                          \
  X(gmshModelMeshGetBasisFunctions)                                                                            \
  X(gmshModelMeshGetElementTypes) X(gmshModelMeshGetElements) X(gmshModelMeshGetNodes) X(gmshModelMeshRefine)

#define POINTER(name) static __typeof__(name) *p_##name;
GMSH_FUNCTIONS(POINTER)

static int loaded;        /* 1 loaded, -1 failed, 0 not tried */
static char load_error[512];
static void *lib;

static int load(void) {
  if (loaded) return loaded > 0;
  loaded = -1;
  lib = dlopen(FEINT_GMSH_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    snprintf(load_error, sizeof load_error, "cannot load the Gmsh library %s: %s", FEINT_GMSH_SONAME, dlerror());
    return 0;
  }
#define RESOLVE(name)                                                                                          \
  if (!(*(void **)&p_##name = dlsym(lib, #name))) {                                                           \
    snprintf(load_error, sizeof load_error, "the Gmsh library %s has no %s", FEINT_GMSH_SONAME, #name);       \
    return 0;                                                                                                  \
  }
  GMSH_FUNCTIONS(RESOLVE)
  loaded = 1;
  return 1;
}

const char *feint_gmsh_load_error(void) { return load() ? NULL : load_error; }

int feint_gmsh_on_out_of_memory(void (*handler)(void)) {
  if (!load()) return 0;
  /* std::set_new_handler of the C++ runtime libgmsh was linked with
   * (dlsym on a handle searches the library's dependencies too) */
  void (*(*set)(void (*)(void)))(void);
  *(void **)&set = dlsym(lib, "_ZSt15set_new_handlerPFvvE");
  if (!set) return 0;
  set(handler);
  return 1;
}

/* Forward when loaded; else fail the call (ierr = 1; a value of 0). */
#define FORWARD(name, ...)                                                                                     \
  do {                                                                                                         \
    if (!load()) {                                                                                             \
      if (ierr) *ierr = 1;                                                                                     \
      return;                                                                                                  \
    }                                                                                                          \
    p_##name(__VA_ARGS__);                                                                                     \
  } while (0)

void gmshFree(void *p) {
  if (load()) p_gmshFree(p);
  else free(p);
}
void gmshInitialize(int argc, char **argv, const int readConfigFiles, int *ierr) {
  FORWARD(gmshInitialize, argc, argv, readConfigFiles, ierr);
}
void gmshOptionSetNumber(const char *name, const double value, int *ierr) {
  FORWARD(gmshOptionSetNumber, name, value, ierr);
}
void gmshOptionGetNumber(const char *name, double *value, int *ierr) { FORWARD(gmshOptionGetNumber, name, value, ierr); }
void gmshLoggerStart(int *ierr) { FORWARD(gmshLoggerStart, ierr); }
void gmshLoggerGet(char ***log, size_t *log_n, int *ierr) { FORWARD(gmshLoggerGet, log, log_n, ierr); }
void gmshLoggerStop(int *ierr) { FORWARD(gmshLoggerStop, ierr); }
void gmshClear(int *ierr) { FORWARD(gmshClear, ierr); }
void gmshOpen(const char *fileName, int *ierr) { FORWARD(gmshOpen, fileName, ierr); }
int gmshModelGetDimension(int *ierr) {
  if (!load()) {
    if (ierr) *ierr = 1;
    return 0;
  }
  return p_gmshModelGetDimension(ierr);
}
void gmshModelGetEntities(int **dimTags, size_t *dimTags_n, const int dim, int *ierr) {
  FORWARD(gmshModelGetEntities, dimTags, dimTags_n, dim, ierr);
}
void gmshModelGetEntitiesForPhysicalGroup(const int dim, const int tag, int **tags, size_t *tags_n, int *ierr) {
  FORWARD(gmshModelGetEntitiesForPhysicalGroup, dim, tag, tags, tags_n, ierr);
}
void gmshModelGetPhysicalGroups(int **dimTags, size_t *dimTags_n, const int dim, int *ierr) {
  FORWARD(gmshModelGetPhysicalGroups, dimTags, dimTags_n, dim, ierr);
}
void gmshModelGetPhysicalName(const int dim, const int tag, char **name, int *ierr) {
  FORWARD(gmshModelGetPhysicalName, dim, tag, name, ierr);
}
void gmshModelMeshClear(int *dimTags, size_t dimTags_n, int *ierr) {
  FORWARD(gmshModelMeshClear, dimTags, dimTags_n, ierr);
}
void gmshModelMeshGenerate(const int dim, int *ierr) { FORWARD(gmshModelMeshGenerate, dim, ierr); }
void gmshModelMeshGetElementProperties(const int elementType, char **elementName, int *dim, int *order,
                                       int *numNodes, double **localNodeCoord, size_t *localNodeCoord_n,
                                       int *numPrimaryNodes, int *ierr) {
  FORWARD(gmshModelMeshGetElementProperties, elementType, elementName, dim, order, numNodes, localNodeCoord,
          localNodeCoord_n, numPrimaryNodes, ierr);
}
void gmshModelMeshGetBasisFunctions(const int elementType, double *localCoord, size_t localCoord_n,
                                    const char *functionSpaceType, int *numComponents, double **basisFunctions,
                                    size_t *basisFunctions_n, int *numOrientations, int *wantedOrientations,
                                    size_t wantedOrientations_n, int *ierr) {
  FORWARD(gmshModelMeshGetBasisFunctions, elementType, localCoord, localCoord_n, functionSpaceType, numComponents,
          basisFunctions, basisFunctions_n, numOrientations, wantedOrientations, wantedOrientations_n, ierr);
}
void gmshModelMeshGetElementTypes(int **elementTypes, size_t *elementTypes_n, const int dim, const int tag,
                                  int *ierr) {
  FORWARD(gmshModelMeshGetElementTypes, elementTypes, elementTypes_n, dim, tag, ierr);
}
void gmshModelMeshGetElements(int **elementTypes, size_t *elementTypes_n, size_t ***elementTags,
                              size_t **elementTags_n, size_t *elementTags_nn, size_t ***nodeTags, size_t **nodeTags_n,
                              size_t *nodeTags_nn, const int dim, const int tag, int *ierr) {
  FORWARD(gmshModelMeshGetElements, elementTypes, elementTypes_n, elementTags, elementTags_n, elementTags_nn,
          nodeTags, nodeTags_n, nodeTags_nn, dim, tag, ierr);
}
void gmshModelMeshGetNodes(size_t **nodeTags, size_t *nodeTags_n, double **coord, size_t *coord_n,
                           double **parametricCoord, size_t *parametricCoord_n, const int dim, const int tag,
                           const int includeBoundary, const int returnParametricCoord, int *ierr) {
  FORWARD(gmshModelMeshGetNodes, nodeTags, nodeTags_n, coord, coord_n, parametricCoord, parametricCoord_n, dim, tag,
          includeBoundary, returnParametricCoord, ierr);
}
void gmshModelMeshRefine(int *ierr) { FORWARD(gmshModelMeshRefine, ierr); }
