/* libgmsh loaded on first use (gmsh_loader.c): the Gmsh C API functions
 * feint calls are defined there and forward to the library. Private to the
 * mesh module. */
#ifndef FEINT_MESH_GMSH_LOADER_H
#define FEINT_MESH_GMSH_LOADER_H

/* NULL when libgmsh is loaded (loading it if needed), else why not. */
const char *feint_gmsh_load_error(void);

/* Make handler run when an allocation of libgmsh's C++ code fails (its
 * operator new's handler), before anything is thrown; the handler must not
 * return. Returns 1, or 0 when the library or its C++ runtime offers none. */
int feint_gmsh_on_out_of_memory(void (*handler)(void));

#endif
