#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# --cgroup: only tasks in a cgroup v2 subtree are traced and sampled.
# A spinner and a request/response workload run inside the cgroup (the
# spinner in a child cgroup), the same pair outside; a recording with
# --cgroup sees exactly the inside pair, while a `kprof top` without a
# filter, which makes the module trace and sample everything, reads
# beside it and sees both (API 3.0: the recording's view).
. "$(dirname "$0")/lib.sh"

SPIN=$KP_DIR/cpu_spin
WL=$KP_DIR/tcp_workload
tmp=$(mktemp -d)
cgroot=/sys/fs/cgroup
cleanup()
{
	# an early exit: the readers, workloads and spinners go first
	jobs -p | xargs -r kill 2>/dev/null
	wait 2>/dev/null
	rmdir "$cgroot/kprof-in/child" "$cgroot/kprof-in" 2>/dev/null
	[ "$cgroot" = "$tmp/cg" ] && umount "$cgroot"
	rm -rf "$tmp"
}
trap cleanup EXIT

tap_plan 8
kp_unload
kp_load || { tap_diag "cannot load kprofmod"; exit "$KSFT_FAIL"; }
mark=$(kp_dmesg_mark)

root=$(kp_cgroup2 "$tmp/cg") ||
	{ tap_diag "cannot mount cgroup2"; exit "$KSFT_SKIP"; }
cgroot=$root
mkdir -p "$cgroot/kprof-in/child"

# everything runs for this one: the recording's filter is its own
"$KPROF_BIN" top --json -i 0.5 --freq 99 --threshold 0 --top 1000 \
	>"$tmp/all.json" 2>"$tmp/all.err" &
all=$!
sampling() { "$KPROF_BIN" status 2>/dev/null | grep -q 'running:.*cpu'; }
kp_poll 30 sampling || tap_diag "top did not start: $(cat "$tmp/all.err")"

# They outlast the recording by far, so a slow machine that starts the
# reader late still records them.
kp_run_in "$cgroot/kprof-in" "$WL" -d 10 2 >"$tmp/wl-in"
wl_in=$!
kp_run_in "$cgroot/kprof-in/child" "$SPIN" 10
spin_in=$!
"$WL" -d 10 3 >"$tmp/wl-out" &
"$SPIN" 10 &
spin_out=$!
sleep 0.5
"$KPROF_BIN" record -d 3 --freq 199 --threshold 0 \
	--cgroup "$cgroot/kprof-in" -o "$tmp/r.json" --format json 2>"$tmp/err"
tap_result $? "record --cgroup exits 0"
kill -INT "$all"
wait "$all"
wait
port_in=$(awk '{ print $2 }' "$tmp/wl-in")
port_out=$(awk '{ print $2 }' "$tmp/wl-out")
tap_diag "inside: spinner $spin_in, port $port_in; outside: spinner $spin_out, port $port_out"

check()
{
	python3 -I -S - "$tmp/r.json" "$@" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
what, a = sys.argv[2], int(sys.argv[3])
cpu = {}
for row in r["cpu"]:
    cpu[row["tgid"]] = cpu.get(row["tgid"], 0) + row["samples"]
rports = {row["rport"] for row in r["tcp"]}
print("# cpu tgids %s; tcp rports %s" % (sorted(cpu), sorted(rports)))
if what == "spin-in":
    ok = cpu.get(a, 0) > 0
elif what == "spin-out":
    ok = a not in cpu
elif what == "only-in":
    # every CPU sample belongs to a task of the cgroup: the spinner or
    # the workload (its threads share its tgid)
    ok = set(cpu) <= {a, int(sys.argv[4])}
elif what == "port-in":
    ok = any(row["rport"] == a and row["count"] > 0 for row in r["tcp"])
elif what == "port-out":
    ok = a not in rports
sys.exit(0 if ok else 1)
PY
}
tap_check "the spinner in a child cgroup is sampled" check spin-in "$spin_in"
tap_check "the spinner outside is not" check spin-out "$spin_out"
tap_check "no CPU sample of any other process" check only-in "$spin_in" "$wl_in"
# the unfiltered reader beside it saw the outside spinner
tap_check "top without a filter, beside it, sampled the outside spinner" \
	python3 -I -S -c 'import json, sys
sys.exit(0 if any(r["tgid"] == int(sys.argv[2]) and r["samples"] > 0
                  for l in open(sys.argv[1]) for r in json.loads(l)["cpu"])
         else 1)' "$tmp/all.json" "$spin_out"
tap_check "requests to the inside server are traced" check port-in "$port_in"
tap_check "requests to the outside server are not" check port-out "$port_out"
kp_unload
tap_check "no kernel warning, BUG or leak report in dmesg" kp_dmesg_clean "$mark"
tap_finish
