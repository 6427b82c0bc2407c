#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `kprof report` names the endpoint whose latency and errors move
# together, and no other: two loopback servers, and netem dropping
# 40% of the packets sent to one of them (a prio qdisc on lo, a u32
# filter on its port into a netem band), two seconds on, two off, while
# the report measures.  Lost requests wait for the client's retransmission
# timeout, so that endpoint's p99 rises in the seconds its retransmits do.
. "$(dirname "$0")/lib.sh"

WL=$KP_DIR/tcp_workload
# the two servers' ports, PORT and PORT + 1
PORT=$(kp_free_ports)
PORT=${PORT%% *}
tmp=$(mktemp -d)
toggle=''
cleanup()
{
	[ -z "$toggle" ] || kill "$toggle" 2>/dev/null
	tc qdisc del dev lo root 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

tap_plan 5
kp_unload
kp_load || { tap_diag "cannot load kprofmod"; exit "$KSFT_FAIL"; }
mark=$(kp_dmesg_mark)

# band 1:4 is netem's; everything goes to 1:1 but what the filter sends
if ! { tc qdisc add dev lo root handle 1: prio bands 4 \
		priomap 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 &&
       tc qdisc add dev lo parent 1:4 handle 40: netem loss 0% &&
       tc filter add dev lo parent 1: protocol ip prio 1 u32 \
		match ip dport $PORT 0xffff flowid 1:4; } >"$tmp/tc" 2>&1; then
	tap_diag "$(cat "$tmp/tc")"
	for t in "report exits 0" "lossy endpoint retransmitted" \
		 "lossy endpoint named" "clean endpoint not named"; do
		tap_skip "$t" "no prio, netem or u32 on lo (tc, sch_prio, sch_netem, cls_u32)"
	done
else
	(
		while :; do
			tc qdisc change dev lo parent 1:4 handle 40: netem loss 40%
			sleep 2
			tc qdisc change dev lo parent 1:4 handle 40: netem loss 0%
			sleep 2
		done
	) &
	toggle=$!
	"$WL" -d 600 -P $PORT 0 0 >"$tmp/wl.out" &
	wl=$!
	# no stacks (threshold 100 s): the intervals stay a second apart
	"$KPROF_BIN" report -d 20 --no-cpu --threshold 100s --json \
		--rport $PORT,$((PORT + 1)) >"$tmp/r.json" 2>"$tmp/err"
	tap_result $? "report -d 20 --json exits 0"
	kill "$toggle"
	wait "$toggle" 2>/dev/null
	toggle=''
	kill -TERM "$wl"
	wait "$wl"
	tc qdisc del dev lo root
	tap_diag "workload: $(tr '\n' ' ' <"$tmp/wl.out")"
	[ ! -s "$tmp/err" ] || tap_diag "stderr: $(cat "$tmp/err")"

	# check WHAT: one python check of the report
	check()
	{
		python3 -I -S - "$1" "$tmp/r.json" "$PORT" <<'PY'
import json, sys
what, path, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
o = json.load(open(path))
eps = {e["rport"]: e for e in o["endpoints"] if e["role"] == "client"}
assert port in eps and port + 1 in eps, [e["endpoint"] for e in o["endpoints"]]
lossy, clean = eps[port], eps[port + 1]
for e in (lossy, clean):
    print("# %s: %d requests, p99 %d ns, %d retransmits, latency_errors %s" %
          (e["endpoint"], e["count"], e["p99_ns"], e["retransmits"],
           e["latency_errors"]))
t = lossy["latency_errors"]
# The clean connection may retransmit too: under emulation on a busy
# host it did so once, and three times, in a run of 20 s on 4.14 (beside
# 39 and 34 on the lossy one) and once on Debian's 6.1 (beside 39): the
# kernel's own retransmissions, a probe or timer that fired while a vCPU
# stalled (tcp_health_test holds kprofmod's counts to the kernel's).
# What the report must do is not name it.
if what == "retx":
    assert lossy["retransmits"] > 0, lossy["retransmits"]
    assert clean["retransmits"] * 10 <= lossy["retransmits"], clean["retransmits"]
    assert t["points_with_errors"] >= 2 and t["points"] >= 15, t
elif what == "lossy":
    assert t["together"] and t["rho"] > 0 and t["p_value"] < 0.01, t
elif what == "clean":
    c = clean["latency_errors"]
    assert not c["together"] and c["points_with_errors"] <= 2, c
PY
	}
	tap_check "the lossy endpoint's retransmits counted, the clean one's a tenth or less" check retx
	tap_check "the lossy endpoint: latency and errors move together" check lossy
	tap_check "the clean endpoint is not named" check clean
fi

kp_unload
tap_check "no kernel warnings" kp_dmesg_clean "$mark"
tap_finish
