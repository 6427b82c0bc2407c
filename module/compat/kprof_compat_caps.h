/* SPDX-License-Identifier: GPL-2.0 */
/* kprofmod compat: capabilities. */
#ifndef _KPROF_COMPAT_CAPS_H
#define _KPROF_COMPAT_CAPS_H

#include <linux/capability.h>
#include "kprof_compat_version.h"

/* v5.8: CAP_PERFMON and perfmon_capable() split out of CAP_SYS_ADMIN. */
#if KPROF_KERNEL_BEFORE(5, 8, 0)
static inline bool kprof_perfmon_capable(void)
{
	return capable(CAP_SYS_ADMIN);
}
#else
static inline bool kprof_perfmon_capable(void)
{
	return perfmon_capable();
}
#endif

#endif /* _KPROF_COMPAT_CAPS_H */
