build-dev/src/fe/tensor.o: src/fe/tensor.c include/feint/tensor.h \
 include/feint/error.h
include/feint/tensor.h:
include/feint/error.h:
