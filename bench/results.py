#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Write bench/RESULTS.md from the raw numbers of `make bench`.

    results.py RAW OUT SECONDS

RAW is what bench/icount-check.sh --full wrote in the instruction-count
VM (lines "run NAME V...", "metric NAME V", "export K keys ...",
"reader idle|keyed V ROWS", "info KEY V..."); SECONDS the wall time of
the whole make bench.  Every number is in guest instructions: the VM's
clock advances one nanosecond per instruction the guest executes.
"""

import statistics
import sys

TARGETS = {
    "tcp_floor": 1.5,        # tracking per request / the floor's, must
    "tcp_floor_stretch": 1.0,
    "stack_bt": 0.5,         # stacked request / bpftrace kstack+ustack
    "sample_bt": 0.5,        # per sample / bpftrace profile
    "sample_perf": 0.5,      # per sample / perf record -g
    "export_flat": 20.0,     # snapshot per row, 1k..100k, percent
    "spread": 1.0,           # runs of one configuration, percent
}


def load(path):
    runs, metrics, info, export, reader = {}, {}, {}, [], {}
    for line in open(path):
        w = line.split()
        if not w:
            continue
        if w[0] == "run":
            runs[w[1]] = [float(x) for x in w[2:]]
        elif w[0] == "metric":
            metrics[w[1]] = float(w[2])
        elif w[0] == "info":
            info[w[1]] = " ".join(w[2:])
        elif w[0] == "export":
            d = dict(zip(w[2::2], w[3::2]))
            export.append({k: int(v) for k, v in d.items()})
        elif w[0] == "reader" and len(w) == 4:
            reader.setdefault(w[1], []).append((float(w[2]), int(w[3])))
        elif w[0] in ("retrans", "elapsed", "busy"):
            info[w[0] + " " + w[1]] = [float(x) for x in w[2:]]
    return runs, metrics, info, export, reader


def spread(v):
    return (max(v) - min(v)) * 100 / statistics.median(v)


def fmt(x):
    return f"{x:,.0f}"


def verdict(ok):
    return "**holds**" if ok else "**misses**"


NEEDED = ["rr_none", "rr_loaded", "rr_tracked", "rr_stacked",
          "rr_floor_kprobe", "rr_bt_equiv", "rr_bt_stacks", "cpu_none",
          "cpu_sampled", "cpu_perf", "cpu_bt"]
EXPORT_FIELDS = ["keys", "rows", "snapshot_ns", "snapshot_cpu_ns",
                 "read_ns", "reread_ns", "drops"]


def main():
    raw, out, seconds = sys.argv[1], sys.argv[2], int(sys.argv[3])
    runs, metrics, info, export, reader = load(raw)
    missing = [n for n in NEEDED if not runs.get(n)]
    missing += [f"export {e.get('keys', '?')}" for e in export
                if any(f not in e for f in EXPORT_FIELDS)]
    missing += [f"the reader ({k})" for k in ("idle", "keyed")
                if k not in reader]
    if missing:
        sys.exit(f"results.py: {raw} has no measurement for "
                 f"{', '.join(missing)} (see the VM's log)")
    med = {k: statistics.median(v) for k, v in runs.items()}
    freq = float(info.get("freq", "9999"))
    L = []
    p = L.append

    def per_req(name):
        return (med[name] - med["rr_none"]) / 2

    def run_cells(label, name):
        """A table's first cells: the median, the runs, their spread."""
        v = runs[name]
        return [label, f"{fmt(med[name])} ({', '.join(fmt(x) for x in v)})",
                f"{spread(v):.3f}%"]

    def per_sample(name):
        return (med[name] - med["cpu_none"]) / (med[name] * freq / 1e9)

    floor = per_req("rr_floor_kprobe")
    tcp = per_req("rr_tracked")
    stacked = per_req("rr_stacked")
    bt_equiv = per_req("rr_bt_equiv")
    bt_stacks = per_req("rr_bt_stacks")
    smp = per_sample("cpu_sampled")
    bt_smp = per_sample("cpu_bt")
    perf_smp = per_sample("cpu_perf")
    worst_name = max(runs, key=lambda n: spread(runs[n]))
    worst = spread(runs[worst_name])

    p("# kprofmod overhead benchmarks, in instructions")
    p("")
    p(f"Produced by `make bench` ({seconds} s of wall time end to end) "
      f"from commit {info.get('commit', 'unknown')}; raw numbers in "
      "`build/bench/icount.txt`, this file written by `bench/results.py`.")
    p("")
    p(f"**Method.** One boot of {info.get('kernel', '?')} with one vCPU "
      "under QEMU's TCG with `-icount shift=0,sleep=off`: the guest's "
      "`CLOCK_MONOTONIC` advances one nanosecond per executed guest "
      "instruction and idle time is skipped, so every \"ns\" below is an "
      "instruction the guest executed (the workload, the kernel, the "
      "probes, and any tracer's or reader's own process on the same "
      "vCPU).  Host load does not enter.  Each configuration runs "
      "unmeasured until two runs in a row agree within 0.05% (at most six "
      "runs; the lossy transfer's, which its timers spread by more, once), "
      f"then {info.get('runs', 3)} times; the tables give the "
      "median and the spread (max - min over the median) of those runs.  "
      "kprofmod runs with `budget_ppm=0` (overhead guard off).  Under "
      "TCG a trap costs few instructions, so int3-based probes look "
      "cheaper than on hardware; on this kernel every probe here sits "
      "on a function entry and goes through ftrace, which does not trap "
      "(kprofmod's hot hooks are two `ftrace_ops` of its own, the others "
      "kprobes on ftrace).  "
      f"Host: {info.get('host', 'unknown')}.")
    p("")
    p("## Targets")
    p("")
    p("| target | measured | verdict |")
    p("|---|---|---|")
    loaded = metrics.get("loaded_request", per_req("rr_loaded"))
    p(f"| loaded but idle costs nothing | {fmt(loaded)} instructions per "
      f"request | {verdict(abs(loaded) <= 10)} |")
    r = tcp / floor
    p(f"| TCP tracking ≤ {TARGETS['tcp_floor']}× the floor of two empty "
      f"kprobes (stretch ≤ {TARGETS['tcp_floor_stretch']}×) | "
      f"{fmt(tcp)} / {fmt(floor)} = {r:.2f}× | "
      f"{verdict(r <= TARGETS['tcp_floor'])} |")
    r = stacked / bt_stacks
    p(f"| stack on every request ≤ {TARGETS['stack_bt']}× bpftrace's "
      f"kstack+ustack | {fmt(stacked)} / {fmt(bt_stacks)} = {r:.2f}× | "
      f"{verdict(r <= TARGETS['stack_bt'])} |")
    r = smp / bt_smp
    p(f"| CPU sampling ≤ {TARGETS['sample_bt']}× bpftrace's instructions "
      f"per sample | {fmt(smp)} / {fmt(bt_smp)} = {r:.2f}× | "
      f"{verdict(r <= TARGETS['sample_bt'])} |")
    r = smp / perf_smp
    p(f"| CPU sampling ≤ {TARGETS['sample_perf']}× perf's instructions "
      f"per sample | {fmt(smp)} / {fmt(perf_smp)} = {r:.2f}× | "
      f"{verdict(r <= TARGETS['sample_perf'])} |")
    snap = {}
    dropped = sorted({e["keys"] for e in export if e["drops"]})
    for e in export:
        snap.setdefault(e["keys"], []).append(e["snapshot_cpu_ns"] / e["rows"])
    per_row = {k: statistics.median(v) for k, v in sorted(snap.items())}
    if per_row:
        lo, hi = min(per_row.values()), max(per_row.values())
        dev = (hi - lo) * 100 / lo
        p(f"| snapshot instructions per exported row flat within "
          f"{TARGETS['export_flat']:.0f}% from {fmt(min(per_row))} to "
          f"{fmt(max(per_row))} keys (the issue: 100,000; one vCPU's table "
          f"holds 65,536) | {fmt(lo)} to {fmt(hi)} "
          f"(+{dev:.0f}%)"
          + (f"; rows dropped at {', '.join(fmt(k) for k in dropped)} "
             "keys" if dropped else "")
          + f" | {verdict(dev <= TARGETS['export_flat'])} |")
    p(f"| the runs of every configuration within {TARGETS['spread']:.0f}% "
      f"of each other | largest spread {worst:.3f}% ({worst_name}"
      + (": one run far from the others; the median is the figure used"
         if worst >= TARGETS["spread"] else "")
      + f") | "
      f"{verdict(worst < TARGETS['spread'])} |")
    p("")
    if "cpu_floor" in med:
        fl = per_sample("cpu_floor")
        want = TARGETS["sample_bt"] * min(bt_smp, perf_smp)
        p(f"A sample's floor (the perf event with an empty handler) is "
          f"{fmt(fl)} instructions: the sampling targets leave kprofmod "
          f"{fmt(want - fl)} above it, and it uses {fmt(smp - fl)}.  "
          f"Two empty kprobes leave TCP tracking at most "
          f"{fmt(TARGETS['tcp_floor'] * floor)} per request.")
        p("")

    p("## TCP request/response")
    p("")
    p(f"`tcp_rr -s -n {info.get('reqs', '2000')}` pinned to the one "
      "vCPU: one loopback connection whose two ends one thread plays (it "
      "sends the request, reads it on the server's socket, sends the echo "
      "and reads it on the client's), a fixed number of round trips; "
      "instructions per round trip.  Loopback delivers each send before "
      "`send()` returns, so no read waits and nothing is scheduled: the "
      "probes' instructions add exactly (100 and 300 loop iterations in "
      "the floor's handlers cost 3.00 instructions per iteration per hit "
      "through a kprobe and through an `ftrace_ops` alike), where in the "
      "threaded ping-pong they moved the scheduler's choices (the same "
      "200 iterations cost 4.6 hits' worth through the one and 6.0 "
      "through the other).  A round "
      "trip is two requests (the client's, and the server's from its "
      "answer to the next request), each a `tcp_sendmsg` and a "
      "`tcp_cleanup_rbuf`.  kprofmod is driven by `kprof top --no-cpu` "
      "(one reader holding the session; its interval is an hour, so it "
      "reads nothing while measured); the eight views are eight more "
      "readers filtering on a cgroup.  The floor is "
      "`bench/floor/kprof_floor.ko`: two kprobes with empty handlers "
      "(`mode=ftrace`: one `ftrace_ops` whose callback only turns "
      "preemption off and on, called straight from its trampoline: the "
      "least an attach through ftrace can cost, and how kprofmod attaches "
      "its hot hooks from 5.11).  bpftrace's scripts are in "
      "`bench/bt/`: `tcp_floor.bt` (two empty kprobes), `tcp_equiv.bt` "
      "(a start time per socket, a latency histogram per endpoint), "
      "`tcp_stacks.bt` (the same keyed by kernel and user stack).")
    p("")
    p("| configuration | per round trip (runs) | spread | per request "
      "over no probes | vs the floor | vs bpftrace's equivalent |")
    p("|---|---|---|---|---|---|")
    rows = [
        ("no probes", "rr_none", None),
        ("two empty kprobes (the floor)", "rr_floor_kprobe", None),
        ("an empty ftrace_ops callback on both", "rr_floor_ftrace", None),
        ("bpftrace, two empty kprobes", "rr_bt_floor", None),
        ("kprofmod loaded, no session", "rr_loaded", None),
        ("kprofmod tracking, no stacks", "rr_tracked", "rr_bt_equiv"),
        ("kprofmod tracking, eight views", "rr_views", "rr_bt_equiv"),
        ("kprofmod, stack on every request", "rr_stacked", "rr_bt_stacks"),
        ("bpftrace, equivalent tracking", "rr_bt_equiv", None),
        ("bpftrace, equivalent + kstack, ustack", "rr_bt_stacks", None),
    ]
    for label, name, ref in rows:
        if name not in med:
            continue
        cells = run_cells(label, name)
        if name == "rr_none":
            cells += ["—", "—", "—"]
        else:
            d = per_req(name)
            cells.append(f"{d:+,.0f}")
            cells.append(f"{d / floor:.2f}×")
            cells.append(f"{d / per_req(ref):.2f}×" if ref else "")
        p("| " + " | ".join(cells) + " |")
    p("")

    if "rr_lossy_none" in med and "rr_lossy_tracked" in med:
        rx = {n: statistics.median(info["retrans " + n])
              for n in ("rr_lossy_none", "rr_lossy_tracked")
              if info.get("retrans " + n)}
        p("## A lossy transfer")
        p("")
        p(f"The same `tcp_rr -s -n {info.get('reqs', '2000')}` while tc "
          "drops every tenth packet on lo (a `u32` filter matching "
          "everything, `action gact ok random determ drop 10`: the same "
          "packets in every run), so that TCP retransmits; waiting for a "
          "retransmission timer costs nothing on this clock, the timer's "
          "own work does.  What loss adds to kprofmod's cost (its "
          "`tcp:tcp_retransmit_skb` and state-change hooks, the "
          "retransmission marks on requests in flight) is the tracked "
          "lossy run over the lossy base, less the tracked clean run over "
          "the clean base, per retransmitted segment (the kernel's "
          "`TcpRetransSegs` over each run).")
        p("")
        p("| configuration | per round trip (runs) | spread | segments "
          "retransmitted per run | over its base, per round trip |")
        p("|---|---|---|---|---|")
        for label, name, base in [
                ("no probes, clean", "rr_none", None),
                ("kprofmod tracking, clean", "rr_tracked", "rr_none"),
                ("no probes, lossy", "rr_lossy_none", None),
                ("kprofmod tracking, lossy", "rr_lossy_tracked",
                 "rr_lossy_none")]:
            cells = run_cells(label, name)
            cells.append(fmt(rx[name]) if name in rx else "0")
            cells.append(f"{med[name] - med[base]:+,.0f}" if base else "—")
            p("| " + " | ".join(cells) + " |")
        p("")
        extra = ((med["rr_lossy_tracked"] - med["rr_lossy_none"]) -
                 (med["rr_tracked"] - med["rr_none"]))
        segs = rx.get("rr_lossy_tracked", 0)
        rts = float(info.get("reqs", "2000"))
        busy = {k: statistics.median(info["busy " + k])
                for k in ("none", "tracked") if info.get("busy " + k)}
        el = info.get("elapsed rr_lossy_tracked")
        if segs and len(busy) == 2 and el:
            tick = busy["tracked"] - busy["none"]
            secs = statistics.median(el) / 1e9
            hooks = extra - tick * secs
            p(f"Loss adds {extra:+,.0f} instructions per round trip to "
              f"kprofmod's cost.  Most of it is not per retransmission but "
              f"per second: a lossy round trip lasts {secs * 1e3:,.1f} ms "
              f"of the guest's time (its timer waits), and while tracing "
              f"runs the guard's work item wakes four times a second "
              f"(`tcp_rr -w 30`: an idle CPU runs {fmt(busy['none'])} "
              f"instructions a second without kprofmod and "
              f"{fmt(busy['tracked'])} with a reader tracking TCP, "
              f"{tick:+,.0f}), {tick * secs:+,.0f} per round trip.  The "
              f"rest, {hooks:+,.0f} per round trip, is the hooks': "
              f"{hooks * rts / segs:+,.0f} per retransmitted segment "
              f"({fmt(segs)} in a run of {fmt(rts)} round trips).")
            p("")

    p("## CPU sampling")
    p("")
    p(f"`cpu_work -t 1 -n {info.get('iters', '100')}` pinned to the vCPU "
      "(a fixed amount of work in two functions, frame pointers on), under "
      f"each profiler sampling at {freq:.0f} Hz with kernel and user "
      "stacks: `kprof top --no-tcp --freq` (the reader included), "
      "`perf record -g -a` (writing its file on the same vCPU), bpftrace "
      "`profile:hz` counting `kstack, ustack` (`bench/bt/profile.bt`); "
      "the floor is `bench/floor/kprof_floor.ko mode=sample`: the same "
      "cpu-clock perf event per CPU as kprofmod's, with an empty "
      "overflow handler (the timer interrupt and perf's own work, which "
      "every profiler here pays).  "
      f"At {freq:.0f} Hz rather than 999: a run of the work alone varies "
      "by about 0.01%, which at 999 Hz is a large part of one sample's "
      "cost.  Samples are the instructions times the frequency (the "
      "sampling clock is the same instruction clock); "
      f"`kernel.perf_event_max_sample_rate` was "
      f"{info.get('max_sample_rate', '?')} at the end"
      + (" (no throttling below the frequency used)."
         if float(info.get("max_sample_rate", "0")) >= freq else
         ": **below the frequency used, so perf throttled the events and "
         "the per-sample figures count samples that were not taken**."))
    p("")
    p("| configuration | instructions (runs) | spread | samples | per "
      "sample | over the floor | vs perf | vs bpftrace |")
    p("|---|---|---|---|---|---|---|---|")
    for label, name in [("no profiler", "cpu_none"),
                        ("an empty overflow handler (the floor)",
                         "cpu_floor"),
                        ("kprofmod", "cpu_sampled"),
                        ("perf record -g -a", "cpu_perf"),
                        ("bpftrace profile:hz", "cpu_bt")]:
        if name not in med:
            continue
        cells = run_cells(label, name)
        if name == "cpu_none":
            cells += ["—", "—", "—", "—", "—"]
        else:
            s = per_sample(name)
            above = (f"{s - per_sample('cpu_floor'):+,.0f}"
                     if "cpu_floor" in med else "")
            cells += [fmt(med[name] * freq / 1e9), fmt(s), above,
                      f"{s / perf_smp:.2f}×", f"{s / bt_smp:.2f}×"]
        p("| " + " | ".join(cells) + " |")
    p("")

    p("## Export")
    p("")
    p("`export_cost -k N` makes N exported TCP rows in one interval (one "
      "loopback connection per key, each its own client address and port; "
      "tracing at threshold 100 s, so no stack) and counts the "
      "instructions of `KPROF_IOC_SNAPSHOT` (close the interval, merge the "
      "per-CPU tables, publish) and of one pass over every row and "
      "histogram bucket of the mapping (the first, page faults included, "
      "and a second).  Each run starts from an empty mapping (`KPROF_IOC_"
      "RESET`): every row is new to it.  The snapshot's instructions are its thread's CPU "
      "time: it waits for a grace period, and on this clock an idle wait "
      "jumps to the next timer, so its elapsed time (given too) is not a "
      "count of work.  Module loaded with `budget_ppm=0 cpu_rows=65536 "
      "tcp_rows=131072`; one vCPU, so one per-CPU table of at most 65,536 "
      "rows (at 60,000 keys its probing dropped 2.7% of them): the largest "
      "run is 50,000 keys, not 100,000 (that needs a second vCPU and a "
      "boot of its own).")
    p("")
    p("| keys | rows | snapshot | per row | snapshot elapsed | first read "
      "| per row | re-read | drops |")
    p("|---|---|---|---|---|---|---|---|---|")
    for e in export:
        p(f"| {fmt(e['keys'])} | {fmt(e['rows'])} | "
          f"{fmt(e['snapshot_cpu_ns'])} | "
          f"{fmt(e['snapshot_cpu_ns'] / e['rows'])} | "
          f"{fmt(e['snapshot_ns'])} | {fmt(e['read_ns'])} | "
          f"{fmt(e['read_ns'] / e['rows'])} | {fmt(e['reread_ns'])} | "
          f"{e['drops']} |")
    p("")
    idle = [x for x, _ in reader["idle"]]
    keyed, krows = reader["keyed"][0]
    base = statistics.median(idle)
    p("**Reader.** `kprof top --no-cpu --threshold 100s --json -i 600 "
      "-n 1` (the largest rows, as `top` shows them; a long interval "
      "costs nothing idle on this clock) over one interval in "
      f"which `export_cost -g -k 10000` made {fmt(krows)} rows: "
      f"{fmt(keyed)} instructions of CPU time (user and system, the "
      "snapshot ioctl included), against a median of "
      f"{fmt(base)} ({', '.join(fmt(x) for x in idle)}) over an empty "
      f"interval: {fmt(keyed - base)} instructions for the rows, "
      f"{fmt((keyed - base) / krows)} per row.  The empty intervals "
      f"spread by {fmt(max(idle) - min(idle))} instructions (the "
      "reader's start, its symbol tables included), so the per-row "
      "figure is known only to about that much over the rows.")
    p("")

    p("## Wall-clock figures (secondary)")
    p("")
    p("The earlier benchmark, in wall-clock time under TCG on a shared "
      "host with two vCPUs, is kept in [WALLCLOCK.md](WALLCLOCK.md) "
      "(`make bench-wallclock`): most of its differences are within the "
      "noise of such a host, which is why these instruction counts "
      "replaced it.")
    open(out, "w").write("\n".join(L) + "\n")


if __name__ == "__main__":
    main()
