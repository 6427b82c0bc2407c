#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Nine readers at once, each with its own windows and filters: `kprof
# top --json` at 0.1 s, `top --json -i 1 --rport A`, a `kprof record`, a
# Prometheus `top -q` at 5 s, `top -i 0.01 --rport B`, `top -i 0.3 -4
# --threshold 0` sampling CPUs at 250 Hz, `top -i 2 -6`, `top -i 0.2
# --role client --rport A,B --threshold 5ms` and `top -i 0.5 --lport A`
# read side by side while a workload makes a known number of IPv4
# requests to ports A and B.  Each reader counts every one of them that
# its filter takes exactly once, whoever else snapshots (API 2.0:
# cumulative counts, windows and configurations per reader; API 3.0: a
# view for the local-port filter, which rows do not carry), and none
# says it skipped or lost anything.
. "$(dirname "$0")/lib.sh"

WL=$KP_DIR/tcp_workload
N=300		# requests per server
tmp=$(mktemp -d)
pids=''
trap 'kill -KILL $pids 2>/dev/null; rm -rf "$tmp"' EXIT

tap_plan 14
kp_unload
kp_load || { tap_diag "cannot load kprofmod"; exit "$KSFT_FAIL"; }

# two free ports in a row for the workload's servers
ports=$(kp_free_ports)
A=${ports%% *}
B=${ports#* }

# every request under stack ID 0 (one row per endpoint and role)
opts="--no-cpu --threshold 100s"
"$KPROF_BIN" top --json -i 0.1 --top 1000 $opts >"$tmp/t1.json" 2>"$tmp/t1.err" &
t1=$!
"$KPROF_BIN" top --json -i 1 --top 1000 --rport "$A" $opts \
	>"$tmp/t2.json" 2>"$tmp/t2.err" &
t2=$!
"$KPROF_BIN" record -d 3600 --format json -o "$tmp/rec.json" $opts \
	>"$tmp/rec.out" 2>&1 &
rec=$!
"$KPROF_BIN" top -q -i 5 --prometheus "$tmp/prom.txt" $opts \
	>"$tmp/prom.out" 2>&1 &
prom=$!
"$KPROF_BIN" top --json -i 0.01 --top 1000 --rport "$B" $opts \
	>"$tmp/t5.json" 2>"$tmp/t5.err" &
t5=$!
# CPU sampling too, at a rate of its own, and a stack for every request
"$KPROF_BIN" top --json -i 0.3 --top 1000 -4 --threshold 0 --freq 250 \
	>"$tmp/t6.json" 2>"$tmp/t6.err" &
t6=$!
"$KPROF_BIN" top --json -i 2 --top 1000 -6 $opts \
	>"$tmp/t7.json" 2>"$tmp/t7.err" &
t7=$!
"$KPROF_BIN" top --json -i 0.2 --top 1000 --no-cpu --role client \
	--rport "$A,$B" --threshold 5ms >"$tmp/t8.json" 2>"$tmp/t8.err" &
t8=$!
# local port A: the server side of A's connections, and no client's
"$KPROF_BIN" top --json -i 0.5 --top 1000 --lport "$A" $opts \
	>"$tmp/t9.json" 2>"$tmp/t9.err" &
t9=$!
pids="$t1 $t2 $rec $prom $t5 $t6 $t7 $t8 $t9"

# all nine hold their session (their first read is taken right after)
kp_poll 60 kp_count_ge 9 kp_running_sessions
tap_result $? "nine readers hold a session each"
# the last one's first read: a workload started now counts in full
sleep 1

"$WL" -n $N -P "$A" 1 2 >"$tmp/wl.out" || tap_diag "workload failed"
tap_diag "workload: $(tr '\n' ' ' <"$tmp/wl.out")"

# counted CHECKER FILE PORT...: the client requests to PORTs in FILE
counted()
{
	python3 -I -S - "$@" <<'PY'
import json, re, sys
kind, path, ports = sys.argv[1], sys.argv[2], {int(p) for p in sys.argv[3:]}
n = {p: 0 for p in ports}
if kind == "top":
    for line in open(path):
        for r in json.loads(line)["tcp"]:
            if r["role"] == "client" and r["rport"] in ports:
                n[r["rport"]] += r["count"]
elif kind == "server":	# every server-side request, whatever the port
    for line in open(path):
        for r in json.loads(line)["tcp"]:
            if r["role"] == "server":
                n[min(ports)] += r["count"]
elif kind == "rec":
    for r in json.load(open(path))["tcp"]:
        if r["role"] == "client" and r["rport"] in ports:
            n[r["rport"]] += r["count"]
else:
    for line in open(path):
        m = re.match(r'kprof_tcp_request_duration_seconds_count\{.*rport="(\d+)",role="client"\} (\d+)$', line)
        if m and int(m.group(1)) in ports:
            n[int(m.group(1))] += int(m.group(2))
print(" ".join(str(n[p]) for p in sorted(ports)))
PY
}

want="$N $N"
want_a="$N 0"	# --rport A: port B's rows are not its
want_b="0 $N"
want_0="0 0"	# -6: the workload's requests are all IPv4
# wait_count KIND FILE WANT: the reader has counted them all (or 60 s)
wait_count()
{
	end=$(($(date +%s) + 60))
	while [ "$(date +%s)" -lt $end ]; do
		[ "$(counted "$1" "$2" $ports 2>/dev/null)" = "$3" ] && return 0
		sleep 0.2
	done
	return 1
}
wait_count top "$tmp/t1.json" "$want"
wait_count top "$tmp/t2.json" "$want_a"
wait_count prom "$tmp/prom.txt" "$want"
wait_count top "$tmp/t5.json" "$want_b"
wait_count top "$tmp/t6.json" "$want"
wait_count top "$tmp/t8.json" "$want"
# -6 counts nothing: give it a window after all the others' last
sleep 3
kill -INT $pids
for p in $pids; do wait "$p"; done
pids=''

for r in "top -i 0.1:top:$tmp/t1.json:$want" \
	 "top -i 1 --rport A:top:$tmp/t2.json:$want_a" \
	 "record:rec:$tmp/rec.json:$want" \
	 "Prometheus top -i 5:prom:$tmp/prom.txt:$want" \
	 "top -i 0.01 --rport B:top:$tmp/t5.json:$want_b" \
	 "top -i 0.3 -4 --threshold 0 --freq 250:top:$tmp/t6.json:$want" \
	 "top -i 2 -6:top:$tmp/t7.json:$want_0" \
	 "top -i 0.2 --role client --rport A,B:top:$tmp/t8.json:$want" \
	 "top -i 0.5 --lport A:top:$tmp/t9.json:$want_0"; do
	name=${r%%:*} rest=${r#*:}
	kind=${rest%%:*} rest=${rest#*:}
	file=${rest%%:*} w=${rest#*:}
	got=$(counted "$kind" "$file" $ports)
	tap_diag "$name counted $got of $w (ports $ports)"
	[ "$got" = "$w" ]
	tap_result $? "$name: every request of the workload it takes counted exactly once"
done
# --lport A: the server side of port A alone, fewer than everyone's
s9=$(counted server "$tmp/t9.json" $ports)
s1=$(counted server "$tmp/t1.json" $ports)
tap_diag "server-side requests: --lport A ${s9%% *}, all ${s1%% *}"
# (A and B serve as many requests each, the same way)
[ "${s9%% *}" -gt 0 ] && [ $((${s9%% *} * 2)) = "${s1%% *}" ]
tap_result $? "top -i 0.5 --lport A: the server side of port A alone"
# the -6 reader's "0 0" is from windows it printed, over the workload
[ "$(wc -l <"$tmp/t7.json")" -ge 2 ]
tap_result $? "top -i 2 -6: printed its windows"
# the one reader that samples CPUs runs them at its rate
hz=$(tail -n 1 "$tmp/t6.json" |
     python3 -I -S -c 'import json, sys; print(json.load(sys.stdin)["sample_hz"])')
tap_diag "top --freq 250 saw sample_hz $hz"
[ "$hz" = 250 ]
tap_result $? "top --freq 250: CPUs sampled at its own rate"
! grep -q "no window this time" "$tmp"/*.err "$tmp/rec.out" "$tmp/prom.out"
tap_result $? "no reader missed a read"
cat "$tmp"/*.err "$tmp/rec.out" "$tmp/prom.out" | sed 's/^/# /'
tap_finish
