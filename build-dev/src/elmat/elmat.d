build-dev/src/elmat/elmat.o: src/elmat/elmat.c include/feint/elmat.h \
 include/feint/fe.h include/feint/form.h include/feint/case.h \
 include/feint/physics.h include/feint/space.h include/feint/mesh.h \
 include/feint/geometry.h include/feint/error.h
include/feint/elmat.h:
include/feint/fe.h:
include/feint/form.h:
include/feint/case.h:
include/feint/physics.h:
include/feint/space.h:
include/feint/mesh.h:
include/feint/geometry.h:
include/feint/error.h:
