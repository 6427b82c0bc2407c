#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# debug-kernel.sh - kprofmod's debug guest kernel: KASAN, lockdep
# (PROVE_LOCKING), DEBUG_ATOMIC_SLEEP and kmemleak, no BTF, built from
# Debian's linux-source-6.1 with debug-kernel.config.
#
#   debug-kernel.sh build     build it unless the cache has it
#   debug-kernel.sh image     its bzImage
#   debug-kernel.sh kdir      its build tree (KDIR for `make module`)
#   debug-kernel.sh kver      its kernel release
#   debug-kernel.sh key       the cache key
#
# The config is `make allnoconfig` with debug-kernel.config forced in; every
# value of the fragment must survive into .config.  The build is cached
# under $KPROF_CACHE/debug-kernel/KEY, KEY being the source package version
# and a hash of the fragment and the compiler.  A new key starts from the
# previous key's build tree when there is one (make rebuilds what the
# changed config touches) and replaces it.  The seconds the build took are
# kept in build-seconds there.
set -euo pipefail
shopt -s inherit_errexit

CACHE=${KPROF_CACHE:-/var/cache/kprofmod}/debug-kernel
TARBALL=${KPROF_KSRC_TAR:-/usr/src/linux-source-6.1.tar.xz}
SELF=$(readlink -f "${BASH_SOURCE[0]}")
FRAG=${SELF%/*}/debug-kernel.config

die() { echo "debug-kernel.sh: $*" >&2; exit 1; }
note() { echo "debug-kernel.sh: $*" >&2; }

srcver() {
	dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null ||
		die "linux-source-6.1 is not installed: run 'make deps'"
}

key() {
	local v h
	v=$(srcver)
	h=$({ cat "$FRAG"; gcc --version | head -n 1; } | sha256sum)
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
	done <"$FRAG"
	return $bad
}

build() {
	local t0 d
	[[ -r $TARBALL ]] || die "$TARBALL missing: run 'make deps'"
	mkdir -p "$CACHE"
	exec 9>"$CACHE/.lock"
	flock 9
	if [[ -e $DIR/.ready ]]; then
		note "cached: $DIR ($(<"$DIR/build-seconds") s to build)"
		return 0
	fi
	t0=$(date +%s)
	if [[ ! -e $SRC/.ready ]]; then
		note "extracting $TARBALL"
		rm -rf --one-file-system "$SRC"
		mkdir -p "$SRC"
		tar -xJf "$TARBALL" -C "$SRC" --strip-components=1
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
	make -s -C "$SRC" O="$OUT" ARCH=x86_64 KCONFIG_ALLCONFIG="$FRAG" \
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
build)	load; build ;;
image)	load; need_built; echo "$OUT/arch/x86/boot/bzImage" ;;
kdir)	load; need_built; echo "$OUT" ;;
kver)	load; need_built; cat "$OUT/include/config/kernel.release" ;;
key)	key ;;
*)	sed -n 's/^#   \(debug-kernel.sh\)/\1/p' "$SELF" >&2; exit 2 ;;
esac
