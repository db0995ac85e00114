build-dev/src/form/flops.o: src/form/flops.c include/feint/fe.h \
 include/feint/form.h include/feint/case.h include/feint/physics.h \
 include/feint/space.h include/feint/mesh.h
include/feint/fe.h:
include/feint/form.h:
include/feint/case.h:
include/feint/physics.h:
include/feint/space.h:
include/feint/mesh.h:
