/* SPDX-License-Identifier: GPL-2.0 */
/* kprofmod compat: kprobes and probed-function arguments. */
#ifndef _KPROF_COMPAT_KPROBES_H
#define _KPROF_COMPAT_KPROBES_H

#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include "kprof_compat_version.h"

/*
 * v5.0: regs_get_kernel_argument() gives the Nth argument of a probed
 * function at its entry.  Before, read the x86-64 argument registers.
 */
#if KPROF_KERNEL_BEFORE(5, 0, 0)
static inline unsigned long kprof_probe_arg(struct pt_regs *regs,
					    unsigned int n)
{
	switch (n) {
	case 0: return regs->di;
	case 1: return regs->si;
	case 2: return regs->dx;
	default: return 0;
	}
}
#else
static inline unsigned long kprof_probe_arg(struct pt_regs *regs,
					    unsigned int n)
{
	return regs_get_kernel_argument(regs, n);
}
#endif

#endif /* _KPROF_COMPAT_KPROBES_H */
