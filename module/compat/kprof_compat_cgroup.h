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
 * directory on cgroup2.  v5.5 made the kernfs node ID 64 bits and both
 * the inode number and cgroup_id(); before, the inode number was its own
 * 32-bit field of the node ID.
 */
#if KPROF_KERNEL_BEFORE(5, 5, 0)
static inline u64 kprof_cgroup_ino(struct cgroup *cgrp)
{
	return cgrp->kn->id.ino;
}
#else
static inline u64 kprof_cgroup_ino(struct cgroup *cgrp)
{
	return cgroup_id(cgrp);
}
#endif

/*
 * Is current in the cgroup v2 numbered @ino, or below it?  Any context,
 * NMI included: it only walks RCU-protected parent pointers.
 */
static inline bool kprof_current_in_cgroup(u64 ino)
{
	struct cgroup *cgrp;
	bool in = false;

	rcu_read_lock();
	for (cgrp = task_dfl_cgroup(current); cgrp && !in;
	     cgrp = cgroup_parent(cgrp))
		in = kprof_cgroup_ino(cgrp) == ino;
	rcu_read_unlock();
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
