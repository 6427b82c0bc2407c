#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarize `protoc --decode_raw` output of a pprof profile as JSON.

    gunzip -c FILE | protoc --decode_raw | tests/pprof-raw.py

decode_raw knows no schema: fields are numbers, and packed repeated
fields (Sample.location_id, Sample.value) come as escaped byte strings,
or as messages when their bytes happen to parse as one; either way they
are turned back into bytes and decoded here as varints.  Field numbers are those of pprof's
profile.proto.  Prints {"sample_type": [[type, unit]...], "samples":
[{"locations": [...], "values": [...], "labels": {key: str or num}}],
"functions": {id: name}, "locations": {id: {"mapping": id, "functions":
[ids]}}, "mappings": [{"id", "file", "build_id", "has_functions"}],
"period": n}.
"""
import json
import re
import sys


def parse(lines):
    """decode_raw text -> nested lists of (field, value) pairs."""
    stack = [[]]
    for line in lines:
        line = line.strip()
        if not line:
            continue
        if line == "}":
            done = stack.pop()
            stack[-1][-1] = (stack[-1][-1][0], done)
            continue
        m = re.match(r'^(\d+) \{$', line)
        if m:
            stack[-1].append((int(m.group(1)), None))
            stack.append([])
            continue
        m = re.match(r'^(\d+): (.*)$', line)
        if not m:
            raise ValueError("cannot parse: " + line)
        stack[-1].append((int(m.group(1)), m.group(2)))
    assert len(stack) == 1, "unbalanced braces"
    return stack[0]


def unescape(s):
    """A C-escaped string literal "..." as bytes."""
    assert s.startswith('"') and s.endswith('"'), s
    s = s[1:-1]
    out = bytearray()
    i = 0
    simple = {'n': 10, 't': 9, 'r': 13, '"': 34, "'": 39, '\\': 92}
    while i < len(s):
        c = s[i]
        if c != '\\':
            out += c.encode('latin-1')
            i += 1
            continue
        n = s[i + 1]
        if n in simple:
            out.append(simple[n])
            i += 2
        elif n == 'x':
            m = re.match(r'[0-9a-fA-F]{1,2}', s[i + 2:])
            out.append(int(m.group(0), 16))
            i += 2 + len(m.group(0))
        else:
            m = re.match(r'[0-7]{1,3}', s[i + 1:])
            out.append(int(m.group(0), 8))
            i += 1 + len(m.group(0))
    return bytes(out)


def varints(b):
    vals, v, shift = [], 0, 0
    for byte in b:
        v |= (byte & 0x7f) << shift
        shift += 7
        if not byte & 0x80:
            vals.append(v)
            v, shift = 0, 0
    assert shift == 0, "truncated varint"
    return vals


def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7f
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def encodings(fields, limit=4096):
    """Every byte string decode_raw may have printed as @fields: a block
    "N {" is a length-delimited field that parsed as a message or a group,
    which the text does not tell apart."""
    results = [b""]
    for f, v in fields:
        if isinstance(v, list):
            opts = []
            for body in encodings(v, limit):
                opts.append(varint(f << 3 | 2) + varint(len(body)) + body)
                opts.append(varint(f << 3 | 3) + body + varint(f << 3 | 4))
        elif v.startswith('"'):
            body = unescape(v)
            opts = [varint(f << 3 | 2) + varint(len(body)) + body]
        elif v.startswith('0x') and len(v) == 10:
            opts = [varint(f << 3 | 5) + int(v, 16).to_bytes(4, 'little')]
        elif v.startswith('0x'):
            opts = [varint(f << 3 | 1) + int(v, 16).to_bytes(8, 'little')]
        else:
            opts = [varint(f << 3) + varint(int(v) & (2**64 - 1))]
        results = [r + o for r in results for o in opts][:limit]
    return results


def ints(fields, num, valid):
    """Repeated integer field @num, packed or not.  A packed field whose
    bytes happened to parse as a message is tried every way it can be
    read back; exactly one reading must pass @valid."""
    out = []
    for f, v in fields:
        if f != num:
            continue
        if isinstance(v, list):
            found = set()
            for b in encodings(v):
                try:
                    vals = varints(b)
                except AssertionError:
                    continue
                if valid(vals):
                    found.add(tuple(vals))
            if len(found) != 1:
                raise ValueError("field %d: %d readings of %r" %
                                 (num, len(found), v))
            out += list(found.pop())
        elif v.startswith('"'):
            out += varints(unescape(v))
        else:
            out.append(int(v))
    return out


def one(fields, num, default=0):
    for f, v in fields:
        if f == num:
            return v
    return default


def main():
    top = parse(sys.stdin)
    strings = [unescape(v).decode('utf-8', 'replace') if v.startswith('"')
               else v for f, v in top if f == 6]
    s = lambda i: strings[int(i)]
    res = {"sample_type": [], "samples": [], "functions": {},
           "locations": {}, "mappings": [], "strings": strings,
           "period": int(one(top, 12, 0))}
    nloc = sum(1 for f, v in top if f == 4)
    ntypes = sum(1 for f, v in top if f == 1)
    for f, v in top:
        if f == 1:
            res["sample_type"].append([s(one(v, 1)), s(one(v, 2))])
        elif f == 2:
            labels = {}
            for lf, lv in v:
                if lf == 3:
                    key = s(one(lv, 1))
                    labels[key] = (s(one(lv, 2)) if one(lv, 2, None)
                                   is not None else int(one(lv, 3)))
            res["samples"].append({
                "locations": ints(v, 1, lambda l: all(0 < x <= nloc
                                                      for x in l)),
                "values": ints(v, 2, lambda l: len(l) == ntypes),
                "labels": labels})
        elif f == 3:
            res["mappings"].append({
                "id": int(one(v, 1)), "file": s(one(v, 5)),
                "build_id": s(one(v, 6)),
                "has_functions": one(v, 7, "0") == "1"})
        elif f == 4:
            res["locations"][int(one(v, 1))] = {
                "mapping": int(one(v, 2)),
                "address": int(one(v, 3)),
                "functions": [int(one(l, 1)) for lf, l in v if lf == 4]}
        elif f == 5:
            res["functions"][int(one(v, 1))] = s(one(v, 2))
    json.dump(res, sys.stdout)


main()
