#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The reader's own CPU cost per interval on this machine, natively (the
# VM of guest-bench.sh is emulated): `kprof top --json` against the fake
# /dev/kprof of the command-line tests (userspace/tests/fakedev.so, which
# fills its rows once, so each interval costs only the reader), intervals
# of 20 ms, with the fake's four rows alone and with 10000 more, showing
# the largest 10 rows and every row (20 intervals of that one, each about
# 0.1 s of CPU; 100 of the others).  Prints one line per run:
#   native EXTRA_ROWS TOP INTERVALS USER_S SYS_S
set -eu
proj=$(cd "$(dirname "$0")/.." && pwd)
kprof=$proj/userspace/kprof
fake=$proj/userspace/tests/fakedev.so

for rows in 0 10000; do
	for top in 10 100000; do
		n=100
		[ "$rows.$top" != 10000.100000 ] || n=20
		python3 -c 'import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.6f %.6f" % (r.ru_utime, r.ru_stime))' \
			env KPROF_DEVICE=/fake/kprof KPROF_FAKE_EXTRA_ROWS=$rows \
			LD_PRELOAD="$fake" "$kprof" top --no-cpu --json \
			--top "$top" -i 0.02 -n "$n" |
			sed "s/^/native $rows $top $n /"
	done
done
