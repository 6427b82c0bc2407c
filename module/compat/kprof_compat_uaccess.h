/* SPDX-License-Identifier: GPL-2.0 */
/* kprofmod compat: user memory access. */
#ifndef _KPROF_COMPAT_UACCESS_H
#define _KPROF_COMPAT_UACCESS_H

#include <linux/uaccess.h>
#include "kprof_compat_version.h"

/*
 * Reading user memory from NMI, hardirq and int3 context, on every
 * kernel: a range check (never access_ok(), which warns outside task
 * context under DEBUG_ATOMIC_SLEEP), nmi_uaccess_okay() (an NMI can come
 * while the CPU switches page tables, and user addresses then belong to
 * another process), page faults disabled, and a copy that skips
 * HARDENED_USERCOPY's check_object_size(), whose vmalloc lookup takes
 * vmap_area_lock from v5.18 (0aef499f3172).
 *
 * copy_from_user_nofault() does all that only from v6.4 (d319f344561d,
 * backported to some stable kernels and not others): it is not used.
 *
 * v5.8 (af5c40c6ee05): nmi_uaccess_okay() moved out of line and is not
 * exported, nor is the per-CPU state it reads.  x86's
 * copy_from_user_nmi() (exported) is the helper: nmi_uaccess_okay()
 * since v4.19 (4012e77a903d), a raw copy without check_object_size()
 * since v6.0 (59298997df89).  Before v6.0 it copies with
 * __copy_from_user_inatomic(), whose check_object_size() takes no lock
 * before v5.18: 5.18 and 5.19 are not supported.
 *
 * Before v5.8 the steps are here, with the kernel's inline
 * nmi_uaccess_okay() where it has one (v4.19, and 4.14.y since the
 * backport of 4012e77a903d; it is also a macro of its own name).
 */
#if KPROF_KERNEL_BEFORE(5, 8, 0)
#include <asm/tlbflush.h>

static inline long kprof_copy_from_user_nofault(void *dst,
						const void __user *src,
						size_t size)
{
	unsigned long addr = (unsigned long)src, left;

	if (size > TASK_SIZE_MAX || addr > TASK_SIZE_MAX - size)
		return -EFAULT;
#ifdef nmi_uaccess_okay
	if (!nmi_uaccess_okay())
		return -EFAULT;
#endif
	pagefault_disable();
	left = raw_copy_from_user(dst, src, size);
	pagefault_enable();
	return left ? -EFAULT : 0;
}
#else
static inline long kprof_copy_from_user_nofault(void *dst,
						const void __user *src,
						size_t size)
{
	return copy_from_user_nmi(dst, src, size) ? -EFAULT : 0;
}
#endif

#endif /* _KPROF_COMPAT_UACCESS_H */
