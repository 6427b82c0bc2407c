// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/kprof: the misc device, its access control and the ioctl dispatcher.
 *
 * Every ioctl passes one extensible struct (see uapi/linux/kprof.h).  The
 * dispatcher alone talks to user memory: it validates the caller's size,
 * copies the struct in (checking that bytes unknown to this module are
 * zero), calls the handler on a kernel copy and copies the result back.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/cpumask.h>
#include <linux/kernel.h>

#include <linux/kprof.h>
#include "kprof.h"
#include "compat/kprof_compat_caps.h"
#include "compat/kprof_compat_chrdev.h"

/* Largest struct size a caller may claim; anything bigger is -EINVAL. */
#define KPROF_USER_STRUCT_MAX	4096

/* The kernel-side copy of any ioctl argument. */
union kprof_ioc_arg {
	u32 size;
	struct kprof_info info;
};

struct kprof_ioc {
	unsigned int cmd;	/* with the size bits of the current struct */
	u32 size_ver0;		/* oldest accepted struct size */
	u32 ksize;		/* this module's struct size */
	long (*fn)(union kprof_ioc_arg *arg);
};

static long kprof_ioc_get_info(union kprof_ioc_arg *arg)
{
	struct kprof_info *info = &arg->info;

	if (info->reserved0)
		return -EINVAL;

	memset(info, 0, sizeof(*info));
	info->api_major = KPROF_API_MAJOR;
	info->api_minor = KPROF_API_MINOR;
	info->nr_cpu_ids = nr_cpu_ids;
	info->nr_online_cpus = num_online_cpus();
	info->features = 0;
	strscpy(info->version, KPROF_MODULE_VERSION, sizeof(info->version));
	return 0;
}

static const struct kprof_ioc kprof_iocs[] = {
	{ KPROF_IOC_GET_INFO, KPROF_INFO_SIZE_VER0,
	  sizeof(struct kprof_info), kprof_ioc_get_info },
};

static const struct kprof_ioc *kprof_ioc_find(unsigned int cmd)
{
	/* The size bits are checked against the struct's own size field. */
	unsigned int key = cmd & ~(_IOC_SIZEMASK << _IOC_SIZESHIFT);
	size_t i;

	for (i = 0; i < ARRAY_SIZE(kprof_iocs); i++) {
		unsigned int c = kprof_iocs[i].cmd;

		if ((c & ~(_IOC_SIZEMASK << _IOC_SIZESHIFT)) == key)
			return &kprof_iocs[i];
	}
	return NULL;
}

/* Bytes [from, to) of a user struct must all be zero. */
static int kprof_user_tail_zero(const u8 __user *p, size_t from, size_t to)
{
	u8 buf[64];

	while (from < to) {
		size_t n = min(to - from, sizeof(buf));
		size_t i;

		if (copy_from_user(buf, p + from, n))
			return -EFAULT;
		for (i = 0; i < n; i++)
			if (buf[i])
				return -EINVAL;
		from += n;
	}
	return 0;
}

static long kprof_ioctl(struct file *file, unsigned int cmd, unsigned long uarg)
{
	void __user *up = (void __user *)uarg;
	const struct kprof_ioc *ioc;
	union kprof_ioc_arg arg;
	u32 usize, n;
	long ret;

	ioc = kprof_ioc_find(cmd);
	if (!ioc || _IOC_DIR(cmd) != _IOC_DIR(ioc->cmd))
		return -ENOTTY;
	if (!kprof_perfmon_capable())
		return -EPERM;

	if (get_user(usize, (u32 __user *)up))
		return -EFAULT;
	if (usize < ioc->size_ver0 || usize > KPROF_USER_STRUCT_MAX ||
	    usize != _IOC_SIZE(cmd))
		return -EINVAL;

	n = min(usize, ioc->ksize);
	memset(&arg, 0, sizeof(arg));
	if (copy_from_user(&arg, up, n))
		return -EFAULT;
	if (usize > ioc->ksize) {
		ret = kprof_user_tail_zero(up, ioc->ksize, usize);
		if (ret)
			return ret;
	}
	arg.size = n;

	ret = ioc->fn(&arg);
	if (ret || !(_IOC_DIR(cmd) & _IOC_READ))
		return ret;

	arg.size = n;
	if (copy_to_user(up, &arg, n))
		return -EFAULT;
	if (usize > n && clear_user((u8 __user *)up + n, usize - n))
		return -EFAULT;
	return 0;
}

static int kprof_open(struct inode *inode, struct file *file)
{
	return nonseekable_open(inode, file);
}

static const struct file_operations kprof_fops = {
	.owner		= THIS_MODULE,
	.open		= kprof_open,
	.unlocked_ioctl	= kprof_ioctl,
	.compat_ioctl	= kprof_compat_ptr_ioctl,
};

static struct miscdevice kprof_miscdev = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= KPROF_DEVICE_NAME,
	.fops	= &kprof_fops,
	.mode	= 0600,
};

int kprof_dev_init(void)
{
	int ret = misc_register(&kprof_miscdev);

	if (ret)
		pr_err("cannot register /dev/%s: %d\n", KPROF_DEVICE_NAME, ret);
	return ret;
}

void kprof_dev_exit(void)
{
	misc_deregister(&kprof_miscdev);
}
