// SPDX-License-Identifier: GPL-2.0
/*
 * Test builds only (make module KPROF_TEST_NMI=1): the sampling path in
 * NMI, where no PMU raises one.
 *
 * On real machines kprofmod samples on cycles, and the overflow handler
 * runs in NMI; under CPU emulation there is no PMU, the event is
 * cpu-clock, and the handler runs in hardirq.  So that the NMI path (the
 * handler in NMI, user copies from NMI, the NMI scratch slot, an NMI
 * landing in the middle of a probe's capture) runs in the test VMs too,
 * this file turns every cpu-clock overflow into an NMI:
 *
 *  - self (test_nmi=1, the default of a test build): the hardirq handler
 *    keeps the interrupted registers in a per-CPU slot and sends an NMI
 *    IPI to its own CPU; the NMI handler samples with those registers, in
 *    NMI.  The NMI comes while the hardirq handler waits for it, so the
 *    registers are still on the stack; one that does not come within the
 *    wait is taken back and sampled in hardirq (counted, nmi_missed).
 *  - cross (test_nmi=2): in addition, an NMI to the next online CPU,
 *    which samples whatever it interrupted with its own registers: an
 *    int3 probe handler in the middle of a capture, another handler, user
 *    code.  Those samples count on top of the timer's, so only tests of
 *    nesting use it.
 *
 * What still runs only on hardware: a PMU's own NMI (its throttling and
 * the perf core's NMI path), and NMIs at the rate and in the places a
 * busy machine's counters overflow.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
#define KPROF_UNIT KPROF_UNIT_SAMPLE

#include <linux/cpumask.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <asm/apic.h>
#include <asm/nmi.h>

#include "kprof_sample.h"

/* how long the hardirq handler waits for its own NMI */
#define KPROF_NMI_WAIT_LOOPS	100000

struct kprof_nmi_test_pcpu {
	struct pt_regs *regs;	/* the hardirq handler's, for its NMI */
	int cross;		/* an NMI from another CPU is due */
};

static struct kprof_nmi_test_pcpu __percpu *kprof_nmi_pcpu;
static unsigned int kprof_test_nmi = 1;
static atomic64_t kprof_nmi_sampled, kprof_nmi_cross, kprof_nmi_missed;
static bool kprof_nmi_registered;

static int kprof_test_nmi_set(const char *val, const struct kernel_param *kp)
{
	unsigned int v;

	if (kstrtouint(val, 0, &v) || v > 2) {
		pr_err("test_nmi=%s: expected 0 (off), 1 (self) or 2 (self and cross)\n",
		       val);
		return -EINVAL;
	}
	WRITE_ONCE(kprof_test_nmi, v);
	return 0;
}

static int kprof_test_nmi_get(char *buf, const struct kernel_param *kp)
{
	return sprintf(buf, "%u\n", READ_ONCE(kprof_test_nmi));
}

static const struct kernel_param_ops kprof_test_nmi_ops = {
	.set = kprof_test_nmi_set,
	.get = kprof_test_nmi_get,
};

module_param_cb(test_nmi, &kprof_test_nmi_ops, NULL, 0644);
MODULE_PARM_DESC(test_nmi, "test build: sample in NMI: 0 off, 1 own CPU (default), 2 also the next CPU");

static int kprof_nmi_stats_get(char *buf, const struct kernel_param *kp)
{
	return sprintf(buf, "sampled %lld cross %lld missed %lld\n",
		       (long long)atomic64_read(&kprof_nmi_sampled),
		       (long long)atomic64_read(&kprof_nmi_cross),
		       (long long)atomic64_read(&kprof_nmi_missed));
}

static const struct kernel_param_ops kprof_nmi_stats_ops = {
	.get = kprof_nmi_stats_get,
};

module_param_cb(test_nmi_stats, &kprof_nmi_stats_ops, NULL, 0444);
MODULE_PARM_DESC(test_nmi_stats, "test build: samples taken in NMI");

static int kprof_nmi_handler(unsigned int type, struct pt_regs *regs)
{
	struct kprof_nmi_test_pcpu *p;
	struct pt_regs *r;
	int handled = 0;

	if (!kprof_nmi_pcpu)
		return NMI_DONE;
	p = this_cpu_ptr(kprof_nmi_pcpu);
	r = xchg(&p->regs, NULL);
	if (r) {
		kprof_sample_regs(r);
		atomic64_inc(&kprof_nmi_sampled);
		handled++;
	}
	if (xchg(&p->cross, 0)) {
		kprof_sample_regs(regs);
		atomic64_inc(&kprof_nmi_cross);
		handled++;
	}
	/*
	 * Every NMI is claimed: one handler run can take the work of an
	 * NMI still on its way (a cross NMI's flag seen by a self NMI, a
	 * self NMI taken back after the wait), which then finds nothing
	 * to do and would be reported as an unknown NMI.  Handlers of
	 * other kinds still run: every handler sees every NMI.
	 */
	return max(handled, 1);
}

/*
 * From the cpu-clock overflow handler, in hardirq: true when the sample
 * was taken in NMI.
 */
bool kprof_nmi_test_sample(struct pt_regs *regs)
{
	struct kprof_nmi_test_pcpu *p;
	unsigned int mode = READ_ONCE(kprof_test_nmi), cpu, next, i;

	if (!mode || !READ_ONCE(kprof_nmi_registered) || in_nmi())
		return false;
	cpu = smp_processor_id();
	p = this_cpu_ptr(kprof_nmi_pcpu);
	if (mode == 2) {
		next = cpumask_next(cpu, cpu_online_mask);
		if (next >= nr_cpu_ids)
			next = cpumask_first(cpu_online_mask);
		if (next != cpu) {
			WRITE_ONCE(per_cpu_ptr(kprof_nmi_pcpu, next)->cross, 1);
			apic->send_IPI_mask(cpumask_of(next), NMI_VECTOR);
		}
	}
	WRITE_ONCE(p->regs, regs);
	apic->send_IPI_mask(cpumask_of(cpu), NMI_VECTOR);
	for (i = 0; i < KPROF_NMI_WAIT_LOOPS && READ_ONCE(p->regs); i++)
		cpu_relax();
	if (!xchg(&p->regs, NULL))
		return true;
	atomic64_inc(&kprof_nmi_missed);
	return false;
}

int kprof_nmi_test_init(void)
{
	int ret;

	kprof_nmi_pcpu = alloc_percpu(struct kprof_nmi_test_pcpu);
	if (!kprof_nmi_pcpu)
		return -ENOMEM;
	ret = register_nmi_handler(NMI_LOCAL, kprof_nmi_handler, 0,
				   "kprofmod_test");
	if (ret) {
		free_percpu(kprof_nmi_pcpu);
		kprof_nmi_pcpu = NULL;
		return ret;
	}
	WRITE_ONCE(kprof_nmi_registered, true);
	pr_info("test build: cpu-clock samples are taken in NMI (test_nmi=%u)\n",
		kprof_test_nmi);
	return 0;
}

/* After sampling stopped: no overflow handler sends an NMI any more. */
void kprof_nmi_test_exit(void)
{
	if (!kprof_nmi_pcpu)
		return;
	WRITE_ONCE(kprof_nmi_registered, false);
	/* waits for a handler in progress on any CPU */
	unregister_nmi_handler(NMI_LOCAL, "kprofmod_test");
	free_percpu(kprof_nmi_pcpu);
	kprof_nmi_pcpu = NULL;
}
