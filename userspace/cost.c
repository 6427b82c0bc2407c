// SPDX-License-Identifier: GPL-2.0
/*
 * kprof reader: the module's own cost and its overhead guard.
 */
#include <stddef.h>
#include <stdio.h>

#include "cost.h"

static const char *const kinds[] = {
	[KPROF_COST_SENDMSG] = "sendmsg",
	[KPROF_COST_RECV] = "recv",
	[KPROF_COST_CONNECT] = "connect",
	[KPROF_COST_CLOSE] = "close",
	[KPROF_COST_SAMPLE] = "sample",
};

int kp_stats_have_guard(const struct kprof_stats *st)
{
	return st->size >= offsetof(struct kprof_stats, shed_requests) +
			   sizeof(st->shed_requests);
}

uint64_t kp_cost_total(const struct kprof_stats *st, uint64_t *calls)
{
	uint64_t ns = 0, n = 0;
	unsigned int k;

	for (k = 0; k < KPROF_COST_NR; k++) {
		ns += st->cost_ns[k];
		n += st->cost_calls[k];
	}
	if (calls)
		*calls = n;
	return ns;
}

const char *kp_guard_level_name(unsigned int level)
{
	static const char *const names[] = {
		"none", "no-stacks", "low-rate", "no-tcp",
	};

	return level < sizeof(names) / sizeof(names[0]) ? names[level] : "?";
}

char *kp_fmt_ppm(char *buf, size_t len, uint64_t ppm)
{
	if (ppm % 10000 == 0)
		snprintf(buf, len, "%llu%%", (unsigned long long)(ppm / 10000));
	else
		snprintf(buf, len, "%.4g%%", (double)ppm / 10000.0);
	return buf;
}

json_object *kp_json_cost(const __u64 *ns, const __u64 *calls)
{
	json_object *o = json_object_new_object();
	unsigned int k;

	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		json_object *x = json_object_new_object();

		json_object_object_add(x, "ns", json_object_new_uint64(ns[k]));
		json_object_object_add(x, "calls",
				       json_object_new_uint64(calls[k]));
		json_object_object_add(o, kinds[k], x);
	}
	return o;
}

json_object *kp_json_guard(const struct kprof_stats *a,
			   const struct kprof_stats *b)
{
	static const struct kprof_stats zero;
	json_object *o = json_object_new_object(), *s;
	unsigned int i;

	if (!a)
		a = &zero;
	json_object_object_add(o, "budget_ppm",
			       json_object_new_uint64(b->budget_ppm));
	json_object_object_add(o, "level", json_object_new_uint64(b->guard_level));
	json_object_object_add(o, "level_name",
			       json_object_new_string(kp_guard_level_name(b->guard_level)));
	json_object_object_add(o, "cpus_shedding",
			       json_object_new_uint64(b->guard_cpus));
	json_object_object_add(o, "load_ppm_max",
			       json_object_new_uint64(b->load_ppm));
	s = json_object_new_array();
	for (i = 0; i < 3; i++)
		json_object_array_add(s, json_object_new_uint64(b->guard_steps[i] -
								a->guard_steps[i]));
	json_object_object_add(o, "steps", s);
	json_object_object_add(o, "recoveries",
			       json_object_new_uint64(b->guard_recoveries -
						      a->guard_recoveries));
	json_object_object_add(o, "shed_stacks",
			       json_object_new_uint64(b->shed_stacks - a->shed_stacks));
	json_object_object_add(o, "shed_requests",
			       json_object_new_uint64(b->shed_requests -
						      a->shed_requests));
	return o;
}
