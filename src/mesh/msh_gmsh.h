/* The libgmsh source of the mesh model (gmsh_source.c), private to the mesh
 * module: .geo files are programs Gmsh runs (and meshes); their mesh comes
 * back through the Gmsh C API as the same feint_msh model the native .msh
 * reader fills, so mesh.c builds both with one builder. */
#ifndef FEINT_MESH_MSH_GMSH_H
#define FEINT_MESH_MSH_GMSH_H

#include "feint/mesh.h"
#include "feint/msh.h"

/* Open path with libgmsh (meshing a .geo as opts->size says, refining
 * opts->refine times) and convert its mesh into *out (entities in
 * gmshModelGetEntities order, element blocks per entity in
 * gmshModelMeshGetElements order, nodes in gmshModelMeshGetNodes order).
 * pre prefixes messages ("case.yaml:3:9: " or ""); *seconds is the time
 * libgmsh spent opening (and meshing, refining) the file.
 *
 * All of it runs in a child process (gmsh_child.c) under a memory and a
 * time limit: a crash, a limit or a hang of Gmsh becomes an error here.
 * The model comes back to this process whole. */
int feint_gmsh_model(const char *path, const feint_mesh_options *opts, const char *pre, feint_msh **out,
                     double *seconds);

/* The same in this process (gmsh_source.c): what the child runs. Loads and
 * initialises libgmsh first (feint_gmsh_start), which the child also calls
 * alone, to set its memory limit past libgmsh's own mappings. Gmsh writes
 * its errors to stderr too. */
int feint_gmsh_model_here(const char *path, const feint_mesh_options *opts, const char *pre, feint_msh **out,
                          double *seconds);
int feint_gmsh_start(void);

/* feint_mesh_read through libgmsh whatever the file (a .msh too): the
 * reference the native reader is tested against. */
int feint_mesh_read_gmsh(const char *path, const feint_mesh_options *opts, feint_mesh **out);

#endif
