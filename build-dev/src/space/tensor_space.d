build-dev/src/space/tensor_space.o: src/space/tensor_space.c \
 include/feint/bp.h include/feint/physics.h include/feint/mesh.h \
 include/feint/fe.h include/feint/error.h src/space/space_private.h \
 include/feint/space.h
include/feint/bp.h:
include/feint/physics.h:
include/feint/mesh.h:
include/feint/fe.h:
include/feint/error.h:
src/space/space_private.h:
include/feint/space.h:
