build-dev/src/case/case.o: src/case/case.c include/feint/case.h \
 src/case/tree.h include/feint/error.h include/feint/expr.h \
 include/feint/sha256.h
include/feint/case.h:
src/case/tree.h:
include/feint/error.h:
include/feint/expr.h:
include/feint/sha256.h:
