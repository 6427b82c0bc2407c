/* SPDX-License-Identifier: GPL-2.0 */
/* kprofmod compat: waiting for probe handlers. */
#ifndef _KPROF_COMPAT_RCU_H
#define _KPROF_COMPAT_RCU_H

#include <linux/rcupdate.h>
#include "kprof_compat_version.h"

/*
 * Probe and perf overflow handlers run with preemption (or interrupts)
 * disabled.  Upstream commit 45975c7d21a1 ("rcu: Define RCU-sched API in
 * terms of RCU for Tree RCU PREEMPT builds"), v4.20, made
 * synchronize_rcu() wait for such sections too, and for
 * rcu_dereference_sched() readers with them.  Before (4.14, 4.19), only
 * synchronize_sched() (RCU-sched, removed in v5.1) does; checkpatch
 * rightly steers new code away from that name, but on these kernels
 * synchronize_rcu() would return under a running handler.
 *
 * A version check, not a trial compile: the change is in what a grace
 * period waits for, and both names compile on either side of it.  A
 * kernel that has it under an older number (a backport) gets
 * synchronize_sched(), which is then synchronize_rcu(): right, and as
 * fast.
 */
#if KPROF_KERNEL_BEFORE(4, 20, 0)
#define kprof_wait_handlers	synchronize_sched
#else
#define kprof_wait_handlers	synchronize_rcu
#endif

/*
 * Free @p (with a struct rcu_head @field) once no handler can still hold
 * it, without waiting: kfree_rcu(), whose grace period is
 * synchronize_rcu()'s and so, since the same upstream commit 45975c7d21a1
 * (v4.20), covers the handlers too.  Before it, kfree_rcu() waits for RCU
 * readers only: there the caller waits for RCU-sched, then frees.  A
 * version check for the same reason; on a backport the fallback is
 * right, only slower (it waits).
 */
#if KPROF_KERNEL_BEFORE(4, 20, 0)
#define kprof_free_after_handlers(p, field)	\
	do {					\
		kprof_wait_handlers();		\
		kfree(p);			\
	} while (0)
#else
#define kprof_free_after_handlers(p, field)	kfree_rcu(p, field)
#endif

#endif /* _KPROF_COMPAT_RCU_H */
