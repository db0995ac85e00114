build-dev/src/form/nullspace.o: src/form/nullspace.c \
 include/feint/error.h include/feint/form.h include/feint/case.h \
 include/feint/fe.h include/feint/physics.h include/feint/space.h \
 include/feint/mesh.h
include/feint/error.h:
include/feint/form.h:
include/feint/case.h:
include/feint/fe.h:
include/feint/physics.h:
include/feint/space.h:
include/feint/mesh.h:
