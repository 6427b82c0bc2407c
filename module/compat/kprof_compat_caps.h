/* SPDX-License-Identifier: GPL-2.0 */
/* kprofmod compat: capabilities. */
#ifndef _KPROF_COMPAT_CAPS_H
#define _KPROF_COMPAT_CAPS_H

#include <linux/capability.h>
#include "kprof_compat_version.h"

/*
 * CAP_PERFMON and perfmon_capable() split out of CAP_SYS_ADMIN: upstream
 * commit 980737282232 ("capabilities: introduce CAP_PERFMON to kernel and
 * user space"), v5.8.  Trial compile (perfmon_capable.c); the fallback,
 * CAP_SYS_ADMIN, is for 4.14, 4.19 and 5.4.
 */
#if KPROF_HAVE_PERFMON_CAPABLE
static inline bool kprof_perfmon_capable(void)
{
	return perfmon_capable();
}
#else
static inline bool kprof_perfmon_capable(void)
{
	return capable(CAP_SYS_ADMIN);
}
#endif

#endif /* _KPROF_COMPAT_CAPS_H */
