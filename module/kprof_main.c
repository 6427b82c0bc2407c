// SPDX-License-Identifier: GPL-2.0
/*
 * kprofmod: where the time goes.  CPU stack sampling and TCP
 * request/response latency per stack and remote endpoint, exported through
 * /dev/kprof.
 *
 * This file owns module load and unload and the module parameters: every
 * part is set up here in order and torn down here in reverse order,
 * nowhere else.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/module.h>
#include <linux/string.h>
#include <linux/stringify.h>

#include "kprof.h"
#include "compat/kprof_compat_mm.h"

/* Capacities: fixed at load, every table is preallocated from them. */
unsigned int kprof_cpu_rows = 512;
unsigned int kprof_tcp_rows_max = 4096;
unsigned int kprof_stacks_max = 4096;
unsigned int kprof_inflight_max = 65536;
unsigned int kprof_strings_kb = 1024;
unsigned int kprof_cpu_samples = 1024;
unsigned int kprof_sample_rows_max = 4096;

/* The overhead guard's budget, in millionths of each CPU; 0 = off. */
unsigned int kprof_budget_ppm = 10000;

struct kprof_uint_param {
	unsigned int *val;
	unsigned int min;
	unsigned int max;
};

static int kprof_param_set(const char *arg, const struct kernel_param *kp)
{
	const struct kprof_uint_param *p = kp->arg;
	unsigned int v;

	if (kstrtouint(arg, 0, &v) || v < p->min || v > p->max) {
		pr_err("%s=%s: expected a number from %u to %u\n", kp->name,
		       arg, p->min, p->max);
		return -EINVAL;
	}
	WRITE_ONCE(*p->val, v);
	return 0;
}

static int kprof_param_get(char *buf, const struct kernel_param *kp)
{
	const struct kprof_uint_param *p = kp->arg;

	return sprintf(buf, "%u\n", *p->val);
}

static const struct kernel_param_ops kprof_uint_ops = {
	.set = kprof_param_set,
	.get = kprof_param_get,
};

static struct kprof_uint_param kprof_param_cpu_rows = { &kprof_cpu_rows, 16, 65536 };
module_param_cb(cpu_rows, &kprof_uint_ops, &kprof_param_cpu_rows, 0444);
MODULE_PARM_DESC(cpu_rows, "TCP rows per CPU and interval, default 512 (16..65536)");

static struct kprof_uint_param kprof_param_tcp_rows = { &kprof_tcp_rows_max, 16, 1048576 };
module_param_cb(tcp_rows, &kprof_uint_ops, &kprof_param_tcp_rows, 0444);
MODULE_PARM_DESC(tcp_rows, "TCP rows exported per interval, default 4096 (16..1048576)");

static struct kprof_uint_param kprof_param_stacks = { &kprof_stacks_max, 16, 1048576 };
module_param_cb(stacks, &kprof_uint_ops, &kprof_param_stacks, 0444);
MODULE_PARM_DESC(stacks, "stack table entries, default 4096 (16..1048576)");

static struct kprof_uint_param kprof_param_inflight = { &kprof_inflight_max, 64, 4194304 };
module_param_cb(inflight, &kprof_uint_ops, &kprof_param_inflight, 0444);
MODULE_PARM_DESC(inflight, "sockets tracked in flight, default 65536 (64..4194304)");

static struct kprof_uint_param kprof_param_strings_kb = { &kprof_strings_kb, 4, 65536 };
module_param_cb(strings_kb, &kprof_uint_ops, &kprof_param_strings_kb, 0444);
MODULE_PARM_DESC(strings_kb, "KiB for kernel symbol strings in the export, default 1024 (4..65536)");

static struct kprof_uint_param kprof_param_cpu_samples = { &kprof_cpu_samples, 16, 65536 };
module_param_cb(cpu_samples, &kprof_uint_ops, &kprof_param_cpu_samples, 0444);
MODULE_PARM_DESC(cpu_samples, "CPU sample rows per CPU and interval, default 1024 (16..65536)");

static struct kprof_uint_param kprof_param_sample_rows = { &kprof_sample_rows_max, 16, 1048576 };
module_param_cb(sample_rows, &kprof_uint_ops, &kprof_param_sample_rows, 0444);
MODULE_PARM_DESC(sample_rows, "CPU sample rows exported per interval, default 4096 (16..1048576)");

/* Not a capacity: a policy, which root may change while loaded. */
static struct kprof_uint_param kprof_param_budget = { &kprof_budget_ppm, 0, 1000000 };
module_param_cb(budget_ppm, &kprof_uint_ops, &kprof_param_budget, 0644);
MODULE_PARM_DESC(budget_ppm, "handler time allowed per CPU in millionths, default 10000 = 1% (0 = no guard, ..1000000)");

/* Endpoint privacy: KPROF_ENDPOINTS_*, see uapi/linux/kprof.h. */
unsigned int kprof_endpoints = KPROF_ENDPOINTS_FULL;

static const char * const kprof_endpoints_names[] = {
	[KPROF_ENDPOINTS_FULL] = "full",
	[KPROF_ENDPOINTS_PREFIX] = "prefix",
	[KPROF_ENDPOINTS_HASH] = "hash",
};

static int kprof_endpoints_set(const char *arg, const struct kernel_param *kp)
{
	int i = sysfs_match_string(kprof_endpoints_names, arg);

	if (i < 0) {
		pr_err("%s=%s: expected full, prefix or hash\n", kp->name, arg);
		return -EINVAL;
	}
	kprof_endpoints = i;
	return 0;
}

static int kprof_endpoints_get(char *buf, const struct kernel_param *kp)
{
	return sprintf(buf, "%s\n", kprof_endpoints_names[kprof_endpoints]);
}

static const struct kernel_param_ops kprof_endpoints_ops = {
	.set = kprof_endpoints_set,
	.get = kprof_endpoints_get,
};

module_param_cb(endpoints, &kprof_endpoints_ops, NULL, 0444);
MODULE_PARM_DESC(endpoints, "remote addresses: full, prefix (IPv4 /24, IPv6 /64) or hash (keyed per load), default full");

static int __init kprof_init(void)
{
	int ret;

	ret = kprof_guard_init();
	if (ret)
		goto err;
	ret = kprof_stacks_init();
	if (ret)
		goto err_guard;
	ret = kprof_agg_init();
	if (ret)
		goto err_stacks;
	ret = kprof_export_init();
	if (ret)
		goto err_agg;
	/* every table the NMI-context sampling path touches now exists */
	kprof_vmalloc_sync();
	ret = kprof_tcp_init();
	if (ret)
		goto err_export;
	kprof_sample_init();
	ret = kprof_nmi_test_init();
	if (ret)
		goto err_tcp;
	ret = kprof_dev_init();
	if (ret)
		goto err_nmi;

	pr_info("version %s (API %u.%u) loaded, attach 0x%x, endpoints %s\n",
		KPROF_MODULE_VERSION, KPROF_API_MAJOR, KPROF_API_MINOR,
		kprof_tcp_attach(), kprof_endpoints_names[kprof_endpoints]);
	return 0;

err_nmi:
	/* nothing sampled yet: no device to start it from */
	kprof_nmi_test_exit();
err_tcp:
	kprof_guard_exit();
	kprof_sample_exit();
	kprof_tcp_exit();
err_export:
	kprof_export_exit();
err_agg:
	kprof_agg_exit();
err_stacks:
	kprof_stacks_exit();
err_guard:
	kprof_guard_free();
err:
	pr_err("cannot load: %d\n", ret);
	return ret;
}

static void __exit kprof_exit(void)
{
	kprof_dev_exit();
	kprof_guard_exit();
	kprof_sample_exit();
	kprof_nmi_test_exit();
	kprof_tcp_exit();
	kprof_export_exit();
	kprof_agg_exit();
	kprof_stacks_exit();
	kprof_guard_free();
	pr_info("unloaded\n");
}

module_init(kprof_init);
module_exit(kprof_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("kprofmod developers");
MODULE_DESCRIPTION("CPU stack sampling and TCP request latency per stack and endpoint");
MODULE_VERSION(KPROF_MODULE_VERSION);
MODULE_INFO(kprof_api, __stringify(KPROF_API_MAJOR) "." __stringify(KPROF_API_MINOR));
