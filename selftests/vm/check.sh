#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kprofmod's test driver (make check / make check-matrix / make vmcheck).
#
#   check.sh [--gates] [--unit] [--compile "NAMES"] [--boot "NAMES"]
#            [--bench NAME] [--torture NAME] [--kdir DIR [--image IMAGE]]
#
# --gates     checkpatch --strict, sparse and the W=1 build on the host's
#             Debian 6.1 kernel, the reader and selftests with -Werror, and
#             no groff or man warning in the manual pages
# --compile   W=1 build, no warnings allowed, for each named kernel
# --boot      per named kernel: W=1 build, DKMS build + install, then boot it
#             with virtme-ng and run the selftests and the DKMS modprobe test.
#             The name "debug" is the debug kernel (debug-kernel.sh: KASAN,
#             lockdep, kmemleak; built from linux-source-6.1, no DKMS);
#             "debug-5.10" the same built from linux-source-5.10, with
#             HARDENED_USERCOPY, where the module's own NMI-safe user copy
#             is the one in use: it runs the tests that walk user stacks
#             from hardirq and NMI ($debug510_tests).  "6.1-icount" is
#             Debian's 6.1 with one vCPU whose clock counts instructions
#             (QEMU -icount shift=0,sleep=off): the tests whose bounds
#             are time ($icount_tests) hold sampling rates to 1% and
#             latency percentiles to their bucket's end there, and
#             abtest's verdicts are checked, since no load on the host
#             can make that guest miss a timer or stretch a request.  On the debug
#             kernels the module is a test build (KPROF_TEST_NMI=1: every
#             cpu-clock sample is taken in NMI).  On every kernel the
#             console must be free of kernel splats (see splat_check), and
#             on the debug kernels kmemleak must find nothing after the
#             suite.
# --torture NAME  boot the named kernel and run torture.sh there
#             (traffic, snapshots, toggles, readers, CPU hotplug, rmmod
#             attempts, then 100 load/unload cycles under traffic), with
#             the kernel-splat checks.
# --bench NAME  the performance gate (make bench-check): boot the named
#             kernel with one vCPU on the instruction-count clock and run
#             bench/icount-check.sh there, in a boot of its own, which
#             fails when kprofmod's instructions per request or per
#             sample grow more than 2% over bench/baseline-icount.txt.
# --kdir DIR  a prepared kernel build tree from outside the matrix (older
#             kernels, own builds): W=1 build against it, `dkms build
#             --kernelsourcedir DIR` in a private DKMS tree, then boot
#             --image IMAGE (default DIR/arch/x86/boot/bzImage) with
#             virtme-ng; there DKMS builds and installs the module into
#             the guest's own /lib/modules, and the selftests and the DKMS
#             modprobe test run; the console gets the kernel-splat checks.
#
# The --boot and --torture VMs run side by side, KPROF_VM_JOBS at a time
# (default: the host's CPU count); each emulates its two vCPUs in one host
# thread.  The debug kernels' VMs come last.
# A VM's output is printed whole when it ends.
#
# Every step is recorded as TAP under build/results/; the last line printed
# is tap-summary's `N passed, N failed`, and the exit status is non-zero on
# any failure.
set -uo pipefail

proj=$(cd "$(dirname "$0")/../.." && pwd)
vm=$proj/selftests/vm
out=$proj/build/results
checkpatch=$proj/build/checkpatch/checkpatch.pl
ks=$vm/kernel.sh
dk=$vm/debug-kernel.sh
# what the 5.10 debug kernel runs: the tests that walk user stacks from
# hardirq and NMI (and in int3 probes), and the module's unload
debug510_tests="kprof_abi_test cpu_sample_test tcp_latency_test nmi_test load_unload.sh privacy.sh"
# what the instruction-count VM runs: the tests whose bounds are time
icount_tests="cpu_sample_test tcp_latency_test abtest.sh"
version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$proj/dkms.conf")

gates=0 unit=0 compile='' boot='' bench='' torture='' kdir='' image=''
while [ $# -gt 0 ]; do
	case $1 in
	--gates) gates=1 ;;
	--unit) unit=1 ;;
	--compile) compile=$2; shift ;;
	--boot) boot=$2; shift ;;
	--bench) bench=$2; shift ;;
	--torture) torture=$2; shift ;;
	--kdir) kdir=$2; shift ;;
	--image) image=$2; shift ;;
	*) echo "check.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
	shift
done

rm -rf "$out"
mkdir -p "$out"
cd "$proj" || exit 1

# One TAP document per step file: tap FILE RESULT DESCRIPTION
tap()
{
	local f=$out/$1.tap
	[ -f "$f" ] || echo "TAP version 13" >"$f"
	if [ "$2" -eq 0 ]; then
		echo "ok - $3" >>"$f"
		echo "  ok: $3"
	else
		echo "not ok - $3" >>"$f"
		echo "  FAILED: $3"
	fi
}

# is_debug NAME: NAME is one of the debug kernels
is_debug()
{
	case $1 in debug|debug-5.10) return 0 ;; esac
	return 1
}

# is_icount NAME: NAME is a kernel booted with an instruction-count clock
is_icount()
{
	[[ $1 == *-icount ]]
}

# kname NAME: the kernel.sh name of the kernel that VM NAME boots
kname()
{
	echo "${1%-icount}"
}

# subset NAME: the tests VM NAME runs, when not the whole suite
subset()
{
	case $1 in
	debug-5.10) echo "$debug510_tests" ;;
	*-icount) echo "$icount_tests" ;;
	esac
}

# dk_series NAME: debug-kernel.sh's series of debug kernel NAME
dk_series()
{
	if [ "$1" = debug ]; then
		echo 6.1
	else
		echo "${1#debug-}"
	fi
}

# dk_run NAME ARGS...: debug-kernel.sh for debug kernel NAME
dk_run()
{
	local name=$1
	shift
	"$dk" -k "$(dk_series "$name")" "$@"
}

# Build the module for NAME (against KDIR when given) with W=1; fails on
# any warning.  For a debug kernel, a test build (KPROF_TEST_NMI=1).
build_module()
{
	local name=$1 log=$out/build-$1.log rc kdir=${2:-} test=''
	if is_debug "$name"; then
		kdir=$(dk_run "$name" kdir) || return 1
		test=KPROF_TEST_NMI=1
	fi
	# kprofmod, and the selftests' peer module (coexist.sh)
	if [ -n "$kdir" ]; then
		make module-clean KDIR="$kdir" >/dev/null 2>&1
		make module peer-module KDIR="$kdir" W=1 $test >"$log" 2>&1
		rc=$?
	else
		"$ks" make "$(kname "$name")" module-clean >/dev/null 2>&1
		"$ks" make "$(kname "$name")" module peer-module W=1 >"$log" 2>&1
		rc=$?
	fi
	if [ $rc -ne 0 ] || grep -E 'warning:|error:' "$log"; then
		tail -n 20 "$log"
		return 1
	fi
}

dkms_in()
{
	local name=$1
	shift
	"$ks" run "$name" -- dkms "$@"
}

# splat_check NAME CONSOLE: one TAP result per kind of kernel report in
# splat-kinds, each failing when the guest's console (the kernel's
# messages at loglevel 5: errors and warnings) shows one.  Only the
# kernel's lines count (they carry a [seconds] stamp): not the host
# tools' or the tests'.
splat_check()
{
	local name=$1 log=$2 f=vm-$1 kind re hits
	while IFS=$'\t' read -r kind re; do
		hits=$(grep -aE "\\[ *[0-9]+\\.[0-9]+\\] .*($re)" "$log" |
			head -n 20)
		[ -z "$hits" ] || printf '%s\n' "$hits"
		tap "$f" "$( [ -z "$hits" ]; echo $?)" \
			"no $kind on the console of $name"
	done < <(grep -v '^#' "$vm/splat-kinds")
}

# boot_suite NAME KVER GUESTCMD VNG-RUN-ARGS...: boot a 2-CPU VM, run
# GUESTCMD there (it leaves the suite's TAP in $out/guest-NAME.tap), keep
# the console in $out/console-NAME.log and record whether it came back.
# The guest's two vCPUs run in one host thread (-accel tcg,thread=single):
# with a host thread per vCPU, an emulated CPU can go on executing a
# temporary int3 that another vCPU has already patched back (see
# docs/testing.md, Torture), which hangs or breaks any test that registers a probe under
# traffic: an emulator artifact, not the module's, and every suite does
# that (kprofmod registers its kprobes when TCP tracing starts).
# KPROF_TCG_THREAD=multi gives each vCPU a host thread, for experiments.
# An instruction-count VM (is_icount) has one vCPU.
boot_suite()
{
	local name=$1 kver=$2 cmd=$3 rc t0
	shift 3
	t0=$(date +%s)
	# Through a pipe: qemu opens its stdout and stderr again by path,
	# truncating a regular file, and each opening writes at its own
	# offset, so the kernel's messages would be overwritten.
	local cpus=2 opts="--qemu-opts=-accel --qemu-opts=tcg,thread=${KPROF_TCG_THREAD:-single}"
	# one vCPU: with two, this QEMU never got past the decompressor
	! is_icount "$name" ||
		cpus=1 opts="$opts --qemu-opts=-icount --qemu-opts=shift=0,sleep=off"
	KPROF_VNG_OPTS="${KPROF_VNG_OPTS:-} $opts" \
	"$vm/vng-run" "$@" -c "$cpus" -m 2G -- "$cmd" 2>&1 |
		cat >"$out/console-$name.log"
	rc=${PIPESTATUS[0]}
	echo "  VM on $kver: $(($(date +%s) - t0)) s"
	# the console has the kernel's messages too (vng --verbose): its
	# tail is shown when the guest command failed or left no TAP
	[ ! -f "$out/guest-$name.tap" ] || cat "$out/guest-$name.tap"
	if [ "$rc" -ne 0 ] || [ ! -f "$out/guest-$name.tap" ]; then
		tail -n 150 "$out/console-$name.log"
	fi
	tap "vm-$name" "$rc" "VM on $kver returned exit status $rc"
}

dkms_clean()
{
	dkms_in "$1" remove "kprofmod/$version" --all >/dev/null 2>&1
	"$ks" run "$1" -- rm -rf "/usr/src/kprofmod-$version"
}

# The debug kernel's build takes minutes of both CPUs.  When other steps
# come before its boot, it starts now, in the background, at idle priority
# (SCHED_IDLE, idle I/O class): it gets the CPU time the gates and the
# unit tests leave.  It is stopped while any VM runs: even at idle
# priority it slowed the guests enough to cost the 999 Hz sampling test a
# quarter of its samples.  The debug VM comes last; a build not done by
# then goes on once no other VM is left to start.
debug_pid=''
# the VM jobs running: pid -> job name, start time
declare -A job_name=() job_t0=() fetched=()
debugs=''
for name in $boot; do
	! is_debug "$name" || debugs="$debugs $name"
done
debugs=${debugs# }
if [ -n "$debugs" ] && [[ "$boot" != "$debugs" || $gates$unit != 00 ]]; then
	prio=(nice -n 19)
	chrt --idle 0 true 2>/dev/null && prio=(chrt --idle 0 "${prio[@]}")
	ionice -c 3 true 2>/dev/null && prio=(ionice -c 3 "${prio[@]}")
	echo "== debug kernels ($debugs): building in the background (${prio[*]})"
	# its own session, so that it can be stopped as a whole if this
	# script ends first; one kernel after the other
	bgcmd=''
	for name in $debugs; do
		bgcmd="$bgcmd \"$dk\" -k $(dk_series "$name") build >\"$out/fetch-$name.log\" 2>&1 &&"
	done
	setsid "${prio[@]}" sh -c "$bgcmd true" &
	debug_pid=$!
fi
# however this script ends, nothing it started goes on running
trap 'bg_build CONT; bg_build TERM; kill_vms; rm -rf "${moddir:-}"' EXIT
trap 'exit 130' INT TERM

# kill_tree PID: PID and every process below it
kill_tree()
{
	local c
	for c in $(ps -o pid= --ppid "$1" 2>/dev/null); do
		kill_tree "$c"
	done
	kill "$1" 2>/dev/null
}

# kill_vms: stop the VM jobs still running (when this script is ended)
kill_vms()
{
	local pid
	for pid in "${!job_name[@]}"; do
		kill_tree "$pid"
	done
}

# bg_build STOP|CONT: pause or resume the debug kernel's background build
# (while its session leader, the build script, still runs)
bg_build()
{
	[ -n "$debug_pid" ] &&
		[ "$(ps -o sid= -p "$debug_pid" 2>/dev/null)" -eq "$debug_pid" ] 2>/dev/null &&
		kill -"$1" -- -"$debug_pid" 2>/dev/null
}

if [ "$gates" = 1 ]; then
	echo "== quality gates"
	log=$out/checkpatch.log
	"$checkpatch" --strict --no-tree --terse --show-types -f \
		module/*.c module/*.h module/compat/*.h uapi/linux/*.h \
		selftests/peer/kprof_peer.c bench/floor/kprof_floor.c >"$log" 2>&1
	rc=$?
	cat "$log"
	tap gates "$( [ $rc -eq 0 ] && ! grep -qE ': (ERROR|WARNING|CHECK):' "$log"; echo $?)" \
		"checkpatch --strict: no error, warning or check (exit status $rc)"

	"$ks" fetch 6.1 >/dev/null || tap gates 1 "fetch kernel 6.1"
	log=$out/sparse.log
	"$ks" make 6.1 module-clean >/dev/null 2>&1
	{ "$ks" make 6.1 module C=2 && "$ks" make 6.1 floor-module C=2 W=1; } \
		>"$log" 2>&1
	rc=$?
	grep -E 'warning:|error:' "$log"
	tap gates "$( [ $rc -eq 0 ] && ! grep -qE 'warning:|error:' "$log"; echo $?)" \
		"sparse (C=2): no warning"

	# Per-CPU memory comes from alloc_percpu(): the static per-CPU area
	# (8 KiB on x86-64) is shared by every module loaded.
	hex=$(objdump -h kprofmod.ko 2>/dev/null |
		awk '$2 == ".data..percpu" {print $3}')
	pcpu=$((16#${hex:-0}))
	tap gates "$( [ -f kprofmod.ko ] && [ "$pcpu" -le 64 ]; echo $?)" \
		"static per-CPU data of kprofmod.ko: $pcpu bytes (at most 64)"

	make -s -C userspace clean
	make -s -C userspace >"$out/reader.log" 2>&1
	rc=$?
	cat "$out/reader.log"
	tap gates "$rc" "reader builds with -Wall -Wextra -Werror"

	make -s selftests >"$out/selftests-build.log" 2>&1
	rc=$?
	cat "$out/selftests-build.log"
	tap gates "$rc" "selftests build with -Werror"

	# The manual pages: no groff or man warning, at the width man uses
	# when not on a terminal.
	for page in userspace/man/*.1 docs/kprofmod.4; do
		log=$out/man-${page##*/}.log
		{ groff -man -ww -z "$page" &&
		  MANWIDTH=80 man --warnings -l "$page" >/dev/null; } >"$log" 2>&1
		rc=$?
		cat "$log"
		tap gates "$( [ $rc -eq 0 ] && [ ! -s "$log" ]; echo $?)" \
			"$page: groff -man -ww and man --warnings are silent"
	done
fi

if [ "$unit" = 1 ]; then
	# vng-run's time limit ends the VM itself, not only virtme-ng: an
	# emulator left behind would take a host CPU from every later VM.
	echo "== vng-run time limit"
	before=$(pgrep -d " " -x qemu-system-x86)
	"$vm/vng-run" -t 20 -- sleep 600 >"$out/vng-timeout.log" 2>&1
	rc=$?
	# at once: vng-run returns only when its emulator is gone
	left=''
	for pid in $(pgrep -x qemu-system-x86); do
		[[ " $before " == *" $pid "* ]] || left="$left $pid"
	done
	[ -z "$left" ] || ps -o pid,etime,args -p "${left# }" | cut -c1-120
	tap unit-exit "$( [ "$rc" = 255 ] && [ -z "$left" ]; echo $?)" \
		"vng-run: a guest past its time limit ends with status 255 ($rc) and leaves no emulator running"

	# The accounting itself: hand-made logs (truncated, a suite
	# missing, short plans, nested failures, a dead VM, skips) that
	# tap-summary must each count as they are.
	echo "== accounting (tap-summary over hand-made logs)"
	"$vm/tap-tests/run.sh" >"$out/unit-accounting.tap" 2>&1
	grep -E '^not ok|^# ' "$out/unit-accounting.tap"

	echo "== reader unit tests (host)"
	make -s -C userspace check >"$out/unit.tap" 2>&1
	rc=$?
	grep -E '^not ok|^# [0-9]+ of' "$out/unit.tap"
	tap unit-exit "$rc" "make -C userspace check exits $rc"
fi

for name in $compile; do
	echo "== compile $name"
	if ! "$ks" fetch "$name" >"$out/fetch-$name.log" 2>&1; then
		tail -n 20 "$out/fetch-$name.log"
		tap compile 1 "fetch kernel $name"
		continue
	fi
	build_module "$name"
	tap compile $? "module builds with W=1 and no warnings on $name ($("$ks" kver "$name"))"
done

# --- The VMs ---
# Each VM is prepared in turn on the host (fetch, DKMS, the W=1 build of
# the module and the peer module, kept in $moddir/JOB for its guest),
# then started in the background as soon as one of $jobs slots is free:
# every VM emulates its two vCPUs in one host thread, so the host runs one
# VM per CPU.  Each VM's output is printed, whole, when it ends.  The
# debug kernels' VMs come last (see the queue).  DKMS state is shared by the kernels that build
# natively on the host: it is cleared for every kernel before the first
# install and after the last VM.
jobs=${KPROF_VM_JOBS:-$(nproc)}
[ "$jobs" -ge 1 ] 2>/dev/null || jobs=1
# Outside the tree: Kbuild's clean (build_module) deletes every *.ko under
# it.  The guests see the host's file system, this directory included.
# Readable by all: tests run kprof as nobody on these files.
moddir=$(mktemp -d "${TMPDIR:-/tmp}/kprof-modules.XXXXXX") || exit 1
chmod 0755 "$moddir"

# save_modules JOB: keep the module builds for JOB's guest
save_modules()
{
	rm -rf "${moddir:?}/$1"
	mkdir -p "$moddir/$1"
	cp kprofmod.ko selftests/peer/kprof_peer.ko "$moddir/$1/"
}

# vm_env JOB: the guest environment that points at JOB's modules
vm_env()
{
	echo "KPROF_KO=$moddir/$1/kprofmod.ko KPROF_PEER_KO=$moddir/$1/kprof_peer.ko"
}

# prepare_build NAME JOB TAP: fetch kernel NAME and build the module for
# it with W=1, kept as JOB's (save_modules), each step a result in TAP;
# sets the caller's kver
prepare_build()
{
	local name=$1 job=$2 t=$3
	if ! "$ks" fetch "$name" >"$out/fetch-$job.log" 2>&1; then
		tail -n 20 "$out/fetch-$job.log"
		tap "$t" 1 "fetch kernel $name"
		return 1
	fi
	kver=$("$ks" kver "$name")
	build_module "$name"
	tap "$t" $? "module builds with W=1 and no warnings on $kver"
	save_modules "$job"
}

# prepare_torture NAME: fetch and build for the torture VM; sets vm_args,
# the arguments of its boot_suite (left empty when it cannot run)
prepare_torture()
{
	local name=$1 kver
	prepare_build "$name" "torture-$name" "torture-$name" || return 1
	vm_args=("torture-$name" "$kver"
		"$(vm_env "torture-$name") KPROF_BIN=$proj/userspace/kprof \
		 build/ksft/kprofmod/torture.sh >$out/guest-torture-$name.tap 2>&1"
		-k "$kver" -t 1500)
}

# prepare_bench NAME: build for the performance gate's VM on kernel NAME
# (its name ends in -icount: one vCPU on the instruction-count clock);
# sets vm_args, the arguments of its boot_suite
prepare_bench()
{
	local name=$1 job=bench-$1-icount kver rc
	prepare_build "$name" "$job" "vm-$job" || return 1
	make -s bench-bin >"$out/bench-bin.log" 2>&1
	rc=$?
	[ $rc -eq 0 ] || cat "$out/bench-bin.log"
	tap "vm-$job" $rc "the benchmark programs build (exit status $rc)"
	[ $rc -eq 0 ] || return 1
	bench/icount-check.sh --expect >"$out/guest-$job.tap.expect"
	vm_args=("$job" "$kver"
		"$(vm_env "$job") KPROF_BIN=$proj/userspace/kprof \
		 bench/icount-check.sh >$out/guest-$job.tap 2>$out/bench-$job.err"
		-k "$kver" -t 1500)
}

# prepare_suite NAME: fetch, DKMS and build for NAME's suite VM; sets
# vm_args, the arguments of its boot_suite
prepare_suite()
{
	local name=$1 kver rc guest_env t0
	local -a boot_args
	if is_debug "$name"; then
		# a debug kernel: no DKMS (its build tree is no installed
		# kernel); 2G for KASAN; TCG is slow with it: more time
		t0=$(date +%s)
		if [ -n "$debug_pid" ]; then
			bg_build CONT
			wait "$debug_pid"
			debug_pid=''
		fi
		# built by the background job, or cached, or built now
		dk_run "$name" build >>"$out/fetch-$name.log" 2>&1
		rc=$?
		if [ $rc -ne 0 ]; then
			tail -n 20 "$out/fetch-$name.log"
			tap "vm-$name" 1 "build the debug kernel $name"
			return 1
		fi
		cat "$out/fetch-$name.log"
		kver=$(dk_run "$name" kver)
		tap "vm-$name" 0 "debug kernel $kver built or cached (waited $(($(date +%s) - t0)) s for it)"
		boot_args=(-i "$(dk_run "$name" image)" -t 3600)
		guest_env="KPROF_DEBUG_KERNEL=1 KPROF_KMEMLEAK=1"
		[ "$name" = debug ] || guest_env="$guest_env KPROF_TESTS='$(subset "$name")'"
	elif is_icount "$name"; then
		# the sampling tests only, no DKMS (that is the base kernel's)
		kver=$("$ks" kver "$(kname "$name")")
		boot_args=(-k "$kver")
		guest_env="KPROF_EXACT_TIME=1 KPROF_TESTS='$(subset "$name")'"
	else
		kver=$("$ks" kver "$name")
		boot_args=(-k "$kver")
		guest_env="KPROF_DKMS=1"

		# DKMS first (it builds from its own copy of make
		# dkms-source's), then
		# the module the selftests insmod from the work tree.  The
		# kernels that build on the host share one DKMS tree: the
		# source is added once.
		dlog=$out/dkms-$name.log
		{ { [ -n "$(dkms_in "$name" status "kprofmod/$version" 2>/dev/null)" ] ||
		    dkms_in "$name" add "$dkms_src"; } &&
		  dkms_in "$name" build "kprofmod/$version" -k "$kver" &&
		  dkms_in "$name" install "kprofmod/$version" -k "$kver" --force; } >"$dlog" 2>&1
		rc=$?
		[ $rc -eq 0 ] || tail -n 20 "$dlog"
		tap "vm-$name" $rc "dkms add, build and install for $kver"
	fi

	build_module "$name"
	tap "vm-$name" $? "module builds with W=1 and no warnings on $kver"
	save_modules "$name"
	expect_guest "$name" "$guest_env"
	vm_args=("$name" "$kver"
		"$guest_env $(vm_env "$name") KPROF_TAP=$out/guest-$name.tap selftests/vm/guest-run.sh"
		"${boot_args[@]}")
}

# expect_guest NAME GUEST-ENV: what NAME's guest must report, one
# top-level result per line, in guest-NAME.tap.expect (see tap-summary):
# a result per test program it runs, the runner's exit status, and the
# DKMS and kmemleak checks where they run.  A guest that dies reports
# none of them: each counts as a failure.
expect_guest()
{
	local name=$1 genv=$2 t
	{
		if [[ $genv == *KPROF_TESTS=* ]]; then
			for t in $(subset "$name"); do echo "$t"; done
		else
			make -s -C "$proj/build/ksft/kprofmod" print_tests \
				KPROF_UAPI="$proj/uapi" OUTPUT="$proj/build/ksft/kprofmod"
		fi | sed 's/^/selftests: kprofmod: /'
		echo "make run_tests exited 0"
		[[ $genv != *KPROF_DKMS=1* ]] || echo "dkms: modprobe kprofmod"
		[[ $genv != *KPROF_KMEMLEAK=1* ]] ||
			echo "kmemleak: no leak reported after the suite"
	} >"$out/guest-$name.tap.expect"
}

# vm_job JOB BOOT-SUITE-ARGS...: one VM and its console checks (in the
# background, output in $out/job-JOB.log)
vm_job()
{
	local job=$1
	shift
	boot_suite "$@"
	# every kernel's console: what the guest's per-program reading of
	# the kernel log cannot see (boot, the DKMS test, the unload)
	splat_check "$job" "$out/console-$job.log"
}

# vm_reap: wait for one VM job to end and print its output
vm_reap()
{
	local pid
	wait -n -p pid "${!job_name[@]}"
	echo "== VM ${job_name[$pid]} done after $(($(date +%s) - job_t0[$pid])) s"
	cat "$out/job-${job_name[$pid]}.log"
	unset "job_name[$pid]"
	[ ${#job_name[@]} -gt 0 ] || bg_build CONT
}

# vm_start JOB: start JOB's VM with vm_args once a slot is free
vm_start()
{
	while [ ${#job_name[@]} -ge "$jobs" ]; do
		vm_reap
	done
	bg_build STOP
	vm_job "$1" "${vm_args[@]}" >"$out/job-$1.log" 2>&1 &
	job_name[$!]=$1
	job_t0[$!]=$(date +%s)
	echo "== VM $1 started (${#job_name[@]} of $jobs running)"
}

# The matrix kernels that build on the host share one DKMS tree, which
# this run clears at its start and end: a second run on the same host
# (another checkout, a CI clone) waits for this one, or it would remove
# the installs this one's guests are about to load.
if [ -n "$boot$kdir" ]; then
	exec 8>/var/lock/kprofmod-check.lock
	if ! flock -n 8; then
		echo "check.sh: another run on this host uses DKMS; waiting for it"
		flock 8
	fi
fi

# What DKMS gets: the module's source alone (make dkms-source), once
dkms_src=$proj/build/dkms/kprofmod-$version
if [ -n "$boot$kdir" ]; then
	make -s dkms-source >"$out/dkms-source.log" 2>&1
	rc=$?
	[ $rc -eq 0 ] || cat "$out/dkms-source.log"
	tap dkms-source "$rc" "make dkms-source (exit status $rc)"
fi

if [ -n "$torture$boot$bench" ]; then
	# the selftests, once: every VM runs them from build/ksft
	make -s selftests >"$out/selftests-vm-build.log" 2>&1
	rc=$?
	[ $rc -eq 0 ] || cat "$out/selftests-vm-build.log"
	tap selftests-build "$rc" "the selftests the VMs run build (exit status $rc)"
fi

# The queue: the debug kernels last (a build not cached by then has had
# the most time), side by side like every other VM, each in one host
# thread: every suite starts and stops TCP tracing, which registers and
# unregisters kprobes under traffic (see boot_suite).
queue=()
for name in $boot; do
	is_debug "$name" || queue+=("$name")
done
for name in $bench; do
	queue+=("bench-$name-icount")
done
for name in $torture; do
	queue+=("torture-$name")
done
for name in $debugs; do
	queue+=("$name")
done

# DKMS: clear every kernel's state before the first install
for name in $boot; do
	is_debug "$name" && continue
	if ! "$ks" fetch "$(kname "$name")" >"$out/fetch-$name.log" 2>&1; then
		tail -n 20 "$out/fetch-$name.log"
		tap "vm-$name" 1 "fetch kernel $name"
		continue
	fi
	fetched[$name]=1
	is_icount "$name" || dkms_clean "$name"
done

for job in "${queue[@]}"; do
	echo "== prepare $job"
	vm_args=()
	case $job in
	torture-*) prepare_torture "${job#torture-}" ;;
	bench-*) prepare_bench "$(kname "${job#bench-}")" ;;
	debug|debug-*) prepare_suite "$job" ;;
	*) [ -z "${fetched[$job]:-}" ] || prepare_suite "$job" ;;
	esac
	[ ${#vm_args[@]} -eq 0 ] || vm_start "$job"
done
while [ ${#job_name[@]} -gt 0 ]; do
	vm_reap
done
for name in $boot; do
	is_debug "$name" || is_icount "$name" || dkms_clean "$name"
done

# A prepared build tree: W=1 build, DKMS build in a private tree, the suite.
if [ -n "$kdir" ]; then
	kdir=$(cd "$kdir" 2>/dev/null && pwd)
	image=${image:-$kdir/arch/x86/boot/bzImage}
	kver=$(cat "$kdir/include/config/kernel.release" 2>/dev/null)
	name=kdir-$kver
	echo "== boot $kver from $kdir"
	if [ -z "$kver" ] || [ ! -r "$image" ]; then
		echo "check.sh: --kdir needs a built kernel tree (include/config/kernel.release) and its image ($image)" >&2
		tap "vm-$name" 1 "prepared kernel tree and image"
	else
		build_module "$name" "$kdir"
		tap "vm-$name" $? "module builds with W=1 and no warnings on $kver ($kdir)"

		# DKMS in its own tree: nothing of the host's DKMS state
		# is touched, and nothing is installed.
		dt=$(mktemp -d)
		mkdir -p "$dt/tree" "$dt/src/kprofmod-$version"
		cp -r "$dkms_src/." "$dt/src/kprofmod-$version/"
		dlog=$out/dkms-$name.log
		dkms build -m kprofmod -v "$version" -k "$kver" \
			--kernelsourcedir "$kdir" --dkmstree "$dt/tree" \
			--sourcetree "$dt/src" >"$dlog" 2>&1 &&
			ls "$dt/tree/kprofmod/$version/$kver"/*/module/kprofmod.ko* >>"$dlog" 2>&1
		rc=$?
		[ $rc -eq 0 ] || tail -n 20 "$dlog"
		tap "vm-$name" $rc "dkms build -k $kver --kernelsourcedir $kdir"
		rm -rf "$dt"

		make -s selftests >/dev/null 2>&1
		expect_guest "$name" "KPROF_DKMS=1"
		# In the VM, DKMS builds against the same tree and installs
		# into the guest's own /lib/modules (a tmpfs there), so the
		# suite and the DKMS modprobe test run as on an installed
		# kernel.  The tree is shared read-only as /mnt: its own path
		# may be hidden there (virtme-ng mounts empty tmpfs on
		# /var/tmp, /var/cache and a few more).
		KPROF_VNG_OPTS="${KPROF_VNG_OPTS:-} --rodir=/mnt=$kdir" \
		boot_suite "$name" "$kver" \
			"selftests/vm/dkms-guest.sh install /mnt >$out/dkms-guest-$name.log 2>&1;
			 KPROF_DKMS=1 KPROF_TAP=$out/guest-$name.tap selftests/vm/guest-run.sh" \
			-i "$image"
		splat_check "$name" "$out/console-$name.log"
	fi
fi

echo "== summary"
# shellcheck disable=SC2046
"$vm/tap-summary" --skips "$vm/expected-skips" \
	$(ls "$out"/*.tap "$out"/*.expect 2>/dev/null)
