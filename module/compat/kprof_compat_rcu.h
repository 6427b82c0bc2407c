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
 * Call back once no handler can still hold what a callback frees, without
 * waiting: call_rcu(), whose grace period is synchronize_rcu()'s and so,
 * since the same upstream commit 45975c7d21a1 (v4.20), covers the
 * handlers too.  Before it (where kfree_rcu() waits for RCU readers only,
 * and RCU-sched has no kfree variant), call_rcu_sched().  The callbacks
 * are module code: the unload waits for them with the matching barrier.
 * A version check for the same reason as above; on a backport the
 * RCU-sched names are RCU's, right too.
 */
#if KPROF_KERNEL_BEFORE(4, 20, 0)
#define kprof_call_after_handlers	call_rcu_sched
#define kprof_barrier_after_handlers	rcu_barrier_sched
#else
#define kprof_call_after_handlers	call_rcu
#define kprof_barrier_after_handlers	rcu_barrier
#endif

#endif /* _KPROF_COMPAT_RCU_H */
