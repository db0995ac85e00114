build-dev/src/driver/driver.o: src/driver/driver.c include/feint/driver.h \
 include/feint/case.h include/feint/backend.h include/feint/bp.h \
 include/feint/physics.h include/feint/mesh.h include/feint/fe.h \
 include/feint/form.h include/feint/space.h include/feint/plan.h \
 include/feint/boundary.h include/feint/h5.h include/feint/error.h \
 include/feint/expr.h include/feint/sha256.h include/feint/version.h \
 src/backend/cuda/cuda_timing.h src/driver/run.h
include/feint/driver.h:
include/feint/case.h:
include/feint/backend.h:
include/feint/bp.h:
include/feint/physics.h:
include/feint/mesh.h:
include/feint/fe.h:
include/feint/form.h:
include/feint/space.h:
include/feint/plan.h:
include/feint/boundary.h:
include/feint/h5.h:
include/feint/error.h:
include/feint/expr.h:
include/feint/sha256.h:
include/feint/version.h:
src/backend/cuda/cuda_timing.h:
src/driver/run.h:
