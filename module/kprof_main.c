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
#define KPROF_UNIT KPROF_UNIT_MAIN

#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/module.h>
#include <linux/string.h>
#include <linux/stringify.h>

#include "kprof_agg.h"
#include "kprof_config.h"
#include "kprof_ctl.h"
#include "kprof_dev.h"
#include "kprof_export.h"
#include "kprof_guard.h"
#include "kprof_sample.h"
#include "kprof_stack.h"
#include "kprof_tcp.h"
#include "compat/kprof_compat_mm.h"

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
	ret = kprof_cfg_init();
	if (ret)
		goto err_export;
	ret = kprof_tcp_init();
	if (ret)
		goto err_cfg;
	kprof_sample_init();
	ret = kprof_nmi_test_init();
	if (ret)
		goto err_tcp;
	ret = kprof_dev_init();
	if (ret)
		goto err_nmi;

	pr_info("version %s (API %u.%u) loaded, attach 0x%x, endpoints %s\n",
		KPROF_MODULE_VERSION, KPROF_API_MAJOR, KPROF_API_MINOR,
		kprof_tcp_attach(), kprof_endpoints_name());
	return 0;

err_nmi:
	/* nothing sampled yet: no device to start it from */
	kprof_nmi_test_exit();
err_tcp:
	kprof_ctl_exit();
	kprof_sample_exit();
	kprof_tcp_exit();
err_cfg:
	kprof_cfg_exit();
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
	kprof_ctl_exit();
	kprof_sample_exit();
	kprof_nmi_test_exit();
	kprof_tcp_exit();
	kprof_cfg_exit();
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
