#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `kprof top` and `kprof stacks` against real traffic: exact counts in the
# JSON output, the table, IPv6 endpoints, and stacks symbolized to the
# workload's own function.
. "$(dirname "$0")/lib.sh"

WL=$KP_DIR/tcp_workload
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

tap_plan 9
kp_unload
kp_load || { tap_diag "cannot load kprofmod"; exit "$KSFT_FAIL"; }

# json_check FILE PORT WANT: client rows to PORT sum to WANT, every field
# is there, and no row of another role names PORT.
json_check()
{
	python3 -I -S - "$@" <<'PY'
import json, sys
path, port, want = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
total, lines = 0, 0
for line in open(path):
    o = json.loads(line)
    lines += 1
    assert o["interval"]["start_ns"] < o["interval"]["end_ns"]
    for k in ("inflight", "rows", "stacks", "export"):
        assert isinstance(o["drops"][k], int)
    assert o["tcp_rows"] == len(o["tcp"]), (o["tcp_rows"], len(o["tcp"]))
    for r in o["tcp"]:
        for k in ("stack_id", "family", "raddr", "rport", "role", "count",
                  "sum_ns", "min_ns", "max_ns", "p50_ns", "p95_ns",
                  "p99_ns"):
            assert k in r, k
        assert r["min_ns"] <= r["p50_ns"] <= r["p95_ns"] <= r["p99_ns"] <= r["max_ns"], r
        # connects (API 4.0) have rows of their own
        if r["rport"] == port and r["role"] != "connect":
            assert r["role"] == "client", r
            total += r["count"]
print("# %d intervals, %d requests to port %d (want %d)" % (lines, total, port, want))
sys.exit(0 if total == want and lines > 0 else 1)
PY
}

# A fixed number of requests while top runs: the JSON counts them exactly.
# top runs from its first interval (its own sign that it measures) until
# two more intervals closed after the workload's last request, however
# slow the kernel is, and stops on SIGTERM.
"$KPROF_BIN" top --json --top 1000 -i 0.5 --threshold 0 >"$tmp/top.json" 2>"$tmp/top.err" &
top=$!
kp_poll 120 kp_count_ge 1 kp_lines "$tmp/top.json" || tap_diag "top printed no interval in 120 s"
"$WL" -n 300 2 >"$tmp/wl.out"
kp_reader_stop "$top" kp_lines "$tmp/top.json"
tap_result $? "top --json runs and exits 0 on SIGTERM"
port=$(awk '{print $2}' "$tmp/wl.out")
tap_check "JSON rows count the 300 requests exactly" json_check "$tmp/top.json" "$port" 300
tap_check "nothing on stderr" test ! -s "$tmp/top.err"

# IPv6, the table form: from its first interval until two more closed
# after the workload, as above.  The workload (10 ms a response, over
# the 5 ms threshold) runs until top has shown one of its slow
# requests' stacks: top names user frames through the live process's
# mappings, and a run of 2 s had ended before a top slowed by a busy
# host printed its intervals (its frames then have no name).
tables()
{
	grep -c '  interval ' "$tmp/top.txt"
}
"$KPROF_BIN" top --top 1000 -i 1 --threshold 5ms >"$tmp/top.txt" 2>&1 &
top=$!
kp_poll 120 kp_count_ge 1 tables || tap_diag "top printed no interval in 120 s"
"$WL" -6 -d 600 10 >"$tmp/wl6.out" &
wl=$!
kp_poll 120 grep -q 'workload_client_loop\|client_request' "$tmp/top.txt" ||
	tap_diag "top showed no stack of the workload in 120 s"
kill -TERM "$wl"
wait "$wl" 2>/dev/null
kp_reader_stop "$top" tables
port6=$(awk '{print $2}' "$tmp/wl6.out")
tap_check "table shows the IPv6 endpoint as [::1]:port" grep -q "\[::1\]:$port6 *client" "$tmp/top.txt"
tap_check "table header has the percentile columns" grep -q 'P50 *P95 *P99 *MAX' "$tmp/top.txt"
tap_check "slow requests show the workload's stack inline" grep -q 'workload_client_loop\|client_request' "$tmp/top.txt"

# kprof stacks on an ID seen while the workload still runs (user frames
# are symbolized through the live process's mappings): it runs until
# killed, however slow the kernel makes top and stacks
"$WL" -d 600 5 >"$tmp/wl2.out" &
wl=$!
"$KPROF_BIN" top --json --top 1000 -i 1 -n 2 --threshold 0 >"$tmp/top2.json" 2>&1
id=$(python3 -I -S -c '
import json, sys
for line in open(sys.argv[1]):
    for r in json.loads(line)["tcp"]:
        if r["stack_id"] and r["role"] == "client":
            print(r["stack_id"]); sys.exit(0)
' "$tmp/top2.json")
"$KPROF_BIN" stacks "$id" >"$tmp/stack.txt" 2>&1
tap_result $? "stacks $id exits 0"
kill "$wl"
wait "$wl" 2>/dev/null
sed 's/^/#   /' "$tmp/stack.txt" | head -n 40
tap_check "user frames name the workload's function" grep -q 'workload_client_loop' "$tmp/stack.txt"
tap_check "kernel frames are symbol+offset strings" grep -qE 'tcp_(recvmsg|cleanup_rbuf)[a-z_]*\+0x' "$tmp/stack.txt"

kp_unload
tap_finish
