build-dev/src/error/error.o: src/error/error.c include/feint/error.h
include/feint/error.h:
