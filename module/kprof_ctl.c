// SPDX-License-Identifier: GPL-2.0
/*
 * The control operations behind the ioctls.  One mutex serialises them
 * all (start, stop, reset, configuration, snapshot, statistics); the
 * probe and overflow handlers never take it.
 *
 * Every open file of /dev/kprof is a session.  What runs is what the open
 * sessions started: TCP tracing (or CPU sampling) starts with the first
 * session that asks for it and stops when the last session holding it
 * stops it or goes away.  A session goes away at the file's release: its
 * last close, at exit or on a kill, whatever the reader did before.  STOP
 * stops only what the calling session holds.
 *
 * Every session keeps the configuration it set; what runs is those of the
 * sessions holding something, widened into one (kprof_config_widen()),
 * so that each reader's filters let through at least what it asked for.
 * A holder that filters on what rows do not carry (the process, the
 * cgroup, local ports) gets a view of its own (kprof_views_assign()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
#define KPROF_UNIT KPROF_UNIT_CTL

#include <linux/cpumask.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "kprof_agg.h"
#include "kprof_config.h"
#include "kprof_ctl.h"
#include "kprof_export.h"
#include "kprof_guard.h"
#include "kprof_sample.h"
#include "kprof_stack.h"
#include "kprof_tcp.h"
#include "compat/kprof_compat_cgroup.h"
#include "compat/kprof_compat_compiler.h"

static DEFINE_MUTEX(kprof_ctl_lock);

/* The overhead guard's work item, see kprof_ctl_guard_tick(). */
static void kprof_ctl_guard_tick(struct work_struct *w);
static DECLARE_DELAYED_WORK(kprof_ctl_guard_work, kprof_ctl_guard_tick);

struct kprof_session {
	struct list_head node;	/* in kprof_session_list, oldest first */
	struct pid *opener;	/* the opener's thread group */
	u64 opened_ns;
	u64 started_ns;		/* held went non-zero; 0 while nothing held */
	u32 held;		/* KPROF_RUN_* this session started */
	/* snapshots: the last one, and the one before (copied by now) */
	u64 last_seq, done_seq;
	struct kprof_config *cfg;	/* as this session set it, or NULL */
	/* its view: 1..KPROF_MAX_VIEWS, KPROF_VIEW_NONE, 0: needs none */
	u8 view;
	u32 view_since;		/* the kprof_run_config.gen it got it at */
	char comm[TASK_COMM_LEN];
};

/* Under kprof_ctl_lock: open sessions, and how many hold each KPROF_RUN_*. */
static LIST_HEAD(kprof_session_list);
static unsigned int kprof_sessions;
static unsigned int kprof_holders_tcp, kprof_holders_cpu;

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
	if (kprof_tcp_ftrace())
		f |= KPROF_FEAT_TCP_FTRACE;
	if (kprof_tcp_attach() & (KPROF_ATTACH_TP_RETRANSMIT |
				  KPROF_ATTACH_TP_SEND_RESET |
				  KPROF_ATTACH_TP_RECEIVE_RESET |
				  KPROF_ATTACH_KP_RETRANSMIT |
				  KPROF_ATTACH_KP_SEND_RESET |
				  KPROF_ATTACH_KP_RECEIVE_RESET))
		f |= KPROF_FEAT_TCP_HEALTH;
	if ((kprof_tcp_attach() & (KPROF_ATTACH_TP_SET_STATE |
				   KPROF_ATTACH_KP_SET_STATE)) &&
	    (kprof_tcp_attach() & KPROF_ATTACH_TCP_CONNECT))
		f |= KPROF_FEAT_TCP_CONNECT;
	return f | KPROF_FEAT_GUARD;
}

void kprof_ctl_info(struct kprof_info *info)
{
	mutex_lock(&kprof_ctl_lock);
	info->attach = kprof_tcp_attach();
	info->running = kprof_running_mask();
	info->sessions = kprof_sessions;
	info->holders_tcp = kprof_holders_tcp;
	info->holders_cpu = kprof_holders_cpu;
	mutex_unlock(&kprof_ctl_lock);
	info->features = kprof_ctl_features();
	info->mmap_size = kprof_export_size();
	info->tcp_rows_max = kprof_tcp_rows_max;
	info->stacks_max = kprof_stacks_max;
	info->inflight_max = kprof_inflight_max;
	info->endpoints = kprof_endpoints;
}

struct kprof_session *kprof_ctl_open(void)
{
	struct kprof_session *s = kzalloc(sizeof(*s), GFP_KERNEL);

	if (!s)
		return NULL;
	s->opener = get_pid(task_tgid(current));
	s->opened_ns = ktime_get_ns();
	get_task_comm(s->comm, current);
	mutex_lock(&kprof_ctl_lock);
	list_add_tail(&s->node, &kprof_session_list);
	kprof_sessions++;
	mutex_unlock(&kprof_ctl_lock);
	return s;
}

/* Add the ports @q to the list @p of *@nr; none (0) means any port. */
static void kprof_ports_widen(u16 *p, u16 *nr, const u16 *q, u16 nq)
{
	u16 i, j;

	if (!*nr)
		return;
	if (!nq) {
		*nr = 0;
		return;
	}
	for (i = 0; i < nq; i++) {
		for (j = 0; j < *nr && p[j] != q[i]; j++)
			;
		if (j < *nr)
			continue;
		if (*nr == KPROF_MAX_PORTS) {	/* too many: any port */
			*nr = 0;
			return;
		}
		p[(*nr)++] = q[i];
	}
}

/*
 * Widen @m so that it takes in whatever @c does: the union of roles,
 * families and ports (0, "all", wins), one process or cgroup only when
 * both name the same, the lower threshold and the higher sampling rate.
 */
static void kprof_config_widen(struct kprof_config *m,
			       const struct kprof_config *c)
{
	m->roles = m->roles && c->roles ? m->roles | c->roles : 0;
	m->families = m->families && c->families ?
		      m->families | c->families : 0;
	if (m->tgid != c->tgid)
		m->tgid = 0;
	if (m->cgroup_id != c->cgroup_id)
		m->cgroup_id = 0;
	m->threshold_ns = min(m->threshold_ns, c->threshold_ns);
	kprof_ports_widen(m->rports, &m->nr_rports, c->rports, c->nr_rports);
	kprof_ports_widen(m->lports, &m->nr_lports, c->lports, c->nr_lports);
	m->sample_hz = max(m->sample_hz, c->sample_hz);
}

static void kprof_sessions_lost_cpu(void);

/* Does @s need a view: does it hold something, filtering on what rows lack? */
static bool kprof_session_narrows(const struct kprof_session *s)
{
	return s->held && s->cfg &&
	       (s->cfg->tgid || s->cfg->cgroup_id || s->cfg->nr_lports);
}

static void kprof_view_of(struct kprof_view *v, const struct kprof_config *c,
			  u32 since)
{
	memset(v, 0, sizeof(*v));
	v->cgroup_id = c->cgroup_id;
	v->tgid = c->tgid;
	v->since = since;
	v->nr_lports = c->nr_lports;
	memcpy(v->lports, c->lports, v->nr_lports * sizeof(v->lports[0]));
}

/* Do @v and @w filter the same, given to their session at the same time? */
static bool kprof_view_same(const struct kprof_view *v,
			    const struct kprof_view *w)
{
	return v->cgroup_id == w->cgroup_id && v->tgid == w->tgid &&
	       v->since == w->since && v->nr_lports == w->nr_lports &&
	       !memcmp(v->lports, w->lports,
		       v->nr_lports * sizeof(v->lports[0]));
}

/* Do @a and @b run the same: configuration, views and their owners? */
static bool kprof_run_config_same(const struct kprof_run_config *a,
				  const struct kprof_run_config *b)
{
	u8 i;

	if (memcmp(&a->c, &b->c, sizeof(a->c)) || a->views != b->views)
		return false;
	for (i = 0; a->views >> i; i++)
		if ((a->views & (1U << i)) &&
		    !kprof_view_same(&a->view[i], &b->view[i]))
			return false;
	return true;
}

/*
 * Give the views of @rc (generation rc->gen) to the sessions that need
 * one: a session keeps its view while its filters stay the same (@old is
 * what ran: its view there says whether they did); a view that changes
 * hands or filters is new as of rc->gen, so that requests marked under
 * its previous owner are not its (kprof_views_at_end()).  A session that
 * finds all views taken gets KPROF_VIEW_NONE, and the next one that
 * frees up.
 */
static void kprof_views_assign(struct kprof_run_config *rc,
			       const struct kprof_run_config *old)
{
	struct kprof_session *s;
	u32 newest = U32_MAX;
	u8 i;

	lockdep_assert_held(&kprof_ctl_lock);
	rc->views = 0;
	list_for_each_entry(s, &kprof_session_list, node) {
		if (!kprof_session_narrows(s) || !s->view ||
		    s->view == KPROF_VIEW_NONE)
			continue;
		i = s->view - 1;
		kprof_view_of(&rc->view[i], s->cfg, s->view_since);
		if (!old || !(old->views & (1U << i)) ||
		    !kprof_view_same(&rc->view[i], &old->view[i])) {
			s->view = 0;	/* changed: a new view below */
			continue;
		}
		rc->views |= 1U << i;
	}
	list_for_each_entry(s, &kprof_session_list, node) {
		if (!kprof_session_narrows(s)) {
			s->view = 0;
			continue;
		}
		if (s->view && s->view != KPROF_VIEW_NONE &&
		    (rc->views & (1U << (s->view - 1))))
			continue;
		s->view = KPROF_VIEW_NONE;
		for (i = 0; i < KPROF_MAX_VIEWS; i++)
			if (!(rc->views & (1U << i)))
				break;
		if (i == KPROF_MAX_VIEWS)
			continue;
		s->view = i + 1;
		s->view_since = rc->gen;
		kprof_view_of(&rc->view[i], s->cfg, rc->gen);
		rc->views |= 1U << i;
	}
	/* the newest view's since: completions test it first */
	for (i = 0; i < KPROF_MAX_VIEWS; i++)
		if (rc->views & (1U << i))
			newest = min(newest, rc->gen - rc->view[i].since);
	rc->views_since = rc->gen - newest;
}

/* What a session that never set a configuration asks for: the defaults. */
static const struct kprof_config kprof_config_default = {
	.size = sizeof(struct kprof_config),
	.threshold_ns = NSEC_PER_MSEC,
};

/*
 * Install what the holders' configurations widen into (the defaults for
 * a holder that set none); with no holder, @fallback's (the caller of
 * SET_CONFIG), else the configuration in place stays.  A sampling rate
 * that cannot be set is an error, with the old rate kept (see
 * kprof_sample_set_hz()): when @strict nothing changes, else the rest is
 * installed all the same.
 */
static int kprof_config_apply(struct kprof_session *fallback, bool strict)
{
	const struct kprof_run_config *old = kprof_cfg_run();
	struct kprof_run_config *rc;
	struct kprof_config *m = NULL;
	struct kprof_session *s;
	int ret = 0;

	lockdep_assert_held(&kprof_ctl_lock);
	rc = kzalloc(sizeof(*rc), GFP_KERNEL);
	if (!rc)
		return -ENOMEM;
	list_for_each_entry(s, &kprof_session_list, node) {
		const struct kprof_config *c = s->cfg ?: &kprof_config_default;

		if (!s->held)
			continue;
		if (m) {
			kprof_config_widen(m, c);
		} else {
			m = &rc->c;
			*m = *c;
		}
	}
	if (!m && fallback && fallback->cfg) {
		m = &rc->c;
		*m = *fallback->cfg;
	}
	if (!m) {
		/* nothing held: no session needs a view */
		list_for_each_entry(s, &kprof_session_list, node)
			s->view = 0;
		kfree(rc);
		return 0;
	}
	if (m->sample_hz)
		ret = kprof_sample_set_hz(m->sample_hz);
	kprof_sessions_lost_cpu();
	if (ret && strict) {
		kfree(rc);
		return ret;
	}
	rc->gen = old->gen + 1;
	kprof_views_assign(rc, old);
	/*
	 * The same again (a session that starts or goes while the others'
	 * configurations cover its own): nothing to install, no grace
	 * period to wait for.
	 */
	if (kprof_run_config_same(rc, old)) {
		kfree(rc);
		return ret;
	}
	kprof_cfg_install(rc);
	return ret;
}

/* Drop @what from what @s holds; stop what no session holds any more. */
static void kprof_session_drop(struct kprof_session *s, u32 what)
{
	lockdep_assert_held(&kprof_ctl_lock);
	what &= s->held;
	s->held &= ~what;
	if (!s->held)
		s->started_ns = 0;
	if ((what & KPROF_RUN_CPU) && !--kprof_holders_cpu)
		kprof_sample_stop();
	if ((what & KPROF_RUN_TCP) && !--kprof_holders_tcp)
		kprof_tcp_stop();
}

/*
 * All or nothing: on failure, stop only what this call started, so that
 * what ran before the call still runs.  What is already running (another
 * session's) is not started again; what this session held stays held.
 */
int kprof_ctl_start(struct kprof_session *s, u32 what)
{
	u32 before, add;
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
	if (!ret) {
		add = what & ~s->held;
		if (!s->held)
			s->started_ns = ktime_get_ns();
		s->held |= add;
		kprof_holders_tcp += !!(add & KPROF_RUN_TCP);
		kprof_holders_cpu += !!(add & KPROF_RUN_CPU);
		/* its configuration joins what runs; a rate kept is no error */
		kprof_config_apply(NULL, false);
	}
	mutex_unlock(&kprof_ctl_lock);
	/* something started: watch it (a no-op while the work is queued) */
	if (!ret)
		schedule_delayed_work(&kprof_ctl_guard_work,
				      msecs_to_jiffies(KPROF_GUARD_TICK_MS));
	return ret;
}

/* Idempotent; what @s does not hold is left alone, whoever runs it. */
int kprof_ctl_stop(struct kprof_session *s, u32 what)
{
	if (!what || what & ~KPROF_RUN_ALL)
		return -EINVAL;
	mutex_lock(&kprof_ctl_lock);
	kprof_session_drop(s, what);
	kprof_config_apply(NULL, false);
	mutex_unlock(&kprof_ctl_lock);
	return 0;
}

/*
 * Sampling that a rate change could restart at neither rate is stopped
 * (see kprof_sample_set_hz()): no session holds it any more, so what
 * runs stays what the sessions hold.  A START starts it again.
 */
static void kprof_sessions_lost_cpu(void)
{
	struct kprof_session *s;

	lockdep_assert_held(&kprof_ctl_lock);
	if (!kprof_holders_cpu || kprof_sample_running())
		return;
	list_for_each_entry(s, &kprof_session_list, node)
		kprof_session_drop(s, KPROF_RUN_CPU);
}

/* The file's release: what @s held stops unless another session holds it. */
void kprof_ctl_release(struct kprof_session *s)
{
	mutex_lock(&kprof_ctl_lock);
	kprof_session_drop(s, KPROF_RUN_ALL);
	list_del(&s->node);
	kprof_sessions--;
	/* what runs narrows to the others' (kept as it is without memory) */
	kprof_config_apply(NULL, false);
	mutex_unlock(&kprof_ctl_lock);
	put_pid(s->opener);
	kfree(s->cfg);
	kfree(s);
}

void kprof_ctl_sessions(struct kprof_session *self, struct kprof_sessions *out)
{
	struct pid_namespace *ns = task_active_pid_ns(current);
	struct kprof_session_info *i;
	struct kprof_session *s;
	u32 room;

	/* the entries the caller's struct has room for (its size, checked) */
	room = (out->size - offsetof(struct kprof_sessions, s)) /
	       sizeof(out->s[0]);
	room = min_t(u32, room, KPROF_SESSIONS_MAX);
	mutex_lock(&kprof_ctl_lock);
	out->nr = kprof_sessions;
	list_for_each_entry(s, &kprof_session_list, node) {
		if (out->nr_listed == room)
			break;
		i = &out->s[out->nr_listed++];
		/* an opener gone may have left its number to another */
		rcu_read_lock();
		if (pid_task(s->opener, PIDTYPE_PID))
			i->tgid = pid_nr_ns(s->opener, ns);
		rcu_read_unlock();
		i->held = s->held;
		i->opened_ns = s->opened_ns;
		i->started_ns = s->started_ns;
		strscpy(i->comm, s->comm, sizeof(i->comm));
		i->self = s == self;
	}
	mutex_unlock(&kprof_ctl_lock);
}

/*
 * Stack IDs are shared by every reader: forget them only with nothing
 * running and no other session open, so that no reader's view changes.
 */
int kprof_ctl_reset(struct kprof_session *s, u32 what)
{
	int ret = 0;

	if (what != KPROF_RESET_STACKS)
		return -EINVAL;
	mutex_lock(&kprof_ctl_lock);
	if (kprof_running_mask() || kprof_sessions > 1) {
		ret = -EBUSY;
		goto out;
	}
	kprof_agg_clear();
	kprof_export_clear();
	kprof_stacks_reset();
out:
	mutex_unlock(&kprof_ctl_lock);
	return ret;
}

/*
 * All or nothing: the session's configuration is replaced, and what runs
 * is set again from every holder's; when that fails (no memory, or a rate
 * sampling cannot run at), the session's old one is put back.
 */
int kprof_ctl_set_config(struct kprof_session *s,
			 const struct kprof_config *cfg)
{
	struct kprof_config *n, *old;
	int ret;

	if (cfg->sample_hz > KPROF_SAMPLE_HZ_MAX || cfg->reserved3)
		return -EINVAL;
	ret = kprof_cfg_prepare(cfg, &n);
	if (ret)
		return ret;
	mutex_lock(&kprof_ctl_lock);
	old = s->cfg;
	s->cfg = n;
	ret = kprof_config_apply(s, true);
	if (ret) {
		s->cfg = old;
		kfree(n);
	} else {
		kfree(old);
	}
	mutex_unlock(&kprof_ctl_lock);
	return ret;
}

void kprof_ctl_get_config(struct kprof_config *cfg)
{
	mutex_lock(&kprof_ctl_lock);
	kprof_cfg_get(cfg);
	cfg->sample_hz = kprof_sample_hz();
	mutex_unlock(&kprof_ctl_lock);
}

/* Snapshots begun since load: written under kprof_ctl_lock. */
static unsigned long kprof_snaps_begun;

/*
 * A reader copies the region after its snapshot returns, so the snapshot
 * before its last one is the newest it surely has copied after: a row
 * nothing was added to since the oldest such snapshot of every reader is
 * in every reader's copy with its final counts, and can go.  A session
 * that has taken one snapshot or none holds back nothing, or everything.
 *
 * Group commit: each snapshot waits for a grace period, and they are
 * serialised, so readers that ask at once would queue for one each.  A
 * caller that finds, once it holds the lock, that a snapshot began after
 * its call did (and has ended, the lock being free) takes that one: it
 * holds every request completed before the call.  Its evictions were
 * decided with this session's older done_seq, which only holds back more.
 */
int kprof_ctl_snapshot(struct kprof_session *s, u64 *generation, u8 *view)
{
	struct kprof_session *o;
	unsigned long entry;
	u64 upto;
	int ret;

	/* what completed before the call, before the count is read */
	smp_mb();
	entry = READ_ONCE(kprof_snaps_begun);
	mutex_lock(&kprof_ctl_lock);
	*view = s->view;
	s->done_seq = s->last_seq;
	if (kprof_snaps_begun != entry) {
		s->last_seq = kprof_export_snapshots();
		*generation = kprof_export_generation();
		mutex_unlock(&kprof_ctl_lock);
		return 0;
	}
	WRITE_ONCE(kprof_snaps_begun, kprof_snaps_begun + 1);
	/* the count before the interval closes (see above) */
	smp_mb();
	upto = s->done_seq;
	list_for_each_entry(o, &kprof_session_list, node)
		if (o->last_seq)
			upto = min(upto, o->done_seq);
	ret = kprof_export_snapshot(upto, kprof_sample_running() ?
				    kprof_sample_hz() : 0, generation,
				    &s->last_seq);
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
	st->inflight_closed = kprof_tcp_inflight_closed();
	st->health_missed = kprof_tcp_health_missed();
	st->hooks_missed = kprof_tcp_hooks_missed();
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
	if (!ret) {
		c->sample_hz = kprof_sample_cpu_hz(c->cpu);
		c->unsampled = kprof_sample_cpu_unsampled(c->cpu);
	}
	mutex_unlock(&kprof_ctl_lock);
	return ret;
}

/* The guard's rate change for one CPU, serialised with start and stop. */
static void kprof_ctl_guard_rate(unsigned int cpu, unsigned int shift)
{
	mutex_lock(&kprof_ctl_lock);
	kprof_sample_set_shift(cpu, shift);
	mutex_unlock(&kprof_ctl_lock);
}

/*
 * The guard's work item (see kprof_guard.c): four times a second from a
 * start until nothing runs and no CPU sheds load any more.  What runs is
 * read without the lock (data_race()): a stale answer costs one more
 * tick, or one tick early.
 */
static void kprof_ctl_guard_tick(struct work_struct *w)
{
	bool shedding = kprof_guard_tick(kprof_ctl_guard_rate);

	/* unlocked, see above */
	if (!shedding && !data_race(kprof_running_mask())) {
		kprof_guard_rest();
		return;
	}
	schedule_delayed_work(&kprof_ctl_guard_work,
			      msecs_to_jiffies(KPROF_GUARD_TICK_MS));
}

/* At unload, after the device is gone: nothing can start the work again. */
void kprof_ctl_exit(void)
{
	cancel_delayed_work_sync(&kprof_ctl_guard_work);
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
