#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The reader's messages and exit statuses for every way `kprof info` can
# fail, and for usage errors.
. "$(dirname "$0")/lib.sh"

out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT

# expect STATUS PATTERN DESCRIPTION -- COMMAND...: exit status and stderr
expect()
{
	want=$1 pat=$2 desc=$3
	shift 4
	"$@" >"$out" 2>"$err"
	got=$?
	if [ "$got" -eq "$want" ] && [ "$(wc -l <"$err")" -le 1 ] &&
	   { [ -z "$pat" ] && [ ! -s "$err" ] || grep -qE -- "$pat" "$err"; }; then
		tap_result 0 "$desc"
	else
		tap_diag "exit $got (want $want), stderr:"
		sed 's/^/#   /' "$err"
		tap_result 1 "$desc"
	fi
}

tap_plan 14

kp_unload
expect 1 'kprofmod is not loaded.*modprobe kprofmod' \
	"info without module: hint to modprobe, exit 1" -- "$KPROF_BIN" info

kp_load
"$KPROF_BIN" info >"$out" 2>"$err"
if [ $? -eq 0 ] && grep -q '^kprofmod [0-9]' "$out" &&
   grep -q 'api: *4\.' "$out" && grep -q 'cpus:' "$out"; then
	tap_result 0 "info prints version, API and CPUs"
else
	cat "$out" "$err" | sed 's/^/#   /'
	tap_result 1 "info prints version, API and CPUs"
fi

expect 1 'permission denied.*run as root' "info as nobody: permission denied" \
	-- setpriv --reuid=65534 --regid=65534 --clear-groups "$KPROF_BIN" info
expect 1 'permission denied.*CAP_PERFMON' "info as root without capabilities" \
	-- setpriv --inh-caps=-all --bounding-set=-all "$KPROF_BIN" info

shim=$KP_DIR/fake_api_preload.so
expect 1 'API mismatch.*API 99\.[0-9]+.*kprof speaks 4\.' \
	"API major mismatch prints both versions" -- \
	env LD_PRELOAD="$shim" KPROF_FAKE_API_MAJOR=99 "$KPROF_BIN" info

expect 2 'missing COMMAND' "no command: exit 2" -- "$KPROF_BIN"
expect 2 "unknown command 'bogus'" "unknown command: exit 2" -- \
	"$KPROF_BIN" bogus
expect 2 "unknown option '--bogus'" "unknown global option: exit 2" -- \
	"$KPROF_BIN" --bogus
expect 2 "unexpected argument 'extra'" "stray argument: exit 2" -- \
	"$KPROF_BIN" info extra
expect 2 "unknown option '-x'" "unknown subcommand option: exit 2" -- \
	"$KPROF_BIN" info -x
expect 0 '' "--help: exit 0, nothing on stderr" -- "$KPROF_BIN" --help
tap_check "--help prints usage on stdout" grep -q '^usage: kprof' "$out"
"$KPROF_BIN" --version >"$out" 2>&1
tap_check "--version prints the version" grep -qE '^kprof [0-9]+\.[0-9]+\.[0-9]+ \(API 4\.[0-9]+\)$' "$out"
expect 2 "unknown command 'nope'" "help for an unknown command: exit 2" -- \
	"$KPROF_BIN" help nope

kp_unload
tap_finish
