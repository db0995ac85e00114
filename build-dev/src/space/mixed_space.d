build-dev/src/space/mixed_space.o: src/space/mixed_space.c \
 include/feint/error.h src/space/space_private.h include/feint/space.h \
 include/feint/fe.h include/feint/mesh.h
include/feint/error.h:
src/space/space_private.h:
include/feint/space.h:
include/feint/fe.h:
include/feint/mesh.h:
