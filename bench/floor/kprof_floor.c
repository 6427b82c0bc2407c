// SPDX-License-Identifier: GPL-2.0
/*
 * kprof_floor: the floors `make bench` measures kprofmod against: empty
 * handlers on the two functions of its request path (tcp_sendmsg and
 * tcp_cleanup_rbuf), or on the perf event it samples with:
 *
 *   insmod kprof_floor.ko              two kprobes, empty pre-handlers
 *   insmod kprof_floor.ko mode=ftrace  one ftrace_ops, a callback that
 *                                      only turns preemption off and on
 *                                      (no FTRACE_OPS_FL_RECURSION: called
 *                                      straight from the trampoline), as
 *                                      kprofmod's hot hooks are
 *   insmod kprof_floor.ko mode=sample [hz=N]
 *                                      a cpu-clock perf event per online
 *                                      CPU at N Hz (9999) with an empty
 *                                      overflow handler: the floor of CPU
 *                                      sampling, as kprofmod samples
 *
 * mode=ftrace is the least any attach through ftrace can cost, for the
 * comparison in bench/RESULTS.md.  Not part of the product: it ignores
 * CPU hotplug.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/perf_event.h>
#include <linux/slab.h>
#include <linux/string.h>

static char kprof_floor_mode[8] = "kprobe";
module_param_string(mode, kprof_floor_mode, sizeof(kprof_floor_mode), 0444);
MODULE_PARM_DESC(mode, "kprobe (default), ftrace or sample");

static unsigned int kprof_floor_hz = 9999;
module_param_named(hz, kprof_floor_hz, uint, 0444);
MODULE_PARM_DESC(hz, "mode=sample: samples per second per CPU (9999)");

static unsigned int kprof_floor_spin;
module_param_named(spin, kprof_floor_spin, uint, 0444);
MODULE_PARM_DESC(spin, "kprobe, ftrace: loop iterations per call (0)");

/* a fixed amount of work per call: the same instructions in every mode */
static void notrace kprof_floor_work(void)
{
	unsigned int i, acc = 0;

	for (i = 0; i < kprof_floor_spin; i++)
		asm volatile("" : "+r" (acc) : "r" (i));
}

static int kprof_floor_pre(struct kprobe *p, struct pt_regs *regs)
{
	kprof_floor_work();
	return 0;
}

static struct kprobe kprof_floor_kp[] = {
	{ .symbol_name = "tcp_sendmsg", .pre_handler = kprof_floor_pre },
	{ .symbol_name = "tcp_cleanup_rbuf", .pre_handler = kprof_floor_pre },
};

static struct kprobe *kprof_floor_kps[] = {
	&kprof_floor_kp[0], &kprof_floor_kp[1],
};

/*
 * Since 5.11 ("ftrace: Reverse what the RECURSION flag means in the
 * ftrace_ops", "ftrace: Have the callbacks receive a struct ftrace_regs
 * instead of pt_regs"), the release that also added
 * <linux/trace_recursion.h>, which bench/floor/Kbuild tests for.  Only
 * `make bench`, on 6.1, loads this module.
 */
#if defined(CONFIG_DYNAMIC_FTRACE) && KPROF_FLOOR_FTRACE
static void notrace kprof_floor_fn(unsigned long ip, unsigned long parent_ip,
				   struct ftrace_ops *op,
				   struct ftrace_regs *fregs)
{
	preempt_disable_notrace();
	kprof_floor_work();
	preempt_enable_notrace();
}

static struct ftrace_ops kprof_floor_ops = {
	.func = kprof_floor_fn,
};

static int kprof_floor_ftrace(void)
{
	int ret;

	ret = ftrace_set_filter(&kprof_floor_ops, "tcp_sendmsg", 11, 1);
	if (!ret)
		ret = ftrace_set_filter(&kprof_floor_ops, "tcp_cleanup_rbuf",
					16, 0);
	if (!ret)
		ret = register_ftrace_function(&kprof_floor_ops);
	if (ret)
		ftrace_free_filter(&kprof_floor_ops);
	return ret;
}
#else
static int kprof_floor_ftrace(void)
{
	return -EOPNOTSUPP;
}
#endif

static struct perf_event **kprof_floor_events;

static void kprof_floor_overflow(struct perf_event *event,
				 struct perf_sample_data *data,
				 struct pt_regs *regs)
{
}

static void kprof_floor_sample_stop(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		if (kprof_floor_events[cpu])
			perf_event_release_kernel(kprof_floor_events[cpu]);
	kfree(kprof_floor_events);
	kprof_floor_events = NULL;
}

static int kprof_floor_sample(void)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.size = sizeof(attr),
		.freq = 1,
		.sample_freq = kprof_floor_hz,
		.pinned = 1,
	};
	struct perf_event *ev;
	unsigned int cpu;
	int ret = 0;

	if (!kprof_floor_hz)
		return -EINVAL;
	kprof_floor_events = kcalloc(nr_cpu_ids, sizeof(*kprof_floor_events),
				     GFP_KERNEL);
	if (!kprof_floor_events)
		return -ENOMEM;
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		ev = perf_event_create_kernel_counter(&attr, cpu, NULL,
						      kprof_floor_overflow,
						      NULL);
		if (IS_ERR(ev)) {
			ret = PTR_ERR(ev);
			break;
		}
		kprof_floor_events[cpu] = ev;
	}
	cpus_read_unlock();
	if (ret)
		kprof_floor_sample_stop();
	return ret;
}

static bool kprof_floor_is_ftrace;

static int __init kprof_floor_init(void)
{
	if (!strcmp(kprof_floor_mode, "ftrace")) {
		kprof_floor_is_ftrace = true;
		return kprof_floor_ftrace();
	}
	if (!strcmp(kprof_floor_mode, "sample"))
		return kprof_floor_sample();
	if (strcmp(kprof_floor_mode, "kprobe"))
		return -EINVAL;
	return register_kprobes(kprof_floor_kps, ARRAY_SIZE(kprof_floor_kps));
}

static void __exit kprof_floor_exit(void)
{
	if (kprof_floor_events) {
		kprof_floor_sample_stop();
		return;
	}
#if defined(CONFIG_DYNAMIC_FTRACE) && KPROF_FLOOR_FTRACE
	if (kprof_floor_is_ftrace) {
		unregister_ftrace_function(&kprof_floor_ops);
		ftrace_free_filter(&kprof_floor_ops);
		return;
	}
#endif
	unregister_kprobes(kprof_floor_kps, ARRAY_SIZE(kprof_floor_kps));
}

module_init(kprof_floor_init);
module_exit(kprof_floor_exit);
MODULE_DESCRIPTION("kprofmod benchmark floor: empty probes");
MODULE_LICENSE("GPL");
