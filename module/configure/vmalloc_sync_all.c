// SPDX-License-Identifier: GPL-2.0
/* Trial compile: vmalloc_sync_all(), see kprof_compat_mm.h. */
#include <linux/vmalloc.h>

static void __maybe_unused kprof_probe(void)
{
	vmalloc_sync_all();
}
