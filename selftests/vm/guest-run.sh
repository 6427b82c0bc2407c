#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs inside the test VM (through vng-run): the kselftest suite (or the
# programs and scripts named in KPROF_TESTS), then,
# with KPROF_DKMS=1, the check that the DKMS-installed module modprobes,
# and with KPROF_KMEMLEAK=1 (the debug kernel), a kmemleak scan after the
# suite and the module's unload.  Prints TAP; the host counts it with
# tap-summary.
set -u
proj=$(cd "$(dirname "$0")/../.." && pwd)
cd "$proj" || exit 1

# The TAP goes to $KPROF_TAP in the shared project directory as well as to
# the console, where kernel messages may interleave with it: the host
# counts the file.  It is collected in the guest's own /tmp first: the
# kselftest runner appends through two file descriptions, which the shared
# file system does not keep in order.
tap=$(mktemp)
# The kselftest runner writes through /dev/stdout, which virtme-ng points
# at its own output port: point it back at this process's stdout.
ln -sf /proc/self/fd/1 /dev/stdout
export KPROF_KO=${KPROF_KO:-$proj/kprofmod.ko} KPROF_BIN=${KPROF_BIN:-$proj/userspace/kprof}
export KPROF_PEER_KO=${KPROF_PEER_KO:-$proj/selftests/peer/kprof_peer.ko}
# The overhead guard is off for the suite (guard_test sets its own
# budgets): under CPU emulation a probe hit costs tens of times what it
# costs on hardware, so at the default 1% the guard would rightly shed
# stack walks in the middle of tests that count them.
export KPROF_LOAD_PARAMS=${KPROF_LOAD_PARAMS-budget_ppm=0}
ksft=$proj/build/ksft/kprofmod

# timed: the runner's output, with how long each test took after its
# result line (a TAP comment), so a slow kernel's run shows where its
# time went; and the kernel log after each test program, read by
# sequence number (kmsg-check): at the end, a TAP document with one
# result per program, failing when the kernel logged a splat while it ran.
timed()
{
	local line t0=$SECONDS mark out rc name i
	local -a names=() verdicts=()
	mark=$(selftests/vm/kmsg-check mark)
	while IFS= read -r line; do
		printf '%s\n' "$line"
		case $line in
		'ok '[0-9]*' selftests: '*|'not ok '[0-9]*' selftests: '*)
			line=${line#*selftests: }
			name=${line%% \#*}
			echo "# $name took $((SECONDS - t0)) s"
			out=$(selftests/vm/kmsg-check since "$mark")
			rc=$?
			mark=$(printf '%s\n' "$out" | sed -n 's/^last //p')
			[ -n "$mark" ] || { mark=$(selftests/vm/kmsg-check mark); rc=1; }
			printf '%s\n' "$out" | grep -v '^last ' | sed "s|^|# kernel log during $name: |"
			names+=("$name")
			verdicts+=("$rc")
			t0=$SECONDS ;;
		esac
	done
	echo "TAP version 13"
	echo "1..${#names[@]}"
	for i in "${!names[@]}"; do
		[ "${verdicts[$i]}" -eq 0 ] && printf 'ok' || printf 'not ok'
		echo " $((i + 1)) kernel log: no splat while ${names[$i]} ran"
	done
}
: >"$tap"
status=0
{
	echo "# guest kernel $(uname -r), $(nproc) CPU(s)"
	[ "${KPROF_KMEMLEAK:-0}" != 1 ] || selftests/vm/kmemleak-guest.sh start
	subset=()
	if [ -n "${KPROF_TESTS:-}" ]; then
		# a subset (the 5.10 debug kernel, the instruction-count VM):
		# programs and scripts
		gen='' progs=''
		for t in $KPROF_TESTS; do
			case $t in
			*.sh) progs="$progs $t" ;;
			*) gen="$gen $ksft/$t" ;;
			esac
		done
		echo "# the tests run here:$gen$progs"
		subset=(TEST_GEN_PROGS="$gen" TEST_PROGS="$progs")
	fi
	make -s -C "$ksft" run_tests KPROF_UAPI="$proj/uapi" OUTPUT="$ksft" \
		"${subset[@]}" | timed
	# the runner's own status counts too (make failing to build or
	# start it leaves no result of the tests it did not run)
	rc=${PIPESTATUS[0]}
	echo "TAP version 13"
	echo "1..1"
	if [ "$rc" -eq 0 ]; then
		echo "ok 1 make run_tests exited 0"
	else
		echo "not ok 1 make run_tests exited 0 # exit=$rc"
		status=1
	fi
	if [ "${KPROF_DKMS:-0}" = 1 ]; then
		selftests/vm/dkms-guest.sh
	fi
	[ "${KPROF_KMEMLEAK:-0}" != 1 ] || selftests/vm/kmemleak-guest.sh end
} >>"$tap" 2>&1
cat "$tap"
[ -z "${KPROF_TAP:-}" ] || cp "$tap" "$KPROF_TAP"
rm -f "$tap"
exit $status
