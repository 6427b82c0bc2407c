/* SPDX-License-Identifier: GPL-2.0 */
/* kprofmod compat: kernel stack traces. */
#ifndef _KPROF_COMPAT_STACK_H
#define _KPROF_COMPAT_STACK_H

#include <linux/stacktrace.h>
#include "kprof_compat_version.h"

/*
 * v5.2: stack_trace_save() replaced save_stack_trace(struct stack_trace),
 * which on x86 ended a trace that fits with a ULONG_MAX marker.
 */
#if KPROF_KERNEL_BEFORE(5, 2, 0)
static inline unsigned int kprof_stack_trace_save(unsigned long *store,
						  unsigned int size)
{
	struct stack_trace trace = {
		.entries = store,
		.max_entries = size,
	};

	save_stack_trace(&trace);
	if (trace.nr_entries && store[trace.nr_entries - 1] == ULONG_MAX)
		trace.nr_entries--;
	return trace.nr_entries;
}
#else
static inline unsigned int kprof_stack_trace_save(unsigned long *store,
						  unsigned int size)
{
	return stack_trace_save(store, size, 0);
}
#endif

#endif /* _KPROF_COMPAT_STACK_H */
