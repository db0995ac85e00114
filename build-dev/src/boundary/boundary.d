build-dev/src/boundary/boundary.o: src/boundary/boundary.c \
 include/feint/boundary.h include/feint/case.h include/feint/h5.h \
 include/feint/plan.h include/feint/space.h include/feint/fe.h \
 include/feint/mesh.h include/feint/error.h include/feint/expr.h \
 include/feint/tensor.h src/boundary/facet.h
include/feint/boundary.h:
include/feint/case.h:
include/feint/h5.h:
include/feint/plan.h:
include/feint/space.h:
include/feint/fe.h:
include/feint/mesh.h:
include/feint/error.h:
include/feint/expr.h:
include/feint/tensor.h:
src/boundary/facet.h:
