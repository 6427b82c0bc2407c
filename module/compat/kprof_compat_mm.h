/* SPDX-License-Identifier: GPL-2.0 */
/* kprofmod compat: memory mappings. */
#ifndef _KPROF_COMPAT_MM_H
#define _KPROF_COMPAT_MM_H

#include <linux/kdebug.h>
#include <linux/mm.h>
#include <linux/notifier.h>
#include "kprof_compat_version.h"

/*
 * array_size() (linux/overflow.h), a product saturating at SIZE_MAX:
 * upstream commit 610b15c50e86 ("overflow.h: Add allocation size
 * calculation helpers"), v4.18, also in later 4.14.y.  Trial compile
 * (array_size.c); the fallback is for older 4.14.y.
 */
#if !KPROF_HAVE_ARRAY_SIZE
static inline size_t array_size(size_t a, size_t b)
{
	if (b && a > SIZE_MAX / b)
		return SIZE_MAX;
	return a * b;
}
#endif

/*
 * On x86-64, vmalloc space is mapped in every page table from boot since
 * upstream commit 6eb82f994026 ("x86/mm: Pre-allocate P4D/PUD pages for
 * vmalloc area"), v5.8.  Before, a page table could miss the top-level
 * entry of a new vmalloc area and get it on the first access, through a
 * page fault that x86-64 does not allow in NMI (vmalloc_fault() warns
 * there).  kprofmod's perf overflow handler runs in NMI and touches
 * vmalloc'ed tables, so after allocating them sync every page table.
 * The sync function is not exported, but register_die_notifier() calls it
 * first thing.
 *
 * Trial compiles of the sync function's two names: vmalloc_sync_all(),
 * and vmalloc_sync_mappings() from upstream commit 763802b53a42 ("x86/mm:
 * split vmalloc_sync_all()"), v5.6, which the stable kernels took too
 * (4.19.113, 5.4.28, ...).  Upstream commit 73f693c3a705 ("mm: remove
 * vmalloc_sync_(un)mappings()"), v5.8, removed it with the need: a kernel
 * that still declares either name (4.14, 4.19, 5.4) syncs.
 */
#if KPROF_HAVE_VMALLOC_SYNC_MAPPINGS || KPROF_HAVE_VMALLOC_SYNC_ALL
static inline int kprof_vmalloc_sync_nop(struct notifier_block *nb,
					 unsigned long val, void *data)
{
	return NOTIFY_DONE;
}

static inline void kprof_vmalloc_sync(void)
{
	static struct notifier_block nb = {
		.notifier_call = kprof_vmalloc_sync_nop,
	};

	if (!register_die_notifier(&nb))
		unregister_die_notifier(&nb);
}
#else
static inline void kprof_vmalloc_sync(void)
{
}
#endif

/*
 * Fault handlers return vm_fault_t: upstream commit 1c8f422059ae ("mm:
 * change return type to vm_fault_t"), v4.17; before, an int.  Trial
 * compile (vm_fault_t.c); the fallback is for 4.14.
 */
#if KPROF_HAVE_VM_FAULT_T
#define kprof_vm_fault_t	vm_fault_t
#else
#define kprof_vm_fault_t	int
#endif

/*
 * vm_flags became read-only, changed with vm_flags_{set,clear}():
 * upstream commit bc292ab00f6c ("mm: introduce vma->vm_flags wrapper
 * functions"), v6.3.  Trial compile (vm_flags_set.c); the fallback is for
 * 4.14 to 6.1.
 */
#if KPROF_HAVE_VM_FLAGS_SET
static inline void kprof_vm_flags_set(struct vm_area_struct *vma,
				      unsigned long flags)
{
	vm_flags_set(vma, flags);
}

static inline void kprof_vm_flags_clear(struct vm_area_struct *vma,
					unsigned long flags)
{
	vm_flags_clear(vma, flags);
}
#else
static inline void kprof_vm_flags_set(struct vm_area_struct *vma,
				      unsigned long flags)
{
	vma->vm_flags |= flags;
}

static inline void kprof_vm_flags_clear(struct vm_area_struct *vma,
					unsigned long flags)
{
	vma->vm_flags &= ~flags;
}
#endif

/*
 * mmap_read_lock() wraps mm->mmap_sem (renamed mmap_lock): upstream
 * commit 9740ca4e95b4 ("mmap locking API: initial implementation as rwsem
 * wrappers"), v5.8, also in later 5.4.y.  Trial compile
 * (mmap_read_lock.c); the fallback is for 4.14, 4.19 and 5.4.y before it.
 */
#if KPROF_HAVE_MMAP_READ_LOCK
#define kprof_mmap_read_lock(mm)	mmap_read_lock(mm)
#define kprof_mmap_read_unlock(mm)	mmap_read_unlock(mm)
#else
static inline void kprof_mmap_read_lock(struct mm_struct *mm)
{
	down_read(&mm->mmap_sem);
}

static inline void kprof_mmap_read_unlock(struct mm_struct *mm)
{
	up_read(&mm->mmap_sem);
}
#endif

/*
 * An address space's identity and the generation of its page tables, for
 * the user walk's cache of verified call sites (kprof_stack.c): x86's
 * mm->context.ctx_id, never reused and never 0, and tlb_gen, which every
 * TLB flush of the mm increments first (so every unmap or protection
 * change of a page that was present), both from upstream commit
 * f39681ed0f48 ("x86/mm: Give each mm TLB flush generation a unique
 * ID"), v4.13, with b0579ade7cd8 ("x86/mm: Track the TLB's tlb_gen and
 * update the flushing algorithm"): every kernel kprofmod builds for.
 * Checked in 4.14, 6.1, 6.12 and 7.2: flush_tlb_mm_range() and the
 * batched reclaim flush (arch_tlbbatch_add_*()) increment it, and from
 * 6.15 the INVLPGB broadcast flush comes after that increment.  A kernel
 * whose flush skipped it would leave verdicts in place longer, never
 * export anything that did not once follow a call in the mm.
 */
static __always_inline u64 kprof_mm_id(const struct mm_struct *mm)
{
	return mm->context.ctx_id;
}

static __always_inline u64 kprof_mm_gen(struct mm_struct *mm)
{
	return atomic64_read(&mm->context.tlb_gen);
}

#endif /* _KPROF_COMPAT_MM_H */
