#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A snapshot keeps its odd generation (readers wait) only for the merge
# and copies: the kernel symbols of the interval's new stacks are
# resolved, and their strings allocated, and their user frames checked
# against the process's mappings, before it starts.  The window opens
# just before kprof_agg_drain_closed() in kprof_export_snapshot(); the
# function graph tracer shows whether kprof_stack_ksyms() (which
# allocates and calls sprint_symbol()) or find_vma() (the user frame
# check, under the mmap lock) ran after that.
. "$(dirname "$0")/lib.sh"

T=$(kp_tracefs)
SPIN=$KP_DIR/cpu_spin
tmp=$(mktemp -d)
cleanup()
{
	kp_trace_reset "$T"
	jobs -p | xargs -r kill 2>/dev/null
	wait 2>/dev/null
	[ -n "$cg" ] && rmdir "$cg" 2>/dev/null
	[ "$cgroot" = "$tmp/cg" ] && umount "$cgroot"
	rm -rf "$tmp"
}
trap cleanup EXIT

tap_plan 3
kp_unload
kp_load || { tap_diag "cannot load kprofmod"; exit "$KSFT_FAIL"; }
if ! grep -qw function_graph "$T/available_tracers" 2>/dev/null; then
	# this project's debug kernel is built without the function tracers
	echo "ok 1 # SKIP no function_graph tracer in this kernel"
	echo "ok 2 # SKIP no function_graph tracer in this kernel"
	echo "ok 3 # SKIP no function_graph tracer in this kernel"
	exit "$KSFT_SKIP"
fi

# The spinner runs in a cgroup of its own and top samples only that:
# the reader, whose snapshots the function graph tracer follows, is
# never unwound.  A sample that lands in the graph tracer's return
# trampoline makes the kernel's ORC unwinder (seen on 6.12) log
# "WARNING: stack going in the wrong direction?" once, whoever walks
# the stack (perf record -g as well); that is not what this test is
# about, and the console check would count it.
cgroot=$(kp_cgroup2 "$tmp/cg") ||
	{ tap_diag "cannot mount cgroup2"; exit "$KSFT_FAIL"; }
cg=$cgroot/kprof-window
mkdir -p "$cg"

# whatever an earlier test left: no function filter, tracing on
kp_trace_reset "$T"
echo kprof_export_snapshot >"$T/set_graph_function"
echo function_graph >"$T/current_tracer"
: >"$T/trace"
# new stacks every interval: a spinner sampled, symbolized by top
kp_run_in "$cg" "$SPIN" 3
spin=$!
"$KPROF_BIN" top --json -i 0.3 -n 8 --cgroup "$cg" \
	>"$tmp/top.json" 2>"$tmp/top.err"
tap_result $? "top ran over new stacks"
wait "$spin"
# (changing the tracer empties the buffer: read it first)
echo 0 >"$T/tracing_on"
cat "$T/trace" >"$tmp/trace"
echo nop >"$T/current_tracer"
echo 1 >"$T/tracing_on"

# Per snapshot: ksyms calls before the drain, and after it.
# (module functions may show as "name [kprofmod]()")
awk '
/kprof_export_snapshot[^(]*\(\) \{/ { n++; in_win = 0 }
/kprof_agg_drain_closed[^(]*\(\)/ { in_win = 1 }
/(kprof_stack_ksyms|find_vma)[^(]*\(\)/ { if (in_win) late++; else early++ }
END { printf "%d %d %d\n", n, early + 0, late + 0 }
' "$tmp/trace" >"$tmp/counts"
read -r snaps early late <"$tmp/counts"
tap_diag "$snaps snapshots traced; kprof_stack_ksyms or find_vma $early times before the window, $late inside it"
[ "$snaps" -gt 0 ] || grep -v '^#' "$tmp/trace" | head -n 5 | sed 's/^/# trace: /'
tap_check "snapshots traced, kernel symbols resolved in them" \
	test "$snaps" -gt 0 -a "$early" -gt 0
tap_check "no symbol resolved, no mapping looked up while the generation is odd" \
	test "$late" -eq 0
tap_finish
