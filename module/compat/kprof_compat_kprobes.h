/* SPDX-License-Identifier: GPL-2.0 */
/* kprofmod compat: kprobes and probed-function arguments. */
#ifndef _KPROF_COMPAT_KPROBES_H
#define _KPROF_COMPAT_KPROBES_H

#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include "kprof_compat_version.h"

/*
 * regs_get_kernel_argument() gives the Nth argument of a probed function
 * at its entry: upstream commit 3c88ee194c28 ("x86: ptrace: Add function
 * argument access API"), v4.20.  Trial compile
 * (regs_get_kernel_argument.c); the fallback, which reads the x86-64
 * argument registers, is for 4.14 and 4.19.
 */
#if KPROF_HAVE_REGS_GET_KERNEL_ARGUMENT
static inline unsigned long kprof_probe_arg(struct pt_regs *regs,
					    unsigned int n)
{
	return regs_get_kernel_argument(regs, n);
}
#else
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
#endif

/*
 * copy_from_kernel_nofault() reads kernel memory without oopsing on a bad
 * address: upstream commit fe557319aa06 ("maccess: rename
 * probe_kernel_{read,write} to copy_{from,to}_kernel_nofault"), v5.8.
 * Trial compile (copy_from_kernel_nofault.c); the fallback, the old name
 * probe_kernel_read(), is for 4.14, 4.19 and 5.4.
 */
#if KPROF_HAVE_COPY_FROM_KERNEL_NOFAULT
#define kprof_copy_from_kernel_nofault(dst, src, size) \
	copy_from_kernel_nofault(dst, src, size)
#else
#define kprof_copy_from_kernel_nofault(dst, src, size) \
	probe_kernel_read(dst, src, size)
#endif

/*
 * Does the function at @from, @size bytes long, call or jump directly to
 * the function probed at @to?  On x86: an E8 (call) or E9 (jmp) rel32
 * whose target is at most 20 bytes before @to: the function's start is 4
 * before its probe point when it begins with ENDBR64, and call depth
 * tracking calls a thunk in the 16 bytes of padding before the start.  A
 * byte sequence that only looks like such a call is as good as impossible
 * to aim there; and "no" is always safe for the caller.  Elsewhere: no.
 */
#ifdef CONFIG_X86
static inline bool kprof_text_calls(unsigned long from, unsigned long size,
				    unsigned long to)
{
	u8 code[512];
	unsigned long i, target;
	s32 rel;

	if (size < 5 || size > sizeof(code) ||
	    kprof_copy_from_kernel_nofault(code, (void *)from, size))
		return false;
	for (i = 0; i + 5 <= size; i++) {
		if (code[i] != 0xe8 && code[i] != 0xe9)
			continue;
		memcpy(&rel, &code[i + 1], sizeof(rel));
		target = from + i + 5 + (long)rel;
		if (target <= to && target + 20 >= to)
			return true;
	}
	return false;
}
#else
static inline bool kprof_text_calls(unsigned long from, unsigned long size,
				    unsigned long to)
{
	return false;
}
#endif

#endif /* _KPROF_COMPAT_KPROBES_H */
