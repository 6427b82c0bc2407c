#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kprof's command line on the host: usage errors, a missing module, and
# top/stacks against a fake /dev/kprof (tests/fakedev.so, LD_PRELOADed).
#
#   tests/cli.sh KPROF_BINARY FAKEDEV_SO
#
# Prints TAP; exits non-zero if a test failed.
set -u

KPROF=$(realpath "${1:?usage: cli.sh KPROF FAKEDEV_SO}")
FAKE=$(realpath "${2:?usage: cli.sh KPROF FAKEDEV_SO}")
for f in "$KPROF" "$FAKE"; do
	[ -r "$f" ] || { echo "Bail out! $f missing (make -C userspace check builds it)"; exit 1; }
done
command -v python3 >/dev/null || { echo "Bail out! python3 missing"; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
OUT=$TMP/out ERR=$TMP/err LOG=$TMP/log

n=0 failed=0
ok()
{
	n=$((n + 1))
	echo "ok $n - $1"
}
not_ok()
{
	n=$((n + 1))
	failed=$((failed + 1))
	echo "not ok $n - $1"
	for f in "$OUT" "$ERR"; do
		[ -s "$f" ] && head -n 15 "$f" | sed "s|^|#   $(basename "$f"): |"
	done
}
result()
{
	if [ "$1" -eq 0 ]; then ok "$2"; else not_ok "$2"; fi
}

# expect STATUS STDERR_REGEX DESCRIPTION -- COMMAND...: the exit status, and
# stderr: one line matching the regex (empty regex: no stderr at all).
expect()
{
	local want=$1 pat=$2 desc=$3 got
	shift 4
	"$@" >"$OUT" 2>"$ERR"
	got=$?
	if [ "$got" -eq "$want" ] && [ "$(wc -l <"$ERR")" -le 1 ] &&
	   { { [ -z "$pat" ] && [ ! -s "$ERR" ]; } ||
	     { [ -n "$pat" ] && grep -qE -- "$pat" "$ERR"; }; }; then
		ok "$desc"
	else
		echo "#   exit $got (want $want)"
		not_ok "$desc"
	fi
}

# The kprof binary with no module: the device does not exist.
nomod()
{
	KPROF_DEVICE=$TMP/no-such-device "$KPROF" "$@"
}

# The kprof binary with the fake device; log in $LOG.
fake()
{
	env KPROF_DEVICE=/fake/kprof KPROF_FAKE_LOG="$LOG" LD_PRELOAD="$FAKE" \
		"$KPROF" "$@"
}

usage_error()
{
	local pat=$1
	shift
	expect 2 "^kprof: $pat" "usage error: kprof $*" -- nomod "$@"
}

# --- usage errors: exit 2, one line on stderr ---------------------------------

usage_error "top: -i '0': out of range" top -i 0
usage_error "top: -i '0.001': out of range" top -i 0.001
usage_error "top: -i '3601': out of range" top -i 3601
usage_error "top: -i 'abc'" top -i abc
usage_error "top: -i '1e3'" top -i 1e3
usage_error "top: -i '-1'" top -i -1
usage_error "top: -i '1s'" top -i 1s
usage_error "top: option '-i' needs a value" top -i
usage_error "top: -n '0'" top -n 0
usage_error "top: -n '-3'" top -n -3
usage_error "top: -n '1.5'" top -n 1.5
usage_error "top: -p '0'" top -p 0
usage_error "top: -p 'abc'" top -p abc
usage_error "top: -p 2147483647: no such process" top -p 2147483647
usage_error "top: --rport '0'" top --rport 0
usage_error "top: --rport '65536'" top --rport 65536
usage_error "top: --rport '80,,443'" top --rport 80,,443
usage_error "top: --rport .*too many ports" top --rport 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17
usage_error "top: --rport '17'.*too many" top --rport 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16 --rport 17
usage_error "top: --lport 'abc'" top --lport abc
usage_error "top: --role 'both'" top --role both
usage_error "top: --threshold '1x'" top --threshold 1x
usage_error "top: --threshold '101s': above 100s" top --threshold 101s
usage_error "top: --threshold '1.5ns'" top --threshold 1.5ns
usage_error "top: unknown option '--bogus'" top --bogus
usage_error "top: unknown option '-x'" top -x
usage_error "top: unexpected argument 'extra'" top extra
usage_error "stacks: missing stack ID" stacks
usage_error "stacks: missing stack ID" stacks --json
usage_error "stacks: bad stack ID '0'" stacks 0
usage_error "stacks: bad stack ID 'abc'" stacks abc
usage_error "stacks: bad stack ID '4294967296'" stacks 4294967296
usage_error "stacks: bad stack ID '1x'" stacks 1x
usage_error "stacks: bad stack ID 'x'" stacks 1 x
usage_error "stacks: unknown option '-1'" stacks -1
usage_error "stacks: unknown option '--bogus'" stacks --bogus 1

# --- no module: exit 1 ------------------------------------------------------------

expect 1 'kprofmod is not loaded.*modprobe kprofmod' "top without module: exit 1" \
	-- nomod top
expect 1 'kprofmod is not loaded' "top with every option valid, without module: exit 1" \
	-- nomod top -i 0.01 -n 1 --rport 80,443 --lport 8080 --role client -4 -6 \
	--threshold 500us -p $$ -C --no-color --json
expect 1 'kprofmod is not loaded' "top -i 3600 --threshold 100s --role server: valid" \
	-- nomod top -i 3600 --threshold 100s --role server --interval=0.5 --count=3
expect 1 'kprofmod is not loaded' "stacks without module: exit 1" -- nomod stacks 1 2

# --- help -------------------------------------------------------------------------------

expect 0 '' "kprof --help" -- "$KPROF" --help
result "$(grep -qE '^  top +TCP request latency' "$OUT" &&
	  grep -qE '^  stacks +print the kernel and user frames' "$OUT"; echo $?)" \
	"kprof --help lists top and stacks"
expect 0 '' "kprof top --help" -- "$KPROF" top --help
result "$(grep -q '^usage: kprof top \[-i SECONDS\]' "$OUT" &&
	  grep -q -- '--threshold DURATION' "$OUT"; echo $?)" "top --help shows the options"
expect 0 '' "kprof stacks --help" -- "$KPROF" stacks --help
result "$(grep -q '^usage: kprof stacks \[--json\] ID\.\.\.' "$OUT"; echo $?)" \
	"stacks --help shows the usage"
expect 0 '' "kprof help top" -- "$KPROF" help top

# --- info against the fake device ------------------------------------------------

expect 0 '' "info on an API 1.1 module" -- fake info
result "$(grep -qx 'kprofmod 0.0.0-fake' "$OUT" && grep -qE '^  api:       1\.[0-9]+ \(kprof speaks 1\.[0-9]+\)$' "$OUT" &&
	  grep -qx '  features:  tcp-latency user-stacks ksyms' "$OUT" &&
	  grep -qx '  attach:    tcp_sendmsg tcp_cleanup_rbuf tcp_v4_destroy_sock' "$OUT" &&
	  grep -qx '  running:   none' "$OUT" &&
	  grep -qx '  capacity:  1024 TCP rows, 1024 stacks, 4096 requests in flight' "$OUT" &&
	  grep -qx '  mapping:   64 KiB' "$OUT"; echo $?)" \
	"info: features, attach points, running, capacities"
expect 0 '' "info on an API 1.0 module" -- \
	env KPROF_FAKE_OLD=1 KPROF_DEVICE=/fake/kprof LD_PRELOAD="$FAKE" "$KPROF" info
result "$(grep -qx '  features:  none' "$OUT" && ! grep -q 'attach:' "$OUT"; echo $?)" \
	"info: an API 1.0 module has no attach points to show"

# --- top against the fake device --------------------------------------------------

rm -f "$LOG"
expect 0 '' "top -n 2 -i 0.05 (table): exit 0, nothing on stderr" -- fake top -n 2 -i 0.05
result "$( [ "$(grep -c '^[0-9:]*  interval [0-9.]*ms  requests 116  abandoned 2  drops 3 (inflight 0, rows 3, stacks 0, export 0)$' "$OUT")" -eq 2 ]; echo $?)" \
	"table: one header line per interval"
result "$(grep -qE '^STACK +ENDPOINT +ROLE +COUNT +TOTAL +AVG +P50 +P95 +P99 +MAX$' "$OUT"; echo $?)" \
	"table: column headings"
result "$(grep -m1 -A1 '^STACK' "$OUT" | tail -n 1 | grep -qE '^ +7 +\[2001:db8::1\]:8080 +server +10 +435ms +43.5ms '; echo $?)" \
	"table: sorted by total latency, IPv6 endpoint, human units"
result "$(grep -qE '^ +- +10\.0\.4\.12:443 +client +100 +150ms' "$OUT" &&
	  grep -qE '^ +12 +\[::ffff:127\.0\.0\.1\]:80 +client +5 +14\.0us' "$OUT" &&
	  grep -qE '^ +99 +192\.168\.1\.1:5432 +client +1 +5ns' "$OUT"; echo $?)" \
	"table: IPv4, v4-mapped, stack - for ID 0"
result "$(grep -qE '^ +fake-client\[[0-9]+\]: (__)?getpid\+0x0 \(libc\.so\.6\) <- (__)?nanosleep\+0x1 \(libc\.so\.6\) <- \[unknown\]$' "$OUT"; echo $?)" \
	"table: top 3 user frames symbolized, [unknown] for an unmapped one"
result "$(grep -qE '^ +kworker/0:1: tcp_recvmsg\+0x0/0x1e0 <- inet_recvmsg\+0x5a/0x120$' "$OUT" &&
	  grep -qE '^ +stack 99: no longer known' "$OUT"; echo $?)" \
	"table: kernel-only stack from GET_STACK, unknown ID noted"
result "$(! grep -q $'\033' "$OUT"; echo $?)" "table: no escape codes when not a tty"
result "$(grep -qx 'SET_CONFIG tgid=0 roles=0 families=0 threshold_ns=1000000 rports= lports=' "$LOG" &&
	  [ "$(grep -E '^(START|STOP|SNAPSHOT)' "$LOG" | head -n 2 | tr '\n' ' ')" = "START what=1 SNAPSHOT 1 gen=2 " ] &&
	  [ "$(tail -n 1 "$LOG")" = "STOP what=1" ] && grep -q '^mmap len=65536 prot=1$' "$LOG"; echo $?)" \
	"top: default config (threshold 1ms), START, a first snapshot, STOP at the end, read-only mapping"

rm -f "$LOG"
expect 0 '' "top --json -n 3 -i 0.02" -- fake top --json -n 3 -i 0.02
result "$(python3 - "$OUT" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 3, len(lines)
gens = []
for line in lines:
    o = json.loads(line)
    iv = o["interval"]
    assert iv["end_ns"] > iv["start_ns"] > 0
    assert o["requests"] == 116 and o["abandoned"] == 2
    assert o["drops"] == {"inflight": 0, "rows": 3, "stacks": 0, "export": 0}
    gens.append(o["generation"])
    tcp = o["tcp"]
    assert [r["stack_id"] for r in tcp] == [7, 0, 12, 99], tcp
    sums = [r["sum_ns"] for r in tcp]
    assert sums == sorted(sums, reverse=True)
    want = {7: ("ipv6", "2001:db8::1", 8080, "server"),
            0: ("ipv4", "10.0.4.12", 443, "client"),
            12: ("ipv6", "::ffff:127.0.0.1", 80, "client"),
            99: ("ipv4", "192.168.1.1", 5432, "client")}
    for r in tcp:
        for k in ("stack_id", "family", "raddr", "rport", "role", "count",
                  "sum_ns", "min_ns", "max_ns", "p50_ns", "p95_ns",
                  "p99_ns", "p999_ns"):
            assert k in r, k
        assert (r["family"], r["raddr"], r["rport"], r["role"]) == want[r["stack_id"]]
        assert r["min_ns"] <= r["p50_ns"] <= r["p95_ns"] <= r["p99_ns"] <= r["p999_ns"] <= r["max_ns"]
    r7 = tcp[0]
    assert r7["count"] == 10 and r7["sum_ns"] == 435000000
    assert r7["min_ns"] == 30000000 and r7["max_ns"] == 57000000
    assert abs(r7["p50_ns"] - 42000000) / 42000000 < 0.07, r7["p50_ns"]
    assert r7["frames"][2] == "[unknown]" and "getpid+0x0 (libc.so.6)" in r7["frames"][0]
    assert "frames" not in tcp[1]
    assert tcp[2]["frames"] == ["tcp_recvmsg+0x0/0x1e0", "inet_recvmsg+0x5a/0x120"]
    assert "frames" not in tcp[3]
assert gens == [4, 6, 8], gens
PY
echo $?)" "top --json: one valid object per interval with the documented fields"
result "$( [ "$(grep -c '^GET_STACK id=12$' "$LOG")" -eq 1 ] &&
	   [ "$(grep -c '^GET_STACK id=99$' "$LOG")" -eq 1 ] &&
	   ! grep -q '^GET_STACK id=7$' "$LOG"; echo $?)" \
	"top: each stack ID not in the mapping queried once over 3 intervals"

rm -f "$LOG"
expect 0 '' "top with every filter option" -- \
	fake top -n 1 -i 0.01 --json -p $$ --rport 80,443 --rport 443,8443 \
	--lport 8080 --role server -6 --threshold 2.5ms
result "$(grep -qx "SET_CONFIG tgid=$$ roles=4 families=2 threshold_ns=2500000 rports=80,443,8443 lports=8080" "$LOG"; echo $?)" \
	"top: flags fill struct kprof_config"
rm -f "$LOG"
expect 0 '' "top --role client -4 -6 --threshold 500 (ms)" -- \
	fake top -n 1 -i 0.01 --json --role client -4 -6 --threshold 500
result "$(grep -qx "SET_CONFIG tgid=0 roles=2 families=3 threshold_ns=500000000 rports= lports=" "$LOG"; echo $?)" \
	"top: role client, both families, plain threshold in ms"
rm -f "$LOG"
expect 0 '' "top --threshold 0" -- fake top -n 1 -i 0.01 --json --threshold 0
result "$(grep -q "^SET_CONFIG .* threshold_ns=0 " "$LOG"; echo $?)" \
	"top: --threshold 0 walks every stack"

# -p with a thread ID: the module filters by process.
python3 -c '
import os, threading, time
ev = threading.Event()
def run():
    print(threading.get_native_id(), os.getpid(), flush=True)
    ev.wait(30)
threading.Thread(target=run).start()
time.sleep(30)
' >"$TMP/ids" &
pypid=$!
for _ in $(seq 50); do [ -s "$TMP/ids" ] && break; sleep 0.1; done
read -r tid tgid <"$TMP/ids"
rm -f "$LOG"
expect 0 '' "top -p THREAD_ID" -- fake top -n 1 -i 0.01 --json -p "$tid"
result "$( [ "$tid" != "$tgid" ] && grep -q "^SET_CONFIG tgid=$tgid " "$LOG"; echo $?)" \
	"top -p: a thread ID becomes its process ID ($tid -> $tgid)"
kill "$pypid" 2>/dev/null
wait "$pypid" 2>/dev/null

rm -f "$LOG"
expect 0 '' "top with tracing already running" -- \
	env KPROF_FAKE_RUNNING=1 KPROF_DEVICE=/fake/kprof KPROF_FAKE_LOG="$LOG" \
	LD_PRELOAD="$FAKE" "$KPROF" top -n 1 -i 0.01 --json --rport 80
result "$(! grep -qE '^(START|STOP)' "$LOG" && grep -q '^GET_CONFIG$' "$LOG" &&
	  [ "$(grep '^SET_CONFIG' "$LOG" | cut -d' ' -f2 | tr '\n' ' ')" = "tgid=0 tgid=4242 " ]; echo $?)" \
	"top: leaves someone else's tracing running, restores their config"

rm -f "$LOG"
expect 1 "the module's snapshot mapping is corrupt: strings_len 1025 exceeds strings_cap 1024" \
	"top: corrupt mapping rejected, exit 1" -- \
	env KPROF_FAKE_CORRUPT=3 KPROF_DEVICE=/fake/kprof KPROF_FAKE_LOG="$LOG" \
	LD_PRELOAD="$FAKE" "$KPROF" top -n 5 -i 0.01 --json
result "$( [ "$(wc -l <"$OUT")" -eq 1 ] && [ "$(tail -n 1 "$LOG")" = "STOP what=1" ]; echo $?)" \
	"top: intervals before the corrupt one printed, tracing stopped"

rm -f "$LOG"
env KPROF_FAKE_STEAL=2 KPROF_DEVICE=/fake/kprof KPROF_FAKE_LOG="$LOG" \
	LD_PRELOAD="$FAKE" "$KPROF" top -n 2 -i 0.01 --json >"$OUT" 2>"$ERR"
rc=$?
result "$( [ $rc -eq 0 ] && [ "$(wc -l <"$OUT")" -eq 2 ] &&
	   grep -q '^kprof: interval skipped: the mapping holds generation 6, not 4 (another reader took a snapshot)$' "$ERR"; echo $?)" \
	"top: an interval overwritten by another reader is skipped, not miscounted"

expect 1 '\(API 1\.0\) publishes no data mapping: TCP latency needs API 1\.1' "top on an API 1.0 module: exit 1" -- \
	env KPROF_FAKE_OLD=1 KPROF_DEVICE=/fake/kprof LD_PRELOAD="$FAKE" "$KPROF" top
expect 1 'does not trace TCP latency' "top on a module without TCP latency: exit 1" -- \
	env KPROF_FAKE_FEATURES=0 KPROF_DEVICE=/fake/kprof LD_PRELOAD="$FAKE" "$KPROF" top
rm -f "$LOG"
expect 1 'permission denied on /fake/kprof \(KPROF_IOC_START\)' "top: START refused: exit 1" -- \
	env KPROF_FAKE_START_ERRNO=1 KPROF_DEVICE=/fake/kprof KPROF_FAKE_LOG="$LOG" \
	LD_PRELOAD="$FAKE" "$KPROF" top

for sig in INT TERM; do
	rm -f "$LOG"
	KPROF_DEVICE=/fake/kprof KPROF_FAKE_LOG="$LOG" LD_PRELOAD="$FAKE" \
		"$KPROF" top -i 0.05 --json >"$OUT" 2>"$ERR" &
	pid=$!
	sleep 0.4
	kill -"$sig" "$pid"
	wait "$pid"
	rc=$?
	result "$( [ $rc -eq 0 ] && [ ! -s "$ERR" ] && [ -s "$OUT" ] &&
		   [ "$(tail -n 1 "$LOG")" = "STOP what=1" ]; echo $?)" \
		"top: SIG$sig stops tracing, exit 0"
done

rm -f "$LOG"
set -o pipefail
fake top -i 0.01 --json 2>"$ERR" | head -n 1 >"$OUT"
rc=$?
set +o pipefail
result "$( [ $rc -eq 0 ] && [ ! -s "$ERR" ] && [ "$(tail -n 1 "$LOG")" = "STOP what=1" ]; echo $?)" \
	"top: reader of the pipe gone: stops tracing, exit 0"

start=$(date +%s%N)
expect 0 '' "top -i 0.2 -n 3" -- fake top -i 0.2 -n 3 --json
ms=$(( ($(date +%s%N) - start) / 1000000 ))
result "$( [ $ms -ge 550 ] && [ $ms -le 2000 ]; echo $?)" "top: 3 intervals of 0.2 s take ${ms} ms"

# --- stacks against the fake device -----------------------------------------------

rm -f "$LOG"
expect 1 '^kprof: no stack ID 99$' "stacks 7 99 12: unknown ID reported, exit 1" -- \
	fake stacks 7 99 12
result "$(grep -qE '^stack 7: fake-client\[[0-9]+\], 3 kernel and 3 user frames$' "$OUT" &&
	  grep -qE '^  \[kernel\] +tcp_sendmsg\+0x0/0x50$' "$OUT" &&
	  grep -qE '^  \[kernel\] +__sys_sendto\+0x11c/0x190$' "$OUT" &&
	  grep -qE '^  0x[0-9a-f]{16} (__)?getpid\+0x0 \(libc\.so\.6\)$' "$OUT" &&
	  grep -qE '^  0x[0-9a-f]{16} (__)?nanosleep\+0x1 \(libc\.so\.6\)$' "$OUT" &&
	  grep -qE '^  0x0000000000001000 \[unknown\]$' "$OUT" &&
	  grep -qE '^stack 12: kworker/0:1, 2 kernel frames$' "$OUT"; echo $?)" \
	"stacks: kernel frames, symbolized user frames leaf first, the others printed"
expect 0 '' "stacks --json 7 12" -- fake stacks --json 7 12
result "$(python3 - "$OUT" <<'PY'
import json, sys
a, b = [json.loads(l) for l in open(sys.argv[1]).read().splitlines()]
assert a["id"] == 7 and a["comm"] == "fake-client" and a["tgid"] > 0
assert a["kernel"] == ["tcp_sendmsg+0x0/0x50", "inet_sendmsg+0x3c/0x70", "__sys_sendto+0x11c/0x190"]
assert len(a["user"]) == 3 and "getpid+0x0 (libc.so.6)" in a["user"][0]["symbol"]
assert a["user"][2] == {"ip": "0x1000", "symbol": "[unknown]"}
assert b["id"] == 12 and b["tgid"] == 0 and b["user"] == [] and len(b["kernel"]) == 2
PY
echo $?)" "stacks --json: one valid object per stack"

echo "1..$n"
[ "$failed" -eq 0 ] || echo "# $failed of $n tests failed"
[ "$failed" -eq 0 ]
