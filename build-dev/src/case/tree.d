build-dev/src/case/tree.o: src/case/tree.c src/case/tree.h \
 include/feint/error.h
src/case/tree.h:
include/feint/error.h:
