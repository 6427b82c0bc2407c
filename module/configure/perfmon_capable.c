// SPDX-License-Identifier: GPL-2.0
/* Trial compile: perfmon_capable(), see kprof_compat_caps.h. */
#include <linux/capability.h>

static bool __maybe_unused kprof_probe(void)
{
	return perfmon_capable();
}
