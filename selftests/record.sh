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
kp_load || { tap_diag "cannot load kprofmod"; exit "$KSFT_FAIL"; }

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

"$KPROF_BIN" record -d 2 -o "$tmp/p.json" --format json 2>/dev/null
tap_check "record --format json writes one object with cpu and tcp tables" \
	python3 -I -S -c 'import json,sys; o=json.load(open(sys.argv[1])); assert isinstance(o["cpu"], list) and isinstance(o["tcp"], list) and o["samples_total"] >= 0' "$tmp/p.json"

kp_unload
tap_finish
