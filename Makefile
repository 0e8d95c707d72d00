# schedreplay — see README.md.  `make`, `make check`, `make check SANITIZE=1`,
# `make valgrind`, `make tsan`, `make bench`, `make fuzz FUZZ_SECONDS=N`,
# `make install PREFIX=/usr/local DESTDIR=`.

VERSION   := 0.1.0
PREFIX    ?= /usr/local
BINDIR    ?= $(PREFIX)/bin
MANDIR    ?= $(PREFIX)/share/man
DOCDIR    ?= $(PREFIX)/share/doc/schedreplay
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
CC        ?= cc
PKG_CONFIG ?= pkg-config
PKGS      := libtracecmd libtraceevent libtracefs jansson yajl zlib libzstd libbpf cairo libcrypto

ifeq ($(FUZZ),1)
# libFuzzer harnesses (tests/fuzz/): the library instrumented for coverage, under
# ASan+UBSan (FUZZ_SAN=undefined: UBSan alone, for long event-stream campaigns).
FUZZ_SAN  ?= address,undefined
BUILD     ?= build-fuzz
CC        := clang
SANFLAGS  := -fsanitize=fuzzer-no-link,$(FUZZ_SAN) -fno-omit-frame-pointer \
	     -fno-sanitize-recover=all \
	     -fsanitize-coverage-ignorelist=$(CURDIR)/tests/fuzz/coverage-ignore.txt
else ifeq ($(SANITIZE),1)
BUILD     ?= build-san
SANFLAGS  := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
export LSAN_OPTIONS := suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS := print_stacktrace=1:halt_on_error=1
else ifeq ($(SANITIZE),thread)
# ThreadSanitizer (`make tsan`): the decode thread and the pass (src/ingest/trace-pipe.c).
BUILD     ?= build-tsan
SANFLAGS  := -fsanitize=thread -fno-omit-frame-pointer
# A corrupt file's 17 GB calloc() (tests/fuzz/crashes/huge-allocation-17g.dat) fails at
# once, as glibc's does: TSan's allocator would zero it for minutes, and the stuck guard's
# verdict then depended on the machine's load (threads test, one mode against the other).
export TSAN_OPTIONS := halt_on_error=1:exitcode=66:allocator_may_return_null=1:max_allocation_size_mb=8192
else
BUILD     ?= build
SANFLAGS  :=
# The shipped build optimises across files: the per-event path is many small
# functions in many files (state, replay, analyses).  callgrind, analyze of a
# 292k-event trace: -O2 1.70 G instructions, -O2 -flto 1.61 G, -O3 -flto 1.54 G.
# Only the program links through LTO; fat objects let the test programs link
# the same library without it (each LTO link takes as long as the build).
LTO       := -flto=auto
endif

PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS))
PKG_LIBS   := $(shell $(PKG_CONFIG) --libs $(PKGS))
TEST_LIBS  := $(shell $(PKG_CONFIG) --libs cmocka)

CFLAGS    ?= $(if $(LTO),-O3,-O2) -g
WARN      := -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter
ALL_CFLAGS := -std=gnu11 -pthread $(WARN) $(CFLAGS) $(SANFLAGS) -Iinclude $(PKG_CFLAGS) \
	      -DSR_VERSION='"$(VERSION)"' -MMD -MP
ALL_LDFLAGS := $(LDFLAGS) $(if $(LTO),-fno-lto) $(SANFLAGS) -pthread

# One folder per layer, lowest first (docs/architecture.md); each includes only
# the layers below it, which `make layers` checks.
LAYERS    := src/base src/ingest src/machine src/state replay analyses src/run src/cli
LIB_SRCS  := $(filter-out src/cli/main.c,$(foreach d,$(LAYERS),$(wildcard $(d)/*.c)))
LIB_OBJS  := $(LIB_SRCS:%.c=$(BUILD)/%.o)
LIB       := $(BUILD)/libschedreplay.a
BIN       := $(BUILD)/schedreplay
MAN_SRCS  := $(wildcard docs/man/*.scd)
MANS      := $(MAN_SRCS:docs/man/%.scd=$(BUILD)/man/%)
DOCS      := README.md $(wildcard docs/*.md)
SCHEMAS   := $(wildcard docs/schema/*.json)
TEST_SRCS := $(wildcard tests/unit/test_*.c)
TEST_BINS := $(TEST_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
FUZZERS   := fuzz-events fuzz-file
FUZZ_SECONDS ?= 600

ifneq ($(V),1)
Q := @
quiet = @printf '  %-6s %s\n' $(1) $(2);
else
Q :=
quiet =
endif

.PHONY: all check check-all layers unit golden cli threads tsan pictures robustness oracle diffs zlib hostile \
	exec waking-only record dataset valgrind qemu-probes bench fidelity install uninstall install-test man schema clean \
	fuzz fuzz-bins fuzz-regress

all: $(BIN)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(call quiet,CC,$<)$(CC) $(ALL_CFLAGS) $(if $(LTO),$(LTO) -ffat-lto-objects) -c -o $@ $<

$(LIB): $(LIB_OBJS)
	$(call quiet,AR,$@)$(AR) rcs $@ $^

$(BIN): $(BUILD)/src/cli/main.o $(LIB)
	$(call quiet,LINK,$@)$(CC) $(filter-out -fno-lto,$(ALL_LDFLAGS)) $(if $(LTO),$(CFLAGS) $(LTO)) -o $@ $^ $(PKG_LIBS) -lm

$(BUILD)/tests/%: tests/unit/%.c $(LIB)
	@mkdir -p $(dir $@)
	$(call quiet,CC,$<)$(CC) $(ALL_CFLAGS) -Itests/unit -Ireplay -Ianalyses -Isrc/cli -Isrc/state $(ALL_LDFLAGS) -o $@ $< $(LIB) \
		$(TEST_LIBS) $(PKG_LIBS) -lm

# The whole suite: the layering rule, unit tests (cmocka), golden reports,
# robustness inputs, the independent trace-cmd-report oracle, policy diffs,
# zlib traces, hostile traces, exec placements held to the kernel's own
# answers, a real recording and record under faults
# (skipped without root and tracefs), batch's dataset with its documented
# queries (DuckDB) and Dask job, and the fuzzers' regression corpora.
check: layers unit golden cli threads pictures schema install-test robustness oracle diffs zlib hostile \
	exec waking-only record dataset fuzz-regress

# What CI runs: the suite, again under ASan+UBSan, valgrind, and ThreadSanitizer.
check-all: check valgrind
	$(MAKE) SANITIZE=1 check
	$(MAKE) tsan

layers:
	$(Q)tests/run-layers.sh

unit: $(TEST_BINS)
	$(Q)tests/run-unit.sh $(TEST_BINS)

golden: $(BIN)
	$(Q)tests/run-golden.sh $(BIN)

cli: $(BIN)
	$(Q)tests/run-cli.sh $(BIN)

# --threads 1 and the decode thread give the same bytes (fewer fixtures under a sanitizer).
threads: $(BIN)
	$(Q)tests/run-threads.sh $(BIN) $(if $(SANITIZE),--quick)

# The unit tests, goldens, cli flows and the threads test under ThreadSanitizer.
tsan:
	$(MAKE) SANITIZE=thread unit golden cli threads

pictures: $(BIN)
	$(Q)tests/run-pictures.sh $(BIN)

schema: $(BIN)
	$(Q)tests/run-schema.sh $(BIN)

robustness: $(BIN)
	$(Q)tests/run-robustness.sh $(BIN)

oracle: $(BIN)
	$(Q)tests/run-oracle.sh $(BIN)

diffs: $(BIN)
	$(Q)tests/run-diffs.sh $(BIN)

zlib: $(BIN)
	$(Q)tests/run-zlib.sh $(BIN)

hostile: $(BIN)
	$(Q)tests/run-hostile.sh $(BIN)

exec: $(BIN)
	$(Q)tests/run-exec.sh $(BIN)

record: $(BIN) $(BUILD)/pinthreads
	$(Q)tests/run-record.sh $(BIN) $(BUILD)/pinthreads
	$(Q)tests/run-record-faults.sh $(BIN)

# The fuzz corpora and every input that once failed, replayed by a plain build
# of each harness (tests/fuzz/run-inputs.c); crashing files through the CLI.
$(BUILD)/fuzz/%-replay: tests/fuzz/%.c tests/fuzz/run-inputs.c $(LIB)
	@mkdir -p $(dir $@)
	$(call quiet,CC,$<)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< tests/fuzz/run-inputs.c \
		$(LIB) $(PKG_LIBS) -lm

fuzz-regress: $(BIN) $(FUZZERS:%=$(BUILD)/fuzz/%-replay)
	$(Q)tests/run-fuzz-regress.sh $(BIN) $(BUILD)/fuzz

# libFuzzer builds (clang); `make fuzz` runs each for FUZZ_SECONDS, niced, on a
# corpus under /var/tmp seeded from tests/fuzz/ (tests/run-fuzz.sh).
$(BUILD)/fuzz/%: tests/fuzz/%.c $(LIB)
	@mkdir -p $(dir $@)
	$(call quiet,CC,$<)$(CC) $(ALL_CFLAGS) -fsanitize=fuzzer $(ALL_LDFLAGS) -o $@ $< \
		$(LIB) $(PKG_LIBS) -lm

fuzz-bins: $(FUZZERS:%=$(BUILD)/fuzz/%)

fuzz:
	$(MAKE) FUZZ=1 fuzz-bins
	$(Q)tests/run-fuzz.sh build-fuzz/fuzz $(FUZZ_SECONDS)

$(BUILD)/mkseed: tests/fuzz/mkseed.c $(LIB)
	@mkdir -p $(dir $@)
	$(call quiet,CC,$<)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(LIB) $(PKG_LIBS) -lm

# The same recording as a machine of N CPUs (how fixtures/wide/ were made).
$(BUILD)/mkwide: tests/tools/mkwide.c $(LIB)
	@mkdir -p $(dir $@)
	$(call quiet,CC,$<)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(LIB) $(PKG_LIBS)

# A synthetic busy machine of N CPUs, for make bench's per-wakeup cost (root, tracefs).
$(BUILD)/mksynth: tests/tools/mksynth.c $(LIB)
	@mkdir -p $(dir $@)
	$(call quiet,CC,$<)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(LIB) $(PKG_LIBS)

dataset: $(BIN)
	$(Q)SR_DATASET_QUICK=$(if $(filter 1,$(SANITIZE)),1,0) tests/run-dataset.sh $(BIN)

# Turns a zstd trace.dat into a zlib one (how fixtures/qemu-zlib/ was made).
$(BUILD)/mkzlib: tests/tools/mkzlib.c $(LIB)
	@mkdir -p $(dir $@)
	$(call quiet,CC,$<)$(CC) $(ALL_CFLAGS) -Isrc/ingest $(ALL_LDFLAGS) -o $@ $< $(LIB) $(PKG_LIBS)

# Threads that pin themselves one by one (tests/run-record.sh): a workload, built
# without the sanitizers, whose runtimes would add threads of their own.
$(BUILD)/pinthreads: tests/tools/pinthreads.c
	@mkdir -p $(dir $@)
	$(call quiet,CC,$<)$(CC) $(filter-out $(SANFLAGS),$(ALL_CFLAGS)) $(LDFLAGS) -pthread -o $@ $<

# A copy of a trace as if recorded without sched_wakeup (tests/run-waking-only.sh).
# A test tool, not schedreplay: built without the sanitizers, which would report
# libtracecmd's own leaks.
$(BUILD)/drop-wakeup: tests/tools/drop-wakeup.c
	@mkdir -p $(dir $@)
	$(call quiet,CC,$<)$(CC) $(filter-out $(SANFLAGS),$(ALL_CFLAGS)) $(LDFLAGS) -o $@ $< \
		$(PKG_LIBS)

waking-only: $(BIN) $(BUILD)/drop-wakeup
	$(Q)tests/run-waking-only.sh $(BIN) $(BUILD)/drop-wakeup

valgrind: $(BIN) $(TEST_BINS) $(FUZZERS:%=$(BUILD)/fuzz/%-replay)
	$(Q)tests/run-valgrind.sh $(BIN) $(TEST_BINS) $(FUZZERS:%=$(BUILD)/fuzz/%-replay)

$(BUILD)/bare-read: tests/bench/bare-read.c
	$(call quiet,CC,$<)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(PKG_LIBS)

bench: $(BIN) $(BUILD)/bare-read $(BUILD)/mksynth
	$(Q)tests/bench.sh $(BIN) $(BUILD)/bare-read $(BUILD)/mksynth
	$(Q)tests/bench-batch.sh $(BIN)

# How often the recording kernel's preset reproduces the kernel's choice (not a test).
fidelity: $(BIN)
	$(Q)tests/fidelity.py $(BIN) --json $(BUILD)/fidelity.json

# record --probes end to end in QEMU guests of Debian's 6.1 and 6.12 (minutes; not in check)
qemu-probes: $(BIN)
	$(Q)tests/qemu-probes.sh $(BIN)

# Man pages from scdoc sources (docs/man/*.scd).
$(BUILD)/man/%: docs/man/%.scd
	@mkdir -p $(dir $@)
	$(call quiet,SCDOC,$<)scdoc <$< >$@

man: $(MANS)

install: $(BIN) $(MANS)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BASHCOMPDIR) \
		$(DESTDIR)$(DOCDIR)/schema
	install -m 0755 $(BIN) $(DESTDIR)$(BINDIR)/schedreplay
	install -m 0644 $(MANS) $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 contrib/bash-completion/schedreplay $(DESTDIR)$(BASHCOMPDIR)/schedreplay
	install -m 0644 $(DOCS) $(DESTDIR)$(DOCDIR)/
	install -m 0644 $(SCHEMAS) $(DESTDIR)$(DOCDIR)/schema/

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/schedreplay $(DESTDIR)$(BASHCOMPDIR)/schedreplay
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(MANS)))
	rm -rf $(DESTDIR)$(DOCDIR)

# make install into a scratch DESTDIR: man pages render, completion completes.
install-test: $(BIN) $(MANS)
	$(Q)tests/run-install.sh "$(MAKE) --no-print-directory SANITIZE=$(SANITIZE)"

clean:
	rm -rf build build-san build-tsan build-fuzz

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
