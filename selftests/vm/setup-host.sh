#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Installs what building and testing kprofmod needs on Debian 12: the
# bookworm packages, and virtme-ng, which bookworm lacks, from Debian
# trixie (architecture "all"; it installs with bookworm's own dependencies).
# The system's apt sources are never changed: trixie is reached through a
# private sources list.  Idempotent and quick when all is installed.
# bpftrace and linux-perf are for `make bench` (and bpfcc-tools for
# `make bench-wallclock`), which compare kprofmod with them (the VM
# shares this root file system).
set -euo pipefail

PKGS=(
	build-essential gcc-multilib pkg-config kmod xz-utils perl python3 file rsync
	flex bison bc
	linux-image-amd64 linux-headers-amd64 linux-source-6.1
	sparse dkms debootstrap qemu-system-x86 iproute2 util-linux
	busybox-static util-linux-extra kbd python3-requests python3-argcomplete
	libkmod-dev libdw-dev libelf-dev libjson-c-dev libprotobuf-c-dev libseccomp-dev
	protobuf-c-compiler protobuf-compiler golang-go zlib1g-dev
	groff-base man-db clang libclang-rt-dev
	bpftrace bpfcc-tools linux-perf
)
VNG_SUITE=${KPROF_VNG_SUITE:-trixie}
MIRROR=${KPROF_MIRROR:-http://deb.debian.org/debian}
CACHE=${KPROF_CACHE:-/var/cache/kprofmod}

if [ "$(id -u)" -ne 0 ]; then
	echo "setup-host.sh: run as root (sudo $0)" >&2
	exit 1
fi

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
export DEBIAN_FRONTEND=noninteractive
if [ ${#missing[@]} -gt 0 ]; then
	echo "setup-host: installing ${missing[*]}"
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! command -v vng >/dev/null 2>&1; then
	echo "setup-host: installing virtme-ng from $VNG_SUITE"
	apt_dir=$CACHE/apt/vng
	mkdir -p "$apt_dir/lists/partial" "$apt_dir/archives/partial"
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $MIRROR $VNG_SUITE main" \
		>"$apt_dir/sources.list"
	apt_opts=(-o "Dir::Etc::SourceList=$apt_dir/sources.list"
		  -o "Dir::Etc::SourceParts=/nonexistent"
		  -o "Dir::State::Lists=$apt_dir/lists"
		  -o "APT::Sandbox::User=root")
	apt-get "${apt_opts[@]}" update -qq
	(cd "$apt_dir/archives" && apt-get "${apt_opts[@]}" download virtme-ng)
	deb=$(ls -t "$apt_dir"/archives/virtme-ng_*_all.deb | head -n 1)
	apt-get install -y -qq --no-install-recommends "$deb" >/dev/null
	command -v vng >/dev/null || {
		echo "setup-host: virtme-ng did not install; try: apt-get ${apt_opts[*]} download virtme-ng && apt-get install ./virtme-ng_*_all.deb" >&2
		exit 1
	}
fi
# promtool checks the reader's Prometheus output in its tests: only that
# binary, taken out of bookworm's prometheus package into the cache (the
# server is neither installed nor started).  Optional: without it those
# checks are skipped, with a note.
promtool_dir=$CACHE/promtool
if [ ! -x "$promtool_dir/promtool" ] && ! command -v promtool >/dev/null 2>&1; then
	echo "setup-host: extracting promtool from bookworm's prometheus package"
	mkdir -p "$promtool_dir/deb"
	rm -f "$promtool_dir"/deb/prometheus_*.deb
	get() { (cd "$promtool_dir/deb" && apt-get -qq -o APT::Sandbox::User=root download prometheus); }
	if { get || { apt-get update -qq && get; }; } &&
	   deb=$(ls "$promtool_dir"/deb/prometheus_*.deb) &&
	   dpkg-deb --fsys-tarfile "$deb" | tar -x -O ./usr/bin/promtool >"$promtool_dir/promtool.new" &&
	   chmod 755 "$promtool_dir/promtool.new" &&
	   "$promtool_dir/promtool.new" --version >/dev/null 2>&1; then
		mv "$promtool_dir/promtool.new" "$promtool_dir/promtool"
	else
		rm -f "$promtool_dir/promtool.new"
		echo "setup-host: warning: no promtool; the reader's tests skip its checks" >&2
	fi
	rm -rf "$promtool_dir/deb"
fi
echo "setup-host: ready ($(vng --version 2>/dev/null))"
