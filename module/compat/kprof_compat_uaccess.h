/* SPDX-License-Identifier: GPL-2.0 */
/* kprofmod compat: user memory access. */
#ifndef _KPROF_COMPAT_UACCESS_H
#define _KPROF_COMPAT_UACCESS_H

#include <linux/uaccess.h>
#include "kprof_compat_version.h"

/* v5.0: access_ok() lost its VERIFY_READ/VERIFY_WRITE argument. */
#if KPROF_KERNEL_BEFORE(5, 0, 0)
#define kprof_access_ok(p, n)	access_ok(VERIFY_READ, p, n)
#else
#define kprof_access_ok(p, n)	access_ok(p, n)
#endif

/*
 * v5.8: copy_from_user_nofault() (was probe_user_read(), v5.3) reads user
 * memory from any context without sleeping.  Before, the same with page
 * faults disabled and __copy_from_user_inatomic().
 */
#if KPROF_KERNEL_BEFORE(5, 8, 0)
static inline long kprof_copy_from_user_nofault(void *dst,
						const void __user *src,
						size_t size)
{
	long ret;

	if (!kprof_access_ok(src, size))
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
