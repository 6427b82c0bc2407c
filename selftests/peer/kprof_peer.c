// SPDX-License-Identifier: GPL-2.0
/*
 * kprof_peer: another tool's kprobes on the functions kprofmod probes,
 * for selftests/coexist.sh.  Each probe counts its hits by tasks named
 * like the "comm" parameter (writable); the counts are read and reset
 * through the "hits" parameter:
 *
 *   echo tcp_workload > /sys/module/kprof_peer/parameters/comm
 *   cat /sys/module/kprof_peer/parameters/hits   # sendmsg close cleanup
 *   echo 0 > /sys/module/kprof_peer/parameters/hits
 *
 * Its pre-handlers return 0, as every well-behaved kprobe user does, and
 * it registers whatever of the probe points exist on this kernel.
 *
 * It also injects a fault for cpu_sample_test and session_test: while
 * "fail_perf_cpu" is a CPU number (or -2: every CPU), a per-CPU sampling
 * perf event created in the kernel for that CPU fails (its attr is given
 * a type no PMU has, so perf_event_create_kernel_counter() returns
 * -ENOENT the way it does for any event no PMU takes).  x86-64 only: the arguments are read from
 * the registers of the calling convention.
 *
 * And a kernel stack deeper than kprofmod keeps, for cpu_sample_test:
 * writing N (1 to 1000) to "deep_spin_ms" spins N ms in the kernel at the
 * bottom of KPROF_PEER_DEPTH nested calls of one function.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/perf_event.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/stringify.h>

static char kprof_peer_comm[TASK_COMM_LEN] = "tcp_workload";
module_param_string(comm, kprof_peer_comm, sizeof(kprof_peer_comm), 0644);
MODULE_PARM_DESC(comm, "count hits of tasks with this name");

enum { PEER_SENDMSG, PEER_CLOSE, PEER_CLEANUP, PEER_NR };
static atomic_long_t kprof_peer_hits[PEER_NR];

static int kprof_peer_hits_get(char *buf, const struct kernel_param *kp)
{
	return sprintf(buf, "%ld %ld %ld\n",
		       atomic_long_read(&kprof_peer_hits[PEER_SENDMSG]),
		       atomic_long_read(&kprof_peer_hits[PEER_CLOSE]),
		       atomic_long_read(&kprof_peer_hits[PEER_CLEANUP]));
}

static int kprof_peer_hits_set(const char *val, const struct kernel_param *kp)
{
	int i;

	if (!sysfs_streq(val, "0"))
		return -EINVAL;
	for (i = 0; i < PEER_NR; i++)
		atomic_long_set(&kprof_peer_hits[i], 0);
	return 0;
}

static const struct kernel_param_ops kprof_peer_hits_ops = {
	.get = kprof_peer_hits_get,
	.set = kprof_peer_hits_set,
};

module_param_cb(hits, &kprof_peer_hits_ops, NULL, 0644);
MODULE_PARM_DESC(hits, "hits of tcp_sendmsg, tcp_close and the receive cleanup; write 0 to reset");

static void kprof_peer_count(int what)
{
	char comm[TASK_COMM_LEN];

	memcpy(comm, current->comm, sizeof(comm));
	comm[sizeof(comm) - 1] = '\0';
	if (!strncmp(comm, kprof_peer_comm, sizeof(comm)))
		atomic_long_inc(&kprof_peer_hits[what]);
}

static int kprof_peer_sendmsg(struct kprobe *p, struct pt_regs *regs)
{
	kprof_peer_count(PEER_SENDMSG);
	return 0;
}

static int kprof_peer_close(struct kprobe *p, struct pt_regs *regs)
{
	kprof_peer_count(PEER_CLOSE);
	return 0;
}

static int kprof_peer_cleanup(struct kprobe *p, struct pt_regs *regs)
{
	kprof_peer_count(PEER_CLEANUP);
	return 0;
}

static int kprof_peer_fail_cpu = -1;
module_param_named(fail_perf_cpu, kprof_peer_fail_cpu, int, 0644);
MODULE_PARM_DESC(fail_perf_cpu, "make sampling perf events for this CPU fail (-1: none, -2: every CPU)");

static int kprof_peer_perf_create(struct kprobe *p, struct pt_regs *regs)
{
#ifdef CONFIG_X86_64
	/* perf_event_create_kernel_counter(attr, cpu, task, handler, ctx) */
	struct perf_event_attr *attr = (struct perf_event_attr *)regs->di;
	int fail = READ_ONCE(kprof_peer_fail_cpu);
	int cpu = (int)regs->si;

	if (cpu >= 0 && (cpu == fail || fail == -2) && !regs->dx &&
	    attr->freq && attr->pinned)
		attr->type = 0x7fff0000;	/* far above any dynamic PMU type */
#endif
	return 0;
}

#define KPROF_PEER_DEPTH	48

static noinline int kprof_peer_deep(int depth, u64 until)
{
	int r = 0;

	if (depth > 1)
		r = kprof_peer_deep(depth - 1, until);
	else
		while (ktime_get_ns() < until)
			cpu_relax();
	/* neither a tail call nor a loop: each level keeps its frame */
	asm volatile("" : "+r" (r));
	return r + 1;
}

static int kprof_peer_deep_set(const char *val, const struct kernel_param *kp)
{
	unsigned int ms;
	int ret = kstrtouint(val, 0, &ms);

	if (ret)
		return ret;
	if (!ms || ms > 1000)
		return -EINVAL;
	ret = kprof_peer_deep(KPROF_PEER_DEPTH,
			      ktime_get_ns() + (u64)ms * NSEC_PER_MSEC);
	return ret == KPROF_PEER_DEPTH ? 0 : -EIO;
}

static const struct kernel_param_ops kprof_peer_deep_ops = {
	.set = kprof_peer_deep_set,
};

module_param_cb(deep_spin_ms, &kprof_peer_deep_ops, NULL, 0200);
MODULE_PARM_DESC(deep_spin_ms,
		 "write N: spin N ms in the kernel, " __stringify(KPROF_PEER_DEPTH) " calls deep");

static struct kprobe kprof_peer_kps[] = {
	{ .symbol_name = "tcp_sendmsg", .pre_handler = kprof_peer_sendmsg },
	{ .symbol_name = "tcp_close", .pre_handler = kprof_peer_close },
	{ .symbol_name = "tcp_cleanup_rbuf", .pre_handler = kprof_peer_cleanup },
	{ .symbol_name = "__tcp_cleanup_rbuf", .pre_handler = kprof_peer_cleanup },
	{ .symbol_name = "perf_event_create_kernel_counter",
	  .pre_handler = kprof_peer_perf_create },
};

static bool kprof_peer_on[ARRAY_SIZE(kprof_peer_kps)];

static int __init kprof_peer_init(void)
{
	int i, n = 0;

	for (i = 0; i < ARRAY_SIZE(kprof_peer_kps); i++) {
		kprof_peer_on[i] = !register_kprobe(&kprof_peer_kps[i]);
		n += kprof_peer_on[i];
	}
	/* the first two exist on every kernel kprofmod supports */
	if (!kprof_peer_on[0] || !kprof_peer_on[1]) {
		for (i = 0; i < ARRAY_SIZE(kprof_peer_kps); i++)
			if (kprof_peer_on[i])
				unregister_kprobe(&kprof_peer_kps[i]);
		return -ENOENT;
	}
	pr_info("%d probes\n", n);
	return 0;
}

static void __exit kprof_peer_exit(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(kprof_peer_kps); i++)
		if (kprof_peer_on[i])
			unregister_kprobe(&kprof_peer_kps[i]);
}

module_init(kprof_peer_init);
module_exit(kprof_peer_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kprofmod selftest: another kprobe user on the same functions");
