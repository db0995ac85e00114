build-dev/src/space/facets.o: src/space/facets.c include/feint/error.h \
 include/feint/space.h include/feint/fe.h include/feint/mesh.h \
 include/feint/tensor.h
include/feint/error.h:
include/feint/space.h:
include/feint/fe.h:
include/feint/mesh.h:
include/feint/tensor.h:
