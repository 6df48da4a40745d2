# gq - see README.md. `make` builds ./gq, `make check` runs every test,
# `make SANITIZE=1 check` does both under ASan and UBSan (in build-san/).

PREFIX ?= /usr/local
DESTDIR ?=
PKGS := ncursesw libcurl jansson readline libgit2 libmicrohttpd sqlite3 zlib
DEB_PKGS := build-essential socat sqlite3 pkg-config libncurses-dev libcurl4-openssl-dev libjansson-dev \
	libreadline-dev libgit2-dev libmicrohttpd-dev libsqlite3-dev zlib1g-dev \
	tmux jq curl zsh fish bash-completion python3 git locales \
	clang-14 libfuzzer-14-dev libclang-rt-14-dev clang-format-14 stunnel4 openssl prometheus time faketime groff \
	python3-jsonschema python3-yaml

ifeq ($(SANITIZE),1)
BUILD ?= build-san
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
OPT ?= -O1 -g
else
BUILD ?= build
SANFLAGS :=
OPT ?= -O2 -g
endif

# -Wconversion is not on: with jansson, ncurses and libmicrohttpd's int-typed
# APIs it flags mostly idiomatic code; the narrowing that matters goes through
# the checked parsers of core/util.h.
WARN := -Wall -Wextra -Werror -Wformat=2 -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	-Wwrite-strings -Wvla -Wpointer-arith -Wundef -Wcast-qual -Wnull-dereference \
	-Wimplicit-fallthrough -Wno-unused-parameter -Wno-format-truncation
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
ALL_CFLAGS := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $(OPT) $(WARN) $(SANFLAGS) \
	-I. $(PKG_CFLAGS) $(CFLAGS)
ALL_LDFLAGS := $(SANFLAGS) $(LDFLAGS)
LIBS := $(PKG_LIBS) -lm -lpthread

DIRS := core replay os explain wire backend server policy tui cmd
SRC := $(foreach d,$(DIRS),$(wildcard $(d)/*.c))
OBJ := $(SRC:%.c=$(BUILD)/%.o)
# The man pages of gq and its commands, built in as text for `gq help`.
MAN_PAGES := $(wildcard man/gq.1 man/gq-*.1 man/gq-*.8)
OBJ += $(BUILD)/gen/manpages.o
CORE_OBJ := $(filter $(BUILD)/core/%,$(OBJ))
# os/: the few impure helpers the layers above core/ share (the monotonic
# clock); unit-tested too.
OS_OBJ := $(filter $(BUILD)/os/%,$(OBJ))
# replay/, gq sim's trace readers and replay, is pure on core/ like core/.
REPLAY_OBJ := $(filter $(BUILD)/replay/%,$(OBJ))
# explain/, the wording and the time formatter, is pure on core/ too.
EXPLAIN_OBJ := $(filter $(BUILD)/explain/%,$(OBJ))
# wire/ is unit-tested too: all of it but the commands' --json output
# (cli.o, which needs cmd/'s explanations); it needs jansson and core/.
WIRE_OBJ := $(filter-out $(BUILD)/wire/cli.o,$(filter $(BUILD)/wire/%,$(OBJ)))
# policy/'s pure parts (semantic diff, Slurm and Kueue exports) are unit-tested too.
POLICY_PURE_OBJ := $(BUILD)/policy/semdiff.o $(BUILD)/policy/slurm.o $(BUILD)/policy/impact.o \
	$(BUILD)/policy/kueue.o
# The dashboard's grid, model and views are unit-tested headless: everything
# of tui/ but the files that touch the terminal or the backend.
TUI_PURE_OBJ := $(filter-out $(BUILD)/tui/term.o $(BUILD)/tui/app.o,$(filter $(BUILD)/tui/%,$(OBJ)))
UNIT_SRC := $(wildcard tests/unit/*.c)
UNIT_OBJ := $(UNIT_SRC:%.c=$(BUILD)/%.o)
BENCH_SRC := $(wildcard bench/*.c)
BENCH_BIN := $(BENCH_SRC:%.c=$(BUILD)/%)

all: gq

gq: $(BUILD)/gq
	@if [ "$(BUILD)" = build ]; then cp $(BUILD)/gq gq.tmp && mv -f gq.tmp gq; fi

$(BUILD)/gq: $(OBJ)
	$(CC) $(ALL_LDFLAGS) -o $@ $(OBJ) $(LIBS)

# Rebuild everything when the flags change.
$(BUILD)/.flags: FORCE
	@mkdir -p $(BUILD)
	@echo '$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS)' | cmp -s - $@ || \
		echo '$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS)' > $@

$(BUILD)/%.o: %.c $(BUILD)/.flags
	@mkdir -p $(dir $@)
	@echo "  CC $<"
	@$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/gen/manpages.c: $(MAN_PAGES) man/totext.awk man/embed.sh
	@mkdir -p $(dir $@)
	@echo "  GEN $@"
	@# C locale: the text wraps the same whatever the builder's locale (t20).
	@LC_ALL=C sh man/embed.sh $(MAN_PAGES) > $@.tmp && mv $@.tmp $@

$(BUILD)/gen/manpages.o: $(BUILD)/gen/manpages.c $(BUILD)/.flags
	@echo "  CC $<"
	@$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/tests/unit/run: $(UNIT_OBJ) $(CORE_OBJ) $(REPLAY_OBJ) $(EXPLAIN_OBJ) $(WIRE_OBJ) $(POLICY_PURE_OBJ) \
		$(TUI_PURE_OBJ) $(OS_OBJ)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(shell pkg-config --libs jansson) -lm -lpthread

$(BUILD)/bench/%: $(BUILD)/bench/%.o $(filter-out $(BUILD)/cmd/main.o,$(OBJ))
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

unit: $(BUILD)/tests/unit/run

# core/ is pure: no I/O, clock, environment or randomness. Its objects may not
# call any of these. explain/ is pure the same way, and calls nothing of the
# libraries above core either (jansson, curl, ncurses, ...): it may use libc's
# string formatting and core, nothing else of ours.
IMPURE := time clock_gettime gettimeofday getenv secure_getenv fopen fclose fread fwrite \
	open read write printf fprintf puts fputs putchar rand random srand sleep usleep \
	nanosleep system popen getpid localtime localtime_r gmtime gmtime_r mktime strftime \
	tzset stat
LIBRARY_PREFIXES := json_ curl_ mvw w[a-z]*refresh initscr endwin readline git_ MHD_ sqlite3_ \
	backend_ cmd_ tui_ model_ codec_
purity: $(CORE_OBJ) $(REPLAY_OBJ) $(EXPLAIN_OBJ)
	@bad=$$(nm -u $(filter-out %/fatal.o,$(CORE_OBJ)) $(REPLAY_OBJ) | awk '{print $$2}' | sed 's/@.*//' | sort -u | \
		grep -xE '$(shell echo $(IMPURE) | tr ' ' '|')' || true); \
	if [ -n "$$bad" ]; then echo "core/ or replay/ is not pure, it calls: $$bad"; exit 1; fi; \
	echo "core/ and replay/ are pure"
	@bad=$$(nm -u $(EXPLAIN_OBJ) | awk '{print $$2}' | sed 's/@.*//' | sort -u | \
		grep -E '^($(shell echo $(IMPURE) | tr ' ' '|'))$$|^($(shell echo $(LIBRARY_PREFIXES) | tr ' ' '|'))' \
		|| true); \
	if [ -n "$$bad" ]; then echo "explain/ is not pure, it calls: $$bad"; exit 1; fi; \
	echo "explain/ is pure"

# core/ has a direction: no cycle among its headers (#include "..."), none
# among its objects (who calls whom, from nm), and no file over 1,000 lines.
CORE_MAX_LINES := 1000
core-deps: $(CORE_OBJ)
	@for h in core/*.h; do sed -n 's|^#include "\([^"/]*\)".*|'$$h' core/\1|p' $$h; done | \
		tsort >/dev/null 2>$(BUILD)/core-deps.err || \
		{ echo "core/ headers include each other in a cycle:"; cat $(BUILD)/core-deps.err; exit 1; }
	@for o in $(CORE_OBJ); do nm -g --defined-only $$o | awk -v o=$$o '{print "D", $$3, o}'; \
		nm -u $$o | awk -v o=$$o '{print "U", $$2, o}'; done | \
		awk '$$1 == "D" { def[$$2] = $$3; next } { use[NR] = $$2; by[NR] = $$3 } \
		END { for (i in use) if ((use[i] in def) && def[use[i]] != by[i]) print by[i], def[use[i]] }' | \
		tsort >/dev/null 2>$(BUILD)/core-deps.err || \
		{ echo "core/ objects call each other in a cycle:"; cat $(BUILD)/core-deps.err; exit 1; }
	@big=$$(wc -l core/*.c core/*.h | awk '$$2 != "total" && $$1 > $(CORE_MAX_LINES) {print $$2 " (" $$1 " lines)"}'); \
		if [ -n "$$big" ]; then echo "core/ files over $(CORE_MAX_LINES) lines: $$big"; exit 1; fi
	@echo "core/ has no cycle and no file over $(CORE_MAX_LINES) lines"

# wire/ is the only user of jansson: no other object of gq may call a
# json_ or jansson_ function, and no header outside wire/ include it.
layers: $(OBJ)
	@bad=$$(for o in $(filter-out $(BUILD)/wire/%,$(OBJ)); do \
		nm -u $$o | awk '{print $$2}' | grep -qE '^(json_|jansson_)' && echo "  $$o"; done; \
		grep -l 'jansson\.h' $(filter-out wire/%,$(wildcard */*.h)) 2>/dev/null | sed 's/^/  /'); \
	if [ -n "$$bad" ]; then echo "jansson outside wire/:"; echo "$$bad"; exit 1; fi; \
	echo "only wire/ uses jansson"

check: gq unit purity core-deps layers
	@GQ=$(CURDIR)/$(BUILD)/gq UNIT=$(CURDIR)/$(BUILD)/tests/unit/run sh tests/run.sh $(T)

# The Slurm backend's e2e scripts (tests/e2e/ts*-slurm*.sh) against the kit
# of ../shared/slurm (start.sh, as root), one after the other: they share
# the cluster. Each skips with one line when the kit is not running.
check-slurm: gq
	@GQ=$(CURDIR)/$(BUILD)/gq sh tests/run.sh --slurm

check-unit: unit purity core-deps
	@UNIT=$(CURDIR)/$(BUILD)/tests/unit/run sh tests/run.sh --unit-only

bench: gq $(BENCH_BIN)
	@GQ=$(CURDIR)/$(BUILD)/gq BUILD=$(CURDIR)/$(BUILD) sh bench/run.sh $(B)

# The crash torture: ITERATIONS (100) of kill -9 of gq serve under load, a
# restart and the checks each time; SEED=N replays a run. t1a is its short
# version inside make check.
ITERATIONS ?= 100
torture: gq
	@python3 tests/torture/torture.py --gq $(CURDIR)/$(BUILD)/gq --iterations $(ITERATIONS) \
		$(if $(SEED),--seed $(SEED)) --self-test

deps:
	@if [ "$$(id -u)" = 0 ]; then \
		apt-get update -qq && apt-get install -y --no-install-recommends $(DEB_PKGS); \
	else \
		echo "run as root: apt-get update && apt-get install -y --no-install-recommends $(DEB_PKGS)"; \
	fi

# ---- fuzzing: tests/fuzz/, figures in bench/README.md ----
# `make fuzz FUZZ_SECONDS=N` builds every libFuzzer target (one per
# tests/fuzz/*.c) with clang-14 under ASan and UBSan in build-fuzz/, the gcc
# build untouched, and runs each for N seconds over its seed corpus
# (tests/fuzz/corpus/TARGET/). New inputs and crashes land in
# build-fuzz/out/, never in the repository. `make fuzz FUZZ=snapshot` runs
# one target; FUZZ_RUNS=N runs each for N executions instead of N seconds
# (the long campaign of bench/README.md).
FUZZ_CC ?= clang-14
FUZZ_SECONDS ?= 60
FUZZ_RUNS ?=
FUZZ_OUT ?= build-fuzz/out
FUZZ_SANFLAGS := -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined \
	-fno-omit-frame-pointer
# clang has warnings gcc lacks: the gcc build is the one kept at -Werror.
FUZZ_WARN := $(filter-out -Werror -Wno-format-truncation,$(WARN)) -Wno-unknown-warning-option
FUZZ_SRC := $(wildcard tests/fuzz/*.c)
FUZZ_ALL := $(FUZZ_SRC:tests/fuzz/%.c=%)
FUZZ ?= $(FUZZ_ALL)
FUZZ_BIN := $(FUZZ_ALL:%=$(BUILD)/tests/fuzz/%)
# Targets link what they use from an archive of everything but main(), so
# that the API target, which hands api_handle() requests already parsed,
# can define http.h's functions itself instead of linking libmicrohttpd's.
LIB_OBJ := $(filter-out $(BUILD)/cmd/main.o,$(OBJ))

$(BUILD)/libgq.a: $(LIB_OBJ)
	@rm -f $@
	@ar rcs $@ $^

$(BUILD)/tests/fuzz/%: $(BUILD)/tests/fuzz/%.o $(BUILD)/libgq.a
	@echo "  LD $@"
	@$(CC) $(ALL_LDFLAGS) -fsanitize=fuzzer -o $@ $< $(BUILD)/libgq.a $(LIBS)

fuzz-bins: $(FUZZ_BIN)

fuzz-build:
	@$(MAKE) --no-print-directory BUILD=build-fuzz CC=$(FUZZ_CC) OPT='-O1 -g' \
		SANFLAGS='$(FUZZ_SANFLAGS)' WARN='$(FUZZ_WARN)' fuzz-bins

fuzz: fuzz-build
	@FUZZ_RUNS=$(FUZZ_RUNS) sh tests/fuzz/run.sh build-fuzz/tests/fuzz $(FUZZ_OUT) \
		$(if $(FUZZ_RUNS),0,$(FUZZ_SECONDS)) $(FUZZ)

MAN1 := $(wildcard man/*.1)
MAN5 := $(wildcard man/*.5)
MAN7 := $(wildcard man/*.7)
MAN8 := $(wildcard man/*.8)
install: gq
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/man/man5 $(DESTDIR)$(PREFIX)/share/man/man7 \
		$(DESTDIR)$(PREFIX)/share/man/man8 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions \
		$(DESTDIR)$(PREFIX)/share/zsh/site-functions \
		$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	install -m 755 gq $(DESTDIR)$(PREFIX)/bin/gq
	$(if $(MAN1),install -m 644 $(MAN1) $(DESTDIR)$(PREFIX)/share/man/man1)
	$(if $(MAN5),install -m 644 $(MAN5) $(DESTDIR)$(PREFIX)/share/man/man5)
	$(if $(MAN7),install -m 644 $(MAN7) $(DESTDIR)$(PREFIX)/share/man/man7)
	$(if $(MAN8),install -m 644 $(MAN8) $(DESTDIR)$(PREFIX)/share/man/man8)
	$(if $(wildcard completions/gq.bash),install -m 644 completions/gq.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/gq)
	$(if $(wildcard completions/_gq),install -m 644 completions/_gq $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_gq)
	$(if $(wildcard completions/gq.fish),install -m 644 completions/gq.fish $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/gq.fish)

# The tree follows .clang-format; CI runs format-check and fails on a file
# that differs.
CLANG_FORMAT ?= clang-format-14
FORMAT_SRC = $(SRC) $(UNIT_SRC) $(BENCH_SRC) $(FUZZ_SRC) $(wildcard */*.h tests/*/*.h)
format:
	@$(CLANG_FORMAT) -i $(FORMAT_SRC)

format-check:
	@bad=$$(for f in $(FORMAT_SRC); do $(CLANG_FORMAT) $$f | cmp -s - $$f || echo $$f; done); \
	if [ -n "$$bad" ]; then echo "not clang-format clean (make format):"; echo "$$bad" | sed 's/^/  /'; exit 1; fi; \
	echo "clang-format clean"

clean:
	rm -rf build build-san build-fuzz gq

FORCE:
.PHONY: all gq unit purity layers check check-slurm check-unit bench torture deps install format format-check clean FORCE fuzz fuzz-build fuzz-bins
.PRECIOUS: $(BUILD)/bench/%.o $(BUILD)/tests/fuzz/%.o

-include $(OBJ:.o=.d) $(UNIT_OBJ:.o=.d) $(FUZZ_BIN:=.d)
