build-dev/src/util/sha256.o: src/util/sha256.c include/feint/sha256.h \
 include/feint/error.h
include/feint/sha256.h:
include/feint/error.h:
