#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Strict check of a folded-stacks file, the input of flamegraph.pl,
# inferno-flamegraph and speedscope:
#
#   frame;frame;...;frame COUNT
#
# one line per stack, frames non-empty and free of ';' and white space,
# one space, a positive integer without leading zeros; nothing else (no
# empty line, no stray white space, a final newline).
#
#   tests/folded-check.sh FILE   exit 0 if FILE is well-formed, else 1
#                                (the bad lines are printed)
set -u
f=${1:?usage: folded-check.sh FILE}
[ -s "$f" ] || { echo "folded-check: $f is empty or missing"; exit 1; }
[ "$(tail -c 1 "$f" | od -An -c | tr -d ' ')" = '\n' ] ||
	{ echo "folded-check: $f does not end with a newline"; exit 1; }
bad=$(LC_ALL=C grep -nvE '^[^;[:space:]]+(;[^;[:space:]]+)* [1-9][0-9]*$' "$f")
if [ -n "$bad" ]; then
	echo "folded-check: malformed lines in $f:"
	echo "$bad" | head -n 10
	exit 1
fi
exit 0
