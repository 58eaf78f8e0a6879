# gpulog - one non-recursive Makefile.
#
#   make            build bin/gpulog-ingest and bin/gpulog-report (into build/)
#   make test       unit tests (cmocka) and CLI golden tests
#   make check      the same tests built with AddressSanitizer + UBSan
#   make bench      benchmarks on a generated data set (prints figures, no thresholds),
#                   gpulog-ship and gpulog-report --clickhouse included
#   make demo       ingest the bundled sample logs, then report on them
#   make fuzz       a libFuzzer harness per format, FUZZ_SECONDS each (clang)
#   make torture    long adversarial runs: 100 kills, disk full, gzip bombs, 4 concurrent
#   make install    PREFIX=/usr/local DESTDIR=
#
# Missing Debian packages are installed by the deps step (build/config.mk),
# which every build depends on: apt-get update + apt-get install, through
# sudo when not root. It does nothing when everything is already there.

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man/man1
DATADIR ?= $(PREFIX)/share/gpulog

BUILD ?= build
CC ?= cc
WERROR ?= -Werror
SAN ?=

# sqlite3 (the CLI) is for the tests and for users' ad-hoc queries.
# libisal-dev: igzip, gpulog-ingest's gzip inflate (lib/ingest/reader.c). zlib:
# the tests' gzip writer and PNG reader, and gpulog-ship's gzip batches.
# libcurl4-openssl-dev: gpulog-ship's and gpulog-report --clickhouse's HTTP
# to ClickHouse (lib/net/chttp.c), with TLS for https:// servers.
DEB_PKGS := libjansson-dev libisal-dev zlib1g-dev libsqlite3-dev libgsl-dev libplplot-dev \
	plplot-driver-cairo libcmocka-dev pkg-config sqlite3 libcurl4-openssl-dev
PC_PKGS := jansson libisal zlib sqlite3 gsl plplot cmocka libcurl

WARN := -Wall -Wextra -Wshadow -Wformat=2 -Wstrict-prototypes -Wmissing-prototypes \
	-Wno-missing-field-initializers
BASE_CFLAGS := -std=c11 -D_DEFAULT_SOURCE -D_FILE_OFFSET_BITS=64 -O2 -g -pthread \
	$(WARN) $(WERROR) $(SAN) -I$(BUILD)/gen -Ilib \
	-DGL_DATADIR='"$(DATADIR)"'
LDFLAGS_ALL := -pthread $(SAN)

ifeq ($(filter clean distclean,$(MAKECMDGOALS)),)
-include $(BUILD)/config.mk
endif

ALL_CFLAGS = $(BASE_CFLAGS) $(PKG_CFLAGS) $(CFLAGS)

# Profile-guided optimisation (GCC): the programs are compiled twice. First
# with counters ($(BUILD)/pgo), which then run make demo's job on the
# bundled sample logs (share/demo.sh: two ingests, the json report with its
# charts, csv and text); then again with those counts, which tell GCC the
# hot paths and the likely branches. The same output, byte for byte; a
# 10M-event report 5-10% faster, an ingest 5-7% (tests/bench/README.md,
# issue 34); the build takes about 30 s instead of 13 on two cores. A source change
# takes both compilations and the run again. Off with PGO=0 (quicker
# rebuilds while editing), under the sanitizers (make check) and with
# another compiler. Warnings that follow the optimiser's view of the data
# (the profile's) are not errors there; the plain and sanitizer builds keep
# them errors.
CC_IS_GCC := $(shell $(CC) -dM -E - </dev/null 2>/dev/null | \
	grep -c -e '^.define __GNUC__ ' -e '^.define __clang__ ' | grep -qx 1 && echo 1)
PGO ?= $(if $(SAN),0,$(if $(CC_IS_GCC),1,0))
PGO_DIR := $(BUILD)/pgo
ifeq ($(PGO),1)
PGO_STAMP := $(PGO_DIR)/profile.stamp
PGO_USE := -fprofile-use -fprofile-partial-training -Wno-missing-profile \
	-Wno-error=maybe-uninitialized -Wno-error=format-truncation -Wno-error=stringop-overflow \
	-Wno-error=array-bounds
endif
PGO_GEN := -fprofile-generate -fprofile-update=atomic

LIB_SRC := $(sort $(wildcard lib/*.c lib/*/*.c reports/*.c))
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
FMT_SRC := $(sort $(wildcard lib/ingest/fmt_*.c))
CMD_SRC := $(wildcard cmd/*.c)
BINS := $(CMD_SRC:cmd/%.c=$(BUILD)/bin/%)
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
TEST_SUPPORT := $(wildcard tests/unit/support/*.c)
BENCH_SRC := $(wildcard tests/bench/*.c)
BENCH_BINS := $(BENCH_SRC:tests/bench/%.c=$(BUILD)/bench/%)
LIB := $(BUILD)/libgpulog.a

.PHONY: all deps test unit cli check bench demo install uninstall clean distclean fuzz torture

all: $(BINS)

deps: $(BUILD)/config.mk

# The deps step. Writes the compiler flags of the packages once they are
# all present; make re-reads this file after building it. Written again when
# the Makefile changes (a package added).
$(BUILD)/config.mk: Makefile
	@mkdir -p $(@D)
	@if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists $(PC_PKGS) \
	    || ! dpkg -s plplot-driver-cairo >/dev/null 2>&1 || ! command -v sqlite3 >/dev/null; then \
	  echo "gpulog: installing missing Debian packages: $(DEB_PKGS)"; \
	  SUDO=; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends \
	    $(DEB_PKGS) || { echo "gpulog: apt-get install failed" >&2; exit 1; }; \
	fi
	@{ echo "PKG_CFLAGS := $$(pkg-config --cflags $(PC_PKGS))"; \
	   echo "PKG_LIBS := $$(pkg-config --libs jansson libisal sqlite3 gsl plplot libcurl zlib) -lm"; \
	   echo "CMOCKA_LIBS := $$(pkg-config --libs cmocka)"; \
	   echo "ZLIB_LIBS := $$(pkg-config --libs zlib)"; } > $@

# Every lib/ingest/fmt_<name>.c defines gl_fmt_<name>; list them.
$(BUILD)/gen/formats.h: $(FMT_SRC) Makefile
	@mkdir -p $(@D)
	@for f in $(FMT_SRC); do n=$${f##*/fmt_}; echo "GL_FORMAT($${n%.c})"; done > $@.tmp
	@mv $@.tmp $@

# share/schema.sql compiled in as a C string.
$(BUILD)/gen/schema_sql.h: share/schema.sql
	@mkdir -p $(@D)
	@{ echo 'static const char gl_schema_sql[] ='; \
	   sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' $<; \
	   echo ';'; } > $@.tmp && mv $@.tmp $@

$(BUILD)/obj/%.o: %.c $(BUILD)/gen/formats.h $(BUILD)/gen/schema_sql.h | $(BUILD)/config.mk
	@mkdir -p $(@D)
	@echo "  CC      $<"
	@$(CC) $(ALL_CFLAGS) $(PGO_FLAGS) -MMD -MP -c $< -o $@

# With PGO, the programs' objects are compiled with the counts of the
# profile run. GCC finds them by the auxiliary name (-dumpdir, -dumpbase),
# which also names the functions in them: the same as when the counters
# were compiled in, or a static function's counts are not found.
PROG_OBJ := $(LIB_OBJ) $(CMD_SRC:%.c=$(BUILD)/obj/%.o)
ifeq ($(PGO),1)
$(PROG_OBJ): $(PGO_STAMP)
$(PROG_OBJ): private PGO_FLAGS = $(PGO_USE) -dumpdir $(PGO_DIR)/obj/$(dir $*) -dumpbase $(notdir $*)
endif

# The profile: the programs built with counters, then make demo's job.
$(PGO_DIR)/obj/%.o: %.c $(BUILD)/gen/formats.h $(BUILD)/gen/schema_sql.h | $(BUILD)/config.mk
	@mkdir -p $(@D)
	@echo "  CC      $< (with counters)"
	@$(CC) $(ALL_CFLAGS) $(PGO_GEN) -dumpdir $(@D)/ -dumpbase $(basename $(@F)) -MMD -MP -c $< -o $@

$(PGO_DIR)/libgpulog.a: $(LIB_SRC:%.c=$(PGO_DIR)/obj/%.o)
	@rm -f $@
	@$(AR) rcs $@ $^

$(PGO_DIR)/bin/%: $(PGO_DIR)/obj/cmd/%.o $(PGO_DIR)/libgpulog.a
	@mkdir -p $(@D)
	@echo "  LD      $@"
	@$(CC) $(LDFLAGS_ALL) $(PGO_GEN) -o $@ $< $(PGO_DIR)/libgpulog.a $(PKG_LIBS) $(LDFLAGS)

$(PGO_DIR)/profile.stamp: $(PGO_DIR)/bin/gpulog-ingest $(PGO_DIR)/bin/gpulog-report share/demo.sh \
		$(shell find fixtures/sample-logs -type f) fixtures/sample-logs.ingest.json
	@echo "  PGO     make demo's job for the profile ($(PGO_DIR)/demo.log)"
	@find $(PGO_DIR)/obj -name '*.gcda' -delete
	@BUILD=$(PGO_DIR) sh share/demo.sh >$(PGO_DIR)/demo.log 2>&1 || \
	  { tail -20 $(PGO_DIR)/demo.log; echo "gpulog: the profile run failed" >&2; exit 1; }
	@touch $@

$(LIB): $(LIB_OBJ)
	@rm -f $@
	@echo "  AR      $@"
	@$(AR) rcs $@ $^

$(BUILD)/bin/%: $(BUILD)/obj/cmd/%.o $(LIB)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	@$(CC) $(LDFLAGS_ALL) -o $@ $< $(LIB) $(PKG_LIBS) $(LDFLAGS)

TEST_SUPPORT_OBJ := $(TEST_SUPPORT:%.c=$(BUILD)/obj/%.o)

$(BUILD)/tests/%: $(BUILD)/obj/tests/unit/%.o $(TEST_SUPPORT_OBJ) $(LIB)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	@$(CC) $(LDFLAGS_ALL) -o $@ $< $(TEST_SUPPORT_OBJ) $(LIB) $(PKG_LIBS) $(CMOCKA_LIBS) $(ZLIB_LIBS) $(LDFLAGS)

$(BUILD)/bench/%: $(BUILD)/obj/tests/bench/%.o $(LIB)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	@$(CC) $(LDFLAGS_ALL) -o $@ $< $(LIB) $(PKG_LIBS) $(ZLIB_LIBS) $(LDFLAGS)

# Tests: every unit binary, then the CLI tests; tests/run prints the totals.
test: $(BINS) $(UNIT_BINS) $(BENCH_BINS)
	@BUILD=$(BUILD) sh tests/run $(UNIT_BINS)

check:
	LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp \
	$(MAKE) BUILD=build/asan SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" test

# CH_BENCH_EVENTS: the events of the database shipped to ClickHouse and
# reported from it against SQLite (tests/bench/run-clickhouse): the issue's
# 10M by default; make bench CH_BENCH_EVENTS=1000000 for a quick run.
CH_BENCH_EVENTS ?= 10000000
bench: $(BINS) $(BENCH_BINS)
	@BUILD=$(BUILD) sh tests/bench/run
	@BUILD=$(BUILD) sh tests/bench/run-traces
	@BUILD=$(BUILD) sh tests/bench/run-report
	@BUILD=$(BUILD) sh tests/bench/run-clickhouse $(CH_BENCH_EVENTS)
	@BUILD=$(BUILD) sh tests/bench/run-memory

# make fuzz: the library built by clang with fuzzer instrumentation in
# build/fuzz, then tests/fuzz/run (one harness per format). clang and its
# fuzzer runtime are Debian packages, installed here when missing.
FUZZ_SECONDS ?= 30
fuzz:
	@command -v clang >/dev/null 2>&1 && [ -n "$$(clang -print-file-name=libclang_rt.fuzzer-x86_64.a | grep /)" ] \
	    && [ -f "$$(clang -print-file-name=libclang_rt.fuzzer-x86_64.a)" ] || { \
	  SUDO=; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq \
	    --no-install-recommends clang libclang-rt-14-dev; }
	@$(MAKE) --no-print-directory BUILD=build/fuzz CC=clang WERROR= \
	    SAN="-fsanitize=fuzzer-no-link,address,undefined" build/fuzz/libgpulog.a
	@FUZZ_BUILD=build/fuzz sh tests/fuzz/run $(FUZZ_SECONDS)

torture: $(BINS) $(BENCH_BINS)
	@BUILD=$(BUILD) sh tests/torture/run

demo: $(BINS)
	@BUILD=$(BUILD) sh share/demo.sh

install: $(BINS)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR) $(DESTDIR)$(DATADIR)
	install -m 755 $(BINS) $(DESTDIR)$(BINDIR)/
	install -m 644 share/man/*.1 $(DESTDIR)$(MANDIR)/
	install -m 644 share/schema.sql $(wildcard share/gpulog.conf.json share/gpulog-ingest.conf.json) \
		$(DESTDIR)$(DATADIR)/

uninstall:
	rm -f $(BINS:$(BUILD)/bin/%=$(DESTDIR)$(BINDIR)/%)
	rm -f $(patsubst share/man/%,$(DESTDIR)$(MANDIR)/%,$(wildcard share/man/*.1))
	rm -rf $(DESTDIR)$(DATADIR)

clean:
	rm -rf build

distclean: clean

.SECONDARY:
-include $(shell find $(BUILD)/obj $(PGO_DIR)/obj -name '*.d' 2>/dev/null)
