// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU interval tables.
 *
 * Each CPU owns two preallocated interval tables; handlers write only the
 * current CPU's table of the current epoch, with no lock and no atomic: a
 * handler runs with preemption off and TCP's handlers never nest on a
 * CPU (kprof_tcp_enter()).  The sampling handler, which may interrupt a
 * TCP handler, has rows and counters of its own.  Closing an interval
 * flips the epoch and waits for every handler that may still see the
 * old one (an RCU-sched grace period), after which
 * the old tables are quiescent and can be read and cleared.  So no
 * request is lost or counted twice across the boundary.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
#define KPROF_UNIT KPROF_UNIT_AGG

#include <linux/bitops.h>
#include <linux/cpumask.h>
#include <linux/hash.h>
#include <linux/kernel.h>
#include <linux/random.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "kprof_agg.h"
#include "kprof_config.h"
#define KPROF_ROW_INLINE	__always_inline
#include "kprof_row.h"
#include "compat/kprof_compat_mm.h"
#include "compat/kprof_compat_rcu.h"

struct kprof_cpu __percpu *kprof_cpus;
unsigned int kprof_epoch;
/* Counters of closed intervals, under the caller's serialisation. */
static u64 kprof_closed_totals[KPROF_CNT_NR];
static u64 kprof_closed_stotals[KPROF_SCNT_NR];

void notrace kprof_agg_count(enum kprof_counter c)
{
	kprof_cur_interval()->counters[c]++;
}

/* Drawn at load: where a remote endpoint's rows land is not known outside. */
static u32 kprof_row_seed[KPROF_ROW_SEEDS] __ro_after_init;

/* @key's row of kprof_tcp_cpu_rows (kprof_row.h): scaled, not divided. */
static __always_inline u32 kprof_tcp_row(const struct kprof_tcp_key *key)
{
	return reciprocal_scale(kprof_row_hash(kprof_row_seed, key->stack_id,
					       key->family, key->rport,
					       key->raddr, key->role,
					       key->views),
				kprof_tcp_cpu_rows);
}

/*
 * The slot of @key's row in @iv, added if need be, or U32_MAX when its
 * probe sequence is full (counted).  @hint as for kprof_agg_tcp_add().
 * Inlined: it is most of a request's accounting.
 */
static __always_inline u32 kprof_tcp_slot_of(struct kprof_interval *iv,
					     const struct kprof_tcp_key *key,
					     u32 hint)
{
	struct kprof_tcp_slot *s;
	u32 slot, i;

	if (hint < kprof_tcp_cpu_rows) {
		s = &iv->rows[hint];
		if (s->key.family && !memcmp(&s->key, key, sizeof(*key)))
			return hint;
	}
	slot = kprof_tcp_row(key);
	for (i = 0; i < KPROF_ROW_PROBES && i < kprof_tcp_cpu_rows; i++) {
		s = &iv->rows[slot];
		if (!s->key.family) {
			s->key = *key;
			s->min_ns = U64_MAX;
			iv->used[iv->nr_used++] = slot;
			return slot;
		}
		if (!memcmp(&s->key, key, sizeof(*key)))
			return slot;
		if (++slot == kprof_tcp_cpu_rows)
			slot = 0;
	}
	iv->counters[KPROF_CNT_DROPS_ROWS]++;
	return U32_MAX;
}

/* One more time of @lat_ns in @s: count, sum, extremes, histogram. */
static __always_inline void kprof_tcp_slot_time(struct kprof_tcp_slot *s,
						u64 lat_ns)
{
	s->count++;
	s->sum_ns += lat_ns;
	if (lat_ns < s->min_ns)
		s->min_ns = lat_ns;
	if (lat_ns > s->max_ns)
		s->max_ns = lat_ns;
	s->hist[kprof_hist_bucket(lat_ns)]++;
}

/*
 * Count a request of @key that took @lat_ns in this CPU's open interval.
 * @hint: where the caller last found a row of this key, on whichever CPU
 * and in whichever interval.  A key has at most one row in a table (rows
 * are only added, at the first free slot of the key's probe sequence),
 * so if that slot holds @key here it is @key's row, and the hash and the
 * probing are skipped: a connection's requests mostly keep the same key
 * (not when a stack or the views differ; the hint then misses).
 * @after_retransmit: a segment of the socket was retransmitted while the
 * request was in flight.
 * Returns the row's slot, the next call's hint, or U32_MAX for none.
 */
u32 notrace kprof_agg_tcp_add(const struct kprof_tcp_key *key, u64 lat_ns,
			      u32 hint, bool after_retransmit)
{
	struct kprof_interval *iv = kprof_cur_interval();
	u32 slot = kprof_tcp_slot_of(iv, key, hint);
	struct kprof_tcp_slot *s;

	if (slot == U32_MAX)
		return U32_MAX;
	s = &iv->rows[slot];
	if (unlikely(after_retransmit))
		s->health[KPROF_HEALTH_AFTER_RETRANSMIT]++;
	kprof_tcp_slot_time(s, lat_ns);
	iv->counters[KPROF_CNT_REQUESTS]++;
	return slot;
}

/*
 * Count a connect of @key (role KPROF_ROLE_CONNECT) that took @lat_ns:
 * a row's times, not a request.
 */
void notrace kprof_agg_tcp_connect(const struct kprof_tcp_key *key,
				   u64 lat_ns)
{
	struct kprof_interval *iv = kprof_cur_interval();
	u32 slot = kprof_tcp_slot_of(iv, key, U32_MAX);

	if (slot != U32_MAX)
		kprof_tcp_slot_time(&iv->rows[slot], lat_ns);
}

/*
 * Count @n events @what of @key's endpoint in this CPU's open interval,
 * from TCP's handlers (which never nest on a CPU).  @hint and the return
 * as for kprof_agg_tcp_add().
 */
u32 notrace kprof_agg_tcp_health(const struct kprof_tcp_key *key,
				 enum kprof_health what, u32 n, u32 hint)
{
	struct kprof_interval *iv = kprof_cur_interval();
	u32 slot = kprof_tcp_slot_of(iv, key, hint);

	if (slot != U32_MAX)
		iv->rows[slot].health[what] += n;
	return slot;
}

/* Make the other table current and wait until no handler uses the old. */
void kprof_agg_close_interval(void)
{
	WRITE_ONCE(kprof_epoch, kprof_epoch + 1);
	kprof_wait_handlers();
}

/*
 * A used slot back to free: its header and the buckets between its min
 * and max, the only ones its requests can have counted in (the index is
 * monotonic), rather than all 1.2 KiB of it.
 */
static void kprof_slot_clear(struct kprof_tcp_slot *s)
{
	unsigned int lo = kprof_hist_bucket(s->min_ns);
	unsigned int hi = kprof_hist_bucket(s->max_ns);

	/* a slot of health counts alone (count 0) has no bucket to clear */
	if (lo <= hi)
		memset(&s->hist[lo], 0, (hi - lo + 1) * sizeof(s->hist[0]));
	else if (s->count)
		memset(s->hist, 0, sizeof(s->hist));
	memset(s, 0, offsetof(struct kprof_tcp_slot, hist));
}

static void kprof_interval_clear(struct kprof_interval *iv)
{
	u32 i;

	for (i = 0; i < iv->nr_used; i++)
		kprof_slot_clear(&iv->rows[iv->used[i]]);
	iv->nr_used = 0;
	memset(iv->counters, 0, sizeof(iv->counters));
	for (i = 0; i < iv->nr_sused; i++)
		memset(&iv->srows[iv->sused[i]], 0, sizeof(*iv->srows));
	iv->nr_sused = 0;
	memset(iv->scounters, 0, sizeof(iv->scounters));
}

/*
 * Hand every row of the interval closed last to @fn (TCP) and @cpu_fn
 * (samples), leaving it as it is.  Only after kprof_agg_close_interval().
 */
void kprof_agg_visit_closed(kprof_row_fn_t fn, kprof_cpu_row_fn_t cpu_fn,
			    void *arg)
{
	unsigned int old = (kprof_epoch - 1) & 1;
	int cpu;
	u32 i;

	for_each_possible_cpu(cpu) {
		struct kprof_interval *iv = &per_cpu_ptr(kprof_cpus, cpu)->iv[old];

		for (i = 0; fn && i < iv->nr_used; i++)
			fn(&iv->rows[iv->used[i]], arg);
		for (i = 0; cpu_fn && i < iv->nr_sused; i++)
			cpu_fn(&iv->srows[iv->sused[i]], arg);
	}
}

/*
 * kprof_agg_visit_closed(), then add the interval's counters to
 * @counters and @scounters and clear it.
 */
void kprof_agg_drain_closed(kprof_row_fn_t fn, kprof_cpu_row_fn_t cpu_fn,
			    void *arg, u64 *counters, u64 *scounters)
{
	unsigned int old = (kprof_epoch - 1) & 1;
	int cpu, c;

	kprof_agg_visit_closed(fn, cpu_fn, arg);
	for_each_possible_cpu(cpu) {
		struct kprof_interval *iv = &per_cpu_ptr(kprof_cpus, cpu)->iv[old];

		for (c = 0; c < KPROF_CNT_NR; c++) {
			counters[c] += iv->counters[c];
			kprof_closed_totals[c] += iv->counters[c];
		}
		for (c = 0; c < KPROF_SCNT_NR; c++) {
			scounters[c] += iv->scounters[c];
			kprof_closed_stotals[c] += iv->scounters[c];
		}
		kprof_interval_clear(iv);
	}
}

/* Forget both intervals (counters stay in the totals). */
void kprof_agg_clear(void)
{
	u64 ignored[KPROF_CNT_NR], signored[KPROF_SCNT_NR];
	int i;

	for (i = 0; i < 2; i++) {
		kprof_agg_close_interval();
		kprof_agg_drain_closed(NULL, NULL, NULL, ignored, signored);
	}
}

/* Counters since load: closed intervals plus a racy read of open ones. */
void kprof_agg_totals(u64 *counters, u64 *scounters)
{
	unsigned int cur = READ_ONCE(kprof_epoch) & 1;
	int cpu, c;

	for (c = 0; c < KPROF_CNT_NR; c++)
		counters[c] = kprof_closed_totals[c];
	for (c = 0; c < KPROF_SCNT_NR; c++)
		scounters[c] = kprof_closed_stotals[c];
	for_each_possible_cpu(cpu) {
		struct kprof_interval *iv = &per_cpu_ptr(kprof_cpus, cpu)->iv[cur];

		for (c = 0; c < KPROF_CNT_NR; c++)
			counters[c] += READ_ONCE(iv->counters[c]);
		for (c = 0; c < KPROF_SCNT_NR; c++)
			scounters[c] += READ_ONCE(iv->scounters[c]);
	}
}

int kprof_agg_init(void)
{
	int cpu, i;

	/* kprof_sample_key() builds the key as the slot's union reads it */
	BUILD_BUG_ON(IS_ENABLED(CONFIG_CPU_BIG_ENDIAN) ||
		     offsetof(struct kprof_cpu_slot, key) !=
		     offsetof(struct kprof_cpu_slot, stack_id) ||
		     offsetof(struct kprof_cpu_slot, tgid) !=
		     offsetof(struct kprof_cpu_slot, stack_id) + 4);
	for (i = 0; i < ARRAY_SIZE(kprof_row_seed); i++)
		kprof_row_seed[i] = get_random_u32();
	kprof_row_seed[KPROF_ROW_SEEDS - 1] |= 1;	/* the zero lane's factor */
	kprof_cpus = alloc_percpu(struct kprof_cpu);
	if (!kprof_cpus)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		for (i = 0; i < 2; i++) {
			struct kprof_interval *iv =
				&per_cpu_ptr(kprof_cpus, cpu)->iv[i];

			iv->rows = vzalloc_node(array_size(kprof_tcp_cpu_rows,
							   sizeof(*iv->rows)),
						cpu_to_node(cpu));
			iv->used = vmalloc_node(array_size(kprof_tcp_cpu_rows,
							   sizeof(*iv->used)),
						cpu_to_node(cpu));
			iv->srows = vzalloc_node(array_size(kprof_cpu_samples,
							    sizeof(*iv->srows)),
						 cpu_to_node(cpu));
			iv->sused = vmalloc_node(array_size(kprof_cpu_samples,
							    sizeof(*iv->sused)),
						 cpu_to_node(cpu));
			if (!iv->rows || !iv->used || !iv->srows || !iv->sused) {
				kprof_agg_exit();
				return -ENOMEM;
			}
		}
	}
	return 0;
}

void kprof_agg_exit(void)
{
	int cpu, i;

	if (!kprof_cpus)
		return;
	for_each_possible_cpu(cpu) {
		for (i = 0; i < 2; i++) {
			struct kprof_interval *iv =
				&per_cpu_ptr(kprof_cpus, cpu)->iv[i];

			vfree(iv->rows);
			vfree(iv->used);
			vfree(iv->srows);
			vfree(iv->sused);
		}
	}
	free_percpu(kprof_cpus);
	kprof_cpus = NULL;
}
