# gp: a GASNet-1 conduit library (libgp) and its commands.
#
# Plain GNU make, no autotools.  Every build variant gets its own tree under
# build/<variant>/ so SEQ, PAR and sanitizer objects never mix:
#
#   seq   the default library (GASNET_SEQ: no locks on any path)
#   par   the thread-safe library (GASNET_PAR)
#   asan  SEQ built with AddressSanitizer + UBSan, for the test suite
#   pasan PAR built with AddressSanitizer + UBSan, for the threaded tests
#
# Targets:
#   make            build the libraries, commands and tests (seq and par)
#   make demo       install missing Debian packages, build, run the put/AM-style ping-pong demo
#   make bench      gp-bench side by side with UCX, MPI and the physical limits (bench/compare)
#   make check      install missing Debian packages, build every variant, run every test
#   make check-ibv  the ibv suite on Soft-RoCE in a qemu VM (tests/ibv; a few minutes)
#   make check-arm  cross-compile for aarch64, run the unit tests and shm suites under qemu-user
#   make bench-ibv  gp over ibv (and ofi on verbs;ofi_rxm) beside perftest in that VM (bench/ibv-compare)
#   make soak       the exit cases 20 times in a row (SOAK_ROUNDS=N to change), and the
#                   receive-thread tests 50 times in the pasan build (SOAK_RCV_ROUNDS=N)
#   make install    PREFIX=/usr/local (libraries, headers, commands, man pages, pkg-config,
#                   the CMake package, GASNet fragments and tools-only libraries, and
#                   GASNet's names for the libraries and pkg-config files: doc/clients.md)
#   make uninstall  PREFIX=/usr/local: removes what install put there
#   make clang      build everything with clang instead of gcc (warnings are errors there too)
#   make lint       the include rule (tools/check-layers.sh) and cppcheck over the sources
#   make am-fixed   regenerate libcore/api/gasnet1/am_fixed.c, gasnet_am_fixed.h and gasnetex_am.h
#   make env-man    regenerate man/man7/gp-env.7 from the configuration table

PREFIX  ?= /usr/local
CC      ?= cc
VERSION := 0.1.0
SOVERSION := 0
BUILD   ?= build

# PMIx (libcore/boot/pmix.c; Debian's libpmix-dev keeps it under pmix2/):
# its headers as system headers, so our warning flags don't judge them.
# Quiet when pkg-config can't find it yet: "make check" parses this file
# before tools/deps.sh installs libpmix-dev, and builds in a sub-make.
# libpmix itself is loaded at run time, and only under a PMIx server (libcore/boot/pmix_lib.c):
# GP_PMIX_LIBDIR is where to look when the loader's search path does not find it.
PMIX_LIBDIR := $(shell pkg-config --variable=libdir pmix 2>/dev/null)
PMIX_CFLAGS := $(patsubst -I%,-isystem %,$(shell pkg-config --cflags pmix 2>/dev/null)) \
               $(if $(PMIX_LIBDIR),-DGP_PMIX_LIBDIR='"$(PMIX_LIBDIR)"')
WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
BASEFLAGS := -std=c11 -D_GNU_SOURCE -g -fPIC -fvisibility=hidden -pthread $(WARN) -MMD -MP \
             -Ilibcore/include -Ilibcore -Icmd -Itests/harness -DGP_VERSION='"$(VERSION)"' $(PMIX_CFLAGS)
OPT      ?= -O2
# libibverbs, libfabric and libpmix are opened when a job needs them (libcore/util/dynlib.h): not linked.
LIBS     := -lpthread -lrt -lm -ldl
POPT_LIBS := -lpopt

# The default goal, before the variant rules below define theirs: what the
# header promises (the libraries, commands and tests of seq and par).
.PHONY: all
all: seq par

SAN := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined

variant_cflags_seq   := $(OPT) -DGASNET_SEQ=1 -DGP_PAR=0
variant_cflags_par   := $(OPT) -DGASNET_PAR=1 -DGP_PAR=1
variant_cflags_asan  := -O1 $(SAN) -DGASNET_SEQ=1 -DGP_PAR=0
variant_cflags_pasan := -O1 $(SAN) -DGASNET_PAR=1 -DGP_PAR=1
variant_ldflags_asan  := $(SAN)
variant_ldflags_pasan := $(SAN)
VARIANTS := seq par asan pasan

# A layer's files, a transport's folder inside nal/ (nal/tcp/, nal/ibv/, ...), a concept's
# folder inside conduit/ (conduit/am/, conduit/rma/, ...) and a face's inside api/ (api/gasnet1/, ...).
LIB_SRC   := $(sort $(wildcard libcore/*/*.c) $(wildcard libcore/nal/*/*.c) \
                   $(wildcard libcore/conduit/*/*.c) $(wildcard libcore/api/*/*.c))
# cmd/common/: what the commands share (the host-list parser of gp-run and gp-check).
CMD_COMMON_SRC := $(sort $(wildcard cmd/common/*.c))
RUN_SRC   := $(sort $(wildcard cmd/gp-run/*.c)) $(CMD_COMMON_SRC)
CHECK_SRC := $(sort $(wildcard cmd/gp-check/*.c)) $(CMD_COMMON_SRC)
DEMO_SRC  := $(sort $(wildcard bench/gp-demo/*.c))
HARNESS_SRC := $(sort $(wildcard tests/harness/*.c))
UNIT_SRC  := $(sort $(wildcard tests/unit/*.c))
ITEST_SRC := $(sort $(wildcard tests/integration/*.c))
TOP_SRC   := $(sort $(wildcard cmd/gp-top/*.c))
# The tools-only library (libgasnet_tools-seq.a / -par.a): gasnet_tools.h's
# functions and what they need (logging, the configuration table and its
# parsers), with a one-process stand-in for the bootstrap; no conduit.
# The table takes the rows of the layers below the transports (the conduit's variables that
# the tools read, boot's); the transport layer's groups come with its registry, which this
# library lacks: standalone/nal_config_groups.c lists none.
CONFIG_GROUP_SRC := libcore/conduit/core/config_rows.c libcore/boot/config_rows.c
TOOLS_SRC := $(sort $(wildcard libcore/tools/*.c) $(wildcard libcore/util/*.c) \
             $(wildcard libcore/config/*.c)) $(CONFIG_GROUP_SRC) libcore/tools/standalone/boot_rank.c \
             libcore/tools/standalone/nal_config_groups.c
NCURSES_LIBS := $(shell pkg-config --libs ncursesw 2>/dev/null || echo -lncursesw)

# $(call variant_rules,NAME) defines the objects, libraries, commands and
# test programs of one variant.
define variant_rules
$(1)_DIR    := $(BUILD)/$(1)
$(1)_CFLAGS := $(BASEFLAGS) $(variant_cflags_$(1)) $(CFLAGS)
$(1)_LDFLAGS := $(variant_ldflags_$(1)) $(LDFLAGS)
$(1)_LIBOBJ := $$(patsubst %.c,$$($(1)_DIR)/obj/%.o,$(LIB_SRC))
$(1)_ALIB   := $$($(1)_DIR)/lib/libgp.a
$(1)_SOLIB  := $$($(1)_DIR)/lib/libgp.so.$(SOVERSION)
# The name the loader looks for: the PAR library must never be satisfied by
# the SEQ one (their locks differ), so each carries the name it is installed as.
$(1)_SONAME := $(if $(filter par pasan,$(1)),libgp-par,libgp).so.$(SOVERSION)
$(1)_TOOLSLIB := $$($(1)_DIR)/lib/libgasnet_tools.a
$(1)_BINS   := $$($(1)_DIR)/bin/gp-run $$($(1)_DIR)/bin/gp-demo $$($(1)_DIR)/bin/gp-check
$(1)_UNITS  := $$(patsubst tests/unit/%.c,$$($(1)_DIR)/tests/unit/%,$(UNIT_SRC))
$(1)_ITESTS := $$(patsubst tests/integration/%.c,$$($(1)_DIR)/tests/integration/%,$(ITEST_SRC))
$(1)_HARNESS := $$(patsubst %.c,$$($(1)_DIR)/obj/%.o,$(HARNESS_SRC))

# libcore's thread-locals are few and small: the initial-exec model reaches them at a fixed
# offset from the thread pointer in libgp.so too, without a __tls_get_addr call per access.
$$($(1)_DIR)/obj/%.o: %.c
	@mkdir -p $$(dir $$@)
	$$(CC) $$($(1)_CFLAGS) $$(if $$(filter libcore/%,$$<),-ftls-model=initial-exec) -c $$< -o $$@

$$($(1)_ALIB): $$($(1)_LIBOBJ)
	@mkdir -p $$(dir $$@)
	rm -f $$@ && ar rcs $$@ $$^

$$($(1)_TOOLSLIB): $$(patsubst %.c,$$($(1)_DIR)/obj/%.o,$(TOOLS_SRC))
	@mkdir -p $$(dir $$@)
	rm -f $$@ && ar rcs $$@ $$^

$$($(1)_SOLIB): $$($(1)_LIBOBJ) libcore/libgp.map
	@mkdir -p $$(dir $$@)
	$$(CC) -shared -Wl,-soname,$$($(1)_SONAME) -Wl,--version-script=libcore/libgp.map \
	  $$($(1)_LDFLAGS) -o $$@ $$($(1)_LIBOBJ) $(LIBS)

$$($(1)_DIR)/bin/gp-run: $$(patsubst %.c,$$($(1)_DIR)/obj/%.o,$(RUN_SRC)) $$($(1)_ALIB)
	@mkdir -p $$(dir $$@)
	$$(CC) $$($(1)_LDFLAGS) -pthread -o $$@ $$^ $(POPT_LIBS) $(LIBS)

$$($(1)_DIR)/bin/gp-check: $$(patsubst %.c,$$($(1)_DIR)/obj/%.o,$(CHECK_SRC)) $$($(1)_ALIB)
	@mkdir -p $$(dir $$@)
	$$(CC) $$($(1)_LDFLAGS) -pthread -o $$@ $$^ $(POPT_LIBS) $(LIBS)

$$($(1)_DIR)/bin/gp-demo: $$(patsubst %.c,$$($(1)_DIR)/obj/%.o,$(DEMO_SRC)) $$($(1)_ALIB)
	@mkdir -p $$(dir $$@)
	$$(CC) $$($(1)_LDFLAGS) -pthread -o $$@ $$^ $(LIBS)

# credit-sim: the credit algorithm of libgp.a for thousands of virtual nodes (doc/credit-sim.md)
$(1)_BINS += $$($(1)_DIR)/bin/credit-sim
$$($(1)_DIR)/bin/credit-sim: $$(patsubst %.c,$$($(1)_DIR)/obj/%.o,$(sort $(wildcard bench/credit-sim/*.c))) $$($(1)_ALIB)
	@mkdir -p $$(dir $$@)
	$$(CC) $$($(1)_LDFLAGS) -pthread -o $$@ $$^ $(POPT_LIBS) $(LIBS)
-include $$(patsubst %.c,$$($(1)_DIR)/obj/%.d,$(wildcard bench/credit-sim/*.c))

# gp-top: the live view of a running job's statistics pages (doc/gp-top.md)
$(1)_BINS += $$($(1)_DIR)/bin/gp-top
$$($(1)_DIR)/bin/gp-top: $$(patsubst %.c,$$($(1)_DIR)/obj/%.o,$(TOP_SRC)) $$($(1)_ALIB)
	@mkdir -p $$(dir $$@)
	$$(CC) $$($(1)_LDFLAGS) -pthread -o $$@ $$^ $(POPT_LIBS) $(NCURSES_LIBS) $(LIBS)
-include $$(patsubst %.c,$$($(1)_DIR)/obj/%.d,$(TOP_SRC))

# gp-bench: put/get/AM latency and bandwidth, acceptance thresholds (doc/performance.md)
$(1)_BINS += $$($(1)_DIR)/bin/gp-bench
$$($(1)_DIR)/bin/gp-bench: $$(patsubst %.c,$$($(1)_DIR)/obj/%.o,$(sort $(wildcard bench/gp-bench/*.c))) $$($(1)_ALIB)
	@mkdir -p $$(dir $$@)
	$$(CC) $$($(1)_LDFLAGS) -pthread -o $$@ $$^ $(POPT_LIBS) $(LIBS)
-include $$(patsubst %.c,$$($(1)_DIR)/obj/%.d,$(wildcard bench/gp-bench/*.c))

$$($(1)_DIR)/tests/unit/%: $$($(1)_DIR)/obj/tests/unit/%.o $$($(1)_HARNESS) $$($(1)_ALIB)
	@mkdir -p $$(dir $$@)
	$$(CC) $$($(1)_LDFLAGS) -pthread -o $$@ $$^ $(LIBS)

# The shared host-list parser's unit test links the parser (not part of libgp), before libgp.a.
$$($(1)_DIR)/tests/unit/test_host_list: $$($(1)_DIR)/obj/tests/unit/test_host_list.o \
    $$(patsubst %.c,$$($(1)_DIR)/obj/%.o,$(CMD_COMMON_SRC)) $$($(1)_HARNESS) $$($(1)_ALIB)
	@mkdir -p $$(dir $$@)
	$$(CC) $$($(1)_LDFLAGS) -pthread -o $$@ $$^ $(LIBS)

$$($(1)_DIR)/tests/integration/%: $$($(1)_DIR)/obj/tests/integration/%.o $$($(1)_HARNESS) $$($(1)_ALIB)
	@mkdir -p $$(dir $$@)
	$$(CC) $$($(1)_LDFLAGS) -pthread -o $$@ $$^ $(LIBS)

# verbs_smoke: plain verbs without libgp, run inside the ibv VM (tests/ibv)
$(1)_IBVTESTS := $$($(1)_DIR)/tests/ibv/verbs_smoke
$$($(1)_DIR)/tests/ibv/verbs_smoke: $$($(1)_DIR)/obj/tests/ibv/verbs_smoke.o
	@mkdir -p $$(dir $$@)
	$$(CC) $$($(1)_LDFLAGS) -o $$@ $$^ -libverbs
-include $$($(1)_DIR)/obj/tests/ibv/verbs_smoke.d

.PHONY: $(1) $(1)-tests
$(1): $$($(1)_ALIB) $$($(1)_SOLIB) $$($(1)_TOOLSLIB) $$($(1)_BINS) $$($(1)_UNITS) $$($(1)_ITESTS) $$($(1)_IBVTESTS)
# The library and the test programs alone, none of the commands (which link popt and ncurses):
# what make check-arm cross-compiles.
$(1)-tests: $$($(1)_ALIB) $$($(1)_UNITS) $$($(1)_ITESTS)
# Kept: in a fresh tree (no .d files yet) the test programs' objects are intermediate, which
# make deletes after the build; the next make reads their .d files, so they are targets then,
# missing, and every test program is built again (make check's make install did that).
.SECONDARY: $$(patsubst %.c,$$($(1)_DIR)/obj/%.o,$(UNIT_SRC) $(ITEST_SRC))

-include $$($(1)_LIBOBJ:.o=.d) $$($(1)_DIR)/obj/libcore/tools/standalone/boot_rank.d \
         $$($(1)_DIR)/obj/libcore/tools/standalone/nal_config_groups.d
-include $$(patsubst %.c,$$($(1)_DIR)/obj/%.d,$(RUN_SRC) $(DEMO_SRC) $(HARNESS_SRC) $(UNIT_SRC) $(ITEST_SRC))
-include $$(patsubst %.c,$$($(1)_DIR)/obj/%.d,$(CHECK_SRC))
endef

$(foreach v,$(VARIANTS),$(eval $(call variant_rules,$(v))))

.PHONY: deps demo check check-quick soak install uninstall clean clang lint

deps:
	@sh tools/deps.sh

demo: deps
	$(MAKE) seq
	$(BUILD)/seq/bin/gp-run -n 4 $(BUILD)/seq/bin/gp-demo

# check: every variant, every suite; the last line is "N passed, N failed".
check: deps
	$(MAKE) -j2 seq par asan pasan
	$(MAKE) -j2 clang
	$(MAKE) -j2 fuzz
	@sh tests/run.sh $(BUILD) seq par asan pasan

# scale: the figures of doc/scale.md (per-host sizing, tcp progress at 64 ranks,
# ssh fan-out, receive memory, segment commit, footprint, credits at 20,000 nodes,
# start-up, AM rings per host); minutes, so not part of check.  SCALE_TESTS=... runs
# only those scripts.
.PHONY: scale
SCALE_TESTS ?=
scale: seq
	@sh tests/scale/run.sh $(BUILD)/seq $(SCALE_TESTS)

# bench: minutes of measurements, so not part of check (doc/performance.md).
.PHONY: bench
bench: seq
	python3 bench/compare

# check-classic: GASNet 1.29.3's own test programs (its tests/, unchanged) built against this
# tree installed into a scratch prefix, SEQ and PAR, run as GASNet's run-tests runs them
# (tests/classic/run.sh; doc/clients.md).  Needs the GASNet mirror (GASNET_MIRROR, or an
# exported tree in GASNET_SRC) and skips with a line saying so without it; minutes, so not
# part of check.
.PHONY: check-classic
check-classic:
	$(MAKE) -j2 seq par
	@sh tests/classic/run.sh seq par

# check-ofi: the ofi transport's suite (tests/integration/ofi.sh) over every provider it
# knows (tcp;ofi_rxm, net;ofi_rxm, net, shm, sockets, udp;ofi_rxd) in every variant; make check runs tcp;ofi_rxm and shm in
# SEQ and tcp;ofi_rxm in the others.  Ends with "N passed, N failed" like check.
.PHONY: check-ofi
check-ofi: deps
	$(MAKE) -j2 seq par asan pasan
	@for v in seq par asan pasan; do \
	    GP_OFI_TEST_PROVIDERS="tcp;ofi_rxm net;ofi_rxm net shm sockets udp;ofi_rxd" GPTEST_VARIANT=$$v \
	    GPTEST_BIN=$(CURDIR)/$(BUILD)/$$v/bin GPTEST_ITEST=$(CURDIR)/$(BUILD)/$$v/tests/integration \
	    sh tests/integration/ofi.sh | sed "s#^\(ok\|FAIL\|skip\) #\1 $$v:#"; \
	done | tee $(BUILD)/check-ofi.log; \
	ends=$$(grep -c '^# end of tests' $(BUILD)/check-ofi.log); \
	[ "$$ends" -eq 4 ] || echo "FAIL check-ofi: $$ends of 4 variants' runs reached their end" | tee -a $(BUILD)/check-ofi.log; \
	echo "$$(grep -c '^ok ' $(BUILD)/check-ofi.log) passed, $$(grep -c '^FAIL ' $(BUILD)/check-ofi.log) failed"; \
	! grep -q '^FAIL ' $(BUILD)/check-ofi.log

# check-ibv: boots the Soft-RoCE VM once and runs tests/ibv/suite.sh in it
# over the SEQ build (tests/ibv/check.sh); here, unlike in make check, a VM
# that cannot start is a failure.  IBV_TESTS=... runs only those cases;
# GP_IBV_TRANSPORT=tcp runs the suite's jobs over tcp, to check the harness.
.PHONY: check-ibv bench-ibv
IBV_TESTS ?=
check-ibv: deps
	$(MAKE) -j2 seq
	@GP_IBV_REQUIRE=1 GP_IBV_SUMMARY=1 sh tests/ibv/check.sh $(BUILD)/seq $(IBV_TESTS)

# bench-ibv: perftest and gp-bench over rxe0 in one VM boot, with ratios (doc/performance.md).
bench-ibv: deps
	$(MAKE) -j2 seq
	python3 bench/ibv-compare

# check-arm: the port to aarch64 (doc/memory-model.md).  Cross-compiles the library and the test
# programs with Debian's aarch64-linux-gnu-gcc into $(BUILD)-arm/seq, then runs the unit tests
# and the shm suites ARM_SUITES under qemu-user, launched by this host's gp-run
# (tools/check-arm.sh says how).  qemu-user does not reproduce weak ordering: this proves that
# the port builds and runs; the fences' comments prove the ordering.  Slow: not part of check.
ARM_CC ?= aarch64-linux-gnu-gcc
ARM_SUITES ?= am.sh am_ring.sh ext.sh vis.sh ptl_shm.sh
.PHONY: check-arm
check-arm:
	@sh tools/deps.sh arm
	$(MAKE) -j2 seq
	$(MAKE) -j2 CC=$(ARM_CC) BUILD=$(BUILD)-arm seq-tests
	@sh tools/check-arm.sh $(BUILD) $(BUILD)-arm $(ARM_SUITES)

# check-timing: checks that are timings (tests/timing/*.sh; a loaded machine can upset them),
# run on the SEQ build: the off-host round trip under an on-host ring flood (doc/progress.md).
.PHONY: check-timing
check-timing: seq
	@for t in tests/timing/*.sh; do \
	    GPTEST_VARIANT=seq GPTEST_BIN=$(CURDIR)/$(BUILD)/seq/bin \
	    GPTEST_ITEST=$(CURDIR)/$(BUILD)/seq/tests/integration sh $$t; \
	done | tee $(BUILD)/check-timing.log; \
	echo "$$(grep -c '^ok ' $(BUILD)/check-timing.log) passed, $$(grep -c '^FAIL ' $(BUILD)/check-timing.log) failed"; \
	! grep -q '^FAIL ' $(BUILD)/check-timing.log

check-quick: seq
	@sh tests/run.sh $(BUILD) seq

# soak: the exit cases 20 times over (SEQ and SEQ+sanitizers), then the receive
# thread running AM handlers beside the application 50 times over (PAR+sanitizers,
# tests/integration/rcv_thread.sh); too long for check.  Both run; either failing fails.
SOAK_ROUNDS ?= 20
SOAK_RCV_ROUNDS ?= 50
soak: deps
	$(MAKE) -j2 seq asan pasan
	@sh tests/soak.sh $(BUILD) $(SOAK_ROUNDS) exit.sh seq asan; exit_rc=$$?; \
	sh tests/soak.sh $(BUILD) $(SOAK_RCV_ROUNDS) rcv_thread.sh pasan && [ $$exit_rc -eq 0 ]

# clang: every C file of the seq and par builds through clang's front end with the same
# warnings as errors (-fsyntax-only: the warnings come from the front end, so no code is
# generated and nothing linked; nothing runs the clang objects).  A file is checked again
# when it or a header it includes changes.
CLANG_DIR := build-clang
CLANG_SRC := $(sort $(LIB_SRC) $(TOOLS_SRC) $(RUN_SRC) $(CHECK_SRC) $(DEMO_SRC) $(HARNESS_SRC) \
  $(UNIT_SRC) $(ITEST_SRC) $(TOP_SRC) $(wildcard bench/credit-sim/*.c) $(wildcard bench/gp-bench/*.c) \
  tests/ibv/verbs_smoke.c)
CLANG_CHECKED := $(foreach v,seq par,$(patsubst %.c,$(CLANG_DIR)/$(v)/%.ok,$(CLANG_SRC)))
$(CLANG_DIR)/seq/%.ok: %.c
	@mkdir -p $(dir $@)
	clang $(BASEFLAGS:-MMD=-MMD -MF $(@:.ok=.d) -MT $@) $(variant_cflags_seq) $(CFLAGS) -fsyntax-only $<
	@touch $@
$(CLANG_DIR)/par/%.ok: %.c
	@mkdir -p $(dir $@)
	clang $(BASEFLAGS:-MMD=-MMD -MF $(@:.ok=.d) -MT $@) $(variant_cflags_par) $(CFLAGS) -fsyntax-only $<
	@touch $@
-include $(CLANG_CHECKED:.ok=.d)
clang: $(CLANG_CHECKED)

# fuzz: libFuzzer targets (clang), built with ASan+UBSan; make check runs
# each for FUZZ_SECONDS (tests/integration/fuzz.sh) from its own seed corpus,
# tests/fuzz/corpus/NAME/; longer runs by hand:
#   build-fuzz/fuzz_tcp_recv -max_total_time=600 tests/fuzz/corpus/fuzz_tcp_recv
FUZZ_SECONDS ?= 10
FUZZ_DIR := build-fuzz
FUZZ_FLAGS := -std=c11 -D_GNU_SOURCE -g -O1 -pthread -DGASNET_SEQ=1 -DGP_PAR=0 \
  -fsanitize=address,undefined -fno-sanitize-recover=undefined -Ilibcore/include -Ilibcore -Icmd \
  -DGP_VERSION='"$(VERSION)"' $(PMIX_CFLAGS)
FUZZ_LIBOBJ := $(patsubst %.c,$(FUZZ_DIR)/obj/%.o,$(LIB_SRC))
FUZZ_TARGETS := $(patsubst tests/fuzz/%.c,$(FUZZ_DIR)/%,$(wildcard tests/fuzz/*.c))
$(FUZZ_DIR)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	clang $(FUZZ_FLAGS) -MMD -MP -fsanitize=fuzzer-no-link -c $< -o $@
# A target's own source is compiled in its link step: it is remade when any library header
# changes (a harness that builds the transport's state must see the state's new layout).
FUZZ_HEADERS := $(wildcard libcore/*.h libcore/*/*.h libcore/*/*/*.h libcore/*/*/*/*.h)
$(FUZZ_DIR)/%: tests/fuzz/%.c $(FUZZ_LIBOBJ) $(FUZZ_HEADERS)
	clang $(FUZZ_FLAGS) -fsanitize=fuzzer $(filter %.c %.o,$^) -o $@ $(LIBS)
# fuzz_boot_wire includes gp-run's agent.c (its decoders are static) and links the rest of gp-run.
FUZZ_RUNOBJ := $(patsubst %.c,$(FUZZ_DIR)/obj/%.o,$(filter-out cmd/gp-run/main.c cmd/gp-run/agent.c,$(RUN_SRC)))
$(FUZZ_DIR)/fuzz_boot_wire: $(FUZZ_RUNOBJ)
-include $(FUZZ_LIBOBJ:.o=.d) $(FUZZ_RUNOBJ:.o=.d)
$(FUZZ_DIR)/fuzz_boot_wire: LIBS += $(POPT_LIBS)
.SECONDARY: $(FUZZ_LIBOBJ) $(FUZZ_RUNOBJ)
.PHONY: fuzz
fuzz: $(FUZZ_TARGETS)

lint:
	sh tools/check-layers.sh libcore
	sh tools/check-faces.sh libcore
	cppcheck --quiet --error-exitcode=1 --enable=warning,performance,portability --std=c11 \
	  '-D_Noreturn=__attribute__((noreturn))' --inline-suppr -D_GNU_SOURCE -DGP_PAR=0 \
	  -Ilibcore/include -Ilibcore -Icmd libcore cmd bench

PCDIR := $(DESTDIR)$(PREFIX)/lib/pkgconfig
# The GASNet release whose API gp provides (gasnet_config.h): the version of
# the gasnet-portals-*.pc files, which clients compare with GASNet's.
GASNET_RELEASE := $(shell sed -n 's/^\#define GASNET_RELEASE_VERSION_\(MAJOR\|MINOR\|PATCH\) //p' \
  libcore/include/gasnet_config.h | paste -sd.)
# $(call install_gasnet_pc,mode,MODE,thread flag): lib/pkgconfig/gasnet-portals-mode.pc
install_gasnet_pc = sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@CC@|$(CC)|g' -e 's|@MODE@|$(2)|g' \
  -e 's|@mode@|$(1)|g' -e 's|@MODEFLAG@|-DGASNET_$(2)|g' -e 's|@LIB@|gasnet-portals-$(1)|g' \
  -e 's|@GASNET_VERSION@|$(GASNET_RELEASE)|g' -e 's| *@THREADFLAG@|$(if $(3), $(3),)|g' \
  libcore/gasnet-portals.pc.in > $(PCDIR)/gasnet-portals-$(1).pc
# $(call install_mak,mode,MODE,library,thread flag): include/portals-conduit/portals-mode.mak
install_mak = sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@CC@|$(CC)|g' -e 's|@MODE@|$(2)|g' \
  -e 's|@MODEFLAG@|-DGASNET_$(2)|g' -e 's|@LIB@|$(3)|g' -e 's| *@THREADFLAG@|$(if $(4), $(4),)|g' \
  libcore/portals.mak.in > $(DESTDIR)$(PREFIX)/include/portals-conduit/portals-$(1).mak
# $(call install_tools_mak,mode,MODE,mode flag,thread flag): include/gasnet_tools-mode.mak
install_tools_mak = sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@CC@|$(CC)|g' -e 's|@MODE@|$(2)|g' \
  -e 's|@MODEFLAG@|$(3)|g' -e 's|@LIB@|gasnet_tools-$(1)|g' -e 's| *@THREADFLAG@|$(if $(4), $(4),)|g' \
  libcore/gasnet_tools.mak.in > $(DESTDIR)$(PREFIX)/include/gasnet_tools-$(1).mak
install: seq par
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/bin \
	  $(PCDIR) $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man3 \
	  $(DESTDIR)$(PREFIX)/share/man/man7
	install -m 644 $(seq_ALIB) $(DESTDIR)$(PREFIX)/lib/libgp.a
	install -m 755 $(seq_SOLIB) $(DESTDIR)$(PREFIX)/lib/libgp.so.$(SOVERSION)
	ln -sf libgp.so.$(SOVERSION) $(DESTDIR)$(PREFIX)/lib/libgp.so
	install -m 644 $(par_ALIB) $(DESTDIR)$(PREFIX)/lib/libgp-par.a
	install -m 755 $(par_SOLIB) $(DESTDIR)$(PREFIX)/lib/libgp-par.so.$(SOVERSION)
	ln -sf libgp-par.so.$(SOVERSION) $(DESTDIR)$(PREFIX)/lib/libgp-par.so
	install -m 644 libcore/include/*.h $(DESTDIR)$(PREFIX)/include/
	install -m 755 $(seq_DIR)/bin/gp-run $(DESTDIR)$(PREFIX)/bin/gp-run
	install -m 755 $(seq_DIR)/bin/gp-demo $(DESTDIR)$(PREFIX)/bin/gp-demo
	install -m 755 $(seq_DIR)/bin/gp-bench $(DESTDIR)$(PREFIX)/bin/gp-bench
	install -m 755 $(seq_DIR)/bin/gp-check $(DESTDIR)$(PREFIX)/bin/gp-check
	install -m 755 $(seq_DIR)/bin/gp-top $(DESTDIR)$(PREFIX)/bin/gp-top
	install -d $(DESTDIR)$(PREFIX)/libexec/gp/conformance
	install -m 755 $(seq_ITESTS) $(DESTDIR)$(PREFIX)/libexec/gp/conformance/
	for f in man/man1/*.1; do [ -f "$$f" ] && install -m 644 $$f $(DESTDIR)$(PREFIX)/share/man/man1/; done; true
	for f in man/man3/*.3; do [ -f "$$f" ] && install -m 644 $$f $(DESTDIR)$(PREFIX)/share/man/man3/; done; true
	for f in man/man7/*.7; do [ -f "$$f" ] && install -m 644 $$f $(DESTDIR)$(PREFIX)/share/man/man7/; done; true
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' libcore/gp.pc.in > $(PCDIR)/gp.pc
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' libcore/gp-par.pc.in > $(PCDIR)/gp-par.pc
	# GASNet's layout: the conduit's core header, the client makefile fragments
	# (SEQ; PAR; PARSYNC, served by the PAR library), and the gasnetrun launcher.
	install -d $(DESTDIR)$(PREFIX)/include/portals-conduit
	install -m 644 libcore/include/portals-conduit/gasnet_core.h $(DESTDIR)$(PREFIX)/include/portals-conduit/
	$(call install_mak,seq,SEQ,gasnet-portals-seq,)
	$(call install_mak,par,PAR,gasnet-portals-par,-pthread)
	$(call install_mak,parsync,PARSYNC,gasnet-portals-parsync,-pthread)
	# GASNet's library and pkg-config names, which build systems look for (doc/clients.md):
	# libgasnet-portals-<mode>.a/.so link to libgp's (PARSYNC: the PAR library, as for the
	# fragments), so each is the same object and the loader still looks for libgp's SONAME.
	for ml in seq:libgp par:libgp-par parsync:libgp-par; do m=$${ml%%:*}; l=$${ml#*:}; \
	  ln -sf $$l.a $(DESTDIR)$(PREFIX)/lib/libgasnet-portals-$$m.a && \
	  ln -sf $$l.so.$(SOVERSION) $(DESTDIR)$(PREFIX)/lib/libgasnet-portals-$$m.so || exit 1; \
	done
	$(call install_gasnet_pc,seq,SEQ,)
	$(call install_gasnet_pc,par,PAR,-pthread)
	$(call install_gasnet_pc,parsync,PARSYNC,-pthread)
	# The tools-only libraries and their fragments (GASNet's include/gasnet_tools-*.mak).
	install -m 644 $(seq_TOOLSLIB) $(DESTDIR)$(PREFIX)/lib/libgasnet_tools-seq.a
	install -m 644 $(par_TOOLSLIB) $(DESTDIR)$(PREFIX)/lib/libgasnet_tools-par.a
	$(call install_tools_mak,seq,SEQ,-DGASNETT_THREAD_SINGLE,)
	$(call install_tools_mak,par,PAR,-DGASNETT_THREAD_SAFE,-pthread)
	# The CMake package: find_package(gp) gives gp::gp and gp::gp-par.
	install -d $(DESTDIR)$(PREFIX)/lib/cmake/gp
	sed -e 's|@VERSION@|$(VERSION)|g' libcore/cmake/gpConfig.cmake.in > $(DESTDIR)$(PREFIX)/lib/cmake/gp/gpConfig.cmake
	sed -e 's|@VERSION@|$(VERSION)|g' libcore/cmake/gpConfigVersion.cmake.in > $(DESTDIR)$(PREFIX)/lib/cmake/gp/gpConfigVersion.cmake
	sed -e 's|@BINDIR@|$(PREFIX)/bin|g' libcore/gasnetrun_portals.in > $(DESTDIR)$(PREFIX)/bin/gasnetrun_portals
	chmod 755 $(DESTDIR)$(PREFIX)/bin/gasnetrun_portals

# uninstall: what install put under PREFIX, and the folders of gp's own that it made
# (a PREFIX without some of them is no error).
INSTALLED_FILES := $(addprefix lib/,libgp.a libgp.so libgp.so.$(SOVERSION) libgp-par.a libgp-par.so \
    libgp-par.so.$(SOVERSION) libgasnet_tools-seq.a libgasnet_tools-par.a \
    $(foreach m,seq par parsync,libgasnet-portals-$(m).a libgasnet-portals-$(m).so)) \
  $(addprefix lib/pkgconfig/,gp.pc gp-par.pc gasnet-portals-seq.pc gasnet-portals-par.pc \
    gasnet-portals-parsync.pc) \
  $(addprefix include/,$(notdir $(wildcard libcore/include/*.h)) gasnet_tools-seq.mak gasnet_tools-par.mak) \
  $(addprefix bin/,gp-run gp-demo gp-bench gp-check gp-top gasnetrun_portals) \
  $(addprefix share/,$(wildcard man/man1/*.1 man/man3/*.3 man/man7/*.7))
uninstall:
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/,$(INSTALLED_FILES))
	rm -rf $(DESTDIR)$(PREFIX)/include/portals-conduit $(DESTDIR)$(PREFIX)/lib/cmake/gp \
	  $(DESTDIR)$(PREFIX)/libexec/gp

clean:
	rm -rf $(BUILD) $(BUILD)-arm build-clang $(FUZZ_DIR)

# am-fixed: regenerate the fixed-arity AM functions and their header from
# libcore/api/gasnet1/gen-am-fixed.py, and gasnetex.h's AM macros from
# libcore/api/ex/gen-ex-am.py (the generated test checks they are current).
.PHONY: am-fixed
am-fixed:
	python3 libcore/api/gasnet1/gen-am-fixed.py
	python3 libcore/api/ex/gen-ex-am.py

# env-man: regenerate man/man7/gp-env.7 from the configuration table (a test
# fails while the committed page differs from what gp-check prints).
.PHONY: env-man
env-man: seq
	$(seq_DIR)/bin/gp-check --env --man > man/man7/gp-env.7

# credit-sim-table: the simulator's runs of doc/credit-sim.md, one CSV line each
# (CREDIT_SIM_NODES and CREDIT_SIM_RUNS choose them; about 75 s in all on 2 cores).
CREDIT_SIM_NODES ?= 1000 10000 20000
CREDIT_SIM_RUNS ?= "--pattern hotspot --ticks 100000" "--pattern hotspot --senders 64 --ticks 100000" \
  "--pattern stencil --ticks 12000" "--pattern tree --ticks 100000" "--pattern shift --ticks 100000"
.PHONY: credit-sim-table
credit-sim-table: seq
	@header=; for n in $(CREDIT_SIM_NODES); do for run in $(CREDIT_SIM_RUNS); do \
	  $(seq_DIR)/bin/credit-sim --csv $$header --nodes $$n $$run || exit 1; \
	  header=--no-header; done; done
