build-dev/src/mesh/stats.o: src/mesh/stats.c include/feint/mesh.h \
 include/feint/fe.h
include/feint/mesh.h:
include/feint/fe.h:
