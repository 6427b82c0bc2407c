/* SPDX-License-Identifier: GPL-2.0 */
/* kprofmod compat: waiting for probe handlers. */
#ifndef _KPROF_COMPAT_RCU_H
#define _KPROF_COMPAT_RCU_H

#include <linux/rcupdate.h>
#include "kprof_compat_version.h"

/*
 * Probe and perf overflow handlers run with preemption (or interrupts)
 * disabled.  v4.20 made synchronize_rcu() wait for such sections too, and
 * for rcu_dereference_sched() readers with them.  Before, only
 * synchronize_sched() (RCU-sched, removed in v5.1) does; checkpatch
 * rightly steers new code away from that name, but on these kernels
 * synchronize_rcu() would return under a running handler.
 */
#if KPROF_KERNEL_BEFORE(4, 20, 0)
#define kprof_wait_handlers	synchronize_sched
#else
#define kprof_wait_handlers	synchronize_rcu
#endif

/*
 * Free @p (with a struct rcu_head @field) once no handler can still hold
 * it, without waiting: kfree_rcu(), whose grace period is
 * synchronize_rcu()'s and so, since the same v4.20 change, covers the
 * handlers too.  Before it, kfree_rcu() waits for RCU readers only:
 * there the caller waits for RCU-sched, then frees.
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
