#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Privacy: a card-number-like payload sent through traced sockets (IPv4
# and IPv6, client and server, every request's stacks walked, one client
# entering recvfrom() with its frame pointer on received data) never shows
# in the mapped region, in any reader output or in dmesg; no kernel
# address is exported; endpoints=prefix and endpoints=hash store only a
# network or a per-load keyed hash of the remote address, and a bad value
# fails the load.
. "$(dirname "$0")/lib.sh"

PW=$KP_DIR/payload_workload
SCAN="python3 -I -S $KP_DIR/privacy_scan.py"
tmp=$(mktemp -d)
pw=
trap '[ -n "$pw" ] && kill "$pw" 2>/dev/null; rm -rf "$tmp"' EXIT

tap_plan 24

mkdir "$tmp/planted"
tap_check "the scan finds the marker in every form when it is planted" \
	$SCAN selfcheck "$tmp/planted"

# --- endpoints=full: the payload test ---
kp_unload
mark=$(kp_dmesg_mark)
kp_load endpoints=full || { tap_diag "cannot load kprofmod"; exit "$KSFT_FAIL"; }

"$PW" -d 3 -o "$tmp/full.bin" >"$tmp/pw.out"
tap_result $? "workload with the marker runs, region dumped every interval"
sed 's/^/# /' "$tmp/pw.out"
tap_check "the client with its frame pointer on its last response made requests" \
	test "$(awk '$1 == "trap" {print $3}' "$tmp/pw.out")" -gt 0
p4=$(awk '$1 == "ipv4" {print $2}' "$tmp/pw.out")
p6=$(awk '$1 == "ipv6" {print $2}' "$tmp/pw.out")
tap_check "full: rows hold 127.0.0.1 and ::1, with walked stacks" \
	$SCAN endpoints "$tmp/full.bin" full "$p4" "$p6"
tap_check "no marker in the mapped region of any interval" \
	$SCAN scan "$tmp/full.bin"
tap_check "no kernel address in the region" $SCAN kaddr "$tmp/full.bin"

# Every reader output, each taken while the marker flows (until killed
# below: the readers take minutes on a slow emulated CPU).
"$PW" -d 600 >/dev/null &
pw=$!
R=$tmp/r
mkdir "$R"
K=$KPROF_BIN
T="--threshold 0"
# every row of top, not only the largest ten: all of it is scanned
# rd OUT CMD...: run a reader command, output to OUT; say why it failed
rd()
{
	rd_out=$1
	shift
	"$@" >"$rd_out" 2>&1 && return 0
	tap_diag "failed ($?): $*"
	sed 's/^/#   /' "$rd_out" | head -n 5
	return 1
}
rdfail=0
rd "$R/top.txt" $K top -i 0.5 -n 2 $T --top 100000 --no-color || rdfail=1
rd "$R/top.json" $K top -i 0.5 -n 2 $T --top 100000 --json || rdfail=1
rd "$R/prom.out" $K top -q -i 0.5 -n 2 $T --prometheus "$R/top.prom" || rdfail=1
rd "$R/rec1.out" $K record -d 1 $T -o "$R/rec.folded" || rdfail=1
rd "$R/rec2.out" $K record -d 1 $T -o "$R/rec.pb.gz" --format pprof || rdfail=1
rd "$R/rec3.out" $K record -d 1 $T -o "$R/rec.json" --format json || rdfail=1
rd "$R/report.txt" $K report -d 1 $T --no-color || rdfail=1
rd "$R/report.json" $K report -d 1 $T --json || rdfail=1
tap_result $rdfail "top, top --json, --prometheus, record (3 formats), report (2) run"
kill "$pw"
wait "$pw" 2>/dev/null
pw=
ids=$(python3 -I -S -c 'import json, sys
o = json.load(open(sys.argv[1]))
print(" ".join(sorted({str(r["stack_id"]) for r in o["tcp"] if r["stack_id"]})))' \
	"$R/rec.json")
tap_diag "stacks of the requests: $ids"
tap_check "requests were recorded with their stacks" test -n "$ids"
rdfail=0
# shellcheck disable=SC2086
rd "$R/stacks.txt" $K stacks $ids || rdfail=1
# shellcheck disable=SC2086
rd "$R/stacks.json" $K stacks --json $ids || rdfail=1
rd "$R/status.json" $K status --json || rdfail=1
rd "$R/status.txt" $K status || rdfail=1
rd "$R/info.txt" $K info || rdfail=1
tap_result $rdfail "stacks (text, JSON), status (text, JSON), info run"
tap_check "record --format pprof wrote the latency profile too" \
	test -s "$R/rec.pb.gz.latency.pb.gz"
dmesg | tail -n +"$((mark + 1))" >"$R/dmesg.txt"
tap_diag "$(ls "$R" | wc -l) outputs: $(ls "$R" | tr '\n' ' ')"
# named one by one: a missing output fails the scan
tap_check "no marker in any reader output or in dmesg" $SCAN scan \
	"$R/top.txt" "$R/top.json" "$R/top.prom" "$R/rec.folded" \
	"$R/rec.pb.gz" "$R/rec.pb.gz.latency.pb.gz" "$R/rec.json" \
	"$R/report.txt" "$R/report.json" "$R/stacks.txt" "$R/stacks.json" \
	"$R/status.json" "$R/status.txt" "$R/info.txt" "$R/dmesg.txt"
tap_check "full: kprof info and status say endpoints full" \
	sh -c "grep -q '^  endpoints: full' '$R/info.txt' &&
	       grep -q '^  endpoints:  full' '$R/status.txt' &&
	       python3 -I -S -c 'import json,sys; assert json.load(open(sys.argv[1]))[\"endpoints\"] == \"full\"' '$R/status.json'"
tap_check "no splat" kp_dmesg_clean "$mark"

# --- endpoints=prefix and endpoints=hash ---
# reader_traces PID: TCP tracing runs (`kprof status`), or the reader
# PID is gone (nothing to wait for)
reader_traces()
{
	! kill -0 "$1" 2>/dev/null ||
		$K status 2>/dev/null | grep -Eq '^  running: .*tcp'
}

# mode_run MODE: load with MODE, dump a region, record JSON; $tmp/MODE.*
mode_run()
{
	kp_unload && kp_load endpoints="$1" || return 1
	"$PW" -d 2 -o "$tmp/$1.bin" >"$tmp/$1.pw" || return 1
	# traffic once the reader traces, however long its start takes:
	# starting TCP tracing registers the kprobes, and on the debug kernel
	# (kprobes not on ftrace) a reader started beside a 4 s workload
	# recorded no request at all in its 2 s, twice
	$K record -d 2 $T -o "$tmp/$1.json" --format json >/dev/null 2>&1 &
	rec=$!
	kp_poll 60 reader_traces "$rec"
	"$PW" -d 3 >/dev/null
	wait "$rec"
	ret=$?
	$K info >"$tmp/$1.info" 2>&1
	return $ret
}

# json_raddrs FILE: the endpoints the reader shows for IPv4 and IPv6
json_raddrs()
{
	python3 -I -S -c 'import json, sys
o = json.load(open(sys.argv[1]))
for fam in ("ipv4", "ipv6"):
    print(fam, " ".join(sorted({r["raddr"] for r in o["tcp"] if r["family"] == fam})))' "$1"
}

tap_check "prefix: loads, traffic recorded" mode_run prefix
tap_check "prefix: rows hold 127.0.0.0 and :: with the prefix flag" \
	$SCAN endpoints "$tmp/prefix.bin" prefix \
	"$(awk '$1 == "ipv4" {print $2}' "$tmp/prefix.pw")" \
	"$(awk '$1 == "ipv6" {print $2}' "$tmp/prefix.pw")"
json_raddrs "$tmp/prefix.json" >"$tmp/prefix.eps"
sed 's/^/# /' "$tmp/prefix.eps"
tap_check "prefix: the reader shows 127.0.0.0/24 and ::/64, kprof info prefix" \
	sh -c "grep -qx 'ipv4 127.0.0.0/24' '$tmp/prefix.eps' &&
	       grep -qx 'ipv6 ::/64' '$tmp/prefix.eps' &&
	       grep -q '^  endpoints: prefix' '$tmp/prefix.info'"

hash_check()
{
	$SCAN endpoints "$tmp/$1.bin" hash \
		"$(awk '$1 == "ipv4" {print $2}' "$tmp/$1.pw")" \
		"$(awk '$1 == "ipv6" {print $2}' "$tmp/$1.pw")" >"$tmp/$1.raw"
	ret=$?
	sed 's/^/# /' "$tmp/$1.raw"
	return $ret
}

tap_check "hash: loads, traffic recorded" mode_run hash
tap_check "hash: one 64-bit hash per endpoint, no address in the rows" \
	hash_check hash
json_raddrs "$tmp/hash.json" >"$tmp/hash.eps"
sed 's/^/# /' "$tmp/hash.eps"
# the reader shows h: and the hash stored, nothing else
want=$(awk '{printf "%s h:%s\n", $1, substr($2, 1, 16)}' "$tmp/hash.raw")
tap_check "hash: the reader shows h:HASH for each, kprof info hash" \
	sh -c "[ \"\$(cat '$tmp/hash.eps')\" = '$want' ] &&
	       grep -q '^  endpoints: hash' '$tmp/hash.info'"
tap_check "hash: no 127.0.0.1 or ::1 in what the reader wrote" \
	sh -c "! grep -Eq '127\.0\.0\.1|\"::1\"' '$tmp/hash.json'"
mode_run hash >/dev/null 2>&1 && cp "$tmp/hash.raw" "$tmp/hash1.raw" &&
	hash_check hash >/dev/null
tap_check "hash: reloaded, each endpoint hashes to something new" \
	sh -c "[ -s '$tmp/hash1.raw' ] && [ -s '$tmp/hash.raw' ] &&
	       ! grep -Fxf '$tmp/hash1.raw' '$tmp/hash.raw'"

# --- a bad value fails the load, with the reason ---
kp_unload
mark=$(kp_dmesg_mark)
if kp_load endpoints=bogus 2>/dev/null; then
	tap_result 1 "endpoints=bogus is refused"
else
	tap_result 0 "endpoints=bogus is refused"
fi
tap_check "and dmesg says why" \
	sh -c "dmesg | tail -n +$((mark + 1)) | grep -q 'endpoints=bogus: expected full, prefix or hash'"
tap_check "and the module is not loaded" sh -c "! test -d /sys/module/kprofmod"

kp_unload
tap_finish
