// SPDX-License-Identifier: GPL-2.0
/* Trial compile: copy_from_kernel_nofault(), see kprof_compat_kprobes.h. */
#include <linux/uaccess.h>

static long __maybe_unused kprof_probe(void *dst, const void *src)
{
	return copy_from_kernel_nofault(dst, src, 1);
}
