#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks for privacy.sh, on dumps of the /dev/kprof region (regions of
mmap_size bytes back to back, as payload_workload -o writes them) and on
any file the reader writes.

  privacy_scan.py scan FILE...       no payload marker in any form; exit 1
                                     and name the form and file if found
  privacy_scan.py selfcheck DIR      scan finds every form when planted
  privacy_scan.py kaddr DUMP         no kernel address in the region: no
                                     u64 in the kernel half, no user frame
                                     outside user space, no "0xffff..."
  privacy_scan.py endpoints DUMP MODE PORT4 PORT6
                                     the workload's rows hold the endpoint
                                     in the form MODE (full, prefix, hash)
                                     asks for; prints "ipv4 RADDR" and
                                     "ipv6 RADDR" (hex) as stored
"""
import base64
import gzip
import os
import re
import struct
import sys

MARKER = b"4111-1111-1111-1111"
NUMBER = 4111111111111111
BCD = bytes([0x41, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11])

# Every form the marker could take on its way out: as sent, pieces of it,
# the way tools encode bytes (hex, base64, UTF-16), the binary forms and
# those printed as numbers (a frame address shows as 0x...).
FORMS = {
    "text": MARKER,
    "digits": MARKER.replace(b"-", b""),
    "first half": MARKER[:9],
    "second half": MARKER[10:],
    "utf-16le": MARKER.decode().encode("utf-16le"),
    "hex": MARKER.hex().encode(),
    "HEX": MARKER.hex().upper().encode(),
    "base64": base64.b64encode(MARKER)[:24],
    "bcd": BCD,
    "bcd as u64 hex": b"%x" % struct.unpack("<Q", BCD)[0],
    "u64": struct.pack("<Q", NUMBER),
    "u64 big-endian": struct.pack(">Q", NUMBER),
    "u64 hex": b"%x" % NUMBER,
}

# payload_workload's frame marker: bytes 8-15 of a response that the frame
# pointer register points at, where a careless walker reads a return
# address.  As a u64 in a region, as an address printed in hex or decimal,
# and as the varint of a pprof location's address.
FRAME = struct.unpack("<Q", b"PAYMK1\0\0")[0]


def varint(v):
    out = bytearray()
    while True:
        out.append((v & 0x7f) | (0x80 if v > 0x7f else 0))
        v >>= 7
        if not v:
            return bytes(out)


FORMS.update({
    "frame marker": b"PAYMK1",
    "frame marker hex": b"%x" % FRAME,
    "frame marker decimal": b"%d" % FRAME,
    "frame marker varint": varint(FRAME),
})

AF_INET, AF_INET6 = 2, 10
RADDR_PREFIX, RADDR_HASH = 0x4000, 0x8000
HDR = struct.Struct("<IIIIQQQQQIIQIIQII")
ROW = struct.Struct("<IHH16sB7xQ")
USER_TOP = 0x0000800000000000       # x86-64: above this is not user space
KERNEL_BASE = 0xffff800000000000


def contents(path):
    with open(path, "rb") as f:
        data = f.read()
    out = [data]
    if data[:2] == b"\x1f\x8b":
        out.append(gzip.decompress(data))
    return out


def scan(paths):
    bad = 0
    for p in paths:
        for data in contents(p):
            low = data.lower()
            for name, form in FORMS.items():
                hay = low if form.isascii() and form.lower() == form else data
                if form in hay:
                    print("# marker (%s) found in %s" % (name, p))
                    bad = 1
    return bad


def selfcheck(d):
    filler = os.urandom(4096).replace(b"4", b"5").replace(b"\x41", b"\x42")
    bad = 0
    for i, (name, form) in enumerate(FORMS.items()):
        p = os.path.join(d, "planted%d" % i)
        data = filler[:1000] + form + filler[1000:]
        if i % 2:
            data = gzip.compress(data)
        with open(p, "wb") as f:
            f.write(data)
        with open(os.devnull, "w") as null:
            saved, sys.stdout = sys.stdout, null
            found = scan([p])
            sys.stdout = saved
        if not found:
            print("# planted %s not found" % name)
            bad = 1
    clean = os.path.join(d, "clean")
    with open(clean, "wb") as f:
        f.write(filler)
    return bad or scan([clean])


def regions(path):
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < HDR.size:
        sys.exit("# %s: no region" % path)
    size = HDR.unpack_from(data)[5]
    if not size or len(data) % size:
        sys.exit("# %s: %d bytes, not regions of %d" % (path, len(data), size))
    for off in range(0, len(data), size):
        yield data[off:off + size]


def header(r):
    h = HDR.unpack_from(r)
    if h[0] != 0x4b505246:
        sys.exit("# bad magic")
    return {"rows_off": h[8], "row_size": h[9], "nr_rows": h[10],
            "stacks_off": h[11], "stack_size": h[12], "nr_stacks": h[13],
            "strings_off": h[14], "strings_len": h[15]}


def rows(r):
    h = header(r)
    for i in range(h["nr_rows"]):
        yield ROW.unpack_from(r, h["rows_off"] + i * h["row_size"])


def kaddr(path):
    bad = 0
    n_user = 0
    for r in regions(path):
        h = header(r)
        for off in range(0, len(r) - 7, 8):
            v = struct.unpack_from("<Q", r, off)[0]
            if KERNEL_BASE <= v < 0xffffffffffff0000:
                print("# kernel-half value 0x%x at offset %d" % (v, off))
                bad = 1
                break
        for i in range(h["nr_stacks"]):
            off = h["stacks_off"] + i * h["stack_size"]
            nr_user = struct.unpack_from("<H", r, off + 10)[0]
            ips = struct.unpack_from("<%dQ" % nr_user, r, off + 16)
            n_user += nr_user
            for ip in ips:
                if ip >= USER_TOP:
                    print("# user frame 0x%x outside user space" % ip)
                    bad = 1
        strings = r[h["strings_off"]:h["strings_off"] + h["strings_len"]]
        if re.search(rb"0x[0-9a-f]{12,16}(?![0-9a-f/])", strings.lower()):
            print("# a raw address among the kernel frames")
            bad = 1
    print("# %d user frames checked" % n_user)
    return bad


def want_full(af):
    if af == AF_INET:
        return bytes([127, 0, 0, 1]) + bytes(12)
    return bytes(15) + b"\x01"


def endpoints(path, mode, port4, port6):
    """Every TCP row of the quiet test VM is the workload's: its clients
    (remote port PORT4 or PORT6) and its servers (the peer on loopback)."""
    seen = {AF_INET: set(), AF_INET6: set()}
    clients = set()
    walked = 0
    flag = {"full": 0, "prefix": RADDR_PREFIX, "hash": RADDR_HASH}[mode]
    want = {
        "full": {AF_INET: want_full(AF_INET), AF_INET6: want_full(AF_INET6)},
        "prefix": {AF_INET: bytes([127, 0, 0, 0]) + bytes(12),
                   AF_INET6: bytes(16)},
    }.get(mode)
    bad = 0
    for r in regions(path):
        for stack_id, fam, rport, raddr, role, count in rows(r):
            af = fam & ~(RADDR_PREFIX | RADDR_HASH)
            if af not in seen or fam & (RADDR_PREFIX | RADDR_HASH) != flag:
                print("# row family 0x%x, want %d or %d with flag 0x%x" %
                      (fam, AF_INET, AF_INET6, flag))
                bad = 1
                continue
            if want and raddr != want[af]:
                print("# %s row raddr %s" % (mode, raddr.hex()))
                bad = 1
            if mode == "hash" and (raddr[8:] != bytes(8) or
                                   raddr == want_full(af)):
                print("# hash row raddr %s" % raddr.hex())
                bad = 1
            if role == 1 and rport in (port4, port6):
                clients.add(rport)
            if stack_id:
                walked += 1
            seen[af].add(raddr)
    for af, name in ((AF_INET, "ipv4"), (AF_INET6, "ipv6")):
        if len(seen[af]) != 1:
            print("# %s: %d distinct raddrs, want 1" % (name, len(seen[af])))
            bad = 1
        for v in seen[af]:
            print("%s %s" % (name, v.hex()))
    if clients != {port4, port6}:
        print("# client rows for ports %s, want %d and %d" %
              (sorted(clients), port4, port6))
        bad = 1
    if not walked:
        print("# no row has a stack: threshold 0 did not walk")
        bad = 1
    if mode == "hash" and seen[AF_INET] == seen[AF_INET6]:
        print("# IPv4 and IPv6 loopback hash alike")
        bad = 1
    return bad


def main():
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd == "scan":
        return scan(sys.argv[2:])
    if cmd == "selfcheck":
        return selfcheck(sys.argv[2])
    if cmd == "kaddr":
        return kaddr(sys.argv[2])
    if cmd == "endpoints":
        return endpoints(sys.argv[2], sys.argv[3], int(sys.argv[4]),
                         int(sys.argv[5]))
    print(__doc__, file=sys.stderr)
    return 2


sys.exit(main())
