#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kprofmod loads and unloads cleanly, 100 times in a row, and refuses to
# unload while /dev/kprof is open.
. "$(dirname "$0")/lib.sh"

CYCLES=${KPROF_CYCLES:-100}

tap_plan 6
kp_unload
mark=$(kp_dmesg_mark)

if [ -n "${KPROF_KO:-}" ]; then
	# finit_module and delete_module from one process: an insmod and an
	# rmmod per cycle would cost the run several times the kernel's work
	# shellcheck disable=SC2086
	"$KP_DIR/mod_cycle" -n "$CYCLES" "$KPROF_KO" ${KPROF_LOAD_PARAMS:-}
	bad=$?
else
	bad=0
	i=0
	while [ "$i" -lt "$CYCLES" ]; do
		if ! kp_load; then
			bad=1; tap_diag "load $i failed"; break
		fi
		if [ ! -c /dev/kprof ]; then
			bad=1; tap_diag "cycle $i: /dev/kprof missing after load"; break
		fi
		if ! kp_unload; then
			bad=1; tap_diag "unload $i failed"; break
		fi
		if [ -e /dev/kprof ] || [ -e /sys/class/misc/kprof ]; then
			bad=1; tap_diag "cycle $i: device left behind after unload"; break
		fi
		i=$((i + 1))
	done
fi
tap_result "$bad" "$CYCLES load/unload cycles leave nothing behind"
tap_check "no module left loaded" sh -c '! grep -q "^kprofmod " /proc/modules'

kp_load
exec 3</dev/kprof
if rmmod kprofmod 2>/dev/null; then
	tap_result 1 "rmmod refused while /dev/kprof is open"
else
	tap_result 0 "rmmod refused while /dev/kprof is open"
fi
tap_check "module still loaded and device present" test -c /dev/kprof
exec 3<&-
tap_check "rmmod succeeds after close" kp_unload
tap_check "no kernel warning, BUG or leak report in dmesg" kp_dmesg_clean "$mark"
tap_finish
