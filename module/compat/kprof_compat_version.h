/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprofmod compat: what the target kernel has.  Two sources, and the
 * other compat headers test the kernel only through them, each test named
 * after the upstream commit whose API change it handles:
 *
 * KPROF_HAVE_<NAME>, 1 or 0: the trial compile of module/configure/NAME.c
 * against the kernel's headers (see Kbuild).  The rule wherever a
 * distribution may have backported the API under an older version
 * number (RHEL 8's 4.18, the stable kernels).
 *
 * KPROF_KERNEL_BEFORE(a, b, c): the version Kbuild passes as
 * KPROF_LINUX_VERSION.  Only for a change that no compile can see (a
 * difference in behaviour, or in what is exported); each use says why.
 */
#ifndef _KPROF_COMPAT_VERSION_H
#define _KPROF_COMPAT_VERSION_H

#ifndef KPROF_LINUX_VERSION
#error "KPROF_LINUX_VERSION is not defined: build through Kbuild"
#endif

/* generated in the build directory: configure/kprof_configure.h */
#include "kprof_configure.h"

#define KPROF_KV(a, b, c)		(((a) << 16) + ((b) << 8) + (c))

/* True when building for a kernel older than a.b.c. */
#define KPROF_KERNEL_BEFORE(a, b, c)	(KPROF_KV(a, b, c) > KPROF_LINUX_VERSION)

#endif /* _KPROF_COMPAT_VERSION_H */
