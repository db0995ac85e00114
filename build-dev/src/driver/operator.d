build-dev/src/driver/operator.o: src/driver/operator.c src/driver/run.h \
 include/feint/backend.h include/feint/bp.h include/feint/physics.h \
 include/feint/mesh.h include/feint/fe.h include/feint/case.h \
 include/feint/form.h include/feint/space.h include/feint/plan.h \
 include/feint/boundary.h include/feint/h5.h include/feint/driver.h \
 include/feint/sha256.h include/feint/error.h include/feint/expr.h
src/driver/run.h:
include/feint/backend.h:
include/feint/bp.h:
include/feint/physics.h:
include/feint/mesh.h:
include/feint/fe.h:
include/feint/case.h:
include/feint/form.h:
include/feint/space.h:
include/feint/plan.h:
include/feint/boundary.h:
include/feint/h5.h:
include/feint/driver.h:
include/feint/sha256.h:
include/feint/error.h:
include/feint/expr.h:
