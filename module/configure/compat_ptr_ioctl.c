// SPDX-License-Identifier: GPL-2.0
/* Trial compile: compat_ptr_ioctl(), see kprof_compat_chrdev.h. */
#include <linux/compat.h>
#include <linux/fs.h>

static const struct file_operations kprof_probe_fops __maybe_unused = {
	.compat_ioctl	= compat_ptr_ioctl,
};
