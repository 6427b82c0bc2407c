// SPDX-License-Identifier: GPL-2.0
/* Trial compile: mmap_read_lock() and mmap_read_unlock(), see kprof_compat_mm.h. */
#include <linux/mm.h>

static void __maybe_unused kprof_probe(struct mm_struct *mm)
{
	mmap_read_lock(mm);
	mmap_read_unlock(mm);
}
