/* SPDX-License-Identifier: GPL-2.0 */
/* kprofmod compat: is the current task in a cgroup v2 subtree? */
#ifndef _KPROF_COMPAT_CGROUP_H
#define _KPROF_COMPAT_CGROUP_H

#include <linux/cgroup.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include "kprof_compat_version.h"

#ifdef CONFIG_CGROUPS
#define KPROF_HAVE_CGROUP	1

/*
 * A cgroup's number as user space sees it: the inode number of its
 * directory on cgroup2.  Upstream commit 67c0496e87d1 ("kernfs: convert
 * kernfs_node->id from union kernfs_node_id to u64"), v5.5, made the
 * kernfs node ID a u64 that is both the inode number and cgroup_id();
 * before, the inode number was its own 32-bit field of a union.  Trial
 * compile (kernfs_id_u64.c); the fallback is for 4.14, 4.19 and 5.4.
 */
#if KPROF_HAVE_KERNFS_ID_U64
static inline u64 kprof_cgroup_ino(struct cgroup *cgrp)
{
	return cgroup_id(cgrp);
}
#else
static inline u64 kprof_cgroup_ino(struct cgroup *cgrp)
{
	return cgrp->kn->id.ino;
}
#endif

/*
 * Is current in the cgroup v2 numbered @ino, or below it?  Probe and
 * sampling handlers only (preemption or interrupts off, NMI included):
 * it walks parent pointers that a grace period guards.  Since upstream
 * commit 45975c7d21a1 ("rcu: Define RCU-sched API in terms of RCU for
 * Tree RCU PREEMPT builds"), v4.20 (see kprof_compat_rcu.h), a section
 * with preemption off is a reader for synchronize_rcu() and call_rcu(),
 * which free cgroups, and task_css_set()'s check accepts it
 * (rcu_read_lock_sched_held()): an rcu_read_lock() around the walk adds
 * nothing there but its cost, on PREEMPT_RCU kernels two calls per check.
 * Before v4.20 (4.14 and 4.19) a PREEMPT_RCU kernel's grace period did
 * not wait for such sections: take the lock.  A version check, as in
 * kprof_compat_rcu.h: no compile can see the change, and the lock is
 * right, only slower, on a kernel that has it.
 */
#if KPROF_KERNEL_BEFORE(4, 20, 0)
#define kprof_cgroup_walk_begin()	rcu_read_lock()
#define kprof_cgroup_walk_end()		rcu_read_unlock()
#else
#define kprof_cgroup_walk_begin()	do { } while (0)
#define kprof_cgroup_walk_end()		do { } while (0)
#endif

static inline bool kprof_current_in_cgroup(u64 ino)
{
	struct cgroup *cgrp;
	bool in = false;

	kprof_cgroup_walk_begin();
	for (cgrp = task_dfl_cgroup(current); cgrp && !in;
	     cgrp = cgroup_parent(cgrp))
		in = kprof_cgroup_ino(cgrp) == ino;
	kprof_cgroup_walk_end();
	return in;
}
#else
#define KPROF_HAVE_CGROUP	0

static inline bool kprof_current_in_cgroup(u64 ino)
{
	return false;
}
#endif

#endif /* _KPROF_COMPAT_CGROUP_H */
