build-dev/cmd/info.o: cmd/info.c cmd/cmd.h include/feint/driver.h \
 include/feint/case.h include/feint/error.h include/feint/mesh.h \
 include/feint/fe.h
cmd/cmd.h:
include/feint/driver.h:
include/feint/case.h:
include/feint/error.h:
include/feint/mesh.h:
include/feint/fe.h:
