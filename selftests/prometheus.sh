#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `kprof top --prometheus` against real traffic: the file a textfile
# collector would read counts the workload's requests exactly, in a
# histogram whose +Inf bucket equals its count, and passes the strict
# format check (prom-check.py, copied from the reader's tests at build
# time) and promtool where it is found.
. "$(dirname "$0")/lib.sh"

WL=$KP_DIR/tcp_workload
CHECK=$KP_DIR/prom-check.py
# promtool: $KPROF_PROMTOOL, from $PATH, or where selftests/vm/setup-host.sh
# extracts it on the host.  The test VMs have a tmpfs on /var/cache, so
# there it is skipped unless KPROF_PROMTOOL names a copy the guest sees;
# the reader's host tests run promtool on top --prometheus either way.
PROMTOOL=${KPROF_PROMTOOL:-$(command -v promtool ||
	echo "${KPROF_CACHE:-/var/cache/kprofmod}/promtool/promtool")}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
F=$tmp/kprof.prom

tap_plan 7
kp_unload
kp_load || { tap_diag "cannot load kprofmod"; exit "$KSFT_FAIL"; }

# A fixed number of requests while top writes the file every 0.5 s: top
# runs from its first file (written before any interval, its own sign
# that it measures) until two more intervals closed after the workload's
# last request, however slow the kernel is, and stops on SIGTERM.
"$KPROF_BIN" top -q -i 0.5 --threshold 0 --prometheus "$F" \
	>"$tmp/top.out" 2>"$tmp/top.err" &
top=$!
intervals()
{
	awk '$1 == "kprof_intervals_total" { n = $2 } END { print n + 0 }' "$F" 2>/dev/null
}
kp_poll 120 test -s "$F" || tap_diag "no file from top in 120 s"
cp "$F" "$tmp/early.prom" 2>/dev/null
"$WL" -n 250 2 >"$tmp/wl.out"
last=$(($(intervals) + 2))
kp_reader_stop "$top" intervals
tap_result $? "top -q --prometheus runs and exits 0 on SIGTERM"
tap_check "nothing on stdout or stderr" test ! -s "$tmp/top.out" -a ! -s "$tmp/top.err"
tap_check "only the file is left, no FILE.tmp" test -s "$F" -a ! -e "$F.tmp"
sed 's/^/#   /' "$F" | grep -v '^#   #' | head -n 40

port=$(awk '{print $2}' "$tmp/wl.out")
tap_check "prom-check: the file is well-formed" python3 -I -S "$CHECK" --prefix kprof_ "$F"
tap_check "prom-check: nothing went down since an earlier version of the file" \
	python3 -I -S "$CHECK" --previous "$tmp/early.prom" "$F"

# The workload's endpoint, as a client: exactly its requests, in every
# view of the histogram.
endpoint_check()
{
	python3 -I -S - "$F" "$1" "$2" "$3" <<'PY'
import sys
path, port, want, intervals = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
v = {}
for line in open(path):
    if not line.startswith("#"):
        k, val = line.rstrip("\n").rsplit(" ", 1)
        v[k] = float(val)
H = "kprof_tcp_request_duration_seconds"
ep = 'raddr="127.0.0.1",rport="%s",role="client"' % port
count = v.get(H + "_count{" + ep + "}")
inf = v.get(H + "_bucket{" + ep + ',le="+Inf"}')
s = v.get(H + "_sum{" + ep + "}")
le = v.get(H + "_bucket{" + ep + ',le="0.001"}')
print("# %s: count %s, +Inf %s, sum %s s, le 1ms %s (want %d)" % (ep, count, inf, s, le, want))
ok = count == want and inf == count and s and s > 0
# 2 ms of server delay each: none can be under 1 ms
ok = ok and le == 0
ok = ok and v["kprof_intervals_total"] >= intervals and v["kprof_tcp_requests_total"] >= want
sys.exit(0 if ok else 1)
PY
}
tap_check "the workload's endpoint: _count = +Inf bucket = 250 requests, none under 1ms" \
	endpoint_check "$port" 250 "$last"

if [ -x "$PROMTOOL" ]; then
	"$PROMTOOL" check metrics <"$F" >"$tmp/promtool.out" 2>&1
	rc=$?
	sed 's/^/#   /' "$tmp/promtool.out"
	tap_result "$( [ $rc -eq 0 ] && [ ! -s "$tmp/promtool.out" ]; echo $?)" \
		"promtool check metrics: no error, no lint"
else
	tap_skip "promtool check metrics" "no promtool here (KPROF_PROMTOOL=PATH; the host tests run it)"
fi

kp_unload
tap_finish
