#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Torture, bounded in time and count: request/response traffic from many
# threads over many connections, on loopback and between two network
# namespaces over a veth pair, while intervals close at 100 Hz, tracing
# starts and stops, the configuration changes, readers open, map, unmap
# and close the device, sessions that start tracing or sampling open and
# close at 100 Hz, CPUs are sampled at 999 Hz and CPU1 goes offline
# and online; rmmod is tried throughout and must be refused while the
# device is open.  Then an exact phase (tracing on throughout, nothing
# that filters changes): every completed request counted exactly once,
# no request abandoned, the in-flight table empty once idle.  Then 100
# load/unload cycles under traffic with nothing holding the device.
#
# KPROF_TORTURE_SECS (default 20) is the chaos phase's length in seconds,
# the exact phase gets half of it; KPROF_TORTURE_CYCLES (default 100) the
# load/unload cycles.  Larger values make a longer manual run.
. "$(dirname "$0")/lib.sh"

SECS=${KPROF_TORTURE_SECS:-20}
XSECS=$(( (SECS + 1) / 2 ))
CYCLES=${KPROF_TORTURE_CYCLES:-100}
T=$KP_DIR/torture
NS_C=kpt-c-$$
NS_S=kpt-s-$$
VETH_C=kptc$$
VETH_S=kpts$$
NS_ADDR=10.211.0.2
tmp=$(mktemp -d)
bg=''

cleanup()
{
	for p in $bg; do
		kill "$p" 2>/dev/null
	done
	wait 2>/dev/null
	ip netns del "$NS_C" 2>/dev/null
	ip netns del "$NS_S" 2>/dev/null
	[ -w /sys/devices/system/cpu/cpu1/online ] &&
		echo 1 >/sys/devices/system/cpu/cpu1/online 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# The torture helper's "CHECK <0|1|skip> text" lines as TAP; a helper
# that died before reporting all $1 checks fails the missing ones.
tap_checks()
{
	want=$1 file=$2 rc=$3
	got=0
	grep '^# ' "$file"
	while read -r tag st desc; do
		[ "$tag" = CHECK ] || continue
		got=$((got + 1))
		case $st in
		skip) tap_skip "$desc" "not possible here" ;;
		*) tap_result "$st" "$desc" ;;
		esac
	done <"$file"
	if [ "$got" -lt "$want" ]; then
		tap_diag "torture exited with status $rc after $got of $want checks:"
		grep -v '^# \|^CHECK\|^READY\|^CLOSING' "$file" | sed 's/^/# /'
		while [ "$got" -lt "$want" ]; do
			got=$((got + 1))
			tap_result 1 "torture check $got (helper died)"
		done
	fi
}

# wait_ready FILE PID: the helper printed READY (or died)
wait_ready()
{
	i=0
	while [ $i -lt 600 ]; do
		grep -q '^READY' "$1" && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

netns_setup()
{
	ip netns add "$NS_C" && ip netns add "$NS_S" &&
	ip link add "$VETH_C" type veth peer name "$VETH_S" &&
	ip link set "$VETH_C" netns "$NS_C" &&
	ip link set "$VETH_S" netns "$NS_S" &&
	ip -n "$NS_C" addr add 10.211.0.1/24 dev "$VETH_C" &&
	ip -n "$NS_S" addr add "$NS_ADDR/24" dev "$VETH_S" &&
	ip -n "$NS_C" link set lo up && ip -n "$NS_S" link set lo up &&
	ip -n "$NS_C" link set "$VETH_C" up &&
	ip -n "$NS_S" link set "$VETH_S" up
}

# 1 + 7 chaos + 1 rmmod(8) + 10 exact + 3 load/unload + 2 final
tap_plan 24
mark=$(kp_dmesg_mark)
tap_diag "$(nproc) CPU(s), chaos ${SECS}s, exact ${XSECS}s, $CYCLES load/unload cycles"

nsopt=''
if ! command -v ip >/dev/null 2>&1; then
	tap_skip "traffic between two network namespaces over veth" "no ip(8)"
elif ! err=$(netns_setup 2>&1); then
	tap_skip "traffic between two network namespaces over veth" \
		"no netns/veth support: $(echo "$err" | head -n 1)"
else
	nsopt="-n/run/netns/$NS_C:/run/netns/$NS_S:$NS_ADDR"
	tap_result 0 "veth pair between two network namespaces set up"
fi

kp_unload
kp_load

# ---- chaos, with rmmod(8) tried from here as well ----
"$T" run -d "$SECS" -H ${nsopt:+"$nsopt"} >"$tmp/chaos" 2>&1 &
tpid=$!
bg=$tpid
rm_n=0 rm_bad=0
# The helper prints CLOSING before it closes the device: an rmmod that
# succeeds is a failure only if CLOSING was not there once it returned
# (an rmmod takes seconds under TCG; the helper may close meanwhile).
if wait_ready "$tmp/chaos" "$tpid"; then
	while kill -0 "$tpid" 2>/dev/null &&
	      ! grep -q '^CLOSING' "$tmp/chaos"; do
		if out=$(rmmod kprofmod 2>&1); then
			if ! grep -q '^CLOSING' "$tmp/chaos"; then
				rm_bad=$((rm_bad + 1))
				tap_diag "rmmod succeeded while the device was open"
			fi
			break
		fi
		case $out in
		*"in use"*) rm_n=$((rm_n + 1)) ;;
		*) rm_bad=$((rm_bad + 1)); tap_diag "rmmod: $out" ;;
		esac
		sleep 0.5
	done
fi
wait "$tpid"
rc=$?
bg=''
tap_checks 7 "$tmp/chaos" "$rc"
[ "$rm_n" -gt 0 ] && [ "$rm_bad" -eq 0 ]
tap_result $? "rmmod(8) refused with \"in use\" (EBUSY) while the device is open ($rm_n of $((rm_n + rm_bad)))"

# ---- exact: tracing on throughout, nothing that filters changes ----
# A fresh load with the overhead guard off: under CPU emulation the
# chaos pushes the handlers past the default budget, and a guard that
# sheds TCP tracking (as it should) makes an exact count impossible.
kp_unload
kp_load budget_ppm=0
"$T" run -x -d "$XSECS" -H ${nsopt:+"$nsopt"} >"$tmp/exact" 2>&1
tap_checks 10 "$tmp/exact" "$?"

# ---- load/unload under traffic, nothing holding the device ----
kp_unload
"$T" traffic -d 3600 ${nsopt:+"$nsopt"} >"$tmp/traffic" 2>&1 &
tpid=$!
bg=$tpid
bad=0 i=0 t0=$(date +%s)
if ! wait_ready "$tmp/traffic" "$tpid"; then
	bad=1
	tap_diag "traffic did not start"
elif [ -n "${KPROF_KO:-}" ]; then
	# one process for all the cycles (see mod_cycle.c); it says how
	# long they took, or which cycle failed and why
	# shellcheck disable=SC2086
	"$KP_DIR/mod_cycle" -s -n "$CYCLES" "$KPROF_KO" ${KPROF_LOAD_PARAMS:-}
	bad=$?
else
	while [ "$i" -lt "$CYCLES" ]; do
		if ! kp_load; then
			bad=1; tap_diag "load $i failed"; break
		fi
		# every other cycle, a session starts tracing and sampling
		# (the unload is refused while it is open) and closes
		if [ $((i % 2)) -eq 0 ] && ! "$T" start; then
			bad=1; tap_diag "cycle $i: start failed"; break
		fi
		if ! kp_unload; then
			bad=1; tap_diag "unload $i failed"; break
		fi
		if [ -e /dev/kprof ] || kp_is_loaded; then
			bad=1; tap_diag "cycle $i: module or device left behind"; break
		fi
		i=$((i + 1))
	done
	tap_diag "$i load/unload cycles in $(($(date +%s) - t0)) s"
fi
tap_result "$bad" "$CYCLES load/unload cycles under traffic, half of them right after a session that ran tracing and sampling (and held off the unload) closed"
kill -TERM "$tpid" 2>/dev/null
wait "$tpid"
rc=$?
bg=''
grep '^# ' "$tmp/traffic"
tap_result "$rc" "traffic through the load/unload cycles without errors"
tap_check "module unloaded at the end" sh -c '! grep -q "^kprofmod " /proc/modules'

# shellcheck disable=SC2016
tap_check "CPU1 online at the end" sh -c \
	'[ ! -e /sys/devices/system/cpu/cpu1/online ] || [ "$(cat /sys/devices/system/cpu/cpu1/online)" = 1 ]'
tap_check "no kernel warning, BUG or leak report in dmesg" kp_dmesg_clean "$mark"
tap_finish
