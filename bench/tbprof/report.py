#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Where the guest kernel's instructions went in make bench-profile's
windows (bench/tbprof/guest.sh), by function: kprofmod's own functions
per CPU sample and per TCP request, and the kernel functions that grew
over the same workload without kprofmod (or with the empty floor).

    report.py DIR [OUT]     DIR: the plugin's dumps, counts, kallsyms.*

A window is the difference of two dumps (dump.W.0, dump.W.1): every
translation block's executions times its instructions, summed by the
function (kallsyms) its address falls in."""
import bisect
import collections
import sys

FREQ = 9999          # guest.sh's sampling rate
REQUESTS = 2 * 2000  # tcp_rr -s -n 2000: two requests per round trip
TOP = 12


def load_dump(path):
    blocks = collections.Counter()
    with open(path) as f:
        for line in f:
            va, insns, execs = line.split()
            blocks[(int(va, 16), int(insns))] += int(execs)
    return blocks


def load_syms(path):
    syms = []
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) >= 3 and w[1] in "tTwW":
                name = w[2] + (" " + w[3] if len(w) > 3 else "")
                syms.append((int(w[0], 16), name))
    syms.sort()
    return [a for a, _ in syms], [n for _, n in syms]


def window(d, name):
    """Instructions per function between dump NAME.0 and NAME.1."""
    addrs, names = load_syms(f"{d}/kallsyms.{name}")
    a = load_dump(f"{d}/dump.{name}.0")
    b = load_dump(f"{d}/dump.{name}.1")
    per = collections.Counter()
    for (va, insns), execs in b.items():
        n = (execs - a.get((va, insns), 0)) * insns
        if n <= 0:
            continue
        i = bisect.bisect_right(addrs, va) - 1
        per[names[i] if i >= 0 else f"0x{va:x}"] += n
    return per


def table(out, title, rows, unit):
    out.append(f"{title}\n")
    out.append(f"{'instructions per ' + unit:>28}  function")
    for name, v in rows:
        out.append(f"{v:28.1f}  {name}")
    out.append("")


def main():
    d = sys.argv[1]
    counts = {}
    with open(f"{d}/counts") as f:
        for line in f:
            w = line.split()
            if len(w) == 2:
                counts[w[0]] = float(w[1])
    need = ("cpu_none", "cpu_floor", "cpu_kprof", "rr_none", "rr_tracked",
            "rr_stacked")
    missing = [w for w in need if w not in counts]
    if missing:
        sys.exit(f"report.py: no count for {', '.join(missing)} in {d}/counts")
    win = {w: window(d, w) for w in need}
    samples = counts["cpu_kprof"] * FREQ / 1e9
    floor_samples = counts["cpu_floor"] * FREQ / 1e9
    out = ["# Where the instructions go (make bench-profile)", "",
           "Per-function counts of the guest kernel's instructions in one "
           "icount boot (bench/tbprof).  cpu_work at 9999 Hz: "
           f"{samples:.0f} samples with kprofmod, {floor_samples:.0f} with "
           "the empty overflow handler; tcp_rr -s: "
           f"{REQUESTS} requests per window.  The workload's own count "
           "(user and kernel): "
           f"{(counts['cpu_kprof'] - counts['cpu_none']) / samples:.0f} per "
           "sample with kprofmod, "
           f"{(counts['cpu_floor'] - counts['cpu_none']) / floor_samples:.0f}"
           " with the floor; per request tracked "
           f"{(counts['rr_tracked'] - counts['rr_none']) / 2:.0f}, stacked "
           f"{(counts['rr_stacked'] - counts['rr_none']) / 2:.0f}.", ""]
    for w, unit, div in (("cpu_kprof", "sample", samples),
                         ("rr_tracked", "request", REQUESTS),
                         ("rr_stacked", "request", REQUESTS)):
        own = sorted(((n, v / div) for n, v in win[w].items()
                      if n.endswith("[kprofmod]")), key=lambda r: -r[1])
        table(out, f"kprofmod's functions, {w} "
              f"({sum(v for _, v in own):.1f} per {unit} in all):",
              own, unit)
    for w, base, unit, div, bdiv in (
            ("cpu_kprof", "cpu_floor", "sample", samples, floor_samples),
            ("rr_tracked", "rr_none", "request", REQUESTS, REQUESTS),
            ("rr_stacked", "rr_none", "request", REQUESTS, REQUESTS)):
        grew = {n: win[w].get(n, 0) / div - win[base].get(n, 0) / bdiv
                for n in set(win[w]) | set(win[base])
                if not n.endswith("[kprofmod]")}
        rows = sorted(grew.items(), key=lambda r: -r[1])[:TOP]
        table(out, f"Other kernel functions, {w} over {base} "
              "(the most grown):", rows, unit)
    text = "\n".join(out)
    if len(sys.argv) > 2:
        with open(sys.argv[2], "w") as f:
            f.write(text)
    print(text)


if __name__ == "__main__":
    main()
