build-dev/src/backend/backend.o: src/backend/backend.c \
 include/feint/backend.h include/feint/bp.h include/feint/physics.h \
 include/feint/mesh.h include/feint/fe.h include/feint/case.h \
 include/feint/form.h include/feint/space.h include/feint/plan.h \
 include/feint/error.h
include/feint/backend.h:
include/feint/bp.h:
include/feint/physics.h:
include/feint/mesh.h:
include/feint/fe.h:
include/feint/case.h:
include/feint/form.h:
include/feint/space.h:
include/feint/plan.h:
include/feint/error.h:
