build-dev/src/plan/plan.o: src/plan/plan.c include/feint/plan.h \
 include/feint/space.h include/feint/fe.h include/feint/mesh.h \
 include/feint/error.h
include/feint/plan.h:
include/feint/space.h:
include/feint/fe.h:
include/feint/mesh.h:
include/feint/error.h:
