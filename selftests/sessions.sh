#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Readers own what they start: `kprof status` lists the open sessions
# (pid, command, what each runs); a `kprof top` killed with SIGKILL takes
# its session with it, while a `kprof record` beside it goes on; once the
# last reader is killed nothing runs and no kprobe of kprofmod is left
# registered (none is while the module sits loaded and idle either).
. "$(dirname "$0")/lib.sh"

tmp=$(mktemp -d)
top='' rec=''
trap 'kill -KILL $top $rec 2>/dev/null; rm -rf "$tmp"' EXIT

tap_plan 14
kp_unload
kp_load || { tap_diag "cannot load kprofmod"; exit "$KSFT_FAIL"; }

# kprobes_on_tcp: how many kprobes the kernel has on the functions that
# kprofmod probes (debugfs lists every kprobe with its function; no
# other tool probes them while this test runs)
kprobes=/sys/kernel/debug/kprobes/list
[ -e "$kprobes" ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null
tcp_fns='tcp_sendmsg|tcp_sendpage|_?_?tcp_cleanup_rbuf|tcp_connect|tcp_close|tcp_disconnect|tcp_v4_destroy_sock|tcp_recvmsg'
kprobes_on_tcp()
{
	[ -r "$kprobes" ] || { tap_diag "no $kprobes" >&2; echo -1; return; }
	grep -Ec "[[:space:]]($tcp_fns)\\+" "$kprobes"
}

# no_kprobes_on_tcp DESC: a TAP result, ok when kprobes_on_tcp is 0 (the
# kprobes list as diagnostics when not)
no_kprobes_on_tcp()
{
	n=$(kprobes_on_tcp)
	[ "$n" = 0 ]
	rc=$?
	[ $rc -eq 0 ] || sed 's/^/# /' "$kprobes"
	tap_result $rc "$1 ($n)"
}

# ftrace_on_tcp: lines of ftrace's enabled_functions for the functions
# kprofmod hooks (its ftrace_ops, and kprobes on ftrace, show there; no
# other tool traces them while this test runs); -1 without the file
ftrace_on=$(kp_tracefs)/enabled_functions
ftrace_on_tcp()
{
	[ -r "$ftrace_on" ] || { echo -1; return; }
	grep -Ec "^($tcp_fns) " "$ftrace_on"
}

# no_ftrace_on_tcp DESC: a TAP result, ok when ftrace_on_tcp is 0 or
# there is no ftrace (the lines it counted as diagnostics when not)
no_ftrace_on_tcp()
{
	n=$(ftrace_on_tcp)
	[ "$n" -le 0 ]
	rc=$?
	[ $rc -eq 0 ] || grep -E "^($tcp_fns) " "$ftrace_on" | sed 's/^/# /'
	tap_result $rc "$1 ($n)"
}

# the hot hooks go through kprofmod's ftrace_ops on x86-64 from 5.11
# (module/compat/kprof_compat_ftrace.h), wherever dynamic ftrace is
kv=$(uname -r | awk -F'[.-]' '{print $1 * 1000 + $2}')
ftrace_hot=0
[ -r "$ftrace_on" ] && [ "$(uname -m)" = x86_64 ] && [ "$kv" -ge 5011 ] &&
	ftrace_hot=1

no_kprobes_on_tcp "loaded and idle, kprofmod has no kprobe registered"
no_ftrace_on_tcp "loaded and idle, ftrace calls nothing on TCP's functions"

# sessions_are WANT...: `kprof status --json` lists exactly these
# sessions besides its own, each "PID:what,what" ("PID:" for nothing),
# and "running" is their union
sessions_are()
{
	"$KPROF_BIN" status --json >"$tmp/status.json" 2>"$tmp/status.err" &&
	python3 -I -S - "$tmp/status.json" "$@" <<'PY'
import json, sys
o = json.load(open(sys.argv[1]))
want = {}
for w in sys.argv[2:]:
    pid, what = w.split(":")
    want[int(pid)] = sorted(x for x in what.split(",") if x)
got = {}
for s in o["sessions"]:
    if s["self"]:
        continue
    assert s["comm"] == "kprof", s
    got[s["pid"]] = sorted(s["running"])
union = sorted(set(x for v in want.values() for x in v))
ok = got == want and sorted(o["running"]) == union
print("# sessions %s, running %s (want %s, %s)" % (got, o["running"], want, union))
sys.exit(0 if ok else 1)
PY
}

# wait_sessions WANT...: sessions_are within 60 s (the readers start)
wait_sessions()
{
	i=0
	while [ $i -lt 300 ]; do
		sessions_are "$@" >/dev/null && return 0
		sleep 0.2
		i=$((i + 1))
	done
	sessions_are "$@"
}

# status_text_has DESC ERE...: `kprof status` prints a line matching each
# ERE; a TAP result with DESC (the output as diagnostics when not)
status_text_has()
{
	desc=$1
	shift
	"$KPROF_BIN" status >"$tmp/status.txt" 2>&1
	rc=0
	for re in "$@"; do
		grep -Eq "$re" "$tmp/status.txt" || rc=1
	done
	[ $rc -eq 0 ] || sed 's/^/# /' "$tmp/status.txt"
	tap_result $rc "$desc"
}

"$KPROF_BIN" record -d 3600 --no-cpu -o "$tmp/rec.json" --format json \
	>"$tmp/rec.out" 2>&1 &
rec=$!
"$KPROF_BIN" top --json -i 0.5 >"$tmp/top.json" 2>"$tmp/top.err" &
top=$!
wait_sessions "$rec:tcp" "$top:tcp,cpu"
tap_result $? "status lists both readers' sessions and what each runs"

n=$(kprobes_on_tcp)
[ "$n" -gt 0 ]
tap_result $? "while sessions trace TCP, its kprobes are registered ($n)"

# where the hot hooks are on ftrace: tcp_sendmsg and the receive hook
# call kprofmod's callback, and have no kprobe
if [ "$ftrace_hot" = 1 ]; then
	grep -E '^(tcp_sendmsg|_?_?tcp_cleanup_rbuf) .*kprof_ftr_(send|recv)' \
		"$ftrace_on" >"$tmp/ftr"
	grep -q '^tcp_sendmsg ' "$tmp/ftr" &&
		grep -Eq '^_?_?tcp_cleanup_rbuf ' "$tmp/ftr" &&
		! grep -Eq '[[:space:]](tcp_sendmsg|_?_?tcp_cleanup_rbuf)\+' \
			"$kprobes"
	rc=$?
	[ $rc -eq 0 ] || { sed 's/^/# /' "$kprobes";
		grep -E '^(tcp_|__tcp)' "$ftrace_on" | sed 's/^/# /'; }
	tap_result $rc "the hot hooks call kprofmod's ftrace_ops, not kprobes"
else
	tap_skip "the hot hooks call kprofmod's ftrace_ops" "kprobes on $(uname -r)"
fi

# the module says which: KPROF_FEAT_TCP_FTRACE, "tcp-ftrace" in status,
# exactly when tcp_sendmsg calls its ftrace_ops rather than its kprobe
"$KPROF_BIN" status >"$tmp/feat.txt" 2>&1
if grep -Eq '[[:space:]]tcp_sendmsg\+' "$kprobes"; then
	want=no
elif grep -q '^tcp_sendmsg .*kprof_ftr_send' "$ftrace_on" 2>/dev/null; then
	want=yes
else
	want=unknown
fi
have=no
grep -Eq '^  features: .* tcp-ftrace( |$)' "$tmp/feat.txt" && have=yes
[ "$want" = "$have" ]
rc=$?
[ $rc -eq 0 ] || { echo "# hooked by ftrace: $want, reported: $have";
	sed 's/^/# /' "$tmp/feat.txt"; }
tap_result $rc "status reports tcp-ftrace exactly when the hot hooks use it ($want)"

status_text_has "status text: two sessions, the recorder's pid, command and what it runs" \
	"^  sessions:   2 besides this one$" "^    pid $rec +kprof +tcp for "

# SIGKILL: no chance to stop anything; the release does it before the
# parent can reap the reader, so no waiting here
kill -KILL "$top"
{ wait "$top"; } 2>/dev/null
sessions_are "$rec:tcp"
tap_result $? "a SIGKILLed top's session is gone at once; the recorder's runs on"

kill -0 "$rec" && ! grep -q . "$tmp/rec.out"
tap_result $? "the recorder is unaffected (running, nothing on its output)"

kill -KILL "$rec"
{ wait "$rec"; } 2>/dev/null
sessions_are
tap_result $? "once the last reader is killed, no session is left and nothing runs"

status_text_has "status text: running none, no other session" \
	"^  running: +none$" "^  sessions:   0 besides this one$"

no_kprobes_on_tcp "once the last reader is gone, no kprobe of kprofmod is left"
no_ftrace_on_tcp "once the last reader is gone, ftrace calls nothing on TCP's functions"
top='' rec=''

# abtest's detached runs need nothing traced: a reader that starts
# during them (holding what it starts, whatever abtest pauses) voids the
# comparison, and abtest says so instead of reporting it
"$KPROF_BIN" abtest --rounds 200 --warmup 0 --no-cpu -- sleep 0.05 \
	>"$tmp/ab.out" 2>"$tmp/ab.err" &
ab=$!
wait_sessions "$ab:" >/dev/null
"$KPROF_BIN" record -d 3600 --no-cpu -o "$tmp/rec2.json" --format json \
	>"$tmp/rec2.out" 2>&1 &
rec=$!
wait "$ab"
rc=$?
kill -INT "$rec"
wait "$rec"
rec=''
[ $rc -eq 1 ] && grep -q "another reader started tracing or sampling during the detached runs" "$tmp/ab.err"
rc=$?
[ $rc -eq 0 ] || sed 's/^/# /' "$tmp/ab.err"
tap_result $rc "abtest fails, saying why, when another reader starts tracing during its detached runs"
tap_finish
