build-dev/src/form/form.o: src/form/form.c include/feint/form.h \
 include/feint/case.h include/feint/fe.h include/feint/physics.h \
 include/feint/space.h include/feint/mesh.h include/feint/error.h \
 include/feint/expr.h include/feint/h5.h
include/feint/form.h:
include/feint/case.h:
include/feint/fe.h:
include/feint/physics.h:
include/feint/space.h:
include/feint/mesh.h:
include/feint/error.h:
include/feint/expr.h:
include/feint/h5.h:
