// SPDX-License-Identifier: GPL-2.0
/*
 * The overhead guard: the module measures the time its own handlers take
 * and sheds load when a CPU spends more than its budget in them.
 *
 * Measuring: every handler counts its calls per CPU and kind, and times
 * one call in KPROF_COST_SAMPLE_EVERY with local_clock() (NMI-safe, cheap,
 * monotonic on one CPU while preemption is off), adding that time times
 * KPROF_COST_SAMPLE_EVERY to its CPU's estimate.  A timed call counts at
 * most KPROF_COST_CLAMP times its kind's typical time on that CPU (a
 * moving average of what was counted): a call that spans an interrupt,
 * or a virtual CPU that its host did not run, says nothing about the
 * handler, and would otherwise count 64-fold.  A real change of cost
 * still shows: the typical time follows it within a few timed calls.
 * A kind's counters are written only by handlers that cannot nest on a
 * CPU (TCP's handlers do not nest, see kprof_tcp_enter(); the sampling
 * handler has a kind of its own), so plain per-CPU adds suffice.  A probe handler's time
 * includes a sample that interrupts it, so that sample is counted twice:
 * the estimate errs high.
 *
 * Deciding: a work item, four times a second while something runs, adds
 * up each CPU's estimate over the last second (four buckets) and compares
 * it with the budget.  Above it, the CPU goes one level up; below half of
 * it, one level down; after a step it waits a whole window, so that every
 * decision looks only at time spent at the current level.  The levels
 * (see the uapi header) are per CPU: the budget is per CPU, and a CPU
 * that handles a hot NIC queue should not blind the others.  Stack walks
 * and TCP tracking are decided in the handlers, which only read their
 * CPU's level; the sampling rate is a property of each CPU's perf event,
 * changed from here (process context, under the control lock), never
 * from a handler.  The work item is the control operations' (kprof_ctl.c),
 * which know what runs and own the lock: each tick calls
 * kprof_guard_tick(), with the function that changes a CPU's rate.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
#define KPROF_UNIT KPROF_UNIT_GUARD

#include <linux/cpumask.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/percpu.h>
#include <linux/string.h>
#include <linux/sched/clock.h>
#include <linux/ktime.h>

#include "kprof_config.h"
#include "kprof_guard.h"

#define KPROF_GUARD_BUCKETS	4	/* a window of one second */
#define KPROF_GUARD_PPM		1000000ULL
/* sampling rate at KPROF_GUARD_LOW_RATE: the configured rate >> this */
#define KPROF_GUARD_RATE_SHIFT	2
/* A timed call counts at most this many times its kind's typical time. */
#define KPROF_COST_CLAMP	8
/* The first timed call of a kind counts at most this long (ns). */
#define KPROF_COST_FIRST_MAX	(100 * NSEC_PER_USEC)

/* Written by this CPU's handlers (its level: kprof_guard_calls). */
struct kprof_guard_pcpu {
	u64 ns[KPROF_COST_NR];
	u64 shed_stacks[2];	/* [0] probes, [1] the sampling handler */
	u64 shed_requests;
	u32 typ_ns[KPROF_COST_NR];	/* typical timed call, 0: none yet */
};

/* The work item's own per-CPU state. */
struct kprof_guard_state {
	u64 last_ns;
	u64 bucket[KPROF_GUARD_BUCKETS];
	u32 load_ppm;
	u32 hold;		/* ticks to wait before the next step */
};

/* Per CPU, from alloc_percpu() (kprof_guard_init()). */
static struct kprof_guard_pcpu __percpu *kprof_guard_pcpu;
static struct kprof_guard_state __percpu *kprof_guard_state;

/* Work item only; read by the stats without a lock. */
static u64 kprof_guard_steps[3];
static u64 kprof_guard_recoveries;
static u64 kprof_guard_tick_ns[KPROF_GUARD_BUCKETS];
static unsigned int kprof_guard_idx;
static u64 kprof_guard_last_tick;
static bool kprof_guard_idle = true;	/* the work was not queued */

/* ---- the handlers' side: any context, never sleeps ---- */

struct kprof_guard_calls __percpu *kprof_guard_calls;

/* kprof_guard_begin()'s timed call: its start. */
u64 notrace kprof_guard_timed_begin(void)
{
	return local_clock() ?: 1;
}

void notrace kprof_guard_timed_end(unsigned int kind, u64 t0)
{
	struct kprof_guard_pcpu *g;
	u64 now, d;
	u32 typ;

	now = local_clock();
	if (now <= t0)
		return;
	g = this_cpu_ptr(kprof_guard_pcpu);
	d = now - t0;
	typ = READ_ONCE(g->typ_ns[kind]);
	if (typ)
		d = min_t(u64, d, (u64)typ * KPROF_COST_CLAMP);
	else
		d = min_t(u64, d, KPROF_COST_FIRST_MAX);
	/* a moving average of weight 1/8; at most 1.875 times per call */
	typ = typ ? typ - (typ >> 3) + (u32)(d >> 3) : (u32)d;
	WRITE_ONCE(g->typ_ns[kind], max_t(u32, typ, 1));
	WRITE_ONCE(g->ns[kind], g->ns[kind] + d * KPROF_COST_SAMPLE_EVERY);
}

/* kprof_guard_skip_stack() said skip: count it. */
void notrace kprof_guard_shed_stack(bool sampler)
{
	struct kprof_guard_pcpu *g = this_cpu_ptr(kprof_guard_pcpu);

	WRITE_ONCE(g->shed_stacks[sampler], g->shed_stacks[sampler] + 1);
}

/* kprof_guard_skip_request() said skip: count it. */
void notrace kprof_guard_shed_request(void)
{
	struct kprof_guard_pcpu *g = this_cpu_ptr(kprof_guard_pcpu);

	WRITE_ONCE(g->shed_requests, g->shed_requests + 1);
}

/* ---- deciding: the work item ---- */

static u64 kprof_guard_cpu_ns(unsigned int cpu)
{
	const struct kprof_guard_pcpu *g = per_cpu_ptr(kprof_guard_pcpu, cpu);
	u64 sum = 0;
	int k;

	for (k = 0; k < KPROF_COST_NR; k++)
		sum += READ_ONCE(g->ns[k]);
	return sum;
}

static void kprof_guard_set_level(unsigned int cpu, unsigned int level,
				  kprof_guard_rate_fn_t rate)
{
	struct kprof_guard_calls *c = per_cpu_ptr(kprof_guard_calls, cpu);
	bool was_low = c->level >= KPROF_GUARD_LOW_RATE;
	bool low = level >= KPROF_GUARD_LOW_RATE;

	WRITE_ONCE(c->level, level);
	if (was_low != low)
		rate(cpu, low ? KPROF_GUARD_RATE_SHIFT : 0);
}

static bool kprof_guard_cpu(unsigned int cpu, u64 window_ns, u32 budget,
			    kprof_guard_rate_fn_t rate)
{
	struct kprof_guard_state *s = per_cpu_ptr(kprof_guard_state, cpu);
	unsigned int level = per_cpu_ptr(kprof_guard_calls, cpu)->level;
	u64 total = kprof_guard_cpu_ns(cpu), win = 0, load;
	int b;

	s->bucket[kprof_guard_idx] = total - s->last_ns;
	s->last_ns = total;
	for (b = 0; b < KPROF_GUARD_BUCKETS; b++)
		win += s->bucket[b];
	load = window_ns ? div64_u64(win * KPROF_GUARD_PPM, window_ns) : 0;
	s->load_ppm = min_t(u64, load, U32_MAX);

	if (!budget) {
		s->hold = 0;
		kprof_guard_set_level(cpu, KPROF_GUARD_NONE, rate);
		return false;
	}
	if (s->hold) {
		s->hold--;
	} else if (load > budget && level < KPROF_GUARD_NO_TCP) {
		kprof_guard_set_level(cpu, level + 1, rate);
		/* the level first: see kprof_guard_stats() */
		smp_wmb();
		WRITE_ONCE(kprof_guard_steps[level], kprof_guard_steps[level] + 1);
		s->hold = KPROF_GUARD_BUCKETS;
	} else if (load < budget / 2 && level > KPROF_GUARD_NONE) {
		kprof_guard_set_level(cpu, level - 1, rate);
		smp_wmb();	/* the level first, as above */
		WRITE_ONCE(kprof_guard_recoveries, kprof_guard_recoveries + 1);
		s->hold = KPROF_GUARD_BUCKETS;
	}
	return per_cpu_ptr(kprof_guard_calls, cpu)->level != KPROF_GUARD_NONE;
}

/*
 * One tick of the work item: decide every CPU's level, @rate changing the
 * sampling rate of those that cross KPROF_GUARD_LOW_RATE.  True while the
 * guard needs ticks whatever runs: its first tick after a rest, or a CPU
 * still shedding.  Otherwise the caller calls kprof_guard_rest() when
 * nothing runs any more.
 */
bool kprof_guard_tick(kprof_guard_rate_fn_t rate)
{
	u32 budget = READ_ONCE(kprof_budget_ppm);
	u64 now = ktime_get_ns(), window_ns = 0;
	bool shedding = false;
	unsigned int cpu;
	int b;

	if (kprof_guard_idle) {
		/* a new start: forget the time nothing ran */
		kprof_guard_idle = false;
		kprof_guard_last_tick = now;
		memset(kprof_guard_tick_ns, 0, sizeof(kprof_guard_tick_ns));
		for_each_possible_cpu(cpu) {
			struct kprof_guard_state *s =
				per_cpu_ptr(kprof_guard_state, cpu);

			memset(s->bucket, 0, sizeof(s->bucket));
			s->last_ns = kprof_guard_cpu_ns(cpu);
			s->load_ppm = 0;
		}
		return true;
	}
	kprof_guard_tick_ns[kprof_guard_idx] = now - kprof_guard_last_tick;
	kprof_guard_last_tick = now;
	for (b = 0; b < KPROF_GUARD_BUCKETS; b++)
		window_ns += kprof_guard_tick_ns[b];
	for_each_possible_cpu(cpu)
		shedding |= kprof_guard_cpu(cpu, window_ns, budget, rate);
	kprof_guard_idx = (kprof_guard_idx + 1) % KPROF_GUARD_BUCKETS;
	return shedding;
}

/* Nothing runs: no handler load until the next start (the next tick). */
void kprof_guard_rest(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		per_cpu_ptr(kprof_guard_state, cpu)->load_ppm = 0;
	kprof_guard_idle = true;
}

/* ---- reporting ---- */

void kprof_guard_stats(struct kprof_stats *st)
{
	unsigned int cpu;
	int k;

	/*
	 * The counts of steps before the levels, which the guard writes
	 * first: a reader that sees a step sees its level (or a later
	 * one), never a step to level 3 beside level 2 everywhere.
	 */
	for (k = 0; k < ARRAY_SIZE(kprof_guard_steps); k++)
		st->guard_steps[k] = READ_ONCE(kprof_guard_steps[k]);
	st->guard_recoveries = READ_ONCE(kprof_guard_recoveries);
	smp_rmb();	/* pairs with the guard's smp_wmb() */
	for_each_possible_cpu(cpu) {
		const struct kprof_guard_pcpu *g =
			per_cpu_ptr(kprof_guard_pcpu, cpu);
		u32 load = READ_ONCE(per_cpu_ptr(kprof_guard_state, cpu)->load_ppm);
		unsigned int level =
			READ_ONCE(per_cpu_ptr(kprof_guard_calls, cpu)->level);

		for (k = 0; k < KPROF_COST_NR; k++) {
			st->cost_ns[k] += READ_ONCE(g->ns[k]);
			st->cost_calls[k] +=
				READ_ONCE(per_cpu_ptr(kprof_guard_calls, cpu)->n[k]);
		}
		st->shed_stacks += READ_ONCE(g->shed_stacks[0]) +
				   READ_ONCE(g->shed_stacks[1]);
		st->shed_requests += READ_ONCE(g->shed_requests);
		st->guard_level = max(st->guard_level, level);
		st->guard_cpus += level != KPROF_GUARD_NONE;
		st->load_ppm = max(st->load_ppm, load);
	}
	st->budget_ppm = READ_ONCE(kprof_budget_ppm);
}

/* The guard's part of @c (the caller adds the sampler's): checks @c first. */
int kprof_guard_cpu_cost(struct kprof_cpu_cost *c)
{
	const struct kprof_guard_pcpu *g;
	unsigned int cpu = c->cpu;
	int k;

	if (c->level || c->load_ppm || c->sample_hz || c->online ||
	    c->unsampled || c->reserved0 ||
	    memchr_inv(c->cost_ns, 0, sizeof(c->cost_ns)) ||
	    memchr_inv(c->cost_calls, 0, sizeof(c->cost_calls)) ||
	    memchr_inv(c->reserved, 0, sizeof(c->reserved)))
		return -EINVAL;
	if (cpu >= nr_cpu_ids)
		return -EINVAL;
	if (!cpu_possible(cpu))
		return -ENODEV;
	g = per_cpu_ptr(kprof_guard_pcpu, cpu);
	c->level = READ_ONCE(per_cpu_ptr(kprof_guard_calls, cpu)->level);
	c->load_ppm = READ_ONCE(per_cpu_ptr(kprof_guard_state, cpu)->load_ppm);
	c->online = cpu_online(cpu);
	for (k = 0; k < KPROF_COST_NR; k++) {
		c->cost_ns[k] = READ_ONCE(g->ns[k]);
		c->cost_calls[k] =
			READ_ONCE(per_cpu_ptr(kprof_guard_calls, cpu)->n[k]);
	}
	return 0;
}

/* At load, before any handler can run. */
int kprof_guard_init(void)
{
	kprof_guard_pcpu = alloc_percpu(struct kprof_guard_pcpu);
	kprof_guard_state = alloc_percpu(struct kprof_guard_state);
	kprof_guard_calls = alloc_percpu(struct kprof_guard_calls);
	if (kprof_guard_pcpu && kprof_guard_state && kprof_guard_calls)
		return 0;
	kprof_guard_free();
	return -ENOMEM;
}

/* After every handler is gone (kprof_tcp_exit(), kprof_sample_exit()). */
void kprof_guard_free(void)
{
	free_percpu(kprof_guard_pcpu);
	free_percpu(kprof_guard_state);
	free_percpu(kprof_guard_calls);
	kprof_guard_pcpu = NULL;
	kprof_guard_state = NULL;
	kprof_guard_calls = NULL;
}
