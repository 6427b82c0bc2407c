#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the raw timings of `make bench-wallclock` (bench/guest-bench.sh)
into bench/WALLCLOCK.md: medians, quartiles, paired overheads, ratios, and
whether a difference stands out of the noise.

A difference between two configurations is "within noise" unless it is
both consistent over the rounds (two-sided sign test on the per-round
paired differences, p < 0.05) and larger than the baseline's own
run-to-run spread (median absolute deviation), as `kprof abtest` decides.

usage: analyze.py RAW OUT.md COMMAND WALL_SECONDS
"""
import math
import sys
from collections import defaultdict

SIGNIFICANCE = 0.05


def quantile(v, q):
    v = sorted(v)
    if not v:
        return float('nan')
    pos = q * (len(v) - 1)
    lo = int(pos)
    if lo + 1 >= len(v):
        return v[-1]
    return v[lo] + (pos - lo) * (v[lo + 1] - v[lo])


def median(v):
    return quantile(v, 0.5)


def mad(v):
    m = median(v)
    return median([abs(x - m) for x in v])


def sign_test(pos, neg):
    n, k = pos + neg, min(pos, neg)
    if not n:
        return 1.0
    p = sum(math.comb(n, i) for i in range(k + 1)) * 2 * 0.5 ** n
    return min(p, 1.0)


def paired(a, b):
    """Per-round b - a over the rounds both have."""
    return [b[r] - a[r] for r in sorted(a) if r in b]


def noise_verdict(base, diffs):
    pos = sum(d > 0 for d in diffs)
    neg = sum(d < 0 for d in diffs)
    p = sign_test(pos, neg)
    spread = mad(list(base.values()))
    dmed = median(diffs)
    if len(diffs) >= 6:
        within = p >= SIGNIFICANCE or abs(dmed) <= spread
    else:
        # too few rounds for the sign test to reach 5%: a difference
        # counts when every round agrees on its sign and it exceeds
        # the spread
        within = (pos and neg) or not (pos or neg) or abs(dmed) <= spread
    return dmed, p, within


def fmt_ns(ns):
    if ns != ns:
        return 'n/a'
    if abs(ns) >= 1e9:
        return '%.2f s' % (ns / 1e9)
    if abs(ns) >= 1e6:
        return '%.2f ms' % (ns / 1e6)
    if abs(ns) >= 1e4:
        return '%.1f us' % (ns / 1e3)
    return '%.0f ns' % ns


def main():
    raw, out, command, wall = sys.argv[1:5]
    data = defaultdict(dict)       # (stage, config) -> {round: value}
    export = defaultdict(list)     # keys -> [dict]
    info, mem, reader, native = {}, [], {}, {}
    for line in open(raw):
        f = line.split()
        if not f:
            continue
        if f[0] in ('tcp', 'cpu'):
            data[(f[0], f[1])][int(f[2])] = float(f[3])
        elif f[0] == 'export':
            export[int(f[1])].append(dict(zip(f[2::2], map(float, f[3::2]))))
        elif f[0] == 'mem':
            mem.append(f[1:])
        elif f[0] == 'reader':
            reader[f[1]] = [float(x) for x in f[2:]]
        elif f[0] == 'native':     # rows top intervals user sys
            native[(int(f[1]), int(f[2]))] = (int(f[3]),
                                              float(f[4]) + float(f[5]))
        elif f[0] == 'info':
            info[f[1]] = ' '.join(f[2:])

    def native_per(rows, top):
        """The reader's native CPU per interval for @rows more rows than
        the fake device's own, showing @top; None if not measured."""
        if (rows, top) not in native or (0, top) not in native:
            return None
        (n, t), (n0, t0) = native[(rows, top)], native[(0, top)]
        return t / n - t0 / n0

    pin = info.get('pin', 'none')
    pinned = '' if pin == 'none' else ' (the workload pinned to CPU %s)' % pin
    L = []
    L.append('# kprofmod overhead benchmarks in wall-clock time (secondary)\n')
    L.append('The primary benchmark counts instructions: see '
             '[RESULTS.md](RESULTS.md) (`make bench`).  These wall-clock '
             'figures under TCG on a shared host are kept as a secondary '
             'table; most of their differences are within its noise.\n')
    L.append('Produced by `%s` (one VM boot, %s s of wall time end to end).  '
             'Raw timings: `build/bench/raw.txt`; this file is regenerated '
             'by `bench/analyze.py` at the end of every run.\n' % (command, wall))
    L.append('**Machine**: %s.  Guest: %s, %s vCPUs, %s of memory, under '
             '**TCG** (QEMU CPU emulation, no KVM): every instruction is '
             'emulated, so absolute times are tens of times those of '
             'hardware and a kprobe hit (a trap) is relatively more '
             'expensive; only the ratios between configurations of this '
             'one boot mean anything.  Host load from other work was not '
             'controlled.\n' % (info.get('host', '?'), info.get('kernel', '?'),
                                info.get('cpus', '?'), info.get('mem', '?')))
    L.append('Method: configurations alternate within every round (%s '
             'rounds, in a rotating order), values are medians over rounds '
             'with quartiles; overheads are per-round paired differences '
             'against the baseline of the same round.  "noise" marks a '
             'difference that is not both consistent (sign test p < 0.05) '
             'and larger than the baseline\'s run-to-run spread (MAD), the '
             'rule of `kprof abtest`; with fewer than 6 rounds the sign test cannot reach 5%%, and a difference counts when every round has the same sign and it exceeds the MAD.  kprofmod is loaded with '
             '`budget_ppm=0` (overhead guard off) throughout.\n'
             % info.get('rounds', '?'))

    # ---- TCP ----
    names = {
        'none': 'no probes',
        'stopped': 'kprofmod loaded, stopped',
        'kprof_hi': 'kprofmod tracing, threshold 100 s (no stacks)',
        'kprof_t0': 'kprofmod tracing, threshold 0 (stack every request)',
        'bt_floor': 'bpftrace, two empty kprobes (floor)',
        'bt_equiv': 'bpftrace, equivalent tracking (map + hist)',
        'bt_stacks': 'bpftrace, equivalent + kstack, ustack',
    }
    tcp = {c: data[('tcp', c)] for c in names if ('tcp', c) in data}
    ov = {}
    if 'none' in tcp:
        base = tcp['none']
        L.append('## TCP request/response\n')
        L.append('`tcp_rr -c %s -n %s`: %s loopback connections, each with a '
                 'client and a server thread, fixed round trips each; '
                 'wall time per round trip (all connections together).  '
                 'A round trip is two tracked requests (the client\'s, and '
                 'the server\'s from its answer to the next request), each '
                 'one tcp_sendmsg and one tcp_cleanup_rbuf hit.%s\n'
                 % (info.get('rr_conns', '?'), info.get('rr_reqs', '?'),
                    info.get('rr_conns', '?'), pinned))
        L.append('| configuration | ns per round trip: median (q1–q3) | '
                 'overhead per round trip | per request | vs bpftrace equivalent | '
                 'vs floor | noise? |')
        L.append('|---|---|---|---|---|---|---|')
        for c in names:
            if c not in tcp:
                continue
            v = list(tcp[c].values())
            d, p, within = noise_verdict(base, paired(base, tcp[c])) \
                if c != 'none' else (0, 1, True)
            ov[c] = d
            L.append('| %s | %.0f (%.0f–%.0f) | %s | %s | %s | %s | %s |' % (
                names[c], median(v), quantile(v, .25), quantile(v, .75),
                '—' if c == 'none' else '%+.0f ns' % d,
                '—' if c == 'none' else '%+.0f ns' % (d / 2), '{eq}', '{fl}',
                '—' if c == 'none' else
                ('within noise (p=%.2f)' % p if within else 'p=%.3f' % p)))
        # fill ratios now that every overhead is known
        for i, line in enumerate(L):
            if '{eq}' not in line:
                continue
            c = [k for k in names if line.startswith('| ' + names[k] + ' |')][0]
            eq = ov.get('bt_equiv')
            fl = ov.get('bt_floor')
            def ratio(x, d):
                if c == 'none':
                    return '—'
                if not d or d <= 0:
                    return 'n/a (reference ≤ 0)'
                return '%.2f×' % (x / d)
            req = ratio(ov[c], eq)
            rfl = ratio(ov[c], fl)
            L[i] = line.replace('{eq}', req).replace('{fl}', rfl)
        L.append('')

    targets = []
    tnoise = {}
    if 'none' in tcp:
        for c in tcp:
            if c != 'none':
                tnoise[c] = noise_verdict(tcp['none'], paired(tcp['none'], tcp[c]))[2]
    if ov.get('bt_equiv', 0) > 0 and 'kprof_hi' in ov:
        r = ov['kprof_hi'] / ov['bt_equiv']
        targets.append(('TCP tracking ≤ 0.5× bpftrace\'s equivalent',
                        None if tnoise['kprof_hi'] or tnoise['bt_equiv'] else r <= 0.5,
                        '%.2f×' % r))
    if ov.get('bt_floor', 0) > 0 and 'kprof_hi' in ov:
        r = ov['kprof_hi'] / ov['bt_floor']
        targets.append(('TCP tracking ≤ 1.5× the empty-kprobe floor',
                        None if tnoise['kprof_hi'] or tnoise['bt_floor'] else r <= 1.5,
                        '%.2f×' % r))
    if 'bt_stacks' in ov and 'kprof_t0' in ov:
        targets.append(('stack on every request below bpftrace kstack+ustack',
                        None if tnoise['kprof_t0'] or tnoise['bt_stacks'] else
                        ov['kprof_t0'] < ov['bt_stacks'],
                        '%+.0f ns vs %+.0f ns per round trip' %
                        (ov['kprof_t0'], ov['bt_stacks'])))

    # ---- CPU ----
    cpu = {c: v for (s, c), v in data.items() if s == 'cpu'}
    if 'none' in cpu:
        base = cpu['none']
        L.append('## CPU sampling\n')
        L.append('`cpu_work -t %s -n %s`: %s CPU-bound thread(s)%s, '
                 'a fixed amount of work, frame pointers on; runtime under each '
                 'profiler sampling all CPUs.  kprofmod: `kprof top --no-tcp '
                 '--freq HZ -i 1 --json` (reader included); perf: `perf record '
                 '-F HZ -g -a`; bcc: `profile-bpfcc -F HZ`; bpftrace: '
                 '`profile:hz:HZ { @[kstack, ustack] = count(); }`.\n'
                 % (info.get('cpu_threads', '?'), info.get('cpu_iters', '?'),
                    info.get('cpu_threads', '?'), pinned))
        L.append('| configuration | runtime: median (q1–q3) | slowdown | '
                 'slowdown q1–q3 | vs perf -g, same Hz | noise? |')
        L.append('|---|---|---|---|---|---|')
        tools = ['kprof', 'perf', 'bcc', 'bt']
        order = ['none'] + sorted((c for c in cpu if c != 'none' and
                                   not c.startswith('bccbase')),
                                  key=lambda c: (int(c.split('_')[1]),
                                                 tools.index(c.split('_')[0])))
        slow = {}
        for c in order:
            v = list(cpu[c].values())
            if c == 'none':
                L.append('| no profiler | %s (%s–%s) | — | — | — | — |' % (
                    fmt_ns(median(v)), fmt_ns(quantile(v, .25)),
                    fmt_ns(quantile(v, .75))))
                continue
            b = cpu.get('bccbase_' + c.split('_')[1], {}) \
                if c.startswith('bcc') else base
            rel = [cpu[c][r] / b[r] - 1 for r in sorted(b) if r in cpu[c]]
            if not rel:
                continue
            d, p, within = noise_verdict(base, [cpu[c][r] - b[r] for r in sorted(b) if r in cpu[c]])
            slow[c] = median(rel)
            tool, hz = c.split('_')
            tool = {'kprof': 'kprofmod', 'bcc': 'bcc profile',
                    'bt': 'bpftrace', 'perf': 'perf record -g'}[tool]
            L.append('| %s %s Hz | %s (%s–%s) | %+.2f%% | %+.2f%% – %+.2f%% | '
                     '{perf:%s} | %s |' % (
                         tool, hz, fmt_ns(median(v)), fmt_ns(quantile(v, .25)),
                         fmt_ns(quantile(v, .75)), 100 * median(rel),
                         100 * quantile(rel, .25), 100 * quantile(rel, .75), c,
                         'within noise (p=%.2f)' % p if within else 'p=%.3f' % p))
        for i, line in enumerate(L):
            if '{perf:' not in line:
                continue
            c = line.split('{perf:')[1].split('}')[0]
            pc = 'perf_' + c.split('_')[1]
            r = '—' if c == pc or pc not in slow or slow[pc] <= 0 else \
                '%.2f×' % (slow[c] / slow[pc])
            L[i] = line.replace('{perf:%s}' % c, r)
        if 'kprof_99' in slow:
            k99 = slow['kprof_99']
            _, _, within = noise_verdict(base, paired(base, cpu['kprof_99']))
            bnoise = mad(list(base.values())) / median(list(base.values()))
            targets.append(('sampling at 99 Hz within noise and ≤ 1%',
                            None if bnoise > 0.01 else within and k99 <= 0.01,
                            '%+.2f%% (%s)' % (100 * k99, 'within noise'
                                              if within else 'outside noise')))
            if 'perf_99' in slow:
                targets.append(('sampling at 99 Hz below perf record -g',
                                None if bnoise > 0.01 else k99 < slow['perf_99'],
                                '%+.2f%% vs %+.2f%%' % (100 * k99,
                                                       100 * slow['perf_99'])))
        bcc_notes = []
        for hz in ('99', '999'):
            if 'bcc_start_s_' + hz in info:
                bcc_notes.append('at %s Hz it took %s s to start' % (hz, info['bcc_start_s_' + hz]))
            if 'bcc_skipped_' + hz in info:
                bcc_notes.append('at %s Hz it was not measured (%s)' % (hz, info['bcc_skipped_' + hz]))
        L.append('bcc\'s profile compiles its BPF program with clang at '
                 'every start, which takes minutes under TCG, too long to '
                 'alternate round by round: it runs once per frequency at '
                 'the end of the run, while the time budget lasts, paired '
                 'with a run without profiler just before it (one pair: its '
                 'noise verdict uses the other rounds\' spread)%s.\n'
                 % ('; ' + '; '.join(bcc_notes) if bcc_notes else ''))
        L.append('Base noise (MAD of the no-profiler runtimes): %.2f%%.\n'
                 % (100 * mad(list(base.values())) / median(list(base.values()))))

    # ---- export ----
    if export:
        L.append('## Export\n')
        L.append('A key is one exported TCP row (stack, remote endpoint, '
                 'role).  `export_cost -k N` opens N loopback connections, '
                 'each with a round trip and a second request (tracing at '
                 'threshold 100 s), '
                 'one server-side row per client address and port plus one '
                 'client row per server (one server per CPU): N + CPUs '
                 'rows.  Each connection binds a client port of its own '
                 '(ports the kernel picks repeat once their connection is '
                 'closed, which merged keys into one row in earlier runs); '
                 'the linearity target is judged on rows exported.  It '
                 'times KPROF_IOC_SNAPSHOT (close '
                 'the interval, merge the per-CPU tables, publish) and one '
                 'pass over every row and histogram bucket of the mapping '
                 '(first read, page faults included, and a second read).  '
                 'Module loaded with %s.\n' % info.get('export_params', '?'))
        L.append('| keys | rows exported | runs | snapshot: median (min–max) | '
                 'first read | re-read | snapshot per key | drops |')
        L.append('|---|---|---|---|---|---|---|---|')
        per_key = []
        for k in sorted(export):
            rs = export[k]
            sn = [r['snapshot_ns'] for r in rs]
            rd = [r['read_ns'] for r in rs]
            rr = [r['reread_ns'] for r in rs]
            rows = median([r['rows'] for r in rs])
            per_key.append((k, median(sn), median(rd), rows))
            L.append('| %d | %.0f | %d | %s (%s–%s) | %s | %s | %.0f ns | %d |' % (
                k, rows, len(rs), fmt_ns(median(sn)), fmt_ns(min(sn)),
                fmt_ns(max(sn)), fmt_ns(median(rd)), fmt_ns(median(rr)),
                median(sn) / k, sum(r['drops'] for r in rs)))
        if len(per_key) > 1:
            g = []
            for (k0, s0, r0, _), (k1, s1, r1, _) in zip(per_key, per_key[1:]):
                g.append('%d→%d keys (×%.0f): snapshot ×%.1f, read ×%.1f' % (
                    k0, k1, k1 / k0, s1 / s0, r1 / r0))
            L.append('\nGrowth: ' + '; '.join(g) + '.\n')
        idle = sorted(v[0] + v[1] for k, v in reader.items()
                      if k.startswith('idle'))
        if 'keyed' in reader and idle:
            # "reader keyed USER SYS KEYS [ROWS]": older runs lack ROWS
            ku, ks, kn = reader['keyed'][:3]
            held = ''
            if len(reader['keyed']) > 3:
                held = ' (the interval held %d rows)' % reader['keyed'][3]
            keyed_cpu = ku + ks
            cost = keyed_cpu - median(idle)
            L.append('Reader: `kprof top --no-cpu --threshold 100s --json -n 1` '
                     '(the largest 10 rows, as top shows them) over one '
                     'interval in which `export_cost -g -k %d` made %d keys%s '
                     'used %.3f s of CPU (user+sys, the snapshot ioctl '
                     'included), against a median of %.3f s (%d runs, '
                     '%.3f–%.3f s: the noise of this measurement) for the '
                     'same command over an empty interval: %.1f ms of CPU for '
                     'the %d keys, i.e. %.2f%% of one CPU if such an interval '
                     'came every second (TCG).' % (
                         kn, kn, held, keyed_cpu, median(idle), len(idle),
                         idle[0], idle[-1], cost * 1e3, kn, cost * 100))
            L.append('')
        if native:
            L.append('Reader natively, on the host (%s): `kprof top --no-cpu '
                     '--json` against the fake /dev/kprof of the command-line '
                     'tests (`bench/native-reader.sh`: user space only, no '
                     'module), CPU per interval, less that of the fake\'s '
                     'four rows alone:\n' % info.get('host', 'unknown host'))
            L.append('| TCP rows | shown | CPU per interval | of one CPU at 1 s |')
            L.append('|---|---|---|---|')
            for rows, top in sorted(native):
                per = native_per(rows, top)
                if not rows or per is None:
                    continue
                L.append('| %d | %s | %.2f ms | %.2f%% |' % (
                    rows, 'largest %d' % top if top < rows else 'all',
                    per * 1e3, per * 100))
            L.append('')
        # Linear means a fixed cost plus the same cost for every further
        # row: compare the marginal cost per row of the last step with
        # that of the first (the cost per row alone falls as the fixed
        # part is spread over more rows).  Rows exported, which also
        # count the client rows.
        if len(per_key) > 2:
            (_, s0, _, k0), (_, s1, _, k1) = per_key[0], per_key[1]
            (_, s2, _, k2), (_, s3, _, k3) = per_key[-2], per_key[-1]
            m0 = (s1 - s0) / (k1 - k0) if k1 > k0 else float('nan')
            m1 = (s3 - s2) / (k3 - k2) if k3 > k2 else float('nan')
            g = m1 / m0 if m0 > 0 else float('inf')
            targets.append(('export cost linear in keys',
                            g <= 2,
                            'snapshot cost per further row %s (%d→%d rows), '
                            '%s (%d→%d rows): ×%.2f' %
                            (fmt_ns(m0), k0, k1, fmt_ns(m1), k2, k3, g)))
        elif len(per_key) > 1:
            k0, s0, _, _ = per_key[0]
            k1, s1, _, _ = per_key[-1]
            g = (s1 / s0) / (k1 / k0)
            targets.append(('export cost linear in keys',
                            g <= 2,
                            'snapshot per key ×%.2f from %d to %d keys' %
                            (g, k0, k1)))
        if 'keyed' in reader and idle:
            val = '%.2f%% in the VM (TCG, snapshot ioctl included)' % (
                cost * 100)
            nat = native_per(10000, 10)
            if nat is not None:
                val += '; %.2f%% natively (user space alone)' % (nat * 100)
            # a keyed run inside the idle runs' spread tells nothing
            inside = idle[0] <= keyed_cpu <= idle[-1]
            if inside:
                val += ' (the keyed run within the idle runs\' spread)'
            targets.append(('reader < 1% of a CPU at 1 s with 10k keys',
                            None if inside else cost < 0.01, val))
    if targets:
        L.append('## Targets\n')
        L.append('| target | holds? | measured |')
        L.append('|---|---|---|')
        for name, ok, val in targets:
            L.append('| %s | %s | %s |' % (
                name, 'cannot tell: the differences are within noise'
                if ok is None else 'yes' if ok else '**no**', val))
        L.append('')
    missing = []
    if not export:
        missing.append('export cost and reader CPU (stage did not run)')
    if not mem:
        missing.append('memory (stage did not run)')
    if not any(c.startswith('bcc_') for c in cpu):
        missing.append('bcc profile (did not run)')
    for stage, d in (('tcp', tcp), ('cpu', cpu)):
        got = {r for v in d.values() for r in v}
        if d and len(got) < int(info.get('rounds', '0')):
            missing.append('%s stage: %d of %s rounds' % (stage, len(got), info['rounds']))
        absent = [c for c in info.get('configs_' + stage, '').split()
                  if c not in d]
        if d and absent:
            missing.append('%s stage: no result from %s' % (stage, ', '.join(absent)))
    if missing:
        L.append('**Not measured in this run**: ' + '; '.join(missing) + '.\n')
    # ---- memory ----
    if mem:
        L.append('## Memory\n')
        cpus = int(info.get('cpus', '1'))
        L.append('Measured in the guest (%d CPUs) right after loading, with '
                 '`budget_ppm=0` and the parameters named (others at their '
                 'defaults): the module\'s vmalloc areas (/proc/vmallocinfo, '
                 'callers in kprofmod), its core size (/proc/modules), and '
                 'of the vmalloc areas those of the per-CPU interval tables '
                 '(allocated in kprof_agg_init), divided by the CPUs.\n' % cpus)
        L.append('| parameters | vmalloc | module core | total | '
                 'per CPU | shared (total − per CPU × CPUs) |')
        L.append('|---|---|---|---|---|---|')
        for m in mem:
            params, vm, core, agg = m[0], int(m[1]), int(m[2]), int(m[3])
            L.append('| %s | %.1f MiB | %.0f KiB | %.1f MiB | %.1f MiB | %.1f MiB |' % (
                params.replace(',', ' '), vm / 2**20, core / 1024,
                (vm + core) / 2**20, agg / cpus / 2**20,
                (vm + core - agg) / 2**20))
        L.append('')
    if 'max_note' in info:
        L.append(info['max_note'] + '\n')
    open(out, 'w').write('\n'.join(L) + '\n')


if __name__ == '__main__':
    main()
