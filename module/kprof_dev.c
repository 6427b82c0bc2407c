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
#define KPROF_UNIT KPROF_UNIT_DEV

#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/cpumask.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/mm.h>

#include <linux/kprof.h>
#include "kprof_ctl.h"
#include "kprof_dev.h"
#include "kprof_export.h"
#include "compat/kprof_compat_caps.h"
#include "compat/kprof_compat_chrdev.h"

/* Largest struct size a caller may claim; anything bigger is -EINVAL. */
#define KPROF_USER_STRUCT_MAX	4096

struct kprof_ioc {
	unsigned int cmd;	/* with the size bits of the current struct */
	u32 size_ver0;		/* oldest accepted struct size */
	u32 ksize;		/* this module's struct size */
	/* on a kernel copy of the struct, for the file's session */
	long (*fn)(struct kprof_session *s, void *arg);
};

static long kprof_ioc_get_info(struct kprof_session *s, void *arg)
{
	struct kprof_info *info = arg;

	if (info->reserved0 || info->endpoints || info->reserved1)
		return -EINVAL;
	memset(info, 0, sizeof(*info));
	info->api_major = KPROF_API_MAJOR;
	info->api_minor = KPROF_API_MINOR;
	info->nr_cpu_ids = nr_cpu_ids;
	info->nr_online_cpus = num_online_cpus();
	strscpy(info->version, KPROF_MODULE_VERSION, sizeof(info->version));
	kprof_ctl_info(info);
	return 0;
}

static long kprof_ioc_start(struct kprof_session *s, void *arg)
{
	struct kprof_ctl *c = arg;

	return c->reserved ? -EINVAL : kprof_ctl_start(s, c->what);
}

static long kprof_ioc_stop(struct kprof_session *s, void *arg)
{
	struct kprof_ctl *c = arg;

	return c->reserved ? -EINVAL : kprof_ctl_stop(s, c->what);
}

static long kprof_ioc_reset(struct kprof_session *s, void *arg)
{
	struct kprof_ctl *c = arg;

	return c->reserved ? -EINVAL : kprof_ctl_reset(s, c->what);
}

static long kprof_ioc_set_config(struct kprof_session *s, void *arg)
{
	return kprof_ctl_set_config(s, arg);
}

/* An output-only struct: everything after its size field must be zero. */
static bool kprof_ioc_out_only(const void *arg, size_t size)
{
	return !memchr_inv((const u8 *)arg + sizeof(u32), 0,
			   size - sizeof(u32));
}

static long kprof_ioc_get_config(struct kprof_session *s, void *arg)
{
	if (!kprof_ioc_out_only(arg, sizeof(struct kprof_config)))
		return -EINVAL;
	kprof_ctl_get_config(arg);
	return 0;
}

static long kprof_ioc_snapshot(struct kprof_session *s, void *arg)
{
	struct kprof_snapshot *snap = arg;

	if (snap->view || snap->generation ||
	    memchr_inv(snap->reserved0, 0, sizeof(snap->reserved0)))
		return -EINVAL;
	return kprof_ctl_snapshot(s, &snap->generation, &snap->view);
}

static long kprof_ioc_get_stats(struct kprof_session *s, void *arg)
{
	if (!kprof_ioc_out_only(arg, sizeof(struct kprof_stats)))
		return -EINVAL;
	kprof_ctl_stats(arg);
	return 0;
}

static long kprof_ioc_get_stack(struct kprof_session *s, void *arg)
{
	return kprof_ctl_get_stack(arg);
}

static long kprof_ioc_get_cpu_cost(struct kprof_session *s, void *arg)
{
	return kprof_ctl_cpu_cost(arg);
}

static long kprof_ioc_get_sessions(struct kprof_session *s, void *arg)
{
	if (!kprof_ioc_out_only(arg, sizeof(struct kprof_sessions)))
		return -EINVAL;
	kprof_ctl_sessions(s, arg);
	return 0;
}

#define KPROF_IOC(cmd, type, ver0, fn) \
	{ cmd, ver0, sizeof(struct type), fn }

static const struct kprof_ioc kprof_iocs[] = {
	KPROF_IOC(KPROF_IOC_GET_INFO, kprof_info, KPROF_INFO_SIZE_VER0,
		  kprof_ioc_get_info),
	KPROF_IOC(KPROF_IOC_START, kprof_ctl, KPROF_CTL_SIZE_VER0,
		  kprof_ioc_start),
	KPROF_IOC(KPROF_IOC_STOP, kprof_ctl, KPROF_CTL_SIZE_VER0,
		  kprof_ioc_stop),
	KPROF_IOC(KPROF_IOC_RESET, kprof_ctl, KPROF_CTL_SIZE_VER0,
		  kprof_ioc_reset),
	KPROF_IOC(KPROF_IOC_SET_CONFIG, kprof_config, KPROF_CONFIG_SIZE_VER0,
		  kprof_ioc_set_config),
	KPROF_IOC(KPROF_IOC_GET_CONFIG, kprof_config, KPROF_CONFIG_SIZE_VER0,
		  kprof_ioc_get_config),
	KPROF_IOC(KPROF_IOC_SNAPSHOT, kprof_snapshot, KPROF_SNAPSHOT_SIZE_VER0,
		  kprof_ioc_snapshot),
	KPROF_IOC(KPROF_IOC_GET_STATS, kprof_stats, KPROF_STATS_SIZE_VER0,
		  kprof_ioc_get_stats),
	KPROF_IOC(KPROF_IOC_GET_STACK, kprof_stack_query,
		  KPROF_STACK_QUERY_SIZE_VER0, kprof_ioc_get_stack),
	KPROF_IOC(KPROF_IOC_GET_CPU_COST, kprof_cpu_cost,
		  KPROF_CPU_COST_SIZE_VER0, kprof_ioc_get_cpu_cost),
	KPROF_IOC(KPROF_IOC_GET_SESSIONS, kprof_sessions,
		  KPROF_SESSIONS_SIZE_VER0, kprof_ioc_get_sessions),
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
	u32 usize, n;
	void *arg;
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

	if (usize > ioc->ksize) {
		ret = kprof_user_tail_zero(up, ioc->ksize, usize);
		if (ret)
			return ret;
	}
	n = min(usize, ioc->ksize);
	arg = kzalloc(ioc->ksize, GFP_KERNEL);
	if (!arg)
		return -ENOMEM;
	ret = -EFAULT;
	if (copy_from_user(arg, up, n))
		goto out;
	*(u32 *)arg = n;

	ret = ioc->fn(file->private_data, arg);
	if (ret || !(_IOC_DIR(cmd) & _IOC_READ))
		goto out;

	*(u32 *)arg = n;
	ret = -EFAULT;
	if (copy_to_user(up, arg, n))
		goto out;
	if (usize > n && clear_user((u8 __user *)up + n, usize - n))
		goto out;
	ret = 0;
out:
	kfree(arg);
	return ret;
}

/* Every open file is a session (see kprof_ctl.c). */
static int kprof_open(struct inode *inode, struct file *file)
{
	int ret = nonseekable_open(inode, file);

	if (ret)
		return ret;
	file->private_data = kprof_ctl_open();
	return file->private_data ? 0 : -ENOMEM;
}

/* The last close, at exit or on a kill: what the session started stops. */
static int kprof_release(struct inode *inode, struct file *file)
{
	kprof_ctl_release(file->private_data);
	return 0;
}

static int kprof_mmap(struct file *file, struct vm_area_struct *vma)
{
	if (!kprof_perfmon_capable())
		return -EPERM;
	return kprof_export_mmap(file, vma);
}

static const struct file_operations kprof_fops = {
	.owner		= THIS_MODULE,
	.open		= kprof_open,
	.release	= kprof_release,
	.unlocked_ioctl	= kprof_ioctl,
	.compat_ioctl	= kprof_compat_ptr_ioctl,
	.mmap		= kprof_mmap,
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
