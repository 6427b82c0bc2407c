# SPDX-License-Identifier: GPL-2.0
#
# kprofmod: the module (built by Kbuild), the reader (userspace/) and the
# tests.  `make help` lists the targets.

KVER ?= $(shell uname -r)
KDIR ?= /lib/modules/$(KVER)/build
KPROF_VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"$$/\1/p' dkms.conf)

BUILD := $(CURDIR)/build
KSRC_TAR ?= /usr/src/linux-source-6.1.tar.xz
KSFT_DIR := $(BUILD)/ksft
CHECKPATCH := $(BUILD)/checkpatch/checkpatch.pl
VM := selftests/vm

# The kernel matrix: booted by check-matrix, compiled by check.
MATRIX := 6.1 5.10 6.12 sid
# Booted by check and check-matrix too, with the kernel-splat checks:
# Debian's 6.1 PREEMPT_RT kernel, and the debug kernels built from
# linux-source-6.1 and linux-source-5.10 (selftests/vm/debug-kernel.sh:
# KASAN, lockdep, kmemleak, no BTF; 5.10 with HARDENED_USERCOPY, running
# the tests that walk user stacks from hardirq and NMI), whose builds run
# in the background at idle priority, paused while a VM runs.  The
# torture run boots 6.1 once more.  The VMs run side by side, one per
# host CPU (KPROF_VM_JOBS=N sets the number); the debug kernels' last.
# 6.1-icount boots Debian's 6.1 once more, one vCPU on a clock that
# counts instructions, for the tests whose bounds are time; BENCH boots
# it once more on that clock for the performance gate (make bench-check).
SAFETY := 6.1-rt 6.1-icount
DEBUG := debug debug-5.10
TORTURE := 6.1
# the performance gate's kernel (bench/baseline-icount.txt is for it)
BENCH := 6.1

PREFIX ?= /usr/local

.PHONY: all module module-clean dkms-source peer-module floor-module reader selftests deps check check-matrix \
	vmcheck vmcheck-torture vmcheck-debug vmcheck-kdir demo install install-module clean help bench bench-bin bench-profile \
	bench-check bench-baseline bench-wallclock

all: module reader

help:
	@echo "make              build kprofmod.ko (KVER=/KDIR= pick the kernel) and userspace/kprof"
	@echo "make demo         build, boot a VM with the module, run the reader"
	@echo "make check        quality gates, compile matrix, selftests booted on Debian's 6.1, 6.1-rt, 6.1-icount and the debug kernels, the performance gate, torture"
	@echo "make check-matrix CI: make check, plus the selftests booted on every matrix kernel"
	@echo "make vmcheck KVER=NAME  selftests booted on one matrix kernel ($(MATRIX) $(SAFETY) $(DEBUG))"
	@echo "make vmcheck-torture KVER=NAME  torture.sh booted on one matrix kernel"
	@echo "make vmcheck-debug  selftests booted on the debug kernels (KASAN, lockdep, kmemleak; samples in NMI)"
	@echo "make vmcheck-kdir KDIR=DIR [IMAGE=FILE]  W=1, DKMS build and selftests on a prepared kernel tree and its image"
	@echo "make install      install the reader, the man pages and bash completion"
	@echo "make install-module  install kprofmod.ko into /lib/modules/KVER (or use DKMS, see README)"
	@echo "make dkms-source  the module's source alone for DKMS, in build/dkms/kprofmod-$(KPROF_VERSION)"
	@echo "make bench        overhead in instructions against an empty kprobe, bpftrace and perf, one VM; writes bench/RESULTS.md"
	@echo "make bench-wallclock  the earlier wall-clock benchmark (bcc too); writes bench/WALLCLOCK.md"
	@echo "make bench-profile  where the instructions go, by kernel function (build/bench/profile.txt)"
	@echo "make bench-check  the performance gate: instructions per request and per sample against bench/baseline-icount.txt"
	@echo "make bench-baseline  measure and write a new bench/baseline-icount.txt"
	@echo "make deps         install build and test dependencies (Debian 12, root)"

module:
	@if [ ! -d "$(KDIR)" ]; then \
		echo "kprofmod: no kernel build directory $(KDIR) for $(KVER): install linux-headers-$(KVER), or pass KVER=<release> or KDIR=<dir>" >&2; \
		exit 1; \
	fi
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

module-clean:
	@if [ -d "$(KDIR)" ]; then $(MAKE) -C $(KDIR) M=$(CURDIR) clean; \
		$(MAKE) -C $(KDIR) M=$(CURDIR)/selftests/peer clean; \
		$(MAKE) -C $(KDIR) M=$(CURDIR)/bench/floor clean; fi

# What DKMS gets (dkms add build/dkms/kprofmod-VERSION, and the -dkms
# package): the module build alone, Kbuild and dkms.conf at its top as
# here, module/ (with the trial compiles of module/configure/), uapi/ and
# COPYING; not the reader, the tests or the benchmarks.  Sources only,
# never a build's objects nor its configure/ results.
DKMS_SRC := $(BUILD)/dkms/kprofmod-$(KPROF_VERSION)
dkms-source:
	rm -rf $(DKMS_SRC) && mkdir -p $(DKMS_SRC)
	cp --parents Kbuild dkms.conf COPYING \
		$$(find module uapi -name '*.[ch]' | sort) $(DKMS_SRC)/
	@echo "kprofmod: DKMS source in $(DKMS_SRC)"

# The selftests' second kprobe user (coexist.sh), for the same kernel.
peer-module:
	$(MAKE) -C $(KDIR) M=$(CURDIR)/selftests/peer modules

# make bench's floor: empty probes on the functions of the request path.
floor-module:
	$(MAKE) -C $(KDIR) M=$(CURDIR)/bench/floor modules

reader:
	$(MAKE) -C userspace VERSION=$(KPROF_VERSION)

# kselftest's lib.mk, harness and runner, and checkpatch, come from Debian's
# linux-source-6.1 at build time; they are never committed.
$(KSFT_DIR)/lib.mk $(CHECKPATCH) &:
	@test -r $(KSRC_TAR) || { echo "kprofmod: $(KSRC_TAR) missing: run 'make deps'" >&2; exit 1; }
	rm -rf $(BUILD)/ksrc && mkdir -p $(BUILD)/ksrc $(KSFT_DIR) $(dir $(CHECKPATCH))
	tar -xJf $(KSRC_TAR) -C $(BUILD)/ksrc --strip-components=1 --wildcards \
		'linux-source-6.1/tools/testing/selftests/lib.mk' \
		'linux-source-6.1/tools/testing/selftests/kselftest*' \
		'linux-source-6.1/scripts/checkpatch.pl' \
		'linux-source-6.1/scripts/spelling.txt' \
		'linux-source-6.1/scripts/const_structs.checkpatch'
	cp -r $(BUILD)/ksrc/tools/testing/selftests/. $(KSFT_DIR)/
	cp $(BUILD)/ksrc/scripts/checkpatch.pl $(BUILD)/ksrc/scripts/spelling.txt \
		$(BUILD)/ksrc/scripts/const_structs.checkpatch $(dir $(CHECKPATCH))
	rm -rf $(BUILD)/ksrc
	touch $(KSFT_DIR)/lib.mk $(CHECKPATCH)

# The selftests are built and run as tools/testing/selftests/kprofmod of the
# extracted kselftest tree, exactly as in a kernel tree.
KSFT_KPROF := $(KSFT_DIR)/kprofmod
selftests: $(KSFT_DIR)/lib.mk reader
	rm -rf $(KSFT_KPROF) && mkdir -p $(KSFT_KPROF)
	cp selftests/Makefile selftests/settings selftests/*.[ch] selftests/*.sh selftests/*.py $(KSFT_KPROF)/
	$(MAKE) -C $(KSFT_KPROF) KPROF_UAPI=$(CURDIR)/uapi OUTPUT=$(KSFT_KPROF)

deps:
	@if [ "$$(id -u)" -ne 0 ]; then sudo $(VM)/setup-host.sh; else $(VM)/setup-host.sh; fi

check: deps $(KSFT_DIR)/lib.mk
	$(VM)/check.sh --gates --unit --compile "$(filter-out 6.1,$(MATRIX))" \
		--boot "6.1 $(SAFETY) $(DEBUG)" --bench "$(BENCH)" --torture "$(TORTURE)"

check-matrix: deps $(KSFT_DIR)/lib.mk
	$(VM)/check.sh --gates --unit --boot "$(MATRIX) $(SAFETY) $(DEBUG)" --bench "$(BENCH)" \
		--torture "$(TORTURE)"

vmcheck: deps $(KSFT_DIR)/lib.mk
	$(VM)/check.sh --boot "$(KVER)"

vmcheck-torture: deps $(KSFT_DIR)/lib.mk
	$(VM)/check.sh --torture "$(KVER)"

vmcheck-debug: deps $(KSFT_DIR)/lib.mk
	$(VM)/check.sh --boot "$(DEBUG)"

# Any prepared kernel build tree (e.g. an older kernel built by hand) and
# its image: make vmcheck-kdir KDIR=/path/to/linux [IMAGE=bzImage]
vmcheck-kdir: deps $(KSFT_DIR)/lib.mk
	$(VM)/check.sh --kdir "$(KDIR)" $(if $(IMAGE),--image "$(IMAGE)")

demo: deps
	$(VM)/demo.sh

# Overhead benchmarks (bench/), in instructions: one boot of Debian's 6.1
# with an instruction-count clock (QEMU -icount shift=0,sleep=off, one
# vCPU) runs bench/icount-check.sh --full: the performance gate's
# configurations, then bpftrace, perf and an empty-kprobe floor
# (bench/floor/kprof_floor.ko) on the same workloads, and the export.
# Raw numbers go to build/bench/icount.txt; bench/results.py turns them
# into bench/RESULTS.md.  Takes no VM lock: wrap it in flock yourself
# when VMs are shared.
BENCH_KVER ?= $(shell ls /boot/vmlinuz-6.1.*-amd64 2>/dev/null | grep -v -- -rt- | \
	sed 's|/boot/vmlinuz-||' | sort -V | tail -n 1)
BENCH_BIN := $(BUILD)/bench/bin
BENCH_CFLAGS := -O2 -g -fno-omit-frame-pointer -Wall -Wextra -Werror \
	-I$(CURDIR)/uapi -I$(CURDIR)/selftests -pthread
BENCH_PROGS := $(addprefix $(BENCH_BIN)/,tcp_rr cpu_work export_cost)
BENCH_ICOUNT := --qemu-opts=-accel --qemu-opts=tcg,thread=single \
	--qemu-opts=-icount --qemu-opts=shift=0,sleep=off

# tcp_test.h reaches the device through the reader's lib/, as the
# selftests do (selftests/Makefile): its files with their layer's flags
BENCH_LIB := $(addprefix $(BENCH_BIN)/kplib/,lib/dev.o lib/snapshot.o util/util.o)
$(BENCH_BIN)/kplib/%.o: userspace/%.c userspace/layers.h userspace/lib/dev.h \
		userspace/lib/snapshot.h userspace/util/util.h uapi/linux/kprof.h
	@mkdir -p $(@D)
	$(CC) $(BENCH_CFLAGS) -Iuserspace/lib -Iuserspace/util \
		-DKP_LAYER=$(if $(filter lib/%,$*),2,1) \
		-include userspace/layers.h -c -o $@ $<
$(BENCH_BIN)/%: bench/%.c selftests/tcp_test.h selftests/cpu_spin.h $(BENCH_LIB)
	@mkdir -p $(BENCH_BIN)
	$(CC) $(BENCH_CFLAGS) -Iuserspace/lib -o $@ $< $(BENCH_LIB)
.SECONDARY: $(BENCH_LIB)

bench-bin: $(BENCH_PROGS)

bench: bench-bin
	@test -n "$(BENCH_KVER)" || { echo "kprofmod: no Debian 6.1 kernel in /boot (make deps)" >&2; exit 1; }
	$(MAKE) module KVER=$(BENCH_KVER)
	$(MAKE) floor-module KVER=$(BENCH_KVER)
	$(MAKE) reader
	@start=$$(date +%s); mkdir -p $(BUILD)/bench; rm -f $(BUILD)/bench/icount.txt $(BUILD)/bench/vm.rc; \
	{ KPROF_VNG_OPTS="$(BENCH_ICOUNT)" $(VM)/vng-run -k $(BENCH_KVER) -c 1 -m 2G -t 1500 -- \
		bench/icount-check.sh --full $(BUILD)/bench/icount.txt; \
	  echo $$? >$(BUILD)/bench/vm.rc; } \
		2>&1 | tee $(BUILD)/bench/vm.log | grep --line-buffered -E '^(not ok|# [a-z])'; \
	rc=$$(cat $(BUILD)/bench/vm.rc); \
	[ "$$rc" != 255 ] && grep -q '^reader keyed' $(BUILD)/bench/icount.txt || \
		{ echo "kprofmod: the benchmark VM did not finish (status $$rc, build/bench/vm.log)" >&2; exit 1; }; \
	echo "info host $$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1), $$(nproc) host CPUs" \
		>>$(BUILD)/bench/icount.txt; \
	echo "info commit $$(git describe --always --dirty 2>/dev/null || echo unknown)" \
		>>$(BUILD)/bench/icount.txt; \
	python3 bench/results.py $(BUILD)/bench/icount.txt bench/RESULTS.md \
		$$(( $$(date +%s) - start )) && \
	echo "bench: bench/RESULTS.md written ($$(( $$(date +%s) - start )) s)"

# Where the instructions go: the same boot as make bench's, with
# bench/tbprof/tbcount.so (a QEMU TCG plugin, QEMU 7.2's API) counting
# each kernel translation block's executions while bench/tbprof/guest.sh
# runs the gate's workloads; bench/tbprof/report.py sums them by function
# into build/bench/profile.txt: kprofmod's own functions per sample and
# per request, and what grew elsewhere in the kernel.  About 2 minutes.
BENCH_TBPROF := $(BUILD)/bench/tbprof
$(BUILD)/bench/tbcount.so: bench/tbprof/tbcount.c
	@mkdir -p $(@D)
	$(CC) -O2 -Wall -Wextra -Werror -shared -fPIC -o $@ $< -lpthread

bench-profile: bench-bin $(BUILD)/bench/tbcount.so
	@test -n "$(BENCH_KVER)" || { echo "kprofmod: no Debian 6.1 kernel in /boot (make deps)" >&2; exit 1; }
	$(MAKE) module KVER=$(BENCH_KVER)
	$(MAKE) floor-module KVER=$(BENCH_KVER)
	$(MAKE) reader
	@rm -rf $(BENCH_TBPROF); mkdir -p $(BENCH_TBPROF)
	KPROF_VNG_OPTS="$(BENCH_ICOUNT) --qemu-opts=-plugin \
		--qemu-opts=$(BUILD)/bench/tbcount.so,dir=$(BENCH_TBPROF)" \
		$(VM)/vng-run -k $(BENCH_KVER) -c 1 -m 2G -t 900 -- \
		bench/tbprof/guest.sh $(BENCH_TBPROF) >$(BUILD)/bench/tbprof.log 2>&1 || \
		{ tail -n 20 $(BUILD)/bench/tbprof.log >&2; exit 1; }
	python3 bench/tbprof/report.py $(BENCH_TBPROF) $(BUILD)/bench/profile.txt

# The earlier benchmark in wall-clock time under TCG (two vCPUs, rounds
# alternating configurations, bcc's profile too): bench/guest-bench.sh in
# the VM, bench/native-reader.sh natively, bench/analyze.py writes
# bench/WALLCLOCK.md.  Secondary: on a shared host most of its
# differences are within the noise.  About 15 minutes.
bench-wallclock: bench-bin
	@test -n "$(BENCH_KVER)" || { echo "kprofmod: no Debian 6.1 kernel in /boot (make deps)" >&2; exit 1; }
	$(MAKE) module KVER=$(BENCH_KVER)
	$(MAKE) reader
	$(MAKE) -C userspace tests/fakedev.so
	@start=$$(date +%s); \
	echo "$$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1), $$(nproc) host CPUs" \
		>$(BUILD)/bench/host.txt; \
	$(VM)/vng-run -k $(BENCH_KVER) -c 2 -m 2G -t 1500 -- bench/guest-bench.sh \
		2>&1 | tee $(BUILD)/bench/vm.log | grep --line-buffered -E '^(bench|tcp|cpu|export|reader|mem) '; \
	test -s $(BUILD)/bench/raw.txt || { echo "kprofmod: the benchmark VM wrote no results" >&2; exit 1; }; \
	bench/native-reader.sh | tee -a $(BUILD)/bench/raw.txt && \
	python3 bench/analyze.py $(BUILD)/bench/raw.txt bench/WALLCLOCK.md \
		"make bench-wallclock" $$(( $$(date +%s) - start + 0 )) && \
	echo "bench: bench/WALLCLOCK.md written ($$(( $$(date +%s) - start )) s in the VM and analysis)"

# The performance gate: one boot of Debian's 6.1 with an instruction-count
# clock (QEMU -icount shift=0,sleep=off, one vCPU) runs
# bench/icount-check.sh, which fails when kprofmod's instructions per
# request or per sample grow more than 2% over bench/baseline-icount.txt.
# make check and CI run it too (check.sh --bench), in a boot of its own.
# make bench-baseline writes a new baseline: commit it on purpose, with
# the numbers in the message.
bench-check bench-baseline: bench-bin
	@test -n "$(BENCH_KVER)" || { echo "kprofmod: no Debian 6.1 kernel in /boot (make deps)" >&2; exit 1; }
	$(MAKE) module KVER=$(BENCH_KVER)
	$(MAKE) reader
	KPROF_VNG_OPTS="$(BENCH_ICOUNT)" $(VM)/vng-run -k $(BENCH_KVER) -c 1 -m 2G -t 1500 -- \
		bench/icount-check.sh $(if $(filter bench-baseline,$@),--write bench/baseline-icount.txt)

# The module into /lib/modules/$(KVER) (then modprobe and `kprof load`
# find it), as an alternative to DKMS.
install-module: module
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules_install
	depmod -a $(KVER)

install: reader
	install -D -m 0755 userspace/kprof $(DESTDIR)$(PREFIX)/bin/kprof
	install -d $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 0644 userspace/man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -D -m 0644 docs/kprofmod.4 $(DESTDIR)$(PREFIX)/share/man/man4/kprofmod.4
	install -D -m 0644 userspace/kprof.bash-completion \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/kprof

clean: module-clean
	$(MAKE) -C userspace clean
	rm -rf $(BUILD)
