build-dev/cmd/feint.o: cmd/feint.c cmd/cmd.h include/feint/driver.h \
 include/feint/case.h include/feint/error.h include/feint/version.h
cmd/cmd.h:
include/feint/driver.h:
include/feint/case.h:
include/feint/error.h:
include/feint/version.h:
