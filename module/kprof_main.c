// SPDX-License-Identifier: GPL-2.0
/*
 * kprofmod: where the time goes.  CPU stack sampling and TCP
 * request/response latency per stack and remote endpoint, exported through
 * /dev/kprof.
 *
 * This file owns module load and unload: every subsystem is set up here in
 * order and torn down here in reverse order, nowhere else.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/init.h>
#include <linux/stringify.h>

#include "kprof.h"
#include <linux/kprof.h>

static int __init kprof_init(void)
{
	int ret;

	ret = kprof_dev_init();
	if (ret)
		return ret;

	pr_info("version %s (API %u.%u) loaded\n", KPROF_MODULE_VERSION,
		KPROF_API_MAJOR, KPROF_API_MINOR);
	return 0;
}

static void __exit kprof_exit(void)
{
	kprof_dev_exit();
	pr_info("unloaded\n");
}

module_init(kprof_init);
module_exit(kprof_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("kprofmod developers");
MODULE_DESCRIPTION("CPU stack sampling and TCP request latency per stack and endpoint");
MODULE_VERSION(KPROF_MODULE_VERSION);
MODULE_INFO(kprof_api, __stringify(KPROF_API_MAJOR) "." __stringify(KPROF_API_MINOR));
