#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In the VM: the module that DKMS installed for this kernel loads with
# modprobe and answers the reader.  TAP output.
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
