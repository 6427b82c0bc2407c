// SPDX-License-Identifier: GPL-2.0
/* Trial compile: kernfs_node's id is a u64, see kprof_compat_cgroup.h. */
#include <linux/kernfs.h>

static u64 __maybe_unused kprof_probe(struct kernfs_node *kn)
{
	u64 id = kn->id;

	return id;
}
