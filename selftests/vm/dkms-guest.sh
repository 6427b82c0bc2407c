#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In the VM: the module that DKMS installed for this kernel loads with
# modprobe and answers the reader.  TAP output.  With "install KDIR"
# it first installs the module with DKMS itself (see below).
set -u
proj=$(cd "$(dirname "$0")/../.." && pwd)
kprof=$proj/userspace/kprof
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$proj/dkms.conf")
n=0 fail=0
result()
{
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n $2"; else echo "not ok $n $2"; fail=1; fi
}

# dkms-guest.sh install KDIR: first add, build and install the module with
# DKMS for the running kernel from its build tree KDIR (a kernel booted
# from an image, not installed: /lib/modules is the VM's own), quietly,
# from the source make dkms-source wrote on the host.
if [ "${1:-}" = install ]; then
	kver=$(uname -r)
	# virtme-ng links /lib/modules/KVER to the tree's .virtme_mods by
	# its host path: read-only in the guest where the guest sees it,
	# dangling where virtme-ng hides that path.  A directory of our own
	# (/lib/modules is a tmpfs in the VM), with the tree as its build.
	d=/lib/modules/$kver
	if [ -L "$d" ] || [ ! -w "$d" ]; then
		rm -f "$d"
		mkdir -p "$d"
	fi
	[ -e "$d/build" ] || ln -s "$2" "$d/build"
	dkms remove "kprofmod/$ver" --all >/dev/null 2>&1
	dkms add "$proj/build/dkms/kprofmod-$ver" &&
		dkms build "kprofmod/$ver" -k "$kver" --kernelsourcedir "$2" &&
		dkms install "kprofmod/$ver" -k "$kver" --kernelsourcedir "$2" --force
	exit
fi

echo "TAP version 13"
echo "1..4"
rmmod kprofmod 2>/dev/null
path=$(modinfo -n kprofmod 2>/dev/null)
echo "# modinfo -n kprofmod: ${path:-none}"
case $path in
*/updates/dkms/*) result 0 "dkms: module installed in updates/dkms" ;;
*) result 1 "dkms: module installed in updates/dkms" ;;
esac
modprobe kprofmod
result $? "dkms: modprobe kprofmod"
"$kprof" info | grep -q "^kprofmod $ver\$"
result $? "dkms: kprof info reports version $ver"
modprobe -r kprofmod
result $? "dkms: modprobe -r kprofmod"
exit $fail
