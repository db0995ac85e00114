# feint build. `make` builds build/feint (with the CUDA backend when nvcc is
# found on PATH or in /usr/local/cuda/bin), `make test` runs the test suite,
# `make bench` the CPU benchmark, `make install PREFIX=...` installs.
PREFIX ?= /usr/local
# make EXPERIMENTS=1: every kernel variant, also those that lost at their
# order (for comparisons: tests/gpu/bp-variants.sh), in build-exp
BUILD  ?= $(if $(filter 1,$(EXPERIMENTS)),build-exp,build)

NVCC ?= $(shell command -v nvcc 2>/dev/null || { test -x /usr/local/cuda/bin/nvcc && echo /usr/local/cuda/bin/nvcc; })
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(NVCC))

PKG_CFLAGS := $(shell pkg-config --cflags hdf5-serial yaml-0.1 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs hdf5-serial yaml-0.1 2>/dev/null)

CC      ?= cc
CFLAGS  ?= -O2 -g
# override: a CFLAGS given on the command line (make test-asan) replaces
# -O2 -g only, not the flags feint needs
override CFLAGS += -std=c11 -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE \
           -pthread -Iinclude -Isrc $(PKG_CFLAGS) -MMD -MP
# libgmsh is opened when first needed (src/mesh/gmsh_loader.c), not linked
GMSH_SONAME := $(shell objdump -p $$(ls /usr/lib/*/libgmsh.so /usr/lib/libgmsh.so 2>/dev/null | head -1) 2>/dev/null | awk '/SONAME/ {print $$2}')
override CFLAGS += -DFEINT_GMSH_SONAME='"$(or $(GMSH_SONAME),libgmsh.so)"'
LDLIBS  += $(PKG_LIBS) -lm -lpthread -ldl

# src/backend/cuda/: kind.c (what the cuda backend computes) and
# families.c (its kernel families) in every build,
# so that --backend cuda says why a problem cannot run there; the host
# sides of the CUDA backend with nvcc only. Without nvcc nothing else of
# the directory is linked: feint reaches the GPU only through the registry,
# whose cuda kind then says it was built without CUDA.
CUDA_EVERY_BUILD := src/backend/cuda/kind.c src/backend/cuda/families.c src/backend/cuda/form_source.c
# embed_headers.c is a build tool (below), not library code
CUDA_HOST_SRC := $(filter-out $(CUDA_EVERY_BUILD) src/backend/cuda/embed_headers.c,\
                   $(sort $(wildcard src/backend/cuda/*.c)))
# the MPI plugin (src/dist/mpi_plugin.c) is built on its own, below
LIB_SRC := $(filter-out $(CUDA_HOST_SRC) src/backend/cuda/embed_headers.c src/dist/mpi_plugin.c,\
             $(shell find src -name '*.c' | sort))
CMD_SRC := $(sort $(wildcard cmd/*.c))
# The GPU-only tests: they call the CUDA backend's own entry points
# (cuda_timing.h, the GPU functions of plan.h, bp.h, elmat.h) and check
# nothing on the host, so they are built with nvcc only. A test with host
# checks too is built in every build: it asks the registry whether a GPU
# is there (feint_backend_available) and keeps what calls CUDA entry
# points under #ifdef FEINT_HAVE_CUDA.
TEST_GPU_SRC := $(addprefix tests/unit/,t311-plan-cuda.c t312-plan-bench.c t501-cuda-bench.c t503-bplan-gpu.c \
                  t505-cuda-tuning.c t602-bp-gpu.c t69-bp-bench.c)
TEST_SRC := $(filter-out $(TEST_GPU_SRC),$(sort $(wildcard tests/unit/t*.c)))

# With nvcc every src/backend/cuda/*.cu goes into the library (the files
# and their jobs: docs/backends.md). paper.cu holds a benchmark's kernel
# only: nothing in feint refers to it, so from libfeint.a it is linked into
# the benchmark that calls it (t501) and no other binary.
ifneq ($(NVCC),)
  HAVE_CUDA := 1
  CU_SRC    := $(sort $(wildcard src/backend/cuda/*.cu))
  NVCCFLAGS ?= -O3 -gencode=arch=compute_90,code=sm_90 -gencode=arch=compute_90,code=compute_90
  NVCCFLAGS += -std=c++17 -Iinclude -Isrc -Xcompiler -Wall,-Wextra,-Werror -Werror all-warnings
  override CFLAGS += -DFEINT_HAVE_CUDA=1
  LDLIBS    += -L$(CUDA_HOME)/lib64 -lcudart_static -ldl -lrt -lpthread -lstdc++
  CU_OBJ    := $(CU_SRC:%.cu=$(BUILD)/%.o)
  # feint's device headers as NVRTC compiles the user-form P1 kernels with
  # them (src/backend/cuda/jit_headers.h), embedded as strings
  JIT_HEADERS := src/backend/cuda/p1_form.cuh src/backend/cuda/p1_lean.cuh src/backend/cuda/p1.cuh src/backend/cuda/p1_types.cuh \
                 include/feint/geometry.h include/feint/physics.h include/feint/field_kind.h
  CU_OBJ    += $(BUILD)/gen/jit_headers.o
  LIB_SRC   += $(CUDA_HOST_SRC)
  TEST_SRC  += $(TEST_GPU_SRC)
  # the JIT's GPU test allocates and copies with the CUDA runtime itself
  $(BUILD)/tests/t640-jit: override CFLAGS += -I$(CUDA_HOME)/include
else
  HAVE_CUDA := 0
  CU_OBJ    :=
endif

# MPI (`mpirun -n P feint run`, include/feint/dist.h): feint-mpi.so beside
# feint, with MPI, METIS and parallel HDF5, when mpicc, metis.h and
# libhdf5-openmpi-dev are found; feint loads it only when mpirun starts it
# on more than one rank.
MPICC ?= $(shell command -v mpicc 2>/dev/null)
METIS_H := $(wildcard /usr/include/metis.h)
PHDF5_CFLAGS := $(shell pkg-config --cflags hdf5-openmpi 2>/dev/null)
PHDF5_LIBS   := $(shell pkg-config --libs hdf5-openmpi 2>/dev/null)
ifneq ($(and $(MPICC),$(METIS_H),$(PHDF5_LIBS)),)
  MPI_PLUGIN := $(BUILD)/feint-mpi.so
else
  MPI_PLUGIN :=
endif

ifeq ($(EXPERIMENTS),1)
  override CFLAGS += -DFEINT_EXPERIMENTS=1
  NVCCFLAGS += -DFEINT_EXPERIMENTS=1
endif

LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o) $(CU_OBJ)

# FEINT_LIB=shared (a separate BUILD): the library as libfeint.so beside
# the binaries, which then hold no CUDA code of their own; the GPU test
# binaries are carried to the device machine that way (the static ones
# embed the same ~24 MB of kernels each).
ifeq ($(FEINT_LIB),shared)
  override CFLAGS += -fPIC
  NVCCFLAGS += -Xcompiler -fPIC
  LIBFEINT  := $(BUILD)/libfeint.so
  LINK_FEINT = -L$(BUILD) -lfeint -Wl,-rpath,'$$ORIGIN:$$ORIGIN/..'
else
  LIBFEINT  := $(BUILD)/libfeint.a
  LINK_FEINT = $(BUILD)/libfeint.a
endif
CMD_OBJ  := $(CMD_SRC:%.c=$(BUILD)/%.o)
TEST_BIN := $(TEST_SRC:tests/unit/%.c=$(BUILD)/tests/%)

.PHONY: all test test-gpu test-asan bench bench-gpu bench-e2e bench-mpi install install-files clean fuzz fuzz-msh fuzz-case fuzz-expr
BENCH_BIN := $(BUILD)/bench/gen-cube-msh $(BUILD)/bench/gmsh-open
# the fuzz harnesses as plain programs over files (tests/fuzz/replay.c): the
# suite replays their corpora and regression inputs (t33-fuzz-regress.sh)
REPLAY_BIN := $(BUILD)/tests/fuzz/replay_case $(BUILD)/tests/fuzz/replay_expr $(BUILD)/tests/fuzz/replay_msh
all: $(BUILD)/feint $(MPI_PLUGIN) $(TEST_BIN) $(BENCH_BIN) $(REPLAY_BIN)

$(BUILD)/feint-mpi.so: src/dist/mpi_plugin.c src/dist/plugin.h include/feint/dist.h
	@mkdir -p $(@D)
	$(MPICC) $(filter-out -MMD -MP $(PKG_CFLAGS),$(CFLAGS)) $(PHDF5_CFLAGS) -fPIC -shared -o $@ $< -lmetis \
	  $(PHDF5_LIBS)

# the end-to-end benchmark's mesh generator and floor (not part of feint)
$(BUILD)/bench/%: tests/bench/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< -lgmsh $(LDLIBS)

$(BUILD)/libfeint.a: $(LIB_OBJ)
	@mkdir -p $(@D)
	$(AR) rcs $@ $^

$(BUILD)/libfeint.so: $(LIB_OBJ)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -shared -o $@ $^ $(LDLIBS)

$(BUILD)/feint: $(CMD_OBJ) $(LIBFEINT)
	$(CC) $(CFLAGS) -o $@ $(CMD_OBJ) $(LINK_FEINT) $(LDLIBS)

$(BUILD)/tests/%: tests/unit/%.c $(LIBFEINT) tests/unit/check.h tests/unit/testmesh.h tests/unit/bc_case.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itests/unit -o $@ $< $(LINK_FEINT) $(LDLIBS)

$(BUILD)/tests/fuzz/replay_%: tests/fuzz/replay.c tests/fuzz/fuzz_%.c $(LIBFEINT)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ tests/fuzz/replay.c tests/fuzz/fuzz_$*.c $(LINK_FEINT) $(LDLIBS)

$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c -o $@ $<

$(BUILD)/tools/embed_headers: src/backend/cuda/embed_headers.c
	@mkdir -p $(@D)
	$(CC) -O2 -std=c11 -Wall -Wextra -Werror -o $@ $<

$(BUILD)/gen/jit_headers.c: $(BUILD)/tools/embed_headers $(JIT_HEADERS)
	@mkdir -p $(@D)
	$(BUILD)/tools/embed_headers $@ $(JIT_HEADERS)

$(BUILD)/gen/jit_headers.o: $(BUILD)/gen/jit_headers.c
	$(CC) $(CFLAGS) -c -o $@ $<

$(BUILD)/%.o: %.cu
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -MMD -MP -c -o $@ $<

test: all
	BUILD=$(BUILD) bash tests/run.sh

test-gpu: all
	FEINT_GPU_TESTS=1 BUILD=$(BUILD) bash tests/run.sh tests/gpu

# make test-asan: the suite again under AddressSanitizer + UBSan, a CPU-only
# build in build-asan (the normal build is untouched). Any memory error or
# UB stops the process and fails its test; so does a leak of what feint
# allocates. libgmsh's own leaks are suppressed: in the whole suite by
# module (tests/lsan-fast.supp: the fast unwinder stops inside libgmsh), then
# the mesh reader's test and a prism case again with whole stacks, which
# tell libgmsh's leaks from a gmshFree feint forgot (tests/lsan.supp).
ASAN_BUILD  ?= build-asan
ASAN_CFLAGS ?= -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
# FEINT_GMSH_TIMEOUT: a meshing child forked while another thread was in
# libasan's allocator hung (fixed: run_quiesce); any hang fails in 2 minutes
ASAN_ENV    := UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 FEINT_GMSH_TIMEOUT=120 ASAN_OPTIONS=detect_leaks=1
test-asan:
	$(MAKE) BUILD=$(ASAN_BUILD) NVCC= CFLAGS='$(ASAN_CFLAGS)' all
	$(ASAN_ENV) LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan-fast.supp:print_suppressions=0 \
	  BUILD=$(ASAN_BUILD) FEINT= bash tests/run.sh
	$(ASAN_ENV):fast_unwind_on_malloc=0:malloc_context_size=64 \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
	  sh -c '$(ASAN_BUILD)/tests/t200-mesh > /dev/null && \
	    $(ASAN_BUILD)/feint run --quiet cases/poisson-prism.yaml -o $(ASAN_BUILD)/poisson-prism.h5'
	@echo "test-asan: the suite and the whole-stack leak pass are clean"

bench: all
	bash tests/bench.sh

bench-gpu: all
	BUILD=$(BUILD) bash tests/gpu/bench.sh
	BUILD=$(BUILD) bash tests/bench/e2e.sh

bench-e2e: all
	BUILD=$(BUILD) bash tests/bench/e2e.sh

# mpirun scaling of the whole run (docs/mpi.md): MPI_RANKS=1,2,4 ranks,
# weak (6M P1 tetrahedra a rank) and strong (STRONG_N: 6 N^3 cells), each
# mesh.partition of MPI_PARTITIONS (e.g. rows,morton) against one rank
MPI_RANKS ?= 1,2
STRONG_N ?= 159
MPI_PARTITIONS ?= auto
bench-mpi: all
	/usr/bin/python3 tests/bench/mpi-scaling.py $(BUILD)/feint $(BUILD)/bench/gen-cube-msh $(BUILD)/bench-mpi \
	  "mpirun --bind-to none" $(MPI_RANKS) $(STRONG_N) $(if $(NVCC),cuda,cpu) $(MPI_PARTITIONS)

# libFuzzer harnesses (not part of `make all` nor `make test`): `make fuzz`
# builds all three in $(BUILD)/fuzz: fuzz_msh (the native .msh reader and the
# mesh builder), fuzz_case (the case loader, --set overrides and sweep
# members: what `feint check` does before the mesh) and fuzz_expr (the
# expression parser and evaluator); `make fuzz-msh`, `fuzz-case`,
# `fuzz-expr` build one. Run one as
#   $(BUILD)/fuzz/fuzz_case -runs=1000000 NEW_CORPUS_DIR tests/fuzz/corpus/case
# (docs/fuzzing.md: the runs so far and what they found). A crash found
# becomes an input in tests/fuzz/regress/<harness>, which the suite runs
# through feint (t32-msh-malformed.sh, t33-fuzz-regress.sh).
FUZZ_CC ?= clang
FUZZ_FLAGS ?= -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
FUZZ_CFLAGS := $(FUZZ_FLAGS) -std=c11 -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -Iinclude -Isrc
FUZZ_MSH_SRC := src/mesh/msh.c src/mesh/mesh.c src/mesh/blend.c src/mesh/gmsh_source.c src/mesh/gmsh_child.c src/mesh/gmsh_loader.c src/mesh/reorder.c src/error/error.c src/util/parallel.c src/fe/cell.c src/dist/timeline.c src/dist/comm.c src/dist/share_nodes.c
FUZZ_CASE_SRC := src/case/case.c src/case/tree.c src/expr/expr.c src/util/sha256.c src/error/error.c src/util/parallel.c src/fe/quadrature.c src/fe/cell.c src/fe/tensor.c
FUZZ_EXPR_SRC := src/expr/expr.c src/error/error.c src/util/parallel.c
fuzz: fuzz-msh fuzz-case fuzz-expr
fuzz-msh: $(BUILD)/fuzz/fuzz_msh
fuzz-case: $(BUILD)/fuzz/fuzz_case
fuzz-expr: $(BUILD)/fuzz/fuzz_expr
$(BUILD)/fuzz/fuzz_msh: tests/fuzz/fuzz_msh.c $(FUZZ_MSH_SRC) include/feint/msh.h include/feint/mesh.h
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -DFEINT_GMSH_SONAME='"$(or $(GMSH_SONAME),libgmsh.so)"' -o $@ $< $(FUZZ_MSH_SRC) -lm -ldl
$(BUILD)/fuzz/fuzz_case: tests/fuzz/fuzz_case.c $(FUZZ_CASE_SRC) include/feint/case.h src/case/tree.h include/feint/expr.h
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(shell pkg-config --cflags yaml-0.1 2>/dev/null) -o $@ $< $(FUZZ_CASE_SRC) \
	  $(shell pkg-config --libs yaml-0.1 2>/dev/null || echo -lyaml) -lm
$(BUILD)/fuzz/fuzz_expr: tests/fuzz/fuzz_expr.c $(FUZZ_EXPR_SRC) include/feint/expr.h
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $< $(FUZZ_EXPR_SRC) -lm

install: all
	@$(MAKE) --no-print-directory install-files

# install-files only copies what is built (t05 uses it: a test never builds)
install-files:
	@test -x $(BUILD)/feint || { echo "no $(BUILD)/feint: run make first" >&2; exit 1; }
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(BUILD)/feint $(DESTDIR)$(PREFIX)/bin/feint
	if [ -f $(BUILD)/feint-mpi.so ]; then install -d $(DESTDIR)$(PREFIX)/lib/feint && \
	  install -m 755 $(BUILD)/feint-mpi.so $(DESTDIR)$(PREFIX)/lib/feint/feint-mpi.so; fi
	install -m 644 man/feint.1 $(DESTDIR)$(PREFIX)/share/man/man1/feint.1

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
