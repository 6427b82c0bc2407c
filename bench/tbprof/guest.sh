#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs in `make bench-profile`'s VM (one vCPU, -icount, the tbcount
# plugin): the workloads of the performance gate, each between two dumps
# of the plugin's counts, then the guest's kallsyms for bench/tbprof/report.py.
#
#   guest.sh DIR     DIR: the directory the plugin answers in (shared)
#
# Windows: cpu_none (cpu_work alone), cpu_floor (bench/floor's empty
# overflow handler at 9999 Hz), cpu_kprof (a reader sampling at 9999 Hz);
# rr_none (tcp_rr -s alone), rr_tracked (a reader tracking TCP),
# rr_stacked (a stack on every request).  Each window's workload prints
# its own count ("ns" of this clock) to DIR/counts.
set -u
proj=$(cd "$(dirname "$0")/../.." && pwd)
dir=$1
bin=$proj/build/bench/bin
kprof=$proj/userspace/kprof
. "$proj/selftests/lib.sh"

# ask: a dump of the counts so far as DIR/dump.NAME
ask()
{
	: >"$dir/req.$1"
	kp_poll 120 test -e "$dir/dump.$1" || { echo "tbprof: no dump $1" >&2; exit 1; }
}

cpu() { taskset -c 0 "$bin/cpu_work" -t 1 -n 100 | awk '/^ns/ { print $2 }'; }
rr() { taskset -c 0 "$bin/tcp_rr" -s -n 2000 | awk '{ print $2 }'; }

# window NAME CMD: CMD once unmeasured, then between two dumps
window()
{
	local name=$1
	shift
	"$@" >/dev/null
	ask "$name.0"
	echo "$name $("$@")" >>"$dir/counts"
	ask "$name.1"
	# the symbols as they are now: the ftrace_ops' trampolines come
	# and go with the readers
	cat /proc/kallsyms >"$dir/kallsyms.$name"
}

reader_up() { "$kprof" status 2>/dev/null | grep -qE '^ *running: *(tcp|cpu)'; }

# with_reader ARGS... -- CMD: CMD while a reader holds a session with ARGS
reader=''
reader_start()
{
	"$kprof" top -i 3600 "$@" >/dev/null 2>"$dir/reader.err" &
	reader=$!
	kp_poll 60 reader_up && sleep 5
}
reader_stop() { kill "$reader" 2>/dev/null; wait "$reader" 2>/dev/null; }

mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
: >"$dir/counts"
window cpu_none cpu
window rr_none rr
insmod "$proj/bench/floor/kprof_floor.ko" mode=sample hz=9999 || exit 1
window cpu_floor cpu
rmmod kprof_floor
insmod "$proj/kprofmod.ko" budget_ppm=0 || exit 1
reader_start --no-cpu || exit 1
window rr_tracked rr
reader_stop
reader_start --no-cpu --threshold 0 || exit 1
window rr_stacked rr
reader_stop
reader_start --no-tcp --freq 9999 || exit 1
window cpu_kprof cpu
reader_stop
rmmod kprofmod
echo "tbprof: done"
