build-dev/src/space/space.o: src/space/space.c include/feint/space.h \
 include/feint/fe.h include/feint/mesh.h include/feint/error.h \
 src/space/space_private.h
include/feint/space.h:
include/feint/fe.h:
include/feint/mesh.h:
include/feint/error.h:
src/space/space_private.h:
