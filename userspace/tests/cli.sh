#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kprof's command line on the host: usage errors, a missing module, and
# top/record/stacks against a fake /dev/kprof (tests/fakedev.so,
# LD_PRELOADed).  The pprof files are decoded with `protoc --decode_raw`,
# and with `go tool pprof` where Go is installed (skipped otherwise).
#
#   tests/cli.sh KPROF_BINARY FAKEDEV_SO
#
# Prints TAP; exits non-zero if a test failed.
set -u

KPROF=$(realpath "${1:?usage: cli.sh KPROF FAKEDEV_SO}")
FAKE=$(realpath "${2:?usage: cli.sh KPROF FAKEDEV_SO}")
for f in "$KPROF" "$FAKE"; do
	[ -r "$f" ] || { echo "Bail out! $f missing (make -C userspace check builds it)"; exit 1; }
done
command -v python3 >/dev/null || { echo "Bail out! python3 missing"; exit 1; }
command -v protoc >/dev/null ||
	{ echo "Bail out! protoc missing: apt-get install protobuf-compiler"; exit 1; }
HERE=$(cd "$(dirname "$0")" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
OUT=$TMP/out ERR=$TMP/err LOG=$TMP/log

n=0 failed=0
ok()
{
	n=$((n + 1))
	echo "ok $n - $1"
}
not_ok()
{
	n=$((n + 1))
	failed=$((failed + 1))
	echo "not ok $n - $1"
	for f in "$OUT" "$ERR"; do
		[ -s "$f" ] && head -n 15 "$f" | sed "s|^|#   $(basename "$f"): |"
	done
}
result()
{
	if [ "$1" -eq 0 ]; then ok "$2"; else not_ok "$2"; fi
}
# no_tmp FILE: no temporary of FILE (".FILE.*" beside it) is left
no_tmp()
{
	set -- "$(dirname "$1")"/."$(basename "$1")".*
	[ ! -e "$1" ]
}
skip()
{
	n=$((n + 1))
	echo "ok $n - $1 # SKIP $2"
}

# expect STATUS STDERR_REGEX DESCRIPTION -- COMMAND...: the exit status, and
# stderr: one line matching the regex (empty regex: no stderr at all).
expect()
{
	local want=$1 pat=$2 desc=$3 got
	shift 4
	"$@" >"$OUT" 2>"$ERR"
	got=$?
	if [ "$got" -eq "$want" ] && [ "$(wc -l <"$ERR")" -le 1 ] &&
	   { { [ -z "$pat" ] && [ ! -s "$ERR" ]; } ||
	     { [ -n "$pat" ] && grep -qE -- "$pat" "$ERR"; }; }; then
		ok "$desc"
	else
		echo "#   exit $got (want $want)"
		not_ok "$desc"
	fi
}

# The kprof binary with no module: the device does not exist.
nomod()
{
	KPROF_DEVICE=$TMP/no-such-device "$KPROF" "$@"
}

# The kprof binary with the fake device; log in $LOG.
fake()
{
	env KPROF_DEVICE=/fake/kprof KPROF_FAKE_LOG="$LOG" LD_PRELOAD="$FAKE" \
		"$KPROF" "$@"
}

usage_error()
{
	local pat=$1
	shift
	expect 2 "^kprof: $pat" "usage error: kprof $*" -- nomod "$@"
}

# --- usage errors: exit 2, one line on stderr ---------------------------------

usage_error "top: -i '0': out of range" top -i 0
usage_error "top: -i '0.001': out of range" top -i 0.001
usage_error "top: -i '3601': out of range" top -i 3601
usage_error "top: -i 'abc'" top -i abc
usage_error "top: -i '1e3'" top -i 1e3
usage_error "top: -i '-1'" top -i -1
usage_error "top: -i '1s'" top -i 1s
usage_error "top: option '-i' needs a value" top -i
usage_error "top: -n '0'" top -n 0
usage_error "top: -n '-3'" top -n -3
usage_error "top: -n '1.5'" top -n 1.5
usage_error "top: -p '0'" top -p 0
usage_error "top: -p 'abc'" top -p abc
usage_error "top: -p 2147483647: no such process" top -p 2147483647
usage_error "top: --rport '0'" top --rport 0
usage_error "top: --rport '65536'" top --rport 65536
usage_error "top: --rport '80,,443'" top --rport 80,,443
usage_error "top: --rport .*too many ports" top --rport 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17
usage_error "top: --rport '17'.*too many" top --rport 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16 --rport 17
usage_error "top: --lport 'abc'" top --lport abc
usage_error "top: --role 'both'" top --role both
usage_error "top: --threshold '1x'" top --threshold 1x
usage_error "top: --threshold '101s': above 100s" top --threshold 101s
usage_error "top: --threshold '1.5ns'" top --threshold 1.5ns
usage_error "top: unknown option '--bogus'" top --bogus
usage_error "top: unknown option '-x'" top -x
usage_error "top: unexpected argument 'extra'" top extra
usage_error "top: --freq '0': out of range \(samples per second and CPU, 1\.\.10000\)" top --freq 0
usage_error "top: --freq '10001': out of range" top --freq 10001
usage_error "top: --freq 'fast': not a number" top --freq fast
usage_error "top: option '--freq' needs a value" top --freq
usage_error "top: --top '0': out of range" top --top 0
usage_error "top: --top 'all': not a number" top --top all
usage_error "top: --no-cpu and --no-tcp leave nothing to show" top --no-cpu --no-tcp
usage_error "top: --prometheus '': an empty file name" top --prometheus ''
usage_error "top: option '--prometheus' needs a value" top --prometheus
usage_error "top: -q without --prometheus leaves nothing to write" top -q
usage_error "top: --prometheus-max-series needs --prometheus" top --prometheus-max-series 5
usage_error "top: --prometheus-max-series 'abc': not a number" top --prometheus x --prometheus-max-series abc
usage_error "top: --prometheus-max-series '100001': out of range \\(endpoint series, 0\\.\\.100000\\)" \
	top --prometheus x --prometheus-max-series 100001
usage_error "record: missing -d SECONDS" record -o x
usage_error "record: missing -o FILE" record -d 1
usage_error "record: missing -d SECONDS" record
usage_error "record: -d '0': out of range" record -d 0 -o x
usage_error "record: -d '86401': out of range" record -d 86401 -o x
usage_error "record: -d '1s'" record -d 1s -o x
usage_error "record: -o '': an empty file name" record -d 1 -o ''
usage_error "record: --format 'xml': use folded, pprof or json" record -d 1 -o x --format xml
usage_error "record: option '--format' needs a value" record -d 1 -o x --format
usage_error "record: --freq '0': out of range" record -d 1 -o x --freq 0
usage_error "record: --freq '20000': out of range" record -d 1 -o x --freq 20000
usage_error "record: --no-cpu and --no-tcp leave nothing to record" record -d 1 -o x --no-cpu --no-tcp
usage_error "record: --format folded holds CPU samples only: --no-cpu" record -d 1 -o x --no-cpu
usage_error "record: --threshold '101s': above 100s" record -d 1 -o x --threshold 101s
usage_error "record: -p '0'" record -d 1 -o x -p 0
usage_error "record: --role 'peer'" record -d 1 -o x --role peer
usage_error "record: unknown option '--top'" record -d 1 -o x --top 3
usage_error "record: unexpected argument 'extra'" record -d 1 -o x extra
usage_error "report: -d '': not a number" report -d ''
usage_error "report: -d 'abc'" report -d abc
usage_error "report: -d '-1'" report -d -1
usage_error "report: -d '0': out of range \(seconds, 0\.01 to 86400\)" report -d 0
usage_error "report: -d '86401': out of range" report -d 86401
usage_error "report: -d '99999999999999999999'" report -d 99999999999999999999
usage_error "report: -d '1s'" report -d 1s
usage_error "report: option '-d' needs a value" report -d
usage_error "report: unknown option '--bogus' \(see \`kprof report --help\`\)" report --bogus
usage_error "report: unknown option '-x'" report -x
usage_error "report: unknown option '--format'" report --format json
usage_error "report: unexpected argument 'extra'" report -d 1 extra
usage_error "report: --top '0': out of range" report --top 0
usage_error "report: --freq '0': out of range" report --freq 0
usage_error "report: --threshold '101s': above 100s" report --threshold 101s
usage_error "report: --no-cpu and --no-tcp leave nothing to report" report --no-cpu --no-tcp
usage_error "stacks: missing stack ID" stacks
usage_error "stacks: missing stack ID" stacks --json
usage_error "stacks: bad stack ID '0'" stacks 0
usage_error "stacks: bad stack ID 'abc'" stacks abc
usage_error "stacks: bad stack ID '4294967296'" stacks 4294967296
usage_error "stacks: bad stack ID '1x'" stacks 1x
usage_error "stacks: bad stack ID 'x'" stacks 1 x
usage_error "stacks: unknown option '-1'" stacks -1
usage_error "stacks: unknown option '--bogus'" stacks --bogus 1
usage_error "load: 'stacks' is not a parameter: use name=value" load stacks
usage_error "load: '=1' is not a parameter" load =1
usage_error "load: 'stacks=' is not a parameter" load stacks=
usage_error "load: 'a-b=1' is not a parameter" load a-b=1
usage_error "load: 'x=a b' is not a parameter" load "x=a b"
usage_error "load: option '--ko' needs a value" load --ko
usage_error "load: --ko needs a module file" load --ko ""
usage_error "load: unknown option '--bogus'" load --bogus
usage_error "unload: unexpected argument 'now'" unload now
usage_error "unload: unknown option '-f'" unload -f
usage_error "status: unexpected argument 'x'" status x
usage_error "abtest: missing COMMAND" abtest
usage_error "abtest: missing COMMAND" abtest --rounds 5 --
usage_error "abtest: --rounds '2': out of range \(3..1000\)" abtest --rounds 2 -- true
usage_error "abtest: --rounds 'x'" abtest --rounds x -- true
usage_error "abtest: --warmup '101'" abtest --warmup 101 -- true
usage_error "abtest: --warmup '-1'" abtest --warmup -1 -- true
usage_error "abtest: option '--rounds' needs a value" abtest --rounds
usage_error "abtest: unknown option '--bogus'" abtest --bogus -- true
usage_error "abtest: --freq '0'" abtest --freq 0 -- true
usage_error "top: --cgroup needs a cgroup v2 directory" top --cgroup ""
usage_error "top: --cgroup /: not a cgroup v2 directory" top --cgroup /
usage_error "record: --cgroup /sys/fs/cgroup/no/such: No such file" record -d 1 -o x --cgroup no/such
usage_error "top: option '--cgroup' needs a value" top --cgroup
usage_error "status: unknown option '--jsn'" status --jsn

# --- no module: exit 1 ------------------------------------------------------------

expect 1 'kprofmod is not loaded.*modprobe kprofmod' "top without module: exit 1" \
	-- nomod top
expect 1 'kprofmod is not loaded' "top with every option valid, without module: exit 1" \
	-- nomod top -i 0.01 -n 1 --rport 80,443 --lport 8080 --role client -4 -6 \
	--threshold 500us -p $$ -C --no-color --json
expect 1 'kprofmod is not loaded' "top -i 3600 --threshold 100s --role server: valid" \
	-- nomod top -i 3600 --threshold 100s --role server --interval=0.5 --count=3
expect 1 'kprofmod is not loaded' "top with the sampling options valid, without module: exit 1" \
	-- nomod top --freq 10000 --top 1 --no-cpu
expect 1 'kprofmod is not loaded' "stacks without module: exit 1" -- nomod stacks 1 2
expect 1 'kprofmod is not loaded' "abtest without module: exit 1" -- nomod abtest -- true
expect 0 '' "abtest against the fake device: exit 0, nothing on stderr" -- \
	fake abtest --rounds 3 --warmup 0 --json -- true
result "$(python3 -c 'import json, sys
o = json.load(open(sys.argv[1]))
ok = (o["rounds"] == 3 and len(o["detached_s"]) == 3 and len(o["attached_s"]) == 3
      and o["command"] == ["true"] and isinstance(o["within_noise"], bool)
      and 0 <= o["sign_test_p"] <= 1 and set(o["slowdown"]) == {"median", "q1", "q3", "min", "max"})
sys.exit(0 if ok else 1)' "$OUT"; echo $?)" "abtest --json: one object with every run and the summary"
# The command's end is seen when it exits, not at the next tick of a poll
# (it was polled every 5 ms: a run of true measured 5.2 ms, unless it had
# exited before the first poll).  Counted, not timed (a run of true takes
# 5 ms by itself on a loaded host): waiting for SIGCHLD, a run looks for
# its child's exit about twice; a 5 ms poll would look some 40 times in a
# run of sleep 0.2.
: >"$LOG"
expect 0 '' "abtest of sleep 0.2: exit 0" -- \
	env KPROF_FAKE_WAITS=1 KPROF_DEVICE=/fake/kprof KPROF_FAKE_LOG="$LOG" LD_PRELOAD="$FAKE" \
	"$KPROF" abtest --rounds 3 --warmup 0 -- sleep 0.2
waits=$(grep -c '^waitpid$' "$LOG")
echo "# abtest: $waits waitpid() calls over 6 runs of sleep 0.2"
result "$([ "$waits" -ge 6 ] && [ "$waits" -le 24 ]; echo $?)" \
	"abtest waits for the command's exit, not a poll: $waits waitpid() calls in 6 runs (6 to 24)"
expect 1 'abtest: kprofmod is already tracing or sampling' "abtest while another reader traces: exit 1" -- \
	env KPROF_FAKE_RUNNING=3 KPROF_DEVICE=/fake/kprof LD_PRELOAD="$FAKE" "$KPROF" abtest -- true
expect 1 "abtest: 'false' exited with status 1" "abtest of a failing command: exit 1" -- \
	fake abtest --rounds 3 -- false
expect 1 "abtest: cannot run '/no/such'" "abtest of a missing command: exit 1" -- \
	fake abtest --rounds 3 -- /no/such
expect 1 'not a kernel module \(no ELF header\)' "load --ko of a non-module: exit 1" \
	-- nomod load --ko "$HERE/cli.sh"
expect 1 "load: --ko $TMP/none: No such file" "load --ko of a missing file: exit 1" \
	-- nomod load --ko "$TMP/none"
# --ko: only a file that root alone can have written, in directories
# root alone can change (root only: chown)
if [ "$(id -u)" = 0 ]; then
	mkdir -p "$TMP/ko/ww" "$TMP/ko/safe"
	chmod 0777 "$TMP/ko/ww"
	cp /bin/true "$TMP/ko/ww/kprofmod.ko"
	expect 1 "^kprof: load: refusing --ko $TMP/ko/ww/kprofmod\\.ko: directory $TMP/ko/ww is writable by others\$" \
		"load --ko in a directory others can write: refused" -- nomod load --ko "$TMP/ko/ww/kprofmod.ko"
	cp /bin/true "$TMP/ko/safe/kprofmod.ko"
	chmod 0666 "$TMP/ko/safe/kprofmod.ko"
	expect 1 "^kprof: load: refusing --ko $TMP/ko/safe/kprofmod\\.ko: the file is writable by others\$" \
		"load --ko of a file others can write: refused" -- nomod load --ko "$TMP/ko/safe/kprofmod.ko"
	chmod 0644 "$TMP/ko/safe/kprofmod.ko"
	chown 65534 "$TMP/ko/safe/kprofmod.ko"
	expect 1 "^kprof: load: refusing --ko $TMP/ko/safe/kprofmod\\.ko: the file belongs to a user other than root\$" \
		"load --ko of a file another user owns: refused" -- nomod load --ko "$TMP/ko/safe/kprofmod.ko"
	chown 0 "$TMP/ko/safe/kprofmod.ko"
	chown 65534 "$TMP/ko/safe"
	expect 1 "^kprof: load: refusing --ko $TMP/ko/safe/kprofmod\\.ko: directory $TMP/ko/safe belongs to a user other than root\$" \
		"load --ko in a directory another user owns: refused" -- nomod load --ko "$TMP/ko/safe/kprofmod.ko"
	mkfifo "$TMP/ko/fifo.ko"
	expect 1 "^kprof: load: --ko $TMP/ko/fifo\\.ko: not a regular file\$" \
		"load --ko of a FIFO: refused at once" -- nomod load --ko "$TMP/ko/fifo.ko"
else
	for what in "a directory others can write" "a file others can write" \
		    "a file another user owns" "a directory another user owns" "a FIFO"; do
		skip "load --ko: $what" "not root"
	done
fi
expect 1 'kprofmod is not loaded' "report with every option valid, without module: exit 1" \
	-- nomod report -d 0.01 --json --top 100000 --freq 10000 --no-tcp -p $$ \
	--rport 80 --lport 8080 --role server -4 -6 --threshold 0
expect 1 'kprofmod is not loaded' "record with every option valid, without module: exit 1" \
	-- nomod record -d 86400 -o "$TMP/nomod.out" --format pprof --freq 1 --no-tcp \
	-p $$ --rport 80 --lport 8080 --role client -4 -6 --threshold 0
result "$( [ ! -e "$TMP/nomod.out" ] && no_tmp "$TMP/nomod.out"; echo $?)" \
	"record without module: leaves no file behind"

# --- help -------------------------------------------------------------------------------

expect 0 '' "kprof --help" -- "$KPROF" --help
result "$(grep -qE '^  top +hot CPU stacks and TCP request latency' "$OUT" &&
	  grep -qE '^  record +sample CPU stacks and TCP latency' "$OUT" &&
	  grep -qE '^  stacks +print the kernel and user frames' "$OUT" &&
	  grep -qE '^  report +measure for a while, then where the time went' "$OUT"; echo $?)" \
	"kprof --help lists top, record, stacks and report"
expect 0 '' "kprof top --help" -- "$KPROF" top --help
result "$(grep -q '^usage: kprof top \[-i SECONDS\]' "$OUT" &&
	  grep -q -- '--threshold DURATION' "$OUT" && grep -q -- '--freq HZ' "$OUT" &&
	  grep -q -- '--top N' "$OUT" && grep -q -- '--no-cpu' "$OUT" &&
	  grep -q -- '--no-tcp' "$OUT"; echo $?)" "top --help shows the options"
expect 0 '' "kprof record --help" -- "$KPROF" record --help
result "$(grep -q '^usage: kprof record -d SECONDS -o FILE \[--format folded|pprof|json\]' "$OUT" &&
	  grep -q -- 'FILE.latency.pb.gz' "$OUT" && grep -q -- '--freq HZ' "$OUT" &&
	  grep -q -- '--threshold DURATION' "$OUT"; echo $?)" "record --help shows the options and files"
expect 0 '' "kprof stacks --help" -- "$KPROF" stacks --help
result "$(grep -q '^usage: kprof stacks \[--json\] ID\.\.\.' "$OUT"; echo $?)" \
	"stacks --help shows the usage"
expect 0 '' "kprof help top" -- "$KPROF" help top
expect 0 '' "kprof report --help" -- "$KPROF" report --help
result "$(grep -q '^usage: kprof report \[-d SECONDS\] \[--json\] \[--top N\]' "$OUT" &&
	  grep -q -- 'docs/report-json.md' "$OUT" && grep -q 'Amdahl' "$OUT" &&
	  grep -q -- '--threshold DURATION' "$OUT"; echo $?)" "report --help shows the options"
expect 0 '' "kprof help report" -- "$KPROF" help report
result "$(grep -q '^usage: kprof report ' "$OUT"; echo $?)" "help report: the same usage"

# The manual pages: a page per command, and every option a command takes
# (its --list-opts) in its page.
MANDIR=$HERE/../man
cmds=$("$KPROF" --help | awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }')
missing=
for cmd in $cmds; do
	page=$MANDIR/kprof-$cmd.1
	[ -f "$page" ] || { missing="$missing $cmd:(no page)"; continue; }
	sed 's/\\-/-/g' "$MANDIR/kprof.1" | grep -q -- "kprof-$cmd (1)" ||
		missing="$missing $cmd:(not in kprof.1's list)"
	# a row's names (e.g. "--pid -p"): one of them in the page will do
	while IFS=$'\t' read -r names _; do
		case " $names " in *" --help "*) continue ;; esac
		found=
		for opt in $names; do
			sed 's/\\-/-/g' "$page" | grep -qE -- "(^|[^a-z-])$opt([^a-z-]|\$)" && found=1
		done
		[ -n "$found" ] || missing="$missing $cmd:${names// //}"
	done < <("$KPROF" "$cmd" --list-opts 2>/dev/null)
done
for page in "$MANDIR"/kprof-*.1; do
	cmd=${page##*/kprof-}
	cmd=${cmd%.1}
	printf '%s\n' $cmds | grep -qxF -- "$cmd" || missing="$missing $cmd:(a page, no command)"
done
[ -z "$missing" ] || echo "#   not in its page:$missing"
result "$( [ -n "$cmds" ] && [ -z "$missing" ]; echo $?)" \
	"every command of kprof --help has a page listed in kprof.1, and its page every option of its --list-opts"

# The option rows: every option --list-opts names is in the command's help,
# and every option its help names is in --list-opts.
for cmd in top record report abtest stacks status load info unload; do
	missing=
	"$KPROF" "$cmd" --list-opts >"$OUT" 2>&1 || missing=" (--list-opts failed)"
	listed=$(cut -f 1 "$OUT" | tr ' ' '\n' | sort -u)
	help=$("$KPROF" help "$cmd")
	# a row is there if one of its spellings is
	while IFS=$'\t' read -r row _; do
		found=
		for opt in $row; do
			printf '%s\n' "$help" | grep -qE -- "(^|[^a-z0-9-])$opt([^a-z0-9-]|\$)" &&
				found=1
		done
		case $row in "--help -h") found=1 ;; esac
		[ -n "$found" ] || missing="$missing $row"
	done <"$OUT"
	[ -z "$missing" ] || echo "#   $cmd: not in its help:$missing"
	result "$( [ -z "$missing" ]; echo $?)" "$cmd: every option row is in \`kprof help $cmd\`"
	missing=
	for opt in $(printf '%s\n' "$help" | tr '][|,()=`;:' ' ' | tr -s '[:blank:]' '\n' |
			grep -E '^(--[a-z0-9][a-z0-9-]*|-[A-Za-z0-9])$' | sort -u); do
		printf '%s\n' "$listed" | grep -qxF -- "$opt" || missing="$missing $opt"
	done
	[ -z "$missing" ] || echo "#   $cmd: not in --list-opts:$missing"
	result "$( [ -z "$missing" ]; echo $?)" "$cmd: --list-opts has every option of its help"
done
result "$("$KPROF" record --list-opts | grep -qxF -e "$(printf -- '--format\tfolded|pprof|json')"; echo $?)" \
	"record --list-opts: --format takes folded|pprof|json"

if command -v groff >/dev/null; then
	: >"$OUT"
	for page in "$MANDIR"/*.1; do
		groff -man -ww -z "$page" >>"$OUT" 2>&1 || echo "$page: groff failed" >>"$OUT"
	done
	result "$( [ ! -s "$OUT" ]; echo $?)" "the manual pages: groff -man -ww has no warning"
else
	skip "the manual pages: groff -man -ww has no warning" "no groff"
fi

# --- info against the fake device ------------------------------------------------

expect 0 '' "info" -- fake info
result "$(grep -qx 'kprofmod 0.0.0-fake' "$OUT" && grep -qE '^  api:       4\.[0-9]+ \(kprof speaks 4\.[0-9]+\)$' "$OUT" &&
	  grep -qx '  features:  tcp-latency user-stacks ksyms cpu-sampling' "$OUT" &&
	  grep -qx '  attach:    tcp_sendmsg tcp_cleanup_rbuf tcp_v4_destroy_sock' "$OUT" &&
	  grep -qx '  running:   none' "$OUT" &&
	  grep -qx '  capacity:  1024 TCP rows, 1024 stacks, 4096 requests in flight' "$OUT" &&
	  grep -qx '  mapping:   64 KiB' "$OUT"; echo $?)" \
	"info: features, attach points, running, capacities"
expect 1 '^kprof: API mismatch: kprofmod 0\.0\.0-fake speaks API 1\.0, this kprof speaks 4\.[0-9]+; install matching versions$' \
	"info on an API 1.0 module: refused, saying which versions speak which API" -- \
	env KPROF_FAKE_OLD=1 KPROF_DEVICE=/fake/kprof LD_PRELOAD="$FAKE" "$KPROF" info

# --- top against the fake device --------------------------------------------------

rm -f "$LOG"
expect 0 '' "top -n 2 -i 0.05 (table): exit 0, nothing on stderr" -- fake top -n 2 -i 0.05
result "$( [ "$(grep -c '^[0-9:]*  interval [0-9.]*ms  requests 116  abandoned 2  drops 3 (inflight 0, rows 3, stacks 0, export 0)  samples 150 (idle 50)  sample drops 1$' "$OUT")" -eq 2 ]; echo $?)" \
	"table: one header line per interval, with samples and sample drops"
result "$(grep -qE '^SAMPLES +% +STACK +PROCESS +FRAMES \(LEAF FIRST\)$' "$OUT" &&
	  grep -A1 -m1 '^SAMPLES' "$OUT" | tail -n 1 |
	  grep -qE '^ +60 +60\.0% +21 +fake-app\[[0-9]+\] +kprof_fake_hot_a\+0x1 \(fakedev\.so\) <- kprof_fake_work\+0x2 \(fakedev\.so\) <- kprof_fake_main\+0x2 \(fakedev\.so\)$'; echo $?)" \
	"table: hot stacks by samples, % of non-idle samples, 3 symbolized frames"
result "$(grep -qE '^ +20 +20\.0% +22 +fake app\[[0-9]+\] +kprof_fake_hot_b\+0x1 ' "$OUT" &&
	  grep -qE '^ +10 +10\.0% +23 +fake-app\[[0-9]+\] +copy_user_generic_string\+0x2c/0x40 <- _copy_to_user\+0x22/0x30 <- __x64_sys_read\+0x19/0x20$' "$OUT" &&
	  grep -qE '^ +6 +6\.0% +24 +ksoftirqd/1\[0\] +e1000_clean\+0x58/0x8e0 \[e1000\] <- ' "$OUT" &&
	  grep -qE '^ +2 +2\.0% +- +fake-app\[[0-9]+\] +\(stack not stored: stack table full\)$' "$OUT" &&
	  grep -qE '^ +2 +2\.0% +25 +fake-app\[[0-9]+\] +\[kernel frames missing\] <- kprof_fake_read\+0x1 ' "$OUT"; echo $?)" \
	"table: kernel frames first, kernel threads, stack ID 0, missing kernel frames"
result "$(grep -qE '^STACK +ENDPOINT +ROLE +COUNT +TOTAL +AVG +P50 +P95 +P99 +MAX +RETX +RST +CONN-P99 +CFAIL$' "$OUT"; echo $?)" \
	"table: column headings"
result "$(grep -qE '^ +- +10\.0\.4\.12:443 +client +100 .* +3 +1 +- +-$' "$OUT" &&
	  grep -qE '^ +99 +192\.168\.1\.1:5432 +client +1 .* +10 +2 +- +-$' "$OUT"; echo $?)" \
	"table: retransmits and resets of an endpoint's rows"
result "$(grep -m1 -A1 '^STACK' "$OUT" | tail -n 1 | grep -qE '^ +7 +\[2001:db8::1\]:8080 +server +10 +435ms +43.5ms '; echo $?)" \
	"table: sorted by total latency, IPv6 endpoint, human units"
result "$(grep -qE '^ +- +10\.0\.4\.12:443 +client +100 +150ms' "$OUT" &&
	  grep -qE '^ +12 +\[::ffff:127\.0\.0\.1\]:80 +client +5 +14\.0us' "$OUT" &&
	  grep -qE '^ +99 +192\.168\.1\.1:5432 +client +1 +5ns' "$OUT"; echo $?)" \
	"table: IPv4, v4-mapped, stack - for ID 0"
result "$(grep -qE '^ +fake-client\[[0-9]+\]: (__)?getpid\+0x0 \(libc\.so\.6\) <- (__)?nanosleep\+0x1 \(libc\.so\.6\) <- \[unknown\]$' "$OUT"; echo $?)" \
	"table: top 3 user frames symbolized, [unknown] for an unmapped one"
result "$(grep -qE '^ +kworker/0:1: tcp_recvmsg\+0x0/0x1e0 <- inet_recvmsg\+0x5a/0x120$' "$OUT" &&
	  grep -qE '^ +stack 99: no longer known' "$OUT"; echo $?)" \
	"table: kernel-only stack from GET_STACK, unknown ID noted"
result "$(! grep -q $'\033' "$OUT"; echo $?)" "table: no escape codes when not a tty"
result "$(grep -qx 'SET_CONFIG tgid=0 roles=0 families=0 threshold_ns=1000000 rports= lports= sample_hz=99' "$LOG" &&
	  [ "$(grep -E '^(START|STOP|SNAPSHOT)' "$LOG" | head -n 2 | tr '\n' ' ')" = "START what=3 SNAPSHOT 1 gen=2 " ] &&
	  [ "$(tail -n 1 "$LOG")" = "STOP what=3" ] && grep -q '^mmap len=65536 prot=1$' "$LOG"; echo $?)" \
	"top: default config (threshold 1ms, 99 Hz), START of TCP and CPU, a first snapshot, STOP of both, read-only mapping"

rm -f "$LOG"
expect 0 '' "top --json -n 3 -i 0.02" -- fake top --json -n 3 -i 0.02
result "$(python3 - "$OUT" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 3, len(lines)
gens = []
for line in lines:
    o = json.loads(line)
    iv = o["interval"]
    assert iv["end_ns"] > iv["start_ns"] > 0
    assert o["requests"] == 116 and o["abandoned"] == 2
    assert o["drops"] == {"inflight": 0, "rows": 3, "stacks": 0, "export": 0,
                          "samples": 1}
    assert (o["samples_total"], o["samples_idle"], o["sample_hz"]) == (150, 50, 99)
    cpu = o["cpu"]
    assert [(r["stack_id"], r["samples"]) for r in cpu] == \
        [(21, 60), (22, 20), (23, 10), (24, 6), (0, 2), (25, 2)], cpu
    for r in cpu:
        assert set(r) == {"stack_id", "tgid", "comm", "samples", "frames"}, r
    assert cpu[0]["comm"] == "fake-app" and cpu[0]["tgid"] > 0
    assert cpu[0]["frames"] == ["kprof_fake_hot_a+0x1 (fakedev.so)",
                                "kprof_fake_work+0x2 (fakedev.so)",
                                "kprof_fake_main+0x2 (fakedev.so)"], cpu[0]
    assert cpu[1]["comm"] == "fake app"
    assert cpu[2]["frames"][0] == "copy_user_generic_string+0x2c/0x40"
    assert len(cpu[2]["frames"]) == 3
    assert cpu[3]["tgid"] == 0 and cpu[3]["comm"] == "ksoftirqd/1"
    assert cpu[4]["frames"] == []
    assert cpu[5]["frames"][0] == "[kernel frames missing]"
    gens.append(o["generation"])
    tcp = o["tcp"]
    assert [r["stack_id"] for r in tcp] == [7, 0, 12, 99], tcp
    sums = [r["sum_ns"] for r in tcp]
    assert sums == sorted(sums, reverse=True)
    want = {7: ("ipv6", "2001:db8::1", 8080, "server"),
            0: ("ipv4", "10.0.4.12", 443, "client"),
            12: ("ipv6", "::ffff:127.0.0.1", 80, "client"),
            99: ("ipv4", "192.168.1.1", 5432, "client")}
    for r in tcp:
        for k in ("stack_id", "family", "raddr", "rport", "role", "count",
                  "sum_ns", "min_ns", "max_ns", "p50_ns", "p95_ns",
                  "p99_ns", "p999_ns", "retransmits", "retransmits_rto",
                  "resets_sent", "resets_received", "after_retransmit"):
            assert k in r, k
        assert (r["family"], r["raddr"], r["rport"], r["role"]) == want[r["stack_id"]]
        assert r["min_ns"] <= r["p50_ns"] <= r["p95_ns"] <= r["p99_ns"] <= r["p999_ns"] <= r["max_ns"]
    r7 = tcp[0]
    assert r7["count"] == 10 and r7["sum_ns"] == 435000000
    assert r7["min_ns"] == 30000000 and r7["max_ns"] == 57000000
    assert abs(r7["p50_ns"] - 42000000) / 42000000 < 0.07, r7["p50_ns"]
    assert r7["frames"][2] == "[unknown]" and "getpid+0x0 (libc.so.6)" in r7["frames"][0]
    assert "frames" not in tcp[1]
    # health, a window's worth: the fake adds it every interval
    h = [(r["retransmits"], r["retransmits_rto"], r["resets_sent"],
          r["resets_received"], r["after_retransmit"]) for r in tcp]
    assert h == [(0, 0, 0, 0, 0), (3, 1, 0, 1, 2), (0, 0, 0, 0, 0),
                 (10, 0, 2, 0, 0)], h
    assert tcp[2]["frames"] == ["tcp_recvmsg+0x0/0x1e0", "inet_recvmsg+0x5a/0x120"]
    assert "frames" not in tcp[3]
assert gens == [4, 6, 8], gens
PY
echo $?)" "top --json: one valid object per interval with the documented fields"
result "$( [ "$(grep -c '^GET_STACK id=12$' "$LOG")" -eq 1 ] &&
	   [ "$(grep -c '^GET_STACK id=99$' "$LOG")" -eq 1 ] &&
	   ! grep -q '^GET_STACK id=7$' "$LOG"; echo $?)" \
	"top: each stack ID not in the mapping queried once over 3 intervals"

rm -f "$LOG"
expect 0 '' "top with every filter option" -- \
	fake top -n 1 -i 0.01 --json -p $$ --rport 80,443 --rport 443,8443 \
	--lport 8080 --role server -6 --threshold 2.5ms
result "$(grep -qx "SET_CONFIG tgid=$$ roles=4 families=2 threshold_ns=2500000 rports=80,443,8443 lports=8080 sample_hz=99" "$LOG"; echo $?)" \
	"top: flags fill struct kprof_config"
rm -f "$LOG"
expect 0 '' "top --role client -4 -6 --threshold 500 (ms)" -- \
	fake top -n 1 -i 0.01 --json --role client -4 -6 --threshold 500
result "$(grep -qx "SET_CONFIG tgid=0 roles=2 families=3 threshold_ns=500000000 rports= lports= sample_hz=99" "$LOG"; echo $?)" \
	"top: role client, both families, plain threshold in ms"
rm -f "$LOG"
expect 0 '' "top --threshold 0" -- fake top -n 1 -i 0.01 --json --threshold 0
expect 0 '' "top --sort retx" -- fake top -n 2 -i 0.01 --json --sort retx
result "$(tail -n 1 "$OUT" | python3 -c '
import json, sys
tcp = json.load(sys.stdin)["tcp"]
assert [r["stack_id"] for r in tcp][:2] == [99, 0], tcp
' ; echo $?)" "top --sort retx: the most retransmitted rows first"
expect 0 '' "top --sort rst" -- fake top -n 2 -i 0.01 --json --sort rst
result "$(tail -n 1 "$OUT" | python3 -c '
import json, sys
tcp = json.load(sys.stdin)["tcp"]
assert [r["stack_id"] for r in tcp][:2] == [99, 0], tcp
' ; echo $?)" "top --sort rst: resets sent and received, most first"
expect 2 "^kprof: top: --sort 'latency': use total, count, p99, retx, rst or cfail\$" \
	"top --sort latency: refused, naming the keys" -- fake top -n 1 --sort latency
result "$(grep -q "^SET_CONFIG .* threshold_ns=0 " "$LOG"; echo $?)" \
	"top: --threshold 0 walks every stack"

# -p with a thread ID: the module filters by process.
python3 -c '
import os, threading, time
ev = threading.Event()
def run():
    print(threading.get_native_id(), os.getpid(), flush=True)
    ev.wait(30)
threading.Thread(target=run).start()
time.sleep(30)
' >"$TMP/ids" &
pypid=$!
for _ in $(seq 50); do [ -s "$TMP/ids" ] && break; sleep 0.1; done
read -r tid tgid <"$TMP/ids"
rm -f "$LOG"
expect 0 '' "top -p THREAD_ID" -- fake top -n 1 -i 0.01 --json -p "$tid"
result "$( [ "$tid" != "$tgid" ] && grep -q "^SET_CONFIG tgid=$tgid " "$LOG"; echo $?)" \
	"top -p: a thread ID becomes its process ID ($tid -> $tgid)"
kill "$pypid" 2>/dev/null
wait "$pypid" 2>/dev/null

rm -f "$LOG"
expect 0 '' "top with tracing and sampling already running" -- \
	env KPROF_FAKE_RUNNING=3 KPROF_DEVICE=/fake/kprof KPROF_FAKE_LOG="$LOG" \
	LD_PRELOAD="$FAKE" "$KPROF" top -n 1 -i 0.01 --json --rport 80 --freq 250
result "$( [ "$(grep -E '^(START|STOP)' "$LOG" | tr '\n' ' ')" = "START what=3 STOP what=3 " ] &&
	  ! grep -q '^GET_CONFIG$' "$LOG" &&
	  [ "$(grep '^SET_CONFIG' "$LOG" | cut -d' ' -f2,8 | tr '\n' ' ')" = "tgid=0 sample_hz=250 " ]; echo $?)" \
	"top beside someone else's tracing and sampling: its own session holds and drops both, sets only its own config"
result "$(python3 -c 'import json, sys; o = json.loads(open(sys.argv[1]).read()); assert [r["rport"] for r in o["tcp"]] == [80], o["tcp"]' "$OUT"; echo $?)" \
	"top --rport 80 beside someone else's tracing: only its own port's rows (filtered as it reads)"
rm -f "$LOG"
expect 0 '' "top with only tracing already running" -- \
	env KPROF_FAKE_RUNNING=1 KPROF_DEVICE=/fake/kprof KPROF_FAKE_LOG="$LOG" \
	LD_PRELOAD="$FAKE" "$KPROF" top -n 1 -i 0.01 --json
result "$( [ "$(grep -E '^(START|STOP)' "$LOG" | tr '\n' ' ')" = "START what=3 STOP what=3 " ] &&
	  [ "$(grep '^SET_CONFIG' "$LOG" | cut -d' ' -f2 | tr '\n' ' ')" = "tgid=0 " ]; echo $?)" \
	"top beside someone else's tracing: its session holds both, not only the sampling that did not run"
rm -f "$LOG"
expect 0 '' "top with only sampling already running" -- \
	env KPROF_FAKE_RUNNING=2 KPROF_DEVICE=/fake/kprof KPROF_FAKE_LOG="$LOG" \
	LD_PRELOAD="$FAKE" "$KPROF" top -n 1 -i 0.01 --json
result "$( [ "$(grep -E '^(START|STOP)' "$LOG" | tr '\n' ' ')" = "START what=3 STOP what=3 " ]; echo $?)" \
	"top beside someone else's sampling: its session holds both, not only the tracing that did not run"
expect 0 '' "top --threshold 100ms --role client beside a reader at threshold 0" -- \
	env KPROF_FAKE_THRESHOLD=0 KPROF_DEVICE=/fake/kprof LD_PRELOAD="$FAKE" \
	"$KPROF" top -n 1 -i 0.01 --json --threshold 100ms --role client
result "$(python3 -c 'import json, sys; o = json.loads(open(sys.argv[1]).read()); assert sorted((r["rport"], r["stack_id"], r["count"]) for r in o["tcp"]) == [(80, 0, 5), (443, 0, 100), (5432, 0, 1)], o["tcp"]' "$OUT"; echo $?)" \
	"top --threshold 100ms beside a lower threshold: rows of faster requests lose their stacks, the server row goes (as it reads)"
expect 0 '' "top --threshold 100ms --role client alone" -- \
	fake top -n 1 -i 0.01 --json --threshold 100ms --role client
result "$(python3 -c 'import json, sys; o = json.loads(open(sys.argv[1]).read()); assert sorted((r["rport"], r["stack_id"]) for r in o["tcp"]) == [(80, 12), (443, 0), (5432, 99)], o["tcp"]' "$OUT"; echo $?)" \
	"top --threshold 100ms alone: the module ran at its threshold, rows keep their stacks"

rm -f "$LOG"
expect 0 '' "top --no-cpu" -- fake top -n 1 -i 0.01 --no-cpu
result "$(grep -qE '^[0-9:]*  interval [0-9.]*ms  requests 116  abandoned 2  drops 3 \(inflight 0, rows 3, stacks 0, export 0\)$' "$OUT" &&
	  ! grep -q '^SAMPLES' "$OUT" && grep -q '^STACK  ENDPOINT' "$OUT" &&
	  grep -q '^SET_CONFIG .* sample_hz=0$' "$LOG" &&
	  [ "$(grep -E '^(START|STOP)' "$LOG" | tr '\n' ' ')" = "START what=1 STOP what=1 " ]; echo $?)" \
	"top --no-cpu: TCP only, sampling neither started nor its rate set"
rm -f "$LOG"
expect 0 '' "top --no-tcp --json --top 2 --freq 1000" -- fake top -n 1 -i 0.01 --no-tcp --json --top 2 --freq 1000
result "$(python3 - "$OUT" <<'PY'
import json, sys
o = json.loads(open(sys.argv[1]).read())
assert o["tcp"] == [] and o["requests"] == 0, o["tcp"]
assert [r["stack_id"] for r in o["cpu"]] == [21, 22], o["cpu"]
assert o["sample_hz"] == 1000 and o["samples_total"] == 150
PY
echo $?)" "top --no-tcp --top 2: two hot stacks, no TCP rows, the rate set"
result "$(grep -q '^SET_CONFIG .* sample_hz=1000$' "$LOG" &&
	  [ "$(grep -E '^(START|STOP)' "$LOG" | tr '\n' ' ')" = "START what=2 STOP what=2 " ]; echo $?)" \
	"top --no-tcp: only sampling started and stopped"
rm -f "$LOG"
expect 0 '' "top --no-cpu --top 2 (table)" -- fake top -n 1 -i 0.01 --no-cpu --top 2
result "$([ "$(grep -cE '^ +[0-9-]+  [0-9a-f.:[]+\]?:[0-9]+ +(client|server) ' "$OUT")" -eq 2 ] &&
	  grep -qE '^ +7  \[2001:db8::1\]:8080 +server ' "$OUT" &&
	  grep -qE '^ +-  10\.0\.4\.12:443 +client ' "$OUT" &&
	  grep -qx '  (2 more rows, 6 requests)' "$OUT"; echo $?)" \
	"top --top 2: the two TCP rows of most total latency and a line for the rest"
expect 0 '' "top --json --top 2" -- fake top -n 1 -i 0.01 --json --top 2
result "$(python3 - "$OUT" <<'PY'
import json, sys
o = json.loads(open(sys.argv[1]).read())
assert (o["tcp_rows"], o["cpu_rows"]) == (4, 6), o
assert [r["stack_id"] for r in o["tcp"]] == [7, 0], o["tcp"]
assert [r["stack_id"] for r in o["cpu"]] == [21, 22], o["cpu"]
PY
echo $?)" "top --json --top 2: two rows of each, tcp_rows and cpu_rows count them all"
expect 0 '' "top --json over 20004 TCP rows" -- \
	env KPROF_FAKE_EXTRA_ROWS=20000 KPROF_DEVICE=/fake/kprof LD_PRELOAD="$FAKE" \
	"$KPROF" top -n 1 -i 0.01 --json --no-cpu --top 3
result "$(python3 - "$OUT" <<'PY'
import json, sys
o = json.loads(open(sys.argv[1]).read())
assert (o["tcp_rows"], o["cpu_rows"]) == (20004, 0), o
# extra row i (4..20003) totals 5 * (20000 + i) / 2 ns: the last is the
# third largest of all
assert [(r["stack_id"], r["raddr"]) for r in o["tcp"]] == \
    [(7, "2001:db8::1"), (0, "10.0.4.12"), (0, "10.1.78.35")], o["tcp"]
assert o["cpu"] == []
PY
echo $?)" "top --json, 20004 rows, --top 3: the three largest"
rm -f "$LOG"
expect 0 '' "top --no-tcp (table)" -- fake top -n 1 -i 0.01 --no-tcp --top 3
result "$(grep -qE '^[0-9:]*  interval [0-9.]*ms  samples 150 \(idle 50\)  sample drops 1$' "$OUT" &&
	  ! grep -q '^STACK  ENDPOINT' "$OUT" && [ "$(grep -cE '^ +[0-9]+ +[0-9.]+% ' "$OUT")" -eq 3 ] &&
	  grep -qx '  (3 more stacks, 10 samples)' "$OUT"; echo $?)" \
	"top --no-tcp --top 3: samples in the header, 3 stacks and a line for the rest"

expect 0 '' "top --no-tcp --json while someone else traces TCP" -- \
	env KPROF_FAKE_RUNNING=1 KPROF_DEVICE=/fake/kprof LD_PRELOAD="$FAKE" \
	"$KPROF" top -n 1 -i 0.01 --no-tcp --json
result "$(python3 -c '
import json, sys
o = json.loads(open(sys.argv[1]).read())
assert o["tcp"] == [] and o["requests"] == o["abandoned"] == 0, o
assert o["drops"]["rows"] == 0 and o["samples_total"] == 150' "$OUT"; echo $?)" \
	"top --no-tcp: someone else's TCP rows and counters are not shown"
expect 0 '' "top --no-cpu --json while someone else samples" -- \
	env KPROF_FAKE_RUNNING=2 KPROF_DEVICE=/fake/kprof LD_PRELOAD="$FAKE" \
	"$KPROF" top -n 1 -i 0.01 --no-cpu --json
result "$(python3 -c '
import json, sys
o = json.loads(open(sys.argv[1]).read())
assert o["cpu"] == [] and o["samples_total"] == o["samples_idle"] == o["sample_hz"] == 0, o
assert o["drops"]["samples"] == 0 and o["requests"] == 116' "$OUT"; echo $?)" \
	"top --no-cpu: someone else's samples are not shown"

# -p: CPU rows of other processes are left out by the reader.  The shell
# execs kprof, so -p $$ names kprof itself, whose samples the fake serves.
expect 0 '' "top -p (own pid) --json" -- \
	env KPROF_DEVICE=/fake/kprof LD_PRELOAD="$FAKE" \
	sh -c 'exec "$0" top -n 1 -i 0.01 --json -p $$' "$KPROF"
result "$(python3 - "$OUT" <<'PY'
import json, sys
o = json.loads(open(sys.argv[1]).read())
assert sorted(r["stack_id"] for r in o["cpu"]) == [0, 21, 22, 23, 25], o["cpu"]
assert o["cpu"][0]["samples"] == 60 and o["samples_total"] == 150
PY
echo $?)" "top -p: only that process's hot stacks (no kernel thread)"

rm -f "$LOG"
expect 1 '^kprof: API mismatch: kprofmod 0\.0\.0-fake speaks API 1\.1, this kprof speaks 4\.[0-9]+; install matching versions$' \
	"top on an API 1.1 module (intervals, not cumulative counts): refused, one line" -- \
	env KPROF_FAKE_API11=1 KPROF_DEVICE=/fake/kprof KPROF_FAKE_LOG="$LOG" \
	LD_PRELOAD="$FAKE" "$KPROF" top -n 1 -i 0.01 --json
result "$(! grep -qE '^(SET_CONFIG|START|STOP|SNAPSHOT)' "$LOG"; echo $?)" \
	"top on an API 1.1 module: nothing configured, started or read"
rm -f "$LOG"
expect 0 '^kprof: note: kprofmod 0\.0\.0-fake does not trace TCP latency \(API 4\.[0-9]+\): CPU samples only$' \
	"top on a module that cannot trace TCP: a one-line note, CPU only" -- \
	env KPROF_FAKE_FEATURES=8 KPROF_DEVICE=/fake/kprof KPROF_FAKE_LOG="$LOG" \
	LD_PRELOAD="$FAKE" "$KPROF" top -n 1 -i 0.01 --json
result "$( [ "$(grep -E '^(START|STOP)' "$LOG" | tr '\n' ' ')" = "START what=2 STOP what=2 " ]; echo $?)" \
	"top on a module that cannot trace TCP: only sampling started"
rm -f "$LOG"
expect 1 "the module's snapshot mapping is corrupt: cpu_row_size 8 is below sizeof\(struct kprof_cpu_row\) 48" \
	"top: corrupt CPU rows rejected, exit 1" -- \
	env KPROF_FAKE_CORRUPT_CPU=2 KPROF_DEVICE=/fake/kprof KPROF_FAKE_LOG="$LOG" \
	LD_PRELOAD="$FAKE" "$KPROF" top -n 5 -i 0.01 --json
result "$( [ "$(wc -l <"$OUT")" -eq 0 ] && [ "$(tail -n 1 "$LOG")" = "STOP what=3" ]; echo $?)" \
	"top: nothing printed from the corrupt interval, everything stopped"

rm -f "$LOG"
expect 1 "the module's snapshot mapping is corrupt: strings_len 1025 exceeds strings_cap 1024" \
	"top: corrupt mapping rejected, exit 1" -- \
	env KPROF_FAKE_CORRUPT=3 KPROF_DEVICE=/fake/kprof KPROF_FAKE_LOG="$LOG" \
	LD_PRELOAD="$FAKE" "$KPROF" top -n 5 -i 0.01 --json
result "$( [ "$(wc -l <"$OUT")" -eq 1 ] && [ "$(tail -n 1 "$LOG")" = "STOP what=3" ]; echo $?)" \
	"top: intervals before the corrupt one printed, tracing stopped"

rm -f "$LOG"
env KPROF_FAKE_STEAL=2 KPROF_DEVICE=/fake/kprof KPROF_FAKE_LOG="$LOG" \
	LD_PRELOAD="$FAKE" "$KPROF" top -n 2 -i 0.01 --json >"$OUT" 2>"$ERR"
rc=$?
result "$( [ $rc -eq 0 ] && [ ! -s "$ERR" ] &&
	   [ "$(python3 -c 'import json, sys; print(" ".join(str(json.loads(l)["requests"]) for l in open(sys.argv[1])))' "$OUT")" = "232 116" ]; echo $?)" \
	"top: another reader's snapshot before our copy loses nothing: that window holds both intervals"
rm -f "$LOG"
env KPROF_FAKE_ODD=2 KPROF_DEVICE=/fake/kprof KPROF_FAKE_LOG="$LOG" \
	LD_PRELOAD="$FAKE" "$KPROF" top -n 3 -i 0.05 --json >"$OUT" 2>"$ERR"
rc=$?
# the copy after snapshot 2 fails; the next read copies without a snapshot
result "$( [ $rc -eq 0 ] && grep -q '^kprof: no window this time (the next one covers it): generation 5 stayed odd' "$ERR" &&
	   [ "$(grep -E '^(SNAPSHOT|generation)' "$LOG" | cut -d' ' -f1,2 | tr '\n' ' ')" = "SNAPSHOT 1 SNAPSHOT 2 generation 4 SNAPSHOT 3 SNAPSHOT 4 " ] &&
	   [ "$(python3 -c 'import json, sys; print(sum(json.loads(l)["requests"] for l in open(sys.argv[1])))' "$OUT")" -eq $((116 * 3)) ]; echo $?)" \
	"top: after a copy that failed, the next read copies without a snapshot (the module may evict what it has not copied)"

expect 1 '^kprof: API mismatch: kprofmod 0\.0\.0-fake speaks API 1\.0, this kprof speaks 4\.[0-9]+; install matching versions$' "top on an API 1.0 module: exit 1" -- \
	env KPROF_FAKE_OLD=1 KPROF_DEVICE=/fake/kprof LD_PRELOAD="$FAKE" "$KPROF" top
expect 1 'can neither trace TCP latency nor sample CPU stacks' "top on a module with neither: exit 1" -- \
	env KPROF_FAKE_FEATURES=0 KPROF_DEVICE=/fake/kprof LD_PRELOAD="$FAKE" "$KPROF" top
cg2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
if [ -n "$cg2" ]; then
	expect 1 'cannot filter by cgroup on its kernel \(API 4\.[0-9]+\)' \
		"top --cgroup on a module without the cgroup filter: exit 1" -- \
		fake top -n 1 --cgroup "$cg2"
else
	skip "top --cgroup on a module without the cgroup filter: exit 1" "no cgroup2 mount"
fi
expect 1 'does not trace TCP latency \(API 4\.[0-9]+\)$' "top --no-cpu on a module without TCP latency: exit 1" -- \
	env KPROF_FAKE_FEATURES=8 KPROF_DEVICE=/fake/kprof LD_PRELOAD="$FAKE" "$KPROF" top --no-cpu
rm -f "$LOG"
expect 1 'permission denied on /fake/kprof \(KPROF_IOC_START\)' "top: START refused: exit 1" -- \
	env KPROF_FAKE_START_ERRNO=1 KPROF_DEVICE=/fake/kprof KPROF_FAKE_LOG="$LOG" \
	LD_PRELOAD="$FAKE" "$KPROF" top

for sig in INT TERM; do
	rm -f "$LOG"
	KPROF_DEVICE=/fake/kprof KPROF_FAKE_LOG="$LOG" LD_PRELOAD="$FAKE" \
		"$KPROF" top -i 0.05 --json >"$OUT" 2>"$ERR" &
	pid=$!
	# its first interval printed (a timer of 0.4 s was not always
	# enough on a host busy with VMs)
	for _ in $(seq 300); do [ -s "$OUT" ] && break; sleep 0.1; done
	kill -"$sig" "$pid"
	wait "$pid"
	rc=$?
	result "$( [ $rc -eq 0 ] && [ ! -s "$ERR" ] && [ -s "$OUT" ] &&
		   [ "$(tail -n 1 "$LOG")" = "STOP what=3" ]; echo $?)" \
		"top: SIG$sig stops tracing and sampling, exit 0"
done

rm -f "$LOG"
set -o pipefail
fake top -i 0.01 --json 2>"$ERR" | head -n 1 >"$OUT"
rc=$?
set +o pipefail
result "$( [ $rc -eq 0 ] && [ ! -s "$ERR" ] && [ "$(tail -n 1 "$LOG")" = "STOP what=3" ]; echo $?)" \
	"top: reader of the pipe gone: stops tracing and sampling, exit 0"

start=$(date +%s%N)
expect 0 '' "top -i 0.2 -n 3" -- fake top -i 0.2 -n 3 --json
ms=$(( ($(date +%s%N) - start) / 1000000 ))
result "$( [ $ms -ge 550 ] && [ $ms -le 2000 ]; echo $?)" "top: 3 intervals of 0.2 s take ${ms} ms"

# --- top --prometheus against the fake device -----------------------------------
# Each interval the fake serves TCP rows of four endpoints (four stacks):
# 10.0.4.12:443 client (100 requests, 1.0 to 2.0 ms), [2001:db8::1]:8080
# server (10), [::ffff:127.0.0.1]:80 client (5), 192.168.1.1:5432 client (1);
# 116 requests, 2 abandoned, 3 row drops; 150 samples, 50 idle, 1 sample drop.

PROMCHECK=$HERE/prom-check.py
# promtool: $KPROF_PROMTOOL, else from $PATH, else where selftests/vm/setup-host.sh
# puts it (only promtool, extracted from Debian's prometheus package).
PROMTOOL=${KPROF_PROMTOOL:-$(command -v promtool ||
	echo "${KPROF_CACHE:-/var/cache/kprofmod}/promtool/promtool")}
[ -x "$PROMTOOL" ] || PROMTOOL=

# The checker itself: a good file passes, each kind of damage fails.
cat >"$TMP/good.prom" <<'EOF'
# HELP kprof_x_total X, with a \\ and a \n in the help.
# TYPE kprof_x_total counter
kprof_x_total{kind="a\\b\"c\nd"} 3
# HELP kprof_g G.
# TYPE kprof_g gauge
kprof_g -1.5e3
# HELP kprof_wait_seconds H.
# TYPE kprof_wait_seconds histogram
kprof_wait_seconds_bucket{raddr="::1",le="0.1"} 1
kprof_wait_seconds_bucket{raddr="::1",le="1"} 2
kprof_wait_seconds_bucket{raddr="::1",le="+Inf"} 3
kprof_wait_seconds_sum{raddr="::1"} 4.5
kprof_wait_seconds_count{raddr="::1"} 3
EOF
result "$("$PROMCHECK" --prefix kprof_ "$TMP/good.prom" >"$ERR"; echo $?)" "prom-check: accepts a well-formed file"
bad=0
while IFS= read -r damage; do
	sed -e "$damage" "$TMP/good.prom" >"$TMP/bad.prom"
	"$PROMCHECK" "$TMP/bad.prom" >/dev/null && { bad=1; echo "#   accepted: sed '$damage'"; }
done <<'EOF'
s/kind="a/kind="\\ta/
s/kind="a/kind="a"/
s/"::1"}/"::1}/
s/kind=/__kind=/
s/le="0.1"/le="0.1",le="0.2"/
s/^kprof_g /1kprof_g /
s/^kprof_g -1.5e3/kprof_g 1,5/
s/^kprof_g -1.5e3/kprof_g -1.5e3 1700000000000/
s/^kprof_g /kprof_g  /
s/^kprof_g/\n&/
s/^kprof_g/# a comment\n&/
/# TYPE kprof_g gauge/d
/# HELP kprof_g G./d
s/^# TYPE kprof_g gauge/& counter/
s/^# TYPE kprof_g gauge/# TYPE kprof_g gauge\n# TYPE kprof_g gauge/
s/kprof_x_total/kprof_x/g
s/^kprof_x_total{\(.*\)} 3/kprof_x_total{\1} -3/
s/^\(kprof_g .*\)$/\1\n\1/
$a kprof_x_total{kind="z"} 1
$a # HELP kprof_g again
s/le="1"} 2/le="1"} 0/
s/le="1"}/le="0.05"}/
/le="+Inf"/d
/_sum{/d
s/_count{raddr="::1"} 3/_count{raddr="::1"} 4/
s/_count{raddr="::1"} 3/_count{raddr="::1"} 3\nkprof_wait_seconds_bucket{raddr="::1",le="2"} 3/
s/_sum{raddr="::1"}/_sum{raddr="::1",le="1"}/
s/le="1"} 2/le="1"} 2\nkprof_wait_seconds_bucket{raddr="::1"} 2/
EOF
printf '%s' "$(cat "$TMP/good.prom")" >"$TMP/bad.prom"
"$PROMCHECK" "$TMP/bad.prom" >/dev/null && { bad=1; echo "#   accepted: no final newline"; }
"$PROMCHECK" --prefix kprofx_ "$TMP/good.prom" >/dev/null && { bad=1; echo "#   accepted: wrong prefix"; }
sed 's/} 3$/} 2/' "$TMP/good.prom" >"$TMP/old.prom"
"$PROMCHECK" --previous "$TMP/old.prom" "$TMP/good.prom" >/dev/null ||
	{ bad=1; echo "#   refused: counters that grew"; }
"$PROMCHECK" --previous "$TMP/good.prom" "$TMP/old.prom" >/dev/null &&
	{ bad=1; echo "#   accepted: counters that went down"; }
sed '/kprof_x_total{/d' "$TMP/good.prom" >"$TMP/gone.prom"
"$PROMCHECK" --previous "$TMP/good.prom" "$TMP/gone.prom" >/dev/null &&
	{ bad=1; echo "#   accepted: a series gone"; }
result "$bad" "prom-check: rejects bad names, escapes, values, timestamps, order, duplicates, histograms, decreases"

# promtool_check FILE: promtool check metrics (lints too) where promtool is.
promtool_check()
{
	local desc="promtool check metrics: $2"
	if [ -z "$PROMTOOL" ]; then
		skip "$desc" "no promtool (selftests/vm/setup-host.sh extracts it to ${KPROF_CACHE:-/var/cache/kprofmod}/promtool)"
		return
	fi
	"$PROMTOOL" check metrics <"$1" >"$OUT" 2>&1
	result "$( [ $? -eq 0 ] && [ ! -s "$OUT" ]; echo $?)" "$desc"
}
promtool_check "$TMP/good.prom" "the checker's good file"

# Connects (API 4.0): a connect row of 10.0.4.12:443, 4 established (300 to
# 525 us) and 1 refused, 2 timed out per interval, beside its client row.
fakec()
{
	env KPROF_FAKE_CONNECT=1 KPROF_DEVICE=/fake/kprof \
		KPROF_FAKE_LOG="$LOG" LD_PRELOAD="$FAKE" "$KPROF" "$@"
}
expect 0 '' "top with a connect row (table)" -- fakec top -n 1 -i 0.05 --no-cpu
result "$(grep -qE '^ +- +10\.0\.4\.12:443 +client +100 .* +3 +1 +525us +3$' "$OUT" &&
	  grep -qE '^ +- +10\.0\.4\.12:443 +connect +4 +1\.65ms +412us +377us +525us +525us +525us +0 +0 +525us +3$' "$OUT" &&
	  grep -qE '^ +99 +192\.168\.1\.1:5432 +client .* +- +-$' "$OUT" &&
	  grep -q '^[0-9:]*  interval .*  requests 116 ' "$OUT"; echo $?)" \
	"top: a connect row, its p99 and failures beside the endpoint's client row"
expect 0 '' "top --sort cfail" -- fakec top -n 1 -i 0.05 --no-cpu --sort cfail
result "$(grep -A1 -m1 '^STACK' "$OUT" | tail -n 1 | grep -qE '^ +- +10\.0\.4\.12:443 +connect +4 '; echo $?)" \
	"top --sort cfail: the endpoint with failed connects first"
expect 0 '' "top --json with a connect row" -- fakec top -n 1 -i 0.05 --no-cpu --json
result "$(python3 - "$OUT" <<'PY'
import json, sys
o = json.loads(open(sys.argv[1]).read())
c = [r for r in o["tcp"] if r["role"] == "connect"]
assert len(c) == 1, o["tcp"]
c = c[0]
assert (c["raddr"], c["rport"], c["count"], c["max_ns"]) == \
    ("10.0.4.12", 443, 4, 525000), c
assert (c["connects_refused"], c["connects_timedout"], c["connects_failed"]) == \
    (1, 2, 0), c
for r in o["tcp"]:
    if r["role"] != "connect":
        assert "connects_refused" not in r, r
assert o["requests"] == 116
PY
echo $?)" "top --json: the connect row's count, times and failures; request rows without them"
rm -f "$TMP/conn.prom"
expect 0 '' "top --prometheus with a connect row" -- \
	fakec top -n 2 -i 0.05 -q --prometheus "$TMP/conn.prom"
"$PROMCHECK" --prefix kprof_ "$TMP/conn.prom" >"$ERR"
result $? "top --prometheus with a connect row: FILE passes prom-check"
promtool_check "$TMP/conn.prom" "the connect histogram and failures"
result "$(grep -qx 'kprof_tcp_connect_duration_seconds_count{raddr="10.0.4.12",rport="443"} 8' "$TMP/conn.prom" &&
	  grep -qx 'kprof_tcp_connect_duration_seconds_bucket{raddr="10.0.4.12",rport="443",le="0.00025"} 0' "$TMP/conn.prom" &&
	  grep -qx 'kprof_tcp_connect_duration_seconds_bucket{raddr="10.0.4.12",rport="443",le="0.001"} 8' "$TMP/conn.prom" &&
	  grep -qx 'kprof_tcp_connect_failures_total{raddr="10.0.4.12",rport="443",cause="refused"} 2' "$TMP/conn.prom" &&
	  grep -qx 'kprof_tcp_connect_failures_total{raddr="10.0.4.12",rport="443",cause="timedout"} 4' "$TMP/conn.prom" &&
	  grep -qx 'kprof_tcp_connect_failures_total{raddr="10.0.4.12",rport="443",cause="other"} 0' "$TMP/conn.prom" &&
	  ! grep -q 'role="connect"' "$TMP/conn.prom" &&
	  grep -qx 'kprof_tcp_requests_total 232' "$TMP/conn.prom"; echo $?)" \
	"top --prometheus: connects in their own histogram and failure counters, not in the requests'"
expect 0 '' "report with a connect row" -- fakec report -d 0.3 --no-cpu
result "$(grep -qx 'Endpoint health: retransmits, resets and failed connects (3 of 5 endpoints had some)' "$OUT" &&
	  grep -qE '^  10\.0\.4\.12:443 +connect +connects: [0-9]+ established, [0-9]+ refused, [0-9]+ timed out, 0 failed otherwise$' "$OUT"; echo $?)" \
	"report: an endpoint's connects, established and failed by cause"

# Latency and errors moving together: with KPROF_FAKE_LOSSY=1, three
# endpoints get slower with more retransmits or resets and back, interval
# by interval; 192.168.1.1:5432 has errors at a steady rate and a steady
# p99.
expect 0 '' "report -d 7 over lossy endpoints" -- \
	env KPROF_FAKE_LOSSY=1 KPROF_DEVICE=/fake/kprof LD_PRELOAD="$FAKE" \
	"$KPROF" report -d 7 --no-cpu
result "$(sed -n '/^  Latency and errors moving together/,/^$/p' "$OUT" >"$TMP/tog" &&
	  grep -q 'and requests in at least 6 intervals: 3)$' "$TMP/tog" &&
	  grep -qE '^    10\.0\.4\.12:443 +client +rho 0\.9[0-9] \(p 0\.00[0-9]+\) over 7 intervals with requests, 7 with errors$' "$TMP/tog" &&
	  grep -qE '^    \[2001:db8::1\]:8080 +server +rho ' "$TMP/tog" &&
	  grep -qE '^    \[::ffff:127\.0\.0\.1\]:80 +client +rho ' "$TMP/tog" &&
	  [ "$(grep -c '^    [[0-9]' "$TMP/tog")" -eq 3 ]; echo $?)" \
	"report: the endpoints whose p99 moves with their errors are named, no other"
expect 0 '' "report -d 7 --top 1 over lossy endpoints" -- \
	env KPROF_FAKE_LOSSY=1 KPROF_DEVICE=/fake/kprof LD_PRELOAD="$FAKE" \
	"$KPROF" report -d 7 --no-cpu --top 1
result "$(sed -n '/^  Latency and errors moving together/,/^$/p' "$OUT" >"$TMP/tog" &&
	  [ "$(grep -c '^    [[0-9]' "$TMP/tog")" -eq 1 ] &&
	  grep -qx '    (2 more endpoints)' "$TMP/tog"; echo $?)" \
	"report --top 1: one endpoint named, the others counted"
expect 0 '' "report --json -d 7 over lossy endpoints" -- \
	env KPROF_FAKE_LOSSY=1 KPROF_DEVICE=/fake/kprof LD_PRELOAD="$FAKE" \
	"$KPROF" report -d 7 --no-cpu --json
result "$(python3 - "$OUT" <<'PY'
import json, sys
o = json.loads(open(sys.argv[1]).read())
t = {(e["endpoint"], e["role"]): e["latency_errors"] for e in o["endpoints"]}
a = t[("10.0.4.12:443", "client")]
assert a["together"] and a["rho"] > 0.9 and a["p_value"] < 0.01, a
assert (a["points"], a["points_with_errors"], a["intervals_per_point"]) == (7, 7, 1), a
b = t[("192.168.1.1:5432", "client")]
assert not b["together"] and b["rho"] is None and b["points_with_errors"] == 7, b
c = t[("[2001:db8::1]:8080", "server")]
assert c["together"] and c["points_with_errors"] < 7, c
PY
echo $?)" "report --json: latency_errors per endpoint, null where not defined"

rm -f "$LOG"
P=$TMP/prom/kprof.prom
mkdir -p "$TMP/prom"
expect 0 '' "top -n 2 -i 0.1 --prometheus FILE --json" -- \
	fake top -n 2 -i 0.1 --prometheus "$P" --json
result "$( [ "$(wc -l <"$OUT")" -eq 2 ] && [ "$(ls "$TMP/prom")" = kprof.prom ] &&
	   [ "$(grep -E '^(START|STOP)' "$LOG" | tr '\n' ' ')" = "START what=3 STOP what=3 " ]; echo $?)" \
	"top --prometheus: JSON still printed, only FILE left (no temporary), started and stopped"
"$PROMCHECK" --prefix kprof_ "$P" >"$ERR"
result $? "top --prometheus: FILE passes prom-check"
promtool_check "$P" "top --prometheus FILE"
result "$(python3 - "$P" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
v = {}
for line in text.splitlines():
    if not line.startswith("#"):
        k, val = line.rsplit(" ", 1)
        v[k] = val
H = "kprof_tcp_request_duration_seconds"
def ep(addr, port, role, le=None, suffix="_bucket"):
    l = 'raddr="%s",rport="%s",role="%s"' % (addr, port, role)
    return H + suffix + "{" + l + (',le="%s"' % le if le else "") + "}"
want = {
    "kprof_intervals_total": "2",
    "kprof_tcp_requests_total": "232", "kprof_tcp_abandoned_requests_total": "4",
    'kprof_cpu_samples_total{state="busy"}': "200",
    'kprof_cpu_samples_total{state="idle"}': "100",
    'kprof_drops_total{kind="rows"}': "6", 'kprof_drops_total{kind="samples"}': "2",
    "kprof_tcp_endpoint_series": "4", "kprof_tcp_endpoint_series_max": "500",
    "kprof_tcp_folded_rows_total": "0",
    # 100 requests per interval, 1.0..2.0 ms: all under 2.5ms, none under 1ms
    ep("10.0.4.12", 443, "client", "0.001"): "0",
    ep("10.0.4.12", 443, "client", "0.0025"): "200",
    ep("10.0.4.12", 443, "client", "+Inf"): "200",
    ep("10.0.4.12", 443, "client", suffix="_count"): "200",
    ep("10.0.4.12", 443, "client", suffix="_sum"): "0.299",
    ep("2001:db8::1", 8080, "server", suffix="_count"): "20",
    ep("::ffff:127.0.0.1", 80, "client", suffix="_count"): "10",
    ep("192.168.1.1", 5432, "client", suffix="_count"): "2",
}
for k, val in want.items():
    assert v.get(k) == val, (k, v.get(k), val)
assert len([k for k in v if k.startswith(H + "_count")]) == 4
assert re.search(r'^kprof_info\{version="[^"]+",module_version="0\.0\.0-fake",api="4\.[0-9]+"\} 1$', text, re.M)
PY
echo $?)" "top --prometheus: totals of both intervals, one series per endpoint and role, stacks merged"

expect 0 '' "top -q --prometheus: quiet" -- fake top -n 1 -i 0.05 -q --prometheus "$P" --no-tcp
result "$( [ ! -s "$OUT" ] && "$PROMCHECK" "$P" >/dev/null &&
	   grep -qx 'kprof_tcp_requests_total 0' "$P" && grep -qx 'kprof_cpu_samples_total{state="busy"} 100' "$P" &&
	   ! grep -q '^kprof_tcp_request_duration_seconds_' "$P"; echo $?)" \
	"top -q --no-tcp --prometheus: nothing on stdout, TCP counters 0, no latency series"

expect 0 '' "top --prometheus-max-series 1" -- \
	fake top -n 2 -i 0.05 -q --prometheus "$P" --prometheus-max-series 1
result "$("$PROMCHECK" "$P" >/dev/null && grep -qx 'kprof_tcp_endpoint_series 1' "$P" &&
	  grep -qx 'kprof_tcp_folded_rows_total 6' "$P" &&
	  [ "$(grep -c '^kprof_tcp_request_duration_seconds_count{' "$P")" -eq 3 ] &&
	  grep -qx 'kprof_tcp_request_duration_seconds_count{raddr="other",rport="other",role="client"} 12' "$P" &&
	  grep -qx 'kprof_tcp_request_duration_seconds_count{raddr="other",rport="other",role="server"} 20' "$P"; echo $?)" \
	"top --prometheus-max-series 1: one endpoint, the rest in other per role, folded rows counted"

# Every version of the file that a reader can see is whole and valid, and
# nothing goes down from one to the next.
rm -rf "$TMP/prom" && mkdir -p "$TMP/prom" "$TMP/seen"
fake top -i 0.1 -n 8 -q --prometheus "$P" >"$OUT" 2>"$ERR" &
pid=$!
k=0
while kill -0 "$pid" 2>/dev/null; do
	if [ -e "$P" ] && ! cmp -s "$P" "$TMP/seen/$k.prom" 2>/dev/null; then
		k=$((k + 1))
		cp "$P" "$TMP/seen/$k.prom"
	fi
	sleep 0.02
done
wait "$pid"
rc=$?
bad=0
for i in $(seq 2 "$k"); do
	"$PROMCHECK" --prefix kprof_ --previous "$TMP/seen/$((i - 1)).prom" "$TMP/seen/$i.prom" ||
		bad=1
done
result "$( [ $rc -eq 0 ] && [ "$k" -ge 3 ] && [ $bad -eq 0 ] && no_tmp "$P" &&
	   grep -qx 'kprof_intervals_total 8' "$P"; echo $?)" \
	"top --prometheus: $k versions seen while it ran, each valid, none going down"

rm -f "$LOG"
expect 1 "^kprof: cannot write $TMP/prom: Is a directory\$" \
	"top --prometheus DIRECTORY: exit 1 before measuring" -- fake top -n 1 --prometheus "$TMP/prom"
result "$( no_tmp "$TMP/prom" && ! grep -qsE '^(START|SET_CONFIG)' "$LOG"; echo $?)" \
	"top --prometheus DIRECTORY: nothing started, nothing left"
expect 1 "^kprof: cannot write $TMP/no/such/k.prom: $TMP/no/such: No such file or directory\$" \
	"top --prometheus in a missing directory: exit 1" -- fake top -n 1 --prometheus "$TMP/no/such/k.prom"
expect 1 'kprofmod is not loaded' "top --prometheus without module: exit 1" \
	-- nomod top -n 1 --prometheus "$TMP/nomod.prom" --prometheus-max-series 0 -q
result "$( [ ! -e "$TMP/nomod.prom" ] && no_tmp "$TMP/nomod.prom"; echo $?)" \
	"top --prometheus without module: leaves no file behind"

# --- output files: private by default, no directory others can write -------------
mkdir -p "$TMP/shared"
chmod 0777 "$TMP/shared"
rm -f "$LOG"
expect 1 "^kprof: refusing to write $TMP/shared/k\.prom: directory $TMP/shared is writable by others \(mode 0777\); pass --shared-dir to write there anyway\$" \
	"top --prometheus into a directory others can write: refused, exit 1" -- \
	fake top -n 1 -q --prometheus "$TMP/shared/k.prom"
result "$( [ -z "$(ls -A "$TMP/shared")" ] && ! grep -qsE '^(START|SET_CONFIG)' "$LOG"; echo $?)" \
	"a refused directory: nothing created in it, nothing started"
expect 0 '' "top --prometheus --shared-dir --file-mode 0644" -- \
	fake top -n 1 -i 0.1 -q --prometheus "$TMP/shared/k.prom" --shared-dir --file-mode 0644
result "$( [ "$(stat -c %a "$TMP/shared/k.prom")" = 644 ] && [ "$(ls -A "$TMP/shared")" = k.prom ]; echo $?)" \
	"--shared-dir writes there; --file-mode 0644 gives mode 0644; no temporary left"
expect 0 '' "top --prometheus (default mode)" -- fake top -n 1 -i 0.1 -q --prometheus "$TMP/mode.prom"
result "$( [ "$(stat -c %a "$TMP/mode.prom")" = 600 ]; echo $?)" \
	"top --prometheus: the file is private (0600) by default"
expect 0 '' "record -o (default mode)" -- fake record -d 0.1 -o "$TMP/mode.folded"
result "$( [ "$(stat -c %a "$TMP/mode.folded")" = 600 ]; echo $?)" \
	"record: the file is private (0600) by default"
expect 2 "^kprof: record: --file-mode '4755': permission bits only \(0 to 0777\)\$" \
	"record --file-mode 4755: exit 2" -- fake record -d 0.1 -o "$TMP/x" --file-mode 4755
expect 2 "^kprof: top: --file-mode and --shared-dir need --prometheus\$" \
	"top --file-mode without --prometheus: exit 2" -- fake top -n 1 --file-mode 0644

# --- record against the fake device ----------------------------------------------
# Each interval the fake serves 100 non-idle samples: kprof_fake_hot_a 60,
# kprof_fake_hot_b 20 (comm "fake app"), a read() 10, ksoftirqd/1 6,
# missing kernel frames 2, stack ID 0 2.

FOLDED_1="fake-app;[stack_table_full] 2
fake-app;kprof_fake_main;kprof_fake_work;kprof_fake_hot_a 60
fake-app;kprof_fake_main;kprof_fake_work;kprof_fake_read;[kernel_frames_missing]_[k] 2
fake-app;kprof_fake_main;kprof_fake_work;kprof_fake_read;entry_SYSCALL_64_after_hwframe_[k];do_syscall_64_[k];__x64_sys_read_[k];_copy_to_user_[k];copy_user_generic_string_[k] 10
fake_app;kprof_fake_main;kprof_fake_work;kprof_fake_hot_b 20
ksoftirqd/1;ret_from_fork_[k];kthread_[k];smpboot_thread_fn_[k];run_ksoftirqd_[k];__do_softirq_[k];net_rx_action_[k];e1000_clean_[k] 6"

# folded_total FILE: the sum of the counts
folded_total()
{
	awk '{ n += $NF } END { print n + 0 }' "$1"
}

# The checker itself: well-formed input passes, each kind of damage fails.
printf 'a;b;c 1\nmain 20\n' >"$TMP/good.folded"
result "$("$HERE/folded-check.sh" "$TMP/good.folded" >/dev/null; echo $?)" \
	"folded-check: accepts a well-formed file"
bad=0
for line in 'a;b 0' 'a;b 01' 'a;;b 3' ';a 3' 'a; 3' 'a;b  3' 'a b;c 3' \
	    'a;b 3 ' ' a;b 3' 'a;b	3' 'a;b' '3' 'a;b -3' 'a;b 1.5' ''; do
	printf 'ok;line 1\n%s\n' "$line" >"$TMP/bad.folded"
	"$HERE/folded-check.sh" "$TMP/bad.folded" >/dev/null && { bad=1; echo "#   accepted: '$line'"; }
done
printf 'a;b 1' >"$TMP/bad.folded"
"$HERE/folded-check.sh" "$TMP/bad.folded" >/dev/null && { bad=1; echo "#   accepted: no final newline"; }
result "$bad" "folded-check: rejects zero, padding, empty frames, stray white space, no count"

rm -f "$LOG"
expect 0 '' "record -d 0.3 (folded): exit 0, nothing on stderr when not a terminal" -- \
	fake record -d 0.3 -o "$TMP/cpu.folded"
result "$( [ ! -s "$OUT" ] && "$HERE/folded-check.sh" "$TMP/cpu.folded"; echo $?)" \
	"record folded: passes the strict folded check"
result "$( [ "$(cat "$TMP/cpu.folded")" = "$FOLDED_1" ]; echo $?)" \
	"record folded: comm;root..leaf COUNT, kernel frames _[k], sorted, names made safe"
result "$( no_tmp "$TMP/cpu.folded" && [ ! -e "$TMP/cpu.folded.latency.pb.gz" ]; echo $?)" \
	"record folded: the temporary renamed, no latency file"
result "$(grep -qx 'SET_CONFIG tgid=0 roles=0 families=0 threshold_ns=1000000 rports= lports= sample_hz=99' "$LOG" &&
	  [ "$(grep -E '^(START|STOP)' "$LOG" | tr '\n' ' ')" = "START what=2 STOP what=2 " ] &&
	  [ "$(grep -c '^SNAPSHOT' "$LOG")" -eq 2 ]; echo $?)" \
	"record folded: samples only (no TCP tracing), a fresh interval, one snapshot, stopped"

rm -f "$LOG"
echo "old contents" >"$TMP/cpu3.folded"
start=$(date +%s%N)
expect 0 '' "record -d 2.2 --freq 250" -- fake record -d 2.2 --freq 250 -o "$TMP/cpu3.folded"
ms=$(( ($(date +%s%N) - start) / 1000000 ))
result "$( [ $ms -ge 2150 ] && [ $ms -le 6000 ] && [ "$(grep -c '^SNAPSHOT' "$LOG")" -eq 4 ] &&
	   grep -q '^SET_CONFIG .* sample_hz=250$' "$LOG"; echo $?)" \
	"record -d 2.2: a snapshot each second and at the end (${ms} ms), rate set"
result "$("$HERE/folded-check.sh" "$TMP/cpu3.folded" &&
	  [ "$(folded_total "$TMP/cpu3.folded")" -eq 300 ] &&
	  grep -qx 'fake-app;kprof_fake_main;kprof_fake_work;kprof_fake_hot_a 180' "$TMP/cpu3.folded" &&
	  grep -qx 'fake_app;kprof_fake_main;kprof_fake_work;kprof_fake_hot_b 60' "$TMP/cpu3.folded"; echo $?)" \
	"record: three intervals added up (300 samples, 180/60), old file replaced"

rm -f "$LOG"
expect 0 '' "record --format pprof -d 0.3" -- fake record --format pprof -d 0.3 -o "$TMP/cpu.pb.gz"
result "$( [ -s "$TMP/cpu.pb.gz" ] && [ -s "$TMP/cpu.pb.gz.latency.pb.gz" ] &&
	   no_tmp "$TMP/cpu.pb.gz" && no_tmp "$TMP/cpu.pb.gz.latency.pb.gz" &&
	   [ "$(head -c 2 "$TMP/cpu.pb.gz" | od -An -tx1 | tr -d ' ')" = 1f8b ] &&
	   [ "$(grep -E '^(START|STOP)' "$LOG" | tr '\n' ' ')" = "START what=3 STOP what=3 " ]; echo $?)" \
	"record pprof: gzip FILE and FILE.latency.pb.gz, TCP and CPU started and stopped"
gunzip -c "$TMP/cpu.pb.gz" | protoc --decode_raw >"$TMP/cpu.raw" 2>"$TMP/cpu.raw.err"
result "$?" "record pprof: protoc --decode_raw reads the CPU profile"
"$HERE/pprof-raw.py" <"$TMP/cpu.raw" >"$TMP/cpu.json"
result "$(python3 - "$TMP/cpu.json" "$(folded_total "$TMP/cpu.folded")" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
folded_total = int(sys.argv[2])
assert p["sample_type"] == [["samples", "count"], ["cpu", "nanoseconds"]], p["sample_type"]
assert p["period"] == 10**9 // 99, p["period"]
total = sum(s["values"][0] for s in p["samples"])
assert total == folded_total == 100, (total, folded_total)
for s in p["samples"]:
    assert s["values"][1] == s["values"][0] * p["period"]
    assert set(s["labels"]) == {"comm", "pid"}
    for l in s["locations"]:
        assert str(l) in p["locations"], l
leaf = {}
for s in p["samples"]:
    loc = p["locations"][str(s["locations"][0])]
    name = p["functions"][str(loc["functions"][0])] if loc["functions"] else "?"
    leaf[name] = leaf.get(name, 0) + s["values"][0]
assert leaf == {"kprof_fake_hot_a": 60, "kprof_fake_hot_b": 20,
                "copy_user_generic_string": 10, "e1000_clean": 6,
                "[kernel frames missing]": 2, "[stack table full]": 2}, leaf
maps = {m["file"]: m for m in p["mappings"]}
assert p["mappings"][-1]["file"] == "[kernel.kallsyms]", p["mappings"]
fake = [m for f, m in maps.items() if f.endswith("/fakedev.so")]
assert len(fake) == 1 and fake[0]["has_functions"], maps
assert len(fake[0]["build_id"]) == 40, fake[0]
addrs = [l["address"] for l in p["locations"].values()]
assert len(set(a for a in addrs if a)) == len([a for a in addrs if a]), "one location per address"
PY
echo $?)" "record pprof (decode_raw): sample totals equal the folded totals, functions, mappings, build ID"
gunzip -c "$TMP/cpu.pb.gz.latency.pb.gz" | protoc --decode_raw | "$HERE/pprof-raw.py" >"$TMP/lat.json"
result "$(python3 - "$TMP/lat.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
assert p["sample_type"] == [["requests", "count"], ["latency", "nanoseconds"]], p["sample_type"]
rows = {(s["labels"]["endpoint"], s["labels"]["role"]): s["values"] for s in p["samples"]}
assert rows == {("10.0.4.12:443", "client"): [100, 149500000],
                ("[2001:db8::1]:8080", "server"): [10, 435000000],
                ("[::ffff:127.0.0.1]:80", "client"): [5, 14000],
                ("192.168.1.1:5432", "client"): [1, 5]}, rows
names = set(p["functions"].values())
assert {"tcp_sendmsg", "[below threshold]", "tcp_recvmsg", "[unknown stack]"} <= names, names
PY
echo $?)" "record pprof (decode_raw): latency profile with endpoint and role labels"
# $KPROF_GO: the go binary (default go); a missing one skips these.
GO=${KPROF_GO:-go}
if command -v "$GO" >/dev/null; then
	GOT="$TMP/go-top"
	HOME=$TMP GOCACHE=$TMP/gocache "$GO" tool pprof -top "$TMP/cpu.pb.gz" >"$GOT" 2>"$TMP/go-top.err"
	result "$(grep -qE '^ +[0-9.]+ms +60\.00% +60\.00% +[0-9.]+ms +60\.00% +kprof_fake_hot_a$' "$GOT" &&
		  grep -qE '^ +[0-9.]+ms +20\.00% +80\.00% .* kprof_fake_hot_b$' "$GOT" &&
		  grep -qE ' copy_user_generic_string$' "$GOT" && grep -qE ' kprof_fake_main$' "$GOT" &&
		  grep -q '^Type: cpu$' "$GOT"; echo $?)" \
		"go tool pprof -top: the profile's functions, 60% and 20% flat"
	HOME=$TMP GOCACHE=$TMP/gocache "$GO" tool pprof -top "$TMP/cpu.pb.gz.latency.pb.gz" >"$GOT" 2>"$TMP/go-top.err"
	result "$(grep -q '^Type: latency$' "$GOT" && grep -qE ' tcp_sendmsg$' "$GOT" &&
		  grep -qE ' \[below threshold\]$' "$GOT"; echo $?)" \
		"go tool pprof -top: the latency profile"
else
	skip "go tool pprof -top: the profile's functions" "no $GO (apt-get install golang-go)"
	skip "go tool pprof -top: the latency profile" "no $GO (apt-get install golang-go)"
fi

rm -f "$LOG"
expect 0 '' "record --format json -d 0.3 -p (own pid)" -- \
	env KPROF_DEVICE=/fake/kprof KPROF_FAKE_LOG="$LOG" LD_PRELOAD="$FAKE" \
	sh -c 'exec "$0" record --format json -d 0.3 -o "$1" -p $$ --threshold 0' "$KPROF" "$TMP/rec.json"
result "$(python3 - "$TMP/rec.json" <<'PY'
import json, sys
text = open(sys.argv[1]).read()
assert text.count("\n") == 1 and text.endswith("\n")
o = json.loads(text)
for k in ("interval", "cpu", "tcp", "samples_total", "samples_idle", "drops",
          "sample_hz", "requests", "abandoned", "intervals"):
    assert k in o, k
iv = o["interval"]
assert iv["end_ns"] > iv["start_ns"] > 0 and iv["duration_ns"] == iv["end_ns"] - iv["start_ns"]
assert (o["samples_total"], o["samples_idle"], o["sample_hz"], o["intervals"]) == (150, 50, 99, 1)
assert o["drops"] == {"inflight": 0, "rows": 3, "stacks": 0, "export": 0, "samples": 1}, o["drops"]
cpu = o["cpu"]
assert [(r["stack_id"], r["samples"]) for r in cpu] == [(21, 60), (22, 20), (23, 10), (0, 2), (25, 2)], cpu
for r in cpu:
    assert set(r) == {"stack_id", "tgid", "comm", "samples", "frames"}, r
assert cpu[2]["frames"] == ["copy_user_generic_string+0x2c/0x40", "_copy_to_user+0x22/0x30",
    "__x64_sys_read+0x19/0x20", "do_syscall_64+0x5b/0xc0",
    "entry_SYSCALL_64_after_hwframe+0x6e/0xd8", "kprof_fake_read+0x1 (fakedev.so)",
    "kprof_fake_work+0x2 (fakedev.so)", "kprof_fake_main+0x2 (fakedev.so)"], cpu[2]
assert cpu[3]["frames"] == [] and cpu[4]["frames"][0] == "[kernel frames missing]"
tcp = o["tcp"]
assert [r["stack_id"] for r in tcp] == [7, 0, 12, 99], tcp
assert tcp[0]["count"] == 10 and tcp[0]["sum_ns"] == 435000000 and tcp[0]["comm"] == "fake-client"
assert tcp[0]["frames"][0].startswith("tcp_sendmsg+0x0/0x50") and len(tcp[0]["frames"]) == 6
assert "frames" not in tcp[1] and "frames" not in tcp[3]
assert tcp[2]["frames"] == ["tcp_recvmsg+0x0/0x1e0", "inet_recvmsg+0x5a/0x120"]
assert o["requests"] == 116
PY
echo $?)" "record json: one object, totals, cpu[] of the -p process with whole stacks, tcp[]"
result "$(grep -q '^SET_CONFIG tgid=[1-9][0-9]* .* threshold_ns=0 ' "$LOG"; echo $?)" \
	"record: -p and --threshold reach the module's configuration"

rm -f "$LOG"
KPROF_DEVICE=/fake/kprof KPROF_FAKE_LOG="$LOG" LD_PRELOAD="$FAKE" \
	"$KPROF" record -d 30 -o "$TMP/int.folded" >"$OUT" 2>"$ERR" &
pid=$!
# after the first interval of the recording (snapshot 2), however slow
for _ in $(seq 100); do grep -q '^SNAPSHOT 2 ' "$LOG" 2>/dev/null && break; sleep 0.1; done
kill -INT "$pid"
start=$(date +%s%N)
wait "$pid"
rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
result "$( [ $rc -eq 0 ] && [ ! -s "$ERR" ] && [ $ms -lt 2000 ] &&
	   "$HERE/folded-check.sh" "$TMP/int.folded" >/dev/null &&
	   [ "$(folded_total "$TMP/int.folded")" -eq 200 ] &&
	   [ "$(tail -n 1 "$LOG")" = "STOP what=2" ]; echo $?)" \
	"record: SIGINT ends it early, the interval so far counts, the file is written"

# The progress line: on a terminal only (a pty from python).
result "$(python3 - "$KPROF" "$FAKE" "$TMP/pty.folded" <<'PY'
import os, pty, sys, subprocess
kprof, fake, out = sys.argv[1:4]
master, slave = pty.openpty()
env = dict(os.environ, KPROF_DEVICE="/fake/kprof", LD_PRELOAD=fake)
p = subprocess.run([kprof, "record", "-d", "1.2", "-o", out], env=env,
                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                   stderr=slave, timeout=20)
os.close(slave)
text = b""
while True:
    try:
        chunk = os.read(master, 4096)
    except OSError:
        break
    if not chunk:
        break
    text += chunk
text = text.decode()
assert p.returncode == 0, p.returncode
assert "\rkprof: recording 0ns/1.20s" in text.replace("\x1b[K", ""), repr(text)
assert "kprof: recording 1.00s/1.20s, 100 samples" in text, repr(text)
assert "kprof: recorded 1.20s/1.20s, 200 samples\r\n" in text, repr(text)
PY
echo $?)" "record: a progress line (\\r, elapsed/total, samples) when stderr is a terminal"

rm -f "$LOG"
expect 1 "^kprof: cannot write $TMP/no/such/dir/x: $TMP/no/such/dir: No such file or directory$" \
	"record: an unwritable output fails before measuring, exit 1" -- \
	fake record -d 1 -o "$TMP/no/such/dir/x"
result "$(! grep -sqE '^(START|SET_CONFIG)' "$LOG"; echo $?)" \
	"record: nothing started for an unwritable output"
rm -f "$LOG"
expect 0 '' "record --format pprof --no-tcp" -- fake record --format pprof --no-tcp -d 0.1 -o "$TMP/nt.pb.gz"
result "$( [ -s "$TMP/nt.pb.gz" ] && [ ! -e "$TMP/nt.pb.gz.latency.pb.gz" ] &&
	   [ "$(grep -E '^(START|STOP)' "$LOG" | tr '\n' ' ')" = "START what=2 STOP what=2 " ]; echo $?)" \
	"record pprof --no-tcp: no latency file, no TCP tracing"
expect 1 '^kprof: API mismatch: kprofmod 0\.0\.0-fake speaks API 1\.1, this kprof speaks 4\.[0-9]+; install matching versions$' \
	"record folded on an API 1.1 module: exit 1" -- \
	env KPROF_FAKE_API11=1 KPROF_DEVICE=/fake/kprof LD_PRELOAD="$FAKE" \
	"$KPROF" record -d 0.1 -o "$TMP/old.folded"
result "$( [ ! -e "$TMP/old.folded" ] && no_tmp "$TMP/old.folded"; echo $?)" \
	"record: no file when nothing could be recorded"
expect 1 "the module's snapshot mapping is corrupt: cpu_row_size 8" \
	"record: a corrupt mapping ends it, exit 1, no file" -- \
	env KPROF_FAKE_CORRUPT_CPU=2 KPROF_DEVICE=/fake/kprof LD_PRELOAD="$FAKE" \
	"$KPROF" record -d 0.2 -o "$TMP/corrupt.folded"
result "$( [ ! -e "$TMP/corrupt.folded" ] && no_tmp "$TMP/corrupt.folded"; echo $?)" \
	"record: a failed recording leaves no file"
rm -f "$LOG"
env KPROF_FAKE_STEAL=2 KPROF_DEVICE=/fake/kprof KPROF_FAKE_LOG="$LOG" LD_PRELOAD="$FAKE" \
	"$KPROF" record -d 0.2 -o "$TMP/steal.folded" >"$OUT" 2>"$ERR"
rc=$?
# every snapshot after the first publishes 100 busy samples, the stolen one twice
result "$( [ $rc -eq 0 ] && [ ! -s "$ERR" ] &&
	   [ "$(awk '{ n += $NF } END { print n }' "$TMP/steal.folded")" -eq \
	     "$(( 100 * $(grep -c '^SNAPSHOT' "$LOG") ))" ]; echo $?)" \
	"record: another reader's snapshot loses nothing, every sample is recorded once"
env KPROF_FAKE_DROPS_STACKS=3 KPROF_DEVICE=/fake/kprof LD_PRELOAD="$FAKE" \
	"$KPROF" record -d 0.2 -o "$TMP/nostack.folded" >"$OUT" 2>"$ERR"
rc=$?
result "$( [ $rc -eq 0 ] &&
	   grep -q '^kprof: [1-9][0-9]* samples and requests kept no stack (the stack table was full, or captures collided)' "$ERR" &&
	   [ -e "$TMP/nostack.folded" ]; echo $?)" \
	"record: samples and requests that kept no stack are reported"
env KPROF_DEVICE=/fake/kprof LD_PRELOAD="$FAKE" \
	"$KPROF" record -d 0.2 -o "$TMP/stack.folded" >"$OUT" 2>"$ERR"
result "$( ! grep -q 'kept no stack' "$ERR"; echo $?)" \
	"record: nothing said when every stack was kept"
env KPROF_FAKE_DROPS_STACKS=3 KPROF_DEVICE=/fake/kprof LD_PRELOAD="$FAKE" \
	"$KPROF" top --no-tcp -i 0.1 -n 2 >"$OUT" 2>"$ERR"
result "$(grep -q 'sample drops [0-9]*  no stack 3' "$OUT"; echo $?)" \
	"top --no-tcp: samples that kept no stack in the header"

# --- report against the fake device ----------------------------------------------

rm -f "$LOG"
expect 0 '' "report -d 0.3 --json: exit 0, nothing on stderr" -- fake report -d 0.3 --json
result "$(python3 -m json.tool "$OUT" >/dev/null && { ! command -v jq >/dev/null || jq -e . "$OUT" >/dev/null; }; echo $?)" \
	"report --json: the output parses as JSON"
result "$(python3 - "$OUT" <<'PY'
import json, math, sys
text = open(sys.argv[1]).read()
assert text.count("\n") == 1, "one line"
o = json.loads(text)
assert set(o) == {"schema", "kprof_version", "module", "window", "cpu",
                  "hot_functions", "hot_stacks", "tcp", "endpoints",
                  "health"}, sorted(o)
assert o["schema"] == 1
assert o["module"]["version"] == "0.0.0-fake" and o["module"]["cpus_online"] == 2
w = o["window"]
assert w["end_ns"] > w["start_ns"] > 0 and w["duration_ns"] == w["end_ns"] - w["start_ns"]
assert w["requested_ns"] == 300000000 and w["stopped_early"] is False
c = o["cpu"]
assert (c["measured"], c["basis"], c["basis_samples"], c["samples_total"],
        c["samples_idle"], c["sample_hz"]) == (True, "busy", 100, 150, 50, 99), c
f = {(x["function"], x["kind"]): x for x in o["hot_functions"]}
assert len(o["hot_functions"]) == 10
a = o["hot_functions"][0]
assert (a["function"], a["kind"], a["self_samples"], a["total_samples"]) == \
    ("kprof_fake_hot_a", "user", 60, 60), a
assert a["self_share"] == 0.6 and abs(a["self_ceiling"] - 2.5) < 1e-12, a
for x in o["hot_functions"]:
    for k in ("self", "total"):
        p = x[k + "_share"]
        assert p == x[k + "_samples"] / 100
        assert abs(x[k + "_ceiling"] - 1 / (1 - p)) < 1e-12, x
m = f[("kprof_fake_main", "user")]
assert m["self_samples"] == 0 and m["total_samples"] == 92, m
assert f[("[stack table full]", "pseudo")]["self_samples"] == 2
assert f[("copy_user_generic_string", "kernel")]["self_samples"] == 10
st = o["hot_stacks"]
assert [(x["stack_id"], x["samples"]) for x in st] == \
    [(21, 60), (22, 20), (23, 10), (24, 6), (0, 2), (25, 2)], st
assert st[0]["share"] == 0.6 and st[0]["frames"][0] == "kprof_fake_hot_a+0x1 (fakedev.so)"
assert st[4]["frames"] == []
assert o["tcp"] == {"measured": True, "requests": 116, "abandoned": 2,
                    "threshold_ns": 1000000}, o["tcp"]
eps = o["endpoints"]
assert [e["endpoint"] for e in eps] == ["[2001:db8::1]:8080", "10.0.4.12:443",
    "[::ffff:127.0.0.1]:80", "192.168.1.1:5432"], eps
for e in eps:
    for k in ("family", "raddr", "rport", "role", "count", "sum_ns", "min_ns",
              "max_ns", "p50_ns", "p95_ns", "p99_ns", "window_share",
              "below_threshold", "slow_stacks"):
        assert k in e, k
    assert e["p50_ns"] <= e["p95_ns"] <= e["p99_ns"] <= e["max_ns"]
    assert abs(e["window_share"] - e["sum_ns"] / w["duration_ns"]) < 1e-9
e = eps[0]
assert (e["role"], e["count"], e["sum_ns"], e["below_threshold"]) == ("server", 10, 435000000, 0)
assert [(s["stack_id"], s["count"], s["max_ns"]) for s in e["slow_stacks"]] == [(7, 10, 57000000)]
assert e["slow_stacks"][0]["comm"] == "fake-client" and len(e["slow_stacks"][0]["frames"]) == 6
assert eps[1]["below_threshold"] == 100 and eps[1]["slow_stacks"] == []
h = o["health"]
assert h["drops"] == {"inflight": 0, "rows": 3, "stacks": 0, "export": 0, "samples": 1}, h
assert (h["samples_total"], h["samples_idle"], h["intervals"],
        h["stack_resets"], h["stack_resets_in_window"]) == (150, 50, 1, 0, 0), h
assert "intervals_lost" not in h
assert h["attach"] == ["tcp_sendmsg", "tcp_cleanup_rbuf", "tcp_v4_destroy_sock"]
assert h["features"] == ["tcp-latency", "user-stacks", "ksyms", "cpu-sampling"]
assert h["measured"] == ["tcp", "cpu"] and h["started"] == ["tcp", "cpu"]
assert h["threshold_ns"] == 1000000 and h["sample_hz"] == 99
PY
echo $?)" "report --json: the documented fields, shares, ceilings, endpoints, slow stacks, health"
result "$(grep -qx 'SET_CONFIG tgid=0 roles=0 families=0 threshold_ns=1000000 rports= lports= sample_hz=99' "$LOG" &&
	  [ "$(grep -E '^(START|STOP)' "$LOG" | tr '\n' ' ')" = "START what=3 STOP what=3 " ] &&
	  [ "$(grep -c '^SNAPSHOT' "$LOG")" -eq 2 ]; echo $?)" \
	"report: TCP and CPU started, a fresh interval, one snapshot, stopped"
result "$(python3 - "$OUT" "$HERE/../../docs/report-json.md" <<'PY'
import json, sys
o = json.loads(open(sys.argv[1]).read())
doc = open(sys.argv[2]).read()
missing = set()
def walk(v):
    if isinstance(v, dict):
        for k, x in v.items():
            if "`%s`" % k not in doc:
                missing.add(k)
            walk(x)
    elif isinstance(v, list):
        for x in v:
            walk(x)
walk(o)
assert not missing, sorted(missing)
PY
echo $?)" "report --json: docs/report-json.md names every field"

rm -f "$LOG"
expect 0 '' "report -d 1.5 --top 3 (text)" -- fake report -d 1.5 --top 3
# the window is the wall clock's: 1.83 s once on a host busy with VMs
result "$(grep -qE '^kprof report: (1\.[5-9]|2\.[0-4])[0-9]s window, 2 intervals; kprofmod 0\.0\.0-fake \(API 4\.[0-9]+\), 2 CPUs online$' "$OUT" &&
	  grep -qx 'Hot functions: share of 200 busy CPU samples (300 total, 100 idle, 99 Hz)' "$OUT" &&
	  grep -qE '^ +60\.0% +2\.50x +60\.0% +2\.50x +120 +user +kprof_fake_hot_a$' "$OUT" &&
	  grep -qx '  (16 more functions)' "$OUT" &&
	  grep -q '^Hot stacks: ' "$OUT" &&
	  grep -qE '^ +60\.0% +2\.50x +120 +21 +fake-app\[[0-9]+\] +kprof_fake_hot_a <- kprof_fake_work <- kprof_fake_main$' "$OUT" &&
	  grep -q '^Remote endpoints: by total wait (232 requests, 4 abandoned)$' "$OUT" &&
	  grep -qE '^  \[2001:db8::1\]:8080 +server +20 +870ms +[0-9.]+% ' "$OUT" &&
	  grep -qx 'Endpoint health: retransmits, resets and failed connects (2 of 4 endpoints had some)' "$OUT" &&
	  grep -qE '^  10\.0\.4\.12:443 +client +6 +2 +0 +2 +4 of 200 \(2\.0%\)$' "$OUT" &&
	  grep -qE '^  192\.168\.1\.1:5432 +client +20 +0 +4 +0 +0 of 2 \(0\.0%\)$' "$OUT" &&
	  grep -q '^Slowest stacks per endpoint: requests of 1.00ms or more' "$OUT" &&
	  grep -qx '  10.0.4.12:443 client: 0 of 200 requests past the threshold' "$OUT" &&
	  grep -qE '^ +20 +[0-9.]+ms +57\.0ms +7 +fake-client\[[0-9]+\] +(__)?getpid <- (__)?nanosleep <- \[unknown\]$' "$OUT" &&
	  grep -qx 'Module health' "$OUT" &&
	  grep -qx '  drops:         inflight 0, rows 6, stacks 0, export 0, samples 2' "$OUT" &&
	  grep -qx '  attach:        tcp_sendmsg tcp_cleanup_rbuf tcp_v4_destroy_sock' "$OUT" &&
	  grep -qx '  intervals:     2' "$OUT" &&
	  grep -qx '  threshold:     1.00ms' "$OUT" && ! grep -q $'\033' "$OUT" &&
	  [ "$(grep -c '^SNAPSHOT' "$LOG")" -eq 3 ]; echo $?)" \
	"report (text): the sections, shares and ceilings, a snapshot each second"

rm -f "$LOG"
expect 0 '' "report --no-tcp --json -p (own pid)" -- \
	env KPROF_DEVICE=/fake/kprof KPROF_FAKE_LOG="$LOG" LD_PRELOAD="$FAKE" \
	sh -c 'exec "$0" report -d 0.1 --json --no-tcp -p $$' "$KPROF"
result "$(python3 - "$OUT" <<'PY'
import json, sys
o = json.loads(open(sys.argv[1]).read())
assert o["endpoints"] == [] and o["tcp"]["measured"] is False, o["tcp"]
assert o["cpu"]["basis"] == "process" and o["cpu"]["basis_samples"] == 94, o["cpu"]
assert o["hot_stacks"][0]["share"] == 60 / 94
assert o["health"]["started"] == ["cpu"]
PY
echo $?)" "report --no-tcp -p: no endpoints, shares of the process's samples"
expect 0 '' "report --no-cpu (text)" -- fake report -d 0.1 --no-cpu
result "$(! grep -q '^Hot functions' "$OUT" && grep -q '^Remote endpoints' "$OUT" &&
	  grep -qx '  measured:      tcp' "$OUT"; echo $?)" "report --no-cpu: endpoints only"

rm -f "$LOG"
KPROF_DEVICE=/fake/kprof KPROF_FAKE_LOG="$LOG" LD_PRELOAD="$FAKE" \
	"$KPROF" report -d 30 --json >"$OUT" 2>"$ERR" &
pid=$!
for _ in $(seq 100); do grep -q '^SNAPSHOT 2 ' "$LOG" 2>/dev/null && break; sleep 0.1; done
kill -INT "$pid"
wait "$pid"
rc=$?
result "$( [ $rc -eq 0 ] && [ ! -s "$ERR" ] &&
	   python3 -c '
import json, sys
o = json.loads(open(sys.argv[1]).read())
assert o["window"]["stopped_early"] is True and o["health"]["intervals"] == 2, o["window"]
assert o["cpu"]["samples_total"] == 300' "$OUT" &&
	   [ "$(tail -n 1 "$LOG")" = "STOP what=3" ]; echo $?)" \
	"report: SIGINT ends the window early, the report covers what was gathered"

expect 1 '^kprof: API mismatch: kprofmod 0\.0\.0-fake speaks API 1\.1, this kprof speaks 4\.[0-9]+; install matching versions$' \
	"report --no-tcp on an API 1.1 module: exit 1" -- \
	env KPROF_FAKE_API11=1 KPROF_DEVICE=/fake/kprof LD_PRELOAD="$FAKE" "$KPROF" report --no-tcp -d 0.1

# --- stacks against the fake device -----------------------------------------------

rm -f "$LOG"
expect 1 '^kprof: no stack ID 99$' "stacks 7 99 12: unknown ID reported, exit 1" -- \
	fake stacks 7 99 12
result "$(grep -qE '^stack 7: fake-client\[[0-9]+\], 3 kernel and 3 user frames$' "$OUT" &&
	  grep -qE '^  \[kernel\] +tcp_sendmsg\+0x0/0x50$' "$OUT" &&
	  grep -qE '^  \[kernel\] +__sys_sendto\+0x11c/0x190$' "$OUT" &&
	  grep -qE '^  0x[0-9a-f]{16} (__)?getpid\+0x0 \(libc\.so\.6\)$' "$OUT" &&
	  grep -qE '^  0x[0-9a-f]{16} (__)?nanosleep\+0x1 \(libc\.so\.6\)$' "$OUT" &&
	  grep -qE '^  0x0000000000001000 \[unknown\]$' "$OUT" &&
	  grep -qE '^stack 12: kworker/0:1, 2 kernel frames$' "$OUT"; echo $?)" \
	"stacks: kernel frames, symbolized user frames leaf first, the others printed"
expect 0 '' "stacks 23 24" -- fake stacks 23 24
result "$(grep -qE '^stack 23: fake-app\[[0-9]+\], 5 kernel and 3 user frames$' "$OUT" &&
	  grep -qE '^  0x[0-9a-f]{16} kprof_fake_hot_a|^  0x[0-9a-f]{16} kprof_fake_read\+0x1 \(fakedev\.so\)$' "$OUT" &&
	  grep -qE '^stack 24: ksoftirqd/1, 7 kernel frames$' "$OUT" &&
	  grep -qE '^  \[kernel\] +e1000_clean\+0x58/0x8e0 \[e1000\]$' "$OUT"; echo $?)" \
	"stacks: CPU sample stacks, a syscall and a kernel thread"
expect 0 '' "stacks --json 7 12" -- fake stacks --json 7 12
result "$(python3 - "$OUT" <<'PY'
import json, sys
a, b = [json.loads(l) for l in open(sys.argv[1]).read().splitlines()]
assert a["id"] == 7 and a["comm"] == "fake-client" and a["tgid"] > 0
assert a["kernel"] == ["tcp_sendmsg+0x0/0x50", "inet_sendmsg+0x3c/0x70", "__sys_sendto+0x11c/0x190"]
assert len(a["user"]) == 3 and "getpid+0x0 (libc.so.6)" in a["user"][0]["symbol"]
assert a["user"][2] == {"ip": "0x1000", "symbol": "[unknown]"}
assert b["id"] == 12 and b["tgid"] == 0 and b["user"] == [] and len(b["kernel"]) == 2
PY
echo $?)" "stacks --json: one valid object per stack"

# --- abtest: whom COMMAND runs as (root only: changing users) ---------------------
if [ "$(id -u)" = 0 ]; then
	fake abtest -v --rounds 3 --warmup 0 --user nobody -- id -u >"$OUT" 2>"$ERR"
	result "$( [ $? -eq 0 ] && [ "$(grep -cx 65534 "$OUT")" -eq 6 ] && ! grep -qx 0 "$OUT"; echo $?)" \
		"abtest --user nobody: COMMAND runs as nobody every time"
	env SUDO_UID=65534 SUDO_GID=65534 KPROF_DEVICE=/fake/kprof KPROF_FAKE_LOG="$LOG" LD_PRELOAD="$FAKE" \
		"$KPROF" abtest -v --rounds 3 --warmup 0 -- id -u >"$OUT" 2>"$ERR"
	result "$( [ $? -eq 0 ] && [ "$(grep -cx 65534 "$OUT")" -eq 6 ]; echo $?)" \
		"abtest under sudo: COMMAND runs as the user who ran sudo"
	env SUDO_UID=65534 SUDO_GID=65534 KPROF_DEVICE=/fake/kprof KPROF_FAKE_LOG="$LOG" LD_PRELOAD="$FAKE" \
		"$KPROF" abtest -v --rounds 3 --warmup 0 --user root -- id -u >"$OUT" 2>"$ERR"
	result "$( [ $? -eq 0 ] && [ "$(grep -cx 0 "$OUT")" -eq 6 ]; echo $?)" \
		"abtest --user root under sudo: COMMAND runs as root"
else
	skip "abtest --user nobody" "not root"
	skip "abtest under sudo" "not root"
	skip "abtest --user root under sudo" "not root"
fi
usage_error "abtest: --user 'no-such-user-kprof': no such user" abtest --user no-such-user-kprof -- true

# --- names other users choose: escaped on a terminal, valid UTF-8 in JSON ---------
# no_ctl FILE: no control byte but newline and tab (no colour asked for)
no_ctl()
{
	! LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')" "$1"
}
# utf8_json FILE: every line (or the whole file) strict UTF-8 JSON
utf8_json()
{
	python3 - "$1" <<'PY'
import json, sys
t = open(sys.argv[1], "rb").read().decode("utf-8")
try:
    json.loads(t)
except ValueError:
    for l in t.splitlines():
        json.loads(l)
PY
}
for hostile in "$(printf '\033]0;pwn\a\033[2K\033[1A')" "$(printf 'x\377\303(y\302\233z')"; do
	what=escapes
	case $hostile in x*) what="invalid UTF-8" ;; esac
	export KPROF_FAKE_COMM=$hostile
	fake top -n 1 -i 0.1 --no-color --top 100 >"$TMP/h.top" 2>&1
	fake stacks 21 7 >"$TMP/h.stacks" 2>&1
	fake report -d 0.2 --no-color >"$TMP/h.report" 2>&1
	result "$(no_ctl "$TMP/h.top" && no_ctl "$TMP/h.stacks" && no_ctl "$TMP/h.report" &&
		  grep -q '?' "$TMP/h.stacks"; echo $?)" \
		"a comm of $what: top, stacks and report print no control byte"
	fake top -n 1 -i 0.1 --json >"$TMP/h.top.json" 2>/dev/null
	fake stacks --json 21 7 >"$TMP/h.stacks.json" 2>/dev/null
	fake report -d 0.2 --json >"$TMP/h.report.json" 2>/dev/null
	fake record -d 0.2 --format json -o "$TMP/h.rec.json" 2>/dev/null
	result "$(utf8_json "$TMP/h.top.json" && utf8_json "$TMP/h.stacks.json" &&
		  utf8_json "$TMP/h.report.json" && utf8_json "$TMP/h.rec.json" &&
		  no_ctl "$TMP/h.stacks.json"; echo $?)" \
		"a comm of $what: top, stacks, report and record JSON is strict UTF-8, no raw control byte"
	unset KPROF_FAKE_COMM
done

echo "1..$n"
[ "$failed" -eq 0 ] || echo "# $failed of $n tests failed"
[ "$failed" -eq 0 ]
