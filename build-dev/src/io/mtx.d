build-dev/src/io/mtx.o: src/io/mtx.c include/feint/error.h \
 include/feint/h5.h
include/feint/error.h:
include/feint/h5.h:
