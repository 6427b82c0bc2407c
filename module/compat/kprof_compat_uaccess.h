/* SPDX-License-Identifier: GPL-2.0 */
/* kprofmod compat: user memory access. */
#ifndef _KPROF_COMPAT_UACCESS_H
#define _KPROF_COMPAT_UACCESS_H

#include <linux/nospec.h>
#include <linux/uaccess.h>
#include <asm/smap.h>
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

/*
 * A walk's further reads, a word at a time, as x86's perf_callchain_user()
 * reads user stacks from NMI since upstream commit 75925e1ad7f5
 * ("perf/x86: Optimize stack walk user accesses", 2016; every kernel
 * this module builds for has it): __get_user()
 * between one pagefault_disable() and pagefault_enable(), each address
 * range-checked first (__get_user() checks nothing).  A fault is a
 * failed read: the fault handler sees faults disabled and takes the
 * exception fixup, as for the copy above.
 *
 * Only once the CPU is known to run on current's page tables, which is
 * what nmi_uaccess_okay() checks and a module cannot call from v5.8:
 * - in a handler of an interrupt or NMI that came while current ran in
 *   user mode, with the registers the interrupt saved (not a PEBS
 *   record's, which perf rebuilds from the sampled address: the sampling
 *   events are not precise): current ran on its own page tables, and
 *   nothing between the interrupt and the handler switches them;
 * - after one kprof_copy_from_user_nofault() of the same handler call
 *   succeeded.  What it checked stays true until the handler returns:
 *   the code the handler interrupted or was called from does not run
 *   meanwhile, the handler switches nothing, and what interrupts the
 *   handler (an IRQ, in a task-context hook) switches back before it
 *   returns.  A switched mm that stays while interrupts are on (EFI
 *   runtime services' efi_mm, kthread_use_mm()) is not current's own:
 *   the first copy fails there (and kernel threads are never walked).
 */
#if !KPROF_KERNEL_BEFORE(5, 10, 0)
/*
 * From v5.10 (the oldest kernel this was checked on: Debian's 5.10, 6.1,
 * 6.12 and 7.2), the walk opens user access once (STAC), as
 * user_access_begin() does, and reads each word with unsafe_get_user(),
 * one load with an exception fixup (upstream 5b24a7a2aa20, v4.5).  There
 * __get_user() is an out-of-line call into arch/x86/lib/getuser.S that
 * opens and closes user access around every word.  Not
 * user_access_begin() itself: its access_ok() warns outside task context
 * on kernels built with CONFIG_DEBUG_ATOMIC_SLEEP (WARN_ON_IN_IRQ() in
 * 5.10 and 6.1), and a sample runs in an interrupt.  Each address (of
 * a frame's two words: the first) is range-checked, then clamped with
 * array_index_nospec() so that a mispredicted check cannot load kernel
 * memory under speculation (what getuser.S's barrier or address mask is
 * for).  Between begin and end nothing may be called (objtool checks):
 * the walk's helpers are inlined.
 */
static __always_inline void kprof_user_words_begin(void)
{
	pagefault_disable();
	stac();
}

static __always_inline void kprof_user_words_end(void)
{
	clac();
	pagefault_enable();
}

/* Read the word at user address @addr into *@val; false when it cannot. */
static __always_inline bool kprof_user_word(unsigned long addr,
					    unsigned long *val)
{
	unsigned long end = TASK_SIZE_MAX - sizeof(*val) + 1;

	/* in a register: array_index_nospec()'s cmp takes no 64-bit value */
	OPTIMIZER_HIDE_VAR(end);
	if (addr >= end)
		return false;
	addr = array_index_nospec(addr, end);
	unsafe_get_user(*val, (const unsigned long __user *)addr, fault);
	return true;
fault:
	return false;
}

/* The two words at @addr into *@a and *@b: one check, two loads. */
static __always_inline bool kprof_user_words(unsigned long addr,
					     unsigned long *a,
					     unsigned long *b)
{
	unsigned long end = TASK_SIZE_MAX - 2 * sizeof(*a) + 1;
	const unsigned long __user *p;

	OPTIMIZER_HIDE_VAR(end);
	if (addr >= end)
		return false;
	p = (const unsigned long __user *)array_index_nospec(addr, end);
	unsafe_get_user(*a, p, fault);
	unsafe_get_user(*b, p + 1, fault);
	return true;
fault:
	return false;
}
#else
static inline void kprof_user_words_begin(void)
{
	pagefault_disable();
}

static inline void kprof_user_words_end(void)
{
	pagefault_enable();
}

/* Read the word at user address @addr into *@val; false when it cannot. */
static inline bool kprof_user_word(unsigned long addr, unsigned long *val)
{
	if (addr > TASK_SIZE_MAX - sizeof(*val))
		return false;
	return !__get_user(*val, (const unsigned long __user *)addr);
}

static inline bool kprof_user_words(unsigned long addr, unsigned long *a,
				    unsigned long *b)
{
	return kprof_user_word(addr, a) &&
	       kprof_user_word(addr + sizeof(*a), b);
}
#endif

#endif /* _KPROF_COMPAT_UACCESS_H */
