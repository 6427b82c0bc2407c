#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `kprof record` on a real CPU-bound program: folded stacks that a strict
# checker accepts, a pprof file that decodes with the same totals, JSON
# with both tables, and the hot functions where they belong.
. "$(dirname "$0")/lib.sh"

SPIN=$KP_DIR/cpu_spin
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

tap_plan 8
kp_unload
# Room for every stack of the three recordings: on the debug kernel
# nearly every sample is a stack of its own, and the default 4096
# entries filled (988 stack drops, the spinner's rows under stack 0).
kp_load stacks=65536 || { tap_diag "cannot load kprofmod"; exit "$KSFT_FAIL"; }

# The 75/25 spinner, recorded from outside.  It runs until killed: the
# reader names its frames after the recording, from the live process (on
# the debug kernel a 4-second spinner had exited by then, and every frame
# was [unknown]).
"$SPIN" 600 &
spin=$!
"$KPROF_BIN" record -d 3 --freq 499 -o "$tmp/p.folded" --format folded \
	2>"$tmp/err"
tap_result $? "record --format folded exits 0"
kill "$spin"
wait "$spin" 2>/dev/null
tap_check "nothing on stderr when it is not a terminal" test ! -s "$tmp/err"

# strict folded format: frames;...;frames COUNT, nothing else
folded_ok()
{
	python3 -I -S - "$1" <<'PY'
import re, sys
line_re = re.compile(r'^[^;\s][^;\n]*(;[^;\n]+)* [1-9][0-9]*$')
n = 0
for line in open(sys.argv[1]):
    line = line.rstrip('\n')
    if not line_re.match(line) or '  ' in line:
        print('# bad line: %r' % line)
        sys.exit(1)
    n += int(line.rsplit(' ', 1)[1])
print('# %d samples in folded' % n)
sys.exit(0 if n > 0 else 1)
PY
}
tap_check "folded output passes a strict format check" folded_ok "$tmp/p.folded"

# the spinner's hot functions, root first, leaf last
share=$(awk '/^cpu_spin;/ {
		n = $NF; t += n
		if ($0 ~ /spin_hot_a [0-9]+$/) a += n
		if ($0 ~ /spin_hot_b [0-9]+$/) b += n
	} END { if (a + b) printf "%d", 100 * a / (a + b); else print 0 }' "$tmp/p.folded")
tap_diag "spin_hot_a has $share% of the spinner's hot samples"
tap_check "75/25 split shows in the folded stacks (65..85%)" \
	test "$share" -ge 65 -a "$share" -le 85

"$SPIN" 600 &
spin=$!
"$KPROF_BIN" record -d 2 -o "$tmp/p.pb.gz" --format pprof 2>/dev/null
tap_result $? "record --format pprof exits 0"
kill "$spin"
wait "$spin" 2>/dev/null

# protoc decodes it; Profile.sample is field 2, Profile.string_table 6
gunzip -c "$tmp/p.pb.gz" | protoc --decode_raw >"$tmp/p.txt" 2>&1
tap_result $? "pprof file decodes with protoc --decode_raw"
tap_check "pprof has samples and names spin_hot_a" \
	sh -c "grep -q '^2 {' '$tmp/p.txt' && grep -q 'spin_hot_a' '$tmp/p.txt'"

# JSON over a spinner and a TCP workload (2 ms a request, slower than the
# 1 ms threshold, so the requests have stacks): both tables filled, the
# totals adding up, each program's rows under its own name and frames.
"$SPIN" 600 &
spin=$!
"$KP_DIR/tcp_workload" -d 6 2 >/dev/null &
wl=$!
"$KPROF_BIN" record -d 2 -o "$tmp/p.json" --format json 2>"$tmp/err.json"
kill "$spin"
wait "$spin" 2>/dev/null
wait "$wl"
json_ok()
{
	python3 -I -S - "$1" "$2" <<'PY'
import json, sys
o = json.load(open(sys.argv[1]))
cpu, tcp = o["cpu"], o["tcp"]
spin = sum(r["samples"] for r in cpu if r["comm"] == "cpu_spin" and
           any(f.startswith("spin_hot_a") for f in r["frames"]))
wl = sum(r["count"] for r in tcp if r.get("comm") == "tcp_workload" and r["frames"])
print("# %d samples (%d idle), %d of cpu_spin in spin_hot_a; %d requests, %d of tcp_workload with frames"
      % (o["samples_total"], o["samples_idle"], spin, o["requests"], wl))
if not spin:
    # what the spinner's rows did hold, and what the reader said
    for r in [r for r in cpu if r["comm"] == "cpu_spin"][:5]:
        print("# cpu_spin row: %d samples, frames %s"
              % (r["samples"], ";".join(r["frames"][:4])))
    print("# drops %s" % o["drops"])
    for line in open(sys.argv[2]):
        print("# stderr: " + line.rstrip())
assert spin > 0 and wl > 0
assert sum(r["samples"] for r in cpu) <= o["samples_total"]
assert sum(r["count"] for r in tcp if r["role"] != "connect") == o["requests"]
PY
}
tap_check "record --format json: both tables, totals that add up, the programs' own frames" \
	json_ok "$tmp/p.json" "$tmp/err.json"

kp_unload
tap_finish
