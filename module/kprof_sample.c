// SPDX-License-Identifier: GPL-2.0
/*
 * CPU stack sampling: one in-kernel perf event per online CPU, on cycles
 * where a PMU can count them and on cpu-clock otherwise (a VM without a
 * PMU).  The overflow handler runs in NMI (cycles) or hardirq (cpu-clock)
 * context: it captures the interrupted stacks into the stack table and
 * counts (stack ID, tgid) in the current CPU's interval table.  Idle
 * samples are counted apart.
 *
 * Events follow CPU hotplug through a dynamic cpuhp state that exists
 * only while sampling runs: its startup callback creates a CPU's event,
 * its teardown releases it, on start/stop as on online/offline.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
#define KPROF_UNIT KPROF_UNIT_SAMPLE

#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/err.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/sched.h>

#include "kprof_agg.h"
#include "kprof_config.h"
#include "kprof_guard.h"
#include "kprof_sample.h"
#include "kprof_stack.h"
#include "compat/kprof_compat_rcu.h"

static DEFINE_PER_CPU(struct perf_event *, kprof_events);
/* the guard's rate cut per CPU: the CPU samples at kprof_hz >> shift */
static DEFINE_PER_CPU(unsigned int, kprof_rate_shift);
static int kprof_cpuhp_state = -1;	/* >= 0 while sampling runs */
static long kprof_start_err;		/* last event creation error */
static u32 kprof_hz = 99;
static bool kprof_use_hw;

/*
 * One sample of the interrupted context @regs: hardirq or NMI.  Inlined
 * into the overflow handler, which every sample goes through.
 */
static __always_inline void kprof_sample_one(struct pt_regs *regs)
{
	u64 t0 = kprof_guard_begin(KPROF_COST_SAMPLE);
	struct task_struct *t = current;
	int views = kprof_cfg_task_views();
	bool dropped = false;
	u32 id = 0;

	if (views < 0)
		goto out;
	if (!is_idle_task(t) && !kprof_guard_skip_stack(true)) {
		id = kprof_stack_capture_irq(regs);
		dropped = !id;
	}
	kprof_agg_sample(t, id, dropped, views);
out:
	kprof_guard_end(KPROF_COST_SAMPLE, t0);
}

#ifdef KPROF_TEST_NMI
/* kprof_nmi_test.c's samples, taken in NMI */
void notrace kprof_sample_regs(struct pt_regs *regs)
{
	kprof_sample_one(regs);
}
#endif

static void notrace kprof_overflow(struct perf_event *event,
				   struct perf_sample_data *data,
				   struct pt_regs *regs)
{
	if (!kprof_nmi_test_sample(regs))
		kprof_sample_one(regs);
}

u32 kprof_sample_cpu_hz(unsigned int cpu)
{
	return max(kprof_hz >> per_cpu(kprof_rate_shift, cpu), 1U);
}

static struct perf_event *kprof_event_create(unsigned int cpu, bool hw,
					     bool disabled)
{
	/*
	 * Never precise_ip: the user-stack walk trusts that a sample's
	 * registers are the interrupt's own (kprof_compat_uaccess.h).
	 */
	struct perf_event_attr attr = {
		.type = hw ? PERF_TYPE_HARDWARE : PERF_TYPE_SOFTWARE,
		.config = hw ? PERF_COUNT_HW_CPU_CYCLES :
			       PERF_COUNT_SW_CPU_CLOCK,
		.size = sizeof(attr),
		.freq = 1,
		.sample_freq = kprof_sample_cpu_hz(cpu),
		.pinned = 1,
		.disabled = disabled,
	};

	return perf_event_create_kernel_counter(&attr, cpu, NULL,
						kprof_overflow, NULL);
}

/*
 * Never fails: a CPU whose event cannot be created comes online anyway,
 * unsampled; kprof_sample_cpu_unsampled() reports it and the log says
 * why.  Blocking CPU hotplug is not a profiler's call to make.
 */
static int kprof_cpu_online(unsigned int cpu)
{
	struct perf_event *ev = kprof_event_create(cpu, kprof_use_hw, false);

	/* a CPU whose counters are all taken still has cpu-clock */
	if (IS_ERR(ev) && kprof_use_hw)
		ev = kprof_event_create(cpu, false, false);
	if (IS_ERR(ev)) {
		pr_warn_ratelimited("CPU %u is online unsampled: no perf event (%ld)\n",
				    cpu, PTR_ERR(ev));
		WRITE_ONCE(kprof_start_err, PTR_ERR(ev));
		ev = NULL;
	}
	per_cpu(kprof_events, cpu) = ev;
	return 0;
}

static int kprof_cpu_offline(unsigned int cpu)
{
	struct perf_event *ev = per_cpu(kprof_events, cpu);

	per_cpu(kprof_events, cpu) = NULL;
	if (ev)
		perf_event_release_kernel(ev);
	return 0;
}

/*
 * Can this machine sample on cycles?  Try once on the current CPU, with
 * an event created disabled: it never counts, so no handler runs.
 */
static bool kprof_hw_usable(void)
{
	struct perf_event *ev;
	unsigned int cpu = get_cpu();

	put_cpu();
	ev = kprof_event_create(cpu, true, true);
	if (IS_ERR(ev))
		return false;
	perf_event_release_kernel(ev);
	return true;
}

bool kprof_sample_running(void)
{
	return kprof_cpuhp_state >= 0;
}

/* Sampling runs, @cpu is online, and it has no event. */
bool kprof_sample_cpu_unsampled(unsigned int cpu)
{
	return kprof_sample_running() && cpu_online(cpu) &&
	       !READ_ONCE(per_cpu(kprof_events, cpu));
}

bool kprof_sample_hw(void)
{
	return kprof_use_hw;
}

u32 kprof_sample_hz(void)
{
	return kprof_hz;
}

/* Start, stop and rate changes are serialised by the caller. */
int kprof_sample_start(void)
{
	int ret;

	unsigned int cpu;
	bool any = false;

	if (kprof_sample_running())
		return 0;
	WRITE_ONCE(kprof_start_err, -ENODEV);
	cpus_read_lock();
	ret = cpuhp_setup_state_cpuslocked(CPUHP_AP_ONLINE_DYN,
					   "kprofmod:sample",
					   kprof_cpu_online,
					   kprof_cpu_offline);
	if (ret < 0) {
		cpus_read_unlock();
		return ret;
	}
	kprof_cpuhp_state = ret;
	for_each_online_cpu(cpu)
		any |= !!per_cpu(kprof_events, cpu);
	cpus_read_unlock();
	/* some CPUs unsampled is reported; none sampled is an error */
	if (!any) {
		kprof_sample_stop();
		return READ_ONCE(kprof_start_err);
	}
	return 0;
}

void kprof_sample_stop(void)
{
	if (!kprof_sample_running())
		return;
	cpuhp_remove_state(kprof_cpuhp_state);
	kprof_cpuhp_state = -1;
	/* no overflow handler may still run on our tables */
	kprof_wait_handlers();
}

int kprof_sample_set_hz(u32 hz)
{
	u32 old = kprof_hz;
	int ret;

	if (!hz || hz > KPROF_SAMPLE_HZ_MAX)
		return -EINVAL;
	if (hz == kprof_hz)
		return 0;
	kprof_hz = hz;
	if (!kprof_sample_running())
		return 0;
	kprof_sample_stop();
	ret = kprof_sample_start();
	if (ret) {
		kprof_hz = old;
		if (kprof_sample_start())
			pr_warn("sampling stopped: cannot restart at %u Hz\n",
				old);
	}
	return ret;
}

/*
 * The guard's rate cut for one CPU: sample it at kprof_hz >> @shift from
 * now on.  A running event is replaced: the new one is created before the
 * old one goes, so the CPU is never left unsampled unless no event can be
 * created at all.  Process context; the caller serialises with start,
 * stop and rate changes, and holding the hotplug lock keeps the CPU's
 * event from coming or going meanwhile.
 */
void kprof_sample_set_shift(unsigned int cpu, unsigned int shift)
{
	struct perf_event *old, *ev;
	bool hw;

	cpus_read_lock();
	if (per_cpu(kprof_rate_shift, cpu) == shift)
		goto out;
	per_cpu(kprof_rate_shift, cpu) = shift;
	old = per_cpu(kprof_events, cpu);
	if (!kprof_sample_running() || !cpu_online(cpu) || !old)
		goto out;
	hw = old->attr.type == PERF_TYPE_HARDWARE;
	ev = kprof_event_create(cpu, hw, false);
	if (IS_ERR(ev)) {
		/* the old event may hold the only counter: free it first */
		per_cpu(kprof_events, cpu) = NULL;
		perf_event_release_kernel(old);
		old = NULL;
		ev = kprof_event_create(cpu, hw, false);
		if (IS_ERR(ev) && hw)
			ev = kprof_event_create(cpu, false, false);
	}
	if (IS_ERR(ev)) {
		pr_warn("cannot sample CPU %u at %u Hz: %ld\n", cpu,
			kprof_sample_cpu_hz(cpu), PTR_ERR(ev));
		ev = NULL;
	}
	per_cpu(kprof_events, cpu) = ev;
	if (old)
		perf_event_release_kernel(old);
out:
	cpus_read_unlock();
}

/* Decide once, at load, between cycles and cpu-clock. */
void kprof_sample_init(void)
{
	kprof_use_hw = kprof_hw_usable();
}

void kprof_sample_exit(void)
{
	kprof_sample_stop();
}
