/* SPDX-License-Identifier: GPL-2.0 */
/* kprof_agg.c: per-CPU, double-buffered interval tables. */
#define KPROF_HEADER_UNIT KPROF_UNIT_AGG
#include "kprof_layer.h"

#ifndef _KPROF_AGG_H
#define _KPROF_AGG_H

#include <linux/hash.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/types.h>
#include <linux/kprof.h>

#include "kprof_config.h"

struct kprof_tcp_key {
	u32 stack_id;
	u16 family;
	u16 rport;
	u8 raddr[16];
	u8 role;
	u8 views;	/* bit N - 1: passed view N's filters */
	u8 pad[2];
};

enum kprof_counter {
	KPROF_CNT_REQUESTS,
	KPROF_CNT_ABANDONED,
	KPROF_CNT_DROPS_INFLIGHT,
	KPROF_CNT_DROPS_ROWS,
	KPROF_CNT_DROPS_STACKS,
	KPROF_CNT_NR
};

/* Counters only the sampling handler writes (it may interrupt probes). */
enum kprof_sample_counter {
	KPROF_SCNT_SAMPLES,
	KPROF_SCNT_IDLE,
	KPROF_SCNT_DROPS,
	KPROF_SCNT_DROPS_STACKS,
	KPROF_SCNT_NR
};

struct kprof_cpu_slot {
	union {
		struct {
			u32 stack_id;
			u32 tgid;
		};
		u64 key;	/* both at once, for the probe's compare */
	};
	u64 samples;
	char comm[16];
	u8 views;	/* bit N - 1: the task is in view N's process, cgroup */
};

/* An endpoint's TCP health: struct kprof_tcp_row's counters, in order. */
enum kprof_health {
	KPROF_HEALTH_RETRANSMITS,
	KPROF_HEALTH_RETRANSMITS_RTO,
	KPROF_HEALTH_RESETS_SENT,
	KPROF_HEALTH_RESETS_RECEIVED,
	KPROF_HEALTH_AFTER_RETRANSMIT,
	KPROF_HEALTH_CONNECTS_REFUSED,	/* on KPROF_ROLE_CONNECT rows */
	KPROF_HEALTH_CONNECTS_TIMEDOUT,
	KPROF_HEALTH_CONNECTS_FAILED,
	KPROF_HEALTH_NR
};

/* A slot is free while its key's family is 0 (a row may have count 0). */
struct kprof_tcp_slot {
	struct kprof_tcp_key key;
	u64 count;
	u64 sum_ns;
	u64 min_ns;
	u64 max_ns;
	u64 health[KPROF_HEALTH_NR];
	u32 hist[KPROF_HIST_BUCKETS];
};

#define KPROF_ROW_PROBES	32

/*
 * A CPU's tables for one interval, two per CPU (kprof_epoch picks the
 * current one).  Here rather than in kprof_agg.c only for
 * kprof_agg_sample(), which the sampler inlines: nothing else outside
 * kprof_agg.c touches them.
 */
struct kprof_interval {
	struct kprof_tcp_slot *rows;	/* open addressing, count 0 = free */
	u32 *used;			/* indices of used rows */
	u32 nr_used;
	u64 counters[KPROF_CNT_NR];
	/* written by the sampling handler only */
	struct kprof_cpu_slot *srows;	/* open addressing, samples 0 = free */
	u32 *sused;
	u32 nr_sused;
	u64 scounters[KPROF_SCNT_NR];
};

struct kprof_cpu {
	struct kprof_interval iv[2];
};

extern struct kprof_cpu __percpu *kprof_cpus;
extern unsigned int kprof_epoch;

static __always_inline struct kprof_interval *kprof_cur_interval(void)
{
	return &this_cpu_ptr(kprof_cpus)->iv[READ_ONCE(kprof_epoch) & 1];
}

/* A slot's key (stack_id, tgid) as its union reads it. */
static __always_inline u64 kprof_sample_key(u32 stack_id, u32 tgid)
{
	return (u64)tgid << 32 | stack_id;
}

/* A sample row's home slot: one multiply (hash_64()), not jhash() */
static __always_inline u32 kprof_sample_hash(u64 key, u8 views)
{
	return hash_64(key ^ ((u64)views << 56), 32);
}

/*
 * One sample of @t, whose stack is @stack_id (@stack_dropped: it could
 * not be stored); the idle task's is counted apart.  Every count of one
 * sample goes to one interval: a snapshot between two of them would make
 * an interval's samples differ from its idle, rows and drops.  Inline:
 * the perf overflow handler's, once per sample.
 */
static __always_inline void kprof_agg_sample(const struct task_struct *t,
					     u32 stack_id, bool stack_dropped,
					     u8 views)
{
	struct kprof_interval *iv = kprof_cur_interval();
	u32 slot, i, n = kprof_cpu_samples;
	struct kprof_cpu_slot *s;
	u64 key;

	iv->scounters[KPROF_SCNT_SAMPLES]++;
	if (is_idle_task(t)) {
		iv->scounters[KPROF_SCNT_IDLE]++;
		return;
	}
	if (stack_dropped)
		iv->scounters[KPROF_SCNT_DROPS_STACKS]++;
	/* never 0 as a free slot's: tgid 0 is the idle task's */
	key = kprof_sample_key(stack_id, t->tgid);
	slot = kprof_sample_hash(key, views) % n;
	for (i = 0; i < KPROF_ROW_PROBES && i < n; i++) {
		s = &iv->srows[slot];
		if (s->key == key && s->views == views)
			goto add;
		if (!s->samples) {
			s->key = key;
			s->views = views;
			memcpy(s->comm, t->comm, sizeof(s->comm));
			iv->sused[iv->nr_sused++] = slot;
			goto add;
		}
		if (++slot == n)
			slot = 0;
	}
	iv->scounters[KPROF_SCNT_DROPS]++;
	return;
add:
	s->samples++;
}

int kprof_agg_init(void);
void kprof_agg_exit(void);
u32 kprof_agg_tcp_add(const struct kprof_tcp_key *key, u64 lat_ns, u32 hint,
		      bool after_retransmit);
void kprof_agg_tcp_connect(const struct kprof_tcp_key *key, u64 lat_ns);
u32 kprof_agg_tcp_health(const struct kprof_tcp_key *key,
			 enum kprof_health what, u32 n, u32 hint);
void kprof_agg_count(enum kprof_counter c);
/* Snapshot side, serialised by the caller. */
typedef void (*kprof_row_fn_t)(const struct kprof_tcp_slot *s, void *arg);
typedef void (*kprof_cpu_row_fn_t)(const struct kprof_cpu_slot *s, void *arg);
void kprof_agg_close_interval(void);
void kprof_agg_visit_closed(kprof_row_fn_t fn, kprof_cpu_row_fn_t cpu_fn,
			    void *arg);
void kprof_agg_drain_closed(kprof_row_fn_t fn, kprof_cpu_row_fn_t cpu_fn,
			    void *arg, u64 *counters, u64 *scounters);
void kprof_agg_clear(void);
void kprof_agg_totals(u64 *counters, u64 *scounters);

#endif /* _KPROF_AGG_H */
