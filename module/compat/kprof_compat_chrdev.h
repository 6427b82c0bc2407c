/* SPDX-License-Identifier: GPL-2.0 */
/* kprofmod compat: character/misc device file operations. */
#ifndef _KPROF_COMPAT_CHRDEV_H
#define _KPROF_COMPAT_CHRDEV_H

#include <linux/compat.h>
#include <linux/fs.h>
#include "kprof_compat_version.h"

/*
 * v5.5: compat_ptr_ioctl() added.  Every kprofmod ioctl takes a pointer to
 * a struct with a fixed, 64-bit aligned layout, so a 32-bit caller only
 * needs its pointer converted.
 */
#if !defined(CONFIG_COMPAT)
#define kprof_compat_ptr_ioctl	NULL
#elif KPROF_KERNEL_BEFORE(5, 5, 0)
static inline long kprof_compat_ptr_ioctl(struct file *file, unsigned int cmd,
					  unsigned long arg)
{
	if (!file->f_op->unlocked_ioctl)
		return -ENOIOCTLCMD;
	return file->f_op->unlocked_ioctl(file, cmd,
					  (unsigned long)compat_ptr(arg));
}
#else
#define kprof_compat_ptr_ioctl	compat_ptr_ioctl
#endif

#endif /* _KPROF_COMPAT_CHRDEV_H */
