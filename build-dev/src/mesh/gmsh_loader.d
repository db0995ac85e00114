build-dev/src/mesh/gmsh_loader.o: src/mesh/gmsh_loader.c \
 src/mesh/gmsh_loader.h
src/mesh/gmsh_loader.h:
