#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Strict check of a Prometheus text exposition (format 0.0.4) file.

   prom-check.py [--prefix P] [--previous OLD] FILE

Checks the rules kprof top --prometheus relies on, more strictly than
the format demands: no blank lines, no other comments than HELP and TYPE,
no timestamps (node_exporter's textfile collector refuses them).

- the file ends in a newline; lines are "# HELP", "# TYPE" or samples
- metric names match [a-zA-Z_:][a-zA-Z0-9_:]*, label names
  [a-zA-Z_][a-zA-Z0-9_]* and do not start with "__"; with --prefix every
  metric name starts with P
- label values are quoted, with only \\\\, \\" and \\n as escapes; HELP text
  only \\\\ and \\n
- values are Go floats (NaN, +Inf, -Inf allowed, except where said below)
- each family has one HELP and one TYPE, both before its first sample,
  and its samples are contiguous (families grouped, never split)
- sample names fit the family's TYPE: counter NAME (ending in _total),
  gauge NAME, histogram NAME_bucket, NAME_sum, NAME_count
- no two samples with the same name and label set; no label twice
- counters and histogram buckets/counts are finite and >= 0
- histograms: per series (labels but le), buckets with le only on
  _bucket, le strictly increasing in file order, the last +Inf, counts
  cumulative (non-decreasing), _count equal to the +Inf bucket, one _sum
- with --previous OLD (an earlier file of the same writer): no counter,
  bucket, _count or _sum is smaller than it was in OLD, and no series of
  OLD is gone

Prints one line per problem (FILE:LINE: reason) and exits 1 if any.
"""
import math
import re
import sys

NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")
LABEL = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")
FLOAT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
TYPES = ("counter", "gauge", "histogram", "summary", "untyped")


class Bad(Exception):
    pass


def parse_value(s):
    if s in ("NaN", "+Inf", "-Inf"):
        return float(s.replace("Inf", "inf").replace("NaN", "nan"))
    if not FLOAT.fullmatch(s):
        raise Bad("bad value %r" % s)
    return float(s)


def parse_labels(s, i):
    """Labels from s[i] == '{'; returns (list of (name, value), index
    after '}')."""
    labels = []
    i += 1
    if s[i:i + 1] == "}":
        return labels, i + 1
    while True:
        m = LABEL.match(s, i)
        if not m:
            raise Bad("bad label name at %r" % s[i:i + 20])
        name = m.group(0)
        if name.startswith("__"):
            raise Bad("reserved label name %r" % name)
        i = m.end()
        if s[i:i + 2] != '="':
            raise Bad("label %s: expected =\"" % name)
        i += 2
        val = []
        while True:
            if i >= len(s):
                raise Bad("label %s: unterminated value" % name)
            c = s[i]
            if c == '"':
                i += 1
                break
            if c == "\\":
                e = s[i + 1:i + 2]
                if e not in ("\\", '"', "n"):
                    raise Bad("label %s: bad escape \\%s" % (name, e))
                val.append("\n" if e == "n" else e)
                i += 2
                continue
            val.append(c)
            i += 1
        labels.append((name, "".join(val)))
        if s[i:i + 1] == ",":
            i += 1
            if s[i:i + 1] == "}":	# a trailing comma: allowed, but not by us
                raise Bad("trailing comma in labels")
            continue
        if s[i:i + 1] == "}":
            return labels, i + 1
        raise Bad("expected , or } after label %s" % name)


def parse_sample(line):
    m = NAME.match(line)
    if not m:
        raise Bad("bad metric name at %r" % line[:30])
    name, i = m.group(0), m.end()
    labels = []
    if line[i:i + 1] == "{":
        labels, i = parse_labels(line, i)
    if line[i:i + 1] != " ":
        raise Bad("expected one space before the value")
    rest = line[i + 1:]
    if " " in rest or "\t" in rest:
        raise Bad("timestamp or stray white space after the value: %r" % rest)
    names = [n for n, _ in labels]
    if len(set(names)) != len(names):
        raise Bad("a label twice: %s" % names)
    return name, labels, parse_value(rest)


def family_of(name, types):
    """The family a sample name belongs to, by the TYPEs seen so far."""
    if name in types and types[name] != "histogram":
        return name
    for suffix in ("_bucket", "_sum", "_count"):
        base = name[:-len(suffix)] if name.endswith(suffix) else None
        if base and types.get(base) == "histogram":
            return base
    return None


def check(path, prefix):
    """Returns (problems, {(name, labels): value}, {family: type})."""
    problems = []
    try:
        text = open(path, encoding="utf-8", newline="").read()
    except (OSError, UnicodeDecodeError) as e:
        return ["%s: %s" % (path, e)], {}, {}
    if not text.endswith("\n"):
        problems.append("%s: no newline at the end" % path)
    helps, types, done = {}, {}, set()
    current = None
    series = {}
    hist = {}		# (family, labels but le) -> state
    for no, line in enumerate(text.split("\n")[:-1], 1):
        where = "%s:%d" % (path, no)
        try:
            if line == "":
                raise Bad("blank line")
            if "\r" in line:
                raise Bad("carriage return")
            if line.startswith("#"):
                m = re.fullmatch(r"# (HELP|TYPE) (\S+) (.*)", line)
                if not m:
                    raise Bad("a comment that is not HELP or TYPE")
                kind, name, rest = m.groups()
                if not NAME.fullmatch(name):
                    raise Bad("bad metric name %r" % name)
                if prefix and not name.startswith(prefix):
                    raise Bad("%s does not start with %s" % (name, prefix))
                if name in done:
                    raise Bad("%s: family split or described again" % name)
                if (name in helps and kind == "HELP") or (name in types and kind == "TYPE"):
                    raise Bad("second %s for %s" % (kind, name))
                if current is not None and name != current:
                    done.add(current)
                current = name
                if kind == "HELP":
                    if not re.fullmatch(r"(?:[^\\]|\\[\\n])*", rest):
                        raise Bad("bad escape in HELP")
                    helps[name] = rest
                else:
                    if rest not in TYPES:
                        raise Bad("unknown TYPE %r" % rest)
                    if rest == "counter" and not name.endswith("_total"):
                        raise Bad("counter %s does not end in _total" % name)
                    types[name] = rest
                continue
            name, labels, value = parse_sample(line)
            fam = family_of(name, types)
            if fam is None:
                raise Bad("%s: no TYPE before its sample" % name)
            if fam != current:
                raise Bad("%s: sample outside its family's group" % name)
            if fam not in helps:
                raise Bad("%s: no HELP before its sample" % fam)
            key = (name, tuple(sorted(labels)))
            if key in series:
                raise Bad("duplicate series %s%s" % (name, dict(labels)))
            series[key] = value
            kind = types[fam]
            if kind in ("counter", "histogram") and not (value >= 0 and math.isfinite(value)):
                raise Bad("%s: %s value %r" % (name, kind, value))
            has_le = any(n == "le" for n, _ in labels)
            if kind != "histogram" or not name.endswith("_bucket"):
                if has_le and kind == "histogram":
                    raise Bad("le on %s" % name)
                if kind != "histogram":
                    continue
            rest = tuple(sorted((n, v) for n, v in labels if n != "le"))
            h = hist.setdefault((fam, rest), {"le": [], "inf": None,
                                              "count": None, "sum": None})
            if name.endswith("_bucket"):
                if not has_le:
                    raise Bad("%s without le" % name)
                if h["count"] is not None or h["sum"] is not None:
                    raise Bad("bucket after _sum/_count of its series")
                le = parse_value(dict(labels)["le"])
                if h["le"] and le <= h["le"][-1][0]:
                    raise Bad("le %s not above the previous %s" % (le, h["le"][-1][0]))
                if h["le"] and value < h["le"][-1][1]:
                    raise Bad("buckets not cumulative: le %s has %s < %s"
                              % (le, value, h["le"][-1][1]))
                h["le"].append((le, value))
                if le == math.inf:
                    h["inf"] = value
            elif name.endswith("_count"):
                if h["count"] is not None:
                    raise Bad("second _count")
                h["count"] = value
            elif name.endswith("_sum"):
                if h["sum"] is not None:
                    raise Bad("second _sum")
                h["sum"] = value
        except Bad as e:
            problems.append("%s: %s" % (where, e))
    for name in types.keys() ^ helps.keys():
        problems.append("%s: %s has %s but no %s" % (
            path, name, *(("TYPE", "HELP") if name in types else ("HELP", "TYPE"))))
    for (fam, rest), h in hist.items():
        what = "%s%s" % (fam, dict(rest))
        if h["inf"] is None:
            problems.append("%s: %s: no le=\"+Inf\" bucket" % (path, what))
        elif h["le"][-1][0] != math.inf:
            problems.append("%s: %s: +Inf is not the last bucket" % (path, what))
        if h["count"] is None or h["sum"] is None:
            problems.append("%s: %s: no _count or no _sum" % (path, what))
        elif h["inf"] is not None and h["count"] != h["inf"]:
            problems.append("%s: %s: _count %s != +Inf bucket %s"
                            % (path, what, h["count"], h["inf"]))
    return problems, series, types


def main(argv):
    prefix, previous, args = None, None, []
    it = iter(argv)
    for a in it:
        if a == "--prefix":
            prefix = next(it, None)
        elif a == "--previous":
            previous = next(it, None)
        else:
            args.append(a)
    if len(args) != 1 or (prefix is None and "--prefix" in argv) or \
       (previous is None and "--previous" in argv):
        print("usage: prom-check.py [--prefix P] [--previous OLD] FILE", file=sys.stderr)
        return 2
    problems, series, types = check(args[0], prefix)
    if previous and not problems:
        old_problems, old, old_types = check(previous, prefix)
        problems += old_problems
        for key, v in old.items():
            name = key[0]
            fam = family_of(name, old_types)
            if key not in series:
                problems.append("%s: series %s%s of %s is gone"
                                % (args[0], name, dict(key[1]), previous))
            elif old_types.get(fam) in ("counter", "histogram") and series[key] < v:
                problems.append("%s: %s%s went down: %s < %s"
                                % (args[0], name, dict(key[1]), series[key], v))
    for p in problems[:30]:
        print(p)
    if len(problems) > 30:
        print("(%d more)" % (len(problems) - 30))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
