build-dev/src/expr/expr.o: src/expr/expr.c include/feint/expr.h \
 include/feint/error.h
include/feint/expr.h:
include/feint/error.h:
