/* SPDX-License-Identifier: GPL-2.0 */
/* kprofmod compat: kernel stack traces. */
#ifndef _KPROF_COMPAT_STACK_H
#define _KPROF_COMPAT_STACK_H

#include <linux/stacktrace.h>
#include "kprof_compat_version.h"

/*
 * stack_trace_save() replaced save_stack_trace(struct stack_trace), which
 * on x86 ended a trace that fits with a ULONG_MAX marker: upstream commit
 * 214d8ca6ee85 ("stacktrace: Provide common infrastructure"), v5.2.
 * Trial compile (stack_trace_save.c); the fallback is for 4.14 and 4.19.
 */
#if KPROF_HAVE_STACK_TRACE_SAVE
static inline unsigned int kprof_stack_trace_save(unsigned long *store,
						  unsigned int size)
{
	return stack_trace_save(store, size, 0);
}
#else
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
#endif

/*
 * A kernel trace that starts at @regs (a probe's or an interrupted
 * context's registers) and walks out from there, as perf does for a
 * sample or a kprobe event: the probe or interrupt machinery above @regs
 * is never unwound.  x86 exports its unwinder (v4.9+); with ORC the trace
 * goes into @store and this returns true with its length in *@nr.
 * Elsewhere it returns false and the caller traces from where it runs
 * and cuts the frames above the one at @regs' instruction pointer.  The
 * frame-pointer unwinder is left out on purpose: started at a probe on a
 * function's entry, before the function has pushed its frame, it would
 * skip the caller.
 *
 * A kernel configuration test, not a version one.  ORC came with upstream
 * commit ee9f8fce9964 ("x86/unwind: Add the ORC unwinder"), v4.14, whose
 * option upstream commit 11af847446ed ("x86/unwind: Rename unwinder
 * config options to 'CONFIG_UNWINDER_*'"), v4.15, renamed: a 4.14 kernel
 * with ORC (CONFIG_ORC_UNWINDER) takes the fallback.
 */
#if defined(CONFIG_X86) && defined(CONFIG_UNWINDER_ORC)
#include <asm/unwind.h>

static inline bool kprof_stack_trace_regs(struct pt_regs *regs,
					  unsigned long *store,
					  unsigned int size, unsigned int *nr)
{
	struct unwind_state state;
	unsigned long addr;
	unsigned int n = 0;

	if (size)
		store[n++] = regs->ip;
	for (unwind_start(&state, current, regs, NULL);
	     !unwind_done(&state) && n < size; unwind_next_frame(&state)) {
		addr = unwind_get_return_address(&state);
		if (!addr)
			break;
		store[n++] = addr;
	}
	*nr = n;
	return true;
}
#else
static inline bool kprof_stack_trace_regs(struct pt_regs *regs,
					  unsigned long *store,
					  unsigned int size, unsigned int *nr)
{
	return false;
}
#endif

#endif /* _KPROF_COMPAT_STACK_H */
