#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Coexistence: another tool's probes on the functions kprofmod probes keep
# firing, exactly once per call, whichever attached first, while kprofmod
# is loaded, running and stopped, and after it is gone.  The other tools
# are a second kprobe module (peer/kprof_peer.ko, $KPROF_PEER_KO) and
# bpftrace.  The workload makes a known number of calls: N requests of
# tcp_workload are 2N tcp_sendmsg() calls (client and server) and three
# tcp_close() calls (client, accepted socket, listener).
. "$(dirname "$0")/lib.sh"

N=${KPROF_COEXIST_REQUESTS:-100}
WL=$KP_DIR/tcp_workload
PEER=/sys/module/kprof_peer/parameters
tmp=$(mktemp -d)
rec= bt=
cleanup()
{
	[ -z "$rec" ] || kill "$rec" 2>/dev/null
	[ -z "$bt" ] || kill "$bt" 2>/dev/null
	wait 2>/dev/null
	rmmod kprof_peer 2>/dev/null
	kp_trace_reset "$T" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

tap_plan 24
kp_unload
rmmod kprof_peer 2>/dev/null
mark=$(kp_dmesg_mark)

# workload: N requests, every call counted
workload()
{
	"$WL" -n "$N" 0 >"$tmp/wl.out" 2>&1 ||
		{ tap_diag "workload failed: $(cat "$tmp/wl.out")"; return 1; }
}

# peer_expect DESC: the peer module saw exactly 2N sends and 3 closes of
# the last workload; its counts are reset for the next one
peer_expect()
{
	local got
	got=$(cat "$PEER/hits")
	echo 0 >"$PEER/hits"
	set -- "$1" $got
	[ "$2" = $((2 * N)) ] && [ "$3" = 3 ] && { tap_result 0 "$1"; return; }
	tap_diag "peer module counted sendmsg $2 close $3 (cleanup $4), want $((2 * N)) and 3"
	tap_result 1 "$1"
}

# wait_for PID TENTHS CMD...: until CMD succeeds (0), PID exits or
# TENTHS tenths of a second passed (1)
wait_for()
{
	local pid=$1 n=$2
	shift 2
	while [ "$n" -gt 0 ]; do
		"$@" && return 0
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.1
		n=$((n - 1))
	done
	return 1
}

kp_tracing()
{
	"$KPROF_BIN" status 2>/dev/null | grep -q '^  running: *tcp'
}

# kprofmod running: a reader holds a session until killed
kp_run()
{
	"$KPROF_BIN" record -d 3600 --no-cpu -o "$tmp/rec.json" \
		--format json >"$tmp/rec.out" 2>&1 &
	rec=$!
	wait_for "$rec" 600 kp_tracing && return 0
	tap_diag "the reader did not start tracing: $(cat "$tmp/rec.out")"
	return 1
}

kp_stop()
{
	if [ -z "$rec" ]; then
		# no reader ran in this phase: no recording is its own
		rm -f "$tmp/rec.json"
		return 1
	fi
	kill -INT "$rec" 2>/dev/null
	wait "$rec"
	local rc=$?
	rec=
	return $rc
}

# kp_counted DESC: kprofmod itself counted the workload's requests in the
# last recording: N on the client's socket, and N - 1 on the server's,
# whose last send (the last response) is never followed by a receive
kp_counted()
{
	[ -f "$tmp/rec.json" ] || tap_diag "no recording: kprofmod did not run in this phase"
	tap_check "$1" python3 -I -S -c 'import json, sys
o = json.load(open(sys.argv[1]))
n = sum(r["count"] for r in o["tcp"] if r["role"] != "connect")
if n != int(sys.argv[2]):
    print("# kprofmod counted %d requests, want %s" % (n, sys.argv[2]))
    sys.exit(1)' "$tmp/rec.json" $((2 * N - 1))
	# read once: a later phase whose reader never ran (a bpftrace that
	# did not attach) must not pass on this phase's recording
	rm -f "$tmp/rec.json"
}

if [ -z "${KPROF_PEER_KO:-}" ] || [ ! -r "$KPROF_PEER_KO" ]; then
	tap_diag "KPROF_PEER_KO='${KPROF_PEER_KO:-}': build it with make peer-module"
	exit "$KSFT_FAIL"
fi

# --- the peer module first, then kprofmod ---
insmod "$KPROF_PEER_KO"
tap_result $? "the peer module loads"
workload && peer_expect "peer alone: every send and close counted"
kp_load
workload && peer_expect "peer first, kprofmod loaded after it: peer counts every call"
kp_run && workload && peer_expect "peer first, kprofmod running: peer counts every call"
kp_stop
kp_counted "peer first: kprofmod counted every request too"
workload && peer_expect "peer first, kprofmod stopped: peer counts every call"
kp_unload
tap_result $? "kprofmod unloads beside the peer"
workload && peer_expect "kprofmod gone: peer counts every call"

# --- kprofmod first, then the peer ---
rmmod kprof_peer
kp_load
insmod "$KPROF_PEER_KO"
tap_result $? "the peer module loads beside kprofmod"
workload && peer_expect "kprofmod first, peer after it: peer counts every call"
kp_run && workload && peer_expect "kprofmod first, running: peer counts every call"
kp_stop
rmmod kprof_peer
tap_result $? "the peer unloads beside kprofmod"
kp_unload

# --- bpftrace ---
# bt_start: bpftrace counting the workload's sends, attached once its
# BEGIN probe ran (bpftrace runs it after attaching every other probe;
# its "Attaching N probes" line comes before).  It ends itself, maps
# printed, when a process named $BT_STOP exits (bt_stop; seen by a kprobe
# on do_exit, since a kernel without FTRACE_SYSCALLS has no syscall
# tracepoints).
BT_STOP=kprof-bt-stop
cp /bin/true "$tmp/$BT_STOP"
bt_start()
{
	bpftrace -e 'BEGIN { printf("ready\n"); }
		     kprobe:tcp_sendmsg /comm == "tcp_workload"/ { @send = count(); }
		     kprobe:tcp_close /comm == "tcp_workload"/ { @close = count(); }
		     kprobe:do_exit /comm == "'"$BT_STOP"'"/ { exit(); }' \
		>"$tmp/bt.out" 2>&1 &
	bt=$!
	wait_for "$bt" 1200 grep -q '^ready' "$tmp/bt.out" && return 0
	tap_diag "bpftrace did not attach: $(head -n 5 "$tmp/bt.out")"
	return 1
}

# bt_stop: end bpftrace through its own exit() (the trigger process),
# which wakes its event loop.  SIGINT is only the fallback, sent every
# half second after a minute: bpftrace's main loop checks the flag its
# handler sets, then blocks in epoll_wait(), so a SIGINT that lands
# between the two is not seen until another signal comes (seen on 6.1
# and 6.12: bpftrace in do_epoll_wait until the runner's timeout), and a
# one-shot SIGINT is not enough.
bt_stop()
{
	local n
	"$tmp/$BT_STOP"
	wait_for "$bt" 600 false
	kill -0 "$bt" 2>/dev/null &&
		tap_diag "bpftrace still running a minute after its exit(): SIGINT"
	for n in $(seq 1 240); do
		kill -INT "$bt" 2>/dev/null || break
		sleep 0.5
		kill -0 "$bt" 2>/dev/null || break
	done
	wait "$bt"
}

# bt_expect DESC: bpftrace, stopped now, counted 2N sends and 3 closes
bt_expect()
{
	local s c
	bt_stop
	bt=
	s=$(sed -n 's/^@send: //p' "$tmp/bt.out")
	c=$(sed -n 's/^@close: //p' "$tmp/bt.out")
	[ "$s" = $((2 * N)) ] && [ "$c" = 3 ] && { tap_result 0 "$1"; return; }
	tap_diag "bpftrace counted sendmsg '$s' close '$c', want $((2 * N)) and 3; its output:"
	head -n 20 "$tmp/bt.out" | sed 's/^/#   /'
	tap_result 1 "$1"
}

if ! bpftrace -e 'BEGIN { exit(); }' >"$tmp/bt.probe" 2>&1; then
	# the debug kernel has no BPF; every distribution kernel does
	reason="bpftrace cannot run here: $(head -n 1 "$tmp/bt.probe")"
	if [ "${KPROF_DEBUG_KERNEL:-0}" = 1 ]; then
		for _ in 1 2 3 4 5 6 7; do
			echo "ok $((kp_ntest += 1)) # SKIP $reason"
		done
	else
		tap_diag "$reason"
		for _ in 1 2 3 4 5 6 7; do
			tap_result 1 "bpftrace runs"
		done
	fi
else
	bt_start && workload && bt_expect "bpftrace alone: every send and close counted"
	bt_start && kp_load && workload &&
		bt_expect "bpftrace first, kprofmod loaded after it: every call counted"
	kp_unload
	bt_start && kp_load && kp_run && workload &&
		bt_expect "bpftrace first, kprofmod running: every call counted"
	kp_stop
	kp_counted "bpftrace first: kprofmod counted every request too"
	kp_unload
	kp_load
	bt_start && workload && bt_expect "kprofmod first, bpftrace after it: every call counted"
	bt_start && kp_run && workload &&
		bt_expect "kprofmod first, bpftrace after it, running: every call counted"
	kp_stop
	kp_counted "kprofmod first: it counted every request beside bpftrace"
	kp_unload
fi

# --- ftrace's function tracer ---
# Where kprofmod's hot hooks are ftrace_ops of its own, the function
# tracer on tcp_sendmsg shares the call site with it: the kernel then
# calls both from its list.  Where they are kprobes, the same holds with
# the kprobes' ftrace_ops.
T=$(kp_tracefs)
ft_start()
{
	echo 0 >"$T/tracing_on" && echo nop >"$T/current_tracer" &&
		: >"$T/trace" && echo tcp_sendmsg >"$T/set_ftrace_filter" &&
		echo function >"$T/current_tracer" && echo 1 >"$T/tracing_on" &&
		return 0
	tap_diag "cannot start the function tracer on tcp_sendmsg"
	return 1
}

# ft_expect DESC: the function tracer, stopped now, saw the workload's
# 2N sends (its own, by command name: nothing else may count)
ft_expect()
{
	local n
	echo 0 >"$T/tracing_on"
	n=$(grep ' tcp_sendmsg <-' "$T/trace" | grep -c '^ *tcp_workload-')
	kp_trace_reset "$T"
	[ "$n" = $((2 * N)) ] && { tap_result 0 "$1"; return; }
	tap_diag "the function tracer saw $n calls of tcp_sendmsg, want $((2 * N))"
	tap_result 1 "$1"
}

if ! grep -qw function "$T/available_tracers" 2>/dev/null; then
	for _ in 1 2 3 4; do
		tap_skip "the function tracer beside kprofmod" \
			"no function tracer here"
	done
else
	kp_load
	kp_run && ft_start && workload &&
		ft_expect "kprofmod first, function tracer after it: every call traced"
	kp_stop
	kp_counted "kprofmod first: it counted every request beside the function tracer"
	ft_start && kp_run && workload &&
		ft_expect "function tracer first, kprofmod after it: every call traced"
	kp_stop
	kp_counted "function tracer first: kprofmod counted every request too"
	kp_unload
fi

tap_check "no splat" kp_dmesg_clean "$mark"
tap_finish
