build-dev/src/mesh/mesh.o: src/mesh/mesh.c include/feint/mesh.h \
 include/feint/fe.h include/feint/error.h src/mesh/gmsh_loader.h
include/feint/mesh.h:
include/feint/fe.h:
include/feint/error.h:
src/mesh/gmsh_loader.h:
