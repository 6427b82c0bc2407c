// SPDX-License-Identifier: GPL-2.0
/*
 * The control operations behind the ioctls.  One mutex serialises them
 * all (start, stop, reset, configuration, snapshot, statistics); the
 * probe and overflow handlers never take it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "kprof.h"
#include "compat/kprof_compat_cgroup.h"
#include "compat/kprof_compat_compiler.h"

static DEFINE_MUTEX(kprof_ctl_lock);

static u32 kprof_running_mask(void)
{
	return (kprof_tcp_running() ? KPROF_RUN_TCP : 0) |
	       (kprof_sample_running() ? KPROF_RUN_CPU : 0);
}

u64 kprof_ctl_features(void)
{
	u64 f = KPROF_FEAT_USER_STACKS | KPROF_FEAT_KSYMS |
		KPROF_FEAT_CPU_SAMPLING;

	if (kprof_tcp_start_possible())
		f |= KPROF_FEAT_TCP_LATENCY;
	if (kprof_sample_hw())
		f |= KPROF_FEAT_HW_CYCLES;
	if (KPROF_HAVE_CGROUP)
		f |= KPROF_FEAT_CGROUP;
	return f | KPROF_FEAT_GUARD;
}

void kprof_ctl_info(struct kprof_info *info)
{
	mutex_lock(&kprof_ctl_lock);
	info->attach = kprof_tcp_attach();
	info->running = kprof_running_mask();
	mutex_unlock(&kprof_ctl_lock);
	info->features = kprof_ctl_features();
	info->mmap_size = kprof_export_size();
	info->tcp_rows_max = kprof_tcp_rows_max;
	info->stacks_max = kprof_stacks_max;
	info->inflight_max = kprof_inflight_max;
	info->endpoints = kprof_endpoints;
}

/*
 * All or nothing: on failure, stop only what this call started, so that
 * what ran before the call still runs.
 */
int kprof_ctl_start(u32 what)
{
	u32 before;
	int ret = 0;

	if (!what || what & ~KPROF_RUN_ALL)
		return -EINVAL;
	mutex_lock(&kprof_ctl_lock);
	before = kprof_running_mask();
	if (what & KPROF_RUN_TCP)
		ret = kprof_tcp_start();
	if (!ret && (what & KPROF_RUN_CPU))
		ret = kprof_sample_start();
	if (ret && !(before & KPROF_RUN_TCP))
		kprof_tcp_stop();
	mutex_unlock(&kprof_ctl_lock);
	if (!ret)
		kprof_guard_kick();
	return ret;
}

int kprof_ctl_stop(u32 what)
{
	if (!what || what & ~KPROF_RUN_ALL)
		return -EINVAL;
	mutex_lock(&kprof_ctl_lock);
	if (what & KPROF_RUN_CPU)
		kprof_sample_stop();
	if (what & KPROF_RUN_TCP)
		kprof_tcp_stop();
	mutex_unlock(&kprof_ctl_lock);
	return 0;
}

int kprof_ctl_reset(u32 what)
{
	int ret = 0;

	if (!what || what & ~(KPROF_RESET_INTERVAL | KPROF_RESET_STACKS))
		return -EINVAL;
	mutex_lock(&kprof_ctl_lock);
	if ((what & KPROF_RESET_STACKS) && kprof_running_mask()) {
		ret = -EBUSY;
		goto out;
	}
	kprof_agg_clear();
	if (what & KPROF_RESET_STACKS)
		kprof_stacks_reset();
out:
	mutex_unlock(&kprof_ctl_lock);
	return ret;
}

/*
 * All or nothing: check and copy the TCP part first, then change the rate
 * (the one step left that can fail; it restores the old rate when it
 * does), and only then install the TCP part, which cannot fail.
 */
int kprof_ctl_set_config(const struct kprof_config *cfg)
{
	struct kprof_config *n;
	int ret;

	if (cfg->sample_hz > KPROF_SAMPLE_HZ_MAX || cfg->reserved3)
		return -EINVAL;
	ret = kprof_tcp_prepare_config(cfg, &n);
	if (ret)
		return ret;
	mutex_lock(&kprof_ctl_lock);
	if (cfg->sample_hz)
		ret = kprof_sample_set_hz(cfg->sample_hz);
	if (ret)
		kfree(n);
	else
		kprof_tcp_set_config(n);
	mutex_unlock(&kprof_ctl_lock);
	return ret;
}

void kprof_ctl_get_config(struct kprof_config *cfg)
{
	mutex_lock(&kprof_ctl_lock);
	kprof_tcp_get_config(cfg);
	cfg->sample_hz = kprof_sample_hz();
	mutex_unlock(&kprof_ctl_lock);
}

int kprof_ctl_snapshot(u64 *generation)
{
	int ret;

	mutex_lock(&kprof_ctl_lock);
	ret = kprof_export_snapshot(generation);
	mutex_unlock(&kprof_ctl_lock);
	return ret;
}

void kprof_ctl_stats(struct kprof_stats *st)
{
	u64 c[KPROF_CNT_NR], sc[KPROF_SCNT_NR];

	mutex_lock(&kprof_ctl_lock);
	kprof_agg_totals(c, sc);
	st->inflight = kprof_tcp_inflight();
	st->inflight_dead = kprof_tcp_inflight_dead();
	st->requests = c[KPROF_CNT_REQUESTS];
	st->abandoned = c[KPROF_CNT_ABANDONED];
	st->drops_inflight = c[KPROF_CNT_DROPS_INFLIGHT];
	st->drops_rows = c[KPROF_CNT_DROPS_ROWS];
	st->drops_stacks = c[KPROF_CNT_DROPS_STACKS] +
			   sc[KPROF_SCNT_DROPS_STACKS];
	st->samples = sc[KPROF_SCNT_SAMPLES];
	st->samples_idle = sc[KPROF_SCNT_IDLE];
	st->drops_samples = sc[KPROF_SCNT_DROPS] + kprof_export_sample_drops();
	st->drops_export = kprof_export_drops();
	st->stacks = kprof_stacks_used();
	st->stack_resets = kprof_stacks_resets();
	st->snapshots = kprof_export_snapshots();
	mutex_unlock(&kprof_ctl_lock);
	kprof_guard_stats(st);
}

int kprof_ctl_cpu_cost(struct kprof_cpu_cost *c)
{
	int ret;

	mutex_lock(&kprof_ctl_lock);
	ret = kprof_guard_cpu_cost(c);
	mutex_unlock(&kprof_ctl_lock);
	return ret;
}

/* Is anything running?  Unlocked: for the guard's work item. */
bool kprof_ctl_running(void)
{
	/* a stale answer costs one more tick, or one tick early */
	return data_race(kprof_running_mask()) != 0;
}

/* The guard's rate change for one CPU, serialised with start and stop. */
void kprof_ctl_guard_rate(unsigned int cpu, unsigned int shift)
{
	mutex_lock(&kprof_ctl_lock);
	kprof_sample_set_shift(cpu, shift);
	mutex_unlock(&kprof_ctl_lock);
}

int kprof_ctl_get_stack(struct kprof_stack_query *q)
{
	struct kprof_stack_entry *e;
	int ret = 0;

	mutex_lock(&kprof_ctl_lock);
	e = kprof_stack_get(q->id);
	if (!e) {
		ret = -ENOENT;
		goto out;
	}
	kprof_stack_fill(e, q->id, &q->stack);
	memset(q->ksyms, 0, sizeof(q->ksyms));
	ret = kprof_stack_ksyms(e);
	if (!ret && e->ksyms) {
		memcpy(q->ksyms, e->ksyms, e->ksyms_len);
		q->stack.nr_kernel = e->nr_kernel;
	}
out:
	mutex_unlock(&kprof_ctl_lock);
	return ret;
}
