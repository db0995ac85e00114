build-dev/cmd/bench.o: cmd/bench.c src/backend/cuda/cuda_timing.h \
 include/feint/backend.h include/feint/bp.h include/feint/physics.h \
 include/feint/mesh.h include/feint/fe.h include/feint/case.h \
 include/feint/form.h include/feint/space.h include/feint/plan.h \
 cmd/cmd.h include/feint/driver.h include/feint/error.h
src/backend/cuda/cuda_timing.h:
include/feint/backend.h:
include/feint/bp.h:
include/feint/physics.h:
include/feint/mesh.h:
include/feint/fe.h:
include/feint/case.h:
include/feint/form.h:
include/feint/space.h:
include/feint/plan.h:
cmd/cmd.h:
include/feint/driver.h:
include/feint/error.h:
