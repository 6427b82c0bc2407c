#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# debug-kernel.sh - kprofmod's debug guest kernels: KASAN, lockdep
# (PROVE_LOCKING), DEBUG_ATOMIC_SLEEP and kmemleak, no BTF, built from
# Debian's kernel source with debug-kernel.config.
#
#   debug-kernel.sh [-k SERIES] build     build it unless the cache has it
#   debug-kernel.sh [-k SERIES] image     its bzImage
#   debug-kernel.sh [-k SERIES] kdir      its build tree (KDIR for `make module`)
#   debug-kernel.sh [-k SERIES] kver      its kernel release
#   debug-kernel.sh [-k SERIES] key       the cache key
#
# SERIES is 6.1 (the default: bookworm's linux-source-6.1, installed on the
# host by `make deps`) or 5.10 (bullseye's linux-source-5.10, downloaded by
# kernel.sh, never installed): a kernel before v6.4, whose
# copy_from_user_nofault() is not NMI-safe, with HARDENED_USERCOPY on
# (debug-kernel-5.10.config), for the module's own user-copy helper.
#
# The config is `make allnoconfig` with the fragment forced in; every
# value of the fragment must survive into .config.  The build is cached
# under $KPROF_CACHE/debug-kernel[-SERIES]/KEY, KEY being the source
# package version and a hash of the fragment and the compiler.  A new key
# starts from the previous key's build tree when there is one (make
# rebuilds what the changed config touches) and replaces it.  The seconds
# the build took are kept in build-seconds there.
set -euo pipefail
shopt -s inherit_errexit

SELF=$(readlink -f "${BASH_SOURCE[0]}")
SERIES=6.1
if [[ ${1:-} == -k ]]; then
	SERIES=${2:-}
	shift 2 || :
fi
case $SERIES in
6.1)	CACHE=${KPROF_CACHE:-/var/cache/kprofmod}/debug-kernel ;;
5.10)	CACHE=${KPROF_CACHE:-/var/cache/kprofmod}/debug-kernel-$SERIES ;;
*)	echo "debug-kernel.sh: unknown series '$SERIES' (known: 6.1 5.10)" >&2
	exit 2 ;;
esac
TARBALL=${KPROF_KSRC_TAR:-/usr/src/linux-source-6.1.tar.xz}
FRAG=${SELF%/*}/debug-kernel.config

die() { echo "debug-kernel.sh: $*" >&2; exit 1; }
note() { echo "debug-kernel.sh: $*" >&2; }

# srcdeb: the newest downloaded linux-source .deb of a series that is
# not installed on the host (5.10); `build` downloads it first.
srcdeb() {
	local d
	# shellcheck disable=SC2012 # the names are apt's: version order
	d=$(ls -v "${KPROF_CACHE:-/var/cache/kprofmod}/debs/$SERIES/linux-source-${SERIES}_"*.deb 2>/dev/null |
		tail -n 1)
	[[ -n $d ]] || die "linux-source-$SERIES not downloaded: run '$SELF -k $SERIES build'"
	echo "$d"
}

srcver() {
	if [[ $SERIES == 6.1 ]]; then
		dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null ||
			die "linux-source-6.1 is not installed: run 'make deps'"
	else
		dpkg-deb -f "$(srcdeb)" Version
	fi
}

# fragment: the config fragment of the series.  5.10's is 6.1's without
# the symbols 5.10 does not have, and with debug-kernel-5.10.config.
fragment() {
	if [[ $SERIES == 6.1 ]]; then
		cat "$FRAG"
	else
		grep -vE '^CONFIG_DEBUG_INFO_NONE=' "$FRAG"
		cat "${FRAG%.config}-$SERIES.config"
	fi
}

key() {
	local v h
	v=$(srcver)
	h=$({ fragment; gcc --version | head -n 1; } | sha256sum)
	echo "$v-${h:0:12}"
}

load() {
	KEY=$(key)
	DIR=$CACHE/$KEY
	SRC=$CACHE/src-$(srcver)
	OUT=$DIR/build
}

# check_config: every line of the fragment is in .config ("is not set"
# lines may also be absent: their symbol's dependencies are off).
check_config() {
	local l bad=0
	while IFS= read -r l; do
		case $l in
		'# CONFIG_'*' is not set')
			! grep -q "^${l:2:-11}=" "$OUT/.config" && continue ;;
		CONFIG_*=*)
			grep -qxF -- "$l" "$OUT/.config" && continue ;;
		*)	continue ;;
		esac
		note "not in .config: $l"
		bad=1
	done < <(fragment)
	return $bad
}

build() {
	local t0 d deb
	if [[ $SERIES == 6.1 ]]; then
		[[ -r $TARBALL ]] || die "$TARBALL missing: run 'make deps'"
	else
		"${SELF%/*}/kernel.sh" source "$SERIES" >/dev/null ||
			die "cannot download linux-source-$SERIES"
	fi
	load
	mkdir -p "$CACHE"
	exec 9>"$CACHE/.lock"
	flock 9
	if [[ -e $DIR/.ready ]]; then
		note "cached: $DIR ($(<"$DIR/build-seconds") s to build)"
		return 0
	fi
	t0=$(date +%s)
	if [[ ! -e $SRC/.ready ]]; then
		rm -rf --one-file-system "$SRC"
		mkdir -p "$SRC"
		if [[ $SERIES == 6.1 ]]; then
			note "extracting $TARBALL"
			tar -xJf "$TARBALL" -C "$SRC" --strip-components=1
		else
			deb=$(srcdeb)
			note "extracting linux-source-$SERIES.tar.xz from $deb"
			dpkg-deb --fsys-tarfile "$deb" |
				tar -xOf - "./usr/src/linux-source-$SERIES.tar.xz" |
				tar -xJf - -C "$SRC" --strip-components=1
		fi
		touch "$SRC/.ready"
	fi
	rm -rf --one-file-system "$DIR"
	mkdir -p "$DIR"
	for d in "$CACHE/$(srcver)"-*/build; do
		[[ -e ${d%/build}/.ready ]] || continue
		note "starting from ${d%/build}"
		mv "$d" "$OUT"
		break
	done
	mkdir -p "$OUT"
	note "configuring $KEY"
	fragment >"$DIR/fragment.config"
	make -s -C "$SRC" O="$OUT" ARCH=x86_64 KCONFIG_ALLCONFIG="$DIR/fragment.config" \
		allnoconfig >"$DIR/config.log" 2>&1 ||
		die "allnoconfig failed, see $DIR/config.log"
	check_config || die "the fragment does not hold: $FRAG"
	note "building $KEY with $(nproc) jobs (log: $DIR/build.log)"
	make -C "$SRC" O="$OUT" ARCH=x86_64 -j"$(nproc)" >"$DIR/build.log" 2>&1 ||
		{ tail -n 30 "$DIR/build.log" >&2; die "build failed, see $DIR/build.log"; }
	echo $(($(date +%s) - t0)) >"$DIR/build-seconds"
	touch "$DIR/.ready"
	note "built in $(<"$DIR/build-seconds") s: $OUT/arch/x86/boot/bzImage"
	# older keys and sources go
	for d in "$CACHE"/*/; do
		d=${d%/}
		[[ $d == "$DIR" || $d == "$SRC" ]] || rm -rf --one-file-system "$d"
	done
}

need_built() {
	[[ -e $DIR/.ready ]] || die "not built; run: $SELF build"
}

case ${1:-} in
build)	build ;;
image)	load; need_built; echo "$OUT/arch/x86/boot/bzImage" ;;
kdir)	load; need_built; echo "$OUT" ;;
kver)	load; need_built; cat "$OUT/include/config/kernel.release" ;;
key)	key ;;
*)	sed -n 's/^#   \(debug-kernel.sh\)/\1/p' "$SELF" >&2; exit 2 ;;
esac
