// SPDX-License-Identifier: GPL-2.0
/* Trial compile: stack_trace_save(), see kprof_compat_stack.h. */
#include <linux/stacktrace.h>

static unsigned int __maybe_unused kprof_probe(unsigned long *store)
{
	return stack_trace_save(store, 1, 0);
}
