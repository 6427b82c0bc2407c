/* SPDX-License-Identifier: GPL-2.0 */
/* kprofmod internal declarations shared between the module's files. */
#ifndef _KPROF_H
#define _KPROF_H

#include <linux/percpu.h>
#include <linux/types.h>
#include <linux/kprof.h>

/* Set by Kbuild from PACKAGE_VERSION in dkms.conf. */
#ifndef KPROF_MODULE_VERSION
#error "KPROF_MODULE_VERSION is not defined: build through Kbuild"
#endif

struct pt_regs;
struct file;
struct vm_area_struct;
struct task_struct;

/* kprof_main.c: module parameters, validated at load. */
extern unsigned int kprof_cpu_rows;
extern unsigned int kprof_tcp_rows_max;
extern unsigned int kprof_stacks_max;
extern unsigned int kprof_inflight_max;
extern unsigned int kprof_strings_kb;
extern unsigned int kprof_cpu_samples;
extern unsigned int kprof_sample_rows_max;
/* Writable while loaded; read with READ_ONCE(). */
extern unsigned int kprof_budget_ppm;
extern unsigned int kprof_endpoints;	/* KPROF_ENDPOINTS_* */

/* kprof_dev.c: the /dev/kprof misc device and its ioctl dispatch. */
int kprof_dev_init(void);
void kprof_dev_exit(void);

/* kprof_stack.c: stack capture and the deduplicating stack table. */
struct kprof_stack_entry {
	atomic_t state;		/* 0 empty, hash << 2 | 1 busy, | 2 ready */
	u32 tgid;
	u16 nr_kernel;
	u16 nr_user;
	/* user frames that may leave the module, once checked */
	u16 nr_user_ok;
	bool user_checked;
	char comm[16];
	unsigned long ips[KPROF_MAX_KERNEL_FRAMES + KPROF_MAX_USER_FRAMES];
	char *ksyms;		/* resolved kernel frames, under kprof_ctl */
	u32 ksyms_len;
};

int kprof_stacks_init(void);
void kprof_stacks_exit(void);
u32 kprof_stack_capture(struct pt_regs *regs, bool *dropped);
void kprof_stacks_reset(void);
u32 kprof_stacks_used(void);
u32 kprof_stacks_resets(void);
struct kprof_stack_entry *kprof_stack_get(u32 id);
int kprof_stack_ksyms(struct kprof_stack_entry *e);
int kprof_stack_prepare(struct kprof_stack_entry *e);
void kprof_stack_fill(struct kprof_stack_entry *e, u32 id,
		      struct kprof_stack *out);

/* kprof_agg.c: per-CPU, double-buffered interval tables. */
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
	u32 stack_id;
	u32 tgid;
	u64 samples;
	char comm[16];
	u8 views;	/* bit N - 1: the task is in view N's process, cgroup */
};

struct kprof_tcp_slot {
	struct kprof_tcp_key key;
	u64 count;
	u64 sum_ns;
	u64 min_ns;
	u64 max_ns;
	u32 hist[KPROF_HIST_BUCKETS];
};

int kprof_agg_init(void);
void kprof_agg_exit(void);
void kprof_agg_tcp_add(const struct kprof_tcp_key *key, u64 lat_ns);
void kprof_agg_count(enum kprof_counter c);
void kprof_agg_sample(const struct task_struct *t, u32 stack_id,
		      bool stack_dropped, u8 views);
unsigned int kprof_hist_index(u64 v);
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

/* kprof_export.c: the mmap region and interval publication. */
int kprof_export_init(void);
void kprof_export_exit(void);
u64 kprof_export_size(void);
int kprof_export_mmap(struct file *file, struct vm_area_struct *vma);
int kprof_export_snapshot(u64 upto, u64 *generation, u64 *seq);
void kprof_export_clear(void);
u64 kprof_export_drops(void);
u64 kprof_export_sample_drops(void);
u64 kprof_export_snapshots(void);
u64 kprof_export_generation(void);

/* kprof_ctl.c: the control operations, serialised by one mutex. */
u64 kprof_ctl_features(void);
void kprof_ctl_info(struct kprof_info *info);
struct kprof_session;
struct kprof_session *kprof_ctl_open(void);
void kprof_ctl_release(struct kprof_session *s);
int kprof_ctl_start(struct kprof_session *s, u32 what);
int kprof_ctl_stop(struct kprof_session *s, u32 what);
void kprof_ctl_sessions(struct kprof_session *self, struct kprof_sessions *out);
int kprof_ctl_reset(struct kprof_session *s, u32 what);
int kprof_ctl_set_config(struct kprof_session *s,
			 const struct kprof_config *cfg);
void kprof_ctl_get_config(struct kprof_config *cfg);
int kprof_ctl_snapshot(struct kprof_session *s, u64 *generation, u8 *view);
void kprof_ctl_stats(struct kprof_stats *st);
int kprof_ctl_get_stack(struct kprof_stack_query *q);
int kprof_ctl_cpu_cost(struct kprof_cpu_cost *c);
bool kprof_ctl_running(void);
void kprof_ctl_guard_rate(unsigned int cpu, unsigned int shift);

/* kprof_sample.c: CPU stack sampling with per-CPU perf events. */
void kprof_sample_init(void);
void kprof_sample_exit(void);
int kprof_sample_start(void);
void kprof_sample_stop(void);
bool kprof_sample_running(void);
bool kprof_sample_cpu_unsampled(unsigned int cpu);
bool kprof_sample_hw(void);
u32 kprof_sample_hz(void);
int kprof_sample_set_hz(u32 hz);
u32 kprof_sample_cpu_hz(unsigned int cpu);
void kprof_sample_set_shift(unsigned int cpu, unsigned int shift);
void kprof_sample_regs(struct pt_regs *regs);

/* kprof_nmi_test.c: test builds only, cpu-clock samples taken in NMI. */
#ifdef KPROF_TEST_NMI
bool kprof_nmi_test_sample(struct pt_regs *regs);
int kprof_nmi_test_init(void);
void kprof_nmi_test_exit(void);
#else
static inline bool kprof_nmi_test_sample(struct pt_regs *regs)
{
	return false;
}

static inline int kprof_nmi_test_init(void)
{
	return 0;
}

static inline void kprof_nmi_test_exit(void)
{
}
#endif

/*
 * kprof_guard.c: the overhead guard.  Handlers bracket their work with
 * begin/end (a kind from KPROF_COST_*) and ask before optional work.
 */
u64 kprof_guard_timed_begin(void);
void kprof_guard_timed_end(unsigned int kind, u64 t0);

/*
 * Each CPU's handler calls by kind, written only by its handlers; from
 * alloc_percpu() at load, before any handler can run, like all of the
 * module's per-CPU data (the static per-CPU area is every module's).
 */
struct kprof_guard_calls {
	u64 n[KPROF_COST_NR];
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

bool kprof_guard_skip_stack(bool sampler);
bool kprof_guard_skip_request(void);
void kprof_guard_kick(void);
void kprof_guard_stats(struct kprof_stats *st);
int kprof_guard_cpu_cost(struct kprof_cpu_cost *c);
int kprof_guard_init(void);
void kprof_guard_exit(void);
void kprof_guard_free(void);

/* kprof_tcp.c: request/response latency from kprobes. */
int kprof_tcp_init(void);
void kprof_tcp_exit(void);
int kprof_tcp_start(void);
void kprof_tcp_stop(void);
bool kprof_tcp_running(void);
bool kprof_tcp_start_possible(void);
u32 kprof_tcp_attach(void);
u32 kprof_tcp_inflight(void);
u32 kprof_tcp_inflight_dead(void);
int kprof_tcp_prepare_config(const struct kprof_config *cfg,
			     struct kprof_config **out);

/*
 * A view (API 3.0): the filters of a session that rows do not carry (the
 * process, the cgroup, local ports), checked for every request tracked
 * so that the session can keep exactly those.
 */
struct kprof_view {
	u64 cgroup_id;
	u32 tgid;
	u32 since;		/* kprof_run_config.gen when it became this */
	u16 nr_lports;
	u16 lports[KPROF_MAX_PORTS];
};

/* What runs: the holders' configurations widened into one, their views. */
struct kprof_run_config {
	struct kprof_config c;
	u32 gen;		/* installs since load */
	u8 views;		/* bit N - 1: view N is a session's */
	u32 views_since;	/* the newest of their since */
	struct kprof_view view[KPROF_MAX_VIEWS];
	struct rcu_head rcu;	/* freed after the handlers that read it */
};

void kprof_tcp_set_config(struct kprof_run_config *n);
void kprof_tcp_get_config(struct kprof_config *cfg);
const struct kprof_run_config *kprof_tcp_run_config(void);
u64 kprof_tcp_threshold(void);
/*
 * Is current inside the configured cgroup (if any)?  Then *@views are the
 * views whose process and cgroup it is in.  Any context.
 */
bool kprof_cfg_task_wanted(u8 *views);

#endif /* _KPROF_H */
