# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# schedhist build. Out-of-tree: everything generated goes to $(OUTPUT).
#   make                  build $(OUTPUT)/schedhist
#   make test             unit tests, then the root/BPF integration suite
#   make unit             unit tests only (no root needed)
#   make vmtest           the tests on Debian's 6.1, 6.12 and PREEMPT_RT kernels in
#                         QEMU guests and on the host's (tests/vm/vmtest.sh; root)
#   make asan             the same program and unit tests under ASan+UBSan,
#                         in $(OUTPUT)-asan
#   make fuzz             libFuzzer targets of the input parsers, in
#                         $(OUTPUT)/fuzz (tests/integration/fuzz.sh runs them)
#   make bench            the overhead benchmark's helpers in $(OUTPUT)/bench
#                         (run it with bench/run.sh, as root)
#   make install          PREFIX, DESTDIR, BINDIR, MANDIR, DATADIR honoured
#   make image            the container image localhost/schedhist:VERSION
#                         (buildah, as root; contrib/image/build.sh)
#   make V=1              show the commands
#
# vmlinux.h: include/vmlinux.h is a trimmed, hand-kept header with only the
# kernel types the BPF side reads, all marked preserve_access_index. CO-RE
# relocates each field access against the running kernel's BTF at load
# time, so the build never needs the build host's /sys/kernel/btf/vmlinux
# and the header stays small enough to review.

# one job per CPU unless -j was given: the rules name every input, so a
# parallel build is the same build
ifeq ($(filter -j%,$(MAKEFLAGS)),)
MAKEFLAGS += -j$(shell nproc)
endif

OUTPUT ?= .output
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
DATADIR ?= $(PREFIX)/share/schedhist
UNITDIR ?= /lib/systemd/system
DESTDIR ?=

CC ?= cc
CLANG ?= clang
LLVM_STRIP ?= llvm-strip
BPFTOOL ?= $(shell command -v bpftool 2>/dev/null || echo /usr/sbin/bpftool)
PKG_CONFIG ?= pkg-config
VERSION := 0.1.0

ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/' \
	-e 's/ppc64le/powerpc/' -e 's/mips.*/mips/' -e 's/riscv64/riscv/' \
	-e 's/s390x/s390/' -e 's/loongarch64/loongarch/')

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

# Dependencies: each missing one stops the build naming its Debian package.
define need
$(if $(shell command -v $(1) 2>/dev/null),,$(error $(1) not found: install the Debian package $(2)))
endef
define need_pc
$(if $(shell $(PKG_CONFIG) --exists $(1) 2>/dev/null && echo y),,$(error $(1) development files not found: install the Debian package $(2)))
endef
# a library without a pkg-config file: its header
define need_hdr
$(if $(wildcard $(1)),,$(error $(1) not found: install the Debian package $(2)))
endef
ifeq ($(filter clean help,$(MAKECMDGOALS)),)
$(call need,$(PKG_CONFIG),pkg-config)
$(call need,$(CLANG),clang)
$(call need,$(LLVM_STRIP),llvm)
$(call need,$(BPFTOOL),bpftool)
$(call need_pc,libbpf,libbpf-dev)
$(call need_pc,libelf,libelf-dev)
$(call need_pc,zlib,zlib1g-dev)
$(call need_pc,libmicrohttpd,libmicrohttpd-dev)
$(call need_pc,libcap-ng,libcap-ng-dev)
$(call need_pc,ncursesw,libncurses-dev)
$(call need_pc,liblzma,liblzma-dev)
$(call need_pc,libseccomp,libseccomp-dev)
$(call need_hdr,/usr/include/libiberty/demangle.h,libiberty-dev)
endif

LIBBPF_CFLAGS := $(shell $(PKG_CONFIG) --cflags libbpf 2>/dev/null)
# fleet mode: the HTTP server and the capability drop
FLEET_CFLAGS := $(shell $(PKG_CONFIG) --cflags libmicrohttpd libcap-ng 2>/dev/null)
# --live: the terminal view (only user/output/live.c and live_draw.c include curses.h)
CURSES_CFLAGS := $(shell $(PKG_CONFIG) --cflags ncursesw 2>/dev/null)
# --profile: minidebuginfo (liblzma), the parser's seccomp filter, C++/Rust names (libiberty)
PROFILE_LIBS := $(shell $(PKG_CONFIG) --libs liblzma libseccomp 2>/dev/null) -liberty
LIBS := $(shell $(PKG_CONFIG) --libs libbpf libelf zlib libmicrohttpd libcap-ng ncursesw \
	2>/dev/null) $(PROFILE_LIBS) -lpthread -lm
# what the pure code links beyond libc: the HTTP server and the terminal view
PURE_LIBS := $(shell $(PKG_CONFIG) --libs libmicrohttpd ncursesw 2>/dev/null) -lpthread -lm

WARN := -Wall -Wextra -Wno-unused-parameter -Wshadow -Wformat=2
# The poller, its tests and fuzz targets build with warnings as errors (as
# bcc's libbpf-tools do), so CI (.ci/run) fails on a new warning; a build
# with another compiler can drop it: make WERROR=
WERROR ?= -Werror
CFLAGS ?= -g -O2
SANITIZE ?=
ALL_CFLAGS := $(CPPFLAGS) $(CFLAGS) $(SANITIZE) $(WARN) $(WERROR) -std=gnu11 -D_GNU_SOURCE \
	-DSCHEDHIST_VERSION='"$(VERSION)"' -Iinclude -Iuser -I$(OUTPUT) $(LIBBPF_CFLAGS) \
	$(FLEET_CFLAGS)
ALL_LDFLAGS := $(LDFLAGS) $(SANITIZE)

# -mcpu=v3: atomic fetch-and-add (new keys' incarnations), 32-bit jumps
BPF_CFLAGS := -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(ARCH) -Wall -Werror -Iinclude \
	$(LIBBPF_CFLAGS)

BPF_SRCS := $(wildcard bpf/*.bpf.c)
BPF_OBJS := $(patsubst bpf/%.bpf.c,$(OUTPUT)/%.bpf.o,$(BPF_SRCS))
SKELS := $(patsubst bpf/%.bpf.c,$(OUTPUT)/%.skel.h,$(BPF_SRCS))

# The poller's folders, by stage (docs/architecture.md). The pure ones touch
# no kernel: they are linked into the unit tests and fuzz targets.
PURE_DIRS := lib cli model output prom
KERNEL_DIRS := kernel profile
CORE_SRCS := $(foreach d,$(PURE_DIRS),$(wildcard user/$(d)/*.c))
APP_SRCS := $(CORE_SRCS) $(foreach d,$(KERNEL_DIRS),$(wildcard user/$(d)/*.c)) user/main.c
USER_HDRS := $(wildcard user/*/*.h)
APP_OBJS := $(patsubst user/%.c,$(OUTPUT)/user/%.o,$(APP_SRCS))
CORE_OBJS := $(patsubst user/%.c,$(OUTPUT)/user/%.o,$(CORE_SRCS))

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(OUTPUT)/tests/%,$(UNIT_SRCS))
HELPER_SRCS := $(wildcard tests/helpers/*.c)
HELPER_BINS := $(patsubst tests/helpers/%.c,$(OUTPUT)/tests/helpers/%,$(HELPER_SRCS)) \
	$(OUTPUT)/tests/helpers/waiters_nofp $(OUTPUT)/tests/helpers/waiters_stripped \
	$(OUTPUT)/tests/helpers/progA $(OUTPUT)/tests/helpers/progB

# Fuzz targets: clang's libFuzzer (libclang-rt-14-dev) with ASan+UBSan; the
# pure modules are rebuilt with coverage instrumentation for them.
FUZZ_SRCS := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS := $(patsubst tests/fuzz/%.c,$(OUTPUT)/fuzz/%,$(FUZZ_SRCS))
FUZZ_OBJS := $(patsubst user/%.c,$(OUTPUT)/fuzz/obj/%.o,$(CORE_SRCS))
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS := -g -O1 $(FUZZ_SAN) $(WARN) $(WERROR) -std=gnu11 -D_GNU_SOURCE -Iinclude -Iuser \
	-I$(OUTPUT) $(LIBBPF_CFLAGS) $(FLEET_CFLAGS)

# bench/: the empty-program floor (a BPF object, its skeleton and a loader)
# and the key maker for the poller measurement; see bench/run.sh.
BENCH_BPF_OBJS := $(OUTPUT)/bench/floor.bpf.o
BENCH_SKELS := $(OUTPUT)/bench/floor.skel.h
BENCH_BINS := $(OUTPUT)/bench/floor $(OUTPUT)/bench/keys $(OUTPUT)/bench/kmem

.DELETE_ON_ERROR:
.SECONDARY: $(BPF_OBJS) $(SKELS) $(BENCH_BPF_OBJS) $(BENCH_SKELS) $(FUZZ_OBJS) \
	$(patsubst %,$(OUTPUT)/fuzz/obj/%.o,profile/elf_syms profile/demangle profile/broker \
	kernel/seccomp)
.PHONY: all clean install uninstall test unit integration asan fuzz helpers help bench image vmtest

all: $(OUTPUT)/schedhist

help:
	@sed -n '3,19p' Makefile | sed 's/^# \{0,1\}//'

$(OUTPUT) $(OUTPUT)/user $(OUTPUT)/tests $(OUTPUT)/tests/helpers $(OUTPUT)/bench \
		$(OUTPUT)/fuzz/obj:
	$(Q)mkdir -p $@

$(OUTPUT)/%.bpf.o: bpf/%.bpf.c $(wildcard bpf/*.bpf.h) include/schedhist.h include/schedhist_profile.h include/vmlinux.h include/bits.bpf.h | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@
	$(Q)$(LLVM_STRIP) -g $@

$(OUTPUT)/%.skel.h: $(OUTPUT)/%.bpf.o | $(OUTPUT)
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@

$(OUTPUT)/user/%.o: user/%.c $(USER_HDRS) include/schedhist.h $(SKELS)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -c $< -o $@

# ncursesw's flags (-D_XOPEN_SOURCE=600 among them) for the live view's two files
$(OUTPUT)/user/output/live.o $(OUTPUT)/user/output/live_draw.o: ALL_CFLAGS += $(CURSES_CFLAGS)
$(OUTPUT)/fuzz/obj/output/live.o $(OUTPUT)/fuzz/obj/output/live_draw.o: FUZZ_CFLAGS += $(CURSES_CFLAGS)

$(OUTPUT)/schedhist: $(APP_OBJS)
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) $^ $(LIBS) -o $@

$(OUTPUT)/tests/%: tests/unit/%.c tests/unit/check.h include/bits.bpf.h $(CORE_OBJS) | $(OUTPUT)/tests
	$(call msg,TEST,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -Itests/unit $< $(CORE_OBJS) $(ALL_LDFLAGS) $(PURE_LIBS) -o $@

# test_symbolize, test_elf_syms: user/profile's symbolizer (libelf, liblzma, libiberty)
# and the ELF files they build with $(CC)
SYM_OBJS := $(patsubst %,$(OUTPUT)/user/profile/%.o,symbolize elf_cache elf_syms demangle)
$(OUTPUT)/tests/test_symbolize $(OUTPUT)/tests/test_elf_syms: $(OUTPUT)/tests/%: tests/unit/%.c \
		tests/unit/check.h tests/unit/sym_fixture.h tests/helpers/elfgen.h $(CORE_OBJS) \
		$(SYM_OBJS) | $(OUTPUT)/tests
	$(call msg,TEST,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -Itests/unit $< $(CORE_OBJS) $(SYM_OBJS) \
		$(ALL_LDFLAGS) $(LIBS) -lm -o $@

# helpers keep frame pointers: --profile's tests walk their user stacks
$(OUTPUT)/tests/helpers/%: tests/helpers/%.c | $(OUTPUT)/tests/helpers
	$(call msg,HELPER,$@)
	$(Q)$(CC) $(CFLAGS) -fno-omit-frame-pointer $(WARN) -std=gnu11 -D_GNU_SOURCE -Iinclude $< \
		-pthread -o $@

# profile.sh's other binaries: waiters without frame pointers, and stripped
$(OUTPUT)/tests/helpers/waiters_nofp: tests/helpers/waiters.c | $(OUTPUT)/tests/helpers
	$(call msg,HELPER,$@)
	$(Q)$(CC) $(CFLAGS) -fomit-frame-pointer $(WARN) -std=gnu11 -D_GNU_SOURCE $< -pthread -o $@

# stripped at link time (-s): a build of its own, with a build id of its own
# (a stripped copy of waiters would keep waiters' id, and with it its names)
$(OUTPUT)/tests/helpers/waiters_stripped: tests/helpers/waiters.c | $(OUTPUT)/tests/helpers
	$(call msg,HELPER,$@)
	$(Q)$(CC) $(CFLAGS) -fno-omit-frame-pointer -s $(WARN) -std=gnu11 -D_GNU_SOURCE $< \
		-pthread -o $@

# profile_exec.sh's pair: one source, the function renamed (same length: same offsets)
$(OUTPUT)/tests/helpers/prog%: tests/helpers/execpair.c | $(OUTPUT)/tests/helpers
	$(call msg,HELPER,$@)
	$(Q)$(CC) $(CFLAGS) -fno-omit-frame-pointer -DSLEEPER=func$*_sleeper $(WARN) -std=gnu11 \
		-D_GNU_SOURCE $< -o $@

helpers: $(HELPER_BINS)

$(OUTPUT)/bench/%.bpf.o: bench/%.bpf.c include/vmlinux.h | $(OUTPUT)/bench
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@
	$(Q)$(LLVM_STRIP) -g $@

$(OUTPUT)/bench/floor: bench/floor.c $(OUTPUT)/bench/floor.skel.h
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -I$(OUTPUT)/bench $< $(ALL_LDFLAGS) $(LIBS) -o $@

$(OUTPUT)/bench/keys: bench/keys.c | $(OUTPUT)/bench
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) $(WARN) -std=gnu11 -D_GNU_SOURCE $< -pthread -o $@

$(OUTPUT)/bench/kmem: bench/kmem.c $(OUTPUT)/user/model/kmem.o | $(OUTPUT)/bench
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $< $(OUTPUT)/user/model/kmem.o -o $@

bench: $(OUTPUT)/schedhist $(BENCH_BINS) $(OUTPUT)/tests/helpers/churn

unit: $(UNIT_BINS)
	$(Q)tests/run-unit.sh $(OUTPUT)/tests

# heatmap_layout.sh draws worst-case heatmaps with test_heatmap --svg-dir
integration: $(OUTPUT)/schedhist $(HELPER_BINS) $(OUTPUT)/tests/test_heatmap $(OUTPUT)/bench/kmem
	$(Q)OUTPUT=$(OUTPUT) tests/run-integration.sh

# Every test: unit (also under ASan+UBSan), then integration (which runs
# some tests against the ASan binary, and the fuzz targets); one summary
# line at the end.
test: $(OUTPUT)/schedhist $(UNIT_BINS) $(HELPER_BINS) $(OUTPUT)/bench/kmem asan fuzz
	$(Q)OUTPUT=$(OUTPUT) tests/run-all.sh

# Debian's kernels fetched (tests/vm/kernels.sh: the cache), booted under QEMU with this
# build (tests/vm/vmtest.sh); the result in bench/results/vmtest-*.md
vmtest: $(OUTPUT)/schedhist $(HELPER_BINS) $(OUTPUT)/bench/kmem
	$(Q)OUTPUT=$(OUTPUT) tests/vm/vmtest.sh

$(OUTPUT)/fuzz/obj/%.o: user/%.c $(USER_HDRS) include/schedhist.h
	$(call msg,CC-FUZZ,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(OUTPUT)/fuzz/%: tests/fuzz/%.c $(FUZZ_OBJS) | $(OUTPUT)/fuzz/obj
	$(call msg,FUZZ,$@)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer $< $(FUZZ_OBJS) $(PURE_LIBS) -o $@

# the profile's readers of untrusted files, and the broker's request check
FUZZ_PROFILE_LIBS := $(shell $(PKG_CONFIG) --libs libelf liblzma libseccomp libcap-ng 2>/dev/null) \
	-liberty
$(OUTPUT)/fuzz/fuzz_elf_syms: tests/fuzz/fuzz_elf_syms.c tests/helpers/elfgen.h \
		$(OUTPUT)/fuzz/obj/profile/elf_syms.o $(OUTPUT)/fuzz/obj/profile/demangle.o \
		| $(OUTPUT)/fuzz/obj
	$(call msg,FUZZ,$@)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer $< $(filter %.o,$^) $(FUZZ_PROFILE_LIBS) -o $@
$(OUTPUT)/fuzz/fuzz_broker: tests/fuzz/fuzz_broker.c $(OUTPUT)/fuzz/obj/profile/broker.o \
		$(OUTPUT)/fuzz/obj/kernel/seccomp.o $(OUTPUT)/fuzz/obj/lib/log.o | $(OUTPUT)/fuzz/obj
	$(call msg,FUZZ,$@)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer $< $(filter %.o,$^) $(FUZZ_PROFILE_LIBS) -o $@

fuzz: $(FUZZ_BINS)

asan:
	$(Q)$(MAKE) --no-print-directory OUTPUT=$(OUTPUT)-asan \
		SANITIZE='-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all' \
		$(OUTPUT)-asan/schedhist $(patsubst $(OUTPUT)/%,$(OUTPUT)-asan/%,$(UNIT_BINS))

install: $(OUTPUT)/schedhist
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man8
	install -m 0755 $(OUTPUT)/schedhist $(DESTDIR)$(BINDIR)/schedhist
	install -m 0644 man/schedhist.8 $(DESTDIR)$(MANDIR)/man8/schedhist.8
	install -d $(DESTDIR)$(UNITDIR)
	sed 's|/usr/local/sbin/schedhist|$(BINDIR)/schedhist|' contrib/schedhist.service \
		> $(OUTPUT)/schedhist.service
	install -m 0644 $(OUTPUT)/schedhist.service $(DESTDIR)$(UNITDIR)/schedhist.service
	install -d $(DESTDIR)$(DATADIR)
	install -m 0644 docs/report.schema.json $(DESTDIR)$(DATADIR)/report.schema.json
	if [ -f contrib/prometheus/schedhist.rules.yml ]; then \
		install -D -m 0644 contrib/prometheus/schedhist.rules.yml \
			$(DESTDIR)$(DATADIR)/prometheus/schedhist.rules.yml; fi

# The container image localhost/schedhist:$(VERSION), from scratch with
# buildah: the binary, its libraries and the man page (contrib/image/build.sh)
image: $(OUTPUT)/schedhist
	$(Q)contrib/image/build.sh $(OUTPUT)/schedhist $(VERSION)

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/schedhist $(DESTDIR)$(MANDIR)/man8/schedhist.8
	rm -f $(DESTDIR)$(UNITDIR)/schedhist.service
	rm -f $(DESTDIR)$(DATADIR)/report.schema.json $(DESTDIR)$(DATADIR)/prometheus/schedhist.rules.yml
	-rmdir $(DESTDIR)$(DATADIR)/prometheus $(DESTDIR)$(DATADIR) 2>/dev/null

clean:
	$(call msg,CLEAN,$(OUTPUT))
	$(Q)rm -rf $(OUTPUT) $(OUTPUT)-asan
