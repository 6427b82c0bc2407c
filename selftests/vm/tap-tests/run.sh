#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The accounting's own test: tap-summary over hand-made logs.  Each
# guest-pass-* and pass-* log must count as passed, each guest-fail-* and
# fail-* (a truncated run, a missing suite, a short plan at any depth, a
# nested failure, a non-zero exit after passing subtests, a VM that died
# and left only its expectations, a skip after a failed expectation, a
# skip nobody allowed, a bail-out, nested results without a plan, the
# runner's own failure, a failed program with an allowed skip inside) as
# failed.  Where CASE.want exists, the summary's last line must be that
# line too: the counts, not only the verdict; where CASE.says exists,
# its lines must be lines of the summary, together and in order (a
# failure printed with its test's diagnostics).  Prints TAP.
set -u
here=$(cd "$(dirname "$0")" && pwd)
sum=${TAP_SUMMARY:-$here/../tap-summary}
cd "$here" || exit 1
mapfile -t cases < <(printf '%s\n' *.tap *.expect | sed 's/\.expect$//' | sort -u)
echo "TAP version 13"
echo "1..${#cases[@]}"
n=0 fail=0
for c in "${cases[@]}"; do
	n=$((n + 1))
	case $c in
	*pass-*) want=0 verdict=passes ;;
	*) want=1 verdict=fails ;;
	esac
	args=("$c")
	[ ! -e "$c.expect" ] || args+=("$c.expect")
	out=$("$sum" --skips skips "${args[@]}" 2>&1)
	rc=$?
	last=${out##*$'\n'}
	says=''
	[ ! -e "$c.says" ] || says=$(cat "$c.says") || exit 1
	if [ -n "$says" ] && [[ $'\n'"$out"$'\n' != *$'\n'"$says"$'\n'* ]]; then
		printf '# %s\n' "$out"
		echo "not ok $n tap-summary: $c: the summary lacks $c.says, in one block"
		fail=1
	elif [ -e "$c.want" ] && [ "$last" != "$(cat "$c.want")" ]; then
		printf '# %s\n' "$out"
		echo "not ok $n tap-summary: $c: '$last', wanted '$(cat "$c.want")'"
		fail=1
	elif [ "$rc" -eq "$want" ]; then
		echo "ok $n tap-summary: $c $verdict: $last"
	else
		printf '# %s\n' "$out"
		echo "not ok $n tap-summary: $c: exit status $rc, wanted $want"
		fail=1
	fi
done
exit $fail
