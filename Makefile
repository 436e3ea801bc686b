# Blockwise - top-level build.
#
#   make              build everything into build/ (binaries in build/bin), and the
#                     web app into web/dist when npm is available (make web)
#   make test         CPU suite (no GPU needed) + the same unit tests under ASan/UBSan
#   make gpu-test     GPU suite on an existing build (never rebuilds; needs no -dev headers)
#   make gpu-validate every problem's controls timed, SHARD=K/N of them per call
#   make bench        benchmarks on the GPU machine, on an existing build
#   make format-check clang-format over every C source
#   make SANITIZE=address,undefined BUILD=build-asan   a sanitizer build
#   make install      the learner's CLI, the server, judged, problems and pages under
#                     PREFIX (/usr/local; DESTDIR honoured); make install-cli: the CLI alone
#
# Sources are discovered by folder (docs/architecture.md): library folders
# (common, problem, plan, wire, judge/sandbox, judge/worker, server) become
# archives, each process folder (judge/compile, judge/triton, judge/runner) is
# its binary, and every binary names below exactly what it links.

CUDA_HOME ?= /usr/local/cuda
BUILD     ?= build
SANITIZE  ?=
CC        ?= gcc
NVCC      ?= $(CUDA_HOME)/bin/nvcc

WARN    := -Wall -Wextra -Werror -Wshadow -Wmissing-prototypes -Wstrict-prototypes \
           -Wformat=2 -Wvla -Wno-missing-field-initializers
OPT     ?= -O2 -g
CFLAGS  ?=
# CUPTI's headers (judge/runner/cupti.c) are in include/ of a toolkit assembled from NVIDIA's
# wheels, in extras/CUPTI/include/ of one from the runfile or the distribution packages.
CFLAGS  += $(OPT) -std=c11 -D_GNU_SOURCE $(WARN) -I. -isystem $(CUDA_HOME)/include \
           -isystem $(CUDA_HOME)/extras/CUPTI/include -MMD -MP
LDFLAGS ?=
ifeq ($(SANITIZE),)
CFLAGS  += -D_FORTIFY_SOURCE=2 -fstack-protector-strong -fPIE
LDFLAGS += -pie -Wl,-z,relro,-z,now
else
CFLAGS  += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -DBW_SANITIZE=1
LDFLAGS += -fsanitize=$(SANITIZE)
endif
LDFLAGS += -Wl,--as-needed

CUDA_LIBDIR := $(CUDA_HOME)/lib64
# NVRTC is linked (it is on every judge machine with the toolkit); the CUDA
# driver is never linked, it is opened at run time by judge/runner/cuda.c.
LIBS_NVRTC  := -L$(CUDA_LIBDIR) -lnvrtc -Wl,-rpath,$(CUDA_LIBDIR) -Wl,-rpath,'$$ORIGIN'
LIBS_JUDGE  := -ljansson -lseccomp -lcurl -ldl -lpthread -lm
LIBS_RUNNER := -ljansson -lseccomp -ldl -lpthread -lm
# blockwise-server: libmicrohttpd and libsodium linked statically (GPU nodes
# lack them). Debian's libmicrohttpd.a is built with HTTPS support and so
# needs libgnutls.so.30, which every machine with Debian's libcurl.so.4 has
# (through librtmp1). md4c is copied next to the binary (rpath $ORIGIN).
LIBDIR_SYS  := /usr/lib/x86_64-linux-gnu
LIBS_SERVER := $(LIBDIR_SYS)/libmicrohttpd.a $(LIBDIR_SYS)/libsodium.a -lgnutls \
               -lmd4c-html -Wl,--no-as-needed -lmd4c -Wl,--as-needed -lsqlite3 -Wl,-rpath,'$$ORIGIN' -Wl,-rpath,'$$ORIGIN/../bin'

# ---- sources, by folder -------------------------------------------------------
# A folder is a part (docs/architecture.md). A library folder's *.c become one
# archive; a process folder's *.c are its binary (its main is *_main.c). Each
# binary names what it links below, so a binary's trusted code base is its
# link line: the runner links its own folder, the runner codec, the sandbox
# and common/, nothing of the worker, the server or the compilers.
objs_of = $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard $(1)/*.c))

COMMON_OBJ  := $(call objs_of,common)       # every binary: errors, logs, buffers, dtypes, expressions
PROBLEM_OBJ := $(call objs_of,problem)      # the problem directory: loader, bundles (server, judged)
PLAN_OBJ    := $(call objs_of,plan)         # the launch language (judged)
SANDBOX_OBJ := $(call objs_of,judge/sandbox) # the one sandbox of judged's children
# judged's own objects: its main and its command line (cli_*.c); the rest of
# judge/worker is the worker library the tests link too.
JUDGED_BIN_OBJ := $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard judge/worker/*_main.c judge/worker/cli_*.c))
WORKER_OBJ  := $(filter-out $(JUDGED_BIN_OBJ),$(call objs_of,judge/worker))
SERVER_OBJ  := $(filter-out %/main.o,$(call objs_of,server) $(call objs_of,server/store)) $(BUILD)/obj/schema_blob.o
# The codecs, one per process boundary (wire/); both sides of a boundary link its codec.
WIRE_RUNNER  := $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard wire/runner_proto*.c)) $(BUILD)/obj/wire/ipc.o # judged <-> blockwise-runner
WIRE_COMPILE := $(BUILD)/obj/wire/compile_wire.o # judged <-> blockwise-compile, blockwise-triton-compile
WIRE_WORKER  := $(BUILD)/obj/wire/worker_proto.o # blockwise-server <-> judged
WIRE_OBJ     := $(call objs_of,wire)

COMPILE_BIN_OBJ := $(call objs_of,judge/compile)
TRITON_BIN_OBJ  := $(call objs_of,judge/triton) $(BUILD)/obj/triton_driver_blob.o \
                   $(BUILD)/obj/triton_launcher_blob.o
RUNNER_BIN_OBJ  := $(call objs_of,judge/runner) $(BUILD)/obj/harness_blob.o

TEST_SRC  := $(wildcard tests/unit/test_*.c)
TEST_BINS := $(TEST_SRC:tests/unit/%.c=$(BUILD)/tests/%)

BINS := $(BUILD)/bin/judged $(BUILD)/bin/blockwise-compile $(BUILD)/bin/blockwise-runner \
        $(BUILD)/bin/blockwise-server $(BUILD)/bin/blockwise-triton-compile

.SECONDARY:
.PHONY: all run test unit-tests gpu-test gpu-validate gpu-triton bench format format-check clean web \
        install install-cli install-server uninstall
all: $(BINS) $(TEST_BINS) $(BUILD)/tests/sse_load $(BUILD)/tests/compare_bench $(BUILD)/tests/fake/libcuda.so.1 \
     $(BUILD)/tests/fake/libcupti.so $(BUILD)/tests/fake/libcupti-denied.so $(if $(shell command -v npm 2>/dev/null),web)

# The web app (web/README.md): npm ci only when web/node_modules is missing
# (so an offline machine with node_modules builds), then esbuild into web/dist.
WEB_SRC := $(wildcard web/src/*.js web/src/*/*.js web/src/*.css web/src/*.html web/src/*.svg) \
           web/build.mjs web/package.json web/package-lock.json cli/blockwise
web: web/dist/index.html
web/dist/index.html: $(WEB_SRC)
	@[ -d web/node_modules ] || (cd web && npm ci --no-audit --no-fund)
	cd web && node build.mjs

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

# libpq's header for the store's PostgreSQL backend (libpq itself is opened at
# run time: server/store/db_pg.c).
PG_INCLUDE ?= $(shell pg_config --includedir 2>/dev/null || echo /usr/include/postgresql)
$(BUILD)/obj/server/store/db_pg.o: CFLAGS += -isystem $(PG_INCLUDE)
# The toolkit judged was built against is one place it looks for CUPTI (judge/worker/cupti_find.h).
$(BUILD)/obj/judge/worker/cupti_find.o: CFLAGS += -DBW_CUDA_HOME='"$(CUDA_HOME)"'

$(BUILD)/lib%.a:
	@rm -f $@
	ar rcs $@ $^
$(BUILD)/libcommon.a: $(COMMON_OBJ)
$(BUILD)/libproblem.a: $(PROBLEM_OBJ)
$(BUILD)/libplan.a: $(PLAN_OBJ)
$(BUILD)/libsandbox.a: $(SANDBOX_OBJ)
$(BUILD)/libworker.a: $(WORKER_OBJ) $(BUILD)/obj/baseline_driver_blob.o
$(BUILD)/libserver.a: $(SERVER_OBJ)
$(BUILD)/libwire.a: $(WIRE_OBJ)

# schema.sql, embedded in the server (server/db.c reads `schema_sql`).
$(BUILD)/obj/schema_blob.o: schema.sql
	@mkdir -p $(dir $@)
	printf '.section .rodata\n.global schema_sql\nschema_sql:\n.incbin "%s"\n.byte 0\n.section .note.GNU-stack,"",@progbits\n' $(abspath $<) > $(BUILD)/obj/schema_blob.S
	$(CC) -c $(BUILD)/obj/schema_blob.S -o $@

# PyTorch's baseline driver, embedded in judged (judge/worker/baseline.h reads
# `baseline_driver_py` and hands it to Python in a memfd).
$(BUILD)/obj/baseline_driver_blob.o: judge/worker/baseline_driver.py
	@mkdir -p $(dir $@)
	printf '.section .rodata\n.global baseline_driver_py\nbaseline_driver_py:\n.incbin "%s"\n.byte 0\n.section .note.GNU-stack,"",@progbits\n' $(abspath $<) > $(BUILD)/obj/baseline_driver_blob.S
	$(CC) -c $(BUILD)/obj/baseline_driver_blob.S -o $@

$(BUILD)/bin/libmd4c.so.0 $(BUILD)/bin/libmd4c-html.so.0: $(BUILD)/bin/%: $(LIBDIR_SYS)/%
	@mkdir -p $(dir $@)
	cp -L $< $@

# The CPU comparison's throughput (make bench).
$(BUILD)/tests/compare_bench: $(BUILD)/obj/tests/bench/compare_bench.o $(BUILD)/libworker.a $(BUILD)/libproblem.a $(BUILD)/libcommon.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS_JUDGE)

# The fake CUDA driver (tests/fake/libcuda.c): the runner's host logic and the
# whole judging pipeline on a machine without a GPU (test_runner, judge-fake.sh).
$(BUILD)/tests/fake/libcuda.so.1: tests/fake/libcuda.c common/dtype.c common/dtype.h common/gen.h judge/runner/kernels/gen_value.h
	@mkdir -p $(dir $@)
	$(CC) -shared -fPIC -O1 -std=c11 -D_GNU_SOURCE -fvisibility=hidden -I. -isystem $(CUDA_HOME)/include \
	  -o $@ tests/fake/libcuda.c common/dtype.c -lm -lpthread

# The fake CUPTI (tests/fake/libcupti.c): Profile mode on the fake driver (profile-fake.sh);
# the -denied one refuses counters as a driver restricted to administrators does.
FAKE_CUPTI_DEPS := tests/fake/libcupti.c judge/runner/cupti_host.h
FAKE_CUPTI_CC = $(CC) -shared -fPIC -O1 -std=c11 -D_GNU_SOURCE $(WARN) -fvisibility=hidden -I. \
  -isystem $(CUDA_HOME)/include -isystem $(CUDA_HOME)/extras/CUPTI/include
$(BUILD)/tests/fake/libcupti.so: $(FAKE_CUPTI_DEPS)
	@mkdir -p $(dir $@)
	$(FAKE_CUPTI_CC) -o $@ tests/fake/libcupti.c -ldl
$(BUILD)/tests/fake/libcupti-denied.so: $(FAKE_CUPTI_DEPS)
	@mkdir -p $(dir $@)
	$(FAKE_CUPTI_CC) -DFAKE_CUPTI_DENIED -o $@ tests/fake/libcupti.c -ldl

# The event-stream load generator of tests/bench/server.sh.
$(BUILD)/tests/sse_load: tests/bench/sse_load.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -std=c11 -D_GNU_SOURCE $(WARN) -pthread -o $@ $<

$(BUILD)/bin/blockwise-server: $(BUILD)/obj/server/main.o $(BUILD)/libserver.a $(BUILD)/libproblem.a $(WIRE_WORKER) \
                               $(BUILD)/libcommon.a \
                               | $(BUILD)/bin/libmd4c.so.0 $(BUILD)/bin/libmd4c-html.so.0
	$(LINK) $^ $(LIBS_SERVER) $(LIBS_JUDGE)

# Trusted harness kernels (input generation, poison, guard and input checks,
# L2 flush, calibration), compiled ahead of time into one fatbin that the
# runner embeds: SASS for sm_80/sm_90 and PTX for newer GPUs.
HARNESS_CU := $(wildcard judge/runner/kernels/*.cu)
$(BUILD)/harness.fatbin: $(HARNESS_CU) $(wildcard judge/runner/kernels/*.h) common/philox.h common/gen.h common/dtype.h
	@mkdir -p $(dir $@)
	$(NVCC) -fatbin -O3 -I. -std=c++17 \
	  -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
	  -gencode arch=compute_90,code=compute_90 -o $@ judge/runner/kernels/harness.cu

$(BUILD)/obj/harness_blob.o: $(BUILD)/harness.fatbin
	@mkdir -p $(dir $@)
	printf '.section .rodata\n.global harness_fatbin\n.global harness_fatbin_end\n.balign 64\nharness_fatbin:\n.incbin "%s"\nharness_fatbin_end:\n.byte 0\n.section .note.GNU-stack,"",@progbits\n' $(abspath $<) > $(BUILD)/obj/harness_blob.S
	$(CC) -c $(BUILD)/obj/harness_blob.S -o $@

# Each binary's link line: its own folder, the codecs of its boundaries, the
# shared libraries. The map files (build/maps/) are what tests/cpu/layout.sh
# reads to prove it.
LINK = @mkdir -p $(dir $@) $(BUILD)/maps && $(CC) $(LDFLAGS) -Wl,-Map,$(BUILD)/maps/$(notdir $@).map -o $@

$(BUILD)/bin/judged: $(JUDGED_BIN_OBJ) $(BUILD)/libworker.a $(BUILD)/libplan.a \
                     $(BUILD)/libproblem.a $(WIRE_WORKER) $(WIRE_RUNNER) $(WIRE_COMPILE) $(BUILD)/libsandbox.a $(BUILD)/libcommon.a
	$(LINK) $^ $(LIBS_JUDGE)

$(BUILD)/bin/blockwise-compile: $(COMPILE_BIN_OBJ) $(WIRE_COMPILE) $(BUILD)/libsandbox.a $(BUILD)/libcommon.a
	$(LINK) $^ $(LIBS_NVRTC) $(LIBS_JUDGE)

# The Triton compiler child (judge/triton/triton_compile_main.c): no NVRTC, no CUDA;
# the trusted Python driver it execs Python on is embedded (`triton_driver_py`).
$(BUILD)/obj/triton_driver_blob.o: judge/triton/driver.py
	@mkdir -p $(dir $@)
	printf '.section .rodata\n.global triton_driver_py\ntriton_driver_py:\n.incbin "%s"\n.byte 0\n.section .note.GNU-stack,"",@progbits\n' $(abspath $<) > $(BUILD)/obj/triton_driver_blob.S
	$(CC) -c $(BUILD)/obj/triton_driver_blob.S -o $@

# ...and beside it the launcher recorder (`triton_launcher_py`), which the driver loads.
$(BUILD)/obj/triton_launcher_blob.o: judge/triton/launcher.py
	@mkdir -p $(dir $@)
	printf '.section .rodata\n.global triton_launcher_py\ntriton_launcher_py:\n.incbin "%s"\n.byte 0\n.section .note.GNU-stack,"",@progbits\n' $(abspath $<) > $(BUILD)/obj/triton_launcher_blob.S
	$(CC) -c $(BUILD)/obj/triton_launcher_blob.S -o $@

$(BUILD)/bin/blockwise-triton-compile: $(TRITON_BIN_OBJ) $(WIRE_COMPILE) $(BUILD)/libsandbox.a $(BUILD)/libcommon.a
	$(LINK) $^ $(LIBS_JUDGE)

$(BUILD)/bin/blockwise-runner: $(RUNNER_BIN_OBJ) $(WIRE_RUNNER) $(BUILD)/libsandbox.a $(BUILD)/libcommon.a
	$(LINK) $^ $(LIBS_RUNNER)

$(BUILD)/obj/tests/test_main.o: tests/test_main.c tests/test.h

# The hostile corpora's header reader and the built tools' lookup, shared by
# test_compile and test_triton_compile.
$(BUILD)/tests/test_compile $(BUILD)/tests/test_triton_compile: $(BUILD)/obj/tests/unit/hostile_header.o $(BUILD)/obj/tests/unit/built_tool.o
# test_triton_launcher: the same, and the fake triton's venv.
$(BUILD)/tests/test_triton_launcher: $(BUILD)/obj/tests/unit/hostile_header.o $(BUILD)/obj/tests/unit/built_tool.o \
                                     $(BUILD)/obj/tests/unit/fake_python.o

# Unit tests link every library, and the runner's own modules (test_runner
# drives runner_exec against the fake driver).
TEST_LIBS := $(BUILD)/libserver.a $(BUILD)/libworker.a $(BUILD)/libplan.a $(BUILD)/libproblem.a \
             $(BUILD)/libwire.a $(BUILD)/librunner.a $(BUILD)/libsandbox.a $(BUILD)/libcommon.a
$(BUILD)/librunner.a: $(filter-out %_main.o,$(RUNNER_BIN_OBJ))
$(BUILD)/tests/test_%: $(BUILD)/obj/tests/unit/test_%.o $(BUILD)/obj/tests/test_main.o $(TEST_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS_NVRTC) $(LIBS_SERVER) $(LIBS_JUDGE)

# The CPU suite: unit tests, then the same unit tests built with ASan+UBSan,
# then the shell suites (sandbox, judged end to end). One summary line last.
test: all
	$(MAKE) --no-print-directory BUILD=build-asan SANITIZE=address,undefined OPT='-O1 -g' asan-bins
	@tests/run-suite.sh cpu $(BUILD) build-asan

asan-bins: $(TEST_BINS)

gpu-test:
	@tests/run-suite.sh gpu $(BUILD)

bench:
	@tests/bench/run.sh $(BUILD)

# The timed validate of every problem: about 240 s on the H200 (2026-12-02), so
# one call of the GPU machine; SHARD=K/N runs a part (scripts/gpu-validate.sh).
SHARD ?= 1/1
gpu-validate:
	@scripts/gpu-validate.sh $(BUILD) $(SHARD)

# Every problem's Triton controls (tests only, parallel shards) and timed
# Submits of Triton solutions beside CUDA ones, in one call (scripts/gpu-triton.sh).
gpu-triton:
	@scripts/gpu-triton.sh $(BUILD)

C_FILES := $(shell git ls-files '*.c' '*.h' 2>/dev/null)
format:
	clang-format -i $(C_FILES)
format-check:
	@clang-format --dry-run --Werror $(C_FILES) && echo "format OK"

clean:
	rm -rf build build-asan web/dist

# ---- installation (docs/operations.md, "Install") -----------------------------
# Under PREFIX: bin/blockwise, the learner's command line (cli/blockwise: one
# Python file; install-cli needs no build); lib/blockwise/, the binaries and
# the md4c libraries, which find their children and libraries beside
# themselves (judged: /proc/self/exe; the server: rpath $ORIGIN), with
# bin/blockwise-server and bin/judged linked to them; share/blockwise/problems
# and share/blockwise/web (web/dist, when built). PREFIX=/opt/blockwise is the
# layout deploy/ names.
PREFIX   ?= /usr/local
DESTDIR  ?=
BINDIR   := $(DESTDIR)$(PREFIX)/bin
LIBEXEC  := $(DESTDIR)$(PREFIX)/lib/blockwise
SHAREDIR := $(DESTDIR)$(PREFIX)/share/blockwise
MD4C_LIBS := $(BUILD)/bin/libmd4c.so.0 $(BUILD)/bin/libmd4c-html.so.0

install: install-cli install-server

install-cli:
	install -d $(BINDIR)
	install -m 0755 cli/blockwise $(BINDIR)/blockwise

install-server: $(BINS) $(MD4C_LIBS)
	install -d $(BINDIR) $(LIBEXEC) $(SHAREDIR)
	install -m 0755 $(BINS) $(LIBEXEC)/
	install -m 0644 $(MD4C_LIBS) $(LIBEXEC)/
	ln -sfn ../lib/blockwise/blockwise-server $(BINDIR)/blockwise-server
	ln -sfn ../lib/blockwise/judged $(BINDIR)/judged
	rm -rf $(SHAREDIR)/problems && cp -r problems $(SHAREDIR)/problems
	@if [ -f web/dist/index.html ]; then \
	    rm -rf $(SHAREDIR)/web && cp -r web/dist $(SHAREDIR)/web && echo "installed the pages in $(SHAREDIR)/web"; \
	else echo "install: web/dist is not built (make web): no pages installed"; fi

uninstall:
	rm -f $(BINDIR)/blockwise $(BINDIR)/blockwise-server $(BINDIR)/judged
	rm -rf $(LIBEXEC) $(SHAREDIR)

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)

# The main job: blockwise-server on an embedded SQLite file with a local judged.
run: all
	@scripts/serve.sh $(PORT)
