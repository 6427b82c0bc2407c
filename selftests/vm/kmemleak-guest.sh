#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In the debug-kernel VM: kmemleak around the selftest suite.
#
#   kmemleak-guest.sh start   scan, then forget what the boot leaked
#   kmemleak-guest.sh end     unload kprofmod, scan, report in TAP
#
# What the kernel leaked before the suite (boot) is cleared at the start;
# any object kmemleak reports at the end was leaked while the suite ran.
# kmemleak reports only objects older than 5 s and scans twice so that a
# pointer in flight during one scan is not taken for a leak.
set -u
dbg=/sys/kernel/debug
km=$dbg/kmemleak
[ -e "$km" ] || mount -t debugfs none "$dbg" 2>/dev/null

case ${1:-} in
start)
	if [ -w "$km" ]; then
		echo scan >"$km" && echo clear >"$km"
		echo "# kmemleak: boot-time reports cleared"
	else
		echo "# kmemleak: $km missing"
	fi
	;;
end)
	echo "TAP version 13"
	echo "1..2"
	if ! [ -w "$km" ]; then
		echo "not ok 1 kmemleak: $km exists"
		echo "not ok 2 kmemleak: no leak reported after the suite"
		exit 0
	fi
	if grep -q '^kprofmod ' /proc/modules; then
		rmmod kprofmod
	fi
	! grep -q '^kprofmod ' /proc/modules
	r=$?
	[ $r -eq 0 ] && echo "ok 1 kmemleak: kprofmod unloaded before the scan" ||
		echo "not ok 1 kmemleak: kprofmod unloaded before the scan"
	sleep 6
	echo scan >"$km"
	sleep 1
	echo scan >"$km"
	rep=$(mktemp)
	cat "$km" >"$rep"
	n=$(grep -c '^unreferenced object' "$rep")
	if [ "$n" -eq 0 ]; then
		echo "ok 2 kmemleak: no leak reported after the suite"
	else
		sed 's/^/# /' "$rep" | head -n 200
		echo "not ok 2 kmemleak: no leak reported after the suite ($n reported)"
	fi
	rm -f "$rep"
	;;
*)
	echo "usage: ${0##*/} start|end" >&2
	exit 2
	;;
esac
