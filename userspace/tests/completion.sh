#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The bash completion (kprof.bash-completion) against a real kprof binary:
# commands and options come from the binary's help, values from what the
# option takes.  A fake modinfo stands in for the module's parameters.
#
#   tests/completion.sh KPROF_BINARY
#
# Prints TAP; exits non-zero if a test failed.
set -u

KPROF=$(realpath "${1:?usage: completion.sh KPROF}")
[ -x "$KPROF" ] || { echo "Bail out! $KPROF missing (make -C userspace check builds it)"; exit 1; }
HERE=$(cd "$(dirname "$0")" && pwd)
COMPLETION=$HERE/../kprof.bash-completion
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# kprof and a fake modinfo first on PATH
mkdir -p "$TMP/bin" "$TMP/files/out.d"
ln -s "$KPROF" "$TMP/bin/kprof"
cat >"$TMP/bin/modinfo" <<'EOF'
#!/bin/sh
[ "$1 $2" = "-p kprofmod" ] || exit 1
echo "cpu_rows:TCP rows per CPU and interval, default 512 (16..65536) (uint)"
echo "stacks:stack table entries, default 4096 (16..1048576) (uint)"
EOF
chmod +x "$TMP/bin/modinfo"
touch "$TMP/files/out.folded" "$TMP/files/other"
PATH=$TMP/bin:$PATH
cd "$TMP/files" || exit 1

# shellcheck source=../kprof.bash-completion
. "$COMPLETION"

n=0 failed=0
result()
{
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
	else
		failed=$((failed + 1))
		echo "not ok $n - $2"
		echo "#   got: ${COMPREPLY[*]:-(nothing)}"
	fi
}

# complete WORD...: the command line with the cursor in the last word
complete_line()
{
	COMP_WORDS=("$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMP_LINE="$*"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	_kprof
}

# offered WORD...: every WORD is in COMPREPLY
offered()
{
	local w
	for w in "$@"; do
		printf '%s\n' "${COMPREPLY[@]}" | grep -qxF -- "$w" || return 1
	done
}

# exactly WORD...: COMPREPLY is these words, in any order
exactly()
{
	[ "$(printf '%s\n' "${COMPREPLY[@]}" | sort)" = "$(printf '%s\n' "$@" | sort)" ]
}

result "$(complete -p kprof 2>/dev/null | grep -q -- '-F _kprof kprof$'; echo $?)" \
	"sourcing it registers _kprof for kprof"

# The commands as `kprof --help` lists them, whatever they are.
cmds=$("$KPROF" --help | awk '/^Commands:/ { on = 1; next }
	on && /^ +[a-z]/ { print $1; next } on { exit }')
complete_line kprof ''
# shellcheck disable=SC2086
result "$([ -n "$cmds" ] && exactly $cmds; echo $?)" "kprof <TAB>: the commands of kprof --help"
result "$(offered info top record stacks help; echo $?)" "kprof <TAB>: info top record stacks help"

complete_line kprof t
result "$(exactly top; echo $?)" "kprof t<TAB>: top"

complete_line kprof --
result "$(exactly --help --version; echo $?)" "kprof --<TAB>: --help --version"

complete_line kprof help ''
# shellcheck disable=SC2086
result "$(exactly $cmds; echo $?)" "kprof help <TAB>: the commands"

complete_line kprof top --
result "$(offered --json --interval --count --freq --no-cpu --no-tcp --role --threshold --help; echo $?)" \
	"kprof top --<TAB>: --json and the other long options"
result "$(! printf '%s\n' "${COMPREPLY[@]}" | grep -qv '^--'; echo $?)" \
	"kprof top --<TAB>: long options only"

complete_line kprof top -
result "$(offered -i -n -p -4 -6 -C --json; echo $?)" "kprof top -<TAB>: short options too"

complete_line kprof top --js
result "$(exactly --json; echo $?)" "kprof top --js<TAB>: --json"

# Every long option each command's own help shows is offered.
missing=
for cmd in $cmds; do
	[ "$cmd" = help ] && continue
	complete_line kprof "$cmd" --
	for opt in $("$KPROF" "$cmd" --help | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u); do
		offered "$opt" || missing="$missing $cmd:$opt"
	done
done
[ -z "$missing" ] || echo "#   not offered:$missing"
result "$( [ -z "$missing" ]; echo $?)" "every long option of every command is offered"

# The options come from each command's --list-opts, every spelling of
# every row.
missing=
for cmd in $cmds; do
	[ "$cmd" = help ] && continue
	complete_line kprof "$cmd" -
	for opt in $("$KPROF" "$cmd" --list-opts | cut -f 1); do
		offered "$opt" || missing="$missing $cmd:$opt"
	done
done
[ -z "$missing" ] || echo "#   not offered:$missing"
result "$( [ -z "$missing" ]; echo $?)" "kprof CMD -<TAB>: every spelling --list-opts gives"

# A kprof whose command has no --list-opts: options and values from its help.
mkdir -p "$TMP/old"
cat >"$TMP/old/kprof" <<'EOF2'
#!/bin/sh
case "$1 $2" in
"help foo") printf 'usage: kprof foo [--alpha N] [--mode a|b]\n\n  --beta   b\n' ;;
"foo --list-opts") exit 2 ;;
esac
EOF2
chmod +x "$TMP/old/kprof"
complete_line "$TMP/old/kprof" foo --
result "$(exactly --alpha --beta --help --mode; echo $?)" \
	"no --list-opts: the options from the help text"
complete_line "$TMP/old/kprof" foo --mode ''
result "$(exactly a b; echo $?)" "no --list-opts: alternatives from the help text"

complete_line kprof top --role ''
result "$(exactly client server; echo $?)" "kprof top --role <TAB>: client server"
complete_line kprof record -d 5 --role = s
result "$(exactly server; echo $?)" "kprof record --role=s<TAB>: server"

complete_line kprof record --format ''
result "$(exactly folded pprof json; echo $?)" "kprof record --format <TAB>: folded pprof json (from the usage)"

complete_line kprof record -d 10 -o out
result "$(exactly out.folded out.d; echo $?)" "kprof record -o out<TAB>: files"
complete_line kprof record --output ''
result "$(offered out.folded other out.d; echo $?)" "kprof record --output <TAB>: files"

complete_line kprof top -i ''
result "$(exactly; echo $?)" "kprof top -i <TAB>: nothing (a number)"
complete_line kprof top --json ''
result "$(exactly; echo $?)" "kprof top --json <TAB>: nothing (no arguments)"

complete_line kprof load ''
result "$(exactly cpu_rows= stacks=; echo $?)" "kprof load <TAB>: module parameters from modinfo -p"
complete_line kprof load cpu_rows=64 s
result "$(exactly stacks=; echo $?)" "kprof load cpu_rows=64 s<TAB>: stacks="

echo "1..$n"
[ "$failed" -eq 0 ] || echo "# $failed of $n tests failed"
[ "$failed" -eq 0 ]
