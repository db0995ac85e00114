build-dev/src/fe/tensor_element.o: src/fe/tensor_element.c \
 src/fe/tensor_element.h include/feint/fe.h include/feint/error.h \
 include/feint/tensor.h
src/fe/tensor_element.h:
include/feint/fe.h:
include/feint/error.h:
include/feint/tensor.h:
