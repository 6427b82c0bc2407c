// SPDX-License-Identifier: GPL-2.0
/* Trial compile: vm_flags_set() and vm_flags_clear(), see kprof_compat_mm.h. */
#include <linux/mm.h>

static void __maybe_unused kprof_probe(struct vm_area_struct *vma)
{
	vm_flags_set(vma, VM_IO);
	vm_flags_clear(vma, VM_MAYWRITE);
}
