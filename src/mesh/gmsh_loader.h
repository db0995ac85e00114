/* libgmsh loaded on first use (gmsh_loader.c): the Gmsh C API functions
 * feint calls are defined there and forward to the library. Private to the
 * mesh module. */
#ifndef FEINT_MESH_GMSH_LOADER_H
#define FEINT_MESH_GMSH_LOADER_H

/* NULL when libgmsh is loaded (loading it if needed), else why not. */
const char *feint_gmsh_load_error(void);

#endif
