#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kprof load, unload and status: libkmod with modprobe's semantics (the
# installed module and /etc/modprobe.d options), --ko for a given file,
# and a clear error and exit status for each way loading or unloading
# fails.
. "$(dirname "$0")/lib.sh"

tap_plan 18
kp_unload
mark=$(kp_dmesg_mark)
err=$(mktemp)
conf=/etc/modprobe.d/kprofmod-selftest.conf
trap 'rm -f "$err" "$conf"; exec 3<&- 2>/dev/null' EXIT

# kp_expect RC DESC REGEX CMD...: exit status RC, stdout+stderr match REGEX
kp_expect()
{
	local want=$1 desc=$2 re=$3 rc
	shift 3
	"$@" >"$err" 2>&1
	rc=$?
	if [ "$rc" -eq "$want" ] && grep -Eq -- "$re" "$err"; then
		tap_result 0 "$desc"
	else
		tap_diag "exit $rc (want $want): $(head -n 5 "$err")"
		tap_result 1 "$desc"
	fi
}

kp_expect 1 "status: not loaded exits 1" "^kprofmod: not loaded" \
	"$KPROF_BIN" status
kp_expect 2 "load: a parameter without a value is a usage error" \
	"not a parameter: use name=value" "$KPROF_BIN" load --ko "$KPROF_KO" stacks
kp_expect 2 "load: an unknown parameter is a usage error naming the real ones" \
	"no parameter 'nosuch'.*stacks" "$KPROF_BIN" load --ko "$KPROF_KO" nosuch=1
kp_expect 1 "load: an out-of-range value is refused" \
	"refused its parameters" "$KPROF_BIN" load --ko "$KPROF_KO" stacks=1
grep -q "^  kernel: kprofmod: stacks=1: expected a number from 16 to" "$err"
tap_result $? "load: ... with the module's own reason"
kp_expect 1 "load --ko: a file that is not a module" "not a kernel module" \
	"$KPROF_BIN" load --ko /etc/hostname
kp_expect 0 "load --ko with a parameter" "^kprofmod loaded from .* with stacks=512" \
	"$KPROF_BIN" load --ko "$KPROF_KO" stacks=512
kp_expect 1 "load: already loaded" "already loaded" \
	"$KPROF_BIN" load --ko "$KPROF_KO"
kp_expect 0 "status: loaded, version and the parameter in effect" \
	"loaded, version [0-9].*" "$KPROF_BIN" status
grep -q "stacks=512" "$err"
tap_result $? "status: shows stacks=512"

exec 3</dev/kprof
kp_expect 1 "unload: refused while in use, naming the holder" \
	"in use .* by pid $$ " "$KPROF_BIN" unload
exec 3<&-
kp_expect 0 "unload after the holder closed" "^kprofmod unloaded" \
	"$KPROF_BIN" unload
kp_expect 1 "unload: not loaded" "not loaded" "$KPROF_BIN" unload

# As modprobe: the installed module (DKMS or make install-module) with
# the options in /etc/modprobe.d, then the command line's.
if ! modinfo -n kprofmod >/dev/null 2>&1; then
	for t in "load: installed module with modprobe.d options" \
		 "status --json: the options in effect"; do
		tap_skip "$t" "kprofmod is not installed in /lib/modules/$(uname -r)"
	done
elif ! echo "options kprofmod tcp_rows=2048" >"$conf" 2>/dev/null; then
	for t in "load: installed module with modprobe.d options" \
		 "status --json: the options in effect"; do
		tap_skip "$t" "/etc/modprobe.d is not writable"
	done
else
	kp_expect 0 "load: installed module with modprobe.d options" \
		"^kprofmod loaded from /lib/modules/.* with inflight=128" \
		"$KPROF_BIN" load inflight=128
	"$KPROF_BIN" status --json >"$err" 2>&1
	python3 -I -S - "$err" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
p = s["parameters"]
ok = (s["loaded"] and p["tcp_rows"] == "2048" and p["inflight"] == "128"
      and s["tables"]["inflight"]["max"] == 128 and s["api"]["major"] == 4
      and s["health_missed"] == 0 and s["hooks_missed"] == 0
      and s["tables"]["inflight"]["closed"] == 0)
sys.exit(0 if ok else 1)
PY
	tap_result $? "status --json: the options in effect"
	rm -f "$conf"
	kp_unload
fi

# Not root: loading, unloading and the device are refused; status still
# tells what sysfs shows.
kp_expect 1 "load as nobody: permission denied" "needs root" \
	setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$KPROF_BIN" load --ko "$KPROF_KO"
kp_load
kp_expect 0 "status as nobody: loaded, the device denied" \
	"device: .*Permission denied" \
	setpriv --reuid=65534 --regid=65534 --clear-groups "$KPROF_BIN" status
kp_unload
tap_check "no kernel warning, BUG or leak report in dmesg" kp_dmesg_clean "$mark"
tap_finish
