/* SPDX-License-Identifier: GPL-2.0 */
/* kprofmod compat: memory mappings. */
#ifndef _KPROF_COMPAT_MM_H
#define _KPROF_COMPAT_MM_H

#include <linux/kdebug.h>
#include <linux/mm.h>
#include <linux/notifier.h>
#include "kprof_compat_version.h"

/* v4.18: array_size() (linux/overflow.h): a product saturating at SIZE_MAX. */
#if KPROF_KERNEL_BEFORE(4, 18, 0)
static inline size_t array_size(size_t a, size_t b)
{
	if (b && a > SIZE_MAX / b)
		return SIZE_MAX;
	return a * b;
}
#endif

/*
 * v5.8: vmalloc space is mapped in every page table from boot.  Before, a
 * page table could miss the top-level entry of a new vmalloc area and get
 * it on the first access, through a page fault that x86-64 does not allow
 * in NMI (vmalloc_fault() warns there).  kprofmod's perf overflow handler
 * runs in NMI and touches vmalloc'ed tables, so after allocating them sync
 * every page table.  vmalloc_sync_mappings() (vmalloc_sync_all() before
 * v5.6) is not exported, but register_die_notifier() calls it first thing.
 */
#if KPROF_KERNEL_BEFORE(5, 8, 0)
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

/* v4.17: fault handlers return vm_fault_t; before, an int. */
#if KPROF_KERNEL_BEFORE(4, 17, 0)
#define kprof_vm_fault_t	int
#else
#define kprof_vm_fault_t	vm_fault_t
#endif

/* v6.3: vm_flags became read-only; change them with vm_flags_{set,clear}. */
#if KPROF_KERNEL_BEFORE(6, 3, 0)
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
#else
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
#endif

/* v5.8: mmap_read_lock() wraps mm->mmap_sem (renamed mmap_lock). */
#if KPROF_KERNEL_BEFORE(5, 8, 0)
static inline void kprof_mmap_read_lock(struct mm_struct *mm)
{
	down_read(&mm->mmap_sem);
}

static inline void kprof_mmap_read_unlock(struct mm_struct *mm)
{
	up_read(&mm->mmap_sem);
}
#else
#include <linux/mmap_lock.h>
#define kprof_mmap_read_lock(mm)	mmap_read_lock(mm)
#define kprof_mmap_read_unlock(mm)	mmap_read_unlock(mm)
#endif

#endif /* _KPROF_COMPAT_MM_H */
