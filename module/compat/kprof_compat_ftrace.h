/* SPDX-License-Identifier: GPL-2.0 */
/* kprofmod compat: a function's entry through an ftrace_ops. */
#ifndef _KPROF_COMPAT_FTRACE_H
#define _KPROF_COMPAT_FTRACE_H

#include <linux/ftrace.h>
#include "kprof_compat_version.h"

/*
 * An ftrace_ops whose callback reads the traced function's arguments and
 * starts a stack trace in it, from the registers the plain trampoline
 * (ftrace_caller) saves, without the full set that a kprobe on ftrace
 * makes the kernel save (FTRACE_OPS_FL_SAVE_REGS) nor the kprobe
 * dispatch.  It needs:
 *
 * - callbacks that get a struct ftrace_regs: upstream commit
 *   d19ad0775dcd ("ftrace: Have the callbacks receive a struct
 *   ftrace_regs instead of pt_regs"), v5.11;
 * - x86's ftrace_caller saving the argument registers, the stack pointer
 *   at the function's entry, rbp and the instruction pointer in it
 *   (CONFIG_HAVE_DYNAMIC_FTRACE_WITH_ARGS): upstream commit 02a474ca266a
 *   ("ftrace/x86: Allow for arguments to be passed in to ftrace_regs by
 *   default"), v5.11;
 * - an ops without FTRACE_OPS_FL_RECURSION called straight from its
 *   trampoline, with preemption as it was: upstream commit a25d036d939a
 *   ("ftrace: Reverse what the RECURSION flag means in the ftrace_ops"),
 *   v5.11.  The callback disables preemption itself.
 *
 * Those registers as a struct pt_regs (for regs_get_kernel_argument()
 * and the unwinder; cs is 0 there, a kernel context), read in place and
 * never written, found by trial compile:
 *
 * - struct ftrace_regs is x86's pt_regs (ftrace_regs_pt_regs.c), from
 *   02a474ca266a above until upstream commit 7888af4166d4 ("ftrace: Make
 *   ftrace_regs abstract from direct use"), v6.13, which Debian's 6.12
 *   carries too (the stable backport in 6.12.75);
 * - after it, the pt_regs "regs" in arch_ftrace_regs()
 *   (arch_ftrace_regs.c): the generic layout, which x86 keeps.
 *
 * Not ftrace_partial_regs() (upstream commit b9b55c8912ce ("tracing: Add
 * ftrace_partial_regs() for converting ftrace_regs to pt_regs"), v6.14):
 * on x86 it writes cs and flags into the trampoline's ftrace_regs, which
 * every ops on the call site shares, and an ops called after this one
 * would then take them for a full register set (ftrace_get_regs()).
 *
 * The version check is for what no compile sees: before v5.11 an ops
 * without FTRACE_OPS_FL_RECURSION is not called straight from its
 * trampoline.  KPROF_FTRACE_ATTACH is 1 where all of that holds: x86-64
 * v5.11 and later with dynamic ftrace.  Elsewhere (v5.10 and older) the
 * hooks are kprobes, which on x86 sit on the same ftrace call site with
 * a costlier dispatch.
 */
#if defined(CONFIG_X86_64) && defined(CONFIG_DYNAMIC_FTRACE) && \
	defined(CONFIG_HAVE_DYNAMIC_FTRACE_WITH_ARGS) && \
	!KPROF_KERNEL_BEFORE(5, 11, 0)
#if KPROF_HAVE_FTRACE_REGS_PT_REGS
#define KPROF_FTRACE_ATTACH	1
static __always_inline struct pt_regs *
kprof_ftrace_pt_regs(struct ftrace_regs *fregs)
{
	return &fregs->regs;
}
#elif KPROF_HAVE_ARCH_FTRACE_REGS
#define KPROF_FTRACE_ATTACH	1
static __always_inline struct pt_regs *
kprof_ftrace_pt_regs(struct ftrace_regs *fregs)
{
	return &arch_ftrace_regs(fregs)->regs;
}
#endif
#endif

#ifndef KPROF_FTRACE_ATTACH
#define KPROF_FTRACE_ATTACH	0
#endif

#endif /* _KPROF_COMPAT_FTRACE_H */
