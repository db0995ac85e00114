build-dev/cmd/run.o: cmd/run.c cmd/cmd.h include/feint/driver.h \
 include/feint/case.h include/feint/error.h
cmd/cmd.h:
include/feint/driver.h:
include/feint/case.h:
include/feint/error.h:
