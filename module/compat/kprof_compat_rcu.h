/* SPDX-License-Identifier: GPL-2.0 */
/* kprofmod compat: waiting for probe handlers. */
#ifndef _KPROF_COMPAT_RCU_H
#define _KPROF_COMPAT_RCU_H

#include <linux/rcupdate.h>
#include "kprof_compat_version.h"

/*
 * Probe and perf overflow handlers run with preemption (or interrupts)
 * disabled.  v4.20 made synchronize_rcu() wait for such sections too.
 * Before, wait until every CPU has scheduled once: a work item can only
 * run on a CPU once the handler running there has returned.
 */
#if KPROF_KERNEL_BEFORE(4, 20, 0)
#include <linux/workqueue.h>

static void kprof_wait_handlers_work(struct work_struct *w)
{
}

#define kprof_wait_handlers()	schedule_on_each_cpu(kprof_wait_handlers_work)
#else
#define kprof_wait_handlers()	synchronize_rcu()
#endif

#endif /* _KPROF_COMPAT_RCU_H */
