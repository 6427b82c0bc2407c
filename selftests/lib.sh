#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the kprofmod shell selftests: TAP output and module
# handling.  Sourced, never run.

KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4

# $KPROF_KO: the module to insmod (else modprobe kprofmod), with the
# parameters in $KPROF_LOAD_PARAMS;
# $KPROF_BIN: the reader (else kprof from $PATH).
KP_DIR=$(cd "$(dirname "$0")" && pwd)
KPROF_KO=${KPROF_KO:-}
KPROF_BIN=${KPROF_BIN:-kprof}

kp_ntest=0
kp_nfail=0

# tap_plan N
tap_plan()
{
	echo "TAP version 13"
	echo "1..$1"
}

# tap_result STATUS DESCRIPTION   (STATUS 0 = ok)
tap_result()
{
	kp_ntest=$((kp_ntest + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $kp_ntest $2"
	else
		kp_nfail=$((kp_nfail + 1))
		echo "not ok $kp_ntest $2"
	fi
}

# tap_check DESCRIPTION COMMAND...: ok when COMMAND succeeds
tap_check()
{
	kp_desc=$1
	shift
	if "$@"; then
		tap_result 0 "$kp_desc"
	else
		tap_result 1 "$kp_desc"
	fi
}

# tap_skip DESCRIPTION REASON: a test that cannot run here, and why
tap_skip()
{
	tap_result 0 "$1 # SKIP $2"
}

tap_diag()
{
	echo "# $*"
}

# Exit status for the runner: any failure fails the whole script.
tap_finish()
{
	echo "# Totals: pass:$((kp_ntest - kp_nfail)) fail:$kp_nfail"
	[ "$kp_nfail" -eq 0 ] && exit "$KSFT_PASS"
	exit "$KSFT_FAIL"
}

# kp_free_ports: two free TCP ports in a row on 127.0.0.1, as "P P+1",
# for a workload's servers.  A fixed port can be taken: a connection of
# an earlier test that is not yet closed may hold it as its ephemeral
# port (report_health.sh's server once failed "Address already in use").
kp_free_ports()
{
	python3 -I -S - <<'PY'
import socket
for base in range(20000, 60000, 97):
    try:
        ss = [socket.socket() for _ in range(2)]
        for i, s in enumerate(ss):
            s.bind(("127.0.0.1", base + i))
        print(base, base + 1)
        break
    except OSError:
        pass
    finally:
        for s in ss:
            s.close()
PY
}

# kp_poll SECONDS COMMAND...: run COMMAND every 0.1 s until it succeeds,
# for at most SECONDS (of guest time: under icount's sleep=off the sleeps
# pass at once); 1 if it never did.  Wait for a reader's own output this
# way, never for a fixed time.
kp_poll()
{
	kp_poll_n=$(($1 * 10))
	shift
	while [ "$kp_poll_n" -gt 0 ]; do
		"$@" && return 0
		sleep 0.1
		kp_poll_n=$((kp_poll_n - 1))
	done
	return 1
}

# kp_lines FILE: its number of complete lines (0 when it is missing)
kp_lines()
{
	if [ -e "$1" ]; then
		wc -l <"$1"
	else
		echo 0
	fi
}

# kp_reader_stop PID COUNT-COMMAND...: once COUNT-COMMAND (the intervals
# the reader has output so far) prints two more than it does now, so that
# an interval closed wholly after this call, SIGTERM the reader PID; its
# exit status.  Waits at most 120 s for the two intervals.
kp_reader_stop()
{
	kp_rs_pid=$1
	shift
	kp_rs_want=$(($("$@") + 2))
	kp_poll 120 kp_count_ge "$kp_rs_want" "$@" ||
		tap_diag "the reader output no two more intervals in 120 s"
	kill -TERM "$kp_rs_pid"
	wait "$kp_rs_pid"
}

# kp_running_sessions: how many sessions hold something (kprof status)
kp_running_sessions()
{
	"$KPROF_BIN" status --json 2>/dev/null |
		python3 -I -S -c 'import json, sys; print(len([s for s in json.load(sys.stdin)["sessions"] if s["running"]]))'
}

# kp_count_ge N COMMAND...: COMMAND prints a number of at least N
kp_count_ge()
{
	kp_cg_n=$1
	shift
	[ "$("$@")" -ge "$kp_cg_n" ] 2>/dev/null
}

kp_is_loaded()
{
	[ -d /sys/module/kprofmod ]
}

kp_load()
{
	kp_is_loaded && return 0
	if [ -n "$KPROF_KO" ]; then
		# shellcheck disable=SC2086
		insmod "$KPROF_KO" ${KPROF_LOAD_PARAMS:-} "$@"
	else
		# shellcheck disable=SC2086
		modprobe kprofmod ${KPROF_LOAD_PARAMS:-} "$@"
	fi
}

kp_unload()
{
	kp_is_loaded || return 0
	rmmod kprofmod
}

# kp_tracefs: tracefs' directory, mounted if it is not; nothing printed
# (status 1) where the kernel has none
kp_tracefs()
{
	[ -d /sys/kernel/tracing/options ] ||
		mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
	[ -d /sys/kernel/tracing/options ] && echo /sys/kernel/tracing
}

# kp_cgroup2 DIR: the root of the cgroup v2 hierarchy, printed:
# /sys/fs/cgroup where it is mounted there, else DIR (created) with the
# hierarchy mounted on it, for the caller to unmount; status 1 when
# neither is possible
kp_cgroup2()
{
	if [ "$(stat -f -c %T /sys/fs/cgroup 2>/dev/null)" = cgroup2fs ]; then
		echo /sys/fs/cgroup
		return 0
	fi
	mkdir -p "$1" && mount -t cgroup2 none "$1" && echo "$1"
}

# kp_run_in CGROUP CMD...: CMD in the background, inside CGROUP ($! is
# its process)
kp_run_in()
{
	local cg=$1
	shift
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$cg" "$@" &
}

# kp_trace_reset DIR: the tracer of tracefs DIR as every test may expect
# to find it: nop, no function or graph filter, tracing on
kp_trace_reset()
{
	[ -w "$1/current_tracer" ] || return 0
	echo nop >"$1/current_tracer"
	[ ! -w "$1/set_ftrace_filter" ] || : >"$1/set_ftrace_filter"
	[ ! -w "$1/set_graph_function" ] || : >"$1/set_graph_function"
	echo 1 >"$1/tracing_on"
}

# Kernel log lines that mean the kernel is unhappy.
kp_dmesg_mark()
{
	dmesg | wc -l
}

# kp_dmesg_clean MARK: no splat was logged since MARK
kp_dmesg_clean()
{
	if dmesg | tail -n +"$(($1 + 1))" |
		grep -E 'WARNING:|BUG:|Oops|Call Trace|kmemleak|KASAN|UBSAN|lockdep|refcount_t'; then
		return 1
	fi
	return 0
}
