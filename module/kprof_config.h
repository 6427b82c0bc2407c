/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof_config.c: the module parameters and the configuration that runs,
 * which the TCP probes and the sampler read and the control operations
 * install.
 */
#define KPROF_HEADER_UNIT KPROF_UNIT_CONFIG
#include "kprof_layer.h"

#ifndef _KPROF_CONFIG_H
#define _KPROF_CONFIG_H

#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/types.h>
#include <linux/kprof.h>

#include "compat/kprof_compat_cgroup.h"

/* The module parameters, see kprof_params.h. */
#define KPROF_PARAM(name, var, def, min, max, mode, desc)	\
	extern unsigned int var
#include "kprof_params.h"
#undef KPROF_PARAM

/* Endpoint privacy: KPROF_ENDPOINTS_*, see uapi/linux/kprof.h. */
extern unsigned int kprof_endpoints;
const char *kprof_endpoints_name(void);

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
	bool filtered;		/* @c filters requests at all */
	u32 views_since;	/* the newest of their since */
	struct kprof_view view[KPROF_MAX_VIEWS];
	struct rcu_head rcu;	/* freed after the handlers that read it */
};

/*
 * What runs, for the handlers (rcu_dereference_sched(): preemption is off
 * in them); installed by kprof_cfg_install().
 */
extern struct kprof_run_config __rcu *kprof_cfg;

/* Is current in @w's process and cgroup (those it names)?  Any context. */
static inline bool kprof_view_has_current(const struct kprof_view *w)
{
	return (!w->tgid || w->tgid == current->tgid) &&
	       (!w->cgroup_id || kprof_current_in_cgroup(w->cgroup_id));
}

int kprof_cfg_init(void);
void kprof_cfg_exit(void);
int kprof_cfg_prepare(const struct kprof_config *cfg,
		      struct kprof_config **out);
/* The caller serialises these four. */
void kprof_cfg_install(struct kprof_run_config *n);
const struct kprof_run_config *kprof_cfg_run(void);
void kprof_cfg_get(struct kprof_config *cfg);
u64 kprof_cfg_threshold(void);
int kprof_cfg_task_views_slow(const struct kprof_run_config *rc);

/*
 * Is current inside the configured cgroup (if any)?  Then the views whose
 * process and cgroup it is in (a mask, bit N - 1 for view N), else -1.
 * Any context; inline, as every sample asks: with no cgroup and no view
 * (the common case) it is three loads.
 */
static __always_inline int kprof_cfg_task_views(void)
{
	const struct kprof_run_config *rc = rcu_dereference_sched(kprof_cfg);

	if (!rc || (!rc->c.cgroup_id && !rc->views))
		return 0;
	return kprof_cfg_task_views_slow(rc);
}

#endif /* _KPROF_CONFIG_H */
