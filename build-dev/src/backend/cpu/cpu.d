build-dev/src/backend/cpu/cpu.o: src/backend/cpu/cpu.c \
 include/feint/backend.h include/feint/bp.h include/feint/physics.h \
 include/feint/mesh.h include/feint/fe.h include/feint/case.h \
 include/feint/form.h include/feint/space.h include/feint/plan.h \
 include/feint/error.h include/feint/geometry.h \
 src/backend/cpu/pointwise.h src/backend/cpu/tensor_cells.h
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
include/feint/geometry.h:
src/backend/cpu/pointwise.h:
src/backend/cpu/tensor_cells.h:
