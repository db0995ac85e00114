build-dev/src/fe/cell.o: src/fe/cell.c include/feint/fe.h
include/feint/fe.h:
