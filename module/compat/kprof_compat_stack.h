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
 * goes into @store, its length into *@nr, and the result is not
 * KPROF_TRACE_NONE.  Elsewhere it is, and the caller traces from where
 * it runs and cuts the frames above the one at @regs' instruction
 * pointer.  The frame-pointer unwinder is left out on purpose: started at
 * a probe on a function's entry, before the function has pushed its
 * frame, it would skip the caller.
 *
 * For kprof_stack.c's cache of kernel traces, @slot[k] is the stack slot
 * that frame k >= 1 was read from, and the result is
 * KPROF_TRACE_CACHEABLE when the trace is one a cache may hand out again
 * by re-reading those slots: @regs->sp on current's task stack; every
 * frame after the first a plain call frame (no pt_regs, no unwinder
 * error or guess) whose slot, on current's task stack between
 * @regs->sp and the registers current entered the kernel with, holds
 * the very address exported (nothing recovered from the function graph
 * tracer's, a kretprobe's or rethook's shadow stack); and the trace ends
 * at those registers, in user mode, before @size frames.  The
 * unwind_state fields read (sp, ip, regs, error) are the same from
 * v4.14's ORC to v7.2.
 *
 * A kernel configuration test, not a version one.  ORC came with upstream
 * commit ee9f8fce9964 ("x86/unwind: Add the ORC unwinder"), v4.14, whose
 * option upstream commit 11af847446ed ("x86/unwind: Rename unwinder
 * config options to 'CONFIG_UNWINDER_*'"), v4.15, renamed: a 4.14 kernel
 * with ORC (CONFIG_ORC_UNWINDER) takes the fallback.
 */
enum kprof_trace_result {
	KPROF_TRACE_NONE,
	KPROF_TRACE_OK,
	KPROF_TRACE_CACHEABLE,
};

#if defined(CONFIG_X86) && defined(CONFIG_UNWINDER_ORC)
#include <asm/unwind.h>
#include <linux/sched/task_stack.h>

static inline enum kprof_trace_result
kprof_stack_trace_regs(struct pt_regs *regs, unsigned long *store,
		       unsigned long *slot, unsigned int size,
		       unsigned int *nr)
{
	unsigned long sp = regs->sp, top, addr, p;
	struct unwind_state state;
	unsigned int n = 0;
	bool cache;

	top = (unsigned long)task_pt_regs(current);
	cache = sp - (unsigned long)task_stack_page(current) <
		top - (unsigned long)task_stack_page(current);
	if (size)
		store[n++] = regs->ip;
	for (unwind_start(&state, current, regs, NULL);
	     !unwind_done(&state) && n < size; unwind_next_frame(&state)) {
		addr = unwind_get_return_address(&state);
		if (!addr)
			break;
		p = state.sp - sizeof(long);
		cache = cache && !state.regs && !state.error &&
			p - sp < top - sp &&
			READ_ONCE_NOCHECK(*(unsigned long *)p) == addr;
		slot[n] = p;
		store[n++] = addr;
	}
	*nr = n;
	if (cache && n >= 2 && n < size && !state.error &&
	    state.regs == (struct pt_regs *)top && user_mode(state.regs))
		return KPROF_TRACE_CACHEABLE;
	return KPROF_TRACE_OK;
}

/*
 * The return address at the outermost kernel frame of a system call from
 * user mode, or 0: the caller runs in one (module init, in finit_module()
 * or init_module()), and on x86-64 every system call through the same
 * entry leaves the same return address there.  An entry that only user
 * mode can take never nests on a task's stack, unlike an exception's.
 */
static inline unsigned long kprof_stack_syscall_return(void)
{
	unsigned long top = (unsigned long)task_pt_regs(current), last = 0;
	unsigned long addr;
	struct unwind_state state;
	unsigned int n = 0;

	for (unwind_start(&state, current, NULL, NULL);
	     !unwind_done(&state) && n < 64; unwind_next_frame(&state), n++) {
		addr = unwind_get_return_address(&state);
		if (!addr)
			break;
		last = addr;
	}
	if (!state.error && state.regs == (struct pt_regs *)top &&
	    user_mode(state.regs))
		return last;
	return 0;
}
#else
static inline unsigned long kprof_stack_syscall_return(void)
{
	return 0;
}

static inline enum kprof_trace_result
kprof_stack_trace_regs(struct pt_regs *regs, unsigned long *store,
		       unsigned long *slot, unsigned int size,
		       unsigned int *nr)
{
	return KPROF_TRACE_NONE;
}
#endif

#endif /* _KPROF_COMPAT_STACK_H */
