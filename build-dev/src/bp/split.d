build-dev/src/bp/split.o: src/bp/split.c include/feint/bp.h \
 include/feint/physics.h include/feint/mesh.h include/feint/fe.h \
 include/feint/error.h
include/feint/bp.h:
include/feint/physics.h:
include/feint/mesh.h:
include/feint/fe.h:
include/feint/error.h:
