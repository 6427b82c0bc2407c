/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprofmod compat: the one place kernel versions are compared.  Kbuild
 * passes the target kernel's version as KPROF_LINUX_VERSION (see Kbuild);
 * every other compat header tests it only through KPROF_KERNEL_BEFORE(),
 * each test named after the API change it handles.
 */
#ifndef _KPROF_COMPAT_VERSION_H
#define _KPROF_COMPAT_VERSION_H

#ifndef KPROF_LINUX_VERSION
#error "KPROF_LINUX_VERSION is not defined: build through Kbuild"
#endif

#define KPROF_KV(a, b, c)		(((a) << 16) + ((b) << 8) + (c))

/* True when building for a kernel older than a.b.c. */
#define KPROF_KERNEL_BEFORE(a, b, c)	(KPROF_KV(a, b, c) > KPROF_LINUX_VERSION)

#endif /* _KPROF_COMPAT_VERSION_H */
