#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs inside the benchmark VM (through `make bench-wallclock`): every configuration
# of every stage, alternating within each round, raw timings on stdout
# and in $BENCH_RAW.  See bench/WALLCLOCK.md for what is measured.
#
# Environment (defaults sized for a 2-vCPU TCG guest):
#   BENCH_ROUNDS     rounds of every configuration (6)
#   BENCH_RR_CONNS   tcp_rr connections (4)
#   BENCH_RR_REQS    tcp_rr round trips per connection (2000)
#   BENCH_CPU_ITERS  cpu_work rounds per thread (800)
#   BENCH_CPU_THREADS cpu_work threads (1)
#   BENCH_PIN        CPU list the timed workloads are pinned to ("0"; empty:
#                    not pinned).  Unpinned, where the scheduler puts the
#                    threads moves a run's time more than the tracers do
#                    under CPU emulation; the tracers' own threads (bpftrace,
#                    perf, the reader) run where the scheduler puts them.
#   BENCH_BUDGET     seconds the whole run may take (780): bcc's profile,
#                    which compiles its program with clang at every start
#                    (minutes under TCG), runs last, once per frequency,
#                    only while this budget lasts
#   BENCH_KEYS       key counts for the export stage ("1000 10000 100000")
#   BENCH_STAGES     stages to run ("tcp cpu export mem")
set -u
proj=$(cd "$(dirname "$0")/.." && pwd)
cd "$proj" || exit 1
bin=$proj/build/bench/bin
bt=$proj/bench/bt
kprof=$proj/userspace/kprof
ko=$proj/kprofmod.ko
raw=${BENCH_RAW:-$proj/build/bench/raw.txt}
rounds=${BENCH_ROUNDS:-6}
budget=${BENCH_BUDGET:-780}
t_start=$(date +%s)
rr_conns=${BENCH_RR_CONNS:-4}
rr_reqs=${BENCH_RR_REQS:-2000}
cpu_iters=${BENCH_CPU_ITERS:-800}
cpu_threads=${BENCH_CPU_THREADS:-1}
pin=${BENCH_PIN-0}
keys_list=${BENCH_KEYS:-1000 10000 100000}
stages=${BENCH_STAGES:-tcp cpu export mem bcc}
export_params="budget_ppm=0 cpu_rows=65536 tcp_rows=131072"
tmp=$(mktemp -d)

: >"$raw"
out() { echo "$*" | tee -a "$raw"; }
log() { echo "bench: [$(($(date +%s) - t_start)) s] $*" >&2; }

mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
mountpoint -q /sys/kernel/tracing || mount -t tracefs none /sys/kernel/tracing
ulimit -n 65536

out "info kernel $(uname -r)"
out "info cpus $(nproc)"
out "info mem $(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
out "info host $(cat "$proj/build/bench/host.txt" 2>/dev/null || echo unknown host)"
out "info rounds $rounds"
out "info rr_conns $rr_conns"
out "info rr_reqs $rr_reqs"
out "info cpu_threads $cpu_threads"
out "info cpu_iters $cpu_iters"
out "info pin ${pin:-none}"
out "info export_params $export_params"

# the timed workloads run as "${pinned[@]}" PROGRAM ...
pinned=()
[ -z "$pin" ] || pinned=(taskset -c "$pin")

load() { rmmod kprofmod 2>/dev/null; insmod "$ko" budget_ppm=0 "$@"; }

# cpu_time TIMES OUT CMD...: run CMD with its output to OUT, write its user
# and system CPU seconds to TIMES (to the microsecond: time(1) has 10 ms)
cpu_time()
{
	python3 -c 'import resource, subprocess, sys
subprocess.run(sys.argv[3:], stdout=open(sys.argv[2], "w"), check=True)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
open(sys.argv[1], "w").write("%.6f %.6f\n" % (r.ru_utime, r.ru_stime))' "$@"
}
unload() { rmmod kprofmod 2>/dev/null; }

# Start a tracer in the background, wait until it says it is attached
# (a line matching $1 in its output), leave its pid in $tracer.
tracer=''
start_tracer()
{
	local ready=$1 t0 end
	shift
	t0=$(date +%s%N)
	end=$((t0 + ${tracer_wait:-300} * 1000000000))
	"$@" >"$tmp/tracer.out" 2>&1 &
	tracer=$!
	while [ "$(date +%s%N)" -lt "$end" ]; do
		if grep -q "$ready" "$tmp/tracer.out"; then
			log "$1 ${2##*/} attached after" \
			    "$((($(date +%s%N) - t0) / 1000000)) ms"
			sleep 0.5
			return 0
		fi
		kill -0 "$tracer" 2>/dev/null || break
		sleep 0.25
	done
	log "tracer did not start: $*"
	cat "$tmp/tracer.out" >&2
	stop_tracer
	return 1
}

stop_tracer()
{
	[ -n "$tracer" ] || return 0
	local i
	kill -INT "$tracer" 2>/dev/null
	# A tracer that has not exited 15 s later is killed: bpftrace exits in
	# about 2 s under TCG, but now and then sits out any wait after
	# SIGINT (twice in one run, a minute each).  What it does after the
	# workload is not timed.
	for i in $(seq 60); do
		kill -0 "$tracer" 2>/dev/null || break
		sleep 0.25
	done
	kill -KILL "$tracer" 2>/dev/null
	wait "$tracer" 2>/dev/null
	tracer=''
}

# kprof top in the background: wait until its first interval starts.
start_kprof()
{
	"$kprof" top -i 1 --json "$@" >"$tmp/kprof.out" 2>&1 &
	tracer=$!
	local i
	for i in $(seq 200); do
		"$kprof" info 2>/dev/null | grep -qiE 'running:? *(tcp|cpu)' && { sleep 0.5; return 0; }
		kill -0 "$tracer" 2>/dev/null || break
		sleep 0.1
	done
	sleep 2
}

rotate()	# rotate $2... by $1 places
{
	local n=$1
	shift
	local a=("$@")
	local len=${#a[@]}
	local i
	for ((i = 0; i < len; i++)); do
		echo "${a[(i + n) % len]}"
	done
}

# ---- TCP request/response ----
rr() { "${pinned[@]}" "$bin/tcp_rr" -c "$rr_conns" -n "$rr_reqs" | awk '/ns_per_rt/ { print $2 }'; }

tcp_one()
{
	local cfg=$1 round=$2 v=''
	case $cfg in
	none)		unload; v=$(rr) ;;
	stopped)	load; v=$(rr); unload ;;
	kprof_hi)	load; start_kprof --no-cpu --threshold 100s && v=$(rr)
			# the module's own handler counts and costs, once
			[ "$round" != 1 ] || "$kprof" status >"$(dirname "$raw")/status-kprof_hi.txt" 2>&1
			stop_tracer; unload ;;
	kprof_t0)	load; start_kprof --no-cpu --threshold 0 && v=$(rr)
			stop_tracer; unload ;;
	bt_floor|bt_equiv|bt_stacks)
			unload
			start_tracer Attaching bpftrace "$bt/tcp_${cfg#bt_}.bt" && v=$(rr)
			stop_tracer ;;
	esac
	result tcp "$cfg" "$round" "$v"
}

# result STAGE CFG ROUND VALUE: one timing into the raw file; a
# configuration that gave none is said, and analyze.py lists it.
result()
{
	if [ -n "$4" ]; then
		out "$1 $2 $3 $4"
	else
		log "$1 $2 round $3: no result"
	fi
}

# run_rounds STAGE CFG...: every round runs each CFG once through STAGE_one,
# in an order rotated by one each round; the CFG list goes into the raw
# file, so that analyze.py knows what to expect.
run_rounds()
{
	local stage=$1 r c t0
	shift
	out "info configs_$stage $*"
	for ((r = 1; r <= rounds; r++)); do
		log "$stage round $r/$rounds"
		for c in $(rotate $((r - 1)) "$@"); do
			t0=$(date +%s%N)
			"${stage}_one" "$c" "$r"
			log "$stage $c took $((($(date +%s%N) - t0) / 1000000)) ms"
		done
	done
}

if [[ " $stages " == *" tcp "* ]]; then
	run_rounds tcp none stopped kprof_hi kprof_t0 bt_floor bt_equiv bt_stacks
fi

# ---- CPU sampling ----
work() { "${pinned[@]}" "$bin/cpu_work" -t "$cpu_threads" -n "$cpu_iters" | awk '/^ns/ { print $2 }'; }

# no_modules CMD...: CMD with an empty /lib/modules/RELEASE of its own (a
# private mount namespace).  perf record stats every module file there
# before it starts the workload, 6000 files over the guest's shared
# filesystem: 25 s under TCG per run, for module paths that only perf
# report would use.  Nothing changes while the workload runs.
no_modules()
{
	unshare -m sh -c 'mount -t tmpfs none "/lib/modules/$(uname -r)" && exec "$@"' sh "$@"
}

cpu_one()
{
	local cfg=$1 round=$2 v='' hz=${1#*_}
	case $cfg in
	none)	v=$(work) ;;
	kprof_*) load; start_kprof --no-tcp --freq "$hz" && v=$(work)
		stop_tracer; unload ;;
	perf_*)	v=$(no_modules perf record -q -B -F "$hz" -g -a -o "$tmp/perf.data" -- \
			"${pinned[@]}" "$bin/cpu_work" -t "$cpu_threads" -n "$cpu_iters" 2>/dev/null |
			awk '/^ns/ { print $2 }')
		rm -f "$tmp/perf.data" ;;
	bt_*)	sed "s/HZ/$hz/" "$bt/profile.bt" >"$tmp/profile.bt"
		start_tracer Attaching bpftrace "$tmp/profile.bt" && v=$(work)
		stop_tracer ;;
	esac
	result cpu "$cfg" "$round" "$v"
}

if [[ " $stages " == *" cpu "* ]]; then
	unload
	run_rounds cpu none kprof_99 perf_99 bt_99 kprof_999 perf_999 bt_999
fi

# ---- export ----
if [[ " $stages " == *" export "* ]]; then
	# one connection per key, each run on the same client ports again: no
	# TIME_WAIT left to hold them
	sysctl -qw net.ipv4.tcp_max_tw_buckets=0
	load ${export_params#budget_ppm=0 }
	for k in $keys_list; do
		n=2
		[ "$k" -ge 100000 ] && n=1
		[ "$k" -le 1000 ] && n=3
		for ((r = 1; r <= n; r++)); do
			log "export $k keys, run $r/$n"
			t0=$(date +%s)
			line=$("$bin/export_cost" -k "$k") && out "export $k $line"
			[ "$k" != 10000 ] || gen=$(($(date +%s) - t0))
		done
	done
	# the reader over one interval holding 10000 keys, and over an empty
	# one; the interval twice as long as making the keys took (1.5 times
	# was too short once: 9685 of the 10002 rows; the rows the reader saw
	# are recorded)
	if [ -z "${gen:-}" ]; then
		t0=$(date +%s)
		"$bin/export_cost" -g -k 10000
		gen=$(($(date +%s) - t0))
	fi
	ival=$((gen * 2 + 3))
	log "reader: three empty intervals, one of 10000 keys (${ival} s)"
	for i in 1 2 3; do	# three: their spread is the measurement's noise
		cpu_time "$tmp/time.idle$i" /dev/null \
			"$kprof" top --no-cpu --threshold 100s --json -i 1 -n 1
	done
	# as top shows it, the largest 10 rows (every row as JSON is timed
	# natively by native-reader.sh: here it would take another minute)
	cpu_time "$tmp/time.keyed" "$tmp/top.json" \
		"$kprof" top --no-cpu --threshold 100s --json -i "$ival" -n 1 &
	sleep 1
	"$bin/export_cost" -g -k 10000
	wait
	for i in 1 2 3; do out "reader idle$i $(cat "$tmp/time.idle$i") 0"; done
	rows=$(python3 -c 'import json, sys
print(max(json.loads(l)["tcp_rows"] for l in open(sys.argv[1]) if l.strip()))' \
		"$tmp/top.json")
	out "reader keyed $(cat "$tmp/time.keyed") 10000 $rows"
	unload
fi

# ---- memory ----
# The module's vmalloc bytes, its core size, and the vmalloc bytes of the
# per-CPU interval tables (allocated in kprof_agg_init), right after load.
mod_mem()
{
	local vm core agg
	vm=$(awk '/\[kprofmod\]/ { s += $2 } END { print s + 0 }' /proc/vmallocinfo)
	agg=$(awk '/kprof_agg_[a-z_]*\+.*\[kprofmod\]/ { s += $2 } END { print s + 0 }' /proc/vmallocinfo)
	core=$(awk '$1 == "kprofmod" { print $2 }' /proc/modules)
	echo "$vm $core $agg"
}
if [[ " $stages " == *" mem "* ]]; then
	log "memory"
	load
	out "mem defaults $(mod_mem)"
	unload
	# the per-CPU tables at their maximum (the global ones at their
	# maximum, over 1.7 GiB, do not fit this guest)
	load cpu_rows=65536 cpu_samples=65536
	out "mem cpu_rows=65536,cpu_samples=65536 $(mod_mem)"
	unload
	load ${export_params#budget_ppm=0 }
	out "mem ${export_params// /,} $(mod_mem)"
	unload
fi
# ---- bcc's profile, last, while the budget lasts ----
# Its start takes minutes under TCG, too long to alternate round by round:
# one run per frequency, paired with a run without profiler just before.
if [[ " $stages " == *" bcc "* ]]; then
	unload
	for hz in 99 999; do
		left=$((budget - ($(date +%s) - t_start) - 30))
		if [ "$left" -lt 60 ]; then
			out "info bcc_skipped_$hz out of time budget"
			continue
		fi
		v=$(work) && out "cpu bccbase_$hz 1 $v"
		t0=$(date +%s)
		if tracer_wait=$left start_tracer 'Sampling at' profile-bpfcc -F "$hz"; then
			out "info bcc_start_s_$hz $(($(date +%s) - t0))"
			v=$(work) && out "cpu bcc_$hz 1 $v"
			stop_tracer
		else
			out "info bcc_skipped_$hz did not start within ${left} s"
		fi
	done
fi
out "info guest_seconds $(($(date +%s) - t_start))"
rm -rf "$tmp"
log "done"
