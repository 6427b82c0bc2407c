// SPDX-License-Identifier: GPL-2.0
/* Trial compile: the vm_fault_t type, see kprof_compat_mm.h. */
#include <linux/mm.h>

static vm_fault_t __maybe_unused kprof_probe(void)
{
	return VM_FAULT_SIGBUS;
}
