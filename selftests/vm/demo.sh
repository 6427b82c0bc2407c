#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make demo: build kprofmod and kprof for Debian's 6.1 kernel, boot it in a
# VM with virtme-ng, load the module, drive a request/response workload
# with two slow endpoints (2 ms and 20 ms) and show `kprof top` live.
set -euo pipefail
proj=$(cd "$(dirname "$0")/../.." && pwd)
name=${KPROF_DEMO_KERNEL:-6.1}
cd "$proj"

selftests/vm/kernel.sh fetch "$name" >/dev/null
kver=$(selftests/vm/kernel.sh kver "$name")
echo "== building kprofmod for $kver, the kprof reader and the workload"
selftests/vm/kernel.sh make "$name" module >/dev/null
make -s selftests >/dev/null
echo "== booting $kver under virtme-ng (TCG, about a minute)"
exec selftests/vm/vng-run -k "$kver" -c 2 -- '
	set -e
	insmod kprofmod.ko
	echo "\$ kprof info"
	userspace/kprof info
	echo
	echo "\$ tcp_workload -d 7 2 20 &   # two servers: 2 ms and 20 ms per response"
	build/ksft/kprofmod/tcp_workload -d 7 2 20 >/tmp/workload.out &
	echo "\$ kprof top -i 1 -n 5 --threshold 10ms"
	userspace/kprof top -i 1 -n 5 --threshold 10ms
	wait
	echo
	echo "\$ # what the workload itself counted:"
	cat /tmp/workload.out
	rmmod kprofmod
'
