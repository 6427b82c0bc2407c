/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof_guard.c: the overhead guard.  Handlers bracket their work with
 * begin/end (a kind from KPROF_COST_*) and ask before optional work.
 */
#define KPROF_HEADER_UNIT KPROF_UNIT_GUARD
#include "kprof_layer.h"

#ifndef _KPROF_GUARD_H
#define _KPROF_GUARD_H

#include <linux/percpu.h>
#include <linux/types.h>
#include <linux/kprof.h>

/* The period of the guard's work item (kprof_ctl.c runs it). */
#define KPROF_GUARD_TICK_MS	250

u64 kprof_guard_timed_begin(void);
void kprof_guard_timed_end(unsigned int kind, u64 t0);

/*
 * Each CPU's handler calls by kind, written only by its handlers, and its
 * level (KPROF_GUARD_*), written only by the guard's work item and read
 * by the handlers inline; from alloc_percpu() at load, before any handler
 * can run, like all of the module's per-CPU data (the static per-CPU
 * area is every module's).
 */
struct kprof_guard_calls {
	u64 n[KPROF_COST_NR];
	unsigned int level;
};

extern struct kprof_guard_calls __percpu *kprof_guard_calls;

/*
 * Inline: every probe hit runs these, and an out-of-line pair cost more
 * than the count.  One call in KPROF_COST_SAMPLE_EVERY is timed (returns
 * its start, never 0); the others return 0 and end does nothing.
 */
static inline u64 kprof_guard_begin(unsigned int kind)
{
	if (this_cpu_inc_return(kprof_guard_calls->n[kind]) %
	    KPROF_COST_SAMPLE_EVERY)
		return 0;
	return kprof_guard_timed_begin();
}

static inline void kprof_guard_end(unsigned int kind, u64 t0)
{
	if (t0)
		kprof_guard_timed_end(kind, t0);
}

void kprof_guard_shed_stack(bool sampler);
void kprof_guard_shed_request(void);

/* Should this handler skip its stack walk?  Counts the skip. */
static inline bool kprof_guard_skip_stack(bool sampler)
{
	if (likely(this_cpu_read(kprof_guard_calls->level) <
		   KPROF_GUARD_NO_STACKS))
		return false;
	kprof_guard_shed_stack(sampler);
	return true;
}

/* Should a new request go untracked?  Probe context; counts the skip. */
static inline bool kprof_guard_skip_request(void)
{
	if (likely(this_cpu_read(kprof_guard_calls->level) <
		   KPROF_GUARD_NO_TCP))
		return false;
	kprof_guard_shed_request();
	return true;
}

/* Sample @cpu at the configured rate >> @shift from now on. */
typedef void (*kprof_guard_rate_fn_t)(unsigned int cpu, unsigned int shift);
bool kprof_guard_tick(kprof_guard_rate_fn_t rate);
void kprof_guard_rest(void);
void kprof_guard_stats(struct kprof_stats *st);
int kprof_guard_cpu_cost(struct kprof_cpu_cost *c);
int kprof_guard_init(void);
void kprof_guard_free(void);

#endif /* _KPROF_GUARD_H */
