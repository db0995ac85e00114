build-dev/src/fe/quadrature.o: src/fe/quadrature.c include/feint/error.h \
 include/feint/fe.h include/feint/tensor.h
include/feint/error.h:
include/feint/fe.h:
include/feint/tensor.h:
