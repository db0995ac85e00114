build-dev/src/fe/lagrange.o: src/fe/lagrange.c src/fe/tensor_element.h \
 include/feint/fe.h include/feint/error.h include/feint/tensor.h
src/fe/tensor_element.h:
include/feint/fe.h:
include/feint/error.h:
include/feint/tensor.h:
