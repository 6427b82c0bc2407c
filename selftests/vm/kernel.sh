#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kernel.sh - provision the kprofmod kernel matrix from Debian's archive.
#
#   kernel.sh list                      matrix names
#   kernel.sh fetch NAME                download + install kernel and headers
#   kernel.sh kver NAME                 kernel release, e.g. 5.10.0-46-amd64
#   kernel.sh kdir NAME                 KDIR, as seen where `make` runs
#   kernel.sh make NAME [ARGS...]       make KVER=.. KDIR=.. ARGS in $PWD
#   kernel.sh run NAME [--] CMD...      run CMD in NAME's build environment
#   kernel.sh source NAME               download NAME's linux-source .deb
#                                       (not installed); print its path
#
# Versions are resolved from the suite's linux-{image,headers}-FLAVOUR
# metapackages, never hard-coded.  apt runs on a private sources list and
# private state/cache dirs under $KPROF_CACHE; the system's apt is untouched.
# Kernel images are unpacked onto the host with dpkg-deb -x (no dpkg -i, no
# initramfs: vng boots /boot/vmlinuz-KVER with the host's root and
# /lib/modules/KVER).  Headers are unpacked onto the host (native kernels) or
# installed with apt, with make, gcc-N and dkms, into a debootstrap chroot of
# the suite (chroot kernels).  Needs root, network to deb.debian.org.
set -euo pipefail
shopt -s inherit_errexit

CACHE=${KPROF_CACHE:-/var/cache/kprofmod}
MIRROR=http://deb.debian.org/debian
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
NAMES=(5.10 6.1 6.1-rt 6.12 sid)
SELF=$(readlink -f "${BASH_SOURCE[0]}")

die() { echo "kernel.sh: $*" >&2; exit 1; }
note() { echo "kernel.sh: $*" >&2; }

# load NAME: set SUITES (first one is the chroot's), FLAVOUR, BUILD.
#
# The security suites are included for the stable releases so that the
# matrix follows the release's current kernel: for 6.1 that is the kernel
# the host already has from bookworm-security (6.1.0-57 at the time of
# writing; bookworm's point-release metapackage still pointed at 6.1.0-50).
#
# BUILD=native where bookworm's toolchain is the kernel's own: 6.1 and
# 6.1-rt are bookworm kernels; 6.12 in bookworm-backports is built with
# bookworm's gcc-12 and its linux-kbuild binaries against bookworm's glibc.
# BUILD=chroot where it is not:
#  - 5.10: built with gcc-10, which bookworm lacks; Debian's headers pin
#    CC=gcc-10 in .kernelvariables, so a native build needs a CC=gcc-12
#    override that every caller (make, dkms, ...) would have to repeat, and
#    linux-kbuild-5.10 links libssl1.1, also gone from bookworm.  (A W=1
#    hello module did build warning-free with CC=gcc-12.)  A bullseye chroot
#    gives the kernel's exact compiler with no overrides.
#  - sid: built with gcc-16, and linux-kbuild (fixdep, modpost) needs
#    glibc >= 2.38; bookworm has gcc-12 and glibc 2.36.
load() {
	NAME=$1
	case $NAME in
	5.10)	SUITES="bullseye bullseye-security" FLAVOUR=amd64 BUILD=chroot ;;
	6.1)	SUITES="bookworm bookworm-security" FLAVOUR=amd64 BUILD=native ;;
	6.1-rt)	SUITES="bookworm bookworm-security" FLAVOUR=rt-amd64 BUILD=native ;;
	6.12)	SUITES="bookworm-backports" FLAVOUR=amd64 BUILD=native ;;
	sid)	SUITES="sid" FLAVOUR=amd64 BUILD=chroot ;;
	*)	echo "kernel.sh: unknown kernel '$NAME' (known: ${NAMES[*]})" >&2
		exit 2 ;;
	esac
	APTDIR=$CACHE/apt/${SUITES// /+}
	DEBDIR=$CACHE/debs/$NAME
	ROOT=$CACHE/chroot/${SUITES%% *}
	STATE=$CACHE/state/$NAME.kver
	KVER='' KDIR=''
	if [[ -s $STATE ]]; then
		KVER=$(<"$STATE")
		KDIR=/usr/src/linux-headers-$KVER
	fi
}

# apt_ TOOL ARGS...: apt-get/apt-cache on the private sources list only.
# Valid-Until is not checked: the mirror may serve a suite whose Release
# has expired (sid's did); the signatures are still verified.
apt_() {
	local tool=$1; shift
	"$tool" -o Dir::Etc::SourceList="$APTDIR/sources.list" \
		-o Dir::Etc::SourceParts="$APTDIR/empty" \
		-o Dir::Etc::Preferences=/dev/null \
		-o Dir::Etc::PreferencesParts="$APTDIR/empty" \
		-o Dir::State="$APTDIR/state" -o Dir::State::status="$APTDIR/status" \
		-o Dir::Cache="$APTDIR/cache" -o Dir::Cache::pkgcache=pkgcache.bin \
		-o Dir::Cache::srcpkgcache=srcpkgcache.bin -o APT::Architectures=amd64 \
		-o Acquire::Check-Valid-Until=false "$@"
}

apt_update() {
	local s m
	mkdir -p "$APTDIR/empty" "$APTDIR/state/lists/partial" "$APTDIR/cache"
	touch "$APTDIR/status"
	for s in $SUITES; do
		m=$MIRROR && [[ $s != *-security ]] || m+=-security
		echo "deb [signed-by=$KEYRING] $m $s main"
	done >"$APTDIR/sources.list"
	apt_ apt-get -qq update || { compgen -G "$APTDIR/state/lists/*Packages*" >/dev/null &&
		note "apt-get update failed for $SUITES; using the cached lists"; } ||
		die "apt-get update failed for $SUITES"
}

# field PKG FIELD: a control field of PKG's candidate version.
field() {
	{ apt_ apt-cache show --no-all-versions "$1" 2>/dev/null || :; } |
		awk -v f="$2: " 'index($0, f) == 1 && !n++ { print substr($0, length(f) + 1) }'
}

# deps PKG: first alternative of each Depends entry, names only.
deps() {
	field "$1" Depends | tr ',' '\n' | sed 's/|.*//; s/(.*//; s/[[:space:]]//g'
}

# closure PKG...: PKG plus the kernel packages it (transitively) depends on.
# linux-image-* is left out of header closures (6.12's headers depend on it).
closure() {
	local -a todo=("$@") seen=()
	local p d
	while ((${#todo[@]})); do
		p=${todo[0]} todo=("${todo[@]:1}")
		[[ " ${seen[*]} " == *" $p "* ]] && continue
		seen+=("$p")
		for d in $(deps "$p"); do
			[[ ! $d =~ ^linux-(headers|kbuild|base|binary|modules)-[0-9] ]] || todo+=("$d")
		done
	done
	echo "${seen[@]}"
}

# installed PKG [ROOT]: dpkg in ROOT (default /) has PKG at its candidate version.
installed() {
	[[ $(dpkg-query --admindir="${2-}/var/lib/dpkg" -W -f='${db:Status-Abbrev}${Version}' \
		"$1" 2>/dev/null) == "ii $(field "$1" Version)" ]]
}

# download PKG...: make sure the .debs are in $DEBDIR; print their paths.
download() {
	local p f
	local -a want=()
	mkdir -p "$DEBDIR"
	for p; do
		f=$(field "$p" Filename)
		[[ -n $f ]] || die "$p not found in $SUITES"
		[[ -s $DEBDIR/${f##*/} ]] || want+=("$p")
		echo "$DEBDIR/${f##*/}"
	done
	if ((${#want[@]})); then
		note "downloading ${want[*]}"
		(cd "$DEBDIR" && apt_ apt-get -qq -o APT::Sandbox::User=root \
			download "${want[@]}" >&2) || die "download failed: ${want[*]}"
	fi
}

# install_host PKG...: dpkg-deb -x the PKGs that the host's dpkg lacks into
# a stage dir and copy the kernel's files from there onto /.  tar keeps the
# host's merged-/usr symlinks (/lib -> usr/lib) where debs ship real /lib.
install_host() {
	local stage=$CACHE/stage/$NAME p f out
	local -a pkgs=() debs paths=()
	for p; do installed "$p" || pkgs+=("$p"); done
	((${#pkgs[@]})) || return 0
	out=$(download "${pkgs[@]}")
	mapfile -t debs <<<"$out"
	rm -rf --one-file-system "$stage"
	mkdir -p "$stage"
	for f in "${debs[@]}"; do dpkg-deb -x "$f" "$stage"; done
	for p in "$stage"/{boot,{,usr/}lib/modules/"$KVER",usr/src,usr/lib/linux-kbuild-*}; do
		[[ -e $p || -L $p ]] && paths+=("${p#"$stage"/}")
	done
	((!${#paths[@]})) || tar -C "$stage" -cf - "${paths[@]}" |
		tar -C / -xf - --keep-directory-symlink --no-overwrite-dir
	rm -rf --one-file-system "$stage"
	# sid ships vmlinuz, config and System.map in the modules dir only.
	for f in vmlinuz config System.map; do
		[[ -e /boot/$f-$KVER || ! -e /lib/modules/$KVER/$f ]] ||
			cp "/lib/modules/$KVER/$f" "/boot/$f-$KVER"
	done
	[[ ! -d /lib/modules/$KVER/kernel ]] || depmod -a "$KVER"
}

# host_tools PKG...: install what the unpacked header packages PKG depend on
# besides kernel packages (gcc-12, pahole, ...) from the host's apt sources.
host_tools() {
	local p d
	local -a miss=()
	for p; do
		for d in $(deps "$p"); do
			[[ $d =~ ^linux-(image|headers|kbuild|base|binary|modules)-[0-9] ||
				$(dpkg-query -W -f='${db:Status-Abbrev}' "$d" 2>/dev/null) == "ii " ]] ||
				miss+=("$d")
		done
	done
	((${#miss[@]})) || return 0
	note "installing ${miss[*]} from the host's apt sources"
	set -- env DEBIAN_FRONTEND=noninteractive DEBCONF_NOWARNINGS=yes \
		apt-get -qq install -y --no-install-recommends "${miss[@]}"
	"$@" >/dev/null || { apt-get -qq update && "$@" >/dev/null; } ||
		die "cannot install ${miss[*]} on the host"
}

# cc_check: the kernel's gcc-N must exist where make runs; note when its
# version text differs from the kernel's CONFIG_CC_VERSION_TEXT.
cc_check() {
	local want have cc
	want=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\(.*\)"$/\1/p' "$1/.config")
	cc=${want%% *}
	have=$(run_env "" "$cc" --version | awk 'NR == 1') ||
		die "$cc (the compiler of $KVER) is missing"
	[[ $have == "$want" ]] ||
		note "$NAME: kernel built by '$want', building with '$have'"
}

setup_chroot() {	# debootstrap the suite once, then apt-install the headers
	local suite=${SUITES%% *} cc out d
	local -a debs inroot=()
	if [[ ! -e $ROOT/.kprof-ready ]]; then
		rm -rf --one-file-system "$ROOT"
		mkdir -p "${ROOT%/*}"
		note "debootstrap $suite into $ROOT"
		debootstrap --variant=buildd "$suite" "$ROOT" "$MIRROR" \
			>"$ROOT.log" 2>&1 || die "debootstrap $suite failed, see $ROOT.log"
		# Same suites and keys as the host-side lists (debootstrap's
		# sources.list lacks the security suite).
		cp "$KEYRING" "$ROOT/etc/apt/kprofmod-keyring.gpg"
		sed "s|$KEYRING|/etc/apt/kprofmod-keyring.gpg|" "$APTDIR/sources.list" \
			>"$ROOT/etc/apt/sources.list"
		echo 'Acquire::Check-Valid-Until "false";' \
			>"$ROOT/etc/apt/apt.conf.d/99kprofmod"
		touch "$ROOT/.kprof-ready"
	fi
	! { installed "linux-headers-$KVER" "$ROOT" && [[ -x $ROOT/usr/sbin/dkms ]]; } ||
		return 0
	out=$(download "$@")
	mapfile -t debs <<<"$out"
	mkdir -p "$ROOT/var/cache/kprofmod"
	cp "${debs[@]}" "$ROOT/var/cache/kprofmod/"
	for d in "${debs[@]}"; do inroot+=("/var/cache/kprofmod/${d##*/}"); done
	cc=$(dpkg-deb --fsys-tarfile "${debs[0]}" |
		tar -xOf - "./usr/src/linux-headers-$KVER/.config" |
		sed -n 's/^CONFIG_CC_VERSION_TEXT="\([^ ]*\) .*/\1/p')
	cc=${cc#*-linux-gnu-}	# x86_64-linux-gnu-gcc-16 is in package gcc-16
	DEBCONF_NOWARNINGS=yes run_env "" sh -ec 'apt-get -qq update
		DEBIAN_FRONTEND=noninteractive apt-get -qq -y --no-install-recommends \
			install make libelf-dev dkms "$@" >/dev/null
		apt-get clean; rm -f /var/cache/kprofmod/*.deb' sh "$cc" \
		"${inroot[@]}" >&2 ||
		die "installing headers into $ROOT failed"
}

# run_env DIR CMD...: run CMD in DIR (or /) in NAME's build environment,
# with KVER and KDIR exported.  For chroot kernels the chroot gets /proc,
# /dev, DIR (at the same path) and the host's /lib/modules/KVER (so that
# `dkms install` in the chroot lands where the VM sees it) mounted in a
# private mount namespace: the mounts vanish with the command however it
# ends, so nothing has to be unmounted and concurrent runs don't interfere.
run_env() {
	local dir=$1; shift
	if [[ $BUILD == native ]]; then
		(cd "${dir:-/}" && KVER=$KVER KDIR=$KDIR exec "$@")
	else
		[[ $EUID == 0 ]] || die "$NAME builds in a chroot: run as root"
		[[ -e $ROOT/.kprof-ready ]] || die "$NAME: no chroot; run: kernel.sh fetch $NAME"
		unshare --mount --propagation private -- \
			"$SELF" __chroot "$NAME" "$KVER" "$dir" "$@"
	fi
}

chroot_exec() {		# internal: the chroot half of run_env
	local dir=$2
	KVER=$1 KDIR=/usr/src/linux-headers-$1
	shift 2
	mount -t proc proc "$ROOT/proc"
	mount --rbind /dev "$ROOT/dev"
	if [[ -d /lib/modules/$KVER ]]; then
		mkdir -p "$ROOT/lib/modules/$KVER"
		mount --bind "/lib/modules/$KVER" "$ROOT/lib/modules/$KVER"
		[[ -L /lib/modules/$KVER/build ]] || ln -s "$KDIR" "/lib/modules/$KVER/build"
	fi
	if [[ -n $dir && $dir != / ]]; then
		mkdir -p "$ROOT$dir"
		mount --bind "$dir" "$ROOT$dir"
	fi
	# shellcheck disable=SC2016 # expanded by the chroot's sh
	exec env LC_ALL=C.UTF-8 HOME=/root KVER="$KVER" KDIR="$KDIR" \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		chroot "$ROOT" /bin/sh -c 'cd "$1" && shift && exec "$@"' sh "${dir:-/}" "$@"
}

fetch() {
	local -a img hdr want=()
	local out
	[[ $EUID == 0 ]] || die "fetch installs kernels: run as root"
	mkdir -p "$CACHE/state"
	exec 9>"$CACHE/.lock"
	flock 9
	apt_update
	KVER=$(deps "linux-image-$FLAVOUR" | awk 'sub(/^linux-image-/, "") && !n++')
	[[ -n $KVER ]] || die "cannot resolve linux-image-$FLAVOUR in $SUITES"
	[[ $(deps "linux-headers-$FLAVOUR") == *"linux-headers-$KVER"* ]] ||
		die "linux-headers-$FLAVOUR does not match linux-image-$KVER"
	KDIR=/usr/src/linux-headers-$KVER
	# The signed image where it exists, else the unsigned one.
	img=("linux-image-$KVER")
	[[ -n $(field "${img[0]}" Version) ]] || img=("linux-image-$KVER-unsigned")
	out=$(closure "${img[@]}")
	read -ra img <<<"$out"
	out=$(closure "linux-headers-$KVER")
	read -ra hdr <<<"$out"
	# Nothing is fetched that is already there, e.g. dpkg-installed (6.1).
	[[ -e /boot/vmlinuz-$KVER && -e /lib/modules/$KVER/modules.dep ]] || want=("${img[@]}")
	[[ $BUILD == chroot ]] || { [[ -x $KDIR/scripts/mod/modpost ]] &&
		make -s -C "$KDIR" kernelrelease >/dev/null 2>&1; } || want+=("${hdr[@]}")
	install_host "${want[@]}"
	if [[ $BUILD == chroot ]]; then
		setup_chroot "${hdr[@]}"
		cc_check "$ROOT$KDIR"
	else
		host_tools "${hdr[@]}"
		cc_check "$KDIR"
	fi
	echo "$KVER" >"$STATE"
	note "$NAME: $KVER ready ($BUILD build, KDIR=$KDIR)"
}

# source: the suite's linux-source-X.Y package (X.Y from the kernel
# release), downloaded into the cache, never installed.
source_deb() {
	local pkg
	mkdir -p "$CACHE/state"
	exec 9>"$CACHE/.lock"
	flock 9
	apt_update
	KVER=$(deps "linux-image-$FLAVOUR" | awk 'sub(/^linux-image-/, "") && !n++')
	[[ $KVER =~ ^([0-9]+\.[0-9]+) ]] || die "cannot resolve linux-image-$FLAVOUR in $SUITES"
	pkg=linux-source-${BASH_REMATCH[1]}
	download "$pkg"
}

need_fetched() {
	[[ -n $KVER && -e /boot/vmlinuz-$KVER ]] ||
		die "$NAME is not fetched; run: kernel.sh fetch $NAME"
}

usage() {
	sed -n 's/^#   \(kernel.sh\)/\1/p' "$SELF" >&2
	exit 2
}

cmd=${1:-}
(($#)) && shift
case $cmd in
list)	printf '%s\n' "${NAMES[@]}" ;;
fetch|kver|kdir|make|run|source|__chroot)
	(($#)) || usage
	load "$1"; shift
	case $cmd in
	fetch)	fetch ;;
	source)	source_deb ;;
	kver)	need_fetched; echo "$KVER" ;;
	kdir)	need_fetched; echo "$KDIR" ;;
	make)	need_fetched; run_env "$PWD" make KVER="$KVER" KDIR="$KDIR" "$@" ;;
	run)	need_fetched
		[[ ${1:-} == -- ]] && shift
		(($#)) || usage
		run_env "$PWD" "$@" ;;
	__chroot) chroot_exec "$@" ;;
	esac ;;
*)	usage ;;
esac
