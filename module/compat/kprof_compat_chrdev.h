/* SPDX-License-Identifier: GPL-2.0 */
/* kprofmod compat: character/misc device file operations. */
#ifndef _KPROF_COMPAT_CHRDEV_H
#define _KPROF_COMPAT_CHRDEV_H

#include <linux/compat.h>
#include <linux/fs.h>
#include "kprof_compat_version.h"

/*
 * compat_ptr_ioctl(): upstream commit 2952db0fd51b ("compat_ioctl: add
 * compat_ptr_ioctl()"), v5.5, also in 5.4.y.  Every kprofmod ioctl takes
 * a pointer to a struct with a fixed, 64-bit aligned layout, so a 32-bit
 * caller only needs its pointer converted.  Trial compile
 * (compat_ptr_ioctl.c); the fallback is for 4.14, 4.19 and early 5.4.y.
 */
#if !defined(CONFIG_COMPAT)
#define kprof_compat_ptr_ioctl	NULL
#elif KPROF_HAVE_COMPAT_PTR_IOCTL
#define kprof_compat_ptr_ioctl	compat_ptr_ioctl
#else
static inline long kprof_compat_ptr_ioctl(struct file *file, unsigned int cmd,
					  unsigned long arg)
{
	if (!file->f_op->unlocked_ioctl)
		return -ENOIOCTLCMD;
	return file->f_op->unlocked_ioctl(file, cmd,
					  (unsigned long)compat_ptr(arg));
}
#endif

#endif /* _KPROF_COMPAT_CHRDEV_H */
