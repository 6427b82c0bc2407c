/* SPDX-License-Identifier: GPL-2.0 */
/* kprofmod compat: memory mappings. */
#ifndef _KPROF_COMPAT_MM_H
#define _KPROF_COMPAT_MM_H

#include <linux/mm.h>
#include "kprof_compat_version.h"

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

#endif /* _KPROF_COMPAT_MM_H */
