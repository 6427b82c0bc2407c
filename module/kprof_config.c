// SPDX-License-Identifier: GPL-2.0
/*
 * The configuration: the module parameters, fixed at load but for the
 * guard's budget, and the configuration that runs, which the control
 * operations install (kprof_cfg_install()) and the TCP probes and the
 * sampler read, in their handlers, under RCU.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
#define KPROF_UNIT KPROF_UNIT_CONFIG

#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/module.h>
#include <linux/pid.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/stringify.h>

#include "kprof_config.h"
#include "compat/kprof_compat_rcu.h"

#define KPROF_MAX_THRESHOLD_NS	(100ULL * NSEC_PER_SEC)

/* The numeric parameters' variables, from kprof_params.h. */
#define KPROF_PARAM(name, var, def, min, max, mode, desc)	\
	unsigned int var = def
#include "kprof_params.h"
#undef KPROF_PARAM

struct kprof_uint_param {
	unsigned int *val;
	unsigned int min;
	unsigned int max;
};

static int kprof_param_set(const char *arg, const struct kernel_param *kp)
{
	const struct kprof_uint_param *p = kp->arg;
	unsigned int v;

	if (kstrtouint(arg, 0, &v) || v < p->min || v > p->max) {
		pr_err("%s=%s: expected a number from %u to %u\n", kp->name,
		       arg, p->min, p->max);
		return -EINVAL;
	}
	WRITE_ONCE(*p->val, v);
	return 0;
}

static int kprof_param_get(char *buf, const struct kernel_param *kp)
{
	const struct kprof_uint_param *p = kp->arg;

	return sprintf(buf, "%u\n", *p->val);
}

static const struct kernel_param_ops kprof_uint_ops = {
	.set = kprof_param_set,
	.get = kprof_param_get,
};

/* Each one's range for kprof_param_set(), and the parameter. */
#define KPROF_PARAM(name, var, def, min, max, mode, desc)		\
	static struct kprof_uint_param kprof_param_##name = {		\
		&(var), min, max					\
	};								\
	module_param_cb(name, &kprof_uint_ops, &kprof_param_##name, mode)
#include "kprof_params.h"
#undef KPROF_PARAM

/* Each one's description, with its default and range. */
#define KPROF_PARAM(name, var, def, min, max, mode, desc)		\
	MODULE_PARM_DESC(name, desc ", default " __stringify(def)	\
			 " (" __stringify(min) ".." __stringify(max) ")")
#include "kprof_params.h"
#undef KPROF_PARAM

/* Endpoint privacy: KPROF_ENDPOINTS_*, see uapi/linux/kprof.h. */
unsigned int kprof_endpoints = KPROF_ENDPOINTS_FULL;

static const char * const kprof_endpoints_names[] = {
	[KPROF_ENDPOINTS_FULL] = "full",
	[KPROF_ENDPOINTS_PREFIX] = "prefix",
	[KPROF_ENDPOINTS_HASH] = "hash",
};

static int kprof_endpoints_set(const char *arg, const struct kernel_param *kp)
{
	int i = sysfs_match_string(kprof_endpoints_names, arg);

	if (i < 0) {
		pr_err("%s=%s: expected full, prefix or hash\n", kp->name, arg);
		return -EINVAL;
	}
	kprof_endpoints = i;
	return 0;
}

static int kprof_endpoints_get(char *buf, const struct kernel_param *kp)
{
	return sprintf(buf, "%s\n", kprof_endpoints_names[kprof_endpoints]);
}

static const struct kernel_param_ops kprof_endpoints_ops = {
	.set = kprof_endpoints_set,
	.get = kprof_endpoints_get,
};

module_param_cb(endpoints, &kprof_endpoints_ops, NULL, 0444);
MODULE_PARM_DESC(endpoints, "remote addresses: full, prefix (IPv4 /24, IPv6 /64) or hash (keyed per load), default full");

const char *kprof_endpoints_name(void)
{
	return kprof_endpoints_names[kprof_endpoints];
}

/* ---- the configuration that runs ---- */

struct kprof_run_config __rcu *kprof_cfg;

/*
 * Check @cfg and copy it into *@out for kprof_cfg_install(); nothing
 * changes before that.
 */
int kprof_cfg_prepare(const struct kprof_config *cfg,
		      struct kprof_config **out)
{
	struct kprof_config *n;
	u16 i;

	if (cfg->roles & ~((1U << KPROF_ROLE_CLIENT) |
			   (1U << KPROF_ROLE_SERVER)))
		return -EINVAL;
	if (cfg->families & ~(KPROF_FAMILY_INET | KPROF_FAMILY_INET6))
		return -EINVAL;
	if (cfg->nr_rports > KPROF_MAX_PORTS ||
	    cfg->nr_lports > KPROF_MAX_PORTS ||
	    cfg->threshold_ns > KPROF_MAX_THRESHOLD_NS)
		return -EINVAL;
	if (cfg->reserved0 || cfg->reserved1 || cfg->reserved2 ||
	    cfg->reserved3 || memchr_inv(cfg->reserved, 0, sizeof(cfg->reserved)))
		return -EINVAL;
	for (i = 0; i < cfg->nr_rports; i++)
		if (!cfg->rports[i])
			return -EINVAL;
	for (i = 0; i < cfg->nr_lports; i++)
		if (!cfg->lports[i])
			return -EINVAL;
	if (cfg->tgid > PID_MAX_LIMIT)
		return -EINVAL;
	if (cfg->cgroup_id && !KPROF_HAVE_CGROUP)
		return -EOPNOTSUPP;

	n = kmemdup(cfg, sizeof(*cfg), GFP_KERNEL);
	if (!n)
		return -ENOMEM;
	n->size = sizeof(*n);
	*out = n;
	return 0;
}

/* A replaced configuration, once no handler holds it. */
static void kprof_cfg_free_rcu(struct rcu_head *head)
{
	kfree(container_of(head, struct kprof_run_config, rcu));
}

/*
 * Install @n, which it now owns.  The handlers see it from their next
 * hit; one already running may finish on the old configuration, which is
 * freed after it, without waiting here (kprof_call_after_handlers()): a
 * session that comes or goes with filters of its own changes the
 * configuration twice, and two grace periods under the control lock
 * (30 ms a session under emulation) held every other session and
 * snapshot back.  A request that such a handler
 * starts on the old configuration is marked with the old generation's
 * views (kprof_views_at_end()).
 */
void kprof_cfg_install(struct kprof_run_config *n)
{
	struct kprof_run_config *old =
		rcu_dereference_protected(kprof_cfg, true);
	const struct kprof_config *c = &n->c;

	/* one test on every request when, as mostly, nothing filters */
	n->filtered = c->families || c->tgid || c->cgroup_id || c->roles ||
		      c->nr_rports || c->nr_lports;
	rcu_assign_pointer(kprof_cfg, n);
	if (old)
		kprof_call_after_handlers(&old->rcu, kprof_cfg_free_rcu);
}

/* kprof_cfg_task_views() with a cgroup or a view to look at */
int notrace kprof_cfg_task_views_slow(const struct kprof_run_config *rc)
{
	int views = 0;
	u8 i;

	if (rc->c.cgroup_id && !kprof_current_in_cgroup(rc->c.cgroup_id))
		return -1;
	for (i = 0; rc->views >> i; i++)
		if ((rc->views & (1U << i)) &&
		    kprof_view_has_current(&rc->view[i]))
			views |= 1U << i;
	return views;
}

/* Caller serialises with kprof_cfg_install(). */
u64 kprof_cfg_threshold(void)
{
	return rcu_dereference_protected(kprof_cfg, true)->c.threshold_ns;
}

/* What runs; with kprof_cfg_install()'s caller's lock held. */
const struct kprof_run_config *kprof_cfg_run(void)
{
	return rcu_dereference_protected(kprof_cfg, true);
}

void kprof_cfg_get(struct kprof_config *cfg)
{
	*cfg = rcu_dereference_protected(kprof_cfg, true)->c;
}

/* At load, before the handlers: the defaults, until a session sets one. */
int kprof_cfg_init(void)
{
	struct kprof_run_config *c = kzalloc(sizeof(*c), GFP_KERNEL);

	if (!c)
		return -ENOMEM;
	c->c.size = sizeof(c->c);
	c->c.threshold_ns = NSEC_PER_MSEC;
	RCU_INIT_POINTER(kprof_cfg, c);
	return 0;
}

/* At unload, after every handler is gone. */
void kprof_cfg_exit(void)
{
	/* the replaced configurations' callbacks are module code */
	kprof_barrier_after_handlers();
	kfree(rcu_dereference_protected(kprof_cfg, true));
	RCU_INIT_POINTER(kprof_cfg, NULL);
}
