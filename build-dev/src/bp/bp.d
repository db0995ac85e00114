build-dev/src/bp/bp.o: src/bp/bp.c include/feint/bp.h \
 include/feint/physics.h include/feint/mesh.h include/feint/fe.h \
 include/feint/error.h include/feint/tensor.h
include/feint/bp.h:
include/feint/physics.h:
include/feint/mesh.h:
include/feint/fe.h:
include/feint/error.h:
include/feint/tensor.h:
