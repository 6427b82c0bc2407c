/* SPDX-License-Identifier: GPL-2.0 */
/* kprofmod compat: user memory access. */
#ifndef _KPROF_COMPAT_UACCESS_H
#define _KPROF_COMPAT_UACCESS_H

#include <linux/uaccess.h>
#include "kprof_compat_version.h"

/*
 * v5.8: copy_from_user_nofault() (was probe_user_read(), v5.3) reads user
 * memory from any context without sleeping.  Before, the same with page
 * faults disabled and __copy_from_user_inatomic(), with the range checked
 * here: access_ok() warns outside task context on 5.0 to 5.7 kernels built
 * with DEBUG_ATOMIC_SLEEP.  v4.19: nmi_uaccess_okay() says whether an NMI
 * hit while the CPU was switching page tables, when user addresses may
 * belong to another process; before, nothing tells.
 */
#if KPROF_KERNEL_BEFORE(5, 8, 0)
#if KPROF_KERNEL_BEFORE(4, 19, 0)
static inline bool kprof_nmi_uaccess_okay(void)
{
	return true;
}
#else
#include <asm/tlbflush.h>
#define kprof_nmi_uaccess_okay()	nmi_uaccess_okay()
#endif

static inline long kprof_copy_from_user_nofault(void *dst,
						const void __user *src,
						size_t size)
{
	unsigned long addr = (unsigned long)src;
	long ret;

	if (size > TASK_SIZE || addr > TASK_SIZE - size)
		return -EFAULT;
	if (!kprof_nmi_uaccess_okay())
		return -EFAULT;
	pagefault_disable();
	ret = __copy_from_user_inatomic(dst, src, size);
	pagefault_enable();
	return ret ? -EFAULT : 0;
}
#else
static inline long kprof_copy_from_user_nofault(void *dst,
						const void __user *src,
						size_t size)
{
	return copy_from_user_nofault(dst, src, size);
}
#endif

#endif /* _KPROF_COMPAT_UACCESS_H */
