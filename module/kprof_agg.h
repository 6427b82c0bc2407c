/* SPDX-License-Identifier: GPL-2.0 */
/* kprof_agg.c: per-CPU, double-buffered interval tables. */
#define KPROF_HEADER_UNIT KPROF_UNIT_AGG
#include "kprof_layer.h"

#ifndef _KPROF_AGG_H
#define _KPROF_AGG_H

#include <linux/types.h>
#include <linux/kprof.h>

struct task_struct;

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

int kprof_agg_init(void);
void kprof_agg_exit(void);
u32 kprof_agg_tcp_add(const struct kprof_tcp_key *key, u64 lat_ns, u32 hint,
		      bool after_retransmit);
void kprof_agg_tcp_connect(const struct kprof_tcp_key *key, u64 lat_ns);
u32 kprof_agg_tcp_health(const struct kprof_tcp_key *key,
			 enum kprof_health what, u32 n, u32 hint);
void kprof_agg_count(enum kprof_counter c);
void kprof_agg_sample(const struct task_struct *t, u32 stack_id,
		      bool stack_dropped, u8 views);
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
