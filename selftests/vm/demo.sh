#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make demo: build kprofmod and kprof for Debian's 6.1 kernel, boot it in a
# VM with virtme-ng, load the module and show what the reader sees.
set -euo pipefail
proj=$(cd "$(dirname "$0")/../.." && pwd)
name=${KPROF_DEMO_KERNEL:-6.1}
cd "$proj"

selftests/vm/kernel.sh fetch "$name" >/dev/null
kver=$(selftests/vm/kernel.sh kver "$name")
echo "== building kprofmod for $kver and the kprof reader"
selftests/vm/kernel.sh make "$name" module >/dev/null
make -s reader
echo "== booting $kver under virtme-ng (TCG, about a minute)"
exec selftests/vm/vng-run -k "$kver" -c 2 -- '
	set -e
	insmod kprofmod.ko
	echo "\$ kprof info"
	userspace/kprof info
	rmmod kprofmod
'
