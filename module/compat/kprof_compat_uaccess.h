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
 * vmap_area_lock since upstream commit 0aef499f3172 ("mm/usercopy: Detect
 * vmalloc overruns"), v5.18.
 *
 * copy_from_user_nofault() does all that only since upstream commit
 * d319f344561d ("mm: Fix copy_from_user_nofault()."), v6.4, backported to
 * some stable kernels and not others: it is not used.
 *
 * Upstream commit af5c40c6ee05 ("x86/tlb: Uninline nmi_uaccess_okay()"),
 * v5.8, moved nmi_uaccess_okay() out of line, and it is not exported, nor
 * is the per-CPU state it reads.  x86's copy_from_user_nmi() (exported)
 * is the helper: nmi_uaccess_okay() since v4.19, a raw copy without
 * check_object_size() since upstream commit 59298997df89 ("x86/uaccess:
 * avoid check_object_size() in copy_from_user_nmi()"), v6.0.  Before v6.0
 * it copies with __copy_from_user_inatomic(), whose check_object_size()
 * takes no lock before v5.18: 5.18 and 5.19 are not supported.
 *
 * Before v5.8 (4.14, 4.19, 5.4) the steps are here, with the kernel's
 * inline nmi_uaccess_okay() where it has one (v4.19, and later 4.14.y;
 * it is also a macro of its own name).
 *
 * A version check, not a trial compile: what decides is whether
 * nmi_uaccess_okay() is inline or an unexported function, and both
 * compile.  A kernel older than v5.8 that took af5c40c6ee05 shows at
 * modpost (nmi_uaccess_okay undefined) and the module does not load:
 * never a silent misuse.
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
