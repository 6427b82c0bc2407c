// SPDX-License-Identifier: GPL-2.0
/* Trial compile: struct ftrace_regs is a struct pt_regs, see kprof_compat_ftrace.h. */
#include <linux/ftrace.h>

static struct pt_regs * __maybe_unused kprof_probe(struct ftrace_regs *fregs)
{
	return &fregs->regs;
}
