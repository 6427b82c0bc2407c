// SPDX-License-Identifier: GPL-2.0
/* Trial compile: regs_get_kernel_argument(), see kprof_compat_kprobes.h. */
#include <linux/ptrace.h>

static unsigned long __maybe_unused kprof_probe(struct pt_regs *regs)
{
	return regs_get_kernel_argument(regs, 0);
}
