build-dev/src/mesh/reorder.o: src/mesh/reorder.c include/feint/error.h \
 include/feint/mesh.h include/feint/fe.h
include/feint/error.h:
include/feint/mesh.h:
include/feint/fe.h:
