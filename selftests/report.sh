#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `kprof report` on a CPU spinner and a TCP workload: the spinner's hot
# function with a sensible share and the Amdahl ceiling of that share,
# the workload's endpoint with its percentiles in order, the health
# section, and the text form's headers.
. "$(dirname "$0")/lib.sh"

SPIN=$KP_DIR/cpu_spin
WL=$KP_DIR/tcp_workload
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

tap_plan 9
kp_unload
kp_load || { tap_diag "cannot load kprofmod"; exit "$KSFT_FAIL"; }
mark=$(kp_dmesg_mark)

# The 75/25 spinner and requests answered after 5 ms, both running until
# the report is done: under TCG its window may close seconds late (the
# first interval's stacks take the reader a while to resolve).
"$SPIN" 600 &
spin=$!
"$WL" -d 600 5 >"$tmp/wl.out" &
wl=$!
sleep 0.5
"$KPROF_BIN" report -d 3 --json --top 50 >"$tmp/r.json" 2>"$tmp/err"
tap_result $? "report -d 3 --json exits 0"
kill "$spin"
wait "$spin"
kill -TERM "$wl"
wait "$wl"
port=$(awk '{print $2}' "$tmp/wl.out")
tap_diag "workload: $(cat "$tmp/wl.out")"
tap_check "nothing on stderr" test ! -s "$tmp/err"

# check NAME: one python check of the report, NAME selects it
check()
{
	python3 -I -S - "$1" "$tmp/r.json" "$port" "${KPROF_DEBUG_KERNEL:-0}" <<'PY'
import json, math, sys
what, path, port = sys.argv[1], sys.argv[2], int(sys.argv[3] or 0)
debug = sys.argv[4] == "1"
o = json.load(open(path))
if what == "fields":
    for k in ("schema", "module", "window", "cpu", "hot_functions",
              "hot_stacks", "tcp", "endpoints", "health"):
        assert k in o, k
    assert o["schema"] == 1
    w = o["window"]
    print("# window %.2f s, %d intervals" % (w["duration_ns"] / 1e9, o["health"]["intervals"]))
    # at least the 3 s asked for; longer when resolving the first
    # interval's stacks takes the reader more than a second (TCG): on
    # the debug kernels (KASAN, lockdep) 15 to 35 s were seen, beside
    # other VMs on the host
    limit = 120e9 if debug else 30e9
    assert 2.9e9 < w["duration_ns"] < limit and not w["stopped_early"], w
    assert w["requested_ns"] == 3000000000
elif what == "spin":
    c = o["cpu"]
    print("# %d samples, %d idle, basis %d" % (c["samples_total"], c["samples_idle"], c["basis_samples"]))
    f = {x["function"]: x for x in o["hot_functions"] if x["kind"] == "user"}
    for name in ("spin_hot_a", "spin_hot_b"):
        assert name in f, (name, [x["function"] for x in o["hot_functions"][:10]])
    a, b = f["spin_hot_a"], f["spin_hot_b"]
    p = a["self_share"]
    print("# spin_hot_a self %.3f (ceiling %.3f), spin_hot_b self %.3f" % (p, a["self_ceiling"], b["self_share"]))
    # the share is the function's samples over the busy basis, exactly
    assert abs(p - a["self_samples"] / c["basis_samples"]) < 1e-9, \
        (p, a["self_samples"], c["basis_samples"])
    # one CPU of two spins, 3/4 of it in spin_hot_a: about 0.37 to 0.75
    # of the busy samples when little else runs.  What else runs takes a
    # part that varies with the kernel, both vCPUs being one host
    # thread: the TCP workload's kernel time left it 0.17 and 0.092 on
    # the debug kernel (KASAN; 1558 busy samples over 8.3 s), 0.198 on
    # 6.1-rt (796 over 4.5 s), spin_hot_a's share of the spinner's own
    # samples still 0.74 and 0.67.  So here only: it shows; that share
    # of the spinner's own (below) is the signal.
    assert 0.05 <= p <= 0.9, p
    assert abs(a["self_ceiling"] - 1 / (1 - p)) < 1e-9 * a["self_ceiling"]
    assert a["self_samples"] <= a["total_samples"]
    assert 0.6 <= a["self_samples"] / (a["self_samples"] + b["self_samples"]) <= 0.9
    for x in o["hot_functions"] + o["hot_stacks"]:
        s = x.get("self_share", x.get("share"))
        cl = x.get("self_ceiling", x.get("ceiling"))
        assert (cl is None and s == 1) or abs(cl - 1 / (1 - s)) < 1e-9 * cl, x
elif what == "endpoint":
    eps = [e for e in o["endpoints"] if e["rport"] == port and e["role"] == "client"]
    assert len(eps) == 1, [e["endpoint"] for e in o["endpoints"]]
    e = eps[0]
    print("# %s: %d requests, p50 %d p95 %d p99 %d ns, window share %.2f, %d slow stacks" %
          (e["endpoint"], e["count"], e["p50_ns"], e["p95_ns"], e["p99_ns"],
           e["window_share"], len(e["slow_stacks"])))
    assert e["count"] > 0 and e["p50_ns"] <= e["p95_ns"] <= e["p99_ns"] <= e["max_ns"]
    assert e["p50_ns"] >= 4000000, "answered after 5 ms"
    assert 0 < e["window_share"] <= 1.2
    assert e["slow_stacks"] and sum(s["count"] for s in e["slow_stacks"]) + e["below_threshold"] == e["count"]
elif what == "health":
    h = o["health"]
    print("# drops %s, attach %s, features %s" % (h["drops"], h["attach"], h["features"]))
    for k in ("inflight", "rows", "stacks", "export", "samples"):
        assert isinstance(h["drops"][k], int), k
    assert "tcp_sendmsg" in h["attach"] and "cpu-sampling" in h["features"]
    assert h["measured"] == ["tcp", "cpu"] and h["started"] == ["tcp", "cpu"]
    assert h["intervals"] >= 3 and "intervals_lost" not in h
    assert h["threshold_ns"] == 1000000 and h["sample_hz"] == 99
PY
}
tap_check "JSON has the documented top-level fields" check fields
tap_check "spin_hot_a: a share in its band, ceiling 1/(1-share)" check spin
tap_check "the workload's endpoint: count > 0, p50 <= p95 <= p99" check endpoint
tap_check "health: drops, attach points, features, settings" check health

# A fresh stack table: the first report's window may have filled it
# (4,096 stacks; on the debug kernels, whose windows under TCG run long,
# over 3,000 samples of varied kernel stacks did), and stack IDs are
# only forgotten with the module.
kp_unload
kp_load || { tap_diag "cannot load kprofmod again"; exit "$KSFT_FAIL"; }
"$SPIN" 600 &
spin=$!
"$KPROF_BIN" report -d 2 >"$tmp/r.txt" 2>"$tmp/err"
tap_result $? "report -d 2 (text) exits 0"
kill "$spin"
wait "$spin"
sed 's/^/#   /' "$tmp/r.txt" | head -n 30
headers_ok()
{
	for h in '^kprof report: ' '^Hot functions: ' '^Hot stacks: ' \
		 '^Remote endpoints: ' '^Slowest stacks per endpoint: ' \
		 '^Module health$'; do
		grep -q "$h" "$tmp/r.txt" || { tap_diag "no $h"; return 1; }
	done
	grep -qE '^ +[0-9.]+% +[0-9.]+x +[0-9.]+% +[0-9.]+x +[0-9]+ +user +spin_hot_a$' "$tmp/r.txt"
}
tap_check "text: every section's header, spin_hot_a with its ceiling" headers_ok

kp_unload
tap_check "no kernel warnings" kp_dmesg_clean "$mark"
tap_finish
